# t_trace.sh: trace import / gen / stats on small files in the real formats
T=$TESTDATA/trace

# ---- tiresias + the 60_job.csv anchor (60 jobs, mix 1:30 2:10 4:10 8:10, mean 178.42 s, 26,624 GPU-s)
run trace_import_tiresias 0 "dl trace import --from tiresias '$T/60_job.csv'"
expect trace_tiresias_rows "test \$(wc -l < out) -eq 61"
run trace_stats_60job 0 "dl trace import --from tiresias '$T/60_job.csv' | dl trace stats -f csv"
g() { cols scope,metric,value "$SCRATCH/out" | awk -F, -v m="$1" '$1=="all" && $2==m {print $3}'; }
expect_eq trace_60job_jobs 60 "$(g jobs)"
expect_eq trace_60job_mix "30 10 10 10" "$(g jobs_with_1_gpus) $(g jobs_with_2_gpus) $(g jobs_with_4_gpus) $(g jobs_with_8_gpus)"
expect_eq trace_60job_mean 178.42 "$(awk -v v="$(g duration_mean)" 'BEGIN{printf "%.2f", v}')"
expect_eq trace_60job_gputime 26624 "$(g gpu_time_total)"
run trace_stats_60job_text 0 "dl trace import --from tiresias '$T/60_job.csv' | dl trace stats"
run trace_stats_60job_json 0 "dl trace import --from tiresias '$T/60_job.csv' | dl trace stats -f json"
expect trace_stats_json_lines "grep -q '^{\"scope\":\"all\",\"metric\":\"jobs\",\"value\":60}$' out"
# CRLF line ends and a 0-GPU row (skipped, counted)
printf 'job_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n0,1,5,10,vgg19,100,1\r\n1,0,6,10,vgg19,50,1\r\n2,2,7,10,resnet50,30,0\r\n' > crlf.csv
run trace_import_tiresias_crlf 0 "dl trace import --from tiresias crlf.csv"
run trace_tiresias_bad_duration 1 "printf 'job_id,num_gpu,submit_time,duration\n0,1,0,abc\n' > b.csv; dl trace import --from tiresias b.csv"
run trace_tiresias_missing_col 1 "printf 'job_id,num_gpu,duration\n0,1,5\n' > m.csv; dl trace import --from tiresias m.csv"

# ---- gavel: 10-field and legacy 7-field TSV, steps -> seconds through the throughputs
run trace_import_gavel 0 "dl trace import --from gavel --throughputs '$T/gavel_throughputs_small.json' '$T/gavel_physical.trace' '$T/gavel_msr_legacy.trace'"
# job 0: 2931 steps of ResNet-50 (batch size 64) on 1 v100 at 4.3947... steps/s (Gavel's simulation_throughputs.json)
expect_eq trace_gavel_duration 666.93 "$(cols duration out | awk 'NR==2{printf "%.2f", $1}')"
run trace_import_gavel_k80 0 "dl trace import --from gavel --gpu-type k80 --throughputs '$T/gavel_throughputs_small.json' '$T/gavel_physical.trace' | dl trace stats -f csv"
expect trace_gavel_k80_slower "cols metric,value out -e '\$1==\"duration_mean\"{exit !(\$2 > 2000)}'"
run trace_gavel_needs_tputs 2 "dl trace import --from gavel '$T/gavel_physical.trace'"
run trace_gavel_bad_fields 1 "printf 'a\tb\tc\n' > g.trace; dl trace import --from gavel --throughputs '$T/gavel_throughputs_small.json' g.trace"
run trace_gavel_unknown_model 1 "printf 'NoSuchModel\tcmd\t-n\t1\t10\t0\t1\n' > g.trace; dl trace import --from gavel --throughputs '$T/gavel_throughputs_small.json' g.trace"
run trace_import_gavel_tputs 0 "dl trace import --from gavel-throughputs '$T/gavel_throughputs_small.json' | head -4"
# the throughputs stream reads back and gives the same durations
dl trace import --from gavel-throughputs "$T/gavel_throughputs_small.json" > tp.csv
run trace_gavel_tputs_csv_same 0 "dl trace import --from gavel --throughputs tp.csv '$T/gavel_physical.trace' '$T/gavel_msr_legacy.trace' > a.csv && dl trace import --from gavel --throughputs '$T/gavel_throughputs_small.json' '$T/gavel_physical.trace' '$T/gavel_msr_legacy.trace' > b.csv && cmp a.csv b.csv"
run trace_gavel_tputs_jsonl 0 "dl cat -f json tp.csv > tp.jsonl && dl trace import --from gavel --throughputs tp.jsonl '$T/gavel_physical.trace' '$T/gavel_msr_legacy.trace' | cmp - a.csv"
run trace_tputs_duplicate 1 "head -2 tp.csv > d.csv; tail -1 d.csv >> d.csv; dl trace import --from gavel --throughputs d.csv '$T/gavel_physical.trace'"
run trace_gavel_tputs_bad 1 "printf '{\"v100\": {\"bad key\": {\"null\": 1}}}' > bad.json; dl trace import --from gavel-throughputs bad.json"

