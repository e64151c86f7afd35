/* opt.c: storing and checking the values of typed options (opt.h) */
#include "core/opt.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/xalloc.h"

static void *field(const struct dl_opt *o, void *base)
{
	return (char *)base + o->offset;
}

/* INT range, with the default [0, max of the field] */
static void int_range(const struct dl_opt *o, int64_t *lo, int64_t *hi)
{
	int64_t top = o->size == sizeof(int) ? INT_MAX : INT64_MAX;
	*lo = o->imin;
	*hi = o->imax;
	if (!*lo && !*hi)
		*hi = top;
	if (*hi > top)
		*hi = top;
}

/* DOUBLE, SECONDS, NUMLIST range, with the default [0, inf) */
static void real_range(const struct dl_opt *o, double *lo, double *hi)
{
	*lo = o->min;
	*hi = o->max;
	if (*lo == 0 && *hi == 0)
		*hi = INFINITY;
}

static int real_ok(const struct dl_opt *o, double v)
{
	double lo, hi;
	real_range(o, &lo, &hi);
	if ((o->flags & DL_OPTF_GT) ? !(v > lo) : !(v >= lo))
		return 0;
	return v <= hi;
}

static int numlist_ok(const struct dl_opt *o, const char *s)
{
	char buf[64];
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		double v;
		if (!len || len >= sizeof(buf))
			return 0;
		memcpy(buf, s, len);
		buf[len] = 0;
		if (dl_parse_double(buf, &v) || !real_ok(o, v))
			return 0;
		if (!comma)
			return 1;
		s = comma + 1;
	}
}

const char *dl_opt_value(const struct dl_opt *o, size_t i)
{
	if (o->value_at)
		return o->value_at(i);
	if (!o->values)
		return NULL;
	for (size_t k = 0; k < i; k++)
		if (!o->values[k])
			return NULL;
	return o->values[i];
}

int dl_opt_choice_index(const struct dl_opt *o, const char *arg)
{
	const char *v;
	for (size_t i = 0; (v = dl_opt_value(o, i)); i++)
		if (!strcmp(v, arg))
			return (int)i;
	for (size_t i = 0; o->aliases && o->aliases[i]; i++) {
		const char *eq = strchr(o->aliases[i], '=');
		if (eq && strlen(arg) == (size_t)(eq - o->aliases[i]) &&
		    !strncmp(arg, o->aliases[i], (size_t)(eq - o->aliases[i])))
			return dl_opt_choice_index(o, eq + 1);
	}
	return -1;
}

int dl_opt_store(const struct dl_opt *o, void *base, const char *arg)
{
	void *p = field(o, base);
	switch (o->type) {
	case DL_OPT_FLAG:
		*(int *)p = 1;
		return 0;
	case DL_OPT_COUNT:
		(*(int *)p)++;
		return 0;
	case DL_OPT_STRING:
	case DL_OPT_FILE:
		if ((o->flags & DL_OPTF_NONEMPTY) && !*arg)
			return -1;
		*(const char **)p = arg;
		return 0;
	case DL_OPT_INT: {
		int64_t lo, hi;
		long long v;
		int_range(o, &lo, &hi);
		if (dl_parse_int_range(arg, lo, hi, &v))
			return -1;
		if (o->size == sizeof(int))
			*(int *)p = (int)v;
		else
			*(int64_t *)p = v;
		return 0;
	}
	case DL_OPT_UINT64: {
		uint64_t v;
		if (dl_parse_uint64(arg, &v))
			return -1;
		*(uint64_t *)p = v;
		return 0;
	}
	case DL_OPT_DOUBLE:
	case DL_OPT_SECONDS: {
		double v;
		if (dl_parse_double(arg, &v) || !real_ok(o, v))
			return -1;
		*(double *)p = v;
		return 0;
	}
	case DL_OPT_NUMLIST:
		if (!numlist_ok(o, arg))
			return -1;
		*(const char **)p = arg;
		return 0;
	case DL_OPT_CHOICE: {
		if (o->flags & DL_OPTF_OPEN) {
			*(const char **)p = arg;
			return 0;
		}
		int i = dl_opt_choice_index(o, arg);
		if (i < 0)
			return -1;
		*(int *)p = i;
		return 0;
	}
	case DL_OPT_STRINGS:
	case DL_OPT_FILES: {
		struct dl_strlist *l = p;
		if ((o->flags & DL_OPTF_NONEMPTY) && !*arg)
			return -1;
		DL_GROW(l->v, l->n + 1, l->alloc);
		l->v[l->n++] = arg;
		return 0;
	}
	case DL_OPT_CALLBACK:
		return o->fn ? o->fn(o, base, arg) : -1;
	case DL_OPT_END:
		break;
	}
	return -1;
}

int dl_opt_set_defaults(const struct dl_opt *opts, void *base, const struct dl_opt **bad)
{
	for (const struct dl_opt *o = opts; o && o->type != DL_OPT_END; o++) {
		if (o->def && dl_opt_store(o, base, o->def)) {
			*bad = o;
			return -1;
		}
	}
	return 0;
}

