/*
 * queueing.c: the queueing machinery of the native engine's priority
 * policies (policy.h). Each policy is a file of its own (fifo.c, sjf.c, ...)
 * with its ops, option table, params struct and check; they all run on the
 * queues here, which order jobs by the key of their kind:
 *
 *   fifo              submit order, head-of-line: nothing starts past a job
 *                     that cannot start; never preempts
 *   fifo-backfill     submit order, jobs that do not fit are skipped
 *   sjf               shortest duration first (oracle), backfill, no preemption
 *   srtf              shortest remaining work first (oracle), preemptive
 *   las               least executed seconds first, preemptive, re-evaluated
 *                     at arrivals, completions and every --quantum seconds;
 *                     a start is kept through its restore and --min-run
 *   tiresias-las      2D-LAS: MLFQ on attained GPU-seconds (--queues,
 *                     --thresholds, --starvation), FIFO inside a queue
 *   tiresias-gittins  2D-Gittins: the same queues, inside a queue by the
 *                     Gittins index of the attained GPU-seconds
 *
 * srtf and las keep their running jobs ordered by a key that is constant
 * while they run (see run_add) and, while the best waiting job does not fit,
 * preempt the worst running job if it ranks below, one at a time: a pass
 * costs O(log n) per job it starts or preempts.
 *
 * The MLFQ policies share another pass. The order is a list of queues;
 * inside a queue, running jobs come before waiting ones (a waiting job never
 * preempts a job of its own queue, as in Tiresias), waiting jobs by key.
 * The pass walks that order counting GPUs (the cluster as if empty) and
 * keeps the jobs that fit (skipping those that do not: backfill); running
 * jobs left out are preempted and waiting jobs kept are started through the
 * placement policy. The walk is only done when a waiting job outranks some
 * running job; otherwise waiting jobs just fill free GPUs. A queue whose
 * running jobs all fit is skipped as a whole, and in the queue where they
 * stop fitting the latest starters are the victims, so a pass costs the
 * jobs it starts or preempts. Waiting jobs are kept per GPU count, so jobs
 * too large for the room left are never walked over.
 *
 * MLFQ events are exact: service is counted in integer GPU-ticks, a running
 * job is demoted at the first tick at which its attained GPU-ticks reach its
 * queue's limit (a timer at now + ceil((limit - service) / gpus)), a waiting
 * job is promoted to Q0 at the first tick at which it has waited
 * --starvation times the ticks it ran since its last promotion.
 *
 * Policy data per job lives in a slab (struct sq_job) and in nodes of the
 * ordered sets, both indexed by the job's slot (policy.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "policy/gittins.h"
#include "sim/oset.h"
#include "sim/queueing.h"
#include "sim/slab.h"

enum { T_DEMOTE = 1, T_PROMOTE = 2, T_TICK = 3 };

/* what the policy keeps per job, by slot (slab.h) */
struct sq_job {
	int64_t service;       /* MLFQ: GPU-ticks in this queue epoch */
	dl_tick exec;	       /* MLFQ: ticks run in this queue epoch */
	dl_tick mark;	       /* executed when it last started running, or waited when re-queued */
	uint64_t seq;	       /* tiresias-las: the order it entered its queue */
	uint32_t rprev, rnext; /* MLFQ: its neighbours in its queue's running list (run_insert) */
	int16_t queue;	       /* its queue (0 without MLFQ) */
	uint8_t in_run;	       /* MLFQ: in that list */
};
DL_SLAB_DEFINE(sq_jobs, struct sq_job)
/* srtf, las: the epoch in which the placer refused a job, apart: read every pass, dense */
DL_SLAB_DEFINE(sq_refused, int)
/*
 * every kind: the job in each slot (a slot's job never moves, policy.h),
 * so that the passes reach jobs by a load, not a call into the engine per
 * job they look at
 */
DL_SLAB_DEFINE(sq_jptr, struct dl_sim_job *)
/* las: the guard that keeps a job from being preempted (see run_add), 0: none */
DL_SLAB_DEFINE(sq_guard_of, uint64_t)

/*
 * las: a running job is kept out of the running order (so that no pass can
 * preempt it) until `until`: its restore is over and it has run --min-run
 * seconds past it. The guards are a min-heap on that time; one whose job has
 * finished is stale (sq_guard_of no longer holds its seq) and is dropped.
 */
struct guard {
	dl_tick until;
	uint64_t seq;
	size_t slot;
};
static int guard_first(const struct guard *a, const struct guard *b)
{
	return a->until < b->until || (a->until == b->until && a->seq < b->seq);
}
DL_HEAP_DEFINE(guards, struct guard, guard_first)

