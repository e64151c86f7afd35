#!/bin/sh
# run.sh: run every test of dlsched and end with the line "N passed, N failed".
#
#   sh tests/run.sh [--build DIR]... [--only PATTERN] [-v]
#
# For each build directory (default: build) it runs the C unit tests
# (DIR/tests/unit/test_*, TAP), the fuzz corpus replays (DIR/tests/fuzz/replay_*
# over tests/fuzz/corpus/NAME/) and the shell CLI tests (tests/cli/t_*.sh)
# against DIR/dlsched. A directory whose path contains "asan" is the sanitizer
# build: expensive tests skip themselves there.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILDS=
ONLY=
VERBOSE=
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILDS="$BUILDS $2"; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	-v) VERBOSE=1; shift ;;
	*) echo "usage: tests/run.sh [--build DIR]... [--only PATTERN] [-v]" >&2; exit 2 ;;
	esac
done
[ -n "$BUILDS" ] || BUILDS=build
export VERBOSE
RESULTS=$(mktemp)
export RESULTS
# seconds one dlsched run, unit test or fuzz replay may take before it counts as hung
TEST_TIMEOUT=${DLSCHED_TEST_TIMEOUT:-900}
TMPROOT=$(mktemp -d)
# others may pass through (not list): a user other than the one running the tests reaches
# the test Slurm's slurm.conf and munge socket inside (tests/cli/t_slurm_harness.sh)
chmod 711 "$TMPROOT"
trap 'rm -rf "$TMPROOT" "$RESULTS"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LC_ALL=C TZ=UTC

# One real Slurm (tests/slurm/slurm.sh) for every test file that says "# needs: slurm",
# started once here and shared; its SLURM_CONF is in DLSCHED_SLURM_CONF, or
# DLSCHED_SLURM_SKIP says why there is none.
DLSCHED_SLURM_CONF= DLSCHED_SLURM_SKIP=
need_slurm=
for t in "$ROOT"/tests/cli/t_*.sh; do
	n=$(basename "$t" .sh)
	[ -n "$ONLY" ] && case $n in *$ONLY*) ;; *) continue ;; esac
	grep -q '^# needs: slurm' "$t" && need_slurm=1
done
if [ -n "$need_slurm" ]; then
	if why=$(sh "$ROOT/tests/slurm/slurm.sh" check); then
		if sh "$ROOT/tests/slurm/slurm.sh" start "$TMPROOT/slurm" 2> "$TMPROOT/slurm.err"; then
			DLSCHED_SLURM_CONF=$TMPROOT/slurm/slurm.conf
			trap 'sh "$ROOT/tests/slurm/slurm.sh" stop "$TMPROOT/slurm"; rm -rf "$TMPROOT" "$RESULTS"' EXIT
		else
			echo FAIL >> "$RESULTS"
			echo "FAIL: the test Slurm did not start:"
			sed 's/^/    /' "$TMPROOT/slurm.err"
			DLSCHED_SLURM_SKIP="the test Slurm did not start"
		fi
	else
		DLSCHED_SLURM_SKIP=$why
	fi
fi
export DLSCHED_SLURM_CONF DLSCHED_SLURM_SKIP

