/*
 * dally.c: the Dally driver (dally.h; dlsched-simulate(1), DALLY).
 *
 * Progress ratio: the ideal time of the work a job has done on the GPUs it
 * held (work / their speed) over the time it held them: 1 when nothing was
 * lost to placement or restarts, 0 for a job that has not run (no progress).
 * Offers go lowest ratio first, ties by submit time, so new jobs come first,
 * then the jobs that lost most.
 *
 * At every instant something changes, waiting jobs are offered the free GPUs
 * in that order through the run's dally placer: one node at once, one rack
 * once the job has waited its rack timer, any racks once it has waited its
 * network timer (timers fixed or auto-tuned: policy/dally.h). A job the
 * timers hold back gets a timer at the instant its next tier opens.
 *
 * At each lease end (every --lease seconds from the first submit):
 *   1. leases: running jobs that have held their GPUs for a lease or more
 *      re-bid against the new jobs waiting (ratio 0) that are ready to take
 *      any GPUs (one GPU, or the network timer is up): while the first such
 *      job cannot be given GPUs from those free, the running job with the
 *      highest ratio (latest submit on ties) loses its lease (is preempted).
 *      A job that has run never takes GPUs from a running one, and a new job
 *      still waiting for a node or a rack takes none either (freed GPUs need
 *      not form one: they would go to others, and the leases would churn);
 *   2. consolidation: the running jobs placed worse than their consolidated
 *      tier, lowest ratio first, move to a narrower tier when one is free and
 *      the move saves more than its restart cost. The waiting jobs have had
 *      their offers at that instant already: moves take the GPUs they left
 *      (so a waiting job that has run, with a ratio above a badly placed
 *      one's, is served before it: a simplification), and the GPUs a move
 *      frees are offered again.
 * A job resuming (after a lost lease) or moved runs --restart-cost seconds
 * per GPU without progress.
 *
 * A pass costs O(lists) per job started: waiting jobs are kept per GPU
 * count in two lists (new jobs; jobs that have run), and a list whose first
 * job must wait is not looked at again in that pass (the new jobs behind a
 * new job have waited no longer, so their timers are no further open; in
 * the list of jobs that have run, a longer wait behind the first is
 * overlooked until the next pass: a simplification). A lease end costs O(r) to
 * find victims among the r running jobs (a heap, built only when a new job
 * does not fit) plus O(log r) per victim, and O(b log b) for the b badly
 * placed ones when GPUs are free.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/dally.h"
#include "sim/oset.h"
#include "sim/slab.h"

/* the driver's own option; the timers are the shared group (dl_dally_opt_table) */
const struct dl_opt dl_sim_dally_opts[] = {
	{DL_OPT_SECONDS, 0, "restart-cost", "S",
	 "seconds per GPU a job resuming or moved runs without progress",
	 DL_OPT_AT(struct dl_sim_dally, restart_cost), .def = DL_SIM_DALLY_RESTART},
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
	ptrdiff_t rpos; /* index in run[], or -1 */
	int ran;	/* has held GPUs */
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
	size_t *cur;	      /* per class: a walk's cursor */
	struct rk {
		double r;
		uint32_t idx;
		size_t slot;
	} * order;
	int *gbuf;
	dl_tick lease, lease_armed;
	int lease_due;
};

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	struct dally *D = xcalloc(1, sizeof(*D));
	(void)err;
	if (params) {
		D->p = *(const struct dl_sim_dally *)params;
	} else {
		D->p.timers = (struct dl_dally_opts)DL_DALLY_OPTS_INIT;
		D->p.restart_cost = 1;
	}
	D->tuner = dl_dally_new(&D->p.timers);
	D->p.timers = *dl_dally_opts(D->tuner); /* with its corrections */
	D->placer = dl_sim_placer(s);
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
	D->pend = xcalloc(2 * D->ncls + 1, sizeof(*D->pend));
	for (size_t c = 0; c <= 2 * D->ncls; c++)
		D->pend[c] = (struct dl_oset)DL_OSET_INIT;
	D->blocked = xcalloc(2 * D->ncls + 1, 1);
	D->cur = xcalloc(D->ncls + 1, sizeof(*D->cur));
	D->gbuf = xcalloc((size_t)D->maxg + 1, sizeof(*D->gbuf));
	return D;
}

