/* gen.c: synthetic workloads, filters and statistics (see gen.h) */
#include "core/stats.h"
#include "trace/gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/rng.h"

static int cmp_double(const void *a, const void *b);

const int64_t dl_gen_default_mix_gpus[4] = {1, 2, 4, 8};
const double dl_gen_default_mix_w[4] = {0.7, 0.1, 0.15, 0.05};
/*
 * --preset dally: gangs {1,2,4,8,16} as in Dally's evaluation, weighted so that
 * the median is 1 GPU and the mean 3.64, against Helios' 1 and 3.716 over its
 * four clusters (../notes: helios_cluster_summary.csv)
 */
const int64_t dl_gen_dally_mix_gpus[5] = {1, 2, 4, 8, 16};
const double dl_gen_dally_mix_w[5] = {0.5, 0.15, 0.15, 0.12, 0.08};

static const struct dl_gen_preset presets[] = {
	{.name = "none", .net_share = -1},
	/* Gavel's generator: its durations and GPU mix (the default), models from the table */
	{.name = "gavel", .duration = "gavel", .needs_tputs = 1, .net_share = -1},
	/* Dally's: Philly durations (the default), its gang mix, models by network sensitivity */
	{.name = "dally",
	 .mix_gpus = dl_gen_dally_mix_gpus,
	 .mix_w = dl_gen_dally_mix_w,
	 .nmix = DL_ARRAY_SIZE(dl_gen_dally_mix_w),
	 .net_share = 0.5,
	 .gangs = 1},
};

const struct dl_gen_preset *dl_gen_preset_at(size_t i)
{
	return i < DL_ARRAY_SIZE(presets) ? &presets[i] : NULL;
}

const char *dl_gen_preset_name_at(size_t i)
{
	return i < DL_ARRAY_SIZE(presets) ? presets[i].name : NULL;
}

/* E[10^U(a,b)] */
static double mean_pow10_uniform(double a, double b)
{
	return (pow(10, b) - pow(10, a)) / ((b - a) * log(10));
}

double dl_gen_mean_duration(const struct dl_gen_opts *o)
{
	switch (o->dist) {
	case DL_DUR_PHILLY: {
		/* mean of the piecewise-linear inverse CDF, then the 1 s floor is negligible */
		double s = 0;
		for (int i = 0; i + 1 < DL_PHILLY_NQ; i++)
			s += (dl_philly_quantiles[i] + dl_philly_quantiles[i + 1]) / 2;
		return s / (DL_PHILLY_NQ - 1);
	}
	case DL_DUR_GAVEL:
		return 60 * (0.8 * mean_pow10_uniform(1.5, 3) + 0.2 * mean_pow10_uniform(3, 4));
	case DL_DUR_EXP:
		return o->mean;
	case DL_DUR_LOGNORMAL:
		return exp(o->mu + o->sigma * o->sigma / 2);
	case DL_DUR_SAMPLES: {
		double s = 0;
		for (size_t i = 0; i < o->nsamples; i++)
			s += o->samples[i];
		return o->nsamples ? s / (double)o->nsamples : 0;
	}
	}
	return 0;
}

double dl_gen_mean_gpus(const struct dl_gen_opts *o)
{
	double s = 0, w = 0;
	for (size_t i = 0; i < o->nmix; i++) {
		s += (double)o->mix_gpus[i] * o->mix_w[i];
		w += o->mix_w[i];
	}
	return w > 0 ? s / w : 0;
}

