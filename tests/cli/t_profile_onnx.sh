# t_profile_onnx.sh: dlsched profile over the 1,072 model.onnx files of Debian's
# libonnx-testdata (operator tests, converted PyTorch models, subgraphs, Constant
# nodes, many dtypes): no file may fail, and each file's weight count, parameter
# count and largest share must equal what python3-onnx reports
# (tests/profile_onnx_check.py; normal build only). Skipped when either package
# is missing.

D=/usr/share/libonnx-testdata/data
if [ ! -d "$D" ] || ! /usr/bin/python3 -c 'import onnx' 2> /dev/null; then
	skip profile_onnx_testdata "libonnx-testdata or python3-onnx missing"
	return 0
fi
find "$D" -name '*.onnx' | LC_ALL=C sort > list
run profile_onnx_testdata 0 'xargs "$DLSCHED" profile -f json < list > rows.json'
expect_eq profile_onnx_testdata_rows "$(wc -l < list)" "$(wc -l < rows.json)"
expect profile_onnx_testdata_weights '[ "$(grep -vc "\"tensors\":0," rows.json)" -ge 40 ]'
heavy || return 0
run profile_onnx_testdata_match 0 '/usr/bin/python3 "$SRCROOT/tests/profile_onnx_check.py" < rows.json'
