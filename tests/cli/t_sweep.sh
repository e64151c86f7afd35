# t_sweep.sh: dlsched sweep run here: plan, ids, resume, -j, --emit, --slurm script,
# validation before any run, a failing run, and report --group-by on the result.

# a small sweep in every build (also under ASan+UBSan): plan, runs, status, group-by
run sweep_small 0 "dl sweep -q --axis policy=fifo,sjf --axis seed=1..2 --set load=1 --set cluster=1x1x8 --set jobs=15 -j 2 s"
expect_eq sweep_small_summary 5 "$(wc -l < s/summary.csv)"
run sweep_small_status 0 "dl sweep --status s"
run sweep_small_group 0 "dl report -f json --group-by policy s"
expect_eq sweep_small_group_rows 2 "$(grep -c '\"runs\":2' out)"
run sweep_small_bad 2 "dl sweep --axis policy=fifo,nope --set load=1 --set cluster=1x1x8 s2"
# plan.csv is the contract: a copied row, an edited value or an edited command is refused
# with its line, by every mode that reads the plan; the sweep's --axis options rewrite it
expect sweep_small_plan_sum "test \$(wc -l < s/plan.sum) -eq 4"
cp -r s dup && sed -n 3p dup/plan.csv >> dup/plan.csv
run sweep_plan_duplicate 1 "dl sweep dup"
expect sweep_plan_duplicate_msg "grep -q \"dup/plan.csv:6: run $(sed -n '3s/,.*//p' s/plan.csv) is also on line 3: each run is one row\" err"
run sweep_plan_duplicate_status 1 "dl sweep --status dup"
expect sweep_plan_duplicate_status_msg "grep -q 'dup/plan.csv:6: run' err && test ! -s out"
cp -r s ed && sed -i '3s/,fifo,2,/,fifo,bogus,/' ed/plan.csv
run sweep_plan_edited_value 1 "dl sweep --task 0 ed"
expect sweep_plan_edited_value_msg "grep -q \"ed/plan.csv:3: run [0-9a-f]* is not the run of its values (policy=fifo, seed=bogus): the plan was edited\" err"
cp -r s ec && sed -i '2s/--seed 1/--seed 5/g' ec/plan.csv
run sweep_plan_edited_command 1 "dl sweep ec"
expect sweep_plan_edited_command_msg "grep -q 'ec/plan.csv:2: the command of run [0-9a-f]* is not the one the sweep wrote' err"
run sweep_plan_rewritten 0 "dl sweep -q --axis policy=fifo,sjf --axis seed=1..2 --set load=1 --set cluster=1x1x8 --set jobs=15 ec"
expect sweep_plan_rewritten_same "cmp s/plan.csv ec/plan.csv && cmp s/summary.csv ec/summary.csv"
# a summary with a run twice (edited by hand) is refused too, not weighted double
sed -n 3p dup/summary.csv >> dup/summary.csv
run sweep_summary_duplicate 1 "dl report -f json --group-by policy dup"
expect sweep_summary_duplicate_msg "grep -q 'dup/summary.csv:6: run [0-9a-f]* is also on line 3' err && test ! -s out"
heavy || return 0
G="--axis policy=fifo,tiresias-las,sjf --axis load=0.8,1.6 --axis seed=1..2 --set cluster=1x1x8 --set jobs=60"

run sweep_local_j2 0 "dl sweep $G -j 2 a"
expect sweep_to_run "grep -q '12 runs: 0 done, 12 to run' err"
expect_eq sweep_plan_rows 13 "$(wc -l < a/plan.csv)"
expect_eq sweep_plan_header "run,policy,load,seed,command" "$(head -1 a/plan.csv)"
expect_eq sweep_summary_rows 13 "$(wc -l < a/summary.csv)"
expect sweep_summary_header "head -1 a/summary.csv | grep -q '^run,policy,load,seed,label,jobs,finished,avg_jct,'"
# the exact command of a run, run by sh from the directory, gives the same report
cmd=$(cols command.. a/plan.csv | sed -n 2p) # (command.. keeps the commas inside the command)
id=$(cols run a/plan.csv | sed -n 2p)
mkdir -p byhand && cp -r a/runs byhand/ && rm byhand/runs/$id/report.csv
run sweep_command_is_exact 0 "cd byhand && PATH='$(dirname "$DLSCHED")':\$PATH; $cmd"
expect sweep_command_same_report "cmp byhand/runs/$id/report.csv a/runs/$id/report.csv"
expect sweep_runs_kept "test -s a/runs/$id/results.csv && test -f a/runs/$id/done && test -f a/runs/$id/stderr"
# policies really differ on this loaded cluster (fifo waits longest)
expect sweep_policies_differ "cols policy,avg_jct a/summary.csv -e 'NR > 1 && \$1 == \"fifo\" { f += \$2 } NR > 1 && \$1 == \"tiresias-las\" { l += \$2 } END { exit !(f > l) }'"

