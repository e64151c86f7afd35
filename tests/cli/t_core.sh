# t_core.sh: dispatch, common options, exit codes and the table layer through `dlsched cat`
J=$TESTDATA/cat/jobs.csv

# dispatch and help
run core_help 0 'dl --help'
expect core_help_lists_cat 'grep -q "^  cat " out'
run core_help_cmd 0 'dl help cat'
expect core_help_cmd_stdout 'grep -q "^usage: dlsched cat" out && ! test -s err'
run core_cmd_help 0 'dl cat --help'
expect core_cmd_help_same 'dl help cat | cmp -s - out'
run core_version 0 'dl --version'
expect core_version_libs 'grep -q "^libcsv [0-9.]*, zlib [0-9.]*, GLPK [0-9.]*, jansson [0-9.]*$" out'
run core_no_args 2 'dl'
run_says core_unknown_cmd 2 'dl frobnicate' \
	"dlsched: 'frobnicate' is not a dlsched command; see 'dlsched --help'"
run core_unknown_global 2 'dl --frob'
run_says core_unknown_opt 2 'dl cat --frob x' \
	"dlsched cat: unknown option '--frob'; see 'dlsched cat --help'"
run_says core_unknown_short 2 'dl cat -Z' \
	"dlsched cat: unknown option '-Z'; see 'dlsched cat --help'"
run_says core_missing_arg 2 'dl cat -o' \
	"dlsched cat: option '--output' needs a value; see 'dlsched cat --help'"
run core_bad_format 2 "dl cat -f xml $J"
expect core_bad_format_no_stdout '! test -s out'
run core_list_commands 0 'dl --list-commands'
expect core_list_commands_cat 'grep -qx cat out && grep -qx help out'
run core_list_options 0 'dl cat --list-options'
expect core_list_options_fields 'grep -q "^--output	PATH	" out && grep -q "^--number		" out'
# busybox-style name
run core_argv0 0 "ln -s '$DLSCHED' dlsched-cat && ./dlsched-cat $J"
expect core_argv0_same "cmp -s out '$J'"

# cat: conversions and round trips
run core_cat_csv 0 "dl cat $J"
expect core_cat_identity "cmp -s out '$J'"
run core_cat_json 0 "dl cat -f json $J"
expect_eq core_cat_json_line '{"id":3,"submit":53,"gpus":2,"duration":127,"model":"inception,v4"}' "$(sed -n 3p "$SCRATCH/out")"
run core_roundtrip 0 "dl cat -f json $J | dl cat | cmp - '$J'"
run core_roundtrip_json 0 "dl cat -f json $J > a.jsonl && dl cat a.jsonl | dl cat -f json | cmp - a.jsonl"
run core_stdin_dash 0 "dl cat - < $J | cmp - '$J'"
run core_concat 0 "dl cat -n $J - < $J"
expect core_concat_rows 'test $(wc -l < out) -eq 7 && tail -1 out | grep -q "^6,3,"'
run core_filename_col 0 "dl cat -N $J"
expect core_filename_col_hdr 'head -1 out | grep -q "^filename,id,submit"'
run core_gzip 0 "gzip -c $J > j.csv.gz && dl cat j.csv.gz | cmp - '$J'"
run core_gzip_stdin 0 "gzip -c $J | dl cat | cmp - '$J'"
run core_crlf_bom 0 "printf '\357\273\277a,b\r\n1,\"x\r\ny\"\r\n2,3' | dl cat -f json"
expect_eq core_crlf_bom_out '{"a":1,"b":"x\r\ny"}
{"a":2,"b":3}' "$(cat "$SCRATCH/out")"
run core_jsonl_in 0 "printf '{\"a\":1,\"b\":null}\n{\"a\":\"x,y\"}\n' | dl cat"
expect_eq core_jsonl_in_out 'a,b
1,
"x,y",' "$(cat "$SCRATCH/out")"
# absent is null in JSON, never "": through CSV and back,
run core_json_null 0 "printf '{\"a\":1,\"b\":null}\n' | dl cat | dl cat -f json"
expect_eq core_json_null_out '{"a":1,"b":null}' "$(cat "$SCRATCH/out")"
run core_input_format 1 "dl cat --input-format json $J"
expect core_input_format_msg "grep -q 'jobs.csv:1: bad JSON' err"

