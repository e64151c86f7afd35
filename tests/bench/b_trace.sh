# b_trace.sh: trace import of 1,000,000 sacct and Helios rows, and trace gen of 1,000,000 jobs.
# Baselines in the same run: cat(1) and wc -l of the same file (bytes through a pipe, the
# floor for any reader), `dlsched cat` of the Helios CSV (the shared table layer the Helios
# importer reads through), and for gen an awk(1) loop printing as many random rows.
N=1000000
S=$BENCH_TMP/sacct.psv
H=$BENCH_TMP/cluster_log.csv
# sacct -P -X rows as Slurm writes them: local dates, typed and untyped gres, CANCELLED by N
awk -v n=$N 'function d(t,  day, h, m, s) {
	day = 1 + int(t / 86400); t %= 86400; h = int(t / 3600); m = int(t % 3600 / 60); s = t % 60
	return sprintf("2026-01-%02dT%02d:%02d:%02d", day, h, m, s)
}
BEGIN {
	print "JobID|JobName|User|Account|Partition|Submit|Start|End|ElapsedRaw|AllocTRES|State"
	srand(1)
	for (i = 0; i < n; i++) {
		sub_t = int(i * 2); st = sub_t + int(rand() * 600); el = 1 + int(rand() * 20000)
		g = 2 ^ int(rand() * 4)
		state = (i % 7 == 0) ? "CANCELLED by 1001" : "COMPLETED"
		printf "%d|train%d|user%d|acct%d|gpu|%s|%s|%s|%d|billing=%d,cpu=%d,gres/gpu=%d,gres/gpu:a100=%d,mem=64G,node=1|%s\n",
			1000 + i, i % 50, i % 97, i % 5, d(sub_t), d(st), d(st + el), el, g * 4, g * 4, g, g, state
	}
}' > "$S"
awk -v n=$N 'function d(t,  day, h, m, s) {
	day = 1 + int(t / 86400); t %= 86400; h = int(t / 3600); m = int(t % 3600 / 60); s = t % 60
	return sprintf("2020-04-%02d %02d:%02d:%02d", day, h, m, s)
}
BEGIN {
	print "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue"
	srand(2)
	for (i = 0; i < n; i++) {
		sub_t = int(i * 2); q = int(rand() * 100); el = 1 + int(rand() * 20000)
		printf "%d,u%d,vc%d,%d,%d,1,COMPLETED,%s,%s,%s,%d,%d\n",
			5000000 + i, i % 97, i % 11, 2 ^ int(rand() * 4), 6, d(sub_t), d(sub_t + q), d(sub_t + q + el), el, q
	}
}' > "$H"

for f in sacct:$S helios:$H; do
	fmt=${f%%:*} file=${f#*:}
	measure cat "$file"; base=$SECS
	measure wc -l "$file"; wc=$SECS
	measure "$DLSCHED" trace import --from "$fmt" --tz UTC "$file"; t=$SECS; rss=$RSS_MB
	figure "import --from $fmt (1M rows)" "$t" "$base" "cat(1) same file" "target >= 1M rows/s"
	figure "import --from $fmt (1M rows)" "$t" "$wc" "wc -l same file"
	if [ "$fmt" = helios ]; then
		# the table layer alone (CSV parse + write): what the importer adds on top
		measure "$DLSCHED" cat "$file"; tc=$SECS
		figure "import --from $fmt (1M rows)" "$t" "$tc" "dlsched cat same file"
	fi
	note "$(awk -v s="$t" -v n=$N -v r="$rss" 'BEGIN{printf "%.2f M rows/s, peak RSS %s MB", n/s/1e6, r}')"
	# wall time is noisy on a shared machine: also the CPU time of the same run
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$BENCH_TMP/.cpu" "$DLSCHED" trace import --from "$fmt" --tz UTC "$file" > /dev/null
		note "$(awk -v n=$N '{c = $1 + $2; printf "CPU %.2f s (user+sys): %.2f M rows per CPU-second", c, n/c/1e6}' "$BENCH_TMP/.cpu")"
	fi
done

measure awk -v n=$N 'BEGIN { srand(1); print "id,submit,gpus,duration"
	for (i = 0; i < n; i++) { t += -log(1 - rand()) * 36; printf "%d,%.3f,%d,%d\n", i, t, 2 ^ int(rand() * 4), 1 + int(rand() * 5000) } }'
base=$SECS
measure "$DLSCHED" trace gen --seed 1 --jobs $N --rate 100; t=$SECS; rss=$RSS_MB
figure "gen 1M jobs (philly durations)" "$t" "$base" "awk(1) 1M random rows" "target < 1 s"
note "$(awk -v s="$t" -v n=$N -v r="$rss" 'BEGIN{printf "%.2f M jobs/s, peak RSS %s MB", n/s/1e6, r}')"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%U %S' -o "$BENCH_TMP/.cpu" "$DLSCHED" trace gen --seed 1 --jobs $N --rate 100 > /dev/null
	note "$(awk '{printf "CPU %.2f s (user+sys)", $1 + $2}' "$BENCH_TMP/.cpu")"
fi
"$DLSCHED" trace gen --seed 1 --jobs $N --rate 100 > "$BENCH_TMP/gen.csv"
measure "$DLSCHED" trace stats "$BENCH_TMP/gen.csv"; ts=$SECS
measure cat "$BENCH_TMP/gen.csv"; bs=$SECS
figure "stats of 1M jobs" "$ts" "$bs" "cat(1) same file"