/* inverse of the standard normal CDF (Acklam's rational approximation, |rel err| < 1.2e-9) */
static double probit(double p)
{
	static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
				    -2.759285104469687e+02, 1.383577518672690e+02,
				    -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
				    -1.556989798598866e+02, 6.680131188771972e+01,
				    -1.328068155288572e+01};
	static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
				    -2.400758277161838e+00, -2.549732539343734e+00,
				    4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01,
				    2.445134137142996e+00, 3.754408661907416e+00};
	if (p <= 0)
		p = 1e-300;
	if (p < 0.02425) {
		double q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425) {
		double q = sqrt(-2 * log1p(-p));
		return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	double q = p - 0.5, r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* the duration at quantile u in [0,1) (sorted: the samples, ascending) */
static double duration_at(const struct dl_gen_opts *o, const double *sorted, double u)
{
	double d = 0;
	switch (o->dist) {
	case DL_DUR_PHILLY: {
		double x = u * (DL_PHILLY_NQ - 1);
		size_t i = (size_t)x;
		if (i >= DL_PHILLY_NQ - 1)
			i = DL_PHILLY_NQ - 2;
		double f = x - (double)i;
		d = dl_philly_quantiles[i] +
		    f * (dl_philly_quantiles[i + 1] - dl_philly_quantiles[i]);
		d = round(d); /* the sample is whole seconds */
		break;
	}
	case DL_DUR_GAVEL:
		/* p = 0.8: 60*10^U(1.5,3); else 60*10^U(3,4), as one inverse CDF */
		d = u < 0.8 ? 60 * pow(10, 1.5 + 1.5 * (u / 0.8))
			    : 60 * pow(10, 3 + (u - 0.8) / 0.2);
		d = round(d * 1000) / 1000;
		break;
	case DL_DUR_EXP:
		d = round(-o->mean * log1p(-u) * 1000) / 1000;
		break;
	case DL_DUR_LOGNORMAL:
		d = round(exp(o->mu + o->sigma * probit(u)) * 1000) / 1000;
		break;
	case DL_DUR_SAMPLES: {
		size_t i = (size_t)(u * (double)o->nsamples);
		d = sorted[i < o->nsamples ? i : o->nsamples - 1];
		break;
	}
	}
	/* a job runs for at least a second: a 0 s sample (Philly has two) is not a job */
	return d < 1 ? 1 : d;
}

/* an index drawn with the probabilities of cumulative weights cum[0..n) */
static size_t draw_mix(size_t n, const double *cum, struct dl_rng *r)
{
	double u = dl_rng_uniform(r) * cum[n - 1];
	size_t i = 0;
	while (i + 1 < n && u >= cum[i])
		i++;
	return i;
}

/* cumulative sums of w[0..n) (malloc'd) */
static double *cumulative(const double *w, size_t n)
{
	double *cum = xmalloc((n ? n : 1) * sizeof(*cum)), acc = 0;
	for (size_t i = 0; i < n; i++) {
		acc += w[i];
		cum[i] = acc;
	}
	return cum;
}

/*
 * The stratified order: a keyed pseudo-random permutation of [0, n) that
 * needs no memory, so any number of jobs streams. A Feistel network permutes
 * the B-bit numbers [0, 2^B), 2^B >= n > 2^(B-1): each round maps x =
 * (hi: a bits, lo: B - a bits) to (lo, hi ^ F(lo)), a bijection whatever the
 * widths. Values >= n walk on through it until they land in [0, n) (fewer
 * than two steps on average), which keeps it a permutation of [0, n).
 */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t perm_round_trip(const struct dl_gen *g, uint64_t x)
{
	int a = g->perm_bits / 2, b = g->perm_bits - a;
	uint64_t mask_a = ((uint64_t)1 << a) - 1, mask_b = ((uint64_t)1 << b) - 1;
	for (int i = 0; i < DL_GEN_PERM_ROUNDS; i++) {
		uint64_t hi = x >> b, lo = x & mask_b;
		x = lo << a | ((hi ^ mix64(lo ^ g->perm_key[i])) & mask_a);
	}
	return x;
}

static uint64_t perm(const struct dl_gen *g, uint64_t k)
{
	uint64_t n = (uint64_t)g->o.jobs;
	do
		k = perm_round_trip(g, k);
	while (k >= n);
	return k;
}

struct dl_gen *dl_gen_new(const struct dl_gen_opts *o, struct dl_err *err)
{
	if (!o->nmix)
		return dl_err_set(err, DL_EXIT_USAGE, "empty GPU mix"), NULL;
	if (!(o->rate_per_hour > 0) || !isfinite(o->rate_per_hour))
		return dl_err_set(err, DL_EXIT_USAGE, "the arrival rate must be > 0"), NULL;
	if (o->dist == DL_DUR_SAMPLES && !o->nsamples)
		return dl_err_set(err, DL_EXIT_USAGE, "no duration samples"), NULL;
	if (o->nweights) {
		double sum = 0;
		for (size_t i = 0; i < o->nweights; i++) {
			if (!(o->weight_v[i] > 0) || !(o->weight_w[i] >= 0))
				return dl_err_set(
					       err, DL_EXIT_USAGE,
					       "priority weights must be > 0, their shares >= 0"),
				       NULL;
			sum += o->weight_w[i];
		}
		if (!(sum > 0))
			return dl_err_set(err, DL_EXIT_USAGE, "the priority weights' shares are 0"),
			       NULL;
	}
	if (o->net && o->tputs)
		return dl_err_set(err, DL_EXIT_USAGE,
				  "models come from the throughputs table or the network models, "
				  "not both"),
		       NULL;
	if (o->net && !(o->net_share >= 0 && o->net_share <= 1))
		return dl_err_set(err, DL_EXIT_USAGE, "the network-heavy share must be in [0, 1]"),
		       NULL;
	struct dl_gen *g = xcalloc(1, sizeof(*g));
	g->o = *o;
	if (o->net) {
		/* the table's order (built-in first, then profiles): reproducible */
		g->heavy = xcalloc(o->net->n + 1, sizeof(*g->heavy));
		g->light = xcalloc(o->net->n + 1, sizeof(*g->light));
		for (size_t i = 0; i < o->net->n; i++) {
			const struct dl_net_model *m = &o->net->v[i];
			if (m->sensitivity >= DL_GEN_HEAVY)
				g->heavy[g->nheavy++] = m->name;
			else
				g->light[g->nlight++] = m->name;
		}
		if ((o->net_share > 0 && !g->nheavy) || (o->net_share < 1 && !g->nlight)) {
			dl_err_set(err, DL_EXIT_DATA,
				   "no %s model (sensitivity %s %g) among the network models",
				   g->nheavy ? "light" : "network-heavy",
				   g->nheavy ? "<" : ">=", DL_GEN_HEAVY);
			dl_gen_free(g);
			return NULL;
		}
	}
	g->ref = o->ref_gpu_type ? o->ref_gpu_type : "v100";
	g->cum = cumulative(o->mix_w, o->nmix);
	g->wcum = cumulative(o->weight_w, o->nweights);
	/* models per mix entry: those with a throughput on `gpus` reference GPUs */
	g->models = xcalloc(o->nmix, sizeof(*g->models));
	g->nmodels = xcalloc(o->nmix, sizeof(*g->nmodels));
	if (o->tputs) {
		for (size_t i = 0; i < o->nmix; i++) {
			const char **all;
			size_t n = dl_tputs_models(o->tputs, o->mix_gpus[i], &all);
			size_t k = 0;
			for (size_t m = 0; m < n; m++)
				if (dl_tputs_get(o->tputs, all[m], g->ref, o->mix_gpus[i]) > 0)
					all[k++] = all[m];
			g->models[i] = all;
			g->nmodels[i] = k;
			if (!k && o->mix_w[i] > 0) {
				dl_err_set(
					err, DL_EXIT_DATA,
					"no model in the throughputs table runs on %lld '%s' GPUs",
					(long long)o->mix_gpus[i], g->ref);
				dl_gen_free(g);
				return NULL;
			}
		}
	}
	dl_rng_seed_stream(&g->r_arr, o->seed, 1);
	dl_rng_seed_stream(&g->r_gpu, o->seed, 2);
	dl_rng_seed_stream(&g->r_dur, o->seed, 3);
	dl_rng_seed_stream(&g->r_model, o->seed, 4);
	dl_rng_seed_stream(&g->r_user, o->seed, 5);
	dl_rng_seed_stream(&g->r_vc, o->seed, 6);
	dl_rng_seed_stream(&g->r_weight, o->seed, 8);
	dl_rng_seed_stream(&g->r_net, o->seed, 9);
	g->gap_mean = 3600 / o->rate_per_hour;
	if (o->dist == DL_DUR_SAMPLES) {
		g->sorted = xmalloc(o->nsamples * sizeof(*g->sorted));
		memcpy(g->sorted, o->samples, o->nsamples * sizeof(*g->sorted));
		qsort(g->sorted, o->nsamples, sizeof(*g->sorted), cmp_double);
	}
	/* the permutation's keys and width: from a stream of their own */
	struct dl_rng r_perm;
	dl_rng_seed_stream(&r_perm, o->seed, 7);
	for (int i = 0; i < DL_GEN_PERM_ROUNDS; i++)
		g->perm_key[i] = dl_rng_u64(&r_perm);
	while (g->perm_bits < 63 && ((uint64_t)1 << g->perm_bits) < (uint64_t)o->jobs)
		g->perm_bits++;
	return g;
}

void dl_gen_use_columns(const struct dl_gen *g, struct dl_jobset *js)
{
	if (g->o.users > 0)
		dl_jobset_use_col(js, DL_JC_USER);
	if (g->o.vcs > 0)
		dl_jobset_use_col(js, DL_JC_VC);
	if (g->o.nweights)
		dl_jobset_use_col(js, DL_JC_WEIGHT);
	if (g->o.tputs) {
		dl_jobset_use_col(js, DL_JC_MODEL);
		dl_jobset_use_col(js, DL_JC_STEPS);
	}
	if (g->o.net)
		dl_jobset_use_col(js, DL_JC_MODEL);
}

int dl_gen_next(struct dl_gen *g, struct dl_job *j, struct dl_err *err)
{
	const struct dl_gen_opts *o = &g->o;
	if (g->k >= o->jobs)
		return 0;
	int64_t k = g->k++;
	*j = (struct dl_job)DL_JOB_INIT;
	if (k > 0)
		g->t += dl_rng_exp(&g->r_arr, g->gap_mean);
	j->submit = round(g->t * 1000) / 1000;
	size_t mi = draw_mix(o->nmix, g->cum, &g->r_gpu);
	j->gpus = o->mix_gpus[mi];
	/*
	 * Stratified quantiles: job k's quantile is drawn from stratum perm(k)
	 * of n, [s/n, (s+1)/n), so every trace follows the distribution closely
	 * (n = 100,000 puts p25/p50/p75 within a fraction of a percent) while
	 * each duration stays random.
	 */
	double u = dl_rng_uniform(&g->r_dur);
	if (!o->iid)
		u = ((double)perm(g, (uint64_t)k) + u) / (double)o->jobs;
	j->duration = duration_at(o, g->sorted, u);
	if (o->tputs) {
		j->model = g->models[mi][dl_rng_below(&g->r_model, g->nmodels[mi])];
		double tput = dl_tputs_get(o->tputs, j->model, g->ref, j->gpus);
		double steps = round(j->duration * tput);
		j->steps = steps < 1 ? 1 : steps;
		/* keep duration == steps / throughput, as the gavel importer computes it */
		j->duration = j->steps / tput;
	}
	if (o->net) {
		/* one uniform draw picks the group and the model inside it */
		double w = dl_rng_uniform(&g->r_net);
		if (w < o->net_share) {
			size_t i = (size_t)(w / o->net_share * (double)g->nheavy);
			j->model = g->heavy[i < g->nheavy ? i : g->nheavy - 1];
		} else {
			double v = (w - o->net_share) / (1 - o->net_share);
			size_t i = (size_t)(v * (double)g->nlight);
			j->model = g->light[i < g->nlight ? i : g->nlight - 1];
		}
	}
	if (o->users > 0) {
		snprintf(g->ubuf, sizeof(g->ubuf), "user%llu",
			 (unsigned long long)dl_rng_below(&g->r_user, (uint64_t)o->users) + 1);
		j->user = g->ubuf;
	}
	if (o->vcs > 0) {
		snprintf(g->vbuf, sizeof(g->vbuf), "vc%llu",
			 (unsigned long long)dl_rng_below(&g->r_vc, (uint64_t)o->vcs) + 1);
		j->vc = g->vbuf;
	}
	if (o->nweights)
		j->weight = o->weight_v[draw_mix(o->nweights, g->wcum, &g->r_weight)];
	snprintf(g->idbuf, sizeof(g->idbuf), "%lld", (long long)k);
	j->id = g->idbuf;
	/* a trace no reader accepts is not worth writing: long --jobs at a low --rate */
	if (dl_job_check(j, "", err) < 0) {
		char name[48];
		snprintf(name, sizeof(name), "generated job %lld", (long long)k);
		return dl_job_check(j, name, err);
	}
	return 1;
}

void dl_gen_free(struct dl_gen *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->o.nmix; i++)
		free(g->models[i]);
	free(g->models);
	free(g->nmodels);
	free(g->heavy);
	free(g->light);
	free(g->cum);
	free(g->wcum);
	free(g->sorted);
	free(g);
}

