# t_report_nightly.sh: what the operators' nightly page relies on: empty nights, jobs left
# out counted per reason, Slurm's real schedule beside the policies, timelines filed by
# label, steady-state windows (numbers checked by hand in testdata/report/NOTE).
R=$TESTDATA/report
T=$TESTDATA/trace

# ---- an empty night: header-only files all the way down, exit 0, a "no jobs" page ----
printf 'JobID|JobName|User|Partition|Submit|Start|End|ElapsedRaw|AllocTRES|State\n' > empty.psv
run nightly_empty_import 0 "dl trace import --from sacct --skipped skipped.csv empty.psv > jobs.csv"
expect_eq nightly_empty_jobs "id,submit,gpus,duration,start,end,partition" "$(cat jobs.csv)"
for p in fifo fifo-backfill sjf srtf las tiresias-las tiresias-gittins; do
	run "nightly_empty_simulate_$p" 0 "dl simulate --cluster 1x4x8:v100 --policy $p --timeline $p.timeline.csv jobs.csv > $p.csv"
	expect "nightly_empty_results_$p" "[ \$(wc -l < $p.csv) -eq 1 ] && grep -q '^id,submit,.*,policy,rho,comm_overhead_s,rejected,occupied_gpu_s$' $p.csv && [ \$(wc -l < $p.timeline.csv) -eq 1 ]"
done
run nightly_empty_report 0 "dl report --skipped skipped.csv -t fifo.timeline.csv -t las.timeline.csv fifo.csv las.csv"
expect_eq nightly_empty_report_rows "label,jobs,finished,avg_jct,median_jct,p90_jct,p95_jct,p99_jct,makespan,avg_queue_delay,p95_queue_delay,utilization,preemptions_per_job,migrations_per_job,jain_slowdown,speedup_jct,speedup_makespan,dropped,dropped_reasons,avg_first_feedback,p95_first_feedback,avg_rho,p95_rho,max_rho,jain_rho,total_comm_overhead,avg_comm_overhead,comm_share
fifo,0,0,,,,,,,,,,,,,,,0,,,,,,,,,,
las,0,0,,,,,,,,,,,,,,,0,,,,,,,,,," "$(cat out)"
expect nightly_empty_report_quiet "[ ! -s err ]"
run nightly_empty_page 0 "dl report -o empty.html --cluster 1x4x8:v100 -b fifo --date 2026-11-22 -t fifo.timeline.csv fifo.csv las.csv tiresias-gittins.csv"
expect nightly_empty_page_says "grep -q '<section class=\"card\" id=\"no-jobs\">' empty.html && grep -q 'The inputs hold no jobs' empty.html && grep -q '3 labels, 0 jobs' empty.html"
expect nightly_empty_page_no_charts "! grep -q '<svg' empty.html && grep -q 'id=\"provenance\"' empty.html"
command -v xmllint > /dev/null && expect nightly_empty_page_xml "xmllint --noout empty.html"
# a night of CPU jobs only: nothing to simulate, and the page says what trace import left out
printf 'JobID|Submit|Start|End|ElapsedRaw|AllocTRES|State\n1|2026-11-21T10:00:00|2026-11-21T10:00:00|2026-11-21T10:05:00|300|cpu=4|COMPLETED\n2|2026-11-21T11:00:00|Unknown|Unknown|0|cpu=4|PENDING\n' > cpu.psv
run nightly_cpu_import 0 "dl trace import -q --from sacct --skipped cpu.skipped.csv cpu.psv > cpu.jobs.csv && dl simulate -q --cluster 1x4x8 --policy fifo cpu.jobs.csv > cpu.fifo.csv"
run nightly_cpu_report 0 "dl report --skipped cpu.skipped.csv cpu.fifo.csv | cols label,jobs,dropped,dropped_reasons"
expect_eq nightly_cpu_report_dropped "cpu.fifo,0,2,1 no GPUs; 1 pending at the dump" "$(tail -1 out)"
run nightly_cpu_page 0 "dl report -o cpu.html --skipped cpu.skipped.csv cpu.fifo.csv"
expect nightly_cpu_page_left_out "grep -q 'No job of the inputs could be compared' cpu.html && grep -q '<td>2</td><td class=\"s w\">1 no GPUs; 1 pending at the dump</td>' cpu.html"

