# t_place.sh: dlsched place: policies, network cost, --used, errors
P=$TESTDATA/place

run place_consolidate 0 "dl place -c 2x2x8:v100,1x2x4:k80 $P/jobs.csv"
run place_spread 0 "dl place -c 2x2x8:v100,1x2x4:k80 -P spread $P/jobs.csv"
run place_dally 0 "dl place -c 2x4x4 -P dally --now 300 $P/queue.csv"
run place_profiles 0 "dl place -c 2x2x8 -P spread --profiles $P/profiles.csv --comm ps $P/queue.csv"
run place_used 0 "dl place -c 2x2x8 --used $P/used.csv $P/queue.csv"
# JSON: what a rejected job does not have is null, not ""
run place_json_null 0 "dl place -c 1x1x2 -f json $P/queue.csv | head -1"
expect_eq place_json_null_row '{"id":"q1","gpus":16,"gpu_type":null,"nodes":null,"racks":null,"tier":null,"slowdown":null,"placement":null,"decision":"reject","reason":"needs more GPUs than the cluster has"}' "$(cat "$SCRATCH/out")"
run place_json 0 "dl place -c 1x2x8 -f json $P/queue.csv"
expect place_json_keys 'head -1 out | grep -q "^{\"id\":\"q1\",\"gpus\":16,\"gpu_type\":\"v100\",\"nodes\":2,\"racks\":1,\"tier\":\"rack\",\"slowdown\":1,"'

# every policy runs, places every job of the queue on a big cluster, and is deterministic
for pol in first-fit consolidate spread random tiresias gandiva dally; do
	run "place_policy_$pol" 0 "dl place -c 4x8x8 -P $pol --rack-delay 0 --network-delay 0 $P/queue.csv > a && dl place -c 4x8x8 -P $pol --rack-delay 0 --network-delay 0 $P/queue.csv > b && cmp a b && cat a"
	expect "place_policy_${pol}_all_placed" 'test $(grep -c ",placed,$" out) -eq 5'
done
# seeds matter for random
run place_random_seed 0 "dl place -c 4x8x8 -P random -s 1 $P/queue.csv > a && dl place -c 4x8x8 -P random -s 2 $P/queue.csv > b && ! cmp -s a b"

# the network cost: one node is 1; across racks VGG slows more than ResNet-50
run place_slowdown 0 "printf 'id,submit,gpus,duration,model\nv,0,8,1,vgg16\nr,0,8,1,resnet50\n' | dl place -c 2x8x1 -P spread"
expect place_slowdown_order "cols slowdown out -e 'NR==2{v=\$1} NR==3{r=\$1} END{exit !(v > r && r > 1)}'"
run place_slowdown_node 0 "printf 'id,submit,gpus,duration,model\nv,0,8,1,vgg16\n' | dl place -c 1x1x8"
expect place_slowdown_node_is_1 "test \"\$(cols slowdown out | tail -1)\" = 1"

# a job larger than the cluster is rejected with its reason; the queue goes on
run place_reject 0 "printf 'id,submit,gpus,duration\nbig,0,99,1\nsmall,0,1,1\n' | dl place -c 1x2x4"
expect_eq place_reject_rows 'big,99,,,,,,,reject,needs more GPUs than the cluster has
small,1,v100,1,1,node,1,r0n0:0,placed,' "$(tail -2 "$SCRATCH/out")"

# --used takes a previous placements stream (only placed rows hold GPUs)
run place_used_chain 0 "dl place -c 1x2x8 $P/queue.csv > p1 && dl place -c 1x2x8 --used p1 $P/queue.csv"
expect place_used_chain_full 'test $(grep -c ",placed,$" out) -eq 0'

# bad input: file:line errors, exit 1, no output file
run_says place_bad_type 1 "dl place -c 1x2x8 $P/jobs_badtype.csv -o out.csv" \
	"dlsched place: $P/jobs_badtype.csv:3: unknown GPU type 'x9000'"
expect place_bad_type_no_file '! test -e out.csv'
run_says place_overlap 1 "dl place -c 2x2x8 --used $P/used_overlap.csv $P/queue.csv" \
	"dlsched place: $P/used_overlap.csv:4: GPU r0n0:2 is already used (line 2): overlapping entries"
run_says place_used_bad_node 1 "printf 'node\nr9n9\n' > u.csv && dl place -c 1x2x8 --used u.csv $P/queue.csv" \
	"dlsched place: u.csv:2: unknown node 'r9n9'"
