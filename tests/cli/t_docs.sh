# t_docs.sh: man pages, completions, --help coverage, README examples, make install
# Documentation does not depend on the build flavour: checked once, on the normal build.
heavy || return 0
MAN=$BUILD/man
# run alone after a plain `make`, the pages and completions are not built: one failure that
# says so, not a hundred about missing files
if [ ! -f "$MAN/dlsched.1" ] || [ ! -d "$BUILD/completions" ]; then
	_record FAIL docs_built "no man pages or completions in $BUILD: run 'make man completions' (make test and make check do)"
	return 0
fi
cmds=$(dl --list-commands | grep -vx help)

# every command has --help on stdout and a man page that lints
for c in $cmds; do
	run "docs_help_$c" 0 "dl $c --help"
	expect "docs_help_${c}_usage" "grep -q '^usage: dlsched $c' out"
	expect "docs_man_exists_$c" "test -f '$SRCROOT/man/dlsched-$c.1.scd' && test -f '$MAN/dlsched-$c.1'"
done
for p in "$MAN"/*.[15]; do
	n=$(basename "$p")
	expect "docs_mandoc_lint_$n" "mandoc -Tlint -W error '$p'"
done
expect docs_formats_page "test -f '$MAN/dlsched-formats.5'"
expect docs_exit_status "grep -q 'EXIT STATUS' '$MAN/dlsched.1'"

# ---- --help, the man pages and the completions agree with the option tables, exactly ----
C=$BUILD/completions
US=$(printf '\037')
# the help text of --NAME in a --help output: its column, wrapped lines joined; with a
# GROUP, the one under the heading "GROUP options:" (policies may share an option name)
help_of() { # NAME FILE [GROUP]
	awk -v n="$1" -v g="$3" '
		g != "" && /^[^ ].*options:$/ { in_g = ($0 == g " options:"); next }
		g != "" && !in_g { next }
		f && /^                             [^ ]/ { sub(/^ +/, ""); t = t == "" ? $0 : t " " $0; next }
		f { exit }
		$0 ~ "^  (-., |    )" n "( |$)" {
			# the text follows the option after two or more spaces, else on the next line
			f = 1
			l = $0
			sub(/^ +/, "", l)
			i = index(l, "  ")
			t = i ? substr(l, i) : ""
			sub(/^ +/, "", t)
		}
		END { print t }' "$2"
}
# the man page entries listed for TARGET (the blocks tagged "; options: ... dlsched TARGET ...")
man_block() { # TARGET SCD
	awk -v t="dlsched${1:+ $1}" '
		/^; options: / { s = substr($0, 12); n = split(s, a, ", "); on = 0
			for (i = 1; i <= n; i++) if (a[i] == t) on = 1; next }
		/^# / || /^; end of options/ { on = 0 }
		on' "$2"
}
# one entry (header to blank line) of a man block; with a GROUP, under "## GROUP options"
man_entry() { # NAME BLOCKFILE [GROUP]
	awk -v n="$1" -v g="$3" '
		g != "" && /^## / { in_g = ($0 == "## " g " options"); next }
		g != "" && !in_g { next }
		/^\*/ { on = ($0 ~ "^[*](-., )?" n "[*]") }
		/^$/ { on = 0 }
		on' "$2"
}
targets=$(for c in $cmds; do s=$(dl "$c" --list-subcommands); if [ -n "$s" ]; then for x in $s; do echo "$c:$x"; done; else echo "$c"; fi; done)
checked=0
for tt in $targets; do
	t=$(echo "$tt" | tr ':' ' ')
	c=${tt%%:*}
	sub=${tt#"$c"}; sub=${sub#:}
	id=$(echo "$tt" | tr ':-' '__')
	# shellcheck disable=SC2086
	dl $t --help > "help_$id"
	# shellcheck disable=SC2086
	dl $t --list-options | tr '\t' "$US" > "opts_$id"
	man_block "$t" "$MAN/dlsched-$c.1.scd" > "man_$id"
	# subcommands that share the command's options (cluster) share its list
	[ -s "man_$id" ] || man_block "$c" "$MAN/dlsched-$c.1.scd" > "man_$id"
	nopts=$(wc -l < "opts_$id")
	expect_eq "docs_man_count_$id" "$nopts" "$(grep -c '^\*' "man_$id")"
	bad_help='' bad_man='' bad_bash='' bad_zsh='' bad_fish=''
	# the completion code for this target
	if [ -n "$sub" ]; then key="\"$c $sub\")"; else key="\"$c \")"; fi
	awk -v k="$key" '$0 == "\t" k { on = 1; next } on && /^\t"/ { exit } on' "$C/dlsched.bash" > "bash_$id"
	if [ -n "$sub" ]; then
		awk -v c="    $c)" -v s="        $sub) " 'index($0, c) == 1 { on = 1 } on && index($0, s) == 1 { print; exit }' "$C/_dlsched" > "zsh_$id"
		fcond="__fish_seen_subcommand_from $c; and __fish_seen_subcommand_from $sub"
	else
		grep "^    $c) " "$C/_dlsched" > "zsh_$id" || true
		fcond="__fish_seen_subcommand_from $c"
	fi
	grep -F -- "complete -c dlsched -n '$fcond' -" "$C/dlsched.fish" | grep -v -- "' -F$" > "fish_$id" || true
	# (the shells complete a name two policies share once)
	nnames=$(cut -d"$US" -f1 "opts_$id" | sort -u | wc -l | tr -d ' ')
	expect_eq "docs_fish_count_$id" "$nnames" "$(wc -l < "fish_$id" | tr -d ' ')"
	: > "seen_$id"
	while IFS="$US" read -r name arg help short type def values group; do
		checked=$((checked + 1))
		: "$type" # (the values say all the checks need)
		vlist=$(echo "$values" | sed 's/ /, /g')
		# --help: the help line, then "(one of VALUES; default DEF)" from the table
		extra=
		[ -n "$vlist" ] && extra="one of $vlist"
		[ -n "$def" ] && extra="${extra:+$extra; }default $def"
		want=$help${extra:+ ($extra)}
		got=$(help_of "$name" "help_$id" "$group")
		[ "$got" = "$want" ] || bad_help="$bad_help $name:[$got]!=[$want]"
		# man: one entry with the header, the values and the default; prose agrees
		man_entry "$name" "man_$id" "$group" > entry
		hdr="*${short:+$short, }$name*${arg:+ _${arg}_}"
		[ "$(grep -c '^\*' entry)" = 1 ] && [ "$(head -1 entry)" = "$hdr" ] || bad_man="$bad_man $name:header"
		[ -z "$vlist" ] || grep -qF "One of $vlist." entry || bad_man="$bad_man $name:values"
		[ -z "$def" ] || grep -qF "Default: $def." entry || bad_man="$bad_man $name:default"
		if grep -o '(default [^)]*)' entry | grep -vqxF "(default $def)"; then bad_man="$bad_man $name:prose-default"; fi
		# completions: the same value lists in all three shells (a shared name: the first)
		if grep -qxF -- "$name" "seen_$id"; then continue; fi
		echo "$name" >> "seen_$id"
		pat="$name${short:+|$short}"
		if [ -n "$values" ]; then
			grep -qF "		$pat) COMPREPLY=(\$(compgen -W \"$values\" -- \"\$cur\")); return ;;" "bash_$id" || bad_bash="$bad_bash $name"
			grep -qF -- "$name=}'[" "zsh_$id" || grep -qF -- "'$name=[" "zsh_$id" || bad_zsh="$bad_zsh $name"
			grep -qF -- ":($values)'" "zsh_$id" || bad_zsh="$bad_zsh $name:values"
			grep -F -- "-l ${name#--} " "fish_$id" | grep -qF -- "-x -a '$values'" || bad_fish="$bad_fish $name"
		else
			grep -qF -- "$name" "zsh_$id" || bad_zsh="$bad_zsh $name"
			grep -qF -- "-l ${name#--} " "fish_$id" || bad_fish="$bad_fish $name"
			grep -qE -- "(^|[ 	\"])$name([ |\"]|\$)" "bash_$id" || bad_bash="$bad_bash $name"
		fi
	done < "opts_$id"
	expect_eq "docs_help_exact_$id" "" "$bad_help"
	expect_eq "docs_man_exact_$id" "" "$bad_man"
	expect_eq "docs_bash_exact_$id" "" "$bad_bash"
	expect_eq "docs_zsh_exact_$id" "" "$bad_zsh"
	expect_eq "docs_fish_exact_$id" "" "$bad_fish"
done
expect docs_options_checked "test $checked -ge 150"
# the man page of dlsched(1) lists the common options as the commands do
man_block "" "$MAN/dlsched.1.scd" > man_common
dl cat --list-options | tail -6 | cut -f1 > common_names
expect docs_man_common "test \$(grep -c '^\\*' man_common) -eq 6 && for o in \$(cat common_names); do grep -q -- \"\$o\\*\" man_common || exit 1; done"

# completions load in each shell and list every command
expect docs_compl_bash "bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null; . $C/dlsched.bash && complete -p dlsched && complete -p dlsched-simulate'"
expect_with zsh docs_compl_zsh "zsh -n '$C/_dlsched' && head -1 '$C/_dlsched' | grep -q ' dlsched-simulate'"
expect_with fish docs_compl_fish "fish -n '$C/dlsched.fish'"
for c in $cmds; do
	expect "docs_compl_lists_$c" "grep -q '\"[^\"]*\\b$c\\b' '$C/dlsched.bash' && grep -q \"'$c:\" '$C/_dlsched' && grep -q -- '-a $c ' '$C/dlsched.fish'"
done
# bash completion really completes: commands, options, values, subcommands, links
bcomp() { # WORDS...: what bash offers for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _dlsched; echo "${COMPREPLY[*]}"' sh "$C/dlsched.bash" "$@"
}
expect_eq docs_compl_bash_cat cat "$(bcomp dlsched ca)"
expect_eq docs_compl_bash_format "--format" "$(bcomp dlsched cat --form)"
policies=$(dl simulate --list-options | awk -F'\t' '$1 == "--policy" { print $7 }')
expect docs_compl_policies_nonempty "test -n '$policies' && echo '$policies' | grep -qw tiresias-las"
expect_eq docs_compl_bash_policy "$policies" "$(bcomp dlsched simulate --policy '')"
expect_eq docs_compl_bash_policy_prefix "tiresias-las tiresias-gittins" "$(bcomp dlsched simulate --policy tir)"
expect_eq docs_compl_bash_place "first-fit consolidate spread random tiresias gandiva dally" "$(bcomp dlsched simulate --place '')"
expect_eq docs_compl_bash_place_short "first-fit consolidate spread random tiresias gandiva dally" "$(bcomp dlsched place -c x -P '')"
expect_eq docs_compl_bash_trace "import gen stats" "$(bcomp dlsched trace '')"
expect_eq docs_compl_bash_cluster "show types models" "$(bcomp dlsched cluster '')"
expect_eq docs_compl_bash_trace_from "tiresias gavel philly pai helios sacct gavel-throughputs" "$(bcomp dlsched trace import --from '')"
expect_eq docs_compl_bash_gen_opt "--iid" "$(bcomp dlsched trace gen --ii)"
expect_eq docs_compl_bash_link "first-fit consolidate spread random tiresias gandiva dally" "$(bcomp dlsched-simulate --place '')"
expect_eq docs_compl_bash_link_opt "--policy" "$(bcomp dlsched-simulate --pol)"
expect_eq docs_compl_bash_link_sub "import gen stats" "$(bcomp dlsched-trace '')"
expect_eq docs_compl_bash_number "" "$(bcomp dlsched simulate --seed '')"
expect_eq docs_compl_bash_help "simulate" "$(bcomp dlsched help sim)"
sorted() { tr ' ' '\n' | grep . | sort | tr '\n' ' ' | sed 's/ $//'; }
if [ -f /usr/share/bash-completion/bash_completion ]; then
	# with bash-completion loaded, --opt=VALUE completes too
	got=$(bash -c '. /usr/share/bash-completion/bash_completion; . "$1"; COMP_WORDS=(dlsched simulate --place = con); COMP_CWORD=4; COMP_LINE="dlsched simulate --place=con"; COMP_POINT=${#COMP_LINE}; _dlsched; echo "${COMPREPLY[*]}"' sh "$C/dlsched.bash")
	expect_eq docs_compl_bash_eq consolidate "$got"
fi
if command -v fish > /dev/null; then
	fcomp() { fish -c "source '$C/dlsched.fish'; complete -C '$1'" | cut -f1 | tr '\n' ' ' | sed 's/ $//'; }
	expect_eq docs_compl_fish_policy "$(echo "$policies" | sorted)" "$(fcomp 'dlsched simulate --policy ' | sorted)"
	expect_eq docs_compl_fish_trace "gen import stats" "$(fcomp 'dlsched trace ' | sorted)"
	expect_eq docs_compl_fish_link "gen import stats" "$(fcomp 'dlsched-trace ' | sorted)"
	expect_eq docs_compl_fish_place "$(echo "$policies" | sorted)" "$(fcomp 'dlsched-simulate --policy ' | sorted)"
fi

# README examples run (each ```sh block, from the repository root, dlsched on PATH)
awk '/^```sh$/{b=1; n++; next} /^```$/{b=0; next} b{print > ("readme_" n ".sh")}' "$SRCROOT/README.md"
for f in readme_*.sh; do
	[ -f "$f" ] || continue
	run "docs_readme_${f%.sh}" 0 "cd '$SRCROOT' && PATH='$BUILD':\$PATH sh -e '$SCRATCH/$f'"
done

# make install with PREFIX and DESTDIR (only once, on the normal build)
if heavy; then
	run docs_install 0 "make -s -C '$SRCROOT' install O=build PREFIX=/usr DESTDIR='$SCRATCH/root' > /dev/null"
	expect docs_install_files "test -x root/usr/bin/dlsched && test -L root/usr/bin/dlsched-cat && test -f root/usr/share/man/man1/dlsched.1 && test -f root/usr/share/man/man5/dlsched-formats.5 && test -f root/usr/share/bash-completion/completions/dlsched && test -f root/usr/share/zsh/site-functions/_dlsched && test -f root/usr/share/fish/vendor_completions.d/dlsched.fish"
	run docs_install_link_runs 0 "root/usr/bin/dlsched-cat --help"
fi
