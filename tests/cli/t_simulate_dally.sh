# t_simulate_dally.sh: simulate --policy dally (#18.3-5): hand-computable cases, each
# checked against arithmetic written out here,
# then seeded directional tests of the published effects.
DL='--policy dally --rack-delay 20 --network-delay 40'
row() { # ID FILE COLUMNS: those columns (cols) of job ID's results row
	cols "id,$3" "$SCRATCH/$2" | awk -F, -v id="$1" '$1 == id' | cut -d, -f2-
}

# 1. delay then rack: 1 rack x 2 nodes x 4 GPUs, each node keeps 2 GPUs busy until 100
#    (b0, b1; f fills node 0 for a second so that b1 lands on node 1). j (4 GPUs) arrives at
#    0 with rack = 1 lease and network = 2 leases: no node holds it, so it waits until 20 and
#    takes 2 + 2 GPUs at tier rack; it then runs 50 s x the netcost slowdown of resnet50 on 4
#    GPUs across nodes (the rack link against the node's).
printf 'id,submit,gpus,duration\nb0,0,2,100\nf,0,2,1\nb1,0,2,100\nj,0,4,50\n' > "$SCRATCH/t1.csv"
run dally_rack_after_a_lease 0 "dl simulate -c 1x2x4 $DL --events ev1.jsonl t1.csv > r1.csv"
expect_eq "dally 1: j starts at 20 (one lease), tier rack, queue 20" "20,rack,20" \
	"$(row j r1.csv start,tier,queue_delay)"
expect "dally 1: placed 2 + 2" "grep -q '\"time\":20,\"job\":\"j\",\"event\":\"start\",\"gpus\":4,\"placement\":\"r0n0:2-3;r0n1:2-3\"' ev1.jsonl"
expect_eq "dally 1: run time = 50 x the rack slowdown" \
	"$(awk 'BEGIN { B = 102440820; c = 0.089; f = 3 / 4
		printf "%.4f", 50 * (c + 2 * f * B / 12.5e9 + 6 * 10e-6) / (c + 2 * f * B / 150e9 + 6 * 2e-6) }')" \
	"$(row j r1.csv run_time | awk '{ printf "%.4f", $1 }')"
# the same with the auto-tuned timers: the rack timer starts at 6 leases (120 s), so at the
# lease end 20 only a node will do: j (new, ratio 0) bids against the blockers' expired leases
# (ratio 1, a worse class) and takes node 1, which costs one victim's 2 GPUs (b1: the later
# submitted of two equals loses first); b1 saves its checkpoint (5 s), then j takes node 1
# and b1 the 2 GPUs free on node 0 at 25, paying 1 s x 2 GPUs: it ends at 25 + 2 + 80 = 107
run dally_auto_takes_a_node 0 "dl simulate -c 1x2x4 --policy dally --events ev1a.jsonl t1.csv > r1a.csv"
expect_eq "dally 1 auto: j starts at 25 on one node, b1 ends at 107 after 1 preemption" \
	"25,node,1 107,1 100,0" \
	"$(row j r1a.csv start,tier,slowdown) $(row b1 r1a.csv end,preemptions) $(row b0 r1a.csv end,preemptions)"
expect "dally 1 auto: j placed on node 1" "grep -q '\"time\":25,\"job\":\"j\",\"event\":\"start\",\"gpus\":4,\"placement\":\"r0n1:0-3\"' ev1a.jsonl"

# 2. consolidation wins: the blocker on node 0 ends at 10, before the rack timer: j takes
#    node 0 at 10 (tier node, slowdown 1)
printf 'id,submit,gpus,duration\nb0,0,2,10\nf,0,2,1\nb1,0,2,100\nj,0,4,50\n' > "$SCRATCH/t2.csv"
run dally_node_when_free 0 "dl simulate -c 1x2x4 $DL t2.csv > r2.csv"
expect_eq "dally 2: j starts at 10 on one node" "10,60,node,1" \
	"$(row j r2.csv start,end,tier,slowdown)"

# 3. a lease end consolidates: as 1 on three nodes, the third busy until 30 (c). j (200 s)
#    starts at 20 at tier rack (slowdown s); at the lease end 40 node 2 is free: j moves there
#    and pays the restart cost, 1 s x 4 GPUs; it did 20/s of work by then, so it ends at
#    40 + 4 + (200 - 20/s)
printf 'id,submit,gpus,duration\nb0,0,2,100\nf,0,2,1\nb1,0,2,100\nc,0,4,30\nj,0,4,200\n' > "$SCRATCH/t3.csv"
run dally_consolidates 0 "dl simulate -c 1x3x4 $DL --events ev3.jsonl t3.csv > r3.csv"
S1=$(awk 'BEGIN { B = 102440820; c = 0.089; f = 3 / 4
	printf "%.12g", (c + 2 * f * B / 12.5e9 + 6 * 10e-6) / (c + 2 * f * B / 150e9 + 6 * 2e-6) }')