/* a queue's best waiting job is to be found again (pend_best) */
#define BEST_STALE SIZE_MAX

struct prio {
	enum dl_sq_kind kind;
	int preemptive, strict, mlfq;
	struct dl_mlfq queues;	    /* tiresias-*: limits (GPU-seconds), starvation */
	struct dl_gittins *gittins; /* tiresias-gittins: index of attained GPU-seconds */
	size_t nq;
	struct dl_opool pool;
	struct sq_jobs jobs;	   /* per slot */
	struct sq_refused refused; /* per slot (srtf, las) */
	struct sq_jptr jp;	   /* per slot */
	/*
	 * Waiting jobs: one ordered set per (queue, GPU-count class), so that
	 * "the best waiting job that fits in c GPUs" is a minimum over the
	 * classes' first elements and jobs too large are never walked over.
	 */
	size_t ncls;
	int *cls_gpus;	      /* GPUs of each class, ascending */
	int *cls_of;	      /* [gpus] -> class, for gpus <= maxg */
	struct dl_oset *pend; /* [q * ncls + class] */
	size_t *qcount;	      /* waiting jobs per queue */
	size_t *best;	      /* per queue: its best waiting job (pend_best), BEST_STALE: look */
	size_t *cur;	      /* per class: walk cursor */
	struct dl_oset *run;
	int64_t *run_gpus;
	uint64_t seq;
	int maxg;
	int epoch; /* completions so far (see one_queue_pass) */
	/* scratch: the jobs one pass starts and preempts (about total GPUs at most) */
	size_t *buf, *rbuf, buf_alloc, rbuf_alloc;
	dl_tick quantum, next_tick;
	/* las: the anti-thrash rule (run_add, one_queue_pass) */
	dl_tick min_run;     /* a job runs this long past its restore before a preemption */
	struct guard *guard; /* a heap */
	size_t nguard, guard_alloc;
	uint64_t guard_seq;
	struct sq_guard_of guard_of; /* per slot */
	int rerank;		     /* an arrival, completion or tick since the last pass */
	double gittins_zero;	     /* minus the Gittins index of no service */
	dl_tick *limit;		     /* per queue: its limit in GPU-ticks (the last: none) */
};

/* ---- parameters ---- */

/* an active job's entry (the slab reaches every slot from the job's arrival on) */
static struct sq_job *pj(struct prio *P, const struct dl_sim_job *j)
{
	return &P->jobs.v[j->slot];
}

/* its queue: always 0 without MLFQ (then the slab need not be touched for it) */
static size_t qof(struct prio *P, const struct dl_sim_job *j)
{
	return P->mlfq ? (size_t)P->jobs.v[j->slot].queue : 0;
}

/* ---- the MLFQ policies' parameters (tiresias-las, tiresias-gittins) ---- */

const char *const dl_sq_tiresias_defaults[] = {"queues=3", "thresholds=3250,7200", NULL};

int dl_sq_mlfq_check(const void *group, struct dl_err *err)
{
	struct dl_mlfq m;
	if (dl_mlfq_from_params(&m, group, DL_MLFQ_TIRESIAS_QUEUES, err) < 0)
		return -1;
	size_t k = m.nqueues;
	dl_mlfq_release(&m);
	if (k > DL_SQ_MAX_QUEUES)
		return dl_err_set(err, DL_EXIT_USAGE, "%zu queues, more than %d", k,
				  DL_SQ_MAX_QUEUES);
	return 0;
}

