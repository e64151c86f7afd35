# t_report_cron.sh: the README's crontab line for operators, run as cron would run it: by
# sh, '\%' unescaped, in cron's environment (nothing but PATH=/usr/bin:/bin), so the line
# must find dlsched by itself where `make install` puts it, /usr/local/bin. In a mount
# namespace of its own the test mounts over /usr/local/bin a directory holding the build's
# dlsched and stand-ins for `sacct` (a small real-format dump with typed jobs,
# testdata/report/sacct_typed.psv) and `scontrol show node -o` (a node list of 2 a100 and
# 2 v100 nodes, testdata/report/nodes.txt); the line is otherwise verbatim but for the two
# directories the README says to change, moved into the scratch space. Then the same line
# on a night without jobs. The copy in man/examples and its systemd service and timer
# (installed to /usr/share/doc/dlsched/examples) are checked against it.
heavy || return 0
if ! dl trace --help > /dev/null 2>&1 || ! dl simulate --help > /dev/null 2>&1; then
	skip report_cron "needs dlsched trace import and dlsched simulate in this build"
	return 0
fi
line=$(grep '^15 2 \* \* \* ' "$SRCROOT/README.md")
expect_eq report_cron_line_found 1 "$(printf '%s\n' "$line" | grep -c .)"
EX=$SRCROOT/man/examples
expect_eq report_cron_example_is_readme "$line" "$(grep '^15 2 \* \* \* ' "$EX/dlsched-nightly.crontab")"
# the command part of the crontab entry, as cron hands it to /bin/sh
cmd=$(printf '%s\n' "$line" | sed -e 's/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* //' -e 's/\\%/%/g' \
	-e "s#cd /srv/dlsched#cd '$SCRATCH/srv'#" -e "s#/var/www/html/dlsched/#$SCRATCH/www/#")
mkdir -p srv www bin
printf '%s\n' "$cmd" > cron.cmd
# yesterday as the line computes it, in cron's environment (no TZ)
yesterday=$(env -i PATH=/usr/bin:/bin date -d yesterday +%F)
# stand-ins: insist on the options the README promises, then print the dump / node list
cat > bin/sacct << EOF2
#!/bin/sh
echo "\$*" > '$SCRATCH/sacct.args'
case " \$* " in *" -X "*) ;; *) echo "sacct: no -X" >&2; exit 1 ;; esac
case " \$* " in *" -P "*) ;; *) echo "sacct: no -P" >&2; exit 1 ;; esac
case " \$* " in *" -S $yesterday "*) ;; *) echo "sacct: not yesterday" >&2; exit 1 ;; esac
case " \$* " in *",TimelimitRaw,"*) ;; *) echo "sacct: no TimelimitRaw" >&2; exit 1 ;; esac
cat '$SCRATCH/dump.psv'
EOF2
cat > bin/scontrol << EOF2
#!/bin/sh
[ "\$*" = "show node -o" ] || { echo "scontrol: unexpected '\$*'" >&2; exit 1; }
cat '$TESTDATA/report/nodes.txt'
EOF2
chmod +x bin/sacct bin/scontrol
ln -s "$DLSCHED" bin/dlsched
cp "$TESTDATA/report/sacct_typed.psv" dump.psv
# cron's environment, with bin/ mounted over /usr/local/bin (exit 97: the mount failed)
cat > as_cron.sh << EOF2
mount --bind '$SCRATCH/bin' /usr/local/bin || exit 97
exec env -i PATH=/usr/bin:/bin sh -c "\$(cat '$SCRATCH/cron.cmd')"
EOF2
if [ "$(id -u)" -eq 0 ]; then ns="unshare -m"; else ns="unshare -r -m"; fi
if [ -d /usr/local/bin ] && $ns sh -c "mount --bind '$SCRATCH/bin' /usr/local/bin" 2> /dev/null; then
	as_cron="$ns sh '$SCRATCH/as_cron.sh'"
else
	# no mount namespace here (a container without the capability): the stand-ins go
	# first on cron's PATH instead, so the line's own PATH is not what finds dlsched
	skip report_cron_verbatim "no mount namespace to put the build's dlsched in /usr/local/bin"
	as_cron="env -i PATH='$SCRATCH/bin':/usr/bin:/bin sh -c \"\$(cat '$SCRATCH/cron.cmd')\""
