# t_report_cron.sh: the README's crontab line for operators, run as cron would run it
# (sh, '\%' unescaped), with a stand-in `sacct` that prints a small real-format dump
# (testdata/report/sacct.psv) and the directories moved into the scratch space.
heavy || return 0
if ! dl trace --help > /dev/null 2>&1 || ! dl simulate --help > /dev/null 2>&1; then
	skip report_cron "needs dlsched trace import and dlsched simulate in this build"
	return 0
fi
line=$(grep '^15 2 \* \* \* ' "$SRCROOT/README.md")
expect_eq report_cron_line_found 1 "$(printf '%s\n' "$line" | grep -c .)"
# the command part of the crontab entry, as cron hands it to /bin/sh
cmd=$(printf '%s\n' "$line" | sed -e 's/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* //' -e 's/\\%/%/g' \
	-e "s#cd /srv/dlsched#cd '$SCRATCH/srv'#" -e "s#/var/www/html/dlsched/#$SCRATCH/www/#")
mkdir -p srv www bin
yesterday=$(date -d yesterday +%F)
# sacct stand-in: insists on the options the README promises, then prints the dump
cat > bin/sacct << EOF2
#!/bin/sh
echo "\$*" > '$SCRATCH/sacct.args'
case " \$* " in *" -X "*) ;; *) echo "sacct: no -X" >&2; exit 1 ;; esac
case " \$* " in *" -P "*) ;; *) echo "sacct: no -P" >&2; exit 1 ;; esac
case " \$* " in *" -S $yesterday "*) ;; *) echo "sacct: not yesterday" >&2; exit 1 ;; esac
cat '$TESTDATA/report/sacct.psv'
EOF2
chmod +x bin/sacct
run report_cron_runs 0 "PATH='$SCRATCH/bin:$(dirname "$DLSCHED")':\$PATH; $cmd"
page=www/$yesterday.html
expect report_cron_page "test -s '$page'"
expect report_cron_sacct_args "grep -q -- '-a -X -P' sacct.args"
expect report_cron_intermediates "test -s srv/$yesterday.jobs.csv && test -s srv/$yesterday.fifo.csv && test -s srv/$yesterday.tiresias-las.timeline.csv"
if command -v xmllint > /dev/null; then
	expect report_cron_xml "xmllint --noout '$page'"
else
	skip report_cron_xml "xmllint not installed (libxml2-utils)"
fi
# the three policies, each with a JCT CDF, a bar and utilisation over time
expect_eq report_cron_cdfs 3 "$(grep -o 'class="cdf-jct"' "$page" | wc -l)"
expect_eq report_cron_timelines 3 "$(grep -o 'class="tl-util"' "$page" | wc -l)"
expect report_cron_labels "grep -q 'data-label=\"tiresias-gittins\"' '$page' && grep -q 'baseline fifo' '$page'"
# every row of the three results files is counted on the page
n=$(cat srv/$yesterday.fifo.csv srv/$yesterday.tiresias-las.csv srv/$yesterday.tiresias-gittins.csv | grep -vc '^id,')
expect report_cron_all_jobs "grep -q '3 labels, $n jobs' '$page'"
