# t_prioritize.sh: dlsched prioritize, policies, options and bad input
# inputs by relative name (the working directory is $SCRATCH) so that error
# messages in the golden files do not depend on where the tree is
for f in queue.csv yarn-gput1000.csv history.csv bad_negative.csv; do
	cp "$TESTDATA/prioritize/$f" "$SCRATCH/$f"
done
Q=queue.csv
Y=yarn-gput1000.csv

run prioritize_fifo 0 "dl prioritize --policy fifo $Q"
run prioritize_sjf 0 "dl prioritize -p sjf $Q"
run prioritize_srtf 0 "dl prioritize -p srtf $Q"
run prioritize_las 0 "dl prioritize -p las $Q"
run prioritize_2d_las_mlfq 0 "dl prioritize -p 2d-las --thresholds 3250,7200 --starvation 1.5 $Q"
run prioritize_2d_gittins 0 "dl prioritize -p 2d-gittins --distribution $Y --queues 3 $Q"
run prioritize_ftf 0 "dl prioritize -p ftf --now 100 --cluster-gpus 8 -f json $Q"

# the Gittins values are the reference simulator's (Tiresias simulator/jobs.py under
# Python 2, lib/policy/gittins.h)
run prioritize_gittins_ref 0 "printf 'id,submit,executed\n1,0,0\n2,0,120\n3,0,3250\n4,0,10000\n5,0,121\n' | dl prioritize -p gittins --distribution $Y"
expect_eq prioritize_gittins_values "299.701 299.701 299.2165 87.4493 29.9396" \
	"$(cols priority "$SCRATCH/out" | tail -n +2 | tr '\n' ' ' | sed 's/ $//')"

# Tiresias' discretised LAS is FIFO inside each queue: las and fifo with the same queues agree
run prioritize_fifo_queues 0 "dl prioritize -p fifo --thresholds 500,5000 $Q | cols id,rank,queue"
dl prioritize -p las --thresholds 500,5000 "$Q" | cols id,rank,queue > "$SCRATCH/las_q"
expect prioritize_fifo_las_queues 'cmp -s las_q out'
run prioritize_srtf_queues 0 "dl prioritize -p srtf --queues 2 --thresholds 1000 $Q"

# learned from the completed jobs of a trace (h5 failed and h8 running do not count)
run prioritize_learn 0 "dl prioritize -p 2d-gittins --learn-from history.csv --delta 1000 --gittins-arith exact $Q"

# ties: the same order whatever the input order (reverse the rows)
run prioritize_rev 0 "{ head -1 $Q; tail -n +2 $Q | sort -r; } | dl prioritize -p las"
dl prioritize -p las "$Q" > "$SCRATCH/fwd"
expect prioritize_ties_input_order 'cmp -s fwd out'

# JSON Lines in, same order as CSV in; priorities round-trip
dl cat -f json "$Q" > "$SCRATCH/q.jsonl"
run prioritize_json_in 0 "dl prioritize -p 2d-las q.jsonl | dl cat"
dl prioritize -p 2d-las "$Q" > "$SCRATCH/csv_out"
expect prioritize_json_same 'cmp -s csv_out out'

# re-prioritizing the output replaces rank, queue and priority instead of adding more
run prioritize_again 0 "dl prioritize -p fifo $Q | dl prioritize -p sjf"
expect prioritize_again_cols 'head -1 out | grep -qx "id,submit,gpus,duration,executed,waiting,model,rank,queue,priority"'
dl prioritize -p sjf "$Q" > "$SCRATCH/sjf"
expect prioritize_again_same 'cmp -s sjf out'

# weights
printf 'id,submit,executed,weight\n1,0,100,1\n2,1,300,4\n3,2,200,1\n' > "$SCRATCH/w.csv"
run prioritize_weights 0 "dl prioritize -p las --weights w.csv"
expect_eq prioritize_weights_order "2 1 3" "$(cols id "$SCRATCH/out" | tail -n +2 | tr '\n' ' ' | sed 's/ $//')"

# bad input: the column and the policy that needs it; file:line; nothing written with -o
run prioritize_missing_executed 1 "dl prioritize -p las history.csv"
run prioritize_missing_attained 1 "printf 'id,submit,gpus\n1,0,1\n' | dl prioritize -p 2d-las"
run prioritize_missing_waiting 1 "printf 'id,submit,executed\n1,0,5\n' | dl prioritize -p las --queues 2 --starvation 2"
run prioritize_missing_weight 1 "dl prioritize -p fifo --weights $Q"
run prioritize_negative 1 "dl prioritize -p las -o out.csv bad_negative.csv"
expect prioritize_negative_no_file '[ ! -e out.csv ]'
run prioritize_after_now 1 "dl prioritize -p las --now 20 $Q"
run prioritize_executed_gt_duration 1 "printf 'id,submit,duration,executed\n1,0,10,20\n' | dl prioritize -p srtf"
run prioritize_bad_weight 1 "printf 'id,submit,weight\n1,0,0\n' | dl prioritize -p fifo --weights"
run prioritize_dist_missing 1 "dl prioritize -p gittins --distribution nosuch.csv $Q"

# usage errors
run prioritize_no_policy 2 "dl prioritize $Q"
run prioritize_bad_policy 2 "dl prioritize -p tiresias $Q"
run prioritize_ftf_queues 2 "dl prioritize -p ftf --now 100 --queues 3 $Q"
run prioritize_thresholds_count 2 "dl prioritize -p las --queues 3 --thresholds 10 $Q"
run prioritize_thresholds_order 2 "dl prioritize -p las --thresholds 10,5 $Q"
run prioritize_gittins_nodist 2 "dl prioritize -p gittins $Q"
run prioritize_ftf_now 2 "dl prioritize -p ftf $Q"
run prioritize_starve_one_queue 2 "dl prioritize -p las --starvation 2 $Q"

# an empty queue still has a header
run prioritize_empty 0 "printf 'id,submit\n' | dl prioritize -p fifo"
expect_eq prioritize_empty_header "id,submit,rank,queue,priority" "$(cat "$SCRATCH/out")"

# a negative submit time is bad input like any negative time
run prioritize_negative_submit 1 "printf 'id,submit\n1,-1\n' | dl prioritize -p fifo"
