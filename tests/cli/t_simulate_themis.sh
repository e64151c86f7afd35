# t_simulate_themis.sh: simulate --policy themis (issue 16): leases, the rho-ranked auction,
# the fairness knob, the hand-computable cases (worked out in the comments below) and the
# published effect's direction. rho is computed here from the results' end, submit and
# duration (JCT over the time alone on an ideal placement).
S=$TESTDATA/simulate
Z='--checkpoint-cost 0 --restore-cost 0'
# rho of each row as "id rho" (6 decimals)
rho_of() { cols id,end,submit,duration "$1" -e 'NR > 1 {printf "%s %.6f\n", $1, ($2 - $3) / $4}'; }
# max rho and average JCT of a results file: "MAX AVG"
summary() { cols end,submit,duration,jct "$1" -e 'NR > 1 {r = ($1 - $2) / $3; if (r > m) m = r; j += $4; n++} END {printf "%.6f %.3f\n", m, j / n}'; }

# 1. alone: one job on an empty cluster runs at once on one node and renews its lease
# (30 s leases, 100 s of work: no preemption): rho exactly 1
printf 'id,submit,gpus,duration\nS,5,4,100\n' > alone.csv
run simulate_themis_alone 0 "dl simulate --cluster 1x1x8 --policy themis --lease 30 alone.csv"
expect simulate_themis_alone_rho1 '[ "$(rho_of out)" = "S 1.000000" ] && cols preemptions out -e "NR==2{exit !(\$1 == 0)}"'
# ... and when badly placed, its slowdown: X and Y (2 GPUs each) take one node each of
# 1x2x3 (best fit), so Z (2-GPU vgg16) must span both nodes (rack tier) at once
run simulate_themis_spread 0 "dl simulate --cluster 1x2x3 --policy themis $Z '$S/themis_spread.csv'"
expect simulate_themis_spread_rho_is_slowdown 'cols id,end,submit,duration,slowdown,tier out -e "\$1==\"Z\"{r=(\$2-\$3)/\$4; d=r-\$5; exit !(\$6==\"rack\" && \$5>1 && d<1e-6 && d>-1e-6)}"'

# 2. two 120 s jobs at 0 on one GPU, 60 s leases: the worse rho wins each lease end, so
# they alternate A 0-60, B 60-120, A 120-180, B 180-240 (reviewed golden): rho 1.5, 2.0.
# A and B tie at 0 (rho 1 each): --seed 2 puts A first (seed 1 puts B first, below)
run simulate_themis_alternate 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 --seed 2 $Z \
	--events ev.jsonl '$S/themis_alternate.csv'"
expect simulate_themis_alternate_rho '[ "$(rho_of out | sort -k2 | awk "{printf \"%s \", \$2}")" = "1.500000 2.000000 " ]'
expect simulate_themis_alternate_leases '[ "$(grep -c "\"event\":\"preempt\"" ev.jsonl)" -eq 2 ] && grep -q "\"time\":60,\"job\":\"[AB]\",\"event\":\"start\"" ev.jsonl'

# 3. a late arrival: A (600 s) runs from 0; B (600 s) arrives at 30, mid-lease. At the
# lease end (60) B's estimate (30 + 600) / 600 beats A's 600 / 600: B wins that lease.
# 1,200 s of work on one GPU: the last job ends at 1,200, so max rho is at least B's
# (1200 - 30) / 600 = 1.95 (A last: 2.0); FIFO reaches that floor, and so does themis.
run simulate_themis_late 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 $Z '$S/themis_late.csv'"
expect simulate_themis_late_wins_next_lease 'cols id,start out -e "\$1==\"B\"{exit !(\$2 == 60)}"'
dl simulate --cluster 1x1x1 --policy fifo $Z "$S/themis_late.csv" > late_fifo.csv 2> /dev/null
expect simulate_themis_late_max_rho '[ "$(summary out | cut -d" " -f1)" = "1.950000" ] && [ "$(summary late_fifo.csv | cut -d" " -f1)" = "1.950000" ]'

