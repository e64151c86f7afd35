/* alloc.c: Gavel's allocation policies as LPs on GLPK (see alloc.h, dlsched-allocate(1)) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/strmap.h"
#include "policy/alloc.h"
#include "policy/alloc_int.h"

/* ---- problem ---- */

void dl_alloc_problem_init(struct dl_alloc_problem *p, size_t ntypes)
{
	memset(p, 0, sizeof(*p));
	p->ntypes = ntypes;
	p->type_names = xcalloc(ntypes, sizeof(*p->type_names));
	p->capacity = xcalloc(ntypes, sizeof(*p->capacity));
	p->cost = xcalloc(ntypes, sizeof(*p->cost));
}

void dl_alloc_problem_set_type(struct dl_alloc_problem *p, size_t t, const char *name, double gpus,
			       double cost)
{
	free(p->type_names[t]);
	p->type_names[t] = xstrdup(name);
	p->capacity[t] = gpus;
	p->cost[t] = cost;
}

size_t dl_alloc_problem_add_job(struct dl_alloc_problem *p, const char *id, int gpus,
				const double *tput)
{
	p->jobs = xreallocarray(p->jobs, p->njobs + 1, sizeof(*p->jobs));
	struct dl_alloc_job *j = &p->jobs[p->njobs];
	memset(j, 0, sizeof(*j));
	j->id = xstrdup(id);
	j->gpus = gpus;
	j->weight = 1;
	j->entity = -1;
	j->klass = -1;
	j->count = 1;
	j->iso_done = -1;
	j->tput = xcalloc(p->ntypes ? p->ntypes : 1, sizeof(double));
	if (tput)
		memcpy(j->tput, tput, p->ntypes * sizeof(double));
	return p->njobs++;
}

int dl_alloc_problem_entity(struct dl_alloc_problem *p, const char *name)
{
	for (size_t e = 0; e < p->nentities; e++)
		if (!strcmp(p->entity_names[e], name))
			return (int)e;
	p->entity_names = xreallocarray(p->entity_names, p->nentities + 1, sizeof(char *));
	p->entity_weight = xreallocarray(p->entity_weight, p->nentities + 1, sizeof(double));
	p->entity_names[p->nentities] = xstrdup(name);
	p->entity_weight[p->nentities] = 1;
	return (int)p->nentities++;
}

void dl_alloc_problem_copy(struct dl_alloc_problem *d, const struct dl_alloc_problem *p,
			   int with_jobs)
{
	size_t n = p->ntypes, C = p->nclasses;
	dl_alloc_problem_init(d, n);
	for (size_t t = 0; t < n; t++)
		dl_alloc_problem_set_type(d, t, p->type_names[t], p->capacity[t], p->cost[t]);
	for (size_t e = 0; e < p->nentities; e++) {
		int k = dl_alloc_problem_entity(d, p->entity_names[e]); /* may move entity_weight */
		d->entity_weight[k] = p->entity_weight[e];
	}
	d->nclasses = C;
	if (p->class_model) {
		d->class_model = xcalloc(C + 1, sizeof(char *));
		d->class_gpus = xcalloc(C + 1, sizeof(int));
		for (size_t c = 0; c < C; c++) {
			d->class_model[c] = xstrdup(p->class_model[c]);
			d->class_gpus[c] = p->class_gpus[c];
		}
	}
	if (p->pair_self) {
		d->pair_self = xcalloc(C * C * n + 1, sizeof(double));
		d->pair_other = xcalloc(C * C * n + 1, sizeof(double));
		memcpy(d->pair_self, p->pair_self, C * C * n * sizeof(double));
		memcpy(d->pair_other, p->pair_other, C * C * n * sizeof(double));
	}
	for (size_t i = 0; with_jobs && i < p->njobs; i++) {
		size_t at = dl_alloc_problem_add_job(d, p->jobs[i].id, p->jobs[i].gpus,
						     p->jobs[i].tput); /* moves d->jobs */
		struct dl_alloc_job *j = &d->jobs[at];
		char *id = j->id;
		double *tput = j->tput;
		*j = p->jobs[i];
		j->id = id;
		j->tput = tput;
	}
}

static void free_pairs(struct dl_alloc_pair *pairs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(pairs[k].tput_a);
		free(pairs[k].tput_b);
	}
	free(pairs);
}

void dl_alloc_problem_free(struct dl_alloc_problem *p)
{
	for (size_t i = 0; i < p->njobs; i++) {
		free(p->jobs[i].id);
		free(p->jobs[i].tput);
	}
	free(p->jobs);
	for (size_t t = 0; t < p->ntypes; t++)
		free(p->type_names[t]);
	free(p->type_names);
	free(p->capacity);
	free(p->cost);
	for (size_t e = 0; e < p->nentities; e++)
		free(p->entity_names[e]);
	free(p->entity_names);
	free(p->entity_weight);
	for (size_t c = 0; p->class_model && c < p->nclasses; c++)
		free(p->class_model[c]);
	free(p->class_model);
	free(p->class_gpus);
	free(p->pair_self);
	free(p->pair_other);
	free_pairs(p->pairs, p->npairs);
	memset(p, 0, sizeof(*p));
}

void dl_alloc_result_free(struct dl_alloc_result *res)
{
	free(res->x);
	free(res->px);
	free_pairs(res->pairs, res->npairs);
	memset(res, 0, sizeof(*res));
}

/* ---- small helpers ---- */

/* the random streams of --seed, so that each use draws independently of the others */
enum { RNG_FIFO = 1, RNG_GANDIVA, RNG_PARTITIONS };

static void shuffle(size_t *a, size_t n, struct dl_rng *r)
{
	for (size_t i = n; i > 1; i--) {
		size_t k = (size_t)dl_rng_below(r, i);
		size_t t = a[i - 1];
		a[i - 1] = a[k];
		a[k] = t;
	}
}

static double total_capacity(const struct dl_alloc_problem *p)
{
	double s = 0;
	for (size_t t = 0; t < p->ntypes; t++)
		s += p->capacity[t];
	return s;
}

/*
 * Gandiva's test for a pair of classes ca, cb with alone throughputs ta, tb:
 * the best normalised packed throughput sa/ta + sb/tb over the types where
 * both run alone (0 when none). Above 1, sharing beats taking turns.
 */
static double pair_score(const struct dl_alloc_problem *p, size_t ca, size_t cb, const double *ta,
			 const double *tb)
{
	size_t n = p->ntypes, base = (ca * p->nclasses + cb) * n;
	double score = 0;
	for (size_t t = 0; t < n; t++) {
		double sa = p->pair_self[base + t], sb = p->pair_other[base + t];
		if (isnan(sa) || isnan(sb) || !(ta[t] > 0) || !(tb[t] > 0) || !(p->capacity[t] > 0))
			continue;
		double v = sa / ta[t] + sb / tb[t];
		score = v > score ? v : score;
	}
	return score;
}

/* fill pr->tput_a, tput_b (allocated) with the rates of classes ca (as a) and cb */
static void pair_rates(const struct dl_alloc_problem *p, size_t ca, size_t cb,
		       struct dl_alloc_pair *pr)
{
	size_t n = p->ntypes, base = (ca * p->nclasses + cb) * n;
	pr->tput_a = xcalloc(n, sizeof(double));
	pr->tput_b = xcalloc(n, sizeof(double));
	for (size_t t = 0; t < n; t++) {
		double sa = p->pair_self[base + t], sb = p->pair_other[base + t];
		pr->tput_a[t] = isnan(sa) ? 0 : sa;
		pr->tput_b[t] = isnan(sb) ? 0 : sb;
	}
}

double dl_alloc_prop_tput(const struct dl_alloc_problem *p, size_t i)
{
	return alloc_prop_of(p, p->jobs[i].tput);
}

double alloc_prop_of(const struct dl_alloc_problem *p, const double *tput)
{
	double tot = total_capacity(p), s = 0;
	if (tot <= 0)
		return 0;
	for (size_t t = 0; t < p->ntypes; t++)
		s += tput[t] * p->capacity[t] / tot;
	return s;
}

/* Gavel's isolated share of job j among m jobs: N_j/m of each type, scaled so its time sums to <= 1
 */
static void iso_row_of(const struct dl_alloc_problem *p, const struct dl_alloc_job *j, double m,
		       double *row)
{
	double sum = 0;
	for (size_t t = 0; t < p->ntypes; t++) {
		row[t] = j->tput[t] > 0 ? p->capacity[t] / m / j->gpus : 0;
		sum += row[t];
	}
	if (sum > 1)
		for (size_t t = 0; t < p->ntypes; t++)
			row[t] /= sum;
}

static double jobs_total(const struct dl_alloc_problem *p)
{
	double m = 0;
	for (size_t k = 0; k < p->njobs; k++)
		m += p->jobs[k].count;
	return m;
}

static void iso_row(const struct dl_alloc_problem *p, size_t i, double *row)
{
	iso_row_of(p, &p->jobs[i], jobs_total(p), row);
}

double alloc_iso_of(const struct dl_alloc_problem *p, const struct dl_alloc_job *j, double m)
{
	double *row = xcalloc(p->ntypes + 1, sizeof(double)), s = 0;
	iso_row_of(p, j, m, row);
	for (size_t t = 0; t < p->ntypes; t++)
		s += j->tput[t] * row[t];
	free(row);
	return s;
}

double dl_alloc_iso_tput(const struct dl_alloc_problem *p, size_t i)
{
	return alloc_iso_of(p, &p->jobs[i], jobs_total(p));
}

/* each job's steps/s under an allocation (pairs included) */
static void rates(const struct dl_alloc_problem *p, const struct dl_alloc_result *res, double *rate)
{
	size_t n = p->ntypes;
	for (size_t i = 0; i < p->njobs; i++) {
		rate[i] = 0;
		for (size_t t = 0; t < n; t++)
			rate[i] += p->jobs[i].tput[t] * res->x[i * n + t];
	}
	for (size_t k = 0; k < res->npairs; k++)
		for (size_t t = 0; t < n; t++) {
			rate[res->pairs[k].a] += res->pairs[k].tput_a[t] * res->px[k * n + t];
			rate[res->pairs[k].b] += res->pairs[k].tput_b[t] * res->px[k * n + t];
		}
}

