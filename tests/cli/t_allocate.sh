# t_allocate.sh: dlsched allocate (Gavel's policies on GLPK)
# shellcheck shell=sh

# `run` evaluates its command with `sh -c`, where lib.sh's dl() function does
# not exist: put an executable `dl` on this file's PATH instead.
mkdir -p "$SCRATCH/.bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$DLSCHED" > "$SCRATCH/.bin/dl"
chmod +x "$SCRATCH/.bin/dl"
PATH=$SCRATCH/.bin:$PATH
export PATH
# lib.sh reads these under run.sh's `set -u`
GOLDEN_CREATE=${GOLDEN_CREATE:-}
UPDATE_GOLDEN=${UPDATE_GOLDEN:-}

A=$TESTDATA/allocate
TP=$A/throughputs.csv
JOBS=$A/jobs.csv
CL=4:4:4
CAPS=v100=4,p100=4,k80=4
COSTS=v100=3.06,p100=1.46,k80=0.9
LP_POLICIES="max-min-fairness max-min-fairness-perf finish-time-fairness min-makespan max-throughput min-cost water-filling"

# the "lp objective" / "objective" values -v printed (stderr in $SCRATCH/err)
lp_obj() { sed -n 's/.*; lp objective \([^;]*\);.*/\1/p' "$SCRATCH/err"; }
obj() { sed -n 's/.*: objective \([^ ]*\) (.*/\1/p' "$SCRATCH/err"; }
# equal within a relative tolerance
close() { awk -v a="$1" -v b="$2" -v t="${3:-1e-7}" 'BEGIN {
	d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); if ((b < 0 ? -b : b) > m) m = (b < 0 ? -b : b)
	exit !(a != "" && b != "" && d <= t * (m > 1 ? m : 1)) }'; }

# Gavel's base constraints on an allocation: fractions in [0,1], each job's
# time <= 1, GPUs per type <= capacity (a pair's two rows use its GPUs once).
# check_alloc JOBS CAPS ALLOCATION -> "ok" or the first violation
check_alloc() {
	cols id,gpus "$1" | awk -F, -v caps="$2" '
	FNR == NR { if (FNR > 1) g[$1] = $2; next }
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		j = $(col["job"]); t = $(col["gpu_type"]); f = $(col["fraction"]) + 0
		p = ("partner" in col) ? $(col["partner"]) : ""
		if (f < 0 || f > 1 + 1e-9) bad = bad " fraction " j "=" f
		time[j] += f
		use[t] += (p == "") ? g[j] * f : g[j] * f / 2
		rows++
	}
	END {
		n = split(caps, a, ",")
		for (k = 1; k <= n; k++) {
			split(a[k], b, "=")
			if (use[b[1]] > b[2] * (1 + 1e-7) + 1e-7) bad = bad " capacity " b[1] "=" use[b[1]]
		}
		for (j in time) if (time[j] > 1 + 1e-7) bad = bad " time " j "=" time[j]
		if (!rows) bad = "no rows"
		print (bad == "" ? "ok" : bad)
	}' - "$3"
}

# ---- hand-solved tiny case (see tests/unit/test_alloc.c for the arithmetic) ----
run allocate_tiny 0 "dl allocate --cluster 1:0:1 -v $A/tiny.csv"
expect_eq "tiny max-min-fairness-perf objective 1" 1 "$(obj)"
run allocate_tiny_json 0 "dl allocate --cluster 1:0:1 -f json $A/tiny.csv"
for pe in max-min-fairness:1 max-throughput:5 min-makespan:100 finish-time-fairness:1; do
	run "allocate tiny ${pe%%:*}" 0 "dl allocate --cluster 1:0:1 -v --policy ${pe%%:*} $A/tiny.csv"
	expect "tiny ${pe%%:*} objective is ${pe#*:}" "close '$(obj)' ${pe#*:} 1e-6"
done

