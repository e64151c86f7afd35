# t_trace_gavel.sh: trace gen --preset gavel, Gavel's continuous-trace generator
# (dlsched-trace(1), GEN OPTIONS): its distributions checked on seeded samples of 20,000
# jobs generated here, against the closed forms.
# shellcheck shell=sh

GT=$TESTDATA/allocate/gavel_throughputs.csv.gz
G="dl trace gen --preset gavel --throughputs '$GT'"

# a small trace, byte for byte (same seed, same bytes on every build); its rows were
# checked by hand: steps / duration is the model's throughput on that many v100s
run trace_gen_gavel_preset 0 "$G --seed 3 --jobs 6 --rate 5.6 --weights 1:0.8,5:0.2"
expect_eq "gavel preset: steps / duration is the v100 throughput" "" \
	"$(cols id,gpus,duration,model,steps "$SCRATCH/out" > "$SCRATCH/out.cols" &&
		zcat "$GT" | cols model,gpu_type,gpus,throughput,partner |
		awk -F, 'FNR == NR { if ($2 == "v100" && $5 == "") t[$1 "," $3] = $4; next }
		FNR > 1 { r = $5 / $3; w = t[$4 "," $2]; if (!w) { print $1 " not in the table"; next }
			d = r / w - 1; if (d > 1e-9 || d < -1e-9) print $1 }' \
		- "$SCRATCH/out.cols")"

# ---- gang sizes 1/2/4/8 with shares 0.7/0.1/0.15/0.05 (5 standard deviations) ----
run "gavel preset: 20,000 jobs" 0 "$G --seed 11 --jobs 20000 --rate 5.6 > g.csv && dl trace stats -f csv g.csv > s.csv"
for gp in 1:0.7 2:0.1 4:0.15 8:0.05; do
	g=${gp%:*} p=${gp#*:}
	expect "gavel preset: share of $g-GPU jobs is $p" \
		"cols metric,value s.csv -v p=$p -e '\$1 == \"jobs_with_${g}_gpus\" { s = \$2 / 20000; sd = sqrt(p * (1 - p) / 20000); exit !(s > p - 5 * sd && s < p + 5 * sd) }'"
done
expect_eq "gavel preset: no other gang size" 4 "$(grep -c 'jobs_with_' "$SCRATCH/s.csv")"

# ---- durations 60*10^U(1.5,3) with probability 0.8, else 60*10^U(3,4): the quantiles of
# the mixture are Q(q) = 60*10^(1.5 + 1.5 q/0.8) below q = 0.8, 60*10^(3 + (q-0.8)/0.2)
# above; durations are stratified, so the sample's are within 0.5% (steps are rounded,
# which moves a duration by at most half a step) ----
for q in 25 50 75 90 99; do
	expect "gavel preset: duration p$q is the closed form's" \
		"cols metric,value s.csv -v q=$q -e 'BEGIN { u = q / 100; w = u < 0.8 ? 60 * 10 ^ (1.5 + 1.5 * u / 0.8) : 60 * 10 ^ (3 + (u - 0.8) / 0.2) }
			\$1 == \"duration_p$q\" { d = \$2 / w - 1; exit !(d < 0.005 && d > -0.005) }'"
done
expect "gavel preset: durations within [60*10^1.5, 60*10^4] s" \
	"cols metric,value s.csv -e '\$1 == \"duration_min\" { a = \$2 } \$1 == \"duration_max\" { b = \$2 } END { exit !(a >= 1897 && b <= 600001) }'"
# the same with independent draws: quantiles within 3%
run "gavel preset --iid" 0 "$G --seed 12 --jobs 20000 --rate 5.6 --iid | dl trace stats -f csv"
expect "gavel preset --iid: median within 3% of 60*10^2.4375" \
	"cols metric,value out -e '\$1 == \"duration_p50\" { d = \$2 / (60 * 10 ^ 2.4375) - 1; exit !(d < 0.03 && d > -0.03) }'"

# ---- Poisson arrivals at --rate jobs per hour: the rate within 5 standard deviations
# (1/sqrt(n) relative), and the gaps exponential: half of them below ln 2 x the mean ----
expect "gavel preset: 5.6 arrivals per hour" \
	"cols metric,value s.csv -e '\$1 == \"arrivals_per_hour\" { d = \$2 / 5.6 - 1; exit !(d < 5 / sqrt(20000) && d > -5 / sqrt(20000)) }'"
expect "gavel preset: the first job arrives at 0" "cols submit g.csv -e 'NR == 2 { exit !(\$1 == 0) }'"
expect "gavel preset: exponential gaps (median ln 2 x mean)" \
	"cols submit g.csv -e 'NR > 2 { g = \$1 - last; n++; if (g < log(2) * 3600 / 5.6) below++ } NR > 1 { last = \$1 }
		END { p = below / n; exit !(p > 0.5 - 5 * 0.5 / sqrt(n) && p < 0.5 + 5 * 0.5 / sqrt(n)) }'"

# ---- models: every model of the table with a throughput on that many v100s, uniformly ----
expect_eq "gavel preset: every (model, gpus) is in the table" "" \
	"$(cols id,gpus,model "$SCRATCH/g.csv" > "$SCRATCH/g.cols" &&
		zcat "$GT" | cols model,gpu_type,gpus,throughput,partner |
		awk -F, 'FNR == NR { if ($2 == "v100" && $5 == "") t[$1 "," $3] = 1; next }
		FNR > 1 && !(($3 "," $2) in t) { print $1; exit }' - "$SCRATCH/g.cols")"
run "gavel preset --single-gpu" 0 "$G --seed 13 --jobs 20000 --rate 5.6 --single-gpu > s1.csv"
expect_eq "gavel preset --single-gpu: every job on 1 GPU" "" \
	"$(cols id,gpus "$SCRATCH/s1.csv" | awk -F, 'NR > 1 && $2 != 1 { print $1; exit }')"
expect_eq "gavel preset --single-gpu: the table's 26 models" 26 \
	"$(cols model "$SCRATCH/s1.csv" | tail -n +2 | sort -u | wc -l | tr -d ' ')"
expect "gavel preset --single-gpu: each model 1/26 of the jobs (5 standard deviations)" \
	"cols model s1.csv -e 'NR > 1 { n[\$1]++ } END { p = 1 / 26; sd = sqrt(20000 * p * (1 - p)); for (m in n) if (n[m] < 20000 * p - 5 * sd || n[m] > 20000 * p + 5 * sd) exit 1 }'"
expect_eq "gavel preset: 8-GPU jobs only of the 19 distributed models" 19 \
	"$(cols gpus,model "$SCRATCH/g.csv" | awk -F, 'NR > 1 && $1 == 8 { print $2 }' | sort -u | wc -l | tr -d ' ')"

# ---- Gavel's multi-priority weights: 20% of the jobs at weight 5 ----
run "gavel preset --weights" 0 "$G --seed 14 --jobs 20000 --rate 5.6 --weights 1:0.8,5:0.2 > w.csv"
expect "gavel preset --weights: a fifth of the jobs at weight 5" \
	"cols weight w.csv -e 'NR > 1 && \$1 == 5 { k++ } NR > 1 && \$1 != 1 && \$1 != 5 { exit 1 }
		END { p = k / 20000; exit !(p > 0.2 - 5 * 0.002828 && p < 0.2 + 5 * 0.002828) }'"
expect "gavel preset --weights: the other columns do not move" \
	"cols id..model w.csv > a && dl trace gen --preset gavel --throughputs '$GT' --seed 14 --jobs 20000 --rate 5.6 | cols id..model > b && cmp -s a b"

# ---- deterministic per seed; Gavel's JSON as well as the stream; streaming ----
run "gavel preset: same seed, same bytes" 0 "$G --seed 5 --jobs 3000 --rate 2 > a.csv && $G --seed 5 --jobs 3000 --rate 2 > b.csv && cmp a.csv b.csv"
run "gavel preset: another seed, another trace" 1 "$G --seed 5 --jobs 300 --rate 2 > a.csv && $G --seed 6 --jobs 300 --rate 2 > b.csv && cmp -s a.csv b.csv"
run "gavel preset: Gavel's JSON" 0 "dl trace gen --preset gavel --throughputs '$TESTDATA/trace/gavel_throughputs_small.json' --jobs 50 --rate 1 --single-gpu > j.csv"
expect_eq "gavel preset: Gavel's JSON gives its models" "" \
	"$(cols model "$SCRATCH/j.csv" | tail -n +2 | sort -u | while read -r m; do
		grep -qF "('$m', 1)" "$TESTDATA/trace/gavel_throughputs_small.json" || echo "$m"; done)"