/* ---- the LP skeleton: variables and Gavel's base constraints ---- */

struct build {
	struct dl_lp *lp;
	int *xc;      /* [njobs * ntypes] column, 0 = fixed at 0 */
	int *pc;      /* [npairs * ntypes] */
	size_t *padj; /* CSR: pairs of each job */
	size_t *pstart;
};

static void build_free(struct build *b)
{
	dl_lp_free(b->lp);
	free(b->xc);
	free(b->pc);
	free(b->padj);
	free(b->pstart);
}

/*
 * The most time a pair variable can take: 1 for a pair of jobs; for a pair of
 * classes of identical jobs (merged packing), one unit per pair of members.
 */
static double pair_bound(const struct dl_alloc_problem *p, const struct dl_alloc_pair *pr)
{
	double na = p->jobs[pr->a].count, nb = p->jobs[pr->b].count;
	return pr->a == pr->b ? na * (na - 1) / 2 : na * nb;
}

static void base_lp(const struct dl_alloc_problem *p, const struct dl_alloc_pair *pairs,
		    size_t npairs, enum dl_lp_dir dir, struct build *b)
{
	size_t m = p->njobs, n = p->ntypes;
	char name[64];
	b->lp = dl_lp_new("allocate", dir);
	b->xc = xcalloc(m * n + 1, sizeof(int));
	b->pc = xcalloc(npairs * n + 1, sizeof(int));
	for (size_t i = 0; i < m; i++)
		for (size_t t = 0; t < n; t++)
			if (p->jobs[i].tput[t] > 0 && p->capacity[t] > 0) {
				snprintf(name, sizeof(name), "x_%zu_%zu", i, t);
				b->xc[i * n + t] = dl_lp_add_col(b->lp, name, 0, 1, 0);
			}
	for (size_t k = 0; k < npairs; k++)
		for (size_t t = 0; t < n; t++)
			if ((pairs[k].tput_a[t] > 0 || pairs[k].tput_b[t] > 0) &&
			    p->capacity[t] > 0) {
				snprintf(name, sizeof(name), "p_%zu_%zu", k, t);
				b->pc[k * n + t] =
					dl_lp_add_col(b->lp, name, 0, pair_bound(p, &pairs[k]), 0);
			}
	/* pairs of each job, for the time and throughput rows */
	b->pstart = xcalloc(m + 1, sizeof(size_t));
	b->padj = xcalloc(2 * npairs + 1, sizeof(size_t));
	for (size_t k = 0; k < npairs; k++) {
		b->pstart[pairs[k].a + 1]++;
		b->pstart[pairs[k].b + 1]++;
	}
	for (size_t i = 0; i < m; i++)
		b->pstart[i + 1] += b->pstart[i];
	size_t *fill = xcalloc(m + 1, sizeof(size_t));
	for (size_t k = 0; k < npairs; k++) {
		b->padj[b->pstart[pairs[k].a] + fill[pairs[k].a]++] = k;
		b->padj[b->pstart[pairs[k].b] + fill[pairs[k].b]++] = k;
	}
	free(fill);
	/* time: sum over the job's singles and pairs <= 1 */
	for (size_t i = 0; i < m; i++) {
		snprintf(name, sizeof(name), "time_%zu", i);
		int r = dl_lp_add_row(b->lp, name, -DL_LP_INF, 1);
		for (size_t t = 0; t < n; t++)
			if (b->xc[i * n + t])
				dl_lp_coef(b->lp, r, b->xc[i * n + t], 1);
		for (size_t q = b->pstart[i]; q < b->pstart[i + 1]; q++)
			for (size_t t = 0; t < n; t++)
				if (b->pc[b->padj[q] * n + t])
					dl_lp_coef(b->lp, r, b->pc[b->padj[q] * n + t],
						   1 / p->jobs[i].count);
	}
	/* capacity: GPUs in use on each type <= N_j (a pair uses its GPUs once) */
	for (size_t t = 0; t < n; t++) {
		snprintf(name, sizeof(name), "cap_%zu", t);
		int r = dl_lp_add_row(b->lp, name, -DL_LP_INF, p->capacity[t]);
		for (size_t i = 0; i < m; i++)
			if (b->xc[i * n + t])
				dl_lp_coef(b->lp, r, b->xc[i * n + t],
					   p->jobs[i].gpus * p->jobs[i].count);
		for (size_t k = 0; k < npairs; k++)
			if (b->pc[k * n + t])
				dl_lp_coef(b->lp, r, b->pc[k * n + t], p->jobs[pairs[k].a].gpus);
	}
}

/* add scale * (job i's steps/s) to a row; agnostic counts time instead of steps */
static void add_rate(struct build *b, const struct dl_alloc_problem *p,
		     const struct dl_alloc_pair *pairs, int row, size_t i, double scale,
		     int agnostic)
{
	size_t n = p->ntypes;
	for (size_t t = 0; t < n; t++)
		if (b->xc[i * n + t])
			dl_lp_coef(b->lp, row, b->xc[i * n + t],
				   scale * (agnostic ? 1 : p->jobs[i].tput[t]));
	for (size_t q = b->pstart[i]; q < b->pstart[i + 1]; q++) {
		size_t k = b->padj[q];
		const double *tp = pairs[k].a == (int)i ? pairs[k].tput_a : pairs[k].tput_b;
		for (size_t t = 0; t < n; t++)
			if (b->pc[k * n + t] && tp[t] > 0)
				dl_lp_coef(b->lp, row, b->pc[k * n + t],
					   scale * tp[t] / p->jobs[i].count);
	}
}

static double clip(double v, double ub)
{
	if (!(v > 1e-9))
		return 0;
	return v > ub ? ub : v;
}

static void take_solution(const struct dl_alloc_problem *p, struct build *b,
			  struct dl_alloc_result *res)
{
	size_t n = p->ntypes;
	for (size_t c = 0; c < p->njobs * n; c++)
		res->x[c] = b->xc[c] ? clip(dl_lp_value(b->lp, b->xc[c]), 1) : 0;
	for (size_t c = 0; c < res->npairs * n; c++)
		res->px[c] = b->pc[c] ? clip(dl_lp_value(b->lp, b->pc[c]),
					     pair_bound(p, &res->pairs[c / n]))
				      : 0;
}

static int solve_lp(struct build *b, const struct dl_alloc_opts *o, struct dl_alloc_result *res,
		    struct dl_err *err)
{
	int rc = dl_lp_solve(b->lp, &o->lp, err);
	const struct dl_lp_info *info = dl_lp_info(b->lp);
	res->lp_solves++;
	res->lp_seconds += info->seconds;
	res->lp_rows = dl_lp_nrows(b->lp);
	res->lp_cols = dl_lp_ncols(b->lp);
	res->lp_objective = rc ? NAN : dl_lp_objective(b->lp);
	return rc;
}

static int dump(struct build *b, const struct dl_alloc_opts *o, struct dl_err *err)
{
	return o->dump_model ? dl_lp_write(b->lp, o->dump_model, err) : 0;
}

/* the usual end of a one-LP policy: dump, solve, read X, free the LP */
static int dump_solve_take(const struct dl_alloc_problem *p, struct build *b,
			   const struct dl_alloc_opts *o, struct dl_alloc_result *res,
			   struct dl_err *err)
{
	int rc = dump(b, o, err);
	if (!rc)
		rc = solve_lp(b, o, res, err);
	if (!rc)
		take_solution(p, b, res);
	build_free(b);
	return rc;
}

/* ---- LP policies ---- */

/* max t  s.t.  t <= s_i / (w_i prop_i) * rate_i(X)   (agnostic: prop_i = 1, rate = time) */
static int max_min(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		   struct dl_alloc_result *res, int agnostic, struct dl_err *err)
{
	struct build b = {0};
	base_lp(p, res->pairs, res->npairs, DL_LP_MAX, &b);
	int tcol = dl_lp_add_col(b.lp, "t", 0, DL_LP_INF, 1);
	char name[64];
	for (size_t i = 0; i < p->njobs; i++) {
		double prop = agnostic ? 1 : dl_alloc_prop_tput(p, i);
		snprintf(name, sizeof(name), "fair_%zu", i);
		int r = dl_lp_add_row(b.lp, name, -DL_LP_INF, 0);
		dl_lp_coef(b.lp, r, tcol, 1);
		add_rate(&b, p, res->pairs, r, i, -p->jobs[i].gpus / (p->jobs[i].weight * prop),
			 agnostic);
	}
	return dump_solve_take(p, &b, o, res, err);
}

