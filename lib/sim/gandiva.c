/*
 * gandiva.c: Gandiva (Xiao et al., OSDI'18) as a simulation policy:
 * affinity placement, time slicing of over-subscribed GPU sets, packing
 * with introspection, and migration. Gandiva's code was never released;
 * what follows is the paper's design, with our choices where it is silent
 * (dlsched-simulate(1), GANDIVA, says which is which).
 *
 * GPU sets. Every job placed on free GPUs (by the run's placement policy,
 * gandiva's affinity by default) opens a GPU set: those GPUs and the jobs
 * resident on them. A job that finds no free GPUs joins (over-subscribes)
 * the set of the same gang size with the fewest residents, and waits in
 * submit order only when there is none. Free GPUs go to waiting jobs in
 * submit order with fifo's head-of-line rule, so while no set is ever
 * over-subscribed the run is fifo's, event for event.
 *
 * Time slices. A set's residents form a ring of units (one job, or a packed
 * pair); one unit runs at a time (round-robin) for --quantum seconds of
 * progress after its resume cost, then the next unit starts on the same GPUs
 * (started first, shared, so the GPUs never return to the placer) and the
 * old one is suspended (dl_sim_suspend: its next resume costs
 * --suspend-cost). With --slice fluid every unit runs at once at 1/units.
 *
 * Packing. Residents of one set (so equal gang sizes) whose models have
 * colocated rates in --throughputs are paired greedily by the highest sum of
 * normalised rates f_a + f_b (f = packed throughput / alone), kept only
 * above 1 (time slicing gives exactly 1), and run together at shares f_a and
 * f_b. A job is packed only after one quantum in its set (introspection:
 * Gandiva profiles it meanwhile); a pack ends when one of the pair leaves.
 *
 * Migration, only under overload. After departures, a spread set holding
 * one job moves onto one node when the time its network slowdown would
 * still cost exceeds the migration cost (checkpoint + restore); and idle GPUs
 * take a suspended job from the most crowded set of their size when its wait
 * saved exceeds that cost (a job that never ran moves for free); and when the
 * first waiting job has no set of its size and too few free GPUs, sets are
 * emptied into others of their size until it fits (defragment).
 *
 * Per-job state lives in arrays indexed by the job's slot (policy.h); GPU
 * sets in an array indexed by set id, ordered per gang size by residents.
 *
 * Shortcuts that must change no result, off with the params' slice_oracle
 * (tests/unit/test_gandiva.c runs both ways and compares): consolidate's
 * prefilter (may_fit_one_node), a slice end's lookup of its unit at cur, and
 * cruising: round-robin slices skipped in closed form ("Cruising" below).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/num.h"
#include "sim/gandiva.h"
#include "sim/oset.h"
#include "sim/policy.h"
#include "sim/slab.h"
#include "trace/throughputs.h"

#define AT(f) DL_OPT_AT(struct dl_gandiva_params, f)
static const char *const slice_names[] = {"round-robin", "fluid", NULL};
const struct dl_opt dl_gandiva_opts[] = {
	{DL_OPT_SECONDS, 0, "quantum", "S", "time slice and introspection window", AT(quantum),
	 .min = 1, .max = DL_SECONDS_MAX, .def = "60"},
	{DL_OPT_SECONDS, 0, "suspend-cost", "S",
	 "seconds without progress on every resume from a suspend (an estimate)", AT(suspend_cost),
	 .max = DL_SECONDS_MAX, .def = "0.1"},
	{DL_OPT_CHOICE, 0, "slice", "MODE",
	 "over-subscribed GPUs by round-robin slices or as fluid fair shares", AT(slice),
	 .values = slice_names, .def = "round-robin"},
	{DL_OPT_DOUBLE, 0, "interference", "F",
	 "packed jobs run at F times the table's colocated rates (a misprediction)",
	 AT(interference), .flags = DL_OPTF_GT, .max = 10, .def = "1"},
	{DL_OPT_FLAG, 0, "no-pack", NULL, "never pack jobs (time slicing only)", AT(no_pack)},
	{DL_OPT_FLAG, 0, "no-migrate", NULL, "never migrate jobs", AT(no_migrate)},
	{DL_OPT_FLAG, 0, "no-introspection", NULL,
	 "pack new jobs at once, without their profiling quantum", AT(no_introspection)},
	{DL_OPT_END},
};
#undef AT

#define NIL UINT32_MAX

struct gjob {
	int32_t grp;	       /* its GPU set, -1 while waiting */
	uint32_t partner;      /* pack partner's slot, NIL */
	uint32_t qprev, qnext; /* the waiting list (slots) */
	int32_t model;	       /* index in the pair tables' models, -1 */
	int inring;	       /* a unit's first job (a pair's other job is not in the ring) */
	int waiting;	       /* in the waiting list */
	int moved;	       /* moved off its set (defragment): its next resume is a migration */
	int unready;	       /* moved, or not started on its set's GPUs since it joined */
	dl_tick window;	       /* may be packed from this time on */
	dl_tick packed_at;     /* when its pack formed */
	double f;	       /* its share when packed: --interference x the table's, at most 1 */
	double fpred;	       /* the table's normalised rate in its pack (the prediction) */
	int measured;	       /* its pack ran a quantum and was measured */
	uint32_t bad;	       /* index of the job a measurement unpacked it from, or NIL */
};

DL_SLAB_DEFINE(gjobs, struct gjob)

struct gset {
	int live, k, type, spread;
	size_t spread_pos;
	int *gpus; /* k, sorted */
	int gpus_cap;
	uint32_t *ring; /* units' first jobs (slots), in round-robin order */
	size_t n, alloc, cur;
	uint32_t run[2]; /* the running unit's jobs (round-robin), NIL */
	int nres;
	int unready;	/* residents whose gjob.unready is set: none may cruise while any */
	uint64_t stamp; /* the live timer's stamp (0: none) */
	dl_tick tat;	/* that timer's time, -1 (a cruising set's: its window's end) */
	int32_t ph_bucket, ph_prev, ph_next; /* among the sets whose timers share a phase */
	/* cruising: slices skipped in closed form (see "Cruising" below) */
	int cruising;
	size_t cru_pos;		   /* its place in the gandiva's cru[] while cruising */
	size_t cur0;		   /* ring index of slice 0's unit */
	int64_t last;		   /* its window ends where slice `last` starts (the timer) */
	dl_tick w, t1;		   /* slice 0 starts at w, slice j >= 1 at t1 + (j - 1) period */
	uint64_t order0;	   /* slice 0's completion's order key */
	struct dl_sim_counters a0; /* slice 0's job as it started */
	dl_tick next_window; /* earliest window end among unpacked residents not yet packable */
	int pack_dirty;	     /* something changed since the last pack pass */
};

/*
 * A spread set's GPUs stay as they are while it is spread, so it fits on one
 * node of its type only if some node there has `need` GPUs in no set: its k
 * less the most of its own on one node.
 */
struct spread_fit {
	int type, need;
};

/* the engine's order mark as one of the policy's callbacks began */
struct mark {
	dl_tick t;
	int phase;
	uint64_t key;
};

enum phase { PH_COMPLETIONS, PH_TIMERS, PH_PASS };
#define PH_BUCKETS 4096

struct gandiva {
	struct dl_gandiva_params p;
	dl_tick quantum, suspend;
	int fluid, packing, migrating;
	/* per slot */
	struct gjobs slab;
	struct gjob *j; /* slab.v */
	uint32_t qhead, qtail;
	size_t nwaiting;
	/* GPU sets */
	struct gset *g;
	size_t ng, galloc;
	int *gfree;
	size_t ngfree, gfree_alloc;
	struct dl_opool pool;	/* by set id: nodes of the per-size sets */
	struct dl_oset *bysize; /* [k]: live sets of k GPUs by residents */
	int maxg;
	int *sizes; /* distinct gang sizes of the trace, ascending */
	size_t nsizes;
	size_t *spread;		       /* ids of spread sets */
	struct spread_fit *spread_fit; /* spread[q]'s at q, for a cache-light walk */
	size_t nspread, spread_alloc;
	size_t crowded;	     /* sets with two units or more */
	int *gowner;	     /* per GPU: its set, -1 */
	const int *gpu_node; /* per GPU: its node (the cluster's index) */
	int *node_free;	     /* per node: GPUs in no set */
	const struct dl_node *nodes;
	int *type_most_free; /* per GPU type: the most node_free on one of its nodes */
	int *free_nodes;     /* [type * (node_gpus + 1) + f]: its nodes with node_free f */
	int node_gpus;	     /* the most GPUs on one node */
	int *buf;
	uint64_t seq;
	int departed;
	/* cruising (round-robin without packing or --events) */
	int cruise;	/* allowed in this run */
	dl_tick period; /* a steady slice: --suspend-cost + --quantum */
	int exposed;	/* the next pass may de-oversubscribe sets of this many GPUs or fewer */
	int phase;	/* the engine's phase of the instant (enum phase) */
	size_t ncruising, cru_alloc;
	size_t *cru;	    /* the cruising sets' ids */
	int32_t *ph_head;   /* [PH_BUCKETS]: sets by their timers' phase (time mod period) */
	struct mark *marks; /* order marks at the callbacks of the last period */
	size_t mhead, mn, malloc_;
	struct dl_sim_counters *cbuf;
	size_t cbuf_alloc;
	/* packing: the table's models and per (type, k) matrices of f */
	const struct dl_tputs *tp; /* the run's table (colocated rates in its pairs), or NULL */
	struct strmap model_idx;   /* model name -> index */
	size_t nm;
	double **fmat; /* [type * (maxg + 1) + k], NULL until built or when none */
	unsigned char *fbuilt;
	size_t nkeys;
};

