/*
 * dally.c: the Dally driver (dally.h; dlsched-simulate(1), DALLY).
 *
 * Waiting jobs are offered GPUs at every instant something changes, through
 * the run's dally placer: one node at once, one rack once the job has waited
 * its rack timer, any racks once it has waited its network timer (timers
 * fixed or auto-tuned: policy/dally.h). A job the timers hold back gets a
 * timer at the instant its next tier opens. Offers go in the order of the
 * progress ratio, lowest first, ties by submit time: a job's ratio is the
 * ideal time of the work it has done on the GPUs it held (work / their speed)
 * over the time it held them, 1 for a job that has not run. So a waiting job
 * (ratio 1: jobs here are never preempted, moves are atomic) never outranks a
 * running one, waiting jobs go in submit order, and at each lease end (every
 * --lease seconds from the first submit) the running jobs placed worse than
 * their consolidated tier, lowest ratio first, are moved to a narrower tier
 * when one is free and the move saves more than its restart cost
 * (--restart-cost seconds per GPU without progress).
 *
 * A pass costs O(classes) per job started (waiting jobs are kept per GPU
 * count, in submit order, and a count whose first job must wait is not
 * looked at again in that pass: the jobs behind it have waited no longer,
 * so their timers are no further open); a lease end costs O(b log b) for
 * the b badly placed running jobs, and nothing when none is or no GPU is free.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/dally.h"
#include "sim/oset.h"

struct bare {
	struct dl_sim_dally p;
};

const struct dl_opt dl_sim_dally_opts[] = {
	DL_DALLY_OPT_ENTRIES(struct bare, p.timers),
	{DL_OPT_SECONDS, 0, "restart-cost", "S",
	 "seconds per GPU a job moved to new GPUs runs without progress",
	 DL_OPT_AT(struct bare, p.restart_cost), .def = DL_SIM_DALLY_RESTART},
	{DL_OPT_END},
};

enum { T_LEASE = 1, T_DELAY = 2 };

/* per job slot */
struct dj {
	double held;	/* ticks held in earlier placements */
	double ideal;	/* their work / speed: ticks the work would take with no loss */
	double work0;	/* work_left when the current placement began */
	double speed;	/* its GPU type's speed */
	dl_tick since;	/* when it began */
	dl_tick armed;	/* the delay timer set for this job (-1: none) */
	ptrdiff_t bpos; /* index in bad[], or -1 */
};

struct dally {
	struct dl_sim_dally p;
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
	struct rk {
		double r;
		uint32_t idx;
		size_t slot;
	} * order;
	int *gbuf;
	dl_tick lease, lease_armed;
	int lease_due;
};

static void *create(struct dl_sim *s, const struct dl_sim_params *sp, struct dl_err *err)
{
	struct dl_placer *pl = dl_sim_placer(s);
	if (!dl_placer_dally(pl)) {
		dl_err_set(err, DL_EXIT_USAGE, "--policy dally needs the dally placement");
		return NULL;
	}
	struct dally *D = xcalloc(1, sizeof(*D));
	if (sp && sp->policy) {
		D->p = *(const struct dl_sim_dally *)sp->policy;
	} else {
		D->p.timers = (struct dl_dally_opts)DL_DALLY_OPTS_INIT;
		D->p.restart_cost = 1;
	}
	/* the placer's timers are the ones that count (they are the same options) */
	D->p.timers = *dl_dally_opts(dl_placer_dally(pl));
	D->placer = pl;
	D->lease = dl_sim_ticks(D->p.timers.lease);
	if (D->lease < 1)
		D->lease = 1;
	D->lease_armed = -1;
	dl_opool_init(&D->pool, 0);
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
	D->pend = xcalloc(D->ncls + 1, sizeof(*D->pend));
	for (size_t c = 0; c <= D->ncls; c++)
		D->pend[c] = (struct dl_oset)DL_OSET_INIT;
	D->blocked = xcalloc(D->ncls + 1, 1);
	D->gbuf = xcalloc((size_t)D->maxg + 1, sizeof(*D->gbuf));
	return D;
}

