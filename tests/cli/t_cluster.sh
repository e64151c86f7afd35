# t_cluster.sh: dlsched cluster show|types|models on every spec form
T=$TESTDATA/cluster

run cluster_show_shorthand 0 'dl cluster show 2x16x8:v100,1x16x4:k80'
run cluster_show_nodes_csv 0 "dl cluster show -f csv $T/small.json"
run cluster_show_pai_types 0 "dl cluster show -f csv --by type $T/pai_machine_spec.csv"
expect cluster_pai_total "grep -qx 'all,1814,6742,,,' out"
run cluster_show_tiresias 0 "dl cluster show -f csv --by rack $T/n160g8.csv"
expect cluster_tiresias_racks "test \$(grep -c ',32,256,v100$' out) -eq 5"
run cluster_show_gavel 0 "dl cluster show -f json --by type 36:36:36"
expect cluster_gavel_all 'grep -q "\"gpu_type\":\"all\",\"nodes\":108,\"gpus\":108" out'
run cluster_show_gavel_json 0 "dl cluster show -f csv --by type '$T/gavel_specs_heterogeneous.json#philly'"
expect cluster_gavel_json_all "grep -q '^all,900,900' out"
run cluster_show_o 0 "dl cluster show -f csv 1x2x4 -o nodes.csv && test \$(wc -l < nodes.csv) -eq 3"
run cluster_types 0 'dl cluster types'
expect cluster_types_v100 "grep -qx 'v100,1,16,2.48' out"
run cluster_models 0 "dl cluster models --profiles $TESTDATA/place/profiles.csv"
expect cluster_models_profile "grep -q '^vgglike,553430176,3.28,' out && grep -q '^resnet50,' out"

# errors: one line, file:line where there is one, exit 1; usage errors exit 2
run_says cluster_bad_type 2 'dl cluster show 2x2x2:x9000' \
	"dlsched cluster: unknown GPU type 'x9000' in cluster spec"
run cluster_bad_json_type 1 "dl cluster show $T/bad_type.json"
expect cluster_bad_json_type_line "grep -q 'bad_type.json:5: racks\[0\].nodes\[1\]: unknown GPU type .x9000.' err"
run cluster_bad_spec 2 'dl cluster show 2x16'
run cluster_missing_file 1 'dl cluster show nosuch.json'
run cluster_bad_json 1 "printf '{\"racks\": [' > b.json && dl cluster show b.json"
expect cluster_bad_json_line "grep -q '^dlsched cluster: b.json:1: bad JSON' err"
run_says cluster_bad_pai 1 "printf 'm1,V100,96,512,8\nm2,V100,96,512,x\n' > p.csv && dl cluster show p.csv" \
	"dlsched cluster: p.csv:2: bad cap_gpu value 'x'"
run cluster_no_sub 2 'dl cluster'
run cluster_bad_sub 2 'dl cluster frob'
run cluster_bad_by 2 'dl cluster show --by disk 1x1x1'

# clusters from Slurm's own node lists (real output of slurmctld 22.05, testdata/cluster/slurm)
S=$T/slurm
run cluster_show_scontrol 0 "dl cluster show '$S/scontrol_show_node_o.txt'"
expect cluster_show_scontrol_rack "grep -qx '  slurm          5 nodes     24 GPUs: 2 x 8 a100, 1 x 2 v100, 1 x 2 a100, 1 x 4 gpu' out"
expect cluster_show_scontrol_speed "grep -q '^  a100            18 GPUs  speed 1 ' out"
run cluster_show_sinfo_nodes 0 "dl cluster show -f csv '$S/sinfo_N.txt'"
cp out sinfo_nodes.csv
expect_eq cluster_sinfo_localhost_once 1 "$(grep -c '^localhost/v100,slurm,v100,2,16,2,' out)"
run cluster_show_scontrol_same 0 "dl cluster show -f csv '$S/scontrol_show_node_o.txt' | cmp - sinfo_nodes.csv"
run cluster_show_slurm_stdin 0 "dl cluster show -f csv --by type - < '$S/scontrol_show_node.txt'"
expect_eq cluster_slurm_types "a100,3,18,1,40,2.93
v100,1,2,1,16,2.48
gpu,1,4,1,0,0
all,5,24,,," "$(tail -n +2 out)"
run_says cluster_sinfo_aggregated 1 "dl cluster show '$S/sinfo_aggregated.txt'" \
	"dlsched cluster: $S/sinfo_aggregated.txt:2: 'gpu[01-02]' is a list of nodes: run sinfo with -N (one line per node)"
# every --cluster takes it: a typed job runs on its type, one larger than its type is dropped
printf 'id,submit,gpus,duration,gpu_type\na,0,8,10,a100\nb,0,2,10,v100\nc,0,4,10,\nd,0,3,10,v100\n' > typed.csv
run cluster_slurm_simulate 0 "dl simulate -q --policy fifo --cluster '$S/scontrol_show_node_o.txt' typed.csv | cols id,start,end,gpu_type"
expect cluster_slurm_simulate_types "grep -qx 'a,0,10,a100' out && grep -qx 'b,0,10,v100' out"
