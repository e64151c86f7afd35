# t_simulate.sh: the native simulator (policies, costs, speed, slowdown, outputs, errors).
# Goldens in testdata/golden/simulate_*.out were checked by hand (see the comments).
GOLDEN_CREATE=${GOLDEN_CREATE:-} UPDATE_GOLDEN=${UPDATE_GOLDEN:-}
S=$TESTDATA/simulate
Z='--checkpoint-cost 0 --restore-cost 0'

# small.csv on one 8-GPU node: a(4 GPUs,100s)@0 b(4,50)@10 c(8,30)@20 d(1,10)@25.
# fifo: c blocks d (head of line); backfill/sjf: d starts when b ends; srtf/las preempt.
# las keeps each start for its default 300 s quantum (the anti-thrash rule), longer than
# any job here, so it never preempts: c (8 GPUs) waits for a, d backfills when b ends.
for p in fifo fifo-backfill sjf srtf las tiresias-las tiresias-gittins; do
	run "simulate_small_$p" 0 "dl simulate --cluster 1x1x8 --policy $p $Z '$S/small.csv'"
done
# with --quantum 0 (and free preemption: nothing to restore) las keeps no start: c preempts
# a and b at 20, d preempts c at 25, and so on: the continuous LAS the rule replaces by default
run simulate_small_las_quantum_0 0 "dl simulate --cluster 1x1x8 --policy las --quantum 0 $Z '$S/small.csv'"
# 2D-LAS with tiny limits: a demotes at 25 (100 GPU-s / 4), b at 35, c at 47.5
run simulate_tlas_demote 0 "dl simulate --cluster 1x1x8 --policy tiresias-las \
	--thresholds 100,400 $Z --events ev.jsonl --timeline tl.csv '$S/small.csv'"
expect simulate_tlas_demote_events 'grep -q "\"time\":47.5,\"job\":\"c\",\"event\":\"demote\"" ev.jsonl'
expect simulate_tlas_demote_timeline 'cmp -s tl.csv "$TESTDATA/golden/simulate_tlas_timeline.csv"'
expect simulate_events_jsonl '[ "$(grep -vc "^{\"time\":" ev.jsonl)" -eq 0 ] && [ "$(wc -l < ev.jsonl)" -gt 10 ]'

# starvation: with N=0.5 a Q1 job that ran 25 s is promoted after waiting 12.5 s
run simulate_tlas_starve 0 "dl simulate --cluster 1x1x8 --policy tiresias-las \
	--thresholds 100,400 --starvation 0.5 $Z --events ev2.jsonl '$S/small.csv' > /dev/null"
expect simulate_tlas_promotes 'grep -q "\"event\":\"promote\"" ev2.jsonl'

# costs: srtf preempts a (100 s) for b (10 s) at 20; a saves 5 s, b runs 25..35,
# a resumes at 35 and restores 10 s: a ends at 125 (run 110, queue 15); a holds its 4 GPUs
# 0..25 (the save included) and 35..125: occupied_gpu_s 460, more than gpus x run_time
run simulate_costs 0 "dl simulate --cluster 1x1x4 --policy srtf --checkpoint-cost 5 \
	--restore-cost 10 '$S/preempt.csv'"
# GPU speed: k80 runs at 0.3, so 'slow' takes 100 s; 'any' waits for the v100s
run simulate_hetero 0 "dl simulate --cluster 1x1x4:k80,1x1x4:v100 --policy fifo-backfill \
	'$S/hetero.csv'"
# network slowdown: spread puts an 8-GPU vgg16 across two nodes (rack tier)
run simulate_spread_slowdown 0 "dl simulate --cluster 1x2x8 --place spread --policy fifo \
	'$S/spread.csv'"