/* ---- small helpers ---- */

static struct dl_sim_job *sj(struct dl_sim *s, uint32_t slot)
{
	return dl_sim_slot_job(s, slot);
}

/* room for slot x (the slab may move: G->j follows it) */
static void fit_slot(struct gandiva *G, uint32_t x)
{
	gjobs_at(&G->slab, x);
	G->j = G->slab.v;
}

/* j's speed on the GPUs of type `type` (its model's, with --throughputs) */
static double job_speed(struct dl_sim *s, const struct dl_sim_job *j, int type)
{
	return dl_sim_job_speed(s, j, type);
}

/* ---- the waiting list ---- */

static void q_push(struct gandiva *G, uint32_t x)
{
	struct gjob *gj = &G->j[x];
	gj->waiting = 1;
	gj->qnext = NIL;
	gj->qprev = G->qtail;
	if (G->qtail != NIL)
		G->j[G->qtail].qnext = x;
	else
		G->qhead = x;
	G->qtail = x;
	G->nwaiting++;
}

static void q_del(struct gandiva *G, uint32_t x)
{
	struct gjob *gj = &G->j[x];
	if (gj->qprev != NIL)
		G->j[gj->qprev].qnext = gj->qnext;
	else
		G->qhead = gj->qnext;
	if (gj->qnext != NIL)
		G->j[gj->qnext].qprev = gj->qprev;
	else
		G->qtail = gj->qprev;
	gj->waiting = 0;
	G->nwaiting--;
}

/* ---- GPU sets ---- */

static void by_size_add(struct gandiva *G, size_t id)
{
	struct gset *g = &G->g[id];
	dl_oset_insert(&G->pool, &G->bysize[g->k], id, (double)g->nres, 0, id);
}

static void by_size_del(struct gandiva *G, size_t id)
{
	dl_oset_erase(&G->pool, &G->bysize[G->g[id].k], id);
}

static void set_nres(struct gandiva *G, size_t id, int nres)
{
	by_size_del(G, id);
	G->g[id].nres = nres;
	by_size_add(G, id);
}

static void set_ring_size_changed(struct gandiva *G, struct gset *g, size_t before)
{
	if (before < 2 && g->n >= 2)
		G->crowded++;
	else if (before >= 2 && g->n < 2)
		G->crowded--;
}

/*
 * Node nd's free GPUs change by d (1 or -1). The most on one node of its type
 * follows in O(1): it rises with nd, or falls by one when nd was its only node.
 */
static void node_free_add(struct gandiva *G, int nd, int d)
{
	int t = G->nodes[nd].type, f = G->node_free[nd];
	int *count = G->free_nodes + (size_t)t * ((size_t)G->node_gpus + 1);
	count[f]--;
	count[f + d]++;
	G->node_free[nd] = f + d;
	if (f + d > G->type_most_free[t] || (f == G->type_most_free[t] && !count[f]))
		G->type_most_free[t] = f + d;
}

static void own_gpus(struct gandiva *G, const int *gpus, int k, int id)
{
	for (int i = 0; i < k; i++) {
		G->gowner[gpus[i]] = id;
		node_free_add(G, G->gpu_node[gpus[i]], id < 0 ? 1 : -1);
	}
}

static void spread_add(struct gandiva *G, size_t id)
{
	struct gset *g = &G->g[id];
	size_t alloc = G->spread_alloc;
	DL_GROW(G->spread, G->nspread + 1, G->spread_alloc);
	if (G->spread_alloc != alloc)
		G->spread_fit = xrealloc(G->spread_fit, G->spread_alloc * sizeof(*G->spread_fit));
	int own = 0, most_own = 0;
	for (int i = 0; i < g->k; i++) { /* g->gpus is sorted: a node's GPUs are adjacent */
		own = i && G->gpu_node[g->gpus[i]] == G->gpu_node[g->gpus[i - 1]] ? own + 1 : 1;
		if (own > most_own)
			most_own = own;
	}
	g->spread = 1;
	g->spread_pos = G->nspread;
	G->spread_fit[G->nspread] = (struct spread_fit){g->type, g->k - most_own};
	G->spread[G->nspread++] = id;
}

static void spread_del(struct gandiva *G, size_t id)
{
	struct gset *g = &G->g[id];
	if (!g->spread)
		return;
	size_t last = G->spread[--G->nspread];
	G->spread[g->spread_pos] = last;
	G->spread_fit[g->spread_pos] = G->spread_fit[G->nspread];
	G->g[last].spread_pos = g->spread_pos;
	g->spread = 0;
}

/* ---- timers by phase (time mod period): where cruising sets' boundaries could meet ---- */

static size_t ph_bucket_of(const struct gandiva *G, dl_tick at)
{
	uint64_t ph = (uint64_t)(at % G->period);
	return (size_t)((ph * UINT64_C(0x9E3779B97F4A7C15)) >> 52) & (PH_BUCKETS - 1);
}

/* set id's live timer is at `at` now (-1: none) */
static void presence(struct gandiva *G, size_t id, dl_tick at)
{
	struct gset *g = &G->g[id];
	if (!G->cruise)
		return;
	if (g->ph_bucket >= 0) {
		if (g->ph_prev >= 0)
			G->g[g->ph_prev].ph_next = g->ph_next;
		else
			G->ph_head[g->ph_bucket] = g->ph_next;
		if (g->ph_next >= 0)
			G->g[g->ph_next].ph_prev = g->ph_prev;
		g->ph_bucket = g->ph_prev = g->ph_next = -1;
	}
	g->tat = at;
	if (at < 0)
		return;
	size_t b = ph_bucket_of(G, at);
	g->ph_bucket = (int32_t)b;
	g->ph_prev = -1;
	g->ph_next = G->ph_head[b];
	if (g->ph_next >= 0)
		G->g[g->ph_next].ph_prev = (int32_t)id;
	G->ph_head[b] = (int32_t)id;
}

/* set id's timer is stale from now on */
static void disarm(struct gandiva *G, size_t id)
{
	G->g[id].stamp = 0;
	presence(G, id, -1);
}

/*
 * A resident is unready while it is moved or has not started on its set's
 * GPUs since it joined: a job that joins from the waiting list never ran
 * (jobs wait only before their first start), and one moved in is moved
 * unless it never ran. Either way plan() would refuse its set, which it
 * learns from the set's count without looking at every resident.
 */
static void set_unready(struct gandiva *G, uint32_t x, int unready)
{
	struct gjob *gj = &G->j[x];
	if (gj->unready != unready)
		G->g[gj->grp].unready += unready ? 1 : -1;
	gj->unready = unready;
}

/* a new set for job x, just started on free GPUs */
static size_t set_open(struct gandiva *G, struct dl_sim *s, uint32_t x)
{
	struct dl_sim_job *j = sj(s, x);
	size_t id;
	if (G->ngfree) {
		id = (size_t)G->gfree[--G->ngfree];
	} else {
		DL_GROW(G->g, G->ng + 1, G->galloc);
		memset(&G->g[G->ng], 0, sizeof(G->g[0]));
		G->g[G->ng].tat = -1;
		G->g[G->ng].ph_bucket = G->g[G->ng].ph_prev = G->g[G->ng].ph_next = -1;
		id = G->ng++;
		dl_opool_grow(&G->pool, G->ng);
	}
	struct gset *g = &G->g[id];
	g->live = 1;
	g->k = j->gpus;
	g->type = j->gpu_type;
	if (g->gpus_cap < g->k) {
		free(g->gpus);
		g->gpus = xcalloc((size_t)g->k, sizeof(int));
		g->gpus_cap = g->k;
	}
	memcpy(g->gpus, j->gpu, (size_t)g->k * sizeof(int));
	own_gpus(G, g->gpus, g->k, (int)id);
	g->n = 0;
	DL_GROW(g->ring, 1, g->alloc);
	g->ring[g->n++] = x;
	g->cur = 0;
	g->run[0] = x;
	g->run[1] = NIL;
	g->nres = 1;
	g->stamp = 0;
	g->pack_dirty = 1;
	g->next_window = 0;
	by_size_add(G, id);
	if (j->tier > DL_TIER_NODE)
		spread_add(G, id);
	struct gjob *gj = &G->j[x];
	gj->grp = (int32_t)id;
	gj->partner = NIL;
	gj->inring = 1;
	g->unready = 0;
	set_unready(G, x, gj->moved); /* (a de-oversubscribed job may be moved still) */
	gj->window = dl_sim_now(s) + (G->p.no_introspection ? 0 : G->quantum);
	return id;
}