# stable ids: the same grid, axes in another order, gives the same ids and summary rows
run sweep_reordered 0 "dl sweep -q --axis seed=1..2 --axis load=0.8,1.6 --axis policy=fifo,tiresias-las,sjf --set cluster=1x1x8 --set jobs=60 -j 2 b"
expect_eq sweep_ids_stable "$(cols run a/plan.csv | sort)" "$(cols run b/plan.csv | sort)"
expect_eq sweep_same_results "$(cols run,label.. a/summary.csv | sort)" "$(cols run,label.. b/summary.csv | sort)"

# -j 1 and -j 2 write byte-identical summaries
run sweep_local_j1 0 "dl sweep -q $G -j 1 c"
expect sweep_j1_equals_j2 "cmp a/summary.csv c/summary.csv"

# resume: nothing to do; then one run lost: only it is redone
stat -c '%n %Y %i' a/runs/*/done | sort > before
run sweep_rerun_nothing 0 "dl sweep a"
expect sweep_rerun_nothing_msg "grep -q '12 runs: 12 done, 0 to run' err"
lost=$(cols run a/plan.csv | sed -n 5p)
rm a/runs/$lost/done
sleep 1
run sweep_status_missing 1 "dl sweep --status a"
expect sweep_status_missing_counts "grep -q '12 runs: 11 done, 0 queued, 0 running, 0 failed, 1 missing' out && grep -q \"missing $lost (policy=fifo, load=1.6, seed=2)\" out"
cp a/summary.csv summary.before
run sweep_resume 0 "dl sweep $G a"
expect sweep_resume_one "grep -q '12 runs: 11 done, 1 to run' err"
stat -c '%n %Y %i' a/runs/*/done | sort > after
expect_eq sweep_resume_only_missing "a/runs/$lost/done" "$(diff before after | sed -n 's/^> \([^ ]*\) .*/\1/p')"
expect sweep_resume_same_summary "cmp summary.before a/summary.csv"
run sweep_status_done 0 "dl sweep --status a"
expect_eq sweep_status_done_line "12 runs: 12 done, 0 queued, 0 running, 0 failed, 0 missing" "$(cat out)"
# nothing to do: --submit (even --force) submits nothing, needs no Slurm and says so plainly
run sweep_submit_done 0 "dl sweep --submit --force a"
expect sweep_submit_done_msg "grep -q '12 runs: 12 done, 0 to run' err && ! grep -q 'queued or running' err && test ! -s out"
# a changed fixed option changes every command: every run is redone
run sweep_changed_plan 0 "dl sweep -q --axis policy=fifo,tiresias-las,sjf --axis load=0.8,1.6 --axis seed=1..2 --set cluster=1x1x8 --set jobs=70 a"
expect sweep_changed_plan_redone "grep -c 'jobs 70' a/plan.csv | grep -qx 12 && cols jobs a/summary.csv -e 'NR > 1 && \$1 != 70 { exit 1 }'"

# --emit: one command per run to do, for xargs -P; the last one collects
run sweep_emit 0 "dl sweep --emit $G e"
expect_eq sweep_emit_lines 12 "$(wc -l < out)"
expect sweep_emit_form "grep -q \"sweep --task 0 $SCRATCH/e\$\" out"
cp out emit.txt
run sweep_emit_xargs 0 "xargs -P 2 -I{} sh -c {} < emit.txt"
expect sweep_emit_same_summary "cmp a/summary.csv e/summary.csv || cmp c/summary.csv e/summary.csv"
expect sweep_emit_equals_local "cmp c/summary.csv e/summary.csv"