# 4. the knob: with 0, each round offers the GPUs to the single worst-rho job, so at 60
# B (waiting, rho 1.5) takes the GPU from A (1.0) although A's bid is worth more; with
# 1, both bid together and the auction keeps A (log 1.5 > log 1.33): B starts at 120
run simulate_themis_knob0 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 --seed 2 \
	--fairness-knob 0 $Z '$S/themis_alternate.csv'"
expect simulate_themis_knob0_worst_first 'cols id,start out -e "\$1==\"B\"{exit !(\$2 == 60)}"'
run simulate_themis_knob1 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 --seed 2 \
	--fairness-knob 1 $Z '$S/themis_alternate.csv'"
expect simulate_themis_knob1_efficient 'cols id,start,preemptions out -e "\$1==\"B\"{exit !(\$2 == 120)} \$1==\"A\"{if (\$3 != 0) exit 1}"'

# options belong to themis; bad values are usage errors
run simulate_themis_opt_other_policy 2 "dl simulate --cluster 1x1x1 --policy fifo --lease 60 '$S/themis_alternate.csv'"
expect simulate_themis_opt_other_policy_msg 'grep -q "applies to --policy themis" err'
run simulate_themis_bad_knob 2 "dl simulate --cluster 1x1x1 --policy themis --fairness-knob 1.5 '$S/themis_alternate.csv'"
run simulate_themis_bad_lease 2 "dl simulate --cluster 1x1x1 --policy themis --lease 0 '$S/themis_alternate.csv'"
expect simulate_themis_help 'dl simulate --help | grep -q -- "--fairness-knob"'

# the published effect (direction, not the paper's numbers): a loaded multi-user trace
# (6 users, Gavel's long-job durations, load 2.5 of 32 GPUs) with mixed placement
# sensitivity (vgg16, alexnet, resnet50): max rho under themis at least 2x lower than
# under fifo and tiresias-las, average JCT within 20% of tiresias-las (here: lower)
dl trace gen --seed 3 --jobs 400 --load 2.5 --cluster 1x4x8 --users 6 --duration gavel |
	awk -F, 'BEGIN{OFS=","} NR==1{print $0, "model"; next}
		{print $0, (NR % 3 == 0) ? "vgg16" : (NR % 3 == 1 ? "resnet50" : "alexnet")}' > load.csv
for p in fifo tiresias-las themis; do
	dl simulate --cluster 1x4x8 --policy "$p" load.csv > "load_$p.csv" 2> /dev/null
done
F=$(summary load_fifo.csv) L=$(summary load_tiresias-las.csv) T=$(summary load_themis.csv)
expect simulate_themis_all_finish '[ "$(wc -l < load_themis.csv)" -eq 401 ]'
expect simulate_themis_fairer "awk -v f='$F' -v l='$L' -v t='$T' 'BEGIN{split(f,F,\" \"); split(l,L,\" \"); split(t,T,\" \"); exit !(2 * T[1] <= F[1] && 2 * T[1] <= L[1])}'"
expect simulate_themis_jct_near_las "awk -v l='$L' -v t='$T' 'BEGIN{split(l,L,\" \"); split(t,T,\" \"); exit !(T[2] <= 1.2 * L[2])}'"
# the knob: more of the bidders per round = more efficiency (lower average JCT), worse max rho
for k in 0 0.2 1; do
	dl simulate --cluster 1x4x8 --policy themis --fairness-knob "$k" load.csv > "knob_$k.csv" 2> /dev/null
