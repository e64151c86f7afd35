# b_themis.sh: simulate --policy themis (issue 16's target: 100,000 jobs on 2,048 GPUs in
# under 5 s), with the share of the run spent in the auctions (sourced by tests/bench/run.sh).
# The trace is b_simulate.sh's: Philly-like, load 1.2 of 8 racks x 32 nodes x 8 GPUs.
# Baseline, measured in the same run on the same trace: tiresias-las.
# The auction share comes from tests/bench/themis_auction.c, which runs the same
# simulation through the library with the policy's clock around each auction.
C=8x32x8
T100K=$BENCH_TMP/themis_100k.csv
"$DLSCHED" trace gen --seed 1 --jobs 100000 --load 1.2 --cluster "$C" > "$T100K"
measure "$DLSCHED" simulate --cluster "$C" --policy tiresias-las -o /dev/null "$T100K"
LAS=$SECS
measure sh -c "'$DLSCHED' simulate -v --cluster $C --policy themis -o /dev/null '$T100K' 2> '$BENCH_TMP/v.err'"
figure "themis, 100k jobs, 2048 GPUs" "$SECS" "$LAS" "tiresias-las, same trace" "target < 5 s"
note "themis 100k: $(sed -n 's/.*: \([0-9]*\) jobs completed, \([0-9]*\) events.*/\1 jobs, \2 events/p' "$BENCH_TMP/v.err"), peak RSS $RSS_MB MB"
TOOL=${DLSCHED_BUILD:-$SRCROOT/build}/tests/bench/themis_auction
for k in 0.2 1; do
	if out=$("$TOOL" --cluster "$C" --fairness-knob "$k" "$T100K"); then
		note "themis knob $k: $out"
		note "themis knob $k: $(echo "$out" | sed -n 's/.*share=\([0-9.]*\).*/\1/p' | awk '{printf "%.1f%%", $1 * 100}') of the run in the auction"
	else
		note "themis knob $k: themis_auction failed"
	fi
done
rm -f "$T100K"
