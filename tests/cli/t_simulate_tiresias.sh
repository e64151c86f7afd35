# t_simulate_tiresias.sh: --compat tiresias reproduces the reference simulator row for row.
GOLDEN_CREATE=${GOLDEN_CREATE:-} UPDATE_GOLDEN=${UPDATE_GOLDEN:-}
# Every file in testdata/tiresias/reference was written by the upstream Python 2.7 code on
# 60_job.csv and n2g4_custom.csv; the name says the scheme and the schedule.
T=$TESTDATA/tiresias
for ref in "$T"/reference/*.job.csv; do
	b=$(basename "$ref" .job.csv)
	scheme=$(echo "$b" | cut -d- -f2)
	sched=$(echo "$b" | cut -d- -f3-)
	run "simulate_tiresias_$b" 0 "dl simulate --compat tiresias --cluster '$T/n2g4_custom.csv' \
		--place $scheme --policy $sched --distribution '$T/yarn-gput1000.csv' \
		'$T/60_job.csv' > got.csv"
	# byte for byte: compat mode writes the reference's CRLF line ends too
	expect "simulate_tiresias_${b}_rows" "cmp -s '$ref' got.csv"
done

# cluster.csv: one row per processed event
run simulate_tiresias_cluster_csv 0 "dl simulate --compat tiresias --cluster '$T/n2g4_custom.csv' \
	--place count --policy dlas-gpu --timeline cl.csv '$T/60_job.csv' > /dev/null"
expect simulate_tiresias_cluster_csv_rows "cmp -s '$T/reference/n2g4_custom-count-dlas-gpu.cluster.csv' cl.csv"
# CRLF in, CRLF out: the reference's files (CRLF trace, spec without a final newline, CRLF
# distribution) are read as they are; JSON output has no reference and keeps LF
printf 'num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\r\n1,2,4,128,256' > crlf_spec.csv
run simulate_tiresias_crlf_in 0 "dl simulate --compat tiresias --cluster crlf_spec.csv --place count \
	--policy dlas-gpu-gittins --distribution '$T/yarn-gput1000.csv' '$T/60_job.csv' > got.csv"
expect simulate_tiresias_crlf_in_rows "cmp -s '$T/reference/n2g4_custom-count-dlas-gpu-gittins.job.csv' got.csv"
expect simulate_tiresias_crlf_inputs_are_crlf "grep -q \"\$(printf '\\r')\" '$T/60_job.csv' && grep -q \"\$(printf '\\r')\" '$T/yarn-gput1000.csv'"
run simulate_tiresias_json_lf 0 "dl simulate -f json --compat tiresias --cluster crlf_spec.csv \
	--place count --policy fifo '$T/60_job.csv' > got.jsonl"
expect simulate_tiresias_json_lf_rows "[ \"\$(wc -l < got.jsonl)\" -eq 60 ] && ! grep -q \"\$(printf '\\r')\" got.jsonl"

# The reference's end_jobs aliasing in its dlas loop (dlsched-simulate(1)): a completion due at
# the instant of the next arrival is copied into that arrival event before the loop knows
# whether a queue jump comes first; if one does, the arrival keeps the list and logs those jobs
# as completed when it is processed. Issue 12's case, on one GPU: job 0 (4000 s) runs from 0
# and is due at 4000, when job 2 arrives; its demotion at 3250 lets job 1 preempt it; job 1
# ends at 3350 and job 0 resumes; at 4000 job 2's arrival logs job 0 as completed after 3,900
# s of its 4,000, with preempt 1, resume 2 (the native engine ends it at 4150).
A=$T/alias
run simulate_tiresias_alias_three 0 "dl simulate --compat tiresias --cluster '$A/n1g1.csv' \
	--place count --policy dlas-gpu '$A/three.csv' > got.csv"
expect simulate_tiresias_alias_three_rows "cmp -s '$A/three.job.csv' got.csv"
expect simulate_tiresias_alias_three_job0 "grep -q '^4000,0,1,0,0,4000,4000,4000,4000,100,1,2,0' got.csv"
# A larger case of our own, on 2 GPUs, traced by hand (episodes do not overlap in time):
#  1. a (2 GPUs, 2000 s) due at 2000 = x's arrival. Its demotion is checked at the floored
#     jump 5 + (3250 - 5) // 2 = 1627 (not 1625): b (2 GPUs) preempts it; at 2000 x's arrival
#     logs a as completed while it waits, with 1627 s done and pending_time 0 (the pending
#     counter is only brought up to date after the completions).
#  2. f and h (1 GPU) run from 10000; f is due at 13300 = y's arrival. Both demote at 13250
#     and k (2 GPUs) preempts both; k ends at 13290 (a completion between the jump and the
#     arrival) and f, h resume; at 13300 y's arrival logs f as completed while it runs, 40 s
#     short; h finishes its 3400 s at 13440.
#  3. u and v are both due at 33300 = z's arrival (a tie: the list holds both); w preempts
#     both at 33250 and at 33300 both are logged, in list order, while they wait.
#  4. r is due at 43300 = q's arrival; the jump at 43250 is r's own demotion, nothing
#     preempts it, so at 43300 the end event is due again and replaces the copied list: r
#     completes normally (the quirk leaves no trace when the job is still due then).
run simulate_tiresias_alias_episodes 0 "dl simulate --compat tiresias --cluster '$A/n1g2.csv' \
	--place count --policy dlas-gpu --timeline cl.csv '$A/episodes.csv' > got.csv"
expect simulate_tiresias_alias_episodes_rows "cmp -s '$A/episodes.job.csv' got.csv"
expect simulate_tiresias_alias_episodes_cluster "cmp -s '$A/episodes.cluster.csv' cl.csv"
# the native engine keeps the correct semantics: job 0 of issue 12's case ends at 4150
tr -d '\r' < "$A/three.csv" | cols job_id,submit_time,num_gpu,duration |
	awk 'NR == 1 { $0 = "id,submit,gpus,duration" } { print }' > three_native.csv
run simulate_tiresias_alias_native 0 "dl simulate --cluster 1x1x1 --policy tiresias-las \
	--checkpoint-cost 0 --restore-cost 0 three_native.csv > got.csv"
expect simulate_tiresias_alias_native_job0 "grep -q '^0,0,1,4000,0,4150,4150,150,4000,2,' got.csv"

# the dlas-gpu-gittins-N names behave exactly like dlas-gpu-N (reference quirk)
dl simulate --compat tiresias --cluster "$T/n2g4_custom.csv" --place count \
	--policy dlas-gpu-2 "$T/60_job_x10.csv" > a.csv 2>/dev/null
dl simulate --compat tiresias --cluster "$T/n2g4_custom.csv" --place count \
	--policy dlas-gpu-gittins-2 "$T/60_job_x10.csv" > b.csv 2>/dev/null
expect simulate_tiresias_gittins_n_quirk 'cmp -s a.csv b.csv && [ "$(wc -l < a.csv)" -eq 61 ]'
# starvation promotion happens on the x10 trace with N=1 (the promote column is used)
dl simulate --compat tiresias --cluster "$T/n2g4_custom.csv" --place count \
	--policy dlas-gpu-1 "$T/60_job_x10.csv" > p.csv 2>/dev/null
expect simulate_tiresias_promotes 'cols promote p.csv -e "NR>1{s+=\$1} END{exit !(s>0)}"'

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
