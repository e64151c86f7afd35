/* gittins.c: Gittins index tables (see gittins.h for the definitions) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/common.h"
#include "core/opt.h"
#include "policy/gittins.h"
#include "table/table.h"

struct dl_gittins {
	enum dl_gittins_arith arith;
	double delta;
	size_t n;
	double *data;	     /* n samples, ascending */
	long double *prefix; /* n + 1 prefix sums of data (EXACT mode only) */
	double *table;	     /* n indices, table[i] for the bin [data[i-1], data[i]) */
};

/*
 * Sort n samples (finite, >= 0, -0 made +0 here) ascending. Such doubles
 * order as their bit patterns do, so this is a radix sort of those: eight
 * passes of a byte, skipped where every sample has the same byte (a
 * million-job trace's durations sorted in a few ms, not a qsort's 0.1 s).
 */
static void sort_samples(double *v, size_t n)
{
	uint64_t *a = xmalloc((n ? n : 1) * sizeof(*a)), *b = xmalloc((n ? n : 1) * sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		double x = v[i] + 0.0; /* -0 is +0 */
		memcpy(&a[i], &x, sizeof(x));
	}
	size_t count[256];
	for (int shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(a[i] >> shift) & 255]++;
		if (n && count[(a[0] >> shift) & 255] == n)
			continue; /* one byte value: this pass would not move anything */
		size_t at = 0;
		for (int k = 0; k < 256; k++) {
			size_t c = count[k];
			count[k] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i] >> shift) & 255]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(&v[i], &a[i], sizeof(v[i]));
	free(a);
	free(b);
}