for b in $BUILDS; do
	case $b in /*) B=$b ;; *) B=$ROOT/$b ;; esac
	case $b in *asan*) kind=asan ;; *) kind=normal ;; esac
	echo "# build $b ($kind)"
	# `dl` runs the binary under test, also inside the `sh -c` of run(); a run that
	# hangs is stopped after $TEST_TIMEOUT seconds and fails (exit 124) instead of
	# holding up the whole suite. --foreground: timeout must not move the binary into a
	# process group of its own, or under script(1)'s terminal it runs in the background and
	# `dl help cat` (which starts man) stops on SIGTTOU/SIGTTIN until the timeout (seen on CI
	# with a bare environment)
	mkdir -p "$TMPROOT/bin-$kind"
	printf '#!/bin/sh\nexec timeout --foreground -k 10 %s "%s" "$@"\n' "$TEST_TIMEOUT" "$B/dlsched" > "$TMPROOT/bin-$kind/dl"
	chmod +x "$TMPROOT/bin-$kind/dl"
	# `cols` picks CSV columns by header name, also inside run()'s `sh -c` (tests/cli/cols)
	ln -sf "$ROOT/tests/cli/cols" "$TMPROOT/bin-$kind/cols"
	for t in "$B"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		n=$(basename "$t")
		[ -n "$ONLY" ] && case $n in *$ONLY*) ;; *) continue ;; esac
		out=$(timeout -k 10 "$TEST_TIMEOUT" "$t" 2>&1); rc=$?
		p=$(printf '%s\n' "$out" | grep -c '^ok ')
		f=$(printf '%s\n' "$out" | grep -c '^not ok ')
		i=0; while [ $i -lt "$p" ]; do echo PASS >> "$RESULTS"; i=$((i+1)); done
		i=0; while [ $i -lt "$f" ]; do echo FAIL >> "$RESULTS"; i=$((i+1)); done
		if [ "$f" -gt 0 ] || [ $rc -ne 0 ]; then
			printf 'FAIL: [%s] %s (exit %d)\n' "$kind" "$n" $rc
			printf '%s\n' "$out" | grep -v '^ok ' | head -40 | sed 's/^/    /'
			[ "$f" -eq 0 ] && echo FAIL >> "$RESULTS"
		elif [ -n "$VERBOSE" ]; then
			printf 'PASS: [%s] %s (%d)\n' "$kind" "$n" "$p"
		fi
	done
	for t in "$B"/tests/fuzz/replay_*; do
		[ -x "$t" ] || continue
		n=${t##*/replay_}
		[ -n "$ONLY" ] && case "fuzz_$n" in *$ONLY*) ;; *) continue ;; esac
		if timeout -k 10 "$TEST_TIMEOUT" "$t" "$ROOT/tests/fuzz/corpus/$n" > "$TMPROOT/fuzz.log" 2>&1; then
			echo PASS >> "$RESULTS"
			[ -n "$VERBOSE" ] && printf 'PASS: [%s] fuzz corpus %s\n' "$kind" "$n"
		else
			echo FAIL >> "$RESULTS"
			printf 'FAIL: [%s] fuzz corpus %s\n' "$kind" "$n"
			tail -20 "$TMPROOT/fuzz.log" | sed 's/^/    /'
		fi
	done
	for t in "$ROOT"/tests/cli/t_*.sh; do
		[ -f "$t" ] || continue
		n=$(basename "$t" .sh)
		[ -n "$ONLY" ] && case $n in *$ONLY*) ;; *) continue ;; esac
		SCRATCH="$TMPROOT/$kind-$n"
		mkdir -p "$SCRATCH"
		(
			DLSCHED="$B/dlsched" TESTDATA="$ROOT/testdata" SRCROOT="$ROOT" \
			BUILD="$B" BUILD_KIND=$kind CASE_PREFIX="[$kind] $n:" SCRATCH="$SCRATCH"
			export DLSCHED TESTDATA SRCROOT BUILD BUILD_KIND CASE_PREFIX SCRATCH
			set +u
			PATH="$TMPROOT/bin-$kind:$PATH"
			cd "$SCRATCH" || exit 1
			. "$ROOT/tests/cli/lib.sh"
			. "$t"
		)
		rc=$?
		if [ $rc -ne 0 ]; then
			echo FAIL >> "$RESULTS"
			printf 'FAIL: [%s] %s: the script itself exited %d\n' "$kind" "$n" $rc
		fi
		rm -rf "$SCRATCH"
	done
done

passed=$(grep -c '^PASS$' "$RESULTS")
failed=$(grep -c '^FAIL$' "$RESULTS")
skipped=$(grep -c '^SKIP$' "$RESULTS")
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
