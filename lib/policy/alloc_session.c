/*
 * alloc_session.c: an allocation re-solved as jobs arrive, progress and leave
 * (see alloc.h, "Re-solve sessions").
 *
 * The LP of a warm session is the merged LP of dl_alloc_solve kept alive
 * between solves: one set of rows (time, and the policy's row) and columns
 * (x per GPU type) per class of identical jobs, plus the capacity rows, one
 * column shared by all classes (the level t of max-min fairness, z of
 * min-makespan, lambda of finish-time fairness) and, packed, one column per
 * pair of classes and type. A class whose count changes gets its columns
 * rewritten (dl_lp_set_col keeps the basis); a new class takes rows and
 * columns that an emptied class gave back, or appends new ones (new rows are
 * basic, new columns at 0), so the LP never grows beyond the most classes
 * alive at once and every solve starts from the last basis.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"
#include "policy/alloc.h"
#include "policy/alloc_int.h"

/* indices given back for reuse, last in first out */
struct freelist {
	size_t *v;
	size_t n, alloc;
};

static void give_back(struct freelist *f, size_t k)
{
	DL_GROW(f->v, f->n + 1, f->alloc);
	f->v[f->n++] = k;
}

/* an index given back, else *next (which then grows by one) */
static size_t take_back(struct freelist *f, size_t *next)
{
	return f->n ? f->v[--f->n] : (*next)++;
}

/* a job of the session, beside its entry in the view problem */
struct sjob {
	int64_t handle;
	size_t cls;	/* its class (warm sessions) */
	double slo_end; /* its elapsed time at the deadline; 0: no SLO */
	/* finish-time fairness: remaining steps and isolated throughput at the last solve */
	double r_last, iso_last;
	int seen;
	int gone; /* removed: a hole in the view until it is compacted */
};

struct sclass {
	struct dl_alloc_job rep; /* the LP's data: a member's fields, rep.count members */
	int used;		 /* holds a class (else on the free list) */
	int live;		 /* has rows and columns in the LP */
	int dirty;		 /* count changed since its columns were written */
	int bounds_dirty;	 /* progress changed since its rows' bounds were written */
	char *key;		 /* its key (merged), to retire it from the map */
	size_t keylen;
	int *xcol;	/* [ntypes] x columns, 0 where the class cannot run */
	int trow, prow; /* time row, policy row */
	size_t *pair;	/* its pair records */
	size_t npair, apair;
	/* scratch of one solve */
	size_t q;	   /* index in the merged problem (order of first member) */
	double rate;	   /* steps/s under the LP's solution */
	double iso, D, tD; /* finish-time fairness: iso_i, D_i, elapsed / D_i */
};

struct spair {
	size_t a, b;		/* classes */
	int *col;		/* [ntypes] */
	struct dl_alloc_pair r; /* rates of a (tput_a) and b (tput_b) */
	int used;
	long stamp; /* the solve that last wrote it */
};

struct dl_alloc_session {
	struct dl_alloc_problem p; /* the view: active jobs in the order added */
	struct sjob *sj;
	size_t asj;
	int64_t *handles; /* [view] sj's handles alone: find()'s search reads a line for many */
	size_t ahandles;
	/*
	 * removed jobs left in the view (sj[i].gone, their id and throughputs
	 * freed): compact() takes them out before anyone reads the view by
	 * index, so a removal costs no move of the jobs after it
	 */
	size_t holes;
	int64_t next_handle;
	struct dl_alloc_opts o;
	struct dl_lp_opts lp_opts; /* o.lp, dual, without the presolver (it would drop the basis) */
	int warm;		   /* LP kept between solves (else dl_alloc_solve each time) */
	int per_job;		   /* a class per job */
	int pack;		   /* pairs of classes in the LP */
	int agnostic;		   /* max-min-fairness: time, not steps (its row in alloc.c) */
	struct strmap keys;	   /* job key -> class (merged); -1 once the class is gone */
	struct strbuf key;
	struct sclass *cls;
	size_t ncls, acls;
	struct spair *pairs;
	size_t npairs, apairs;
	/* given back: class and pair records, columns, rows (two a class: time, policy) */
	struct freelist free_cls, free_pairs, free_cols, free_rows;
	/*
	 * The LPs, all of one shape: one, or for finish-time fairness two with
	 * different objectives (lambda's, and the final one), so each starts
	 * from its own last basis; sol is the one the allocation is read from.
	 */
	struct dl_lp *lp[2], *sol;
	int nlp;
	int *cap_row; /* [ntypes], 0 where no GPUs */
	int gcol;     /* the shared column, 0 = none */
	int g_dirty;  /* the set of policy rows changed */
	double rho;   /* finish-time fairness: the last optimum, where the next search starts */
	long solve_no;
	int skip_objective; /* dl_alloc_session_skip_objective */
	int by_class;	    /* dl_alloc_session_by_class: warm solves leave res->x NULL */
	double *cx;	    /* scratch of take(): X of each class */
	size_t acx;
	int *ind; /* scratch for dl_lp_set_col */
	double *val;
	size_t aind;
	struct dl_alloc_session_stats st;
};

/* ---- the LP's pools of rows and columns ---- */

/* changes of the model, made in each LP */
static int model_add_col(struct dl_alloc_session *s, double lb, double ub, double obj)
{
	int col = 0;
	for (int k = 0; k < s->nlp; k++)
		col = dl_lp_add_col(s->lp[k], NULL, lb, ub, obj);
	return col;
}

static int model_add_row(struct dl_alloc_session *s, double lb, double ub)
{
	int row = 0;
	for (int k = 0; k < s->nlp; k++)
		row = dl_lp_add_row(s->lp[k], NULL, lb, ub);
	return row;
}

static void model_col_bounds(struct dl_alloc_session *s, int col, double lb, double ub)
{
	for (int k = 0; k < s->nlp; k++)
		dl_lp_set_col_bounds(s->lp[k], col, lb, ub);
}

static void model_row_bounds(struct dl_alloc_session *s, int row, double lb, double ub)
{
	for (int k = 0; k < s->nlp; k++)
		dl_lp_set_row_bounds(s->lp[k], row, lb, ub);
}