# ---- every policy: constraints hold ----
for p in $LP_POLICIES fifo fifo-perf isolated gandiva; do
	run "allocate $p" 0 "dl allocate --cluster $CL --costs $COSTS --throughputs $TP --policy $p $JOBS > a.csv"
	expect_eq "$p: constraints hold" ok "$(check_alloc "$JOBS" "$CAPS" "$SCRATCH/a.csv")"
	expect_eq "$p: one row per job and type" 31 "$(wc -l < "$SCRATCH/a.csv" | tr -d ' ')"
done
# fifo and the job that fits nowhere (#28.3): b needs 2 GPUs where 1 is left. By default it
# is passed over and c takes the GPU; with --head-of-line b stops the queue, as Gavel's
# FIFO (its policies/fifo.py, run on this input) gives a 1, b 0, c 0.
printf 'id,gpus,throughput_v100\na,1,1\nb,2,1\nc,1,1\n' > hol.csv
for p in fifo fifo-perf; do
	run "allocate $p passes over" 0 "dl allocate --policy $p --cluster 2:0:0 hol.csv"
	expect_eq "$p: c takes the GPU b cannot" "1 0 1" "$(cols fraction "$SCRATCH/out" | awk 'NR > 1 {printf "%s%s", (NR > 2 ? " " : ""), $1}')"
	run "allocate $p --head-of-line" 0 "dl allocate --policy $p --head-of-line --cluster 2:0:0 hol.csv"
	expect_eq "$p --head-of-line: b stops the queue (Gavel)" "1 0 0" "$(cols fraction "$SCRATCH/out" | awk 'NR > 1 {printf "%s%s", (NR > 2 ? " " : ""), $1}')"
done

for p in max-min-fairness-perf max-throughput gandiva; do
	for k in 1 2; do
		run "allocate $p --pack --partitions $k" 0 \
			"dl allocate --cluster 2:2:2 --throughputs $TP --pack --partitions $k --policy $p $JOBS > a.csv"
		expect_eq "$p packed, $k partitions: constraints hold" ok \
			"$(check_alloc "$JOBS" v100=2,p100=2,k80=2 "$SCRATCH/a.csv")"
		[ $p = max-throughput ] || expect "$p packed, $k partitions: some pair shares GPUs" \
			"cols partner,fraction a.csv | awk -F, 'NR > 1 && \$1 != \"\" && \$2 > 0' | grep -q ."
	done
done
run "allocate water-filling with entities" 0 \
	"dl allocate --cluster $CL --throughputs $TP --policy water-filling --entity-weights alice=2,bob=1 --entity-policy fifo $JOBS > a.csv"
expect_eq "water-filling with entities: constraints hold" ok "$(check_alloc "$JOBS" "$CAPS" "$SCRATCH/a.csv")"
sed '1s/entity$/user/' "$JOBS" > "$SCRATCH/users.csv"
run "allocate --entity-column user" 0 \
	"dl allocate --cluster $CL --throughputs $TP --policy water-filling --entity-weights alice=2,bob=1 --entity-policy fifo --entity-column user users.csv > b.csv"
expect "--entity-column user: the same allocation as the entity column" "cmp -s a.csv b.csv"
run "allocate without entities" 0 \
	"dl allocate --cluster $CL --throughputs $TP --policy water-filling --entity-weights alice=2,bob=1 --entity-policy fifo users.csv > c.csv"
expect "entities change water-filling's allocation" "! cmp -s a.csv c.csv"

# ---- the objective equals glpsol's on the model --dump-model wrote ----
if command -v glpsol > /dev/null 2>&1; then
	for p in $LP_POLICIES; do
		run "allocate $p --dump-model" 0 \
			"dl allocate -v --cluster $CL --costs $COSTS --throughputs $TP --policy $p --dump-model m.lp $JOBS > /dev/null"
		ours=$(lp_obj)
		glpsol --lp "$SCRATCH/m.lp" -o "$SCRATCH/sol.txt" > /dev/null 2>&1
		theirs=$(sed -n 's/^Objective: .* = \([^ ]*\) .*/\1/p' "$SCRATCH/sol.txt")
		expect "$p: lp objective $ours equals glpsol's $theirs" "close '$ours' '$theirs' 1e-8"
	done
	rm -f "$SCRATCH"/m.lp*
	run "allocate packed partitions --dump-model" 0 \
		"dl allocate -v --cluster 2:2:2 --throughputs $TP --pack --partitions 2 --dump-model m.lp $JOBS > /dev/null"
	expect "--partitions 2 writes one model per partition" "[ -s m.lp.1 ] && [ -s m.lp.2 ] && [ ! -e m.lp ]"
