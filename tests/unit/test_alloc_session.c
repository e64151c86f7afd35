/*
 * test_alloc_session.c: re-solve sessions against dl_alloc_solve from scratch.
 *
 * For every policy allocate solves (and the packed, per-job and partitioned
 * variants), a seeded random sequence of arrivals, departures and progress
 * updates runs through one session, solved after every step; each solve's
 * objective must equal dl_alloc_solve's on a copy of the same job set, and
 * the session's allocation must meet the base constraints (the allocation
 * itself may differ where the optimum is not unique). A twin session fed
 * the same steps hands out X per class (dl_alloc_session_by_class): each
 * job's X read through its class must be the first session's, bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "policy/alloc.h"
#include "tap.h"

#define NTYPES	3
#define NMODELS 6

/* steps/s of model k on 1 GPU of each type (0: cannot run there); 2 GPUs: x 1.8 */
static const double model_tput[NMODELS][NTYPES] = {
	{1.0, 2.0, 4.0}, {0.0, 3.0, 3.5}, {2.0, 2.5, 6.0},
	{0.5, 1.0, 1.2}, {1.5, 0.0, 2.0}, {0.8, 1.9, 3.9},
};

/* k80 4 GPUs, p100 3, v100 2; every pair of models of equal gpus has pair rates */
static void cluster(struct dl_alloc_problem *p, struct dl_rng *r)
{
	static const char *const names[NTYPES] = {"k80", "p100", "v100"};
	static const double cap[NTYPES] = {4, 3, 2}, cost[NTYPES] = {0.9, 1.5, 2.5};
	dl_alloc_problem_init(p, NTYPES);
	for (size_t t = 0; t < NTYPES; t++)
		dl_alloc_problem_set_type(p, t, names[t], cap[t], cost[t]);
	size_t C = 2 * NMODELS, n = NTYPES;
	p->nclasses = C;
	p->class_model = xcalloc(C, sizeof(char *));
	p->class_gpus = xcalloc(C, sizeof(int));
	for (size_t c = 0; c < C; c++) {
		char name[16];
		snprintf(name, sizeof(name), "m%zu", c / 2);
		p->class_model[c] = xstrdup(name);
		p->class_gpus[c] = c % 2 ? 2 : 1;
	}
	p->pair_self = xcalloc(C * C * n, sizeof(double));
	p->pair_other = xcalloc(C * C * n, sizeof(double));
	for (size_t a = 0; a < C; a++)
		for (size_t b = a; b < C; b++)
			for (size_t t = 0; t < n; t++) {
				double sa = NAN, sb = NAN;
				double ta = model_tput[a / 2][t], tb = model_tput[b / 2][t];
				/* equal gpus; most pairs help (sum of shares 0.7 to 1.3) */
				if (a % 2 == b % 2 && ta > 0 && tb > 0) {
					sa = ta * (0.35 + 0.3 * dl_rng_uniform(r));
					sb = tb * (0.35 + 0.3 * dl_rng_uniform(r));
					if (a == b)
						sb = sa;
				}
				p->pair_self[(a * C + b) * n + t] = sa;
				p->pair_other[(a * C + b) * n + t] = sb;
				p->pair_self[(b * C + a) * n + t] = sb;
				p->pair_other[(b * C + a) * n + t] = sa;
			}
	dl_alloc_problem_entity(p, "e0");
	int e1 = dl_alloc_problem_entity(p, "e1"); /* may move entity_weight */
	p->entity_weight[e1] = 2;
	dl_alloc_problem_entity(p, "e2");
}

