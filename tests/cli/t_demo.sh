# t_demo.sh: `make demo` (tests/demo.sh) runs to the end and prints its comparison.
heavy || return 0
run demo_runs 0 "cd '$SRCROOT' && DEMO_DIR='$SCRATCH/demo' sh tests/demo.sh '$DLSCHED'"
expect demo_made_trace "test -s '$SCRATCH/demo/jobs.csv'"
if "$DLSCHED" --list-commands | grep -qx report; then
	expect demo_compares_policies "grep -q tiresias-las out && grep -q fifo out"
	expect demo_html "grep -q '<svg' '$SCRATCH/demo/report.html'"
fi
