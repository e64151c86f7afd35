# t_sweep_slurm.sh: a sweep as a real Slurm job array (the shared test Slurm of
# tests/slurm/slurm.sh): the collected summary equals the local one byte for byte;
# a task cancelled mid-run is the only run redone.
# needs: slurm
heavy || return 0
need_slurm sweep_slurm || return 0

# wait until Slurm has no job JOB left (squeue), at most 120 s
slurm_wait() {
	i=0
	while [ $i -lt 600 ] && [ -n "$(squeue -h -j "$1" 2> /dev/null)" ]; do sleep 0.2; i=$((i + 1)); done
	[ -z "$(squeue -h -j "$1" 2> /dev/null)" ]
}

G="--axis policy=fifo,tiresias-las,sjf --axis load=0.8,1.6 --axis seed=1..2 --set cluster=1x1x8 --set jobs=60"
run sweep_slurm_local 0 "dl sweep -q $G -j 2 local"
run sweep_slurm_submit 0 "dl sweep --submit -j 4 --partition debug --time 5 $G arr"
job=$(cat out)
expect sweep_slurm_job_id "echo '$job' | grep -Eqx '[0-9]+'"
expect sweep_slurm_array_line "grep -qx '#SBATCH --array=0-11%4' arr/sweep.sbatch"
expect sweep_slurm_done "slurm_wait $job"
expect sweep_slurm_summary_identical "cmp local/summary.csv arr/summary.csv"
expect_eq sweep_slurm_twelve_tasks 12 "$(ls arr/slurm/ | grep -c "^${job}_[0-9]*\.out\$")"
run sweep_slurm_status 0 "dl sweep --status arr"

# a value with quotes, spaces, # and $(...) reaches Slurm as the text it is, runs nothing
run sweep_slurm_quoted 0 "dl sweep -q --submit --axis seed=1 --set cluster=1x1x8 --set load=0.5 --set jobs=5 --sbatch-option=\"--comment=x y'z #w \\\$(touch pwned)\" quoted"
qjob=$(cat out)
expect sweep_slurm_quoted_comment "scontrol show job $qjob | grep -qF \"Comment=x y'z #w \\\$(touch pwned)\""
expect sweep_slurm_quoted_done "slurm_wait $qjob && test -f quoted/summary.csv && test ! -e pwned && test ! -e quoted/pwned"

# cancel a task mid-run: its trace is a FIFO nobody writes, so it blocks in simulate
dl trace gen --jobs 30 --load 1 --cluster 1x1x8 --seed 1 > t1.csv
dl trace gen --jobs 30 --load 1 --cluster 1x1x8 --seed 2 > t2.csv
mkfifo slow.csv
run sweep_slurm_submit_slow 0 "dl sweep --submit --partition debug --time 7 --mem 200M -j 2 --axis trace=t1.csv,t2.csv,slow.csv --axis policy=fifo --set cluster=1x1x8 c"
job=$(cat out)
slow_running() { [ "$(squeue -h -j "${job}_2" -o %T 2> /dev/null)" = RUNNING ] && [ "$(ls c/runs/*/done 2> /dev/null | wc -l)" -eq 2 ]; }
i=0; while [ $i -lt 300 ] && ! slow_running; do sleep 0.2; i=$((i + 1)); done
expect sweep_slurm_slow_running slow_running
run sweep_slurm_scancel 0 "scancel ${job}_2"
expect sweep_slurm_cancelled "slurm_wait $job"
i=0; while [ $i -lt 100 ] && ! sacct -n -X -P -j $job -o JobID,State 2> /dev/null | grep -q "^${job}_2|CANCELLED"; do sleep 0.2; i=$((i + 1)); done
run sweep_slurm_status_missing 1 "dl sweep --status c"
expect sweep_slurm_one_missing "grep -q '3 runs: 2 done, 0 queued, 0 running, 0 failed, 1 missing' out && grep -q 'missing .*(trace=slow.csv, policy=fifo): cancelled in Slurm (task ${job}_2)' out"
expect sweep_slurm_no_summary_yet "test ! -e c/summary.csv"
# the trace becomes readable; the rerun (again as an array) does only the cancelled run
rm slow.csv && cp t1.csv slow.csv
stat -c '%n %Y %i' c/runs/*/done | sort > before
sleep 1
run sweep_slurm_resubmit 0 "dl sweep --submit c"
job=$(cat out)
expect sweep_slurm_resubmit_one "grep -q '3 runs: 2 done, 1 to run' err && grep -qx '#SBATCH --array=2%2' c/sweep.sbatch"
# the rerun keeps the first submit's partition, time limit and memory (Slurm's own record)
expect sweep_slurm_resubmit_keeps "grep -qx '#SBATCH --partition=debug' c/sweep.sbatch"
expect sweep_slurm_rerun_done "slurm_wait $job"
# (accounting is asynchronous: an array's first row is a bare "JOB|||..."; wait for the task's)
i=0; while [ $i -lt 100 ] && ! sacct -n -X -P -j $job --format=JobID,State 2> /dev/null | grep -q "^${job}_2|COMPLETED"; do sleep 0.2; i=$((i + 1)); done
expect_eq sweep_slurm_resubmit_sacct "${job}_2|debug|7|200M|COMPLETED" "$(sacct -n -X -P -j $job --format=JobID,Partition,TimelimitRaw,ReqMem,State)"
stat -c '%n %Y %i' c/runs/*/done | sort > after
expect_eq sweep_slurm_only_missing_redone "" "$(diff before after | grep '^<')"
expect_eq sweep_slurm_rerun_new 1 "$(diff before after | grep -c '^>')"
expect_eq sweep_slurm_rerun_summary 4 "$(wc -l < c/summary.csv 2> /dev/null)"