done
K0=$(summary knob_0.csv) K2=$(summary knob_0.2.csv) K1=$(summary knob_1.csv)
expect simulate_themis_knob_trades "awk -v a='$K0' -v b='$K2' -v c='$K1' 'BEGIN{split(a,A,\" \"); split(b,B,\" \"); split(c,C,\" \"); exit !(A[1] <= B[1] && B[1] < C[1] && A[2] > B[2] && B[2] > C[2])}'"
# exact and greedy auctions both schedule every job; same seed, same bytes
dl simulate --cluster 1x4x8 --policy themis --mip-max 0 load.csv > greedy.csv 2> /dev/null
expect simulate_themis_greedy_all_finish '[ "$(wc -l < greedy.csv)" -eq 401 ]'
dl simulate --cluster 1x4x8 --policy themis load.csv > again.csv 2> /dev/null
expect simulate_themis_deterministic 'cmp -s again.csv load_themis.csv'

# admission control: A (100 s) runs from 0 with rho estimate 1; B arrives at 10. With
# --admission 1, B is held back while the worst rho (A's 1) is not below 1 and A is
# active, so it neither bids at A's lease end (60) nor preempts A: it starts at 100.
# Without it, B's estimate at 60, (50 + 100) / 100 = 1.5, wins that lease.
printf 'id,submit,gpus,duration\nA,0,1,100\nB,10,1,100\n' > adm.csv
run simulate_themis_admission 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 \
	--admission 1 $Z adm.csv"
expect simulate_themis_admission_holds 'cols id,start,end,preemptions out -e "\$1==\"B\"{if (\$2 != 100) exit 1} \$1==\"A\"{if (\$3 != 100 || \$4 != 0) exit 1}"'
run simulate_themis_no_admission 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 $Z adm.csv"
expect simulate_themis_no_admission_preempts 'cols id,start out -e "\$1==\"B\"{exit !(\$2 == 60)}"'

# the exact auction: on 2 nodes x 2 GPUs with knob 1 (one round), W (4 GPUs, 100 s) bids
# log(700/100) = 1.95, U and V (2 GPUs, 300 s each) log(900/300) = 1.10 each. Greedy takes
# the most valuable bid, W, and U and V wait; GLPK's MIP finds U + V = 2.20 > 1.95.
printf 'id,submit,gpus,duration\nW,0,4,100\nU,0,2,300\nV,0,2,300\n' > mip.csv
run simulate_themis_mip 0 "dl simulate --cluster 1x2x2 --policy themis --fairness-knob 1 mip.csv"
expect simulate_themis_mip_optimal 'cols id,start out -e "\$1==\"W\"{if (\$2 != 300) exit 1} \$1==\"U\"||\$1==\"V\"{if (\$2 != 0) exit 1}"'
run simulate_themis_greedy 0 "dl simulate --cluster 1x2x2 --policy themis --fairness-knob 1 --mip-max 0 mip.csv"
expect simulate_themis_greedy_value_first 'cols id,start out -e "\$1==\"W\"{exit !(\$2 == 0)}"'

# GPU types: a job free to run anywhere bids for the faster type first (v100, rho 1); a
# job bound to k80 (speed 0.3) runs there, rho 1 / 0.3
printf 'id,submit,gpus,duration,gpu_type\nany,0,2,100,\nslow,0,2,30,k80\n' > het.csv
run simulate_themis_types 0 "dl simulate --cluster 1x1x4:k80,1x1x4:v100 --policy themis het.csv"
expect simulate_themis_types_fastest 'cols id,gpu_type,end out -e "\$1==\"any\"{if (\$2 != \"v100\" || \$3 != 100) exit 1} \$1==\"slow\"{if (\$2 != \"k80\" || \$3 != 100) exit 1}"'

