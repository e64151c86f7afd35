# t_robust_matrix.sh: malformed inputs across every command, generated here (issue 14).
#
# Each case runs under a memory limit and a timeout and must: exit with the code it
# names (1 bad data, 2 usage; never a crash), print exactly one line on stderr,
# "dlsched CMD: " followed by the expected place (FILE:LINE: where a line applies),
# and leave no -o file or temporary behind. Odd but valid inputs (issue 31: a BOM,
# all-zero throughputs, 0-byte streams) are cases too: exit 0, quiet, the output named.
T=$TESTDATA/trace

if [ "$BUILD_KIND" = asan ]; then
	# ulimit -v cannot apply to ASan (it reserves terabytes of address space)
	LIMIT="ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1:soft_rss_limit_mb=400:hard_rss_limit_mb=1200 "
else
	LIMIT="ulimit -v 400000; "
fi

ncases=0
# bad NAME RC ERE ARGS: run `dl ARGS -o out.csv`; stderr must be one line matching
# "^dlsched [a-z]+: ERE"
bad() {
	ncases=$((ncases + 1))
	rm -f out.csv .out.csv.tmp*
	run "matrix_$1" "$2" "${LIMIT}timeout 60 dl $4 -o out.csv"
	grep -v '^==[0-9]*==' "$SCRATCH/err" > "$SCRATCH/err1"
	if [ "$(wc -l < "$SCRATCH/err1")" -eq 1 ] && grep -Eq -- "^dlsched [a-z]+: $3" "$SCRATCH/err1"; then
		_record PASS "matrix_$1_message"
	else
		_record FAIL "matrix_$1_message" "want one line: dlsched CMD: $3
got: $(head -c 600 "$SCRATCH/err")"
	fi
	expect "matrix_$1_no_output" "! test -e out.csv && ! ls -a | grep -q '^\\.out\\.csv\\.tmp'"
}

# good NAME ARGS: inputs that look odd but are valid run: `dl ARGS -o out.csv` exits 0 with
# nothing on stderr and writes out.csv (what it must hold is checked after)
good() {
	ncases=$((ncases + 1))
	rm -f out.csv
	run "matrix_$1" 0 "${LIMIT}timeout 60 dl $2 -o out.csv"
	expect "matrix_$1_quiet" "! test -s '$SCRATCH/err' && test -s out.csv"
}

# ---- the table layer (dlsched cat)
printf 'id,x\n1,"abc\n' > unterminated.csv
bad csv_unterminated 1 'unterminated.csv:2: unterminated quoted field' 'cat unterminated.csv'
printf 'a,b\n1,x"y\n' > stray_quote.csv
bad csv_stray_quote 1 'stray_quote.csv:2: malformed CSV' 'cat stray_quote.csv'
printf 'a,b\n1,2\n1,2,3\n' > extra_field.csv
bad csv_extra_field 1 'extra_field.csv:3: expected 2 fields, got 3' 'cat extra_field.csv'
printf 'a,b\n1\n' > short_row.csv
bad csv_short_row 1 'short_row.csv:2: expected 2 fields, got 1' 'cat short_row.csv'
printf 'a,b\n1,x\000y\n' > nul.csv
bad csv_nul 1 'nul.csv:2: NUL byte in field' 'cat nul.csv'
printf 'a,a\n1,2\n' > dup_col.csv
bad csv_duplicate_column 1 "dup_col.csv:1: duplicate column 'a'" 'cat dup_col.csv'
printf 'a,,b\n1,2,3\n' > empty_col.csv
bad csv_empty_column 1 'empty_col.csv:1: empty column name' 'cat empty_col.csv'
# binary noise (the same bytes every run): a parse error or a NUL, at some line
awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", 1 + int(rand() * 255) }' > noise.bin
printf '\000' >> noise.bin
bad csv_binary_noise 1 'noise.bin:[0-9]+: ' 'cat noise.bin'
printf '{"a":1}\n{"a":\n' > cut.jsonl
bad json_cut 1 'cut.jsonl:2: bad JSON' 'cat cut.jsonl'
printf '{"a":1}\n[1,2]\n' > array.jsonl
bad json_not_object 1 'array.jsonl:2: expected a JSON object per line' 'cat array.jsonl'
printf '{"a":1}\n{"b":2}\n' > newkey.jsonl
bad json_new_key 1 "newkey.jsonl:2: key 'b' is not in the first record" 'cat newkey.jsonl'
printf '{"a":1}\n{"a":1,"a":2}\n' > dupkey.jsonl
bad json_duplicate_key 1 'dupkey.jsonl:2: bad JSON' 'cat dupkey.jsonl'
printf '{}\n' > empty_object.jsonl
bad json_no_keys 1 'empty_object.jsonl:1: the first JSON object has no keys' 'cat empty_object.jsonl'
printf 'id,submit\n1,0\n' | gzip | head -c 25 > cut.csv.gz
bad gzip_truncated 1 'cut.csv.gz: truncated gzip input' 'cat cut.csv.gz'
printf '\037\213\010\000\000\000\000\000\000\003not deflate at all' > corrupt.csv.gz
bad gzip_corrupt 1 'corrupt.csv.gz: corrupt gzip data' 'cat corrupt.csv.gz'
mkdir -p adir
bad input_directory 1 "cannot read 'adir': Is a directory" 'cat adir'
bad input_missing 1 "cannot open 'nosuch.csv'" 'cat nosuch.csv'

