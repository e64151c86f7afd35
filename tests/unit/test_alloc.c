/* test_alloc.c: allocation policies on problems small enough to solve by hand */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "policy/alloc.h"
#include "tap.h"

/* one GPU type per capacity value; types named t0, t1, ... */
static void problem(struct dl_alloc_problem *p, size_t ntypes, const double *cap)
{
	dl_alloc_problem_init(p, ntypes);
	for (size_t t = 0; t < ntypes; t++) {
		char name[32];
		snprintf(name, sizeof(name), "t%zu", t);
		dl_alloc_problem_set_type(p, t, name, cap[t], 1);
	}
}

static int run(const struct dl_alloc_problem *p, enum dl_alloc_policy pol, int pack,
	       struct dl_alloc_result *res)
{
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	o.policy = pol;
	o.pack = pack;
	int rc = dl_alloc_solve(p, &o, res, &err);
	if (rc)
		printf("# %s: %s\n", dl_alloc_policy_name(pol), err.msg);
	return rc;
}

/* base constraints: fractions in [0,1], each job's time <= 1, capacity per type */
static int feasible(const struct dl_alloc_problem *p, const struct dl_alloc_result *r)
{
	size_t n = p->ntypes;
	const double eps = 1e-7;
	for (size_t i = 0; i < p->njobs; i++) {
		double s = 0;
		for (size_t t = 0; t < n; t++) {
			double x = r->x[i * n + t];
			if (x < 0 || x > 1 + eps)
				return 0;
			s += x;
		}
		for (size_t k = 0; k < r->npairs; k++)
			if (r->pairs[k].a == (int)i || r->pairs[k].b == (int)i)
				for (size_t t = 0; t < n; t++)
					s += r->px[k * n + t];
		if (s > 1 + eps)
			return 0;
	}
	for (size_t t = 0; t < n; t++) {
		double u = 0;
		for (size_t i = 0; i < p->njobs; i++)
			u += p->jobs[i].gpus * r->x[i * n + t];
		for (size_t k = 0; k < r->npairs; k++)
			u += p->jobs[r->pairs[k].a].gpus * r->px[k * n + t];
		if (u > p->capacity[t] * (1 + eps) + eps)
			return 0;
	}
	return 1;
}

static double rate(const struct dl_alloc_problem *p, const struct dl_alloc_result *r, size_t i)
{
	double s = 0;
	for (size_t t = 0; t < p->ntypes; t++)
		s += p->jobs[i].tput[t] * r->x[i * p->ntypes + t];
	for (size_t k = 0; k < r->npairs; k++)
		for (size_t t = 0; t < p->ntypes; t++) {
			if (r->pairs[k].a == (int)i)
				s += r->pairs[k].tput_a[t] * r->px[k * p->ntypes + t];
			if (r->pairs[k].b == (int)i)
				s += r->pairs[k].tput_b[t] * r->px[k * p->ntypes + t];
		}
	return s;
}

/*
 * Two jobs, one k80 and one v100: A runs at 1 and 2 steps/s, B at 1 and 4.
 * prop_A = 1.5, prop_B = 2.5. Max-min-perf: A gets half of each type, B the
 * other halves: A 1.5/1.5 = 1, B 2.5/2.5 = 1 -> 1. Max throughput: A on k80,
 * B on v100 -> 5. Makespan with 100 and 400 steps: 100 s. Finish-time
 * fairness with nothing elapsed: rho_i = iso_i / rate_i -> 1.
 */
