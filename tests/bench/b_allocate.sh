# b_allocate.sh: allocate's solve time against glpsol solving the model allocate dumped,
# in the same run (and, for --pack, against the per-job candidate LP it solved before).
# Gavel's scalability setup: N jobs on N/4 GPUs of each of 3 types, Gavel's job mix of
# gang sizes (70% 1 GPU, 15% 2, 15% 4), throughputs from testdata/allocate/throughputs.csv
# (Gavel's simulation measurements). All weights are 1 (but in the entities case):
# with Gavel's 20% of weight-5 jobs the optimum is pinned by one weight-5 job that already
# runs full time on its fastest type, so the objective would not show contention (or
# POP's loss).
# shellcheck shell=sh

TP=$TESTDATA/allocate/throughputs.csv

gen_jobs() { # N FILE
	awk -v n="$1" 'BEGIN {
		srand(42)
		k = split("A3C|CycleGAN|LM (batch size 20)|Recommendation (batch size 2048)|" \
			"ResNet-18 (batch size 64)|ResNet-50 (batch size 64)|Transformer (batch size 64)", M, "|")
		b = split("LM (batch size 20)|ResNet-18 (batch size 64)|ResNet-50 (batch size 64)|" \
			"Transformer (batch size 64)", B, "|")
		print "id,model,gpus,weight,steps"
		for (i = 1; i <= n; i++) {
			r = rand(); g = r < 0.7 ? 1 : (r < 0.85 ? 2 : 4)
			m = g == 1 ? M[int(rand() * k) + 1] : B[int(rand() * b) + 1]
			printf "j%d,%s,%d,1,%d\n", i, m, g, 1000 + int(rand() * 100000)
		}
	}' > "$2"
}

ours_obj() { sed -n 's/.*; lp objective \([^;]*\);.*/\1/p' "$BENCH_TMP/err" | tail -1; }
glpsol_objs() { # the objectives glpsol wrote, comma-separated
	for s in "$BENCH_TMP"/sol*.txt; do
		sed -n 's/^Objective: .* = \([^ ]*\) .*/\1/p' "$s"
	done | paste -sd, -
}

wf_figure() { # NAME JOBS EXTRA_ARGS [TARGET]: water-filling --per-job against glpsol
	rm -f "$BENCH_TMP"/m.lp* "$BENCH_TMP"/sol*.txt
	measure sh -c "'$DLSCHED' allocate -v --per-job --policy water-filling --cluster $CL \
		--throughputs '$TP' $3 --dump-model '$BENCH_TMP/m.lp' '$2' 2> '$BENCH_TMP/err'"
	_ours=$SECS
	_solves=$(sed -n 's/.*; \([0-9]*\) solves in.*/\1/p' "$BENCH_TMP/err")
	measure glpsol --lp "$BENCH_TMP/m.lp" -o "$BENCH_TMP/sol.txt"
	figure "$1" "$_ours" "$SECS" "glpsol, last level LP" "${4:-}"
	note "$_solves LP solves; lp objective: ours $(ours_obj), glpsol $(glpsol_objs)"
}

if ! command -v glpsol > /dev/null 2>&1; then
	note "glpsol (glpk-utils) not installed: no baseline"
	return 0
fi

