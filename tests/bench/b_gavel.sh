# b_gavel.sh: simulate --policy gavel (sourced by tests/bench/run.sh).
#
# Issue 15's targets: Gavel's continuous-single trace, 6,000 jobs at 5.6 jobs/h on
# 36 V100 + 36 P100 + 36 K80 under max-min-fairness-perf, the whole run in under 10 s,
# and with --pack in under 60 s. The allocation is re-solved (warm) at every boundary
# after an arrival or completion; `simulate -v` reports the solves and their mean time.
# Baseline, measured in the same run on the same trace and cluster:
#   fifo-backfill   the engine alone (the same per-model speeds, no allocation)
GT=$TESTDATA/allocate/gavel_throughputs.csv.gz
GTRACE=$BENCH_TMP/gavel6000.csv
"$DLSCHED" trace gen --preset gavel --single-gpu --rate 5.6 --jobs 6000 --seed 1 \
	--throughputs "$GT" -o "$GTRACE"
GC="--cluster 36:36:36 --throughputs $GT"
measure sh -c "'$DLSCHED' simulate $GC --policy fifo-backfill -o /dev/null '$GTRACE'"
BASE=$SECS
for args in "--alloc max-min-fairness-perf:target < 10 s" \
	"--alloc max-min-fairness-perf --pack:target < 60 s" \
	"--alloc max-min-fairness:" \
	"--alloc max-min-fairness-perf --mechanism exact:"; do
	a=${args%%:*} target=${args#*:}
	measure sh -c "'$DLSCHED' simulate -v $GC --policy gavel $a -o /dev/null '$GTRACE' 2> '$BENCH_TMP/v.err'"
	figure "gavel $a, 6000 jobs" "$SECS" "$BASE" "fifo-backfill, same trace" "$target"
	note "$(sed -n 's/^dlsched simulate: gavel: //p' "$BENCH_TMP/v.err"); peak RSS $RSS_MB MB"
done
# finish-time fairness re-solves by a few LPs each time (its rho moves): the first 1,500 jobs
head -1501 "$GTRACE" > "$BENCH_TMP/gavel1500.csv"
measure sh -c "'$DLSCHED' simulate $GC --policy fifo-backfill -o /dev/null '$BENCH_TMP/gavel1500.csv'"
BASE=$SECS
measure sh -c "'$DLSCHED' simulate -v $GC --policy gavel --alloc finish-time-fairness -o /dev/null '$BENCH_TMP/gavel1500.csv' 2> '$BENCH_TMP/v.err'"
figure "gavel --alloc finish-time-fairness, 1500 jobs" "$SECS" "$BASE" "fifo-backfill, same trace"
note "$(sed -n 's/^dlsched simulate: gavel: //p' "$BENCH_TMP/v.err"); peak RSS $RSS_MB MB"
