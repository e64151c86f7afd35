# b_simulate.sh: the simulator's speed and memory (sourced by tests/bench/run.sh).
#
# Traces are generated here with `dlsched trace gen` (Philly-like durations and GPU
# mix, Poisson arrivals) at offered load 1.2 of the cluster, so queues build up and
# tiresias-las preempts; the cluster is 8 racks x 32 nodes x 8 GPUs = 2,048 GPUs.
# Baselines, measured in the same run on the same trace:
#   cat     `dlsched cat` of the trace: reading and writing the same number of rows
#   fifo    the same simulation under fifo (no preemption, no timers)
# Events per second counts every event the engine delivers (arrivals, completions,
# checkpoint ends, timers; `simulate -v` reports them).
C=8x32x8
gen() { # JOBS FILE
	"$DLSCHED" trace gen --seed 1 --jobs "$1" --load 1.2 --cluster "$C" > "$2"
}
events_of() { # STDERR-FILE
	sed -n 's/.* jobs completed, \([0-9]*\) events.*/\1/p' "$1"
}

T100=$BENCH_TMP/philly_100k.csv
gen 100000 "$T100"
measure "$DLSCHED" cat "$T100"
CAT=$SECS
measure "$DLSCHED" simulate -q --cluster $C --policy fifo -o /dev/null "$T100"
FIFO=$SECS
measure sh -c "'$DLSCHED' simulate -v --cluster $C --policy tiresias-las -o /dev/null '$T100' 2> '$BENCH_TMP/v.err'"
TLAS=$SECS
TLAS_RSS=$RSS_MB
figure "tiresias-las, 100k jobs, 2048 GPUs" "$TLAS" "$CAT" "cat of the trace" "target < 1 s"
figure "tiresias-las, 100k jobs, 2048 GPUs" "$TLAS" "$FIFO" "fifo, same trace"
note "tiresias-las 100k: $(events_of "$BENCH_TMP/v.err") events, peak RSS $TLAS_RSS MB"

# scaling: 10k, 100k, 1M jobs; events/s and peak RSS beside cat's
printf '  %-10s %10s %12s %12s %10s %12s %10s\n' jobs sim_s events events/s rss_MB cat_s cat_MB
for n in 10000 100000 1000000; do
	f=$BENCH_TMP/philly_$n.csv
	[ "$n" -eq 100000 ] && f=$T100 || gen "$n" "$f"
	measure "$DLSCHED" cat "$f"
	cs=$SECS
	cm=$RSS_MB
	measure sh -c "'$DLSCHED' simulate -v --cluster $C --policy tiresias-las -o /dev/null '$f' 2> '$BENCH_TMP/v.err'"
	ev=$(events_of "$BENCH_TMP/v.err")
	awk -v n="$n" -v s="$SECS" -v e="$ev" -v m="$RSS_MB" -v cs="$cs" -v cm="$cm" 'BEGIN {
		printf "  %-10d %10.3f %12d %12.0f %10.1f %12.3f %10.1f\n", n, s, e, (s > 0 ? e / s : 0), m, cs, cm }'
	figure "tiresias-las, $n jobs" "$SECS" "$cs" "cat of the trace"
	rm -f "$f"
done