static void random_job(struct dl_alloc_job *j, double *tput, char *id, size_t idlen, long k,
		       struct dl_rng *r, int distinct)
{
	memset(j, 0, sizeof(*j));
	size_t model = dl_rng_below(r, NMODELS);
	int gpus = dl_rng_uniform(r) < 0.75 ? 1 : 2;
	for (size_t t = 0; t < NTYPES; t++)
		tput[t] = model_tput[model][t] * (gpus == 2 ? 1.8 : 1);
	if (distinct) /* nothing to merge */
		for (size_t t = 0; t < NTYPES; t++)
			tput[t] *= 1 + dl_rng_uniform(r) * 0.01;
	snprintf(id, idlen, "j%ld", k);
	j->id = id;
	j->gpus = gpus;
	j->tput = tput;
	j->weight = dl_rng_uniform(r) < 0.8 ? 1 : 3;
	j->klass = (int)(model * 2 + (gpus == 2));
	j->entity = (int)dl_rng_below(r, 3);
	j->steps = 1000 + floor(dl_rng_uniform(r) * 50000);
	j->steps_done = dl_rng_uniform(r) < 0.5 ? 0 : floor(dl_rng_uniform(r) * 5000);
	j->elapsed = dl_rng_uniform(r) < 0.5 ? 0 : dl_rng_uniform(r) * 3000;
	j->slo = dl_rng_uniform(r) < 0.3 ? 20000 + dl_rng_uniform(r) * 40000 : 0;
	j->count = 1;
	j->iso_done = -1;
}

/* the largest violation of the base constraints (and of X = 0 where T = 0) */
static double violation(const struct dl_alloc_problem *p, const struct dl_alloc_result *r)
{
	size_t n = p->ntypes, m = p->njobs;
	double worst = 0, *time = xcalloc(m + 1, sizeof(double));
	double use[NTYPES] = {0};
	for (size_t i = 0; i < m; i++)
		for (size_t t = 0; t < n; t++) {
			double x = r->x[i * n + t];
			worst = fmax(worst, fmax(-x, x - 1));
			if (p->jobs[i].tput[t] <= 0)
				worst = fmax(worst, fabs(x));
			time[i] += x;
			use[t] += x * p->jobs[i].gpus;
		}
	for (size_t k = 0; k < r->npairs; k++) {
		const struct dl_alloc_pair *pr = &r->pairs[k];
		if (p->jobs[pr->a].gpus != p->jobs[pr->b].gpus)
			worst = fmax(worst, 1);
		for (size_t t = 0; t < n; t++) {
			double x = r->px[k * n + t];
			worst = fmax(worst, -x);
			time[pr->a] += x;
			time[pr->b] += x;
			use[t] += x * p->jobs[pr->a].gpus;
		}
	}
	for (size_t i = 0; i < m; i++)
		worst = fmax(worst, time[i] - 1);
	for (size_t t = 0; t < n; t++)
		worst = fmax(worst, use[t] - p->capacity[t]);
	free(time);
	return worst;
}

struct variant {
	const char *name;
	enum dl_alloc_policy policy;
	int pack, per_job, partitions, entity_fifo, distinct, warm;
	double lp_tol;		/* the simplex's tolerances (0: GLPK's 1e-7) */
	size_t max_jobs, steps; /* 0: 30 jobs, 400 steps */
};

static const struct variant variants[] = {
	{"max-min-fairness", DL_ALLOC_MAX_MIN_FAIRNESS, 0, 0, 1, 0, 0, 1},
	{"max-min-fairness-perf", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, 0, 1, 0, 0, 1},
	{"max-min-fairness-perf --pack", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 1, 0, 1, 0, 0, 1},
	{"max-min-fairness-perf --per-job", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, 1, 1, 0, 0, 1},
	{"max-min-fairness-perf, distinct jobs", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, 0, 1, 0, 1, 1},
	/* beyond 1024 pairs of classes (46 distinct jobs of 1 GPU), dl_alloc_solve's per-job LP */
	{"max-min-fairness-perf --pack, distinct jobs", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 1, 0, 1, 0,
	 1, 2, 0, 64, 130},
	{"max-min-fairness-perf --pack --per-job", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 1, 1, 1, 0, 0,
	 0},
	{"max-min-fairness-perf --partitions 2", DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, 0, 2, 0, 0, 0},
	{"finish-time-fairness", DL_ALLOC_FINISH_TIME_FAIRNESS, 0, 0, 1, 0, 0, 1, 1e-10},
	{"finish-time-fairness, GLPK's tolerances", DL_ALLOC_FINISH_TIME_FAIRNESS, 0, 0, 1, 0, 0,
	 1},
	{"min-makespan", DL_ALLOC_MIN_MAKESPAN, 0, 0, 1, 0, 0, 1},
	{"max-throughput", DL_ALLOC_MAX_THROUGHPUT, 0, 0, 1, 0, 0, 1},
	{"max-throughput --pack", DL_ALLOC_MAX_THROUGHPUT, 1, 0, 1, 0, 0, 1},
	{"min-cost", DL_ALLOC_MIN_COST, 0, 0, 1, 0, 0, 1},
	{"water-filling", DL_ALLOC_WATER_FILLING, 0, 0, 1, 0, 0, 0},
	{"water-filling --entity-policy fifo", DL_ALLOC_WATER_FILLING, 0, 0, 1, 1, 0, 0},
	{"fifo", DL_ALLOC_FIFO, 0, 0, 1, 0, 0, 0},
	{"fifo-perf", DL_ALLOC_FIFO_PERF, 0, 0, 1, 0, 0, 0},
	{"isolated", DL_ALLOC_ISOLATED, 0, 0, 1, 0, 0, 0},
	{"gandiva --pack", DL_ALLOC_GANDIVA, 1, 0, 1, 0, 0, 0},
};