# ---- jobs left out: simulate's rejections per reason, trace import's skips for every label ----
run nightly_rejected 0 "dl report -b fifo --gpus 4 $R/rejected.csv | cols label..avg_jct,dropped,dropped_reasons"
expect_eq nightly_rejected_row "fifo,3,3,190,3,1 needs more GPUs than the cluster has; 2 unknown GPU type 'a100'" "$(tail -1 out)"
printf 'reason,count\nnever started,2\nno GPUs,1\n' > sk.csv
run nightly_rejected_skipped 0 "dl report --allow-unequal --skipped sk.csv $R/rejected.csv $R/las.csv | cols label,jobs,dropped,dropped_reasons"
expect_eq nightly_rejected_skipped_rows "fifo,3,6,2 never started; 1 no GPUs; 1 needs more GPUs than the cluster has; 2 unknown GPU type 'a100'
las,4,3,2 never started; 1 no GPUs" "$(tail -2 out)"
run nightly_rejected_by_gpus 0 "dl report --by gpus $R/rejected.csv | cols class,jobs,dropped,dropped_reasons"
expect_eq nightly_rejected_by_gpus_rows "all,3,3,1 needs more GPUs than the cluster has; 2 unknown GPU type 'a100'
1,1,1,1 unknown GPU type 'a100'
2-4,2,1,1 unknown GPU type 'a100'
>8,0,1,1 needs more GPUs than the cluster has" "$(tail -4 out)"
run nightly_rejected_text 0 "dl report -f text $R/rejected.csv"
expect nightly_rejected_text_note "grep -qx \"fifo: 3 dropped (1 needs more GPUs than the cluster has; 2 unknown GPU type 'a100')\" out"
run nightly_skipped_bad 1 "printf 'reason,count\nx,-1\n' > bad.csv && dl report --skipped bad.csv $R/fifo.csv"
expect nightly_skipped_bad_line "grep -q 'bad.csv:2: bad skipped row' err"

# simulate writes the rows report counts: a typed job on a cluster without its type
printf 'id,submit,gpus,duration,gpu_type\na,0,1,10,v100\nb,0,2,10,a100\nc,1,64,10,\n' > typed.csv
run nightly_simulate_rejects 0 "dl simulate -q --cluster 1x4x8:v100 --policy fifo typed.csv | dl report - | cols label,jobs,dropped,dropped_reasons"
expect_eq nightly_simulate_rejects_row "fifo,1,2,1 unknown GPU type 'a100'; 1 needs more GPUs than the cluster has" "$(tail -1 out)"

# ---- labels: timelines by label, no silent merges ----
dl simulate -q --cluster 1x1x8 --policy fifo --timeline tf.csv "$TESTDATA/simulate/small.csv" > rf.csv
dl simulate -q --cluster 1x1x8 --policy las --timeline tl.csv "$TESTDATA/simulate/small.csv" > rl.csv
# the one timeline given belongs to las (its policy column), not to the first input
run nightly_timeline_by_policy 0 "dl report --gpus 8 -t tl.csv rf.csv rl.csv | cols label,utilization"
want=$(cols time,busy_gpus tl.csv | awk -F, 'NR > 2 {a += pb * ($1 - pt)} NR > 1 {pt = $1; pb = $2; if (NR == 2) t0 = $1} END {printf "%.15g", a / (8 * (pt - t0))}')
got=$(cols label,utilization out | awk -F, '$1 == "las" {print $2}')
expect nightly_timeline_by_policy_util "awk -v w=$want -v g=$got 'BEGIN{d = w - g; exit !(d < 1e-12 && d > -1e-12)}'"
run nightly_timeline_order 0 "dl report --gpus 8 -t tl.csv -t tf.csv rf.csv rl.csv > a.csv && dl report --gpus 8 -t tf.csv -t tl.csv rf.csv rl.csv | cmp - a.csv"
run nightly_timeline_relabel 0 "dl report --gpus 8 -l A -l B -t tl.csv -t tf.csv rf.csv rl.csv | cols utilization > b.csv && cols utilization a.csv | cmp - b.csv"
run nightly_timeline_named 0 "dl report --gpus 8 -l A -l B -t B=tl.csv -t A=tf.csv rf.csv rl.csv | cols utilization | tail -n +2 > c.csv && cols utilization a.csv | tail -n +2 | cmp - c.csv"
run nightly_timeline_unknown 2 "dl report -t tl.csv rf.csv"
expect nightly_timeline_unknown_says "grep -q \"timeline tl.csv has label 'las', which no results input has (labels: 'fifo')\" err"
run nightly_timeline_twice 2 "dl report -t tf.csv -t tf.csv rf.csv"
expect nightly_timeline_twice_says "grep -q \"a second timeline for label 'fifo'\" err"
run nightly_timeline_ambiguous 2 "dl report -l A -l B -t tf.csv rf.csv rf.csv"
expect nightly_timeline_ambiguous_says "grep -q \"policy 'fifo' is under several labels: name its label with -t LABEL=FILE\" err"

