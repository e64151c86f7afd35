/*
 * dally.c: the Dally driver (dally.h; dlsched-simulate(1), DALLY).
 *
 * Progress ratio: the ideal time of the work a job has done on the GPUs it
 * held (work / their speed) over the time it held them making progress (a
 * restart's pause is not the placement's loss): 1 when nothing was lost to
 * placement, 0 for a job that has not run (no progress).
 *
 * Class (rank): the MLFQ queue of the job's attained GPU-seconds since its
 * last promotion (the options tiresias-las shares; Tiresias' limits by
 * default), then its ratio rounded to a tenth (DALLY_RATIO_STEP), lower
 * first; then submit time. New jobs (queue 0, ratio 0) come first; a badly
 * placed job comes before the well placed ones of its queue. A waiting
 * job's class is constant until --starvation promotes it.
 *
 * At every instant something changes, waiting jobs are offered the free GPUs
 * in class order through the run's dally placer: one node at once, one rack
 * once the job has waited its rack timer, any racks once it has waited its
 * network timer (timers fixed or auto-tuned: policy/dally.h). A job the
 * timers hold back gets a timer at the instant its next tier opens.
 *
 * At each lease end (every --lease seconds from the first submit):
 *   1. leases: running jobs that have held their GPUs for a lease or more
 *      bid again with the waiting jobs, in class order: a waiting job whose
 *      timers allow a placement (node, rack or any) made of free GPUs and
 *      the expired leases of strictly worse classes takes it, on the node or
 *      rack costing the fewest victims' GPUs, worst victims first; the
 *      victims are preempted. Equals never take each other's leases, so
 *      leases do not churn;
 *   2. consolidation: the running jobs placed worse than their consolidated
 *      tier, lowest ratio first, move to a narrower tier when one is free and
 *      the move saves more than its restart cost. The waiting jobs have had
 *      their offers at that instant already: moves take the GPUs they left,
 *      and the GPUs a move frees are offered again.
 * A job resuming (after a lost lease) or moved runs --restart-cost seconds
 * per GPU without progress.
 *
 * A pass costs O(lists) per job started: waiting jobs are kept per GPU
 * count in two lists (new jobs; jobs that have run), and a list whose first
 * job must wait is not looked at again in that pass (the jobs behind it
 * rank no better; in the list of jobs that have run, a longer wait behind
 * the first is overlooked until the next pass: a simplification).
 *
 * A lease end costs what changed, not the running jobs (the lease index):
 * running jobs wait in start order until their lease expires, then join an
 * ordered set by (class, index) whose suffix above a waiting job's class
 * is its victims, worst last, with per node the victims' GPUs summed from
 * each class up (a bid's feasibility costs O(nodes + racks), whatever the
 * victims). A job's class is looked at again only when it may have changed:
 * a job running at rate 1 (its counters advance exactly, so when they are
 * brought up to date changes no bit) has a class that is a known function
 * of time, and waits for the tick its queue or ratio step may change; the
 * others (slowed down, or at another rate) are brought up to date at every
 * lease end, as before, because their work's rounding depends on when it
 * is counted, and ranked again when their ratio leaves its step or their
 * queue changes. So a lease end costs O(nodes + racks) plus O(log r) for
 * each lease expired, class changed or victim taken, plus O(1) for each
 * job not at rate 1, plus the victims a won bid goes through (worst first,
 * until a unit holds it); consolidation looks at the slowed-down jobs.
 * scan_leases (tests only) keeps the first algorithm, which looked at every
 * running job at every lease end: the results are the same bytes.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/num.h"
#include "policy/mlfq.h"
#include "sim/dally.h"
#include "sim/queueing.h"
#include "sim/oset.h"
#include "sim/slab.h"

/* the driver's own option; the timers are the shared group (dl_dally_opt_table) */
const struct dl_opt dl_sim_dally_opts[] = {
	{DL_OPT_SECONDS, 0, "restart-cost", "S",
	 "seconds per GPU a job resuming or moved runs without progress",
	 DL_OPT_AT(struct dl_sim_dally, restart_cost), .max = DL_SECONDS_MAX,
	 .def = DL_SIM_DALLY_RESTART},
	{DL_OPT_END},
};

enum { T_LEASE = 1, T_DELAY = 2, T_PROMOTE = 3 };

/* ratios that differ by less than this rank alike (a restart's second does not reorder jobs) */
#define DALLY_RATIO_STEP 0.1

/* where a running job is in the lease index */
enum { W_NONE, W_YOUNG, W_RANKED };

/* a class ratio this close to a step's edge is looked at again at every lease end */
#define DALLY_EDGE 1e-9

/* per job slot */
struct dj {
	double held;	/* ticks held in earlier placements */
	double ideal;	/* their work / speed: ticks the work would take with no loss */
	double work0;	/* work_left when the current placement began */
	double speed;	/* its GPU type's speed */
	dl_tick since;	/* when it began */
	dl_tick paced;	/* when it began to make progress (after its restart) */
	dl_tick armed;	/* the delay timer set for this job (-1: none) */
	dl_tick exec0;	/* j->executed at its last promotion (--starvation) */
	dl_tick wait0;	/* j->waited when it last began to wait */
	ptrdiff_t bpos; /* index in bad[], or -1 */
	ptrdiff_t rpos; /* index in run[], or -1 */
	int ran;	/* has held GPUs */
	/*
	 * The lease index: until when its class is known (exact jobs), its place
	 * in loose[]; the ratios strictly between rlo and rhi, and attained ticks
	 * below qran, that keep its class (class_bounds).
	 */
	dl_tick until;
	double rlo, rhi;
	dl_tick qran;
	ptrdiff_t lpos;
	int gfirst;	     /* ranked: its first GPU, the others chained in gnext[] */
	int node1, ngpu;     /* ranked: the node of all its GPUs (or -1), how many */
	unsigned char where; /* W_* */
	unsigned char exact; /* runs at rate 1: a later sync changes no bit */
};

/* the jobs of one class and above in the lease index: per node, their GPUs */
struct level {
	double rank;
	size_t jobs; /* of this class */
	int *gpus;   /* per node: GPUs of ranked jobs of this class or worse */
	long total;  /* their sum */
};

