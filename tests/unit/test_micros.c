/*
 * test_micros.c: the simulator's clock as text. dl_parse_micros reads
 * decimal seconds into integer microseconds exactly (checked against an
 * independent digit-string computation on random numbers of every shape,
 * including far beyond what a double holds to the microsecond), rounds
 * extra digits to nearest with ties away from zero, and refuses what
 * dl_parse_double refuses. dl_fmt_micros writes the exact decimal, which is
 * dl_fmt_double's text wherever the double is exact. Also the decimal fast
 * path of dl_parse_double (against strtod) and dl_fmt_double_prec's integer
 * path (against snprintf).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/rng.h"
#include "tap.h"

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rnd(void)
{
	return dl_splitmix64(&rng_state);
}

static void test_fixed(void)
{
	static const struct {
		const char *s;
		int rc;
		int64_t us;
	} cases[] = {
		{"0", 0, 0},
		{"-0", 0, 0},
		{"1", 0, 1000000},
		{"1.5", 0, 1500000},
		{".5", 0, 500000},
		{"5.", 0, 5000000},
		{"+2", 0, 2000000},
		{"-2.25", 0, -2250000},
		{"0.000001", 0, 1},
		{"0.0000005", 0, 1}, /* a tie: away from zero */
		{"-0.0000005", 0, -1},
		{"0.00000049999999999999999999", 0, 0},
		{"0.0000014999999", 0, 1},
		{"8388548.314", 0, INT64_C(8388548314000)},
		{"10000000000.000001", 0, INT64_C(10000000000000001)},
		{"1708388548.314", 0, INT64_C(1708388548314000)},
		{"1e3", 0, 1000000000},
		{"1.5E+02", 0, 150000000},
		{"25e-6", 0, 25},
		{"123456789012345678901234e-24", 0, 123457},		    /* 0.123456789... */
		{"1234567890123.4567895", 0, INT64_C(1234567890123456790)}, /* 20 digits: a tie */
		{"1234567890123.45678949", 0, INT64_C(1234567890123456789)},
		{"4611686018427.387904", 0, INT64_C(4611686018427387904)}, /* 2^62 us */
		{"4611686018427.387905", -1, 0},
		{"1e400", -1, 0},
		{"1e-400", 0, 0},
		{"", -1, 0},
		{"-", -1, 0},
		{".", -1, 0},
		{"1e", -1, 0},
		{"e5", -1, 0},
		{"1.2.3", -1, 0},
		{" 1", -1, 0},
		{"1 ", -1, 0},
		{"0x10", -1, 0},
		{"nan", -1, 0},
		{"inf", -1, 0},
		{"1,5", -1, 0},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = -12345;
		int rc = dl_parse_micros(cases[i].s, &v);
		if (rc != cases[i].rc || (rc == 0 && v != cases[i].us)) {
			bad++;
			printf("# dl_parse_micros('%s'): rc %d, %lld\n", cases[i].s, rc,
			       (long long)v);
		}
		if (rc < 0 && v != -12345)
			bad++; /* *out untouched on failure */
	}
	ok(!bad, "dl_parse_micros: fixed cases");
}

