#include "core/err.h"

#include <stdio.h>
#include <string.h>

#include "core/common.h"

static void set_msg(struct dl_err *err, int code, const char *msg)
{
	size_t n = strlen(msg);
	if (n >= sizeof(err->msg))
		n = sizeof(err->msg) - 1;
	memcpy(err->msg, msg, n);
	err->msg[n] = '\0';
	err->code = code;
}

void dl_err_clear(struct dl_err *err)
{
	err->code = 0;
	err->msg[0] = '\0';
}

int dl_err_vset(struct dl_err *err, int code, const char *fmt, va_list ap)
{
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return -1;
}

int dl_err_set(struct dl_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dl_err_vset(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int dl_err_at(struct dl_err *err, const char *file, long line, const char *fmt, ...)
{
	char body[DL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	struct strbuf sb = STRBUF_INIT;
	if (line > 0)
		sb_addf(&sb, "%s:%ld: %s", file, line, body);
	else
		sb_addf(&sb, "%s: %s", file, body);
	set_msg(err, DL_EXIT_DATA, sb.buf);
	sb_release(&sb);
	return -1;
}

void dl_err_prefix(struct dl_err *err, const char *fmt, ...)
{
	char pre[DL_ERR_MSG_MAX], old[DL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s: %s", pre, old);
	set_msg(err, err->code, sb.buf);
	sb_release(&sb);
}