static void tiny(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r;
	double cap[2] = {1, 1}, ta[2] = {1, 2}, tb[2] = {1, 4};
	problem(&p, 2, cap);
	dl_alloc_problem_add_job(&p, "A", 1, ta);
	dl_alloc_problem_add_job(&p, "B", 1, tb);
	p.jobs[0].steps = 100;
	p.jobs[1].steps = 400;

	is_int(run(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0, "tiny: max-min-perf solves");
	is_double(r.objective, 1, 1e-9, "tiny: max-min-perf objective 1");
	is_double(r.lp_objective, 1, 1e-9, "tiny: LP objective equals the evaluated one");
	is_double(r.x[0 * 2 + 1], 0.5, 1e-9, "tiny: A gets half the v100");
	ok(feasible(&p, &r), "tiny: max-min-perf feasible");
	dl_alloc_result_free(&r);

	is_int(run(&p, DL_ALLOC_MAX_MIN_FAIRNESS, 0, &r), 0, "tiny: agnostic solves");
	is_double(r.objective, 1, 1e-9, "tiny: agnostic objective 1 (all time used)");
	dl_alloc_result_free(&r);

	is_int(run(&p, DL_ALLOC_MAX_THROUGHPUT, 0, &r), 0, "tiny: max-throughput solves");
	is_double(r.objective, 5, 1e-9, "tiny: max-throughput 5");
	is_double(r.x[1 * 2 + 1], 1, 1e-9, "tiny: B owns the v100");
	dl_alloc_result_free(&r);

	is_int(run(&p, DL_ALLOC_MIN_MAKESPAN, 0, &r), 0, "tiny: min-makespan solves");
	is_double(r.objective, 100, 1e-6, "tiny: makespan 100 s");
	dl_alloc_result_free(&r);

	is_int(run(&p, DL_ALLOC_FINISH_TIME_FAIRNESS, 0, &r), 0, "tiny: ftf solves");
	is_double(r.objective, 1, 1e-5, "tiny: ftf rho 1");
	ok(feasible(&p, &r), "tiny: ftf feasible");
	dl_alloc_result_free(&r);

	/* time already waited raises rho: A waited 50 s -> rho_A = (50 + 100/rA) / (100/1.5) */
	p.jobs[0].elapsed = 50;
	is_int(run(&p, DL_ALLOC_FINISH_TIME_FAIRNESS, 0, &r), 0, "tiny: ftf with waiting");
	/* optimum equalises rho: A gets more; check rho_A == rho_B at the optimum */
	double ra = rate(&p, &r, 0), rb = rate(&p, &r, 1);
	double rho_a = (50 + 100 / ra) * 1.5 / 100, rho_b = (400 / rb) * 2.5 / 400;
	is_double(rho_a, rho_b, 1e-4, "tiny: ftf equalises rho (%g vs %g)", rho_a, rho_b);
	is_double(r.objective, rho_a > rho_b ? rho_a : rho_b, 1e-9,
		  "tiny: ftf objective is max rho");
	ok(r.objective > 1, "tiny: waiting made rho worse than 1");
	dl_alloc_result_free(&r);

	/* an SLO A cannot meet even alone (100 steps in 10 s): fallback, or exit 3 */
	p.cost[0] = 0.5;
	p.cost[1] = 3;
	p.jobs[0].slo = 10;
	is_int(run(&p, DL_ALLOC_MIN_COST, 0, &r), 0, "min-cost falls back without SLO rows");
	ok(strstr(r.note, "SLO") != NULL, "min-cost says it dropped the SLOs: %s", r.note);
	/* per dollar: A 2 on k80, 2/3 on v100; B 2, 4/3 -> A k80 + B v100 = 2 + 4/3 */
	is_double(r.objective, 2 + 4.0 / 3, 1e-9, "min-cost optimum per dollar");
	dl_alloc_result_free(&r);
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	o.policy = DL_ALLOC_MIN_COST;
	p.cost[1] = 0;
	is_int(dl_alloc_solve(&p, &o, &r, &err), -1, "min-cost without a price fails");
	ok(err.code == DL_EXIT_USAGE && strstr(err.msg, "'t1'"), "names the type: %s", err.msg);
	p.cost[1] = 3;
	o.strict_slo = 1;
	is_int(dl_alloc_solve(&p, &o, &r, &err), -1, "strict SLOs: no solution");
	is_int(err.code, DL_EXIT_NOSOL, "strict SLOs: exit 3");
	ok(strstr(err.msg, "infeasible") != NULL, "strict SLOs: says infeasible: %s", err.msg);
	/* a feasible SLO is met: B needs 400 steps in 200 s -> rate_B >= 2 */
	p.jobs[0].slo = 0;
	p.jobs[1].slo = 100;
	is_int(dl_alloc_solve(&p, &o, &r, &err), 0, "feasible SLO solves");
	ok(rate(&p, &r, 1) >= 4 - 1e-9, "B's SLO (4 steps/s) is met: %g", rate(&p, &r, 1));
	dl_alloc_result_free(&r);
	dl_alloc_problem_free(&p);
}

/* identical GPU types: heterogeneity-aware and agnostic max-min agree */
static void identical_types(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r;
	double cap[3] = {2, 1, 3};
	problem(&p, 3, cap);
	for (int i = 0; i < 9; i++) {
		double v = 1 + i * 0.7, t[3] = {v, v, v};
		char id[32];
		snprintf(id, sizeof(id), "j%d", i);
		size_t k = dl_alloc_problem_add_job(&p, id, 1 + i % 3, t);
		p.jobs[k].weight = 1 + i % 2;
	}
	is_int(run(&p, DL_ALLOC_MAX_MIN_FAIRNESS, 0, &r), 0, "identical: agnostic solves");
	double agn = r.objective;
	dl_alloc_result_free(&r);
	is_int(run(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0, "identical: aware solves");
	is_double(r.objective, agn, 1e-9, "identical types: aware == agnostic (%g)", agn);
	dl_alloc_result_free(&r);
	dl_alloc_problem_free(&p);
}

/* water-filling: entities share equally, and a saturated job's leftover is passed on */
static void water_filling(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r;
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	double cap[1] = {3}, one[1] = {1};
	problem(&p, 1, cap);
	dl_alloc_problem_add_job(&p, "x1", 1, one);
	dl_alloc_problem_add_job(&p, "x2", 1, one);
	dl_alloc_problem_add_job(&p, "y1", 1, one);
	/* max-min stops at level 1: x1, x2 may stay at 0.5 (one GPU idle) */
	is_int(run(&p, DL_ALLOC_WATER_FILLING, 0, &r), 0, "water-filling solves");
	for (size_t i = 0; i < 3; i++)
		is_double(rate(&p, &r, i), 1, 1e-6, "water-filling: job %zu runs full time", i);
	dl_alloc_result_free(&r);

	/* two entities with equal weights on 2 GPUs: x1, x2 share entity x's half */
	p.capacity[0] = 2;
	int ex = dl_alloc_problem_entity(&p, "x"), ey = dl_alloc_problem_entity(&p, "y");
	p.jobs[0].entity = p.jobs[1].entity = ex;
	p.jobs[2].entity = ey;
	o.policy = DL_ALLOC_WATER_FILLING;
	is_int(dl_alloc_solve(&p, &o, &r, &err), 0, "entities: solves");
	is_double(rate(&p, &r, 0), 0.5, 1e-6, "entities: x1 gets 0.5");
	is_double(rate(&p, &r, 1), 0.5, 1e-6, "entities: x2 gets 0.5");
	is_double(rate(&p, &r, 2), 1, 1e-6, "entities: y1 gets 1");
	ok(feasible(&p, &r), "entities: feasible");
	dl_alloc_result_free(&r);
	/* entity weights 3:1: x gets 3/4 of the 2 GPUs (0.75 each), y the rest */
	p.entity_weight[ex] = 3;
	is_int(dl_alloc_solve(&p, &o, &r, &err), 0, "weighted entities: solves");
	is_double(rate(&p, &r, 0) + rate(&p, &r, 1), 1.5, 1e-6, "weighted entities: x gets 1.5");
	is_double(rate(&p, &r, 2), 0.5, 1e-6, "weighted entities: y gets 0.5");
	dl_alloc_result_free(&r);
	/* fifo inside an entity: x1 first */
	p.entity_weight[ex] = 1;
	p.capacity[0] = 1.5;
	o.entity_fifo = 1;
	is_int(dl_alloc_solve(&p, &o, &r, &err), 0, "entity fifo: solves");
	ok(rate(&p, &r, 0) > rate(&p, &r, 1) + 0.2, "entity fifo: x1 before x2 (%g, %g)",
	   rate(&p, &r, 0), rate(&p, &r, 1));
	ok(feasible(&p, &r), "entity fifo: feasible");
	dl_alloc_result_free(&r);
	dl_alloc_problem_free(&p);
}

/* packing: two jobs at 1 step/s alone, 0.8 each when sharing one GPU */
static void packing(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r;
	double cap[1] = {1}, one[1] = {1};
	problem(&p, 1, cap);
	dl_alloc_problem_add_job(&p, "a", 1, one);
	dl_alloc_problem_add_job(&p, "b", 1, one);
	dl_alloc_problem_add_job(&p, "c", 2, one);
	p.jobs[0].klass = 0;
	p.jobs[1].klass = 0;
	p.jobs[2].klass = 1; /* 2 GPUs: may not pair with a 1-GPU job */
	p.nclasses = 2;
	p.pair_self = xcalloc(4, sizeof(double));
	p.pair_other = xcalloc(4, sizeof(double));
	for (int k = 0; k < 4; k++)
		p.pair_self[k] = p.pair_other[k] = NAN;
	p.pair_self[0] = p.pair_other[0] = 0.8;
	dl_alloc_prune_pairs(&p, 4);
	is_int(p.npairs, 1, "one candidate pair");
	ok(p.npairs == 1 && p.pairs[0].a == 0 && p.pairs[0].b == 1, "the pair is (a, b)");
	p.capacity[0] = 1;
	p.njobs = 2; /* c only mattered for pruning */
	is_int(run(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0, "unpacked max-min solves");
	is_double(r.objective, 0.5, 1e-9, "unpacked: each job gets half");
	dl_alloc_result_free(&r);
	is_int(run(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 1, &r), 0, "packed max-min solves");
	is_double(r.objective, 0.8, 1e-9, "packed: both run together at 0.8");
	ok(feasible(&p, &r), "packed: feasible (a pair counts once against capacity)");
	dl_alloc_result_free(&r);
	is_int(run(&p, DL_ALLOC_MAX_THROUGHPUT, 1, &r), 0, "packed max-throughput solves");
	is_double(r.objective, 1.6, 1e-9, "packed max-throughput 1.6");
	dl_alloc_result_free(&r);
	/* a pair that hurts (0.4 + 0.4 < 1) is no candidate */
	p.njobs = 3;
	p.pair_self[0] = p.pair_other[0] = 0.4;
	dl_alloc_prune_pairs(&p, 4);
	is_int(p.npairs, 0, "a harmful pair is pruned");
	dl_alloc_problem_free(&p);
}

/* a pair table over nclasses model classes, every entry unknown (NaN) */
static void pair_table(struct dl_alloc_problem *p, size_t nclasses)
{
	size_t n = nclasses * nclasses * p->ntypes;
	p->nclasses = nclasses;
	p->pair_self = xcalloc(n, sizeof(double));
	p->pair_other = xcalloc(n, sizeof(double));
	for (size_t k = 0; k < n; k++)
		p->pair_self[k] = p->pair_other[k] = NAN;
}

/* classes a, b on type t: a runs at va beside b, b at vb beside a (both orders) */
static void set_pair(struct dl_alloc_problem *p, size_t a, size_t b, size_t t, double va, double vb)
{
	size_t C = p->nclasses, n = p->ntypes;
	p->pair_self[(a * C + b) * n + t] = p->pair_other[(b * C + a) * n + t] = va;
	p->pair_other[(a * C + b) * n + t] = p->pair_self[(b * C + a) * n + t] = vb;
}

static int solve_packed(const struct dl_alloc_problem *p, enum dl_alloc_policy pol, int per_job,
			struct dl_alloc_result *res)
{
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	o.policy = pol;
	o.pack = 1;
	o.per_job = per_job;
	int rc = dl_alloc_solve(p, &o, res, &err);
	if (rc)
		printf("# %s: %s\n", dl_alloc_policy_name(pol), err.msg);
	return rc;
}

/*
 * Merged packing, by hand: three identical jobs (1 step/s alone, 0.8 each
 * when two share a GPU) on one GPU. Every pair shares a third of the time:
 * each job is in two pairs, 2/3 of its time at 0.8 -> 8/15 (alone, a third
 * each: 1/3). Per job that is Gavel's LP over the pairs (0,1), (0,2), (1,2).
 */
static void packing_merged_by_hand(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r, pj;
	double cap[1] = {1}, one[1] = {1};
	problem(&p, 1, cap);
	for (int i = 0; i < 3; i++) {
		char id[32];
		snprintf(id, sizeof(id), "j%d", i);
		size_t k = dl_alloc_problem_add_job(&p, id, 1, one);
		p.jobs[k].klass = 0;
	}
	pair_table(&p, 1);
	set_pair(&p, 0, 0, 0, 0.8, 0.8);
	dl_alloc_prune_pairs(&p, 4);
	is_int(p.npairs, 3, "by hand: a job with fewer partners than asked gets all of them");
	is_int(solve_packed(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0,
	       "by hand: merged solves");
	is_int(r.merged, 1, "by hand: one class");
	is_int(r.merged_pairs, 1, "by hand: one pair of classes");
	is_double(r.objective, 8.0 / 15, 1e-9, "by hand: every job at 8/15");
	is_double(r.lp_objective, 8.0 / 15, 1e-9, "by hand: the LP's optimum is the output's");
	is_int(r.npairs, 3, "by hand: a cycle of three pairs");
	for (size_t k = 0; k < r.npairs; k++)
		is_double(r.px[k], 1.0 / 3, 1e-9, "by hand: pair %zu shares a third", k);
	ok(feasible(&p, &r), "by hand: feasible");
	is_int(solve_packed(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 1, &pj), 0, "by hand: per job");
	is_double(pj.objective, 8.0 / 15, 1e-9, "by hand: per job the same 8/15");
	dl_alloc_result_free(&r);
	dl_alloc_result_free(&pj);
	dl_alloc_problem_free(&p);
}

/*
 * Merged packing equals Gavel's per-job LP over every pair (--per-job with
 * all partners) on random instances: 1-3 types, 1-4 model classes with
 * 1 or 2 GPUs, symmetric pair rates that help or not, 2-16 jobs with
 * weights 1 or 2. Checked: same objective, a feasible output, identical
 * jobs at identical rates.
 */
static void packing_merged_random(void)
{
	struct dl_rng g;
	int same = 0, feas = 0, equal_rates = 0, merged = 0, shared = 0, cases = 60;
	double worst = 0;
	dl_rng_seed(&g, 15);
	for (int c = 0; c < cases; c++) {
		struct dl_alloc_problem p;
		size_t n = 1 + dl_rng_below(&g, 3), C = 1 + dl_rng_below(&g, 4);
		double cap[3], tput[4][3];
		int gpus[4];
		for (size_t t = 0; t < n; t++)
			cap[t] = (double)dl_rng_below(&g, 5);
		cap[0] += 1;
		problem(&p, n, cap);
		pair_table(&p, C);
		for (size_t k = 0; k < C; k++) {
			gpus[k] = 1 + (int)dl_rng_below(&g, 2);
			for (size_t t = 0; t < n; t++)
				tput[k][t] = dl_rng_below(&g, 5) ? 1 + 9 * dl_rng_uniform(&g) : 0;
			tput[k][0] += 1;
		}
		for (size_t a = 0; a < C; a++)
			for (size_t b = a; b < C; b++)
				for (size_t t = 0; t < n && gpus[a] == gpus[b]; t++) {
					double f = a == b ? 0.3 + 0.5 * dl_rng_uniform(&g) : 0;
					double fa = a == b ? f : 0.3 + 0.5 * dl_rng_uniform(&g);
					double fb = a == b ? f : 0.3 + 0.5 * dl_rng_uniform(&g);
					set_pair(&p, a, b, t, fa * tput[a][t], fb * tput[b][t]);
				}
		size_t m = 2 + dl_rng_below(&g, 15);
		for (size_t i = 0; i < m; i++) {
			size_t k = dl_rng_below(&g, C);
			char id[32];
			snprintf(id, sizeof(id), "j%zu", i);
			size_t j = dl_alloc_problem_add_job(&p, id, gpus[k], tput[k]);
			p.jobs[j].klass = (int)k;
			p.jobs[j].weight = 1 + (double)dl_rng_below(&g, 2);
		}
		dl_alloc_prune_pairs(&p, 1000); /* every partner: Gavel's LP */
		enum dl_alloc_policy pol =
			c % 2 ? DL_ALLOC_MAX_THROUGHPUT : DL_ALLOC_MAX_MIN_FAIRNESS_PERF;
		struct dl_alloc_result r, pj;
		if (solve_packed(&p, pol, 0, &r) || solve_packed(&p, pol, 1, &pj)) {
			dl_alloc_problem_free(&p);
			continue;
		}
		double d = fabs(r.objective - pj.objective) / fmax(1, fabs(pj.objective));
		worst = d > worst ? d : worst;
		same += d <= 1e-9 && fabs(r.lp_objective - pj.lp_objective) <=
					     1e-9 * fmax(1, fabs(pj.lp_objective));
		feas += feasible(&p, &r);
		merged += r.merged_pairs > 0 || !p.npairs;
		for (size_t k = 0, any = 0; k < r.npairs * n && !any; k++)
			shared += any = r.px[k] > 1e-9;
		int eq = 1;
		for (size_t i = 0; i < m; i++)
			for (size_t k = 0; k < i; k++)
				if (p.jobs[i].klass == p.jobs[k].klass &&
				    p.jobs[i].weight == p.jobs[k].weight)
					eq &= fabs(rate(&p, &r, i) - rate(&p, &r, k)) <= 1e-9;
		equal_rates += eq;
		dl_alloc_result_free(&r);
		dl_alloc_result_free(&pj);
		dl_alloc_problem_free(&p);
	}
	is_int(same, cases, "random: merged packing's optimum is per-job Gavel's (worst %.1e)",
	       worst);
	is_int(feas, cases, "random: merged packing's output is feasible");
	is_int(equal_rates, cases, "random: identical jobs run at identical rates");
	is_int(merged, cases, "random: every packed instance was solved merged");
	ok(shared >= cases / 3, "random: %d of %d optimal allocations share GPUs", shared, cases);
}

/* merged packing falls back to per-job candidates, and says why */
static void packing_fallbacks(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r, pj;
	double cap[1] = {2}, one[1] = {1};
	problem(&p, 1, cap);
	for (int i = 0; i < 12; i++) {
		char id[32];
		snprintf(id, sizeof(id), "j%d", i);
		size_t k = dl_alloc_problem_add_job(&p, id, 1, one);
		p.jobs[k].klass = i % 2;
		p.jobs[k].weight = 1 + i; /* no two alike: 12 classes, 66 pairs of them */
	}
	pair_table(&p, 2);
	set_pair(&p, 0, 0, 0, 0.7, 0.7);
	set_pair(&p, 0, 1, 0, 0.6, 0.6);
	set_pair(&p, 1, 1, 0, 0.7, 0.7);
	dl_alloc_prune_pairs(&p, 4);
	is_int(solve_packed(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0, "too many: solves");
	ok(strstr(r.note, "too many") && !r.merged_pairs, "too many pairs of classes: %s", r.note);
	is_int(solve_packed(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 1, &pj), 0, "too many: per job");
	is_double(r.objective, pj.objective, 1e-12, "too many: the per-job candidate LP");
	dl_alloc_result_free(&r);
	dl_alloc_result_free(&pj);
	/* class 0 beside class 1 runs at 0.6 in its own row, 0.5 in class 1's row */
	for (size_t i = 0; i < p.njobs; i++)
		p.jobs[i].weight = 1;
	p.pair_other[(1 * 2 + 0) * 1 + 0] = 0.5;
	is_int(solve_packed(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0, "asymmetric: solves");
	ok(strstr(r.note, "not symmetric") && !r.merged_pairs, "asymmetric rates: %s", r.note);
	ok(feasible(&p, &r), "asymmetric: feasible");
	dl_alloc_result_free(&r);
	p.pair_other[(1 * 2 + 0) * 1 + 0] = 0.6;
	is_int(solve_packed(&p, DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, &r), 0, "symmetric: solves");
	ok(!r.note[0] && r.merged_pairs == 3, "symmetric: merged, 3 pairs of classes (%zu)",
	   r.merged_pairs);
	dl_alloc_result_free(&r);
	dl_alloc_problem_free(&p);
}

/*
 * Water-filling per job, by hand: one type with 4 GPUs, a and b on 1 GPU, c
 * on 2, all at 1 step/s (prop = 1), weights 1. Round 1: the level s_i NET_i
 * rises to 1 (a and b full time, c half time, 3 GPUs); a and b cannot rise
 * (time), c can: round 2 gives c the fourth GPU (level 2).
 */
static void water_filling_rounds(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r;
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	double cap[1] = {4}, one[1] = {1};
	problem(&p, 1, cap);
	dl_alloc_problem_add_job(&p, "a", 1, one);
	dl_alloc_problem_add_job(&p, "b", 1, one);
	dl_alloc_problem_add_job(&p, "c", 2, one);
	o.policy = DL_ALLOC_WATER_FILLING;
	o.per_job = 1;
	is_int(dl_alloc_solve(&p, &o, &r, &err), 0, "rounds: solves");
	is_double(r.x[0], 1, 1e-9, "rounds: a full time");
	is_double(r.x[1], 1, 1e-9, "rounds: b full time");
	is_double(r.x[2], 1, 1e-9, "rounds: c full time after the second round");
	/* two rounds of level LP and bottleneck test, then the last level LP from scratch */
	is_int(r.lp_solves, 5, "rounds: two rounds, then the allocation's LP");
	is_double(r.objective, 1, 1e-9, "rounds: the minimum level is 1");
	dl_alloc_result_free(&r);
	dl_alloc_problem_free(&p);
}

/* pruning keeps a few partners per job, spread over the jobs of the class */
static void pruning(void)
{
	struct dl_alloc_problem p;
	double cap[1] = {4}, one[1] = {1};
	problem(&p, 1, cap);
	for (int i = 0; i < 20; i++) {
		char id[32];
		snprintf(id, sizeof(id), "j%d", i);
		size_t k = dl_alloc_problem_add_job(&p, id, 1, one);
		p.jobs[k].klass = 0;
	}
	p.nclasses = 1;
	p.pair_self = xcalloc(1, sizeof(double));
	p.pair_other = xcalloc(1, sizeof(double));
	p.pair_self[0] = p.pair_other[0] = 0.7;
	dl_alloc_prune_pairs(&p, 2);
	int deg[20] = {0}, maxdeg = 0, dup = 0;
	for (size_t k = 0; k < p.npairs; k++) {
		deg[p.pairs[k].a]++;
		deg[p.pairs[k].b]++;
		if (k && p.pairs[k].a == p.pairs[k - 1].a && p.pairs[k].b == p.pairs[k - 1].b)
			dup++;
		if (p.pairs[k].a >= p.pairs[k].b)
			dup++;
	}
	for (int i = 0; i < 20; i++)
		maxdeg = deg[i] > maxdeg ? deg[i] : maxdeg;
	ok(p.npairs >= 20 && p.npairs <= 40, "2 partners per job: %zu pairs for 20 jobs", p.npairs);
	/* 2 proposed + about 2 received; never piled on a few jobs */
	ok(maxdeg <= 6, "partners spread over the class (max degree %d)", maxdeg);
	is_int(dup, 0, "pairs are unique and ordered (a < b)");
	is_int(deg[0] > 0 && deg[19] > 0, 1, "the first and last jobs both have partners");
	dl_alloc_problem_free(&p);
}

/* POP partitions: feasible, deterministic per seed, close to the exact optimum */
static void partitions(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r1, r2, ex;
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	double cap[3] = {8, 8, 8};
	problem(&p, 3, cap);
	for (int i = 0; i < 40; i++) {
		double t[3] = {1 + i % 3, 2 + i % 5, 4 + i % 7};
		char id[32];
		snprintf(id, sizeof(id), "j%d", i);
		dl_alloc_problem_add_job(&p, id, 1 + (i % 4 == 0), t);
	}
	o.policy = DL_ALLOC_MAX_THROUGHPUT;
	is_int(dl_alloc_solve(&p, &o, &ex, &err), 0, "exact solves");
	o.partitions = 4;
	o.seed = 7;
	is_int(dl_alloc_solve(&p, &o, &r1, &err), 0, "4 partitions solve");
	is_int(dl_alloc_solve(&p, &o, &r2, &err), 0, "again with the same seed");
	ok(!memcmp(r1.x, r2.x, 40 * 3 * sizeof(double)), "same seed, same allocation");
	ok(feasible(&p, &r1), "partitioned allocation is feasible for the whole cluster");
	is_int(r1.lp_solves, 4, "one LP per partition");
	ok(r1.objective <= ex.objective + 1e-9 && r1.objective >= 0.9 * ex.objective,
	   "partitioned objective %g within 10%% below the exact %g", r1.objective, ex.objective);
	dl_alloc_result_free(&r1);
	dl_alloc_result_free(&r2);
	dl_alloc_result_free(&ex);
	dl_alloc_problem_free(&p);
}

/* baselines */
static void baselines(void)
{
	struct dl_alloc_problem p;
	struct dl_alloc_result r;
	double cap[2] = {2, 1};
	problem(&p, 2, cap);
	double t[2] = {1, 3};
	for (int i = 0; i < 4; i++) {
		char id[32];
		snprintf(id, sizeof(id), "j%d", i);
		dl_alloc_problem_add_job(&p, id, 1, t);
	}
	is_int(run(&p, DL_ALLOC_FIFO_PERF, 0, &r), 0, "fifo-perf");
	is_double(r.x[0 * 2 + 1], 1, 0, "fifo-perf: first job takes the fast type");
	is_double(r.x[1 * 2 + 0] + r.x[2 * 2 + 0], 2, 0, "fifo-perf: next two the slow GPUs");
	is_double(r.x[3 * 2 + 0] + r.x[3 * 2 + 1], 0, 0, "fifo-perf: the fourth waits");
	dl_alloc_result_free(&r);
	is_int(run(&p, DL_ALLOC_ISOLATED, 0, &r), 0, "isolated");
	/* N_j / m: 2/4 and 1/4 of each type */
	is_double(r.x[0], 0.5, 1e-12, "isolated: N_0/m");
	is_double(r.x[1], 0.25, 1e-12, "isolated: N_1/m");
	ok(feasible(&p, &r), "isolated feasible");
	dl_alloc_result_free(&r);
	/* a job that runs nowhere is a clear no-solution */
	double none[2] = {0, 0};
	dl_alloc_problem_add_job(&p, "stuck", 1, none);
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	is_int(dl_alloc_solve(&p, &o, &r, &err), -1, "a job with no throughput fails");
	ok(err.code == DL_EXIT_NOSOL && strstr(err.msg, "'stuck'"), "names the job: %s", err.msg);
	dl_alloc_problem_free(&p);
}

int main(void)
{
	tiny();
	identical_types();
	water_filling();
	packing();
	packing_merged_by_hand();
	packing_merged_random();
	packing_fallbacks();
	water_filling_rounds();
	pruning();
	partitions();
	baselines();
	return done_testing();
}
