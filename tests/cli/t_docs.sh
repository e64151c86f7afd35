# t_docs.sh: man pages, completions, --help coverage, README examples, make install
# Documentation does not depend on the build flavour: checked once, on the normal build.
heavy || return 0
MAN=$BUILD/man
cmds=$(dl --list-commands | grep -vx help)

# every command has --help on stdout, a man page, and every option is in it
for c in $cmds; do
	run "docs_help_$c" 0 "dl $c --help"
	expect "docs_help_${c}_usage" "grep -q '^usage: dlsched $c' out"
	page=$SRCROOT/man/dlsched-$c.1.scd
	expect "docs_man_exists_$c" "test -f '$page'"
	missing=
	for o in $(dl "$c" --list-options | cut -f1); do
		case $o in --format|--output|--input-format|--quiet|--verbose|--help) continue ;; esac
		grep -q -- "$o" "$page" 2>/dev/null || missing="$missing $o"
	done
	expect_eq "docs_man_options_$c" "" "$missing"
done
for p in "$MAN"/*.[15]; do
	n=$(basename "$p")
	expect "docs_mandoc_lint_$n" "mandoc -Tlint -W error '$p'"
done
expect docs_formats_page "test -f '$MAN/dlsched-formats.5'"
expect docs_exit_status "grep -q 'EXIT STATUS' '$MAN/dlsched.1'"

# completions: generated from the binary, load in each shell, list every command
C=$BUILD/completions
expect docs_compl_bash "bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null; . $C/dlsched.bash && complete -p dlsched'"
if command -v zsh > /dev/null; then
	expect docs_compl_zsh "zsh -n '$C/_dlsched'"
else
	skip docs_compl_zsh "zsh not installed"
fi
if command -v fish > /dev/null; then
	expect docs_compl_fish "fish -n '$C/dlsched.fish'"
else
	skip docs_compl_fish "fish not installed"
fi
for c in $cmds; do
	expect "docs_compl_lists_$c" "grep -q '\"[^\"]*\\b$c\\b' '$C/dlsched.bash' && grep -q \"'$c:\" '$C/_dlsched' && grep -q -- '-a $c ' '$C/dlsched.fish'"
done
# bash completion really completes
run docs_compl_bash_works 0 "bash -c '. $C/dlsched.bash; COMP_WORDS=(dlsched ca); COMP_CWORD=1; _dlsched; echo \${COMPREPLY[*]}'"
expect_eq docs_compl_bash_cat cat "$(cat "$SCRATCH/out")"
run docs_compl_bash_opts 0 "bash -c '. $C/dlsched.bash; COMP_WORDS=(dlsched cat --form); COMP_CWORD=2; _dlsched; echo \${COMPREPLY[*]}'"
expect_eq docs_compl_bash_format "--format" "$(cat "$SCRATCH/out")"

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