# ---- Slurm's real schedule beside the policies ----
dl trace import -q --from sacct "$T/sacct_real_sample.psv" > real.jobs.csv
dl simulate -q --cluster 1x1x4 --policy fifo --timeline real.fifo.timeline.csv real.jobs.csv > real.fifo.csv
run nightly_asrun 0 "dl report --gpus 4 -b 'as run' --as-run real.jobs.csv -t real.fifo.timeline.csv real.fifo.csv | cols label..median_jct,makespan,utilization,speedup_jct,speedup_makespan"
# as run: JCT = End - Submit of the 14 GPU jobs: 2 2 5 5 8 20 7 10 10 13 13 16 16 19 -> 146 / 14;
# busy 24 GPU-s over 20 s on 4 GPUs = 0.3; Slurm ran 2 jobs at a time (2 CPUs), fifo on 4 GPUs
# packs them all: 62 / 14 and 24 GPU-s over 6 s = 1
expect_eq nightly_asrun_rows "fifo,14,14,4.428571428571429,5,6,1,2.3548387096774195,3.3333333333333335
as run,14,14,10.428571428571429,10,20,0.3,1,1" "$(tail -2 out)"
run nightly_asrun_page 0 "dl report -o asrun.html --gpus 4 --as-run real.jobs.csv real.fifo.csv"
expect nightly_asrun_page_label "grep -q 'data-label=\"as run\"' asrun.html && grep -q \"(Slurm's real schedule)\" asrun.html && grep -q 'class=\"tl-util\" data-label=\"as run\"' asrun.html"
run nightly_asrun_unfinished 0 "dl trace import -q --from sacct --keep-unfinished --skipped live.sk.csv '$T/sacct_live_limits.psv' > live.csv && dl report --as-run live.csv | cols label..finished,dropped,dropped_reasons"
expect_eq nightly_asrun_unfinished_row "as run,1,1,2,2 unfinished at the dump" "$(tail -1 out)"
# ---- one job set for every label: the running and the pending job at the dump are left
# out of the what-if too (fifo ran them to their time limits), and counted once on the page
dl simulate -q --cluster 1x1x4:a100 --policy fifo live.csv > live.fifo.csv
run nightly_sets_equal 0 "dl report --as-run live.csv live.fifo.csv | cols label..finished,dropped,dropped_reasons"
expect_eq nightly_sets_equal_rows "fifo,1,1,2,2 unfinished at the dump
as run,1,1,2,2 unfinished at the dump" "$(tail -2 out)"
run nightly_sets_page 0 "dl report -o sets.html --skipped live.sk.csv --as-run live.csv live.fifo.csv"
expect nightly_sets_page_header "grep -q '<span id=\"night\">2 labels, 1 jobs; 3 more rows skipped on import; 2 unfinished at the dump (1 running, 1 pending), left out of every label</span>' sets.html"
# a label that lost a job is not compared with the others, unless told to
grep -v '^2,' live.fifo.csv | grep -v '^6,' > part.fifo.csv
run nightly_sets_refused 1 "dl report --as-run live.csv part.fifo.csv"
expect_eq nightly_sets_refused_says "dlsched report: labels 'fifo' (0 jobs) and 'as run' (1 jobs) cover different jobs: 0 only in 'fifo', 1 only in 'as run' (one: '6'); a report compares the same jobs in every label (--allow-unequal compares them anyway)" "$(cat "$SCRATCH/err")"
run nightly_sets_allowed 0 "dl report --allow-unequal -o unequal.html --as-run live.csv part.fifo.csv"
expect nightly_sets_allowed_header "grep -q '<span id=\"night\">2 labels of different jobs (fifo 0, as run 1)' unequal.html"
# without ids, the counts decide
cols submit.. live.fifo.csv > noid.csv
run nightly_sets_counts 1 "head -2 noid.csv > noid1.csv && dl report -l noid -l noid1 noid.csv noid1.csv"
expect nightly_sets_counts_says "grep -q \"labels 'noid' (3 jobs) and 'noid1' (1 jobs) cover different jobs\" err"
run nightly_asrun_not_jobs 1 "dl trace gen --jobs 3 --rate 1 > gen.csv && dl report --as-run gen.csv"
expect nightly_asrun_not_jobs_says "grep -q \"gen.csv: missing required column 'start'.*trace import --from sacct\" err"
run nightly_asrun_results 1 "dl report --as-run $R/fifo.csv"
expect nightly_asrun_results_says "grep -q 'a policy column: --as-run takes the jobs stream' err"

