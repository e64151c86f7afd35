/*
 * tap.h: a tiny TAP producer for the C unit tests (one binary per file).
 *
 *   ok(cond, "name %d", i); is_int(got, want, "name"); is_str(...);
 *   is_double(got, want, tol, "name");  return done_testing();
 *
 * Output is TAP ("ok N - name" / "not ok N - name" and a "1..N" plan at the
 * end); tests/run.sh counts those lines. done_testing() returns 1 if any
 * test failed. Only for tests: it keeps its counters in statics.
 */
#ifndef DL_TAP_H
#define DL_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

#define is_int(got, want, ...)                                                             \
	do {                                                                               \
		long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);           \
		if (!ok(tap_g_ == tap_w_, __VA_ARGS__))                                    \
			printf("#   got %lld, want %lld\n", tap_g_, tap_w_);               \
	} while (0)

#define is_str(got, want, ...)                                                             \
	do {                                                                               \
		const char *tap_g_ = (got), *tap_w_ = (want);                              \
		int tap_eq_ = tap_g_ && tap_w_ ? !strcmp(tap_g_, tap_w_) : tap_g_ == tap_w_; \
		if (!ok(tap_eq_, __VA_ARGS__))                                             \
			printf("#   got '%s', want '%s'\n", tap_g_ ? tap_g_ : "(null)",      \
			       tap_w_ ? tap_w_ : "(null)");                                \
	} while (0)

#define is_double(got, want, tol, ...)                                                     \
	do {                                                                               \
		double tap_g_ = (got), tap_w_ = (want);                                    \
		if (!ok(fabs(tap_g_ - tap_w_) <= (tol), __VA_ARGS__))                      \
			printf("#   got %.17g, want %.17g\n", tap_g_, tap_w_);             \
	} while (0)

static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