else
	skip "allocate vs glpsol" "glpsol (glpk-utils) not installed"
fi

# ---- shuffling the input rows does not change the objective ----
(head -1 "$JOBS"; tail -n +2 "$JOBS" | sort -r) > "$SCRATCH/shuffled.csv"
for p in $LP_POLICIES; do
	run "allocate $p" 0 "dl allocate -v --cluster $CL --costs $COSTS --throughputs $TP --policy $p $JOBS > /dev/null"
	a=$(obj)
	run "allocate $p shuffled" 0 "dl allocate -v --cluster $CL --costs $COSTS --throughputs $TP --policy $p shuffled.csv > /dev/null"
	b=$(obj)
	expect "$p: shuffled rows, same objective ($a, $b)" "close '$a' '$b' 1e-6"
done

# ---- identical GPU types: agnostic and aware agree ----
cols id,gpus,weight "$JOBS" | awk -F, 'NR == 1 { print "id,gpus,weight,throughput_v100,throughput_p100,throughput_k80"; next }
	{ v = (NR * 37 % 11) + 1; print $1 "," $2 "," $3 "," v "," v "," v }' > "$SCRATCH/same.csv"
run "allocate identical agnostic" 0 "dl allocate -v --cluster 1x2x2:v100,1x1x3:p100,1x1x4:k80 --policy max-min-fairness same.csv > /dev/null"
a=$(obj)
run "allocate identical aware" 0 "dl allocate -v --cluster 1x2x2:v100,1x1x3:p100,1x1x4:k80 --policy max-min-fairness-perf same.csv > /dev/null"
b=$(obj)
expect "identical types: agnostic $a == aware $b" "close '$a' '$b' 1e-9"
# and water-filling's first level is max-min's
run "allocate water-filling level" 0 "dl allocate -v --cluster $CL --throughputs $TP --policy water-filling $JOBS > /dev/null"
a=$(obj)
run "allocate max-min level" 0 "dl allocate -v --cluster $CL --throughputs $TP $JOBS > /dev/null"
expect "water-filling's minimum equals max-min-fairness-perf's" "close '$a' '$(obj)' 1e-6"

# ---- Gavel's throughputs JSON directly: same answer as the converted stream ----
run "allocate gavel json" 0 "dl allocate -v --cluster 1:1:1 --pack --throughputs $A/gavel_small.json $A/jobs_gavel.csv > a1.csv"
a=$(obj)
run "allocate gavel csv" 0 "dl allocate -v --cluster 1:1:1 --pack --throughputs $TP $A/jobs_gavel.csv > a2.csv"
expect "Gavel JSON and throughputs stream: same objective ($a)" "close '$a' '$(obj)' 1e-12"
expect "Gavel JSON and throughputs stream: same allocation" "cmp -s a1.csv a2.csv"

# ---- merging identical jobs is exact: same objective as one row per job ----
awk -F, 'NR == 1 { print; next } { for (k = 0; k < 4; k++) { $1 = $1 "_" k; print; sub(/_[0-9]$/, "", $1) } }' \
	OFS=, "$JOBS" > "$SCRATCH/dups.csv"
for p in $LP_POLICIES; do
	run "allocate $p merged" 0 "dl allocate -v --cluster $CL --throughputs $TP --policy $p dups.csv > a1.csv"
	a=$(obj)
	expect "$p: 40 jobs merged into 10 LP classes" "grep -q 'merged: 10 LP classes for 40 jobs' err"
	run "allocate $p --per-job" 0 "dl allocate -v --per-job --cluster $CL --throughputs $TP --policy $p dups.csv > a2.csv"
	expect "$p: merged objective $a equals per-job $(obj)" "close '$a' '$(obj)' 1e-6"
	expect_eq "$p merged: identical jobs get identical fractions" "" \
		"$(cols job,gpu_type,fraction "$SCRATCH/a1.csv" | awk -F, 'NR > 1 { k = $1; sub(/_[0-9]$/, "", k); v = $2 "," $3; if ((k, $2) in f && f[k, $2] != v) print $1; f[k, $2] = v }')"
	expect_eq "$p per-job: constraints hold" ok "$(check_alloc "$SCRATCH/dups.csv" "$CAPS" "$SCRATCH/a2.csv")"
	expect_eq "$p merged: constraints hold" ok "$(check_alloc "$SCRATCH/dups.csv" "$CAPS" "$SCRATCH/a1.csv")"