# ---- philly: attempts, GPUs from the first attempt's detail, None/null times, no attempts
run trace_import_philly 0 "dl trace import --from philly --tz America/Los_Angeles '$T/philly_jobs.json'"
run trace_import_philly_sum 0 "dl trace import --from philly --philly-duration sum --tz America/Los_Angeles '$T/philly_jobs.json'"
run trace_import_philly_verbose 0 "dl trace import -q --from philly '$T/philly_jobs.json' > /dev/null"
run trace_philly_bad_time 1 "printf '[{\"jobid\": \"a\", \"submitted_time\": \"2017-13-01 00:00:00\", \"attempts\": []}]' > p.json; dl trace import --from philly p.json"
run trace_philly_bad_json 1 "printf '[{\"jobid\": \"a\",\n \"submitted_time\": }]' > p.json; dl trace import --from philly p.json"
run trace_philly_bad_mode 2 "dl trace import --from philly --philly-duration longest '$T/philly_jobs.json'"

# ---- pai: job + task tables joined, fractional GPUs rounded up (request kept in gpu_request)
run trace_import_pai 0 "dl trace import --from pai '$T/pai_job_table.csv' '$T/pai_task_table.csv'"
run trace_pai_one_table 2 "dl trace import --from pai '$T/pai_job_table.csv'"
run trace_pai_bad_plan 1 "printf 'j,w,1,T,1,2,600,29,lots,V100\n' > t.csv; dl trace import --from pai '$T/pai_job_table.csv' t.csv"

# ---- helios: CRLF, CPU jobs, never-started and zero-duration jobs; local time zone
run trace_import_helios 0 "dl trace import --from helios --tz Asia/Shanghai '$T/helios_cluster_log.csv'"
run trace_helios_keep_epoch 0 "dl trace import -q --from helios --tz UTC --keep-epoch '$T/helios_cluster_log.csv'"
expect_eq trace_helios_epoch "1585699200" "$(cols submit out | sed -n 2p)"

