# t_simulate_exact.sh: simulated time is exact at any offset (dlsched-simulate(1), TIME).
GOLDEN_CREATE=${GOLDEN_CREATE:-} UPDATE_GOLDEN=${UPDATE_GOLDEN:-}
S=$TESTDATA/simulate

# Issue 12's reproducer: past 2^23 s the MLFQ demotion timer of a double-valued clock re-armed
# at now + tiny == now and the loop spun. The job runs alone: start = submit, 84059 s later it
# ends (its demotions at 406.25 s and 900 s of running change nothing on an idle node).
printf 'id,submit,gpus,duration\na,8388548.314,8,84059\n' > repro.csv
for p in tiresias-las tiresias-gittins; do
	run "simulate_exact_repro_$p" 0 "timeout 60 dl simulate --cluster 1x1x8 --policy $p \
		--events ev.jsonl repro.csv > r.csv"
	expect "simulate_exact_repro_${p}_row" "grep -q '^a,8388548.314,8,84059,8388548.314,8472607.314,84059,0,84059,0,0,node,1,v100,$p,1,0,,672472\$' r.csv"
	expect "simulate_exact_repro_${p}_demotes" "grep -q '\"time\":8388954.564,\"job\":\"a\",\"event\":\"demote\"' ev.jsonl && grep -q '\"time\":8389448.314,\"job\":\"a\",\"event\":\"demote\"' ev.jsonl"
done

# The property: shifting every submit by D shifts every time the simulator writes by exactly D
# and leaves every other byte alone (results, event log and timeline), for every policy, at
# offsets from 2^23 s to 9,999,000,000 s (submits stay under 1e10 s, the jobs stream's limit;
# the outputs go past it). Shifts are done on the text (shift.awk), so nothing here rounds. The traces: small.csv (ties, preemption, demotion with --thresholds), a generated
# contended trace with millisecond submits, GPU types of speed 0.3 and 1 (rates that are not
# 1: completions rounded to the microsecond), and network slowdown from spread placement.
cat > shift.awk << 'EOF'
# add d seconds (an integer) to the CSV columns in `cols`, or to every "time": of JSON Lines
function sh(v,   i, f) {
	if (v == "") return v
	i = index(v, "."); f = ""
	if (i) { f = substr(v, i); v = substr(v, 1, i - 1) }
	return sprintf("%.0f", v + d) f
}
BEGIN { FS = OFS = ","; n = split(cols, c, " ") }
json { if (match($0, /"time":[0-9.]+/)) $0 = substr($0, 1, RSTART + 6) sh(substr($0, RSTART + 7, RLENGTH - 7)) substr($0, RSTART + RLENGTH); print; next }
NR == 1 { print; next }
{ for (k = 1; k <= n; k++) $(c[k]) = sh($(c[k])); print }
EOF
shift_run() { # NAME TRACE SHIFT ARGS...: run on the trace shifted by SHIFT, shift the outputs back
	_n=$1 _t=$2 _d=$3
	shift 3
	awk -v d="$_d" -v cols=2 -f shift.awk "$_t" > "in_$_n.csv"
	dl simulate "$@" --events "ev_$_n.jsonl" --timeline "tl_$_n.csv" "in_$_n.csv" > "o_$_n.csv" 2> "e_$_n.txt" || echo "failed: $*" >> fails.txt
	awk -v d="-$_d" -v cols="2 5 6" -f shift.awk "o_$_n.csv" > "res_$_n.csv"
	awk -v d="-$_d" -v json=1 -f shift.awk "ev_$_n.jsonl" > "evs_$_n.jsonl"
	awk -v d="-$_d" -v cols=1 -f shift.awk "tl_$_n.csv" > "tls_$_n.csv"
}
same() { # A B: results, events, timelines and stderr byte-identical
	cmp -s "res_$1.csv" "res_$2.csv" && cmp -s "evs_$1.jsonl" "evs_$2.jsonl" &&
		cmp -s "tls_$1.csv" "tls_$2.csv" && cmp -s "e_$1.txt" "e_$2.txt"
}
check_shifts() { # NAME TRACE CLUSTER MLFQ-OPTS OPTS: every policy, every shift
	for p in fifo fifo-backfill sjf srtf las tiresias-las tiresias-gittins themis dally; do
		# dally places jobs itself: it takes no --place
		case $p in tiresias-*) o="$4 $5" ;; dally) o=$(echo "$5" | sed 's/--place [a-z-]*//') ;; *) o=$5 ;; esac
		# shellcheck disable=SC2086 # $o is a list of options
		shift_run "$1_${p}_0" "$2" 0 --cluster "$3" --policy $p $o
		bad=
		for d in $shifts; do
			# shellcheck disable=SC2086
			shift_run "$1_${p}_$d" "$2" "$d" --cluster "$3" --policy $p $o
			same "$1_${p}_0" "$1_${p}_$d" || bad="$bad $d"
		done
		expect_eq "simulate_exact_shift_$1_$p" "" "$bad"
	done
}
: > fails.txt
if heavy; then
	shifts="8388608 1073741824 1700000000 9999000000"
	check_shifts small "$S/small.csv" 1x1x8 "--thresholds 100,400" ""
	dl trace gen --seed 7 --jobs 300 --load 1.3 --cluster 2x4x8 > gen.csv
	# generated for 64 GPUs, run on 16: queues, preemptions, demotions and promotions
	check_shifts gen gen.csv 1x2x8 "--starvation 2" "--checkpoint-cost 0 --restore-cost 0"
	printf 'id,submit,gpus,duration,gpu_type,model\n' > mixed.csv
	cols id..duration gen.csv | awk 'NR > 1 && NR < 150 { t = (NR % 3 == 0) ? "k80" : (NR % 3 == 1) ? "v100" : ""; m = (NR % 2) ? "vgg16" : "resnet50"; print $0 "," t "," m }' >> mixed.csv
	check_shifts mixed mixed.csv 1x2x8:k80,1x2x8:v100 "--thresholds 500,2000" "--place spread"