struct dally {
	struct dl_sim_dally p;
	struct dl_dally *tuner; /* the timers: the same code as place --policy dally's */
	struct dl_placer *placer;
	struct dj *dj;
	size_t ndj;
	struct dl_opool pool;
	size_t ncls;
	int maxg;
	int *cls_gpus, *cls_of;
	struct dl_oset *pend; /* per class: waiting jobs by (submit, idx) */
	char *blocked;	      /* per class, during a pass */
	size_t *bad, nbad;    /* running jobs with slowdown > 1, by slot */
	size_t *run, nrun;    /* running jobs, by slot */
	size_t nfresh;	      /* waiting jobs that have not run */
	size_t npend;	      /* waiting jobs */
	struct dl_mlfq mlfq;  /* ties in ratio: Tiresias' queues of attained GPU-seconds */
	size_t *cur;	      /* per class: a walk's cursor */
	struct rk {
		double r;
		uint32_t idx;
		size_t slot;
	} * order;
	/*
	 * lease_view's victims: order[0..nv) in D->run's order; worst[0..nworst)
	 * the worst first, drawn as needed from a max-heap of their packed keys,
	 * vcode[0..nheap).
	 */
	double *vcode;
	struct rk *worst;
	size_t nworst, nheap;
	int *gbuf;
	const int *gnode; /* per GPU: its node (the cluster's index) */
	/*
	 * At a lease end: per node, the GPUs a waiting job may take (free, or
	 * held by a job chosen as a victim) and not promised yet (nopen);
	 * per node then per rack, best_unit's counts; per slot, chosen victims.
	 */
	int *nopen, *ucount, *ucost;
	long nopen_sum; /* (the lease index's) */
	unsigned char *chosen;
	/*
	 * The lease index (not with scan_leases). Running jobs: young (lease not
	 * expired, by start), or ranked (by class, in pool like the waiting jobs:
	 * a job is in one of the two). Ranked exact jobs wait in due by the tick
	 * their class may change; the others are in loose[]. tpool holds young
	 * and due (a job is in one at most). levels[0..nlevels), by class: the
	 * per node sums for feasible(); those past nlevels keep their arrays
	 * for the next new class (NULL when never used).
	 */
	struct dl_opool tpool;
	struct dl_oset young, due, ranked;
	size_t *loose, nloose;
	struct level *levels;
	size_t nlevels, levels_cap;
	int *gnext;
	size_t *walked, nwalked; /* best_unit's victims, worst first: the ones to take */
	const struct dl_cluster *c;
	dl_tick lease, lease_armed;
	int lease_due;
};

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	struct dally *D = xcalloc(1, sizeof(*D));
	D->p = *(const struct dl_sim_dally *)params; /* (the engine's defaults when none given) */
	/* a 1-GPU job's swap: a wider one pays --restart-cost per GPU (the man page) */
	if (dl_sim_period_check(s, "lease", D->p.timers.lease, "--restart-cost", D->p.restart_cost,
				err) < 0 ||
	    dl_mlfq_from_params(&D->mlfq, &D->p.mlfq, DL_MLFQ_TIRESIAS_QUEUES, err) < 0) {
		free(D);
		return NULL;
	}
	D->tuner = dl_dally_new(&D->p.timers);
	D->p.timers = *dl_dally_opts(D->tuner); /* with its corrections */
	D->placer = dl_sim_placer(s);
	D->lease = dl_sim_ticks(D->p.timers.lease);
	if (D->lease < 1)
		D->lease = 1;
	D->lease_armed = -1;
	dl_opool_init(&D->pool, 0);
	dl_opool_init(&D->tpool, 0);
	D->young = D->due = D->ranked = (struct dl_oset)DL_OSET_INIT;
	size_t n = dl_sim_njobs(s);
	D->maxg = dl_sim_total_gpus(s);
	D->cls_of = xcalloc((size_t)D->maxg + 2, sizeof(*D->cls_of));
	for (size_t i = 0; i < n; i++) {
		int g = dl_sim_job_gpus(s, i);
		if (g >= 1 && g <= D->maxg)
			D->cls_of[g] = 1;
	}
	D->cls_gpus = xcalloc((size_t)D->maxg + 2, sizeof(*D->cls_gpus));
	for (int g = 1; g <= D->maxg; g++)
		if (D->cls_of[g]) {
			D->cls_gpus[D->ncls] = g;
			D->cls_of[g] = (int)D->ncls++;
		}
	D->pend = xcalloc(2 * D->ncls + 1, sizeof(*D->pend));
	for (size_t c = 0; c <= 2 * D->ncls; c++)
		D->pend[c] = (struct dl_oset)DL_OSET_INIT;
	D->blocked = xcalloc(2 * D->ncls + 1, 1);
	D->cur = xcalloc(2 * D->ncls + 1, sizeof(*D->cur));
	D->gbuf = xcalloc((size_t)D->maxg + 1, sizeof(*D->gbuf));
	D->c = dl_sim_cluster(s);
	D->gnode = D->c->gpu_node;
	D->nopen = xcalloc(D->c->nnodes + 1, sizeof(*D->nopen));
	D->ucount = xcalloc(D->c->nnodes + D->c->nracks + 1, sizeof(*D->ucount));
	D->ucost = xcalloc(D->c->nnodes + D->c->nracks + 1, sizeof(*D->ucost));
	D->gnext = xcalloc((size_t)D->maxg + 1, sizeof(*D->gnext));
	return D;
}

static void destroy(void *st)
{
	struct dally *D = st;
	dl_dally_free(D->tuner);
	dl_mlfq_release(&D->mlfq);
	dl_opool_release(&D->pool);
	dl_opool_release(&D->tpool);
	for (size_t i = 0; i < D->levels_cap; i++)
		free(D->levels[i].gpus);
	free(D->levels);
	free(D->loose);
	free(D->walked);
	free(D->gnext);
	free(D->dj);
	free(D->cls_gpus);
	free(D->cls_of);
	free(D->pend);
	free(D->blocked);
	free(D->bad);
	free(D->run);
	free(D->cur);
	free(D->order);
	free(D->vcode);
	free(D->worst);
	free(D->gbuf);
	free(D->nopen);
	free(D->chosen);
	free(D->ucount);
	free(D->ucost);
	free(D);
}

static void fit_slots(struct dally *D, struct dl_sim *s)
{
	size_t need = dl_sim_slots(s);
	dl_opool_grow(&D->pool, need);
	dl_opool_grow(&D->tpool, need);
	if (need > D->ndj) {
		/* the per-slot array is a slab (slab.h); the slot lists match its size */
		D->dj = dl_slab_grow(D->dj, &D->ndj, need, sizeof(*D->dj));
		D->bad = xreallocarray(D->bad, D->ndj, sizeof(*D->bad));
		D->run = xreallocarray(D->run, D->ndj, sizeof(*D->run));
		D->loose = xreallocarray(D->loose, D->ndj, sizeof(*D->loose));
		D->walked = xreallocarray(D->walked, D->ndj, sizeof(*D->walked));
		D->order = xreallocarray(D->order, D->ndj, sizeof(*D->order));
		D->vcode = xreallocarray(D->vcode, D->ndj, sizeof(*D->vcode));
		D->worst = xreallocarray(D->worst, D->ndj, sizeof(*D->worst));
		D->chosen = xrealloc(D->chosen, D->ndj);
		memset(D->chosen, 0, D->ndj);
	}
}

/*
 * Waiting jobs: two lists per GPU count, new jobs (in submit order: ratio 0)
 * and jobs that have run (by ratio), each by (ratio, submit, idx); a ratio is
 * constant while its job waits. A new job that must wait for its timers
 * blocks only the new jobs behind it, which have waited no longer.
 */
