/*
 * num.h: strict number parsing and round-trip number formatting.
 *
 * Parsers accept the whole string or nothing: no leading or trailing junk, no
 * empty string, no overflow. They return 0 on success and -1 on failure
 * (leaving *out untouched); they never print. dl_parse_double rejects NaN and
 * infinities. Formatters write into a caller buffer of DL_NUM_BUF bytes.
 */
#ifndef DL_NUM_H
#define DL_NUM_H

#include <stdint.h>

#define DL_NUM_BUF 40

/*
 * The largest time or duration in seconds any reader accepts (about 317
 * years, and Unix times up to the year 2286): a larger value is bad data,
 * not something to carry into sums that overflow. dlsched-formats(5).
 */
#define DL_SECONDS_MAX 1e10

int dl_parse_int64(const char *s, int64_t *out);
int dl_parse_uint64(const char *s, uint64_t *out);
/* an int in [min, max] */
int dl_parse_int_range(const char *s, long long min, long long max, long long *out);
int dl_parse_double(const char *s, double *out);
/* a finite double >= 0 */
int dl_parse_nonneg(const char *s, double *out);
/*
 * Shortest decimal that reads back as the same double; integral values
 * below 2^53 print without a decimal point. NaN prints as "nan" and
 * infinities as "inf"/"-inf" (writers decide what to do with those).
 * Returns the length.
 */
int dl_fmt_double(char buf[DL_NUM_BUF], double v);
/* v rounded to `digits` significant digits, then as dl_fmt_double */
int dl_fmt_double_prec(char buf[DL_NUM_BUF], double v, int digits);
int dl_fmt_int64(char buf[DL_NUM_BUF], int64_t v);

#endif
