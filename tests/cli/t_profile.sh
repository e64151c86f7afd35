# t_profile.sh: dlsched profile on the small hand-made fixtures of testdata/profile/
# (made by tests/profile_fixtures.py; see testdata/profile/NOTE). No torch needed.

# lib.sh reads these under set -u; default them to empty (not set by tests/run.sh)
: "${UPDATE_GOLDEN:=}" "${GOLDEN_CREATE:=}"
P=$TESTDATA/profile
GOOD="bigendian_v2.npy checkpoint.pt keras.h5 keras3.keras latest.h5 proto4.pt q4_v2.gguf
renamed_root.pt scalar.npy tied.pt tiny.gguf tiny.index tiny.npy tiny.npz tiny.onnx tiny.pt
tiny.safetensors tiny_legacy.pt tiny_z.npz userblock.h5 zip64.npz zip64.pt
sharded/model.safetensors.index.json"
export P GOOD

# one row per file, every format; the golden was checked by hand against the
# generator (tensor counts, parameters, bytes; weights only)
run profile_fixtures 0 'cd "$P" && "$DLSCHED" profile $GOOD'
run profile_tensors 0 'cd "$P" && "$DLSCHED" profile --tensors checkpoint.pt tiny.onnx tiny.index tiny.safetensors tiny.gguf q4_v2.gguf bigendian_v2.npy tiny_z.npz keras.h5 latest.h5'
run profile_all_tensors 0 'cd "$P" && "$DLSCHED" profile --all-tensors -f json tiny.pt checkpoint.pt tiny.onnx tiny.index'

# the same weights in every container give the same figures
run profile_same 0 'cd "$P" && "$DLSCHED" profile tiny.pt tiny_legacy.pt renamed_root.pt zip64.pt proto4.pt checkpoint.pt'
expect profile_same_rows '[ "$(cols tensors.. out | sort -u | wc -l)" -eq 2 ]'

# a sharded checkpoint's index is one model: its shards' tensors in shard order
run profile_sharded 0 'cd "$P" && "$DLSCHED" profile --tensors sharded/model.safetensors.index.json'

# format by content, not by name
cp "$P/tiny.safetensors" weights.bin
cp "$P/tiny.pt" model.onnx
run profile_by_content 0 '"$DLSCHED" profile -f json weights.bin model.onnx'
expect profile_by_content_st 'grep -q "\"format\":\"safetensors\",\"tensors\":5" out'
expect profile_by_content_pt 'grep -q "\"format\":\"pytorch\",\"tensors\":6" out'

# options
run profile_name 0 '"$DLSCHED" profile --name resnet --ps 2 --threshold 1 "$P/tiny.pt"'
expect profile_name_col 'tail -1 out | grep -q "^resnet,"'
expect profile_ps_col 'tail -1 out | grep -q ",2,[0-9.]*,true$"'
run profile_key 0 '"$DLSCHED" profile --key model.state_dict --tensors --all-tensors "$P/checkpoint.pt"'
expect profile_key_names '[ "$(cols name out | sed -n 2p)" = "0.weight" ] && [ "$(wc -l < out)" -eq 10 ]'
run profile_key_missing 1 '"$DLSCHED" profile --key nope "$P/checkpoint.pt" "$P/tiny.npy"'
expect profile_key_missing_msg 'grep -q "checkpoint.pt: no tensor under the key .nope." err'
run profile_threshold 0 '"$DLSCHED" profile --threshold 100 "$P/tiny.npy"'
expect profile_threshold_false 'tail -1 out | grep -q ",false$"'
run profile_ps1 0 '"$DLSCHED" profile --ps 1 "$P/tiny.npz"'
expect profile_ps1_balanced 'tail -1 out | grep -q ",1,1,1,0,false$"'
run profile_verbose 0 '"$DLSCHED" profile -v "$P/tiny.onnx"'
expect profile_verbose_msg 'grep -q "tiny.onnx: onnx, 6 tensors" err'
run profile_no_file 2 '"$DLSCHED" profile'
run profile_bad_ps 2 '"$DLSCHED" profile --ps 0 "$P/tiny.pt"'
run profile_bad_threshold 2 '"$DLSCHED" profile --threshold x "$P/tiny.pt"'

