# t_ids.sh: job ids are unique in every command that keys jobs by id (simulate, prioritize,
# place, allocate), through one check (dl_idset): the error names both lines, exits 1, and
# -o leaves no file. CSV and JSON Lines count physical lines the same way.
GOLDEN_CREATE=${GOLDEN_CREATE:-} UPDATE_GOLDEN=${UPDATE_GOLDEN:-}

# 'a' on lines 2 and 7; 'b' and 'b2', 'c' and 'c ' (quoted, a different id) are distinct
printf 'id,submit,gpus,duration\na,0,1,10\nb,1,1,10\n"c ",2,2,5\nc,3,1,10\nb2,4,1,10\na,5,1,1\nb,6,1,1\n' > dup.csv
cmds="simulate:--cluster=1x1x8 prioritize:--policy=fifo place:--cluster=1x1x8"
for c in $cmds; do
	cmd=${c%%:*} opt=$(echo "${c#*:}" | tr = ' ')
	# shellcheck disable=SC2086 # opt is two words
	run "ids_dup_$cmd" 1 "dl $cmd $opt -o o.csv dup.csv"
	expect_eq "ids_dup_${cmd}_msg" "dlsched $cmd: dup.csv:7: duplicate id 'a' (first on line 2)" "$(cat "$SCRATCH/err")"
	expect "ids_dup_${cmd}_no_output" '[ ! -e o.csv ]'
done
# allocate reads its own columns (throughputs per type); the same check, the same message
printf 'id,gpus,throughput_k80,throughput_v100\nx,1,1,2\ny,1,1,2\nz,1,1,2\ny,1,1,4\n' > dupa.csv
run_says ids_dup_allocate 1 "dl allocate --cluster 1:0:1 -o o.csv dupa.csv" \
	"dlsched allocate: dupa.csv:5: duplicate id 'y' (first on line 3)"
expect ids_dup_allocate_no_output '[ ! -e o.csv ]'

# JSON Lines: one object per line, blank lines counted
printf '{"id":"j1","submit":0,"gpus":1,"duration":5}\n\n{"id":"j2","submit":1,"gpus":1,"duration":5}\n{"id":"j1","submit":2,"gpus":1,"duration":5}\n' > dup.jsonl
for c in $cmds; do
	cmd=${c%%:*} opt=$(echo "${c#*:}" | tr = ' ')
	# shellcheck disable=SC2086
	run "ids_dup_json_$cmd" 1 "dl $cmd $opt dup.jsonl"
	expect_eq "ids_dup_json_${cmd}_msg" "dlsched $cmd: dup.jsonl:4: duplicate id 'j1' (first on line 1)" "$(cat "$SCRATCH/err")"
done

# ids that differ only by case, blanks inside quotes or a prefix are different jobs
printf 'id,submit,gpus,duration\nA,0,1,10\na,0,1,10\n"a b",0,1,10\nab,0,1,10\n' > distinct.csv
for c in $cmds; do
	cmd=${c%%:*} opt=$(echo "${c#*:}" | tr = ' ')
	# shellcheck disable=SC2086
	run "ids_distinct_$cmd" 0 "dl $cmd $opt distinct.csv > o.csv"
	expect "ids_distinct_${cmd}_rows" '[ "$(wc -l < o.csv)" -eq 5 ]'
done

# simulate --compat tiresias keeps the reference's behaviour: it prints job_id, keys nothing
# by it, and its bundled traces are what they are (ids are not checked there)
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,10\n1,1,5,10\n' > tdup.csv
run ids_compat_tiresias_unchecked 0 "dl simulate --compat tiresias --place count --policy fifo tdup.csv > o.csv"
expect ids_compat_tiresias_rows '[ "$(wc -l < o.csv)" -eq 3 ]'

# the first error in input order wins, whichever kind it is (simulate checks ids in batches)
printf 'id,submit,gpus,duration\na,0,1,10\na,1,1,10\nb,x,1,5\n' > dup_then_bad.csv
printf 'id,submit,gpus,duration\na,0,1,10\nb,x,1,10\na,2,1,5\n' > bad_then_dup.csv
for c in $cmds; do
	cmd=${c%%:*} opt=$(echo "${c#*:}" | tr = ' ')
	# shellcheck disable=SC2086
	run "ids_dup_then_bad_$cmd" 1 "dl $cmd $opt dup_then_bad.csv"
	expect_eq "ids_dup_then_bad_${cmd}_msg" "dlsched $cmd: dup_then_bad.csv:3: duplicate id 'a' (first on line 2)" "$(cat "$SCRATCH/err")"
	# shellcheck disable=SC2086
	run "ids_bad_then_dup_$cmd" 1 "dl $cmd $opt bad_then_dup.csv"
	expect "ids_bad_then_dup_${cmd}_msg" "grep -q 'bad_then_dup.csv:3: bad submit' err"
done
# a repeat far into a long trace (past the first batches) is still found, with both lines
awk 'BEGIN { print "id,submit,gpus,duration"; for (i = 0; i < 5000; i++) print "j" i "," i ",1,10"; print "j1234,5000,1,10" }' > long_dup.csv
run_says ids_dup_long 1 "dl simulate --cluster 1x1x8 long_dup.csv" \
	"dlsched simulate: long_dup.csv:5002: duplicate id 'j1234' (first on line 1236)"