/* max sum_i sum_j T_ij / c_j X_ij  [+ SLO rows rate_i >= r_i / slo_i, dropped if infeasible] */
static int max_sum(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		   struct dl_alloc_result *res, int by_cost, struct dl_err *err)
{
	size_t n = p->ntypes;
	if (by_cost)
		for (size_t t = 0; t < n; t++)
			if (p->capacity[t] > 0 && !(p->cost[t] > 0))
				return dl_err_set(err, DL_EXIT_USAGE,
						  "min-cost needs the price of GPU type '%s' "
						  "(give --costs TYPE=DOLLARS,...)",
						  p->type_names[t]);
	struct build b = {0};
	base_lp(p, res->pairs, res->npairs, DL_LP_MAX, &b);
	for (size_t i = 0; i < p->njobs; i++)
		for (size_t t = 0; t < n; t++)
			if (b.xc[i * n + t])
				dl_lp_set_obj(b.lp, b.xc[i * n + t],
					      p->jobs[i].count * p->jobs[i].tput[t] /
						      (by_cost ? p->cost[t] : 1));
	for (size_t k = 0; k < res->npairs; k++)
		for (size_t t = 0; t < n; t++)
			if (b.pc[k * n + t])
				dl_lp_set_obj(b.lp, b.pc[k * n + t],
					      (res->pairs[k].tput_a[t] + res->pairs[k].tput_b[t]) /
						      (by_cost ? p->cost[t] : 1));
	int *slo = xcalloc(p->njobs + 1, sizeof(int));
	int nslo = 0;
	char name[64];
	for (size_t i = 0; by_cost && i < p->njobs; i++) {
		const struct dl_alloc_job *j = &p->jobs[i];
		if (j->slo > 0 && j->steps > 0) {
			snprintf(name, sizeof(name), "slo_%zu", i);
			slo[i] = dl_lp_add_row(b.lp, name, j->steps / j->slo, DL_LP_INF);
			add_rate(&b, p, res->pairs, slo[i], i, 1, 0);
			nslo++;
		}
	}
	int rc = dump(&b, o, err);
	if (!rc)
		rc = solve_lp(&b, o, res, err);
	int infeasible =
		rc && err->code == DL_EXIT_NOSOL && !strcmp(dl_lp_info(b.lp)->status, "infeasible");
	if (infeasible && nslo && o->strict_slo) {
		dl_err_set(err, DL_EXIT_NOSOL,
			   "no solution: the problem is infeasible (the SLOs cannot all be met; "
			   "%d job%s one)",
			   nslo, nslo == 1 ? " has" : "s have");
	} else if (infeasible && nslo) {
		/* Gavel's fallback: without the deadlines the problem is always feasible */
		for (size_t i = 0; i < p->njobs; i++)
			if (slo[i])
				dl_lp_set_row_bounds(b.lp, slo[i], -DL_LP_INF, DL_LP_INF);
		snprintf(res->note, sizeof(res->note),
			 "the SLOs cannot all be met (%d job%s one); solved without them", nslo,
			 nslo == 1 ? " has" : "s have");
		dl_err_clear(err);
		rc = dump(&b, o, err);
		if (!rc)
			rc = solve_lp(&b, o, res, err);
	}
	if (!rc)
		take_solution(p, &b, res);
	free(slo);
	build_free(&b);
	return rc;
}

/* max z  s.t.  rate_i(X) >= (r_i / R) z;  makespan = R / z  (z = R y, y = 1/T) */
static int min_makespan(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			struct dl_alloc_result *res, struct dl_err *err)
{
	double R = 0;
	for (size_t i = 0; i < p->njobs; i++)
		if (p->jobs[i].steps > R)
			R = p->jobs[i].steps;
	if (!(R > 0))
		return dl_err_set(err, DL_EXIT_NOSOL,
				  "no solution: min-makespan needs remaining steps (column "
				  "'steps') above 0 for some job");
	struct build b = {0};
	base_lp(p, res->pairs, res->npairs, DL_LP_MAX, &b);
	int z = dl_lp_add_col(b.lp, "z", 0, DL_LP_INF, 1);
	char name[64];
	for (size_t i = 0; i < p->njobs; i++) {
		if (!(p->jobs[i].steps > 0))
			continue;
		snprintf(name, sizeof(name), "span_%zu", i);
		int r = dl_lp_add_row(b.lp, name, 0, DL_LP_INF);
		add_rate(&b, p, res->pairs, r, i, 1, 0);
		dl_lp_coef(b.lp, r, z, -p->jobs[i].steps / R);
	}
	return dump_solve_take(p, &b, o, res, err);
}

/*
 * Finish-time fairness: minimise max_i rho_i with
 *   rho_i = (t_i + r_i / rate_i) / D_i,   D_i = (done_i + r_i) / iso_i
 * (D_i = iso_done_i + r_i / iso_i when the job carries its cumulative isolated time).
 * For a fixed rho, rho_i <= rho is the linear row rate_i >= r_i / (rho D_i - t_i),
 * so bisect on rho between a lower bound (every job alone on its fastest type)
 * and rho of the isolated allocation (always feasible).
 */
static int ftf_feasible(struct build *b, const struct dl_alloc_problem *p, const int *row,
			const double *D, double rho, const struct dl_alloc_opts *o,
			struct dl_alloc_result *res, struct dl_err *err)
{
	for (size_t i = 0; i < p->njobs; i++) {
		if (!row[i])
			continue;
		double slack = rho * D[i] - p->jobs[i].elapsed;
		if (!(slack > 0))
			return 1; /* even infinite speed cannot bring rho_i this low */
		dl_lp_set_row_bounds(b->lp, row[i], p->jobs[i].steps / slack, DL_LP_INF);
	}
	if (!solve_lp(b, o, res, err))
		return 0;
	if (err->code == DL_EXIT_NOSOL && !strcmp(dl_lp_info(b->lp)->status, "infeasible")) {
		dl_err_clear(err);
		return 1;
	}
	return -1;
}

static int finish_time_fairness(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
				struct dl_alloc_result *res, struct dl_err *err)
{
	size_t m = p->njobs, n = p->ntypes;
	double *D = xcalloc(m + 1, sizeof(double));
	int *row = xcalloc(m + 1, sizeof(int));
	double lo = 0, hi = 0;
	struct build b = {0};
	base_lp(p, NULL, 0, DL_LP_MAX, &b);
	char name[64];
	for (size_t i = 0; i < m; i++) {
		const struct dl_alloc_job *j = &p->jobs[i];
		if (!(j->steps > 0))
			continue;
		double iso = dl_alloc_iso_tput(p, i), best = 0;
		D[i] = j->iso_done >= 0 ? j->iso_done + j->steps / iso
					: (j->steps_done + j->steps) / iso;
		for (size_t t = 0; t < n; t++) {
			double cap = p->capacity[t] / j->gpus;
			double v = j->tput[t] * (cap < 1 ? cap : 1);
			if (v > best)
				best = v;
		}
		double l = (j->elapsed + j->steps / best) / D[i];
		double h = (j->elapsed + j->steps / iso) / D[i];
		lo = l > lo ? l : lo;
		hi = h > hi ? h : hi;
		snprintf(name, sizeof(name), "ftf_%zu", i);
		row[i] = dl_lp_add_row(b.lp, name, 0, DL_LP_INF);
		add_rate(&b, p, NULL, row[i], i, 1, 0);
		/* leftover capacity: raise everyone's speed relative to their isolated one */
		for (size_t t = 0; t < n; t++)
			if (b.xc[i * n + t])
				dl_lp_set_obj(b.lp, b.xc[i * n + t], j->count * j->tput[t] / iso);
	}
	int rc = 0;
	if (hi > 0) {
		/* hi is feasible in exact arithmetic; allow for the solver's rounding */
		double h = hi;
		int f;
		while ((f = ftf_feasible(&b, p, row, D, h, o, res, err)) == 1 && h < hi * 1.01)
			h *= 1 + 1e-7;
		if (f)
			rc = f < 0 ? -1
				   : dl_err_set(err, DL_EXIT_NOSOL,
						"no solution: finish-time fairness found no "
						"feasible rho (numerical difficulties)");
		hi = h;
		for (int it = 0; !rc && it < 200 && hi - lo > o->tolerance * hi; it++) {
			double mid = (lo + hi) / 2;
			f = ftf_feasible(&b, p, row, D, mid, o, res, err);
			if (f < 0)
				rc = -1;
			else if (f)
				lo = mid;
			else
				hi = mid;
		}
		/* the reported allocation is the one at the final upper bound */
		if (!rc && ftf_feasible(&b, p, row, D, hi, o, res, err))
			rc = err->code ? -1
				       : dl_err_set(err, DL_EXIT_NOSOL,
						    "no solution: finish-time fairness lost "
						    "feasibility at rho %g",
						    hi);
	} else {
		rc = solve_lp(&b, o, res, err);
	}
	if (!rc)
		rc = dump(&b, o, err);
	if (!rc)
		take_solution(p, &b, res);
	build_free(&b);
	free(D);
	free(row);
	return rc;
}

/*
 * Gavel's bottleneck test as the MIP "max sum_i z_i, z_i binary, NET_i >=
 * lb_i + rise_i z_i", solved from scratch (water_filling tries its LP
 * relaxation first). Active jobs with z_i = 0 are set in `stuck`.
 */
static int wf_bottleneck_mip(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			     const double *prop, const double *lb, const double *rise,
			     const double *w, struct dl_alloc_result *res, char *stuck,
			     struct dl_err *err)
{
	size_t m = p->njobs;
	char name[64];
	struct build q = {0};
	base_lp(p, NULL, 0, DL_LP_MAX, &q);
	int *z = xcalloc(m + 1, sizeof(int));
	for (size_t i = 0; i < m; i++) {
		snprintf(name, sizeof(name), "floor_%zu", i);
		int r = dl_lp_add_row(q.lp, name, lb[i], DL_LP_INF);
		add_rate(&q, p, NULL, r, i, 1 / prop[i], 0);
		if (w[i] > 0) {
			snprintf(name, sizeof(name), "z_%zu", i);
			z[i] = dl_lp_add_col(q.lp, name, 0, 1, 1);
			dl_lp_set_integer(q.lp, z[i]);
			dl_lp_coef(q.lp, r, z[i], -rise[i]);
		}
	}
	int rc = solve_lp(&q, o, res, err);
	for (size_t i = 0; !rc && i < m; i++)
		stuck[i] = z[i] && dl_lp_value(q.lp, z[i]) < 0.5;
	free(z);
	build_free(&q);
	return rc;
}

