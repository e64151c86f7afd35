/*
 * gavel.c: Gavel's round-based mechanism (OSDI'20; scheduler.py of the
 * reference; dlsched-simulate(1), GAVEL) realising an allocation policy of
 * lib/policy/alloc.h on the native engine (policy.h).
 *
 * The allocation X (job i gets fraction X_it of the time on GPU type t) is
 * kept in a re-solve session (alloc.h) and re-solved, warm, only after a job
 * was admitted or completed. Time is cut into rounds of --round seconds. At
 * each round boundary:
 *   1. the time each running job received on its type this round is added
 *      to its job_time[i][t] and to worker_time[t] (once per job, whatever
 *      its gang, as the reference counts); a job starts with round / 2 on
 *      every type (the reference's initial time);
 *   2. with --compat gavel, the jobs that arrived during the round are
 *      admitted, in arrival order (otherwise a job is admitted when it
 *      arrives);
 *   3. if the job set changed, X is re-solved (finish-time fairness gets
 *      every job's seconds since arrival and steps done), after the
 *      reference's deficit reset when --reset-interval seconds have passed
 *      since the last one: deficit += X * elapsed - (job_time - round / 2),
 *      and job_time restarts at round / 2 (with --compat gavel, as in the
 *      reference's simulation, a re-solve waits for the reset to be due,
 *      which it also is while the last reset was at trace time 0, and at
 *      once when nothing would run and every job has arrived; a job not in
 *      an allocation yet is walked at priority 0 but never started, so the
 *      GPUs it takes stay idle, as the reference's);
 *   4. priorities: X_it / (job_time_it / worker_time_t), X_it * 1e9 while
 *      the type's worker time is 0, 0 where X_it = 0;
 *   5. per type, fastest first (a seeded shuffle for agnostic policies with
 *      --compat gavel), the (job, type) entries by priority, deficit, X and
 *      job order, walked greedily: a job takes gpus GPUs of the type if it
 *      has that many left and the job has none yet this round (fifo
 *      policies skip priority 0);
 *   6. a running job given its type again keeps its GPUs (a lease
 *      extension: no checkpoint, no restore, and no event: its start said
 *      where it runs); the others are preempted, and the jobs given a type
 *      start on it, widest first.
 * A round ends after --round seconds, or as soon as no job holds GPUs.
 * With --compat gavel a job runs int(throughput x round) steps a round and
 * the round ends when the longest of them is done (plan_steps).
 *
 * Between boundaries: GPUs freed by a completion stay idle until the round
 * ends (the reference's idle tail) unless --work-conserving, which offers
 * them to the waiting jobs by priority; a job arriving while GPUs are idle
 * starts on them at once, unless --compat gavel (admission at boundaries).
 *
 * --pack: pairs of jobs from the allocation's pair columns share GPUs, each
 * at its packed throughput (the engine's share: packed over alone on that
 * type); a pair's priority counts the pair's own time, as in the reference.
 *
 * --mechanism exact: no rounds; every job progresses continuously at
 * sum_t X_it T_it (pairs included), re-solved on every arrival and
 * completion: the bound the rounds approximate. Jobs "run" on a GPU set of
 * the fastest type where they have time, shared, at that rate; the engine's
 * GPU counts are then not meaningful.
 *
 * Per-job state is indexed by the engine's slot (policy.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/num.h"
#include "core/rng.h"
#include "core/rsort.h"
#include "core/sort.h"
#include "core/strmap.h"
#include "policy/alloc.h"
#include "policy/alloc_input.h"
#include "sim/gavel.h"
#include "sim/slab.h"
#include "sim/trace.h"
#include "trace/throughputs.h"

#define AT(f) DL_OPT_AT(struct dl_gavel_params, f)
static const char *const mechanisms[] = {"rounds", "exact", NULL};
const struct dl_opt dl_gavel_opts[] = {
	{DL_OPT_CHOICE, 0, "alloc", "POLICY", "the allocation policy the rounds realise", AT(alloc),
	 .value_at = dl_alloc_policy_at, .def = "max-min-fairness-perf"},
	{DL_OPT_SECONDS, 0, "round", "S", "seconds a round lasts", AT(round), .min = 1,
	 .max = DL_SECONDS_MAX, .def = "360"},
	{DL_OPT_CHOICE, 0, "mechanism", "M", "rounds, or exact (continuous) shares", AT(mechanism),
	 .values = mechanisms, .def = "rounds"},
	{DL_OPT_FLAG, 0, "work-conserving", NULL, "backfill GPUs freed mid-round",
	 AT(work_conserving)},
	{DL_OPT_FLAG, 0, "pack", NULL, "space sharing at the pairs' packed throughputs", AT(pack)},
	{DL_OPT_FLAG, 0, "gavel-compat", NULL, "what simulate --compat gavel sets", AT(compat),
	 .flags = DL_OPTF_HIDDEN},
	{DL_OPT_SECONDS, 0, "reset-interval", "S",
	 "least seconds between resets of the time received", AT(reset), .max = DL_SECONDS_MAX,
	 .def = "1920"},
	{DL_OPT_END},
};
#undef AT

enum { T_ROUND = 1 };
/* the walk's cut is by gang size, for gangs of up to NGROUPS GPUs */
enum { NGROUPS = 64 };

/* a job of the run, by slot */
struct gj {
	/* first, together: the fields account and walk_entry read (fewer cache lines a visit) */
	dl_tick from;  /* running: since when its time this round is not counted yet */
	int cur_type;  /* type of its GPUs while it holds them, -1 */
	int assigned;  /* cluster type given this round, -1: none */
	int gpus;      /* the job's */
	uint32_t idx;  /* the job's (its order in the walk) */
	int hold;      /* compat: takes GPUs in this round's walk without running (no allocation) */
	int cold;      /* in its class's blocks: its time received is half a round on every type */
	double credit; /* compat: seconds of this round it is counted as running (-1: as it runs) */
	int cur_partner;
	int partner;	/* slot of its partner this round (pack), -1: none */
	int lead;	/* of a pair: placed first, the partner joins its GPUs */
	int live;	/* the slot holds a job */
	int fresh;	/* arrived since the last boundary (may start mid-round) */
	int allocated;	/* in the last allocation solved (compat: else it waits for one) */
	int64_t handle; /* in the session; -1: not admitted */
	uint64_t runs;	/* bit t: it can run on type t (with GPUs, throughput > 0; nt <= 64) */
	long cls;	/* its class in the session (by class), while admitted */
};

/*
 * an admitted job, in the dense list of them that the round's priority pass
 * streams (a few bytes a job instead of its whole record; the list's order
 * is not the walk's: the walk orders its candidates by the entries' keys)
 */
struct adm {
	int slot;
	int gpus;
	uint32_t idx;
	int64_t handle;
	uint64_t runs; /* as its gj's */
	long cls;
};

/*
 * The blocks (not with --compat gavel, --pack or scan_all): on type t, the
 * admitted jobs of one class whose time received is still the initial half
 * round on every type (cold: not run since the last reset, or arrived since;
 * one running at the reset stays out, hot, as it most likely runs on) share
 * X and so one priority, and the walk orders them by deficit, highest
 * first, then job order. That order changes only at a reset (the deficits
 * move), so each (class, type) keeps its cold jobs in it: the members sorted
 * at the last reset, then those admitted since (deficit 0, in job order),
 * the two merged as they are read. A job leaves its blocks when it runs or
 * completes (read as gone: its slot's record no longer matches), so a round
 * costs the classes and the jobs that ran since the last reset, not every
 * job waiting.
 */
struct member {
	double def; /* its deficit on the block's type (fixed until the next reset) */
	int slot;
	uint32_t idx; /* (after slot: the upper half of a 64-bit key, members_rsort) */
};

struct block {
	struct member *base; /* sorted at the last reset; gone ones before head skipped */
	size_t head, nbase, abase;
	struct member *news; /* admitted since: deficit 0, ascending idx */
	size_t nnews, anews;
	size_t nkept; /* at a reset: news kept (in their order) before the jobs that ran join */
	size_t live;  /* its members still cold */
	int gpus;     /* its class's */
};

/* a pair of the allocation (pack): slots, its time on each type and the shares */
struct gpair {
	int a, b;
	size_t ptime; /* index of its time record */
	double *x, *fa, *fb;
};

struct entry {
	double prio, deficit, x;
	int job, pair; /* the job's order (trace index), and a pair's index (pair >= 0) */
	int type;      /* the rank of its type this round */
	int gpus;
	int hold; /* a job without an allocation (compat): it takes GPUs, does not run */
	int slot; /* the job's (not of a pair) */
};

/* a job given a type this round, for the placement order */
struct wide {
	int gpus;
	uint32_t idx;
	int slot;
	int type; /* given (start order), else -1 */
};

/* a place in the start order (widest_first): sorted as 16 bytes, not a whole struct wide */
struct wkey {
	uint64_t order; /* ascending: widest gang first, then job order */
	size_t at;	/* its struct wide */
};

/*
 * A set of slots, one bit each: the jobs a round may touch, so that a round
 * costs the jobs whose state changes, not every job waiting (scan_all: every
 * slot, as a check). Walked in slot order, the order of a scan of every slot.
 */
struct slotset {
	uint64_t *w;
	size_t nw;
};

struct gavel {
	struct dl_gavel_params p;
	enum dl_alloc_policy policy;
	struct dl_alloc_session *ses;
	struct dl_alloc_problem prob;
	size_t na;	      /* allocation types: those of the cluster with GPUs */
	int *ctype;	      /* [na] cluster type of each */
	int same_types;	      /* ctype is the identity (every type has GPUs) */
	size_t nt;	      /* cluster types */
	int *type_gpus;	      /* [nt] */
	const int *order;     /* [nt] types fastest first (the cluster's) */
	int agnostic;	      /* the reference shuffles the type order for these */
	int fifo;	      /* skip priority 0 */
	int progress;	      /* the policy reads the jobs\' progress (steps, elapsed) */
	struct gj *g;	      /* [slots] */
	double *jt, *def, *x; /* [slots * nt]: job time (s), deficit, allocation (per job) */
	/*
	 * X by class (the session's warm solves): the last solve read gave X per
	 * class (cx, na values a class), for the jobs admitted before it (handles
	 * below solved_below); else per job, in x
	 */
	int by_class;
	const double *cx;
	int64_t solved_below, next_handle;
	int *atype; /* [nt] allocation type of each cluster type, -1: none */
	size_t nslots;
	int *slot_of_handle; /* [handles] */
	/*
	 * the session's jobs in its order (ascending handles: added at the end,
	 * removed in place), by slot: what solve reads X into, without a call
	 * and a lookup for every job at every solve
	 */
	int *view;
	size_t nview, aview;
	/* the blocks (see struct block), [class * nt + type], and the jobs not in them */
	int blocks_on;
	struct block *blk;
	size_t nblkcls;	    /* classes the blocks have room for */
	size_t nhot;	    /* admitted jobs not cold: the first nhot of adm */
	uint32_t *cold_idx; /* [slots] a cold job's idx, else UINT32_MAX */
	size_t nbig;	    /* admitted jobs of more than NGROUPS GPUs (then no blocks) */
	struct member *mscratch;
	size_t amscratch;
	struct adm *adm; /* the admitted jobs (in no order), nadm of them */
	size_t nadm, aadm;
	double *adm_jt, *adm_def; /* [nadm * nt] copies of their jt and def, in adm's order */
	size_t aadm_jt, aadm_def;
	int *adm_at; /* [slots] its place in adm while admitted */
	size_t nhandles;
	double *worker_time; /* [nt] GPU-seconds */
	struct gpair *pairs;
	size_t npairs, apairs;
	struct strmap pair_index; /* "idx_a/idx_b" -> ptime record */
	double *ptime;		  /* [records * nt] */
	size_t nptime, aptime;
	int need_solve, boundary_due, round_active;
	uint64_t round_no;
	uint64_t stamp; /* of the round timer that counts (compat may set it again) */
	uint64_t extensions;
	dl_tick round_len, round_start, last_reset, reset_len;
	struct dl_rng rng;
	struct entry *ent;
	size_t aent;
	struct cand *cand; /* [slots] a type's priorities before the walk's candidates */
	struct tie *ties;  /* [slots] the jobs at the cuts' priorities */
	size_t aties;
	size_t acand;
	struct wprio *kth;  /* [slots] scratch of kth_largest */
	struct ekey *ekeys; /* a type's entries in the walk's order (taken_prefix) */
	size_t aekeys;
	struct bcand *bcand;
	size_t abcand;
	struct member *mout; /* a block's first members (block_first) */
	size_t amout;
	size_t akth;
	struct wide *tmp;   /* [slots] the start order (widest_first) */
	struct wkey *wkeys; /* widest_first's keys, and its radix sort's scratch */
	size_t awkeys;
	int *free_t; /* [nt] scratch of start_round */
	/* [nt] scratch of a round's walk: types in walk order, their ranks, GPUs left */
	int *walk_order, *walk_rank, *walk_left;
	size_t atmp;
	struct wide *wide; /* [slots] */
	size_t awide;
	double *tput;	  /* [na] scratch */
	int solve_failed; /* warned once */
	int cursor;	  /* exact: the next GPU to share */
	int solved_once;  /* the reference resets at its first allocation */
	int pending;	  /* some job given a type this round waits to start (GPUs saving) */
	size_t nfresh;	  /* jobs arrived since the last boundary, not started */
	/* the fresh set's jobs as a list (some gone from it since): fill's candidates */
	struct fresh_job {
		int slot;
		uint32_t idx;
	} * fresh_list;
	size_t nfresh_list, afresh_list;
	int *fill_slots; /* fill's candidates' slots */
	size_t afill_slots;
	int *fill_free;	 /* [nt] fill's free GPUs of each type */
	size_t ntmp;	 /* tmp: the start order (widest_first), ntmp slots */
	int order_stale; /* a job was given a type since the start order was sorted (1: by the walk)
			  */
	/* the walk's jobs that start this round (in G->wide; walk_candidates only) */
	size_t nstarters;
	int starters_ok;
	size_t narrived;    /* jobs arrived so far (compat: all arrived forces a reset when idle) */
	int force_reset;    /* compat: the next re-solve resets whatever the interval */
	dl_tick origin;	    /* the trace's first submit: dl_sim_now() + origin is trace time */
	dl_tick this_round; /* length of the round under way (compat: its steps decide) */
	dl_tick last_ran;   /* compat: end of the last round in which jobs ran */
	/* supersets of the slots whose jobs a round's loops act on */
	struct slotset holding;	   /* cur_type >= 0: running on GPUs this round gave */
	struct slotset occupying;  /* started since it last came back saved: running or saving */
	struct slotset touched;	   /* assigned, partner, lead or hold set since the last walk */
	struct slotset fresh;	   /* g->fresh */
	struct slotset unadmitted; /* live without a handle: waits for a boundary to admit it */
	struct slotset admitted;   /* live with a handle: in the allocation's session */
};

