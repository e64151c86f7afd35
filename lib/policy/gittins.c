/* gittins.c: Gittins index tables (see gittins.h for the definitions) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/common.h"
#include "core/opt.h"
#include "core/rsort.h"
#include "policy/gittins.h"
#include "table/table.h"

struct dl_gittins {
	enum dl_gittins_arith arith;
	double delta;
	size_t n;
	/*
	 * The samples as runs of equal values: a search needs only where a run
	 * starts (a trace's durations repeat: a million Philly-like jobs have
	 * under 100,000 distinct ones, in runs of up to thousands), so it looks
	 * among nval values rather than n samples, and the sums per run are all
	 * EXACT mode reads.
	 */
	double *val; /* nval distinct samples, ascending */
	size_t nval;
	size_t *before;	     /* nval + 1: samples below val[j] (before[nval] = n) */
	long double *prefix; /* nval + 1: their sum (EXACT mode only) */
	double *table;	     /* nval indices, table[j] for the bin [val[j-1], val[j]) */
	/*
	 * Where each bucket of values starts (NULL for few values): a search
	 * goes straight to the bucket of its value, then bisects it. A bucket
	 * is a 1/256 of a binade (the top bits of a double, which order
	 * non-negative doubles as their values). A binary search over a
	 * million samples missed the cache at most of its 20 steps (a sixth of
	 * a million-job tiresias-gittins run).
	 */
	uint32_t *bucket; /* nbuckets + 1 run indices, ascending */
	size_t nbuckets;
	uint64_t key0; /* the first bucket's key: the smallest value above 0's */
};

#define KEY_SHIFT   44	 /* a key keeps a double's sign, exponent and 8 mantissa bits */
#define BUCKETS_MIN 1024 /* fewer values: one binary search over them all */

/* the bucket key of a sample or attained value (not negative: keys order as values) */
static uint64_t key_of(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b >> KEY_SHIFT;
}

/*
 * Sort n samples (finite, >= 0, -0 made +0 here) ascending. Such doubles
 * order as their bit patterns do, so this is a radix sort of those (a
 * million-job trace's durations sorted in a few ms, not a qsort's 0.1 s).
 */
static void sort_samples(double *v, size_t n)
{
	uint64_t *a = xmalloc((n ? n : 1) * sizeof(*a)), *b = xmalloc((n ? n : 1) * sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		double x = v[i] + 0.0; /* -0 is +0 */
		memcpy(&a[i], &x, sizeof(x));
	}
	const uint64_t *s = dl_rsort(a, b, n, sizeof(*a), 0, 0);
	for (size_t i = 0; i < n; i++)
		memcpy(&v[i], &s[i], sizeof(v[i]));
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

/*
 * The run of the first sample above a (nval: none). Keys never decrease
 * with values, so every value of a smaller key is below a and every one of
 * a larger key above it: the answer is in a's bucket, or where the next
 * one starts.
 */
static size_t run_upper(const struct dl_gittins *g, double a)
{
	if (!g->bucket || signbit(a) || isnan(a))
		return upper_bound(g->val, g->nval, a);
	uint64_t k = key_of(a);
	if (k < g->key0) /* below every value above 0 */
		return upper_bound(g->val, g->bucket[0], a);
	if (k - g->key0 >= g->nbuckets)
		return g->nval;
	size_t lo = g->bucket[k - g->key0], hi = g->bucket[k - g->key0 + 1];
	return lo + upper_bound(g->val + lo, hi - lo, a);
}

/* upper_bound over all of g's samples: where the run of the first sample above a starts */
static size_t data_upper(const struct dl_gittins *g, double a)
{
	return g->before[run_upper(g, a)];
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
	double last = g->val[g->nval - 1];
	if (a > last - 1)
		return 0.0;
	size_t idx = data_upper(g, a);
	double next_a = a + g->delta;
	size_t idx_delta = next_a > last - 1 ? n - 1 : data_upper(g, next_a);
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
	size_t n = g->n, j = run_upper(g, a);
	if (j == g->nval)
		return 0.0;
	size_t jd = run_upper(g, a + g->delta), idx = g->before[j], idx_delta = g->before[jd];
	size_t done = idx_delta - idx;
	/* sum over finishing jobs of (d - a), plus Delta for each survivor */
	long double e = g->prefix[jd] - g->prefix[j] - (long double)a * (long double)done +
			(long double)g->delta * (long double)(n - idx_delta);
	if (!(e > 0))
		return 0.0;
	/* P/E with the common 1/(n - idx) cancelled */
	return (double)((long double)done * 1000000.0L / e);
}

/* g's buckets, for many values whose positive ones span few binades */
static void index_buckets(struct dl_gittins *g)
{
	size_t nv = g->nval, z = nv && g->val[0] == 0; /* (values are distinct: one 0 at most) */
	if (nv < BUCKETS_MIN || z == nv || nv > UINT32_MAX)
		return;
	g->key0 = key_of(g->val[z]);
	size_t nb = (size_t)(key_of(g->val[nv - 1]) - g->key0) + 1;
	if (nb > 4 * nv)
		return; /* sparse: more buckets than they would save */
	g->nbuckets = nb;
	g->bucket = xmalloc((nb + 1) * sizeof(*g->bucket));
	size_t i = z;
	for (size_t b = 0; b <= nb; b++) {
		while (i < nv && key_of(g->val[i]) - g->key0 < b)
			i++;
		g->bucket[b] = (uint32_t)i;
	}
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
	double *data = xmalloc(n * sizeof(*data));
	memcpy(data, samples, n * sizeof(*data));
	sort_samples(data, n);
	long double *prefix = xmalloc((n + 1) * sizeof(*prefix));
	prefix[0] = 0;
	for (size_t i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + (long double)data[i];
	/* integer floor division needs the sums to be exact integers too */
	if (prefix[n] >= 9e15L)
		integral = 0;

	/* the runs of equal samples */
	for (size_t i = 0; i < n; i++)
		g->nval += !i || data[i] != data[i - 1];
	g->val = xmalloc(g->nval * sizeof(*g->val));
	g->before = xmalloc((g->nval + 1) * sizeof(*g->before));
	for (size_t i = 0, j = 0; i < n; i++)
		if (!i || data[i] != data[i - 1]) {
			g->val[j] = data[i];
			g->before[j++] = i;
		}
	g->before[g->nval] = n;
	free(data);
	index_buckets(g);

	if (arith == DL_GITTINS_EXACT) {
		g->prefix = xmalloc((g->nval + 1) * sizeof(*g->prefix));
		for (size_t j = 0; j <= g->nval; j++)
			g->prefix[j] = prefix[g->before[j]];
	} else {
		if (arith == DL_GITTINS_TIRESIAS_PY3)
			integral = 0;
		/* (the sums at any sample, n - 1 included: the reference's quirk) */
		g->table = xmalloc(g->nval * sizeof(*g->table));
		for (size_t j = 0; j < g->nval; j++)
			g->table[j] = reference_index(g, prefix, g->val[j] - 1, integral);
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
	size_t j = run_upper(g, attained);
	return j < g->nval ? g->table[j] : 0.0;
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
	free(g->val);
	free(g->before);
	free(g->prefix);
	free(g->table);
	free(g->bucket);
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