/*
 * Water-filling (Gavel's hierarchical max-min). Each round (a) raises the
 * common level c of the active jobs' s_i / w_i (NET_i - sofar_i), NET_i =
 * rate_i / prop_i, as far as it goes, then sofar_i += c w_i / s_i, and (b)
 * freezes the active jobs that cannot rise by eps = 0.01% (+ 1e-6) while no
 * job falls below its sofar. Rounds repeat until every job is frozen.
 * Entity weights reweight the jobs of each entity every round.
 *
 * (b) is Gavel's MIP "max sum_i z_i, z_i binary, NET_i >= lb_i + rise_i z_i"
 * (z_i = 1: job i reaches (1 + eps) sofar_i + delta). Gavel's big-M rows
 * NET_i >= M_i z_i beside the floor rows describe the same integer points,
 * but their LP relaxation is so weak that GLPK's branch and bound took
 * minutes for a thousand jobs. The relaxation of this form settles it in the
 * usual case: rounding its z down keeps the same X feasible, so the jobs at
 * z_i = 1 are a feasible set, and a largest one when their number reaches
 * floor(relaxation optimum), the MIP's bound. Only otherwise is the MIP
 * solved (wf_bottleneck_mip).
 *
 * One LP serves both steps of every round, re-solved from the last basis:
 * per job the row NET_i - a_i c - zr_i >= lb_i. In (a), a_i = w_i / s_i and
 * lb_i = sofar_i for active jobs, a_i = 0, lb_i = sofar_i (1 - 1e-9) and zr_i
 * = 0 for the others, maximise c: Gavel's LP (an active job's zr_i >= 0 only
 * tightens its row, so c's optimum is the same). In (b), c is fixed at 0,
 * lb_i = sofar_i (1 - 1e-9), 0 <= zr_i <= rise_i for the active jobs, and
 * the objective sum_i zr_i / rise_i is the relaxation (z_i = zr_i / rise_i).
 * Each step starts from a feasible basis near its optimum, so a round costs
 * a few pivots instead of two solves from scratch. The allocation is the
 * last round's level LP solved from scratch as Gavel writes it
 * (wf_level_lp; for one round that is the first LP): where several
 * allocations give every job the same rate, that is the one allocate always
 * reported.
 */
static void wf_weights(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		       const char *frozen, double *w)
{
	size_t m = p->njobs;
	double *sum = xcalloc(p->nentities + 1, sizeof(double));
	char *taken = xcalloc(p->nentities + 1, 1);
	for (size_t i = 0; i < m; i++)
		if (!frozen[i] && p->jobs[i].entity >= 0)
			sum[p->jobs[i].entity] += p->jobs[i].weight * p->jobs[i].count;
	for (size_t i = 0; i < m; i++) {
		int e = p->jobs[i].entity;
		if (frozen[i])
			w[i] = 0;
		else if (e < 0)
			w[i] = p->jobs[i].weight;
		else if (o->entity_fifo) {
			w[i] = taken[e] ? 0 : p->entity_weight[e];
			taken[e] = 1;
		} else
			w[i] = p->entity_weight[e] * p->jobs[i].weight / sum[e];
	}
	free(sum);
	free(taken);
}

/*
 * The level LP of one round built from scratch, as Gavel writes it: a floor
 * row NET_i >= sofar_i (1 - 1e-9) for every job and a level row c <= s_i /
 * w_i (NET_i - sofar_i) for the active ones; dumped, solved and taken as the
 * allocation.
 */
static int wf_level_lp(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		       const double *prop, const double *sofar, const double *w,
		       struct dl_alloc_result *res, struct dl_err *err)
{
	char name[64];
	struct build b = {0};
	base_lp(p, NULL, 0, DL_LP_MAX, &b);
	int ccol = dl_lp_add_col(b.lp, "c", 0, DL_LP_INF, 1);
	for (size_t i = 0; i < p->njobs; i++) {
		snprintf(name, sizeof(name), "floor_%zu", i);
		int r = dl_lp_add_row(b.lp, name, sofar[i] * (1 - 1e-9), DL_LP_INF);
		add_rate(&b, p, NULL, r, i, 1 / prop[i], 0);
		if (w[i] > 0) {
			double mult = p->jobs[i].gpus / w[i];
			snprintf(name, sizeof(name), "level_%zu", i);
			r = dl_lp_add_row(b.lp, name, -DL_LP_INF, -mult * sofar[i]);
			dl_lp_coef(b.lp, r, ccol, 1);
			add_rate(&b, p, NULL, r, i, -mult / prop[i], 0);
		}
	}
	return dump_solve_take(p, &b, o, res, err);
}

static int water_filling(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			 struct dl_alloc_result *res, struct dl_err *err)
{
	const double eps = 1e-4, delta = 1e-6;
	size_t m = p->njobs;
	double *prop = xcalloc(m + 1, sizeof(double)), *sofar = xcalloc(m + 1, sizeof(double));
	double *w = xcalloc(m + 1, sizeof(double)), *lb = xcalloc(m + 1, sizeof(double));
	double *rise = xcalloc(m + 1, sizeof(double)), *cval = xcalloc(m + 1, sizeof(double));
	double *last_sofar = xcalloc(m + 1, sizeof(double)),
	       *last_w = xcalloc(m + 1, sizeof(double));
	int rounds = 0, first_rows = 0, first_cols = 0; /* of the first level LP */
	double first_obj = NAN;
	int *row = xcalloc(m + 1, sizeof(int)), *zcol = xcalloc(m + 1, sizeof(int));
	int *crow = xcalloc(m + 1, sizeof(int));
	char *frozen = xcalloc(m + 1, 1), *stuck = xcalloc(m + 1, 1);
	int rc = 0;
	char name[64];
	struct build b = {0};
	base_lp(p, NULL, 0, DL_LP_MAX, &b);
	int ccol = dl_lp_add_col(b.lp, "c", 0, DL_LP_INF, 1);
	for (size_t i = 0; i < m; i++) {
		prop[i] = dl_alloc_prop_tput(p, i);
		snprintf(name, sizeof(name), "z_%zu", i);
		zcol[i] = dl_lp_add_col(b.lp, name, 0, 0, 0);
		snprintf(name, sizeof(name), "level_%zu", i);
		row[i] = dl_lp_add_row(b.lp, name, 0, DL_LP_INF);
		add_rate(&b, p, NULL, row[i], i, 1 / prop[i], 0);
		dl_lp_coef(b.lp, row[i], zcol[i], -1);
	}
	for (size_t round = 0; !rc && round <= m; round++) {
		wf_weights(p, o, frozen, w);
		size_t nactive = 0;
		for (size_t i = 0; i < m; i++)
			if (w[i] > 0) {
				crow[nactive] = row[i];
				cval[nactive++] = -w[i] / p->jobs[i].gpus;
			}
		if (!nactive)
			break;
		/* (a) the highest common level c of the active jobs */
		memcpy(last_sofar, sofar, m * sizeof(double));
		memcpy(last_w, w, m * sizeof(double));
		double c = 0;
		if (!rounds++) {
			/* from scratch anyway: Gavel's LP gives the allocation if all freeze */
			rc = wf_level_lp(p, o, prop, sofar, w, res, err);
			c = first_obj = res->lp_objective;
			first_rows = res->lp_rows;
			first_cols = res->lp_cols;
		} else {
			dl_lp_set_col(b.lp, ccol, (int)nactive, crow, cval);
			dl_lp_set_col_bounds(b.lp, ccol, 0, DL_LP_INF);
			dl_lp_set_obj(b.lp, ccol, 1);
			for (size_t i = 0; i < m; i++) {
				dl_lp_set_row_bounds(b.lp, row[i],
						     w[i] > 0 ? sofar[i] : sofar[i] * (1 - 1e-9),
						     DL_LP_INF);
				/* zr_i >= 0 only tightens the row: c's optimum is the same */
				if (!(w[i] > 0))
					dl_lp_set_col_bounds(b.lp, zcol[i], 0, 0);
				dl_lp_set_obj(b.lp, zcol[i], 0);
			}
			rc = solve_lp(&b, o, res, err);
			if (!rc)
				c = dl_lp_value(b.lp, ccol);
		}
		if (rc)
			break;
		for (size_t i = 0; i < m; i++)
			if (w[i] > 0)
				sofar[i] += c * w[i] / p->jobs[i].gpus;
		/* (b) the most jobs that can rise by eps together; the rest freeze */
		dl_lp_set_col_bounds(b.lp, ccol, 0, 0);
		dl_lp_set_obj(b.lp, ccol, 0);
		for (size_t i = 0; i < m; i++) {
			lb[i] = sofar[i] * (1 - 1e-9);
			rise[i] = (1 + eps) * sofar[i] + delta - lb[i];
			dl_lp_set_row_bounds(b.lp, row[i], lb[i], DL_LP_INF);
			if (w[i] > 0) {
				dl_lp_set_col_bounds(b.lp, zcol[i], 0, rise[i]);
				dl_lp_set_obj(b.lp, zcol[i], 1 / rise[i]);
			}
		}
		rc = solve_lp(&b, o, res, err);
		double rounded = 0;
		for (size_t i = 0; !rc && i < m; i++) {
			stuck[i] = w[i] > 0 && dl_lp_value(b.lp, zcol[i]) / rise[i] < 1 - 1e-9;
			rounded += w[i] > 0 && !stuck[i];
		}
		if (!rc && rounded < floor(dl_lp_objective(b.lp) + 1e-6))
			rc = wf_bottleneck_mip(p, o, prop, lb, rise, w, res, stuck, err);
		size_t newly = 0;
		for (size_t i = 0; !rc && i < m; i++)
			if (stuck[i]) {
				frozen[i] = 1;
				newly++;
			}
		if (!rc && !newly)
			break; /* nobody is a bottleneck any more (numerically): stop, as Gavel does
				*/
	}
	build_free(&b);
	/* -v and --dump-model describe the last round's level LP, from scratch */
	if (!rc && rounds > 1) {
		rc = wf_level_lp(p, o, prop, last_sofar, last_w, res, err);
	} else if (!rc) {
		res->lp_objective = first_obj;
		res->lp_rows = first_rows;
		res->lp_cols = first_cols;
	}
	free(prop);
	free(last_sofar);
	free(last_w);
	free(sofar);
	free(w);
	free(lb);
	free(rise);
	free(cval);
	free(row);
	free(zcol);
	free(crow);
	free(frozen);
	free(stuck);
	return rc;
}