static size_t pend_list(const struct dally *D, const struct dl_sim_job *j)
{
	return 2 * (size_t)D->cls_of[j->gpus] + (size_t)D->dj[j->slot].ran;
}

/* the attained GPU-seconds of `ran` ticks on j's GPUs, as tiresias-las counts them */
static double service(const struct dl_sim_job *j, dl_tick ran)
{
	return (double)j->gpus * (double)ran / DL_TICKS_PER_SECOND;
}

/* a ratio's step (DALLY_RATIO_STEP), at most 63 */
static long ratio_step(double ratio)
{
	long step = lround(ratio / DALLY_RATIO_STEP);
	return step < 63 ? step : 63;
}

/* a job's class: its ratio rounded to the step, then its MLFQ queue (lower first) */
static double rank(const struct dally *D, const struct dl_sim_job *j, double ratio)
{
	/* attained service since its last promotion */
	size_t q = dl_mlfq_queue(&D->mlfq, service(j, j->executed - D->dj[j->slot].exec0));
	/* a small integer, so that lease_view can pack it with the job's index */
	return (double)q * 64 + (double)ratio_step(ratio);
}

static void pend_add(struct dally *D, struct dl_sim_job *j, double key)
{
	dl_oset_insert(&D->pool, &D->pend[pend_list(D, j)], j->slot, key, (double)j->submit,
		       j->idx);
	if (!D->dj[j->slot].ran)
		D->nfresh++;
	D->npend++;
}

static void pend_del(struct dally *D, struct dl_sim_job *j)
{
	dl_oset_erase(&D->pool, &D->pend[pend_list(D, j)], j->slot);
	if (!D->dj[j->slot].ran)
		D->nfresh--;
	D->npend--;
}

/*
 * run[], bad[] and loose[] are unordered lists of slots with O(1) removal:
 * a slot's index in one is kept in its record, in the field at offset pos
 * (rpos, bpos or lpos), -1 while it is not there.
 */
static ptrdiff_t *list_pos(struct dally *D, size_t slot, size_t pos)
{
	return (ptrdiff_t *)((char *)&D->dj[slot] + pos);
}

static void list_add(struct dally *D, size_t *list, size_t *n, size_t pos, size_t slot)
{
	*list_pos(D, slot, pos) = (ptrdiff_t)*n;
	list[(*n)++] = slot;
}

static void list_del(struct dally *D, size_t *list, size_t *n, size_t pos, size_t slot)
{
	ptrdiff_t at = *list_pos(D, slot, pos);
	if (at < 0)
		return;
	size_t last = list[--*n];
	list[at] = last;
	*list_pos(D, last, pos) = at;
	*list_pos(D, slot, pos) = -1;
}

static void run_add(struct dally *D, size_t slot)
{
	list_add(D, D->run, &D->nrun, offsetof(struct dj, rpos), slot);
}

static void unindex(struct dally *D, size_t slot);

/* j no longer runs (finished, or lost its lease): out of run[] and the lease index */
static void run_del(struct dally *D, size_t slot)
{
	if (!D->p.scan_leases)
		unindex(D, slot);
	list_del(D, D->run, &D->nrun, offsetof(struct dj, rpos), slot);
}

static void bad_add(struct dally *D, size_t slot)
{
	list_add(D, D->bad, &D->nbad, offsetof(struct dj, bpos), slot);
}

static void bad_del(struct dally *D, size_t slot)
{
	list_del(D, D->bad, &D->nbad, offsetof(struct dj, bpos), slot);
}

/* a placement began now: the counters of the ratio, and the badly placed list */
static void hold_begin(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	d->since = dl_sim_now(s);
	/* a restart's pause is not the placement's loss: the ratio counts from its end */
	d->paced = j->restore_until > d->since ? j->restore_until : d->since;
	d->work0 = j->work_left;
	/* the job's own speed there (its model's, with --throughputs) */
	d->speed = dl_sim_job_speed(s, j, j->gpu_type);
	if (!(d->speed > 0))
		d->speed = 1;
	if (j->slowdown > 1 && d->bpos < 0)
		bad_add(D, j->slot);
	else if (j->slowdown <= 1)
		bad_del(D, j->slot);
	if (!D->p.scan_leases) {
		/* its lease runs from now: young, by start (always the last) */
		unindex(D, j->slot);
		d->exact = j->rate == 1 && !(j->slowdown > 1) && j->work_left < 0x1p53;
		dl_oset_insert(&D->tpool, &D->young, j->slot, (double)d->since, 0, j->idx);
		d->where = W_YOUNG;
	}
}

static void hold_end(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	/* (a victim the lease index knew the class of has not been brought up to date) */
	dl_sim_sync(s, j);
	if (dl_sim_now(s) > d->paced)
		d->held += (double)(dl_sim_now(s) - d->paced);
	d->ideal += (d->work0 - j->work_left) / d->speed;
}

/* the progress ratio of a running job now */
static double ratio(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	dl_sim_sync(s, j);
	dl_tick now = dl_sim_now(s);
	double held = d->held + (now > d->paced ? (double)(now - d->paced) : 0);
	double ideal = d->ideal + (d->work0 - j->work_left) / d->speed;
	return held > 0 ? ideal / held : 0;
}

/* ---- the lease index (see the top of this file) ---- */