# ---- sacct: typed gres counted once, CANCELLED by N, steps, Unknown/None, DST in --tz
run trace_import_sacct_quirks 0 "dl trace import --from sacct --tz Europe/Berlin '$T/sacct_quirks.psv'"
run trace_import_sacct_real 0 "dl trace import --from sacct '$T/sacct_real_sample.psv'"
# an ordinary night's skips are for -v (cron mails stderr), job steps need a person
run trace_sacct_skips_verbose 0 "dl trace import -v --from sacct --tz Europe/Berlin '$T/sacct_quirks.psv'"
expect trace_sacct_skips_verbose_says "grep -qx 'dlsched trace: skipped 5 input rows that cannot run as GPU jobs: 1 no GPUs, 1 still running, 1 zero run time, 1 job step, 1 cancelled while pending' err"
run trace_sacct_skips_quiet 0 "grep -v '^[0-9]*\\.' '$T/sacct_quirks.psv' > nostep.psv && dl trace import --from sacct --tz Europe/Berlin nostep.psv"
expect trace_sacct_skips_quiet_stderr "[ ! -s err ] && [ -s out ]"
run trace_sacct_state_filter 0 "dl trace import -q --from sacct --state cancelled '$T/sacct_real_sample.psv'"
run trace_sacct_noheader 1 "tail -n +2 '$T/sacct_real_sample.psv' > n.psv; dl trace import --from sacct n.psv"
run trace_sacct_empty 1 "printf '' | dl trace import --from sacct -"
run trace_sacct_bad_tres 1 "printf 'JobID|Submit|ElapsedRaw|AllocTRES\n1|2026-01-01T00:00:00|5|gres/gpu=x\n' > s.psv; dl trace import --from sacct s.psv"
run trace_sacct_bad_fields 1 "printf 'JobID|Submit|ElapsedRaw|AllocTRES\n1|2026-01-01T00:00:00|5\n' > s.psv; dl trace import --from sacct s.psv"
# -p (trailing '|') and Elapsed instead of ElapsedRaw
printf 'JobID|Submit|Elapsed|AllocTRES|\n9|2026-01-01T00:00:00|1-02:03:04|gres/gpu:h100=8|\n' > p.psv
run trace_sacct_elapsed 0 "dl trace import --from sacct p.psv"

# ---- filters, limit, formats
run trace_filters 0 "dl trace import --from tiresias --min-gpus 2 --max-gpus 4 --since 100 --until 1000 --limit 5 '$T/60_job.csv'"
run trace_filter_vc_user 0 "dl trace import -q --from helios --vc vcmars,VCEARTH --user uA '$T/helios_cluster_log.csv'"
run trace_since_date 0 "dl trace import -q --from helios --tz UTC --since '2020-04-01 00:00:05' --until 2020-04-02 '$T/helios_cluster_log.csv'"
run trace_bad_since 2 "dl trace import --from sacct --since yesterday '$T/sacct_real_sample.psv'"
run trace_json_out 0 "dl trace import -f json --from tiresias --limit 2 '$T/60_job.csv'"
run trace_unknown_format 2 "dl trace import --from slurm x"
run trace_no_from 2 "dl trace import x"
run trace_no_file 2 "dl trace import --from sacct"
run trace_missing_file 1 "dl trace import --from sacct nonexistent.psv"
run trace_unknown_sub 2 "dl trace frobnicate"
run trace_no_sub 2 "dl trace"
run trace_atomic_output 1 "printf 'job_id,num_gpu,submit_time,duration\\n0,1,0,1\\n1,1,0,x\\n' > at.csv; dl trace import --from tiresias -o res.csv at.csv; rc=\$?; test ! -e res.csv && exit \$rc"
run trace_gzip_input 0 "gzip -c '$T/60_job.csv' > j.csv.gz && dl trace import --from tiresias '$T/60_job.csv' > plain.csv && dl trace import --from tiresias j.csv.gz | cmp - plain.csv"

# ---- stats on bad input, pass-through columns
run trace_stats_bad 1 "printf 'id,submit,gpus,duration\na,0,2,-1\n' | dl trace stats"
run trace_stats_empty 0 "printf 'id,submit,gpus,duration\n' | dl trace stats -f csv"
run trace_stats_jsonl_input 0 "dl trace import -f json --from tiresias '$T/60_job.csv' | dl trace stats -f csv | grep -x 'all,gpu_time_total,26624'"
run trace_stats_vc 0 "dl trace import -q --from helios '$T/helios_cluster_log.csv' | dl trace stats"