# ---- trace import
printf 'job_id,num_gpu,submit_time,duration\n1,x,0,5\n' > t_gpus.csv
bad import_tiresias_gpus 1 "t_gpus.csv:2: bad num_gpu value 'x'" 'trace import --from tiresias t_gpus.csv'
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,inf\n' > t_inf.csv
bad import_tiresias_inf 1 "t_inf.csv:2: bad duration value 'inf'" 'trace import --from tiresias t_inf.csv'
printf 'job_id,num_gpu,submit_time\n1,1,0\n' > t_nodur.csv
bad import_tiresias_column 1 "t_nodur.csv: missing required column 'duration'" 'trace import --from tiresias t_nodur.csv'
printf 'job_id,num_gpu,submit_time,duration\n1,1,2e10,5\n' > t_submit.csv
bad import_tiresias_submit 1 "t_submit.csv:2: bad submit value '20000000000': over the maximum" 'trace import --from tiresias --keep-epoch t_submit.csv'
printf 'ResNet-50 (batch size 64)\tcmd\tdir\t--n\t1\t2931\n' > g_short.trace
bad import_gavel_fields 1 'g_short.trace:1: ' "trace import --from gavel --throughputs $T/gavel_throughputs_small.json g_short.trace"
printf '[{"jobid": "a", "attempts": [' > p_cut.json
bad import_philly_json 1 'p_cut.json:1: ' 'trace import --from philly p_cut.json'
printf '[{"status": "Pass", "vc": "v", "jobid": "a", "user": "u", "submitted_time": "2017-13-45 99:00:00", "attempts": []}]\n' > p_date.json
bad import_philly_date 1 'p_date.json:1: ' 'trace import --from philly p_date.json'
printf 'j_a,ia,u1,Terminated,1000\n' > pai_jobs.csv
printf 'j_a,worker,2.0,Terminated,1100,2000,600.0,29.0,100.0,V100\n' > pai_tasks.csv
bad import_pai_fields 1 'pai_jobs.csv:1: expected the PAI job table' 'trace import --from pai pai_tasks.csv pai_jobs.csv'
printf 'job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n1,u,v,8,4,1,COMPLETED,yesterday,2020-04-01 00:00:12,2020-04-01 01:00:12,3600,2\n' > h_date.csv
bad import_helios_date 1 "h_date.csv:2: bad submit_time value 'yesterday'" 'trace import --from helios h_date.csv'
printf 'JobID|State|Submit|Start|End|AllocTRES\n1|COMPLETED|2024-02-30T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|gres/gpu=1\n' > s_date.psv
bad import_sacct_date 1 "s_date.psv:2: bad Submit value '2024-02-30T00:00:00'" 'trace import --from sacct s_date.psv'
# a UTF-8 BOM before the header (a file saved by a Windows editor) is skipped, as in CSV
printf '\357\273\277JobID|State|Submit|Start|End|AllocTRES\n7|COMPLETED|2024-03-01T00:00:00|2024-03-01T00:00:10|2024-03-01T01:00:10|gres/gpu=2\n' > s_bom.psv
good import_sacct_bom 'trace import --from sacct --tz UTC s_bom.psv'
expect_eq matrix_import_sacct_bom_job "7,0,2,3600" "$(cols id..duration out.csv | sed -n 2p)"
printf 'JobID|State|Submit|Start|End|AllocTRES\n1|COMPLETED|1971-01-01T00:00:00|1971-01-01T00:00:00|2299-01-01T00:00:00|gres/gpu=1\n' > s_long.psv
bad import_sacct_duration 1 's_long.psv:2: bad duration value .*over the maximum' 'trace import --from sacct --tz UTC s_long.psv'
printf '{"v100": {"A": {"null": 1.0' > tp_cut.json
bad import_throughputs_json 1 'tp_cut.json' 'trace import --from gavel-throughputs tp_cut.json'
printf 'job_id,num_gpu,submit_time,duration\n' > t_empty.csv
bad import_tz_unknown 2 "unknown time zone 'Nowhere/Atlantis'" 'trace import --from tiresias --tz Nowhere/Atlantis t_empty.csv'
bad import_since_bad 2 "bad --since value 'soon'" 'trace import --from tiresias --since soon t_empty.csv'
bad import_from_unknown 2 "bad --from value 'excel'" 'trace import --from excel t_empty.csv'