static void set_close(struct gandiva *G, size_t id)
{
	struct gset *g = &G->g[id];
	by_size_del(G, id);
	spread_del(G, id);
	own_gpus(G, g->gpus, g->k, -1);
	g->live = 0;
	disarm(G, id);
	DL_GROW(G->gfree, G->ngfree + 1, G->gfree_alloc);
	G->gfree[G->ngfree++] = (int)id;
}

static size_t ring_index(const struct gset *g, uint32_t x)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->ring[i] == x)
			return i;
	return g->n;
}

static void ring_remove(struct gset *g, size_t i)
{
	memmove(g->ring + i, g->ring + i + 1, (g->n - i - 1) * sizeof(*g->ring));
	g->n--;
	if (i < g->cur)
		g->cur--;
	if (g->n && g->cur >= g->n)
		g->cur = 0;
}

static uint32_t lead_of(const struct gandiva *G, uint32_t x)
{
	return G->j[x].inring ? x : G->j[x].partner;
}

/* ---- packing: normalised colocated rates ---- */

static int model_of(const struct gandiva *G, const char *name)
{
	const int64_t *v = name ? strmap_get(&G->model_idx, name) : NULL;
	return v ? (int)*v : -1;
}

static void add_model(struct gandiva *G, const char *name)
{
	if (!strmap_get(&G->model_idx, name))
		strmap_put(&G->model_idx, name, (int64_t)G->nm++);
}

/* f[a * nm + b]: a's packed throughput with b over a's alone, NAN when unknown or infeasible */
static const double *fmatrix(struct gandiva *G, struct dl_sim *s, int type, int k)
{
	size_t key = (size_t)type * ((size_t)G->maxg + 1) + (size_t)k;
	if (G->fbuilt[key])
		return G->fmat[key];
	G->fbuilt[key] = 1;
	const char *tname = dl_sim_cluster(s)->types[type].name;
	size_t nm = G->nm;
	double *f = NULL;
	for (size_t i = 0; i < G->tp->n; i++) {
		const struct dl_tput *e = &G->tp->v[i];
		if (e->gpus != k || !e->partner[0] || strcasecmp(e->gpu_type, tname))
			continue;
		double ta = dl_tputs_get(G->tp, e->model, e->gpu_type, k);
		double tb = dl_tputs_get(G->tp, e->partner, e->gpu_type, k);
		if (!(ta > 0) || !(tb > 0))
			continue;
		if (!f) {
			f = xcalloc(nm * nm, sizeof(*f));
			for (size_t q = 0; q < nm * nm; q++)
				f[q] = NAN;
		}
		int a = model_of(G, e->model), b = model_of(G, e->partner);
		/* a zero is Gavel's "does not fit in memory": never pack */
		f[(size_t)a * nm + (size_t)b] = e->throughput > 0 ? e->throughput / ta : NAN;
		if (e->partner_throughput >= 0)
			f[(size_t)b * nm + (size_t)a] =
				e->partner_throughput > 0 ? e->partner_throughput / tb : NAN;
	}
	G->fmat[key] = f;
	return f;
}

/* ---- running a set's units ---- */

static void arm_raw(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick at);
static void make_way(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick at);

static void arm(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick at)
{
	if (G->ncruising)
		make_way(G, s, id, at);
	arm_raw(G, s, id, at);
}

static void arm_slices(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick t1, int fresh);
static void materialize_now(struct gandiva *G, struct dl_sim *s, size_t id);

/* start x on its set's GPUs at share f, or set its share if it runs */
static void run_at(struct gandiva *G, struct dl_sim *s, uint32_t x, double f)
{
	struct dl_sim_job *j = sj(s, x);
	struct gset *g = &G->g[G->j[x].grp];
	if (j->state == DL_SJ_RUNNING) {
		if (j->share != f)
			dl_sim_set_share(s, j, f);
		return;
	}
	struct dl_sim_how how =
		DL_SIM_HOW(.gpus = g->gpus, .shared = 1, .share = f, .moved = G->j[x].moved);
	if (dl_sim_start(s, j, &how) == DL_PLACED) {
		G->j[x].moved = 0;
		set_unready(G, x, 0);
	}
}

/* round-robin: make unit i the running one (a fresh slice) */
static void run_unit(struct gandiva *G, struct dl_sim *s, size_t id, size_t i)
{
	struct gset *g = &G->g[id];
	uint32_t a = g->ring[i], b = G->j[a].partner;
	dl_tick now = dl_sim_now(s), from = now;
	int fresh = sj(s, a)->state != DL_SJ_RUNNING; /* a starts a slice of its own */
	run_at(G, s, a, b == NIL ? 1 : G->j[a].f);
	if (b != NIL)
		run_at(G, s, b, G->j[b].f);
	for (int r = 0; r < 2; r++) {
		uint32_t y = g->run[r];
		if (y != NIL && y != a && y != b && G->j[y].grp == (int32_t)id)
			dl_sim_suspend(s, sj(s, y), G->suspend);
	}
	g->run[0] = a;
	g->run[1] = b;
	g->cur = i;
	for (int r = 0; r < 2; r++)
		if (g->run[r] != NIL && sj(s, g->run[r])->restore_until > from)
			from = sj(s, g->run[r])->restore_until;
	/* slices while units alternate; one for a new pack's measurement */
	if (g->n >= 2 || (b != NIL && !G->j[a].measured))
		arm_slices(G, s, id, from + G->quantum, fresh);
	else
		disarm(G, id);
}

/* fluid: every unit at once, 1/units each (a pair splits its unit's share) */
static void run_fluid(struct gandiva *G, struct dl_sim *s, size_t id)
{
	struct gset *g = &G->g[id];
	double u = 1.0 / (double)g->n;
	for (size_t i = 0; i < g->n; i++) {
		uint32_t a = g->ring[i], b = G->j[a].partner;
		run_at(G, s, a, b == NIL ? u : u * G->j[a].f);
		if (b != NIL)
			run_at(G, s, b, u * G->j[b].f);
	}
}

/*
 * Pair the packable unpacked residents of a set greedily, best sum of
 * normalised rates first (ties: earlier in the ring), keeping sums above 1.
 * Returns whether it paired any.
 */
static int pack_pass(struct gandiva *G, struct dl_sim *s, size_t id)
{
	/* a pair a measurement undid is never packed again */
#define BAD(x, y) (G->j[x].bad == sj(s, y)->idx || G->j[y].bad == sj(s, x)->idx)
	struct gset *g = &G->g[id];
	dl_tick now = dl_sim_now(s);
	if (!G->packing || g->n < 2 || (!g->pack_dirty && now < g->next_window))
		return 0;
	g->pack_dirty = 0;
	g->next_window = INT64_MAX;
	const double *f = fmatrix(G, s, g->type, g->k);
	if (!f)
		return 0;
	size_t nm = G->nm;
	int paired = 0;
	for (size_t i = 0; i < g->n; i++) {
		uint32_t a = g->ring[i];
		struct gjob *ja = &G->j[a];
		if (ja->partner != NIL || ja->model < 0)
			continue;
		if (ja->window > now) {
			if (ja->window < g->next_window)
				g->next_window = ja->window;
			continue;
		}
		size_t best = g->n;
		double bsum = 1;
		for (size_t q = i + 1; q < g->n; q++) {
			const struct gjob *jb = &G->j[g->ring[q]];
			if (jb->partner != NIL || jb->model < 0 || jb->window > now ||
			    BAD(a, g->ring[q]))
				continue;
			double sum = f[(size_t)ja->model * nm + (size_t)jb->model] +
				     f[(size_t)jb->model * nm + (size_t)ja->model];
			if (sum > bsum) { /* NAN never is */
				bsum = sum;
				best = q;
			}
		}
		if (best == g->n)
			continue;
		uint32_t b = g->ring[best];
		struct gjob *jb = &G->j[b];
		ja->partner = b;
		jb->partner = a;
		ja->fpred = f[(size_t)ja->model * nm + (size_t)jb->model];
		jb->fpred = f[(size_t)jb->model * nm + (size_t)ja->model];
		ja->f = fmin(1, G->p.interference * ja->fpred);
		jb->f = fmin(1, G->p.interference * jb->fpred);
		ja->measured = jb->measured = 0;
		ja->packed_at = jb->packed_at = now;
		jb->inring = 0;
		size_t before = g->n;
		ring_remove(g, best);
		set_ring_size_changed(G, g, before);
		char d[96];
		snprintf(d, sizeof(d), "%.4g+%.4g", ja->fpred, jb->fpred);
		dl_sim_note(s, sj(s, a), "pack", d);
		dl_sim_note(s, sj(s, b), "pack", d);
		paired = 1;
	}
	return paired;
#undef BAD
}

/*
 * A pack that ran a quantum is measured: when its realised normalised rates
 * (the shares it ran at) sum to at most 1, time slicing is better and the
 * pack is undone; the pair then stands as two units, its first job first.
 */