/*
 * Finish-time fairness is not an LP: dl_alloc_solve bisects on rho with one
 * feasibility LP a step, the session iterates on lambda's LP. With the
 * simplex's tolerances at 1e-10 both find rho to 1e-9. At GLPK's 1e-7 each
 * LP is only that exact (a bisection step near the optimum may call a
 * feasible rho infeasible): both are within the solver's tolerance of the
 * optimum, and of each other to a few 1e-7 (1e-5 asserted).
 */
static int ftf_loose(const struct variant *v)
{
	return v->policy == DL_ALLOC_FINISH_TIME_FAIRNESS && !(v->lp_tol > 0);
}

/*
 * The twin's allocation (X per class after a warm solve, else per job) against
 * the session's per job: 1 when every job's X is the same double
 */
static int same_by_class(struct dl_alloc_session *tw, const struct dl_alloc_result *w,
			 const struct dl_alloc_result *a, size_t *by_class)
{
	const struct dl_alloc_problem *vp = dl_alloc_session_problem(tw);
	size_t n = vp->ntypes;
	if (w->x) /* solved per job (dl_alloc_solve) */
		return !vp->njobs || !memcmp(w->x, a->x, vp->njobs * n * sizeof(double));
	const double *cx = dl_alloc_session_class_x(tw);
	*by_class += 1;
	for (size_t i = 0; i < vp->njobs; i++) {
		long c = dl_alloc_session_class(tw, dl_alloc_session_handle(tw, i));
		if (c < 0 || memcmp(&cx[(size_t)c * n], &a->x[i * n], n * sizeof(double)))
			return 0;
	}
	return 1;
}

/* relative difference, with an absolute floor for objectives near 0 */
static double rel(double a, double b)
{
	if (a == b)
		return 0;
	return fabs(a - b) / fmax(1e-9, fmax(fabs(a), fabs(b)));
}