void *dl_sq_create(struct dl_sim *s, struct dl_sq_setup *u)
{
	struct prio *P = xcalloc(1, sizeof(*P));
	size_t n = dl_sim_njobs(s);
	enum dl_sq_kind kind = u->kind;
	P->kind = kind;
	P->preemptive = kind >= DL_SQ_SRTF;
	P->strict = kind == DL_SQ_FIFO;
	P->mlfq = kind == DL_SQ_TLAS || kind == DL_SQ_TGITTINS;
	dl_opool_init(&P->pool, 0);
	P->queues = u->queues;
	P->gittins = u->gittins;
	P->nq = P->mlfq ? P->queues.nqueues : 1;
	P->maxg = dl_sim_total_gpus(s);
	P->cls_of = xcalloc((size_t)P->maxg + 2, sizeof(*P->cls_of));
	for (size_t i = 0; i < n; i++) {
		int g = dl_sim_job_gpus(s, i);
		if (g <= P->maxg)
			P->cls_of[g] = 1;
	}
	P->cls_gpus = xcalloc((size_t)P->maxg + 2, sizeof(*P->cls_gpus));
	for (int g = 1; g <= P->maxg; g++)
		if (P->cls_of[g]) {
			P->cls_gpus[P->ncls] = g;
			P->cls_of[g] = (int)P->ncls++;
		}
	if (!P->ncls)
		P->ncls = 1;
	P->pend = xcalloc(P->nq * P->ncls, sizeof(*P->pend));
	for (size_t k = 0; k < P->nq * P->ncls; k++)
		P->pend[k] = (struct dl_oset)DL_OSET_INIT;
	P->qcount = xcalloc(P->nq, sizeof(*P->qcount));
	P->best = xcalloc(P->nq, sizeof(*P->best));
	for (size_t q = 0; q < P->nq; q++)
		P->best[q] = DL_ONIL;
	P->cur = xcalloc(P->ncls, sizeof(*P->cur));
	P->run = xcalloc(P->nq, sizeof(*P->run));
	for (size_t q = 0; q < P->nq; q++)
		P->run[q] = (struct dl_oset)DL_OSET_INIT;
	P->run_gpus = xcalloc(P->nq, sizeof(*P->run_gpus));
	P->limit = xcalloc(P->nq, sizeof(*P->limit));
	DL_GROW(P->buf, (size_t)P->maxg + 1, P->buf_alloc);
	DL_GROW(P->rbuf, (size_t)P->maxg + 1, P->rbuf_alloc);
	for (size_t q = 0; P->mlfq && q + 1 < P->nq; q++)
		P->limit[q] = dl_sim_ticks(dl_mlfq_limit(&P->queues, q));
	P->quantum = u->quantum > 0 ? dl_sim_ticks(u->quantum) : 0;
	P->min_run = u->min_run > 0 ? dl_sim_ticks(u->min_run) : P->quantum;
	if (P->gittins)
		P->gittins_zero = -dl_gittins_index(P->gittins, 0);
	P->next_tick = -1;
	return P;
}

void dl_sq_destroy(void *st)
{
	struct prio *P = st;
	dl_opool_release(&P->pool);
	sq_jobs_release(&P->jobs);
	sq_refused_release(&P->refused);
	sq_jptr_release(&P->jp);
	sq_guard_of_release(&P->guard_of);
	free(P->guard);
	free(P->pend);
	free(P->qcount);
	free(P->best);
	free(P->cur);
	free(P->cls_gpus);
	free(P->cls_of);
	free(P->run);
	free(P->run_gpus);
	free(P->buf);
	free(P->rbuf);
	free(P->limit);
	if (P->mlfq)
		dl_mlfq_release(&P->queues);
	dl_gittins_free(P->gittins);
	free(P);
}

/* a node for every slot in use */
static void fit_slots(struct prio *P, struct dl_sim *s)
{
	dl_opool_grow(&P->pool, dl_sim_slots(s));
}

/* the job in a slot that has had one since its arrival (dl_sq_arrive) */
static struct dl_sim_job *job_of(const struct prio *P, size_t slot)
{
	return P->jp.v[slot];
}

/* ---- keys ---- */

/* the key of a waiting job inside its queue (smaller first) */
static void pend_key(struct prio *P, struct dl_sim_job *j, double *k0, double *k1)
{
	/* ties: submit time, then job index (k2) */
	double sub = (double)j->submit;
	switch (P->kind) {
	case DL_SQ_FIFO:
	case DL_SQ_BACKFILL:
		*k0 = sub;
		*k1 = 0;
		break;
	case DL_SQ_SJF:
		*k0 = (double)j->duration;
		*k1 = sub;
		break;
	case DL_SQ_SRTF:
		*k0 = j->work_left;
		*k1 = sub;
		break;
	case DL_SQ_LAS:
		*k0 = (double)j->executed;
		*k1 = sub;
		break;
	case DL_SQ_TLAS:
		*k0 = (double)pj(P, j)->seq; /* the order it entered the queue */
		*k1 = 0;
		break;
	case DL_SQ_TGITTINS:
		/* every arrival has no service yet: that index is computed once */
		*k0 = pj(P, j)->service ? -dl_gittins_index(P->gittins, (double)pj(P, j)->service /
										DL_TICKS_PER_SECOND)
					: P->gittins_zero;
		*k1 = sub;
		break;
	}
}

static void pend_add(struct prio *P, struct dl_sim_job *j)
{
	double k0 = 0, k1 = 0;
	size_t q = qof(P, j);
	pend_key(P, j, &k0, &k1);
	dl_oset_insert(&P->pool, &P->pend[q * P->ncls + (size_t)P->cls_of[j->gpus]], j->slot, k0,
		       k1, j->idx);
	P->qcount[q]++;
	/* keys never change inside a set: the best so far stays best unless j beats it */
	size_t b = P->best[q];
	if (b != BEST_STALE && (b == DL_ONIL || dl_okey_less(&P->pool.n[j->slot], &P->pool.n[b])))
		P->best[q] = j->slot;
}