done

# ---- merged packing is Gavel's packed LP over every pair of jobs ----
# (--per-job with more partners than any job has is that LP as it is)
for p in max-min-fairness-perf max-throughput; do
	run "allocate $p --pack merged" 0 \
		"dl allocate -v --cluster 2:2:2 --throughputs $TP --pack --policy $p --dump-model m.lp dups.csv > a1.csv"
	a=$(obj)
	expect "$p --pack: merged into classes and pairs of classes" \
		"grep -q 'all pairs of jobs in [0-9]* pairs of classes' err && grep -q 'merged: 10 LP classes for 40 jobs' err"
	run "allocate $p --pack --per-job, every pair" 0 \
		"dl allocate -v --cluster 2:2:2 --throughputs $TP --pack --policy $p --per-job --pair-candidates 1000 dups.csv > a2.csv"
	expect "$p --pack: merged objective $a equals Gavel's per-job LP's $(obj)" "close '$a' '$(obj)' 1e-9"
	expect_eq "$p --pack merged: constraints hold" ok "$(check_alloc "$SCRATCH/dups.csv" v100=2,p100=2,k80=2 "$SCRATCH/a1.csv")"
	[ $p = max-throughput ] || expect "$p --pack merged: some pair shares GPUs" \
		"cols partner,fraction a1.csv | awk -F, 'NR > 1 && \$1 != \"\" && \$2 > 0' | grep -q ."
	if command -v glpsol > /dev/null 2>&1; then
		glpsol --lp "$SCRATCH/m.lp" -o "$SCRATCH/sol.txt" > /dev/null 2>&1
		theirs=$(sed -n 's/^Objective: .* = \([^ ]*\) .*/\1/p' "$SCRATCH/sol.txt")
		expect "$p --pack merged: objective $a equals glpsol's $theirs on the dumped model" \
			"close '$a' '$theirs' 1e-8"
	fi
done

# ---- water-filling keeps the allocations of the implementation before warm re-solves ----
# wf_*.expect.csv: allocate --per-job at e3bd307 (a level LP and a bottleneck MIP from
# scratch every round); wf_entities takes 5 rounds, wf_fifo 4. Same rows, fractions within
# 1e-9 (only the last digits of tiny values may move), and the expected files themselves
# satisfy the constraints.
same_alloc() { # EXPECTED GOT -> "ok" or the first difference (of job,gpu_type,fraction)
	cols job,gpu_type,fraction "$1" > "$SCRATCH/same_alloc.want" || return
	cols job,gpu_type,fraction "$2" | awk -F, 'FNR == NR { e[FNR] = $0; n = FNR; next }
	{
		split(e[FNR], x, ",")
		if (x[1] != $1 || x[2] != $2 || (x[3] - $3) > 1e-9 || ($3 - x[3]) > 1e-9) {
			if (bad == "") bad = "line " FNR ": " e[FNR] " vs " $0
		}
		got = FNR
	}
	END { if (got != n && bad == "") bad = got " lines, expected " n; print (bad == "" ? "ok" : bad) }' "$SCRATCH/same_alloc.want" -
}
run "allocate water-filling entities, 5 rounds" 0 \
	"dl allocate --per-job --policy water-filling --cluster 12:10:12 --throughputs $TP --entity-weights u0=3,u1=1,u2=2,u3=1 $A/wf_entities.csv > a.csv"
expect_eq "water-filling entities: the allocation before warm re-solves" ok \
	"$(same_alloc "$A/wf_entities.expect.csv" "$SCRATCH/a.csv")"
