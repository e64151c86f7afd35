/* test_opt.c: typed option tables (lib/core/opt.h): storing, checking, describing, suggesting */
#include <math.h>
#include <stdlib.h>

#include "core/common.h"
#include "core/opt.h"
#include "tap.h"

struct args {
	int flag, count, small, choice;
	int64_t big;
	uint64_t seed;
	double ratio, secs, any;
	const char *name, *list, *open;
	struct dl_strlist many;
};

static const char *const modes[] = {"ring", "ps", NULL};
static const char *const mode_aliases[] = {"allreduce=ring", NULL};

static const char *level_at(size_t i)
{
	static const char *const levels[] = {"node", "rack", "cluster"};
	return i < DL_ARRAY_SIZE(levels) ? levels[i] : NULL;
}

#define AT(f) DL_OPT_AT(struct args, f)
static const struct dl_opt opts[] = {
	{DL_OPT_FLAG, 'x', "flag", NULL, "a flag", AT(flag)},
	{DL_OPT_COUNT, 'v', "count", NULL, "a counter", AT(count)},
	{DL_OPT_INT, 0, "small", "N", "an int", AT(small), .imin = 1, .imax = 64, .def = "3"},
	{DL_OPT_INT, 0, "big", "N", "an int64", AT(big)},
	{DL_OPT_UINT64, 0, "seed", "S", "a seed", AT(seed), .def = "7"},
	{DL_OPT_DOUBLE, 0, "ratio", "R", "a ratio", AT(ratio), .min = 0, .max = 1},
	{DL_OPT_SECONDS, 0, "secs", "S", "seconds", AT(secs), .flags = DL_OPTF_GT, .def = "20"},
	{DL_OPT_DOUBLE, 0, "any", "X", "any number", AT(any), .min = -INFINITY, .max = INFINITY},
	{DL_OPT_STRING, 0, "name", "NAME", "a name", AT(name), .flags = DL_OPTF_NONEMPTY},
	{DL_OPT_NUMLIST, 0, "list", "A,B", "limits", AT(list), .flags = DL_OPTF_GT},
	{DL_OPT_CHOICE, 0, "mode", "M", "a mode", AT(choice), .values = modes,
	 .aliases = mode_aliases, .def = "ps"},
	{DL_OPT_CHOICE, 0, "level", "L", "a level", AT(open), .value_at = level_at,
	 .flags = DL_OPTF_OPEN},
	{DL_OPT_STRINGS, 'l', "label", "L", "labels", AT(many)},
	{DL_OPT_END},
};

