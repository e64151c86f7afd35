# b_profile.sh: dlsched profile of a ~550 MB model (torchvision vgg16, random weights)
# in every format, beside torch.load of the same .pt measured in the same run
# (best of 3 each, warm page cache). Target: under 20 ms per file, over 10x faster
# than torch.load. Needs Debian python3-torch/torchvision/numpy/onnx to build the files.

if ! /usr/bin/python3 -c 'import torch, torchvision, numpy, onnx' 2> /dev/null; then
	note "skipped: python3-torch, python3-torchvision, python3-numpy or python3-onnx missing"
	return 0
fi
M=$BENCH_TMP/profile
if ! tl=$(/usr/bin/python3 "$SRCROOT/tests/profile_models.py" "$M" --bench 2> "$BENCH_TMP/gen.log"); then
	note "skipped: could not build the models: $(tail -1 "$BENCH_TMP/gen.log")"
	return 0
fi
note "vgg16: $(awk -F'\t' '$1 == "vgg16.pt" { print $2 " tensors, " $3 " parameters" }' "$M/expected.tsv"); torch.load of vgg16.pt (in Python, best of 3): $tl s"

best3() { # FILE: sets BEST to the best of 3 wall times of dlsched profile FILE
	BEST=
	for _i in 1 2 3; do
		measure "$DLSCHED" profile "$1" || return 1
		BEST=$(awk -v a="$SECS" -v b="${BEST:-1e9}" 'BEGIN { print (a < b) ? a : b }')
	done
}

for f in vgg16.pt vgg16_legacy.pt vgg16.safetensors vgg16.npz vgg16.gguf vgg16.index vgg16.onnx \
	vgg16.h5; do
	[ -f "$M/$f" ] || continue
	size=$(wc -c < "$M/$f")
	best3 "$M/$f" || continue
	figure "profile $f ($((size / 1000000)) MB)" "$BEST" "$tl" "torch.load vgg16.pt" \
		"< 0.020 s, ratio < 0.1"
done
measure "$DLSCHED" --version
note "process start alone (dlsched --version): $SECS s"
cat "$M"/vgg16*.onnx > /dev/null
measure cat "$M/vgg16.onnx"
figure "cat vgg16.onnx > /dev/null (cached)" "$SECS" "$tl" "torch.load vgg16.pt" "(reference)"