# ---- gen: deterministic, mixes, distributions, load
run trace_gen_small 0 "dl trace gen --seed 7 --jobs 5 --rate 60 --users 3 --vcs 2"
run trace_gen_same_seed 0 "dl trace gen --seed 3 --jobs 2000 --rate 10 > a.csv && dl trace gen --seed 3 --jobs 2000 --rate 10 > b.csv && cmp a.csv b.csv"
run trace_gen_other_seed 1 "dl trace gen --seed 3 --jobs 200 --rate 10 > a.csv && dl trace gen --seed 4 --jobs 200 --rate 10 > b.csv && cmp -s a.csv b.csv"
run trace_gen_mix 0 "dl trace gen --jobs 10000 --rate 100 --gpus 2:1,16:3 | dl trace stats -f csv"
expect trace_gen_mix_ratio "cols metric,value out -e '\$1==\"jobs_with_16_gpus\"{exit !(\$2 > 7200 && \$2 < 7800)} '"
expect trace_gen_mix_only "! grep -q jobs_with_1_gpus out"
run trace_gen_models 0 "dl trace gen --seed 2 --jobs 4 --rate 60 --duration gavel --throughputs '$T/gavel_throughputs_small.json'"
run trace_gen_exp 0 "dl trace gen --jobs 20000 --rate 100 --duration exp:500 | dl trace stats -f csv"
expect trace_gen_exp_mean "cols metric,value out -e '\$1==\"duration_mean\"{exit !(\$2 > 490 && \$2 < 510)}'"
run trace_gen_lognormal 0 "dl trace gen --jobs 20000 --rate 100 --duration lognormal:6:1 | dl trace stats -f csv"
expect trace_gen_lognormal_median "cols metric,value out -e '\$1==\"duration_p50\"{exit !(\$2 > 395 && \$2 < 412)}'"
run trace_gen_gavel 0 "dl trace gen --jobs 20000 --rate 100 --duration gavel | dl trace stats -f csv"
# 80% in 60*10^[1.5,3] = [1897, 60000] s: p25 and p75 of the mixture are 60*10^(1.5+1.5*0.3125) and 60*10^(1.5+1.5*0.9375)
expect trace_gen_gavel_p25 "cols metric,value out -e '\$1==\"duration_p25\"{exit !(\$2 > 5520 && \$2 < 5630)}'"
expect trace_gen_gavel_p75 "cols metric,value out -e '\$1==\"duration_p75\"{exit !(\$2 > 47800 && \$2 < 48900)}'"
run trace_gen_samples 0 "printf 'duration\n10\n20\n30\n' > s.csv; dl trace gen --jobs 3000 --rate 100 --duration samples:s.csv | dl trace stats -f csv"
expect trace_gen_samples_mix "cols metric,value out -e '\$1==\"duration_min\"{a=\$2} \$1==\"duration_max\"{b=\$2} \$1==\"duration_mean\"{c=\$2} END{exit !(a==10 && b==30 && c==20)}'"
run trace_gen_load 0 "dl trace gen --jobs 20000 --load 0.5 --cluster 2x4x8:v100 --duration exp:1000 --gpus 1:1 | dl trace stats -f csv"
# 0.5 x 64 GPUs / (1 GPU x 1000 s) = 0.032 jobs/s = 115.2 per hour
expect trace_gen_load_rate "cols metric,value out -e '\$1==\"arrivals_per_hour\"{exit !(\$2 > 112 && \$2 < 118.5)}'"
run trace_gen_need_rate 2 "dl trace gen --jobs 5"
run trace_gen_load_needs_cluster 2 "dl trace gen --jobs 5 --load 1"
run trace_gen_bad_mix 2 "dl trace gen --jobs 5 --rate 1 --gpus 1:x"
run trace_gen_bad_dist 2 "dl trace gen --jobs 5 --rate 1 --duration weibull"
run trace_gen_bad_cluster 2 "dl trace gen --jobs 5 --load 1 --cluster 4x4"
run trace_gen_no_model 1 "dl trace gen --jobs 5 --rate 1 --gpus 3:1 --throughputs '$T/gavel_throughputs_small.json'"

