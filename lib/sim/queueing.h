/*
 * queueing.h: the machinery the priority policies share (queueing.c): jobs
 * in ordered sets per queue and GPU count, passes that start, backfill and
 * preempt by the key of the policy's kind, exact MLFQ demotion and
 * starvation promotion. A policy file with options (las.c, ...) declares
 * its ops, option table, params struct and check, builds a struct
 * dl_sq_setup in its create() and passes the callbacks below
 * (DL_SQ_CALLBACKS); one without (fifo.c, sjf.c, ...) is one
 * DL_SQ_PLAIN_POLICY line.
 */
#ifndef DL_SIM_QUEUEING_H
#define DL_SIM_QUEUEING_H

#include "policy/gittins.h"
#include "policy/mlfq.h"
#include "sim/policies.h"

enum dl_sq_kind {
	DL_SQ_FIFO,	/* submit order, head-of-line */
	DL_SQ_BACKFILL, /* submit order, skipping what does not fit */
	DL_SQ_SJF,	/* duration, backfill */
	DL_SQ_SRTF,	/* remaining work, preemptive (this and below) */
	DL_SQ_LAS,	/* executed time */
	DL_SQ_TLAS,	/* MLFQ, entry order inside a queue */
	DL_SQ_TGITTINS, /* MLFQ, Gittins index inside a queue */
};

struct dl_sq_setup {
	enum dl_sq_kind kind;
	struct dl_mlfq queues;	    /* TLAS, TGITTINS: moved in (dl_sq_destroy releases it) */
	struct dl_gittins *gittins; /* TGITTINS: moved in; NULL for an empty trace */
	double quantum;		    /* LAS: seconds between looks (0: none) */
	double min_run; /* LAS: seconds past a restore before a preemption (0: quantum) */
};

/* the policy state; never fails */
void *dl_sq_create(struct dl_sim *s, struct dl_sq_setup *u);
void dl_sq_destroy(void *st);
void dl_sq_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j);
void dl_sq_saved(void *st, struct dl_sim *s, struct dl_sim_job *j);
void dl_sq_finish(void *st, struct dl_sim *s, struct dl_sim_job *j);
int dl_sq_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp);
void dl_sq_schedule(void *st, struct dl_sim *s);

#define DL_SQ_CALLBACKS                                                         \
	.destroy = dl_sq_destroy, .arrive = dl_sq_arrive, .saved = dl_sq_saved, \
	.finish = dl_sq_finish, .timer = dl_sq_timer, .schedule = dl_sq_schedule

/* the ops of a queue policy without options: its create() only names its kind */
#define DL_SQ_PLAIN_POLICY(ops, sq_kind, policy_name, policy_summary)                       \
	static void *ops##_create(struct dl_sim *s, const void *params, struct dl_err *err) \
	{                                                                                   \
		(void)params, (void)err;                                                    \
		struct dl_sq_setup u = {.kind = sq_kind};                                   \
		return dl_sq_create(s, &u);                                                 \
	}                                                                                   \
	const struct dl_sim_policy_ops ops = {                                              \
		.name = policy_name,                                                        \
		.summary = policy_summary,                                                  \
		.create = ops##_create,                                                     \
		DL_SQ_CALLBACKS,                                                            \
	}

#define DL_SQ_MAX_QUEUES 64 /* "Q<queue>" in the events has two digits */
/* simulate's MLFQ defaults, Tiresias' 3 queues (for --help: the tables have none) */
extern const char *const dl_sq_tiresias_defaults[];
/* the MLFQ group's check (struct dl_mlfq_params): at most DL_SQ_MAX_QUEUES queues */
int dl_sq_mlfq_check(const void *group, struct dl_err *err);

#endif
