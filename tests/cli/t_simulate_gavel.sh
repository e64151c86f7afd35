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
expect_eq sim_tput_k80_row "a,0,1,100,0,400,400,0,400,0,0,node,1,k80,fifo,4,0,,400" "$(sed -n 2p out)"
run sim_tput_flat_k80 0 "dl simulate --cluster 1x1x1:k80 --policy fifo one.csv"
expect_eq sim_tput_flat_k80_row "a,0,1,100,0,333.333333,333.333333,0,333.333333,0,0,node,1,k80,fifo,3.333333,0,,333.333333" "$(sed -n 2p out)"
# the reference type may be another one: on k80 terms the v100 is 4x as fast
run sim_tput_reference 0 "dl simulate --cluster 1x1x1:v100 --policy fifo --throughputs '$TP' --gpu-type k80 one.csv"
expect_eq sim_tput_reference_row "a,0,1,100,0,25,25,0,25,0,0,node,1,v100,fifo,0.25,0,,25" "$(sed -n 2p out)"

# a throughput of 0 (2 GPUs of k80): the job goes to the v100s although the k80s come
# first and are free; the event log names the type of every start
printf 'id,submit,gpus,duration,model\nw,0,2,100,m\n' > two.csv
run sim_tput_zero_skipped 0 "dl simulate --cluster 1x1x2:k80,1x1x2:v100 --policy fifo \
	--throughputs '$TP' --events ev.jsonl two.csv"
expect_eq sim_tput_zero_skipped_row "w,0,2,100,0,100,100,0,100,0,0,node,1,v100,fifo,1,0,,200" "$(sed -n 2p out)"
expect sim_tput_events_type 'grep -q "\"event\":\"start\",\"gpus\":2,\"placement\":\"r1n0:0-1\",\"detail\":\"v100\"" ev.jsonl'
# only k80s: rejected with its reason, the run goes on
run sim_tput_zero_rejected 0 "dl simulate --cluster 1x1x2:k80 --policy fifo --throughputs '$TP' two.csv"
expect sim_tput_zero_rejected_reason 'grep -q "^w,0,2,100,.*,its throughput is 0 on every GPU type with room for it,$" out'

# spread over two nodes: the table's v100_unconsolidated (4 steps/s against 8) is the
# cost: 200 s, slowdown 2
run sim_tput_spread 0 "dl simulate --cluster 1x2x1:v100 --policy fifo --throughputs '$TP' two.csv"
expect_eq sim_tput_spread_row "w,0,2,100,0,200,200,0,200,0,0,rack,2,v100,fifo,2,100,,400" "$(sed -n 2p out)"

# models without an entry run at the type's speed, with one warning naming them
printf 'id,submit,gpus,duration,model\na,0,1,100,m\nb,0,1,100,zz\nc,0,1,100,zz\nd,0,1,100,\n' > miss.csv
run sim_tput_missing 0 "dl simulate --cluster 1x1x4:k80 --policy fifo --throughputs '$TP' miss.csv"
expect_eq sim_tput_missing_warning "dlsched simulate: warning: 3 jobs ran at their GPU types' speeds for want of an entry in $TP (models 'zz')" "$(cat err)"
expect sim_tput_missing_rows 'grep -q "^b,0,1,100,0,333.333333," out && grep -q "^a,0,1,100,0,400," out'

# Gavel's own JSON is read as well (as allocate and trace import read it)
run sim_tput_gavel_json 0 "printf 'id,submit,gpus,duration,model\nr,0,1,100,ResNet-18 (batch size 64)\n' |
	dl simulate --cluster 1x1x1:k80 --policy fifo --throughputs '$TESTDATA/trace/gavel_throughputs_small.json'"
expect sim_tput_gavel_json_slower 'cols end,gpu_type out -e "NR==2{exit !(\$1 > 100 && \$2 == \"k80\")}"'
run sim_tput_bad_file 1 "dl simulate --cluster 1x1x1 --throughputs /nonexistent one.csv"

# ---- --policy gavel: Gavel's rounds (#15.2, 15.5); the hand-computed cases
# (each worked out in its comment) ----
G="dl simulate --policy gavel"
FR="$SRCROOT/tests/cli/gavel_fractions.awk"