static void add_num(struct strbuf *sb, double v)
{
	char buf[DL_NUM_BUF];
	dl_fmt_double(buf, v);
	sb_addstr(sb, buf);
}

static void real_bounds(const struct dl_opt *o, struct strbuf *sb)
{
	double lo, hi;
	real_range(o, &lo, &hi);
	const char *gt = (o->flags & DL_OPTF_GT) ? " >" : " >=";
	if (isinf(lo) && isinf(hi))
		return;
	if (isinf(hi)) {
		sb_addstr(sb, gt);
		sb_addc(sb, ' ');
		add_num(sb, lo);
	} else if (isinf(lo)) {
		sb_addstr(sb, " <= ");
		add_num(sb, hi);
	} else if (o->flags & DL_OPTF_GT) {
		sb_addstr(sb, " > ");
		add_num(sb, lo);
		sb_addstr(sb, " and <= ");
		add_num(sb, hi);
	} else {
		sb_addstr(sb, " in ");
		add_num(sb, lo);
		sb_addstr(sb, "..");
		add_num(sb, hi);
	}
}

void dl_opt_values(const struct dl_opt *o, const char *sep, struct strbuf *sb)
{
	const char *v;
	for (size_t i = 0; (v = dl_opt_value(o, i)); i++) {
		if (i)
			sb_addstr(sb, sep);
		sb_addstr(sb, v);
	}
}

void dl_opt_bad_value_text(const struct dl_opt *o, const char *arg, struct strbuf *sb)
{
	struct strbuf why = STRBUF_INIT;
	dl_opt_expect(o, &why);
	sb_addf(sb, "bad --%s value '%s'%s%s%s", o->name, arg, why.len ? " (" : "", why.buf,
		why.len ? ")" : "");
	sb_release(&why);
}

void dl_opt_expect(const struct dl_opt *o, struct strbuf *sb)
{
	switch (o->type) {
	case DL_OPT_INT: {
		int64_t lo, hi;
		int_range(o, &lo, &hi);
		if (hi == (o->size == sizeof(int) ? INT_MAX : INT64_MAX))
			sb_addf(sb, "an integer >= %lld", (long long)lo);
		else
			sb_addf(sb, "an integer in %lld..%lld", (long long)lo, (long long)hi);
		return;
	}
	case DL_OPT_UINT64:
		sb_addstr(sb, "an integer >= 0");
		return;
	case DL_OPT_DOUBLE:
		sb_addstr(sb, "a number");
		real_bounds(o, sb);
		return;
	case DL_OPT_SECONDS:
		sb_addstr(sb, "a number of seconds");
		real_bounds(o, sb);
		return;
	case DL_OPT_NUMLIST:
		sb_addstr(sb, "numbers");
		real_bounds(o, sb);
		sb_addstr(sb, " joined by ','");
		return;
	case DL_OPT_CHOICE:
		sb_addstr(sb, "one of ");
		dl_opt_values(o, ", ", sb);
		return;
	case DL_OPT_STRING:
	case DL_OPT_FILE:
	case DL_OPT_STRINGS:
	case DL_OPT_FILES:
	case DL_OPT_CALLBACK:
		if (o->expect)
			sb_addstr(sb, o->expect);
		else if (o->flags & DL_OPTF_NONEMPTY)
			sb_addstr(sb, "not empty");
		return;
	default:
		return;
	}
}

const char *dl_opt_default(const struct dl_opt *o)
{
	return o->def ? o->def : o->def_doc;
}

const char *dl_opt_type_name(enum dl_opt_type t)
{
	static const char *const names[] = {
		[DL_OPT_END] = "end",	      [DL_OPT_FLAG] = "flag",
		[DL_OPT_COUNT] = "count",     [DL_OPT_STRING] = "string",
		[DL_OPT_FILE] = "file",	      [DL_OPT_INT] = "int",
		[DL_OPT_UINT64] = "uint64",   [DL_OPT_DOUBLE] = "double",
		[DL_OPT_SECONDS] = "seconds", [DL_OPT_NUMLIST] = "numlist",
		[DL_OPT_CHOICE] = "choice",   [DL_OPT_STRINGS] = "string",
		[DL_OPT_FILES] = "file",      [DL_OPT_CALLBACK] = "string",
	};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

int dl_opt_takes_value(const struct dl_opt *o)
{
	return o->type != DL_OPT_FLAG && o->type != DL_OPT_COUNT;
}

void dl_strlist_free(struct dl_strlist *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- suggestions ---- */

#define DIST_MAX 64

size_t dl_edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n >= DIST_MAX || m >= DIST_MAX)
		return n > m ? n : m;
	/* three rows of the optimal-string-alignment table */
	size_t rows[3][DIST_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = prev[j - 1] + cost;
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

void dl_suggest_init(struct dl_suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->dist = SIZE_MAX;
}

void dl_suggest_add(struct dl_suggest *s, const char *candidate)
{
	size_t len = strlen(s->word);
	/* about one typo per four letters, as a human would still recognise */
	size_t allowed = len < 4 ? 1 : len < 9 ? 2 : 3;
	size_t d = dl_edit_distance(s->word, candidate);
	if (d <= allowed && d < s->dist) {
		s->best = candidate;
		s->dist = d;
	}
}
