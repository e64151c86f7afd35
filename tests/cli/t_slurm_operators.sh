# t_slurm_operators.sh: the operators' path against a real Slurm (the shared test Slurm:
# node dlnode1 with Gres=gpu:v100:4,gpu:k80:2): typed GPU jobs submitted with sbatch, a CPU
# job and a job cancelled while it waited, the real `sacct -a -X -P` accounting and the real
# `scontrol show node -o`, imported, simulated under three policies on that very cluster
# and reported beside Slurm's own schedule by the README's crontab line.
# needs: slurm
heavy || return 0
need_slurm slurm_operators || return 0
line=$(grep '^15 2 \* \* \* ' "$SRCROOT/README.md")
# the line as cron runs it, in scratch directories
cmd=$(printf '%s\n' "$line" | sed -e 's/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* //' -e 's/\\%/%/g' \
	-e "s#cd /srv/dlsched#cd '$SCRATCH/srv'#" -e "s#/var/www/html/dlsched/#$SCRATCH/www/#")
mkdir -p srv www bin
# the GPU jobs: two typed ones that fit the node together with an untyped one (Slurm gives
# it a type), then one more typed job queued behind them
ids=
for g in v100:2 k80:1 1; do
	ids="$ids $(sbatch --parsable --gres=gpu:$g -J op$g --wrap 'sleep 2')"
done
ids="$ids $(sbatch --parsable --gres=gpu:k80:2 -J later --dependency=afterany:$(echo $ids | tr ' ' :) --wrap 'sleep 1')"
gpu_ids=$ids
# jobs the page must count as left out: a CPU job, and a v100 job cancelled while it
# waited for its begin time (Slurm accounts it with no start, or Start = End, and nothing
# allocated)
ids="$ids $(sbatch --parsable -J cpu --wrap 'sleep 1')"
cancelled=$(sbatch --parsable --gres=gpu:v100:1 --begin=now+3600 -J cancelled --wrap 'sleep 1')
ids="$ids $cancelled"
# Slurm records a job's ReqTRES (what it asked for) in the accounting a moment after
# sbatch: cancelled before that, the job has no ReqTRES and would count as "no GPUs"
i=0
while [ $i -lt 300 ] && ! sacct -a -X -n -P -j "$cancelled" -o ReqTRES | grep -q 'gres/gpu'; do
	sleep 0.2
	i=$((i + 1))
done
scancel "$cancelled"
n=$(echo $ids | wc -w)
# accounting is asynchronous: wait until sacct has them all ended
ended() { sacct -a -X -n -P -S now-1day -o JobID,State -j "$(echo $ids | tr ' ' ,)" | grep -c 'COMPLETED\|CANCELLED'; }
i=0; while [ $i -lt 300 ] && [ "$(ended)" -lt "$n" ]; do sleep 0.2; i=$((i + 1)); done
expect_eq operators_jobs_ended "$n" "$(ended)"
# cron runs the line the night after; here the jobs ran today, so "yesterday" is today
today=$(date +%F)
printf '#!/bin/sh\ncase "$*" in *yesterday*) echo %s ;; *) exec /bin/date "$@" ;; esac\n' "$today" > bin/date
# the shared test Slurm has run other tests' jobs today: the real sacct, on this test's
# jobs only (the line's own options unchanged)
printf '#!/bin/sh\nexec %s "$@" -j %s\n' "$(command -v sacct)" "$(echo $ids | tr ' ' ,)" > bin/sacct
chmod +x bin/date bin/sacct
run operators_cron_line 0 "PATH='$SCRATCH/bin:$(dirname "$DLSCHED")':\$PATH; $cmd"
night=srv/$today
psv=$night/sacct.psv
expect_eq operators_sacct_rows "$n" "$(tail -n +2 "$psv" | grep -c .)"
expect operators_sacct_real "head -1 '$psv' | grep -qx 'JobID|JobName|User|Partition|Submit|Start|End|ElapsedRaw|AllocTRES|ReqTRES|TimelimitRaw|State' && grep -q 'gres/gpu:v100=2' '$psv' && grep -q '|CANCELLED' '$psv'"
# the cluster is the real node list
expect operators_nodes_real "grep -q '^NodeName=dlnode1 .*Gres=gpu:v100:4,gpu:k80:2 ' $night/nodes.txt"
jobs=$night/jobs.csv
expect_eq operators_imported 4 "$(tail -n +2 "$jobs" | grep -c .)"
# the imported GPUs, types Slurm gave (alloc_gpu_type) and durations are the real ones
# (ElapsedRaw, gres/gpu:TYPE of AllocTRES)
want=$(tail -n +2 "$psv" | awk -F'|' '$9 ~ /gres\/gpu/ { match($9, /gres\/gpu=[0-9]+/); g = substr($9, RSTART + 9, RLENGTH - 9); match($9, /gres\/gpu:[a-z0-9]+=/); print $1, g, substr($9, RSTART + 9, RLENGTH - 10), $8 }' | sort)
got=$(dl cat -f csv "$jobs" | cols id,gpus,alloc_gpu_type,duration -e 'NR > 1 { print $1, $2, $3, $4 }' | sort)
expect_eq operators_gpus_types_durations "$want" "$got"
set -- $gpu_ids
# gpu_type is what each asked for: the untyped request (third) may run on any type
expect_eq operators_typed "v100 k80 - k80" "$(for id in $1 $2 $3 $4; do cols id,gpu_type "$jobs" -v id=$id -e '$1 == id {print $2 == "" ? "-" : $2}'; done | tr '\n' ' ' | sed 's/ $//')"
expect_eq operators_skipped "reason,count
no GPUs,1
cancelled while pending,1" "$(cat $night/skipped.csv)"
# every typed job runs on its type of the real node list: nothing rejected, every job ends
for p in fifo tiresias-las tiresias-gittins; do
	expect "operators_results_$p" "cols rejected,end,jct,duration $night/$p.csv -e 'NR > 1 && (\$1 != \"\" || \$2 == \"\" || \$3 < \$4) {bad++} END {exit !(NR == 5 && !bad)}'"