/* the first level whose class is above r (above) or at least r (!above); nlevels: none */
static size_t level_find(const struct dally *D, double r, int above)
{
	size_t lo = 0, hi = D->nlevels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (above ? D->levels[mid].rank > r : D->levels[mid].rank >= r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* the ranked job in slot, of class r, comes (by 1) or goes (by -1): the levels' sums */
static void level_move(struct dally *D, size_t slot, double r, int by)
{
	size_t nn = D->c->nnodes, p = level_find(D, r, 0);
	if (p == D->nlevels || D->levels[p].rank != r) {
		/* a new class: its sums start from those of the worse classes */
		if (D->nlevels == D->levels_cap) {
			size_t cap = D->levels_cap ? 2 * D->levels_cap : 8;
			D->levels = xreallocarray(D->levels, cap, sizeof(*D->levels));
			for (size_t i = D->levels_cap; i < cap; i++)
				D->levels[i].gpus = NULL;
			D->levels_cap = cap;
		}
		int *g = D->levels[D->nlevels].gpus;
		if (!g)
			g = xmalloc((nn + 1) * sizeof(*g));
		if (p < D->nlevels)
			memcpy(g, D->levels[p].gpus, nn * sizeof(*g));
		else
			memset(g, 0, nn * sizeof(*g));
		memmove(&D->levels[p + 1], &D->levels[p], (D->nlevels - p) * sizeof(*D->levels));
		D->levels[p] = (struct level){r, 0, g, p < D->nlevels ? D->levels[p + 1].total : 0};
		D->nlevels++;
	}
	D->levels[p].jobs += (size_t)(ptrdiff_t)by;
	for (int g = D->dj[slot].gfirst; g >= 0; g = D->gnext[g])
		for (size_t l = 0; l <= p; l++) {
			D->levels[l].gpus[D->gnode[g]] += by;
			D->levels[l].total += by;
		}
	if (!D->levels[p].jobs) {
		int *g = D->levels[p].gpus;
		memmove(&D->levels[p], &D->levels[p + 1],
			(D->nlevels - p - 1) * sizeof(*D->levels));
		D->levels[--D->nlevels].gpus = g;
	}
}

static void rank_put(struct dally *D, const struct dl_sim_job *j, double r)
{
	struct dj *d = &D->dj[j->slot];
	/* its GPUs, chained: a finish reaches the policy after the engine forgot them */
	d->gfirst = -1;
	d->node1 = j->ngpu ? D->gnode[j->gpu[0]] : -1;
	d->ngpu = j->ngpu;
	for (int k = j->ngpu; k-- > 0;) {
		D->gnext[j->gpu[k]] = d->gfirst;
		d->gfirst = j->gpu[k];
		if (D->gnode[j->gpu[k]] != d->node1)
			d->node1 = -1;
	}
	dl_oset_insert(&D->pool, &D->ranked, j->slot, r, (double)j->idx, j->idx);
	level_move(D, j->slot, r, 1);
}

static void rank_drop(struct dally *D, size_t slot)
{
	level_move(D, slot, D->pool.n[slot].k0, -1);
	dl_oset_erase(&D->pool, &D->ranked, slot);
}

static void loose_add(struct dally *D, size_t slot)
{
	list_add(D, D->loose, &D->nloose, offsetof(struct dj, lpos), slot);
}

static void loose_del(struct dally *D, size_t slot)
{
	list_del(D, D->loose, &D->nloose, offsetof(struct dj, lpos), slot);
}

static void unindex(struct dally *D, size_t slot)
{
	struct dj *d = &D->dj[slot];
	if (d->where == W_YOUNG) {
		dl_oset_erase(&D->tpool, &D->young, slot);
	} else if (d->where == W_RANKED) {
		rank_drop(D, slot);
		if (dl_oset_has(&D->tpool, slot))
			dl_oset_erase(&D->tpool, &D->due, slot);
		loose_del(D, slot);
	}
	d->where = W_NONE;
}

/*
 * What keeps the class a running job has with ratio rt now: a computed
 * ratio DALLY_EDGE inside its step's edges rounds to the same step (the
 * division by the step rounds by some 1e-15), and its queue holds until
 * its attained ticks reach qran, found exactly (the service is monotone in
 * the ticks).
 */
static void class_bounds(struct dally *D, const struct dl_sim_job *j, double rt)
{
	struct dj *d = &D->dj[j->slot];
	long step = ratio_step(rt);
	d->rlo = step > 0 ? (step - 0.5) * DALLY_RATIO_STEP + DALLY_EDGE : -INFINITY;
	d->rhi = step < 63 ? (step + 0.5) * DALLY_RATIO_STEP - DALLY_EDGE : INFINITY;
	d->qran = INT64_MAX;
	dl_tick ran = j->executed - d->exec0;
	size_t q = dl_mlfq_queue(&D->mlfq, service(j, ran));
	if (q + 1 < D->mlfq.nqueues) {
		double lim = D->mlfq.limits[q], guess = ceil(lim * DL_TICKS_PER_SECOND / j->gpus);
		if (guess < 4e18) {
			dl_tick at = (dl_tick)guess > ran ? (dl_tick)guess : ran + 1;
			while (at - 1 > ran && service(j, at - 1) >= lim)
				at--;
			while (service(j, at) < lim)
				at++;
			d->qran = at;
		}
	}
}

/*
 * An exact job's class now (its bounds set by class_bounds): the last tick
 * it is sure to keep it. Its attained ticks grow by one a tick. Its ratio
 * is (I + x / speed) / (H + x) after x ticks of progress (work, and so the
 * ratio, stand still before paced): monotone in x, it meets a value c at
 * most once, at x = (cH - I) / (1 / speed - c). While that exact ratio
 * stays inside (rlo, rhi), so does the computed one, give or take some
 * 1e-15; a job closer than DALLY_EDGE to an edge is looked at again at every
 * lease end.
 */
static dl_tick rank_until(const struct dally *D, const struct dl_sim_job *j, dl_tick now)
{
	const struct dj *d = &D->dj[j->slot];
	dl_tick ran = j->executed - d->exec0;
	dl_tick until = d->qran < INT64_MAX ? now + (d->qran - ran) - 1 : INT64_MAX;
	if (now < d->paced)
		return until < d->paced ? until : d->paced;
	double H = d->held, I = d->ideal, x = (double)(now - d->paced), a = 1 / d->speed;
	if (!(H + x > 0))
		return now; /* a ratio of 0 before the first tick held */
	double lo = d->rlo, hi = d->rhi, rho = (I + x * a) / (H + x);
	if (!(rho > lo && rho < hi))
		return now;
	for (int side = 0; side < 2; side++) {
		double c = side ? hi : lo, meet = (c * H - I) / (a - c);
		/* 2 ticks early: the division rounds */
		if (isfinite(c) && a != c && meet > x && meet < 4e18) {
			dl_tick t = d->paced + (dl_tick)meet - 2;
			until = t < until ? t : until;
		}
	}
	return until > now ? until : now;
}

/* j's class now, in the index: a job whose lease just expired joins it */
static void rerank(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	double rt = ratio(D, s, j), r = rank(D, j, rt);
	if (d->where != W_RANKED) {
		if (d->where == W_YOUNG)
			dl_oset_erase(&D->tpool, &D->young, j->slot);
		d->where = W_RANKED;
		rank_put(D, j, r);
		if (!d->exact)
			loose_add(D, j->slot);
	} else if (D->pool.n[j->slot].k0 != r) {
		rank_drop(D, j->slot);
		rank_put(D, j, r);
	}
	class_bounds(D, j, rt);
	if (!d->exact)
		return;
	if (dl_oset_has(&D->tpool, j->slot))
		dl_oset_erase(&D->tpool, &D->due, j->slot);
	d->until = rank_until(D, j, dl_sim_now(s));
	if (d->until < INT64_MAX)
		dl_oset_insert(&D->tpool, &D->due, j->slot, (double)d->until, 0, j->idx);
}

static void on_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	fit_slots(D, s);
	D->dj[j->slot] = (struct dj){
		.speed = 1, .armed = -1, .bpos = -1, .rpos = -1, .lpos = -1, .gfirst = -1};
	pend_add(D, j, rank(D, j, 0));
}

/*
 * --starvation N, tiresias-las' rule: a job in a lower queue that has waited
 * N times what it ran since its last promotion goes back to the first
 * queue, its attained service counted afresh (its ratio is kept).
 */
static size_t queue_of(const struct dally *D, const struct dl_sim_job *j, dl_tick *ran)
{
	*ran = j->executed - D->dj[j->slot].exec0;
	return dl_mlfq_queue(&D->mlfq, service(j, *ran));
}

static void arm_promote(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	dl_tick ran;
	if (!queue_of(D, j, &ran))
		return;
	double lim = dl_mlfq_starve_limit(&D->mlfq, (double)ran);
	if (!isfinite(lim))
		return;
	double left = lim - (double)(j->waited - D->dj[j->slot].wait0);
	if (!(left < 4e18))
		return; /* beyond any run */
	dl_tick at = dl_sim_now(s) + (left > 0 ? (dl_tick)ceil(left) : 0);
	dl_sim_timer(s, at, j->idx, T_PROMOTE, j->version);
}

static int promote(struct dally *D, struct dl_sim *s, struct dl_sim_job *j, uint64_t stamp)
{
	if (j->version != stamp)
		return 0; /* it ran since: a later wait armed its own timer */
	dl_sim_sync(s, j);
	struct dj *d = &D->dj[j->slot];
	dl_tick ran;
	size_t q = queue_of(D, j, &ran);
	if (!dl_mlfq_starving(&D->mlfq, q, (double)ran, (double)(j->waited - d->wait0))) {
		arm_promote(D, s, j);
		return 0;
	}
	double key = D->pool.n[j->slot].k0, step = key - floor(key / 64) * 64;
	pend_del(D, j);
	d->exec0 = j->executed;
	pend_add(D, j, step); /* queue 0, its ratio step kept */
	dl_sim_note(s, j, "promote", "Q0");
	return 1;
}

/* a job that lost its lease has saved its checkpoint: it waits with its ratio */
static void on_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	struct dj *d = &D->dj[j->slot];
	d->armed = -1;
	dl_sim_sync(s, j);
	d->wait0 = j->waited;
	pend_add(D, j, rank(D, j, d->held > 0 ? d->ideal / d->held : 0));
	arm_promote(D, s, j);
}