expect_eq "dally 3: moved once, ends at 44 + 200 - 20/s, tier node" \
	"$(awk -v s="$S1" 'BEGIN { printf "%.4f,1,node", 44 + 200 - 20 / s }')" \
	"$(row j r3.csv end,migrations,tier | awk -F, '{ printf "%.4f,%s,%s", $1, $2, $3 }')"
expect "dally 3: the move is an event at 40" "grep -q '\"time\":40,\"job\":\"j\",\"event\":\"migrate\",\"gpus\":4,\"placement\":\"r0n2:0-3\"' ev3.jsonl"
# --restart-cost 0: the move is free
run dally_restart_cost_zero 0 "dl simulate -c 1x3x4 $DL --restart-cost 0 t3.csv > r3z.csv"
expect_eq "dally 3: restart cost 0: ends at 40 + 200 - 20/s" \
	"$(awk -v s="$S1" 'BEGIN { printf "%.4f", 40 + 200 - 20 / s }')" \
	"$(row j r3z.csv end | awk '{ printf "%.4f", $1 }')"

# 4. the lowest progress ratio wins. Consolidation: ja (alexnet) and jb (resnet50), 4 GPUs
#    each, both spread 2 + 2 at 20 (nodes 0-3 keep 2 GPUs busy); at 40 node 4 is free: ja,
#    the worse placed (lower ratio), gets it although jb was submitted first.
printf 'id,submit,gpus,duration,model\np0,0,2,5000,\nf0,0,2,1,\np1,0,2,5000,\nf1,0,2,1,\np2,0,2,5000,\nf2,0,2,1,\np3,0,2,5000,\nf3,0,2,1,\nc,0,4,30,\njb,0,4,1000,resnet50\nja,0,4,1000,alexnet\n' > "$SCRATCH/t4.csv"
run dally_lowest_ratio_consolidated_first 0 "dl simulate -c 1x5x4 $DL --events ev4.jsonl t4.csv > r4.csv"
expect "dally 4: ja moves to node 4 at 40" "grep -q '\"time\":40,\"job\":\"ja\",\"event\":\"migrate\",\"gpus\":4,\"placement\":\"r0n4:0-3\"' ev4.jsonl"
expect "dally 4: jb does not move at 40" "! grep -q '\"time\":40,\"job\":\"jb\",\"event\":\"migrate\"' ev4.jsonl"
# Waiting jobs: on 1 node x 2 GPUs, B and A run from 0. X (1 GPU) at 10 takes A's lease at
#    20 (equal classes, ratio 1 and queue 0: the later submitted loses) and runs 25..35; A
#    resumes at 35 paying 1 s (a restart's pause is not the network's: A's ratio stays 1).
#    Y (2 GPUs) takes both leases at 60 and runs 65..75; W (new, 1 GPU) comes at 70. When Y
#    ends at 75: W first (ratio 0), then B before A (equal classes: submit order). A, of B's
#    and W's class, takes no lease from them: it resumes when W ends at 175. B did 60 s, so
#    it ends at 75 + 1 + 940; A did 20 + 24 s and ends at 175 + 1 + 956.
printf 'id,submit,gpus,duration\nB,0,1,1000\nA,0,1,1000\nX,10,1,10\nY,50,2,10\nW,70,1,100\n' > "$SCRATCH/t6.csv"
run dally_lowest_ratio_resumes_first 0 "dl simulate -c 1x1x2 --policy dally --rack-delay 0 --network-delay 0 t6.csv > r6.csv"
expect_eq "dally 4: starts and ends (X 25, Y 65, W 75; A resumes at 75, B at 175)" \
	"X,25,35 Y,65,75 W,75,175 B,0,1016,1 A,0,1132,2" \
	"$(cols id,start,end,preemptions "$SCRATCH/r6.csv" | awk -F, 'NR > 1 { printf "%s%s,%s,%s%s", (NR > 2 ? " " : ""), $1, $2, $3, ($4 > 0 ? "," $4 : "") }')"
# with the auto-tuned timers the same: one node holds Y, and a node is open at once
run dally_auto_node_at_once 0 "dl simulate -c 1x1x2 --policy dally t6.csv > r6a.csv"
expect_eq "dally: auto timers: Y (2 GPUs, one node) takes both leases at 60, starts at 65" "65" \
	"$(row Y r6a.csv start)"

