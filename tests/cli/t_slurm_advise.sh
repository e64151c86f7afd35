# t_slurm_advise.sh: dlsched advise against a real Slurm (the shared test Slurm: node
# dlnode1, gpu:v100:4 and gpu:k80:2, priority/basic). Jobs of two users other than root
# (daemon and bin, present on every Debian system: no accounts are created; root submits
# for them with sbatch --uid), two running and five pending, one of which ran before it was
# requeued and so has attained service. The dry run is checked against 2D-LAS computed
# here from sacct's numbers; --apply against the pending order squeue shows and the job
# Slurm starts next; --undo, the filters, a second --apply that changes nothing, and stale
# or malformed input that applies nothing.
# needs: slurm
heavy || return 0
need_slurm slurm_advise || return 0
U="--user daemon --user bin"
FMT='%i|%u|%a|%P|%V|%D|%b|%l|%Q|%y|%T|%M'
sb() { sbatch --parsable --chdir=/tmp -o /dev/null "$@" --wrap 'sleep 600'; } # OPTIONS: the id
state() { squeue -h -j "$1" -o %T 2> /dev/null; }
wait_state() { # JOB STATE
	_i=0
	while [ $_i -lt 300 ] && [ "$(state "$1")" != "$2" ]; do sleep 0.2; _i=$((_i + 1)); done
	[ "$(state "$1")" = "$2" ]
}
# the pending jobs of our users by Slurm's order (priority, highest first) and their nice
pending_order() { squeue -h -t PD -u daemon,bin -o '%Q %i' | sort -s -k1,1nr | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//'; }
prio_nice() { squeue -h -t PD -u daemon,bin -o '%i %Q %y' | sort; }
# earlier tests' jobs must be gone: they would hold GPUs
i=0
while [ $i -lt 300 ] && [ -n "$(squeue -h -o %i)" ]; do sleep 0.2; i=$((i + 1)); done
expect_eq slurm_advise_queue_empty "" "$(squeue -h -o %i)"

# q runs a few seconds on 2 v100 and is requeued (Slurm resets its submit time and keeps
# it out until a begin time, set an hour ahead so it stays pending); k80s and the other
# v100s are taken by running jobs, so every v100 job below waits
q=$(sb --uid=bin --gres=gpu:v100:2 -t 10 -J requeued)
k=$(sb --uid=daemon --gres=gpu:k80:2 -t 10 -J k80s)
expect slurm_advise_q_runs "wait_state $q RUNNING && wait_state $k RUNNING"
sleep 3
big=$(sb --uid=daemon --gres=gpu:v100:4 -t 10 -J big)
scontrol requeue "$q"
expect slurm_advise_big_runs "wait_state $big RUNNING"
scontrol update JobId="$q" StartTime=now+3600
# fresh jobs with nice values, so that Slurm's order is not their submit order
p1=$(sb --uid=daemon --gres=gpu:v100:4 -t 20 --nice=50 -J p1)
p2=$(sb --uid=bin --gres=gpu:v100:1 -t 5 -J p2)
p3=$(sb --uid=daemon --gres=gpu:v100:2 -t 8 --nice=10 -J p3)
p4=$(sb --uid=bin -A projx --gres=gpu:v100:1 -t 3 --nice=30 -J p4)
for j in $p1 $p2 $p3 $p4; do wait_state "$j" PENDING; done
ours="$q $k $big $p1 $p2 $p3 $p4"
# the accounting of q's first run arrives asynchronously
i=0
while [ $i -lt 300 ] && ! sacct -a -X -D -n -P -j "$q" -o State | grep -q REQUEUED; do sleep 0.2; i=$((i + 1)); done
sacct -a -X -D -P -o JobID,User,Account,Partition,Submit,Start,End,ElapsedRaw,AllocTRES,State -j "$(echo $ours | tr ' ' ,)" > s.psv
squeue -a -r -t PD,R -o "$FMT" > q.txt
before=$(prio_nice)
today=$(pending_order)
expect_eq slurm_advise_today "$q $p2 $p3 $p4 $p1" "$today"

# 2D-LAS by hand: attained GPU-seconds of the requeued runs (ElapsedRaw x gres/gpu), least
# first, then submit time (squeue's), then id
attained=$(awk -F'|' 'NR > 1 && $10 == "REQUEUED" { match($9, /gres\/gpu=[0-9]+/); a[$1] += $8 * substr($9, RSTART + 9, RLENGTH - 9) }
	END { for (j in a) print j, a[j] }' s.psv)
expect slurm_advise_q_attained "echo '$attained' | awk '\$1 == $q && \$2 >= 4 { ok = 1 } END { exit !ok }'"
want=$(awk -F'|' -v att="$attained" 'BEGIN { n = split(att, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); a[f[1]] = f[2] } }
	NR > 1 && $11 == "PENDING" { gsub(/[-T:]/, "", $5); print (a[$1] + 0), $5, $1 }' q.txt | sort -k1,1n -k2,2n -k3,3n | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//')
expect_eq slurm_advise_hand_order "$p1 $p2 $p3 $p4 $q" "$want"

# ---- the dry run: the plan is that order, and nothing changes ----
run slurm_advise_dry 0 "dl advise -p 2d-las $U"
expect_eq slurm_advise_dry_order "$want" "$(grep '^# [0-9]' out | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//')"
expect_eq slurm_advise_dry_today "$q:1 $p1:5" "$(grep '^# [0-9]' out | awk -v q=$q -v p=$p1 '$2 == q || $2 == p { print $2 ":" $6 }' | sort -t: -k2 | tr '\n' ' ' | sed 's/ $//')"
# the fewest changes: p2, p3, p4 are in order already; p1 goes up, q down
expect_eq slurm_advise_dry_moves "$p1 $q" "$(grep '^scontrol' out | sed 's/.*JobId=\([0-9]*\) .*/\1/' | tr '\n' ' ' | sed 's/ $//')"
expect_eq slurm_advise_dry_unchanged "$before" "$(prio_nice)"
cp out dry.out
# the same plan from saved output
run slurm_advise_files 0 "dl advise -p 2d-las $U --queue q.txt --sacct s.psv"
expect slurm_advise_files_same 'cmp -s dry.out out'

# ---- filters: only daemon's jobs move; bin's keep priority and nice ----
run slurm_advise_filter 0 "dl advise -p 2d-las --user daemon --apply --log f.jsonl"
expect_eq slurm_advise_filter_logged "$p1" "$(jq -r .job f.jsonl | tr '\n' ' ' | sed 's/ $//')"
expect_eq slurm_advise_filter_bin_same "$(echo "$before" | grep -E "^($q|$p2|$p4) ")" "$(prio_nice | grep -E "^($q|$p2|$p4) ")"
expect slurm_advise_filter_moved "test '$(echo "$before" | grep "^$p1 ")' != '$(prio_nice | grep "^$p1 ")'"
run slurm_advise_filter_undo 0 "dl advise --undo f.jsonl"
expect_eq slurm_advise_filter_undone "$before" "$(prio_nice)"
run slurm_advise_partition_none 0 "dl advise -p 2d-las --partition nosuch --apply --log n.jsonl"
expect slurm_advise_partition_none_nothing "test ! -s n.jsonl && grep -q ': 0 changes' out"
expect_eq slurm_advise_partition_none_same "$before" "$(prio_nice)"

# ---- --apply: squeue's pending order is the policy's ----
run slurm_advise_apply 0 "dl advise -p 2d-las $U --apply --log a.jsonl"
expect_eq slurm_advise_apply_order "$want" "$(pending_order)"
expect_eq slurm_advise_apply_logged "$p1:0 $q:0" "$(jq -r '.job + ":" + (.exit | tostring)' a.jsonl | tr '\n' ' ' | sed 's/ $//')"
# the log's "after" is what squeue shows now
expect_eq slurm_advise_apply_values "$(jq -r '.job + " " + (.after | tostring)' a.jsonl | sort)" "$(prio_nice | awk -v a="$p1" -v b="$q" '$1 == a || $1 == b { print $1, $3 }' | sort)"
# a second --apply on that state changes nothing
run slurm_advise_again 0 "dl advise -p 2d-las $U --apply --log a2.jsonl"
expect slurm_advise_again_nothing "grep -q ': 0 changes\$' out && ! grep -q '^scontrol' out && test ! -s a2.jsonl"
after=$(prio_nice)

# ---- stale and malformed input: an error, nothing applied ----
touch -d @$(($(date +%s) - 3600)) q.txt
run slurm_advise_stale 1 "dl advise -p fifo $U --queue q.txt --sacct s.psv --apply --log st.jsonl"
sed '3s/|[0-9]*|\([0-9-]*\)|PENDING|/|high|\1|PENDING|/' q.txt > bad.txt
run slurm_advise_malformed 1 "dl advise -p fifo $U --queue bad.txt --max-age 0 --apply --log st.jsonl"
expect slurm_advise_malformed_msg "grep -q 'bad.txt:3: bad PRIORITY value' err"
expect slurm_advise_bad_nothing "test ! -e st.jsonl"
expect_eq slurm_advise_bad_same "$after" "$(prio_nice)"

# ---- --undo puts every value back ----
run slurm_advise_undo 0 "dl advise --undo a.jsonl --log u.jsonl"
expect_eq slurm_advise_undone "$before" "$(prio_nice)"
expect_eq slurm_advise_undone_order "$today" "$(pending_order)"
expect_eq slurm_advise_undo_logged 2 "$(jq -r 'select(.action == "undo" and .exit == 0) | .job' u.jsonl | wc -l | tr -d ' ')"

# ---- the next job Slurm starts is the policy's first ----
# p1 wants the 4 v100 that big holds; in today's order p2, p3 and p4 (4 GPUs together)
# would start before it
run slurm_advise_apply2 0 "dl advise -p 2d-las $U --apply --log c.jsonl"
scancel "$big"
expect slurm_advise_next_started "wait_state $p1 RUNNING"
expect_eq slurm_advise_next_only "PENDING PENDING PENDING PENDING" "$(for j in $p2 $p3 $p4 $q; do state $j; done | tr '\n' ' ' | sed 's/ $//')"
# undo leaves the started job alone and says so
run slurm_advise_undo_started 0 "dl advise --undo c.jsonl"
expect slurm_advise_undo_started_msg "grep -q '^# $p1: running, left alone' out"

# shellcheck disable=SC2086
scancel $ours