int dl_gen(struct dl_jobset *js, const struct dl_gen_opts *o, struct dl_err *err)
{
	struct dl_gen *g = dl_gen_new(o, err);
	if (!g)
		return -1;
	dl_gen_use_columns(g, js);
	struct dl_job j;
	int rc;
	while ((rc = dl_gen_next(g, &j, err)) > 0)
		dl_jobset_add(js, &j);
	dl_gen_free(g);
	return rc;
}

/* ---- filters ---- */

/* is s one of the comma-separated items of list? (case-insensitive) */
static int in_list(const char *list, const char *s)
{
	size_t len = strlen(s);
	for (const char *p = list;;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == len && !strncasecmp(p, s, n))
			return 1;
		if (!e)
			return 0;
		p = e + 1;
	}
}

size_t dl_jobset_filter(struct dl_jobset *js, const struct dl_trace_filter *f)
{
	size_t k = 0;
	for (size_t i = 0; i < js->n; i++) {
		const struct dl_job *j = &js->jobs[i];
		if (f->has_since && j->submit < f->since)
			continue;
		if (f->has_until && j->submit >= f->until)
			continue;
		if (f->min_gpus > 0 && j->gpus < f->min_gpus)
			continue;
		if (f->max_gpus > 0 && j->gpus > f->max_gpus)
			continue;
		if (f->vcs && !in_list(f->vcs, j->vc))
			continue;
		if (f->users && !in_list(f->users, j->user))
			continue;
		if (f->states && !in_list(f->states, j->state))
			continue;
		if (f->limit >= 0 && (int64_t)k >= f->limit)
			continue;
		js->jobs[k++] = *j;
	}
	size_t removed = js->n - k;
	js->n = k;
	return removed;
}