run place_used_bad_slot 1 "printf 'node,gpus\nr0n0,8\n' > u.csv && dl place -c 1x2x8 --used u.csv $P/queue.csv"
run place_bad_gpus 1 "printf 'id,submit,gpus,duration\na,0,x,1\n' | dl place -c 1x1x1"
expect place_bad_gpus_line "grep -q '<stdin>:2: bad gpus value' err"
run place_bad_profiles 1 "dl place -c 1x1x8 -p $P/profiles_bad.csv $P/queue.csv"
expect place_bad_profiles_line "grep -q 'profiles_bad.csv:3: bad sensitivity' err"
run place_unknown_model 0 "printf 'id,submit,gpus,duration,model\na,0,1,1,mystery\nb,0,1,1,mystery\n' | dl place -c 1x1x8"
expect_eq place_unknown_model_warn "dlsched place: warning: <stdin>:2: no profile for model 'mystery'; costed as 'resnet50'" "$(cat "$SCRATCH/err")"
run place_no_cluster 2 "dl place $P/queue.csv"
run place_bad_policy 2 "dl place -c 1x1x8 -P best $P/queue.csv"
run place_bad_comm 2 "dl place -c 1x1x8 --comm mpi $P/queue.csv"
run place_bad_cluster 2 "dl place -c 1x1x8:nope $P/queue.csv"
# a JSON Lines placements stream works as --used too
run place_used_json 0 "dl place -c 1x2x8 -f json $P/queue.csv > p1.jsonl && dl place -c 1x2x8 --used p1.jsonl $P/queue.csv"
expect place_used_json_full 'test $(grep -c ",placed,$" out) -eq 0'
run place_used_partial 0 "printf 'node,gpus\nr0n0,0-6\nr0n1,1-7\n' > u.csv && printf 'id,submit,gpus,duration\na,0,2,1\nb,0,1,1\nc,0,1,1\n' | dl place -c 1x2x8 --used u.csv"
expect_eq place_used_partial_rows 'a,2,v100,2,1,rack,1.08394,r0n0:7;r0n1:0,placed,
b,1,,,,,,,wait,not enough free GPUs
c,1,,,,,,,wait,not enough free GPUs' "$(tail -3 "$SCRATCH/out")"

# --congestion (#18.2): a tier's bandwidth divided. Three spellings of one network give one
# answer: the option, the JSON spec's "congestion" and the divided links themselves.
printf 'id,submit,gpus,duration,model\na,0,8,100,vgg16\nb,0,4,100,alexnet\nc,0,2,100,resnet50\n' > "$SCRATCH/cj.csv"
printf '{"shorthand": "2x2x4", "congestion": {"rack": 2, "cluster": 4}}\n' > "$SCRATCH/cong.json"
printf '{"shorthand": "2x2x4", "links": {"rack": {"bandwidth_gbps": 50, "latency_us": 10}, "cluster": {"bandwidth_gbps": 6.25, "latency_us": 30}}}\n' > "$SCRATCH/divided.json"
run place_congestion_opt 0 "dl place -c 2x2x4 -P spread --congestion rack=2,cluster=4 cj.csv"
cp "$SCRATCH/out" "$SCRATCH/cong_opt.csv"
run place_congestion_json 0 "dl place -c cong.json -P spread cj.csv"
expect place_congestion_json_same "cmp -s out cong_opt.csv"
run place_congestion_links 0 "dl place -c divided.json -P spread cj.csv"
expect place_congestion_links_same "cmp -s out cong_opt.csv"
run place_congestion_none 0 "dl place -c 2x2x4 -P spread cj.csv"
expect place_congestion_differs "! cmp -s out cong_opt.csv"
# the option replaces the spec's divisor for the tiers it names (rack stays 2 from the file)
run place_congestion_override 0 "dl place -c cong.json -P spread --congestion cluster=4 cj.csv"
expect place_congestion_override_same "cmp -s out cong_opt.csv"
# slowdowns scale as the netcost formulas say: vgg16 on 8 GPUs across racks against its rack
# placement, ring all-reduce, bandwidth 25/4 Gb/s and 100 Gb/s (latencies 30 and 10 us)
run place_congestion_formula 0 "dl place -c 2x2x4 -P spread --congestion cluster=4 cj.csv"
expect_eq place_congestion_formula_value \
	"$(awk 'BEGIN { B = 553430176; c = 0.133; f = 7 / 8
		x = c + 2 * f * B / (25 / 4 * 1e9 / 8) + 14 * 30e-6
		y = c + 2 * f * B / (100 * 1e9 / 8) + 14 * 10e-6
		printf "%.5f", x / y }')" \
	"$(cols id,slowdown "$SCRATCH/out" | awk -F, '$1 == "a" { printf "%.5f", $2 }')"
# the rack tier divided below the cluster tier's bandwidth makes it the bottleneck of both:
# spreading across racks then costs nothing more than the rack placement it is compared with
run place_congestion_bottleneck 0 "dl place -c 2x2x4 -P spread --congestion rack=8 cj.csv"
expect_eq place_congestion_bottleneck_a "cluster,1.00037" "$(cols id,tier,slowdown "$SCRATCH/out" | awk -F, '$1 == "a" { print $2 "," $3 }')"
run_says place_congestion_bad_tier 2 "dl place -c 2x2x4 --congestion spine=2 cj.csv" \
	"dlsched place: bad --congestion value 'spine=2' (TIER=DIVISOR[,...] with tiers node, rack, cluster (each once) and divisors >= 1)"
run place_congestion_below_one 2 "dl place -c 2x2x4 --congestion rack=0.5 cj.csv"
run place_congestion_empty 2 "dl place -c 2x2x4 --congestion rack= cj.csv"
run place_congestion_json_bad 1 "printf '{\"shorthand\": \"1x2x4\", \"congestion\": {\"spine\": 2}}' > b.json && dl place -c b.json cj.csv"
expect place_congestion_json_bad_msg "grep -q \"congestion: unknown key 'spine'\" err"
run place_congestion_json_low 1 "printf '{\"shorthand\": \"1x2x4\", \"congestion\": {\"rack\": 0.5}}' > b.json && dl place -c b.json cj.csv"
run cluster_show_congestion 0 "dl cluster show cong.json"
expect cluster_show_congestion_line "grep -q 'cluster        25 Gb/s     30 us  congested /4: 6.25 Gb/s' out"