static void measure(struct gandiva *G, struct dl_sim *s, size_t id, uint32_t a)
{
	struct gset *g = &G->g[id];
	struct gjob *ja = &G->j[a];
	uint32_t b = ja->partner;
	struct gjob *jb = &G->j[b];
	if (ja->measured)
		return;
	ja->measured = jb->measured = 1;
	if (ja->f + jb->f > 1)
		return;
	char d[96];
	snprintf(d, sizeof(d), "%.4g+%.4g", ja->f, jb->f);
	dl_sim_note(s, sj(s, a), "unpack", d);
	dl_sim_note(s, sj(s, b), "unpack", d);
	ja->partner = jb->partner = NIL;
	ja->bad = sj(s, b)->idx;
	jb->bad = sj(s, a)->idx;
	jb->inring = 1;
	size_t i = ring_index(g, a), before = g->n;
	DL_GROW(g->ring, g->n + 1, g->alloc);
	memmove(g->ring + i + 2, g->ring + i + 1, (g->n - i - 1) * sizeof(*g->ring));
	g->ring[i + 1] = b;
	g->n++;
	if (g->cur > i)
		g->cur++;
	set_ring_size_changed(G, g, before);
	g->pack_dirty = 1;
}

/* round-robin slice end: pack what became packable, then the next unit */
static void slice_end(struct gandiva *G, struct dl_sim *s, size_t id)
{
	struct gset *g = &G->g[id];
	uint32_t out = g->ring[g->cur];
	if (G->j[out].partner != NIL)
		measure(G, s, id, out); /* it ran its slice together */
	int was_pair = G->j[out].partner != NIL;
	pack_pass(G, s, id);
	uint32_t lead = lead_of(G, out);
	/* (ring entries are unique: a lead found at cur has index cur, no scan needed) */
	size_t i = g->ring[g->cur] == lead && !G->p.slice_oracle ? g->cur : ring_index(g, lead);
	int grew = !was_pair && G->j[out].partner != NIL;
	run_unit(G, s, id, grew ? i : (i + 1) % g->n);
}

/* fluid: re-pack and re-share; a timer for the next introspection end */
static void fluid_update(struct gandiva *G, struct dl_sim *s, size_t id)
{
	struct gset *g = &G->g[id];
	dl_tick now = dl_sim_now(s), next = INT64_MAX;
	for (size_t i = 0; G->packing && i < g->n; i++) {
		uint32_t a = g->ring[i];
		if (G->j[a].partner != NIL && !G->j[a].measured &&
		    G->j[a].packed_at + G->quantum <= now)
			measure(G, s, id, a); /* may put its partner at i + 1 */
	}
	pack_pass(G, s, id);
	run_fluid(G, s, id);
	/* the next measurement or introspection end */
	for (size_t i = 0; G->packing && i < g->n; i++) {
		uint32_t a = g->ring[i];
		if (G->j[a].partner != NIL && !G->j[a].measured &&
		    G->j[a].packed_at + G->quantum < next)
			next = G->j[a].packed_at + G->quantum;
	}
	if (G->packing && g->n >= 2 && g->next_window > now && g->next_window < next)
		next = g->next_window;
	if (next != INT64_MAX)
		arm(G, s, id, next);
	else
		disarm(G, id);
}

/*
 * The least crowded set of j's size that j may join (of its type, if it has
 * one, and one its model can run on), other than `not`, or DL_ONIL
 */
static size_t set_for(struct gandiva *G, struct dl_sim *s, const struct dl_sim_job *j, size_t not )
{
	if (j->gpus > G->maxg)
		return DL_ONIL;
	size_t id = dl_oset_first(&G->pool, &G->bysize[j->gpus]);
	while (id != DL_ONIL &&
	       (id == not || (j->type != DL_ANY_TYPE && G->g[id].type != j->type) ||
		!(job_speed(s, j, G->g[id].type) > 0)))
		id = dl_oset_next(&G->pool, id);
	return id;
}

static void join_set(struct gandiva *G, struct dl_sim *s, uint32_t x, size_t id);

/* x (waiting) joins the least crowded set of its size: 1, or 0 when there is none */
static int oversubscribe(struct gandiva *G, struct dl_sim *s, uint32_t x)
{
	size_t id = set_for(G, s, sj(s, x), DL_ONIL);
	if (id == DL_ONIL)
		return 0;
	q_del(G, x);
	join_set(G, s, x, id);
	return 1;
}

/* x (waiting, or moved off a set) joins set id as a new unit at the ring's end */
static void join_set(struct gandiva *G, struct dl_sim *s, uint32_t x, size_t id)
{
	materialize_now(G, s, id);
	struct dl_sim_job *j = sj(s, x);
	struct gset *g = &G->g[id];
	struct gjob *gj = &G->j[x];
	gj->grp = (int32_t)id;
	gj->partner = NIL;
	gj->inring = 1;
	set_unready(G, x, 1);
	gj->window = dl_sim_now(s) + (G->p.no_introspection ? 0 : G->quantum);
	size_t before = g->n;
	DL_GROW(g->ring, g->n + 1, g->alloc);
	g->ring[g->n++] = x;
	set_ring_size_changed(G, g, before);
	set_nres(G, id, g->nres + 1);
	g->pack_dirty = 1;
	dl_sim_note(s, j, "oversubscribe", NULL);
	if (G->fluid) {
		fluid_update(G, s, id);
		return;
	}
	uint32_t out = g->ring[g->cur];
	int was_pair = G->j[out].partner != NIL;
	if (G->p.no_introspection && pack_pass(G, s, id) && !was_pair && G->j[out].partner != NIL) {
		run_unit(G, s, id, ring_index(g, lead_of(G, out))); /* it packs with the runner */
		return;
	}
	if (before == 1) {
		/* time slicing starts: the running unit has one quantum from now */
		dl_tick from = dl_sim_now(s);
		for (int r = 0; r < 2; r++)
			if (g->run[r] != NIL && sj(s, g->run[r])->restore_until > from)
				from = sj(s, g->run[r])->restore_until;
		arm(G, s, id, from + G->quantum);
	}
}

/*
 * ---- Cruising: round-robin slices skipped in closed form ----
 *
 * A set whose units all resume at the suspend cost (each ran here before,
 * none moved in) slices with a fixed period P = --suspend-cost + --quantum:
 * slice 0 (its runner just started, at w) ends at t1, slice j >= 1 runs
 * unit cur0 + j (mod n) from t1 + (j - 1) P. Until the first slice in which
 * a unit would complete, nothing a slice does is seen outside the set: the
 * GPUs stay busy, the counts stay, and the pass at a slice's instant does
 * nothing (no job waits that could start, nothing could de-oversubscribe:
 * `exposed`). So the set cruises: slice 0's job holds the GPUs with no
 * completion (dl_sim_hold) and one engine timer stands at the window's end,
 * the start of the slice `last`. When anything looks at the set before then
 * (a job joins, de-oversubscribe, defragment, a timer of another set at one
 * of its instants), materialize() restates every job's counters to what the
 * slices so far left (dl_sim_sync's arithmetic: one rounding per slice, done
 * one by one where the rate is not 1) and the set slices again one by one.
 *
 * Order. At one instant the engine delivers completions before timers and
 * same-time events in the order they were made; a skipped timer is made at
 * the previous slice's instant, not at the window's start. So no other
 * set's timer may fall on a cruising set's slice instants (a window stops
 * before one, see plan and make_way), and a job running when the set
 * materializes gets the order key of its resume (its mark: `marks` keeps the
 * engine's order mark at each callback of the last period).
 */

/* 2^e, for e in the normal range (exact, with no call into libm) */
static double two_to(int e)
{
	uint64_t b = (uint64_t)(e + 1023) << 52;
	double x;
	memcpy(&x, &b, sizeof(x));
	return x;
}

/*
 * w after n steps of `w -= d; if (w < 0) w = 0;`, bit for bit, in a few
 * steps per binade rather than n. While w - d stays in w's binade [lo, 2 lo),
 * every result lies on that binade's grid of spacing u (w's ulp), so each
 * step takes off the same r: d rounded to the grid. Only when d lies half-way
 * between two grid points does the rounding (to even) alternate: then, and
 * for the step that leaves the binade, one step at a time.
 */
static double sub_steps(double w, double d, int64_t n)
{
	while (n > 0 && w > 0) {
		if (w >= 0x1p-900) {
			uint64_t bits;
			memcpy(&bits, &w, sizeof(bits));
			int ex = (int)(bits >> 52 & 0x7ff) - 1022; /* w in [2^(ex-1), 2^ex) */
			double lo = two_to(ex - 1), u = two_to(ex - 53), du = d / u;
			double a = w - lo; /* exact: both on the grid */
			if (du < 0x1p52 && du - floor(du) != 0.5 && a >= d) {
				double r = nearbyint(du) * u;
				if (r == 0) /* each step leaves w as it is */
					return w;
				/* m steps, those from w - j r for j < m, all stay in the binade */
				double est = floor((a - d) / r) + 1;
				int64_t m = est < (double)n ? (int64_t)est : n;
				while (m > 0 && a - (double)(m - 1) * r < d)
					m--;
				while (m < n && a - (double)m * r >= d)
					m++;
				w -= (double)m * r;
				n -= m;
			}
		}
		if (n > 0) {
			w -= d;
			if (w < 0)
				w = 0;
			n--;
		}
	}
	return w;
}

