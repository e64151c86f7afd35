# t_profile_real.sh: dlsched profile on real model files built here with random
# weights (tests/profile_models.py: torchvision resnet18, resnet50, alexnet,
# mobilenet_v2, vgg16, an LSTM language model and a small GPT, each saved in
# every format it can; each model's files are profiled and deleted before the next
# model is built). For each file, the tensor count, parameter count and
# largest share must equal what torch, onnx or numpy report for that file.
# Needs Debian python3-torch, python3-torchvision, python3-numpy, python3-onnx;
# without them the test is recorded as skipped. Up to 4 GB of scratch space.

heavy || return 0
if ! /usr/bin/python3 -c 'import torch, torchvision, numpy, onnx' 2> /dev/null; then
	skip profile_real "python3-torch, python3-torchvision, python3-numpy or python3-onnx missing"
	return 0
fi

M=$SCRATCH/models
if ! /usr/bin/python3 "$SRCROOT/tests/profile_models.py" "$M" --dlsched="$DLSCHED" \
	> "$SCRATCH/gen.log" 2>&1; then
	_record FAIL profile_real_generate "$(tail -20 "$SCRATCH/gen.log")"
	return 0
fi
expect profile_real_generated '[ "$(wc -l < "$M/expected.tsv")" -ge 57 ]'

cp "$M/profile.csv" "$SCRATCH/got.csv"
expect_eq profile_real_no_errors "" "$(grep '^dlsched' "$SCRATCH/gen.log")"

# file -> "tensors params largest_share" from dlsched, compared with torch's numbers
while IFS=$(printf '\t') read -r f tensors params share; do
	got=$(cols file,tensors,params,largest_share "$SCRATCH/got.csv" | awk -F, -v f="$f" '$1 == f { print $2, $3, $4 }')
	set -- $got
	expect_eq "profile_real_$f" "$tensors $params ok" \
		"$1 $2 $(awk -v a="${3:-x}" -v b="$share" 'BEGIN { d = a - b; print (a != "x" && d < 5e-6 && d > -5e-6) ? "ok" : a }')"
done < "$M/expected.tsv"

# the anchors of the research note (Tiresias: skewed VGG/AlexNet, balanced ResNet)
share3() { cols file,largest_share "$SCRATCH/got.csv" | awk -F, -v f="$1" '$1 == f { printf "%.3f", $2 }'; }
expect_eq profile_real_vgg16_share 0.743 "$(share3 vgg16.pt)"
expect_eq profile_real_alexnet_share 0.618 "$(share3 alexnet.pt)"
expect_eq profile_real_resnet50_share 0.092 "$(share3 resnet50.pt)"
consol() { cols file,consolidate "$SCRATCH/got.csv" | awk -F, -v f="$1" '$1 == f { print $2 }'; }
expect_eq profile_real_consolidate "true true false false false" \
	"$(consol vgg16.pt) $(consol alexnet.safetensors) $(consol resnet50.npz) $(consol resnet18.gguf) $(consol mobilenet_v2_legacy.pt)"