# --slurm: the array job script, only the runs to do
rm e/runs/$lost/done e/runs/$(cols run e/plan.csv | sed -n 9p)/done
run sweep_slurm_script 0 "dl sweep --slurm -j 3 --partition debug --time 10 --mem 200M --sbatch-option=--nice=5 e"
expect sweep_slurm_array "grep -qx '#SBATCH --array=3,7%3' e/sweep.sbatch"
expect sweep_slurm_opts "grep -qx '#SBATCH --partition=debug' e/sweep.sbatch && grep -qx '#SBATCH --time=10' e/sweep.sbatch && grep -qx '#SBATCH --mem=200M' e/sweep.sbatch && grep -qx '#SBATCH --nice=5' e/sweep.sbatch"
expect sweep_slurm_task "grep -q 'sweep --task \"\$SLURM_ARRAY_TASK_ID\" $SCRATCH/e\$' e/sweep.sbatch && sh -n e/sweep.sbatch"
# a rerun's script asks Slurm for what the last --slurm did; a new value replaces one, said
run sweep_slurm_rerun_keeps 0 "dl sweep --slurm e"
expect sweep_slurm_rerun_keeps_opts "grep -qx '#SBATCH --array=3,7%3' e/sweep.sbatch && grep -qx '#SBATCH --partition=debug' e/sweep.sbatch && grep -qx '#SBATCH --time=10' e/sweep.sbatch && grep -qx '#SBATCH --mem=200M' e/sweep.sbatch && grep -qx '#SBATCH --nice=5' e/sweep.sbatch"
expect sweep_slurm_rerun_keeps_says "grep -qF 'as the last --slurm of this sweep: --partition debug --time 10 --mem 200M --jobs 3 --sbatch-option=--nice=5' err"
run sweep_slurm_rerun_override 0 "dl sweep --slurm --partition gpu -j 4 e"
expect sweep_slurm_rerun_override_opts "grep -qx '#SBATCH --array=3,7%4' e/sweep.sbatch && grep -qx '#SBATCH --partition=gpu' e/sweep.sbatch && grep -qx '#SBATCH --time=10' e/sweep.sbatch && grep -qx 'partition=gpu' e/slurm/options"
expect sweep_slurm_rerun_override_note "grep -qF 'note: --partition gpu replaces debug, --jobs 4 replaces 3 (the last --slurm' err"
cp e/slurm/options options.good
printf 'partition=gpu\ntime=10\nqueue=x\n' > e/slurm/options
run sweep_slurm_options_bad 1 "dl sweep --slurm e"
expect sweep_slurm_options_bad_msg "grep -q \"e/slurm/options:3: bad option 'queue=x'\" err"
cp options.good e/slurm/options
run sweep_task_runs 0 "dl sweep --task 3 e"
expect sweep_task_no_summary_yet "test ! -e e/summary.csv.new && grep -c . e/summary.csv | grep -qx 13"
run sweep_task_bad 2 "dl sweep --task 12 e"

# hostile values for the Slurm script: a newline (or any control character) in any value
# that reaches it is a usage error naming the option, before any file is written
nl='
'
H="--axis seed=1,2 --set cluster=1x1x8 --set load=0.5"
for o in partition account time mem sbatch-option; do
	run sweep_hostile_$o 2 "dl sweep --slurm $H --$o 'p${nl}#SBATCH --wrap=evil${nl}touch pwned' h"
	expect sweep_hostile_${o}_msg "grep -q -- \"--$o has a control character (0x0a at byte 2)\" err && test ! -e h"
