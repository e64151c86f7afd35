/*
 * priority.h: ordering a job queue by the published priority policies.
 *
 * One decision at a time `now`: given each job's state (how long it ran, its
 * attained GPU-seconds, how long it has waited, ...), compute its priority
 * value, its MLFQ queue and its rank. Used by `dlsched prioritize` (one
 * decision over a table of jobs) and by the simulator (every decision), so
 * the per-job functions below are cheap and allocate nothing.
 *
 * Policies (the priority value and which way is better):
 *   fifo        submit time, earliest first (with weights: heaviest first)
 *   sjf         duration (oracle), shortest first
 *   srtf        remaining run time (oracle), shortest first
 *   las         executed seconds, least first
 *   2d-las      attained GPU-seconds (gpus x executed), least first
 *   gittins     Gittins index of executed seconds, highest first
 *   2d-gittins  Gittins index of attained GPU-seconds, highest first
 *   ftf         Themis finish-time fairness rho, highest (least fair) first:
 *                 rho = (now - submit + remaining) / ideal
 *               with ideal = duration, or with a cluster of G GPUs shared by
 *               the n jobs, duration x gpus / min(gpus, G / n).
 * With weights, "least first" values are divided by the weight and "highest
 * first" values multiplied by it.
 *
 * MLFQ (every policy but ftf): with more than one queue a job's queue comes
 * from its service (executed seconds, or attained GPU-seconds for the 2d
 * policies) and the starvation rule (mlfq.h); lower queues first. Inside a
 * queue, las and 2d-las are FIFO (Tiresias' discretised LAS, the same as
 * fifo with queues), the Gittins policies go by the index (Tiresias'
 * 2D-Gittins) and fifo, sjf and srtf by their own value. With a single
 * queue, every policy is its plain continuous order.
 *
 * Ties always break by submit time, then id (integers numerically and before
 * other ids, which compare bytewise), then input position, so the order is
 * total and reproducible.
 */
#ifndef DL_POLICY_PRIORITY_H
#define DL_POLICY_PRIORITY_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "policy/gittins.h"
#include "policy/mlfq.h"

enum dl_policy {
	DL_POLICY_FIFO = 0,
	DL_POLICY_SJF,
	DL_POLICY_SRTF,
	DL_POLICY_LAS,
	DL_POLICY_LAS2D,
	DL_POLICY_GITTINS,
	DL_POLICY_GITTINS2D,
	DL_POLICY_FTF,
	DL_POLICY_COUNT,
};

/* what a policy reads from a job (struct dl_prio_job fields), as bits */
enum {
	DL_NEED_DURATION = 1 << 0,
	DL_NEED_EXECUTED = 1 << 1,
	DL_NEED_ATTAINED = 1 << 2, /* attained, or executed x gpus */
	DL_NEED_WAITING = 1 << 3,
	DL_NEED_REMAINING = 1 << 4, /* remaining, or duration - executed */
	DL_NEED_WEIGHT = 1 << 5,
	DL_NEED_GPUS = 1 << 6,
};

struct dl_prio_config {
	enum dl_policy policy;
	const struct dl_mlfq *mlfq;	  /* NULL or one queue: no discretisation */
	const struct dl_gittins *gittins; /* required by gittins and 2d-gittins */
	int weights;			  /* honour dl_prio_job.weight */
	double now;			  /* time of the decision (ftf) */
	int has_now;			  /* now was given: jobs must have arrived by then */
	double cluster_gpus;		  /* ftf: 0 = each job alone at its demand */
};

/* One job. The caller fills the inputs its policy needs (dl_prio_needs). */
struct dl_prio_job {
	const char *id; /* not owned; compared for ties */
	double submit;
	double gpus;
	double duration;  /* total run time (oracle policies, ftf) */
	double executed;  /* seconds run so far (counted for queueing) */
	double attained;  /* GPU-seconds of service so far */
	double waiting;	  /* seconds waited since it last ran (starvation) */
	double remaining; /* seconds of run time left */
	double weight;	  /* > 0 */
	size_t pos;	  /* input position: the last tie-break; returned untouched */
	/* outputs of dl_prio_eval */
	double priority; /* the policy's value, as documented above */
	double key;	 /* sort key within a queue: smaller first */
	size_t queue;
	size_t rank; /* 1-based, set by dl_prioritize */
	/* private to dl_prio_eval/dl_prio_cmp: the id parsed once */
	int64_t id_int;
	int id_is_int;
};

/*
 * A configuration from the commands' options: the policy, its MLFQ (one queue
 * unless mp asks for more; release it with dl_mlfq_release, also after a
 * failure: mlfq must start zeroed) and, for gittins
 * and 2d-gittins, the index table of --distribution or --learn-from (*git, or
 * NULL when neither is given; free it with dl_gittins_free). Options that do
 * not apply to the policy are usage errors (err->code 2), a bad distribution
 * a data error. The caller sets the rest (weights, now) and calls
 * dl_prio_check().
 */
int dl_prio_config_from_params(struct dl_prio_config *c, enum dl_policy policy,
			       const struct dl_mlfq_params *mp, const struct dl_gittins_params *gp,
			       struct dl_mlfq *mlfq, struct dl_gittins **git, struct dl_err *err);

/* the DL_NEED_* bits for a configuration */
unsigned dl_prio_needs(const struct dl_prio_config *c);

/* May the policy use MLFQ queues (all but ftf)? */
int dl_policy_has_queues(enum dl_policy p);
/* Is the service for queues GPU-seconds (2d policies) rather than seconds? */
int dl_policy_is_2d(enum dl_policy p);

/*
 * Check a configuration (gittins present when needed, weights, cluster
 * size, MLFQ only where it applies). Usage errors (exit 2).
 */
int dl_prio_check(const struct dl_prio_config *c, struct dl_err *err);

/*
 * Compute priority, key and queue of one job among njobs contending jobs
 * (njobs matters only for ftf with cluster_gpus). O(log n) at most.
 */
void dl_prio_eval(const struct dl_prio_config *c, struct dl_prio_job *j, size_t njobs);

/* total order of evaluated jobs: queue, key, submit, id, pos; <0, 0, >0 */
int dl_prio_cmp(const struct dl_prio_job *a, const struct dl_prio_job *b);

/*
 * Evaluate all jobs and number their ranks from 1 (best). The jobs stay in
 * place; the result is a new array of n indices into jobs, best first
 * (jobs[order[r]].rank == r + 1), freed by the caller.
 */
size_t *dl_prioritize(const struct dl_prio_config *c, struct dl_prio_job *jobs, size_t n);

/* names: "fifo", "sjf", "srtf", "las", "2d-las", "gittins", "2d-gittins", "ftf" */
int dl_policy_parse(const char *s, enum dl_policy *out);
const char *dl_policy_name(enum dl_policy p);
/* the i-th name, NULL after the last (an option table's value list) */
const char *dl_policy_at(size_t i);

#endif