# Slurm-aware: one task at a time (-j 1), the second blocked on a FIFO, the third queued
mkfifo block.csv
run sweep_slurm_queue 0 "dl sweep --submit -j 1 --axis trace=t1.csv,block.csv,t2.csv --axis policy=fifo --set cluster=1x1x8 w"
job=$(cat out)
blocked() { [ "$(squeue -h -j "${job}_1" -o %T 2> /dev/null)" = RUNNING ] && [ "$(ls w/runs/*/done 2> /dev/null | wc -l)" -eq 1 ]; }
i=0; while [ $i -lt 300 ] && ! blocked; do sleep 0.2; i=$((i + 1)); done
run sweep_slurm_status_live 1 "dl sweep --status w"
expect sweep_slurm_status_live_counts "grep -qx '3 runs: 1 done, 1 queued, 1 running, 0 failed, 0 missing' out"
expect sweep_slurm_status_live_names "grep -q '^running [0-9a-f]* (trace=block.csv, policy=fifo): Slurm task ${job}_1\$' out && grep -q '^queued  [0-9a-f]* (trace=t2.csv, policy=fifo): Slurm task ${job}_2\$' out"
# a second submit would queue those runs twice: refused; --force leaves them to the array
run sweep_slurm_twice 1 "dl sweep --submit w"
expect sweep_slurm_twice_msg "grep -q '2 runs of .*/w. are queued or running in Slurm (see --status): --wait for them, scancel them, or give --force' err && test ! -s out"
run sweep_slurm_twice_force 0 "dl sweep --submit --force w"
expect sweep_slurm_twice_force_msg "grep -q 'nothing to submit: every run not done is queued or running' err && test ! -s out"
expect_eq sweep_slurm_one_array "$job" "$(cat w/slurm/jobs)"
expect_eq sweep_slurm_one_array_in_slurm 2 "$(squeue -h -r -o %i | grep -c "^${job}_")"
# --wait blocks until the array ends, then collects and says so
timeout 120 sh -c 'cat t2.csv > block.csv' &
writer=$!
run sweep_slurm_wait 0 "dl sweep --wait w"
wait $writer
expect sweep_slurm_wait_status "grep -qx '3 runs: 3 done, 0 queued, 0 running, 0 failed, 0 missing' out && test \$(wc -l < w/summary.csv) -eq 4 && test -z \"\$(squeue -h -j $job)\""
# --submit --wait: a script's one call; the job id, then the status
run sweep_slurm_submit_wait 0 "dl sweep --submit --wait -q --axis seed=1..3 --set load=1 --set cluster=1x1x8 --set jobs=15 sw"
expect sweep_slurm_submit_wait_out "head -1 out | grep -Eqx '[0-9]+' && sed -n 2p out | grep -qx '3 runs: 3 done, 0 queued, 0 running, 0 failed, 0 missing' && test \$(wc -l < sw/summary.csv) -eq 4"
run sweep_wait_no_array 2 "dl sweep --wait local"
expect sweep_wait_no_array_msg "grep -q \"no Slurm array was submitted from '.*/local'\" err"

# a task Slurm ends without its run (here: the plan was broken while the task waited, so
# `sweep --task` refuses it): --status says so from sacct, --wait keeps Slurm's output of
# the task and the reason with the run (failed, so a rerun redoes it)
mkfifo block2.csv
run sweep_slurm_queue2 0 "dl sweep --submit -j 1 --axis trace=block2.csv,t1.csv --axis policy=fifo --set cluster=1x1x8 sf"
job=$(cat out)
# (task 0 has read the plan once its run has a stderr; the FIFO's writer never outlives it)
i=0; while [ $i -lt 300 ] && [ "$(ls sf/runs/*/stderr 2> /dev/null | wc -l)" -ne 1 ]; do sleep 0.2; i=$((i + 1)); done
cp sf/plan.csv plan.keep && sed -n 2p sf/plan.csv >> sf/plan.csv
timeout 120 sh -c 'cat t1.csv > block2.csv' &
writer=$!
expect sweep_slurm_task_ended "slurm_wait $job"
wait $writer
cp plan.keep sf/plan.csv
i=0; while [ $i -lt 100 ] && ! sacct -n -X -P -j $job -o JobID,State 2> /dev/null | grep -q "^${job}_1|FAILED"; do sleep 0.2; i=$((i + 1)); done
ended=$(cols run sf/plan.csv | sed -n 3p)
run sweep_slurm_status_failed 1 "dl sweep --status sf"
expect sweep_slurm_status_failed_line "grep -qx '2 runs: 1 done, 0 queued, 0 running, 1 failed, 0 missing' out && grep -q \"^failed  $ended (trace=t1.csv, policy=fifo): Slurm FAILED (task ${job}_1), see .*/sf/slurm/${job}_1.out\" out"
run sweep_slurm_wait_failed 1 "dl sweep --wait sf"
expect sweep_slurm_wait_kept "grep -q 'plan.csv:4: run .* is also on line 2' sf/runs/$ended/slurm.out && grep -qx \"Slurm FAILED (task ${job}_1), see .*/sf/runs/$ended/slurm.out\" sf/runs/$ended/failed"
expect sweep_slurm_wait_failed_line "grep -q \"^failed  $ended (trace=t1.csv, policy=fifo): Slurm FAILED (task ${job}_1), see .*/sf/runs/$ended/slurm.out\\$\" out"