static void set_add(struct slotset *S, size_t k)
{
	S->w[k / 64] |= (uint64_t)1 << (k % 64);
}

static void set_del(struct slotset *S, size_t k)
{
	S->w[k / 64] &= ~((uint64_t)1 << (k % 64));
}

static int set_has(const struct slotset *S, size_t k)
{
	return (int)(S->w[k / 64] >> (k % 64) & 1);
}

/*
 * the first slot at or after k below n in S (every slot with scan_all or no
 * S), else n; forced inline: gcc kept it (and set_after) a call in the
 * per-round loops over the sets
 */
static inline __attribute__((always_inline)) size_t
set_next(const struct gavel *G, const struct slotset *S, size_t k, size_t n)
{
	if (G->p.scan_all || !S || k >= n)
		return k < n ? k : n;
	size_t wi = k / 64;
	uint64_t bits = S->w[wi] & (~(uint64_t)0 << (k % 64));
	while (!bits) {
		if (++wi * 64 >= n)
			return n;
		bits = S->w[wi];
	}
	k = wi * 64 + (size_t)__builtin_ctzll(bits);
	return k < n ? k : n;
}

/* the slot after k in S, else n */
static inline __attribute__((always_inline)) size_t
set_after(const struct gavel *G, const struct slotset *S, size_t k, size_t n)
{
	return set_next(G, S, k + 1, n);
}

static double secs(dl_tick t)
{
	return (double)t / DL_TICKS_PER_SECOND;
}

/* ---- per-slot state ---- */

static void destroy(void *st);

/* room for slots below need (slab.h); the per-type arrays hold nt values a slot */
static void grow_slots(struct gavel *G, size_t need)
{
	if (need <= G->nslots)
		return;
	size_t n[3] = {G->nslots, G->nslots, G->nslots};
	G->jt = dl_slab_grow(G->jt, &n[0], need, G->nt * sizeof(double));
	G->def = dl_slab_grow(G->def, &n[1], need, G->nt * sizeof(double));
	G->x = dl_slab_grow(G->x, &n[2], need, G->nt * sizeof(double));
	size_t na = G->nslots, nc = G->nslots;
	G->adm_at = dl_slab_grow(G->adm_at, &na, need, sizeof(int));
	G->cold_idx = dl_slab_grow(G->cold_idx, &nc, need, sizeof(uint32_t));
	G->g = dl_slab_grow(G->g, &G->nslots, need, sizeof(*G->g));
	struct slotset *sets[] = {&G->holding, &G->occupying,  &G->touched,
				  &G->fresh,   &G->unadmitted, &G->admitted};
	size_t words = (G->nslots + 63) / 64;
	for (size_t k = 0; k < DL_ARRAY_SIZE(sets); k++)
		sets[k]->w = dl_slab_grow(sets[k]->w, &sets[k]->nw, words, sizeof(uint64_t));
}

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	struct gavel *G = xcalloc(1, sizeof(*G));
	G->p = *(const struct dl_gavel_params *)params;
	G->policy = (enum dl_alloc_policy)G->p.alloc;
	const struct dl_cluster *c = dl_sim_cluster(s);
	G->nt = c->ntypes;
	G->type_gpus = xcalloc(G->nt + 1, sizeof(int));
	G->order = c->type_order; /* fastest first (Gavel: v100, p100, k80) */
	G->worker_time = xcalloc(G->nt + 1, sizeof(double));
	for (size_t t = 0; t < G->nt; t++)
		G->type_gpus[t] = dl_cluster_type_gpus(c, (int)t);
	const struct dl_alloc_policy_info *info = dl_alloc_policy_info(G->policy);
	G->agnostic = !G->p.pack && info->agnostic;
	G->fifo = info->fifo;
	G->progress = info->progress;
	G->round_len = dl_sim_ticks(G->p.round);
	if (G->round_len < 1)
		G->round_len = 1;
	G->reset_len = dl_sim_ticks(G->p.reset);
	G->this_round = G->round_len;
	const struct dl_sim_trace *tr = dl_sim_trace_of(s);
	G->origin = tr && tr->n ? tr->jobs[0].submit : 0;
	G->last_ran = -G->origin; /* trace time 0 */
	G->pair_index = (struct strmap)STRMAP_INIT;
	dl_rng_seed_stream(&G->rng, dl_sim_seed(s), 15);
	if (G->p.mechanism == DL_GAVEL_EXACT && (G->p.work_conserving || G->p.compat)) {
		dl_err_set(err, DL_EXIT_USAGE, "%s is for --mechanism rounds",
			   G->p.compat ? "--compat gavel" : "--work-conserving");
		goto fail;
	}
	if (G->p.mechanism == DL_GAVEL_ROUNDS &&
	    dl_sim_period_check(s, "round", G->p.round, NULL, 0, err) < 0)
		goto fail;
	if (G->p.pack && !dl_sim_tputs(s)) {
		dl_err_set(err, DL_EXIT_USAGE,
			   "--pack needs --throughputs (the pairs' throughputs)");
		goto fail;
	}
	if (dl_alloc_problem_from_cluster(c, &G->prob, err) < 0)
		goto fail;
	G->na = G->prob.ntypes;
	G->ctype = xcalloc(G->na + 1, sizeof(int));
	G->atype = xcalloc(G->nt + 1, sizeof(int));
	for (size_t t = 0; t < G->nt; t++)
		G->atype[t] = -1;
	G->tput = xcalloc(G->na + 1, sizeof(double));
	G->free_t = xcalloc(G->nt + 1, sizeof(int));
	G->walk_order = xcalloc(G->nt + 1, sizeof(int));
	G->walk_rank = xcalloc(G->nt + 1, sizeof(int));
	G->walk_left = xcalloc(G->nt + 1, sizeof(int));
	G->fill_free = xcalloc(G->nt + 1, sizeof(int));
	G->same_types = G->na == G->nt;
	for (size_t k = 0; k < G->na; k++) {
		G->ctype[k] = dl_cluster_type_index(c, G->prob.type_names[k]);
		G->same_types &= G->ctype[k] == (int)k;
		if (G->ctype[k] >= 0)
			G->atype[G->ctype[k]] = (int)k;
	}
	if (G->p.pack)
		dl_alloc_model_classes(&G->prob, dl_sim_tputs(s));
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	o.policy = G->policy;
	o.pack = G->p.pack;
	o.seed = dl_sim_seed(s);
	/* the reference's fifo: head of line, and base fifo's last-type quirk */
	o.head_of_line = o.fifo_last_type = G->p.compat;
	G->ses = dl_alloc_session_new(&G->prob, &o, err);
	if (!G->ses)
		goto fail;
	if (!G->p.scan_all) { /* gavel reads X only, and through the jobs' classes */
		dl_alloc_session_skip_objective(G->ses);
		dl_alloc_session_by_class(G->ses);
	}
	G->blocks_on = !G->p.scan_all && !G->p.scan_jobs && !G->p.compat && !G->p.pack &&
		       G->p.mechanism == DL_GAVEL_ROUNDS && G->nt <= 64;
	return G;
fail:
	destroy(G); /* everything in G is NULL or whole */
	return NULL;
}

static void destroy(void *st)
{
	struct gavel *G = st;
	dl_alloc_session_free(G->ses);
	dl_alloc_problem_free(&G->prob);
	for (size_t k = 0; k < G->npairs; k++) {
		free(G->pairs[k].x);
		free(G->pairs[k].fa);
		free(G->pairs[k].fb);
	}
	free(G->pairs);
	strmap_free(&G->pair_index);
	free(G->ptime);
	free(G->g);
	free(G->jt);
	free(G->def);
	free(G->x);
	free(G->slot_of_handle);
	free(G->view);
	free(G->adm);
	free(G->adm_jt);
	free(G->adm_def);
	free(G->adm_at);
	for (size_t b = 0; b < G->nblkcls * G->nt; b++) {
		free(G->blk[b].base);
		free(G->blk[b].news);
	}
	free(G->blk);
	free(G->cold_idx);
	free(G->mscratch);
	free(G->ctype);
	free(G->atype);
	free(G->tput);
	free(G->type_gpus);
	free(G->worker_time);
	free(G->ent);
	free(G->cand);
	free(G->ties);
	free(G->kth);
	free(G->ekeys);
	free(G->bcand);
	free(G->mout);
	free(G->tmp);
	free(G->wkeys);
	free(G->free_t);
	free(G->walk_order);
	free(G->walk_rank);
	free(G->walk_left);
	free(G->fill_free);
	free(G->fresh_list);
	free(G->fill_slots);
	free(G->wide);
	free(G->holding.w);
	free(G->occupying.w);
	free(G->touched.w);
	free(G->fresh.w);
	free(G->unadmitted.w);
	free(G->admitted.w);
	free(G);
}

/* ---- the blocks (struct block) ---- */

/* whether member m still stands for its job (cold, and its slot not since reused) */
static int member_valid(const struct gavel *G, const struct member *m)
{
	return G->cold_idx[m->slot] == m->idx;
}

/* whether a comes before b in a block's order (the walk's, at equal priority and X) */
static inline int member_first(const struct member *a, const struct member *b)
{
	if (a->def != b->def)
		return a->def > b->def;
	return a->idx < b->idx;
}

static int cmp_member(const void *a, const void *b)
{
	return member_first(a, b) ? -1 : member_first(b, a) ? 1 : 0;
}

/* swap places d and e of the dense list of admitted jobs */
static void adm_swap(struct gavel *G, size_t d, size_t e)
{
	if (d == e)
		return;
	struct adm a = G->adm[d];
	G->adm[d] = G->adm[e];
	G->adm[e] = a;
	G->adm_at[G->adm[d].slot] = (int)d;
	G->adm_at[G->adm[e].slot] = (int)e;
	for (size_t t = 0; t < G->nt; t++) {
		double *x = &G->adm_jt[d * G->nt + t], *y = &G->adm_jt[e * G->nt + t], v = *x;
		*x = *y;
		*y = v;
		x = &G->adm_def[d * G->nt + t];
		y = &G->adm_def[e * G->nt + t];
		v = *x;
		*x = *y;
		*y = v;
	}
}

/* the admitted job in slot k is hot: among the first nhot of the dense list */
static void hot_add(struct gavel *G, size_t k)
{
	adm_swap(G, (size_t)G->adm_at[k], G->nhot++);
}

/* the hot job in slot k is no longer: the first place after the hot ones */
static void hot_del(struct gavel *G, size_t k)
{
	adm_swap(G, (size_t)G->adm_at[k], --G->nhot);
}

/* the cold job in slot k leaves its blocks (it ran, or is gone): read as gone from now on */
static void blocks_leave(struct gavel *G, size_t k)
{
	struct gj *g = &G->g[k];
	for (size_t t = 0; t < G->nt; t++)
		if (g->runs >> t & 1)
			G->blk[(size_t)g->cls * G->nt + t].live--;
	g->cold = 0;
	G->cold_idx[k] = UINT32_MAX;
}

