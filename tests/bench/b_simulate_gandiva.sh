# b_simulate_gandiva.sh: simulate --policy gandiva under overload (sourced by
# tests/bench/run.sh). Issue 17's target: 100,000 Philly-like jobs on 2,048 GPUs
# (8 racks x 32 nodes x 8 GPUs) at offered load 1.5 in under 5 s. At that load most
# GPU sets are over-subscribed, so every quantum (60 s) of every set is a timer event:
# the event count, not the job count, sets the time. Baselines in the same run, on the
# same trace: `dlsched cat` of the trace and fifo (no time slices).
C=8x32x8
T=$BENCH_TMP/gandiva_100k.csv
"$DLSCHED" trace gen --seed 1 --jobs 100000 --load 1.5 --cluster "$C" > "$T"
measure "$DLSCHED" simulate --cluster "$C" --policy fifo --place gandiva -o /dev/null "$T"
FIFO=$SECS
for slice in round-robin fluid; do
	measure sh -c "'$DLSCHED' simulate -v --cluster $C --policy gandiva --slice $slice -o /dev/null '$T' 2> '$BENCH_TMP/v.err'"
	figure "gandiva $slice, 100k jobs, load 1.5" "$SECS" "$FIFO" "fifo, same trace" "target < 5 s"
	note "gandiva $slice: $(sed -n 's/.* jobs completed, \([0-9]*\) events, \([0-9]*\) passes.*/\1 events, \2 passes/p' "$BENCH_TMP/v.err"), peak RSS $RSS_MB MB"
done
rm -f "$T"
