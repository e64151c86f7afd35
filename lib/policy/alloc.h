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
 * dlsched-allocate(1), POLICIES, with the papers they come from.
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
	/*
	 * finish-time fairness: seconds the steps done would have taken at the
	 * job's isolated throughput (Gavel's cumulative isolated time, summed
	 * with the isolated throughput of each re-solve); < 0 (the default):
	 * steps_done / its isolated throughput now
	 */
	double iso_done;
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
	char **class_model; /* [nclasses] the model and gpus of each class (owned) */
	int *class_gpus;
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
/* d = a copy of p (initialised here): all but the candidate pairs, and the jobs if with_jobs */
void dl_alloc_problem_copy(struct dl_alloc_problem *d, const struct dl_alloc_problem *p,
			   int with_jobs);

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
	int pair_candidates;	/* a session's dl_alloc_prune_pairs (0 = 4, as allocate) */
	/*
	 * fifo, fifo-perf: stop at the first job that fits on no type (Gavel's
	 * head of line) instead of passing it over
	 */
	int head_of_line;
	/*
	 * fifo (simulate --compat gavel): Gavel's code as it runs: each job goes
	 * to the listed type last by name, whatever type it drew (see fifo() in
	 * alloc.c); implies head_of_line
	 */
	int fifo_last_type;
};