for n in 256 1024 2048 4096; do
	J=$BENCH_TMP/jobs$n.csv
	gen_jobs "$n" "$J"
	c=$((n / 4))
	CL=$c:$c:$c

	# heterogeneity-aware max-min fairness (Gavel's LAS), exact: by default identical
	# jobs share LP rows (exact, see dlsched-allocate(1)); --per-job is Gavel's LP as is
	for mode in merged per-job; do
		flag=
		[ $mode = per-job ] && flag=--per-job
		rm -f "$BENCH_TMP"/m.lp* "$BENCH_TMP"/sol*.txt
		measure sh -c "'$DLSCHED' allocate -v $flag --cluster $CL --throughputs '$TP' \
			--policy max-min-fairness-perf --dump-model '$BENCH_TMP/m.lp' '$J' 2> '$BENCH_TMP/err'"
		ours=$SECS obj=$(ours_obj)
		size=$(sed -n 's/.*; \([0-9]* rows, [0-9]* columns\);.*/\1/p' "$BENCH_TMP/err")
		measure glpsol --lp "$BENCH_TMP/m.lp" -o "$BENCH_TMP/sol.txt"
		target=
		[ "$n" = 2048 ] && [ $mode = merged ] && target="target < 1 s"
		figure "max-min-fairness-perf $n jobs, $mode" "$ours" "$SECS" "glpsol, same LP" "$target"
		note "$size; objective: ours $obj, glpsol $(glpsol_objs)"
	done

	# space sharing, exact: Gavel's LP over every pair of jobs, merged into classes of
	# identical jobs and pairs of classes (dlsched-allocate(1), SPACE SHARING)
	rm -f "$BENCH_TMP"/m.lp* "$BENCH_TMP"/sol*.txt
	measure sh -c "'$DLSCHED' allocate -v --cluster $CL --throughputs '$TP' --pack \
		--dump-model '$BENCH_TMP/m.lp' '$J' 2> '$BENCH_TMP/err'"
	ours=$SECS obj=$(sed -n 's/.*: objective \([^ ]*\) (.*/\1/p' "$BENCH_TMP/err")
	info=$(sed -n 's/.*, all pairs of jobs in \([0-9]*\) pairs of classes/\1 pairs of classes/p' "$BENCH_TMP/err")
	measure glpsol --lp "$BENCH_TMP/m.lp" -o "$BENCH_TMP/sol.txt"
	target=
	[ "$n" = 2048 ] && target="target < 1 s"
	figure "packed, exact (merged), $n jobs" "$ours" "$SECS" "glpsol, same LP" "$target"
	note "$info; objective: ours $obj, glpsol $(glpsol_objs)"
	if [ "$n" -le 2048 ]; then
		# the LP allocate solved before merging (and --per-job still does): 4 candidate
		# partners per job, a restriction of Gavel's LP
		rm -f "$BENCH_TMP"/m.lp* "$BENCH_TMP"/sol*.txt
		measure sh -c "'$DLSCHED' allocate -v --per-job --cluster $CL --throughputs '$TP' \
			--pack --dump-model '$BENCH_TMP/m.lp' '$J' 2> '$BENCH_TMP/err'"
		pj=$SECS
		info=$(sed -n 's/.*, \([0-9]*\) candidate pairs/\1 candidate pairs/p' "$BENCH_TMP/err")
		size=$(sed -n 's/.*; \([0-9]* rows, [0-9]* columns\);.*/\1/p' "$BENCH_TMP/err")
		figure "packed, exact (merged), $n jobs" "$ours" "$pj" "packed --per-job, 4 partners" "$target"
		measure glpsol --lp "$BENCH_TMP/m.lp" -o "$BENCH_TMP/sol.txt"
		figure "packed --per-job, 4 partners, $n jobs" "$pj" "$SECS" "glpsol, same LP"
		note "$info, $size; objective $(sed -n 's/.*: objective \([^ ]*\) (.*/\1/p' "$BENCH_TMP/err") (merged, every pair: $obj)"
	fi

	# space sharing, POP partitions (k = N/512, at least 1)
	k=$((n / 512))
	[ "$k" -ge 1 ] || k=1
	rm -f "$BENCH_TMP"/m.lp* "$BENCH_TMP"/sol*.txt
	measure sh -c "'$DLSCHED' allocate -v --cluster $CL --throughputs '$TP' --pack \
		--partitions $k --dump-model '$BENCH_TMP/m.lp' '$J' 2> '$BENCH_TMP/err'"
	ours=$SECS
	obj=$(sed -n 's/.*: objective \([^ ]*\) (.*/\1/p' "$BENCH_TMP/err")
	measure sh -c "i=0; for f in '$BENCH_TMP'/m.lp*; do i=\$((i+1)); glpsol --lp \"\$f\" -o '$BENCH_TMP'/sol\$i.txt || exit 1; done"
	figure "packed, $k partitions, $n jobs" "$ours" "$SECS" "glpsol, same $k LPs"
	note "objective (min over partitions): ours $obj; glpsol per partition $(glpsol_objs)"

	# hierarchical max-min water-filling, Gavel's LP per job (no merging): rounds of a
	# level LP and a bottleneck test until every job is frozen; the baseline is glpsol
	# on the last round's level LP, which allocate solves from scratch at the end
	[ "$n" -le 2048 ] || continue
	target=
	[ "$n" = 2048 ] && target="target < 5 s"
	wf_figure "water-filling --per-job, $n jobs" "$J" "" "$target"
	# the same jobs in 16 entities with weights 1 to 4 and 20% of jobs at weight 5:
	# many rounds, each re-solved from the last basis
	E=$BENCH_TMP/ent$n.csv
	awk -F, 'BEGIN { srand(7) } NR == 1 { print $0 ",entity"; next }
		{ $4 = rand() < 0.2 ? 5 : 1; print $0 ",u" int(rand() * rand() * 16) }' OFS=, "$J" > "$E"
	wf_figure "water-filling --per-job, 16 entities, $n" "$E" \
		"--entity-weights u0=1,u1=2,u2=3,u3=1,u4=2,u5=4,u6=1,u7=1,u8=2,u9=1,u10=3,u11=1,u12=1,u13=2,u14=1,u15=1"
done