static void on_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	(void)s;
	bad_del(D, j->slot);
	run_del(D, j->slot);
}

static int on_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	struct dally *D = st;
	if (kind == T_LEASE) {
		D->lease_armed = -1;
		if (!D->nbad && !(D->npend && D->nrun))
			return 0;
		D->lease_due = 1;
		return 1;
	}
	struct dl_sim_job *j = dl_sim_job(s, job);
	if (!j || j->state != DL_SJ_QUEUED)
		return 0;
	if (kind == T_PROMOTE)
		return promote(D, s, j, stamp);
	/* a timer superseded by a later one (the auto-tuner moved the opening) is stale */
	struct dj *d = &D->dj[j->slot];
	if (d->armed != (dl_tick)stamp)
		return 0;
	d->armed = -1;
	return 1;
}

/* j must wait: wake up when its next tier opens (if its timers will open one) */
static void arm_delay(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	double rack, net;
	dl_dally_timers(D->tuner, j->gpus, &rack, &net);
	dl_tick now = dl_sim_now(s), from = now - j->waited;
	/* ceil: at that tick the placer must see a wait of at least the timer */
	dl_tick r = from + (dl_tick)ceil(rack * DL_TICKS_PER_SECOND);
	dl_tick n = from + (dl_tick)ceil(net * DL_TICKS_PER_SECOND);
	dl_tick at = r > now ? r : n > now ? n : -1;
	struct dj *d = &D->dj[j->slot];
	if (at > now && d->armed != at) {
		dl_sim_timer(s, at, j->idx, T_DELAY, (uint64_t)at);
		d->armed = at;
	}
}

/* offer free GPUs to waiting jobs in class order (new jobs first), ties by submit */
static void offer(struct dally *D, struct dl_sim *s)
{
	int free_gpus = dl_sim_free_gpus(s);
	memset(D->blocked, 0, 2 * D->ncls);
	for (;;) {
		size_t best = DL_ONIL, bc = 0;
		for (size_t l = 0; l < 2 * D->ncls && D->cls_gpus[l / 2] <= free_gpus; l++) {
			if (D->blocked[l] || !D->pend[l].count)
				continue;
			size_t h = dl_oset_first(&D->pool, &D->pend[l]);
			if (best == DL_ONIL || dl_okey_less(&D->pool.n[h], &D->pool.n[best])) {
				best = h;
				bc = l;
			}
		}
		if (best == DL_ONIL)
			return;
		struct dl_sim_job *j = dl_sim_slot_job(s, best);
		struct dj *d = &D->dj[best];
		/* the tiers its timers have opened; resuming: the restart cost, not --restore-cost
		 */
		dl_sim_sync(s, j);
		double wait = (double)j->waited / DL_TICKS_PER_SECOND;
		enum dl_tier open = dl_dally_open_tier(D->tuner, j->gpus, wait);
		struct dl_sim_how how = {.type = DL_ANY_TYPE,
					 .pause = D->p.restart_cost * j->gpus,
					 .within = (int)open + 1};
		enum dl_decision dec = dl_sim_start(s, j, &how);
		/* a job that waits keeps its place (its key is the same) */
		if (dec != DL_WAIT)
			pend_del(D, j);
		if (dec == DL_PLACED) {
			dl_dally_record(D->tuner, j->gpus, (enum dl_tier)j->tier, wait);
			d->armed = -1;
			d->ran = 1;
			run_add(D, best);
			hold_begin(D, s, j);
			free_gpus = dl_sim_free_gpus(s);
		} else if (dec == DL_WAIT) {
			D->blocked[bc] = 1;
			arm_delay(D, s, j);
		} /* DL_REJECT: the engine reported it; the job is gone */
	}
}

static int cmp_rk(const void *a, const void *b)
{
	const struct rk *x = a, *y = b;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* the victims' packed keys: the largest (worst) first */
static int code_first(const double *a, const double *b)
{
	return *a > *b;
}
DL_HEAP_DEFINE(codes, double, code_first)

/*
 * The lease end's view, built when a waiting job of class `best` first
 * needs one: per node the free GPUs, and the running jobs whose lease has
 * expired and whose class is worse than `best` (the only possible victims):
 * order[0..nv) in D->run's order, and their keys as a heap for victim_at.
 */
static size_t lease_view(struct dally *D, struct dl_sim *s, double best)
{
	dl_tick now = dl_sim_now(s);
	size_t nv = 0;
	for (size_t i = 0; i < D->nrun; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->run[i]);
		if (j->state != DL_SJ_RUNNING || now - D->dj[D->run[i]].since < D->lease)
			continue;
		double r = rank(D, j, ratio(D, s, j));
		if (r > best) {
			/* (rank, idx) packed exactly in a double: rank < 2^21 */
			D->vcode[nv] = r * 4294967296.0 + (double)j->idx;
			D->order[nv++] = (struct rk){r, j->idx, D->run[i]};
		}
	}
	D->nworst = 0;
	D->nheap = nv;
	if (!nv)
		return 0;
	for (size_t n = 0; n < D->c->nnodes; n++)
		D->nopen[n] = dl_sim_node_free(s, (int)n);
	codes_heapify(D->vcode, nv);
	return nv;
}

/*
 * The same from the lease index: bring it up to date (leases expired since
 * the last look join it; the classes that may have changed are looked at
 * again), then the nodes' free GPUs when a job ranks worse than `best`.
 * Nonzero when one does.
 */