void dl_jobset_shift(struct dl_jobset *js, double delta)
{
	for (size_t i = 0; i < js->n; i++)
		js->jobs[i].submit += delta;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* grow a per-job array by an eighth: little slack at a hundred million jobs */
static void *grow_rows(void *p, size_t *cap, size_t elem)
{
	*cap += *cap / 8 + 4096;
	return xreallocarray(p, *cap, elem);
}

void dl_stats_acc_init(struct dl_stats_acc *a)
{
	memset(a, 0, sizeof(*a));
}

/* the mix entry of a GPU count: open addressing on the count */
static size_t mix_slot(struct dl_stats_acc *a, int64_t gpus)
{
	if (2 * (a->nmix + 1) > a->mix_cap) {
		size_t cap = a->mix_cap ? a->mix_cap * 2 : 64;
		int64_t *keys = xmalloc(cap * sizeof(*keys));
		size_t *counts = xcalloc(cap, sizeof(*counts));
		for (size_t i = 0; i < cap; i++)
			keys[i] = -1;
		for (size_t i = 0; i < a->mix_cap; i++) {
			if (a->mix_keys[i] < 0)
				continue;
			size_t h = (size_t)((uint64_t)a->mix_keys[i] * 0x9E3779B97F4A7C15ull >> 7);
			while (keys[h & (cap - 1)] >= 0)
				h++;
			keys[h & (cap - 1)] = a->mix_keys[i];
			counts[h & (cap - 1)] = a->mix_counts[i];
		}
		free(a->mix_keys);
		free(a->mix_counts);
		a->mix_keys = keys;
		a->mix_counts = counts;
		a->mix_cap = cap;
	}
	size_t h = (size_t)((uint64_t)gpus * 0x9E3779B97F4A7C15ull >> 7);
	for (;; h++) {
		size_t i = h & (a->mix_cap - 1);
		if (a->mix_keys[i] == gpus)
			return i;
		if (a->mix_keys[i] < 0) {
			a->mix_keys[i] = gpus;
			a->nmix++;
			return i;
		}
	}
}

void dl_stats_acc_add(struct dl_stats_acc *a, const struct dl_job *j)
{
	size_t n = a->n;
	if (n == a->cap) {
		size_t cap = a->cap;
		a->dur = grow_rows(a->dur, &cap, sizeof(*a->dur));
		cap = a->cap;
		a->gt = grow_rows(a->gt, &cap, sizeof(*a->gt));
		if (a->vci) {
			cap = a->cap;
			a->vci = grow_rows(a->vci, &cap, sizeof(*a->vci));
		}
		a->cap = cap;
	}
	double gt = j->duration * (double)j->gpus;
	a->dur[n] = j->duration;
	a->gt[n] = gt;
	a->gsum += (double)j->gpus;
	a->dur_sum += j->duration;
	a->gt_sum += gt;
	if (!n || j->submit < a->first)
		a->first = j->submit;
	if (!n || j->submit > a->last)
		a->last = j->submit;
	size_t slot = mix_slot(a, j->gpus); /* may move mix_counts */
	a->mix_counts[slot]++;
	if (*j->vc) {
		if (!a->vci) /* the first job with a VC: every earlier one has none (0) */
			a->vci = xcalloc(a->cap, sizeof(*a->vci));
		int64_t *k = strmap_get(&a->vc_index, j->vc);
		if (!k) {
			DL_GROW(a->vc, a->nvc + 1, a->vc_alloc);
			memset(&a->vc[a->nvc], 0, sizeof(a->vc[0]));
			a->vc[a->nvc].vc = xstrdup(j->vc);
			strmap_put(&a->vc_index, j->vc, (int64_t)++a->nvc);
			k = strmap_get(&a->vc_index, j->vc);
		}
		struct dl_stats_vc *v = &a->vc[*k - 1];
		v->jobs++;
		v->gpu_time += gt;
		v->mean_duration += j->duration; /* a sum until the end */
		a->vci[n] = (uint32_t)*k;
	} else if (a->vci) {
		a->vci[n] = 0;
	}
	a->n++;
}

int dl_stats_acc_read(struct dl_stats_acc *a, struct dl_reader *r, struct dl_err *err)
{
	struct dl_jobs_cols jc;
	if (dl_jobs_cols_init(&jc, r, err))
		return -1;
	struct dl_row row;
	struct dl_job job;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0)
		if (dl_jobs_parse_row(&jc, r, &row, &job, err))
			return -1;
		else
			dl_stats_acc_add(a, &job);
	return got < 0 ? -1 : 0;
}

