/* test_core.c: strbuf, strict numbers, number formatting, errors, strmap */
#include <math.h>
#include <stdlib.h>

#include "core/common.h"
#include "core/num.h"
#include "core/strmap.h"
#include "tap.h"

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	is_str(sb.buf, "", "empty strbuf is an empty string without allocating");
	sb_addstr(&sb, "abc");
	sb_addc(&sb, '-');
	sb_addf(&sb, "%d/%s", 42, "x");
	is_str(sb.buf, "abc-42/x", "sb_add* append");
	for (int i = 0; i < 1000; i++)
		sb_addf(&sb, "%04d", i);
	is_int(sb.len, 8 + 4000, "sb grows past its first allocation");
	sb_setlen(&sb, 3);
	is_str(sb.buf, "abc", "sb_setlen truncates and terminates");
	char *d = sb_detach(&sb);
	is_str(d, "abc", "sb_detach hands over the string");
	is_int(sb.len, 0, "detached strbuf is empty");
	free(d);
	sb_release(&sb);
}

static void test_parse(void)
{
	int64_t i = -1;
	ok(dl_parse_int64("42", &i) == 0 && i == 42, "int 42");
	ok(dl_parse_int64("-7", &i) == 0 && i == -7, "int -7");
	ok(dl_parse_int64("", &i) < 0, "empty is not an int");
	ok(dl_parse_int64("4x", &i) < 0, "trailing junk is not an int");
	ok(dl_parse_int64(" 4", &i) < 0, "leading blank is not an int");
	ok(dl_parse_int64("1.5", &i) < 0, "1.5 is not an int");
	ok(dl_parse_int64("99999999999999999999", &i) < 0, "overflow is rejected");
	uint64_t u;
	ok(dl_parse_uint64("-1", &u) < 0, "negative is not unsigned");
	ok(dl_parse_uint64("18446744073709551615", &u) == 0 && u == UINT64_MAX, "uint64 max");
	double d = 0;
	ok(dl_parse_double("1.5e3", &d) == 0 && d == 1500, "double 1.5e3");
	ok(dl_parse_double("-0.25", &d) == 0 && d == -0.25, "double -0.25");
	ok(dl_parse_double("nan", &d) < 0, "nan rejected");
	ok(dl_parse_double("inf", &d) < 0, "inf rejected");
	ok(dl_parse_double("1e999", &d) < 0, "overflow rejected");
	ok(dl_parse_double("0x10", &d) < 0, "hex float rejected");
	ok(dl_parse_double("1,5", &d) < 0, "comma decimal rejected");
	ok(dl_parse_double(".", &d) < 0, "lone dot rejected");
	ok(dl_parse_nonneg("-1", &d) < 0, "nonneg rejects -1");
	ok(dl_parse_nonneg("-0", &d) == 0 && d == 0 && !signbit(d), "nonneg -0 is +0");
	long long ll;
	ok(dl_parse_int_range("5", 1, 4, &ll) < 0, "range check");
	ok(dl_parse_int_range("4", 1, 4, &ll) == 0 && ll == 4, "range inclusive");
}

static void test_format(void)
{
	char b[DL_NUM_BUF];
	dl_fmt_double(b, 3.0);
	is_str(b, "3", "integral double prints as integer");
	dl_fmt_double(b, 0.1);
	is_str(b, "0.1", "0.1 shortest");
	dl_fmt_double(b, 1.0 / 3.0);
	is_str(b, "0.3333333333333333", "1/3 round-trips with 16 digits");
	double back = strtod(b, NULL);
	ok(back == 1.0 / 3.0, "formatted 1/3 reads back exactly");
	dl_fmt_double(b, -2.5e-7);
	is_str(b, "-2.5e-07", "small negative");
	dl_fmt_double(b, 1e20);
	is_str(b, "1e+20", "big integral beyond 2^53 uses exponent");
	dl_fmt_double(b, -0.0);
	is_str(b, "0", "negative zero prints 0");
	dl_fmt_double_prec(b, 178.416666666, 4);
	is_str(b, "178.4", "4 significant digits");
	dl_fmt_int64(b, INT64_MIN);
	is_str(b, "-9223372036854775808", "int64 min");
}

static void test_err(void)
{
	struct dl_err err = DL_ERR_INIT;
	ok(dl_err_at(&err, "t.csv", 12, "bad gpus value '%s'", "x") == -1, "dl_err_at returns -1");
	is_str(err.msg, "t.csv:12: bad gpus value 'x'", "file:line message");
	is_int(err.code, DL_EXIT_DATA, "data error code");
	dl_err_at(&err, "t.csv", 0, "missing required column 'id'");
	is_str(err.msg, "t.csv: missing required column 'id'", "no line when 0");
	dl_err_prefix(&err, "loading");
	is_str(err.msg, "loading: t.csv: missing required column 'id'", "prefix");
	dl_err_set(&err, DL_EXIT_NOSOL, "%s", "infeasible");
	is_int(err.code, DL_EXIT_NOSOL, "code kept");
}

static void test_strmap(void)
{
	struct strmap m = STRMAP_INIT;
	char key[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		strmap_put(&m, key, i);
	}
	int good = 1;
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		int64_t *v = strmap_get(&m, key);
		good &= v && *v == i;
	}
	ok(good, "5000 keys round-trip");
	ok(strmap_get(&m, "nope") == NULL, "absent key");
	is_int(strmap_put(&m, "k1", 7), 0, "overwrite reports existing");
	is_int(*strmap_get(&m, "k1"), 7, "overwrite stores");
	is_int(m.count, 5000, "count");
	strmap_free(&m);
}

int main(void)
{
	test_strbuf();
	test_parse();
	test_format();
	test_err();
	test_strmap();
	return done_testing();
}
