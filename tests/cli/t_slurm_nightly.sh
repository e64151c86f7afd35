# t_slurm_nightly.sh: the nightly page's Slurm inputs on a real Slurm (the shared test
# Slurm of tests/slurm/slurm.sh: node dlnode1 with Gres=gpu:v100:4,gpu:k80:2): the cluster
# from `scontrol show node -o` and `sinfo -N`, typed jobs that keep their type, the real
# Start/End as the "as run" label, and jobs still running or pending when sacct runs.
# needs: slurm
heavy || return 0
need_slurm slurm_nightly || return 0

# ---- the cluster from Slurm itself ----
scontrol show node -o > nodes.txt
sinfo -N -o '%N %c %m %G' > sinfo.txt
run slurm_cluster_scontrol 0 "dl cluster show -f csv --by type nodes.txt"
cp out types.csv
expect slurm_cluster_types "grep -qx 'v100,1,4,1,16,2.48' out && grep -qx 'k80,1,2,1,12,0.45' out && grep -q '^all,2,6,' out"
run slurm_cluster_sinfo 0 "dl cluster show -f csv --by type sinfo.txt | cmp - types.csv"
run slurm_cluster_nodes 0 "dl cluster show -f csv nodes.txt | cols node..gpus"
expect slurm_cluster_node_names "grep -qx 'dlnode1/v100,slurm,v100,4' out && grep -qx 'dlnode1/k80,slurm,k80,2' out"

# ---- typed jobs, one still running and one pending when sacct runs ----
# a second partition for the untyped job: the what-if pools them, and the page says so
# (created after the cluster checks above, removed at the end)
scontrol create PartitionName=dlq2 Nodes=dlnode1 MaxTime=INFINITE State=UP
ids=
for spec in k80:1 v100:2 1; do
	part=debug
	[ "$spec" = 1 ] && part=dlq2
	ids="$ids $(sbatch --parsable -p $part --gres=gpu:$spec --time=1 -J nt$spec --wrap 'sleep 2')"
done
# and a CPU-only job: an ordinary night has some, and they are no reason to write to stderr
cpu=$(sbatch --parsable --time=1 -J ntcpu --wrap 'sleep 1')
# after those: one k80 job that runs through the dump, one that waits for both k80s.
# Accounting is asynchronous: wait until sacct itself shows each state.
state() { sacct -a -X -n -P -S now-1day -o State -j "$1" | head -1; }
after=$(echo $ids | tr ' ' :)
long=$(sbatch --parsable --gres=gpu:k80:1 --time=3 -J ntlong --dependency=afterany:$after --wrap 'sleep 40')
i=0; while [ $i -lt 200 ] && [ "$(state $long)" != RUNNING ]; do sleep 0.2; i=$((i + 1)); done
wait_=$(sbatch --parsable --gres=gpu:k80:2 --time=2 -J ntwait --wrap 'sleep 1')
i=0; while [ $i -lt 100 ] && [ "$(state $wait_)" != PENDING ]; do sleep 0.2; i=$((i + 1)); done
all="$ids $long $wait_"
finished() { sacct -a -X -n -P -S now-1day -o JobID,State -j "$(echo $ids | tr ' ' ,)" | grep -c COMPLETED; }
i=0; while [ $i -lt 300 ] && [ "$(finished)" -lt 3 ] || [ "$(state $cpu)" != COMPLETED ]; do sleep 0.2; i=$((i + 1)); done
expect_eq slurm_nightly_finished 3 "$(finished)"
# the README's sacct command, on these jobs only
fmt=JobID,JobName,User,Partition,Submit,Start,End,ElapsedRaw,AllocTRES,ReqTRES,TimelimitRaw,State
sacct -a -X -P -S now-1day -j "$(echo $all | tr ' ' ,)" --format=$fmt > night.psv
# the nightly pipeline as cron runs it: PATH=/usr/bin:/bin, dlsched by its absolute path;
# an ordinary night (a CPU job skipped, a job pending) writes nothing to stderr
abs=$(cd "$(dirname "$DLSCHED")" && pwd)/$(basename "$DLSCHED")
cat > nightly.sh << EOF2
set -e
sacct -a -X -P -S now-1day -j $(echo $all $cpu | tr ' ' ,) --format=$fmt > cron.psv
$abs trace import --from sacct --keep-unfinished --skipped cron.skipped.csv cron.psv > cron.jobs.csv
scontrol show node -o > cron.nodes.txt
$abs simulate --cluster cron.nodes.txt --policy fifo --timeline cron.fifo.timeline.csv cron.jobs.csv > cron.fifo.csv
$abs report -o cron.html -b 'as run' --as-run cron.jobs.csv --skipped cron.skipped.csv --cluster cron.nodes.txt -t cron.fifo.timeline.csv cron.fifo.csv
EOF2
run slurm_cron_quiet 0 "env -i PATH=/usr/bin:/bin SLURM_CONF='$SLURM_CONF' HOME=/nonexistent sh nightly.sh"
expect slurm_cron_quiet_stderr "[ ! -s err ] && [ -s cron.html ]"
expect slurm_cron_skipped_on_page "grep -qx 'no GPUs,1' cron.skipped.csv && grep -q '1 more row skipped on import' cron.html"
scancel $long $wait_
expect slurm_nightly_states "grep -q '|RUNNING\$' night.psv && grep -q '|PENDING\$' night.psv"
# what sacct says each job asked for (ReqTRES) and got (AllocTRES)
expect slurm_nightly_reqtres "grep -q 'gres/gpu:k80=1' night.psv && awk -F'|' -v id=$(echo $ids | cut -d' ' -f3) '\$1 == id {exit !(\$10 ~ /gres\/gpu=1/ && \$10 !~ /gres\/gpu:/ && \$9 ~ /gres\/gpu:(v100|k80)=1/)}' night.psv"