struct vc_order {
	const char *name;
	size_t id; /* 0-based, first-seen order */
};

static int cmp_vc_name(const void *x, const void *y)
{
	return strcmp(((const struct vc_order *)x)->name, ((const struct vc_order *)y)->name);
}

/*
 * Per VC, by name: the VC entries sorted, and each VC's median duration from
 * the durations grouped by VC in place (dur and vci permuted together; the
 * overall statistics do not depend on the order).
 */
static void stats_vcs(struct dl_stats_acc *a, struct dl_trace_stats *st)
{
	size_t nvc = a->nvc;
	/* rank[id] = position of VC id (1-based, first-seen order) in name order */
	uint32_t *rank = xmalloc((nvc + 1) * sizeof(*rank));
	struct vc_order *order = xmalloc(nvc * sizeof(*order));
	for (size_t i = 0; i < nvc; i++) {
		order[i].name = a->vc[i].vc;
		order[i].id = i;
	}
	qsort(order, nvc, sizeof(*order), cmp_vc_name);
	struct dl_stats_vc *sorted = xmalloc(nvc * sizeof(*sorted));
	for (size_t i = 0; i < nvc; i++) {
		sorted[i] = a->vc[order[i].id];
		rank[order[i].id + 1] = (uint32_t)i + 1;
	}
	free(order);
	free(a->vc);
	a->vc = sorted;
	rank[0] = 0;
	/* bucket b (0 = no VC, r = VC of rank r) starts at start[b] */
	size_t *start = xcalloc(nvc + 2, sizeof(*start)),
	       *next = xmalloc((nvc + 1) * sizeof(*next));
	for (size_t i = 0; i < a->n; i++)
		start[rank[a->vci[i]] + 1]++;
	for (size_t b = 1; b <= nvc + 1; b++)
		start[b] += start[b - 1];
	memcpy(next, start, (nvc + 1) * sizeof(*next));
	for (size_t b = 0; b <= nvc; b++) {
		while (next[b] < start[b + 1]) {
			size_t i = next[b];
			uint32_t r = rank[a->vci[i]];
			if (r == b) {
				next[b]++;
				continue;
			}
			/* swap job i into its bucket; the job displaced comes here */
			size_t k = next[r]++;
			double d = a->dur[i];
			a->dur[i] = a->dur[k];
			a->dur[k] = d;
			uint32_t v = a->vci[i];
			a->vci[i] = a->vci[k];
			a->vci[k] = v;
		}
	}
	free(a->vci);
	a->vci = NULL;
	for (size_t r = 1; r <= nvc; r++) {
		struct dl_stats_vc *v = &a->vc[r - 1];
		double *d = a->dur + start[r];
		size_t m = start[r + 1] - start[r];
		v->mean_duration /= (double)v->jobs;
		dl_sort_doubles(d, m);
		v->p50_duration = dl_percentile_interp(d, m, 50);
	}
	st->vc = a->vc;
	st->nvc = nvc;
	a->vc = NULL;
	free(rank);
	free(start);
	free(next);
}