expect simulate_spread_slower 'cols end,tier out -e "NR==2{exit !(\$1 > 100 && \$2 == \"rack\")}"'
# alone but badly placed: rho (16) is its slowdown (13), and every second beyond its
# 100 s of work is communication overhead (17) (both rounded to the microsecond)
expect simulate_spread_rho_is_slowdown 'cols rho,slowdown out -e "NR==2{d=\$1-\$2; exit !(\$2 > 1.5 && d < 1e-6 && d > -1e-6)}"'
expect simulate_spread_comm_overhead 'cols comm_overhead_s,run_time,duration out -e "NR==2{d=\$1-(\$2-\$3); exit !(\$1 > 50 && d < 1e-6 && d > -1e-6)}"'
run simulate_consolidate 0 "dl simulate --cluster 1x2x8 --policy fifo '$S/spread.csv'"
expect simulate_consolidate_ideal 'cols end,tier,rho,comm_overhead_s out -e "NR==2{exit !(\$1 == 100 && \$2 == \"node\" && \$3 == 1 && \$4 == 0)}"'

# result rows are written as whole CSV lines (engine.c, result_line); set field by
# field (JSON, converted back by cat) they must read the same: ids that need quotes
# (comma, quote, edge blank, newline), a long id, a rejected job, rack-tier slowdowns
for pl in spread consolidate; do
	run "simulate_csv_line_$pl" 0 "dl simulate --cluster 1x2x8 --place $pl --policy las \
		'$S/awkward_ids.csv' > c.csv 2> /dev/null
		dl simulate -f json --cluster 1x2x8 --place $pl --policy las '$S/awkward_ids.csv' \
		2> /dev/null | dl cat -f csv > j.csv"
	expect "simulate_csv_line_same_$pl" 'cmp -s "$SCRATCH/c.csv" "$SCRATCH/j.csv" &&
		grep -q "^\"b\"\"q\",5,8,50," "$SCRATCH/c.csv" && [ "$(wc -l < "$SCRATCH/c.csv")" -eq 9 ]'
done

# jobs that can never run are reported and left out; the rest still run
run simulate_reject 0 "dl simulate --cluster 1x1x8 --policy fifo '$S/reject.csv'"
expect simulate_reject_warns 'grep -q "2 of 4 jobs can never run" err'
run simulate_reject_quiet 0 "dl simulate -q --cluster 1x1x8 --policy fifo '$S/reject.csv'"
expect simulate_reject_quiet_silent '[ ! -s err ]'

# an unsorted trace gives the same results as the sorted one
dl simulate --cluster 1x1x8 --policy tiresias-las "$S/small.csv" > sorted.out 2>/dev/null
run simulate_unsorted 0 "dl simulate --cluster 1x1x8 --policy tiresias-las '$S/unsorted.csv'"
expect simulate_unsorted_same 'cmp -s sorted.out out && [ "$(wc -l < out)" -eq 5 ]'