static const struct dl_opt *opt(const char *name)
{
	for (const struct dl_opt *o = opts; o->type != DL_OPT_END; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static const char *expect_of(const char *name)
{
	static char buf[200];
	struct strbuf sb = STRBUF_INIT;
	dl_opt_expect(opt(name), &sb);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	sb_release(&sb);
	return buf;
}

static void test_store(void)
{
	struct args a = {0};
	const struct dl_opt *bad = NULL;
	ok(dl_opt_set_defaults(opts, &a, &bad) == 0, "defaults parse");
	is_int(a.small, 3, "default int stored");
	is_int(a.seed, 7, "default uint64 stored");
	is_double(a.secs, 20, 0, "default seconds stored");
	is_int(a.choice, 1, "default choice stored as its index");
	ok(!dl_opt_store(opt("flag"), &a, "") && a.flag == 1, "flag sets 1");
	dl_opt_store(opt("count"), &a, "");
	dl_opt_store(opt("count"), &a, "");
	is_int(a.count, 2, "count counts");
	ok(!dl_opt_store(opt("small"), &a, "64") && a.small == 64, "int at the top of its range");
	ok(dl_opt_store(opt("small"), &a, "65") < 0 && a.small == 64,
	   "int above range: refused, unchanged");
	ok(dl_opt_store(opt("small"), &a, "0") < 0, "int below range refused");
	ok(dl_opt_store(opt("small"), &a, "3x") < 0, "int with junk refused");
	ok(!dl_opt_store(opt("big"), &a, "9223372036854775807") && a.big == INT64_MAX,
	   "int64 field takes the int64 maximum");
	ok(dl_opt_store(opt("big"), &a, "-1") < 0, "unranged int is >= 0");
	ok(dl_opt_store(opt("seed"), &a, "-1") < 0, "uint64 refuses -1");
	ok(!dl_opt_store(opt("ratio"), &a, "1") && a.ratio == 1, "double at its max");
	ok(dl_opt_store(opt("ratio"), &a, "1.01") < 0, "double above max");
	ok(dl_opt_store(opt("secs"), &a, "0") < 0, "seconds > 0 refuses 0");
	ok(dl_opt_store(opt("secs"), &a, "nan") < 0, "nan is not a number");
	ok(!dl_opt_store(opt("any"), &a, "-5") && a.any == -5, "unbounded double takes -5");
	ok(dl_opt_store(opt("name"), &a, "") < 0, "non-empty string refuses ''");
	ok(!dl_opt_store(opt("list"), &a, "1,2.5,10") && !strcmp(a.list, "1,2.5,10"),
	   "number list stored as given");
	ok(dl_opt_store(opt("list"), &a, "1,,2") < 0, "empty item refused");
	ok(dl_opt_store(opt("list"), &a, "1,0") < 0, "item out of range refused");
	ok(dl_opt_store(opt("list"), &a, "1,") < 0, "trailing comma refused");
	ok(!dl_opt_store(opt("mode"), &a, "ring") && a.choice == 0, "choice by name");
	ok(!dl_opt_store(opt("mode"), &a, "allreduce") && a.choice == 0, "choice by alias");
	ok(dl_opt_store(opt("mode"), &a, "Ring") < 0, "choices are exact");
	ok(!dl_opt_store(opt("level"), &a, "anything") && !strcmp(a.open, "anything"),
	   "open choice stores the string for its owner to check");
	is_str(dl_opt_value(opt("level"), 2), "cluster", "values from a function");
	for (int i = 0; i < 20; i++)
		dl_opt_store(opt("label"), &a, i % 2 ? "b" : "a");
	ok(a.many.n == 20 && !strcmp(a.many.v[0], "a") && !strcmp(a.many.v[19], "b"),
	   "a repeatable option keeps every value in order");
	dl_strlist_free(&a.many);
	ok(a.many.n == 0 && !a.many.v, "the list is freed");
	ok(dl_opt_value(opt("level"), 3) == NULL, "NULL after the last value");
}

static void test_expect(void)
{
	is_str(expect_of("small"), "an integer in 1..64", "int range");
	is_str(expect_of("big"), "an integer >= 0", "int without bounds");
	is_str(expect_of("seed"), "an integer >= 0", "uint64");
	is_str(expect_of("ratio"), "a number in 0..1", "double range");
	is_str(expect_of("secs"), "a number of seconds > 0", "seconds > 0");
	is_str(expect_of("any"), "a number", "any number");
	is_str(expect_of("list"), "numbers > 0 joined by ','", "number list");
	is_str(expect_of("mode"), "one of ring, ps", "choice lists values, not aliases");
	is_str(expect_of("name"), "not empty", "non-empty string");
	is_str(dl_opt_default(opt("mode")), "ps", "default text");
}

static void test_suggest(void)
{
	is_int(dl_edit_distance("policy", "policy"), 0, "same word");
	is_int(dl_edit_distance("polcy", "policy"), 1, "one deletion");
	is_int(dl_edit_distance("polciy", "policy"), 1, "swapped neighbours count once");
	is_int(dl_edit_distance("", "abc"), 3, "from empty");
	struct dl_suggest s;
	dl_suggest_init(&s, "polcy");
	dl_suggest_add(&s, "place");
	dl_suggest_add(&s, "policy");
	dl_suggest_add(&s, "profiles");
	is_str(s.best, "policy", "closest candidate");
	dl_suggest_init(&s, "frob");
	dl_suggest_add(&s, "format");
	dl_suggest_add(&s, "number");
	ok(s.best == NULL, "nothing close: no suggestion");
}

int main(void)
{
	test_store();
	test_expect();
	test_suggest();
	return done_testing();
}