# a job never waits forever on an idle cluster (each run below hung before: timeout 60 makes
# a hang fail fast). 1. The best-fit nodes for one GPU are the 4-GPU k80s, where 520 s of
# work takes 1733 s, worse than waiting a lease (600 s) for a v100: those are no bids and
# take no bid's place, so it bids for a v100 and runs there at once (rho 1)
printf 'id,submit,gpus,duration\nL,0,1,520\n' > k80fit.csv
run simulate_themis_worthless_skipped 0 "timeout 60 dl simulate --cluster 2x8x8:v100,2x8x4:k80 --policy themis k80fit.csv"
expect simulate_themis_worthless_skipped_v100 '[ "$(rho_of out)" = "L 1.000000" ] && grep -q ",node,1,v100,themis," out'
# 2. its best rate is that of types with room for its gang: the v100 node cannot hold 4
# GPUs, so G's ideal is the k80s, and it runs there at once (rho 1 / 0.3), while V has
# the v100s (with the v100's rate as its ideal, G would wait for V to end at 3000 s)
printf 'id,submit,gpus,duration\nV,0,2,3000\nG,10,4,5000\n' > gang.csv
run simulate_themis_best_has_room 0 "timeout 60 dl simulate --cluster 1x1x2:v100,1x1x4:k80 --policy themis gang.csv"
expect simulate_themis_best_has_room_k80 'cols id,start,gpu_type out -e "\$1==\"G\"{ok = \$2 == 10 && \$3 == \"k80\"} END{exit !ok}"'
# 3. one rack of a v100 and a k80 node (the only rack that holds 8 GPUs) and one of a v100:
# its best rate is the v100's, its only rack-tier placement runs at the k80's, never worth
# waiting for; on an idle cluster it bids anyway and runs there (rho 1 / 0.3)
cat > mixed.json <<'JSON'
{"racks": [
  {"nodes": [{"count": 1, "gpus": 4, "type": "v100"}, {"count": 1, "gpus": 4, "type": "k80"}]},
  {"nodes": [{"count": 1, "gpus": 4, "type": "v100"}]}
]}
JSON
printf 'id,submit,gpus,duration\nR,0,8,5000\n' > rack8.csv
run simulate_themis_idle_bids 0 "timeout 60 dl simulate --cluster mixed.json --policy themis rack8.csv"
expect simulate_themis_idle_bids_runs 'cols start,tier,gpu_type out -e "NR==2{ok = \$1 == 0 && \$2 == \"rack\" && \$3 == \"k80\"} END{exit !ok}"'

# ties in a seeded order: A and B tie at 0 (rho 1 each); seed 2 gives the first lease to A
# (above), seed 1 to B, and either way they end with rho 1.5 and 2.0
run simulate_themis_seed1 0 "dl simulate --cluster 1x1x1 --policy themis --lease 60 --seed 1 $Z \
	'$S/themis_alternate.csv'"
expect simulate_themis_seed1_b_first 'cols id,start out -e "\$1==\"B\"{exit !(\$2 == 0)}" && [ "$(rho_of out | sort -k2 | awk "{printf \"%s \", \$2}")" = "1.500000 2.000000 " ]'

# per-model throughputs (--throughputs, testdata/simulate/tputs.csv): model m cannot run
# on 2 k80s (throughput 0), so w bids only for the v100s (rho 1); alone on a k80, a runs at
# 1 step/s against the v100's 4 (rho 4); spread over two v100 nodes, the table's
# unconsolidated throughput halves w's speed (rho 2 = its slowdown)
printf 'id,submit,gpus,duration,model\nw,0,2,100,m\n' > two.csv
printf 'id,submit,gpus,duration,model\na,0,1,100,m\n' > one.csv
TP=$S/tputs.csv
run simulate_themis_tput_zero 0 "dl simulate --cluster 1x1x2:k80,1x1x2:v100 --policy themis --throughputs '$TP' two.csv"
expect simulate_themis_tput_zero_v100 '[ "$(rho_of out)" = "w 1.000000" ] && grep -q ",v100,themis,1,0,,200$" out'
run simulate_themis_tput_k80 0 "dl simulate --cluster 1x1x1:k80 --policy themis --throughputs '$TP' one.csv"
expect simulate_themis_tput_k80_rho4 '[ "$(rho_of out)" = "a 4.000000" ]'
run simulate_themis_tput_spread 0 "dl simulate --cluster 1x2x1:v100 --policy themis --throughputs '$TP' two.csv"
expect simulate_themis_tput_spread_rho2 '[ "$(rho_of out)" = "w 2.000000" ] && grep -q ",rack,2,v100," out'
