#!/bin/sh
# run.sh: `make bench`. Runs every tests/bench/b_*.sh (or those matching $1).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/dlsched}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
ONLY=${2:-}
BENCH_TMP=$(mktemp -d)
trap 'rm -rf "$BENCH_TMP"' EXIT
export DLSCHED=$BIN BENCH_TMP SRCROOT=$ROOT TESTDATA=$ROOT/testdata LC_ALL=C
echo "dlsched bench: $($BIN --version | head -1), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-44s %11s   %-28s %11s   %13s   %s\n' figure time baseline time ratio target
for b in "$ROOT"/tests/bench/b_*.sh; do
	n=$(basename "$b" .sh)
	[ -n "$ONLY" ] && case $n in *$ONLY*) ;; *) continue ;; esac
	echo "# ${n#b_}"
	( . "$ROOT/tests/bench/lib.sh"; . "$b" )
done