expect_eq "water-filling entities: the expected allocation is feasible" ok \
	"$(check_alloc "$A/wf_entities.csv" v100=12,p100=10,k80=12 "$A/wf_entities.expect.csv")"
run "allocate water-filling fifo entities, 4 rounds" 0 \
	"dl allocate --per-job --policy water-filling --cluster 2:2:1 --throughputs $TP --entity-weights alice=2,bob=1 --entity-policy fifo $JOBS > a.csv"
expect_eq "water-filling fifo: the allocation before warm re-solves" ok \
	"$(same_alloc "$A/wf_fifo.expect.csv" "$SCRATCH/a.csv")"
expect_eq "water-filling fifo: the expected allocation is feasible" ok \
	"$(check_alloc "$JOBS" v100=2,p100=2,k80=1 "$A/wf_fifo.expect.csv")"

# ---- determinism ----
for args in "--policy gandiva --pack" "--pack --partitions 3 --seed 5" "--policy fifo --seed 9"; do
	run "allocate $args (1)" 0 "dl allocate --cluster 2:2:2 --throughputs $TP $args $JOBS > a1.csv"
	run "allocate $args (2)" 0 "dl allocate --cluster 2:2:2 --throughputs $TP $args $JOBS > a2.csv"
	expect "$args: byte-identical output" "cmp -s a1.csv a2.csv"
done

# ---- no solution: exit 3 with the reason ----
printf 'id,gpus,throughput_k80,throughput_v100,steps,slo\nA,1,1,2,100,10\nB,1,1,4,400,\n' > "$SCRATCH/slo.csv"
run allocate_strict_slo 3 "dl allocate --cluster 1:0:1 --policy min-cost --costs k80=1,v100=2 --strict-slo slo.csv"
run allocate_slo_fallback 0 "dl allocate --cluster 1:0:1 --policy min-cost --costs k80=1,v100=2 slo.csv > /dev/null"
printf 'id,gpus,throughput_k80,throughput_v100\nA,1,0,0\n' > "$SCRATCH/stuck.csv"
run allocate_stuck 3 "dl allocate --cluster 1:0:1 stuck.csv"
run allocate_strict_slo_no_file 3 "dl allocate --cluster 1:0:1 --policy min-cost --costs k80=1,v100=2 --strict-slo -o out.csv slo.csv"
expect "no output file after exit 3" "[ ! -e out.csv ]"

# a solve that cannot finish in time: exit 3 naming the limit, no partial output
awk 'BEGIN { print "id,gpus,throughput_v100,throughput_p100,throughput_k80"
	for (i = 1; i <= 3000; i++) printf "j%d,%d,%d,%d,%d\n", i, 1 + i % 3, 7 + i % 13, 3 + i % 7, 1 + i % 5 }' \
	> "$SCRATCH/big.csv"
run allocate_time_limit 3 "dl allocate --cluster 300:300:300 --time-limit 0.001 -o out.csv big.csv"
expect "time limit: no output file" "[ ! -e out.csv ]"

# ---- bad input: exit 1 naming file and line ----
printf 'id,gpus,throughput_k80,throughput_v100\nA,1,1,2\nB,x,1,4\n' > "$SCRATCH/bad.csv"
run allocate_bad_gpus 1 "dl allocate --cluster 1:0:1 bad.csv"
printf 'id,gpus,model\nA,1,NoSuchModel\n' > "$SCRATCH/nomodel.csv"
run allocate_no_model 1 "dl allocate --cluster 1:0:1 --throughputs $TP nomodel.csv"
printf 'id,gpus,throughput_k80,throughput_v100\nA,1,1,2\nA,1,1,4\n' > "$SCRATCH/dup.csv"
run allocate_dup_id 1 "dl allocate --cluster 1:0:1 dup.csv"
printf 'model,gpu_type,gpus,throughput\nA3C,k80,1,-2\n' > "$SCRATCH/badtp.csv"
run allocate_bad_throughput 1 "dl allocate --cluster 1:0:1 --throughputs badtp.csv $JOBS"
printf 'id,gpus\nA,1\n' > "$SCRATCH/notp.csv"
run allocate_no_throughputs 1 "dl allocate --cluster 1:0:1 notp.csv"
printf 'id,gpus,throughput_k80,throughput_v100\nA,1,1,2e13\n' > "$SCRATCH/huge.csv"
run allocate_huge_throughput 1 "dl allocate --cluster 1:0:1 huge.csv"
run allocate_empty 0 "printf 'id,gpus,throughput_v100\n' | dl allocate --cluster 1:0:0"
run allocate_empty_input 0 "dl allocate --cluster 1:0:0 < /dev/null"