/* ---- baselines ---- */

static void isolated(const struct dl_alloc_problem *p, struct dl_alloc_result *res)
{
	for (size_t i = 0; i < p->njobs; i++)
		iso_row(p, i, res->x + i * p->ntypes);
}

/*
 * Jobs in input order take a whole type (X = 1) while it has GPUs left:
 * fifo-perf the fastest type with room, fifo a random one. A job that fits
 * nowhere is passed over, or with head_of_line stops the queue (Gavel).
 *
 * fifo_last_type is Gavel's fifo as its code runs (policies/fifo.py, base
 * mode): it lists the types with GPUs left and draws one of those with room
 * for the job's gang, but gives the job the listed type last by name (its
 * loop variable; v100 on Gavel's clusters). Only when that type is left with
 * exactly 0 GPUs does a type leave the list, the drawn one: when it is
 * another type, later jobs keep going to the full type (more jobs than GPUs,
 * which the rounds then share) and the dropped type stays idle. Gavel keeps
 * this allocation between solves; recomputed here from the jobs in order, it
 * is the same but in rare cases of wide gangs.
 */
static void fifo(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o, int perf,
		 struct dl_alloc_result *res)
{
	size_t n = p->ntypes;
	double *left = xcalloc(n + 1, sizeof(double));
	size_t *fit = xcalloc(n + 1, sizeof(size_t));
	char *listed = xcalloc(n + 1, 1);
	int quirk = o->fifo_last_type && !perf, stop = o->head_of_line || quirk;
	struct dl_rng r;
	dl_rng_seed_stream(&r, o->seed, RNG_FIFO);
	memcpy(left, p->capacity, n * sizeof(double));
	for (size_t t = 0; t < n; t++)
		listed[t] = left[t] > 0;
	for (size_t i = 0; i < p->njobs; i++) {
		const struct dl_alloc_job *j = &p->jobs[i];
		size_t nfit = 0, best = n, last = n; /* last: the listed type last by name */
		for (size_t t = 0; t < n; t++) {
			if (listed[t] &&
			    (last == n || strcmp(p->type_names[t], p->type_names[last]) > 0))
				last = t;
			if (!listed[t] || left[t] < j->gpus || (!stop && !(j->tput[t] > 0)))
				continue;
			fit[nfit++] = t;
			/* the fastest (with stop, ties to the first by name, as Gavel) */
			if (best == n || j->tput[t] > j->tput[best] ||
			    (stop && j->tput[t] == j->tput[best] &&
			     strcmp(p->type_names[t], p->type_names[best]) < 0))
				best = t;
		}
		if (!nfit) {
			if (stop)
				break;
			continue;
		}
		size_t drawn = perf ? best : fit[dl_rng_below(&r, nfit)];
		size_t t = quirk ? last : drawn;
		if (!(j->tput[t] > 0))
			continue; /* no allocation; the queue goes on */
		res->x[i * n + t] = 1;
		left[t] -= j->gpus;
		if (stop && left[t] == 0)
			listed[quirk ? drawn : t] = 0;
	}
	free(left);
	free(fit);
	free(listed);
}

/*
 * Gandiva: an equal share when the jobs fit; otherwise random pairs of
 * jobs with equal gpus whose sharing helps (normalised packed throughput
 * >= 1), and an equal share of time for every single and pair.
 */
static void gandiva(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		    struct dl_alloc_result *res)
{
	size_t m = p->njobs, n = p->ntypes;
	double want = 0;
	for (size_t i = 0; i < m; i++)
		want += p->jobs[i].gpus;
	if (want <= total_capacity(p) || !p->pair_self) {
		isolated(p, res);
		return;
	}
	size_t *order = xcalloc(m + 1, sizeof(size_t));
	char *paired = xcalloc(m + 1, 1);
	struct dl_rng r;
	dl_rng_seed_stream(&r, o->seed, RNG_GANDIVA);
	for (size_t i = 0; i < m; i++)
		order[i] = i;
	shuffle(order, m, &r);
	struct dl_alloc_pair *pairs = NULL;
	size_t np = 0;
	for (size_t u = 0; u < m; u++) {
		size_t a = order[u];
		if (paired[a] || p->jobs[a].klass < 0)
			continue;
		/* look a bounded distance ahead so the pairing stays O(m) */
		for (size_t v = u + 1; v < m && v < u + 64; v++) {
			size_t bb = order[v];
			const struct dl_alloc_job *ja = &p->jobs[a], *jb = &p->jobs[bb];
			if (paired[bb] || jb->klass < 0 || jb->gpus != ja->gpus)
				continue;
			size_t x = a < bb ? a : bb, y = a < bb ? bb : a;
			size_t kx = (size_t)p->jobs[x].klass, ky = (size_t)p->jobs[y].klass;
			if (pair_score(p, kx, ky, p->jobs[x].tput, p->jobs[y].tput) < 1)
				continue;
			pairs = xreallocarray(pairs, np + 1, sizeof(*pairs));
			pairs[np].a = (int)x;
			pairs[np].b = (int)y;
			pair_rates(p, kx, ky, &pairs[np]);
			np++;
			paired[a] = paired[bb] = 1;
			break;
		}
	}
	double combos = (double)(m - 2 * np + np);
	for (size_t i = 0; i < m; i++) {
		if (paired[i])
			continue;
		double sum = 0;
		for (size_t t = 0; t < n; t++) {
			double v = p->jobs[i].tput[t] > 0
					   ? p->capacity[t] / combos / p->jobs[i].gpus
					   : 0;
			res->x[i * n + t] = v;
			sum += v;
		}
		if (sum > 1)
			for (size_t t = 0; t < n; t++)
				res->x[i * n + t] /= sum;
	}
	res->pairs = pairs;
	res->npairs = np;
	res->px = xcalloc(np * n + 1, sizeof(double));
	for (size_t k = 0; k < np; k++) {
		double sum = 0, s = p->jobs[pairs[k].a].gpus;
		for (size_t t = 0; t < n; t++) {
			double v = pairs[k].tput_a[t] > 0 || pairs[k].tput_b[t] > 0
					   ? p->capacity[t] / combos / s
					   : 0;
			res->px[k * n + t] = v;
			sum += v;
		}
		if (sum > 1)
			for (size_t t = 0; t < n; t++)
				res->px[k * n + t] /= sum;
	}
	free(order);
	free(paired);
}

/* ---- space-sharing candidates ---- */

struct cand {
	int cb;
	double score;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return (x->cb > y->cb) - (x->cb < y->cb);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct dl_alloc_pair *x = a, *y = b;
	if (x->a != y->a)
		return (x->a > y->a) - (x->a < y->a);
	return (x->b > y->b) - (x->b < y->b);
}

/* append the pair of jobs i and k (a < b), rates not yet filled */
static void push_pair(struct dl_alloc_pair **pairs, size_t *np, size_t *ap, size_t i, size_t k)
{
	DL_GROW(*pairs, *np + 1, *ap);
	(*pairs)[*np].a = (int)(i < k ? i : k);
	(*pairs)[*np].b = (int)(i < k ? k : i);
	(*np)++;
}

void dl_alloc_prune_pairs(struct dl_alloc_problem *p, int per_job)
{
	size_t m = p->njobs, C = p->nclasses;
	free_pairs(p->pairs, p->npairs);
	p->pairs = NULL;
	p->npairs = 0;
	if (!p->pair_self || !C || per_job <= 0)
		return;
	/* a representative job of each class gives the alone throughputs */
	long *rep = xcalloc(C, sizeof(long));
	size_t *cnt = xcalloc(C + 1, sizeof(size_t)), *start = xcalloc(C + 1, sizeof(size_t));
	for (size_t c = 0; c < C; c++)
		rep[c] = -1;
	for (size_t i = 0; i < m; i++)
		if (p->jobs[i].klass >= 0) {
			if (rep[p->jobs[i].klass] < 0)
				rep[p->jobs[i].klass] = (long)i;
			cnt[p->jobs[i].klass + 1]++;
		}
	for (size_t c = 0; c < C; c++)
		start[c + 1] = start[c] + cnt[c + 1];
	size_t *members = xcalloc(m + 1, sizeof(size_t)), *fill = xcalloc(C + 1, sizeof(size_t));
	for (size_t i = 0; i < m; i++)
		if (p->jobs[i].klass >= 0) {
			size_t c = (size_t)p->jobs[i].klass;
			members[start[c] + fill[c]++] = i;
		}
	/* partner classes of each class, best normalised packed throughput first */
	struct cand *cand = xcalloc(C * C + 1, sizeof(*cand));
	size_t *ncand = xcalloc(C + 1, sizeof(size_t));
	for (size_t ca = 0; ca < C; ca++) {
		if (rep[ca] < 0)
			continue;
		for (size_t cb = 0; cb < C; cb++) {
			if (rep[cb] < 0)
				continue;
			double score =
				pair_score(p, ca, cb, p->jobs[rep[ca]].tput, p->jobs[rep[cb]].tput);
			if (score > 1)
				cand[ca * C + ncand[ca]++] = (struct cand){(int)cb, score};
		}
		qsort(cand + ca * C, ncand[ca], sizeof(*cand), cmp_cand);
	}
	/* each job takes partners from its best classes, rotating through their members */
	size_t *cursor = xcalloc(C + 1, sizeof(size_t));
	struct dl_alloc_pair *pairs = NULL;
	size_t np = 0, ap = 0;
	for (size_t i = 0; i < m; i++) {
		int ka = p->jobs[i].klass;
		if (ka < 0)
			continue;
		/* a job with at most per_job possible partners takes them all */
		size_t possible = 0;
		for (size_t q = 0; q < ncand[ka]; q++) {
			size_t cb = (size_t)cand[(size_t)ka * C + q].cb;
			possible += cnt[cb + 1] - (cb == (size_t)ka);
		}
		if (possible <= (size_t)per_job) {
			for (size_t q = 0; q < ncand[ka]; q++) {
				size_t cb = (size_t)cand[(size_t)ka * C + q].cb;
				for (size_t u = start[cb]; u < start[cb + 1]; u++) {
					size_t k = members[u];
					if (k == i)
						continue;
					push_pair(&pairs, &np, &ap, i, k);
				}
			}
			continue;
		}
		/* rounds over the partner classes, best first, one partner per class a round */
		int got = 0, added = 1;
		for (int round = 0; added && got < per_job; round++) {
			added = 0;
			for (size_t q = 0; q < ncand[ka] && got < per_job; q++) {
				size_t cb = (size_t)cand[(size_t)ka * C + q].cb;
				size_t size = cnt[cb + 1];
				/* a class smaller than the rounds so far has no new member left */
				if (size <= (size_t)round + (cb == (size_t)ka))
					continue;
				for (size_t tries = 0; tries < size && tries < 4; tries++) {
					size_t k = members[start[cb] + cursor[cb]++ % size];
					if (k == i)
						continue;
					push_pair(&pairs, &np, &ap, i, k);
					got++;
					added = 1;
					break;
				}
			}
		}
	}
	if (np)
		qsort(pairs, np, sizeof(*pairs), cmp_pair);
	size_t u = 0;
	for (size_t k = 0; k < np; k++)
		if (!u || cmp_pair(&pairs[u - 1], &pairs[k]))
			pairs[u++] = pairs[k];
	for (size_t k = 0; k < u; k++)
		pair_rates(p, (size_t)p->jobs[pairs[k].a].klass, (size_t)p->jobs[pairs[k].b].klass,
			   &pairs[k]);
	p->pairs = pairs;
	p->npairs = u;
	free(rep);
	free(cnt);
	free(start);
	free(members);
	free(fill);
	free(cand);
	free(ncand);
	free(cursor);
}