# ---- utilisation: GPU-seconds occupied, a packed pair's GPU once (gandiva packs A and B on
# the one GPU from 0 to 100, C runs alone 200-250: 150 GPU-s over 250 s = 0.6, as the
# timeline says; counting each job's GPUs gave 250 / 250 = 1); over the arrivals [0, 200]:
# 100 / 200 = 0.5. The results' occupied_gpu_s gives it: A and B 50 each, C 50.
printf 'id,submit,gpus,duration,model\nA,0,1,70,ma\nB,0,1,60,mb\nC,200,1,50,ma\n' > pack.csv
printf 'model,gpu_type,gpus,throughput,partner,partner_throughput\nma,v100,1,10,,\nmb,v100,1,20,,\nma,v100,1,7,mb,12\n' > tp.csv
dl simulate -q --cluster 1x1x1 --policy gandiva --suspend-cost 0 --throughputs tp.csv --no-introspection --timeline pack.tl.csv pack.csv > pack.res.csv
expect_eq nightly_util_packed_occupied "A 50 B 50 C 50" "$(cols id,occupied_gpu_s pack.res.csv -e 'NR > 1 {printf "%s %s ", $1, $2}' | sed 's/ $//')"
run nightly_util_packed 0 "dl report --gpus 1 pack.res.csv | cols utilization && dl report --gpus 1 -t pack.tl.csv pack.res.csv | cols utilization && dl report --gpus 1 --window arrivals pack.res.csv | cols utilization"
expect_eq nightly_util_packed_values "utilization 0.6 utilization 0.6 utilization 0.5" "$(cat out | tr '\n' ' ' | sed 's/ $//')"
# exact: no note; results without the column (older files) get the estimate, with its note
run nightly_util_packed_exact 0 "dl report -f text --gpus 1 pack.res.csv"
expect nightly_util_packed_exact_quiet "! grep -q 'jobs shared GPUs' out"
cols id..rejected pack.res.csv > pack.old.csv
run nightly_util_packed_note 0 "dl report -f text --gpus 1 pack.old.csv"
expect nightly_util_packed_note_says "grep -q 'gandiva: jobs shared GPUs (more held than the cluster has): utilisation counts each GPU once' out && grep -q '60.0%' out"

# Packing while other GPUs idle, which no estimate from start, end and run_time can see: A
# and B packed on one of 2 GPUs over 0-100, the other idle: 100 GPU-s over 100 s x 2 = 0.5;
# the estimate counts 200 (never more GPUs held than the cluster has): 1
printf 'id,submit,gpus,duration,start,end,run_time,policy,rejected,occupied_gpu_s\nA,0,1,70,0,100,100,gandiva,,50\nB,0,1,60,0,100,100,gandiva,,50\n' > idle.csv
cols id..rejected idle.csv > idle.old.csv
run nightly_util_packed_idle 0 "dl report --gpus 2 idle.csv | cols utilization && dl report --gpus 2 idle.old.csv | cols utilization"
expect_eq nightly_util_packed_idle_values "utilization 0.5 utilization 1" "$(cat out | tr '\n' ' ' | sed 's/ $//')"
# without a timeline the figure is the timeline's (to rounding), on a generated gandiva run
# and a gavel --pack run with packing (some job occupied less than gpus x run_time), and
# the estimate of the same results without the column is not
TPG=$TESTDATA/allocate/gavel_throughputs.csv.gz
util_of() { cols utilization "$1" | awk 'NR == 2 {printf "%.9f", $1}'; }
dl trace gen -q --preset gavel --throughputs "$TPG" --jobs 200 --load 1.6 --cluster 1x4x8:v100 --seed 3 > gen.csv
dl trace gen -q --preset gavel --throughputs "$TPG" --jobs 200 --load 1.6 --cluster 1x4x8:v100,1x4x8:k80 --seed 3 > genh.csv
for c in "gandiva 32 1x4x8:v100 gen.csv" "gavel 64 1x4x8:v100,1x4x8:k80 genh.csv --pack"; do
	set -- $c
	run "nightly_util_$1_sim" 0 "dl simulate -q --cluster $3 --policy $1 $5 --throughputs '$TPG' --timeline $1.tl.csv $4 > $1.res.csv"
	expect "nightly_util_$1_packs" "cols occupied_gpu_s,gpus,run_time $1.res.csv -e 'NR > 1 && \$1 < \$2 * \$3 - 1 {n++} END {exit !n}'"
	dl report --gpus $2 $1.res.csv > u.csv
	dl report --gpus $2 -t $1.tl.csv $1.res.csv > u_tl.csv
	cols id..rejected $1.res.csv > $1.old.csv
	dl report --gpus $2 $1.old.csv > u_old.csv
	expect_eq "nightly_util_$1_as_timeline" "$(util_of u_tl.csv)" "$(util_of u.csv)"
	expect "nightly_util_$1_estimate_differs" "[ '$(util_of u_old.csv)' != '$(util_of u_tl.csv)' ]"
