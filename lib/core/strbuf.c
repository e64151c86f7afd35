#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

char strbuf_empty_[1];

void sb_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty_;
	sb->len = 0;
	sb->alloc = 0;
}

void sb_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb_init(sb);
}

char *sb_detach(struct strbuf *sb)
{
	char *p = sb->alloc ? sb->buf : xstrdup("");
	sb_init(sb);
	return p;
}

void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need < sb->len)
		need = (size_t)-1; /* xrealloc will fail loudly */
	if (need <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n = n * 2 > n ? n * 2 : need;
	if (!sb->alloc) {
		sb->buf = xmalloc(n);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, n);
	}
	sb->alloc = n;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void sb_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len)
		sb_grow(sb, len - sb->len);
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!len)
		return;
	sb_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_addstr(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, int c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	sb_grow(sb, 64);
	int n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sb_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_add_shell_word(struct strbuf *sb, const char *w)
{
	int plain = *w != 0;
	for (const char *p = w; *p && plain; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("_./:=,@%+-^", *p);
	if (plain) {
		sb_addstr(sb, w);
		return;
	}
	sb_addc(sb, '\'');
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			sb_addstr(sb, "'\\''");
		else
			sb_addc(sb, *p);
	}
	sb_addc(sb, '\'');
}

const char *dl_find_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

void sb_add_command(struct strbuf *sb, const char *prefix, int argc, char *const *argv)
{
	sb_addstr(sb, prefix);
	for (int i = 0; i < argc; i++) {
		sb_addc(sb, ' ');
		sb_add_shell_word(sb, argv[i]);
	}
}