# determinism: the same seed gives byte-identical results, events and timeline
if heavy; then
	dl trace gen --seed 5 --jobs 400 --load 1.3 --cluster 2x4x8 > g.csv
	for k in 1 2; do
		dl simulate --cluster 2x4x8 --place random --seed 9 --policy tiresias-gittins \
			--events e$k.jsonl --timeline t$k.csv g.csv > r$k.csv
	done
	expect simulate_deterministic 'cmp -s r1.csv r2.csv && cmp -s e1.jsonl e2.jsonl && cmp -s t1.csv t2.csv'
	expect simulate_all_finish '[ "$(wc -l < r1.csv)" -eq 401 ]'
	expect simulate_preempts_under_load 'cols preemptions r1.csv -e "NR>1{p+=\$1} END{exit !(p>0)}"'
	# every policy finishes every job of a contended trace, and JCT = queue + run
	# (each is rounded to the microsecond on its own: they may differ by 1.5 us)
	for p in fifo fifo-backfill sjf srtf las tiresias-las tiresias-gittins dally; do
		dl simulate --cluster 2x4x8 --policy $p g.csv > rp.csv 2>/dev/null
		expect "simulate_conserve_$p" 'cols jct,queue_delay,run_time,duration rp.csv -e "NR>1{n++; d=\$1-\$2-\$3; if (d>2e-6||d<-2e-6) bad++; if (\$3 < \$4 - 1e-6) bad++} END{exit !(n==400 && !bad)}"'
		# rho = JCT / duration (to 6 decimals) on every row; on these v100s at full share the run time is
		# the work, the communication overhead and up to a 10 s restore per preemption (a
		# job preempted while restoring pays less); dally instead pays its --restart-cost,
		# 1 s per GPU, on every resume and move
		# columns 1-5: rho, jct, duration, run_time, comm_overhead_s; 6-8: what a restore costs
		restore='10*\$6'
		[ $p = dally ] && restore='\$7*(\$6+\$8)'
		expect "simulate_rho_comm_$p" 'cols rho,jct,duration,run_time,comm_overhead_s,preemptions,gpus,migrations rp.csv -e "NR>1{n++; d=\$1-\$2/\$3; if (d>5.000001e-7||d<-5.000001e-7) bad++; d=\$4-\$3-\$5; if (d<-3e-6||d>'"$restore"'+3e-6||\$5<0) bad++} END{exit !(n==400 && !bad)}"'
	done
	# JSON output has the same rows
	dl simulate -f json --cluster 2x4x8 --policy fifo g.csv > rj.jsonl
	expect simulate_json_rows '[ "$(wc -l < rj.jsonl)" -eq 400 ] && head -1 rj.jsonl | grep -q "\"policy\":\"fifo\""'
else
	skip simulate_deterministic "generated trace: normal build only"
fi

# errors: bad data names file and line; usage errors exit 2; -o leaves no file
printf 'id,submit,gpus,duration\nx,0,1,10\ny,5,1,0\n' > zero.csv
run simulate_zero_duration 1 "dl simulate --cluster 1x1x8 -o o.csv zero.csv"
expect simulate_zero_duration_msg 'grep -q "zero.csv:3: bad duration" err && [ ! -e o.csv ]'
printf 'id,submit,gpus,duration\nx,0,1,-5\n' > neg.csv
run simulate_negative_duration 1 "dl simulate --cluster 1x1x8 neg.csv"
expect simulate_negative_duration_msg 'grep -q "neg.csv:2: bad duration" err'
run simulate_no_cluster 2 "dl simulate '$S/small.csv'"
run simulate_bad_policy 2 "dl simulate --cluster 1x1x8 --policy nope '$S/small.csv'"
run simulate_bad_place 2 "dl simulate --cluster 1x1x8 --place nope '$S/small.csv'"
run simulate_queues_not_mlfq 2 "dl simulate --cluster 1x1x8 --policy fifo --queues 2 '$S/small.csv'"
run simulate_queues_need_limits 2 "dl simulate --cluster 1x1x8 --queues 5 '$S/small.csv'"
run simulate_bad_cluster 2 "dl simulate --cluster 1x1xZ '$S/small.csv'"
run simulate_help 0 "dl simulate --help"
# --any-type: the trace's gpu_type is ignored, so 'odd' (tpu) runs too
run simulate_any_type 0 "dl simulate --cluster 1x1x8 --policy fifo --any-type '$S/reject.csv'"
expect simulate_any_type_runs 'grep -q "^odd," out && grep -q "1 of 4 jobs can never run" err'
# --profiles overrides the built-in model: an insensitive vgg16 is not slowed down by spread
run simulate_profiles 0 "dl simulate --cluster 1x2x8 --place spread --policy fifo \
	--profiles '$S/profiles_insensitive.csv' '$S/spread.csv'"
