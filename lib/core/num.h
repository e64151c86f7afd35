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

/*
 * Seconds as integer microseconds, exactly at any magnitude (the simulator's
 * clock). dl_parse_micros reads a decimal ([+-]digits[.digits][e[+-]N]) from
 * its text, without going through a double, rounded to the nearest
 * microsecond (ties away from zero); -1 if malformed or beyond 2^62 us
 * (about 146,000 years). dl_micros_from_seconds rounds a double the same way.
 * dl_fmt_micros writes the exact decimal (at most 6 decimals, no trailing
 * zeros): the same text as dl_fmt_double of the seconds wherever that double
 * is exact to the microsecond (below 2^32 s, about 136 years).
 */
int dl_parse_micros(const char *s, int64_t *out);
int dl_micros_from_seconds(double v, int64_t *out);
int dl_fmt_micros(char buf[DL_NUM_BUF], int64_t us);

#endif