/* w after k slices of q progress ticks at rate (dl_sim_sync's arithmetic) */
static double work_after(double w, int64_t k, dl_tick q, double rate)
{
	if (rate == 1) /* exact: w - q loses nothing below 2^53 */
		return w - (double)(k * q);
	return sub_steps(w, (double)q * rate, k);
}

/* comm after k slices of q progress ticks at this slowdown */
static double comm_after(double comm, int64_t k, dl_tick q, double slowdown)
{
	if (!(slowdown > 1))
		return comm;
	double d = isfinite(slowdown) ? (double)q * (slowdown - 1) / slowdown : (double)q;
	for (int64_t i = 0; i < k; i++)
		comm += d;
	return comm;
}

/* does a resume with w work left complete within its slice (plan_finish's need <= q)? */
static int completes(double w, dl_tick q, double rate)
{
	if (rate == 1)
		return w <= (double)q;
	double x = w / rate;
	return x < (double)q + 1 && nearbyint(x) <= (double)q;
}

/* the first k in [kmin, kmax) after which a resume completes its slice, or kmax */
static int64_t slices_to_last(double w, int64_t kmin, int64_t kmax, dl_tick q, double rate)
{
	if (kmin >= kmax)
		return kmax;
	if (rate == 1) {
		int64_t k = w > (double)q ? (int64_t)((w - (double)q) / (double)q) : 0;
		while (k < kmax && !completes(work_after(w, k, q, rate), q, rate))
			k++;
		while (k > 0 && completes(work_after(w, k - 1, q, rate), q, rate))
			k--;
		return k < kmin ? kmin : k < kmax ? k : kmax;
	}
	/*
	 * Above (q + 2) rate, w / rate exceeds q + 1 whatever its rounding, so
	 * the resume cannot complete: only the subtractions run there.
	 */
	double d = (double)q * rate, far = ((double)q + 2) * rate;
	int64_t k = 0;
	if (w > far) { /* start close below the last k with w > far, if that is where it is */
		double est = floor((w - far) / d * (1 - 1e-6)) - 2;
		int64_t k1 = est < (double)kmax ? (int64_t)est : kmax;
		double w1 = k1 > 0 ? sub_steps(w, d, k1) : w;
		if (k1 > 0 && w1 > far) {
			k = k1;
			w = w1;
		}
	}
	for (; k < kmax; k++) {
		if (k >= kmin && w <= far && completes(w, q, rate))
			return k;
		w -= d;
		if (w < 0)
			w = 0;
	}
	return kmax;
}

static dl_tick slice_start(const struct gandiva *G, const struct gset *g, int64_t j)
{
	return j == 0 ? g->w : g->t1 + (j - 1) * G->period;
}

/* is this instant past time b's timers? */
static int passed(const struct gandiva *G, struct dl_sim *s, dl_tick b)
{
	dl_tick now = dl_sim_now(s);
	return b < now || (b == now && G->phase >= PH_TIMERS);
}

/* the slice of cruising g that time `at` starts (1 .. last), or 0 */
static int64_t slice_at(const struct gandiva *G, const struct gset *g, dl_tick at)
{
	if (!g->cruising || at < g->t1 || (at - g->t1) % G->period)
		return 0;
	int64_t j = 1 + (at - g->t1) / G->period;
	return j <= g->last ? j : 0;
}

static void record_mark(struct gandiva *G, struct dl_sim *s, int phase)
{
	G->phase = phase;
	if (!G->cruise)
		return;
	dl_tick now = dl_sim_now(s);
	/* keep a period's worth: a materialized slice started less than one ago */
	while (G->mn && G->marks[G->mhead].t < now - G->period - 1) {
		G->mhead++;
		G->mn--;
	}
	if (G->mhead > 1024 && G->mhead > G->mn) {
		memmove(G->marks, G->marks + G->mhead, G->mn * sizeof(*G->marks));
		G->mhead = 0;
	}
	DL_GROW(G->marks, G->mhead + G->mn + 1, G->malloc_);
	G->marks[G->mhead + G->mn++] = (struct mark){now, phase, dl_sim_order_mark(s)};
}

/* the order mark of time b's timers (b within the last period) */
static uint64_t mark_at(const struct gandiva *G, struct dl_sim *s, dl_tick b)
{
	const struct mark *m = G->marks + G->mhead;
	size_t lo = 0, hi = G->mn;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m[mid].t < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < G->mn && m[lo].t == b && m[lo].phase < PH_TIMERS)
		lo++;
	return lo < G->mn ? m[lo].key : dl_sim_order_mark(s);
}

static struct dl_sim_counters counters_of(const struct dl_sim_job *j)
{
	return (struct dl_sim_counters){.since = j->since,
					.executed = j->executed,
					.waited = j->waited,
					.work_left = j->work_left,
					.comm = j->comm,
					.preemptions = j->preemptions,
					.restore_until = j->restore_until};
}

/* the engine's timer for set id at `at` (no questions asked) */
static void arm_raw(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick at)
{
	struct gset *g = &G->g[id];
	g->stamp = ++G->seq;
	dl_sim_timer(s, at, DL_SIM_NOJOB, (int)id, g->stamp);
	presence(G, id, at);
}

/*
 * Cruising set id as slice i's job has just started (at its instant's
 * timers): every job's counters restated to what slices 0 .. i - 1 left, the
 * engine's runner swapped for slice i's; with rearm, the timer of slice i + 1
 * (when not the window's own), else the caller runs that slice.
 */
static void materialize(struct gandiva *G, struct dl_sim *s, size_t id, int64_t i, int rearm)
{
	struct gset *g = &G->g[id];
	int64_t n = (int64_t)g->n, P = G->period;
	dl_tick now = dl_sim_now(s), bi = slice_start(G, g, i), w0 = g->w;
	double k = g->k;
	uint32_t a = g->ring[g->cur0];
	size_t yi = (g->cur0 + (size_t)(i % n)) % (size_t)n;
	uint32_t y = g->ring[yi];
	/* units after slice i's have had no slice yet: their counters stand as they are */
	int64_t touched = i < n ? i + 1 : n;
	DL_GROW(G->cbuf, (size_t)n, G->cbuf_alloc);
	for (int64_t u = 0; u < touched; u++)
		G->cbuf[u] =
			u ? counters_of(sj(s, g->ring[(g->cur0 + (size_t)u) % (size_t)n])) : g->a0;
	if (y != a) {
		struct dl_sim_how how = DL_SIM_HOW(.gpus = g->gpus, .shared = 1);
		dl_sim_start(s, sj(s, y), &how);
		dl_sim_suspend(s, sj(s, a), G->suspend);
	}
	for (int64_t u = 0; u < touched; u++) {
		uint32_t x = g->ring[(g->cur0 + (size_t)u) % (size_t)n];
		struct dl_sim_job *j = sj(s, x);
		const struct dl_sim_counters *b = &G->cbuf[u];
		struct dl_sim_counters c = *b;
		int64_t K = i > u ? (i - u + n - 1) / n : 0; /* its slices before slice i */
		dl_tick held = K ? K * P - (u == 0 ? P - (g->t1 - w0) : 0) : 0;
		c.work_left = work_after(b->work_left, K, G->quantum, j->rate);
		c.comm = comm_after(b->comm, K, G->quantum, j->slowdown);
		c.executed = b->executed + held;
		c.preemptions = b->preemptions + (int)K;
		c.order = 0;
		if (x == y) {
			c.since = bi;
			c.restore_until = i == 0 ? g->a0.restore_until : bi + G->suspend;
			c.order = i == 0 ? g->order0 : mark_at(G, s, bi);
		} else if (K) {
			int64_t l = u + (K - 1) * n; /* its last slice */
			c.since = slice_start(G, g, l + 1);
			c.restore_until =
				l == 0 ? g->a0.restore_until : slice_start(G, g, l) + G->suspend;
		}
		c.waited = b->waited + (c.since - b->since) - held;
		/* its GPU-ticks: the slices it held them, its own since its resume (exact integers)
		 */
		double since_join = x == a ? (double)((x == y ? bi : now) - w0) : 0;
		c.occupied_add = k * ((double)held - since_join +
				      (x == y && x != a ? (double)(now - bi) : 0));
		dl_sim_restate(s, j, &c);
	}
	g->cur = yi;
	g->run[0] = y;
	g->run[1] = NIL;
	g->cruising = 0;
	size_t moved = G->cru[--G->ncruising];
	G->cru[g->cru_pos] = moved;
	G->g[moved].cru_pos = g->cru_pos;
	if (!rearm)
		return;
	if (i + 1 == g->last) {
		presence(G, id, g->tat); /* the window's own timer is slice i + 1's */
		return;
	}
	dl_sim_timer_cancel(s, g->tat, (int)id, g->stamp);
	arm_raw(G, s, id, slice_start(G, g, i + 1));
}