static size_t lease_index(struct dally *D, struct dl_sim *s, double best)
{
	dl_tick now = dl_sim_now(s);
	size_t h;
	while ((h = dl_oset_first(&D->tpool, &D->young)) != DL_ONIL &&
	       now - D->dj[h].since >= D->lease)
		rerank(D, s, dl_sim_slot_job(s, h));
	/* their counters brought up to date now, as the scan did: the rounding depends on it */
	for (size_t i = 0; i < D->nloose; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->loose[i]);
		const struct dj *d = &D->dj[j->slot];
		double rt = ratio(D, s, j);
		if (!(rt > d->rlo && rt < d->rhi && j->executed - d->exec0 < d->qran))
			rerank(D, s, j);
	}
	while ((h = dl_oset_first(&D->tpool, &D->due)) != DL_ONIL && D->dj[h].until < now)
		rerank(D, s, dl_sim_slot_job(s, h));
	h = dl_oset_last(&D->pool, &D->ranked);
	if (h == DL_ONIL || !(D->pool.n[h].k0 > best))
		return 0;
	D->nopen_sum = 0;
	for (size_t n = 0; n < D->c->nnodes; n++)
		D->nopen_sum += D->nopen[n] = dl_sim_node_free(s, (int)n);
	return 1;
}

/* the i-th worst victim (highest rank, then latest submitted), or NULL past the last */
static const struct rk *victim_at(struct dally *D, struct dl_sim *s, size_t i)
{
	while (D->nworst <= i && D->nheap) {
		double code = codes_pop(D->vcode, &D->nheap), r = floor(code / 4294967296.0);
		uint32_t idx = (uint32_t)(code - r * 4294967296.0);
		D->worst[D->nworst++] = (struct rk){r, idx, dl_sim_job(s, idx)->slot};
	}
	return i < D->nworst ? &D->worst[i] : NULL;
}

/*
 * A walk over the victims not taken yet, worst first, while their class is
 * worse than a key: the scan's heap, or the lease index backwards (a victim
 * taken leaves it; the walk has its next one already).
 */
struct vwalk {
	size_t i, next;
};

static void vwalk_start(const struct dally *D, struct vwalk *w)
{
	w->i = 0;
	w->next = D->p.scan_leases ? DL_ONIL : dl_oset_last(&D->pool, &D->ranked);
}

/* the next victim's slot, or DL_ONIL */
static size_t vwalk_next(struct dally *D, struct dl_sim *s, struct vwalk *w, double key)
{
	if (D->p.scan_leases) {
		const struct rk *vk;
		while ((vk = victim_at(D, s, w->i)) && vk->r > key) {
			w->i++;
			if (!D->chosen[vk->slot])
				return vk->slot;
		}
		return DL_ONIL;
	}
	size_t h = w->next;
	if (h == DL_ONIL || !(D->pool.n[h].k0 > key))
		return DL_ONIL;
	w->next = dl_oset_prev(&D->pool, h);
	return h;
}

/* may a job of GPU type `type` (or DL_ANY_TYPE) run on node n? */
static int node_ok(const struct dl_cluster *c, size_t n, int type)
{
	return type == DL_ANY_TYPE || c->nodes[n].type == type;
}

/* ucount[] per node then rack: the GPUs open to a job of `type` now; returns their sum */
static int open_counts(struct dally *D, int type)
{
	const struct dl_cluster *c = D->c;
	size_t nn = c->nnodes, nr = c->nracks;
	int *cnt = D->ucount, total = 0;
	for (size_t u = nn; u < nn + nr; u++)
		cnt[u] = 0;
	for (size_t n = 0; n < nn; n++) {
		cnt[n] = node_ok(c, n, type) ? D->nopen[n] : 0;
		cnt[nn + (size_t)c->nodes[n].rack] += cnt[n];
		total += cnt[n];
	}
	return total;
}

/*
 * ucount[] per node then rack, and their sum: the GPUs a job of class `key`
 * and GPU type `type` could have, open (free or given back) or held by the
 * victims of a worse class not taken yet (the scan's victims).
 */
static int victims_counts(struct dally *D, struct dl_sim *s, size_t nv, double key, int type)
{
	const struct dl_cluster *c = D->c;
	size_t nn = c->nnodes;
	int *cnt = D->ucount, total = open_counts(D, type);
	for (size_t i = 0; i < nv; i++) {
		if (!(D->order[i].r > key) || D->chosen[D->order[i].slot])
			continue;
		struct dl_sim_job *v = dl_sim_slot_job(s, D->order[i].slot);
		for (int k = 0; k < v->ngpu; k++) {
			int n = D->gnode[v->gpu[k]];
			if (!node_ok(c, (size_t)n, type))
				continue;
			cnt[n]++;
			cnt[nn + (size_t)c->nodes[n].rack]++;
			total++;
		}
	}
	return total;
}

/* from the GPUs per node, rack and in all a job of class `key` could have: 1 + the narrowest
 * tier (no wider than open) where a unit reaches need, or 0 */
static int feasible(struct dally *D, struct dl_sim *s, size_t nv, int need, double key,
		    enum dl_tier open, int type)
{
	const struct dl_cluster *c = D->c;
	size_t nn = c->nnodes, nr = c->nracks;
	int *cnt = D->ucount, total = 0;
	if (D->p.scan_leases) {
		total = victims_counts(D, s, nv, key, type);
		for (size_t u = 0; u < nn; u++)
			if (cnt[u] >= need)
				return 1 + DL_TIER_NODE;
	} else {
		/* the index's sums of the classes above key; a node that holds the job ends it */
		size_t l = level_find(D, key, 1);
		const int *held = l < D->nlevels ? D->levels[l].gpus : NULL;
		if (D->nopen_sum + (held ? D->levels[l].total : 0) < need)
			return 0; /* not even every GPU of every type would do */
		for (size_t u = nn; u < nn + nr; u++)
			cnt[u] = 0;
		for (size_t n = 0; n < nn; n++) {
			if (!node_ok(c, n, type))
				continue;
			int k = D->nopen[n] + (held ? held[n] : 0);
			if (k >= need)
				return 1 + DL_TIER_NODE;
			cnt[nn + (size_t)c->nodes[n].rack] += k;
			total += k;
		}
	}
	for (size_t u = nn; u < nn + nr && open >= DL_TIER_RACK; u++)
		if (cnt[u] >= need)
			return 1 + DL_TIER_RACK;
	return open >= DL_TIER_CLUSTER && total >= need ? 1 + DL_TIER_CLUSTER : 0;
}

/* the index of the lowest cost >= 0 in cost[from..to) (the first on ties), or -1 */
static int cheapest(const int *cost, size_t from, size_t to)
{
	int at = -1;
	for (size_t u = from; u < to; u++)
		if (cost[u] >= 0 && (at < 0 || cost[u] < cost[at]))
			at = (int)u;
	return at;
}