else
	shifts="8388608 9999000000"
	check_shifts small "$S/small.csv" 1x1x8 "--thresholds 100,400" ""
fi
expect_eq simulate_exact_shift_all_ran "" "$(cat fails.txt)"
# the runs did something worth comparing: preemptions, demotions, slowed and slow jobs
if heavy; then
	expect simulate_exact_shift_preempts 'cols preemptions res_gen_tiresias-las_0.csv -e "NR>1{p+=\$1} END{exit !(p>0)}"'
	expect simulate_exact_shift_demotes 'grep -q "\"event\":\"demote\"" evs_gen_tiresias-las_0.jsonl && grep -q "\"event\":\"promote\"" evs_gen_tiresias-las_0.jsonl'
	expect simulate_exact_shift_rates 'grep -q ",k80," res_mixed_fifo_0.csv && cols slowdown res_mixed_fifo_0.csv -e "NR>1 && \$1 > 1 {n++} END{exit !(n>0)}"'
	# times near 1e10 s keep all six decimals (a double there holds five or six)
	expect simulate_exact_shift_big_times 'grep -Eq ",9999[0-9]{6}\.[0-9]{6}," o_gen_fifo_9999000000.csv'
fi

# the clock's resolution: seven decimals round to the microsecond (a tie away from zero);
# a duration that rounds to zero is a bad value naming its line
printf 'id,submit,gpus,duration\na,0.0000015,1,2.0000005\n' > round.csv
run simulate_exact_rounding 0 "dl simulate --cluster 1x1x8 --policy fifo round.csv"
expect simulate_exact_rounding_row "grep -q '^a,2e-06,1,2.000001,2e-06,2.000003,2.000001,0,2.000001,' out"
printf 'id,submit,gpus,duration\na,0,1,1\nb,1,1,0.0000004\n' > tiny.csv
run_says simulate_exact_too_short 1 "dl simulate --cluster 1x1x8 tiny.csv" \
	"dlsched simulate: tiny.csv:3: bad duration value '0.0000004': under the simulator's resolution (1 microsecond)"

# Reading: rows of plain decimals take a short parse (lib/sim/trace.c, plain_row), the rest
# the full one; both must give the same jobs. The same trace with every time written
# otherwise (an exponent, leading or trailing zeros, seven decimals: the full parse) gives
# byte-identical results for every policy.
printf 'id,submit,gpus,duration\na,0,1,7.000000\nb,1.5,2,100\nc,2.25,1,2.5\nd,3,4,50.125\n' > plain.csv
printf 'id,submit,gpus,duration\na,0e0,1,7\nb,01.50,2,100.0\nc,2.250,1,2.5000000\nd,3e0,4,5.0125e1\n' > spelt.csv
for p in fifo srtf tiresias-las; do
	run "simulate_exact_spelling_$p" 0 "dl simulate --cluster 1x1x4 --policy $p plain.csv > a.csv && dl simulate --cluster 1x1x4 --policy $p spelt.csv > b.csv"
	expect "simulate_exact_spelling_${p}_same" "cmp -s a.csv b.csv && grep -q '^d,3,4,50.125,' a.csv"
done
if heavy; then
	awk -F, 'BEGIN { OFS = "," } NR > 1 { $2 = $2 "e0"; $4 = $4 "e0" } { print }' gen.csv > gen_e0.csv
	for p in fifo las tiresias-gittins; do
		run "simulate_exact_spelling_gen_$p" 0 "dl simulate --cluster 1x2x8 --policy $p gen.csv > a.csv && dl simulate --cluster 1x2x8 --policy $p gen_e0.csv > b.csv"
		expect "simulate_exact_spelling_gen_${p}_same" "cmp -s a.csv b.csv"
	done
fi