done
run sweep_hostile_tab 2 "dl sweep --slurm $H --partition \"$(printf 'a\tb')\" h"
expect sweep_hostile_tab_msg "grep -q -- '--partition has a control character (0x09' err && test ! -e h"
run sweep_hostile_axis 2 "dl sweep --slurm --axis 'seed=1,2${nl}touch pwned' --set cluster=1x1x8 --set load=0.5 h"
expect sweep_hostile_axis_msg "grep -q \"axis 'seed': a value has a control character (0x0a)\" err && test ! -e h"
run sweep_hostile_set 2 "dl sweep --slurm --axis seed=1,2 --set 'cluster=1x1x8${nl}x' --set load=0.5 h"
expect sweep_hostile_set_msg "grep -q \"option 'cluster': a value has a control character\" err && test ! -e h"
run sweep_hostile_dir 2 "dl sweep --slurm $H 'h${nl}touch pwned'"
expect sweep_hostile_dir_msg "grep -q 'the sweep directory has a control character (0x0a)' err && ! ls | grep -q '^h'"
mkdir "tr${nl}x" && dl trace gen --jobs 10 --load 1 --cluster 1x1x8 > "tr${nl}x/t.csv"
run sweep_hostile_trace_path 2 "cd 'tr${nl}x' && dl sweep --slurm --axis trace=t.csv --axis seed=1,2 --set cluster=1x1x8 h"
expect sweep_hostile_trace_path_msg "grep -q \"axis 'trace': the path of 't.csv' has a control character (0x0a)\" err"
run sweep_hostile_sbatch_wrap 2 "dl sweep --slurm $H --sbatch-option=--wrap=evil h"
expect sweep_hostile_sbatch_wrap_msg "grep -q -- \"--sbatch-option '--wrap=evil': the sweep writes\" err && test ! -e h"
run sweep_hostile_sbatch_array 2 "dl sweep --slurm $H --sbatch-option=-a1-100 h"
run sweep_hostile_sbatch_notopt 2 "dl sweep --slurm $H --sbatch-option='touch pwned' h"
# without a control character a value is quoted where it lands: sh reads the script back
# with every #SBATCH line one word, and only the sweep's command runs
run sweep_quoted_values 0 "dl sweep --slurm $H --partition \"a b'c\" --account '\$(touch pwned)' --time '1;touch pwned' --mem '#x' --sbatch-option='--comment=x y #z' q"
expect sweep_quoted_lines "grep -qxF \"#SBATCH '--partition=a b'\\\\''c'\" q/sweep.sbatch && grep -qxF \"#SBATCH '--account=\\\$(touch pwned)'\" q/sweep.sbatch && grep -qxF \"#SBATCH '--time=1;touch pwned'\" q/sweep.sbatch && grep -qxF \"#SBATCH '--mem=#x'\" q/sweep.sbatch && grep -qxF \"#SBATCH '--comment=x y #z'\" q/sweep.sbatch"
expect sweep_quoted_one_command "sh -n q/sweep.sbatch && test \$(grep -vc '^#' q/sweep.sbatch) -eq 1 && grep -q '^exec ' q/sweep.sbatch && test ! -e pwned"