static void destroy(void *st)
{
	struct dally *D = st;
	dl_opool_release(&D->pool);
	free(D->dj);
	free(D->cls_gpus);
	free(D->cls_of);
	free(D->pend);
	free(D->blocked);
	free(D->bad);
	free(D->order);
	free(D->gbuf);
	free(D);
}

static void fit_slots(struct dally *D, struct dl_sim *s)
{
	size_t need = dl_sim_slots(s);
	dl_opool_grow(&D->pool, need);
	if (need > D->ndj) {
		size_t cap = D->ndj ? D->ndj : 64;
		while (cap < need)
			cap *= 2;
		D->dj = xreallocarray(D->dj, cap, sizeof(*D->dj));
		D->bad = xreallocarray(D->bad, cap, sizeof(*D->bad));
		D->order = xreallocarray(D->order, cap, sizeof(*D->order));
		D->ndj = cap;
	}
}

static void pend_add(struct dally *D, struct dl_sim_job *j)
{
	dl_oset_insert(&D->pool, &D->pend[D->cls_of[j->gpus]], j->slot, (double)j->submit, 0,
		       j->idx);
}

static void bad_add(struct dally *D, size_t slot)
{
	D->dj[slot].bpos = (ptrdiff_t)D->nbad;
	D->bad[D->nbad++] = slot;
}

static void bad_del(struct dally *D, size_t slot)
{
	ptrdiff_t at = D->dj[slot].bpos;
	if (at < 0)
		return;
	size_t last = D->bad[--D->nbad];
	D->bad[at] = last;
	D->dj[last].bpos = at;
	D->dj[slot].bpos = -1;
}

/* a placement began now: the counters of the ratio, and the badly placed list */
static void hold_begin(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	d->since = dl_sim_now(s);
	d->work0 = j->work_left;
	d->speed = dl_sim_cluster(s)->types[j->gpu_type].speed;
	if (j->slowdown > 1 && d->bpos < 0)
		bad_add(D, j->slot);
	else if (j->slowdown <= 1)
		bad_del(D, j->slot);
}

static void hold_end(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	d->held += (double)(dl_sim_now(s) - d->since);
	d->ideal += (d->work0 - j->work_left) / d->speed;
}

/* the progress ratio of a running job now (1 when it has held nothing yet) */
static double ratio(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	dl_sim_sync(s, j);
	double held = d->held + (double)(dl_sim_now(s) - d->since);
	double ideal = d->ideal + (d->work0 - j->work_left) / d->speed;
	return held > 0 ? ideal / held : 1;
}

static void on_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	fit_slots(D, s);
	D->dj[j->slot] = (struct dj){0, 0, 0, 1, 0, -1, -1};
	pend_add(D, j);
}

static void on_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	(void)s;
	bad_del(D, j->slot);
}

static int on_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	struct dally *D = st;
	(void)stamp;
	if (kind == T_LEASE) {
		D->lease_armed = -1;
		if (!D->nbad)
			return 0;
		D->lease_due = 1;
		return 1;
	}
	struct dl_sim_job *j = dl_sim_job(s, job);
	if (!j || j->state != DL_SJ_QUEUED)
		return 0;
	if (D->dj[j->slot].armed == dl_sim_now(s))
		D->dj[j->slot].armed = -1;
	return 1;
}

/* j must wait: wake up when its next tier opens (if its timers will open one) */
static void arm_delay(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	double rack, net;
	dl_place_dally_timers(D->placer, j->gpus, &rack, &net);
	dl_tick now = dl_sim_now(s), from = now - j->waited;
	/* ceil: at that tick the placer must see a wait of at least the timer */
	dl_tick r = from + (dl_tick)ceil(rack * DL_TICKS_PER_SECOND);
	dl_tick n = from + (dl_tick)ceil(net * DL_TICKS_PER_SECOND);
	dl_tick at = r > now ? r : n > now ? n : -1;
	struct dj *d = &D->dj[j->slot];
	if (at > now && d->armed != at) {
		dl_sim_timer(s, at, j->idx, T_DELAY, 0);
		d->armed = at;
	}
}

