/*
 * alloc.h: Gavel's heterogeneity-aware allocation policies (OSDI'20) as
 * linear programs on GLPK, plus the non-LP baselines it compares against.
 *
 * An allocation X[i][j] is the fraction of wall-clock time job i spends on
 * GPU type j (on `gpus` GPUs of that type at once). Every policy respects
 * Gavel's base constraints:
 *     0 <= X_ij <= 1,   sum_j X_ij <= 1 (each job),   sum_i s_i X_ij <= N_j (each type)
 * with s_i the job's GPU count and N_j the GPUs of type j. A job never gets
 * time on a type where its throughput is 0. With packing, a pair c = {a, b}
 * of jobs with the same s shares the same GPUs: X_cj counts against both
 * jobs' time and once against capacity. The formulas are in
 * dlsched-allocate(1); notes/gavel.md has their source.
 *
 * Ownership: struct dl_alloc_problem owns everything inside it (ids,
 * throughput arrays, pair tables) once built with the dl_alloc_problem_*
 * functions, and dl_alloc_problem_free() releases it. struct
 * dl_alloc_result owns its arrays; dl_alloc_result_free() releases them.
 * No function keeps state between calls; randomness (partitions, gandiva,
 * fifo) comes only from opts.seed.
 */
#ifndef DL_POLICY_ALLOC_H
#define DL_POLICY_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"
#include "lp/lp.h"

enum dl_alloc_policy {
	DL_ALLOC_MAX_MIN_FAIRNESS,	/* heterogeneity-agnostic LAS */
	DL_ALLOC_MAX_MIN_FAIRNESS_PERF, /* heterogeneity-aware, normalised by the proportional share
					 */
	DL_ALLOC_FINISH_TIME_FAIRNESS,	/* Themis rho, bisection on rho */
	DL_ALLOC_MIN_MAKESPAN,		/* one LP through y = 1/T */
	DL_ALLOC_MAX_THROUGHPUT,
	DL_ALLOC_MIN_COST,	/* throughput per dollar, SLO rows with fallback */
	DL_ALLOC_WATER_FILLING, /* hierarchical max-min water-filling */
	DL_ALLOC_FIFO,
	DL_ALLOC_FIFO_PERF,
	DL_ALLOC_ISOLATED,
	DL_ALLOC_GANDIVA,
	DL_ALLOC_NPOLICIES
};

/* 0 and *out set, or -1 for an unknown name */
int dl_alloc_policy_parse(const char *name, enum dl_alloc_policy *out);
const char *dl_alloc_policy_name(enum dl_alloc_policy p);
/* the i-th name, NULL after the last (an option table's value list) */
const char *dl_alloc_policy_at(size_t i);
/* does the policy support --pack (space sharing in the LP)? */
int dl_alloc_policy_packs(enum dl_alloc_policy p);

struct dl_alloc_job {
	char *id;
	int gpus;	   /* s_i >= 1 */
	double weight;	   /* priority weight > 0 (Gavel's w_i) */
	double steps;	   /* remaining steps r_i (makespan, finish-time fairness, SLOs) */
	double steps_done; /* steps already run (finish-time fairness' isolated time so far) */
	double elapsed;	   /* seconds since the job arrived (finish-time fairness) */
	double slo;	   /* seconds from now to the job's deadline; <= 0: none */
	int entity;	   /* index into entity_weight, -1 if none */
	int klass;	   /* index of its (model, gpus) class for pair throughputs, -1 if none */
	double *tput;	   /* [ntypes] steps/s of the whole job on `gpus` GPUs of each type */
	double count;	   /* identical jobs it stands for: 1, more only inside merged LPs */
};

/* a candidate pair for space sharing: jobs a < b with equal gpus */
struct dl_alloc_pair {
	int a, b;
	double *tput_a, *tput_b; /* [ntypes] each job's steps/s while sharing */
};

struct dl_alloc_problem {
	size_t njobs, ntypes;
	struct dl_alloc_job *jobs;
	char **type_names;
	double *capacity; /* [ntypes] N_j, GPUs (fractional after partitioning) */
	double *cost;	  /* [ntypes] dollars per GPU-hour (min-cost), 0 = unknown */
	size_t nentities;
	char **entity_names;
	double *entity_weight; /* [nentities] */
	/*
	 * Pair throughputs by class: for classes ca, cb and type t,
	 * pair_self[(ca * nclasses + cb) * ntypes + t] is ca's steps/s next to
	 * cb and pair_other[...] cb's; NaN when unknown. NULL when no data.
	 */
	size_t nclasses;
	double *pair_self, *pair_other;
	struct dl_alloc_pair *pairs; /* from dl_alloc_prune_pairs() */
	size_t npairs;
};

void dl_alloc_problem_init(struct dl_alloc_problem *p, size_t ntypes);
/* name (copied), GPU count and dollars per GPU-hour of type t */
void dl_alloc_problem_set_type(struct dl_alloc_problem *p, size_t t, const char *name, double gpus,
			       double cost);
