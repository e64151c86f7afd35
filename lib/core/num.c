#include "core/num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_space_edge(const char *s)
{
	size_t n = strlen(s);
	if (n == 0)
		return 1;
	return s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[0] == '\n' ||
	       s[0] == '\r' || s[0] == '\v' || s[0] == '\f';
}

int dl_parse_int64(const char *s, int64_t *out)
{
	if (!s || has_space_edge(s))
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = (int64_t)v;
	return 0;
}

int dl_parse_uint64(const char *s, uint64_t *out)
{
	if (!s || has_space_edge(s) || s[0] == '-')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int dl_parse_int_range(const char *s, long long min, long long max, long long *out)
{
	int64_t v;
	if (dl_parse_int64(s, &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int dl_parse_double(const char *s, double *out)
{
	if (!s || has_space_edge(s))
		return -1;
	/* strtod accepts hex floats, "nan", "inf"; we want plain decimals only */
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' ||
		      c == 'E'))
			return -1;
	}
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return -1;
	if (errno == ERANGE && v != 0.0)
		return -1; /* overflow; underflow to a denormal/zero is accepted */
	*out = v;
	return 0;
}

int dl_parse_nonneg(const char *s, double *out)
{
	double v;
	if (dl_parse_double(s, &v) || v < 0)
		return -1;
	*out = v == 0 ? 0.0 : v; /* no "-0" */
	return 0;
}

int dl_fmt_int64(char buf[DL_NUM_BUF], int64_t v)
{
	return snprintf(buf, DL_NUM_BUF, "%lld", (long long)v);
}

int dl_fmt_double(char buf[DL_NUM_BUF], double v)
{
	if (isnan(v))
		return snprintf(buf, DL_NUM_BUF, "nan");
	if (isinf(v))
		return snprintf(buf, DL_NUM_BUF, v > 0 ? "inf" : "-inf");
	if (v == 0)
		return snprintf(buf, DL_NUM_BUF, "0");
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return snprintf(buf, DL_NUM_BUF, "%.0f", v);
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, DL_NUM_BUF, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return n;
}

int dl_fmt_double_prec(char buf[DL_NUM_BUF], double v, int digits)
{
	if (!isfinite(v) || v == 0)
		return dl_fmt_double(buf, v);
	char tmp[DL_NUM_BUF];
	snprintf(tmp, sizeof(tmp), "%.*g", digits, v);
	return dl_fmt_double(buf, strtod(tmp, NULL));
}