# validation before any run: named axis, exit 2, no directory
run sweep_bad_axis 2 "dl sweep --axis polcy=fifo --set cluster=1x1x8 v1"
expect sweep_bad_axis_msg "grep -q \"unknown axis 'polcy'\" err && test ! -e v1"
run sweep_empty_axis 2 "dl sweep --axis policy= --set cluster=1x1x8 v2"
expect sweep_empty_axis_msg "grep -q \"axis 'policy' has no values\" err && test ! -e v2"
run sweep_empty_value 2 "dl sweep --axis policy=fifo,,sjf --set cluster=1x1x8 v2"
expect sweep_empty_value_msg "grep -q \"axis 'policy' has an empty value\" err"
run sweep_rejected_value 2 "dl sweep --axis policy=fifo,bogus --axis seed=1..2 --set cluster=1x1x8 --set load=1 v3"
expect sweep_rejected_value_msg "grep -q \"axis 'policy' value 'bogus': simulate: bad --policy value 'bogus'\" err && test ! -e v3"
run sweep_rejected_gen_value 2 "dl sweep --axis load=0.5,-1 --set cluster=1x1x8 v4"
expect sweep_rejected_gen_value_msg "grep -q \"axis 'load' value '-1': trace gen: \" err && test ! -e v4"
run sweep_rejected_seed 2 "dl sweep --axis seed=1,x --set cluster=1x1x8 --set load=1 v5"
expect sweep_rejected_seed_msg "grep -q \"axis 'seed' value 'x'\" err"
# a value is checked by the command's own typed check, so the sweep says what it says
run sweep_typed_value 2 "dl sweep --axis load=0.5,abc --set cluster=1x1x8 v5"
own=$(dl trace gen --load abc --cluster 1x1x8 2>&1 | sed 's/^dlsched trace: //')
expect sweep_typed_value_same "grep -qF \"axis 'load' value 'abc': trace gen: $own; see\" err"
run sweep_typed_policy_param 2 "dl sweep --axis quantum=300,x --set policy=tiresias-las --set load=1 --set cluster=1x1x8 v5"
own=$(dl simulate --policy tiresias-las --quantum x --cluster 1x1x8 /dev/null 2>&1 | sed 's/^dlsched simulate: //')
expect sweep_typed_policy_param_same "grep -qF \"axis 'quantum' value 'x': simulate: $own; see\" err"
# no single axis explains a rejection: the run is named
run sweep_rejected_run 2 "dl sweep --axis seed=1,2 --set cluster=1x1x8 v5"
expect sweep_rejected_run_msg "grep -q \"run [0-9a-f]* (seed=1): trace gen: give exactly one of --rate and --load\" err"
run sweep_bad_range 2 "dl sweep --axis seed=5..1 --set cluster=1x1x8 v6"
expect sweep_bad_range_msg "grep -q \"axis 'seed': bad range '5..1'\" err"
run sweep_no_cluster 2 "dl sweep --axis policy=fifo v7"
run sweep_reserved 2 "dl sweep --axis output=x --set cluster=1x1x8 v8"
run sweep_no_plan 2 "dl sweep v9"

# a failing run never stops the others: its stderr is kept and --status names it
dl trace gen --jobs 20 --load 1 --cluster 1x1x8 > good.csv
printf 'id,submit,gpus,duration\nj1,0,x,10\n' > bad.csv
run sweep_failing_run 1 "dl sweep --axis trace=good.csv,bad.csv --axis policy=fifo,sjf --set cluster=1x1x8 -j 2 f"
expect sweep_failing_msg "grep -q 'run .* (trace=bad.csv, policy=fifo) failed: exit 1 in simulate' err && grep -q '2 of 4 runs failed' err"
expect_eq sweep_failing_summary 3 "$(wc -l < f/summary.csv)"
bad=$(cols run,trace,policy f/plan.csv | awk -F, '$2 == "bad.csv" && $3 == "fifo" { print $1 }')
expect sweep_failing_stderr_kept "grep -q \"bad gpus value 'x'\" f/runs/$bad/stderr"
run sweep_failing_status 1 "dl sweep --status f"
expect sweep_failing_status_names "grep -q '4 runs: 2 done, 0 queued, 0 running, 2 failed, 0 missing' out && grep -q \"failed  $bad (trace=bad.csv, policy=fifo): exit 1 in simulate\" out"