static void run_variant(const struct variant *v, uint64_t seed)
{
	int steps = v->steps ? (int)v->steps : 400;
	size_t max_jobs = v->max_jobs ? v->max_jobs : 30;
	struct dl_rng r;
	dl_rng_seed_stream(&r, seed, 1);
	struct dl_alloc_problem base;
	cluster(&base, &r);
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	o.policy = v->policy;
	o.pack = v->pack;
	o.per_job = v->per_job;
	o.partitions = v->partitions;
	o.entity_fifo = v->entity_fifo;
	o.seed = 7;
	/* both sides bisect or iterate to far below the 1e-9 the objectives are compared to */
	o.tolerance = 1e-12;
	o.lp.tolerance = v->lp_tol;
	struct dl_err err = DL_ERR_INIT;
	struct dl_alloc_session *s = dl_alloc_session_new(&base, &o, &err);
	struct dl_alloc_session *tw = dl_alloc_session_new(&base, &o, &err);
	if (tw)
		dl_alloc_session_by_class(tw);
	if (!ok(s && tw, "%s: session and its twin by class created", v->name)) {
		printf("# %s\n", err.msg);
		dl_alloc_session_free(s);
		dl_alloc_session_free(tw);
		dl_alloc_problem_free(&base);
		return;
	}
	int64_t *live = xcalloc((size_t)steps + 1, sizeof(int64_t));
	size_t nlive = 0, solves = 0, agree = 0, solved = 0, feasible = 0, twin = 0, by_class = 0;
	double worst_rel = 0, worst_viol = 0;
	long next_id = 0;
	for (int step = 0; step < steps; step++) {
		double u = dl_rng_uniform(&r);
		if ((u < 0.45 && nlive < max_jobs) || nlive < 2 || (step < 100 && v->max_jobs)) {
			struct dl_alloc_job j;
			double tput[NTYPES];
			char id[32];
			random_job(&j, tput, id, sizeof(id), next_id++, &r, v->distinct);
			int64_t h = dl_alloc_session_add(s, &j, &err);
			if (h < 0 || dl_alloc_session_add(tw, &j, &err) != h) {
				ok(0, "%s: add failed: %s", v->name, err.msg);
				break;
			}
			live[nlive++] = h;
		} else if (u < 0.75) {
			size_t k = dl_rng_below(&r, nlive);
			dl_alloc_session_remove(s, live[k]);
			dl_alloc_session_remove(tw, live[k]);
			live[k] = live[--nlive];
		} else {
			/* time passes: every job ages and runs some steps */
			double dt = 60 + dl_rng_uniform(&r) * 600;
			const struct dl_alloc_problem *vp = dl_alloc_session_problem(s);
			for (size_t i = 0; i < vp->njobs; i++) {
				const struct dl_alloc_job *j = &vp->jobs[i];
				double run = fmin(j->steps - 1, floor(dl_rng_uniform(&r) * dt * 2));
				int64_t h = dl_alloc_session_handle(s, i);
				double left = j->steps - run, done = j->steps_done + run;
				double el = j->elapsed + dt;
				dl_alloc_session_progress(s, h, left, done, el);
				dl_alloc_session_progress(tw, h, left, done, el);
			}
		}
		struct dl_alloc_result a, b;
		struct dl_err ea = DL_ERR_INIT, eb = DL_ERR_INIT;
		int ra = dl_alloc_session_solve(s, &a, &ea);
		struct dl_alloc_result w;
		struct dl_err ew = DL_ERR_INIT;
		int rw = dl_alloc_session_solve(tw, &w, &ew);
		twin += rw == ra && (ra || same_by_class(tw, &w, &a, &by_class));
		dl_alloc_result_free(&w);
		struct dl_alloc_problem c;
		dl_alloc_problem_copy(&c, dl_alloc_session_problem(s), 1);
		if (o.pack && o.policy != DL_ALLOC_GANDIVA)
			dl_alloc_prune_pairs(&c, 4);
		int rb = dl_alloc_solve(&c, &o, &b, &eb);
		solves++;
		double d = ra || rb ? 0 : rel(a.objective, b.objective);
		int close = d <= 1e-9;
		if (ftf_loose(v))
			close = d <= 1e-5;
		if (ra != rb || (ra && ea.code != eb.code) || !close)
			printf("# %s step %d: %zu jobs: session %d %.17g '%s', scratch %d %.17g "
			       "'%s'\n",
			       v->name, step, c.njobs, ra, a.objective, ea.msg, rb, b.objective,
			       eb.msg);
		else
			agree++;
		worst_rel = fmax(worst_rel, d);
		if (!ra) {
			double viol = c.njobs ? violation(&c, &a) : 0;
			worst_viol = fmax(worst_viol, viol);
			solved++;
			feasible += viol <= 1e-7; /* the simplex's tolerance */
		}
		dl_alloc_result_free(&a);
		dl_alloc_result_free(&b);
		dl_alloc_problem_free(&c);
	}
	const struct dl_alloc_session_stats *st = dl_alloc_session_stats(s);
	is_int(agree, solves,
	       "%s: %zu solves agree with dl_alloc_solve: same outcome, objective %s (worst "
	       "%.3g)",
	       v->name, solves, ftf_loose(v) ? "within 1e-5" : "within 1e-9", worst_rel);
	is_int(feasible, solved,
	       "%s: every allocation meets the base constraints to 1e-7 (worst %.3g)", v->name,
	       worst_viol);
	if (v->warm == 2) /* too many pairs of classes now and then: dl_alloc_solve's LP */
		ok(st->warm > 0 && st->scratch > 0, "%s: %ld warm solves, %ld from scratch",
		   v->name, st->warm, st->scratch);
	else if (v->warm)
		ok(st->warm > st->solves / 2,
		   "%s: warm solves %ld of %ld (%ld LPs, %ld iterations)", v->name, st->warm,
		   st->solves, st->lp_solves, st->iterations);
	else
		is_int(st->scratch, st->solves, "%s: solved by dl_alloc_solve (no warm LP)",
		       v->name);
	is_int(twin, solves, "%s: the twin by class gives every job the same X (%zu by class)",
	       v->name, by_class);
	if (v->warm == 1)
		ok(by_class > solves / 2, "%s: the twin's warm solves are by class (%zu of %zu)",
		   v->name, by_class, solves);
	else if (!v->warm)
		ok(!by_class && dl_alloc_session_class(tw, live[0]) < 0,
		   "%s: no classes without a warm LP: X per job", v->name);
	free(live);
	dl_alloc_session_free(tw);
	dl_alloc_session_free(s);
	dl_alloc_problem_free(&base);
}