done
page=www/$today.html
expect operators_page "test -s '$page' && xmllint --noout '$page'"
# the page: Slurm's real schedule as the baseline beside the three policies, on the
# cluster's 6 GPUs, with the two rows the import left out counted for every label
expect_eq operators_page_cdfs 4 "$(grep -o 'class="cdf-jct"' "$page" | wc -l)"
# the night counted once: 4 jobs in each label, 2 rows skipped on import
expect operators_page_count "grep -q '<span id=\"night\">4 labels, 4 jobs; 2 more rows skipped on import</span>, 6 GPUs, baseline as run' '$page'"
expect operators_page_asrun "grep -q 'class=\"cdf-jct\" data-label=\"as run\"' '$page' && grep -q 'class=\"tl-util\" data-label=\"as run\"' '$page' && grep -q \"as run <em>(Slurm's real schedule)</em>\" '$page'"
expect operators_page_dropped "grep -q '<td>2</td><td class=\"s w\">1 no GPUs; 1 cancelled while pending</td>' '$page'"
expect operators_page_window "grep -q 'window: all jobs; utilisation from the first to the last arrival' '$page'"
# the as-run row is Slurm's: its average JCT is the mean End - Submit of the GPU jobs
asrun=$(dl report --as-run "$jobs" | cols label,jobs,avg_jct -e 'NR == 2 { printf "%s,%s,%.6g", $1, $2, $3 }')
want=$(tail -n +2 "$psv" | awk -F'|' '$9 ~ /gres\/gpu/' | while IFS='|' read -r id nm u p sub st en rest; do
	echo $(($(date -d "$en" +%s) - $(date -d "$sub" +%s))); done | awk '{ s += $1 } END { printf "as run,%d,%.6g", NR, s / NR }')
expect_eq operators_asrun_numbers "$want" "$asrun"
# the footer: the node list as an input, and what made every label
expect operators_page_inputs "grep -q '<tr><td class=\"s\">cluster</td><td class=\"s\">nodes.txt</td><td>[0-9]*</td><td>-</td></tr>' '$page'"
expect operators_page_made_by "grep -q '<tr><td class=\"s\">fifo, tiresias-las, tiresias-gittins, as run</td><td class=\"s\"><code>dlsched trace import --from sacct --provenance --skipped skipped.csv sacct.psv</code></td><td>-</td></tr>' '$page' && grep -q '<tr><td class=\"s\">tiresias-gittins</td><td class=\"s\"><code>dlsched simulate --provenance --cluster nodes.txt --policy tiresias-gittins --timeline tiresias-gittins.timeline.csv jobs.csv</code></td><td>1</td></tr>' '$page'"