# 1. two jobs of 720 s on one GPU, agnostic LAS (X = 1/2 each), rounds of 360 s: the
#    tie goes to the first job; A 0-360, B 360-720, A 720-1080 (done), B 1080-1440
printf 'id,submit,gpus,duration\nA,0,1,720\nB,0,1,720\n' > alt.csv
run gavel_alternation 0 "$G --alloc max-min-fairness --cluster 1x1x1 $Z alt.csv"
expect_eq gavel_alternation_rows "A,0,1,720,0,1080,1080,360,720,1,0,node,1,v100,gavel,1.5,0,,720
B,0,1,720,360,1440,1440,720,720,1,0,node,1,v100,gavel,2,0,,720" "$(sed 1d out)"
#    the exact mechanism: each at 1/2 all along, both end at 1440
run gavel_exact 0 "$G --alloc max-min-fairness --mechanism exact --cluster 1x1x1 $Z alt.csv"
expect gavel_exact_both_1440 'cols end out -e "NR>1{if (\$1 != 1440) bad++; n++} END{exit !(n==2 && !bad)}"'

# 2. heterogeneous alternation: 1 v100 (2 steps/s) and 1 k80 (1 step/s), two identical
#    jobs of 3600 steps; agnostic LAS gives X = 1/2 on each type (allocate says so); the
#    jobs swap types every round (priority X / fraction received), so after 6 rounds each
#    had exactly 1/2 of its time on each type (within 1/rounds of X); A ends at 2340
#    (3 v100 and 3 k80 rounds = 3240 steps, then 180 s on the v100), B at 2520
printf 'id,submit,gpus,duration,model\nA,0,1,1800,g\nB,0,1,1800,g\n' > halt.csv
HET="--cluster 1x1x1:v100,1x1x1:k80 --throughputs '$S/gavel_alt.csv'"
run gavel_hetero_alternation 0 "$G --alloc max-min-fairness $HET $Z --events he.jsonl halt.csv"
expect_eq gavel_hetero_alternation_ends "A,2340 B,2520" "$(cols id,end "$SCRATCH/out" | awk 'NR > 1 {printf "%s%s", (NR > 2 ? " " : ""), $0}')"
dl allocate --cluster 1x1x1:v100,1x1x1:k80 --policy max-min-fairness \
	--throughputs "$S/gavel_alt.csv" halt.csv > halt_x.csv 2>/dev/null
expect_eq gavel_hetero_x_half "4" "$(grep -c ',0.5,' halt_x.csv)"
awk -v until=2160 -f "$FR" he.jsonl | sort > halt_f.csv
expect_eq gavel_hetero_fractions "A,k80,0.500000
A,v100,0.500000
B,k80,0.500000
B,v100,0.500000" "$(cat halt_f.csv)"
expect gavel_hetero_swaps_types '[ "$(grep -c "\"job\":\"A\",\"event\":\"resume\".*\"detail\":\"k80\"" he.jsonl)" -eq 3 ]'

#    the exact mechanism: both progress at 1/2 x 2 + 1/2 x 1 = 1.5 steps/s all along and
#    end together at 3600 / 1.5 = 2400 s (the bound the rounds approximate)
run gavel_hetero_exact 0 "$G --alloc max-min-fairness --mechanism exact $HET $Z halt.csv"
expect_eq gavel_hetero_exact_ends "A,2400 B,2400" "$(cols id,end "$SCRATCH/out" | awk 'NR > 1 {printf "%s%s", (NR > 2 ? " " : ""), $0}')"

#    --compat gavel shuffles the type order of agnostic policies every round (seeded): A
#    starts on the k80 under some seeds, on the v100 under others; the fractions still
#    converge to 1/2
for seed in 1 2 3 4 5 6; do
	dl simulate --compat gavel --seed $seed --alloc max-min-fairness --events sh$seed.jsonl \
		--cluster 1x1x1:v100,1x1x1:k80 --throughputs "$S/gavel_alt.csv" halt.csv > /dev/null 2>&1
	grep '"event":"start"' sh$seed.jsonl | head -1 | grep -o '"detail":"[a-z0-9]*"' >> first_types
