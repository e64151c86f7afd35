# lib.sh: helpers for the benchmarks (sourced by tests/bench/run.sh for each b_*.sh).
#
# Every figure is printed beside a baseline measured in the same run, as a ratio,
# so results compare across machines. Nothing here asserts a time.
#
#   measure CMD...          run CMD (stdout to /dev/null unless redirected inside a
#                           sh -c string); sets SECS (wall seconds), CPU_SECS (user +
#                           system seconds of CMD and its children) and RSS_MB (peak)
#   measure3 CMD...         measure three times: SECS the median, SECS_ALL the three
#                           in order, CPU_SECS the median CPU time, RSS_MB the largest
#                           peak (one run is noise-prone when a figure sits near its
#                           target)
#   figure NAME SECS BASE_SECS BASE_NAME [TARGET]
#                           print one row: figure, baseline, ratio, target
#   note TEXT               print a free-form line (a rate, a count)
# Environment: DLSCHED (binary), BENCH_TMP (scratch dir, removed afterwards),
# SRCROOT, TESTDATA.

measure() {
	_t0=$(date +%s%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M %U %S' -o "$BENCH_TMP/.rss" "$@" > /dev/null
		_rc=$?
		RSS_MB=$(awk '{printf "%.1f", $1/1024}' "$BENCH_TMP/.rss" 2>/dev/null | tail -1)
		CPU_SECS=$(awk '{printf "%.2f", $2 + $3}' "$BENCH_TMP/.rss" 2>/dev/null | tail -1)
	else
		"$@" > /dev/null
		_rc=$?
		RSS_MB=? CPU_SECS=?
	fi
	_t1=$(date +%s%N)
	SECS=$(awk -v a="$_t0" -v b="$_t1" 'BEGIN{printf "%.4f", (b-a)/1e9}')
	[ $_rc -eq 0 ] || echo "  (command failed with exit $_rc: $*)" >&2
	return $_rc
}

measure3() {
	_all= _cpu= _rss=0 _rc3=0
	for _k in 1 2 3; do
		measure "$@" || _rc3=$?
		_all="$_all $SECS"
		_cpu="$_cpu $CPU_SECS"
		_rss=$(awk -v a="$_rss" -v b="$RSS_MB" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
	done
	SECS_ALL=${_all# }
	SECS=$(printf '%s\n' $SECS_ALL | sort -n | sed -n 2p)
	CPU_SECS=$(printf '%s\n' $_cpu | sort -n | sed -n 2p)
	RSS_MB=$_rss
	return $_rc3
}

figure() { # NAME SECS BASE_SECS BASE_NAME [TARGET]
	awk -v n="$1" -v s="$2" -v b="$3" -v bn="$4" -v t="${5:-}" 'BEGIN {
		r = (b > 0) ? s / b : 0
		printf "%-44s %9.4f s   %-28s %9.4f s   ratio %7.2f   %s\n", n, s, bn, b, r, t }'
}

note() { printf '  %s\n' "$*"; }