static int best_unit(struct dally *D, struct dl_sim *s, size_t nv, int need, double key,
		     enum dl_tier open, int type, int *unit)
{
	const struct dl_cluster *c = D->c;
	size_t nn = c->nnodes, nr = c->nracks;
	int *cnt = D->ucount, *cost = D->ucost;
	int tcost = -1;
	/* most bids fail: find out without ordering the victims */
	int tier = feasible(D, s, nv, need, key, open, type) - 1;
	if (tier < 0)
		return -1;
	int total = open_counts(D, type);
	for (size_t u = 0; u < nn + nr; u++)
		cost[u] = cnt[u] >= need ? 0 : -1;
	if (total >= need)
		tcost = 0;
	/*
	 * Victims worst first until a unit of that tier holds the job: the first
	 * to reach it is the cheapest (later ones pay more), ties to the lowest
	 * index.
	 */
	int paid = 0; /* victims' GPUs taken so far */
	int done = (tier == DL_TIER_NODE && cheapest(cost, 0, nn) >= 0) ||
		   (tier == DL_TIER_RACK && cheapest(cost, nn, nn + nr) >= 0) ||
		   (tier == DL_TIER_CLUSTER && tcost >= 0);
	struct vwalk walk;
	size_t slot;
	vwalk_start(D, &walk);
	D->nwalked = 0;
	while (!done && (slot = vwalk_next(D, s, &walk, key)) != DL_ONIL) {
		struct dl_sim_job *v = dl_sim_slot_job(s, slot);
		D->walked[D->nwalked++] = slot;
		paid += v->gpus;
		for (int k = 0; k < v->ngpu; k++) {
			int n = D->gnode[v->gpu[k]];
			if (!node_ok(c, (size_t)n, type))
				continue;
			size_t r = nn + (size_t)c->nodes[n].rack;
			total++;
			if (++cnt[n] >= need && cost[n] < 0) {
				cost[n] = paid;
				done |= tier == DL_TIER_NODE;
			}
			if (++cnt[r] >= need && cost[r] < 0) {
				cost[r] = paid;
				done |= tier == DL_TIER_RACK;
			}
		}
		if (total >= need && tcost < 0) {
			tcost = paid;
			done |= tier == DL_TIER_CLUSTER;
		}
	}
	int u = cheapest(cost, 0, nn);
	if (u >= 0) {
		*unit = u;
		return DL_TIER_NODE;
	}
	if (open >= DL_TIER_RACK && (u = cheapest(cost, nn, nn + nr)) >= 0) {
		*unit = u - (int)nn;
		return DL_TIER_RACK;
	}
	*unit = 0;
	return open >= DL_TIER_CLUSTER && tcost >= 0 ? DL_TIER_CLUSTER : -1;
}

/*
 * best_unit on the lease index: the same answer without the costs. Later
 * victims pay more, so the cheapest unit of the tier is the first to hold
 * the job as the victims are taken worst first (the lowest index among
 * those that do at the same victim), or one that holds it already.
 */
static int best_unit_index(struct dally *D, struct dl_sim *s, int need, double key,
			   enum dl_tier open, int type, int *unit)
{
	const struct dl_cluster *c = D->c;
	size_t nn = c->nnodes, nr = c->nracks;
	int tier = feasible(D, s, 1, need, key, open, type) - 1;
	if (tier < 0)
		return -1;
	int *cnt = D->ucount, total = open_counts(D, type), best = -1;
	size_t from = tier == DL_TIER_NODE ? 0 : nn, to = tier == DL_TIER_NODE ? nn : nn + nr;
	if (tier == DL_TIER_CLUSTER)
		best = total >= need ? 0 : -1;
	else
		for (size_t u = from; u < to && best < 0; u++)
			if (cnt[u] >= need)
				best = (int)(u - from);
	struct vwalk walk;
	size_t slot;
	vwalk_start(D, &walk);
	D->nwalked = 0;
	while (best < 0 && (slot = vwalk_next(D, s, &walk, key)) != DL_ONIL) {
		const struct dj *d = &D->dj[slot];
		/* a victim on one node (most): its GPUs at once, without the engine's job */
		const struct dl_sim_job *v = d->node1 >= 0 ? NULL : dl_sim_slot_job(s, slot);
		D->walked[D->nwalked++] = slot;
		for (int k = 0; k < (v ? v->ngpu : 1); k++) {
			int n = v ? D->gnode[v->gpu[k]] : d->node1, by = v ? 1 : d->ngpu;
			if (!node_ok(c, (size_t)n, type))
				continue;
			size_t r = nn + (size_t)c->nodes[n].rack;
			size_t u = tier == DL_TIER_NODE ? (size_t)n : r;
			cnt[n] += by;
			cnt[r] += by;
			total += by;
			/* (none held it before this victim: those that do now hold it first) */
			if (tier != DL_TIER_CLUSTER && cnt[u] >= need &&
			    (best < 0 || (int)(u - from) < best))
				best = (int)(u - from);
		}
		if (tier == DL_TIER_CLUSTER && total >= need)
			best = 0;
	}
	*unit = best;
	return best >= 0 ? tier : -1;
}

static int in_unit(const struct dally *D, int node, int tier, int unit, int type)
{
	if (!node_ok(D->c, (size_t)node, type))
		return 0;
	if (tier == DL_TIER_CLUSTER)
		return 1;
	return tier == DL_TIER_NODE ? node == unit : D->c->nodes[node].rack == unit;
}

/*
 * Expired leases against waiting jobs. At a lease end, the jobs whose lease
 * has expired give their GPUs back and bid again with everyone waiting, in
 * priority order; a waiting job gets the GPUs of worse-class jobs (worst
 * first) when that gives it a placement its timers allow (one node, one
 * rack, or any GPUs), choosing the node or rack that needs the fewest
 * victims' GPUs. A job that keeps its class keeps its GPUs: only a strictly
 * worse class loses a lease. A waiting job that cannot be served blocks the
 * jobs behind it in its list (same size, same or worse class) for this
 * lease end.
 */