done

# ---- streams for jq: ids are strings everywhere, dropped_reasons an object of counts
run nightly_jq_join 0 "dl trace import -q -f json --from sacct '$T/sacct_real_sample.psv' > j.jsonl && dl trace import -q --from sacct '$T/sacct_real_sample.psv' | dl simulate -q -f json --cluster 1x1x4 --policy fifo > r.jsonl && jq -s -r '[.[0:14], .[14:]] | (.[1] | map({(.id): .}) | add) as \$r | [.[0][] | select(\$r[.id])] | length' j.jsonl r.jsonl"
expect_eq nightly_jq_join_all 14 "$(cat out)"
expect nightly_jq_id_string "grep -q '^{\"id\":\"1\",' j.jsonl && grep -q '^{\"id\":\"1\",' r.jsonl"
run nightly_jq_dropped 0 "dl report -f json --allow-unequal --skipped sk.csv $R/rejected.csv $R/las.csv | jq -c '.dropped_reasons'"
expect_eq nightly_jq_dropped_object '{"never started":2,"no GPUs":1,"needs more GPUs than the cluster has":1,"unknown GPU type '"'"'a100'"'"'":2}
{"never started":2,"no GPUs":1}' "$(cat out)"

# ---- per user (account, partition): the as-run jobs say whose each job is, by id, for every
# label; user0's jobs ran 200 (JCT 7200 s), 204 (1860), 208 (2520), 212 (3600): 15180 / 4
dl trace import -q --from sacct --skipped ty.sk.csv "$R/sacct_typed.psv" > ty.jobs.csv
dl simulate -q --cluster 2x4x8:a100,2x4x8:v100 --policy fifo ty.jobs.csv > ty.fifo.csv
run nightly_by_user 0 "dl report --by user --as-run ty.jobs.csv ty.fifo.csv | cols label..avg_jct"
expect_eq nightly_by_user_asrun "as run,user0,4,4,3795" "$(grep '^as run,user0,' out)"
expect_eq nightly_by_user_classes "fifo,all fifo,user0 fifo,user1 fifo,user2 fifo,user3 as run,all as run,user0 as run,user1 as run,user2 as run,user3" "$(cols label,class out | tail -n +2 | tr '\n' ' ' | sed 's/ $//')"
run nightly_by_partition 0 "dl report --by partition --as-run ty.jobs.csv ty.fifo.csv | cols label..jobs"
expect_eq nightly_by_partition_rows "fifo,all,16 fifo,gpu,16 as run,all,16 as run,gpu,16" "$(tail -n +2 out | tr '\n' ' ' | sed 's/ $//')"
# without the jobs stream nothing says whose a job is
run nightly_by_user_unknown 0 "dl report --by user ty.fifo.csv | cols label..jobs"
expect_eq nightly_by_user_unknown_rows "fifo,all,16 fifo,(unknown),16" "$(tail -n +2 out | tr '\n' ' ' | sed 's/ $//')"