# the stated anchor: 100,000 jobs with philly durations keep the sample's quartiles within 2%
if heavy; then
	run trace_gen_philly_quartiles 0 "dl trace gen --seed 1 --jobs 100000 --rate 100 | dl trace stats -f csv"
	for q in 25:131 50:1186 75:3342; do
		p=${q%:*} want=${q#*:}
		expect "trace_gen_philly_p$p" "cols metric,value out -v w=$want -e '\$1==\"duration_p$p\"{d=(\$2-w)/w; exit !(d < 0.02 && d > -0.02)}'"
	done
	# and against the shipped sample file itself, through samples:FILE
	run trace_gen_philly_samples 0 "dl trace gen --seed 5 --jobs 100000 --rate 100 --duration 'samples:$T/philly_runtime.csv' | dl trace stats -f csv"
	expect trace_gen_philly_samples_p50 "cols metric,value out -e '\$1==\"duration_p50\"{d=(\$2-1186)/1186; exit !(d < 0.02 && d > -0.02)}'"
fi

# a time before the epoch cannot become a submit of the jobs stream (submit >= 0)
run_says trace_sacct_pre_epoch 1 "printf 'JobID|JobName|User|Partition|Submit|Start|End|ElapsedRaw|AllocTRES|State\n7|a|u|p|1900-10-21T23:57:28|2026-11-21T23:57:28|2026-11-21T23:57:30|2|gres/gpu=1|COMPLETED\n' > old.psv && dl trace import --from sacct --tz UTC --keep-epoch old.psv" \
	"dlsched trace: old.psv:2: bad Submit value '1900-10-21T23:57:28': expected YYYY-MM-DDTHH:MM:SS from 1970 on"

# Slurm's real schedule: Start/End kept as start/end, shifted like submit (job 3 started
# 3 s after the first submit and ended 2 s later)
run trace_sacct_asrun_cols 0 "dl trace import --from sacct '$T/sacct_real_sample.psv' | cols id,submit,start,end"
expect_eq trace_sacct_asrun_header "id,submit,start,end" "$(head -1 out)"
expect_eq trace_sacct_asrun_job3 "3,0,3,5" "$(grep '^3,' out)"
run trace_sacct_asrun_epoch 0 "dl trace import --from sacct --tz UTC --keep-epoch '$T/sacct_real_sample.psv' | grep '^3,'"
# 2026-11-21T23:57:28 UTC = 1795305448
expect_eq trace_sacct_asrun_epoch_job3 "3,1795305448,1,2,root,debug,COMPLETED,1795305451,1795305453,debug" "$(cat out)"
# running and pending jobs at dump time: duration from TimelimitRaw (minutes), a pending
# job's GPUs from ReqTRES, no start or end where Slurm had none; UNLIMITED is skipped; the
# rejected submission (5 GPUs asked, none allocated, FAILED) was rejected at submit;
# gpu_type is what ReqTRES asked for, alloc_gpu_type what AllocTRES gave
run trace_sacct_keep_unfinished 0 "dl trace import --from sacct --keep-unfinished --skipped sk.csv '$T/sacct_live_limits.psv'"
expect_eq trace_sacct_keep_unfinished_rows "id,submit,gpus,duration,user,vc,gpu_type,state,start,end,alloc_gpu_type,partition,origin
6,0,1,60,root,debug,a100,COMPLETED,1,61,a100,debug,1795305450
2,67,2,600,root,debug,,RUNNING,67,,,debug,
4,67,1,300,root,debug,,PENDING,,,,debug," "$(cat out)"
expect_eq trace_sacct_skipped_file "reason,count
zero run time,1
unfinished without a time limit,1
rejected at submit,1" "$(cat sk.csv)"
run trace_sacct_unfinished_default 0 "dl trace import -q --from sacct --skipped sk.csv '$T/sacct_live_limits.psv' | wc -l"
expect_eq trace_sacct_unfinished_default_rows 2 "$(cat out | tr -d ' ')"
expect trace_sacct_unfinished_default_skips "grep -qx 'still running,2' sk.csv && grep -qx 'pending at the dump,1' sk.csv && grep -qx 'rejected at submit,1' sk.csv"
run trace_keep_unfinished_not_sacct 2 "dl trace import --from tiresias --keep-unfinished '$T/60_job.csv'"
# the origin: the Unix time of time 0 (2026-11-21T23:57:28 UTC), on the first row only, so
# that report --tz can draw the night in the site's clock time
expect_eq trace_sacct_origin "1795305448 " "$(dl trace import -q --from sacct --tz UTC "$T/sacct_real_sample.psv" | cols origin -e 'NR > 1 {printf "%s ", $1}' | tr -s ' ')"
# a night without a single job: a header only, exit 0, the skips still counted
run trace_sacct_no_jobs 0 "printf 'JobID|Submit|Start|End|ElapsedRaw|AllocTRES|State\n1|2026-11-21T10:00:00|2026-11-21T10:00:00|2026-11-21T10:05:00|300|cpu=4|COMPLETED\n' > cpu.psv && dl trace import -q --from sacct --skipped sk.csv cpu.psv"
expect_eq trace_sacct_no_jobs_header "id,submit,gpus,duration,start,end" "$(cat out)"
expect_eq trace_sacct_no_jobs_skips "no GPUs,1" "$(tail -1 sk.csv)"
# real sacct output of a running and a pending typed job (TimelimitRaw in minutes)
run trace_sacct_real_unfinished 0 "dl trace import --from sacct --keep-unfinished '$T/sacct_real_unfinished.psv'"
expect_eq trace_sacct_real_unfinished_rows "id,submit,gpus,duration,user,vc,gpu_type,state,start,end,alloc_gpu_type,partition,origin
6,0,1,180,root,debug,k80,RUNNING,0,,k80,debug,1795430271
7,2,2,120,root,debug,k80,PENDING,,,,debug," "$(cat out)"
# real sacct output of a job cancelled while it waited: Slurm writes Start = End (the
# cancel time), ElapsedRaw 0 and no AllocTRES, but ReqTRES asked for 2 v100s; it never
# started (it is not a CPU job): it was cancelled while pending
run trace_sacct_real_cancelled 0 "dl trace import -q --from sacct --skipped sk.csv '$T/sacct_real_cancelled.psv'"
expect_eq trace_sacct_real_cancelled_rows "id,submit,gpus,duration,user,vc,gpu_type,state,start,end,alloc_gpu_type,partition,origin
4,0,1,1,root,debug,k80,COMPLETED,1,2,k80,debug,1795432285" "$(cat out)"
expect_eq trace_sacct_real_cancelled_skips "reason,count
cancelled while pending,1" "$(cat sk.csv)"

# --provenance: the command line and seed on the first row (gen: the seed used, also by
# default; import: none), nothing on the others, the jobs otherwise unchanged
run trace_gen_provenance 0 "dl trace gen --provenance --jobs 3 --rate 60"
dl trace gen --jobs 3 --rate 60 > plain.csv
expect_eq trace_gen_provenance_first "dlsched trace gen --provenance --jobs 3 --rate 60,1" "$(cols made_by.. out | sed -n 2p)"
cols id..duration out > cut.csv
expect trace_gen_provenance_rest "head -1 out | grep -qx 'id,submit,gpus,duration,made_by,seed' && [ \"\$(sed -n '3,4p' out | grep -c ',,\$')\" = 2 ] && cmp -s cut.csv plain.csv"
run trace_import_provenance 0 "dl trace import -q --from sacct --provenance '$T/sacct_real_cancelled.psv'"
expect_eq trace_import_provenance_rows "id,submit,gpus,duration,user,vc,gpu_type,state,start,end,alloc_gpu_type,partition,origin,made_by,seed
4,0,1,1,root,debug,k80,COMPLETED,1,2,k80,debug,1795432285,dlsched trace import -q --from sacct --provenance $T/sacct_real_cancelled.psv," "$(cat out)"