run slurm_import_typed 0 "dl trace import --from sacct --keep-unfinished --skipped skipped.csv night.psv > jobs.csv"
# typed jobs keep their type; the untyped one (--gres=gpu:1) is not pinned to the type
# Slurm happened to give it: gpu_type is what ReqTRES asked for, alloc_gpu_type what it got
set -- $ids
expect_eq slurm_import_types "k80 v100 - k80 k80" "$(for id in $1 $2 $3 $long $wait_; do cols id,gpu_type jobs.csv -v id=$id -e '$1 == id {print $2 == "" ? "-" : $2}'; done | tr '\n' ' ' | sed 's/ $//')"
expect slurm_import_alloc_type "cols id,alloc_gpu_type jobs.csv -v id=$3 -e '\$1 == id {exit !(\$2 == \"v100\" || \$2 == \"k80\")}'"
# the running job: its start, no end, its 3-minute limit; the pending one: 2 GPUs from ReqTRES
col() { cols id,"$2" jobs.csv -v id="$1" -e '$1 == id {print $2}'; }
expect_eq slurm_import_running "180 1 x" "$(col $long duration) $(col $long gpus) x$(col $long end)"
expect slurm_import_running_start "[ -n \"$(col $long start)\" ]"
expect_eq slurm_import_pending "120 2 x x" "$(col $wait_ duration) $(col $wait_ gpus) x$(col $wait_ start) x$(col $wait_ end)"
expect_eq slurm_import_skipped "reason,count" "$(cat skipped.csv)"
# (the CPU job is not in night.psv: that dump holds the GPU jobs only)
# the real schedule: End - Submit of each finished job
run slurm_asrun 0 "dl report --as-run jobs.csv | cols label..avg_jct"
want=$(tail -n +2 night.psv | grep '|COMPLETED$' | while IFS='|' read -r id n u p sub st en rest; do
	echo $(($(date -d "$en" +%s) - $(date -d "$sub" +%s))); done | awk '{s += $1} END {printf "%.10g", s / NR}')
# the running and the pending job are left out of every label: 3 jobs, 3 finished
expect_eq slurm_asrun_row "as run,3,3,$want" "$(cols label..avg_jct out | tail -1 | awk -F, '{printf "%s,%s,%s,%.10g", $1, $2, $3, $4}')"

# every typed job runs on its type of the cluster from scontrol: nothing rejected
for p in fifo tiresias-las; do
	run "slurm_simulate_$p" 0 "dl simulate --cluster nodes.txt --policy $p --timeline $p.timeline.csv jobs.csv > $p.csv"
	expect "slurm_simulate_${p}_nothing_rejected" "cols rejected $p.csv -e 'NR > 1 && \$1 != \"\" {bad++} END {exit !(NR == 6 && !bad)}'"
	expect "slurm_simulate_${p}_types" "cols id,gpu_type $p.csv -e '\$1 == \"$long\" && \$2 != \"k80\" {exit 1}'"
done
run slurm_nightly_page 0 "dl report -o page.html -b 'as run' --as-run jobs.csv --skipped skipped.csv --cluster nodes.txt --window arrivals -t fifo.timeline.csv -t tiresias-las.timeline.csv fifo.csv tiresias-las.csv"
# every label covers the same 3 jobs; the night is counted once
expect slurm_nightly_page_parts "grep -q 'data-label=\"as run\"' page.html && grep -q '<span id=\"night\">3 labels, 3 jobs; 2 unfinished at the dump (1 running, 1 pending), left out of every label</span>' page.html"
run slurm_nightly_equal_sets 0 "dl report --as-run jobs.csv fifo.csv tiresias-las.csv | cols label..finished"
expect_eq slurm_nightly_equal_sets_rows "fifo,3,3
tiresias-las,3,3
as run,3,3" "$(tail -3 out)"
# a what-if that lost a finished job is refused, naming the labels and their counts
set -- $ids
grep -v "^$1," fifo.csv > fifo.lost.csv
run slurm_nightly_refused 1 "dl report --as-run jobs.csv fifo.lost.csv"
expect slurm_nightly_refused_says "grep -q \"labels 'fifo' (2 jobs) and 'as run' (3 jobs) cover different jobs: 0 only in 'fifo', 1 only in 'as run' (one: '$1')\" err"
expect_with xmllint slurm_nightly_page_xml "xmllint --noout page.html" libxml2-utils
# the same jobs without --keep-unfinished: the running and pending jobs are counted as skipped
run slurm_import_default 0 "dl trace import -q --from sacct --skipped skipped2.csv night.psv | wc -l"
expect_eq slurm_import_default_rows 4 "$(tr -d ' ' < out)"
expect slurm_import_default_skipped "grep -qx 'still running,1' skipped2.csv && grep -qx 'pending at the dump,1' skipped2.csv"