/* a session of max-min fairness on 2 GPUs of one type (p: its cluster) */
static struct dl_alloc_session *two_gpus(struct dl_alloc_problem *p)
{
	dl_alloc_problem_init(p, 1);
	dl_alloc_problem_set_type(p, 0, "v100", 2, 1);
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	o.policy = DL_ALLOC_MAX_MIN_FAIRNESS_PERF;
	struct dl_err err = DL_ERR_INIT;
	return dl_alloc_session_new(p, &o, &err);
}

/* a job of 1 GPU at *tput steps/s */
static struct dl_alloc_job one_gpu_job(const char *id, double *tput)
{
	return (struct dl_alloc_job){.id = (char *)id,
				     .gpus = 1,
				     .weight = 1,
				     .tput = tput,
				     .klass = -1,
				     .entity = -1,
				     .count = 1,
				     .iso_done = -1};
}

/* 2 GPUs of one type, max-min fairness: the answers follow by hand */
static void by_hand(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_session *s = two_gpus(&p);
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	double tput = 10;
	struct dl_alloc_job j = one_gpu_job("a", &tput);
	int64_t a = dl_alloc_session_add(s, &j, &err);
	j.id = "b";
	int64_t b = dl_alloc_session_add(s, &j, &err);
	j.id = "c";
	j.gpus = 2;
	int64_t c = dl_alloc_session_add(s, &j, &err);
	ok(a == 0 && b == 1 && c == 2, "handles 0, 1, 2 in the order added");
	struct dl_alloc_result r;
	/* s_i X_i equal: a and b get x, c gets x / 2; x + x + 2 (x / 2) = 2 -> x = 2/3 */
	is_int(dl_alloc_session_solve(s, &r, &err), 0, "three jobs solve");
	is_double(r.x[0], 2.0 / 3, 1e-9, "a gets 2/3");
	is_double(r.x[1], 2.0 / 3, 1e-9, "b gets 2/3");
	is_double(r.x[2], 1.0 / 3, 1e-9, "c (2 GPUs) gets 1/3");
	dl_alloc_result_free(&r);
	is_int(dl_alloc_session_remove(s, b), 0, "b leaves");
	is_int(dl_alloc_session_remove(s, b), -1, "b cannot leave twice");
	is_int(dl_alloc_session_index(s, c), 1, "c is job 1 now");
	is_int(dl_alloc_session_handle(s, 1), c, "job 1 is c");
	/* a and c: x_a = 2 x_c, x_a + 2 x_c = 2 -> a full time, c half */
	is_int(dl_alloc_session_solve(s, &r, &err), 0, "two jobs solve");
	is_int(dl_alloc_session_problem(s)->njobs, 2, "two jobs left");
	is_double(r.x[0], 1, 1e-9, "a runs full time");
	is_double(r.x[1], 0.5, 1e-9, "c runs half the time");
	dl_alloc_result_free(&r);
	is_int(dl_alloc_session_progress(s, 99, 1, 1, 1), -1, "progress of an unknown job fails");
	is_int(dl_alloc_session_progress(s, a, -1, 0, 0), -1, "negative steps are refused");
	tput = 0;
	ok(dl_alloc_session_add(s, &j, &err) < 0 && err.code == DL_EXIT_NOSOL,
	   "a job that runs nowhere is refused: %s", err.msg);
	dl_alloc_session_remove(s, a);
	dl_alloc_session_remove(s, c);
	is_int(dl_alloc_session_solve(s, &r, &err), 0, "no jobs solve");
	is_str(r.objective_name, "no jobs", "the objective of no jobs");
	dl_alloc_result_free(&r);
	dl_alloc_session_free(s);
	/* min-cost needs prices */
	dl_alloc_problem_set_type(&p, 0, "v100", 2, 0);
	o.policy = DL_ALLOC_MIN_COST;
	ok(!dl_alloc_session_new(&p, &o, &err) && err.code == DL_EXIT_USAGE,
	   "min-cost without prices: %s", err.msg);
	dl_alloc_problem_free(&p);
}