static void pend_del(struct prio *P, struct dl_sim_job *j)
{
	size_t q = qof(P, j);
	struct dl_oset *set = &P->pend[q * P->ncls + (size_t)P->cls_of[j->gpus]];
	dl_oset_erase(&P->pool, set, j->slot);
	P->qcount[q]--;
	if (P->best[q] == j->slot) {
		P->best[q] = BEST_STALE;
		/*
		 * The set's new first is likely the next best, whose job the next
		 * pass reads first: after a long wait it is cold, so its fetch
		 * starts now, while this start goes on (about 3% of a long las run;
		 * fetching the next completion's or checkpoint end's job, or the
		 * next victim's, did not pay).
		 */
		if (set->first != DL_ONIL) {
			const char *nj = (const char *)job_of(P, set->first);
			__builtin_prefetch(nj);
			__builtin_prefetch(nj + 64);
			__builtin_prefetch(nj + 128);
		}
	}
}

/*
 * ---- MLFQ service accounting ----
 * service: GPU-ticks in this queue epoch; exec: ticks run in it; mark:
 * executed when it last started running, or waited when it was re-queued.
 */

static void account(struct prio *P, struct dl_sim *s, struct dl_sim_job *j)
{
	struct sq_job *q = pj(P, j);
	dl_tick ran = dl_sim_executed(s, j) - q->mark;
	/* saturate far beyond any queue limit rather than overflow */
	if (ran > (INT64_MAX / 4 - q->service) / j->gpus)
		q->service = INT64_MAX / 4;
	else
		q->service += ran * j->gpus;
	q->exec += ran;
	q->mark = j->executed;
}

static void set_demote_timer(struct prio *P, struct dl_sim *s, struct dl_sim_job *j)
{
	if (!P->mlfq)
		return;
	struct sq_job *q = pj(P, j);
	if ((size_t)q->queue + 1 >= P->nq)
		return;
	int64_t left = P->limit[q->queue] - q->service;
	dl_tick t = dl_sim_now(s) + (left > 0 ? (left + j->gpus - 1) / j->gpus : 0);
	/* a job that completes first needs none (completions come before timers) */
	if (t < j->finish_at)
		dl_sim_timer(s, t, j->idx, T_DEMOTE, j->version);
}

static void set_promote_timer(struct prio *P, struct dl_sim *s, struct dl_sim_job *j)
{
	if (!P->mlfq)
		return;
	struct sq_job *q = pj(P, j);
	if (q->queue == 0)
		return;
	double lim = dl_mlfq_starve_limit(&P->queues, (double)q->exec);
	if (!isfinite(lim))
		return;
	/* waited since it was re-queued: j->waited - pmark */
	double left = lim - (double)(j->waited - q->mark);
	if (!(left < 4e18))
		return; /* beyond any run */
	dl_tick t = dl_sim_now(s) + (left > 0 ? (dl_tick)ceil(left) : 0);
	dl_sim_timer(s, t, j->idx, T_PROMOTE, j->version);
}

/*
 * The running jobs of queue q. Under MLFQ they are in start order, each
 * started after all others (its key is a new sequence number), so those
 * sets are lists linked through the slab: adding, removing and stepping are
 * O(1) where a tree paid a descent and rotations for every start. srtf and
 * las keep an ordered set (their keys are not monotone). fifo,
 * fifo-backfill and sjf never preempt, so nothing reads their running
 * order: they keep none.
 */
static void run_insert(struct prio *P, size_t q, size_t slot, double k0, double k1, uint64_t k2)
{
	struct dl_oset *r = &P->run[q];
	if (!P->mlfq) {
		if (P->preemptive)
			dl_oset_insert(&P->pool, r, slot, k0, k1, k2);
		return;
	}
	struct sq_job *x = &P->jobs.v[slot];
	x->rprev = (uint32_t)r->last;
	x->rnext = UINT32_MAX;
	x->in_run = 1;
	if (r->last != DL_ONIL)
		P->jobs.v[r->last].rnext = (uint32_t)slot;
	else
		r->first = slot;
	r->last = slot;
	r->count++;
}