# ---- steady state: --window ----
run nightly_window_jobs 0 "dl report --gpus 4 --window jobs:1-3 -t $R/fifo.timeline.csv $R/fifo.csv | cols label..median_jct,makespan,utilization"
expect_eq nightly_window_jobs_row "fifo,2,2,235,140,340,0.25" "$(tail -1 out)"
run nightly_window_time 0 "dl report --gpus 4 --window time:15-35 -t $R/fifo.timeline.csv $R/fifo.csv | cols label..avg_jct,makespan,utilization"
expect_eq nightly_window_time_row "fifo,2,2,330,340,0.25" "$(tail -1 out)"
run nightly_window_arrivals_spread 0 "dl report --gpus 4 --window arrivals $R/las.csv | cols label,utilization"
expect_eq nightly_window_arrivals_spread_util "las,0.5606060606060607" "$(tail -1 out)"
# one 49-day straggler: over the whole run it hides a fully busy cluster
run nightly_straggler_whole 0 "dl report --gpus 4 $R/straggler.csv | cols utilization"
expect_eq nightly_straggler_whole_util "0.25007085498346715" "$(tail -1 out)"
run nightly_straggler_arrivals 0 "dl report --gpus 4 --window arrivals $R/straggler.csv | cols utilization"
expect_eq nightly_straggler_arrivals_util "1" "$(tail -1 out)"
run nightly_window_bad 2 "dl report --window jobs:5-2 $R/fifo.csv"
run nightly_window_bad_kind 2 "dl report --window weekly $R/fifo.csv"
# a generated busy workload (load 1.2): the whole run is diluted by its long tail, the
# arrival period and a middle window of jobs show the cluster as busy as it is
if heavy; then
	dl trace gen --seed 1 --jobs 2000 --load 1.2 --cluster 1x4x8:v100 > g.csv
	dl simulate -q --cluster 1x4x8:v100 --policy fifo --timeline g.tl.csv g.csv > g.fifo.csv
	u_all=$(dl report --cluster 1x4x8 -t g.tl.csv g.fifo.csv | cols utilization | sed -n 2p)
	u_arr=$(dl report --window arrivals --cluster 1x4x8 -t g.tl.csv g.fifo.csv | cols utilization | sed -n 2p)
	u_mid=$(dl report --window jobs:500-1500 --cluster 1x4x8 -t g.tl.csv g.fifo.csv | cols jobs,utilization | sed -n 2p)
	expect nightly_window_load_direction "awk -v a=$u_all -v b=$u_arr 'BEGIN{exit !(b > a + 0.15 && b > 0.7)}'"
	expect nightly_window_load_middle "awk -F, -v m='$u_mid' 'BEGIN{split(m, x, \",\"); exit !(x[1] == 1000 && x[2] > 0.75)}'"
fi

# ---- provenance: which command (and seed) made which label ----
dl trace gen --provenance --seed 11 --jobs 20 --rate 30 > pg.csv
dl simulate -q --provenance --cluster 1x1x8 --policy fifo pg.csv > pg.fifo.csv
dl simulate -q --provenance --cluster 1x1x8 --policy las --seed 4 pg.csv > pg.las.csv
dl simulate -q --cluster 1x1x8 --policy sjf pg.csv > pg.sjf.csv
dl trace import -q --from sacct --provenance "$R/sacct_typed.psv" > pg.jobs.csv
run nightly_made_by_page 0 "dl report --allow-unequal -o pg.html --as-run pg.jobs.csv pg.fifo.csv pg.las.csv pg.sjf.csv"
# the generator once for both labels it fed, then each simulation with its seed; the
# import for "as run"; sjf's results were written without --provenance: nothing for it
expect_eq nightly_made_by_rows '<tr><td class="s">fifo, las</td><td class="s"><code>dlsched trace gen --provenance --seed 11 --jobs 20 --rate 30</code></td><td>11</td></tr>
<tr><td class="s">fifo</td><td class="s"><code>dlsched simulate -q --provenance --cluster 1x1x8 --policy fifo pg.csv</code></td><td>1</td></tr>
<tr><td class="s">las</td><td class="s"><code>dlsched simulate -q --provenance --cluster 1x1x8 --policy las --seed 4 pg.csv</code></td><td>4</td></tr>
<tr><td class="s">as run</td><td class="s"><code>dlsched trace import -q --from sacct --provenance '"$R"'/sacct_typed.psv</code></td><td>-</td></tr>' "$(sed -n '/<table id="made-by">/,/<\/table>/p' pg.html | grep '^<tr><td')"
# the columns change nothing else: the same numbers as without them
run nightly_made_by_same_numbers 0 "dl report pg.fifo.csv pg.las.csv > a.csv && dl simulate -q --cluster 1x1x8 --policy fifo pg.csv > p1.csv && dl simulate -q --cluster 1x1x8 --policy las --seed 4 pg.csv > p2.csv && dl report -l fifo -l las p1.csv p2.csv | cmp - a.csv"
run nightly_made_by_none 0 "dl report -o none.html pg.sjf.csv"
expect nightly_made_by_none_table "! grep -q 'made-by' none.html"
command -v xmllint > /dev/null && expect nightly_made_by_xml "xmllint --noout pg.html"