static void model_obj(struct dl_alloc_session *s, int col, double v)
{
	for (int k = 0; k < s->nlp; k++)
		dl_lp_set_obj(s->lp[k], col, v);
}

static int take_col(struct dl_alloc_session *s)
{
	if (s->free_cols.n)
		return (int)s->free_cols.v[--s->free_cols.n];
	return model_add_col(s, 0, 0, 0);
}

/*
 * An unused column is fixed at 0. It keeps its entries: emptying a basic
 * column would make the basis singular (a cold start, see dl_lp_set_col).
 */
static void give_col(struct dl_alloc_session *s, int col)
{
	model_col_bounds(s, col, 0, 0);
	model_obj(s, col, 0);
	give_back(&s->free_cols, (size_t)col);
}

static void take_rows(struct dl_alloc_session *s, int *trow, int *prow)
{
	if (s->free_rows.n) {
		*prow = (int)s->free_rows.v[--s->free_rows.n];
		*trow = (int)s->free_rows.v[--s->free_rows.n];
		return;
	}
	*trow = model_add_row(s, -DL_LP_INF, DL_LP_INF);
	*prow = model_add_row(s, -DL_LP_INF, DL_LP_INF);
}

/* unused rows are free (their columns are all given back) */
static void give_rows(struct dl_alloc_session *s, int trow, int prow)
{
	model_row_bounds(s, trow, -DL_LP_INF, DL_LP_INF);
	model_row_bounds(s, prow, -DL_LP_INF, DL_LP_INF);
	give_back(&s->free_rows, (size_t)trow);
	give_back(&s->free_rows, (size_t)prow);
}

static void col_put(struct dl_alloc_session *s, size_t *n, int row, double v)
{
	if (*n + 1 > s->aind) { /* (val as long as ind: one realloc each as they grow) */
		DL_GROW(s->ind, *n + 1, s->aind);
		s->val = xreallocarray(s->val, s->aind, sizeof(*s->val));
	}
	s->ind[*n] = row;
	s->val[(*n)++] = v;
}

/* in every LP, or in one (lp != NULL) */
static void col_write(struct dl_alloc_session *s, struct dl_lp *lp, int col, size_t n)
{
	for (int k = 0; k < s->nlp; k++)
		if (!lp || lp == s->lp[k])
			dl_lp_set_col(s->lp[k], col, (int)n, s->ind, s->val);
}

/* ---- classes ---- */

/* s_i / (w_i prop_i): the weight of a class's steps/s in max-min fairness */
static double fair_k(const struct dl_alloc_session *s, const struct dl_alloc_job *j)
{
	double prop = s->agnostic ? 1 : alloc_prop_of(&s->p, j->tput);
	return j->gpus / (j->weight * prop);
}

static double type_divisor(const struct dl_alloc_session *s, size_t t)
{
	return s->o.policy == DL_ALLOC_MIN_COST ? s->p.cost[t] : 1;
}

static void kill_pair(struct dl_alloc_session *s, size_t k, size_t from)
{
	struct spair *pr = &s->pairs[k];
	for (size_t t = 0; t < s->p.ntypes; t++)
		if (pr->col[t])
			give_col(s, pr->col[t]);
	/* out of the other class's list */
	struct sclass *o = &s->cls[pr->a == from ? pr->b : pr->a];
	for (size_t q = 0; o != &s->cls[from] && q < o->npair; q++)
		if (o->pair[q] == k) {
			memmove(o->pair + q, o->pair + q + 1, (o->npair - q - 1) * sizeof(size_t));
			o->npair--;
			break;
		}
	free(pr->col);
	free(pr->r.tput_a);
	free(pr->r.tput_b);
	memset(pr, 0, sizeof(*pr));
	give_back(&s->free_pairs, k);
}

static void kill_class(struct dl_alloc_session *s, size_t c)
{
	struct sclass *k = &s->cls[c];
	if (k->live) {
		for (size_t t = 0; t < s->p.ntypes; t++)
			if (k->xcol[t])
				give_col(s, k->xcol[t]);
		give_rows(s, k->trow, k->prow);
		while (k->npair)
			kill_pair(s, k->pair[--k->npair], c);
		s->g_dirty = 1;
	}
	if (k->key)
		strmap_putn(&s->keys, k->key, k->keylen, -1);
	free(k->key);
	free(k->xcol);
	free(k->pair);
	free(k->rep.tput);
	memset(k, 0, sizeof(*k));
	give_back(&s->free_cls, c);
}

static void add_pair(struct dl_alloc_session *s, size_t a, size_t b)
{
	size_t k = take_back(&s->free_pairs, &s->npairs);
	DL_GROW(s->pairs, s->npairs, s->apairs);
	struct spair *pr = &s->pairs[k];
	const struct dl_alloc_job *ja = &s->cls[a].rep, *jb = &s->cls[b].rep;
	memset(pr, 0, sizeof(*pr));
	pr->used = 1;
	pr->a = a;
	pr->b = b;
	pr->stamp = -1;
	alloc_pair_rates(&s->p, (size_t)ja->klass, (size_t)jb->klass, &pr->r);
	pr->col = xcalloc(s->p.ntypes + 1, sizeof(int));
	for (size_t t = 0; t < s->p.ntypes; t++)
		if ((pr->r.tput_a[t] > 0 || pr->r.tput_b[t] > 0) && s->p.capacity[t] > 0)
			pr->col[t] = take_col(s);
	for (size_t side = 0; side < 2 - (a == b); side++) {
		struct sclass *c = &s->cls[side ? b : a];
		DL_GROW(c->pair, c->npair + 1, c->apair);
		c->pair[c->npair++] = k;
	}
}