/* ---- objectives (a policy's row names its own) ---- */

static double min_time_share(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
			     const double *rate, const char **what)
{
	(void)rate;
	size_t n = p->ntypes;
	double v = INFINITY;
	*what = "min weighted share of time";
	for (size_t i = 0; i < p->njobs; i++) {
		double s = 0;
		for (size_t t = 0; t < n; t++)
			s += res->x[i * n + t];
		s *= p->jobs[i].gpus / p->jobs[i].weight;
		v = s < v ? s : v;
	}
	return v;
}

static double min_norm_tput(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
			    const double *rate, const char **what)
{
	(void)res;
	double v = INFINITY;
	*what = "min weighted normalised throughput";
	for (size_t i = 0; i < p->njobs; i++) {
		double s =
			p->jobs[i].gpus * rate[i] / (p->jobs[i].weight * dl_alloc_prop_tput(p, i));
		v = s < v ? s : v;
	}
	return v;
}

static double max_rho(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
		      const double *rate, const char **what)
{
	(void)res;
	double v = 0;
	*what = "max finish-time fairness rho";
	for (size_t i = 0; i < p->njobs; i++) {
		const struct dl_alloc_job *j = &p->jobs[i];
		if (!(j->steps > 0))
			continue;
		double iso = dl_alloc_iso_tput(p, i);
		double rho = j->iso_done >= 0 ? (j->elapsed + j->steps / rate[i]) /
							(j->iso_done + j->steps / iso)
					      : (j->elapsed + j->steps / rate[i]) * iso /
							(j->steps_done + j->steps);
		v = rho > v ? rho : v;
	}
	return v;
}

static double makespan(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
		       const double *rate, const char **what)
{
	(void)res;
	double v = 0;
	*what = "makespan in seconds";
	for (size_t i = 0; i < p->njobs; i++)
		if (p->jobs[i].steps > 0) {
			double s = p->jobs[i].steps / rate[i];
			v = s > v ? s : v;
		}
	return v;
}

static double tput_per_dollar(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
			      const double *rate, const char **what)
{
	(void)rate;
	size_t n = p->ntypes;
	double v = 0;
	*what = "steps/s per dollar per hour";
	for (size_t i = 0; i < p->njobs; i++)
		for (size_t t = 0; t < n; t++)
			if (p->cost[t] > 0)
				v += p->jobs[i].tput[t] * res->x[i * n + t] / p->cost[t];
	for (size_t k = 0; k < res->npairs; k++)
		for (size_t t = 0; t < n; t++)
			if (p->cost[t] > 0)
				v += (res->pairs[k].tput_a[t] + res->pairs[k].tput_b[t]) *
				     res->px[k * n + t] / p->cost[t];
	return v;
}

static double total_tput(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
			 const double *rate, const char **what)
{
	(void)res;
	double v = 0;
	*what = "total steps per second";
	for (size_t i = 0; i < p->njobs; i++)
		v += rate[i];
	return v;
}

/* ---- the policies ---- */

static int solve_max_min(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			 struct dl_alloc_result *res, struct dl_err *err)
{
	return max_min(p, o, res, dl_alloc_policy_info(o->policy)->agnostic, err);
}

static int solve_max_throughput(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
				struct dl_alloc_result *res, struct dl_err *err)
{
	return max_sum(p, o, res, 0, err);
}

static int solve_min_cost(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			  struct dl_alloc_result *res, struct dl_err *err)
{
	return max_sum(p, o, res, 1, err);
}

static int solve_fifo(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		      struct dl_alloc_result *res, struct dl_err *err)
{
	(void)err; /* fifo-perf: the fastest type, fifo (agnostic) a random one */
	fifo(p, o, !dl_alloc_policy_info(o->policy)->agnostic, res);
	return 0;
}

static int solve_isolated(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			  struct dl_alloc_result *res, struct dl_err *err)
{
	(void)o;
	(void)err;
	isolated(p, res);
	return 0;
}

static int solve_gandiva(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			 struct dl_alloc_result *res, struct dl_err *err)
{
	(void)err;
	if (o->pack)
		gandiva(p, o, res);
	else
		isolated(p, res);
	return 0;
}

/* clang-format off */
static const struct dl_alloc_policy_info policies[DL_ALLOC_NPOLICIES] = {
	/* name                      lp packs agn fifo prog ent  solve                 objective */
	[DL_ALLOC_MAX_MIN_FAIRNESS] =
	{"max-min-fairness",          1, 0,   1,  0,   0,   0,   solve_max_min,        min_time_share},
	[DL_ALLOC_MAX_MIN_FAIRNESS_PERF] =
	{"max-min-fairness-perf",     1, 1,   0,  0,   0,   0,   solve_max_min,        min_norm_tput},
	[DL_ALLOC_FINISH_TIME_FAIRNESS] =
	{"finish-time-fairness",      1, 0,   0,  0,   1,   0,   finish_time_fairness, max_rho},
	[DL_ALLOC_MIN_MAKESPAN] =
	{"min-makespan",              1, 0,   0,  0,   1,   0,   min_makespan,         makespan},
	[DL_ALLOC_MAX_THROUGHPUT] =
	{"max-throughput",            1, 1,   0,  0,   0,   0,   solve_max_throughput, total_tput},
	[DL_ALLOC_MIN_COST] =
	{"min-cost",                  1, 0,   0,  0,   1,   0,   solve_min_cost,       tput_per_dollar},
	[DL_ALLOC_WATER_FILLING] =
	{"water-filling",             1, 0,   0,  0,   0,   1,   water_filling,        min_norm_tput},
	[DL_ALLOC_FIFO] =
	{"fifo",                      0, 0,   1,  1,   0,   0,   solve_fifo,           total_tput},
	[DL_ALLOC_FIFO_PERF] =
	{"fifo-perf",                 0, 0,   0,  1,   0,   0,   solve_fifo,           total_tput},
	[DL_ALLOC_ISOLATED] =
	{"isolated",                  0, 0,   1,  0,   0,   0,   solve_isolated,       total_tput},
	[DL_ALLOC_GANDIVA] =
	{"gandiva",                   0, 1,   1,  0,   0,   0,   solve_gandiva,        total_tput},
};
/* clang-format on */

const struct dl_alloc_policy_info *dl_alloc_policy_info(enum dl_alloc_policy p)
{
	return (unsigned)p < DL_ALLOC_NPOLICIES ? &policies[p] : NULL;
}

int dl_alloc_policy_parse(const char *name, enum dl_alloc_policy *out)
{
	for (int i = 0; i < DL_ALLOC_NPOLICIES; i++)
		if (!strcmp(name, policies[i].name)) {
			*out = (enum dl_alloc_policy)i;
			return 0;
		}
	return -1;
}

const char *dl_alloc_policy_name(enum dl_alloc_policy p)
{
	return (unsigned)p < DL_ALLOC_NPOLICIES ? policies[p].name : "?";
}

const char *dl_alloc_policy_at(size_t i)
{
	return i < DL_ALLOC_NPOLICIES ? policies[i].name : NULL;
}

int dl_alloc_check_pack(enum dl_alloc_policy p, int pack, struct dl_err *err)
{
	const struct dl_alloc_policy_info *info = dl_alloc_policy_info(p);
	if (!pack || (info && info->packs))
		return 0;
	struct strbuf can = STRBUF_INIT;
	size_t left = 0;
	for (size_t i = 0; i < DL_ALLOC_NPOLICIES; i++)
		left += policies[i].packs;
	for (size_t i = 0; i < DL_ALLOC_NPOLICIES; i++)
		if (policies[i].packs)
			sb_addf(&can, "%s%s", policies[i].name,
				--left > 1 ? ", "
				: left	   ? " and "
					   : "");
	dl_err_set(err, DL_EXIT_USAGE, "--pack works with %s, not %s", can.buf,
		   dl_alloc_policy_name(p));
	sb_release(&can);
	return -1;
}

/* ---- driver ---- */

static double evaluate(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		       const struct dl_alloc_result *res, const char **what)
{
	double *rate = xcalloc(p->njobs + 1, sizeof(double));
	rates(p, res, rate);
	double v = dl_alloc_policy_info(o->policy)->objective(p, res, rate, what);
	free(rate);
	return v;
}