/* set id as its slices would have left it by now (it slices one by one again) */
static void materialize_now(struct gandiva *G, struct dl_sim *s, size_t id)
{
	struct gset *g = &G->g[id];
	if (!g->cruising)
		return;
	dl_tick now = dl_sim_now(s);
	int64_t i = 0;
	if (passed(G, s, g->t1)) {
		i = 1 + (now - g->t1) / G->period;
		if (slice_start(G, g, i) == now && !passed(G, s, now))
			i--;
	}
	materialize(G, s, id, i, 1);
}

/*
 * A timer is about to be made at `at`: if that is a cruising set's slice
 * instant, its skipped timer would have been made at its previous slice's
 * instant. Already past: the set materializes now (its timer made first).
 * Still ahead: its window ends there instead.
 */
static void make_way(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick at)
{
	for (int32_t h = G->ph_head[ph_bucket_of(G, at)]; h >= 0; h = G->g[h].ph_next) {
		struct gset *gh = &G->g[h];
		int64_t j = (size_t)h == id ? 0 : slice_at(G, gh, at);
		if (!j)
			continue;
		/* (slice 0 began before anything else could be made after it) */
		if (j == 1 || passed(G, s, slice_start(G, gh, j - 1))) {
			materialize(G, s, (size_t)h, j - 1, 1);
		} else {
			dl_sim_timer_cancel(s, gh->tat, h, gh->stamp);
			gh->last = j - 1;
			arm_raw(G, s, (size_t)h, slice_start(G, gh, j - 1));
		}
		return; /* (cruising sets share no slice instant) */
	}
}

/*
 * The first slice of set id's window (slice 1 ends at t1) that would meet
 * another set's timer or cruising slice instant: the window ends before it.
 * 0 also when another set's timer in the same phase is still to come at this
 * very instant: slicing on, that set would arm its next timer at t1, and
 * make_way would undo the window at once (two sets in step would take turns
 * planning and undoing windows every period, skipping nothing).
 */
static int64_t window_cap(const struct gandiva *G, struct dl_sim *s, size_t id, dl_tick t1)
{
	dl_tick P = G->period, now = dl_sim_now(s);
	int64_t cap = INT64_MAX;
	for (int32_t h = G->ph_head[ph_bucket_of(G, t1)]; h >= 0 && cap > 1; h = G->g[h].ph_next) {
		const struct gset *gh = &G->g[h];
		dl_tick meet = -1;
		if ((size_t)h == id)
			continue;
		if (gh->tat == now && (t1 - now) % P == 0)
			return 0;
		if (gh->cruising) {
			if ((gh->t1 - t1) % P == 0)
				meet = gh->t1 > t1 ? gh->t1 : t1;
			if (meet > slice_start(G, gh, gh->last))
				meet = -1;
		} else if (gh->tat >= t1 && (gh->tat - t1) % P == 0) {
			meet = gh->tat;
		}
		if (meet >= 0 && (meet - t1) / P < cap)
			cap = (meet - t1) / P;
	}
	return cap;
}

/*
 * How many slices set id (its unit at cur just started, its slice ending at
 * t1) can cruise: the index of the slice in which a unit would complete, of
 * the first that meets another set's timer, or a bound; 0 when it may not
 * cruise at all.
 */
static int64_t plan(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick t1)
{
	struct gset *g = &G->g[id];
	/* (no resident is moved, and without packing none is paired) */
	if (!G->cruise || g->k <= G->exposed || g->n < 2 || g->run[1] != NIL || g->unready)
		return 0;
	const struct dl_sim_job *a = sj(s, g->ring[g->cur]);
	if (a->state != DL_SJ_RUNNING || a->finish_at <= t1 || !(a->rate > 0))
		return 0; /* it completes in slice 0 */
	int64_t cap = window_cap(G, s, id, t1);
	if (cap < 2)
		return 0;
	dl_tick P = G->period, q = G->quantum;
	int64_t n = (int64_t)g->n;
	/* occupied GPU-ticks must stay exact integers (below 2^52) */
	double room = (4503599627370496.0 / g->k - (double)t1) / (double)P;
	if (!(room > 4))
		return 0;
	int64_t last = room < (double)(INT64_C(1) << 40) ? (int64_t)room - 2 : INT64_C(1) << 40;
	/*
	 * a bound first (each slice takes about q ticks off work / rate): ending
	 * the window earlier than needed is always right, and it keeps the exact
	 * one-rounding-per-slice walks below as short as the window
	 */
	for (int64_t u = 0; u < n; u++) {
		const struct dl_sim_job *j = sj(s, g->ring[(g->cur + (size_t)u) % (size_t)n]);
		double left = j->work_left / j->rate / (double)q;
		if (left < (double)last / (double)n)
			last = u + ((int64_t)left + 2) * n;
	}
	for (int64_t u = 0; u < n && last > 1; u++) {
		const struct dl_sim_job *j = sj(s, g->ring[(g->cur + (size_t)u) % (size_t)n]);
		int64_t kmax = (last - u + n - 1) / n + 1, k;
		if (u == 0) {
			k = slices_to_last(j->work_left, 1, kmax, q, j->rate);
		} else {
			if (j->state != DL_SJ_QUEUED || j->resume_cost != G->suspend ||
			    j->start < 0 || !(j->rate > 0))
				return 0;
			k = slices_to_last(j->work_left, 0, kmax, q, j->rate);
		}
		if (u + k * n < last)
			last = u + k * n;
	}
	return last < cap ? last : cap;
}

/* set id's next slice ends at t1: its timer there, or a window of skipped slices */
static void arm_slices(struct gandiva *G, struct dl_sim *s, size_t id, dl_tick t1, int fresh)
{
	int64_t last = fresh ? plan(G, s, id, t1) : 0;
	if (last < 2) {
		arm(G, s, id, t1);
		return;
	}
	struct gset *g = &G->g[id];
	struct dl_sim_job *a = sj(s, g->ring[g->cur]);
	g->cruising = 1;
	DL_GROW(G->cru, G->ncruising + 1, G->cru_alloc);
	g->cru_pos = G->ncruising;
	G->cru[G->ncruising++] = id;
	g->cur0 = g->cur;
	g->w = dl_sim_now(s);
	g->t1 = t1;
	g->last = last;
	g->a0 = counters_of(a);
	g->order0 = dl_sim_order_mark(s);
	dl_sim_hold(s, a);
	arm_raw(G, s, id, slice_start(G, g, last));
}

/* ---- migration ---- */

/*
 * Could some node of spread[q]'s type take its k GPUs, counting its own as
 * free? Not when the most free GPUs on one node fall short of its need: then
 * the best-fit scan below would find none, and a crowded cluster answers this
 * for most spread sets at every departure. Asked first, from the compact
 * spread_fit[], so that those sets cost no look at the set or its job.
 */
static int may_fit_one_node(const struct gandiva *G, size_t q)
{
	return G->type_most_free[G->spread_fit[q].type] >= G->spread_fit[q].need;
}

/* a spread set holding one job moves onto one node when that saves more than it costs */
static void consolidate(struct gandiva *G, struct dl_sim *s)
{
	const struct dl_cluster *c = dl_sim_cluster(s);
	for (size_t q = 0; q < G->nspread;) {
		/* (the checks are pure: their order is free) */
		if (!G->p.slice_oracle && !may_fit_one_node(G, q)) {
			q++;
			continue;
		}
		size_t id = G->spread[q];
		struct gset *g = &G->g[id];
		uint32_t x = g->ring[0];
		struct dl_sim_job *j = sj(s, x);
		if (g->n != 1 || G->j[x].partner != NIL || j->state != DL_SJ_RUNNING ||
		    !(j->slowdown > 1)) {
			q++;
			continue;
		}
		/* the best-fit node of its type that can take it, counting its own GPUs */
		int best = -1, bavail = 0;
		for (int i = 0; i < g->k; i++) /* its own GPUs count as free for it */
			G->node_free[G->gpu_node[g->gpus[i]]]++;
		for (size_t nd = 0; nd < c->nnodes; nd++) {
			int avail = G->node_free[nd];
			if (avail >= g->k && c->nodes[nd].type == g->type &&
			    (best < 0 || avail < bavail)) {
				best = (int)nd;
				bavail = avail;
			}
		}
		for (int i = 0; i < g->k; i++)
			G->node_free[G->gpu_node[g->gpus[i]]]--;
		if (best < 0) {
			q++;
			continue;
		}
		dl_sim_sync(s, j);
		double left_s = j->work_left / DL_TICKS_PER_SECOND / job_speed(s, j, g->type);
		double saved = left_s * (j->slowdown - 1); /* one node: slowdown 1 */
		if (!(saved * DL_TICKS_PER_SECOND > (double)dl_sim_migrate_cost(s))) {
			q++;
			continue;
		}
		const struct dl_node *node = &c->nodes[best];
		int n = 0;
		for (int gg = node->first_gpu; gg < node->first_gpu + node->gpus && n < g->k; gg++)
			if (G->gowner[gg] == (int)id || G->gowner[gg] < 0)
				G->buf[n++] = gg;
		if (n < g->k || dl_sim_migrate(s, j, G->buf, g->k, DL_SIM_PAUSE_RULE) < 0) {
			q++;
			continue;
		}
		own_gpus(G, g->gpus, g->k, -1);
		memcpy(g->gpus, j->gpu, (size_t)g->k * sizeof(int));
		own_gpus(G, g->gpus, g->k, (int)id);
		spread_del(G, id); /* the last spread set now sits at q */
	}
}

