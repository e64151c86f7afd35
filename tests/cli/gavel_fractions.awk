# gavel_fractions.awk: the realised fractions of time of each job on each GPU type, from a
# simulate --events log (JSON Lines, in time order): time holding GPUs of the type named in
# the detail of its start/resume event, over the window [0, T], T = -v until=SECONDS or, by
# default, the first completion. Prints job,gpu_type,fraction (6 decimals).
function val(k,   r) {
	r = $0
	if (!match(r, "\"" k "\":[^,}]*")) return ""
	r = substr(r, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
	gsub(/"/, "", r)
	return r
}
BEGIN { T = until + 0 }
{ t = val("time") + 0; j = val("job"); e = val("event") }
T && t > T { exit }
e == "finish" && !T { T = t }
(e == "preempt" || e == "finish") && (j in on) { got[j "," ty[j]] += t - on[j]; delete on[j] }
e == "start" || e == "resume" { on[j] = t; ty[j] = val("detail") }
END { for (j in on) got[j "," ty[j]] += T - on[j]; for (k in got) printf "%s,%.6f\n", k, got[k] / T }