void dl_stats_acc_finish(struct dl_stats_acc *a, struct dl_trace_stats *st)
{
	memset(st, 0, sizeof(*st));
	size_t n = a->n;
	st->jobs = n;
	if (n) {
		/* give back the growth slack before sorting needs its buffer */
		a->dur = xreallocarray(a->dur, n, sizeof(*a->dur));
		a->gt = xreallocarray(a->gt, n, sizeof(*a->gt));
		st->first_submit = a->first;
		st->last_submit = a->last;
		st->span = a->last - a->first;
		st->rate_per_hour = st->span > 0 ? (double)(n - 1) * 3600 / st->span : 0;
		st->gpus_mean = a->gsum / (double)n;
		st->dur_mean = a->dur_sum / (double)n;
		st->gt_total = a->gt_sum;
		st->gt_mean = a->gt_sum / (double)n;
		if (a->nvc)
			stats_vcs(a, st);
		dl_sort_doubles(a->dur, n);
		st->dur_min = a->dur[0];
		st->dur_max = a->dur[n - 1];
		st->dur_p25 = dl_percentile_interp(a->dur, n, 25);
		st->dur_p50 = dl_percentile_interp(a->dur, n, 50);
		st->dur_p75 = dl_percentile_interp(a->dur, n, 75);
		st->dur_p90 = dl_percentile_interp(a->dur, n, 90);
		st->dur_p99 = dl_percentile_interp(a->dur, n, 99);
		free(a->dur);
		a->dur = NULL;
		dl_sort_doubles(a->gt, n);
		st->gt_p50 = dl_percentile_interp(a->gt, n, 50);
		st->gt_p90 = dl_percentile_interp(a->gt, n, 90);
		st->gt_p99 = dl_percentile_interp(a->gt, n, 99);
		/* the GPU mix, by GPU count */
		st->nmix = a->nmix;
		st->mix_gpus = xmalloc(a->nmix * sizeof(*st->mix_gpus));
		st->mix_count = xmalloc(a->nmix * sizeof(*st->mix_count));
		size_t k = 0;
		for (size_t i = 0; i < a->mix_cap; i++)
			if (a->mix_keys[i] >= 0)
				st->mix_gpus[k++] = a->mix_keys[i];
		qsort(st->mix_gpus, k, sizeof(*st->mix_gpus), cmp_i64);
		for (size_t i = 0; i < k; i++) {
			size_t slot = mix_slot(a, st->mix_gpus[i]);
			st->mix_count[i] = a->mix_counts[slot];
		}
	}
	dl_stats_acc_free(a);
}