static void destroy(void *st)
{
	struct dally *D = st;
	dl_dally_free(D->tuner);
	dl_opool_release(&D->pool);
	free(D->dj);
	free(D->cls_gpus);
	free(D->cls_of);
	free(D->pend);
	free(D->blocked);
	free(D->bad);
	free(D->run);
	free(D->cur);
	free(D->order);
	free(D->gbuf);
	free(D);
}

static void fit_slots(struct dally *D, struct dl_sim *s)
{
	size_t need = dl_sim_slots(s);
	dl_opool_grow(&D->pool, need);
	if (need > D->ndj) {
		/* the per-slot array is a slab (slab.h); the slot lists match its size */
		D->dj = dl_slab_grow(D->dj, &D->ndj, need, sizeof(*D->dj));
		D->bad = xreallocarray(D->bad, D->ndj, sizeof(*D->bad));
		D->run = xreallocarray(D->run, D->ndj, sizeof(*D->run));
		D->order = xreallocarray(D->order, D->ndj, sizeof(*D->order));
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

static void pend_add(struct dally *D, struct dl_sim_job *j, double ratio)
{
	dl_oset_insert(&D->pool, &D->pend[pend_list(D, j)], j->slot, ratio, (double)j->submit,
		       j->idx);
	if (!D->dj[j->slot].ran)
		D->nfresh++;
}

static void pend_del(struct dally *D, struct dl_sim_job *j)
{
	dl_oset_erase(&D->pool, &D->pend[pend_list(D, j)], j->slot);
	if (!D->dj[j->slot].ran)
		D->nfresh--;
}

static void run_add(struct dally *D, size_t slot)
{
	D->dj[slot].rpos = (ptrdiff_t)D->nrun;
	D->run[D->nrun++] = slot;
}

static void run_del(struct dally *D, size_t slot)
{
	ptrdiff_t at = D->dj[slot].rpos;
	if (at < 0)
		return;
	size_t last = D->run[--D->nrun];
	D->run[at] = last;
	D->dj[last].rpos = at;
	D->dj[slot].rpos = -1;
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
	/* the job's own speed there (its model's, with --throughputs) */
	d->speed = dl_sim_job_speed(s, j, j->gpu_type);
	if (!(d->speed > 0))
		d->speed = 1;
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

/* the progress ratio of a running job now */
static double ratio(struct dally *D, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dj *d = &D->dj[j->slot];
	dl_sim_sync(s, j);
	double held = d->held + (double)(dl_sim_now(s) - d->since);
	double ideal = d->ideal + (d->work0 - j->work_left) / d->speed;
	return held > 0 ? ideal / held : 0;
}

static void on_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	fit_slots(D, s);
	D->dj[j->slot] = (struct dj){0, 0, 0, 1, 0, -1, -1, -1, 0};
	pend_add(D, j, 0);
}

/* a job that lost its lease has saved its checkpoint: it waits with its ratio */
static void on_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dally *D = st;
	struct dj *d = &D->dj[j->slot];
	(void)s;
	d->armed = -1;
	pend_add(D, j, d->held > 0 ? d->ideal / d->held : 0);
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
		if (!D->nbad && !(D->nfresh && D->nrun))
			return 0;
		D->lease_due = 1;
		return 1;
	}
	struct dl_sim_job *j = dl_sim_job(s, job);
	if (!j || j->state != DL_SJ_QUEUED)
		return 0;
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

/* offer free GPUs to waiting jobs: lowest ratio first (new jobs first), ties by submit */
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
		double key = D->pool.n[best].k0;
		pend_del(D, j);
		/* the tiers its timers have opened; resuming: the restart cost, not --restore-cost
		 */
		dl_sim_sync(s, j);
		double wait = (double)j->waited / DL_TICKS_PER_SECOND;
		enum dl_tier open = dl_dally_open_tier(D->tuner, j->gpus, wait);
		struct dl_sim_how how = {.type = DL_ANY_TYPE,
					 .has_restore = 1,
					 .restore = D->p.restart_cost * j->gpus,
					 .within = (int)open + 1};
		enum dl_decision dec = dl_sim_start(s, j, &how);
		if (dec == DL_PLACED) {
			dl_dally_record(D->tuner, j->gpus, (enum dl_tier)j->tier, wait);
			d->armed = -1;
			d->ran = 1;
			run_add(D, best);
			hold_begin(D, s, j);
			free_gpus = dl_sim_free_gpus(s);
		} else if (dec == DL_WAIT) {
			pend_add(D, j, key);
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

/* victims first: highest ratio, then the latest submitted (largest idx) */
static int victim_before(const struct rk *x, const struct rk *y)
{
	return x->r != y->r ? x->r > y->r : x->idx > y->idx;
}

static void heap_down(struct rk *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, b = i;
		if (l < n && victim_before(&h[l], &h[b]))
			b = l;
		if (l + 1 < n && victim_before(&h[l + 1], &h[b]))
			b = l + 1;
		if (b == i)
			return;
		struct rk t = h[i];
		h[i] = h[b];
		h[b] = t;
		i = b;
	}
}

/* the running jobs whose lease has expired, as a heap of victims; their count */
static size_t victims(struct dally *D, struct dl_sim *s)
{
	dl_tick now = dl_sim_now(s);
	size_t nv = 0;
	for (size_t i = 0; i < D->nrun; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, D->run[i]);
		if (j->state == DL_SJ_RUNNING && now - D->dj[D->run[i]].since >= D->lease)
			D->order[nv++] = (struct rk){ratio(D, s, j), j->idx, D->run[i]};
	}
	for (size_t i = nv / 2; i-- > 0;)
		heap_down(D->order, nv, i);
	return nv;
}

