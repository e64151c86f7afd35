# b_prioritize.sh: ordering 1,000,000 jobs with state (issue target: under 1 s).
# Baselines in the same run: `dlsched cat` of the same file (reading and writing the
# rows, no ordering) and `sort -t, -k6 -n` (a plain numeric sort on one column).
N=1000000
F=$BENCH_TMP/queue.csv
awk -v n=$N 'BEGIN {
	print "id,submit,gpus,duration,executed,waiting,model"
	srand(6)
	for (i = 0; i < n; i++) {
		d = int(60 + rand() * rand() * 1e5); e = int(rand() * d)
		printf "%d,%d,%d,%d,%d,%d,m%d\n", i, int(i / 3), 2^int(rand()*4), d, e, int(rand() * 2e4), i % 50
	}
}' > "$F"
measure "$DLSCHED" cat "$F"; cat_s=$SECS
measure sh -c "LC_ALL=C sort -t, -k6 -n '$F'"; sort_s=$SECS
measure "$DLSCHED" prioritize -p fifo "$F"; t=$SECS
figure "prioritize fifo (1M jobs)" "$t" "$cat_s" "dlsched cat same file" "target < 1 s"
measure "$DLSCHED" prioritize -p 2d-las --thresholds 3250,7200 --starvation 2 "$F"; t=$SECS
figure "prioritize 2d-las MLFQ+starvation (1M)" "$t" "$cat_s" "dlsched cat same file" "target < 1 s"
note "peak RSS $RSS_MB MB"
figure "prioritize 2d-las MLFQ+starvation (1M)" "$t" "$sort_s" "sort -n one column"
measure "$DLSCHED" prioritize -p 2d-gittins --queues 3 \
	--distribution "$TESTDATA/prioritize/yarn-gput1000.csv" "$F"; t=$SECS
figure "prioritize 2d-gittins, 3 queues (1M)" "$t" "$cat_s" "dlsched cat same file" "target < 1 s"
measure "$DLSCHED" prioritize -p ftf --now 400000 --cluster-gpus 2048 "$F"; t=$SECS
figure "prioritize ftf (1M)" "$t" "$cat_s" "dlsched cat same file" "target < 1 s"
