# lib.sh: helpers for the shell CLI tests (sourced by tests/run.sh for each t_*.sh).
#
# Environment: DLSCHED (absolute path of the binary under test), TESTDATA
# (absolute path of testdata/), SCRATCH (an empty directory for this test file,
# also the working directory), BUILD_KIND (normal or asan; skip expensive work
# under asan with `heavy || return 0`), RESULTS (file the counts go to).
#
#   run NAME RC 'shell command'     run the command (in sh, in $SCRATCH); pass if it
#                                  exits RC, no crash, and stdout equals
#                                  testdata/golden/NAME.out and stderr equals
#                                  testdata/golden/NAME.err when those files exist.
#                                  Its output is then in $SCRATCH/out and $SCRATCH/err.
#                                  UPDATE_GOLDEN=1 rewrites existing goldens
#                                  (review the diff!); GOLDEN_CREATE=1 also creates
#                                  missing ones.
#   expect NAME 'shell condition'  pass if the condition (eval'd) is true
#   expect_eq NAME WANT GOT        pass if the strings are equal
#   skip NAME REASON               record a skipped test (printed, counted)
#   heavy                          false under the sanitizer build
#   need_slurm NAME                true when the shared test Slurm runs (SLURM_CONF is then
#                                  exported); else records a skip with the reason. Files
#                                  using it say "# needs: slurm" so tests/run.sh starts it.
# `dl` is a function calling the binary, so commands read: run x 0 'dl cat a.csv'
#   cols LIST [FILE...]            the named columns of a CSV with a header, header included:
#                                  `cols id,end,tier out` (tests/cli/cols). Pick results,
#                                  report and timeline columns by name, never by position:
#                                  a column added to the stream must not move a test's value.

# (`dl` itself is a tiny script on PATH that execs $DLSCHED; tests/run.sh makes it.)

_record() { # STATUS NAME [DETAIL]
	printf '%s\n' "$1" >> "$RESULTS"
	case $1 in
	PASS) [ -n "$VERBOSE" ] && printf 'PASS: %s %s\n' "$CASE_PREFIX" "$2" ;;
	FAIL) printf 'FAIL: %s %s\n' "$CASE_PREFIX" "$2"; [ -n "$3" ] && printf '%s\n' "$3" | sed 's/^/    /' | head -40 ;;
	SKIP) printf 'SKIP: %s %s (%s)\n' "$CASE_PREFIX" "$2" "$3" ;;
	esac
	return 0
}

heavy() { [ "$BUILD_KIND" = normal ]; }

need_slurm() {
	if [ -n "$DLSCHED_SLURM_CONF" ]; then
		SLURM_CONF=$DLSCHED_SLURM_CONF
		export SLURM_CONF
		return 0
	fi
	skip "$1" "${DLSCHED_SLURM_SKIP:-no test Slurm}"
	return 1
}

run() { # NAME RC CMD
	_name=$1 _want=$2 _cmd=$3
	(cd "$SCRATCH" && sh -c "$_cmd") > "$SCRATCH/out" 2> "$SCRATCH/err" < /dev/null
	_rc=$?
	_why=
	if [ "$_rc" = 124 ]; then
		_why="timed out (a dlsched run took over DLSCHED_TEST_TIMEOUT seconds)
$(head -c 1000 "$SCRATCH/err")"
	elif [ "$_rc" -ge 126 ]; then
		_why="crashed or killed: exit $_rc
$(head -c 2000 "$SCRATCH/err")"
	elif [ "$_rc" != "$_want" ]; then
		_why="exit $_rc, wanted $_want
stderr: $(head -c 1000 "$SCRATCH/err")"
	fi
	for _s in out err; do
		_g="$TESTDATA/golden/$_name.$_s"
		if [ -f "$_g" ] || [ -n "$GOLDEN_CREATE" ]; then
			if [ -n "$UPDATE_GOLDEN" ] && [ "$BUILD_KIND" = normal ] && [ -z "$_why" ]; then
				mkdir -p "$TESTDATA/golden"
				cp "$SCRATCH/$_s" "$_g"
			elif [ -f "$_g" ] && ! cmp -s "$_g" "$SCRATCH/$_s"; then
				_why="$_why
std$_s differs from golden/$_name.$_s:
$(diff "$_g" "$SCRATCH/$_s" | head -20)"
			fi
		fi
	done
	if [ -z "$_why" ]; then _record PASS "$_name"; else _record FAIL "$_name" "$_why"; fi
}

expect() { # NAME COND
	if (cd "$SCRATCH" && eval "$2") > /dev/null 2>&1; then _record PASS "$1"
	else _record FAIL "$1" "condition failed: $2"; fi
}

expect_eq() { # NAME WANT GOT
	if [ "$2" = "$3" ]; then _record PASS "$1"
	else _record FAIL "$1" "want: $2
got:  $3"; fi
}

skip() { _record SKIP "$1" "$2"; }

run_says() { # NAME RC CMD MESSAGE: run, and NAME_msg checks that stderr is MESSAGE exactly
	run "$1" "$2" "$3"
	expect_eq "$1_msg" "$4" "$(cat "$SCRATCH/err")"
}

expect_with() { # TOOL NAME COND [PACKAGE]: expect, or skip when TOOL is not installed
	if command -v "$1" > /dev/null; then expect "$2" "$3"
	else skip "$2" "$1 not installed${4:+ ($4)}"; fi
}
