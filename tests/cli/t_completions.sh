# t_completions.sh: completions/gen.sh replaces its files whole. A reader beside it (a
# `make install` running next to a `make check` in the same tree) sees the old file or the
# new one, never half of one, and two runs at once into one directory write exactly what one
# run alone writes, with nothing left over.
heavy || return 0
gen=$SRCROOT/completions/gen.sh
files="dlsched.bash _dlsched dlsched.fish"
run completions_gen 0 "sh '$gen' '$DLSCHED' one"
# two runs at once into a directory that already holds whole files (a second make finds
# them there), while a reader checks the bash file every 20 ms as an installer copies it
mkdir two && cp one/* two/
(sh "$gen" "$DLSCHED" two & sh "$gen" "$DLSCHED" two & wait) > gen.log 2>&1 &
writers=$!
reads=0 torn=0
while kill -0 "$writers" 2> /dev/null; do
	cp two/dlsched.bash copy.bash 2> /dev/null || continue
	reads=$((reads + 1))
	if ! bash -n copy.bash 2> /dev/null || [ "$(tail -n 1 copy.bash | cut -d' ' -f1-3)" != "complete -F _dlsched" ]; then
		torn=$((torn + 1))
	fi
	sleep 0.02
done
wait "$writers"
expect completions_reader_read "test $reads -gt 10"
expect_eq completions_never_torn "0 of $reads copies torn" "$torn of $reads copies torn"
expect completions_concurrent_quiet "test ! -s gen.log"
for f in $files; do
	expect "completions_concurrent_same_$f" "cmp -s one/$f two/$f"
done
expect_eq completions_nothing_left "$(echo $files | tr ' ' '\n' | sort)" "$(ls -A two | sort)"
