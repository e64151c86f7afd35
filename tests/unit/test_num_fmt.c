/*
 * test_num_fmt.c: dl_fmt_double (integer fast path) against the reference
 * snprintf+strtod implementation, byte for byte, on about 2 million doubles:
 * random bit patterns, random decimals of 1..17 digits, integers around 2^53,
 * subnormals, powers of ten and two and their neighbours, quotients x/3, x/7...
 * Also dl_fmt_int64 against "%lld" and dl_parse_double's integer fast path
 * against strtod.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/num_internal.h"
#include "core/rng.h"
#include "tap.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	return dl_splitmix64(&rng_state);
}

static double from_bits(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof(d));
	return d;
}

static uint64_t to_bits(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof(b));
	return b;
}

struct stats {
	long checked, failed;
};

static void check(struct stats *st, double v)
{
	char fast[DL_NUM_BUF], slow[DL_NUM_BUF];
	for (int neg = 0; neg < 2; neg++, v = -v) {
		memset(fast, 'x', sizeof(fast));
		int nf = dl_fmt_double(fast, v);
		int ns = dl_fmt_double_slow(slow, v);
		st->checked++;
		if (nf != ns || strcmp(fast, slow)) {
			if (st->failed++ < 10)
				printf("# mismatch for %a: fast '%s' (%d), slow '%s' (%d)\n", v,
				       fast, nf, slow, ns);
		}
	}
}

static void check_near(struct stats *st, double v)
{
	uint64_t b = to_bits(fabs(v));
	for (int d = -2; d <= 2; d++)
		if ((int64_t)b + d >= 0)
			check(st, from_bits(b + (uint64_t)d));
}

static void report(struct stats *st, const char *what)
{
	ok(st->failed == 0 && st->checked > 0, "%s: %ld values, fast == slow", what, st->checked);
	if (st->failed)
		printf("#   %ld mismatches\n", st->failed);
}

static void test_fixed(void)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{0.0, "0"},
		{-0.0, "0"},
		{1.0, "1"},
		{-42.0, "-42"},
		{0.1, "0.1"},
		{0.3, "0.3"},
		{0.1 + 0.2, "0.30000000000000004"},
		{1.0 / 3, "0.3333333333333333"},
		{2.0 / 3, "0.6666666666666666"},
		{2.5, "2.5"},
		{1e-5, "1e-05"},
		{1.5e-4, "0.00015"},
		{123456789012345.6, "123456789012345.6"},
		{9007199254740991.0, "9007199254740991"},
		{9007199254740992.0, "9007199254740992"},
		{1e16, "1e+16"},
		{1e300, "1e+300"},
		{DBL_MAX, "1.7976931348623157e+308"},
		{DBL_MIN, "2.2250738585072014e-308"},
		{5e-324, "4.94065645841247e-324"},
		{0x1p-23, "1.1920928955078125e-07"},
	};
	char buf[DL_NUM_BUF];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = dl_fmt_double(buf, cases[i].v);
		is_str(buf, cases[i].s, "dl_fmt_double(%a)", cases[i].v);
		is_int(n, (long long)strlen(cases[i].s), "length of '%s'", cases[i].s);
	}
	is_str((dl_fmt_double(buf, NAN), buf), "nan", "nan");
	is_str((dl_fmt_double(buf, -INFINITY), buf), "-inf", "-inf");
	is_str((dl_fmt_double(buf, INFINITY), buf), "inf", "inf");
}

static void test_int64_and_parse(void)
{
	char a[DL_NUM_BUF], b[64], s[64];
	long bad = 0, n = 0;
	static const int64_t edge[] = {0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN, INT64_MIN + 1};
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++, n++) {
		int la = dl_fmt_int64(a, edge[i]);
		int lb = snprintf(b, sizeof(b), "%lld", (long long)edge[i]);
		bad += la != lb || strcmp(a, b);
	}
	for (int i = 0; i < 200000; i++, n++) {
		int64_t v = (int64_t)(rnd() >> (rnd() % 64));
		if (i & 1)
			v = -v;
		int la = dl_fmt_int64(a, v);
		int lb = snprintf(b, sizeof(b), "%lld", (long long)v);
		bad += la != lb || strcmp(a, b);
	}
	ok(bad == 0, "dl_fmt_int64 == %%lld on %ld values", n);

	static const char *const strs[] = {"0",
					   "-0",
					   "+0",
					   "007",
					   "-",
					   "+",
					   "",
					   "1-",
					   "--1",
					   "+-1",
					   "1 ",
					   " 1",
					   "1e3",
					   "1.5",
					   "999999999999999",
					   "1000000000000000",
					   "-123456789012345",
					   "12345678901234567890123"};
	bad = 0;
	n = 0;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]) + 200000; i++, n++) {
		const char *str;
		if (i < sizeof(strs) / sizeof(strs[0])) {
			str = strs[i];
		} else {
			static const char *const sign[] = {"", "-", "+"};
			int digits = 1 + (int)(rnd() % 19);
			int len = snprintf(s, sizeof(s), "%s", sign[rnd() % 3]);
			for (int k = 0; k < digits; k++)
				s[len++] = (char)('0' + rnd() % 10);
			s[len] = 0;
			str = s;
		}
		double got = 12345, want;
		int rc = dl_parse_double(str, &got);
		char *end;
		want = strtod(str, &end);
		int want_rc =
			(*str && end != str && !*end && *str != ' ' && str[strlen(str) - 1] != ' ')
				? 0
				: -1;
		if (rc != want_rc || (rc == 0 && memcmp(&got, &want, sizeof(got)))) {
			if (bad++ < 10)
				printf("# dl_parse_double('%s'): rc %d, %a; strtod %a\n", str, rc,
				       got, want);
		}
	}
	ok(bad == 0, "dl_parse_double == strtod on %ld integer-like strings", n);
}

int main(void)
{
	struct stats st = {0, 0};
	char s[64];

	test_fixed();
	test_int64_and_parse();

	for (int i = 0; i < 400000; i++)
		check(&st, from_bits(rnd() & 0x7fffffffffffffffu));
	report(&st, "random bit patterns");

	st = (struct stats){0, 0};
	for (int i = 0; i < 300000; i++) {
		int digits = 1 + (int)(rnd() % 17);
		uint64_t mant = rnd() % 100000000000000000u;
		while (mant >= 10 &&
		       (uint64_t)snprintf(s, sizeof(s), "%llu", (unsigned long long)mant) >
			       (uint64_t)digits)
			mant /= 10;
		int ex = (int)(rnd() % 60) - 30;
		if (i % 8 == 0)
			ex = (int)(rnd() % 640) - 330;
		snprintf(s, sizeof(s), "%llue%d", (unsigned long long)mant, ex);
		check(&st, strtod(s, NULL));
	}
	report(&st, "random decimals of 1..17 digits");

	st = (struct stats){0, 0};
	for (int64_t d = -50000; d <= 50000; d++) {
		check(&st, 9007199254740992.0 + (double)d * 2);
		check(&st, 9007199254740992.0 + (double)d);
		check(&st, 9007199254740992.0 - (double)d / 2);
	}
	for (int e = 53; e < 70; e++)
		for (int d = -200; d <= 200; d++)
			check_near(&st, ldexp(1, e) + d * ldexp(1, e - 52));
	report(&st, "integers near 2^53 and above");

	st = (struct stats){0, 0};
	for (int i = 0; i < 100000; i++)
		check(&st, from_bits(rnd() & 0x000fffffffffffffu));
	for (uint64_t b = 1; b < 2000; b++)
		check(&st, from_bits(b));
	check_near(&st, DBL_MIN);
	check_near(&st, DBL_MIN * 2);
	report(&st, "subnormals and the smallest normals");

	st = (struct stats){0, 0};
	for (int e = -330; e <= 310; e++) {
		snprintf(s, sizeof(s), "1e%d", e);
		check_near(&st, strtod(s, NULL));
		for (int m = 1; m < 100; m++) {
			snprintf(s, sizeof(s), "%de%d", m, e);
			check_near(&st, strtod(s, NULL));
		}
	}
	for (int e = -1074; e <= 1023; e++)
		check_near(&st, ldexp(1, e));
	check_near(&st, DBL_MAX);
	report(&st, "powers of ten and two, their neighbours");

	st = (struct stats){0, 0};
	static const double divs[] = {3, 7, 9, 11, 13, 17, 100, 1000, 3600, 86400, 1e6};
	for (int i = 0; i < 30000; i++) {
		double x = (double)(rnd() % 2000000) + 1;
		if (i % 3 == 0)
			x = (double)(rnd() % 100000000000u) + 1;
		for (size_t j = 0; j < sizeof(divs) / sizeof(divs[0]); j++)
			check(&st, x / divs[j]);
		check(&st, x * 0.1);
		check(&st, x * 1e-9);
	}
	report(&st, "quotients x/3, x/7, ..., x*0.1");

	st = (struct stats){0, 0};
	/*
	 * Exact decimal ties (v = (d + 1/2) * 10^s): printf rounds them to even.
	 * v = m * 2^(s-1) with 5^s | m, and v = odd * 2^-j with 18 digits.
	 */
	for (int sx = 1; sx <= 22; sx++) {
		uint64_t p5 = 1;
		for (int i = 0; i < sx; i++)
			p5 *= 5;
		uint64_t lo = ((UINT64_C(1) << 52) + p5 - 1) / p5, hi = (UINT64_C(1) << 53) / p5;
		for (int i = 0; i < 2000 && lo <= hi; i++) {
			uint64_t jj = lo + (i < 1000 ? (uint64_t)i : rnd() % (hi - lo + 1));
			if (jj <= hi)
				check_near(&st, ldexp((double)(jj * p5), sx - 1));
		}
	}
	for (int jx = 1; jx <= 60; jx++)
		for (int i = 0; i < 2000; i++)
			check(&st, ldexp((double)((rnd() >> 11) | 1), -jx));
	report(&st, "exact decimal ties");

	st = (struct stats){0, 0};
	for (int i = 0; i < 100000; i++) {
		/* random doubles in the ranges the tools print (1e-6 .. 1e12) */
		double x = exp((double)(rnd() % 1000000) / 1000000 * 41.4 - 13.8);
		check(&st, x);
		check(&st, floor(x * 100) / 100);
	}
	report(&st, "values between 1e-6 and 1e12");

	return done_testing();
}