# ---- trace gen
printf 'duration\n10\n1e300\n' > samples_huge.csv
bad gen_samples_huge 1 "samples_huge.csv:3: bad duration value '1e300': over the maximum" 'trace gen --jobs 5 --rate 1 --duration samples:samples_huge.csv'
printf 'duration\n10\nten\n' > samples_text.csv
bad gen_samples_text 1 "samples_text.csv:3: bad duration value 'ten'" 'trace gen --jobs 5 --rate 1 --duration samples:samples_text.csv'
printf 'duration\n' > samples_none.csv
bad gen_samples_none 1 'samples_none.csv: no duration samples' 'trace gen --jobs 5 --rate 1 --duration samples:samples_none.csv'
bad gen_cluster_zero 2 '0x0x0: the cluster has no GPUs' 'trace gen --jobs 5 --load 1 --cluster 0x0x0'
bad gen_mix_zero 2 "bad --gpus value '0:1'" 'trace gen --jobs 5 --rate 1 --gpus 0:1'
bad gen_exp_negative 2 "bad --duration value 'exp:-1'" 'trace gen --jobs 5 --rate 1 --duration exp:-1'
bad gen_exp_absurd 1 "generated job 0: bad duration value '.*': over the maximum" 'trace gen --jobs 5 --rate 1 --duration exp:1e300'
bad gen_rate_tiny 1 "generated job 1: bad submit value '.*': over the maximum" 'trace gen --jobs 5 --rate 1e-300 --iid'