# GPU types: N needs a k80 (1 rack of 2 v100s, 1 rack of 2 k80s, all four busy with 1000 s
#    jobs from 0); at the lease end 20 it takes the k80 lease of Q (the later submitted k80
#    job), not V2's (the latest submitted of all, but on v100s it cannot use): N runs 25..25 +
#    10 / 0.3 (a k80 runs at 0.3 of a v100), V1 and V2 are never preempted
printf 'id,submit,gpus,duration,gpu_type\nP,0,1,1000,k80\nQ,0,1,1000,k80\nV1,0,1,1000,v100\nV2,0,1,1000,v100\nN,10,1,10,k80\n' > "$SCRATCH/ty.csv"
run dally_typed_lease 0 "dl simulate --cluster 1x1x2:v100,1x1x2:k80 --policy dally ty.csv > rty.csv"
expect_eq "dally: a typed job takes a lease of its type only" "N,25,58.333333 Q,1 V1,0 V2,0" \
	"$(row N rty.csv id,start,end) $(row Q rty.csv id,preemptions) $(row V1 rty.csv id,preemptions) $(row V2 rty.csv id,preemptions)"

# Classes: the queues of tiresias-las (its options, shared). On 1 GPU, A (1000 s) runs from
#    0; B (new) arrives at 30 and takes A's lease at 40 (A saves until 45, B runs from 45).
#    With --thresholds 100, B's 100 GPU-seconds put it in queue 1 at 145 while A (40) is still
#    in queue 0: A takes B's lease at the lease end 160 and resumes at 165, paying 1 s; A
#    reaches queue 1 at 225, B's class: A keeps its GPU and ends at 165 + 1 + 960 = 1126; B
#    then resumes, 885 s left: 1126 + 1 + 885 = 2012. With --queues 1 the ratio alone ranks
#    (both 1): A waits for B to end at 1045 and ends at 1045 + 1 + 960 = 2006.
printf 'id,submit,gpus,duration\nA,0,1,1000\nB,30,1,1000\n' > "$SCRATCH/q.csv"
run dally_queues_rank 0 "dl simulate -c 1x1x1 --policy dally --thresholds 100 q.csv > rq.csv"
expect_eq "dally: a job of a better queue takes a worse queue's lease (A 0..1126, B 45..2012)" \
	"A,0,1126,1 B,45,2012,1" "$(cols id,start,end,preemptions "$SCRATCH/rq.csv" | awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s", (NR > 2 ? " " : ""), $1, $2, $3, $4 }' | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
run dally_one_queue 0 "dl simulate -c 1x1x1 --policy dally --queues 1 q.csv > rq1.csv"
expect_eq "dally --queues 1: the ratio alone ranks (B 45..1045, A ends at 2006)" \
	"A,0,2006,1 B,45,1045,0" "$(cols id,start,end,preemptions "$SCRATCH/rq1.csv" | awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s", (NR > 2 ? " " : ""), $1, $2, $3, $4 }' | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
# --starvation 1 with --thresholds 10 (both jobs in queue 1 after 10 s): A, preempted at 40
#    after 40 s of running, is promoted when it has waited 40 s (at 85) and takes B's lease
#    at 100 (resumes at 105); B, which ran 45..100, is promoted at 105 + 55 = 160
run dally_starvation 0 "dl simulate -c 1x1x1 --policy dally --thresholds 10 --starvation 1 --events evq.jsonl q.csv"
expect_eq "dally --starvation: A promoted at 85, resumes at 105; B promoted at 160" "85 105 160" \
	"$(awk -F'[:,]' '/"job":"A","event":"promote"/ && !a { a = $2 } /"job":"A","event":"resume"/ && !r { r = $2 } /"job":"B","event":"promote"/ && !b { b = $2 } END { print a, r, b }' "$SCRATCH/evq.jsonl")"
run dally_queues_bad 2 "dl simulate -c 1x1x1 --policy dally --queues 65 q.csv"

# options: the timers are the dally options of place too, and belong to --policy dally here;
# dally places jobs itself, whatever --place says
run dally_place_ignored 0 "dl simulate -c 1x2x4 $DL --place spread t1.csv"
expect "dally: --place does not change its placements" "cmp -s out r1.csv"
run dally_options_other_policy 2 "dl simulate -c 1x2x4 --policy fifo --rack-delay 20 t1.csv"
expect_eq "dally: its options with another policy" "dlsched simulate: --rack-delay applies to --policy dally; see 'dlsched simulate --help'" "$(cat "$SCRATCH/err")"
run dally_restart_cost_other_policy 2 "dl simulate -c 1x2x4 --policy fifo --place dally --restart-cost 3 t1.csv"
run dally_bad_lease 2 "dl simulate -c 1x2x4 --policy dally --lease 0 t1.csv"
run dally_bad_delay 2 "dl simulate -c 1x2x4 --policy dally --rack-delay soon t1.csv"
expect_eq "dally: bad --rack-delay message" "dlsched simulate: bad --rack-delay value 'soon' (auto or a number of seconds in 0..10000000000)" "$(cat "$SCRATCH/err")"

