# t_simulate_progress.sh: every policy makes progress (issue 29), as a property: on
# overloaded generated traces, with short quanta, leases and rounds, under every placement,
# each run ends (within a generous timeout, so that a livelock fails fast instead of
# hanging the suite), every job finishes, and no job's jct exceeds the trace's serial
# bound: its span (last submit - first submit) plus the sum of its durations, the time the
# jobs would take run one after another after the last arrival (dlsched-simulate(1),
# POLICIES, Progress).
# Results columns: 7 jct, 18 rejected.

# "policy and options" per line: the shortest periods the usage checks allow with the
# default costs (swaps cost 5 + 10 s; dally's 1-GPU swap 5 + 1 s), and MLFQ limits that
# demote and promote often
POLICIES='fifo
fifo-backfill
sjf
srtf
las --quantum 20
las --quantum 0
tiresias-las --thresholds 200,800 --starvation 2
tiresias-gittins --thresholds 200,800 --starvation 2
gavel --round 16
gavel --round 16 --mechanism exact
gandiva --quantum 1
gandiva --quantum 1 --slice fluid
themis --lease 16
dally --lease 7'
PLACES='first-fit consolidate spread random tiresias gandiva dally'

# the serial bound of trace $1
serial_bound() { cols submit,duration "$1" | awk -F, 'NR == 2 { f = $1 } NR > 1 { s += $2; l = $1 } END { printf "%.6f", l - f + s }'; }

# run policy $1 (with its options) under placement $2 on trace $3 of $4 jobs on cluster
# $5; prints nothing when the property holds, else what broke
check_run() {
	_out=$(cd "$SCRATCH" && timeout 120 "$DLSCHED" simulate -q --cluster "$5" --policy $1 \
		--place "$2" "$3" 2> "$SCRATCH/prop.err")
	_rc=$?
	if [ "$_rc" != 0 ]; then
		echo "$1 / $2 / $3: exit $_rc: $(head -c 300 "$SCRATCH/prop.err")"
		return
	fi
	printf '%s\n' "$_out" | cols id,rejected,jct |
		awk -F, -v n="$4" -v b="$(serial_bound "$SCRATCH/$3")" -v what="$1 / $2 / $3" '
		NR > 1 { k++; if ($2 != "") bad = bad " " $1 " rejected (" $2 ")"; if ($3 > m) { m = $3; who = $1 } }
		END {
			if (k != n) print what ": " k " rows of " n
			else if (bad != "") print what ":" bad
			else if (m > b) print what ": job " who " jct " m " over the serial bound " b
		}'
}

if heavy; then
	dl trace gen -q --seed 1 --jobs 120 --load 2.5 --cluster 2x2x4 > "$SCRATCH/p1.csv"
	dl trace gen -q --seed 2 --jobs 120 --load 2.5 --cluster 2x2x4 > "$SCRATCH/p2.csv"
	printf '%s\n' "$POLICIES" | while IFS= read -r pol; do
		name=$(printf '%s' "$pol" | tr -c 'a-z0-9' _)
		: > "$SCRATCH/broke"
		places=$PLACES
		case $pol in dally*) places=dally ;; esac # it places jobs itself
		for pl in $places; do
			for t in p1.csv p2.csv; do
				check_run "$pol" "$pl" "$t" 120 2x2x4 >> "$SCRATCH/broke"
			done
		done
		expect_eq "progress_$name" "" "$(cat "$SCRATCH/broke")"
	done
	# issue 29's las reproducer: 5000 jobs at load 3 on one 8-GPU node, 5 s quanta (ran
	# for ever before las kept each start through its restore and a quantum)
	dl trace gen -q --seed 1 --jobs 5000 --load 3 --cluster 1x1x8 > "$SCRATCH/las3.csv"
	: > "$SCRATCH/broke"
	check_run "las --quantum 5" consolidate las3.csv 5000 1x1x8 >> "$SCRATCH/broke"
	expect_eq progress_las_overload "" "$(cat "$SCRATCH/broke")"
else
	# the sanitizer build: every policy once, on one smaller trace, default placement
	dl trace gen -q --seed 1 --jobs 40 --load 2.5 --cluster 2x2x4 > "$SCRATCH/p1.csv"
	printf '%s\n' "$POLICIES" | while IFS= read -r pol; do
		name=$(printf '%s' "$pol" | tr -c 'a-z0-9' _)
		check_run "$pol" consolidate p1.csv 40 2x2x4 > "$SCRATCH/broke"
		expect_eq "progress_$name" "" "$(cat "$SCRATCH/broke")"
	done
fi