# ---- the jobs stream: trace stats, simulate, place, prioritize
jobs() { printf 'id,submit,gpus,duration,weight,steps\na,0,1,5,1,\n%s\n' "$2" > "$1"; }
jobs j_neg_submit.csv 'b,-1,1,5,1,'
bad stats_negative_submit 1 "j_neg_submit.csv:3: bad submit value '-1'" 'trace stats j_neg_submit.csv'
jobs j_zero_gpus.csv 'b,0,0,5,1,'
bad stats_zero_gpus 1 "j_zero_gpus.csv:3: bad gpus value '0'" 'trace stats j_zero_gpus.csv'
jobs j_many_gpus.csv 'b,0,2000000,5,1,'
bad stats_many_gpus 1 "j_many_gpus.csv:3: bad gpus value '2000000': over the maximum of 1000000" 'trace stats j_many_gpus.csv'
jobs j_nan.csv 'b,0,1,nan,1,'
bad stats_nan_duration 1 "j_nan.csv:3: bad duration value 'nan'" 'trace stats j_nan.csv'
jobs j_weight.csv 'b,0,1,5,1e7,'
bad stats_huge_weight 1 "j_weight.csv:3: bad weight value '10000000': over the maximum of 1e6" 'trace stats j_weight.csv'
jobs j_steps.csv 'b,0,1,5,1,1e16'
bad stats_huge_steps 1 "j_steps.csv:3: bad steps value '1e\\+16': over the maximum of 1e15" 'trace stats j_steps.csv'
jobs j_huge.csv 'b,0,1,1e300,1,'
bad simulate_huge_duration 1 "j_huge.csv:3: bad duration value '1e\\+300': over the maximum" 'simulate --cluster 1x1x8 j_huge.csv'
jobs j_late.csv 'b,1e11,1,5,1,'
bad simulate_huge_submit 1 "j_late.csv:3: bad submit value '100000000000': over the maximum" 'simulate --cluster 1x1x8 j_late.csv'
jobs j_noid.csv ',0,1,5,1,'
bad simulate_empty_id 1 'j_noid.csv:3: empty id value' 'simulate --cluster 1x1x8 j_noid.csv'
# --throughputs (issue 31): the reference type must be one of the table's, the table must
# have entries, and a JSON one is bounded before it is parsed
TP=$TESTDATA/simulate/tputs.csv
printf 'id,submit,gpus,duration,model\na,0,1,100,m\nb,0,2,50,m\n' > j_model.csv
bad simulate_unknown_gpu_type 2 "--gpu-type 'h900' is not a GPU type of .*tputs.csv \\(it has k80, v100, v100_unconsolidated\\)" "simulate --policy gavel --cluster 1x1x8 --throughputs $TP --gpu-type h900 j_model.csv"
bad simulate_gpu_type_alone 2 '--gpu-type is the reference type of --throughputs, which is not given' 'simulate --cluster 1x1x8 --gpu-type k80 j_model.csv'
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,5\n' > t_one.csv
bad import_gpu_type_ignored 2 '--gpu-type applies to --from gavel' 'trace import --from tiresias --gpu-type k80 t_one.csv'
bad import_throughputs_ignored 2 '--throughputs applies to --from gavel' "trace import --from tiresias --throughputs $TP t_one.csv"
bad gen_gpu_type_alone 2 '--gpu-type is the reference type of --throughputs, which is not given' 'trace gen --jobs 3 --rate 1 --gpu-type k80'
printf '{}\n' > tp_empty.json
bad simulate_throughputs_empty 1 'tp_empty.json: no throughputs in it$' 'simulate --policy gavel --cluster 1x1x8 --throughputs tp_empty.json j_model.csv'
printf '{"v100": {}, "k80": {}}' > tp_no_jobs.json
printf 'id,gpus,model\na,1,A3C\n' > a_model.csv
bad allocate_throughputs_empty 1 'tp_no_jobs.json: no throughputs in it$' 'allocate --cluster 1:0:0 --throughputs tp_no_jobs.json a_model.csv'
bad import_throughputs_empty 1 'tp_empty.json: no throughputs in it$' 'trace import --from gavel-throughputs tp_empty.json'
printf 'model,gpu_type,gpus,throughput\n' > tp_header.csv
bad simulate_throughputs_header_only 1 'tp_header.csv: no throughputs in it$' 'simulate --cluster 1x1x8 --throughputs tp_header.csv j_model.csv'
# a one-line Gavel JSON of 17 MiB (jansson takes 16 bytes a byte), and the same gzipped
awk 'BEGIN { printf "{\"v100\": {"; for (i = 0; i < 520000; i++) printf "%s\"(\047m%d\047, 1)\": {\"null\": 1.5}", (i ? ", " : ""), i; printf "}}\n" }' > tp_big.json
gzip -c tp_big.json > tp_big.json.gz
bad simulate_throughputs_huge 1 'tp_big.json: larger than the limit of 16 MiB for a throughputs JSON$' 'simulate --cluster 1x1x8 --throughputs tp_big.json j_model.csv'
bad import_throughputs_huge_gzip 1 'tp_big.json.gz: larger than the limit of 16 MiB for a throughputs JSON$' 'trace import --from gavel-throughputs tp_big.json.gz'
rm -f tp_big.json tp_big.json.gz
# all-zero entries: each job is rejected with the reason, under the allocation policy too
printf '{"v100": {"(\047m\047, 1)": {"null": 0}, "(\047m\047, 2)": {"null": 0}}, "k80": {"(\047m\047, 1)": {"null": 0}}}\n' > tp_zero.json
good simulate_throughputs_all_zero 'simulate --policy gavel --cluster 1x1x8 --throughputs tp_zero.json -q j_model.csv'
expect_eq matrix_simulate_throughputs_all_zero_reason "no throughput above 0 on any GPU type
no throughput above 0 on any GPU type" "$(cols rejected out.csv | tail -n +2)"
printf 'model,skew\nx,1\n' > prof_bad.csv
bad simulate_bad_profiles 1 'prof_bad.csv' "simulate --cluster 1x2x8 --profiles prof_bad.csv $TESTDATA/simulate/spread.csv"
bad simulate_congestion_twice 2 "bad --congestion value 'rack=2,rack=3' \\(.*each once" "simulate --cluster 1x2x8 --congestion rack=2,rack=3 $TESTDATA/simulate/small.csv"
bad place_congestion_twice 2 "bad --congestion value 'node=2,rack=2,node=2' \\(.*each once" "place --cluster 1x2x8 --congestion node=2,rack=2,node=2 $TESTDATA/place/queue.csv"
bad simulate_cluster_zero 2 '0x0x0: the cluster has no GPUs' "simulate --cluster 0x0x0 $TESTDATA/simulate/small.csv"
bad place_huge_duration 1 "j_huge.csv:3: bad duration value '1e\\+300': over the maximum" 'place --cluster 1x1x8 j_huge.csv'
jobs j_text_gpus.csv 'b,0,x,5,1,'
bad place_text_gpus 1 "j_text_gpus.csv:3: bad gpus value 'x'" 'place --cluster 1x1x8 j_text_gpus.csv'
printf 'node\nr9n9\n' > used_bad.csv
bad place_used_node 1 'used_bad.csv:2: ' "place --cluster 1x2x8 --used used_bad.csv $TESTDATA/place/queue.csv"
bad prioritize_huge_duration 1 "j_huge.csv:3: bad duration value '1e300': over the maximum" 'prioritize --policy sjf j_huge.csv'
printf 'id,submit,executed\na,0,5\nb,0,1e300\n' > exec_huge.csv
bad prioritize_huge_executed 1 "exec_huge.csv:3: bad executed value '1e300': over the maximum" 'prioritize --policy las exec_huge.csv'
bad prioritize_negative_submit 1 "j_neg_submit.csv:3: bad submit value '-1'" 'prioritize --policy fifo j_neg_submit.csv'