/* the job in slot k was just admitted: into its class's blocks if it can be, else hot */
static void blocks_admit(struct gavel *G, size_t k)
{
	struct gj *g = &G->g[k];
	double half = G->p.round / 2;
	G->nbig += g->gpus > NGROUPS;
	g->cold = 0;
	int cold = g->cls >= 0;
	for (size_t t = 0; t < G->nt && cold; t++)
		cold = G->jt[k * G->nt + t] == half && G->def[k * G->nt + t] == 0;
	if (g->cls >= 0 && (size_t)g->cls >= G->nblkcls) {
		size_t n = G->nblkcls ? 2 * G->nblkcls : 16;
		while (n <= (size_t)g->cls)
			n *= 2;
		G->blk = xreallocarray(G->blk, n * G->nt, sizeof(*G->blk));
		memset(G->blk + G->nblkcls * G->nt, 0, (n - G->nblkcls) * G->nt * sizeof(*G->blk));
		G->nblkcls = n;
	}
	/* those admitted since the last reset are kept in job order: one out of it is hot */
	for (size_t t = 0; t < G->nt && cold; t++) {
		const struct block *b = &G->blk[(size_t)g->cls * G->nt + t];
		cold = !(g->runs >> t & 1) || !b->nnews || b->news[b->nnews - 1].idx < g->idx;
	}
	if (!cold) {
		hot_add(G, k);
		return;
	}
	for (size_t t = 0; t < G->nt; t++) {
		if (!(g->runs >> t & 1))
			continue;
		struct block *b = &G->blk[(size_t)g->cls * G->nt + t];
		DL_GROW(b->news, b->nnews + 1, b->anews);
		b->news[b->nnews++] = (struct member){G->def[k * G->nt + t], (int)k, g->idx};
		b->live++;
		b->gpus = g->gpus;
	}
	g->cold = 1;
	G->cold_idx[k] = g->idx;
}

/* the admitted job in slot k completes */
static void blocks_remove(struct gavel *G, size_t k)
{
	struct gj *g = &G->g[k];
	G->nbig -= g->gpus > NGROUPS;
	if (g->cold)
		blocks_leave(G, k);
	else
		hot_del(G, k);
}

/*
 * the first lim (at most b->live) of block b's members in its order, in
 * G->mout: the sorted ones merged with those admitted since, gone ones
 * skipped (at the front of the sorted ones, for good)
 */
static struct member *block_first(struct gavel *G, struct block *b, size_t lim)
{
	if (lim > b->live)
		lim = b->live;
	DL_GROW(G->mout, lim + 1, G->amout);
	while (b->head < b->nbase && !member_valid(G, &b->base[b->head]))
		b->head++;
	size_t i = b->head, j = 0;
	for (size_t n = 0; n < lim; n++) {
		while (i < b->nbase && !member_valid(G, &b->base[i]))
			i++;
		while (j < b->nnews && !member_valid(G, &b->news[j]))
			j++;
		if (i < b->nbase && (j >= b->nnews || member_first(&b->base[i], &b->news[j])))
			G->mout[n] = b->base[i++];
		else if (j < b->nnews)
			G->mout[n] = b->news[j++];
	}
	return G->mout;
}

/* sort a[0..n) by member_first: insertion (a few new ties in a sorted run), else qsort */
static void members_sort(struct member *a, size_t n)
{
	size_t moves = 0;
	for (size_t i = 1; i < n; i++) {
		struct member m = a[i];
		size_t j = i;
		while (j > 0 && member_first(&m, &a[j - 1])) {
			a[j] = a[j - 1];
			j--;
			if (++moves > 4 * n + 64) {
				a[j] = m;
				qsort(a, n, sizeof(*a), cmp_member);
				return;
			}
		}
		a[j] = m;
	}
}

/*
 * a number (not NaN) as a key whose unsigned order is highest first, -0 as
 * 0: member_first's order of deficits, entry_first's of priorities
 */
static uint64_t desc_key(double d)
{
	return ~dl_rsort_key(d == 0 ? 0 : d);
}

static double desc_key_value(uint64_t k)
{
	return dl_rsort_key_value(~k);
}

/* sort a[0..n) by member_first (a total order: the same array as any sort) */
DL_MERGE_SORT(members_msort, struct member, member_first)

/*
 * sort a[0..n) by member_first, *tmp its scratch: a few by insertion, some
 * by merging, many by job order, then stably by deficit (two radix sorts:
 * no comparisons; the deficit's key stands in its place meanwhile; a
 * deficit of -0 comes back as 0, which every comparison takes for the same)
 */
static void members_rsort(struct member *a, size_t n, struct member **tmp, size_t *atmp)
{
	if (n < 32) {
		members_sort(a, n);
		return;
	}
	if (n < 1024) {
		members_msort(a, n, tmp, atmp);
		return;
	}
	DL_GROW(*tmp, n, *atmp);
	struct member *r = dl_rsort(a, *tmp, n, sizeof(*a), offsetof(struct member, slot), 4);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = desc_key(r[i].def);
		memcpy(&r[i].def, &k, sizeof(k));
	}
	r = dl_rsort(r, r == a ? *tmp : a, n, sizeof(*a), offsetof(struct member, def), 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &r[i].def, sizeof(k));
		r[i].def = desc_key_value(k);
	}
	if (r != a)
		memcpy(a, r, n * sizeof(*a));
}

/* the blocks after a reset: every admitted job cold again, each block sorted again */
static void blocks_reset(struct gavel *G)
{
	size_t nb = G->nblkcls * G->nt;
	/*
	 * A block's sorted members all had X of the class added to their
	 * deficits, times the same seconds (their time received was the
	 * initial one): a monotone map of the deficits, so their order holds
	 * but for new ties, which fall to job order
	 */
	for (size_t e = 0; e < nb; e++) {
		struct block *b = &G->blk[e];
		size_t t = e % G->nt, n = 0;
		for (size_t i = b->head; i < b->nbase; i++) {
			struct member m = b->base[i];
			if (!member_valid(G, &m))
				continue;
			m.def = G->def[(size_t)m.slot * G->nt + t];
			b->base[n++] = m;
		}
		members_sort(b->base, n);
		b->head = 0;
		b->nbase = n;
		size_t nn = 0; /* those admitted since, and below the jobs that ran, join them */
		for (size_t j = 0; j < b->nnews; j++) {
			struct member m = b->news[j];
			if (!member_valid(G, &m))
				continue;
			m.def = G->def[(size_t)m.slot * G->nt + t];
			b->news[nn++] = m;
		}
		b->nnews = b->nkept = nn;
	}
	size_t out = 0;
	for (size_t h = 0; h < G->nhot; h++) {
		const struct adm ad = G->adm[h];
		size_t k = (size_t)ad.slot;
		/*
		 * no class (or no block yet), or running (most run on, and
		 * would leave at the next boundary): stays hot, its priority
		 * its own, which is right whatever its time received
		 */
		if (ad.cls < 0 || (size_t)ad.cls >= G->nblkcls || set_has(&G->holding, k)) {
			adm_swap(G, h, out++);
			continue;
		}
		for (size_t t = 0; t < G->nt; t++) {
			if (!(ad.runs >> t & 1))
				continue;
			struct block *b = &G->blk[(size_t)ad.cls * G->nt + t];
			DL_GROW(b->news, b->nnews + 1, b->anews);
			b->news[b->nnews++] =
				(struct member){G->adm_def[h * G->nt + t], (int)k, ad.idx};
			b->gpus = ad.gpus;
		}
		G->g[k].cold = 1;
		G->cold_idx[k] = ad.idx;
	}
	G->nhot = out;
	for (size_t e = 0; e < nb; e++) {
		struct block *b = &G->blk[e];
		if (b->nnews) {
			/*
			 * Those admitted since (in job order, with one deficit
			 * for those in the last solve and 0 for the others: in
			 * order already, most often) merged with the jobs that
			 * ran, then the sorted members with them, from the back
			 * (the newcomers' deficits are low: most go at the end)
			 */
			size_t nk = b->nkept, nn = b->nnews;
			DL_GROW(G->mscratch, nn + 1, G->amscratch);
			members_sort(b->news, nk);
			members_rsort(b->news + nk, nn - nk, &G->mscratch, &G->amscratch);
			struct member *nw = G->mscratch;
			for (size_t i = 0, r = nk, k = 0; k < nn; k++)
				nw[k] = r >= nn || (i < nk &&
						    member_first(&b->news[i], &b->news[r]))
						? b->news[i++]
						: b->news[r++];
			size_t n = b->nbase + nn, i = b->nbase, j = nn;
			DL_GROW(b->base, n + 1, b->abase);
			for (size_t k = n; j > 0;)
				b->base[--k] = i > 0 && member_first(&nw[j - 1], &b->base[i - 1])
						       ? b->base[--i]
						       : nw[--j];
			b->nbase = n;
			b->nnews = 0;
		}
		b->live = b->nbase;
	}
}

/* ---- the allocation ---- */

/* add j to the session (0), or leave it out with a note (-1: it never runs) */
static int admit(struct gavel *G, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gj *g = &G->g[j->slot];
	double ref = dl_sim_job_ref_tput(s, j);
	for (size_t k = 0; k < G->na; k++) /* 0 on types other than its gpu_type */
		G->tput[k] = j->type == DL_ANY_TYPE || j->type == G->ctype[k]
				     ? dl_sim_job_speed(s, j, G->ctype[k]) * ref
				     : 0;
	dl_sim_sync(s, j);
	struct dl_alloc_job aj = {0};
	aj.id = (char *)j->id;
	aj.gpus = j->gpus;
	aj.weight = dl_sim_job_weight(s, j);
	aj.tput = G->tput;
	aj.steps = j->work_left / DL_TICKS_PER_SECOND * ref;
	aj.steps_done = (double)(j->duration - j->work_left) / DL_TICKS_PER_SECOND * ref;
	if (aj.steps_done < 0)
		aj.steps_done = 0;
	aj.elapsed = secs(dl_sim_now(s) - j->submit);
	aj.entity = -1;
	const char *user = dl_sim_job_user(s, j);
	if (dl_alloc_policy_info(G->policy)->entities && user) /* users are the entities */
		aj.entity = dl_alloc_session_entity(G->ses, user);
	aj.klass = -1;
	const char *model = dl_sim_job_model(s, j);
	if (G->p.pack && model)
		aj.klass = dl_alloc_model_class(&G->prob, model, j->gpus);
	aj.count = 1;
	aj.iso_done = -1;
	struct dl_err err = DL_ERR_INIT;
	int64_t h = dl_alloc_session_add(G->ses, &aj, &err);
	if (h < 0) {
		set_add(&G->unadmitted, j->slot); /* tried again at every boundary */
		dl_sim_note(s, j, "unallocated", err.msg);
		return -1;
	}
	if ((size_t)h >= G->nhandles) {
		size_t n = G->nhandles ? 2 * G->nhandles : 256;
		while (n <= (size_t)h)
			n *= 2;
		G->slot_of_handle = xreallocarray(G->slot_of_handle, n, sizeof(int));
		G->nhandles = n;
	}
	G->slot_of_handle[h] = (int)j->slot;
	G->next_handle = h + 1;
	g->cls = dl_alloc_session_class(G->ses, h);
	if (!G->p.scan_all && g->cls < 0) { /* (by class, a solve reads no job's X) */
		DL_GROW(G->view, G->nview + 1, G->aview);
		G->view[G->nview++] = (int)j->slot;
	}
	g->handle = h;
	DL_GROW(G->adm, G->nadm + 1, G->aadm);
	G->adm_at[j->slot] = (int)G->nadm;
	DL_GROW(G->adm_jt, (G->nadm + 1) * G->nt, G->aadm_jt);
	DL_GROW(G->adm_def, (G->nadm + 1) * G->nt, G->aadm_def);
	memcpy(&G->adm_jt[G->nadm * G->nt], &G->jt[(size_t)j->slot * G->nt],
	       G->nt * sizeof(double));
	memcpy(&G->adm_def[G->nadm * G->nt], &G->def[(size_t)j->slot * G->nt],
	       G->nt * sizeof(double));
	G->adm[G->nadm++] = (struct adm){(int)j->slot, g->gpus, g->idx, h, g->runs, g->cls};
	set_del(&G->unadmitted, j->slot);
	set_add(&G->admitted, j->slot);
	if (G->blocks_on)
		blocks_admit(G, j->slot);
	G->need_solve = 1;
	return 0;
}

/* the time record of the pair of jobs (by index) a, b */
static size_t pair_time(struct gavel *G, size_t ia, size_t ib)
{
	char key[48];
	int n = snprintf(key, sizeof(key), "%zu/%zu", ia, ib);
	int64_t *v = strmap_getn(&G->pair_index, key, (size_t)n);
	if (v)
		return (size_t)*v;
	DL_GROW(G->ptime, (G->nptime + 1) * G->nt, G->aptime);
	for (size_t t = 0; t < G->nt; t++) /* as a job's */
		G->ptime[G->nptime * G->nt + t] = G->p.round / 2;
	strmap_putn(&G->pair_index, key, (size_t)n, (int64_t)G->nptime);
	return G->nptime++;
}

static void clear_pairs(struct gavel *G)
{
	for (size_t k = 0; k < G->npairs; k++) {
		free(G->pairs[k].x);
		free(G->pairs[k].fa);
		free(G->pairs[k].fb);
	}
	G->npairs = 0;
}

