# t_simulate_tiresias.sh: --compat tiresias reproduces the reference simulator row for row.
GOLDEN_CREATE=${GOLDEN_CREATE:-} UPDATE_GOLDEN=${UPDATE_GOLDEN:-}
# Every file in testdata/tiresias/reference was written by the upstream Python 2.7 code on
# 60_job.csv and n2g4_custom.csv; the name says the scheme and the schedule.
T=$TESTDATA/tiresias
for ref in "$T"/reference/*.job.csv; do
	b=$(basename "$ref" .job.csv)
	scheme=$(echo "$b" | cut -d- -f2)
	sched=$(echo "$b" | cut -d- -f3-)
	tr -d '\r' < "$ref" > want.csv
	run "simulate_tiresias_$b" 0 "dl simulate --compat tiresias --cluster '$T/n2g4_custom.csv' \
		--place $scheme --policy $sched --distribution '$T/yarn-gput1000.csv' \
		'$T/60_job.csv' > got.csv"
	expect "simulate_tiresias_${b}_rows" 'cmp -s want.csv got.csv'
done

# cluster.csv: one row per processed event
tr -d '\r' < "$T/reference/n2g4_custom-count-dlas-gpu.cluster.csv" > want.csv
run simulate_tiresias_cluster_csv 0 "dl simulate --compat tiresias --cluster '$T/n2g4_custom.csv' \
	--place count --policy dlas-gpu --timeline cl.csv '$T/60_job.csv' > /dev/null"
expect simulate_tiresias_cluster_csv_rows 'cmp -s want.csv cl.csv'

# the dlas-gpu-gittins-N names behave exactly like dlas-gpu-N (reference quirk)
dl simulate --compat tiresias --cluster "$T/n2g4_custom.csv" --place count \
	--policy dlas-gpu-2 "$T/60_job_x10.csv" > a.csv 2>/dev/null
dl simulate --compat tiresias --cluster "$T/n2g4_custom.csv" --place count \
	--policy dlas-gpu-gittins-2 "$T/60_job_x10.csv" > b.csv 2>/dev/null
expect simulate_tiresias_gittins_n_quirk 'cmp -s a.csv b.csv && [ "$(wc -l < a.csv)" -eq 61 ]'
# starvation promotion happens on the x10 trace with N=1 (the promote column is used)
dl simulate --compat tiresias --cluster "$T/n2g4_custom.csv" --place count \
	--policy dlas-gpu-1 "$T/60_job_x10.csv" > p.csv 2>/dev/null
expect simulate_tiresias_promotes 'awk -F, "NR>1{s+=\$13} END{exit !(s>0)}" p.csv'

# yarn in the preemptive loops leaks memory like the reference: jobs left unfinished warn
run simulate_tiresias_yarn_leak 0 "dl simulate --compat tiresias --cluster '$T/n2g4_custom.csv' \
	--place yarn --policy sjf '$T/60_job_x10.csv' > leak.csv"
expect simulate_tiresias_yarn_leak_warns 'grep -q "never finished" err && [ "$(wc -l < leak.csv)" -lt 61 ]'

# a job wider than the cluster never runs: reported, not looped on
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,10\n2,64,5,10\n3,2,7,10\n' > wide.csv
run simulate_tiresias_too_wide 0 "dl simulate --compat tiresias --cluster '$T/n2g4_custom.csv' \
	--place count --policy dlas-gpu wide.csv > w.csv"
expect simulate_tiresias_too_wide_rows '[ "$(wc -l < w.csv)" -eq 3 ] && grep -q "1 of 3 jobs never finished" err'

# errors: bad values name file and line; unknown names are usage errors
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,10\n2,x,5,10\n' > bad.csv
run simulate_tiresias_bad_gpu 1 "dl simulate --compat tiresias --policy fifo bad.csv"
expect simulate_tiresias_bad_gpu_msg 'grep -q "bad.csv:3: bad num_gpu value .x." err'
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,0.5\n' > zero.csv
run simulate_tiresias_zero_duration 1 "dl simulate --compat tiresias --policy fifo zero.csv"
expect simulate_tiresias_zero_duration_msg 'grep -q "zero.csv:2: bad duration value" err'
run simulate_tiresias_unknown_schedule 2 "dl simulate --compat tiresias --policy gittins '$T/60_job.csv'"
run simulate_tiresias_unknown_scheme 2 "dl simulate --compat tiresias --policy fifo --place random '$T/60_job.csv'"
run simulate_tiresias_no_output_on_error 1 "dl simulate --compat tiresias --policy fifo -o o.csv bad.csv"
expect simulate_tiresias_no_output_file '[ ! -e o.csv ]'
# native-only options are refused in compat mode (no silent guess)
run simulate_tiresias_native_opt 2 "dl simulate --compat tiresias --policy dlas-gpu --starvation 2 '$T/60_job.csv'"
run simulate_tiresias_events 2 "dl simulate --compat tiresias --policy dlas-gpu --events e.jsonl '$T/60_job.csv'"
run simulate_tiresias_gittins_needs_dist 2 "dl simulate --compat tiresias --policy dlas-gpu-gittins '$T/60_job.csv'"