/*
 * Expired leases against new jobs: walk the new waiting jobs that are ready
 * (one GPU, or their network timer is up: any GPUs will do) in submit order,
 * counting GPUs; when the next one does not fit in what is free (or freed so
 * far), take leases from the running jobs with the highest ratio. The
 * victims' ratios are computed only when one is needed (a heap: O(r) to build,
 * O(log r) a victim).
 */
static void leases(struct dally *D, struct dl_sim *s)
{
	if (!D->nfresh || !D->nrun)
		return;
	size_t nv = 0;
	int built = 0;
	int vfree = dl_sim_free_gpus(s);
	for (size_t c = 0; c < D->ncls; c++)
		D->cur[c] = dl_oset_first(&D->pool, &D->pend[2 * c]); /* the new jobs */
	for (;;) {
		size_t best = DL_ONIL, bc = 0;
		for (size_t c = 0; c < D->ncls; c++) {
			size_t h = D->cur[c];
			if (h == DL_ONIL)
				continue;
			if (best == DL_ONIL || dl_okey_less(&D->pool.n[h], &D->pool.n[best])) {
				best = h;
				bc = c;
			}
		}
		if (best == DL_ONIL)
			break;
		int need = D->cls_gpus[bc];
		struct dl_sim_job *w = dl_sim_slot_job(s, best);
		dl_sim_sync(s, w);
		if (need > 1 &&
		    dl_dally_open_tier(D->tuner, need, (double)w->waited / DL_TICKS_PER_SECOND) <
			    DL_TIER_CLUSTER) {
			/*
			 * Not ready: its timers still want a node or a rack, which freed
			 * GPUs need not form; it waits for GPUs to free up. The new jobs
			 * of its size behind it have waited no longer: none is ready.
			 */
			D->cur[bc] = DL_ONIL;
			continue;
		}
		if (vfree < need && !built) {
			nv = victims(D, s);
			built = 1;
		}
		while (vfree < need && nv) {
			struct dl_sim_job *v = dl_sim_slot_job(s, D->order[0].slot);
			D->order[0] = D->order[--nv];
			heap_down(D->order, nv, 0);
			hold_end(D, s, v);
			bad_del(D, v->slot);
			run_del(D, v->slot);
			vfree += v->gpus;
			dl_sim_preempt(s, v);
		}
		if (vfree < need)
			break;
		vfree -= need;
		D->cur[bc] = dl_oset_next(&D->pool, best);
	}
}

/* a lease end: consolidate badly placed running jobs, lowest progress ratio first; moves */
static int consolidate(struct dally *D, struct dl_sim *s)
{
	int moved = 0;
	if (!D->nbad || !dl_sim_free_gpus(s))
		return 0;
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
	if ((D->nbad || D->nfresh) && D->lease_armed < 0) {
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
	/* the timers: place's dally options, declared once (policy/dally.h) */
	.shared_opts = dl_dally_opt_table,
	.shared_at = offsetof(struct dl_sim_dally, timers),
};
