# b_sweep.sh: what dlsched sweep adds to the runs it makes (sourced by tests/bench/run.sh).
#
# Overhead: 50 runs of a 20-job trace (gen, simulate, report each) through
# `sweep -j 1`, against the same 50 plan.csv commands run one after the other by sh
# (the baseline: the runs' own processes). The difference per run is the sweep's own
# cost (plan, dry checks, fork/exec, markers, collecting), shown beside the time to
# simulate a 10,000-job trace. Parallelism: a 200-run grid (2 policies x 10 loads x 10
# seeds) of 10,000-job traces with -j 2 against -j 1 (target: close to twice as fast
# on 2 free cores; the machine's load is printed).
S=$BENCH_TMP/sweep
mkdir -p "$S"
measure "$DLSCHED" sweep -q -j 1 --axis seed=1..50 --set jobs=20 --set load=1 --set cluster=1x1x8 "$S/small"
SWEEP=$SECS
awk -F, 'NR > 1 { sub(/^[^,]*,[^,]*,/, ""); print }' "$S/small/plan.csv" > "$S/cmds"
mkdir -p "$S/direct" && cp -r "$S/small/runs" "$S/direct/"
measure sh -c "cd '$S/direct' && PATH='$(dirname "$DLSCHED")':\$PATH && while IFS= read -r c; do sh -c \"\$c\" || exit 1; done < '$S/cmds'"
DIRECT=$SECS
"$DLSCHED" trace gen --seed 1 --jobs 10000 --load 1 --cluster 2x4x8 > "$S/t10k.csv"
measure "$DLSCHED" simulate -q --cluster 2x4x8 --policy tiresias-las -o /dev/null "$S/t10k.csv"
SIM10K=$SECS
# the sweep's own work: planning and dry checks (--emit runs nothing), and a rerun with
# every run done (state of each run, summary.csv); fork/exec is in the sh comparison
measure "$DLSCHED" sweep -q --emit --axis seed=51..100 --set jobs=20 --set load=1 --set cluster=1x1x8 "$S/emit"
PLAN=$SECS
measure "$DLSCHED" sweep -q "$S/small"
COLLECT=$SECS
OVER=$(awk -v a="$PLAN" -v b="$COLLECT" 'BEGIN { printf "%.4f", (a + b) / 50 }')
figure "sweep -j 1, 50 tiny runs" "$SWEEP" "$DIRECT" "the same commands by sh"
figure "sweep plan+check+collect per run" "$OVER" "$SIM10K" "simulate 10k jobs (once)" "target < 0.010 s"

G="--axis policy=fifo,tiresias-las --axis load=0.5,0.6,0.7,0.8,0.9,1.0,1.1,1.2,1.3,1.4 --axis seed=1..10 --set jobs=10000 --set cluster=2x4x8"
note "load average before the grid: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "$DLSCHED" sweep -q -j 1 $G "$S/j1"
J1=$SECS
measure "$DLSCHED" sweep -q -j 2 $G "$S/j2"
J2=$SECS
figure "sweep -j 2, 200 runs of 10k jobs" "$J2" "$J1" "sweep -j 1, same grid" "target ratio ~0.5"
cmp -s "$S/j1/summary.csv" "$S/j2/summary.csv" && note "-j 1 and -j 2 summaries identical" || note "SUMMARIES DIFFER"
note "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