# bad input: one line per bad file naming file and offset or entry, the good
# files still profiled, exit 1 at the end
run profile_bad_inputs 1 'cd "$P" && "$DLSCHED" profile bad_count.gguf bad_header.safetensors bad_offsets.safetensors bad_opcode.pt tiny.pt bad_size.npy bad_truncated.onnx bad_truncated.pt bad_unknown.bin bad_wiretype.onnx bad_zipdir.pt bad_dense.h5 bad_deflated.keras bad_truncated.h5 bad_index.json tiny.npy'
expect profile_bad_inputs_rows '[ "$(wc -l < out)" -eq 3 ]'
expect profile_bad_inputs_lines '[ "$(wc -l < err)" -eq 14 ]'
run profile_missing 1 '"$DLSCHED" profile nosuchfile "$P/tiny.pt"'
expect profile_missing_msg 'grep -q "nosuchfile: cannot open" err'
run profile_empty 1 ': > empty.pt; "$DLSCHED" profile empty.pt'
expect profile_empty_msg 'grep -q "empty.pt: empty file" err'
run profile_dir 1 '"$DLSCHED" profile "$P"'
run profile_stdin 1 '"$DLSCHED" profile - < "$P/tiny.pt"'
expect profile_stdin_msg 'grep -q "standard input" err'
# -o: no partial file when a file fails
run profile_atomic 1 '"$DLSCHED" profile -o res.csv "$P/tiny.pt" "$P/bad_opcode.pt"'
expect profile_atomic_nofile '[ ! -e res.csv ]'
run profile_output 0 '"$DLSCHED" profile -o res.csv "$P/tiny.pt"'
expect profile_output_file '[ "$(wc -l < res.csv)" -eq 2 ]'

# corruptions of every good fixture: never a crash, and a one-line error with an offset
i=0
for f in $GOOD; do
	i=$((i + 1))
	size=$(wc -c < "$P/$f")
	for cut in 1 9 $((size / 3)) $((size / 2)) $((size - 9)); do
		[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$P/$f" > "cut${i}_$cut"
	done
done
run profile_truncations_nocrash 1 'for f in cut*; do "$DLSCHED" profile "$f" > /dev/null 2>> errs; r=$?; [ $r -ge 2 ] && exit $r; done; cat errs >&2; exit 1'
expect profile_truncations_one_line '[ "$(grep -c "^dlsched profile: cut[0-9_]*: " err)" -eq "$(ls cut* | wc -l)" ]'

# determinism
run profile_det1 0 'cd "$P" && "$DLSCHED" profile --tensors $GOOD > /tmp/profile_det_$$ && "$DLSCHED" profile --tensors $GOOD | cmp - /tmp/profile_det_$$; r=$?; rm -f /tmp/profile_det_$$; exit $r'

# man page: every long option is documented (the option list is generated into build/man)
heavy && for o in $("$DLSCHED" profile --list-options 2>/dev/null | sed -n 's/^--\([a-z-]*\).*/\1/p'); do
	expect "profile_man_$o" "grep -q -- '--$o\\*' '$BUILD/man/dlsched-profile.1.scd'"
done

# metadata only: 4 GiB sparse files (a header, then a hole where the weights would
# be) are profiled while touching a few hundred pages of the mapping; touching the
# mapped weights would fault about a million. Counted with /usr/bin/time's minor page faults.
if heavy && [ -x /usr/bin/time ]; then
	h='{"w":{"dtype":"F32","shape":[1073741824],"data_offsets":[0,4294967296]}}'
	while [ $(( ${#h} % 8 )) -ne 0 ]; do h="$h "; done
	{ printf "\\$(printf %03o ${#h})\\0\\0\\0\\0\\0\\0\\0"; printf '%s' "$h"; } > sparse.safetensors
	h="{'descr': '<f4', 'fortran_order': False, 'shape': (1024, 1048576), }"
	while [ $(( (${#h} + 11) % 64 )) -ne 0 ]; do h="$h "; done
	{ printf '\223NUMPY\1\0'; printf "\\$(printf %03o $(( ${#h} + 1 )))\\0"; printf '%s\n' "$h"; } > sparse.npy
	truncate -s +4294967296 sparse.safetensors sparse.npy
	run profile_sparse 0 '/usr/bin/time -f "faults %R" -o faults "$DLSCHED" profile sparse.safetensors sparse.npy'
	expect profile_sparse_rows '[ "$(cols params out | tail -2 | tr "\n" " ")" = "1073741824 1073741824 " ]'
	expect profile_sparse_few_pages '[ "$(sed -n "s/^faults //p" faults)" -lt 5000 ]'
fi
