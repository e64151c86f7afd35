#!/bin/sh
# demo.sh: `make demo`, the main job on a bundled example. It generates a
# Philly-like workload that overloads a 32-GPU cluster, simulates it under several
# scheduling policies and prints the comparison (plus an HTML page). Each step
# is echoed so it can be copied.
set -eu
BIN=${1:-./dlsched}
OUT=${DEMO_DIR:-build/demo}
mkdir -p "$OUT"
CLUSTER=1x4x8:v100
has() { "$BIN" --list-commands | grep -qx "$1"; }
step() { printf '\n$ %s\n' "$*" >&2; sh -c "$*"; }

step "$BIN trace gen --seed 7 --jobs 800 --load 1.5 --cluster $CLUSTER -o $OUT/jobs.csv"
step "$BIN trace stats $OUT/jobs.csv"
if has simulate && has report; then
	for p in fifo sjf tiresias-las tiresias-gittins; do
		step "$BIN simulate -q --cluster $CLUSTER --policy $p $OUT/jobs.csv -o $OUT/$p.csv"
	done
	step "$BIN report -f text --cluster $CLUSTER --baseline fifo $OUT/fifo.csv $OUT/sjf.csv $OUT/tiresias-las.csv $OUT/tiresias-gittins.csv"
	step "$BIN report --format html --cluster $CLUSTER --title 'dlsched demo' --baseline fifo $OUT/fifo.csv $OUT/sjf.csv $OUT/tiresias-las.csv $OUT/tiresias-gittins.csv -o $OUT/report.html"
	echo "
The HTML report is $OUT/report.html" >&2
else
	# until simulate and report exist: order the queue and place it
	step "$BIN prioritize --policy sjf $OUT/jobs.csv | $BIN place --cluster $CLUSTER | head -15"
fi