/* add a job; the id is copied, tput (ntypes values) copied; returns its index */
size_t dl_alloc_problem_add_job(struct dl_alloc_problem *p, const char *id, int gpus,
				const double *tput);
/* entity index for name, adding it with weight 1 if new */
int dl_alloc_problem_entity(struct dl_alloc_problem *p, const char *name);
void dl_alloc_problem_free(struct dl_alloc_problem *p);

/*
 * Space sharing candidates: for each job, up to `per_job` partners with the
 * same gpus whose pair raises the combined normalised throughput
 * (tput_a/alone_a + tput_b/alone_b > 1 on some type, Gandiva's test), best
 * first, spread over the jobs of each class; all of them when the job has
 * at most `per_job`. Fills p->pairs (used by --per-job packing).
 */
void dl_alloc_prune_pairs(struct dl_alloc_problem *p, int per_job);

struct dl_alloc_opts {
	enum dl_alloc_policy policy;
	int pack;	/* use p->pairs */
	int partitions; /* POP: solve K random job groups with N_j/K GPUs each (1 = off) */
	uint64_t seed;
	int entity_fifo;  /* water-filling inside an entity: 0 fairness, 1 fifo */
	int strict_slo;	  /* min-cost: infeasible SLO rows are an error, not dropped */
	int per_job;	  /* one LP row per job: no merging of identical jobs (below) */
	double tolerance; /* relative, for the finish-time fairness bisection */
	struct dl_lp_opts lp;
	const char *dump_model; /* write the (last) LP here; PATH.K per partition */
};

#define DL_ALLOC_OPTS_INIT                                                                    \
	{                                                                                     \
		DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, 1, 0, 0, 0, 0, 1e-6, DL_LP_OPTS_INIT, NULL \
	}

struct dl_alloc_result {
	double *x; /* [njobs * ntypes] */
	struct dl_alloc_pair
		*pairs; /* the pairs px refers to (owned; job indices of the problem) */
	size_t npairs;
	double *px;	  /* [npairs * ntypes] time fractions of each pair, NULL without pairs */
	double objective; /* the policy's objective evaluated on the allocation */
	const char *objective_name;
	double lp_objective; /* objective of the last LP solved (NaN if none) */
	int lp_solves;
	double lp_seconds;
	int lp_rows, lp_cols; /* of the last LP (of the first partition) */
	size_t merged; /* LP rows stood for this many classes of identical jobs (0: not merged) */
	size_t merged_pairs; /* with --pack, LP pair variables for this many pairs of classes */
	char note[256];	     /* a fallback that was taken, or "" */
};

/*
 * Solve. Unless opts.per_job, jobs that are identical for the policy (same
 * gpus, weight and throughputs; also steps, steps_done, elapsed and slo where
 * the policy uses them) share one set of LP variables and rows, with their
 * count in the capacity rows and objective. This is exact: averaging any
 * optimum over identical jobs keeps it feasible and optimal (the LPs are
 * convex and symmetric in such jobs), so the optimum is the same, and
 * identical jobs get identical allocations. For water-filling, identical
 * jobs (also in the same entity) can rise together whenever one can (by the
 * same averaging), so they freeze together; with fifo inside entities they
 * are not identical and are never merged.
 *
 * Packed (opts.pack), identical jobs must also share the model class (their
 * pair throughputs), and the LP has one pair variable per pair of classes
 * A <= B whose models pass Gandiva's test (see dl_alloc_prune_pairs): the
 * total time of all pairs of their jobs. That is Gavel's packed LP over every
 * pair of jobs (p->pairs is not used), merged the same way, so its optimum is
 * the same; res->pairs then holds a few pairs of jobs per pair of classes
 * that give every job exactly its class's time and rates (res->merged_pairs
 * counts the pairs of classes). The pairs left out (normalised packed
 * throughput <= 1 on every type where both jobs run alone) cannot raise any
 * objective there: on such a type, taking turns at the same rates needs no
 * more time from either job and no more GPUs. (Pair rates on a type where
 * one of the jobs cannot run alone are not considered.) Packed problems
 * are solved per job on the candidates in p->pairs instead (res->note says
 * why) when the pair throughputs are not symmetric (a's rate beside b
 * differs from the partner rate b's row gives for a) or when the pairs of
 * classes outnumber both p->npairs and 4 per job.
 */
int dl_alloc_solve(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		   struct dl_alloc_result *res, struct dl_err *err);
void dl_alloc_result_free(struct dl_alloc_result *res);

/* Gavel's normalisers: the job's throughput under an equal share of the cluster */
double dl_alloc_prop_tput(const struct dl_alloc_problem *p, size_t i);
double dl_alloc_iso_tput(const struct dl_alloc_problem *p, size_t i);

#endif
