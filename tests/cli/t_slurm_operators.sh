# t_slurm_operators.sh: the operators' path against a real Slurm (the shared test Slurm):
# GPU jobs submitted with sbatch --gres=gpu:N, their real `sacct -a -X -P` accounting,
# imported, simulated under three policies and reported by the README's crontab line.
# needs: slurm
heavy || return 0
need_slurm slurm_operators || return 0
line=$(grep '^15 2 \* \* \* ' "$SRCROOT/README.md")
# the line as cron runs it, in scratch directories
cmd=$(printf '%s\n' "$line" | sed -e 's/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* //' -e 's/\\%/%/g' \
	-e "s#cd /srv/dlsched#cd '$SCRATCH/srv'#" -e "s#/var/www/html/dlsched/#$SCRATCH/www/#")
mkdir -p srv www bin
# the jobs: GPU counts that fit the 4 v100 of the test node together, so Slurm gives them v100s
ids=
for g in 1 2 1; do
	ids="$ids $(sbatch --parsable --gres=gpu:$g -J op$g --wrap 'sleep 2')"
done
# one more after them (queued meanwhile), so it too gets a v100 (typed jobs of other types
# need a cluster with those types: issue #20)
ids="$ids $(sbatch --parsable --gres=gpu:1 -J later --dependency=afterany:$(echo $ids | tr ' ' :) --wrap 'sleep 1')"
n=$(echo $ids | wc -w)
# accounting is asynchronous: wait until sacct has them all finished
done_jobs() { sacct -a -X -n -P -S now-1day -o JobID,State -j "$(echo $ids | tr ' ' ,)" | grep -c COMPLETED; }
i=0; while [ $i -lt 300 ] && [ "$(done_jobs)" -lt "$n" ]; do sleep 0.2; i=$((i + 1)); done
expect_eq operators_jobs_completed "$n" "$(done_jobs)"
# cron runs the line the night after; here the jobs ran today, so "yesterday" is today
today=$(date +%F)
printf '#!/bin/sh\ncase "$*" in *yesterday*) echo %s ;; *) exec /bin/date "$@" ;; esac\n' "$today" > bin/date
chmod +x bin/date
run operators_cron_line 0 "PATH='$SCRATCH/bin:$(dirname "$DLSCHED")':\$PATH; $cmd"
psv=srv/$today.psv
expect_eq operators_sacct_rows "$n" "$(tail -n +2 "$psv" | grep -c .)"
expect operators_sacct_real "head -1 '$psv' | grep -qx 'JobID|JobName|User|Partition|Submit|Start|End|ElapsedRaw|AllocTRES|State' && grep -q 'gres/gpu=2' '$psv'"
jobs=srv/$today.jobs.csv
expect_eq operators_imported "$n" "$(tail -n +2 "$jobs" | grep -c .)"
# the imported GPUs and durations are the real ones (ElapsedRaw, gres/gpu)
want=$(tail -n +2 "$psv" | awk -F'|' '{ match($9, /gres\/gpu=[0-9]+/); print substr($9, RSTART + 9, RLENGTH - 9), $8 }' | sort)
got=$(dl cat -f csv "$jobs" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["gpus"], $c["duration"] }' | sort)
expect_eq operators_gpus_durations "$want" "$got"
page=www/$today.html
expect operators_page "test -s '$page' && xmllint --noout '$page'"
for p in fifo tiresias-las tiresias-gittins; do
	expect_eq "operators_results_$p" "$n" "$(tail -n +2 srv/$today.$p.csv | grep -c .)"
done
expect_eq operators_page_cdfs 3 "$(grep -o 'class="cdf-jct"' "$page" | wc -l)"
expect operators_page_count "grep -q '3 labels, $((n * 3)) jobs' '$page' && grep -q 'baseline fifo' '$page'"
# every job finished, and no job finished before it could have (JCT >= duration)
expect operators_jct "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next } \$c[\"end\"] == \"\" || \$c[\"jct\"] < \$c[\"duration\"] { exit 1 }' srv/$today.fifo.csv"