/* offer free GPUs to waiting jobs: lowest ratio first (all 1 here: submit order) */
static void offer(struct dally *D, struct dl_sim *s)
{
	int free_gpus = dl_sim_free_gpus(s);
	memset(D->blocked, 0, D->ncls);
	for (;;) {
		size_t best = DL_ONIL, bc = 0;
		for (size_t c = 0; c < D->ncls && D->cls_gpus[c] <= free_gpus; c++) {
			if (D->blocked[c] || !D->pend[c].count)
				continue;
			size_t h = dl_oset_first(&D->pool, &D->pend[c]);
			if (best == DL_ONIL || dl_okey_less(&D->pool.n[h], &D->pool.n[best])) {
				best = h;
				bc = c;
			}
		}
		if (best == DL_ONIL)
			return;
		struct dl_sim_job *j = dl_sim_slot_job(s, best);
		dl_oset_erase(&D->pool, &D->pend[bc], best);
		enum dl_decision dec = dl_sim_start(s, j, NULL);
		if (dec == DL_PLACED) {
			D->dj[best].armed = -1;
			hold_begin(D, s, j);
			free_gpus = dl_sim_free_gpus(s);
		} else if (dec == DL_WAIT) {
			pend_add(D, j);
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

/* a lease end: consolidate badly placed running jobs, lowest progress ratio first */
static void lease_end(struct dally *D, struct dl_sim *s)
{
	if (!D->nbad || !dl_sim_free_gpus(s))
		return;
	dl_tick now = dl_sim_now(s);
	size_t n = D->nbad;
	for (size_t i = 0; i < n; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->bad[i]);
		D->order[i] = (struct rk){ratio(D, s, j), j->idx, D->bad[i]};
	}
	qsort(D->order, n, sizeof(*D->order), cmp_rk);
	for (size_t i = 0; i < n; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->order[i].slot);
		if (j->state != DL_SJ_RUNNING || j->restore_until > now ||
		    j->tier == DL_TIER_NODE || dl_sim_free_gpus(s) < j->gpus)
			continue;
		/* worth it: the time saved at a consolidated placement beats the restart */
		double pause = D->p.restart_cost * j->gpus;
		double full = D->dj[j->slot].speed * j->share;
		if (!(j->rate > 0) ||
		    j->work_left / j->rate - j->work_left / full <= pause * DL_TICKS_PER_SECOND)
			continue;
		struct dl_place_req req = {j->gpus, j->gpu_type, 0, 0, j->tier};
		struct dl_placement pl = {0};
		pl.gpus = D->gbuf;
		dl_place(D->placer, &req, &pl);
		if (pl.decision != DL_PLACED)
			continue;
		/* the engine takes the GPUs itself */
		dl_place_release(D->placer, pl.gpus, pl.ngpus);
		hold_end(D, s, j);
		if (dl_sim_migrate_pause(s, j, pl.gpus, pl.ngpus, pause) < 0)
			continue; /* cannot happen: the placer chose free GPUs */
		dl_sim_note(s, j, "consolidate", dl_tier_name((enum dl_tier)j->tier));
		hold_begin(D, s, j);
	}
}

static void on_schedule(void *st, struct dl_sim *s)
{
	struct dally *D = st;
	fit_slots(D, s);
	if (D->lease_due) {
		D->lease_due = 0;
		lease_end(D, s);
	}
	offer(D, s);
	if (D->nbad && D->lease_armed < 0) {
		dl_tick now = dl_sim_now(s);
		dl_tick at = (now / D->lease + 1) * D->lease;
		dl_sim_timer(s, at, DL_SIM_NOJOB, T_LEASE, 0);
		D->lease_armed = at;
	}
}

const struct dl_sim_policy_ops dl_sim_dally_ops = {
	"dally",
	"Dally: delay scheduling over node/rack/cluster tiers, consolidation at lease ends",
	create,
	destroy,
	on_arrive,
	NULL,
	on_finish,
	on_timer,
	on_schedule,
};