/*
 * Idle GPUs take suspended jobs from the most crowded sets of their size
 * when the wait saved exceeds the migration cost: a job sharing its set
 * with u units finishes in about u times its remaining work; alone, in its
 * work plus the cost.
 */
/* crowded set g's suspended single job with the most work left, if moving it pays; else NIL */
static uint32_t move_candidate(struct gandiva *G, struct dl_sim *s, const struct gset *g)
{
	uint32_t best = NIL;
	double bw = -1;
	for (size_t i = 0; i < g->n; i++) {
		uint32_t x = g->ring[i];
		struct dl_sim_job *j = sj(s, x);
		if (!G->fluid && i == g->cur) /* the running unit stays */
			continue;
		if (G->j[x].partner != NIL)
			continue;
		if (j->work_left > bw) {
			bw = j->work_left;
			best = x;
		}
	}
	if (best == NIL)
		return NIL;
	struct dl_sim_job *j = sj(s, best);
	double left = j->work_left / job_speed(s, j, g->type);
	double cost = j->start >= 0 ? (double)dl_sim_migrate_cost(s) : 0;
	return left * (double)(g->n - 1) > cost ? best : NIL;
}

/*
 * With dry set it moves nothing and says whether it would try to: the next
 * pass makes the same walk, at what may be any set's slice instant. (Its
 * caller has materialized every set of up to the free GPUs, all it reaches.)
 */
static int deoversubscribe(struct gandiva *G, struct dl_sim *s, int dry)
{
	for (size_t z = 0; z < G->nsizes && G->crowded; z++) {
		int k = G->sizes[z];
		if (k > dl_sim_free_gpus(s))
			break;
		int looked = 0;
		size_t id = dl_oset_last(&G->pool, &G->bysize[k]);
		while (id != DL_ONIL && looked < 16 && k <= dl_sim_free_gpus(s)) {
			struct gset *g = &G->g[id];
			size_t prev = dl_oset_prev(&G->pool, id);
			if (g->nres < 2)
				break;
			looked++;
			if (!dry)
				materialize_now(G, s, id);
			uint32_t best = g->n < 2 ? NIL : move_candidate(G, s, g);
			if (best != NIL && dry)
				return 1;
			if (best == NIL) {
				id = prev;
				continue;
			}
			struct dl_sim_job *j = sj(s, best);
			/* fluid: it runs on the set now; it leaves with a migration */
			if (j->state == DL_SJ_RUNNING)
				dl_sim_suspend(s, j, -1);
			struct dl_sim_how how = DL_SIM_HOW(.moved = 1);
			if (dl_sim_start(s, j, &how) != DL_PLACED) {
				if (G->fluid) /* back on its set */
					fluid_update(G, s, id);
				break;
			}
			set_unready(G, best, 0); /* (it leaves the set: set_open counts it again) */
			size_t before = g->n;
			ring_remove(g, ring_index(g, best));
			set_ring_size_changed(G, g, before);
			set_nres(G, id, g->nres - 1);
			dl_tick window = G->j[best].window; /* it was profiled already */
			set_open(G, s, best);
			G->j[best].window = window;
			g = &G->g[id]; /* set_open may move the array */
			if (G->fluid)
				fluid_update(G, s, id);
			else if (g->n < 2)
				disarm(G, id); /* one unit left: no more slices */
			id = prev;
		}
	}
	return 0;
}

/*
 * Can every resident of set v join another set of its size (set_for)? Then
 * v can be emptied.
 */
static int can_vacate(struct gandiva *G, struct dl_sim *s, size_t v)
{
	const struct gset *g = &G->g[v];
	for (size_t i = 0; i < g->n; i++) {
		uint32_t a = g->ring[i], b = G->j[a].partner;
		if (set_for(G, s, sj(s, a), v) == DL_ONIL ||
		    (b != NIL && set_for(G, s, sj(s, b), v) == DL_ONIL))
			return 0;
	}
	return 1;
}

/* empty set v: its residents join other sets of their size (a pack is undone), v closes */
static void vacate(struct gandiva *G, struct dl_sim *s, size_t v)
{
	materialize_now(G, s, v);
	struct gset *g = &G->g[v];
	while (g->n) {
		uint32_t a = g->ring[0], unit[2] = {a, G->j[a].partner};
		size_t before = g->n;
		ring_remove(g, 0);
		set_ring_size_changed(G, g, before);
		for (int r = 0; r < 2; r++) {
			uint32_t y = unit[r];
			if (y == NIL)
				continue;
			struct dl_sim_job *j = sj(s, y);
			struct gjob *gy = &G->j[y];
			gy->partner = NIL;
			set_unready(G, y, 0); /* (it leaves the set: join_set counts it again) */
			if (j->state == DL_SJ_RUNNING)
				dl_sim_suspend(s, j, G->suspend);
			/* its state moves to other GPUs: a migration, unless it never ran */
			gy->moved = j->start >= 0;
			set_nres(G, v, g->nres - 1);
			dl_tick window = gy->window; /* it was profiled already */
			join_set(G, s, y, set_for(G, s, j, v));
			gy = &G->j[y];
			gy->window = window;
			g = &G->g[v];
		}
	}
	g->run[0] = g->run[1] = NIL;
	set_close(G, v);
}

/*
 * Defragment for x, the first waiting job, which can neither start (too few
 * free GPUs) nor join a set (none of its size): empty the sets whose
 * residents can all move to other sets of their size, those that make room
 * for x with the fewest residents first, until x's GPUs are free. Without
 * this, x would wait until sets empty by themselves, while later jobs of
 * other sizes keep joining the least crowded sets, the very ones about to
 * empty: x could wait for ever with GPUs idle. Returns whether it moved jobs.
 */
static int defragment(struct gandiva *G, struct dl_sim *s, uint32_t x)
{
	const struct dl_sim_job *jx = sj(s, x);
	int moved = 0;
	for (;;) {
		int need = jx->gpus - dl_sim_free_gpus(s);
		if (need <= 0)
			return moved;
		size_t best = DL_ONIL;
		for (size_t v = 0; v < G->ng; v++) {
			const struct gset *g = &G->g[v];
			if (!g->live || (jx->type != DL_ANY_TYPE && g->type != jx->type) ||
			    !(job_speed(s, jx, g->type) > 0))
				continue;
			if (best != DL_ONIL) {
				const struct gset *b = &G->g[best];
				int short_v = g->k < need, short_b = b->k < need;
				/* room for x first, then the fewest jobs to move, then fewer GPUs
				 */
				if (short_v > short_b ||
				    (short_v == short_b &&
				     (g->nres > b->nres || (g->nres == b->nres && g->k >= b->k))))
					continue;
			}
			if (can_vacate(G, s, v))
				best = v;
		}
		if (best == DL_ONIL)
			return moved;
		vacate(G, s, best);
		moved = 1;
	}
}

/* ---- callbacks ---- */