/* ---- merging identical jobs (see dl_alloc_solve in alloc.h) ---- */

static int merges(const struct dl_alloc_opts *o)
{
	const struct dl_alloc_policy_info *info = dl_alloc_policy_info(o->policy);
	if (o->per_job || !info->lp)
		return 0;
	/* fifo inside an entity treats identical jobs differently */
	return !(info->entities && o->entity_fifo);
}

/* the bytes of every field the policy's LP reads */
static void job_key(struct strbuf *sb, const struct dl_alloc_problem *p,
		    const struct dl_alloc_job *j, enum dl_alloc_policy policy, int pack)
{
	sb_reset(sb);
	if (pack) /* the class gives the pair throughputs */
		sb_add(sb, &j->klass, sizeof(j->klass));
	sb_add(sb, &j->gpus, sizeof(j->gpus));
	sb_add(sb, &j->weight, sizeof(j->weight));
	sb_add(sb, j->tput, p->ntypes * sizeof(double));
	const struct dl_alloc_policy_info *info = dl_alloc_policy_info(policy);
	if (info->entities)
		sb_add(sb, &j->entity, sizeof(j->entity));
	if (info->progress) {
		sb_add(sb, &j->steps, sizeof(j->steps));
		sb_add(sb, &j->steps_done, sizeof(j->steps_done));
		sb_add(sb, &j->iso_done, sizeof(j->iso_done));
		sb_add(sb, &j->elapsed, sizeof(j->elapsed));
		sb_add(sb, &j->slo, sizeof(j->slo));
	}
}

static int solve_one(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		     struct dl_alloc_result *res, struct dl_err *err);

/*
 * Merged packing: the pairs of classes A <= B of identical jobs (A == B only
 * with two members or more) whose model classes pass Gandiva's test, as
 * pairs of q's jobs. Each stands for every pair of their members: its LP
 * variable is their total time. 0 and q->pairs set, or -1 with *why: the
 * pair throughputs are not symmetric (then which job of a pair gets which
 * rate depends on the job order, and identical jobs are not identical), or
 * the pairs of classes outnumber `budget`.
 */
static int pairs_symmetric(const struct dl_alloc_problem *p)
{
	size_t n = p->ntypes, C = p->nclasses;
	for (size_t a = 0; a < C * C * n; a++) {
		size_t ka = a / n / C, kb = a / n % C, t = a % n;
		double self = p->pair_self[a], other = p->pair_other[(kb * C + ka) * n + t];
		if (self != other && !(isnan(self) && isnan(other)))
			return 0;
	}
	return 1;
}

static int class_pairs(const struct dl_alloc_problem *p, struct dl_alloc_problem *q, size_t budget,
		       const char **why)
{
	if (!pairs_symmetric(p)) {
		*why = "the pair throughputs are not symmetric";
		return -1;
	}
	struct dl_alloc_pair *pairs = NULL;
	size_t np = 0, ap = 0;
	for (size_t a = 0; a < q->njobs; a++)
		for (size_t b = a; b < q->njobs; b++) {
			const struct dl_alloc_job *ja = &q->jobs[a], *jb = &q->jobs[b];
			if (ja->klass < 0 || jb->klass < 0 || ja->gpus != jb->gpus ||
			    (a == b && ja->count < 2) ||
			    !(pair_score(p, (size_t)ja->klass, (size_t)jb->klass, ja->tput,
					 jb->tput) > 1))
				continue;
			if (np == budget) {
				free_pairs(pairs, np);
				*why = "the pairs of classes of identical jobs are too many";
				return -1;
			}
			DL_GROW(pairs, np + 1, ap);
			pairs[np].a = (int)a;
			pairs[np].b = (int)b;
			pair_rates(p, (size_t)ja->klass, (size_t)jb->klass, &pairs[np]);
			np++;
		}
	q->pairs = pairs;
	q->npairs = np;
	return 0;
}

struct realized {
	struct dl_alloc_pair pair;
	double *px;
};

static int cmp_realized(const void *a, const void *b)
{
	const struct realized *x = a, *y = b;
	if (x->pair.a != y->pair.a)
		return (x->pair.a > y->pair.a) - (x->pair.a < y->pair.a);
	return (x->pair.b > y->pair.b) - (x->pair.b < y->pair.b);
}

/* job i (of class pair k's side a when on_a) shares `share` of k's time with job j */
static void realize(struct realized **out, size_t *nout, size_t *aout,
		    const struct dl_alloc_result *qr, size_t k, size_t n, size_t i, size_t j,
		    int i_on_a, double share)
{
	const struct dl_alloc_pair *cp = &qr->pairs[k];
	DL_GROW(*out, *nout + 1, *aout);
	struct realized *r = &(*out)[(*nout)++];
	int swap = (i < j) != i_on_a; /* job a of the pair is not on side a */
	r->pair.a = (int)(i < j ? i : j);
	r->pair.b = (int)(i < j ? j : i);
	r->pair.tput_a = xcalloc(n, sizeof(double));
	r->pair.tput_b = xcalloc(n, sizeof(double));
	memcpy(r->pair.tput_a, swap ? cp->tput_b : cp->tput_a, n * sizeof(double));
	memcpy(r->pair.tput_b, swap ? cp->tput_a : cp->tput_b, n * sizeof(double));
	r->px = xcalloc(n, sizeof(double));
	for (size_t t = 0; t < n; t++) {
		double v = share * qr->px[k * n + t];
		r->px[t] = v > 1 ? 1 : v;
	}
}

/*
 * Spread each pair of classes' time over pairs of their jobs so that every
 * member of class A gets Y/n_A (Y/n_A twice over when A == B, being in two
 * pairs): across classes A != B, the north-west corner rule of the transport
 * problem with n_B units at each member of A and n_A at each member of B
 * (at most n_A + n_B - 1 pairs); inside a class, a cycle through its members
 * (each in two pairs, as job a in one and job b in the other; one pair when
 * n_A = 2). Each job then gets exactly its class's rates and time.
 */
static void realize_pairs(const struct dl_alloc_problem *p, const struct dl_alloc_problem *q,
			  const size_t *cls, const struct dl_alloc_result *qr,
			  struct dl_alloc_result *res)
{
	size_t m = p->njobs, n = p->ntypes, C = q->njobs;
	size_t *start = xcalloc(C + 2, sizeof(size_t)), *members = xcalloc(m + 1, sizeof(size_t));
	size_t *fill = xcalloc(C + 1, sizeof(size_t));
	for (size_t i = 0; i < m; i++)
		start[cls[i] + 1]++;
	for (size_t c = 0; c < C; c++)
		start[c + 1] += start[c];
	for (size_t i = 0; i < m; i++)
		members[start[cls[i]] + fill[cls[i]]++] = i;
	struct realized *out = NULL;
	size_t nout = 0, aout = 0;
	for (size_t k = 0; k < qr->npairs; k++) {
		int used = 0;
		for (size_t t = 0; t < n; t++)
			used |= qr->px[k * n + t] > 0;
		size_t A = (size_t)qr->pairs[k].a, B = (size_t)qr->pairs[k].b;
		const size_t *ma = members + start[A], *mb = members + start[B];
		size_t na = start[A + 1] - start[A], nb = start[B + 1] - start[B];
		if (!used)
			continue;
		if (A == B && na == 2) {
			realize(&out, &nout, &aout, qr, k, n, ma[0], ma[1], 1, 1);
		} else if (A == B) {
			for (size_t u = 0; u < na; u++)
				realize(&out, &nout, &aout, qr, k, n, ma[u], ma[(u + 1) % na], 1,
					1.0 / (double)na);
		} else {
			size_t u = 0, v = 0, left_a = nb, left_b = na;
			while (u < na && v < nb) {
				size_t w = left_a < left_b ? left_a : left_b;
				realize(&out, &nout, &aout, qr, k, n, ma[u], mb[v], 1,
					(double)w / ((double)na * (double)nb));
				left_a -= w;
				left_b -= w;
				if (!left_a) {
					u++;
					left_a = nb;
				}
				if (!left_b) {
					v++;
					left_b = na;
				}
			}
		}
	}
	if (nout)
		qsort(out, nout, sizeof(*out), cmp_realized);
	res->pairs = xcalloc(nout + 1, sizeof(*res->pairs));
	res->px = xcalloc(nout * n + 1, sizeof(double));
	res->npairs = nout;
	for (size_t r = 0; r < nout; r++) {
		res->pairs[r] = out[r].pair;
		memcpy(res->px + r * n, out[r].px, n * sizeof(double));
		free(out[r].px);
	}
	free(out);
	free(start);
	free(members);
	free(fill);
}