static void run_erase(struct prio *P, size_t q, size_t slot)
{
	struct dl_oset *r = &P->run[q];
	if (!P->mlfq) {
		if (P->kind == DL_SQ_LAS && P->guard_of.v[slot])
			P->guard_of.v[slot] = 0; /* not in the order; its guard goes stale */
		else if (P->preemptive)
			dl_oset_erase(&P->pool, r, slot);
		return;
	}
	struct sq_job *x = &P->jobs.v[slot];
	if (!x->in_run)
		return;
	if (x->rprev != UINT32_MAX)
		P->jobs.v[x->rprev].rnext = x->rnext;
	else
		r->first = x->rnext == UINT32_MAX ? DL_ONIL : x->rnext;
	if (x->rnext != UINT32_MAX)
		P->jobs.v[x->rnext].rprev = x->rprev;
	else
		r->last = x->rprev == UINT32_MAX ? DL_ONIL : x->rprev;
	x->in_run = 0;
	r->count--;
}

/* the running job after (before) slot i in its queue's order, or DL_ONIL */
static size_t run_next(const struct prio *P, size_t i)
{
	if (!P->mlfq)
		return dl_oset_next(&P->pool, i);
	uint32_t n = P->jobs.v[i].rnext;
	return n == UINT32_MAX ? DL_ONIL : n;
}

static size_t run_prev(const struct prio *P, size_t i)
{
	if (!P->mlfq)
		return dl_oset_prev(&P->pool, i);
	uint32_t n = P->jobs.v[i].rprev;
	return n == UINT32_MAX ? DL_ONIL : n;
}

/* las: keep running job j out of the running order until `until` (a guard) */
static void guard_push(struct prio *P, struct dl_sim_job *j, dl_tick until)
{
	DL_GROW(P->guard, P->nguard + 1, P->guard_alloc);
	struct guard g = {until, ++P->guard_seq, j->slot};
	size_t i = P->nguard++;
	while (i > 0 && guard_first(&g, &P->guard[(i - 1) / 2])) {
		P->guard[i] = P->guard[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	P->guard[i] = g;
	P->guard_of.v[j->slot] = g.seq;
}

/*
 * las: the jobs whose guards have ended join the running order, where a
 * pass may pick them as victims. Their key, executed - now, is the one
 * run_add would have given them at their start (it does not change while
 * they run).
 */
static void guards_end(struct prio *P, struct dl_sim *s)
{
	dl_tick now = dl_sim_now(s);
	while (P->nguard && P->guard[0].until <= now) {
		struct guard g = guards_pop(P->guard, &P->nguard);
		if (P->guard_of.v[g.slot] != g.seq)
			continue; /* its job has finished */
		P->guard_of.v[g.slot] = 0;
		struct dl_sim_job *j = job_of(P, g.slot);
		run_insert(P, 0, g.slot, (double)(dl_sim_executed(s, j) - now), (double)j->submit,
			   P->seq++);
	}
}

/*
 * Running jobs are ordered by a key that does not change while they run:
 * MLFQ: start order; las: executed - now (executed grows one second per
 * second for every running job); srtf: the projected finish time (the order
 * of remaining work when all run at the same speed; otherwise "finishes
 * last" is preempted first).
 */
static void run_add(struct prio *P, struct dl_sim *s, struct dl_sim_job *j)
{
	double k0 = 0;
	dl_tick now = dl_sim_now(s);
	if (P->kind == DL_SQ_LAS) {
		/*
		 * The anti-thrash rule: a job that starts or resumes is not
		 * preempted before its restore is over and it has run --min-run
		 * seconds past it, so that every start buys progress.
		 */
		dl_tick until = j->restore_until + P->min_run;
		if (until > now) {
			guard_push(P, j, until);
			P->run_gpus[0] += j->gpus;
			return;
		}
		k0 = (double)(j->executed - now);
	} else if (P->kind == DL_SQ_SRTF) {
		dl_tick from = j->restore_until > now ? j->restore_until : now;
		k0 = (double)from + j->work_left / j->rate;
	}
	double k1 = P->mlfq ? 0 : (double)j->submit;
	size_t q = qof(P, j);
	run_insert(P, q, j->slot, k0, k1, P->seq++);
	P->run_gpus[q] += j->gpus;
	if (P->mlfq) {
		pj(P, j)->mark = j->executed;
		set_demote_timer(P, s, j);
	}
}

static void run_del(struct prio *P, struct dl_sim *s, struct dl_sim_job *j)
{
	if (P->mlfq)
		account(P, s, j);
	size_t q = qof(P, j);
	run_erase(P, q, j->slot);
	P->run_gpus[q] -= j->gpus;
}

/* ---- callbacks ---- */

void dl_sq_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct prio *P = st;
	fit_slots(P, s);
	*sq_jptr_at(&P->jp, j->slot) = j;
	uint64_t seq = P->seq++;
	/* fifo, fifo-backfill and sjf keep nothing per job: they never touch the slabs */
	if (P->mlfq) {
		struct sq_job *q = sq_jobs_at(&P->jobs, j->slot); /* (grows the slab) */
		q->queue = 0;
		q->seq = seq;
		q->service = q->exec = 0;
		q->in_run = 0;
	} else if (P->preemptive) {
		*sq_refused_at(&P->refused, j->slot) = -1;
		if (P->kind == DL_SQ_LAS)
			*sq_guard_of_at(&P->guard_of, j->slot) = 0;
	}
	P->rerank = 1;
	pend_add(P, j);
}

void dl_sq_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct prio *P = st;
	/* it keeps its place in its queue (its entry order); waiting starts now */
	if (P->mlfq)
		pj(P, j)->mark = j->waited;
	pend_add(P, j);
	set_promote_timer(P, s, j);
}