fi
run report_cron_runs 0 "$as_cron"
# an ordinary night (one CPU-only row skipped) says nothing on stderr, so cron mails nothing
expect report_cron_ordinary_night_quiet "test ! -s err"
page=www/$yesterday.html
night=srv/$yesterday
expect report_cron_page "test -s '$page'"
expect report_cron_sacct_args "grep -q -- '-a -X -P' sacct.args"
expect report_cron_intermediates "test -s $night/jobs.csv && test -s $night/nodes.txt && test -s $night/skipped.csv && test -s $night/fifo.csv && test -s $night/tiresias-las.timeline.csv"
expect_with xmllint report_cron_xml "xmllint --noout '$page'" libxml2-utils
# the three policies and Slurm's real schedule, each with a JCT CDF, a bar and utilisation
expect_eq report_cron_cdfs 4 "$(grep -o 'class="cdf-jct"' "$page" | wc -l)"
expect_eq report_cron_timelines 4 "$(grep -o 'class="tl-util"' "$page" | wc -l)"
expect report_cron_labels "grep -q 'data-label=\"tiresias-gittins\"' '$page' && grep -q 'data-label=\"as run\"' '$page' && grep -q 'baseline as run' '$page'"
# no typed job vanished: all 7 typed jobs are in jobs.csv and in every policy's results
# as jobs that ran; the only job left out is the one cancelled before it started
expect_eq report_cron_typed_jobs 7 "$(grep -c ',a100,\|,v100,' $night/jobs.csv)"
for p in fifo tiresias-las tiresias-gittins; do
	expect "report_cron_nothing_rejected_$p" "cols rejected,end $night/$p.csv -e 'NR > 1 && (\$1 != \"\" || \$2 == \"\") {bad++} END {exit !(NR == 17 && !bad)}'"
done
# the night counted once: 16 jobs in each of the 4 labels, 1 row skipped on import
expect report_cron_all_jobs "grep -q '<span id=\"night\">4 labels, 16 jobs; 1 more row skipped on import</span>' '$page'"
expect report_cron_dropped "grep -q '<td>1</td><td class=\"s w\">1 cancelled while pending</td>' '$page'"
expect report_cron_window "grep -q 'window: all jobs; utilisation from the first to the last arrival' '$page'"
expect report_cron_provenance "grep -q '<code id=\"command\">dlsched report --baseline .*as run.* --as-run jobs.csv' '$page' && grep -q '<td class=\"s\">skipped.csv</td>' '$page' && grep -q '<tr><td class=\"s\">cluster</td><td class=\"s\">nodes.txt</td><td>2706</td><td>-</td></tr>' '$page'"
# --provenance: the page says which command made which label, the import's once for all
expect report_cron_made_by_import "grep -q '<tr><td class=\"s\">fifo, tiresias-las, tiresias-gittins, as run</td><td class=\"s\"><code>dlsched trace import --from sacct --provenance --skipped skipped.csv sacct.psv</code></td><td>-</td></tr>' '$page'"
for p in fifo tiresias-las tiresias-gittins; do
	expect "report_cron_made_by_$p" "grep -q '<tr><td class=\"s\">$p</td><td class=\"s\"><code>dlsched simulate --provenance --cluster nodes.txt --policy $p --timeline $p.timeline.csv jobs.csv</code></td><td>1</td></tr>' '$page'"
done

# the same typed jobs on the README's old hand-written cluster: the a100 jobs cannot run,
# and the page says so instead of losing them
run report_cron_shorthand 0 "cd $night && dl simulate -q --cluster 1x4x8:v100 --policy fifo jobs.csv > old.csv && dl report --skipped skipped.csv -o old.html old.csv"
expect report_cron_shorthand_dropped "grep -q \"<td>5</td><td class=\\\"s w\\\">1 cancelled while pending; 4 unknown GPU type &#39;a100&#39;</td>\" $night/old.html"

# a night without a single job: the same line exits 0 and writes a "no jobs" page
printf 'JobID|JobName|User|Partition|Submit|Start|End|ElapsedRaw|AllocTRES|ReqTRES|TimelimitRaw|State\n' > empty.psv
cp empty.psv dump.psv
rm -rf "$night"
run report_cron_empty_night 0 "$as_cron"
expect report_cron_empty_night_quiet "test ! -s err"
expect report_cron_empty_page "grep -q 'id=\"no-jobs\"' '$page' && grep -q '4 labels, 0 jobs' '$page'"

# the systemd service runs the crontab's command word for word (written for systemd: $$ for
# $, %% for %, \' for a quote), and systemd accepts both units as they are
exec_start=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$EX/dlsched-nightly.service" |
	sed -e "s/\\\\'/'/g" -e 's/%%/%/g' -e 's/\$\$/$/g')
expect_eq report_cron_service_is_crontab "$(printf '%s\n' "$line" | sed -e 's/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* //' -e 's/\\%/%/g')" "$exec_start"
expect report_cron_service_unprivileged "grep -qx 'User=dlsched' '$EX/dlsched-nightly.service'"
expect report_cron_timer_daily "grep -qx 'OnCalendar=daily' '$EX/dlsched-nightly.timer' && grep -qx 'Persistent=true' '$EX/dlsched-nightly.timer'"
if command -v systemd-analyze > /dev/null; then
	cp "$EX/dlsched-nightly.service" "$EX/dlsched-nightly.timer" .
	run report_cron_units_verify 0 "systemd-analyze verify --man=no ./dlsched-nightly.service ./dlsched-nightly.timer"
	expect report_cron_units_verify_quiet "test ! -s err"
else
	skip report_cron_units_verify "systemd-analyze not installed (systemd)"
fi
