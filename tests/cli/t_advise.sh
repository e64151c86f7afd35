# t_advise.sh: dlsched advise on saved Slurm output (no Slurm needed): the plan of each
# policy, the fewest changes, filters, --apply and --undo through a stand-in scontrol that
# records its arguments, and bad or stale input that applies nothing.
# (t_slurm_advise.sh does the same against a real Slurm.)
# The saved queue is testdata/advise (see its NOTE for the state and the orders by hand).
for f in queue.txt queue.json sacct.psv nodes.txt; do
	cp "$TESTDATA/advise/$f" "$f"
done
TZ=UTC
export TZ
NOW=1795883100 # 2026-11-28T16:25:00Z, 2 minutes after the dump
A="dl advise --now $NOW --max-age 0"
order() { grep '^# [0-9]' "$1" | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//'; }

# ---- the plan ----
run advise_2d_las 0 "$A -p 2d-las --queue queue.txt --sacct sacct.psv"
# the policy's order is the one by hand (NOTE): attained 0 for 9..12, 8 GPU-s for 6
expect_eq advise_2d_las_order "9 10 11 12 6" "$(order out)"
# the fewest changes: 10, 11, 12 are in order already; 9 up, 6 down
expect_eq advise_2d_las_commands "scontrol update JobId=9 Nice=0
scontrol update JobId=6 Nice=37" "$(grep -v '^#' out)"
# the output is a script: its comments and commands parse
expect advise_is_script "sh -n out"
# squeue --json gives the same plan as the -o text
run advise_json_queue 0 "$A -p 2d-las --queue queue.json --sacct sacct.psv"
$A -p 2d-las --queue queue.txt --sacct sacct.psv > text.out
expect advise_json_same 'cmp -s text.out out'
# also every column of the table (squeue -o's "(null)" account is --json's "")
$A -p 2d-las -f csv --queue queue.txt --sacct sacct.psv > text.csv
$A -p 2d-las -f csv --queue queue.json --sacct sacct.psv > json.csv
expect advise_json_same_csv 'cmp -s text.csv json.csv'
# fifo: Slurm set the requeued job 6's submit time again, still the earliest
run advise_fifo 0 "$A -p fifo --queue queue.txt"
expect_eq advise_fifo_order "6 9 10 11 12" "$(order out)"
# a negative nice: squeue --json of Slurm 22.05 writes it as an unsigned 32-bit number
# (4294967289 for -7, seen on the test Slurm), squeue -o as -7
jq '(.jobs[] | select(.job_id == 10) | .nice) = 4294967289' queue.json > negnice.json
sed 's/^\(10|.*|4294901750|\)0|/\1-7|/' queue.txt > negnice.txt
expect advise_negnice_text_changed "grep -q '^10|.*|-7|PENDING' negnice.txt"
$A -p 2d-las -f csv --queue negnice.txt --sacct sacct.psv > negnice_text.csv
run advise_negnice_json 0 "$A -p 2d-las -f csv --queue negnice.json --sacct sacct.psv"
expect advise_negnice_same 'cmp -s negnice_text.csv out && grep -q "^10,bin,,debug,2,2,4294901750,4294901750,Nice,-7,-7," out'
run advise_priority_csv 0 "$A -p 2d-las -m priority -f csv --queue queue.txt --sacct sacct.psv"
expect_eq advise_priority_values "9,4294901751 6,4294901717" \
	"$(cols job,after,command out | awk -F, 'NR > 1 && $3 != "" { printf "%s%s,%s", s, $1, $2; s = " " }')"
run advise_sjf 0 "$A -p sjf --queue queue.txt"
expect_eq advise_sjf_order "12 10 11 6 9" "$(order out)"
run advise_srtf 0 "$A -p srtf --queue queue.txt --sacct sacct.psv"
# 6 ran 4 s of its 600: 596 s left, still before 9's 1200
expect_eq advise_srtf_order "12 10 11 6 9" "$(order out)"
run advise_ftf 0 "$A -p ftf --queue queue.txt --sacct sacct.psv --cluster nodes.txt"
run advise_las_queues 0 "$A -p 2d-las --queues 2 --thresholds 5 --queue queue.txt --sacct sacct.psv -f json"

# ---- fewest changes, and a second run on the changed state changes nothing ----
# the queue as Slurm shows it after the plan: new priority and nice of each changed job
$A -p 2d-las -f csv --queue queue.txt --sacct sacct.psv > plan.csv
awk -F'|' -v OFS='|' 'NR == FNR { if (FNR > 1 && $12 != "") { pr[$1] = $8; ni[$1] = $11 }; next }
	FNR > 1 && ($1 in pr) { $9 = pr[$1]; $10 = ni[$1] } { print }' FS=, plan.csv FS='|' queue.txt > applied.txt
expect advise_applied_changed '! cmp -s queue.txt applied.txt'
run advise_second_run 0 "$A -p 2d-las --queue applied.txt --sacct sacct.psv"
expect advise_second_run_none "grep -q ': 0 changes\$' out && ! grep -q '^scontrol' out"
expect_eq advise_second_run_ranks "1 2 3 4 5" "$(grep '^# [0-9]' out | awk '{ print $6 }' | tr '\n' ' ' | sed 's/ $//')"
# one job out of place moves alone: fifo on the applied queue puts 6 (the earliest) first
run advise_one_move 0 "$A -p fifo --queue applied.txt"
expect_eq advise_one_move_cmd "scontrol update JobId=6 Nice=2" "$(grep -v '^#' out)"

# ---- filters: a job outside them is never changed ----
run advise_user 0 "$A -p 2d-las --user daemon --queue queue.txt --sacct sacct.psv"
expect_eq advise_user_jobs "9 11" "$(order out)"
expect advise_user_counts "grep -q '2 pending jobs (2 running, 3 left alone)' out"
run advise_account 0 "$A -p 2d-las --account projx --user bin --queue queue.txt --sacct sacct.psv"
expect_eq advise_account_jobs "12" "$(order out)"
run advise_partition_none 0 "$A -p 2d-las --partition gpu --queue queue.txt --sacct sacct.psv"
expect advise_partition_none_out "grep -q 'over 0 pending jobs (2 running, 5 left alone).*: 0 changes' out && ! grep -q '^scontrol' out"

# ---- --apply and --undo through a stand-in scontrol (the real one: t_slurm_advise.sh) ----
mkdir -p bin
printf '#!/bin/sh\necho "$*" >> "%s/calls"\ncase "$*" in *JobId=6\\ *) exit ${FAIL6:-0} ;; esac\n' "$SCRATCH" > bin/scontrol
chmod +x bin/scontrol
P="PATH='$SCRATCH/bin':\$PATH"
run advise_apply 0 "$P $A -p 2d-las --queue queue.txt --sacct sacct.psv --apply --log audit.jsonl"
expect_eq advise_apply_calls "update JobId=9 Nice=0
update JobId=6 Nice=37" "$(cat calls)"
expect_eq advise_apply_log_lines 2 "$(wc -l < audit.jsonl | tr -d ' ')"
expect advise_apply_log "jq -e -s '.[0] | .action == \"apply\" and .policy == \"2d-las\" and .job == \"9\" and .user == \"daemon\" and .field == \"Nice\" and .before == 50 and .after == 0 and .exit == 0 and .command == \"scontrol update JobId=9 Nice=0\" and (.time | test(\"^2[0-9-]+T[0-9:]+Z\$\"))' audit.jsonl > /dev/null"
# undo reads the log and the queue as it is now (applied.txt): back to nice 50 and 0
rm -f calls
run advise_undo 0 "$P dl advise --queue applied.txt --max-age 0 --undo audit.jsonl --log undo.jsonl"
expect_eq advise_undo_calls "update JobId=9 Nice=50
update JobId=6 Nice=0" "$(cat calls)"
expect advise_undo_log "jq -e -s 'length == 2 and all(.action == \"undo\" and .exit == 0)' undo.jsonl > /dev/null"
# on the original queue there is nothing left to undo
rm -f calls
run advise_undo_noop 0 "$P dl advise --queue queue.txt --max-age 0 --undo audit.jsonl"
expect advise_undo_noop_calls "test ! -e calls && grep -q '^# 9: Nice 50 already' out"
# undo respects the filters too
run advise_undo_filtered 0 "$P dl advise --queue applied.txt --max-age 0 --undo audit.jsonl --user bin"
expect_eq advise_undo_filtered_calls "update JobId=6 Nice=0" "$(cat calls)"
# a failed scontrol: logged with its status, the others still run, exit 1
rm -f calls
run advise_apply_fail 1 "FAIL6=3 $P $A -p 2d-las --queue queue.txt --sacct sacct.psv --apply --log fail.jsonl"
expect advise_apply_fail_log "jq -e -s '.[1].job == \"6\" and .[1].exit == 3 and .[0].exit == 0' fail.jsonl > /dev/null && grep -q \"'scontrol update JobId=6 Nice=37' failed (exit status 3)\" err"
# a failed change is not undone (it never happened)
rm -f calls
run advise_undo_skips_failed 0 "$P dl advise --queue applied.txt --max-age 0 --undo fail.jsonl"
expect_eq advise_undo_skips_failed_calls "update JobId=9 Nice=50" "$(cat calls)"

# ---- bad and stale input: an error naming file and line, nothing applied ----
rm -f calls
cp queue.txt old.txt && touch -d @$((NOW - 3600)) old.txt
run advise_stale 1 "$P dl advise --now $NOW -p 2d-las --queue old.txt --sacct sacct.psv --apply --log a2.jsonl"
expect advise_stale_nothing 'test ! -e calls && test ! -e a2.jsonl'
run advise_fresh_enough 0 "dl advise --now $NOW --max-age 7200 -p fifo --queue old.txt"
sed '3s/|4294901750|/|42x|/' queue.txt > badprio.txt
run advise_bad_priority 1 "$P $A -p 2d-las --queue badprio.txt --sacct sacct.psv --apply --log a3.jsonl"
expect advise_bad_nothing 'test ! -e calls && test ! -e a3.jsonl'
sed '4s/^11|/11;reboot|/' queue.txt > badid.txt
run advise_bad_id 1 "$P $A -p fifo --queue badid.txt --apply --log a4.jsonl"
sed '2s/|10:00|/|ten|/' queue.txt > badlimit.txt
run advise_bad_limit 1 "$A -p fifo --queue badlimit.txt"
sed '2s/|10:00|/|UNLIMITED|/' queue.txt > unlimited.txt
run advise_unlimited_sjf 1 "$A -p sjf --queue unlimited.txt"
run advise_unlimited_las 0 "$A -p 2d-las --queue unlimited.txt --sacct sacct.psv | grep -c '^scontrol'"
cut -d'|' -f1-9 queue.txt > nonice.txt
run advise_missing_column 1 "$A -p fifo --queue nonice.txt"
sed '5s/|[^|]*$//' queue.txt > short.txt
run advise_short_row 1 "$A -p fifo --queue short.txt"
head -c 300 queue.json > cut.json
run advise_bad_json 1 "$A -p fifo --queue cut.json"
printf 'JobID|User|Submit|ElapsedRaw|AllocTRES\n6|bin|2026-11-28T16:22:49|x|gres/gpu=2\n' > bad.psv
run advise_bad_sacct 1 "$P $A -p 2d-las --queue queue.txt --sacct bad.psv --apply --log a5.jsonl"
expect advise_bad_sacct_nothing 'test ! -e calls && test ! -e a5.jsonl'
printf '{"job":"9","action":"apply"}\n' > badlog.jsonl
run advise_bad_log 1 "$P dl advise --queue queue.txt --max-age 0 --undo badlog.jsonl"
expect advise_bad_log_nothing 'test ! -e calls'
run advise_empty_queue 1 "$A -p fifo --queue /dev/null"

# ---- usage ----
run advise_no_policy 2 "$A --queue queue.txt"
run advise_apply_no_log 2 "$A -p fifo --queue queue.txt --apply"
run advise_log_no_apply 2 "$A -p fifo --queue queue.txt --log x.jsonl"
run advise_undo_policy 2 "dl advise --undo audit.jsonl -p fifo"
run advise_bad_mechanism 2 "$A -p fifo -m renice --queue queue.txt"
run advise_cluster_not_ftf 2 "$A -p fifo --cluster nodes.txt --queue queue.txt"
run advise_positional 2 "$A -p fifo queue.txt"

# ---- Slurm's commands missing: a clear error, nothing planned ----
mkdir -p empty
run advise_no_squeue 1 "PATH='$SCRATCH/empty' '$DLSCHED' advise -p fifo"
run advise_apply_no_scontrol 1 "PATH='$SCRATCH/empty' '$DLSCHED' advise $(echo "$A" | cut -d' ' -f3-) -p fifo --queue queue.txt --apply --log nos.jsonl"
expect advise_apply_no_scontrol_log "jq -e -s 'length == 1 and .[0].exit == 127' nos.jsonl > /dev/null"