/* rows and columns for a class that has none; pairs with the live classes */
static void birth(struct dl_alloc_session *s, size_t c)
{
	struct sclass *k = &s->cls[c];
	size_t n = s->p.ntypes;
	k->xcol = xcalloc(n + 1, sizeof(int));
	for (size_t t = 0; t < n; t++)
		if (k->rep.tput[t] > 0 && s->p.capacity[t] > 0)
			k->xcol[t] = take_col(s);
	take_rows(s, &k->trow, &k->prow);
	k->live = 1;
	s->g_dirty = 1;
	if (!s->pack || k->rep.klass < 0)
		return;
	/* every live class, itself included (born earlier or in this solve, before c) */
	for (size_t d = 0; d < s->ncls; d++) {
		const struct sclass *o = &s->cls[d];
		if (!o->used || !o->live || o->rep.klass < 0 || o->rep.gpus != k->rep.gpus)
			continue;
		/* Gandiva's test, as dl_alloc_solve's pairs of classes (a <= b) */
		size_t a = d < c ? d : c, b = d < c ? c : d;
		const struct dl_alloc_job *ja = &s->cls[a].rep, *jb = &s->cls[b].rep;
		if (alloc_pair_score(&s->p, (size_t)ja->klass, (size_t)jb->klass, ja->tput,
				     jb->tput) > 1)
			add_pair(s, a, b);
	}
}

/* the policy row's bounds for a class */
static void policy_row_bounds(struct dl_alloc_session *s, const struct sclass *k)
{
	const struct dl_alloc_job *j = &k->rep;
	double lb = -DL_LP_INF, ub = DL_LP_INF;
	switch (s->o.policy) {
	case DL_ALLOC_MAX_MIN_FAIRNESS:
	case DL_ALLOC_MAX_MIN_FAIRNESS_PERF:
		ub = 0;
		break;
	case DL_ALLOC_MIN_COST:
		if (j->slo > 0 && j->steps > 0)
			lb = j->steps / j->slo;
		break;
	case DL_ALLOC_MIN_MAKESPAN:
	case DL_ALLOC_FINISH_TIME_FAIRNESS:
		if (j->steps > 0)
			lb = 0;
		break;
	default:
		break;
	}
	model_row_bounds(s, k->prow, lb, ub);
}

/* a class's x columns and rows, for its count and data */
static void write_class(struct dl_alloc_session *s, size_t c)
{
	struct sclass *k = &s->cls[c];
	const struct dl_alloc_job *j = &k->rep;
	enum dl_alloc_policy pol = s->o.policy;
	int fair = pol == DL_ALLOC_MAX_MIN_FAIRNESS || pol == DL_ALLOC_MAX_MIN_FAIRNESS_PERF;
	int sum = pol == DL_ALLOC_MAX_THROUGHPUT || pol == DL_ALLOC_MIN_COST;
	double kf = fair ? fair_k(s, j) : 0;
	size_t len;
	for (size_t t = 0; t < s->p.ntypes; t++) {
		if (!k->xcol[t])
			continue;
		len = 0;
		col_put(s, &len, k->trow, 1);
		col_put(s, &len, s->cap_row[t], j->gpus * j->count);
		if (fair)
			col_put(s, &len, k->prow, -kf * (s->agnostic ? 1 : j->tput[t]));
		else if (!sum || pol == DL_ALLOC_MIN_COST)
			col_put(s, &len, k->prow, j->tput[t]);
		col_write(s, NULL, k->xcol[t], len);
		model_col_bounds(s, k->xcol[t], 0, 1);
		model_obj(s, k->xcol[t], sum ? j->count * j->tput[t] / type_divisor(s, t) : 0);
	}
	model_row_bounds(s, k->trow, -DL_LP_INF, 1);
	policy_row_bounds(s, k);
}

/* a pair of classes' columns: their time counts 1/n against each member's time */
static void write_pair(struct dl_alloc_session *s, size_t q)
{
	struct spair *pr = &s->pairs[q];
	if (pr->stamp == s->solve_no)
		return;
	pr->stamp = s->solve_no;
	const struct sclass *A = &s->cls[pr->a], *B = &s->cls[pr->b];
	double na = A->rep.count, nb = B->rep.count;
	int fair = s->o.policy == DL_ALLOC_MAX_MIN_FAIRNESS_PERF;
	double ka = fair ? fair_k(s, &A->rep) : 0, kb = fair ? fair_k(s, &B->rep) : 0;
	double bound = pr->a == pr->b ? na * (na - 1) / 2 : na * nb;
	int self = pr->a == pr->b;
	size_t len;
	for (size_t t = 0; t < s->p.ntypes; t++) {
		int col = pr->col[t];
		if (!col)
			continue;
		len = 0;
		/* a pair inside one class counts twice against its members' time and rate */
		col_put(s, &len, A->trow, (self ? 2 : 1) / na);
		if (!self)
			col_put(s, &len, B->trow, 1 / nb);
		col_put(s, &len, s->cap_row[t], A->rep.gpus);
		if (fair && pr->r.tput_a[t] > 0)
			col_put(s, &len, A->prow, -ka * (self ? 2 : 1) * pr->r.tput_a[t] / na);
		if (fair && !self && pr->r.tput_b[t] > 0)
			col_put(s, &len, B->prow, -kb * pr->r.tput_b[t] / nb);
		col_write(s, NULL, col, len);
		model_col_bounds(s, col, 0, bound);
		model_obj(s, col,
			  s->o.policy == DL_ALLOC_MAX_THROUGHPUT ? pr->r.tput_a[t] + pr->r.tput_b[t]
								 : 0);
	}
}

/* the shared column's entries: 1 in every fair row (max-min fairness) */
static void write_level_col(struct dl_alloc_session *s)
{
	size_t len = 0;
	for (size_t c = 0; c < s->ncls; c++)
		if (s->cls[c].used && s->cls[c].live)
			col_put(s, &len, s->cls[c].prow, 1);
	col_write(s, NULL, s->gcol, len);
}