/* re-solve X for the admitted jobs (their progress first) */
static void solve(struct gavel *G, struct dl_sim *s)
{
	if (!G->need_solve)
		return;
	G->need_solve = 0;
	/* (the view by index only where read: reading it compacts it, alloc.h) */
	const struct dl_alloc_problem *vp = G->progress ? dl_alloc_session_problem(G->ses) : NULL;
	dl_tick now = dl_sim_now(s);
	for (size_t i = 0; G->progress && i < vp->njobs; i++) {
		int64_t h = dl_alloc_session_handle(G->ses, i);
		struct dl_sim_job *j = dl_sim_slot_job(s, (size_t)G->slot_of_handle[h]);
		dl_sim_sync(s, j);
		double ref = dl_sim_job_ref_tput(s, j);
		double left = j->work_left / DL_TICKS_PER_SECOND * ref;
		double done = (double)(j->duration - j->work_left) / DL_TICKS_PER_SECOND * ref;
		dl_alloc_session_progress(G->ses, h, left, done > 0 ? done : 0,
					  secs(now - j->submit));
	}
	struct dl_alloc_result res;
	struct dl_err err = DL_ERR_INIT;
	if (dl_alloc_session_solve(G->ses, &res, &err) < 0) {
		/* kept for the end of the run (the engine reports it): no allocation now */
		if (!G->solve_failed) {
			char tx[DL_NUM_BUF];
			struct strbuf b = STRBUF_INIT;
			dl_fmt_micros(tx, dl_sim_now(s));
			sb_addf(&b,
				"gavel: the allocation failed %s s into the run (the last one is kept): %s",
				tx, err.msg);
			dl_sim_policy_warning(s, b.buf);
			sb_release(&b);
		}
		G->solve_failed = 1;
		return;
	}
	vp = res.x || res.npairs ? dl_alloc_session_problem(G->ses) : NULL;
	size_t m = vp ? vp->njobs : 0;
	G->solved_below = G->next_handle; /* every job admitted so far was in it */
	G->by_class = !res.x;
	G->cx = dl_alloc_session_class_x(G->ses);
	for (size_t i = 0; i < m && res.x; i++) { /* every job's: a hot loop */
		int slot = !G->p.scan_all && G->nview == m
				   ? G->view[i]
				   : G->slot_of_handle[dl_alloc_session_handle(G->ses, i)];
		double *x = &G->x[(size_t)slot * G->nt];
		const double *rx = &res.x[i * G->na];
		if (G->same_types) {
			for (size_t t = 0; t < G->nt; t++)
				x[t] = rx[t];
		} else {
			for (size_t t = 0; t < G->nt; t++)
				x[t] = 0;
			for (size_t k = 0; k < G->na; k++)
				x[G->ctype[k]] = rx[k];
		}
		if (G->p.compat) /* only compat reads it (a store to every job's record) */
			G->g[slot].allocated = 1;
	}
	clear_pairs(G);
	for (size_t q = 0; q < res.npairs; q++) {
		const struct dl_alloc_pair *rp = &res.pairs[q];
		int any = 0;
		for (size_t k = 0; k < G->na; k++)
			any |= res.px[q * G->na + k] > 0;
		if (!any)
			continue;
		DL_GROW(G->pairs, G->npairs + 1, G->apairs);
		struct gpair *P = &G->pairs[G->npairs++];
		P->a = G->slot_of_handle[dl_alloc_session_handle(G->ses, (size_t)rp->a)];
		P->b = G->slot_of_handle[dl_alloc_session_handle(G->ses, (size_t)rp->b)];
		P->x = xcalloc(G->nt + 1, sizeof(double));
		P->fa = xcalloc(G->nt + 1, sizeof(double));
		P->fb = xcalloc(G->nt + 1, sizeof(double));
		struct dl_sim_job *ja = dl_sim_slot_job(s, (size_t)P->a),
				  *jb = dl_sim_slot_job(s, (size_t)P->b);
		for (size_t k = 0; k < G->na; k++) {
			int t = G->ctype[k];
			double ta = vp->jobs[rp->a].tput[k], tb = vp->jobs[rp->b].tput[k];
			P->x[t] = res.px[q * G->na + k];
			/* the engine's share: packed over alone on that type */
			P->fa[t] = ta > 0 ? rp->tput_a[k] / ta : 0;
			P->fb[t] = tb > 0 ? rp->tput_b[k] / tb : 0;
			if (!(P->fa[t] > 0 && P->fb[t] > 0))
				P->x[t] = 0;
		}
		P->ptime = pair_time(G, ja->idx, jb->idx);
	}
	dl_alloc_result_free(&res);
}

/* whether the job in slot k was in the last allocation solved (compat: else it waits for one) */
static int allocated(const struct gavel *G, size_t k)
{
	const struct gj *g = &G->g[k];
	return g->allocated || (g->handle >= 0 && g->handle < G->solved_below);
}

/* X on cluster type t of the job in slot k, of that handle and class: its class's, or its own */
static double xof_job(const struct gavel *G, size_t k, int64_t handle, long cls, size_t t)
{
	if (!G->by_class)
		return G->x[k * G->nt + t];
	int a = G->atype[t];
	if (handle < 0 || handle >= G->solved_below || a < 0)
		return 0;
	return G->cx[(size_t)cls * G->na + (size_t)a];
}

/* X of the job in slot k on cluster type t: its class's, or its own (0: none yet) */
static double xof(const struct gavel *G, size_t k, size_t t)
{
	const struct gj *g = &G->g[k];
	return xof_job(G, k, g->handle, g->cls, t);
}

/* the counts simulate -v prints */
static void summarise(struct gavel *G, struct dl_sim *s)
{
	const struct dl_alloc_session_stats *st = dl_alloc_session_stats(G->ses);
	char b[200];
	snprintf(b, sizeof(b),
		 "gavel: %ld allocations solved (%ld warm), %ld LP solves, %.3f ms an allocation; "
		 "%llu rounds, %llu lease extensions",
		 st->solves, st->warm, st->lp_solves,
		 st->solves ? 1e3 * st->lp_seconds / (double)st->solves : 0.0,
		 (unsigned long long)G->round_no, (unsigned long long)G->extensions);
	dl_sim_policy_summary(s, b);
}

/* ---- rounds ---- */

/* count the time running jobs received on their type since it was last counted */
static void account(struct gavel *G, struct dl_sim *s, size_t k)
{
	struct gj *g = &G->g[k];
	if (g->cur_type < 0)
		return;
	double dt = secs(dl_sim_now(s) - g->from);
	g->from = dl_sim_now(s);
	if (g->credit >= 0) { /* compat: the time the reference counts, not the round's */
		dt = g->credit;
		g->credit = 0;
	}
	if (dt <= 0)
		return;
	if (g->cur_partner >= 0) {
		if (g->lead) { /* the pair's record and the worker time, once */
			struct dl_sim_job *j = dl_sim_slot_job(s, k),
					  *o = dl_sim_slot_job(s, (size_t)g->cur_partner);
			size_t r = pair_time(G, j->idx < o->idx ? j->idx : o->idx,
					     j->idx < o->idx ? o->idx : j->idx);
			G->ptime[r * G->nt + (size_t)g->cur_type] += dt;
			G->worker_time[g->cur_type] += dt;
		}
		return;
	}
	double v = G->jt[k * G->nt + (size_t)g->cur_type] += dt;
	if (g->cold && v != G->p.round / 2) { /* its priority is its own until the next reset */
		blocks_leave(G, k);
		hot_add(G, k);
	}
	/* (a job holding GPUs is admitted) */
	G->adm_jt[(size_t)G->adm_at[k] * G->nt + (size_t)g->cur_type] = v;
	G->worker_time[g->cur_type] += dt;
}

/*
 * Whether the reset is due: --reset-interval seconds since the last one, or
 * no reset yet. With --compat gavel also, as in the reference, while the last
 * reset was at trace time 0 (its "no reset yet") and when forced (an idle
 * cluster with every job arrived).
 */
static int reset_due(const struct gavel *G, struct dl_sim *s)
{
	dl_tick now = dl_sim_now(s);
	if (now - G->last_reset >= G->reset_len || !G->solved_once)
		return 1;
	return G->p.compat && (G->force_reset || G->last_reset + G->origin == 0);
}

/* Gavel's _reset_time_run_so_far, when due */
static void maybe_reset(struct gavel *G, struct dl_sim *s)
{
	dl_tick now = dl_sim_now(s);
	if (!reset_due(G, s))
		return;
	G->force_reset = 0;
	double elapsed = secs(now - G->last_reset), half = G->p.round / 2;
	G->last_reset = now;
	memset(G->worker_time, 0, G->nt * sizeof(double));
	size_t n = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	/*
	 * the dense list's order, not the slots': each job's values are its
	 * own, and the worker time adds the same half round for every job, so
	 * its sums are the same in any order
	 */
	for (size_t d = 0; d < G->nadm && !G->p.scan_all; d++) {
		const struct adm *ad = &G->adm[d];
		size_t k = (size_t)ad->slot;
		for (size_t t = 0; t < G->nt; t++) {
			size_t i = k * G->nt + t, e = d * G->nt + t;
			/* (as +=: the deficit plus the whole change) */
			double v =
				G->adm_def[e] + (xof_job(G, k, ad->handle, ad->cls, t) * elapsed -
						 (G->adm_jt[e] - half));
			G->def[i] = G->adm_def[e] = v;
			G->jt[i] = G->adm_jt[e] = half;
			G->worker_time[t] += half;
		}
	}
	for (size_t k = set_next(G, &G->admitted, 0, n); k < n && G->p.scan_all;
	     k = set_after(G, &G->admitted, k, n)) {
		if (!G->g[k].live || G->g[k].handle < 0)
			continue;
		size_t d = (size_t)G->adm_at[k] * G->nt;
		for (size_t t = 0; t < G->nt; t++) {
			size_t i = k * G->nt + t;
			G->def[i] += xof(G, k, t) * elapsed - (G->jt[i] - half);
			G->jt[i] = half;
			G->adm_def[d + t] = G->def[i];
			G->adm_jt[d + t] = half;
			G->worker_time[t] += half;
		}
	}
	for (size_t r = 0; r < G->nptime * G->nt; r++)
		G->ptime[r] = half;
	if (G->blocks_on)
		blocks_reset(G);
}

/*
 * Re-solve after a change of the job set. The reference resets the time
 * received only where it re-solves, and (--compat gavel) re-solves only once
 * --reset-interval has passed since the last reset: jobs admitted in between
 * have no allocation (priority 0) until then.
 */
static void resolve(struct gavel *G, struct dl_sim *s)
{
	if (!G->need_solve || (G->p.compat && !reset_due(G, s)))
		return;
	maybe_reset(G, s);
	solve(G, s);
	G->solved_once = 1;
}

/* X / fraction of the time received (X * 1e9 while no worker time; 0 where X = 0) */
static double priority(const struct gavel *G, double x, double received, int t)
{
	if (!(x > 0))
		return 0;
	double wt = G->worker_time[t];
	if (!(received > 0) || !(wt > 0))
		return x * 1e9;
	return x / (received / wt);
}

/*
 * The walk's order of entries (step 5): by the rank of the type, then
 * priority, deficit and X, highest first, then job order, then pair. A heap
 * holds one type's entries, so the type is not compared.
 */
static inline int entry_first(const struct entry *x, const struct entry *y)
{
	if (x->prio != y->prio)
		return x->prio > y->prio;
	if (x->deficit != y->deficit)
		return x->deficit > y->deficit;
	if (x->x != y->x)
		return x->x > y->x;
	if (x->job != y->job)
		return x->job < y->job;
	return x->pair < y->pair;
}
DL_HEAP_DEFINE(entries, struct entry, entry_first)

static void push_entry(struct gavel *G, size_t *n, struct entry e)
{
	DL_GROW(G->ent, *n + 1, G->aent);
	G->ent[(*n)++] = e;
}

/* job order of an entry's job(s): the trace's */
static int eorder(const struct gavel *G, int slot)
{
	return (int)G->g[slot].idx;
}

/* can the job in slot k run on type t (GPUs there, its throughput > 0, its gpu_type)? */
static int may_run(const struct gavel *G, struct dl_sim *s, size_t k, size_t t)
{
	if (G->nt <= 64)
		return (int)(G->g[k].runs >> t & 1);
	const struct dl_sim_job *j = dl_sim_slot_job(s, k);
	return G->type_gpus[t] && dl_sim_job_speed(s, j, (int)t) > 0 &&
	       (j->type == DL_ANY_TYPE || j->type == (int)t);
}

static void walk_entry(struct gavel *G, struct dl_sim *s, const struct entry *E, int t, int *left);
static void walk_candidates(struct gavel *G, struct dl_sim *s, const int *order, int blocks);

