# t_style.sh: rules of the code base that a compiler does not enforce.
heavy || return 0
cd "$SRCROOT" || return 1
# (expect runs in $SCRATCH: use absolute paths)

# banned functions (after git's banned.h): strbuf/snprintf, strtok_r and core/num.h instead
hits=$(grep -nE '\b(strcpy|strcat|strncpy|sprintf|vsprintf|strtok|atoi|atol|atof|gets)\(' \
	lib/*/*.c lib/*/*.h cmd/*.c cmd/*.h 2>/dev/null | grep -vE '\b(snprintf|vsnprintf)\(' )
expect_eq style_banned_functions "" "$hits"

# lib/ never exits and never writes to standard output
hits=$(grep -nE '\b(exit|_exit|printf|puts|putchar)\(|\bstdout\b' lib/*/*.c 2>/dev/null |
	grep -vE '\b(fprintf|snprintf|vsnprintf|sb_addf|sb_vaddf)\(' |
	grep -v 'lib/core/io.c' | grep -vE '^\S+:\s*(/\*|\*)')
expect_eq style_lib_no_exit_no_stdout "" "$hits"

# every header says what it owns: it starts with a comment
for h in lib/*/*.h cmd/*.h; do
	[ -f "$h" ] || continue
	expect "style_header_comment_$(echo "$h" | tr '/.' '__')" "head -1 '$SRCROOT/$h' | grep -q '^/\*'"
done

# no mutable state at file scope in lib/ (same inputs, same outputs; reentrant for tests);
# the one exception is the out-of-memory handler cmd/ installs at start-up (core/xalloc.h)
hits=$(grep -nE '^(static )?[a-z_]+( [a-z_]+)* \**[a-z_0-9]+(\[[^]]*\])* *(=[^=]|;)' \
	lib/*/*.c 2>/dev/null | grep -v 'const' | grep -v '(' | grep -v 'strbuf_empty_' |
	grep -v '^lib/core/xalloc.c:[0-9]*:static dl_oom_handler oom_handler;$')
expect_eq style_lib_no_file_scope_state "" "$hits"