static void destroy(void *st)
{
	struct gandiva *G = st;
	for (size_t i = 0; i < G->ng; i++) {
		free(G->g[i].gpus);
		free(G->g[i].ring);
	}
	free(G->g);
	free(G->gfree);
	dl_opool_release(&G->pool);
	free(G->bysize);
	free(G->sizes);
	free(G->spread);
	free(G->spread_fit);
	free(G->gowner);
	free(G->node_free);
	free(G->type_most_free);
	free(G->free_nodes);
	free(G->buf);
	free(G->ph_head);
	free(G->marks);
	free(G->cbuf);
	free(G->cru);
	gjobs_release(&G->slab);
	for (size_t k = 0; k < G->nkeys; k++)
		free(G->fmat[k]);
	free(G->fmat);
	free(G->fbuilt);
	strmap_free(&G->model_idx);
	free(G);
}

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	const struct dl_gandiva_params *p = params;
	struct gandiva *G = xcalloc(1, sizeof(*G));
	G->p = *p;
	G->quantum = dl_sim_ticks(p->quantum);
	G->suspend = dl_sim_ticks(p->suspend_cost);
	if (!(G->quantum > 0) || G->quantum > DL_SIM_INPUT_MAX || G->suspend < 0 ||
	    G->suspend > DL_SIM_INPUT_MAX) {
		free(G);
		dl_err_set(err, DL_EXIT_USAGE, "quantum or suspend cost out of range");
		return NULL;
	}
	G->fluid = p->slice == DL_GANDIVA_FLUID;
	G->migrating = !p->no_migrate;
	G->model_idx = (struct strmap)STRMAP_INIT;
	/* the run's throughputs table (simulate --throughputs): its pairs are colocated rates */
	G->tp = dl_sim_tputs(s);
	if (G->tp && !p->no_pack) {
		for (size_t i = 0; i < G->tp->n; i++) {
			add_model(G, G->tp->v[i].model);
			if (G->tp->v[i].partner[0])
				add_model(G, G->tp->v[i].partner);
		}
		G->packing = G->tp->has_partner;
	}
	const struct dl_cluster *c = dl_sim_cluster(s);
	G->maxg = dl_sim_total_gpus(s);
	G->nkeys = c->ntypes * ((size_t)G->maxg + 1);
	if (G->packing) {
		G->fmat = xcalloc(G->nkeys, sizeof(*G->fmat));
		G->fbuilt = xcalloc(G->nkeys, 1);
	} else {
		G->nkeys = 0;
	}
	G->qhead = G->qtail = NIL;
	dl_opool_init(&G->pool, 0);
	G->bysize = xcalloc((size_t)G->maxg + 2, sizeof(*G->bysize));
	for (int k = 0; k <= G->maxg + 1; k++)
		G->bysize[k] = (struct dl_oset)DL_OSET_INIT;
	/* the distinct gang sizes, ascending */
	unsigned char *seen = xcalloc((size_t)G->maxg + 2, 1);
	for (size_t i = 0; i < dl_sim_njobs(s); i++) {
		int k = dl_sim_job_gpus(s, i);
		if (k <= G->maxg)
			seen[k] = 1;
	}
	G->sizes = xcalloc((size_t)G->maxg + 1, sizeof(int));
	for (int k = 1; k <= G->maxg; k++)
		if (seen[k])
			G->sizes[G->nsizes++] = k;
	free(seen);
	G->gowner = xcalloc((size_t)G->maxg + 1, sizeof(int));
	for (int g = 0; g < G->maxg; g++)
		G->gowner[g] = -1;
	G->gpu_node = c->gpu_node;
	G->node_free = xcalloc(c->nnodes + 1, sizeof(int));
	G->type_most_free = xcalloc(c->ntypes + 1, sizeof(int));
	G->nodes = c->nodes;
	for (size_t nd = 0; nd < c->nnodes; nd++)
		if (c->nodes[nd].gpus > G->node_gpus)
			G->node_gpus = c->nodes[nd].gpus;
	G->free_nodes = xcalloc((c->ntypes + 1) * ((size_t)G->node_gpus + 1), sizeof(int));
	for (size_t nd = 0; nd < c->nnodes; nd++) {
		int t = c->nodes[nd].type, f = c->nodes[nd].gpus;
		G->node_free[nd] = f;
		G->free_nodes[(size_t)t * ((size_t)G->node_gpus + 1) + (size_t)f]++;
		if (f > G->type_most_free[t])
			G->type_most_free[t] = f;
	}
	G->buf = xcalloc((size_t)G->maxg + 1, sizeof(int));
	G->period = G->suspend + G->quantum;
	G->cruise = !G->fluid && !G->packing && !p->slice_oracle && !dl_sim_logs_events(s) &&
		    !dl_placer_dally(dl_sim_placer(s));
	if (G->cruise) {
		G->ph_head = xcalloc(PH_BUCKETS, sizeof(*G->ph_head));
		for (size_t b = 0; b < PH_BUCKETS; b++)
			G->ph_head[b] = -1;
	}
	return G;
}

static void arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gandiva *G = st;
	fit_slot(G, j->slot);
	struct gjob *gj = &G->j[j->slot];
	memset(gj, 0, sizeof(*gj));
	gj->grp = -1;
	gj->partner = NIL;
	gj->bad = NIL;
	gj->model = G->packing ? model_of(G, dl_sim_job_model(s, j)) : -1;
	q_push(G, j->slot);
}

static void finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gandiva *G = st;
	uint32_t x = j->slot;
	struct gjob *gj = &G->j[x];
	size_t id = (size_t)gj->grp;
	record_mark(G, s, PH_COMPLETIONS);
	struct gset *g = &G->g[id];
	G->departed = 1;
	set_unready(G, x, 0);
	gj->grp = -1;
	set_nres(G, id, g->nres - 1);
	for (int r = 0; r < 2; r++)
		if (g->run[r] == x)
			g->run[r] = NIL;
	uint32_t p = gj->partner;
	if (p != NIL) {
		/* the pack ends; the partner goes on alone, in the pair's place */
		struct gjob *gp = &G->j[p];
		gp->partner = NIL;
		if (gj->inring) {
			g->ring[ring_index(g, x)] = p;
			gp->inring = 1;
		}
		g->pack_dirty = 1;
		if (G->fluid)
			fluid_update(G, s, id);
		else if (sj(s, p)->state == DL_SJ_RUNNING)
			dl_sim_set_share(s, sj(s, p), 1);
		return;
	}
	size_t i = ring_index(g, x), before = g->n;
	ring_remove(g, i);
	set_ring_size_changed(G, g, before);
	if (!g->n) {
		set_close(G, id);
		return;
	}
	if (G->fluid)
		fluid_update(G, s, id);
	else if (g->run[0] == NIL && g->run[1] == NIL)
		run_unit(G, s, id, g->cur); /* the next unit gets the GPUs now */
	else if (g->n < 2)
		disarm(G, id);
}

static int timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	struct gandiva *G = st;
	(void)job;
	if (kind < 0 || (size_t)kind >= G->ng)
		return 0;
	struct gset *g = &G->g[kind];
	record_mark(G, s, PH_TIMERS);
	if (!g->live || g->stamp != stamp)
		return 0;
	if (g->cruising) /* its window ends: the slice `last` starts for real */
		materialize(G, s, (size_t)kind, g->last - 1, 0);
	if (G->fluid)
		fluid_update(G, s, (size_t)kind);
	else
		slice_end(G, s, (size_t)kind);
	return 1;
}

/*
 * Waiting jobs in submit order take free GPUs (fifo: not past one that
 * cannot start) or join a set of their size; then migrations.
 */
static void schedule(void *st, struct dl_sim *s)
{
	struct gandiva *G = st;
	int blocked = 0;
	record_mark(G, s, PH_PASS);
	for (uint32_t x = G->qhead, next; x != NIL; x = next) {
		next = G->j[x].qnext;
		struct dl_sim_job *j = sj(s, x);
		if (!blocked && j->gpus <= dl_sim_free_gpus(s)) {
			enum dl_decision d = dl_sim_start(s, j, NULL);
			if (d != DL_WAIT) {
				q_del(G, x); /* its slot stays ours until this pass ends */
				if (d == DL_PLACED)
					set_open(G, s, x);
				continue;
			}
		}
		if (oversubscribe(G, s, x))
			continue;
		if (!blocked && G->migrating && defragment(G, s, x) &&
		    j->gpus <= dl_sim_free_gpus(s)) {
			enum dl_decision d = dl_sim_start(s, j, NULL);
			if (d != DL_WAIT) {
				q_del(G, x);
				if (d == DL_PLACED)
					set_open(G, s, x);
				continue;
			}
		}
		blocked = 1;
	}
	/*
	 * Migrations answer contention: only while the cluster is overloaded
	 * (a set over-subscribed or a job waiting), so that without overload the
	 * run is fifo's. A spread set holds fewer than its size on any node: it
	 * needs a free GPU to consolidate.
	 */
	if (G->migrating && G->departed && G->nspread && (G->crowded || G->nwaiting) &&
	    dl_sim_free_gpus(s) > 0)
		consolidate(G, s);
	G->departed = 0;
	if (G->migrating && !G->nwaiting && G->crowded && dl_sim_free_gpus(s) > 0)
		deoversubscribe(G, s, 0);
	/*
	 * The next pass, which may be at any set's slice instant, looks at the
	 * sets of up to `exposed` GPUs to de-oversubscribe them: those slice one
	 * by one. If it would move a job, nothing may skip its slice instants.
	 */
	G->exposed = G->migrating && !G->nwaiting && G->crowded ? dl_sim_free_gpus(s) : 0;
	if (!G->cruise || !G->exposed)
		return;
	for (size_t c = 0; c < G->ncruising;) /* (materialize moves the last one to c) */
		if (G->g[G->cru[c]].k <= G->exposed)
			materialize_now(G, s, G->cru[c]);
		else
			c++;
	if (deoversubscribe(G, s, 1)) {
		G->exposed = G->maxg + 1;
		while (G->ncruising)
			materialize_now(G, s, G->cru[0]);
	}
}

const struct dl_sim_policy_ops dl_sim_gandiva = {
	.name = "gandiva",
	.summary = "Gandiva: affinity, time slices of over-subscribed GPUs, packing, migration",
	.opts = dl_gandiva_opts,
	.params_size = sizeof(struct dl_gandiva_params),
	.create = create,
	.destroy = destroy,
	.arrive = arrive,
	.finish = finish,
	.timer = timer,
	.schedule = schedule,
	.place = "gandiva",
};