static void leases(struct dally *D, struct dl_sim *s)
{
	if (!D->npend || !D->nrun)
		return;
	size_t nv = 0, nl = 2 * D->ncls;
	int built = 0;
	for (size_t l = 0; l < nl; l++)
		D->cur[l] = dl_oset_first(&D->pool, &D->pend[l]);
	for (;;) {
		size_t best = DL_ONIL, bl = 0;
		for (size_t l = 0; l < nl; l++) {
			size_t h = D->cur[l];
			if (h == DL_ONIL)
				continue;
			if (best == DL_ONIL || dl_okey_less(&D->pool.n[h], &D->pool.n[best])) {
				best = h;
				bl = l;
			}
		}
		if (best == DL_ONIL)
			break;
		int need = D->cls_gpus[bl / 2];
		struct dl_sim_job *w = dl_sim_slot_job(s, best);
		dl_sim_sync(s, w);
		enum dl_tier open =
			dl_dally_open_tier(D->tuner, need, (double)w->waited / DL_TICKS_PER_SECOND);
		double key = D->pool.n[best].k0;
		if (!built) {
			/* the first (best) waiting job: victims must rank worse than it */
			nv = D->p.scan_leases ? lease_view(D, s, key) : lease_index(D, s, key);
			built = 1;
		}
		if (!nv)
			break; /* no expired lease of a worse class: nothing to take */
		int unit, tier = D->p.scan_leases
					 ? best_unit(D, s, nv, need, key, open, w->type, &unit)
					 : best_unit_index(D, s, need, key, open, w->type, &unit);
		if (tier < 0) {
			D->cur[bl] = DL_ONIL;
			continue;
		}
		/* take the victims there, worst first, then promise it its GPUs */
		const struct dl_cluster *c = D->c;
		int have = 0;
		/* (a node: the loops over the nodes need look at that one only) */
		size_t n0 = 0, n1 = c->nnodes;
		if (!D->p.scan_leases && tier == DL_TIER_NODE)
			n1 = (n0 = (size_t)unit) + 1;
		for (size_t n = n0; n < n1; n++)
			if (in_unit(D, (int)n, tier, unit, w->type))
				have += D->nopen[n];
		/* they are among the victims best_unit went through: the index need not be walked
		 * again */
		struct vwalk walk;
		size_t slot, at = 0;
		vwalk_start(D, &walk);
		while (have < need && (slot = D->p.scan_leases	? vwalk_next(D, s, &walk, key)
					      : at < D->nwalked ? D->walked[at++]
								: DL_ONIL) != DL_ONIL) {
			/* (the index knows the node of a victim on one node) */
			if (!D->p.scan_leases && D->dj[slot].node1 >= 0 &&
			    !in_unit(D, D->dj[slot].node1, tier, unit, w->type))
				continue;
			struct dl_sim_job *v = dl_sim_slot_job(s, slot);
			int here = 0;
			for (int k = 0; k < v->ngpu; k++)
				here += in_unit(D, D->gnode[v->gpu[k]], tier, unit, w->type);
			if (!here)
				continue;
			if (D->p.scan_leases)
				D->chosen[slot] = 1; /* (the index forgets it in run_del) */
			have += here;
			for (int k = 0; k < v->ngpu; k++)
				D->nopen[D->gnode[v->gpu[k]]]++;
			D->nopen_sum += v->ngpu;
			hold_end(D, s, v);
			bad_del(D, v->slot);
			run_del(D, v->slot);
			dl_sim_preempt(s, v);
		}
		for (size_t n = n0, left = (size_t)need; n < n1 && left; n++)
			if (in_unit(D, (int)n, tier, unit, w->type)) {
				size_t t = (size_t)D->nopen[n] < left ? (size_t)D->nopen[n] : left;
				D->nopen[n] -= (int)t;
				D->nopen_sum -= (long)t;
				left -= t;
			}
		D->cur[bl] = dl_oset_next(&D->pool, best);
	}
	if (built && D->p.scan_leases)
		for (size_t i = 0; i < nv; i++)
			D->chosen[D->order[i].slot] = 0;
}

/*
 * May j move to a narrower tier now, and is it worth it (the time saved at a
 * consolidated placement beats the restart)? Nothing of this changes while
 * consolidate() moves others: a move frees as many GPUs as it takes.
 */
static int may_move(const struct dally *D, struct dl_sim *s, const struct dl_sim_job *j,
		    dl_tick now)
{
	if (j->state != DL_SJ_RUNNING || j->restore_until > now || j->tier == DL_TIER_NODE ||
	    dl_sim_free_gpus(s) < j->gpus)
		return 0;
	double pause = D->p.restart_cost * j->gpus;
	double full = D->dj[j->slot].speed * j->share;
	return j->rate > 0 &&
	       !(j->work_left / j->rate - j->work_left / full <= pause * DL_TICKS_PER_SECOND);
}

/* a lease end: consolidate badly placed running jobs, lowest progress ratio first; moves */
static int consolidate(struct dally *D, struct dl_sim *s)
{
	int moved = 0;
	if (!D->nbad || !dl_sim_free_gpus(s))
		return 0;
	dl_tick now = dl_sim_now(s);
	size_t n = 0;
	for (size_t i = 0; i < D->nbad; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->bad[i]);
		/* every ratio: it brings the job's counters up to date, as it always did */
		double r = ratio(D, s, j);
		/* only those that may move need an order (the scan sorted them all) */
		if (D->p.scan_leases || may_move(D, s, j, now))
			D->order[n++] = (struct rk){r, j->idx, D->bad[i]};
	}
	qsort(D->order, n, sizeof(*D->order), cmp_rk);
	for (size_t i = 0; i < n; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->order[i].slot);
		if (!may_move(D, s, j, now))
			continue;
		double pause = D->p.restart_cost * j->gpus;
		struct dl_place_req req = {j->gpus, j->gpu_type, 0, 0, j->tier};
		struct dl_placement pl = {0};
		pl.gpus = D->gbuf;
		dl_place(D->placer, &req, &pl);
		if (pl.decision != DL_PLACED)
			continue;
		/* the engine takes the GPUs itself */
		dl_place_release(D->placer, pl.gpus, pl.ngpus);
		hold_end(D, s, j);
		if (dl_sim_migrate(s, j, pl.gpus, pl.ngpus, pause) < 0)
			continue; /* cannot happen: the placer chose free GPUs */
		dl_sim_note(s, j, "consolidate", dl_tier_name((enum dl_tier)j->tier));
		hold_begin(D, s, j);
		moved++;
	}
	return moved;
}

static void on_schedule(void *st, struct dl_sim *s)
{
	struct dally *D = st;
	fit_slots(D, s);
	offer(D, s);
	if (D->lease_due) {
		/* waiting jobs (new ones first) had their offers: moves take what is left */
		D->lease_due = 0;
		leases(D, s);
		if (consolidate(D, s))
			offer(D, s); /* the GPUs the moves left */
	}
	if ((D->nbad || D->npend) && D->lease_armed < 0) {
		dl_tick now = dl_sim_now(s);
		dl_tick at = (now / D->lease + 1) * D->lease;
		dl_sim_timer(s, at, DL_SIM_NOJOB, T_LEASE, 0);
		D->lease_armed = at;
	}
}

const struct dl_sim_policy_ops dl_sim_dally = {
	.name = "dally",
	.summary = "Dally: delay scheduling over node/rack/cluster tiers, leases, consolidation",
	.opts = dl_sim_dally_opts,
	.params_size = sizeof(struct dl_sim_dally),
	.create = create,
	.destroy = destroy,
	.arrive = on_arrive,
	.saved = on_saved,
	.finish = on_finish,
	.timer = on_timer,
	.schedule = on_schedule,
	/* the timers: place's dally options; the queues: tiresias-las' (each declared once) */
	.shared = {{dl_dally_opt_table, offsetof(struct dl_sim_dally, timers), NULL},
		   {dl_mlfq_opts, offsetof(struct dl_sim_dally, mlfq), dl_sq_tiresias_defaults,
		    dl_sq_mlfq_check}},
};