# --timeline: utilisation from each run's timeline; report --group-by in every format
run sweep_timeline 0 "dl sweep -q --timeline --axis policy=fifo,tiresias-las --axis seed=1..3 --axis load=0.8,1.6 --set cluster=1x1x8 --set jobs=60 t"
expect sweep_timeline_files "ls t/runs/*/timeline.csv | wc -l | grep -qx 12"
run sweep_group_csv 0 "dl report -f csv --group-by policy,load t"
expect_eq sweep_group_csv_rows 5 "$(wc -l < out)"
expect sweep_group_csv_header "head -1 out | grep -q '^policy,load,runs,jobs,jobs_lo95,jobs_hi95,finished,finished_lo95,finished_hi95,avg_jct,avg_jct_lo95,avg_jct_hi95,'"
# every interval holds its mean and stays in the metric's range (times >= 0, shares in 0..1)
expect sweep_group_csv_ranges "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next } { for (m in c) if ((m \"_lo95\") in c && \$c[m \"_lo95\"] != \"\") { lo = \$c[m \"_lo95\"]; hi = \$c[m \"_hi95\"]; v = \$c[m]; if (lo > v + 1e-9 || hi < v - 1e-9 || lo < 0) bad++; if ((m == \"utilization\" || m == \"comm_share\") && hi > 1) bad++ } } END { exit bad > 0 }' out"
expect sweep_group_three_runs "cols runs out -e 'NR > 1 && \$1 != 3 { exit 1 }'"
# the mean is the mean of the three seeds' rows in summary.csv
want=$(cols policy,load,avg_jct t/summary.csv | awk -F, 'NR > 1 && $1 == "fifo" && $2 == "0.8" { s += $3; n++ } END { printf "%.6f", s / n }')
got=$(cols policy,load,avg_jct out | awk -F, '$1 == "fifo" && $2 == "0.8" { printf "%.6f", $3 }')
expect_eq sweep_group_mean "$want" "$got"
run sweep_group_json 0 "dl report -f json --group-by policy t/summary.csv"
expect sweep_group_json_rows "test \$(wc -l < out) -eq 2 && grep -q '\"policy\":\"fifo\",\"runs\":6' out"
run sweep_group_text 0 "dl report -f text --group-by policy,load t"
expect sweep_group_text_pm "grep -q '[0-9] \\[[0-9.]*, [0-9.]*\\]' out && grep -q '^policy  *load  *runs' out && grep -q 'percentile bootstrap' out"
run sweep_group_md 0 "dl report -f markdown --group-by policy,load t"
expect sweep_group_md_table "grep -q '^| policy ' out && grep -q '^| -' out"
run sweep_group_html 0 "dl report --group-by policy,load -o g.html t"
expect sweep_group_html_lines "test \$(grep -o 'class=\"mean\" data-label=\"fifo\"' g.html | wc -l) -ge 3 && grep -q 'class=\"band\"' g.html && grep -q 'id=\"group-avg_jct\"' g.html"
# the fairness, first-feedback and communication metrics of each run's report, grouped
expect sweep_group_fairness "head -1 t/summary.csv | grep -q ',avg_first_feedback,p95_first_feedback,avg_rho,p95_rho,max_rho,jain_rho,total_comm_overhead,avg_comm_overhead,comm_share' && grep -q 'id=\"group-max_rho\"' g.html && grep -q 'id=\"group-avg_first_feedback\"' g.html && grep -q '<p class=\"note\" id=\"same\">.*comm GPU share 0.0%' g.html && ! grep -q 'id=\"group-comm_share\"' g.html"
expect_with xmllint sweep_group_html_xml "xmllint --noout g.html" libxml2-utils
# the page: human units, a metric the same in every run in a footnote, charts that say
# which metric, an x axis over the loads (0.8 to 1.6, not from 0), n shown
expect sweep_group_html_units "grep -q '<td title=\"mean [0-9.e+]* s, 95% interval [0-9.e+]* s to [0-9.e+]* s, n = 3\">[0-9.]* \\(s\\|min\\|h\\|d\\)<small' g.html"
expect sweep_group_html_same "grep -q '<p class=\"note\" id=\"same\">The same in every run: jobs 60, finished 60' g.html && ! sed -n '/<table id=\"groups\"/,/<\/table>/p' g.html | grep -q '<th>jobs</th>'"
expect sweep_group_html_titles "grep -q '<h2>95th percentile of job completion time (p95 JCT) against load</h2>' g.html && grep -q 'each point the mean over a group&#39;s n = 3 runs' g.html"
expect_eq sweep_group_html_x_span "0.8 1.6" "$(sed -n '/id=\"group-avg_jct\"/,/<\/svg>/p' g.html | sed -n 's/.*<text class=\"tick\"[^>]*text-anchor=\"middle\">\([^<]*\)<.*/\1/p' | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//')"
CHROME=$(command -v chromium || command -v chromium-browser)
if [ -n "$CHROME" ]; then
	# real Chromium lays the page out; a script of the test's (not of the page) measures
	# every band of every chart against the chart's zero line: none goes below it, since
	# every charted metric is a time, a share or a ratio >= 0
	sed 's#</body>#<script src="bandcheck.js"></script></body>#' g.html > gcheck.html
	cat > bandcheck.js << 'EOF'