# ---- allocate
printf 'id,gpus,throughput_v100\na,0,1\n' > a_gpus.csv
bad allocate_zero_gpus 1 "a_gpus.csv:2: bad gpus value '0'" 'allocate --cluster 1:0:0 a_gpus.csv'
printf 'id,gpus,throughput_v100\na,1,-1\n' > a_tput.csv
bad allocate_negative_throughput 1 'a_tput.csv:2: ' 'allocate --cluster 1:0:0 a_tput.csv'
printf 'id,gpus,model\na,1,A3C\n' > a_model.csv
printf '{"v100": {' > tp_bad.json
bad allocate_bad_throughputs 1 'tp_bad.json' 'allocate --cluster 1:0:0 --throughputs tp_bad.json a_model.csv'

# ---- report
printf 'id,submit,gpus,duration,start,end\na,0,1,5,10,8\n' > r_back.csv
bad report_end_before_start 1 'r_back.csv:2: end 8 is before start 10' 'report r_back.csv'
printf 'id,submit,gpus,duration,start,end\na,0,0,5,0,5\n' > r_gpus.csv
bad report_zero_gpus 1 "r_gpus.csv:2: bad gpus value '0'" 'report r_gpus.csv'
printf 'id,submit,gpus,start,end\na,0,1,0,5\n' > r_nodur.csv
bad report_missing_column 1 "r_nodur.csv: missing required column 'duration'" 'report r_nodur.csv'
# the 1e10 s limit of every reader of times holds in report too (issue 31)
printf 'id,submit,gpus,duration,start,end,jct\na,0,1,5,0,5,5\nb,0,1,5,0,1e11,1e11\n' > r_huge_end.csv
bad report_huge_end 1 "r_huge_end.csv:3: bad end value '1e11': over the maximum of 1e10 seconds" 'report r_huge_end.csv'
printf 'id,submit,gpus,duration,start,end\na,0,1,5,0,5\nb,0,1,99999999999,0,5\n' > r_huge_dur.csv
bad report_huge_duration 1 "r_huge_dur.csv:3: bad duration value '99999999999': over the maximum of 1e10 seconds" 'report r_huge_dur.csv'
printf 'time,busy_gpus,pending\n0,1,0\n2e10,0,0\n' > r_huge_tl.csv
bad report_huge_timeline 1 "r_huge_tl.csv:3: bad time value '2e10': over the maximum of 1e10 seconds" "report --timeline r_huge_tl.csv $TESTDATA/report/fifo.csv"