/* bring the LP up to date with the classes */
static void sync_lp(struct dl_alloc_session *s)
{
	s->solve_no++;
	for (size_t c = 0; c < s->ncls; c++)
		if (s->cls[c].used && s->cls[c].dirty && !s->cls[c].rep.count)
			kill_class(s, c);
	for (size_t c = 0; c < s->ncls; c++)
		if (s->cls[c].used && !s->cls[c].live)
			birth(s, c);
	for (size_t c = 0; c < s->ncls; c++) {
		struct sclass *k = &s->cls[c];
		if (k->used && k->dirty) {
			write_class(s, c);
			for (size_t q = 0; q < k->npair; q++)
				write_pair(s, k->pair[q]);
		} else if (k->used && k->bounds_dirty) {
			policy_row_bounds(s, k);
		}
		k->dirty = k->bounds_dirty = 0;
	}
	if (s->g_dirty && s->gcol && s->o.policy != DL_ALLOC_FINISH_TIME_FAIRNESS &&
	    s->o.policy != DL_ALLOC_MIN_MAKESPAN)
		write_level_col(s);
	s->g_dirty = 0;
}

/* ---- creating, adding, removing ---- */

struct dl_alloc_session *dl_alloc_session_new(const struct dl_alloc_problem *p,
					      const struct dl_alloc_opts *o, struct dl_err *err)
{
	enum dl_alloc_policy pol = o->policy;
	const struct dl_alloc_policy_info *info = dl_alloc_policy_info(pol);
	if (!info)
		return dl_err_set(err, DL_EXIT_USAGE, "unknown policy"), NULL;
	if (dl_alloc_check_pack(pol, o->pack, err) < 0)
		return NULL;
	if (pol == DL_ALLOC_MIN_COST)
		for (size_t t = 0; t < p->ntypes; t++)
			if (p->capacity[t] > 0 && !(p->cost[t] > 0))
				return dl_err_set(err, DL_EXIT_USAGE,
						  "min-cost needs the price of GPU type '%s' "
						  "(give --costs TYPE=DOLLARS,...)",
						  p->type_names[t]),
				       NULL;
	struct dl_alloc_session *s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->o.dump_model = NULL;
	s->lp_opts = o->lp;
	s->lp_opts.presolve = 0;
	/*
	 * Measured on Gavel's continuous trace (tests/bench/alloc_replay.c): the
	 * dual simplex takes 20% less CPU than the primal on the merged LPs, the
	 * primal half the dual's on finish-time fairness and two thirds on
	 * min-cost.
	 */
	s->lp_opts.dual = !info->progress;
	dl_alloc_problem_copy(&s->p, p, 0);
	int has_pairs = s->p.pair_self && s->p.nclasses;
	/* (gandiva packs by its own rule, without LP pair columns) */
	s->pack = o->pack && has_pairs && info->lp;
	/* a policy that reads a job's progress: a class per job, changed in place */
	s->per_job = o->per_job || info->progress;
	/* the LP policies, water-filling's rounds aside */
	s->warm = info->lp && pol != DL_ALLOC_WATER_FILLING && o->partitions <= 1 &&
		  !(s->pack && (s->per_job || !alloc_pairs_symmetric(&s->p)));
	s->agnostic = info->agnostic; /* (read by the max-min fairness rows only) */
	s->rho = NAN;
	if (s->warm) {
		s->nlp = pol == DL_ALLOC_FINISH_TIME_FAIRNESS ? 2 : 1;
		for (int k = 0; k < s->nlp; k++)
			s->lp[k] = dl_lp_new("allocate", DL_LP_MAX);
		s->sol = s->lp[s->nlp - 1];
		s->cap_row = xcalloc(p->ntypes + 1, sizeof(int));
		for (size_t t = 0; t < p->ntypes; t++)
			if (p->capacity[t] > 0)
				s->cap_row[t] = model_add_row(s, -DL_LP_INF, p->capacity[t]);
		if (pol != DL_ALLOC_MAX_THROUGHPUT && pol != DL_ALLOC_MIN_COST)
			s->gcol = model_add_col(s, 0, DL_LP_INF, 1);
		if (s->nlp == 2) { /* the final LP: lambda fixed at 1, out of the objective */
			dl_lp_set_col_bounds(s->sol, s->gcol, 1, 1);
			dl_lp_set_obj(s->sol, s->gcol, 0);
		}
	}
	for (size_t i = 0; i < p->njobs; i++)
		if (dl_alloc_session_add(s, &p->jobs[i], err) < 0) {
			dl_alloc_session_free(s);
			return NULL;
		}
	return s;
}

static int bad_number(double v, double max)
{
	return !(v >= 0) || v > max;
}

