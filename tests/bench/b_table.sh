# b_table.sh: read+write throughput of the table layer on a 1,000,000-row, 10-column CSV.
# Baseline: `cat` of the same file (the physical floor: bytes through a pipe).
N=1000000
F=$BENCH_TMP/table.csv
awk -v n=$N 'BEGIN {
	print "id,submit,gpus,duration,model,user,vc,weight,gpu_type,state"
	srand(1)
	for (i = 0; i < n; i++)
		printf "%d,%d,%d,%.3f,resnet%d,u%d,vc%d,1,v100,COMPLETED\n", i, i * 7, 2^int(rand()*4), rand()*1e4, i%50, i%97, i%5
}' > "$F"
measure cat "$F"; base=$SECS
measure "$DLSCHED" cat "$F"; t=$SECS
figure "cat csv->csv (1M rows x 10 cols)" "$t" "$base" "cat(1) same file" "target >= 1M rows/s"
note "$(awk -v s="$t" -v n=$N 'BEGIN{printf "%.2f M rows/s, peak RSS %s MB", n/s/1e6, "'"$RSS_MB"'"}')"
measure "$DLSCHED" cat -f json "$F"; tj=$SECS
figure "cat csv->json (1M rows)" "$tj" "$base" "cat(1) same file"
"$DLSCHED" cat -f json "$F" > "$F.jsonl"
measure cat "$F.jsonl"; bj=$SECS
measure "$DLSCHED" cat "$F.jsonl"; tj2=$SECS
figure "cat json->csv (1M rows)" "$tj2" "$bj" "cat(1) same file"
gzip -1 -c "$F" > "$F.gz"
measure zcat "$F.gz"; bz=$SECS
measure "$DLSCHED" cat "$F.gz"; tz=$SECS
figure "cat csv.gz->csv (1M rows)" "$tz" "$bz" "zcat(1) same file"