static void random_micros(void)
{
	long bad = 0, n = 0;
	char s[128], f[DL_NUM_BUF];
	for (int i = 0; i < 300000; i++, n++) {
		/* a magnitude from 1 us to 2^62 us, then a random spelling */
		int64_t us = (int64_t)(rnd() >> (2 + rnd() % 62));
		if (i & 1)
			us = -us;
		uint64_t u = us < 0 ? -(uint64_t)us : (uint64_t)us;
		int len = snprintf(s, sizeof(s), "%s%llu.%06llu", us < 0 ? "-" : (i % 3 ? "" : "+"),
				   (unsigned long long)(u / 1000000),
				   (unsigned long long)(u % 1000000));
		int zeros = (int)(rnd() % 4); /* trailing zeros change nothing */
		for (int k = 0; k < zeros; k++)
			s[len++] = '0';
		s[len] = 0;
		int64_t got;
		if (dl_parse_micros(s, &got) || got != us) {
			if (bad++ < 5)
				printf("# dl_parse_micros('%s') != %lld\n", s, (long long)us);
			continue;
		}
		/* exponent form: digits with the point removed, times 10^-6 */
		len = snprintf(s, sizeof(s), "%lldE-6", (long long)us);
		if (dl_parse_micros(s, &got) || got != us) {
			if (bad++ < 5)
				printf("# dl_parse_micros('%s') != %lld\n", s, (long long)us);
			continue;
		}
		/* extra digits round to nearest, ties away from zero */
		int extra = (int)(rnd() % 10);
		len = snprintf(s, sizeof(s), "%lld.%d%s", (long long)us, extra,
			       rnd() % 2 ? "000001" : "");
		/* .5 exactly is a tie (away from zero), .5000001 is above it */
		int64_t want = extra >= 5 ? us + (us < 0 ? -1 : 1) : us;
		char e[160];
		snprintf(e, sizeof(e), "%se-6", s);
		if (dl_parse_micros(e, &got) || got != want) {
			if (bad++ < 5)
				printf("# dl_parse_micros('%s') = %lld, want %lld\n", e,
				       (long long)got, (long long)want);
			continue;
		}
		/* formatting is exact and reads back */
		dl_fmt_micros(f, us);
		if (dl_parse_micros(f, &got) || got != us) {
			if (bad++ < 5)
				printf("# dl_fmt_micros(%lld) = '%s' does not read back\n",
				       (long long)us, f);
		}
	}
	ok(!bad, "dl_parse_micros and dl_fmt_micros: %ld random values of every magnitude", n);
}

static void fmt_matches_double(void)
{
	long bad = 0, n = 0;
	char a[DL_NUM_BUF], b[DL_NUM_BUF];
	for (int i = 0; i < 300000; i++, n++) {
		/* below 2^32 s (2^51 us is under that) the seconds are exact to the microsecond */
		int64_t us = (int64_t)(rnd() >> (13 + rnd() % 51));
		if (i % 7 == 0)
			us = -us;
		dl_fmt_micros(a, us);
		dl_fmt_double(b, (double)us / 1e6);
		if (strcmp(a, b) && bad++ < 5)
			printf("# %lld us: '%s', dl_fmt_double '%s'\n", (long long)us, a, b);
	}
	ok(!bad, "dl_fmt_micros == dl_fmt_double of the seconds below 2^51 us (%ld values)", n);
	/* every digit count: seconds around each power of ten (the formatter's boundaries) */
	bad = n = 0;
	static const int64_t frac[] = {0, 1, 10, 500000, 999999};
	for (int64_t p10 = 1; p10 <= INT64_C(1000000000); p10 *= 10)
		for (int64_t sec = p10 - 1; sec <= p10 + 1; sec++)
			for (size_t k = 0; k < sizeof(frac) / sizeof(frac[0]); k++, n++) {
				int64_t us = sec * 1000000 + frac[k];
				dl_fmt_micros(a, us);
				dl_fmt_double(b, (double)us / 1e6);
				if (strcmp(a, b) && bad++ < 5)
					printf("# %lld us: '%s', dl_fmt_double '%s'\n",
					       (long long)us, a, b);
			}
	ok(!bad, "dl_fmt_micros == dl_fmt_double around every power of ten (%ld values)", n);
	dl_fmt_micros(a, INT64_C(10000000000000001));
	is_str(a, "10000000000.000001", "dl_fmt_micros: exact where a double is not");
	dl_fmt_micros(a, 25);
	is_str(a, "2.5e-05", "dl_fmt_micros: tiny values as dl_fmt_double writes them");
	dl_fmt_micros(a, 100);
	is_str(a, "0.0001", "dl_fmt_micros: 100 us");
	dl_fmt_micros(a, 0);
	is_str(a, "0", "dl_fmt_micros: zero as dl_fmt_double writes it");
	int64_t v = 0;
	ok(dl_micros_from_seconds(8388548.314, &v) == 0 && v == INT64_C(8388548314000),
	   "dl_micros_from_seconds rounds to the nearest microsecond");
	ok(dl_micros_from_seconds(1e300, &v) < 0, "dl_micros_from_seconds: out of range");
}