#define DL_ALLOC_OPTS_INIT                                                                        \
	{                                                                                         \
		DL_ALLOC_MAX_MIN_FAIRNESS_PERF, 0, 1, 0, 0, 0, 0, 1e-6, DL_LP_OPTS_INIT, NULL, 0, \
			0, 0                                                                      \
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
 * classes outnumber p->npairs, 4 per job and 1024.
 */
int dl_alloc_solve(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		   struct dl_alloc_result *res, struct dl_err *err);
void dl_alloc_result_free(struct dl_alloc_result *res);

/*
 * What a policy is, one row per policy (alloc.c), for every caller:
 * allocate, simulate --policy gavel and the re-solve session ask the row,
 * never the enum. The same shape as the simulator's policy registry
 * (lib/sim/registry.c): a new policy is its solver and its row.
 */
struct dl_alloc_policy_info {
	const char *name;
	int lp;	      /* solves linear programs (--dump-model writes them) */
	int packs;    /* --pack: space sharing (LP pair columns, or gandiva's own pairs) */
	int agnostic; /* blind to the types' speeds (Gavel shuffles the type order for these) */
	int fifo;     /* first come, first served: priority 0 never runs (Gavel's rounds) */
	int progress; /* reads each job's progress (steps, elapsed, SLO): no merging in a session */
	int entities; /* reads the jobs' entities (hierarchical: entity weights and policy) */
	/* the allocation in res (x, and px with pairs): 0, or -1 with *err */
	int (*solve)(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		     struct dl_alloc_result *res, struct dl_err *err);
	/* its objective on an allocation; *what names it */
	double (*objective)(const struct dl_alloc_problem *p, const struct dl_alloc_result *res,
			    const double *rate, const char **what);
};

/* the row of policy p, or NULL for a value out of the enum */
const struct dl_alloc_policy_info *dl_alloc_policy_info(enum dl_alloc_policy p);
/*
 * --pack with a policy that cannot pack: -1 and a usage error naming the
 * policies that can (0 when pack is 0 or the policy packs)
 */
int dl_alloc_check_pack(enum dl_alloc_policy p, int pack, struct dl_err *err);

/*
 * Re-solve sessions: one allocation problem whose jobs arrive, progress and
 * leave, re-solved after each change far faster than dl_alloc_solve from
 * scratch, with the same optimum (what a round-based driver such as Gavel's
 * needs: a re-solve on every arrival and completion).
 *
 * dl_alloc_session_new() takes a copy of p's cluster (types, capacity,
 * cost), entities, model classes and pair throughputs (dl_alloc_model_classes
 * in alloc_input.h fills them for a throughputs table), and of o; p's jobs,
 * if any, are added in order. Jobs are then added (copied: id, throughputs,
 * progress; count is ignored; klass and entity index p's classes and
 * entities, -1 for none; iso_done -1 unless the job brings its cumulative
 * isolated time, as dl_alloc_problem_add_job sets it) and removed by handle;
 * handles are 0, 1, 2, ... in the order of addition and never reused.
 * Changes cost nothing until the next solve. dl_alloc_session_progress()
 * sets a job's remaining steps, steps done and seconds since its arrival; a
 * job's SLO is its deadline: `slo` seconds after its elapsed time when added
 * (so it shrinks as elapsed grows, and 0 once passed = none).
 *
 * dl_alloc_session_solve() fills res for the active jobs, in the order they
 * were added: dl_alloc_session_problem() is that job set as a problem
 * (job i of res->x, res->pairs is its job i, dl_alloc_session_handle(i) its
 * handle). The optimum equals dl_alloc_solve()'s on that problem; where it
 * is not unique, the allocation may differ (a warm LP ends at another optimal
 * vertex). Finish-time fairness carries Gavel's cumulative isolated time:
 * every solve adds to each job's iso_done the steps run since the previous
 * solve at the isolated throughput of that solve (the view's jobs hold it, so
 * dl_alloc_solve on the view gives the same rho). The view's candidate pairs
 * (p->pairs) are whatever a fallback last computed: prune a copy
 * (dl_alloc_problem_copy) to solve it packed from scratch.
 *
 * How: max-min-fairness(-perf), finish-time-fairness, min-makespan,
 * max-throughput and min-cost keep one LP (the merged LP of dl_alloc_solve;
 * one class per job for the last three policies, whose rows read a job's
 * progress) and re-solve it from the last basis; --pack keeps one column per
 * pair of classes and type, and falls back to dl_alloc_solve whenever
 * dl_alloc_solve would not take every pair (asymmetric pair throughputs, too
 * many pairs of classes, per_job). Finish-time fairness starts from the last
 * rho and takes a few LPs instead of a bisection. water-filling, fifo,
 * fifo-perf, isolated, gandiva and partitions > 1 call dl_alloc_solve on the
 * view (they are cheap or random per job set). No presolver (it would drop
 * the basis); dump_model is ignored.
 *
 * Ownership: the session owns its copies; dl_alloc_session_free() releases
 * them. res is the caller's (dl_alloc_result_free). Not thread-safe.
 */
struct dl_alloc_session;

struct dl_alloc_session_stats {
	long adds, removes, solves;
	long warm, scratch;	    /* solves on the kept LP, through dl_alloc_solve */
	long lp_solves, iterations; /* iterations: of the kept LP only */
	double lp_seconds;
};

/* NULL with *err on bad options (a policy that cannot pack, min-cost without prices) */
struct dl_alloc_session *dl_alloc_session_new(const struct dl_alloc_problem *p,
					      const struct dl_alloc_opts *o, struct dl_err *err);
/* its handle (>= 0), or -1 with *err (bad values, a job that runs on no type of the cluster) */
int64_t dl_alloc_session_add(struct dl_alloc_session *s, const struct dl_alloc_job *j,
			     struct dl_err *err);
/* 0, or -1 for an unknown handle */
int dl_alloc_session_remove(struct dl_alloc_session *s, int64_t handle);
/* 0, or -1 for an unknown handle or a value out of range */
int dl_alloc_session_progress(struct dl_alloc_session *s, int64_t handle, double steps_left,
			      double steps_done, double elapsed);
/* the index of an entity for jobs' `entity` (water-filling), added with weight 1 if new */
int dl_alloc_session_entity(struct dl_alloc_session *s, const char *name);
/* 0 and res filled, or -1 with *err (as dl_alloc_solve) */
int dl_alloc_session_solve(struct dl_alloc_session *s, struct dl_alloc_result *res,
			   struct dl_err *err);
/*
 * the view (and below, its jobs' handles and indices): not const, as a
 * removal leaves its job's place in the view until the view is next read
 */
const struct dl_alloc_problem *dl_alloc_session_problem(struct dl_alloc_session *s);
int64_t dl_alloc_session_handle(struct dl_alloc_session *s, size_t i);
/* the job index of a handle, or -1 */
long dl_alloc_session_index(struct dl_alloc_session *s, int64_t handle);
const struct dl_alloc_session_stats *dl_alloc_session_stats(const struct dl_alloc_session *s);
/*
 * Warm solves from now on leave res->objective NaN (a driver that reads only
 * the allocation: evaluating the objective is a pass over every job a solve)
 */
void dl_alloc_session_skip_objective(struct dl_alloc_session *s);
/*
 * X per class of identical jobs, for a driver that reads the allocation of
 * many jobs at every solve (Gavel's): after dl_alloc_session_by_class(), a
 * warm solve leaves res->x NULL and res->objective NaN (pairs are filled as
 * before), so that it costs the classes, not the jobs. A solve through
 * dl_alloc_solve (the policies and cases that are not warm) still fills
 * res->x. dl_alloc_session_class() is a job's class, fixed while the job is
 * in the session (-1: an unknown handle, or a session that is never warm).
 * dl_alloc_session_class_x() is X of the classes at the last warm solve that
 * returned 0, ntypes values a class at class * ntypes: a job's X if it was
 * in the session then, valid until the next solve.
 */
void dl_alloc_session_by_class(struct dl_alloc_session *s);
long dl_alloc_session_class(const struct dl_alloc_session *s, int64_t handle);
const double *dl_alloc_session_class_x(const struct dl_alloc_session *s);
void dl_alloc_session_free(struct dl_alloc_session *s);

/* Gavel's normalisers: the job's throughput under an equal share of the cluster */
double dl_alloc_prop_tput(const struct dl_alloc_problem *p, size_t i);
double dl_alloc_iso_tput(const struct dl_alloc_problem *p, size_t i);

#endif