int64_t dl_alloc_session_add(struct dl_alloc_session *s, const struct dl_alloc_job *j,
			     struct dl_err *err)
{
	const char *id = j->id ? j->id : "";
	size_t n = s->p.ntypes;
	int runs = 0;
	if (j->gpus < 1)
		return dl_err_set(err, DL_EXIT_DATA, "job '%s': bad gpus %d", id, j->gpus);
	if (!(j->weight > 0) || j->weight > 1e12)
		return dl_err_set(err, DL_EXIT_DATA, "job '%s': bad weight %g", id, j->weight);
	if (bad_number(j->steps, 1e15) || bad_number(j->steps_done, 1e15) ||
	    bad_number(j->elapsed, 1e12) || !(j->slo <= 1e12))
		return dl_err_set(err, DL_EXIT_DATA, "job '%s': bad progress", id);
	for (size_t t = 0; t < n; t++) {
		if (bad_number(j->tput[t], 1e12))
			return dl_err_set(err, DL_EXIT_DATA, "job '%s': bad throughput on '%s'", id,
					  s->p.type_names[t]);
		runs |= j->tput[t] > 0 && s->p.capacity[t] > 0;
	}
	if (!runs)
		return dl_err_set(err, DL_EXIT_NOSOL,
				  "no solution: job '%s' has no throughput on any GPU type of the "
				  "cluster",
				  id);
	if (j->klass >= (int)s->p.nclasses ||
	    (j->entity >= 0 && (size_t)j->entity >= s->p.nentities))
		return dl_err_set(err, DL_EXIT_DATA, "job '%s': unknown class or entity", id);
	size_t i = dl_alloc_problem_add_job(&s->p, id, j->gpus, j->tput);
	struct dl_alloc_job *v = &s->p.jobs[i];
	v->weight = j->weight;
	v->steps = j->steps;
	v->steps_done = j->steps_done;
	v->elapsed = j->elapsed;
	v->slo = j->slo > 0 ? j->slo : 0;
	v->entity = j->entity;
	v->klass = j->klass;
	v->iso_done = s->o.policy == DL_ALLOC_FINISH_TIME_FAIRNESS ? j->iso_done : -1;
	DL_GROW(s->sj, s->p.njobs, s->asj);
	DL_GROW(s->handles, s->p.njobs, s->ahandles);
	s->handles[i] = s->next_handle;
	struct sjob *sj = &s->sj[i];
	memset(sj, 0, sizeof(*sj));
	sj->handle = s->next_handle++;
	sj->slo_end = v->slo > 0 ? v->elapsed + v->slo : 0;
	s->st.adds++;
	if (!s->warm)
		return sj->handle;
	/* its class: an existing one of identical jobs (merged), else a new one */
	int64_t *k = NULL;
	if (!s->per_job) {
		alloc_job_key(&s->key, &s->p, v, s->o.policy, s->pack);
		k = strmap_getn(&s->keys, s->key.buf, s->key.len);
		if (k && *k >= 0) {
			sj->cls = (size_t)*k;
			s->cls[sj->cls].rep.count++;
			s->cls[sj->cls].dirty = 1;
			return sj->handle;
		}
	}
	size_t c = take_back(&s->free_cls, &s->ncls);
	DL_GROW(s->cls, s->ncls, s->acls);
	struct sclass *cl = &s->cls[c];
	memset(cl, 0, sizeof(*cl));
	cl->used = 1;
	cl->dirty = 1;
	cl->rep = *v;
	cl->rep.id = NULL;
	cl->rep.tput = xcalloc(n + 1, sizeof(double));
	memcpy(cl->rep.tput, v->tput, n * sizeof(double));
	cl->rep.count = 1;
	if (!s->per_job) {
		strmap_putn(&s->keys, s->key.buf, s->key.len, (int64_t)c);
		cl->key = xmalloc(s->key.len + 1);
		memcpy(cl->key, s->key.buf, s->key.len);
		cl->keylen = s->key.len;
	}
	sj->cls = c;
	return sj->handle;
}