run "gavel preset: streams (any --jobs)" 0 "$G --jobs 1000000000000 --rate 5.6 | head -3 > h.csv; test \$(wc -l < h.csv) = 3"

# ---- usage errors ----
run trace_gen_gavel_needs_throughputs 2 "dl trace gen --preset gavel --rate 5.6 --jobs 3"
run trace_gen_preset_unknown 2 "dl trace gen --preset philly --rate 5.6 --jobs 3"
run trace_gen_single_gpu_and_gpus 2 "$G --rate 5.6 --jobs 3 --single-gpu --gpus 1:1"
run trace_gen_bad_weights 2 "dl trace gen --rate 5.6 --jobs 3 --weights 5:x"
run trace_gen_zero_weight 2 "dl trace gen --rate 5.6 --jobs 3 --weights 0:1"

# ---- documented: --help and the man page ----
run "trace gen --help names the preset" 0 "dl trace gen --help | grep -e '--preset' && dl trace gen --help | grep -e '--single-gpu' && dl trace gen --help | grep -e '--weights'"
expect "dlsched-trace(1) documents the preset" "grep -q 'preset gavel' '$SRCROOT/man/dlsched-trace.1.scd' && grep -q -- '--single-gpu' '$SRCROOT/man/dlsched-trace.1.scd'"

# ---- the preset's trace through a re-solve session (tests/bench/alloc_replay.c, Gavel's
# exact mechanism): every arrival and completion re-solves, each job ends ----
R=$BUILD/tests/bench/alloc_replay
for a in "" "--pack"; do
	run "gavel preset trace through a session $a" 0 \
		"$G --single-gpu --seed 2 --jobs 300 --rate 5.6 > r.csv && '$R' --cluster 4:4:4 --throughputs '$GT' --scratch-every 7 $a r.csv"
	# (the last completion leaves no job: nothing to solve)
	expect "session $a: a re-solve per arrival and per completion, all warm" \
		"grep -Eq '^solves=600 session_s=[0-9.]+ warm=599 ' out"
done