/* the walk of step 5: fills g->assigned, partner, lead */
static void assign(struct gavel *G, struct dl_sim *s)
{
	size_t nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	int *rank = G->walk_rank, *order = G->walk_order;
	memcpy(order, G->order, G->nt * sizeof(int));
	if (G->p.compat && G->agnostic) /* the reference's random.shuffle of worker types */
		for (size_t k = G->nt; k > 1; k--) {
			size_t r = (size_t)dl_rng_below(&G->rng, k);
			int tmp = order[k - 1];
			order[k - 1] = order[r];
			order[r] = tmp;
		}
	for (size_t k = 0; k < G->nt; k++)
		rank[order[k]] = (int)k;
	for (size_t k = set_next(G, &G->touched, 0, nslots); k < nslots;
	     k = set_after(G, &G->touched, k, nslots)) {
		struct gj *g = &G->g[k];
		if (!g->live)
			continue;
		g->assigned = -1;
		g->partner = -1;
		g->lead = 0;
		g->hold = 0;
		set_del(&G->touched, k);
	}
	G->order_stale = 1;
	G->nstarters = 0;
	G->starters_ok = 0;
	if (!G->p.scan_all && !G->npairs) {
		DL_GROW(G->wide, nslots + 1, G->awide);
		G->starters_ok = !G->p.pack; /* (packed, a partner change preempts too) */
		/* the blocks stand for their jobs while every admitted job is by class, solved */
		int blocks = G->blocks_on && G->by_class && G->cx &&
			     G->solved_below >= G->next_handle && !G->nbig;
		walk_candidates(G, s, order, blocks);
		return;
	}
	size_t n = 0;
	for (size_t k = set_next(G, &G->admitted, 0, nslots); k < nslots;
	     k = set_after(G, &G->admitted, k, nslots)) {
		struct gj *g = &G->g[k];
		if (!g->live || g->handle < 0)
			continue;
		/*
		 * compat: a job not in the last allocation solved is walked at
		 * priority 0 and takes GPUs there, but the reference never
		 * starts a job it has no allocation for: they stay idle
		 */
		int hold = G->p.compat && !allocated(G, k);
		for (size_t t = 0; t < G->nt; t++) {
			if (!may_run(G, s, k, t))
				continue;
			size_t i = k * G->nt + t;
			double x = xof(G, k, t), pr = priority(G, x, G->jt[i], (int)t);
			if (G->fifo && !(pr > 0))
				continue;
			push_entry(G, &n,
				   (struct entry){pr, G->def[i], x, (int)g->idx, -1, rank[t],
						  g->gpus, hold, (int)k});
		}
	}
	for (size_t q = 0; q < G->npairs; q++) {
		const struct gpair *P = &G->pairs[q];
		for (size_t t = 0; t < G->nt; t++) {
			if (!(P->x[t] > 0))
				continue;
			double pr = priority(G, P->x[t], G->ptime[P->ptime * G->nt + t], (int)t);
			int oa = eorder(G, P->a), ob = eorder(G, P->b);
			push_entry(G, &n,
				   (struct entry){pr, 0, P->x[t], oa < ob ? oa : ob, (int)q,
						  rank[t], G->g[P->a].gpus, 0, -1});
		}
	}
	/*
	 * The walk in the order of entry_first, type by type; a heap per type
	 * (O(n + taken log n)) instead of sorting every entry: a type's walk
	 * stops once no entry left fits in the GPUs it has left.
	 */
	size_t *start = xcalloc(G->nt + 2, sizeof(size_t));
	for (size_t e = 0; e < n; e++)
		start[G->ent[e].type + 1]++;
	for (size_t r = 0; r < G->nt; r++)
		start[r + 1] += start[r];
	DL_GROW(G->ent, 2 * n + 1, G->aent);
	struct entry *by = G->ent + n;
	size_t *fill_at = xcalloc(G->nt + 1, sizeof(size_t));
	memcpy(fill_at, start, G->nt * sizeof(size_t));
	for (size_t e = 0; e < n; e++)
		by[fill_at[G->ent[e].type]++] = G->ent[e];
	free(fill_at);
	int *left = xcalloc(G->nt + 1, sizeof(int));
	memcpy(left, G->type_gpus, G->nt * sizeof(int));
	for (size_t r = 0; r < G->nt; r++) {
		struct entry *h = by + start[r];
		size_t hn = start[r + 1] - start[r];
		int t = order[r], least = INT32_MAX;
		for (size_t e = 0; e < hn; e++)
			least = h[e].gpus < least ? h[e].gpus : least;
		entries_heapify(h, hn);
		while (hn && left[t] >= least) {
			struct entry top = entries_pop(h, &hn);
			walk_entry(G, s, &top, t, left);
		}
	}
	free(start);
	free(left);
}

/* a job's priority on the type being walked, before the walk keeps it as a candidate */
struct cand {
	double prio, x, deficit;
	int slot, group; /* group: of its gpus (walk_candidates) */
	uint32_t idx;	 /* the job's */
	int gpus;
};

/* a block's priority on the type being walked */
struct bcand {
	double prio, x;
	size_t cls;
	int group;
};

/* a job at the cut's priority: the rest of its entry's keys (its type and priority are the cut's)
 */
struct tie {
	double deficit, x;
	uint32_t idx;
	int slot;
};

/* whether tie a comes before tie b in the walk's order (entry_first on the keys left) */
static inline int tie_first(const struct tie *a, const struct tie *b)
{
	if (a->deficit != b->deficit)
		return a->deficit > b->deficit;
	if (a->x != b->x)
		return a->x > b->x;
	return a->idx < b->idx;
}

/* reorder a[0..n) so that its first k (1 <= k <= n) are the first k in the walk's order */
static void first_ties(struct tie *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		/* the middle one as the pivot, at hi - 1; [lo, b) before it (distinct jobs) */
		struct tie p = a[lo + (hi - lo) / 2], tmp;
		a[lo + (hi - lo) / 2] = a[hi - 1];
		a[hi - 1] = p;
		size_t b = lo;
		for (size_t i = lo; i + 1 < hi; i++)
			if (tie_first(&a[i], &p)) {
				tmp = a[i];
				a[i] = a[b];
				a[b++] = tmp;
			}
		a[hi - 1] = a[b];
		a[b] = p;
		if (b + 1 == k)
			return;
		if (b + 1 > k)
			hi = b;
		else
			lo = b + 1;
	}
}

/* a priority and how many candidates have it (one job, or a block's members) */
struct wprio {
	double v;
	size_t w;
};

/*
 * the k-th largest of the values of a[0..n), each counted w times (1 <= k <=
 * their total; no NaN), reordering a
 */
static double kth_largest(struct wprio *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n, want = k; /* the want-th from the top of a[lo..hi) */
	for (;;) {
		if (hi - lo == 1)
			return a[lo].v;
		double p0 = a[lo].v, p1 = a[lo + (hi - lo) / 2].v, p2 = a[hi - 1].v, p;
		if (p0 < p1)
			p = p1 < p2 ? p1 : (p0 < p2 ? p2 : p0);
		else
			p = p0 < p2 ? p0 : (p1 < p2 ? p2 : p1);
		/* [lo, gt) > p, [gt, lt) == p, [lt, hi) < p; p is one of them: each pass shrinks */
		size_t i = lo, gt = lo, lt = hi, wgt = 0, weq = 0;
		while (i < lt) {
			struct wprio v = a[i];
			if (v.v > p) {
				wgt += v.w;
				a[i++] = a[gt];
				a[gt++] = v;
			} else if (v.v < p) {
				a[i] = a[--lt];
				a[lt] = v;
			} else {
				weq += v.w;
				i++;
			}
		}
		if (want <= wgt) {
			hi = gt;
		} else if (want <= wgt + weq) {
			return p;
		} else {
			want -= wgt + weq;
			lo = lt;
		}
	}
}

/*
 * an entry in the walk's order, compactly (24 bytes, not 48): the keys of
 * its priority and deficit decide but between equal ones (a block's
 * members share a priority; priorities and deficits are never NaN: X is
 * clipped to [0, 1], the times received are positive)
 */
struct ekey {
	uint64_t prio, deficit; /* desc_key of each */
	uint32_t e;		/* the entry's index */
	int gpus;
};

/* entry_first (with the type's entries h) */
static inline int ekey_first(const struct entry *h, const struct ekey *a, const struct ekey *b)
{
	if (a->prio != b->prio)
		return a->prio < b->prio;
	if (a->deficit != b->deficit)
		return a->deficit < b->deficit;
	const struct entry *x = &h[a->e], *y = &h[b->e];
	if (x->x != y->x)
		return x->x > y->x;
	if (x->job != y->job)
		return x->job < y->job;
	return x->pair < y->pair;
}

/*
 * Reorder the keys a[0..n) of entries of h, of jobs given no type yet, so
 * that a[0..b) is the longest start of the walk's order whose GPUs add up
 * to at most left, and return b: a selection by the order's keys, O(n)
 * expected, instead of a heap's pop for each entry taken.
 */
static size_t taken_prefix(const struct entry *h, struct ekey *a, size_t n, long left)
{
	size_t lo = 0, hi = n;
	long acc = 0; /* the GPUs of a[0..lo), each before every entry of a[lo..n) */
	while (lo < hi) {
		/* the middle one as the pivot, at hi - 1; [lo, b) before it */
		struct ekey p = a[lo + (hi - lo) / 2], tmp;
		a[lo + (hi - lo) / 2] = a[hi - 1];
		a[hi - 1] = p;
		size_t b = lo;
		long w = 0;
		for (size_t i = lo; i + 1 < hi; i++)
			if (ekey_first(h, &a[i], &p)) {
				w += a[i].gpus;
				tmp = a[i];
				a[i] = a[b];
				a[b++] = tmp;
			}
		a[hi - 1] = a[b];
		a[b] = p;
		if (acc + w > left) {
			hi = b;
		} else if (acc + w + p.gpus > left) {
			return b;
		} else {
			acc += w + p.gpus;
			lo = b + 1;
		}
	}
	return lo;
}

/* the group of jobs of gpus GPUs, a new one if none yet (gangs wider than NGROUPS: none, -1) */
static inline int group_for(int gpus, int *group_of, int *gv, size_t *ngv)
{
	int q = gpus <= NGROUPS ? group_of[gpus] : -1;
	if (q < 0 && gpus <= NGROUPS && *ngv < NGROUPS) {
		q = group_of[gpus] = (int)*ngv;
		gv[(*ngv)++] = gpus;
	}
	return q;
}

/*
 * The walk of step 5 without pairs, type by type, on the entries that can
 * be taken only. On type t, of the jobs of g GPUs a job is taken only while
 * the type has g GPUs left, and the jobs of g GPUs before it in the walk's
 * order were each taken (g GPUs), passed over for want of g GPUs (then so is
 * it), or passed over as given an earlier type. So only the first
 * left / g + (jobs of g GPUs given an earlier type) of them by the order can
 * be taken, and priority comes first in the order: the jobs of g GPUs below
 * that many-th priority are left out before the walk, which then orders
 * about a round's worth of jobs instead of every admitted job (jobs of equal
 * priority at the cut, common after a reset, are cut by the whole order).
 * The jobs taken, and so the round, are the same as the whole walk's.
 *
 * With blocks, a block (struct block) is one candidate of its class's
 * priority counted as many times as it has members: one above the cut gives
 * all its members, one at the cut only its first (room - above) in its
 * order, which holds every one of its members among the first ties.
 */