# 5. directional (#18.4), seeded: a network-heavy Dally workload (70% alexnet/vgg16) at load 1
#    on 4 racks x 4 nodes x 8 GPUs. Placement loss = the sum of the comm_overhead_s column
#    (the time lost to where jobs ran, restarts and checkpoints not included).
heavy || return 0
dl trace gen --preset dally --network-heavy 0.7 --seed 1 --jobs 600 --load 1.0 -c 4x4x8 > "$SCRATCH/w.csv"
Z='--checkpoint-cost 0 --restore-cost 0'
summary() { # FILE: mean JCT, mean queue delay, placement loss
	cols jct,queue_delay,comm_overhead_s "$SCRATCH/$1" |
		awk -F, 'NR > 1 { n++; j += $1; q += $2; l += $3 } END { printf "%.6g %.6g %.6g", j / n, q / n, l }'
}
for g in none cluster=2 cluster=4; do
	c=
	[ $g = none ] || c="--congestion $g"
	dl simulate -c 4x4x8 --policy dally $c w.csv > "$SCRATCH/d_$g.csv"
	dl simulate -c 4x4x8 --policy tiresias-las --place first-fit $Z $c w.csv > "$SCRATCH/f_$g.csv"
	dl simulate -c 4x4x8 --policy tiresias-las --place spread $Z $c w.csv > "$SCRATCH/s_$g.csv"
	set -- $(summary "d_$g.csv") $(summary "f_$g.csv") $(summary "s_$g.csv")
	expect "dally directional, congestion $g: placement loss under a tenth of first-fit's and spread's ($3 vs $6, $9)" \
		"awk 'BEGIN { exit !($3 * 10 < $6 && $3 * 10 < $9) }'"
	expect "dally directional, congestion $g: lower mean JCT and queue delay than first-fit and spread" \
		"awk 'BEGIN { exit !($1 < $4 && $1 < $7 && $2 < $5 && $2 < $8) }'"
	eval "gap_$(echo $g | tr '=' '_')='$(awk -v a="$3" -v b="$6" -v x="$1" -v y="$4" 'BEGIN { print b - a, y - x }')'"
done
# the gaps (first-fit's loss and mean JCT minus dally's) grow as the cross-rack bandwidth is
# divided by 2 and 4
expect "dally directional: the loss gap grows with congestion ($gap_none / $gap_cluster_2 / $gap_cluster_4)" \
	"awk -v a='$gap_none' -v b='$gap_cluster_2' -v c='$gap_cluster_4' 'BEGIN { split(a, x, \" \"); split(b, y, \" \"); split(c, z, \" \"); exit !(x[1] < y[1] && y[1] < z[1] && x[2] < y[2] && y[2] < z[2]) }'"

# Against strict consolidation (tiresias-las --place consolidate: as consolidated as the free
# GPUs allow, taking a node's GPUs first), on a network-heavy mixed workload (70% heavy models,
# Helios-like gangs up to 16 GPUs) that queues on 4 x 4 x 4 GPUs: at load 1.5 dally has the
# lower mean JCT and mean queue delay on each of three seeds (measured: JCT 23.7k/20.8k/27.1k
# s against 31.3k/30.6k/32.3k), and its mean JCT gain over the seeds is larger at load 1.5
# than at 1.2 (measured 24% and 15%): waiting a few leases for a node, then taking the expired
# leases of worse-class jobs, queues less than insisting on a node.
gain() { # LOAD: the mean JCT of the three seeds, dally's then consolidate's; exit 1 if a seed goes the wrong way
	for seed in 1 2 3; do
		dl trace gen --preset dally --network-heavy 0.7 --seed $seed --jobs 1000 --load $1 -c 4x4x4 > "$SCRATCH/v.csv"
		dl simulate -c 4x4x4 --policy dally v.csv > "$SCRATCH/vd.csv"
		dl simulate -c 4x4x4 --policy tiresias-las --place consolidate v.csv > "$SCRATCH/vc.csv"
		echo "$(summary vd.csv) $(summary vc.csv)"
	done
}
gain 1.5 > "$SCRATCH/g15"
gain 1.2 > "$SCRATCH/g12"
expect "dally directional, load 1.5: lower mean JCT and queue delay than strict consolidation on every seed ($(tr '\n' '|' < "$SCRATCH/g15"))" \
	"awk '!(\$1 < \$4 && \$2 < \$5) { bad = 1 } END { exit bad }' g15"
expect "dally directional: the JCT gain over strict consolidation grows with load (1.2 -> 1.5)" \
	"awk 'FNR == 1 { f++ } { d[f] += \$1; c[f] += \$4 } END { g12 = 1 - d[1] / c[1]; g15 = 1 - d[2] / c[2]; exit !(g12 > 0 && g15 > g12) }' g12 g15"