/* the view's index of a handle (holes and all), or -1 (unknown, or removed) */
static long find(const struct dl_alloc_session *s, int64_t h)
{
	size_t lo = 0, hi = s->p.njobs;
	if (hi && s->handles[hi - 1] <= h) /* the last added (a job's class, asked at once) */
		lo = hi - 1;
	while (lo < hi) { /* (handles ascend in the view, holes included) */
		size_t mid = lo + (hi - lo) / 2;
		if (s->handles[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->p.njobs && s->sj[lo].handle == h && !s->sj[lo].gone ? (long)lo : -1;
}

/* the view without its holes: the active jobs in the order added */
static void compact(struct dl_alloc_session *s)
{
	if (!s->holes)
		return;
	size_t m = 0;
	for (size_t i = 0; i < s->p.njobs; i++) {
		if (s->sj[i].gone)
			continue;
		s->p.jobs[m] = s->p.jobs[i];
		s->handles[m] = s->handles[i];
		s->sj[m++] = s->sj[i];
	}
	s->p.njobs = m;
	s->holes = 0;
}

long dl_alloc_session_index(struct dl_alloc_session *s, int64_t h)
{
	compact(s);
	return find(s, h);
}

int64_t dl_alloc_session_handle(struct dl_alloc_session *s, size_t i)
{
	compact(s);
	return i < s->p.njobs ? s->sj[i].handle : -1;
}

int dl_alloc_session_remove(struct dl_alloc_session *s, int64_t h)
{
	long at = find(s, h);
	if (at < 0)
		return -1;
	size_t i = (size_t)at;
	if (s->warm) {
		struct sclass *k = &s->cls[s->sj[i].cls];
		k->rep.count--;
		k->dirty = 1;
	}
	free(s->p.jobs[i].id);
	free(s->p.jobs[i].tput);
	s->p.jobs[i].id = NULL;
	s->p.jobs[i].tput = NULL;
	s->sj[i].gone = 1;
	s->holes++;
	if (2 * s->holes > s->p.njobs) /* (so the view stays at most twice the jobs) */
		compact(s);
	s->st.removes++;
	return 0;
}

int dl_alloc_session_progress(struct dl_alloc_session *s, int64_t h, double steps_left,
			      double steps_done, double elapsed)
{
	long at = find(s, h);
	if (at < 0 || bad_number(steps_left, 1e15) || bad_number(steps_done, 1e15) ||
	    bad_number(elapsed, 1e12))
		return -1;
	struct dl_alloc_job *v = &s->p.jobs[at];
	const struct sjob *sj = &s->sj[at];
	v->steps = steps_left;
	v->steps_done = steps_done;
	v->elapsed = elapsed;
	/* the deadline stays where it was: its distance shrinks as the job ages */
	if (sj->slo_end > 0)
		v->slo = sj->slo_end > elapsed ? sj->slo_end - elapsed : 0;
	if (s->warm && s->per_job) {
		struct sclass *k = &s->cls[sj->cls];
		k->rep.steps = v->steps;
		k->rep.steps_done = v->steps_done;
		k->rep.elapsed = v->elapsed;
		k->rep.slo = v->slo;
		k->bounds_dirty = 1;
	}
	return 0;
}

int dl_alloc_session_entity(struct dl_alloc_session *s, const char *name)
{
	return dl_alloc_problem_entity(&s->p, name);
}

const struct dl_alloc_problem *dl_alloc_session_problem(struct dl_alloc_session *s)
{
	compact(s);
	return &s->p;
}

const struct dl_alloc_session_stats *dl_alloc_session_stats(const struct dl_alloc_session *s)
{
	return &s->st;
}

void dl_alloc_session_free(struct dl_alloc_session *s)
{
	if (!s)
		return;
	free(s->cx);
	for (size_t c = 0; c < s->ncls; c++) {
		free(s->cls[c].key);
		free(s->cls[c].xcol);
		free(s->cls[c].pair);
		free(s->cls[c].rep.tput);
	}
	for (size_t k = 0; k < s->npairs; k++) {
		free(s->pairs[k].col);
		free(s->pairs[k].r.tput_a);
		free(s->pairs[k].r.tput_b);
	}
	free(s->cls);
	free(s->pairs);
	free(s->free_cls.v);
	free(s->free_pairs.v);
	free(s->free_cols.v);
	free(s->free_rows.v);
	free(s->cap_row);
	free(s->ind);
	free(s->val);
	free(s->sj);
	free(s->handles);
	strmap_free(&s->keys);
	sb_release(&s->key);
	for (int k = 0; k < s->nlp; k++)
		dl_lp_free(s->lp[k]);
	dl_alloc_problem_free(&s->p);
	free(s);
}

/* ---- solving ---- */

static int lp_solve(struct dl_alloc_session *s, struct dl_lp *lp, struct dl_alloc_result *res,
		    struct dl_err *err)
{
	int rc = dl_lp_solve(lp, &s->lp_opts, err);
	const struct dl_lp_info *info = dl_lp_info(lp);
	res->lp_solves++;
	res->lp_seconds += info->seconds;
	res->lp_rows = info->rows;
	res->lp_cols = info->cols;
	res->lp_objective = rc ? NAN : dl_lp_objective(lp);
	s->st.lp_solves++;
	s->st.lp_seconds += info->seconds;
	s->st.iterations += info->iterations;
	return rc;
}

static int infeasible(const struct dl_lp *lp, const struct dl_err *err)
{
	return err->code == DL_EXIT_NOSOL && !strcmp(dl_lp_info(lp)->status, "infeasible");
}

/* each live class's steps/s under an LP's solution */
static void class_rates(struct dl_alloc_session *s, const struct dl_lp *lp)
{
	for (size_t c = 0; c < s->ncls; c++) {
		struct sclass *k = &s->cls[c];
		if (!k->used)
			continue;
		k->rate = 0;
		for (size_t t = 0; t < s->p.ntypes; t++)
			if (k->xcol[t])
				k->rate += k->rep.tput[t] * dl_lp_value(lp, k->xcol[t]);
	}
}

/* the shared column's entries in lp: coef(k) in the policy row of each live class with steps */
static void write_shared_col(struct dl_alloc_session *s, struct dl_lp *lp,
			     double (*coef)(const struct sclass *k, double arg), double arg)
{
	size_t len = 0;
	for (size_t c = 0; c < s->ncls; c++) {
		const struct sclass *k = &s->cls[c];
		if (k->used && k->live && k->rep.steps > 0)
			col_put(s, &len, k->prow, coef(k, arg));
	}
	col_write(s, lp, s->gcol, len);
}

static double span_coef(const struct sclass *k, double R)
{
	return -k->rep.steps / R;
}

/* min-makespan: rate_i >= (r_i / R) z, z = R / T */
static int makespan(struct dl_alloc_session *s, struct dl_alloc_result *res, struct dl_err *err)
{
	double R = 0;
	for (size_t i = 0; i < s->p.njobs; i++)
		if (s->p.jobs[i].steps > R)
			R = s->p.jobs[i].steps;
	if (!(R > 0))
		return dl_err_set(err, DL_EXIT_NOSOL,
				  "no solution: min-makespan needs remaining steps (column "
				  "'steps') above 0 for some job");
	write_shared_col(s, s->sol, span_coef, R);
	return lp_solve(s, s->sol, res, err);
}

/* min-cost: SLO rows, dropped for this solve when they cannot all hold (Gavel's fallback) */
static int min_cost(struct dl_alloc_session *s, struct dl_alloc_result *res, struct dl_err *err)
{
	int nslo = 0;
	for (size_t c = 0; c < s->ncls; c++)
		if (s->cls[c].used) {
			policy_row_bounds(s, &s->cls[c]);
			nslo += s->cls[c].rep.slo > 0 && s->cls[c].rep.steps > 0;
		}
	int rc = lp_solve(s, s->sol, res, err);
	if (!rc || !nslo || !infeasible(s->sol, err))
		return rc;
	if (s->o.strict_slo)
		return dl_err_set(err, DL_EXIT_NOSOL,
				  "no solution: the problem is infeasible (the SLOs cannot all be "
				  "met; %d job%s one)",
				  nslo, nslo == 1 ? " has" : "s have");
	for (size_t c = 0; c < s->ncls; c++)
		if (s->cls[c].used)
			model_row_bounds(s, s->cls[c].prow, -DL_LP_INF, DL_LP_INF);
	snprintf(res->note, sizeof(res->note),
		 "the SLOs cannot all be met (%d job%s one); solved without them", nslo,
		 nslo == 1 ? " has" : "s have");
	dl_err_clear(err);
	return lp_solve(s, s->sol, res, err);
}

/* ---- finish-time fairness ---- */

static double lambda_coef(const struct sclass *k, double rho)
{
	return -k->rep.steps / (rho * k->D - k->rep.elapsed);
}

/*
 * Gavel's cumulative isolated time: each solve adds the steps run since the
 * last one at the isolated throughput of the last one. Then D_i = iso_done_i
 * + r_i / iso_i, as dl_alloc_solve computes it from the view's iso_done.
 */
static void ftf_denominators(struct dl_alloc_session *s)
{
	double m = (double)s->p.njobs;
	for (size_t i = 0; i < s->p.njobs; i++) {
		struct dl_alloc_job *v = &s->p.jobs[i];
		struct sjob *sj = &s->sj[i];
		double iso = alloc_iso_of(&s->p, v, m);
		if (!sj->seen)
			v->iso_done = v->iso_done >= 0 ? v->iso_done : v->steps_done / iso;
		else
			v->iso_done += (sj->r_last - v->steps) / sj->iso_last;
		sj->seen = 1;
		sj->r_last = v->steps;
		sj->iso_last = iso;
		if (!s->warm)
			continue;
		struct sclass *k = &s->cls[sj->cls];
		k->rep.iso_done = v->iso_done;
		k->iso = iso;
		k->D = v->iso_done + v->steps / iso;
		k->tD = v->elapsed / k->D;
	}
}

/* the final LP's objective: steps/s relative to the isolated share (iso changes with m) */
static void ftf_objective(struct dl_alloc_session *s)
{
	for (size_t c = 0; c < s->ncls; c++) {
		const struct sclass *k = &s->cls[c];
		for (size_t t = 0; k->used && t < s->p.ntypes; t++)
			if (k->xcol[t])
				dl_lp_set_obj(s->sol, k->xcol[t],
					      k->rep.count * k->rep.tput[t] / k->iso);
	}
}

/*
 * minimise max_i rho_i, rho_i = (t_i + r_i / rate_i) / D_i. At a trial rho
 * the LP "max lambda, rate_i >= lambda r_i / (rho D_i - t_i)" gives both
 * bounds: an upper one, max_i rho_i of its allocation, and a lower one:
 * every rho' below min_i [tD_i + (rho - tD_i) / lambda] (tD_i = t_i / D_i)
 * would need lambda above its optimum. The next trial is the upper bound,
 * or the middle when the gap did not halve, until the gap is within the
 * tolerance; the last LP is dl_alloc_solve's final one: rho_i <= the upper
 * bound, maximising sum_ij T_ij X_ij / iso_i. Started from the last solve's
 * optimum, a re-solve takes a few LPs where bisection from scratch takes
 * twenty. Lambda's LP and the final LP are kept apart (s->lp[0], s->sol),
 * so neither starts from a basis made for the other's objective: a third of
 * the simplex iterations.
 */
static int finish_time(struct dl_alloc_session *s, struct dl_alloc_result *res, struct dl_err *err)
{
	double lo = 0, hi = INFINITY, floor_rho = 0, iso_rho = 0, gap = INFINITY;
	int any = 0;
	for (size_t c = 0; c < s->ncls; c++) {
		const struct sclass *k = &s->cls[c];
		if (!k->used || !(k->rep.steps > 0))
			continue;
		any = 1;
		floor_rho = k->tD > floor_rho ? k->tD : floor_rho;
		double h = (k->rep.elapsed + k->rep.steps / k->iso) / k->D;
		iso_rho = h > iso_rho ? h : iso_rho;
	}
	ftf_objective(s);
	if (!any)
		return lp_solve(s, s->sol, res, err);
	double tol = s->o.tolerance > 1e-12 ? s->o.tolerance : 1e-12;
	int rc = 0;
	struct dl_lp *lp = s->lp[0];
	/* any trial above floor_rho is valid (each rho_i exceeds tD_i) */
	double rho = s->rho > floor_rho * (1 + 1e-9) ? s->rho : iso_rho;
	lo = floor_rho;
	double prev_rho = NAN, prev_lambda = NAN;
	for (int it = 0; it < 200; it++) {
		write_shared_col(s, lp, lambda_coef, rho);
		if ((rc = lp_solve(s, lp, res, err)))
			return rc;
		double lambda = dl_lp_value(lp, s->gcol), u = 0, l = INFINITY;
		class_rates(s, lp);
		for (size_t c = 0; c < s->ncls; c++) {
			const struct sclass *k = &s->cls[c];
			if (!k->used || !(k->rep.steps > 0))
				continue;
			double r = (k->rep.elapsed + k->rep.steps / k->rate) / k->D;
			double b = k->tD + (rho - k->tD) / lambda;
			u = r > u ? r : u;
			l = b < l ? b : l;
		}
		hi = u < hi ? u : hi;
		lo = l > lo ? l : lo;
		if (hi - lo <= tol * hi)
			break;
		/* lambda(rho) = 1 at the optimum: the secant through the last two trials */
		double next = hi;
		if (lambda != prev_lambda && !isnan(prev_lambda)) {
			double sec = rho - (lambda - 1) * (rho - prev_rho) / (lambda - prev_lambda);
			if (sec > lo && sec < hi)
				next = sec;
		}
		if (next == hi && hi - lo > gap / 2)
			next = (lo + hi) / 2;
		prev_rho = rho;
		prev_lambda = lambda;
		rho = next;
		gap = hi - lo;
	}
	if (!(hi < INFINITY))
		return dl_err_set(err, DL_EXIT_NOSOL,
				  "no solution: finish-time fairness found no feasible rho");
	/*
	 * The final LP at rho = hi, which the best allocation found meets: up
	 * to rounding, so with a margin of 1e-10 (the rows are tight there),
	 * widened while the solver finds it infeasible.
	 */
	for (double margin = 1e-10;; margin *= 10) {
		write_shared_col(s, s->sol, lambda_coef, hi * (1 + margin));
		if (!(rc = lp_solve(s, s->sol, res, err)) || !infeasible(s->sol, err) ||
		    margin >= 1e-3)
			break;
		dl_err_clear(err);
	}
	s->rho = hi;
	return rc;
}

/* ---- the result ---- */

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* pairs of jobs for the pairs of classes' time (dl_alloc_solve's realisation) */
static void take_pairs(struct dl_alloc_session *s, struct dl_alloc_result *res)
{
	size_t m = s->p.njobs, n = s->p.ntypes, C = 0;
	/* the merged problem's order: classes by first member */
	for (size_t c = 0; c < s->ncls; c++)
		s->cls[c].q = (size_t)-1;
	size_t *cls = xcalloc(m + 1, sizeof(size_t));
	for (size_t i = 0; i < m; i++) {
		struct sclass *k = &s->cls[s->sj[i].cls];
		if (k->q == (size_t)-1)
			k->q = C++;
		cls[i] = k->q;
	}
	struct dl_alloc_problem q = {0};
	struct dl_alloc_result qr = {0};
	q.njobs = C;
	qr.pairs = xcalloc(s->npairs + 1, sizeof(*qr.pairs));
	qr.px = xcalloc(s->npairs * n + 1, sizeof(double));
	size_t *order = xcalloc(s->npairs + 1, sizeof(size_t));
	for (size_t k = 0; k < s->npairs; k++) {
		const struct spair *pr = &s->pairs[k];
		if (!pr->used)
			continue;
		size_t qa = s->cls[pr->a].q, qb = s->cls[pr->b].q;
		order[qr.npairs++] = (qa < qb ? qa * C + qb : qb * C + qa) * s->npairs + k;
	}
	qsort(order, qr.npairs, sizeof(size_t), cmp_size);
	for (size_t u = 0; u < qr.npairs; u++) {
		const struct spair *pr = &s->pairs[order[u] % s->npairs];
		const struct sclass *A = &s->cls[pr->a], *B = &s->cls[pr->b];
		int swap = A->q > B->q;
		double na = A->rep.count, nb = B->rep.count;
		double bound = pr->a == pr->b ? na * (na - 1) / 2 : na * nb;
		struct dl_alloc_pair *d = &qr.pairs[u];
		d->a = (int)(swap ? B->q : A->q);
		d->b = (int)(swap ? A->q : B->q);
		d->tput_a = swap ? pr->r.tput_b : pr->r.tput_a;
		d->tput_b = swap ? pr->r.tput_a : pr->r.tput_b;
		for (size_t t = 0; t < n; t++)
			qr.px[u * n + t] =
				pr->col[t] ? alloc_clip(dl_lp_value(s->sol, pr->col[t]), bound) : 0;
		res->merged_pairs += pr->a != pr->b || na >= 2;
	}
	alloc_realize_pairs(&s->p, &q, cls, &qr, res);
	free(order);
	free(qr.pairs); /* the rates belong to the pair records */
	free(qr.px);
	free(cls);
}

static void take(struct dl_alloc_session *s, struct dl_alloc_result *res)
{
	size_t m = s->p.njobs, n = s->p.ntypes;
	/* a class's X once, then copied to its members (merged: many jobs a class) */
	DL_GROW(s->cx, s->ncls * n + 1, s->acx);
	for (size_t c = 0; c < s->ncls; c++) {
		const struct sclass *k = &s->cls[c];
		for (size_t t = 0; t < n && k->used && k->xcol; t++)
			s->cx[c * n + t] =
				k->xcol[t] ? alloc_clip(dl_lp_value(s->sol, k->xcol[t]), 1) : 0;
	}
	if (!s->by_class) { /* (by class, the caller reads cx: no pass over every job) */
		res->x = xcalloc(m * n + 1, sizeof(double));
		for (size_t i = 0; i < m; i++)
			for (size_t t = 0; t < n; t++)
				res->x[i * n + t] = s->cx[s->sj[i].cls * n + t];
	}
	if (s->pack)
		take_pairs(s, res);
	if (!s->per_job)
		for (size_t c = 0; c < s->ncls; c++)
			res->merged += s->cls[c].used;
}

/* packed: does dl_alloc_solve take every pair of classes (else its candidate pairs)? */
static int pairs_within_budget(struct dl_alloc_session *s)
{
	size_t np = 0, m = s->p.njobs;
	for (size_t k = 0; k < s->npairs; k++)
		np += s->pairs[k].used &&
		      (s->pairs[k].a != s->pairs[k].b || s->cls[s->pairs[k].a].rep.count >= 2);
	if (np <= alloc_pair_budget(0, m))
		return 1;
	dl_alloc_prune_pairs(&s->p, s->o.pair_candidates > 0 ? s->o.pair_candidates : 4);
	return np <= alloc_pair_budget(s->p.npairs, m);
}

int dl_alloc_session_solve(struct dl_alloc_session *s, struct dl_alloc_result *res,
			   struct dl_err *err)
{
	memset(res, 0, sizeof(*res));
	res->lp_objective = NAN;
	s->st.solves++;
	/*
	 * the view's jobs one by one: every solve but a warm one by class
	 * without pairs or a class per job (that reads the classes only, so its
	 * holes may stay)
	 */
	if (!(s->warm && s->by_class && !s->pack && !s->per_job))
		compact(s);
	if (s->o.policy == DL_ALLOC_FINISH_TIME_FAIRNESS && s->p.njobs)
		ftf_denominators(s);
	if (s->p.njobs == s->holes) {
		res->objective_name = "no jobs";
		return 0;
	}
	int rc, warm = s->warm;
	if (warm)
		sync_lp(s);
	if (warm && s->pack)
		warm = pairs_within_budget(s); /* prunes p's pairs when it says no */
	else if (s->o.pack && dl_alloc_policy_info(s->o.policy)->lp)
		dl_alloc_prune_pairs(&s->p, s->o.pair_candidates > 0 ? s->o.pair_candidates : 4);
	if (!warm) {
		s->st.scratch++;
		rc = dl_alloc_solve(&s->p, &s->o, res, err);
		s->st.lp_solves += res->lp_solves;
		s->st.lp_seconds += res->lp_seconds;
		return rc;
	}
	s->st.warm++;
	switch (s->o.policy) {
	case DL_ALLOC_FINISH_TIME_FAIRNESS:
		rc = finish_time(s, res, err);
		break;
	case DL_ALLOC_MIN_MAKESPAN:
		rc = makespan(s, res, err);
		break;
	case DL_ALLOC_MIN_COST:
		rc = min_cost(s, res, err);
		break;
	default:
		rc = lp_solve(s, s->sol, res, err);
		break;
	}
	if (!rc)
		take(s, res);
	if (rc) {
		dl_alloc_result_free(res);
		res->lp_objective = NAN;
		return -1;
	}
	if (!s->skip_objective && !s->by_class)
		res->objective = alloc_evaluate(&s->p, &s->o, res, &res->objective_name);
	else
		res->objective = NAN;
	return 0;
}

void dl_alloc_session_skip_objective(struct dl_alloc_session *s)
{
	s->skip_objective = 1;
}

void dl_alloc_session_by_class(struct dl_alloc_session *s)
{
	s->by_class = 1;
}

long dl_alloc_session_class(const struct dl_alloc_session *s, int64_t handle)
{
	long at = s->warm ? find(s, handle) : -1;
	return at < 0 ? -1 : (long)s->sj[at].cls;
}

const double *dl_alloc_session_class_x(const struct dl_alloc_session *s)
{
	return s->cx;
}
