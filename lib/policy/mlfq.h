/*
 * mlfq.h: multi-level feedback queues over attained service (Tiresias).
 *
 * Tiresias discretises least-attained-service into K queues so jobs are not
 * preempted at every instant: queue q holds the jobs whose service s
 * satisfies limit[q-1] <= s < limit[q] (limit[-1] = 0, limit[K-1] = +inf).
 * "Service" is whatever the policy attains: seconds for las, GPU-seconds for
 * 2d-las and 2d-gittins. Q0 is the highest priority.
 *
 * Starvation promotion (Tiresias' STARVELIMIT; dlsched-prioritize(1),
 * MULTI-LEVEL FEEDBACK QUEUES): a job
 * in a lower queue (q > 0) that has run (executed > 0) and has since waited
 * at least N times as long as it ran goes back to Q0. As in the reference the
 * comparison uses wall-clock executed time, even when queues are on
 * GPU-seconds; with `trunc` set, N x executed is truncated to an integer
 * first, exactly as the reference's int(executed_time * N).
 *
 * struct dl_mlfq owns its limits array (dl_mlfq_init copies it;
 * dl_mlfq_release frees it). It is read-only after init and holds no global
 * state. dl_mlfq_queue is a binary search, O(log K).
 */
#ifndef DL_POLICY_MLFQ_H
#define DL_POLICY_MLFQ_H

#include <stddef.h>

#include "core/err.h"
#include "core/opt.h"

struct dl_mlfq {
	size_t nqueues;	   /* K >= 1 */
	double *limits;	   /* K - 1 strictly ascending thresholds > 0 */
	double starvation; /* N > 0 enables promotion; 0 disables */
	int trunc;	   /* truncate N x executed to an integer (reference mode) */
};

/* Tiresias' default queue limits (jobs._TFJobs: [3250, 7200, 18000], 3 queues) */
#define DL_MLFQ_TIRESIAS_QUEUES 3
extern const double dl_mlfq_tiresias_limits[3];

/*
 * nlimits must be nqueues - 1 (a single queue has none); limits must be
 * finite, > 0 and strictly ascending; starvation >= 0.
 * Errors are usage errors (exit 2) naming the offending value.
 */
int dl_mlfq_init(struct dl_mlfq *m, size_t nqueues, const double *limits, size_t nlimits,
		 double starvation, struct dl_err *err);
void dl_mlfq_release(struct dl_mlfq *m);

/* the queue of a job with attained service `service` (by limits only) */
size_t dl_mlfq_queue(const struct dl_mlfq *m, double service);

/* upper limit of queue q (+inf for the last queue) */
double dl_mlfq_limit(const struct dl_mlfq *m, size_t q);

/* the waiting time from which a job that ran `executed` is promoted; +inf if never */
double dl_mlfq_starve_limit(const struct dl_mlfq *m, double executed);

/* does a job in `queue` that ran `executed` and has waited `waiting` since go back to Q0? */
int dl_mlfq_starving(const struct dl_mlfq *m, size_t queue, double executed, double waiting);

/*
 * Parse "a,b,c" into a new array of doubles (*out, freed by the caller) of
 * *n values; each must be a finite number > 0, strictly ascending.
 * Returns -1 with a usage error naming `what` and the bad item.
 */
int dl_mlfq_parse_limits(const char *s, const char *what, double **out, size_t *n,
			 struct dl_err *err);

/*
 * The MLFQ options, one table for every user (prioritize, and simulate's
 * tiresias-las and tiresias-gittins): --queues, --thresholds, --starvation
 * into struct dl_mlfq_params (lib/core/opt.h).
 */
struct dl_mlfq_params {
	int queues;		/* 0: not given */
	const char *thresholds; /* NULL: not given */
	double starvation;
};
extern const struct dl_opt dl_mlfq_opts[];

/*
 * Build m from the options: K = --queues, else one more than --thresholds
 * gives, else default_queues; without --thresholds, the first K - 1 of
 * Tiresias' limits (so at most 4 queues). Usage errors (exit 2) name the
 * options.
 */
int dl_mlfq_from_params(struct dl_mlfq *m, const struct dl_mlfq_params *p, size_t default_queues,
			struct dl_err *err);

#endif
