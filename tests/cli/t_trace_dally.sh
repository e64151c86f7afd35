# t_trace_dally.sh: trace gen --preset dally and --network-heavy (#18: the workload of the
# directional tests): Helios-like gangs {1,2,4,8,16}, Philly durations, models drawn from the
# network cost table with a share P network-heavy (sensitivity >= 0.25)
MIX=1:0.5,2:0.15,4:0.15,8:0.12,16:0.08

run trace_gen_dally 0 "dl trace gen --preset dally --seed 5 --jobs 20000 --rate 60 > d.csv"
# the mix: only the five gang sizes, each within 1.5 points of its weight
expect_eq "dally preset: gang shares" "1 ok
2 ok
4 ok
8 ok
16 ok" "$(cols gpus "$SCRATCH/d.csv" | awk -F, 'BEGIN { w[1] = 0.5; w[2] = 0.15; w[4] = 0.15; w[8] = 0.12; w[16] = 0.08 }
	NR > 1 { c[$1]++; n++ }
	END { for (g in c) { d = c[g] / n - w[g]; print g, (d < 0.015 && d > -0.015) ? "ok" : c[g] / n } }' |
	sort -n)"
# half network-heavy by default; heavy means sensitivity >= 0.25 in the cost table
run trace_gen_dally_models 0 "dl cluster models > m.csv"
cols model,sensitivity m.csv > m.sensitivity
expect_eq "dally preset: heavy share 0.5 (within 0.01)" "ok" \
	"$(cols model "$SCRATCH/d.csv" | awk -F, 'NR == FNR { if (FNR > 1) h[$1] = ($2 >= 0.25); next }
		FNR > 1 { n++; if (!($1 in h)) bad++; k += h[$1] }
		END { d = k / n - 0.5; print (!bad && d < 0.01 && d > -0.01) ? "ok" : k / n " " bad }' \
		"$SCRATCH/m.sensitivity" -)"
run trace_gen_dally_heavy_all 0 "dl trace gen --preset dally --jobs 500 --rate 60 --network-heavy 1"
expect_eq "network-heavy 1: only alexnet and vgg16" "alexnet vgg16" \
	"$(cols model "$SCRATCH/out" | awk 'NR > 1 { c[$1] = 1 } END { for (m in c) print m }' | sort | tr '\n' ' ' | sed 's/ $//')"
run trace_gen_dally_heavy_none 0 "dl trace gen --preset dally --jobs 500 --rate 60 --network-heavy 0"
expect "network-heavy 0: no heavy model" "! grep -q ',alexnet$\|,vgg16$' out"
run trace_gen_dally_heavy_share 0 "dl trace gen --preset dally --seed 2 --jobs 20000 --rate 60 --network-heavy 0.3"
expect "network-heavy 0.3: 30% heavy (within 1 point)" \
	"cols model out -e 'NR > 1 { n++; k += (\$1 == \"alexnet\" || \$1 == \"vgg16\") } END { exit !(k / n > 0.29 && k / n < 0.31) }'"
# the model draw has its own stream: arrivals, gangs and durations are those of the same mix
# without models, whatever P is
run trace_gen_dally_streams 0 "dl trace gen --seed 5 --jobs 300 --rate 60 --gpus $MIX > plain.csv &&
	dl trace gen --preset dally --seed 5 --jobs 300 --rate 60 --network-heavy 0.9 | cols id..duration > d9.csv &&
	cmp plain.csv d9.csv && dl trace gen --preset dally --seed 5 --jobs 300 --rate 60 | cols id..duration | cmp - plain.csv"
# --network-heavy without the preset keeps the default (Philly) mix and adds models
run trace_gen_network_heavy_alone 0 "dl trace gen --seed 5 --jobs 300 --rate 60 --network-heavy 0.2 | cols id..duration > a.csv && dl trace gen --seed 5 --jobs 300 --rate 60 | cmp - a.csv"
# --load uses the preset's mean GPUs (3.64) and Philly's mean duration
run trace_gen_dally_load 0 "dl trace gen --preset dally --jobs 10 --load 1.2 -c 2x4x8 -v"
expect "dally preset: the rate for load 1.2 on 64 GPUs" \
	"grep -q 'load 1.2 on 64 GPUs: ' err"
run trace_gen_dally_same_seed 0 "dl trace gen --preset dally --seed 9 --jobs 50 --rate 60 > a.csv && dl trace gen --preset dally --seed 9 --jobs 50 --rate 60 | cmp - a.csv"
run trace_gen_dally_tputs 2 "dl trace gen --preset dally --jobs 5 --rate 1 --throughputs $TESTDATA/allocate/throughputs.csv"
run trace_gen_dally_single 2 "dl trace gen --preset dally --jobs 5 --rate 1 --single-gpu"
run trace_gen_network_heavy_bad 2 "dl trace gen --jobs 5 --rate 1 --network-heavy 1.5"
expect_eq "network-heavy out of range: the message" "dlsched trace: bad --network-heavy value '1.5' (a number in 0..1)" "$(cat "$SCRATCH/err")"