static void walk_candidates(struct gavel *G, struct dl_sim *s, const int *order, int blocks)
{
	int *left = G->walk_left;
	memcpy(left, G->type_gpus, G->nt * sizeof(int));
	int gv[NGROUPS]; /* the gpus of each group */
	/* its jobs on this type, given an earlier type, that can be taken on this type */
	size_t cnt[NGROUPS], given[NGROUPS], room[NGROUPS];
	double cut[NGROUPS]; /* least priority kept (room < cnt) */
	size_t ngv = 0, off[NGROUPS], nval[NGROUPS];
	int all = 0; /* too many sizes, or a priority not a number: every entry is a candidate */
	int group_of[NGROUPS + 1]; /* of gpus up to NGROUPS, -1: none yet */
	memset(given, 0, sizeof(given));
	for (size_t q = 0; q <= NGROUPS; q++)
		group_of[q] = -1;
	/* the jobs whose priority is their own: every admitted one, or those not in blocks */
	size_t njobs = blocks ? G->nhot : G->nadm;
	DL_GROW(G->cand, njobs + 1, G->acand);
	DL_GROW(G->kth, njobs + G->nblkcls + 1, G->akth);
	DL_GROW(G->bcand, G->nblkcls + 1, G->abcand);
	double half = G->p.round / 2;
	for (size_t r = 0; r < G->nt; r++) {
		int t = order[r];
		size_t n = 0, nbc = 0;
		/*
		 * every admitted job's priority, from the dense list, or of
		 * those not in blocks (a hot loop: its order does not matter,
		 * the candidates are ordered by their entries' keys)
		 */
		int a = G->atype[t];
		const double *cx = G->by_class && a >= 0 ? G->cx + a : NULL;
		memset(cnt, 0, sizeof(cnt));
		memset(nval, 0, sizeof(nval));
		for (size_t d = 0; d < njobs; d++) {
			struct adm ad = G->adm[d];
			size_t k = (size_t)ad.slot;
			if (G->nt <= 64 ? !(ad.runs >> t & 1) : !may_run(G, s, k, (size_t)t))
				continue;
			int64_t handle = ad.handle;
			long cls = ad.cls;
			int gpus = ad.gpus;
			/* xof() */
			double x = !G->by_class			    ? G->x[k * G->nt + (size_t)t]
				   : cx && handle < G->solved_below ? cx[(size_t)cls * G->na]
								    : 0;
			size_t i = d * G->nt + (size_t)t;
			double pr = priority(G, x, G->adm_jt[i], t);
			if (G->fifo && !(pr > 0))
				continue;
			int q = group_for(gpus, group_of, gv, &ngv);
			all |= q < 0 || pr != pr; /* (pr is never NaN) */
			cnt[q < 0 ? 0 : q]++;
			nval[q < 0 ? 0 : q]++;
			G->cand[n++] = (struct cand){pr, x, G->adm_def[i], (int)k, q, ad.idx, gpus};
		}
		/* the blocks: a class's cold jobs, one priority */
		for (size_t c = 0; blocks && c < G->nblkcls; c++) {
			const struct block *b = &G->blk[c * G->nt + (size_t)t];
			if (!b->live)
				continue;
			double x = cx ? cx[c * G->na] : 0, pr = priority(G, x, half, t);
			if (G->fifo && !(pr > 0))
				continue;
			int q = group_for(b->gpus, group_of, gv, &ngv);
			all |= q < 0 || pr != pr;
			cnt[q < 0 ? 0 : q] += b->live;
			nval[q < 0 ? 0 : q]++;
			G->bcand[nbc++] = (struct bcand){pr, x, c, q};
		}
		/* how many of each group can be taken; the groups' priorities where more are */
		size_t m = 0, mv = 0, tfill[NGROUPS], tstart[NGROUPS], above[NGROUPS];
		for (size_t q = 0; q < ngv && !all; q++) {
			room[q] = (size_t)(left[t] / gv[q]) + given[q];
			tfill[q] = tstart[q] = m;
			off[q] = mv;
			int cuts = cnt[q] > room[q] && room[q];
			m += cuts ? cnt[q] : 0;
			mv += cuts ? nval[q] : 0;
		}
		for (size_t e = 0; e < n && !all && m; e++) {
			size_t q = (size_t)G->cand[e].group;
			if (cnt[q] > room[q] && room[q])
				G->kth[off[q]++] = (struct wprio){G->cand[e].prio, 1};
		}
		for (size_t e = 0; e < nbc && !all && m; e++) {
			const struct bcand *bc = &G->bcand[e];
			size_t q = (size_t)bc->group;
			if (cnt[q] > room[q] && room[q])
				G->kth[off[q]++] = (struct wprio){
					bc->prio, G->blk[bc->cls * G->nt + (size_t)t].live};
		}
		for (size_t q = 0; q < ngv && !all; q++)
			if (cnt[q] > room[q] && room[q])
				cut[q] = kth_largest(G->kth + off[q] - nval[q], nval[q], room[q]);
		/*
		 * the candidates' entries, to be walked in the walk's order:
		 * those above the cut, and of the jobs at it (ties, kept in the
		 * group's part of G->ties) the first by the rest of the order,
		 * as many as the group has room for
		 */
		size_t hn = 0, nb = 0;
		long want = 0; /* GPUs the candidates ask for */
		/* entries at most: the jobs, and the blocks' members taken whole */
		size_t most = n;
		for (size_t e = 0; e < nbc; e++)
			most += G->blk[G->bcand[e].cls * G->nt + (size_t)t].live;
		DL_GROW(G->ent, most + 1, G->aent);
		DL_GROW(G->ties, m + 1, G->aties);
		memset(above, 0, sizeof(above));
		for (size_t e = 0; e < n; e++) {
			const struct cand *c = &G->cand[e];
			if (!all) {
				size_t q = (size_t)c->group;
				if (!room[q])
					continue;
				if (cnt[q] > room[q]) {
					if (!(c->prio >= cut[q]))
						continue;
					if (c->prio == cut[q]) {
						G->ties[tfill[q]++] = (struct tie){c->deficit, c->x,
										   c->idx, c->slot};
						continue;
					}
					above[q]++;
				}
			}
			int hold = G->p.compat && !allocated(G, (size_t)c->slot);
			G->ent[hn++] = (struct entry){c->prio, c->deficit, c->x, (int)c->idx, -1,
						      (int)r,  c->gpus,	   hold, c->slot};
		}
		/* the blocks above the cut whole (blocks are never compat: no hold) */
		for (size_t e = 0; e < nbc; e++) {
			struct bcand *bc = &G->bcand[e];
			struct block *b = &G->blk[bc->cls * G->nt + (size_t)t];
			size_t q = (size_t)bc->group;
			if (!all && !room[q])
				continue;
			if (!all && cnt[q] > room[q]) {
				if (!(bc->prio >= cut[q]))
					continue;
				if (bc->prio == cut[q]) { /* its first members, below */
					G->bcand[nb++] = *bc;
					continue;
				}
				above[q] += b->live;
			}
			struct member *mb = block_first(G, b, SIZE_MAX);
			for (size_t i = 0; i < b->live; i++)
				G->ent[hn++] = (struct entry){
					bc->prio, mb[i].def, bc->x, (int)mb[i].idx, -1,
					(int)r,	  b->gpus,   0,	    mb[i].slot};
		}
		/* of a block at the cut only its first members can be among the first ties */
		for (size_t e = 0; e < nb; e++) {
			const struct bcand *bc = &G->bcand[e];
			struct block *b = &G->blk[bc->cls * G->nt + (size_t)t];
			size_t q = (size_t)bc->group, stay = room[q] - above[q];
			size_t k = b->live < stay ? b->live : stay;
			struct member *mb = block_first(G, b, k);
			for (size_t i = 0; i < k; i++)
				G->ties[tfill[q]++] =
					(struct tie){mb[i].def, bc->x, mb[i].idx, mb[i].slot};
		}
		/* the ties at each cut, of which the first by the order stay */
		for (size_t q = 0; q < ngv && !all; q++) {
			if (!(cnt[q] > room[q] && room[q]))
				continue;
			struct tie *tq = G->ties + tstart[q];
			size_t nq = tfill[q] - tstart[q], stay = room[q] - above[q];
			if (nq > stay)
				first_ties(tq, nq, stay);
			else
				stay = nq;
			for (size_t e = 0; e < stay; e++) {
				const struct tie *c = &tq[e];
				int hold = G->p.compat && !allocated(G, (size_t)c->slot);
				G->ent[hn++] =
					(struct entry){cut[q], c->deficit, c->x, (int)c->idx, -1,
						       (int)r, gv[q],	   hold, c->slot};
			}
		}
		struct entry *h = G->ent;
		if (r > 0) { /* the jobs given an earlier type are passed over: out */
			size_t out = 0;
			for (size_t e = 0; e < hn; e++)
				if (G->g[h[e].slot].assigned < 0)
					h[out++] = h[e];
			hn = out;
		}
		/*
		 * The walk in its order, until none fits: the first entries of
		 * the order whose GPUs add up to what the type has left are
		 * each taken, whatever the order they are walked in (all of
		 * them when the candidates fit). The entry after them does not
		 * fit, nor ever will (what is left only shrinks), nor does any
		 * other of more GPUs than are left: out with them before each
		 * prefix, so the first of those left fits and the next prefix
		 * takes one at least. The entry that stops a prefix has fewer
		 * GPUs than the one that stopped the last: a few passes, and
		 * no entry that cannot be taken is walked.
		 */
		DL_GROW(G->ekeys, hn + 1, G->aekeys);
		struct ekey *ek = G->ekeys;
		for (size_t e = 0; e < hn; e++)
			ek[e] = (struct ekey){0, 0, (uint32_t)e, h[e].gpus};
		int keyed = 0; /* the order's keys, made when first needed (not when all fit) */
		for (;;) {
			size_t out = 0;
			want = 0;
			for (size_t e = 0; e < hn; e++)
				if (ek[e].gpus <= left[t]) {
					want += ek[e].gpus;
					ek[out++] = ek[e];
				}
			hn = out;
			if (!hn)
				break;
			for (size_t e = 0; e < hn && want > left[t] && !keyed; e++) {
				ek[e].prio = desc_key(h[ek[e].e].prio);
				ek[e].deficit = desc_key(h[ek[e].e].deficit);
			}
			keyed |= want > left[t];
			size_t b = want <= left[t] ? hn : taken_prefix(h, ek, hn, left[t]);
			for (size_t e = 0; e < b; e++) {
				walk_entry(G, s, &h[ek[e].e], t, left);
				/* given this type: passed over on the next */
				int q = ek[e].gpus <= NGROUPS ? group_of[ek[e].gpus] : -1;
				if (!all && q >= 0)
					given[q]++;
			}
			ek += b;
			hn -= b;
		}
	}
}

/* one entry of the walk: take it if its job(s) have no GPUs yet and the type has room */
static void walk_entry(struct gavel *G, struct dl_sim *s, const struct entry *E, int t, int *left)
{
	if (E->pair >= 0) {
		const struct gpair *P = &G->pairs[E->pair];
		struct gj *a = &G->g[P->a], *b = &G->g[P->b];
		int gpus = dl_sim_slot_job(s, (size_t)P->a)->gpus;
		if (a->assigned >= 0 || b->assigned >= 0 || left[t] < gpus)
			return;
		left[t] -= gpus;
		a->assigned = b->assigned = t;
		a->partner = P->b;
		b->partner = P->a;
		a->lead = 1;
		set_add(&G->touched, (size_t)P->a);
		set_add(&G->touched, (size_t)P->b);
		return;
	}
	struct gj *g = &G->g[E->slot];
	if (g->assigned >= 0 || left[t] < g->gpus)
		return;
	left[t] -= g->gpus;
	g->assigned = t;
	g->hold = E->hold;
	set_add(&G->touched, (size_t)E->slot);
	/* unpacked, a job runs on this type unless it ran on another (preempted) or none */
	if (G->starters_ok && !E->hold && g->cur_type != t)
		G->wide[G->nstarters++] = (struct wide){g->gpus, g->idx, E->slot, t};
}

static void unfresh(struct gavel *G, struct gj *g)
{
	if (g->fresh)
		G->nfresh--;
	g->fresh = 0;
	set_del(&G->fresh, (size_t)(g - G->g));
}

/* the slot of g now runs on GPUs of type t that a round gave it (-1: no longer) */
static void set_cur_type(struct gavel *G, struct gj *g, int t)
{
	size_t k = (size_t)(g - G->g);
	g->cur_type = t;
	if (t < 0) {
		set_del(&G->holding, k);
		return;
	}
	set_add(&G->holding, k);
	set_add(&G->occupying, k);
}

/* a slot whose job is gone, or new: in none of the sets */
static void set_forget(struct gavel *G, size_t k)
{
	set_del(&G->holding, k);
	set_del(&G->occupying, k);
	set_del(&G->touched, k);
	set_del(&G->fresh, k);
	set_del(&G->unadmitted, k);
	set_del(&G->admitted, k);
}

/* start (or keep) what the round gave j; the pair's lead brings its partner */
static void start_assigned(struct gavel *G, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gj *g = &G->g[j->slot];
	if (g->assigned < 0 || j->state != DL_SJ_QUEUED)
		return;
	if (g->partner >= 0 && !g->lead)
		return; /* its lead starts it */
	struct dl_sim_how how = {.type = g->assigned, .pause = DL_SIM_PAUSE_RULE};
	struct dl_sim_job *o = g->partner >= 0 ? dl_sim_slot_job(s, (size_t)g->partner) : NULL;
	if (o && o->state != DL_SJ_QUEUED)
		return; /* still saving: it comes back through saved */
	if (dl_sim_start(s, j, &how) != DL_PLACED)
		return;
	set_cur_type(G, g, j->gpu_type);
	g->cur_partner = -1;
	g->from = dl_sim_now(s);
	g->credit = -1; /* counted as it runs unless the round's steps say otherwise */
	unfresh(G, g);
	if (!o)
		return;
	struct dl_sim_how ph = DL_SIM_HOW(.gpus = j->gpu, .shared = 1);
	if (dl_sim_start(s, o, &ph) != DL_PLACED)
		return;
	dl_sim_note(s, o, "pack", j->id); /* on the GPUs of j */
	struct gj *og = &G->g[o->slot];
	for (size_t q = 0; q < G->npairs; q++) {
		const struct gpair *P = &G->pairs[q];
		if (P->a == (int)j->slot && P->b == (int)o->slot) {
			dl_sim_set_share(s, j, P->fa[g->assigned]);
			dl_sim_set_share(s, o, P->fb[g->assigned]);
		} else if (P->b == (int)j->slot && P->a == (int)o->slot) {
			dl_sim_set_share(s, j, P->fb[g->assigned]);
			dl_sim_set_share(s, o, P->fa[g->assigned]);
		}
	}
	g->cur_partner = (int)o->slot;
	set_cur_type(G, og, o->gpu_type);
	og->cur_partner = (int)j->slot;
	og->from = g->from;
	og->credit = -1;
	unfresh(G, og);
}

/*
 * The jobs given a type this round that may start, widest gang first
 * (placement order), then job order, in G->tmp. Between boundaries (jobs
 * waiting for GPUs being saved) it is the list start_round left: the jobs
 * not started yet.
 */