/* first i in [0, n) with data[i] > a, or n */
static size_t upper_bound(const double *data, size_t n, double a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (data[mid] > a)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* upper_bound over data[from, n), known to be past `from`: gallop, then bisect near it */
static size_t upper_bound_from(const double *data, size_t from, size_t n, double a)
{
	size_t step = 1, lo = from, hi = from;
	while (hi < n && !(data[hi] > a)) {
		lo = hi + 1;
		hi = from + step;
		step *= 2;
	}
	if (hi > n)
		hi = n;
	return lo + upper_bound(data + lo, hi - lo, a);
}

/* Python 2 round(x, nd): half away from zero */
static double py_round(double x, int nd)
{
	double m = pow(10.0, nd);
	return round(x * m) / m;
}

/*
 * The reference's cal_r_gittins_index(data, a), including its quirks (see
 * the header): `integral` says whether Python 2 would have floor-divided.
 */
static double reference_index(const struct dl_gittins *g, const long double *prefix, double a,
			      int integral)
{
	size_t n = g->n;
	const double *d = g->data;
	if (a > d[n - 1] - 1)
		return 0.0;
	size_t idx = upper_bound(d, n, a);
	double next_a = a + g->delta;
	size_t idx_delta = next_a > d[n - 1] - 1 ? n - 1 : upper_bound(d, n, next_a);
	size_t alive = n - idx;
	double p = py_round((double)(idx_delta - idx) / (double)alive, 5);
	long double e_sum = prefix[idx_delta] - prefix[idx] +
			    (long double)g->delta * (long double)(n - idx_delta);
	double e;
	if (integral)
		e = (double)((int64_t)e_sum / (int64_t)alive);
	else
		e = (double)(e_sum / (long double)alive);
	e = py_round(e, 5);
	if (!(e > 0))
		return 0.0;
	return py_round(p * 1000000.0 / e, 4);
}

static double exact_index(const struct dl_gittins *g, double a)
{
	size_t n = g->n;
	size_t idx = upper_bound(g->data, n, a);
	if (idx == n)
		return 0.0;
	size_t idx_delta = upper_bound_from(g->data, idx, n, a + g->delta); /* near idx */
	size_t done = idx_delta - idx;
	/* sum over finishing jobs of (d - a), plus Delta for each survivor */
	long double e = g->prefix[idx_delta] - g->prefix[idx] - (long double)a * (long double)done +
			(long double)g->delta * (long double)(n - idx_delta);
	if (!(e > 0))
		return 0.0;
	/* P/E with the common 1/(n - idx) cancelled */
	return (double)((long double)done * 1000000.0L / e);
}

struct dl_gittins *dl_gittins_new(const double *samples, size_t n, double delta,
				  enum dl_gittins_arith arith, struct dl_err *err)
{
	if (!n) {
		dl_err_set(err, DL_EXIT_DATA, "no samples for the Gittins index distribution");
		return NULL;
	}
	if (!(delta > 0) || !isfinite(delta)) {
		dl_err_set(err, DL_EXIT_USAGE, "bad Gittins quantum delta '%g' (must be > 0)",
			   delta);
		return NULL;
	}
	if (arith != DL_GITTINS_TIRESIAS && arith != DL_GITTINS_TIRESIAS_PY3 &&
	    arith != DL_GITTINS_EXACT) {
		dl_err_set(err, DL_EXIT_USAGE, "unknown Gittins arithmetic %d", (int)arith);
		return NULL;
	}
	int integral = delta == floor(delta) && delta < 9e15;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(samples[i]) || samples[i] < 0) {
			dl_err_set(err, DL_EXIT_DATA,
				   "bad Gittins sample %zu: '%g' (must be finite and >= 0)", i + 1,
				   samples[i]);
			return NULL;
		}
		if (samples[i] != floor(samples[i]) || samples[i] >= 9e15)
			integral = 0;
	}
	struct dl_gittins *g = xcalloc(1, sizeof(*g));
	g->arith = arith;
	g->delta = delta;
	g->n = n;
	g->data = xmalloc(n * sizeof(*g->data));
	memcpy(g->data, samples, n * sizeof(*g->data));
	sort_samples(g->data, n);

	long double *prefix = xmalloc((n + 1) * sizeof(*prefix));
	prefix[0] = 0;
	for (size_t i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + (long double)g->data[i];
	/* integer floor division needs the sums to be exact integers too */
	if (prefix[n] >= 9e15L)
		integral = 0;

	if (arith == DL_GITTINS_EXACT) {
		g->prefix = prefix;
		return g;
	}
	if (arith == DL_GITTINS_TIRESIAS_PY3)
		integral = 0;
	g->table = xmalloc(n * sizeof(*g->table));
	for (size_t i = 0; i < n; i++) {
		/* equal samples share one value: compute it once */
		if (i && g->data[i] == g->data[i - 1])
			g->table[i] = g->table[i - 1];
		else
			g->table[i] = reference_index(g, prefix, g->data[i] - 1, integral);
	}
	free(prefix);
	return g;
}

struct dl_gittins *dl_gittins_load(const char *path, const char *column, double delta,
				   enum dl_gittins_arith arith, struct dl_err *err)
{
	if (!column)
		column = "duration";
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, err);
	if (!r)
		return NULL;
	/* (0 bytes is a stream without rows: "no samples", as a header alone says) */
	int col = dl_reader_ncols(r)
			  ? dl_reader_require(r, column, "the Gittins distribution's samples", err)
			  : 0;
	double *v = NULL;
	size_t n = 0, alloc = 0;
	struct dl_gittins *g = NULL;
	struct dl_row row;
	int got = 0;
	if (col >= 0) {
		while ((got = dl_reader_next(r, &row, err)) > 0) {
			double x;
			if (dl_field_nonneg(r, &row, col, &x, err) < 0) {
				got = -1;
				break;
			}
			DL_GROW(v, n + 1, alloc);
			v[n++] = x;
		}
		if (got == 0 && !n)
			dl_err_at(err, dl_reader_name(r), 0, "no samples in column '%s'", column);
		else if (got == 0)
			g = dl_gittins_new(v, n, delta, arith, err);
	}
	free(v);
	dl_reader_close(r);
	return g;
}

static int completed_state(const char *s)
{
	static const char *const ok[] = {"completed", "pass", "done", "finished"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcasecmp(s, ok[i]))
			return 1;
	return 0;
}