# ---- what an operator asks first: clock time, per user, what the what-if ignores, the
# nights side by side. A drained node: drained after the night, its node list kept.
scontrol update NodeName=dlnode1 State=DRAIN Reason=dlsched-test
scontrol show node -o > drained.txt
scontrol update NodeName=dlnode1 State=RESUME
expect slurm_drained_list "grep -q 'State=[A-Z+]*DRAIN' drained.txt"
run slurm_operator_page 0 "dl report -o op.html --tz UTC --by user --as-run jobs.csv --cluster drained.txt -t fifo.timeline.csv fifo.csv tiresias-las.csv"
# per user: all jobs are root's; as run, root's average JCT is the hand-computed one above
run slurm_by_user 0 "dl report --by user --as-run jobs.csv fifo.csv | cols label..avg_jct | grep '^as run,root,'"
expect_eq slurm_by_user_asrun "as run,root,3,3,$want" "$(awk -F, '{printf "%s,%s,%s,%s,%.10g", $1, $2, $3, $4, $5}' out)"
run slurm_by_partition 0 "dl report --by partition --as-run jobs.csv fifo.csv | cols label..jobs"
expect_eq slurm_by_partition_rows "fifo,all,3 fifo,debug,2 fifo,dlq2,1 as run,all,3 as run,debug,2 as run,dlq2,1" "$(tail -n +2 out | tr '\n' ' ' | sed 's/ $//')"
expect slurm_ignores_box "grep -q '<li id=\"ignores-drained\">Drained or down nodes: 1 node with 6 GPUs was drained or down' op.html && grep -q '<li id=\"ignores-partitions\">Partitions: the jobs came from 2 (debug, dlq2)' op.html && grep -q 'id=\"ignores-unfinished\">The 2 jobs unfinished at the dump' op.html"
# three nights and their index
mkdir -p nights
dl report --date 2026-11-21 -o nights/2026-11-21.html --as-run jobs.csv fifo.csv
dl report --date 2026-11-22 -o nights/2026-11-22.html --as-run jobs.csv fifo.csv tiresias-las.csv
cp cron.html nights/2026-11-23.html
run slurm_index 0 "dl report --index nights -o nights/index.html"
expect slurm_index_rows "[ \$(grep -c '^<tr><td>[123]</td><td class=\"s\"><a href=\"2026-11-2[123].html\">' nights/index.html) -eq 3 ] && grep -q '<span id=\"nights\">3 nights</span>' nights/index.html"
# the as-run average wait of night 1 is the report's own
w1=$(dl report --as-run jobs.csv fifo.csv | cols label,avg_queue_delay -e '$1 == "as run" {printf "%.10g", $2}')
expect slurm_index_asrun_wait "grep -q '<td title=\"$w1 s\">' nights/index.html"
CHROME=$(command -v chromium || command -v chromium-browser)
if [ -n "$CHROME" ]; then
	chrome_dom() { # PAGE: the DOM as headless Chromium builds it
		rm -rf "$SCRATCH/profile"
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
			--no-first-run --disable-background-networking --disable-component-update \
			--disable-sync --user-data-dir="$SCRATCH/profile" --dump-dom "file://$SCRATCH/$1" 2> chrome.err
	}
	chrome_dom op.html > op.dom.html
	# the clock-time axis: whole minutes of UTC from the first submit on
	origin=$(cols origin jobs.csv -e 'NR > 1 && $1 != "" {print; exit}')
	first=$(date -u -d "@$(( (origin + 59) / 60 * 60 ))" +%H:%M)
	expect slurm_dom_clock_axis "sed -n '/id=\"util-time\"/,/<\/svg>/p' op.dom.html | grep -q '>clock time (UTC)</text>' && sed -n '/id=\"util-time\"/,/<\/svg>/p' op.dom.html | grep -q '<text class=\"tick\" [^>]*text-anchor=\"middle\">$first</text>'"
	expect slurm_dom_per_user "grep -q '<h2>By user</h2>' op.dom.html && grep -q '<table id=\"by-class-table\">' op.dom.html && grep -q '<td class=\"s\">root</td>' op.dom.html"
	chrome_dom nights/index.html > index.dom.html
	expect slurm_dom_index "grep -q 'id=\"trend-wait\"' index.dom.html && grep -q 'id=\"trend-jct\"' index.dom.html && [ \$(grep -o 'class=\"trend\" data-label=\"as run\"' index.dom.html | wc -l) -eq 2 ]"
else
	skip slurm_dom "chromium not installed"
fi
scontrol delete PartitionName=dlq2 2> /dev/null || scontrol update PartitionName=dlq2 State=INACTIVE