var out = [], n = 0;
document.querySelectorAll("figure[data-metric]").forEach(function (f) {
	var zero = f.querySelector("line.zero").getBBox().y;
	f.querySelectorAll("path.band").forEach(function (b) {
		var r = b.getBBox();
		n++;
		if (r.y + r.height > zero + 0.5)
			out.push(f.dataset.metric + " " + (r.y + r.height) + " > " + zero);
	});
});
document.body.setAttribute("data-bands", n + " bands, " + out.length + " below zero" + (out.length ? ": " + out.join("; ") : ""));
EOF
	rm -rf "$SCRATCH/profile"
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--allow-file-access-from-files --user-data-dir="$SCRATCH/profile" \
		--window-size=1280,1600 --dump-dom "file://$SCRATCH/gcheck.html" > gdom.html 2> chrome.err
	expect sweep_group_html_bands_positive "grep -q 'data-bands=\"[1-9][0-9]* bands, 0 below zero\"' gdom.html"
else
	skip sweep_group_html_bands_positive "chromium not installed"
fi
# the page's footer: what each mean runs over, every run with its group and plan.csv's
# exact command, the inputs with their sizes, the version and the command line
expect sweep_group_html_over "grep -q '<p id=\"over\">Each mean is over runs that differ in seed (1, 2, 3).</p>' g.html"
expect_eq sweep_group_html_runs 12 "$(sed -n '/<table id=\"runs\">/,/<\/table>/p' g.html | grep -c '^<tr><td')"
run1=$(cols run,policy,seed,load t/plan.csv | awk -F, '$2 == "tiresias-las" && $3 == "2" && $4 == "1.6" { print $1 }')
cmd1=$(cols policy,seed,load,command t/plan.csv | awk -F, '$1 == "tiresias-las" && $2 == "2" && $3 == "1.6" { print $4 }' | sed 's/&/\&amp;/g')
expect sweep_group_html_run_command "grep -qF '<tr><td class=\"s\">tiresias-las</td><td class=\"s\">1.6</td><td class=\"s\">seed=2</td><td class=\"s\">$run1</td><td class=\"s\"><code>$cmd1</code></td></tr>' g.html"
expect sweep_group_html_inputs "grep -q '<tr><td class=\"s\">summary</td><td class=\"s\">t/summary.csv</td><td>[0-9]*</td><td>12</td></tr>' g.html && grep -q '<tr><td class=\"s\">plan</td><td class=\"s\">t/plan.csv</td><td>[0-9]*</td><td>12</td></tr>' g.html && grep -q '<code id=\"command\">dlsched report --group-by policy,load -o g.html t</code>' g.html && grep -q 'id=\"version\"' g.html"
# a summary without its plan: the runs without commands; a broken plan: a warning
mkdir -p lone && cp t/summary.csv lone/
run sweep_group_html_no_plan 0 "dl report --group-by policy -o lone.html lone/summary.csv"
expect sweep_group_html_no_plan_runs "grep -q '<p id=\"over\">Each mean is over runs that differ in seed (1, 2, 3); load (0.8, 1.6).</p>' lone.html && ! grep -q '<th class=\"s\">command</th>' lone.html && ! grep -q 'plan.csv' lone.html"
printf 'run,command\nx,y\n' > lone/plan.csv
run sweep_group_html_bad_plan 0 "dl report --group-by policy -o lone.html lone"
expect sweep_group_html_bad_plan_warns "grep -q 'lone/plan.csv:1: not a sweep plan.*the page lists no commands' err && test -s lone.html"
run sweep_group_bad_column 1 "dl report --group-by polcy t"
expect sweep_group_bad_column_msg "grep -q \"no column 'polcy' to group by\" err"

# the progress line: on a terminal (script(1) gives one), never into a file
run sweep_progress_tty 0 "script -qec 'dl sweep --axis seed=1..3 --set load=1 --set cluster=1x1x8 --set jobs=15 -j 2 p' /dev/null"
expect sweep_progress_shown "grep -q '3/3 runs, 0 failed' out"
run sweep_progress_not_tty 0 "dl sweep --axis seed=1..3 --set load=1 --set cluster=1x1x8 --set jobs=15 -j 2 p2"
expect sweep_progress_not_in_file "! grep -q 'runs, 0 failed' err"
