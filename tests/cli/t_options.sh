# t_options.sh: the option tables. Every numeric and choice option of every command (and
# subcommand), enumerated from the tables themselves (--list-options), so that a new option
# is covered without editing this file: a bad value exits 2 with one message that names
# the option exactly once, in the one style of the parser.

US=$(printf '\037')
# "CMD" or "CMD SUB" for every command and subcommand that parses options
targets() {
	for c in $(dl --list-commands | grep -vx help); do
		subs=$(dl "$c" --list-subcommands)
		if [ -n "$subs" ]; then
			for s in $subs; do echo "$c $s"; done
		else
			echo "$c"
		fi
	done
}

targets > targets.txt
expect options_targets "grep -qx 'trace gen' targets.txt && grep -qx 'cluster show' targets.txt && grep -qx simulate targets.txt"
n=0
while read -r target; do
	# shellcheck disable=SC2086
	dl $target --list-options | tr '\t' "$US" > opts.txt
	while IFS="$US" read -r name arg help short type def values; do
		case $type in int|uint64|double|seconds|numlist|choice) ;; *) continue ;; esac
		n=$((n + 1))
		id=$(echo "$target$name" | tr ' -' '__')
		run "options_bad$id" 2 "dl $target $name x"
		# the message: "dlsched CMD: bad --NAME value 'x' (what a good value is)"
		expect_eq "options_bad${id}_lines" 1 "$(wc -l < "$SCRATCH/err" | tr -d ' ')"
		expect "options_bad${id}_style" "grep -q '^dlsched ${target%% *}: bad $name value '\''x'\'' (.*)\$' err"
		expect_eq "options_bad${id}_once" 1 "$(grep -o -- "$name\([^a-z-]\|\$\)" "$SCRATCH/err" | wc -l | tr -d ' ')"
		expect "options_bad${id}_no_stdout" '! test -s out'
		# the same through --NAME=VALUE, and a value that was a default must be good
		run "options_bad${id}_eq" 2 "dl $target $name=x"
		: "$arg $help $short $def $values"
	done < opts.txt
done < targets.txt
# the enumeration really found the options (a broken --list-options must not pass quietly)
expect options_count "test $n -ge 50"

# each message names what a good value is, from the table
run_says options_lease 2 'dl place --lease abc' \
	"dlsched place: bad --lease value 'abc' (a number of seconds in 1..10000000000)"
run_says options_queues 2 'dl prioritize --queues x' \
	"dlsched prioritize: bad --queues value 'x' (an integer in 1..1000000)"
run_says options_choice 2 'dl place -c 1x1x8 -P best' \
	"dlsched place: bad --policy value 'best' (one of first-fit, consolidate, spread, random, tiresias, gandiva, dally)"
run_says options_numlist 2 'dl simulate -c 1x1x8 --thresholds 10,x' \
	"dlsched simulate: bad --thresholds value '10,x' (numbers > 0 joined by ',')"
run_says options_range 2 'dl place -c 1x1x8 --history 0' \
	"dlsched place: bad --history value '0' (an integer in 1..1000000)"
run_says options_empty_output 2 'dl cat -o ""' \
	"dlsched cat: bad --output value '' (a non-empty path)"
# aliases are accepted, canonical names are shown
run options_alias 0 "dl cat -f jsonl '$TESTDATA/cat/jobs.csv'"
expect options_alias_json "head -1 out | grep -q '^{'"

# unknown, ambiguous and misused options
run_says options_unknown 2 'dl simulate --polcy fifo' \
	"dlsched simulate: unknown option '--polcy' (did you mean --policy?); see 'dlsched simulate --help'"
# (no suggestion when nothing is close: t_core's core_unknown_opt)
run_says options_ambiguous 2 'dl place --p x' \
	"dlsched place: option '--p' is ambiguous (--profiles, --policy); see 'dlsched place --help'"
run options_abbrev 0 "dl cat --numb '$TESTDATA/cat/jobs.csv'"
run_says options_flag_value 2 'dl cat --number=3' \
	"dlsched cat: option '--number' takes no value; see 'dlsched cat --help'"

# defaults from the tables are really applied: --help states what the command does
run options_help_default 0 'dl place --help'
expect options_help_default_lease "grep -q -- '--lease SECONDS .*(default 20)' out"
run options_list_fields 0 'dl place --list-options'
expect_eq options_list_lease "--lease	SECONDS	the lease: the unit of the timers		seconds	20		dally" "$(grep -- '^--lease	' "$SCRATCH/out")"
expect_eq options_list_policy "--policy	NAME	placement policy	-P	choice	consolidate	first-fit consolidate spread random tiresias gandiva dally	" "$(grep -- '^--policy	' "$SCRATCH/out")"

# `dlsched help CMD`: the man page when stdout is a terminal and man has the page (git's
# way), else the command's --help; script(1) gives the command a terminal
if heavy && command -v man > /dev/null && command -v script > /dev/null && [ -f "$BUILD/man/dlsched-cat.1" ]; then
	mkdir -p manroot/man1 empty
	ln -sf "$BUILD/man/dlsched-cat.1" manroot/man1/dlsched-cat.1
	printf '#!/bin/sh\necho FAKE-PAGER\ncat\n' > pager
	chmod +x pager
	run options_help_man 0 "MANPATH='$SCRATCH/manroot' MANPAGER='$SCRATCH/pager' PAGER='$SCRATCH/pager' script -qec 'dl help cat' /dev/null"
	expect options_help_man_paged "grep -q '^FAKE-PAGER' out && grep -q 'dlsched-cat - concatenate streams' out"
	run options_help_no_page 0 "MANPATH='$SCRATCH/empty' MANPAGER='$SCRATCH/pager' PAGER='$SCRATCH/pager' script -qec 'dl help cat' /dev/null"
	expect options_help_no_page_help "grep -q '^usage: dlsched cat' out && ! grep -q FAKE-PAGER out"
	# not a terminal: --help, even when man has the page
	run options_help_pipe 0 "MANPATH='$SCRATCH/manroot' MANPAGER='$SCRATCH/pager' dl help cat | cat"
	expect options_help_pipe_help "grep -q '^usage: dlsched cat' out && ! grep -q FAKE-PAGER out"
else
	skip options_help_man "needs man, script and the built man pages"
fi
run_says options_unknown_cmd 2 'dl simulat' \
	"dlsched: 'simulat' is not a dlsched command (did you mean 'simulate'?); see 'dlsched --help'"
run options_stats_default 0 'dl trace stats --help'
expect options_stats_default_text "grep -q -- '--format FMT .*default text)' out"
