# t_simulate_gavel.sh: per-model heterogeneity in the engine (simulate --throughputs,
# #15.1). Every expected value below is computed by hand from testdata/simulate/tputs.csv.
# shellcheck shell=sh
S=$TESTDATA/simulate
TP=$S/tputs.csv
Z='--checkpoint-cost 0 --restore-cost 0'

# model m does 4 steps/s on a v100 (the reference) and 1 on a k80: 100 s of v100 work
# take 400 s on a k80 (its flat speed 0.3 would give 333.333333)
printf 'id,submit,gpus,duration,model\na,0,1,100,m\n' > one.csv
run sim_tput_k80 0 "dl simulate --cluster 1x1x1:k80 --policy fifo --throughputs '$TP' one.csv"
expect_eq sim_tput_k80_row "a,0,1,100,0,400,400,0,400,0,0,node,1,k80,fifo," "$(sed -n 2p out)"
run sim_tput_flat_k80 0 "dl simulate --cluster 1x1x1:k80 --policy fifo one.csv"
expect_eq sim_tput_flat_k80_row "a,0,1,100,0,333.333333,333.333333,0,333.333333,0,0,node,1,k80,fifo," "$(sed -n 2p out)"
# the reference type may be another one: on k80 terms the v100 is 4x as fast
run sim_tput_reference 0 "dl simulate --cluster 1x1x1:v100 --policy fifo --throughputs '$TP' --gpu-type k80 one.csv"
expect_eq sim_tput_reference_row "a,0,1,100,0,25,25,0,25,0,0,node,1,v100,fifo," "$(sed -n 2p out)"

# a throughput of 0 (2 GPUs of k80): the job goes to the v100s although the k80s come
# first and are free; the event log names the type of every start
printf 'id,submit,gpus,duration,model\nw,0,2,100,m\n' > two.csv
run sim_tput_zero_skipped 0 "dl simulate --cluster 1x1x2:k80,1x1x2:v100 --policy fifo \
	--throughputs '$TP' --events ev.jsonl two.csv"
expect_eq sim_tput_zero_skipped_row "w,0,2,100,0,100,100,0,100,0,0,node,1,v100,fifo," "$(sed -n 2p out)"
expect sim_tput_events_type 'grep -q "\"event\":\"start\",\"gpus\":2,\"placement\":\"r1n0:0-1\",\"detail\":\"v100\"" ev.jsonl'
# only k80s: rejected with its reason, the run goes on
run sim_tput_zero_rejected 0 "dl simulate --cluster 1x1x2:k80 --policy fifo --throughputs '$TP' two.csv"
expect sim_tput_zero_rejected_reason 'grep -q "^w,0,2,100,.*,its throughput is 0 on every GPU type with room for it$" out'

# spread over two nodes: the table's v100_unconsolidated (4 steps/s against 8) is the
# cost: 200 s, slowdown 2
run sim_tput_spread 0 "dl simulate --cluster 1x2x1:v100 --policy fifo --throughputs '$TP' two.csv"
expect_eq sim_tput_spread_row "w,0,2,100,0,200,200,0,200,0,0,rack,2,v100,fifo," "$(sed -n 2p out)"

# models without an entry run at the type's speed, with one warning naming them
printf 'id,submit,gpus,duration,model\na,0,1,100,m\nb,0,1,100,zz\nc,0,1,100,zz\nd,0,1,100,\n' > miss.csv
run sim_tput_missing 0 "dl simulate --cluster 1x1x4:k80 --policy fifo --throughputs '$TP' miss.csv"
expect_eq sim_tput_missing_warning "dlsched simulate: warning: 3 jobs ran at their GPU types' speeds for want of an entry in $TP (models 'zz')" "$(cat err)"
expect sim_tput_missing_rows 'grep -q "^b,0,1,100,0,333.333333," out && grep -q "^a,0,1,100,0,400," out'

# Gavel's own JSON is read as well (as allocate and trace import read it)
run sim_tput_gavel_json 0 "printf 'id,submit,gpus,duration,model\nr,0,1,100,ResNet-18 (batch size 64)\n' |
	dl simulate --cluster 1x1x1:k80 --policy fifo --throughputs '$TESTDATA/trace/gavel_throughputs_small.json'"
expect sim_tput_gavel_json_slower 'awk -F, "NR==2{exit !(\$6 > 100 && \$14 == \"k80\")}" out'
run sim_tput_bad_file 1 "dl simulate --cluster 1x1x1 --throughputs /nonexistent one.csv"