static void parse_double_decimals(void)
{
	long bad = 0, n = 0;
	char s[64];
	for (int i = 0; i < 300000; i++, n++) {
		int ni = (int)(rnd() % 12), nf = 1 + (int)(rnd() % 15);
		int len = snprintf(s, sizeof(s), "%s", i % 5 ? "" : "-");
		for (int k = 0; k < ni; k++)
			s[len++] = (char)('0' + rnd() % 10);
		s[len++] = '.';
		for (int k = 0; k < nf; k++)
			s[len++] = (char)('0' + rnd() % 10);
		s[len] = 0;
		double got = 0, want = strtod(s, NULL);
		if (dl_parse_double(s, &got) || memcmp(&got, &want, sizeof(got))) {
			if (bad++ < 5)
				printf("# dl_parse_double('%s') = %a, strtod %a\n", s, got, want);
		}
	}
	ok(!bad, "dl_parse_double == strtod on %ld decimals of up to 27 digits", n);
	char a[DL_NUM_BUF], b[64];
	bad = 0;
	for (int i = 0; i < 100000; i++) {
		double v = (double)(int64_t)(rnd() >> (rnd() % 64)) * (i % 2 ? 1 : -1);
		int digits = 1 + (int)(rnd() % 17);
		dl_fmt_double_prec(a, v, digits);
		snprintf(b, sizeof(b), "%.*g", digits, v);
		char c[DL_NUM_BUF];
		dl_fmt_double(c, strtod(b, NULL));
		if (strcmp(a, c) && bad++ < 5)
			printf("# dl_fmt_double_prec(%.17g, %d) = '%s', want '%s'\n", v, digits, a,
			       c);
	}
	ok(!bad, "dl_fmt_double_prec on integers == rounding through printf");
}

/* the exact decimal by snprintf: seconds, then up to six decimals without trailing zeros */
static void micros_by_printf(char *out, size_t size, int64_t us)
{
	uint64_t u = us < 0 ? -(uint64_t)us : (uint64_t)us;
	int len = snprintf(out, size, "%s%llu.%06llu", us < 0 ? "-" : "",
			   (unsigned long long)(u / 1000000), (unsigned long long)(u % 1000000));
	while (out[len - 1] == '0')
		out[--len] = 0;
	if (out[len - 1] == '.')
		out[--len] = 0;
}

/*
 * Every count of digits in the seconds and of decimals in the fraction
 * (the word-at-a-time digits below 10^8 s, the division loop above), each
 * digit in every place, against snprintf; the tail of the buffer past the
 * text must not matter.
 */
static void fmt_every_shape(void)
{
	long bad = 0, n = 0;
	char a[DL_NUM_BUF], b[64];
	for (int i = 0; i < 400000; i++, n++) {
		int sdigits = i % 21, fdigits = (i / 21) % 7; /* 0 to 20, 0 to 6 */
		uint64_t sec = 0;
		for (int k = 0; k < sdigits && k < 19; k++)
			sec = sec * 10 + (k == 0 ? 1 + rnd() % 9 : rnd() % 10);
		uint64_t f = 0;
		for (int k = 0; k < 6; k++)
			f = f * 10 +
			    (k < fdigits ? (k == fdigits - 1 ? 1 + rnd() % 9 : rnd() % 10) : 0);
		if (i % 97 == 0) /* runs of nines and zeros carry nowhere: the lanes stay apart */
			f = i % 2 ? 999999 : 900000;
		if (sec > (uint64_t)INT64_MAX / 1000000 - 1)
			sec %= UINT64_C(1000000000000);
		int64_t us = (int64_t)(sec * 1000000 + f);
		if (us < 100)
			continue; /* the exponent form: dl_fmt_double's, checked above */
		if (i % 3 == 0)
			us = -us;
		memset(a, 'x', sizeof(a));
		int len = dl_fmt_micros(a, us);
		micros_by_printf(b, sizeof(b), us);
		if ((strcmp(a, b) || len != (int)strlen(b)) && bad++ < 5)
			printf("# %lld us: '%s' (%d), snprintf '%s'\n", (long long)us, a, len, b);
	}
	for (int64_t sec = 0; sec < 100000000; sec += 1 + (sec >> 4), n++) {
		int64_t us = sec * 1000000 + 100;
		dl_fmt_micros(a, us);
		micros_by_printf(b, sizeof(b), us);
		if (strcmp(a, b) && bad++ < 5)
			printf("# %lld us: '%s', snprintf '%s'\n", (long long)us, a, b);
	}
	ok(!bad, "dl_fmt_micros == snprintf for every digit count and decimal count (%ld values)",
	   n);
}

int main(void)
{
	test_fixed();
	random_micros();
	fmt_matches_double();
	fmt_every_shape();
	parse_double_decimals();
	return done_testing();
}