static size_t widest_first(struct gavel *G, struct dl_sim *s)
{
	size_t n = 0, nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	if (!G->order_stale && !G->p.scan_all)
		return G->ntmp;
	/*
	 * after the walk (unpacked), the jobs it gave a type that do not run
	 * on it yet: those it noted (the boundary preempts every other one
	 * running, and starts none); else those of the touched set not running
	 */
	int walked = G->order_stale == 1 && G->starters_ok && !G->p.scan_all;
	G->order_stale = 0;
	DL_GROW(G->wide, nslots + 1, G->awide);
	DL_GROW(G->tmp, nslots + 1, G->atmp);
	if (walked)
		n = G->nstarters;
	for (size_t k = set_next(G, &G->touched, 0, nslots); k < nslots && !walked;
	     k = set_after(G, &G->touched, k, nslots)) {
		const struct gj *g = &G->g[k];
		if (!g->live || g->assigned < 0 || g->hold)
			continue;
		/*
		 * a job running already (most: its lease extended; those of
		 * the holding set, holds()) starts no more this round:
		 * start_assigned passes it over, so the order needs only the
		 * others
		 */
		if (g->cur_type >= 0 && !G->p.scan_all)
			continue;
		G->wide[n++] = (struct wide){g->gpus, g->idx, (int)k, g->assigned};
	}
	/*
	 * the start order: widest gang first, then job order (a job once: no
	 * ties), as one key (gpus >= 1), radix sorted
	 */
	DL_GROW(G->wkeys, 2 * n + 1, G->awkeys);
	for (size_t k = 0; k < n; k++)
		G->wkeys[k] = (struct wkey){
			(uint64_t)(UINT32_MAX - (uint32_t)G->wide[k].gpus) << 32 | G->wide[k].idx,
			k};
	const struct wkey *r = dl_rsort(G->wkeys, G->wkeys + n, n, sizeof(*G->wkeys),
					offsetof(struct wkey, order), 0);
	for (size_t k = 0; k < n; k++)
		G->tmp[k] = G->wide[r[k].at];
	return G->ntmp = n;
}

static int free_of_type(struct gavel *G, struct dl_sim *s, int *free_t);

/*
 * start the jobs this round gave a type, widest first; note whether some
 * must wait, and keep those for the next pass: only a boundary preempts, and
 * it sorts the order again, so a job started runs on until then (and one
 * gone, or given no type, is passed over as start_assigned would)
 */
static void start_round(struct gavel *G, struct dl_sim *s)
{
	size_t n = widest_first(G, s), out = 0;
	G->pending = 0;
	/*
	 * Unpacked, a job starts on GPUs of the type it was given, gpus of
	 * them, and the placer has it wait while the type has fewer free
	 * (dl_place): such a job is left waiting without a call (the free
	 * GPUs of each type, from the engine's nodes as free_of_type counts)
	 */
	int skip = !G->p.pack && !G->p.scan_all && n;
	if (skip)
		free_of_type(G, s, G->free_t);
	for (size_t k = 0; k < n; k++) {
		struct wide w = G->tmp[k];
		if (skip && G->free_t[w.type] < w.gpus) {
			G->tmp[out++] = w;
			G->pending = 1;
			continue;
		}
		/*
		 * the records of a job a few places on that may start, asked
		 * for now: each start is a cache miss on both, one start's
		 * work is enough to hide the next ones' (no effect but time)
		 */
		if (k + 8 < n) {
			struct wide a = G->tmp[k + 8];
			if (!skip || G->free_t[a.type] >= a.gpus) {
				__builtin_prefetch(&G->g[a.slot]);
				dl_sim_prefetch(s, (size_t)a.slot);
			}
		}
		const struct gj *g = &G->g[w.slot];
		if (!G->p.scan_all && (!g->live || g->assigned < 0 || g->hold))
			continue;
		struct dl_sim_job *j = dl_sim_slot_job(s, (size_t)w.slot);
		start_assigned(G, s, j);
		if (j->state == DL_SJ_RUNNING && skip)
			G->free_t[w.type] -= w.gpus;
		G->pending |= j->state != DL_SJ_RUNNING;
		if (j->state != DL_SJ_RUNNING || G->p.scan_all)
			G->tmp[out++] = w;
	}
	G->ntmp = out;
}

static int cmp_idx(const void *a, const void *b)
{
	const struct wide *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* whether this round's walk gave some job GPUs to run on */
static int walk_runs(const struct gavel *G, size_t nslots)
{
	for (size_t k = set_next(G, &G->touched, 0, nslots); k < nslots;
	     k = set_after(G, &G->touched, k, nslots)) {
		if (G->g[k].live == 1 && G->g[k].assigned >= 0 && !G->g[k].hold)
			return 1;
	}
	return 0;
}

/*
 * --compat gavel: the reference runs int(throughput x round) steps a round
 * (fewer if fewer are left), each job for as long as its steps take, and
 * ends the round when the last of them is done. Here a job that has more
 * steps left runs at the share of its speed that does exactly its steps in
 * the round (1 for the job that sets the round's length), is counted as
 * running for the time its steps take in the reference (its priority), and
 * the round lasts as long as the longest. Pairs keep the whole round.
 * The reference also counts a round from the end of the last round in which
 * jobs ran (trace time 0 before the first), so a round after an idle
 * stretch counts the stretch too.
 */
static void plan_steps(struct gavel *G, struct dl_sim *s)
{
	size_t nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	double longest = 0, round = G->p.round, idle = secs(dl_sim_now(s) - G->last_ran);
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t k = set_next(G, &G->holding, 0, nslots); k < nslots;
		     k = set_after(G, &G->holding, k, nslots)) {
			struct gj *g = &G->g[k];
			struct dl_sim_job *j = g->live == 1 ? dl_sim_slot_job(s, k) : NULL;
			if (!j || j->state != DL_SJ_RUNNING)
				continue;
			if (g->cur_partner >= 0 || !(j->share > 0)) {
				g->credit = -1;
				longest = pass ? longest : round;
				continue;
			}
			dl_sim_sync(s, j);
			double ref = dl_sim_job_ref_tput(s, j), tput = j->rate / j->share * ref;
			double steps = floor(tput * round + 1e-9);
			double left = j->work_left / DL_TICKS_PER_SECOND * ref;
			int ends = !(left > steps + 1e-6) || !(tput > 0);
			double t = ends ? (tput > 0 ? left / tput : round) : steps / tput;
			if (!pass) {
				g->credit = t + idle;
				longest = t > longest ? t : longest;
			} else {
				dl_sim_set_share(s, j, ends ? 1 : steps / (tput * longest));
			}
		}
		if (!pass)
			longest = secs(dl_sim_ticks(longest));
	}
	G->this_round = dl_sim_ticks(longest);
	if (G->this_round < 1)
		G->this_round = G->round_len;
}

/*
 * whether the job in slot k (of the holding set) runs on the GPUs a round
 * gave it: a job in that set does (rounds: a job starts only through
 * start_assigned, which puts it there, and leaves it only by a boundary's
 * preemption or its end), so only scan_all, on every slot, asks the engine
 */
static int holds(const struct gavel *G, struct dl_sim *s, size_t k)
{
	if (!G->p.scan_all)
		return 1;
	return G->g[k].live && dl_sim_slot_job(s, k)->state == DL_SJ_RUNNING;
}

static void boundary(struct gavel *G, struct dl_sim *s)
{
	G->boundary_due = 0;
	if (G->round_active)
		G->last_ran = dl_sim_now(s);
	size_t nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots, nnew = 0;
	DL_GROW(G->wide, nslots + 1, G->awide);
	/* the running jobs' time, in slot order (the order of the worker time's sum) */
	for (size_t k = set_next(G, &G->holding, 0, nslots); k < nslots;
	     k = set_after(G, &G->holding, k, nslots)) {
		if (holds(G, s, k))
			account(G, s, k);
	}
	for (size_t k = set_next(G, &G->unadmitted, 0, nslots); k < nslots;
	     k = set_after(G, &G->unadmitted, k, nslots)) {
		struct dl_sim_job *j = G->g[k].live ? dl_sim_slot_job(s, k) : NULL;
		if (j && G->g[k].handle < 0 && j->state == DL_SJ_QUEUED)
			G->wide[nnew++] = (struct wide){j->gpus, j->idx, (int)k, -1};
	}
	for (size_t k = set_next(G, &G->fresh, 0, nslots); k < nslots;
	     k = set_after(G, &G->fresh, k, nslots)) {
		if (G->g[k].live)
			unfresh(G, &G->g[k]); /* this boundary considers it */
	}
	G->nfresh_list = 0; /* no job is fresh now */
	/* jobs waiting for the boundary enter in arrival order, as the reference adds them */
	qsort(G->wide, nnew, sizeof(*G->wide), cmp_idx);
	for (size_t k = 0; k < nnew; k++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, (size_t)G->wide[k].slot);
		if (admit(G, s, j) < 0) /* never allocated: left for the engine's leftovers */
			G->g[j->slot].live = 2;
	}
	/*
	 * The reference resets the time received only where it re-solves, and
	 * (--compat gavel) re-solves only when the reset is due: jobs admitted
	 * in between have no allocation until then. When nothing would run and
	 * every job has arrived, it forces the reset at once.
	 */
	resolve(G, s);
	assign(G, s);
	if (G->p.compat && G->need_solve && G->narrived == dl_sim_njobs(s) &&
	    !walk_runs(G, nslots)) {
		G->force_reset = 1;
		resolve(G, s);
		assign(G, s);
	}
	/*
	 * the engine records of the holder four on, asked for while this one
	 * is looked at: a preemption's first read of its record was a cache
	 * miss (dl_sim_prefetch; no effect but time)
	 */
	size_t ahead = set_next(G, &G->holding, 0, nslots);
	for (int a = 0; a < 4 && ahead < nslots; a++)
		ahead = set_after(G, &G->holding, ahead, nslots);
	for (size_t k = set_next(G, &G->holding, 0, nslots); k < nslots;
	     k = set_after(G, &G->holding, k, nslots)) {
		if (ahead < nslots) {
			dl_sim_prefetch(s, ahead);
			ahead = set_after(G, &G->holding, ahead, nslots);
		}
		struct gj *g = &G->g[k];
		if (!holds(G, s, k) || g->live != 1)
			continue;
		if (g->assigned == g->cur_type && g->partner == g->cur_partner) {
			/*
			 * a lease extension: it keeps its GPUs, no checkpoint or
			 * restore, and no event (its start or resume said where)
			 */
			G->extensions++;
			continue;
		}
		dl_sim_preempt(s, dl_sim_slot_job(s, k));
		set_cur_type(G, g, -1);
		g->cur_partner = -1;
	}
	start_round(G, s);
	G->this_round = G->round_len;
	if (G->p.compat)
		plan_steps(G, s);
	/*
	 * No round while nothing holds GPUs (jobs given a type that cannot be
	 * placed, or no job given one): the next arrival starts one, and jobs
	 * never placed are the engine's leftovers, never an endless run of rounds
	 */
	int busy = dl_sim_free_gpus(s) < dl_sim_total_gpus(s);
	G->round_no++;
	G->round_start = dl_sim_now(s);
	G->round_active = busy;
	summarise(G, s);
	if (busy)
		dl_sim_timer(s, dl_sim_now(s) + G->this_round, DL_SIM_NOJOB, T_ROUND, ++G->stamp);
}

/* free GPUs of type t (held GPUs counted once, packed or not) */
static int free_of_type(struct gavel *G, struct dl_sim *s, int *free_t)
{
	int any = 0;
	if (!G->p.pack && !G->p.scan_all) {
		/*
		 * Unpacked, every job running or saving holds GPUs of one type
		 * alone: the engine's free GPUs per node say the same as the
		 * jobs, in nodes instead of jobs
		 */
		for (size_t t = 0; t < G->nt; t++) {
			free_t[t] = dl_sim_type_free(s, (int)t);
			any |= free_t[t] > 0;
		}
		return any;
	}
	memcpy(free_t, G->type_gpus, G->nt * sizeof(int));
	size_t nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	for (size_t k = set_next(G, &G->occupying, 0, nslots); k < nslots;
	     k = set_after(G, &G->occupying, k, nslots)) {
		if (!G->g[k].live)
			continue;
		const struct dl_sim_job *j = dl_sim_slot_job(s, k);
		if ((j->state == DL_SJ_RUNNING || j->state == DL_SJ_SAVING) && j->ngpu &&
		    !(G->g[k].cur_partner >= 0 && !G->g[k].lead))
			free_t[j->gpu_type] -= j->ngpu;
	}
	for (size_t t = 0; t < G->nt; t++)
		any |= free_t[t] > 0;
	return any;
}

/*
 * Mid-round: offer free GPUs to jobs that just arrived (unless --compat
 * gavel) or, with --work-conserving, to every waiting admitted job, by
 * priority on each type, fastest type first.
 */