void dl_sq_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct prio *P = st;
	P->epoch++; /* placements refused before may work now */
	P->rerank = 1;
	size_t q = qof(P, j);
	run_erase(P, q, j->slot);
	P->run_gpus[q] -= j->gpus;
	(void)s;
}

int dl_sq_timer(void *st, struct dl_sim *s, size_t ji, int kind, uint64_t stamp)
{
	struct prio *P = st;
	if (kind == T_TICK) {
		P->next_tick = -1;
		P->rerank = 1;
		return 1;
	}
	struct dl_sim_job *j = dl_sim_job(s, ji);
	if (!j || stamp != j->version)
		return 0;
	struct sq_job *q = pj(P, j);
	if (kind == T_DEMOTE && j->state == DL_SJ_RUNNING) {
		account(P, s, j);
		if (q->service < P->limit[q->queue]) { /* cannot happen: the timer is exact */
			set_demote_timer(P, s, j);
			return 0;
		}
		run_del(P, s, j);
		q->queue++;
		char d[8] = {'Q'}; /* "Q<queue>" (below 64), without printf's cost */
		if (q->queue >= 10)
			d[1] = (char)('0' + q->queue / 10);
		d[1 + (q->queue >= 10)] = (char)('0' + q->queue % 10);
		dl_sim_note(s, j, "demote", d);
		run_add(P, s, j);
		return 1;
	} else if (kind == T_PROMOTE && j->state == DL_SJ_QUEUED && q->queue > 0) {
		if (!dl_mlfq_starving(&P->queues, (size_t)q->queue, (double)q->exec,
				      (double)(dl_sim_waited(s, j) - q->mark))) {
			set_promote_timer(P, s, j);
			return 0;
		}
		pend_del(P, j);
		q->queue = 0;
		q->seq = P->seq++;
		q->service = q->exec = 0;
		dl_sim_note(s, j, "promote", "Q0");
		pend_add(P, j);
		return 1;
	}
	return 0;
}

/* try to start waiting job j: 1 started, 0 still waiting, -1 rejected (gone) */
static int try_start(struct prio *P, struct dl_sim *s, struct dl_sim_job *j)
{
	pend_del(P, j);
	enum dl_decision d = dl_sim_start(s, j, NULL);
	if (d == DL_PLACED) {
		run_add(P, s, j);
		return 1;
	}
	if (d == DL_WAIT) {
		pend_add(P, j);
		return 0;
	}
	return -1;
}

/* ---- walking the waiting jobs of one queue in key order ---- */

static void walk_begin(struct prio *P, size_t q)
{
	for (size_t c = 0; c < P->ncls; c++)
		P->cur[c] = dl_oset_first(&P->pool, &P->pend[q * P->ncls + c]);
}

/* the next waiting job (in key order) of at most cap GPUs (any size if cap < 0) */
static size_t walk_best(struct prio *P, int cap, size_t *cls)
{
	size_t best = DL_ONIL;
	for (size_t c = 0; c < P->ncls; c++) {
		if (cap >= 0 && P->cls_gpus[c] > cap)
			break; /* classes are ascending */
		size_t i = P->cur[c];
		if (i != DL_ONIL &&
		    (best == DL_ONIL || dl_okey_less(&P->pool.n[i], &P->pool.n[best]))) {
			best = i;
			*cls = c;
		}
	}
	return best;
}

/*
 * The best waiting job of queue q, any size (walk_best from walk_begin,
 * without a walk): kept per queue (pend_add, pend_del), else found from the
 * classes' first elements. A pass asks again after each preemption, when
 * nothing waiting has changed.
 */