expect simulate_profiles_no_slowdown 'cols end,tier,slowdown out -e "NR==2{exit !(\$1 == 100 && \$2 == \"rack\" && \$3 == 1)}"'
printf 'model,bytes,skew_rr,sensitivity\nvgg16,1,1,zz\n' > badprof.csv
run simulate_profiles_bad 1 "dl simulate --cluster 1x2x8 --profiles badprof.csv '$S/spread.csv'"
expect simulate_profiles_bad_line 'grep -q "badprof.csv:2:" err'
# free preemption (zero costs) must settle: the reference's 60-job trace on 8 GPUs,
# where a wide job once made srtf preempt and restart the same jobs forever
dl trace import --from tiresias "$TESTDATA/tiresias/60_job.csv" > t60.csv 2>/dev/null
for p in srtf las tiresias-las tiresias-gittins; do
	run "simulate_free_preemption_$p" 0 "dl simulate --cluster 1x1x8 --policy $p $Z t60.csv > r60.csv"
	expect "simulate_free_preemption_${p}_rows" '[ "$(wc -l < r60.csv)" -eq 61 ]'
done
# with the reference's costs (none), native fifo on its cluster gives its avg JCT
dl simulate --cluster "$TESTDATA/tiresias/n2g4_custom.csv" --policy fifo --place first-fit \
	$Z t60.csv > f60.csv 2>/dev/null