static void fill(struct gavel *G, struct dl_sim *s)
{
	if ((!G->p.work_conserving && !G->nfresh) || !dl_sim_free_gpus(s))
		return;
	size_t nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	/*
	 * without --work-conserving only the jobs that just arrived may start:
	 * those of the fresh set (from its list, the ones gone from the set
	 * dropped; the order does not matter: the first candidate, and the
	 * best by priority, then job order); else every job
	 */
	const struct slotset *may = G->p.work_conserving ? NULL : &G->fresh;
	size_t nc = 0;
	if (may && !G->p.scan_all) {
		DL_GROW(G->fill_slots, G->nfresh_list + 1, G->afill_slots);
		size_t out = 0;
		for (size_t e = 0; e < G->nfresh_list; e++) {
			struct fresh_job f = G->fresh_list[e];
			if (!set_has(may, (size_t)f.slot) || G->g[f.slot].idx != f.idx)
				continue;
			G->fresh_list[out++] = f;
			G->fill_slots[nc++] = f.slot;
		}
		G->nfresh_list = out;
	} else {
		DL_GROW(G->fill_slots, nslots + 1, G->afill_slots);
		for (size_t k = set_next(G, may, 0, nslots); k < nslots;
		     k = set_after(G, may, k, nslots))
			G->fill_slots[nc++] = (int)k;
	}
	int cand = 0;
	for (size_t c = 0; c < nc; c++) {
		size_t k = (size_t)G->fill_slots[c];
		const struct gj *g = &G->g[k];
		cand = g->live == 1 && g->handle >= 0 && g->assigned < 0 &&
		       (G->p.work_conserving || g->fresh) &&
		       dl_sim_slot_job(s, k)->state == DL_SJ_QUEUED;
		if (cand)
			break;
	}
	if (!cand)
		return;
	int *free_t = G->fill_free;
	if (!free_of_type(G, s, free_t))
		return;
	resolve(G, s);
	for (size_t r = 0; r < G->nt; r++) {
		int t = G->order[r];
		while (free_t[t] > 0) {
			int best = -1;
			double bp = -1;
			for (size_t c = 0; c < nc; c++) {
				size_t k = (size_t)G->fill_slots[c];
				struct gj *g = &G->g[k];
				if (g->live != 1 || g->handle < 0 || g->assigned >= 0 ||
				    (G->p.compat && !allocated(G, k))) /* none yet: it waits */
					continue;
				struct dl_sim_job *j = dl_sim_slot_job(s, k);
				if (j->state != DL_SJ_QUEUED || j->gpus > free_t[t] ||
				    !(dl_sim_job_speed(s, j, t) > 0) ||
				    (j->type != DL_ANY_TYPE && j->type != t))
					continue;
				size_t i = k * G->nt + (size_t)t;
				double x = xof(G, k, (size_t)t);
				if (!G->p.work_conserving && !(g->fresh && x > 0))
					continue;
				double pr = priority(G, x, G->jt[i], t);
				if (pr > bp ||
				    (pr == bp && j->idx < dl_sim_slot_job(s, (size_t)best)->idx)) {
					bp = pr;
					best = (int)k;
				}
			}
			if (best < 0)
				break;
			struct dl_sim_job *j = dl_sim_slot_job(s, (size_t)best);
			struct gj *g = &G->g[best];
			g->assigned = t;
			g->partner = -1;
			g->lead = 0;
			g->credit = -1;
			set_add(&G->touched, (size_t)best);
			G->order_stale = 2;
			start_assigned(G, s, j);
			if (j->state != DL_SJ_RUNNING) {
				g->assigned = -1; /* no room after all (fragmentation) */
				break;
			}
			free_t[t] -= j->gpus;
			if (!G->round_active) {
				G->round_active = 1;
				G->round_no++;
				G->round_start = dl_sim_now(s);
				dl_sim_timer(s, dl_sim_now(s) + G->round_len, DL_SIM_NOJOB, T_ROUND,
					     ++G->stamp);
			}
		}
	}
}

/* ---- exact mechanism ---- */

/* every admitted job at its allocation's rate, on shared GPUs of its fastest type */
static void exact(struct gavel *G, struct dl_sim *s)
{
	solve(G, s);
	summarise(G, s);
	size_t nslots = dl_sim_slots(s) < G->nslots ? dl_sim_slots(s) : G->nslots;
	const struct dl_cluster *c = dl_sim_cluster(s);
	for (size_t k = 0; k < nslots; k++) {
		struct gj *g = &G->g[k];
		if (g->live != 1 || g->handle < 0)
			continue;
		struct dl_sim_job *j = dl_sim_slot_job(s, k);
		/* the rate X gives: alone, and in its pairs at their packed speeds */
		double rate = 0, top = 0;
		int tt = -1;
		for (size_t t = 0; t < G->nt; t++) {
			double sp = dl_sim_job_speed(s, j, (int)t), x = xof(G, k, t);
			for (size_t q = 0; q < G->npairs; q++) {
				const struct gpair *P = &G->pairs[q];
				if (P->a == (int)k)
					x += P->x[t] * P->fa[t];
				else if (P->b == (int)k)
					x += P->x[t] * P->fb[t];
			}
			rate += x * sp;
			if (x > 0 && sp > top && G->type_gpus[t] >= j->gpus) {
				top = sp;
				tt = (int)t;
			}
		}
		double share = top > 0 ? rate / top : 0;
		if (share > 1)
			share = 1;
		if (!(share > 1e-12)) {
			if (j->state == DL_SJ_RUNNING)
				dl_sim_preempt(s, j);
			continue;
		}
		if (j->state == DL_SJ_RUNNING && j->gpu_type == tt) {
			dl_sim_set_share(s, j, share);
			continue;
		}
		if (j->state == DL_SJ_RUNNING) {
			dl_sim_preempt(s, j);
			continue; /* back through saved */
		}
		if (j->state != DL_SJ_QUEUED)
			continue;
		/*
		 * GPUs of its type, shared: the next ones after the last job's
		 * (round robin keeps the jobs per GPU low: the engine counts at
		 * most 255)
		 */
		int *gp = xcalloc((size_t)j->gpus, sizeof(int)), n = 0;
		int tot = dl_sim_total_gpus(s);
		for (int step = 0; step < tot && n < j->gpus; step++) {
			int gidx = (G->cursor + step) % tot;
			if (c->nodes[dl_cluster_gpu_node(c, gidx)].type == tt)
				gp[n++] = gidx;
		}
		if (n == j->gpus) {
			G->cursor = (gp[n - 1] + 1) % tot;
			struct dl_sim_how how = DL_SIM_HOW(.gpus = gp, .shared = 1, .share = share);
			dl_sim_start(s, j, &how);
		}
		free(gp);
	}
}

/* ---- callbacks ---- */

static void on_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gavel *G = st;
	grow_slots(G, dl_sim_slots(s));
	struct gj *g = &G->g[j->slot];
	memset(g, 0, sizeof(*g));
	g->live = 1;
	g->handle = -1;
	g->assigned = g->partner = g->cur_type = g->cur_partner = -1;
	g->fresh = 1;
	G->cold_idx[j->slot] = UINT32_MAX; /* in no block (a member left for the slot's last job) */
	set_forget(G, j->slot);
	set_add(&G->fresh, j->slot);
	DL_GROW(G->fresh_list, G->nfresh_list + 1, G->afresh_list);
	G->fresh_list[G->nfresh_list++] = (struct fresh_job){(int)j->slot, j->idx};
	set_add(&G->unadmitted, j->slot); /* until admit() gives it a handle */
	g->credit = -1;
	G->nfresh++;
	G->narrived++;
	for (size_t t = 0; t < G->nt; t++) /* the reference's initial time: half a round */
		G->jt[(size_t)j->slot * G->nt + t] = G->p.round / 2;
	memset(&G->def[(size_t)j->slot * G->nt], 0, G->nt * sizeof(double));
	memset(&G->x[(size_t)j->slot * G->nt], 0, G->nt * sizeof(double));
	g->idx = j->idx;
	g->gpus = j->gpus;
	int fits = 0;
	for (size_t t = 0; t < G->nt; t++) {
		int ok = dl_sim_job_speed(s, j, (int)t) > 0 &&
			 (j->type == DL_ANY_TYPE || j->type == (int)t);
		fits |= ok && G->type_gpus[t] >= j->gpus;
		if (t < 64 && ok && G->type_gpus[t])
			g->runs |= (uint64_t)1 << t;
	}
	if (!fits) {
		/* a gang never mixes types: the placer rejects it (the engine reports why) */
		g->live = 0;
		set_forget(G, j->slot);
		dl_sim_start(s, j, NULL);
		return;
	}
	if (G->p.mechanism == DL_GAVEL_EXACT || !G->p.compat) {
		if (admit(G, s, j) < 0)
			g->live = 2;
	}
	if (!G->round_active)
		G->boundary_due = 1; /* an idle cluster: a round starts now */
}

static void on_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gavel *G = st;
	(void)s;
	set_del(&G->occupying, j->slot); /* schedule starts it where this round put it */
}

static void on_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct gavel *G = st;
	struct gj *g = &G->g[j->slot];
	if (g->cur_partner >= 0) { /* the partner runs on alone, at full speed */
		struct gj *o = &G->g[g->cur_partner];
		struct dl_sim_job *oj = dl_sim_slot_job(s, (size_t)g->cur_partner);
		account(G, s, (g->lead ? j : oj)->slot); /* the pair's time, by its lead */
		o->from = dl_sim_now(s);
		o->cur_partner = -1;
		o->lead = 0;
		o->partner = -1;
		if (oj->state == DL_SJ_RUNNING)
			dl_sim_set_share(s, oj, 1);
	} else {
		account(G, s, j->slot);
	}
	if (g->handle >= 0) {
		dl_alloc_session_remove(G->ses, g->handle);
		if (G->blocks_on)
			blocks_remove(G, j->slot);
		size_t at =
			(size_t)G->adm_at[j->slot]; /* out of the dense list: the last moves in */
		G->adm[at] = G->adm[--G->nadm];
		G->adm_at[G->adm[at].slot] = (int)at;
		memcpy(&G->adm_jt[at * G->nt], &G->adm_jt[G->nadm * G->nt], G->nt * sizeof(double));
		memcpy(&G->adm_def[at * G->nt], &G->adm_def[G->nadm * G->nt],
		       G->nt * sizeof(double));
		size_t lo = 0, hi = G->nview; /* its place in the view, by handle */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (G->g[G->view[mid]].handle < g->handle)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < G->nview && G->view[lo] == (int)j->slot) {
			memmove(G->view + lo, G->view + lo + 1, (G->nview - lo - 1) * sizeof(int));
			G->nview--;
		}
		G->need_solve = 1;
	}
	for (size_t q = 0; q < G->npairs;) { /* its pairs are gone with it */
		if (G->pairs[q].a == (int)j->slot || G->pairs[q].b == (int)j->slot) {
			free(G->pairs[q].x);
			free(G->pairs[q].fa);
			free(G->pairs[q].fb);
			G->pairs[q] = G->pairs[--G->npairs];
			continue;
		}
		q++;
	}
	g->live = 0;
	set_forget(G, j->slot);
	if (G->p.mechanism == DL_GAVEL_ROUNDS && dl_sim_free_gpus(s) == dl_sim_total_gpus(s))
		G->boundary_due = 1; /* nothing holds GPUs: the round is over */
}

static int on_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	struct gavel *G = st;
	(void)s;
	(void)job;
	if (kind != T_ROUND || stamp != G->stamp || !G->round_active)
		return 0;
	G->boundary_due = 1;
	return 1;
}

static void on_schedule(void *st, struct dl_sim *s)
{
	struct gavel *G = st;
	if (G->p.mechanism == DL_GAVEL_EXACT) {
		exact(G, s);
		return;
	}
	if (G->boundary_due) {
		boundary(G, s);
	} else if (G->pending) {
		start_round(G, s); /* jobs of this round whose GPUs were being saved */
		if (G->p.compat && G->round_active && dl_sim_now(s) == G->round_start) {
			/* the round's steps with them (their GPUs were saved at once) */
			plan_steps(G, s);
			dl_sim_timer(s, G->round_start + G->this_round, DL_SIM_NOJOB, T_ROUND,
				     ++G->stamp);
		}
	}
	if (!G->p.compat || G->p.work_conserving)
		fill(G, s);
}

/* option rules the parser cannot see (the engine applies them before create()) */
static int check(const void *params, struct dl_err *err)
{
	const struct dl_gavel_params *p = params;
	if (dl_alloc_check_pack((enum dl_alloc_policy)p->alloc, p->pack, err) < 0)
		return -1;
	if (p->mechanism == DL_GAVEL_EXACT && p->work_conserving)
		return dl_err_set(err, DL_EXIT_USAGE,
				  "--work-conserving is for --mechanism rounds");
	return 0;
}

/* the reference's choices: admission at boundaries, idle tails, free preemption */
static const struct dl_sim_compat gavel_compat = {"gavel", "gavel-compat", 1};

const struct dl_sim_policy_ops dl_sim_gavel = {
	.name = "gavel",
	.summary = "Gavel's rounds realising an allocate policy (--alloc)",
	.opts = dl_gavel_opts,
	.params_size = sizeof(struct dl_gavel_params),
	.check = check,
	.create = create,
	.destroy = destroy,
	.arrive = on_arrive,
	.saved = on_saved,
	.finish = on_finish,
	.timer = on_timer,
	.schedule = on_schedule,
	.compat = &gavel_compat,
};