void dl_stats_acc_free(struct dl_stats_acc *a)
{
	free(a->dur);
	free(a->gt);
	free(a->vci);
	for (size_t i = 0; i < a->nvc && a->vc; i++)
		free(a->vc[i].vc);
	free(a->vc);
	strmap_free(&a->vc_index);
	free(a->mix_keys);
	free(a->mix_counts);
	memset(a, 0, sizeof(*a));
}

void dl_trace_stats_compute(const struct dl_jobset *js, struct dl_trace_stats *st)
{
	struct dl_stats_acc a;
	dl_stats_acc_init(&a);
	for (size_t i = 0; i < js->n; i++)
		dl_stats_acc_add(&a, &js->jobs[i]);
	dl_stats_acc_finish(&a, st);
}

void dl_trace_stats_free(struct dl_trace_stats *st)
{
	free(st->mix_gpus);
	free(st->mix_count);
	for (size_t i = 0; i < st->nvc; i++)
		free(st->vc[i].vc);
	free(st->vc);
	memset(st, 0, sizeof(*st));
}

static void row(struct dl_writer *w, const char *scope, const char *metric, double v)
{
	dl_writer_str(w, 0, scope);
	dl_writer_str(w, 1, metric);
	dl_writer_double(w, 2, v);
	dl_writer_end_row(w);
}