# empty input
run core_empty 0 'dl cat < /dev/null'
expect core_empty_no_output '! test -s out'
run core_header_only 0 "printf 'a,b\n' | dl cat"
expect_eq core_header_only_out 'a,b' "$(cat "$SCRATCH/out")"
run core_header_only_json 0 "printf 'a,b\n' | dl cat -f json"
expect core_header_only_json_empty '! test -s out'

# errors: exit 1, file:line, no partial output file
run core_mismatch 1 "printf 'a,b\n1,2\n3\n' > bad.csv && dl cat bad.csv"
expect_eq core_mismatch_msg 'dlsched cat: bad.csv:3: expected 2 fields, got 1' "$(cat "$SCRATCH/err")"
run core_atomic_fail 1 "printf 'a,b\n1,2\n3\n' > bad.csv && dl cat -o out.csv $J bad.csv"
expect core_atomic_no_file '! test -e out.csv && ! ls .out.csv* 2>/dev/null | grep -q .'
run core_atomic_keeps_old 1 "echo old > keep.csv && dl cat -o keep.csv bad.csv"
expect core_atomic_old_intact 'test "$(cat keep.csv)" = old'
run core_atomic_ok 0 "dl cat -o o.csv $J && cmp o.csv '$J'"
run_says core_missing_file 1 'dl cat nonexistent.csv' \
	"dlsched cat: cannot open 'nonexistent.csv': No such file or directory"
run core_directory 1 'dl cat /'
run core_columns_differ 1 "printf 'x,y\n1,2\n' > other.csv && dl cat $J other.csv"
run core_unterminated 1 "printf 'a,b\n1,\"2\n' | dl cat"
expect_eq core_unterminated_msg 'dlsched cat: <stdin>:2: unterminated quoted field' "$(cat "$SCRATCH/err")"
run core_bad_output_dir 1 "dl cat -o /nonexistent/x.csv $J"
run_says core_write_error 1 "dl cat $J > /dev/full" \
	"dlsched cat: write error on standard output: No space left on device"
# said once, whichever of the command and the last flush of stdout finds it
run core_write_error_json 1 "dl cat -f json $J > /dev/full"
expect_eq core_write_error_json_once 1 "$(wc -l < "$SCRATCH/err")"
run core_write_error_help 1 "dl help > /dev/full"
expect_eq core_write_error_help_once 1 "$(wc -l < "$SCRATCH/err")"

# a closed pipe ends quietly
run core_head_quiet 0 "awk 'BEGIN{print \"a,b\"; for(i=0;i<200000;i++) print i\",\"i}' > big.csv && dl cat big.csv | head -1"
expect core_head_quiet_no_err '! test -s err && test "$(cat out)" = a,b'
run core_head_quiet_json 0 "dl cat -f json big.csv | head -1"
expect core_head_quiet_json_no_err '! test -s err'

# arbitrary bytes never crash
run core_binary_garbage 1 "head -c 20000 /dev/urandom > junk; printf 'a\n\"' | cat - junk | dl cat"

# -o on something that is not a regular file writes in place, never replaces it
run core_output_devnull 0 "dl cat -o /dev/null $J"
expect core_output_devnull_still_device 'test -c /dev/null'
run core_output_fifo 0 "mkfifo ff && (cat ff > ff.out &) && dl cat -o ff $J && sleep 0.2 && cmp ff.out '$J'"
run_says core_output_dir 1 "mkdir d && dl cat -o d $J" \
	"dlsched cat: cannot write 'd': Is a directory"
