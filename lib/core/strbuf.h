/*
 * strbuf.h: growable byte buffer, always NUL-terminated (after git's strbuf).
 *
 * A strbuf owns its buf. STRBUF_INIT gives an empty buffer whose buf is a valid
 * empty string without allocating. sb_release() frees; sb_detach() hands the
 * allocation to the caller (free() it) and leaves the strbuf empty.
 */
#ifndef DL_STRBUF_H
#define DL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty_[];
#define STRBUF_INIT                 \
	{                           \
		strbuf_empty_, 0, 0 \
	}

void sb_init(struct strbuf *sb);
void sb_release(struct strbuf *sb);
char *sb_detach(struct strbuf *sb);
void sb_grow(struct strbuf *sb, size_t extra);
void sb_reset(struct strbuf *sb);
void sb_setlen(struct strbuf *sb, size_t len);
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_addstr(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, int c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* one word as sh reads it back: as it is when plain, else in '...' (' as '\'') */
void sb_add_shell_word(struct strbuf *sb, const char *w);
/*
 * The first control character of s (newline, tab, ESC, DEL, ...), or NULL: a
 * value with one cannot be written safely on one line of a script or a CSV cell
 * meant for a shell, whatever the quoting.
 */
const char *dl_find_control(const char *s);
/* prefix (as it is), then " WORD" per argument, each as sb_add_shell_word writes it */
void sb_add_command(struct strbuf *sb, const char *prefix, int argc, char *const *argv);

#endif