# ---- profile (every reader: declared sizes, counts and kinds that do not hold)
printf '\377\377\377\377\377\377\377\177{}' > st_huge.safetensors
bad profile_safetensors_header 1 'st_huge.safetensors: offset 0: declared header size' 'profile st_huge.safetensors'
printf '\017\000\000\000\000\000\000\000{"a": {"dtype":' > st_json.safetensors
bad profile_safetensors_json 1 'st_json.safetensors: offset [0-9]+: bad JSON header' 'profile st_json.safetensors'
printf '\020\000\000\000\000\000\000\000{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,1600]}}' | head -c 24 > st_cut.safetensors
bad profile_safetensors_cut 1 'st_cut.safetensors: offset [0-9]+: ' 'profile st_cut.safetensors'
python3 -c "
def npy(name, header, extra=b''):
    h = header + ' ' * (117 - len(header)) + '\n'
    open(name, 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + extra)
npy('dtype.npy', \"{'descr': '<q3', 'fortran_order': False, 'shape': (3,), }\")
npy('shape.npy', \"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }\")
npy('short.npy', \"{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }\", bytes(16))
"
bad profile_npy_dtype 1 "dtype.npy: offset 10: unknown .npy dtype '<q3'" 'profile dtype.npy'
bad profile_npy_shape 1 'shape.npy: offset 10: shape overflows 64 bits' 'profile shape.npy'
bad profile_npy_data 1 'short.npy: offset 128: declared size 8000 bytes' 'profile short.npy'
printf 'PK\005\006\000\000\000\000\377\377\377\377\377\377\377\377\377\377\377\377\000\000' > dir.zip
bad profile_zip_directory 1 'dir.zip: offset [0-9]+: ' 'profile dir.zip'
python3 -c "
import zipfile
with zipfile.ZipFile('opcode.pt', 'w') as z:
    z.writestr('m/data.pkl', b'\x80\x02\xff.')
with zipfile.ZipFile('nostop.pt', 'w') as z:
    z.writestr('m/data.pkl', b'\x80\x02' + b']' * 100000)
"
bad profile_pickle_opcode 1 "opcode.pt: entry 'm/data.pkl': offset 2: unknown pickle opcode 0xff" 'profile opcode.pt'
bad profile_pickle_no_stop 1 "nostop.pt: entry 'm/data.pkl': offset 100002: truncated pickle: no STOP opcode" 'profile nostop.pt'
printf 'GGUF\003\000\000\000\377\377\377\377\377\377\377\377\000\000\000\000\000\000\000\000' > count.gguf
bad profile_gguf_count 1 'count.gguf: offset [0-9]+: ' 'profile count.gguf'
printf '\010\007\072\377\377\377\377\017' > cut.onnx
bad profile_onnx_length 1 'cut.onnx: offset [0-9]+: ' 'profile cut.onnx'
printf 'hello, world\n' > text.bin
bad profile_unknown_format 1 'text.bin: unrecognised model format' 'profile text.bin'
: > empty.bin
bad profile_empty 1 'empty.bin: empty file' 'profile empty.bin'
head -c 1024 /dev/zero > tar.bin
printf 'ustar' | dd of=tar.bin bs=1 seek=257 conv=notrunc 2> /dev/null
bad profile_tar 1 'tar.bin: tar archive' 'profile tar.bin'

# ---- cluster specs
printf '{"racks": [' > c_cut.json
bad cluster_json_cut 1 'c_cut.json' 'cluster show c_cut.json'
printf '{"racks": [{"nodes": [{"gpus": -4, "type": "v100"}]}]}\n' > c_negative.json
bad cluster_json_negative 1 'c_negative.json' 'cluster show c_negative.json'
bad cluster_shorthand_zero 2 '0x0x0: the cluster has no GPUs' 'cluster show 0x0x0'
bad cluster_shorthand_type 2 "unknown GPU type 'h9000'" 'cluster show 2x2x2:h9000'

# ---- empty input (issue 31): 0 bytes is a stream without rows, as a header alone, in
# every command that reads a stream (dlsched-formats(5)): exit 0, quiet, no data rows
# empty_in NAME LINES ARGS: `dl ARGS -o out.csv` exits 0, quiet, and writes LINES lines
empty_in() {
	ncases=$((ncases + 1))
	rm -f out.csv
	run "matrix_empty_$1" 0 "${LIMIT}timeout 60 dl $3 -o out.csv"
	expect "matrix_empty_$1_result" "! test -s '$SCRATCH/err' && [ \$(wc -l < out.csv) -eq $2 ]"
}
: > zero.csv
printf 'id,submit,gpus,duration\n' > header_only.csv
dl cat -f json header_only.csv > night.jsonl # a night without jobs in JSON Lines: 0 bytes
S=$TESTDATA/simulate/small.csv
empty_in cat 0 'cat zero.csv'
empty_in trace_stats 2 'trace stats -f csv zero.csv'
empty_in simulate 1 'simulate --cluster 1x1x8 zero.csv'
empty_in simulate_jsonl_night 1 'simulate --cluster 1x1x8 night.jsonl'
empty_in place 1 'place --cluster 1x1x8 zero.csv'
empty_in prioritize 1 'prioritize --policy fifo zero.csv'
empty_in allocate 1 'allocate --cluster 1:0:0 zero.csv'
empty_in report 2 'report -f csv zero.csv'
empty_in report_timeline 2 "report -f csv --timeline fifo=zero.csv $TESTDATA/report/fifo.csv"
# (an optional table: nothing added, so a header and a row per job)
empty_in simulate_profiles "$(wc -l < "$S")" "simulate --cluster 1x2x8 --profiles zero.csv $S"
empty_in place_used "$(wc -l < "$TESTDATA/place/queue.csv")" "place --cluster 1x2x8 --used zero.csv $TESTDATA/place/queue.csv"
expect_eq matrix_empty_simulate_as_header "$(dl simulate --cluster 1x1x8 header_only.csv)" "$(dl simulate --cluster 1x1x8 zero.csv)"
# where content is needed, 0 bytes says what a header alone says
bad empty_throughputs 1 'zero.csv: no throughputs in it$' 'simulate --cluster 1x1x8 --throughputs zero.csv j_model.csv'
bad empty_gittins 1 "zero.csv: no samples in column 'duration'$" 'simulate --cluster 1x1x8 --policy tiresias-gittins --distribution zero.csv j_model.csv'
bad empty_learn_from 1 'zero.csv: no completed jobs to learn from$' 'prioritize --policy gittins --learn-from zero.csv j_model.csv'

expect matrix_at_least_60_cases "[ $ncases -ge 60 ]"