struct dl_gittins *dl_gittins_load_trace(const char *path, int gputime, double delta,
					 enum dl_gittins_arith arith, struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, err);
	if (!r)
		return NULL;
	const char *why = "to learn the Gittins distribution from completed jobs";
	int empty = !dl_reader_ncols(r); /* 0 bytes: no completed jobs, as a header alone */
	int cdur = empty ? 0 : dl_reader_require(r, "duration", why, err);
	int cgpus = !gputime || cdur < 0 ? -1 : empty ? 0 : dl_reader_require(r, "gpus", why, err);
	int cstate = dl_reader_col(r, "state");
	double *v = NULL;
	size_t n = 0, alloc = 0;
	struct dl_gittins *g = NULL;
	struct dl_row row;
	int got = -1;
	if (cdur >= 0 && (!gputime || cgpus >= 0)) {
		while ((got = dl_reader_next(r, &row, err)) > 0) {
			double d, gp = 1;
			if (cstate >= 0 && !completed_state(row.f[cstate]))
				continue;
			if (dl_field_seconds(r, &row, cdur, &d, err) < 0 ||
			    dl_field_nonneg(r, &row, cgpus, &gp, err) < 0) {
				got = -1;
				break;
			}
			DL_GROW(v, n + 1, alloc);
			v[n++] = d * gp;
		}
		if (got == 0 && !n)
			dl_err_at(err, dl_reader_name(r), 0, "no completed jobs to learn from");
		else if (got == 0)
			g = dl_gittins_new(v, n, delta, arith, err);
	}
	free(v);
	dl_reader_close(r);
	return g;
}

double dl_gittins_index(const struct dl_gittins *g, double attained)
{
	if (isnan(attained))
		return 0.0;
	if (g->arith == DL_GITTINS_EXACT)
		return exact_index(g, attained);
	size_t i = upper_bound(g->data, g->n, attained);
	return i < g->n ? g->table[i] : 0.0;
}

size_t dl_gittins_nsamples(const struct dl_gittins *g)
{
	return g->n;
}

double dl_gittins_delta(const struct dl_gittins *g)
{
	return g->delta;
}

enum dl_gittins_arith dl_gittins_arith_of(const struct dl_gittins *g)
{
	return g->arith;
}

void dl_gittins_free(struct dl_gittins *g)
{
	if (!g)
		return;
	free(g->data);
	free(g->prefix);
	free(g->table);
	free(g);
}

static const char *const arith_names[] = {"tiresias", "tiresias-py3", "exact"};

const char *dl_gittins_arith_at(size_t i)
{
	return i < sizeof(arith_names) / sizeof(arith_names[0]) ? arith_names[i] : NULL;
}

int dl_gittins_parse_arith(const char *s, enum dl_gittins_arith *out)
{
	for (size_t i = 0; i < sizeof(arith_names) / sizeof(arith_names[0]); i++) {
		if (!strcmp(s, arith_names[i])) {
			*out = (enum dl_gittins_arith)i;
			return 0;
		}
	}
	return -1;
}

const char *dl_gittins_arith_name(enum dl_gittins_arith a)
{
	return (unsigned)a < sizeof(arith_names) / sizeof(arith_names[0]) ? arith_names[a] : "?";
}

#define AT(f) DL_OPT_AT(struct dl_gittins_params, f)
const struct dl_opt dl_gittins_opts[] = {
	{DL_OPT_FILE, 0, "distribution", "FILE", "Gittins: job sizes, one sample per row",
	 AT(distribution)},
	{DL_OPT_STRING, 0, "distribution-column", "NAME",
	 "Gittins: the samples' column in --distribution", AT(column), .def_doc = "duration"},
	{DL_OPT_FILE, 0, "learn-from", "TRACE",
	 "Gittins: learn sizes from a trace's completed jobs", AT(learn_from)},
	{DL_OPT_DOUBLE, 0, "delta", "SECONDS", "Gittins: service quantum", AT(delta),
	 .flags = DL_OPTF_GT, .def = "3250"},
	{DL_OPT_CHOICE, 0, "gittins-arith", "MODE", "Gittins: arithmetic of the index table",
	 AT(arith), .value_at = dl_gittins_arith_at, .def = "tiresias"},
	{DL_OPT_END},
};
#undef AT