/*
 * Removals leave their jobs' places in the view until it is read by index:
 * none of it may show (a by-class session, whose solves keep the holes)
 */
static void removals(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_session *s = two_gpus(&p);
	struct dl_err err = DL_ERR_INIT;
	dl_alloc_session_by_class(s);
	double tput = 10;
	struct dl_alloc_job j = one_gpu_job(NULL, &tput);
	const char *ids[] = {"a", "b", "c", "d", "e", "f"};
	int64_t h[6];
	for (size_t k = 0; k < 5; k++) {
		j.id = (char *)ids[k];
		h[k] = dl_alloc_session_add(s, &j, &err);
	}
	is_int(dl_alloc_session_remove(s, h[1]), 0, "b leaves");
	is_int(dl_alloc_session_remove(s, h[3]), 0, "d leaves");
	is_int(dl_alloc_session_remove(s, h[1]), -1, "b cannot leave twice");
	is_int(dl_alloc_session_class(s, h[1]), -1, "b has no class once gone");
	ok(dl_alloc_session_class(s, h[4]) >= 0, "e still has one");
	is_int(dl_alloc_session_progress(s, h[3], 1, 1, 1), -1, "d's progress is refused");
	struct dl_alloc_result r;
	is_int(dl_alloc_session_solve(s, &r, &err), 0, "three jobs solve");
	ok(!r.x, "by class: no X per job");
	/* three jobs of one class on 2 GPUs: 2/3 each */
	is_double(dl_alloc_session_class_x(s)[dl_alloc_session_class(s, h[0])], 2.0 / 3, 1e-9,
		  "X of a's class counts the three jobs left");
	dl_alloc_result_free(&r);
	j.id = (char *)ids[5];
	h[5] = dl_alloc_session_add(s, &j, &err);
	is_int(h[5], 5, "f's handle follows e's");
	is_int(dl_alloc_session_problem(s)->njobs, 4, "the view holds the four jobs left");
	int64_t want[] = {h[0], h[2], h[4], h[5]};
	for (size_t i = 0; i < 4; i++) {
		is_int(dl_alloc_session_handle(s, i), want[i], "view job %zu in the order added",
		       i);
		is_int(dl_alloc_session_index(s, want[i]), (long)i, "its index");
		is_str(dl_alloc_session_problem(s)->jobs[i].id, ids[want[i]], "its id");
	}
	for (size_t k = 0; k < 6; k++)
		dl_alloc_session_remove(s, h[k]);
	is_int(dl_alloc_session_solve(s, &r, &err), 0, "no jobs solve");
	is_str(r.objective_name, "no jobs", "the objective of no jobs");
	dl_alloc_result_free(&r);
	dl_alloc_session_free(s);
	dl_alloc_problem_free(&p);
}

int main(void)
{
	by_hand();
	removals();
	for (size_t k = 0; k < sizeof(variants) / sizeof(variants[0]); k++)
		run_variant(&variants[k], 1000 + k);
	return done_testing();
}
