/*
 * err.h: how lib/ reports failure without printing or exiting.
 *
 * A function that can fail takes a `struct dl_err *err` (never NULL), returns
 * -1 (or NULL) on failure and fills *err with an exit code and a one-line
 * message. The message has no program prefix and no trailing newline; cmd/
 * prefixes "dlsched CMD: " and prints it. Messages follow git's rules: lower
 * case, no final full stop, user values in single quotes. Data errors start
 * with "FILE:LINE: " (or "FILE: " when no line applies).
 *
 * struct dl_err owns no heap memory; it can live on the stack.
 */
#ifndef DL_ERR_H
#define DL_ERR_H

#include <stdarg.h>

#define DL_ERR_MSG_MAX 1024

struct dl_err {
	int code; /* enum dl_exit; 0 when no error was recorded */
	char msg[DL_ERR_MSG_MAX];
};

#define DL_ERR_INIT       \
	{                 \
		0,        \
		{         \
			0 \
		}         \
	}

void dl_err_clear(struct dl_err *err);
/* Record an error with exit code `code`; returns -1 for `return dl_err_set(...)`. */
int dl_err_set(struct dl_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int dl_err_vset(struct dl_err *err, int code, const char *fmt, va_list ap);
/* A data error (exit 1) at FILE:LINE; line <= 0 omits the line. Returns -1. */
int dl_err_at(struct dl_err *err, const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prefix an existing message with "prefix: " (for adding context). */
void dl_err_prefix(struct dl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