# ---- usage errors: exit 2 ----
run allocate_no_cluster 2 "dl allocate $A/tiny.csv"
run allocate_bad_policy 2 "dl allocate --cluster 1:0:1 --policy nope $A/tiny.csv"
run allocate_bad_cluster 2 "dl allocate --cluster 2x2 $A/tiny.csv"
run allocate_pack_needs_tp 2 "dl allocate --cluster 1:0:1 --pack $A/tiny.csv"
run_says allocate_pack_policy 2 "dl allocate --cluster 1:0:1 --throughputs $TP --pack --policy min-makespan $A/tiny.csv" \
	"dlsched allocate: --pack works with max-min-fairness-perf, max-throughput and gandiva, not min-makespan; see 'dlsched allocate --help'"
run allocate_dump_fifo 2 "dl allocate --cluster 1:0:1 --policy fifo --dump-model m.lp $A/tiny.csv"
# the cluster's built-in prices (a k80 step is cheaper) or --costs decide
printf 'id,gpus,throughput_k80,throughput_v100\nC,1,1,2\n' > "$SCRATCH/one.csv"
run "allocate min-cost cluster prices" 0 "dl allocate --cluster 1:0:1 --policy min-cost one.csv > a1.csv"
expect "min-cost with the cluster's prices: k80" "grep -q '^C,k80,1,' a1.csv"
run "allocate min-cost --costs" 0 "dl allocate --cluster 1:0:1 --policy min-cost --costs k80=100 one.csv > a2.csv"
expect "min-cost with --costs k80=100: v100" "grep -q '^C,v100,1,' a2.csv"
run allocate_bad_partitions 2 "dl allocate --cluster 1:0:1 --partitions 0 $A/tiny.csv"
run allocate_bad_seed 2 "dl allocate --cluster 1:0:1 --seed -1 $A/tiny.csv"
run allocate_bad_entity_policy 2 "dl allocate --cluster 1:0:1 --entity-policy lottery $A/tiny.csv"
run allocate_strict_slo_policy 2 "dl allocate --cluster 1:0:1 --strict-slo $A/tiny.csv"
run allocate_two_inputs 2 "dl allocate --cluster 1:0:1 $A/tiny.csv $A/tiny.csv"
run allocate_bad_costs 2 "dl allocate --cluster 1:0:1 --policy min-cost --costs k80=1,h100=2 $A/tiny.csv"

# ---- stdout carries only data, also with GLPK's log (-vv) ----
run "allocate -vv" 0 "dl allocate -vv --cluster $CL --throughputs $TP $JOBS > a.csv"
expect "-vv: GLPK's log is on stderr" "grep -q '^\[glpk\] ' err"
expect "-vv: stdout is the CSV only" "[ \"\$(awk -F, 'NF != 4' a.csv | wc -l)\" -eq 0 ] && [ \"\$(wc -l < a.csv)\" -eq 31 ]"
run "allocate | head -1" 0 "dl allocate --cluster $CL --throughputs $TP $JOBS | head -1"
expect_eq "allocate | head -1: no error text" "" "$(cat "$SCRATCH/err")"

# ---- every long option is in the man page (its option list is generated: build/man) ----
if heavy && [ -f "$BUILD/man/dlsched-allocate.1.scd" ]; then
	missing=$(dl allocate --list-options | cut -f1 | while read -r o; do
		grep -q -- "$o" "$BUILD/man/dlsched-allocate.1.scd" || printf '%s ' "$o"; done)
	expect_eq "allocate: every option in dlsched-allocate(1)" "" "$missing"
fi
