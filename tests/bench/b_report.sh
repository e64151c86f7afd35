# b_report.sh: summarising 1,000,000 results rows (17 columns, 4 policies, 2% unfinished),
# beside `dlsched cat` of the same file (reading and writing every field) and wc -l. Each
# policy runs the same 250,000 jobs (row i is job i/4), as report requires of its labels.
N=1000000
F=$BENCH_TMP/results.csv
awk -v n=$N 'BEGIN {
	print "id,submit,gpus,duration,start,end,jct,queue_delay,run_time,preemptions,migrations,tier,slowdown,gpu_type,policy,rho,comm_overhead_s"
	srand(1)
	split("fifo,tiresias-las,tiresias-gittins,srtf", pol, ",")
	for (i = 0; i < n; i++) {
		j = int(i / 4); s = j * 12; d = int(10^(1 + rand() * 4)); q = int(rand() * rand() * 5000)
		g = 2^int(rand() * 4)
		if (i % 50 == 7)
			printf "%d,%d,%d,%d,,,,,,0,0,,,v100,%s,,\n", j, s, g, d, pol[i % 4 + 1]
		else
			printf "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,node,1,v100,%s,%.6f,0\n", j, s, g, d,
				s + q, s + q + d, q + d, q, d, int(rand() * 3), int(rand() * 2),
				pol[i % 4 + 1], (q + d) / d
	}
}' > "$F"
measure wc -l "$F"; wc=$SECS
measure "$DLSCHED" cat "$F"; base=$SECS
figure "dlsched cat (1M rows, baseline)" "$base" "$wc" "wc -l same file"
measure "$DLSCHED" report -b fifo --gpus 2048 "$F"; t=$SECS
figure "report csv (1M rows, 4 labels)" "$t" "$base" "dlsched cat same file" "target < 1 s"
note "$(awk -v s="$t" -v n=$N 'BEGIN{printf "%.2f M rows/s, peak RSS %s MB", n/s/1e6, "'"$RSS_MB"'"}')"
measure "$DLSCHED" report -f html -b fifo --gpus 2048 --by gpus "$F"; th=$SECS
figure "report html --by gpus (1M rows)" "$th" "$base" "dlsched cat same file"
note "HTML page: $("$DLSCHED" report -f html -b fifo --gpus 2048 "$F" | wc -c) bytes for $N jobs"