void dl_trace_stats_write(const struct dl_trace_stats *st, struct dl_writer *w)
{
	dl_writer_add_column(w, "scope");
	dl_writer_add_column(w, "metric");
	dl_writer_add_column(w, "value");
	char name[64];
	row(w, "all", "jobs", (double)st->jobs);
	if (st->jobs) {
		row(w, "all", "first_submit", st->first_submit);
		row(w, "all", "last_submit", st->last_submit);
		row(w, "all", "span", st->span);
		row(w, "all", "arrivals_per_hour", st->rate_per_hour);
		row(w, "all", "gpus_mean", st->gpus_mean);
		for (size_t i = 0; i < st->nmix; i++) {
			snprintf(name, sizeof(name), "jobs_with_%lld_gpus",
				 (long long)st->mix_gpus[i]);
			row(w, "all", name, (double)st->mix_count[i]);
		}
		row(w, "all", "duration_mean", st->dur_mean);
		row(w, "all", "duration_min", st->dur_min);
		row(w, "all", "duration_p25", st->dur_p25);
		row(w, "all", "duration_p50", st->dur_p50);
		row(w, "all", "duration_p75", st->dur_p75);
		row(w, "all", "duration_p90", st->dur_p90);
		row(w, "all", "duration_p99", st->dur_p99);
		row(w, "all", "duration_max", st->dur_max);
		row(w, "all", "gpu_time_total", st->gt_total);
		row(w, "all", "gpu_time_mean", st->gt_mean);
		row(w, "all", "gpu_time_p50", st->gt_p50);
		row(w, "all", "gpu_time_p90", st->gt_p90);
		row(w, "all", "gpu_time_p99", st->gt_p99);
	}
	struct strbuf scope = STRBUF_INIT;
	for (size_t i = 0; i < st->nvc; i++) {
		sb_reset(&scope);
		sb_addf(&scope, "vc=%s", st->vc[i].vc);
		row(w, scope.buf, "jobs", (double)st->vc[i].jobs);
		row(w, scope.buf, "gpu_time_total", st->vc[i].gpu_time);
		row(w, scope.buf, "duration_mean", st->vc[i].mean_duration);
		row(w, scope.buf, "duration_p50", st->vc[i].p50_duration);
	}
	sb_release(&scope);
	dl_writer_finish(w);
}

static const char *num(char buf[DL_NUM_BUF], double v)
{
	/* six significant digits for people; the CSV/JSON forms keep full precision */
	dl_fmt_double_prec(buf, v, 6);
	return buf;
}

void dl_trace_stats_text(const struct dl_trace_stats *st, struct strbuf *o)
{
	char a[DL_NUM_BUF], b[DL_NUM_BUF], c[DL_NUM_BUF], d[DL_NUM_BUF], e[DL_NUM_BUF];
	sb_addf(o, "jobs          %zu\n", st->jobs);
	if (!st->jobs)
		return;
	sb_addf(o, "submits       %s .. %s s (span %s s)\n", num(a, st->first_submit),
		num(b, st->last_submit), num(c, st->span));
	sb_addf(o, "arrivals      %s per hour\n", num(a, st->rate_per_hour));
	sb_addf(o, "GPU mix      ");
	for (size_t i = 0; i < st->nmix; i++)
		sb_addf(o, " %lld:%zu", (long long)st->mix_gpus[i], st->mix_count[i]);
	sb_addf(o, "  (mean %s GPUs)\n", num(a, st->gpus_mean));
	sb_addf(o, "duration (s)  mean %s  min %s  p25 %s  p50 %s  p75 %s\n", num(a, st->dur_mean),
		num(b, st->dur_min), num(c, st->dur_p25), num(d, st->dur_p50), num(e, st->dur_p75));
	sb_addf(o, "              p90 %s  p99 %s  max %s\n", num(a, st->dur_p90),
		num(b, st->dur_p99), num(c, st->dur_max));
	sb_addf(o, "GPU time (s)  total %s  mean %s  p50 %s  p90 %s  p99 %s\n",
		num(a, st->gt_total), num(b, st->gt_mean), num(c, st->gt_p50), num(d, st->gt_p90),
		num(e, st->gt_p99));
	if (!st->nvc)
		return;
	size_t width = 2;
	for (size_t i = 0; i < st->nvc; i++)
		if (strlen(st->vc[i].vc) > width)
			width = strlen(st->vc[i].vc);
	sb_addf(o, "per vc:\n  %-*s  %8s  %14s  %12s  %12s\n", (int)width, "vc", "jobs", "gpu_time",
		"mean_dur", "p50_dur");
	for (size_t i = 0; i < st->nvc; i++)
		sb_addf(o, "  %-*s  %8zu  %14s  %12s  %12s\n", (int)width, st->vc[i].vc,
			st->vc[i].jobs, num(a, st->vc[i].gpu_time), num(b, st->vc[i].mean_duration),
			num(c, st->vc[i].p50_duration));
}