expect simulate_fifo_matches_reference 'cols jct f60.csv -e "NR>1{s+=\$1; n++} END{exit !(n==60 && s/n > 1556.47 && s/n < 1556.49)}"'
# On one 8-GPU node with free preemption, the native engine starts and ends every job of
# the reference's 60-job trace exactly when the reference simulator does (GPU counting
# there, one node here): fifo = fifo, fifo-backfill = fjf, tiresias-las = dlas-gpu.
for pair in fifo:fifo fifo-backfill:fjf tiresias-las:dlas-gpu; do
	nat=${pair%%:*} ref=${pair#*:}
	dl simulate --cluster 1x1x8 --policy "$nat" $Z t60.csv 2>/dev/null |
		cols id,start,end | tail -n +2 | sort -t, -k1n > nat.txt
	tr -d '\r' < "$TESTDATA/tiresias/reference/n2g4_custom-count-$ref.job.csv" |
		cols job_id,start_time,end_time | tail -n +2 | sort -t, -k1n > ref.txt
	expect "simulate_native_${nat}_is_reference_$ref" 'cmp -s nat.txt ref.txt && [ "$(wc -l < ref.txt)" -eq 60 ]'
done
# tiresias-gittins with the reference's YARN distribution; a distribution file that
# does not parse is an error naming it
run simulate_gittins_distribution 0 "dl simulate --cluster 1x1x8 --policy tiresias-gittins \
	--distribution '$TESTDATA/tiresias/yarn-gput1000.csv' --delta 1000 $Z t60.csv > g60.csv"
expect simulate_gittins_distribution_rows '[ "$(wc -l < g60.csv)" -eq 61 ]'
printf 'duration\n10\nx\n' > baddist.csv
run simulate_gittins_bad_distribution 1 "dl simulate --cluster 1x1x8 --policy tiresias-gittins \
	--distribution baddist.csv '$S/small.csv'"
expect simulate_gittins_bad_distribution_line 'grep -q "baddist.csv:3" err'
run simulate_delta_not_gittins 2 "dl simulate --cluster 1x1x8 --policy tiresias-las --delta 5 '$S/small.csv'"
# --quantum 0: las looks again only at arrivals and completions (no ticks), and with
# --min-run 0 too a job is kept only through its restore (none here). b (arriving at 10, no
# service) preempts a (10 s run); with no ticks b keeps the GPU until it ends at 1010, then
# a runs its last 990 s. With the default 300 s, a new start is kept for a quantum (the
# anti-thrash rule): b waits until the tick at 310 (a has run 310 s), runs to the tick at
# 910 (at 610 it has run 300 s, less than a's 310), a then runs to 1210 (610 s against b's
# 600), b to 1510, a to 1810, and b's last 100 s end at 1910: b preempted twice, a three
# times, a ends at 2000.
printf 'id,submit,gpus,duration\na,0,1,1000\nb,10,1,1000\n' > q.csv
run simulate_las_quantum_0 0 "dl simulate --cluster 1x1x1 --policy las $Z --quantum 0 q.csv"
expect simulate_las_quantum_0_rows "grep -q '^b,10,1,1000,10,1010,1000,0,1000,0,' out && grep -q '^a,0,1,1000,0,2000,2000,1000,1000,1,' out"
run simulate_las_quantum_default 0 "dl simulate --cluster 1x1x1 --policy las $Z q.csv"
expect simulate_las_quantum_default_swaps "grep -q '^b,10,1,1000,310,1910,1900,900,1000,2,' out && grep -q '^a,0,1,1000,0,2000,2000,1000,1000,3,' out"
# a checkpoint end never re-ranks (the man page's --quantum example): b preempts a (100 s
# run) at 100; at the end of a's checkpoint (105) b starts, and a does not preempt c,
# although c has run 103 s by then: a waits for c's completion at 1002, resumes there and
# ends at 1912 (10 s restore + 900 s).
printf 'id,submit,gpus,duration\na,0,1,1000\nc,2,1,1000\nb,100,1,1000\n' > q2.csv
run simulate_las_checkpoint_end 0 "dl simulate --cluster 1x1x2 --policy las --quantum 0 --events ev.jsonl q2.csv"
expect simulate_las_checkpoint_end_no_swap "! grep -q '\"job\":\"c\",\"event\":\"preempt\"' ev.jsonl && grep -q '\"time\":105,\"job\":\"b\",\"event\":\"start\"' ev.jsonl && grep -q '\"time\":1002,\"job\":\"a\",\"event\":\"resume\"' ev.jsonl && grep -q '^c,2,1,1000,2,1002,1000,0,1000,0,' out && grep -q '^a,0,1,1000,0,1912,1912,902,1010,1,' out"
# --min-run apart from --quantum: with --quantum 0 --min-run 50, b (arriving at 10) cannot
# preempt a before a has run 50 s; the next arrival (c at 60) re-ranks: b (0 s) preempts a
# (60 s, checkpoint 60..65), b runs from 65, c waits: b is kept until 115 and nothing re-ranks
# before b ends at 1065 (no tick), then c (0 s) starts before a (60 s)
printf 'id,submit,gpus,duration\na,0,1,1000\nb,10,1,1000\nc,60,1,10\n' > q3.csv
run simulate_las_min_run 0 "dl simulate --cluster 1x1x1 --policy las --quantum 0 --min-run 50 q3.csv"
expect simulate_las_min_run_rows "grep -q '^b,10,1,1000,65,1065,1055,55,1000,0,' out && grep -q '^c,60,1,10,1065,1075,1015,1005,10,0,' out"

# the anti-thrash rule: on las_livelock.csv, one 8-GPU node, default costs, las used to
# preempt every job before its 10 s restore was over (a checkpoint end every 5 s re-ranked),
# for ever; with a start kept through its restore and a quantum past it, every job ends.
run simulate_las_no_livelock 0 "timeout 120 dl simulate --cluster 1x1x8 --policy las -o res.csv '$S/las_livelock.csv'"
expect simulate_las_no_livelock_all "[ \$(grep -c ',las,' res.csv) -eq 55 ] && ! grep -q 'never' res.csv"
# the engine's livelock stop (a safety net, also in test_simulate): tiresias-las with
# starvation promotion and restores longer than a job's time in Q0 keeps preempting promoted
# jobs before their restores end; it stops with one line, exit 1, no -o file (4 s; normal
# build only)
if heavy; then
	run simulate_livelock_stops 1 "timeout 120 dl simulate --cluster 1x1x8 --policy tiresias-las --starvation 0.01 --restore-cost 100000 -o res2.csv '$S/las_livelock.csv'"
	expect simulate_livelock_said "[ \$(wc -l < err) -eq 1 ] && grep -q \"^dlsched simulate: policy 'tiresias-las' makes no progress: from time [0-9.]* on, jobs are preempted over and over\" err && [ ! -e res2.csv ]"
fi
run simulate_las_livelock_restore4 0 "timeout 120 dl simulate --cluster 1x1x8 --policy las --restore-cost 4 '$S/las_livelock.csv'"
expect simulate_las_livelock_restore4_all "[ \$(grep -c ',las,' out) -eq 55 ] && ! grep -q 'never placed' out"

# parameters that cannot make progress are usage errors, up front (exit 2, nothing on
# stdout), naming the option and its bound: periods below a second (a pass per microsecond
# never ends in practice), leases and rounds not longer than a swap's cost (checkpoint +
# restore: a job swapped in for one would not progress), costs past 1e10 s
for c in "gavel --round 1e-300:bad --round value '1e-300' (a number of seconds in 1..10000000000)" \
	"gavel --round 1e-6:bad --round value '1e-6' (a number of seconds in 1..10000000000)" \
	"gavel --round 15:--round 15 is not longer than --checkpoint-cost + --restore-cost (15 s)" \
	"themis --lease 12 --restore-cost 7:--lease 12 is not longer than --checkpoint-cost + --restore-cost (12 s)" \
	"dally --lease 5:--lease 5 is not longer than --checkpoint-cost + --restart-cost (6 s)" \
	"dally --restart-cost 1e308:bad --restart-cost value '1e308' (a number of seconds in 0..10000000000)" \
	"las --quantum 0.5:--quantum 0.5 is shorter than 1 s (0: no quantum ticks)" \
	"las --min-run 1e300:bad --min-run value '1e300' (a number of seconds in 0..10000000000)" \
	"gandiva --quantum 1e-6:bad --quantum value '1e-6' (a number of seconds in 1..10000000000)" \
	"fifo --restore-cost 1e308:bad --restore-cost value '1e308' (a number of seconds in 0..10000000000)"; do
	args=${c%%:*} msg=${c#*:}
	name=simulate_no_progress_$(printf '%s' "$args" | tr -c 'a-z0-9' _)
	run "$name" 2 "timeout 30 dl simulate --cluster 1x1x2 --policy $args -o nope.csv '$S/small.csv'"
	expect "${name}_said" "[ \$(wc -l < err) -eq 1 ] && grep -qF -- \"dlsched simulate: $msg\" err && [ ! -s out ] && [ ! -e nope.csv ]"
done
# the bounds themselves run: a round, lease or quantum just past a swap's cost, costs of 1e10 s
run simulate_round_past_swap 0 "dl simulate --cluster 1x1x2 --policy gavel --round 15.5 '$S/small.csv' > /dev/null"
run simulate_lease_past_swap 0 "dl simulate --cluster 1x1x2 --policy themis --lease 15.5 '$S/small.csv' > /dev/null"
run simulate_quantum_one 0 "dl simulate --cluster 1x1x2 --policy las --quantum 1 '$S/small.csv' > /dev/null"
# with --compat gavel preemption is free (as the reference): any round of a second or more
run simulate_compat_round_one 0 "dl simulate --cluster 1x1x2 --compat gavel --round 1 '$S/small.csv' > /dev/null"

# --provenance: the command line and seed on the first results row only, the trace's own
# made_by and seed copied beside them; without it the results keep their columns (goldens)
printf 'id,submit,gpus,duration,made_by,seed\nb,10,1,50,,\na,0,1,100,dlsched trace gen --seed 7,7\n' > prov.csv
run simulate_provenance 0 "dl simulate --provenance --cluster 1x1x8 --policy fifo --seed 3 'prov.csv'"
expect_eq simulate_provenance_rows "id,submit,gpus,duration,start,end,jct,queue_delay,run_time,preemptions,migrations,tier,slowdown,gpu_type,policy,rho,comm_overhead_s,rejected,occupied_gpu_s,made_by,seed,trace_made_by,trace_seed
b,10,1,50,10,60,50,0,50,0,0,node,1,v100,fifo,1,0,,50,dlsched simulate --provenance --cluster 1x1x8 --policy fifo --seed 3 prov.csv,3,dlsched trace gen --seed 7,7
a,0,1,100,0,100,100,0,100,0,0,node,1,v100,fifo,1,0,,100,,,," "$(cat out)"
# the default seed is recorded too, and a path with a space is quoted as sh would read it
cp prov.csv 'my trace.csv'
run simulate_provenance_quoted 0 "dl simulate -f json --provenance --cluster 1x1x8 --policy fifo 'my trace.csv' | head -1"
expect simulate_provenance_quoted_cmd "grep -qF '\"made_by\":\"dlsched simulate -f json --provenance --cluster 1x1x8 --policy fifo '\\''my trace.csv'\\''\",\"seed\":1,' out"
# an empty trace: a header with the columns, no row to carry them
run simulate_provenance_empty 0 "printf 'id,submit,gpus,duration\n' | dl simulate --provenance --cluster 1x1x8 --policy fifo"
expect_eq simulate_provenance_empty_header "id,submit,gpus,duration,start,end,jct,queue_delay,run_time,preemptions,migrations,tier,slowdown,gpu_type,policy,rho,comm_overhead_s,rejected,occupied_gpu_s,made_by,seed,trace_made_by,trace_seed" "$(cat out)"
run simulate_provenance_compat 2 "dl simulate --compat tiresias --policy dlas-gpu --provenance '$TESTDATA/trace/60_job.csv'"

# --congestion (#18.2): the engine costs a placement with the divided bandwidth, as place does
printf 'id,submit,gpus,duration,model\na,0,8,100,vgg16\n' > "$SCRATCH/cj.csv"
run simulate_congestion 0 "dl place -c 2x2x4 -P spread --congestion cluster=4 cj.csv > p.csv && dl simulate -c 2x2x4 --policy fifo --place spread --congestion cluster=4 cj.csv"
expect_eq simulate_congestion_slowdown \
	"$(cols slowdown "$SCRATCH/p.csv" | awk 'NR == 2 { printf "%.5f", $1 }')" \
	"$(cols slowdown "$SCRATCH/out" | awk 'NR == 2 { printf "%.5f", $1 }')"
expect simulate_congestion_run_time "cols run_time,slowdown out -e 'NR == 2 { d = \$1 - 100 * \$2; exit !(\$2 > 6 && d < 1e-3 && d > -1e-3) }'"
run simulate_congestion_compat 2 "dl simulate --compat tiresias --policy fifo --congestion rack=2 cj.csv"

# The results stream is written by a thread of the run's own (lib/sim/results.h): 10,000 jobs,
# one a second and done in half a second, every seventh too wide for the node (rejected on
# arrival). Rows come in submit order, rejected ones among the finished; with --events on the
# same standard output the rows are written in place, in turn with the events: the same bytes.
awk 'BEGIN { print "id,submit,gpus,duration"
	for (i = 0; i < 10000; i++) printf "j%d,%d,%d,0.5\n", i, i, (i % 7 == 3 ? 99 : 1) }' > "$SCRATCH/rows.csv"
run simulate_rows_order 0 "dl simulate -q --cluster 1x1x8 --policy fifo rows.csv > rows.out && cols id,rejected rows.out -e 'NR > 1 { if (\$1 != \"j\" (NR - 2) || ((\$2 != \"\") != ((NR - 2) % 7 == 3))) bad++ } END { exit bad || NR != 10001 }'"
run simulate_rows_in_place 0 "dl simulate -q --cluster 1x1x8 --policy fifo --events - rows.csv | grep -v '^{' | cmp - rows.out"
run simulate_rows_json 0 "dl simulate -q -f json --cluster 1x1x8 --policy fifo rows.csv > rows.jsonl && dl simulate -q -f json --cluster 1x1x8 --policy fifo --timeline - rows.csv | grep '^{\"id\"' | cmp - rows.jsonl"
# a write error while the run goes on: exit 1, one message
run_says simulate_write_error 1 "dl simulate --cluster 1x1x8 --policy fifo -o /dev/full rows.csv" \
	"dlsched simulate: write error on '/dev/full': No space left on device"
run_says simulate_write_error_stdout 1 "dl simulate --cluster 1x1x8 --policy fifo rows.csv > /dev/full" \
	"dlsched simulate: write error on standard output: No space left on device"
# a reader that goes away early: killed by SIGPIPE as any writer (no hang, no crash, no
# message); with SIGPIPE ignored, a quiet exit 0 at the end of the run
run simulate_pipe_closed 0 "{ dl simulate -q --cluster 1x1x8 --policy fifo rows.csv; echo \$? > rc; } | head -1"
expect_eq simulate_pipe_closed_status 141 "$(cat "$SCRATCH/rc")"
expect simulate_pipe_closed_quiet '! test -s err && grep -q "^id,submit," out'
run simulate_pipe_closed_ignored 0 "trap '' PIPE; { dl simulate -q --cluster 1x1x8 --policy fifo rows.csv; echo \$? > rc; } | head -1"
expect_eq simulate_pipe_closed_ignored_status 0 "$(cat "$SCRATCH/rc")"
expect simulate_pipe_closed_ignored_quiet '! test -s err'

# A trace in a regular file is read ahead by a thread of its own (lib/sim/trace.c) and converted
# here in file order: the first bad line wins whichever side finds it, as from a pipe (read in
# line). 20,000 rows, so that the errors fall in later batches of the reader thread.
awk 'BEGIN { print "id,submit,gpus,duration"; for (i = 0; i < 20000; i++) printf "j%d,%d,1,5\n", i, i }' > "$SCRATCH/ra.csv"
awk 'NR == 9000 { print "bad,1,x,5"; next } NR == 15000 { print "q,\"1,1,5"; next } 1' ra.csv > "$SCRATCH/ra_conv.csv"
awk 'NR == 5000 { print "q,\"1,1,5"; next } NR == 9000 { print "bad,1,x,5"; next } 1' ra.csv > "$SCRATCH/ra_quote.csv"
awk 'NR == 12000 { print "j1,5,1,5"; next } NR == 15000 { print "bad,1,x,5"; next } 1' ra.csv > "$SCRATCH/ra_dup.csv"
for how in file pipe; do
	for c in conv:"9000: bad gpus value 'x': expected an integer >= 1" quote:"5000: unterminated quoted field" \
		dup:"12000: duplicate id 'j1' (first on line 3)"; do
		f=ra_${c%%:*}.csv name=$f
		cmd="dl simulate --cluster 1x1x8 --policy fifo $f"
		[ $how = pipe ] && cmd="cat $f | dl simulate --cluster 1x1x8 --policy fifo" name='<stdin>'
		run "simulate_read_ahead_${c%%:*}_$how" 1 "$cmd"
		expect_eq "simulate_read_ahead_${c%%:*}_${how}_msg" "dlsched simulate: $name:${c#*:}" "$(cat "$SCRATCH/err")"
	done
done
run simulate_read_ahead_same 0 "gzip -c ra.csv > ra.csv.gz && dl simulate --cluster 1x1x8 --policy fifo ra.csv > a.out && cat ra.csv | dl simulate --cluster 1x1x8 --policy fifo > b.out && dl simulate --cluster 1x1x8 --policy fifo ra.csv.gz > c.out && cmp a.out b.out && cmp a.out c.out"