/* 1 = solved merged (res filled), 0 = solve per job, -1 = error */
static int solve_merged(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			struct dl_alloc_result *res, struct dl_err *err)
{
	size_t m = p->njobs, n = p->ntypes;
	struct strmap classes = STRMAP_INIT;
	struct strbuf key = STRBUF_INIT;
	size_t *cls = xcalloc(m + 1, sizeof(size_t));
	struct dl_alloc_problem q = *p;
	q.jobs = xcalloc(m + 1, sizeof(*q.jobs));
	q.njobs = 0;
	q.pairs = NULL;
	q.npairs = 0;
	for (size_t i = 0; i < m; i++) {
		job_key(&key, p, &p->jobs[i], o->policy, o->pack);
		int64_t *k = strmap_getn(&classes, key.buf, key.len);
		if (k) {
			cls[i] = (size_t)*k;
			q.jobs[cls[i]].count += p->jobs[i].count;
			continue;
		}
		cls[i] = q.njobs;
		strmap_putn(&classes, key.buf, key.len, (int64_t)q.njobs);
		q.jobs[q.njobs++] = p->jobs[i];
	}
	/* packed, the LP stands for every pair of jobs: worth it even with nothing merged */
	int pack = o->pack && p->pair_self && p->nclasses;
	const char *why = NULL;
	if (pack && class_pairs(p, &q, alloc_pair_budget(p->npairs, m), &why))
		snprintf(res->note, sizeof(res->note), "%s: packing with %zu candidate pairs", why,
			 p->npairs);
	int rc = 0;
	if (!why && (q.njobs < m || pack)) {
		struct dl_alloc_opts qo = *o;
		struct dl_alloc_result qr = {0};
		qo.per_job = 1;
		qr.lp_objective = NAN;
		rc = solve_one(&q, &qo, &qr, err) ? -1 : 1;
		if (rc > 0) {
			res->x = xcalloc(m * n + 1, sizeof(double));
			for (size_t i = 0; i < m; i++)
				memcpy(res->x + i * n, qr.x + cls[i] * n, n * sizeof(double));
			if (pack)
				realize_pairs(p, &q, cls, &qr, res);
			res->lp_objective = qr.lp_objective;
			res->lp_solves = qr.lp_solves;
			res->lp_seconds = qr.lp_seconds;
			res->lp_rows = qr.lp_rows;
			res->lp_cols = qr.lp_cols;
			res->merged = q.njobs;
			res->merged_pairs = q.npairs;
			memcpy(res->note, qr.note, sizeof(res->note));
		}
		dl_alloc_result_free(&qr);
	}
	strmap_free(&classes);
	sb_release(&key);
	free(cls);
	free(q.jobs);
	free_pairs(q.pairs, q.npairs);
	return rc;
}

static int solve_one(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		     struct dl_alloc_result *res, struct dl_err *err)
{
	size_t n = p->ntypes;
	if (merges(o)) {
		int rc = solve_merged(p, o, res, err);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
	res->x = xcalloc(p->njobs * n + 1, sizeof(double));
	if (o->pack && dl_alloc_policy_info(o->policy)->lp) {
		/* the result keeps its own copy of the candidate pairs */
		res->npairs = p->npairs;
		res->pairs = xcalloc(p->npairs + 1, sizeof(*res->pairs));
		for (size_t k = 0; k < p->npairs; k++) {
			res->pairs[k] = p->pairs[k];
			res->pairs[k].tput_a = xcalloc(n, sizeof(double));
			res->pairs[k].tput_b = xcalloc(n, sizeof(double));
			memcpy(res->pairs[k].tput_a, p->pairs[k].tput_a, n * sizeof(double));
			memcpy(res->pairs[k].tput_b, p->pairs[k].tput_b, n * sizeof(double));
		}
		res->px = xcalloc(p->npairs * n + 1, sizeof(double));
	}
	return dl_alloc_policy_info(o->policy)->solve(p, o, res, err);
}

/* POP: K random groups of jobs, each with N_j / K GPUs of every type */
static int solve_partitioned(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
			     struct dl_alloc_result *res, struct dl_err *err)
{
	size_t m = p->njobs, n = p->ntypes, K = (size_t)o->partitions;
	if (K > m)
		K = m;
	size_t *order = xcalloc(m + 1, sizeof(size_t)), *part = xcalloc(m + 1, sizeof(size_t));
	size_t *local = xcalloc(m + 1, sizeof(size_t));
	struct dl_rng r;
	dl_rng_seed_stream(&r, o->seed, RNG_PARTITIONS);
	for (size_t i = 0; i < m; i++)
		order[i] = i;
	shuffle(order, m, &r);
	for (size_t u = 0; u < m; u++)
		part[order[u]] = u % K;
	res->x = xcalloc(m * n + 1, sizeof(double));
	int rc = 0;
	struct strbuf path = STRBUF_INIT;
	for (size_t g = 0; g < K && !rc; g++) {
		struct dl_alloc_problem sub = *p;
		sub.jobs = xcalloc(m + 1, sizeof(*sub.jobs));
		sub.njobs = 0;
		for (size_t i = 0; i < m; i++)
			if (part[i] == g) {
				local[i] = sub.njobs;
				sub.jobs[sub.njobs++] = p->jobs[i];
			}
		sub.capacity = xcalloc(n + 1, sizeof(double));
		for (size_t t = 0; t < n; t++)
			sub.capacity[t] = p->capacity[t] / (double)K;
		sub.pairs = xcalloc(p->npairs + 1, sizeof(*sub.pairs));
		sub.npairs = 0;
		for (size_t k = 0; k < p->npairs; k++) {
			size_t a = (size_t)p->pairs[k].a, b = (size_t)p->pairs[k].b;
			if (part[a] == g && part[b] == g) {
				sub.pairs[sub.npairs] = p->pairs[k];
				sub.pairs[sub.npairs].a = (int)local[a];
				sub.pairs[sub.npairs].b = (int)local[b];
				sub.npairs++;
			}
		}
		struct dl_alloc_opts so = *o;
		so.partitions = 1;
		if (o->dump_model) {
			sb_reset(&path);
			sb_addf(&path, "%s.%zu", o->dump_model, g + 1);
			so.dump_model = path.buf;
		}
		struct dl_alloc_result sr = {0};
		rc = solve_one(&sub, &so, &sr, err);
		if (rc)
			dl_err_prefix(err, "partition %zu of %zu", g + 1, K);
		size_t *global = xcalloc(sub.njobs + 1, sizeof(size_t));
		for (size_t i = 0, u = 0; i < m; i++)
			if (part[i] == g)
				global[u++] = i;
		for (size_t u = 0; !rc && u < sub.njobs; u++)
			memcpy(res->x + global[u] * n, sr.x + u * n, n * sizeof(double));
		if (!rc && sr.npairs) {
			res->pairs = xreallocarray(res->pairs, res->npairs + sr.npairs,
						   sizeof(*res->pairs));
			res->px = xreallocarray(res->px, (res->npairs + sr.npairs) * n,
						sizeof(double));
			for (size_t k = 0; k < sr.npairs; k++) {
				struct dl_alloc_pair *d = &res->pairs[res->npairs + k];
				*d = sr.pairs[k];
				d->a = (int)global[sr.pairs[k].a];
				d->b = (int)global[sr.pairs[k].b];
				sr.pairs[k].tput_a = sr.pairs[k].tput_b = NULL;
			}
			memcpy(res->px + res->npairs * n, sr.px, sr.npairs * n * sizeof(double));
			res->npairs += sr.npairs;
		}
		res->lp_solves += sr.lp_solves;
		res->lp_seconds += sr.lp_seconds;
		res->merged_pairs += sr.merged_pairs;
		if (g == 0) {
			res->lp_rows = sr.lp_rows;
			res->lp_cols = sr.lp_cols;
		}
		res->lp_objective = sr.lp_objective;
		if (sr.note[0] && !res->note[0])
			snprintf(res->note, sizeof(res->note), "partition %zu: %.200s", g + 1,
				 sr.note);
		free(global);
		dl_alloc_result_free(&sr);
		free(sub.jobs);
		free(sub.capacity);
		free(sub.pairs);
	}
	sb_release(&path);
	free(order);
	free(part);
	free(local);
	return rc;
}

int dl_alloc_solve(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		   struct dl_alloc_result *res, struct dl_err *err)
{
	memset(res, 0, sizeof(*res));
	res->lp_objective = NAN;
	size_t n = p->ntypes;
	for (size_t i = 0; i < p->njobs; i++) {
		int runs = 0;
		for (size_t t = 0; t < n; t++)
			runs |= p->jobs[i].tput[t] > 0 && p->capacity[t] > 0;
		if (!runs)
			return dl_err_set(err, DL_EXIT_NOSOL,
					  "no solution: job '%s' has no throughput on any GPU "
					  "type of the cluster",
					  p->jobs[i].id);
	}
	if (!p->njobs) {
		res->objective_name = "no jobs";
		return 0;
	}
	if (!dl_alloc_policy_info(o->policy))
		return dl_err_set(err, DL_EXIT_USAGE, "unknown policy");
	int rc = o->partitions > 1 && p->njobs > 1 ? solve_partitioned(p, o, res, err)
						   : solve_one(p, o, res, err);
	if (rc) {
		dl_alloc_result_free(res);
		res->lp_objective = NAN;
		return -1;
	}
	res->objective = evaluate(p, o, res, &res->objective_name);
	return 0;
}

/* ---- for the re-solve session (alloc_int.h) ---- */

size_t alloc_pair_budget(size_t candidates, size_t m)
{
	size_t b = 4 * m > DL_ALLOC_PAIR_CLASSES_MIN ? 4 * m : DL_ALLOC_PAIR_CLASSES_MIN;
	return candidates > b ? candidates : b;
}

int alloc_merges(const struct dl_alloc_opts *o)
{
	return merges(o);
}

void alloc_job_key(struct strbuf *sb, const struct dl_alloc_problem *p,
		   const struct dl_alloc_job *j, enum dl_alloc_policy policy, int pack)
{
	job_key(sb, p, j, policy, pack);
}

double alloc_pair_score(const struct dl_alloc_problem *p, size_t ca, size_t cb, const double *ta,
			const double *tb)
{
	return pair_score(p, ca, cb, ta, tb);
}

void alloc_pair_rates(const struct dl_alloc_problem *p, size_t ca, size_t cb,
		      struct dl_alloc_pair *pr)
{
	pair_rates(p, ca, cb, pr);
}

int alloc_pairs_symmetric(const struct dl_alloc_problem *p)
{
	return pairs_symmetric(p);
}

void alloc_realize_pairs(const struct dl_alloc_problem *p, const struct dl_alloc_problem *q,
			 const size_t *cls, const struct dl_alloc_result *qr,
			 struct dl_alloc_result *res)
{
	realize_pairs(p, q, cls, qr, res);
}

double alloc_evaluate(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		      const struct dl_alloc_result *res, const char **what)
{
	return evaluate(p, o, res, what);
}

double alloc_clip(double v, double ub)
{
	return clip(v, ub);
}

void alloc_free_pairs(struct dl_alloc_pair *pairs, size_t n)
{
	free_pairs(pairs, n);
}