static size_t pend_best(struct prio *P, size_t q)
{
	if (P->best[q] != BEST_STALE)
		return P->best[q];
	const struct dl_oset *set = &P->pend[q * P->ncls];
	const struct dl_onode *N = P->pool.n;
	size_t best = DL_ONIL;
	for (size_t c = 0; c < P->ncls; c++) {
		size_t i = set[c].first;
		if (i != DL_ONIL && (best == DL_ONIL || dl_okey_less(&N[i], &N[best])))
			best = i;
	}
	return P->best[q] = best;
}

static void walk_skip(struct prio *P, size_t c)
{
	P->cur[c] = dl_oset_next(&P->pool, P->cur[c]);
}

/*
 * Start waiting jobs into free GPUs, queue by queue, in key order, skipping
 * those too large (strict: stop at the first that cannot start).
 */
static void fill(struct prio *P, struct dl_sim *s)
{
	for (size_t q = 0; q < P->nq; q++) {
		if (!P->qcount[q])
			continue;
		walk_begin(P, q);
		for (;;) {
			int free_gpus = dl_sim_free_gpus(s);
			if (free_gpus <= 0)
				return;
			size_t c = 0;
			size_t i = walk_best(P, P->strict ? -1 : free_gpus, &c);
			if (i == DL_ONIL)
				break;
			struct dl_sim_job *j = job_of(P, i);
			walk_skip(P, c);
			if ((j->gpus > free_gpus || try_start(P, s, j) == 0) && P->strict)
				return;
		}
	}
}

/* is waiting job i (its set key) ahead of running job r with current key rk? (slots) */
static int pend_before_run(struct prio *P, size_t i, size_t r, double rk)
{
	const struct dl_onode *n = &P->pool.n[i];
	const struct dl_sim_job *rj = job_of(P, r);
	double rsub = (double)rj->submit;
	if (n->k0 != rk)
		return n->k0 < rk;
	if (n->k1 != rsub)
		return n->k1 < rsub;
	return job_of(P, i)->idx < rj->idx;
}

/* the current key of a running job of srtf or las, comparable with waiting keys */
static double run_cur_key(struct prio *P, struct dl_sim *s, size_t r)
{
	struct dl_sim_job *j = job_of(P, r);
	/* exact, not k0 + now: a rounding error must not break a tie (it would thrash) */
	return P->kind == DL_SQ_LAS ? (double)dl_sim_executed(s, j) : dl_sim_work_left(s, j);
}

/*
 * srtf and las: while the best waiting job does not fit, preempt the worst
 * running jobs it outranks, as few as make room for it (none if they cannot).
 * Returns 1 when the best
 * waiting job is waiting for checkpoints to finish (then nothing else may
 * take those GPUs), 0 to let fill() start what fits.
 *
 * las re-ranks (preempts) only after an arrival, a completion or a quantum
 * tick, never after checkpoint ends alone: a checkpoint end only hands the
 * GPUs it frees to the jobs waiting for them. Its guarded jobs (run_add) are
 * not in the running order, so they are never victims.
 */
static int one_queue_pass(struct prio *P, struct dl_sim *s)
{
	const int total = dl_sim_total_gpus(s);
	int may_preempt = 1;
	if (P->kind == DL_SQ_LAS) {
		may_preempt = P->rerank;
		if (may_preempt)
			guards_end(P, s);
	}
	for (;;) {
		if (!P->qcount[0])
			return 0;
		size_t i = pend_best(P, 0);
		struct dl_sim_job *j = job_of(P, i);
		if (j->gpus <= dl_sim_free_gpus(s)) {
			if (try_start(P, s, j) == 0) {
				/* the placer wants other GPUs: no use preempting for it now */
				P->refused.v[j->slot] = P->epoch;
				return 0;
			}
			continue;
		}
		if (P->refused.v[j->slot] == P->epoch)
			return 0;
		/* GPUs free now plus those being checkpointed */
		int soon = total - (int)P->run_gpus[0];
		if (j->gpus <= soon)
			return 1;
		if (!may_preempt)
			return 0;
		/*
		 * Preempt only if the running jobs it outranks, worst first, free
		 * enough for it: a victim that would not make room would just be
		 * restarted by fill(), over and over.
		 */
		size_t w = P->run[0].last, nv = 0;
		while (w != DL_ONIL && soon < j->gpus &&
		       pend_before_run(P, i, w, run_cur_key(P, s, w))) {
			DL_GROW(P->rbuf, nv + 1, P->rbuf_alloc);
			P->rbuf[nv++] = w;
			soon += job_of(P, w)->gpus;
			w = run_prev(P, w);
		}
		if (soon < j->gpus)
			return 0;
		for (size_t k = 0; k < nv; k++) {
			struct dl_sim_job *v = job_of(P, P->rbuf[k]);
			run_del(P, s, v);
			dl_sim_preempt(s, v);
		}
	}
}