done
expect gavel_compat_shuffle 'grep -q k80 first_types && grep -q v100 first_types'

# 3. boundary admission: b arrives at 100 during round [0, 360) with a GPU idle: with
#    --compat gavel it waits for the boundary (queue_delay 260), otherwise it starts at once
printf 'id,submit,gpus,duration\na,0,1,1000\nb,100,1,1000\n' > adm.csv
run gavel_admission_compat 0 "$G --compat gavel --alloc max-min-fairness --cluster 1x1x2 adm.csv"
expect_eq gavel_admission_compat_row "b,100,1,1000,360,1360,1260,260,1000,0,0,node,1,v100,gavel,1.26,0,,1000" "$(grep '^b,' out)"
run gavel_admission_native 0 "$G --alloc max-min-fairness --cluster 1x1x2 adm.csv"
expect_eq gavel_admission_native_row "b,100,1,1000,100,1100,1000,0,1000,0,0,node,1,v100,gavel,1,0,,1000" "$(grep '^b,' out)"

# 4. the idle tail: a (100 s) and c run in round [0, 360) on 2 GPUs, b waits; a's GPU stays
#    idle from 100 to 360 (b starts at 360), unless --work-conserving (b starts at 100).
#    c keeps its GPU all along: a lease extension pays no restore (run_time 1000 with the
#    default costs)
printf 'id,submit,gpus,duration\na,0,1,100\nc,0,1,1000\nb,0,1,1000\n' > tail.csv
run gavel_idle_tail 0 "$G --alloc max-min-fairness --cluster 1x1x2 --events te.jsonl tail.csv"
expect_eq gavel_idle_tail_b "b,0,1,1000,360,1360,1360,360,1000,0,0,node,1,v100,gavel,1.36,0,,1000" "$(grep '^b,' out)"
run gavel_idle_tail_compat 0 "$G --compat gavel --alloc max-min-fairness --cluster 1x1x2 tail.csv"
expect_eq gavel_idle_tail_compat_b "b,0,1,1000,360,1360,1360,360,1000,0,0,node,1,v100,gavel,1.36,0,,1000" "$(grep '^b,' out)"
run gavel_work_conserving 0 "$G --alloc max-min-fairness --work-conserving --cluster 1x1x2 tail.csv"
expect_eq gavel_work_conserving_b "b,0,1,1000,100,1100,1100,100,1000,0,0,node,1,v100,gavel,1.1,0,,1000" "$(grep '^b,' out)"