/*
 * The preemptive pass. Returns 1 when it walked the order (then it has also
 * started what it chose, and nothing else may start: GPUs still being saved
 * belong to the jobs it chose), 0 when no waiting job outranks a running one
 * (then fill() starts what fits).
 */
static int preemptive_pass(struct prio *P, struct dl_sim *s)
{
	if (!P->mlfq)
		return one_queue_pass(P, s);
	const int total = dl_sim_total_gpus(s);
	size_t first_q = P->nq, c;
	/* first start the best waiting jobs while they fit in free GPUs */
	for (;;) {
		first_q = P->nq;
		for (size_t q = 0; q < P->nq; q++)
			if (P->qcount[q]) {
				first_q = q;
				break;
			}
		if (first_q == P->nq)
			return 0;
		size_t i = pend_best(P, first_q);
		struct dl_sim_job *j = job_of(P, i);
		if (j->gpus > dl_sim_free_gpus(s) || try_start(P, s, j) == 0)
			break; /* (a rejected job is gone: look again) */
	}
	/* a waiting job outranks a running one only if it is in a higher queue */
	int lower_running = 0;
	for (size_t q = first_q + 1; q < P->nq; q++)
		lower_running |= P->run[q].count > 0;
	if (!lower_running)
		return 0;
	/* walk the order counting GPUs; running jobs that do not fit become victims */
	int cap = total;
	size_t nstart = 0, nvict = 0;
	{
		size_t q = 0;
		for (; q < P->nq && cap > 0; q++) {
			if (P->run_gpus[q] <= cap) {
				cap -= (int)P->run_gpus[q];
			} else {
				/*
				 * Too little room for this queue's running jobs: preempt
				 * from its end (its latest starters) until the rest fits.
				 * Victims are collected last first, so reverse them to keep
				 * rbuf in priority order.
				 */
				int64_t need = P->run_gpus[q] - cap;
				size_t v0 = nvict;
				for (size_t i = P->run[q].last; i != DL_ONIL && need > 0;
				     i = run_prev(P, i)) {
					DL_GROW(P->rbuf, nvict + 1, P->rbuf_alloc);
					{
						DL_GROW(P->rbuf, nvict + 1, P->rbuf_alloc);
						P->rbuf[nvict++] = i;
					}
					need -= job_of(P, i)->gpus;
				}
				for (size_t a = v0, b = nvict; a + 1 < b; a++, b--) {
					size_t x = P->rbuf[a];
					P->rbuf[a] = P->rbuf[b - 1];
					P->rbuf[b - 1] = x;
				}
				cap = (int)-need; /* what the victims free beyond the need */
			}
			if (!P->qcount[q])
				continue;
			walk_begin(P, q);
			size_t i;
			while (cap > 0 && (i = walk_best(P, cap, &c)) != DL_ONIL) {
				DL_GROW(P->buf, nstart + 1, P->buf_alloc);
				P->buf[nstart++] = i;
				cap -= job_of(P, i)->gpus;
				walk_skip(P, c);
			}
		}
		for (; q < P->nq; q++) /* no room left for these queues at all */
			for (size_t i = P->run[q].first; i != DL_ONIL; i = run_next(P, i)) {
				DL_GROW(P->rbuf, nvict + 1, P->rbuf_alloc);
				P->rbuf[nvict++] = i;
			}
	}
	/* preempt the victims, lowest priority first */
	for (size_t k = nvict; k-- > 0;) {
		struct dl_sim_job *j = job_of(P, P->rbuf[k]);
		run_del(P, s, j);
		dl_sim_preempt(s, j);
	}
	for (size_t k = 0; k < nstart; k++) {
		struct dl_sim_job *j = job_of(P, P->buf[k]);
		if (j->state == DL_SJ_QUEUED && j->gpus <= dl_sim_free_gpus(s))
			try_start(P, s, j);
	}
	return 1;
}

void dl_sq_schedule(void *st, struct dl_sim *s)
{
	struct prio *P = st;
	if (!P->preemptive || !preemptive_pass(P, s))
		fill(P, s);
	P->rerank = 0;
	/* las: look again after a quantum while jobs wait behind running ones */
	if (P->kind == DL_SQ_LAS && P->qcount[0] && P->run_gpus[0] && P->next_tick < 0 &&
	    P->quantum > 0) {
		P->next_tick = dl_sim_now(s) + P->quantum;
		dl_sim_timer(s, P->next_tick, DL_SIM_NOJOB, T_TICK, 0);
	}
}