# 5. lease extension: c held its GPU through the boundaries at 360 and 720: one start
#    event and nothing else until it finishes (an extension changes nothing a user sees,
#    so it is no event), no preemption, no restore (run_time = duration although
#    --restore-cost is 10)
expect_eq gavel_lease_extensions "arrive start finish" "$(grep '"job":"c"' "$SCRATCH/te.jsonl" | sed 's/.*"event":"\([a-z]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')"
expect_eq gavel_lease_no_restore "c,0,1,1000,0,1000,1000,0,1000,0,0,node,1,v100,gavel,1,0,,1000" "$(grep '^c,' "$SCRATCH/out")"

# 6. a packed pair: p and q do 10 steps/s alone, 7 and 6 together on one v100 (1.3 > 1:
#    max-throughput packs them, X = 1). p ends at 1000 / 0.7 = 1428.571429; q has done
#    857.142857 s of work by then and runs alone at full speed: 1571.428571. The pair
#    keeps its GPU across rounds (one start each), and a pack event names the partner.
#    occupied_gpu_s shares the GPU while packed: 1428.571429 / 2 each, and Q's 142.857142
#    alone after: 714.285715 and 857.142857, 1571.428571 GPU-s together (to the microsecond).
printf 'id,submit,gpus,duration,model\nP,0,1,1000,p\nQ,0,1,1000,q\n' > pair.csv
run gavel_packed_pair 0 "$G --alloc max-throughput --pack --cluster 1x1x1 \
	--throughputs '$S/gavel_pack.csv' --events pe.jsonl pair.csv"
expect_eq gavel_packed_pair_rows "P,0,1,1000,0,1428.571429,1428.571429,0,1428.571429,0,0,node,1,v100,gavel,1.428571,0,,714.285715
Q,0,1,1000,0,1571.428571,1571.428571,0,1571.428571,0,0,node,1,v100,gavel,1.571429,0,,857.142857" "$(sed 1d out)"
expect gavel_packed_pair_event 'grep -q "\"job\":\"Q\",\"event\":\"pack\",\"gpus\":1,\"placement\":null,\"detail\":\"P\"" pe.jsonl'
#    without --pack the two take turns: 2000 s of work on one GPU
run gavel_unpacked_pair 0 "$G --alloc max-throughput --cluster 1x1x1 $Z \
	--throughputs '$S/gavel_pack.csv' pair.csv"
expect gavel_unpacked_pair_2000 'cols end out -e "NR>1 && \$1 > m {m = \$1} END{exit !(m == 2000)}"'

# 7. realised long-run fractions match allocate's X within 2%: three long jobs whose
#    v100/k80 speedups (4, 2, 1.2) make the heterogeneity-aware allocation unique; the
#    fractions are measured up to the first completion (about 4,000 rounds)
printf 'id,submit,gpus,duration,model\na,0,1,1000000,m1\nb,0,1,1000000,m2\nc,0,1,1000000,m3\n' > three.csv
T3="--cluster 1x1x1:v100,1x1x1:k80 --throughputs '$S/gavel_three.csv'"
run gavel_stationary 0 "$G $T3 $Z --events se.jsonl three.csv"
dl allocate --policy max-min-fairness-perf --cluster 1x1x1:v100,1x1x1:k80 \
	--throughputs "$S/gavel_three.csv" three.csv > three_x.csv 2>/dev/null
awk -f "$FR" se.jsonl > three_f.csv
expect_eq gavel_stationary_within_2pct "" "$(cols job,gpu_type,fraction "$SCRATCH/three_x.csv" |
	awk -F, 'FNR == NR { r[$1 "," $2] = $3; next }
	FNR > 1 { x = $3 + 0; f = r[$1 "," $2] + 0; d = f - x; if (d < 0) d = -d
		if ((x > 0 && d > 0.02 * x) || (x == 0 && f > 0.02)) print $1, $2, x, f }' \
	"$SCRATCH/three_f.csv" -)"
expect gavel_stationary_x_checked '[ "$(grep -c "," three_f.csv)" -eq 4 ] && [ "$(wc -l < three_x.csv)" -eq 7 ]'

# ---- --compat gavel against Gavel's own simulator (#28) ----
# Every expected time below is what Gavel's simulator (scheduler.py at c4fa400, run on this
# machine with its LPs through a stand-in for cvxpy) gave on the same jobs: a model of 1
# step/s on every type (the engine's speeds here), Gavel's trace steps = duration.
GC="$G --compat gavel"
row() { cols "id,$2" "$SCRATCH/out" | awk -F, -v id="$1" '$1 == id' | cut -d, -f2-; } # ID COLUMNS
# 1. a job arriving between re-solves waits for the next one (the reset is due 1920 s after
#    the one at 360) and is never started before: b (arrived 500) starts at 2520, ends 3520,
#    while a GPU is idle from 500 on; c (arrived 100) joined the re-solve at 360
printf 'id,submit,gpus,duration\na,0,1,5000\nc,100,1,5000\nb,500,1,1000\n' > between.csv
run gavel_compat_waits_for_allocation 0 "$GC --alloc max-min-fairness-perf --cluster 1x1x3 between.csv"
expect_eq gavel_compat_waits_for_allocation_b "2520,3520" "$(row b start,end)"
expect_eq gavel_compat_waits_for_allocation_c "360,5360" "$(row c start,end)"
#    --work-conserving backfills idle GPUs, but not with a job that has no allocation yet
run gavel_compat_wc_waits_for_allocation 0 "$GC --work-conserving --alloc max-min-fairness-perf --cluster 1x1x3 between.csv"
expect_eq gavel_compat_wc_waits_for_allocation_b "2520,3520" "$(row b start,end)"
#    native: b starts on the idle GPU when it arrives
run gavel_native_starts_at_once 0 "$G --alloc max-min-fairness-perf --cluster 1x1x3 between.csv"
expect_eq gavel_native_starts_at_once_b "500,1500" "$(row b start,end)"
# 2. a reset at trace time 0 is no reset for the reference: b (arrived 100) is allocated at
#    the boundary at 360, a keeps the tie (a 360-720, b 720-1080, ...): b's JCT is 2340
#    (it was 4140, waiting for the reset at 1920)
printf 'id,submit,gpus,duration\na,0,1,5000\nb,100,1,1000\n' > reset0.csv
run gavel_compat_reset_at_zero 0 "$GC --alloc max-min-fairness-perf --cluster 1x1x1 reset0.csv"
expect_eq gavel_compat_reset_at_zero_b "720,2440,2340" "$(row b start,end,jct)"
expect_eq gavel_compat_reset_at_zero_a "6000" "$(row a end)"
#    a trace whose first job arrives at 50: the reset at 50 is a real one and b waits for the
#    round at 2210 (50 + 1920 + 240); there the reference has counted a's first round from
#    trace time 0 (410 s, not 360), so a's deficit is -50 and b wins the tie: b 2210-3930
printf 'id,submit,gpus,duration\na,50,1,5000\nb,150,1,1000\n' > reset50.csv
run gavel_compat_reset_late_start 0 "$GC --alloc max-min-fairness-perf --cluster 1x1x1 reset50.csv"
expect_eq gavel_compat_reset_late_start_b "2210,3930" "$(row b start,end)"
# 4. jobs admitted at one boundary enter in arrival order: y (400) and z (410) wait for the
#    boundary at 720, z in the slot a freed at 405; fifo-perf gives the one free GPU to y
#    (720-820) and z waits for the next re-solve (reset due at 2640: the round at 2880)
printf 'id,submit,gpus,duration\na,0,1,405\nb,0,1,5000\ny,400,1,100\nz,410,1,100\n' > order.csv
run gavel_compat_arrival_order 0 "$GC --alloc fifo-perf --cluster 1x1x2 order.csv"
expect_eq gavel_compat_arrival_order_y "720,820" "$(row y start,end)"
expect_eq gavel_compat_arrival_order_z "2880,2980" "$(row z start,end)"
# 5. fifo: b waits on an idle GPU for the re-solve at a's completion, then runs (JCT 200; it
#    was rejected as never placed)
printf 'id,submit,gpus,duration\na,0,1,100\nb,0,1,100\n' > fifo2.csv
run gavel_compat_fifo_second 0 "$GC --alloc fifo --cluster 1x1x1 fifo2.csv"
expect_eq gavel_compat_fifo_second_b "100,200,200" "$(row b start,end,jct)"
# 3. fifo-perf stops at the first job that fits nowhere: b (2 GPUs) blocks c while a runs
printf 'id,submit,gpus,duration\na,0,1,1000\nb,0,2,100\nc,0,1,100\n' > hol.csv
run gavel_compat_head_of_line 0 "$GC --alloc fifo-perf --cluster 1x1x2 hol.csv"
expect_eq gavel_compat_head_of_line_c "1100,1200" "$(row c start,end)"
run gavel_native_fifo_passes_over 0 "$G --alloc fifo-perf --cluster 1x1x2 hol.csv"
expect_eq gavel_native_fifo_passes_over_c "0,100" "$(row c start,end)"
# 6. Gavel's fifo sends each job to the listed type last by name (v100); when the v100 is
#    full a type drawn among those with room leaves the list: the v100 itself (b and c go to
#    the k80s at 0, as the reference did with its seed) or a k80 (then all three take turns
#    on the v100 and the k80s idle). Both happen over a few seeds, nothing else does.
printf 'id,submit,gpus,duration\na,0,1,100\nb,0,1,100\nc,0,1,100\n' > fifo3.csv
: > fifo3_kinds
for seed in 1 2 3 4 5 6; do
	dl simulate --compat gavel --alloc fifo --seed $seed --cluster 1x1x1:v100,1x1x2:k80 fifo3.csv |
		cols id,start,gpu_type | awk -F, 'NR > 1 {printf "%s:%s:%s ", $1, $2, $3} END {print ""}' >> fifo3_kinds
done
expect_eq gavel_compat_fifo_last_type "a:0:v100 b:0:k80 c:0:k80 
a:0:v100 b:100:v100 c:200:v100 " "$(sort -u "$SCRATCH/fifo3_kinds")"
# 7. int(throughput x round) steps a round: model E does 1.001 steps/s, so 360 steps a
#    round take 359.64036 s and the rounds are that long; a (1001 steps) ends at
#    1719.280719 in the reference (1720 with whole rounds), b at 2000
printf 'model,gpu_type,gpus,throughput\nE,v100,1,1.001\n' > e_tput.csv
printf 'id,submit,gpus,duration,model\na,0,1,1000,E\nb,0,1,1000,E\n' > steps.csv
run gavel_compat_steps_per_round 0 "$GC --alloc max-min-fairness-perf --cluster 1x1x1 --throughputs e_tput.csv steps.csv"
expect_eq gavel_compat_steps_per_round_a "1719.28072" "$(row a end)"
expect_eq gavel_compat_steps_per_round_b "359.64036,2000" "$(row b start,end)"

# hierarchical water-filling: the trace's users are the entities; user A's three jobs share
# half of the GPU (1/6 each), user B's one job has the other half
printf 'id,submit,gpus,duration,user\na1,0,1,100000,A\na2,0,1,100000,A\na3,0,1,100000,A\nb1,0,1,100000,B\n' > ent.csv
run gavel_hierarchical 0 "$G --alloc water-filling --cluster 1x1x1 $Z --events ee.jsonl ent.csv"
expect_eq gavel_hierarchical_fractions "" "$(awk -f "$FR" "$SCRATCH/ee.jsonl" | awk -F, '{ x = $1 == "b1" ? 0.5 : 1 / 6; d = $3 - x; if (d < 0) d = -d; if (d > 0.02 * x) print }')"
expect gavel_hierarchical_four 'awk -f "$FR" ee.jsonl | grep -c , | grep -qx 4'

# every allocate policy runs through the driver on a Gavel trace (all jobs complete)
GT=$TESTDATA/allocate/gavel_throughputs.csv.gz
dl trace gen --preset gavel --throughputs "$GT" --seed 3 --jobs 60 --rate 20 > g60.csv 2>/dev/null
for a in max-min-fairness max-min-fairness-perf finish-time-fairness min-makespan max-throughput \
	min-cost water-filling fifo fifo-perf isolated gandiva; do
	run "gavel_alloc_$a" 0 "$G --alloc $a --cluster 1x2x4:v100,1x2x4:p100,1x2x4:k80 \
		--throughputs '$GT' g60.csv > r.csv"
	expect "gavel_alloc_${a}_all_done" '[ "$(cols end r.csv | awk "NR > 1 && \$1 > 0" | wc -l)" -eq 60 ]'
done
for a in max-min-fairness-perf max-throughput gandiva; do
	run "gavel_pack_$a" 0 "$G --alloc $a --pack --cluster 1x2x4:v100,1x2x4:p100,1x2x4:k80 \
		--throughputs '$GT' g60.csv > r.csv"
	expect "gavel_pack_${a}_all_done" '[ "$(cols end r.csv | awk "NR > 1 && \$1 > 0" | wc -l)" -eq 60 ]'
done
# a gang wider than every type is rejected on arrival with its reason, the others run
run gavel_too_wide 0 "$G --cluster 1x2x2:v100,1x2x2:p100,1x2x2:k80 --throughputs '$GT' g60.csv"
expect gavel_too_wide_rejected 'grep -q ",gavel,,,needs more GPUs than any one GPU type has,\$" out && [ "$(cols end out | awk "NR > 1 && \$1 > 0" | wc -l)" -eq "$(cols gpus g60.csv | awk "NR > 1 && \$1 <= 4" | wc -l)" ]'
# same inputs and seed, same bytes (compat shuffles the type order with --seed)
for k in 1 2; do
	dl simulate --policy gavel --compat gavel --alloc max-min-fairness --seed 4 \
		--cluster 1x2x2:v100,1x2x2:p100,1x2x2:k80 --throughputs "$GT" --events ge$k.jsonl \
		g60.csv > gr$k.csv 2>/dev/null
done
expect gavel_deterministic 'cmp -s gr1.csv gr2.csv && cmp -s ge1.jsonl ge2.jsonl'

# --compat gavel against Gavel's simulator on a loaded trace (#28): 200 jobs of Gavel's
# generator parameters at 0.8 jobs an hour on 8 consolidated GPUs of each type (jobs queue
# for days). Gavel's simulator ran this very trace (steps, gang sizes, arrivals: checked
# first) with max_min_fairness_perf, max_sum_throughput_perf and fifo_perf; its JCTs are in
# gavel_ref_200.csv (testdata/simulate/NOTE). fifo-perf has no LP and no random draw: every
# job must end within 1 s of the reference's time (measured: all 200 to the microsecond;
# before #28 only 13, the average 40% low). max-throughput's optimum is nearly unique:
# average within 1% (measured -0.0003%), at least 90 jobs within 1 s (measured 108; 6
# before #28). Many LP optima make per-job times differ for max-min fairness: average
# within 5% (measured +2.8%), at least 55 jobs within a round (measured 65; 39 before #28;
# the reference itself, run with another LP solver, has 55 within a round of its own).
REF=$S/gavel_ref_200.csv
dl trace gen --preset gavel --throughputs "$GT" --seed 1 --jobs 200 --rate 0.8 > ref200.csv 2>/dev/null
cols job,gpus,steps,arrival "$REF" > ref_jobs.csv
cols id,submit,gpus,steps ref200.csv > gen_jobs.csv
expect_eq gavel_ref_same_trace "200 same" "$(awk -F, 'FNR == NR { if (FNR > 1) r[$1] = $2 " " $3 " " $4; next }
	FNR > 1 { split(r[$1], v, " "); d = $2 - v[3]; if (d < 0) d = -d
		if (v[1] != $3 || v[2] != $4 || d > 1e-3) bad++; n++ }
	END { print n, (bad ? bad " differ" : "same") }' "$SCRATCH/ref_jobs.csv" "$SCRATCH/gen_jobs.csv")"
C8="--cluster 1x1x8:v100,1x1x8:p100,1x1x8:k80 --throughputs '$GT'"
# RESULTS REF_COLUMN -> "average JCT (dlsched, reference), jobs within 1 s, within a round"
compare_ref() {
	cols "job,$2" "$REF" > "$SCRATCH/ref_jct.csv"
	cols id,jct "$SCRATCH/$1" | awk -F, 'FNR == NR { if (FNR > 1) r[$1] = $2; next }
		FNR > 1 && ($1 in r) { d = $2 - r[$1]; a += $2; b += r[$1]; n++
			if (d < 0) d = -d; s += d <= 1; q += d <= 360 }
		END { printf "%.1f %.1f %d %d\n", a / n, b / n, s, q }' "$SCRATCH/ref_jct.csv" -
}
# policy, reference column, tolerance on the average, least jobs within 1 s, within a round
for pc in max-min-fairness-perf:jct_max_min_fairness_perf:0.05:0:55 \
	max-throughput:jct_max_sum_throughput_perf:0.01:90:0 fifo-perf:jct_fifo_perf:0.000001:200:200; do
	a=${pc%%:*} lim=${pc#*:}
	col=${lim%%:*} lim=${lim#*:}
	run "gavel_ref_$a" 0 "$GC --alloc $a $C8 ref200.csv > ref_$a.csv"
	got=$(compare_ref "ref_$a.csv" "$col")
	expect "gavel_ref_${a} (average JCT dlsched, reference; within 1 s; within a round: $got)" \
		"echo '$got' | awk -v lim='$lim' '{ split(lim, l, \":\"); d = \$1 / \$2 - 1
			exit !(d <= l[1] && d >= -l[1] && \$3 >= l[2] && \$4 >= l[3]) }'"
done

# usage: the driver's options belong to it; --pack needs a policy that packs and a table
run gavel_option_other_policy 2 "dl simulate --cluster 1x1x1 --policy fifo --round 60 alt.csv"
expect gavel_option_other_policy_msg 'grep -q -- "--round applies to --policy gavel" err'
run gavel_pack_bad_policy 2 "$G --alloc fifo --pack --cluster 1x1x1 --throughputs '$S/gavel_pack.csv' alt.csv"
#    the packing policies, listed from the allocation policies' table (as allocate says it)
expect_eq gavel_pack_bad_policy_msg "dlsched simulate: --pack works with max-min-fairness-perf, max-throughput and gandiva, not fifo; see 'dlsched simulate --help'" "$(cat "$SCRATCH/err")"
run gavel_pack_no_table 2 "$G --pack --cluster 1x1x1 alt.csv"
#    --compat gavel: what the policy declares in the registry (its policy, free preemption)
run gavel_compat_costs 2 "$G --compat gavel --checkpoint-cost 3 --cluster 1x1x1 alt.csv"
expect gavel_compat_costs_msg 'grep -q -- "--compat gavel has no checkpoint or restore costs (as the reference)" err'
run gavel_compat_other_policy 2 "dl simulate --compat gavel --policy fifo --cluster 1x1x1 alt.csv"
expect gavel_compat_other_policy_msg 'grep -q -- "--compat gavel is for --policy gavel" err'

# The published effect, seeded and directional (never absolute numbers): on a
# continuous-single Gavel trace (one GPU a job) on V100/P100/K80, heterogeneity-agnostic
# LAS has a higher average JCT than LAS-perf, and the ratio grows with load (Gavel: about
# 1.3x at low load, over 3x near saturation on 36:36:36 GPUs at 2.0 and 5.6 jobs/h); with
# --pack, LAS-perf is better still at high load. Scaled to a third: 12:12:12 GPUs, 0.7 and
# 2.0 jobs/h, 900 jobs, average JCT of jobs 300-599; the reference's choices (--compat
# gavel: its shuffled type order for the agnostic policy). Measured here: 1.37x and 1.52x
# (1.38x and 1.61x before #28).
if heavy; then
	C36="--cluster 1x3x4:v100,1x3x4:p100,1x3x4:k80 --throughputs '$GT' --compat gavel"
	for r in 0.7 2.0; do
		dl trace gen --preset gavel --single-gpu --throughputs "$GT" --seed 1 --jobs 900 \
			--rate $r > load$r.csv 2>/dev/null
		for v in max-min-fairness max-min-fairness-perf; do
			run "gavel_effect_${r}_$v" 0 "$G --alloc $v $C36 load$r.csv > e_${r}_$v.csv"
		done
		run "gavel_effect_${r}_pack" 0 "$G --alloc max-min-fairness-perf --pack $C36 load$r.csv > e_${r}_pack.csv"
	done
	avg() { cols id,jct "$SCRATCH/$1" | awk -F, 'NR > 1 && $1 + 0 >= 300 && $1 + 0 < 600 { s += $2; n++ } END { printf "%.0f", s / n }'; }
	lo=$(awk -v a="$(avg e_0.7_max-min-fairness.csv)" -v b="$(avg e_0.7_max-min-fairness-perf.csv)" 'BEGIN{printf "%.4f", a / b}')
	hi=$(awk -v a="$(avg e_2.0_max-min-fairness.csv)" -v b="$(avg e_2.0_max-min-fairness-perf.csv)" 'BEGIN{printf "%.4f", a / b}')
	expect "gavel_effect_perf_beats_agnostic (ratios $lo at low load, $hi at high load)" "awk 'BEGIN{exit !($lo > 1.1 && $hi > $lo)}'"
	expect "gavel_effect_pack_better_at_high_load" "[ $(avg e_2.0_pack.csv) -lt $(avg e_2.0_max-min-fairness-perf.csv) ]"
else
	skip gavel_effect "a few thousand rounds: normal build only"
fi
run gavel_exact_work_conserving 2 "$G --mechanism exact --work-conserving --cluster 1x1x1 alt.csv"
run gavel_exact_compat 2 "dl simulate --compat gavel --mechanism exact --cluster 1x1x1 alt.csv"
