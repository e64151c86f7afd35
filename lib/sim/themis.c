/*
 * themis.c: Themis (Mahajan et al., NSDI'20), finish-time fairness by
 * leases and a partial-allocation auction, as a policy of the native engine.
 * The mechanism follows the public reference (cluster-sim's
 * ThemisInterJobScheduler; dlsched-simulate(1), THEMIS); where it is
 * unclear or needs a commercial solver, the choices below are ours and
 * dlsched-simulate(1) documents them.
 *
 * rho. A job's finish-time fairness is its JCT over its time alone on an
 * ideal placement, its duration (reference GPU, consolidated). The
 * arbiter's estimate at time t, in ticks:
 *   running, on its GPUs       (finish_at - submit) / duration: constant
 *                              while it runs (its projected completion)
 *   holding no GPUs            (t - submit + work_left / best) / duration:
 *                              the rho it would end with if it got its best
 *                              rate (best_rate: its speed on the fastest GPU
 *                              types it may use that hold its gang, per
 *                              --throughputs when its model has them; no
 *                              slowdown) now; it grows by 1/duration per
 *                              second of waiting
 * Checkpoint and restore costs are left out of estimates and bids (they are
 * paid, not predicted).
 *
 * Leases. A started job holds its GPUs until the first point of a common
 * grid of --lease L seconds (from the first submit) at least L/2 after its
 * start: leases last L/2..3L/2, L on average, and end together, so one
 * auction serves every lease that ends at one instant (this is what keeps a
 * 100,000-job run to one auction per lease period plus one per completion).
 * Lease ends are only looked at when some job waits: a lease nobody could
 * bid for is renewed as it stands, without an event.
 *
 * Auction (whenever GPUs are on offer and jobs bid: at lease ends,
 * completions, arrivals and checkpoint ends). On offer: free GPUs nobody has
 * won, and the GPUs of the jobs whose lease ends now. Bidders: the jobs
 * holding nothing, and the jobs whose lease ends (for their own GPUs only:
 * moving would cost a checkpoint and a restore). They are ranked by
 * estimated rho, worst first, ties in the order of a hash of (--seed, job).
 * Round after round, the next max(floor(knob x N), 1) of the N bidders are
 * offered what is left: each makes up to BIDS_PER_JOB bids, whole gangs on
 * offered GPUs at the best tier available (node, then rack, then cluster;
 * best fit first: the node or rack with the fewest offered GPUs that hold
 * the gang), each valued
 *   log(rho_old / rho_new),  rho_new = (t - submit + work_left / rate) / duration
 *   (rate on those GPUs: speed / slowdown), rho_old = the rho if it waits one
 *   more lease: (t - submit + L + work_left / best) / duration
 * (only bids worth more than waiting are made, and a placement that is not
 * takes no bid's place; on an idle cluster a job with no such bid bids
 * anyway, see make_bids; between bids of equal value,
 * the one taking fewer GPUs from leases that just ended, so that fewer jobs
 * are preempted). The round's winners are a set of GPU-disjoint bids, at
 * most one a job, maximising the sum of the values: exactly, by GLPK's MIP,
 * when the round has at most --mip-max bids (and the greedy below is not
 * already optimal: every job got its best bid), else greedily: the most
 * valuable bids first, each taken when its job has none yet and its GPUs
 * are free. Ties between equal values go to the worse-ranked job (a 1e-9
 * bonus by rank). Leftover GPUs go to the next round. The knob alone sets
 * fairness against efficiency: inside a round, only value counts.
 *
 * After the rounds: a job whose lease ended and won its GPUs, or whose GPUs
 * nobody won, renews its lease and pays nothing; one that lost any of them
 * is preempted (it pays --checkpoint-cost holding them, then bids again; a
 * resumed job pays --restore-cost). A waiting winner starts on its GPUs at
 * once, or as soon as the loser's checkpoint ends (they are reserved).
 *
 * Admission control (--admission R > 0; cluster-sim admits while max rho <
 * 1.5): an arriving job is held back (it neither bids nor counts) while the
 * worst estimated rho of the admitted jobs is R or more and some admitted
 * job is active; the oldest held job is admitted first.
 *
 * Cost. The waiting jobs stay ranked from one auction to the next (an
 * insertion pass re-sorts them: a job that moves finds its place by
 * bisection); an auction where no lease ends sorts only those above the
 * rho of the one about two rounds down, and the rest if a round reaches
 * them; an auction where leases end merges them with the expired leases,
 * picked in order from the running jobs, which stay ranked too (their rho
 * stands still while they run). The lists of leases carry what the loops
 * over every lease read. Only the jobs whose gang fits the GPUs left are
 * asked to bid. On one GPU type a gang one node holds has one rate on any
 * node, so its node-tier bids are the round's placements for its gang size
 * (found once a round) at one value; a waiting-only round of more than
 * --mip-max such bids that share a GPU goes to the most valuable job without
 * making them. A round whose bids all take one GPU in common has one winner:
 * the greedy finds it without sorting. The MIP's answer is taken without
 * GLPK when one packing's objective beats every other's by far more than the
 * solver's tolerance: at once when the bids share a GPU, else when a search
 * of the packings says so. The params' reference switch keeps the plain way
 * as the tests' oracle.
 *
 * Per-job state lives in a slab indexed by the job's slot (sim/slab.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/state.h"
#include "core/num.h"
#include "core/opt.h"
#include "core/rng.h"
#include "core/rsort.h"
#include "core/sort.h"
#include "lp/lp.h"
#include "sim/policies.h"
#include "sim/slab.h"
#include "sim/themis.h"

/* bids a job makes per auction at most (placements at its best tier) */
#define BIDS_PER_JOB 3
/* the tie-breaking bonus per rank in a round (far below any real difference in value) */
#define RANK_EPS 1e-9
/* the tie-breaking cost of a bid per GPU it takes from a lease that just ended */
#define LEASE_EPS 1e-12
/* a bid not worth waiting for, on an idle cluster (make_bids): this times rate / (rate + 1) */
#define WORTHLESS_EPS 1e-12

#define AT(f) DL_OPT_AT(struct dl_themis_params, f)
const struct dl_opt dl_themis_opts[] = {
	{DL_OPT_SECONDS, 0, "lease", "S", "GPUs are leased for S seconds", AT(lease), .min = 1,
	 .max = DL_SECONDS_MAX, .def = "600"},
	{DL_OPT_DOUBLE, 0, "fairness-knob", "F",
	 "share of the worst-rho jobs offered the GPUs per round (0: strictly worst first)",
	 AT(knob), .min = 0, .max = 1, .def = "0.2"},
	{DL_OPT_DOUBLE, 0, "admission", "R",
	 "admit new jobs only while the worst rho is below R (0: all)", AT(admission), .min = 0,
	 .max = INFINITY, .def = "0"},
	{DL_OPT_INT, 0, "mip-max", "N", "solve auction rounds of up to N bids exactly", AT(mip_max),
	 .imin = 0, .imax = 10000, .def = "64"},
	{DL_OPT_END},
};
#undef AT

enum { T_GRID = 1 };

/* per-slot states of the arbiter */
enum { S_NONE = 0, S_OUT, S_WAIT, S_RESV, S_RUN, S_EXP, S_SAVE };

struct cand {
	size_t slot;
	double rho;
	uint64_t tie;
	uint32_t idx;
	uint32_t run; /* T->runs and T->fresh: the run of its job it is of (struct spot) */
};

/*
 * A waiting job as the auction ranks it (T->ranked): its rho is
 * ((now - submit) + wl_best) / ideal, the very sum rho_est makes, from
 * fields that stay fixed while it waits. Valid while wseq[slot] == seq.
 */
struct ranked {
	double rho; /* at the last auction */
	dl_tick submit;
	double wl_best; /* work_left / best rate */
	double ideal;
	uint32_t slot, seq; /* (40 bytes: the passes over the queue move every entry) */
};

/* the rest of a waiting job's fixed fields (T->waiters, by slot) */
struct waiter {
	double wl_node; /* work_left / its rate on one node (node_bids), or NAN */
	uint64_t tie;
	uint32_t idx;
	int gpus;
};

/*
 * The node-tier placements of a gang of g GPUs as placement_bids finds them
 * while every bid is worth making: they depend on the offer alone, so a
 * round finds them once per gang size (node_bids).
 */
struct tmpl {
	uint64_t round; /* valid in this round of T->round */
	uint64_t used;	/* clear_round: some job of this size bids in round T->round */
	int n;		/* placements (0: no node holds the gang) */
	int off[BIDS_PER_JOB];
	int leased[BIDS_PER_JOB]; /* GPUs of each taken from leases that just ended */
};

struct bid {
	uint32_t job; /* the bidder: its index among the round's bidders */
	int off, n;   /* its GPUs: gbuf[off .. off + n) */
	double v;
};

/* a bid's value as an unsigned key (radix_bids_by_value), and the bid's index */
struct value_key {
	uint64_t key;
	size_t at;
};

/*
 * per job (by slot): its state and its place in the list of that state, apart
 * from the rest (struct themis_job) in an array a few tens of kilobytes
 * long: the list moves of a lease end (every lease leaves the list of
 * running leases and comes back) touch one of them for each lease and for
 * the lease moved into its place
 */
struct spot {
	uint32_t pos;	  /* place in the list of its state (wait, exp, resv, run) */
	uint32_t run;	  /* bumped when it starts to run (T->fresh) */
	unsigned char st; /* S_* */
};
DL_SLAB_DEFINE(spots, struct spot)

/* per job (by slot: sim/slab.h) */
struct themis_job {
	int gpus;	/* its gang (the job's, fixed) */
	uint64_t tie;	/* its place in the seeded order of ties */
	double best;	/* its best rate (best_rate) */
	double wl_node; /* waiting: work_left / its rate on one node, or NAN (node_bids) */
	int *hold;	/* GPUs held (running) or won (reserved) */
	int holdcap;
};
DL_SLAB_DEFINE(themis_jobs, struct themis_job)

/*
 * A job under a lease, as the lists of running and expired leases hold it:
 * what the loops over every lease read (offering the expired GPUs,
 * renewing, finding the leases due), beside the slot, so that they touch
 * neither the engine's job nor its themis_job.
 */
struct lease {
	size_t slot;
	dl_tick end; /* running: the first grid point its lease may end at */
	int *hold;   /* its themis_job's hold */
	int gpus;
};

struct themis {
	struct dl_themis_params p;
	const struct dl_cluster *c;
	dl_tick lease;
	int total, ntypes, maxg;
	double best_any;
	int *type_gpus;	       /* GPUs of each type (find_best_rate asks at every arrival) */
	const int *type_order; /* type indices, fastest first (ties: index; the cluster's) */
	/*
	 * The GPUs on offer, as a second view of the cluster: "free" there
	 * means offered. Its best-fit buckets put the node whose offer changed
	 * last first (DL_TIE_RECENT): the bids follow that order.
	 */
	struct dl_cluster_state *offer;
	unsigned char *leased;	 /* during an auction: held under a lease that ended now */
	struct themis_jobs jobs; /* per job, by slot */
	struct spots spots;	 /* per job, by slot: state and list place */
	/* lists of slots */
	size_t *wait, nwait, wait_alloc;
	struct lease *exp; /* the leases that ended now (S_EXP) */
	size_t nexp, exp_alloc;
	struct lease *run; /* running under a lease (S_RUN) */
	size_t nrun, run_alloc;
	size_t *resv, nresv, resv_alloc;
	/*
	 * The running jobs (leased or expired) in rank order, as the last lease
	 * end ranked them: a running job's rho, (finish_at - submit) / ideal,
	 * stands still from its start to its preemption or completion. Those
	 * started since are in fresh (slot and run only); an entry whose job
	 * no longer runs that run is void (rank_expired).
	 */
	struct cand *runs, *fresh, *runs_tmp;
	size_t nruns, runs_alloc, nfresh, fresh_alloc, runs_tmp_alloc;
	size_t *out, out_head, nout, out_alloc; /* held back by admission control (FIFO) */
	uint64_t grid_stamp;
	dl_tick grid_at, expired_at; /* the pending grid timer, the last expiry (-1: none) */
	int dirty;
	uint64_t round;	    /* rounds held so far: templates older than this are stale */
	struct tmpl *tmpls; /* by gang size, 1..maxg */
	double *qbuf;	    /* clear_round: per member of the round, num / den (NAN: none) */
	size_t qbuf_alloc;
	int *node_gpus;	     /* the GPUs of a node of maxg GPUs (rate on one node) */
	int allow_worthless; /* make_bids on an idle cluster: see there */
	/*
	 * The waiting jobs in the order of the last auction's ranking (new ones
	 * at the end, left ones dropped at the next auction): ranking again at
	 * a later time moves few of them.
	 */
	struct ranked *ranked;
	size_t nranked, ranked_alloc;
	size_t nsorted;	     /* how many of them were in rank order after the last auction */
	struct ranked *rest; /* rank_head's scratch: the entries ranked after its head */
	size_t rest_alloc;
	int nan_wl;		/* some waiter's wl_best was NaN: rank_waiters alone ranks */
	struct waiter *waiters; /* by slot */
	uint32_t *wseq;		/* by slot: bumped when it starts or stops waiting */
	size_t *gang_waits;	/* by gang size (gang_index): how many of that size wait */
	size_t waiters_alloc;
	/* auction scratch */
	struct cand *cand;
	size_t cand_alloc;
	struct bid *bids;
	size_t nbids, bids_alloc;
	struct bid *bids_tmp; /* sort_bids' merge buffer */
	size_t bids_tmp_alloc;
	struct value_key *vkeys; /* radix_bids_by_value's keys and the sort's scratch */
	size_t vkeys_alloc;
	struct cand *cand_tmp; /* sort_cands' merge buffer */
	size_t cand_tmp_alloc;
	int *gbuf;
	size_t gn, gbuf_alloc;
	int *won; /* per bidder of the round: the bid it won, or -1 */
	size_t won_alloc;
	uint32_t *bidder_rank; /* per bidder of the round: its rank in the round (NULL: itself) */
	uint32_t *brank;       /* bidder_rank's storage */
	size_t brank_alloc;
	uint64_t *gmark, mark;		  /* per GPU: taken in this round's greedy (== mark) */
	int *grow, *gfirst;		  /* per GPU: MIP row, first bid */
	int *tmp, *tmp2;		  /* node lists */
	size_t *winners, nwin, win_alloc; /* slots that won (waiting jobs) */
};

/* ---- the offered set ---- */

static int offered(const struct themis *T, int g)
{
	return dl_state_gpu_free(T->offer, g);
}

static void offer(struct themis *T, const int *gpus, int n)
{
	dl_state_release(T->offer, gpus, n);
}

static void withdraw(struct themis *T, const int *gpus, int n)
{
	dl_state_take_gpus(T->offer, gpus, n); /* GPUs not on offer are skipped */
}

static int offered_total(const struct themis *T)
{
	return dl_state_total_free(T->offer);
}

/* ---- per-slot arrays and lists ---- */

static struct themis_job *tj(struct themis *T, size_t slot)
{
	return themis_jobs_at(&T->jobs, slot);
}

static struct spot *spot(struct themis *T, size_t slot)
{
	return spots_at(&T->spots, slot);
}

static void list_add(struct themis *T, size_t **v, size_t *n, size_t *alloc, size_t slot)
{
	DL_GROW(*v, *n + 1, *alloc);
	spot(T, slot)->pos = (uint32_t)*n;
	(*v)[(*n)++] = slot;
}

static void list_del(struct themis *T, size_t *v, size_t *n, size_t slot)
{
	size_t i = spot(T, slot)->pos, last = v[--*n];
	v[i] = last;
	spot(T, last)->pos = (uint32_t)i;
}

/*
 * the same for a list of leases; the entry left is returned (forced inline,
 * with lease_add: a lease end moves every lease twice, and as calls the
 * record went back through memory)
 */
static inline __attribute__((always_inline)) struct lease
lease_del(struct themis *T, struct lease *v, size_t *n, size_t slot)
{
	size_t i = spot(T, slot)->pos;
	struct lease l = v[i];
	v[i] = v[--*n];
	spot(T, v[i].slot)->pos = (uint32_t)i;
	return l;
}

static inline __attribute__((always_inline)) void
lease_add(struct themis *T, struct lease **v, size_t *n, size_t *alloc, struct lease l)
{
	DL_GROW(*v, *n + 1, *alloc);
	spot(T, l.slot)->pos = (uint32_t)*n;
	(*v)[(*n)++] = l;
}

/* slot's entry in T->runs or T->fresh is of the run it is in now */
static int runs_now(struct themis *T, const struct cand *c)
{
	const struct spot *sp = spot(T, c->slot);
	return (sp->st == S_RUN || sp->st == S_EXP) && sp->run == c->run;
}

/* slot starts to run: it joins T->fresh (void entries dropped when they outnumber the rest) */
static void run_begins(struct themis *T, size_t slot)
{
	uint32_t run = ++spot(T, slot)->run;
	if (T->nfresh > 2 * (T->nrun + T->nexp) + 64) {
		size_t m = 0;
		for (size_t i = 0; i < T->nfresh; i++)
			if (runs_now(T, &T->fresh[i]))
				T->fresh[m++] = T->fresh[i];
		T->nfresh = m;
	}
	DL_GROW(T->fresh, T->nfresh + 1, T->fresh_alloc);
	T->fresh[T->nfresh++] = (struct cand){slot, 0, 0, 0, run};
}

/*
 * gang_waits' index of a gang of g: gangs larger than the cluster share its
 * last (no offer holds them), and a gang of no GPUs the first
 */
static size_t gang_index(const struct themis *T, int g)
{
	return g < 0 ? 0 : g > T->total ? (size_t)T->total + 1 : (size_t)g;
}

/* the smallest gang among the waiting jobs (INT32_MAX: none), up to gang_index's bounds */
static int smallest_waiting(const struct themis *T)
{
	for (size_t g = 0; g <= (size_t)T->total + 1; g++)
		if (T->gang_waits[g])
			return (int)g;
	return INT32_MAX;
}

/* put slot into state st (leaving its list, joining the new one) */
static void set_state(struct themis *T, size_t slot, int st)
{
	int was = spot(T, slot)->st;
	struct lease l = {slot, 0, NULL, 0}; /* (a lease that goes on keeps its end) */
	switch (was) {
	case S_WAIT:
		T->wseq[slot]++; /* its entry in ranked is void */
		list_del(T, T->wait, &T->nwait, slot);
		T->gang_waits[gang_index(T, tj(T, slot)->gpus)]--;
		break;
	case S_EXP:
		l = lease_del(T, T->exp, &T->nexp, slot);
		break;
	case S_RESV:
		list_del(T, T->resv, &T->nresv, slot);
		break;
	case S_RUN:
		l = lease_del(T, T->run, &T->nrun, slot);
		break;
	}
	spot(T, slot)->st = (unsigned char)st;
	if ((st == S_EXP || st == S_RUN) && was != S_EXP && was != S_RUN) {
		const struct themis_job *q = tj(T, slot);
		l.hold = q->hold;
		l.gpus = q->gpus;
		run_begins(T, slot);
	}
	switch (st) {
	case S_WAIT:
		list_add(T, &T->wait, &T->nwait, &T->wait_alloc, slot);
		T->gang_waits[gang_index(T, tj(T, slot)->gpus)]++;
		break;
	case S_EXP:
		lease_add(T, &T->exp, &T->nexp, &T->exp_alloc, l);
		break;
	case S_RESV:
		list_add(T, &T->resv, &T->nresv, &T->resv_alloc, slot);
		break;
	case S_RUN:
		lease_add(T, &T->run, &T->nrun, &T->run_alloc, l);
		break;
	}
}

static int *hold_room(struct themis *T, size_t slot, int n)
{
	struct themis_job *q = tj(T, slot);
	if (q->holdcap < n) {
		free(q->hold);
		q->hold = xcalloc((size_t)n, sizeof(int));
		q->holdcap = n;
		const struct spot *sp = spot(T, slot);
		if (sp->st == S_RUN || sp->st == S_EXP) /* (its lease's copy of the pointer) */
			(sp->st == S_RUN ? T->run : T->exp)[sp->pos].hold = q->hold;
	}
	return q->hold;
}

/* how many jobs ahead a loop over candidates asks for their records (prefetch_job) */
#define PREFETCH_AHEAD 6

/*
 * Ask for the records a candidate's rho and bids read (the engine's job:
 * the lines dl_sim_prefetch knows of, and the one of its submit and
 * duration; its themis_job) before the loop reaches it: the loops over a
 * lease-end auction's candidates walk about a thousand jobs in no order of
 * memory, and waited on each.
 */
static void prefetch_job(struct themis *T, struct dl_sim *s, size_t slot)
{
	dl_sim_prefetch(s, slot);
	__builtin_prefetch(&dl_sim_slot_job(s, slot)->duration);
	__builtin_prefetch(tj(T, slot));
}

static double ideal(const struct dl_sim_job *j);
static double best_rate(struct themis *T, const struct dl_sim_job *j);

/*
 * work_left over j's rate on any one node, as add_bid would divide it
 * (INFINITY: no rate), where that rate is the same on every node: one GPU
 * type, which j may use, and a gang one node holds. Else NAN: node_bids
 * leaves j to make_bids.
 */
static double wl_on_node(struct themis *T, struct dl_sim *s, const struct dl_sim_job *j)
{
	if (T->p.reference || T->ntypes != 1 || !(j->type < 0 || j->type == 0) || j->gpus < 1 ||
	    j->gpus > T->maxg)
		return NAN;
	double rate = dl_sim_rate_on(s, j, T->node_gpus, j->gpus);
	return rate > 0 ? j->work_left / rate : INFINITY;
}

/* j waits (and bids): its entry joins the ranking */
static void to_wait(struct themis *T, struct dl_sim *s, struct dl_sim_job *j)
{
	set_state(T, j->slot, S_WAIT);
	if (j->slot >= T->waiters_alloc) {
		size_t had = T->waiters_alloc, want = j->slot + 1;
		DL_GROW(T->waiters, want, T->waiters_alloc);
		T->wseq = xrealloc(T->wseq, T->waiters_alloc * sizeof(*T->wseq));
		memset(T->wseq + had, 0, (T->waiters_alloc - had) * sizeof(*T->wseq));
	}
	double wl_node = wl_on_node(T, s, j);
	tj(T, j->slot)->wl_node = wl_node;
	T->waiters[j->slot] = (struct waiter){wl_node, tj(T, j->slot)->tie, j->idx, j->gpus};
	DL_GROW(T->ranked, T->nranked + 1, T->ranked_alloc);
	double wl_best = j->work_left / best_rate(T, j);
	if (isnan(wl_best))
		T->nan_wl = 1;
	T->ranked[T->nranked++] = (struct ranked){0,	    j->submit,	       wl_best,
						  ideal(j), (uint32_t)j->slot, ++T->wseq[j->slot]};
}

/* ---- create / destroy ---- */

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	const struct dl_themis_params *p = params; /* (the engine's defaults when none given) */
	if (dl_sim_period_check(s, "lease", p->lease, NULL, 0, err) < 0)
		return NULL;
	struct themis *T = xcalloc(1, sizeof(*T));
	T->p = *p;
	T->p.seed = dl_sim_seed(s);
	T->c = dl_sim_cluster(s);
	T->lease = dl_sim_ticks(p->lease);
	if (T->lease < 1)
		T->lease = 1;
	T->total = dl_sim_total_gpus(s);
	T->ntypes = (int)T->c->ntypes;
	for (size_t n = 0; n < T->c->nnodes; n++)
		if (T->c->nodes[n].gpus > T->maxg)
			T->maxg = T->c->nodes[n].gpus;
	T->type_gpus = xcalloc((size_t)T->ntypes + 1, sizeof(int));
	T->gang_waits = xcalloc((size_t)T->total + 2, sizeof(*T->gang_waits));
	for (int t = 0; t < T->ntypes; t++) {
		T->type_gpus[t] = dl_cluster_type_gpus(T->c, t);
		if (T->type_gpus[t] > 0 && T->c->types[t].speed > T->best_any)
			T->best_any = T->c->types[t].speed;
	}
	if (!(T->best_any > 0))
		T->best_any = 1;
	T->grid_at = T->expired_at = -1;
	T->type_order = T->c->type_order;
	size_t ng = (size_t)T->total + 1, nn = T->c->nnodes + 1;
	T->offer = dl_state_new_tie(T->c, DL_TIE_RECENT); /* everything on offer */
	T->leased = xcalloc(ng, 1);
	T->gmark = xcalloc(ng, sizeof(uint64_t));
	T->grow = xcalloc(ng, sizeof(int));
	T->gfirst = xcalloc(ng, sizeof(int));
	T->tmp = xcalloc(nn, sizeof(int));
	T->tmp2 = xcalloc(nn, sizeof(int));
	T->tmpls = xcalloc((size_t)T->maxg + 1, sizeof(*T->tmpls));
	T->node_gpus = xcalloc((size_t)T->maxg + 1, sizeof(int));
	for (size_t n = 0; n < T->c->nnodes; n++)
		if (T->c->nodes[n].gpus == T->maxg) {
			for (int k = 0; k < T->maxg; k++)
				T->node_gpus[k] = T->c->nodes[n].first_gpu + k;
			break;
		}
	return T;
}

static void destroy(void *st)
{
	struct themis *T = st;
	for (size_t i = 0; i < T->jobs.n; i++)
		free(T->jobs.v[i].hold);
	themis_jobs_release(&T->jobs);
	spots_release(&T->spots);
	free(T->run);
	free(T->wait);
	free(T->ranked);
	free(T->rest);
	free(T->waiters);
	free(T->wseq);
	free(T->gang_waits);
	free(T->brank);
	free(T->exp);
	free(T->resv);
	free(T->runs);
	free(T->fresh);
	free(T->runs_tmp);
	free(T->out);
	free(T->cand);
	free(T->bids);
	free(T->bids_tmp);
	free(T->vkeys);
	free(T->cand_tmp);
	free(T->gbuf);
	free(T->won);
	free(T->gmark);
	free(T->grow);
	free(T->gfirst);
	free(T->tmp);
	free(T->tmp2);
	free(T->tmpls);
	free(T->qbuf);
	free(T->node_gpus);
	free(T->winners);
	free(T->type_gpus);
	dl_state_free(T->offer);
	free(T->leased);
	free(T);
}

/* ---- estimates ---- */

/*
 * j's best rate: its speed (its model's, with --throughputs) on the fastest
 * GPU types it may use that hold its gang, consolidated: the fastest types
 * first until they have GPUs enough, the slowest of those setting the pace
 * (a faster type too small for the gang would promise a rate it can never
 * get, and no bid would ever beat waiting for it). Fixed for its life, so
 * kept from its arrival.
 */
static double best_rate(struct themis *T, const struct dl_sim_job *j)
{
	return tj(T, j->slot)->best;
}

static double find_best_rate(const struct themis *T, const struct dl_sim *s,
			     const struct dl_sim_job *j)
{
	double best = 0, prev = INFINITY;
	int have = 0, prev_t = -1;
	while (have < j->gpus) {
		/* the next type in the order (speed descending, then index) */
		int next = -1;
		double nv = 0;
		for (int t = 0; t < T->ntypes; t++) {
			if ((j->type >= 0 && j->type != t) || T->type_gpus[t] <= 0)
				continue;
			double v = dl_sim_job_speed(s, j, t);
			if (!(v > 0) || v > prev || (v == prev && t <= prev_t))
				continue;
			if (next < 0 || v > nv) {
				next = t;
				nv = v;
			}
		}
		if (next < 0)
			break;
		have += T->type_gpus[next];
		best = prev = nv;
		prev_t = next;
	}
	return have >= j->gpus && best > 0 ? best : T->best_any;
}

static double ideal(const struct dl_sim_job *j)
{
	return j->duration > 0 ? (double)j->duration : 1;
}

/* the arbiter's rho estimate now (see the top of the file) */
static double rho_est(struct themis *T, struct dl_sim *s, const struct dl_sim_job *j, int st)
{
	if (st == S_RUN || st == S_EXP)
		return (double)(j->finish_at - j->submit) / ideal(j);
	double el = (double)(dl_sim_now(s) - j->submit);
	return (el + j->work_left / best_rate(T, j)) / ideal(j);
}

/* a ranks before b: worse rho, then the seeded order, then the job's index */
static int cand_before(const struct cand *a, const struct cand *b)
{
	if (a->rho != b->rho)
		return a->rho > b->rho;
	if (a->tie != b->tie)
		return a->tie < b->tie;
	return a->idx < b->idx;
}

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	return cand_before(a, b) ? -1 : cand_before(b, a) ? 1 : 0;
}

/* v[0..n) in rank order (cand_before) */
DL_MERGE_SORT(sort_cands, struct cand, cand_before)

static void cswap(struct cand *a, struct cand *b)
{
	struct cand t = *a;
	*a = *b;
	*b = t;
}

/* rearrange v[0..n) so that v[0..k) are its k best (in no order): quickselect */
static void select_top(struct cand *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1 && k > lo && k < hi) {
		cswap(&v[lo + (hi - lo) / 2], &v[hi - 1]);
		struct cand piv = v[hi - 1];
		size_t st = lo;
		for (size_t i = lo; i + 1 < hi; i++)
			if (cand_before(&v[i], &piv))
				cswap(&v[i], &v[st++]);
		cswap(&v[st], &v[hi - 1]);
		if (st == k || st + 1 == k)
			return;
		if (st > k)
			hi = st;
		else
			lo = st + 1;
	}
}

/* ---- bids ---- */

static int type_ok(const struct dl_sim_job *j, int type)
{
	return j->type < 0 || j->type == type;
}

/* GPUs of node n on offer, up to want, appended to gbuf */
static int take_node(struct themis *T, int n, int want)
{
	const struct dl_node *nd = &T->c->nodes[n];
	int got = 0;
	for (int k = 0; k < nd->gpus && got < want; k++)
		if (offered(T, nd->first_gpu + k)) {
			DL_GROW(T->gbuf, T->gn + 1, T->gbuf_alloc);
			T->gbuf[T->gn++] = nd->first_gpu + k;
			got++;
		}
	return got;
}

static int off_of_rack(const struct themis *T, const struct dl_sim_job *j, size_t r)
{
	if (j->type >= T->ntypes)
		return 0;
	return dl_state_rack_free(T->offer, (int)r, j->type < 0 ? DL_ANY_TYPE : j->type);
}

static int off_of_type(const struct themis *T, const struct dl_sim_job *j)
{
	if (j->type >= T->ntypes)
		return 0;
	return dl_state_type_free(T->offer, j->type < 0 ? DL_ANY_TYPE : j->type);
}

/* nodes (of j's types) in [first, first + count) with GPUs on offer, most first */
static int nodes_by_offer(struct themis *T, const struct dl_sim_job *j, int first, int count,
			  int *out)
{
	int m = 0;
	for (int n = first; n < first + count; n++)
		if (dl_state_node_free(T->offer, n) > 0 && type_ok(j, T->c->nodes[n].type)) {
			int k = m++, on = dl_state_node_free(T->offer, n);
			for (; k > 0 && dl_state_node_free(T->offer, out[k - 1]) < on; k--)
				out[k] = out[k - 1];
			out[k] = n;
		}
	return m;
}

/*
 * The bid for the gang at gbuf[off..]: 1 when made, 0 when it is not worth
 * more than waiting a lease (then it is dropped), unless worthless bids are
 * allowed (make_bids: the cluster is idle).
 */
static int add_bid(struct themis *T, struct dl_sim *s, struct dl_sim_job *j, uint32_t ji, int off,
		   double num)
{
	double rate = dl_sim_rate_on(s, j, T->gbuf + off, j->gpus);
	double el = (double)(dl_sim_now(s) - j->submit);
	double den = el + (rate > 0 ? j->work_left / rate : INFINITY);
	double v = den > 0 ? log(num / den) : 0;
	if (!(v > 0)) {
		if (!(T->allow_worthless && rate > 0)) {
			T->gn = (size_t)off; /* not worth more than waiting a lease */
			return 0;
		}
		/* below every bid worth something; its rate still ranks it */
		v = WORTHLESS_EPS * rate / (rate + 1);
	}
	/* between equal bids, the one that preempts least (free GPUs before leased ones) */
	for (int k = 0; k < j->gpus; k++)
		v -= T->leased[T->gbuf[off + k]] * LEASE_EPS;
	DL_GROW(T->bids, T->nbids + 1, T->bids_alloc);
	T->bids[T->nbids++] = (struct bid){ji, off, j->gpus, v};
	return 1;
}

/*
 * A waiting job's bids at the best tier the offer allows; how many it made.
 * A placement not worth more than waiting is no bid and takes no place of
 * one: at the node tier, every node of that type would be worth as little
 * (the rate depends on the type alone there), so the type is passed over.
 */
static int placement_bids(struct themis *T, struct dl_sim *s, struct dl_sim_job *j, uint32_t ji,
			  double num)
{
	int g = j->gpus, made = 0;
	/* node tier: best fit (the fewest offered GPUs that hold the gang), faster types first */
	if (g <= T->maxg) {
		uint64_t worthless = 0; /* types (below 64) whose node bids are not worth it */
		int tried = 0;
		for (int cnt = g; cnt <= T->maxg && made < BIDS_PER_JOB; cnt++)
			for (int ti = 0; ti < T->ntypes && made < BIDS_PER_JOB; ti++) {
				int t = T->type_order[ti];
				if (!type_ok(j, t) || (t < 64 && (worthless >> t & 1)))
					continue;
				for (int n = dl_state_bucket_first(T->offer, t, cnt);
				     n >= 0 && made < BIDS_PER_JOB;
				     n = dl_state_bucket_next(T->offer, n)) {
					int off = (int)T->gn;
					take_node(T, n, g);
					tried = 1;
					if (add_bid(T, s, j, ji, off, num)) {
						made++;
					} else if (t < 64) {
						worthless |= UINT64_C(1) << t;
						break;
					}
				}
			}
		if (tried)
			return made;
	}
	/* rack tier: best-fit racks, filled from their fullest nodes */
	int any_rack = 0, picked = 0;
	while (made < BIDS_PER_JOB && picked < (int)T->c->nracks) {
		long best = -1;
		for (size_t r = 0; r < T->c->nracks; r++) {
			int o = off_of_rack(T, j, r);
			if (o < g)
				continue;
			any_rack = 1;
			/* the next best fit: skip racks already used */
			int used = 0;
			for (int q = 0; q < picked; q++)
				used |= T->tmp2[q] == (int)r;
			if (used)
				continue;
			if (best < 0 || o < off_of_rack(T, j, (size_t)best))
				best = (long)r;
		}
		if (best < 0)
			break;
		T->tmp2[picked++] = (int)best;
		const struct dl_rack *rk = &T->c->racks[best];
		int m = nodes_by_offer(T, j, rk->first_node, rk->nnodes, T->tmp);
		int off = (int)T->gn, got = 0;
		for (int q = 0; q < m && got < g; q++)
			got += take_node(T, T->tmp[q], g - got);
		if (add_bid(T, s, j, ji, off, num))
			made++;
		else if (T->ntypes == 1)
			break; /* on one type every rack placement is worth as little */
	}
	if (any_rack)
		return made;
	/* cluster tier: racks with the most on offer first, their fullest nodes first */
	int off = (int)T->gn, got = 0;
	int nr = (int)T->c->nracks;
	for (int q = 0; q < nr; q++)
		T->tmp2[q] = q;
	for (int a = 1; a < nr; a++) { /* racks by offer, most first (insertion sort) */
		int x = T->tmp2[a], k = a;
		for (; k > 0 &&
		       off_of_rack(T, j, (size_t)T->tmp2[k - 1]) < off_of_rack(T, j, (size_t)x);
		     k--)
			T->tmp2[k] = T->tmp2[k - 1];
		T->tmp2[k] = x;
	}
	for (int q = 0; q < nr && got < g; q++) {
		const struct dl_rack *rk = &T->c->racks[T->tmp2[q]];
		int m = nodes_by_offer(T, j, rk->first_node, rk->nnodes, T->tmp);
		for (int z = 0; z < m && got < g; z++)
			got += take_node(T, T->tmp[z], g - got);
	}
	if (got == g)
		return add_bid(T, s, j, ji, off, num);
	T->gn = (size_t)off;
	return 0;
}

/* the node-tier placements of a gang of g on the offer as it stands in this round */
static __attribute__((noinline)) struct tmpl *find_gang_tmpl(struct themis *T, int g)
{
	struct tmpl *tp = &T->tmpls[g];
	tp->round = T->round;
	tp->n = 0;
	int t = T->type_order[0];
	for (int cnt = g; cnt <= T->maxg && tp->n < BIDS_PER_JOB; cnt++)
		for (int n = dl_state_bucket_first(T->offer, t, cnt);
		     n >= 0 && tp->n < BIDS_PER_JOB; n = dl_state_bucket_next(T->offer, n)) {
			int off = (int)T->gn, k = tp->n++;
			take_node(T, n, g);
			tp->off[k] = off;
			tp->leased[k] = 0;
			for (int q = 0; q < g; q++)
				tp->leased[k] += T->leased[T->gbuf[off + q]];
		}
	return tp;
}

/*
 * find_gang_tmpl's placements, kept for the round: the rounds ask once for
 * every job that fits, so the look-up is inlined and the search is not
 */
static inline struct tmpl *gang_tmpl(struct themis *T, int g)
{
	struct tmpl *tp = &T->tmpls[g];
	return tp->round == T->round ? tp : find_gang_tmpl(T, g);
}

/*
 * A waiting job's bids as placement_bids makes them, when its rate is the
 * same on every node (wl_node, from wl_on_node) and a node holds its gang:
 * then every placement has one value, and they are the round's placements
 * for its gang size (gang_tmpl), found once. 0 when not so, or when the
 * value is not worth waiting for: make_bids decides then.
 */
static int node_bids(struct themis *T, dl_tick now, int g, dl_tick submit, double wl_best,
		     double wl_node, uint32_t ji)
{
	if (isnan(wl_node))
		return 0;
	const struct tmpl *tp = gang_tmpl(T, g);
	if (!tp->n)
		return 0;
	double el = (double)(now - submit);
	double num = el + (double)T->lease + wl_best, den = el + wl_node;
	double v = den > 0 ? log(num / den) : 0;
	if (!(v > 0))
		return 0;
	DL_GROW(T->bids, T->nbids + (size_t)tp->n, T->bids_alloc);
	for (int b = 0; b < tp->n; b++) {
		double vb = v;
		for (int k = 0; tp->leased[b] && k < g; k++)
			vb -= T->leased[T->gbuf[tp->off[b] + k]] * LEASE_EPS;
		T->bids[T->nbids++] = (struct bid){ji, tp->off[b], g, vb};
	}
	return 1;
}

/*
 * The bids of job j (round index ji): its own GPUs when its lease ended,
 * else up to BIDS_PER_JOB placements at the best tier the offer allows.
 * On an idle cluster (every GPU free: no lease will end, no checkpoint
 * finish) a waiting job that found no bid worth more than waiting bids
 * anyway, its placements valued just above nothing: waiting could never
 * bring it a better offer, and the run would wait forever.
 */
static void make_bids(struct themis *T, struct dl_sim *s, struct dl_sim_job *j, uint32_t ji, int st)
{
	int g = j->gpus;
	double el = (double)(dl_sim_now(s) - j->submit);
	dl_sim_sync(s, j);
	/* rho_old's numerator: wait one more lease, then run at the best rate */
	double num = el + (double)T->lease + j->work_left / best_rate(T, j);
	if (st == S_EXP) {
		const int *h = tj(T, j->slot)->hold;
		for (int k = 0; k < g; k++)
			if (!offered(T, h[k]))
				return;
		double den = (double)(j->finish_at - j->submit);
		double v = den > 0 ? log(num / den) : 0;
		if (!(v > 0))
			return;
		int off = (int)T->gn;
		DL_GROW(T->gbuf, T->gn + (size_t)g, T->gbuf_alloc);
		memcpy(T->gbuf + off, h, (size_t)g * sizeof(int));
		T->gn += (size_t)g;
		DL_GROW(T->bids, T->nbids + 1, T->bids_alloc);
		T->bids[T->nbids++] = (struct bid){ji, off, g, v};
		return;
	}
	if (off_of_type(T, j) < g)
		return;
	if (placement_bids(T, s, j, ji, num) || dl_sim_free_gpus(s) < dl_sim_total_gpus(s))
		return;
	T->allow_worthless = 1;
	placement_bids(T, s, j, ji, num);
	T->allow_worthless = 0;
}

/* ---- choosing the winners of a round ---- */

static int bid_free(struct themis *T, const struct bid *b)
{
	for (int k = 0; k < b->n; k++)
		if (T->gmark[T->gbuf[b->off + k]] == T->mark)
			return 0;
	return 1;
}

static int bid_cmp(const void *x, const void *y)
{
	const struct bid *a = x, *b = y;
	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1; /* the worse rho first */
	return (a->off > b->off) - (a->off < b->off);
}

/* 1 when some GPU is in every bid of the round (then at most one bid can win) */
static int share_a_gpu(const struct themis *T)
{
	const struct bid *b0 = &T->bids[0];
	for (int k = 0; k < b0->n; k++) {
		int g = T->gbuf[b0->off + k], all = 1;
		for (size_t b = 1; b < T->nbids && all; b++) {
			const struct bid *x = &T->bids[b];
			int in = 0;
			for (int q = 0; q < x->n && !in; q++)
				in = T->gbuf[x->off + q] == g;
			all = in;
		}
		if (all)
			return 1;
	}
	return 0;
}

/*
 * greedy when the bids share a GPU: the first bid in greedy's order wins
 * and blocks every other, found without sorting.
 */
static int greedy_clique(struct themis *T, size_t njobs)
{
	size_t best = 0;
	for (size_t b = 1; b < T->nbids; b++)
		if (bid_cmp(&T->bids[b], &T->bids[best]) < 0)
			best = b;
	for (size_t i = 0; i < njobs; i++)
		T->won[i] = -1;
	uint32_t job = T->bids[best].job;
	T->won[job] = (int)best;
	for (size_t b = 0; b < T->nbids; b++)
		if (T->bids[b].job != job)
			return 0; /* another job's most valuable bid was blocked */
	return 1;
}

static int bid_worth_more(const struct bid *a, const struct bid *b)
{
	return a->v > b->v;
}

/*
 * The bids in bid_cmp's order, which is theirs by value when bids of equal
 * value keep their order: they are made job by job, each job's in the order
 * of its GPUs in gbuf. So a stable sort by value alone.
 */
DL_MERGE_SORT(sort_bids_by_value, struct bid, bid_worth_more)

/* from this many bids on, greedy sorts them by radix_bids_by_value */
#define RADIX_MIN_BIDS 64

/*
 * The bids in sort_bids_by_value's order, by a stable sort on keys whose
 * unsigned order is the values' order reversed: a stable order is unique,
 * so the result is the same. dl_rsort orders the keys' upper halves (sign,
 * exponent and the leading mantissa bits; the lower bytes were half its
 * time); an insertion pass then orders the rare runs that share one. 0 and
 * -0 are equal values and get one key. 0 when nothing was sorted (merge-sort
 * them): a NaN has no place in the order, and long runs sharing an upper
 * half would make the insertion pass quadratic.
 */
static int radix_bids_by_value(struct themis *T)
{
	size_t n = T->nbids;
	DL_GROW(T->vkeys, 2 * n, T->vkeys_alloc);
	struct value_key *a = T->vkeys;
	for (size_t i = 0; i < n; i++) {
		double v = T->bids[i].v;
		if (isnan(v))
			return 0;
		/* larger values: smaller keys; -0 as 0 */
		a[i] = (struct value_key){~dl_rsort_key(v == 0 ? 0 : v), i};
	}
	a = dl_rsort(a, T->vkeys + n, n, sizeof(*a), offsetof(struct value_key, key), 4);
	size_t budget = 4 * n; /* (equal upper halves are neighbours now) */
	for (size_t i = 1; i < n; i++) {
		struct value_key x = a[i];
		size_t k = i;
		for (; k > 0 && x.key < a[k - 1].key; k--)
			a[k] = a[k - 1];
		a[k] = x;
		if (i - k > budget)
			return 0; /* long runs of near-equal values: the merge sort is cheaper */
		budget -= i - k;
	}
	DL_GROW(T->bids_tmp, n, T->bids_tmp_alloc);
	for (size_t i = 0; i < n; i++)
		T->bids_tmp[i] = T->bids[a[i].at];
	memcpy(T->bids, T->bids_tmp, n * sizeof(*T->bids));
	return 1;
}

/*
 * Greedy for the same objective: the most valuable bids first (ties: the
 * worse rho), each taken when its job has none yet and its GPUs are free.
 * Sorts the bids (unless they share a GPU). Returns 1 when every job that
 * bid got its most valuable bid (then no assignment is better, and the MIP
 * is not needed).
 */
static int greedy(struct themis *T, size_t njobs)
{
	if (!T->p.reference && T->nbids > 1 && share_a_gpu(T))
		return greedy_clique(T, njobs);
	int best_all = 1;
	T->mark++;
	for (size_t i = 0; i < njobs; i++)
		T->won[i] = -2; /* -2: no bid seen yet; -1: its best was taken */
	if (T->p.reference)
		qsort(T->bids, T->nbids, sizeof(*T->bids), bid_cmp);
	else if (T->nbids < RADIX_MIN_BIDS || !radix_bids_by_value(T))
		sort_bids_by_value(T->bids, T->nbids, &T->bids_tmp, &T->bids_tmp_alloc);
	for (size_t b = 0; b < T->nbids; b++) {
		const struct bid *w = &T->bids[b];
		int seen = T->won[w->job] != -2;
		if (seen && T->won[w->job] >= 0)
			continue;
		if (!bid_free(T, w)) {
			if (!seen)
				best_all = 0; /* its most valuable bid is gone */
			T->won[w->job] = -1;
			continue;
		}
		for (int k = 0; k < w->n; k++)
			T->gmark[T->gbuf[w->off + k]] = T->mark;
		T->won[w->job] = (int)b;
	}
	for (size_t i = 0; i < njobs; i++)
		if (T->won[i] < 0)
			T->won[i] = -1;
	return best_all;
}

/* a before b in the MIP's order: by job, then by where its GPUs are in gbuf (one job's differ) */
static int bid_job_before(const struct bid *a, const struct bid *b)
{
	if (a->job != b->job)
		return a->job < b->job;
	return a->off < b->off;
}

/* the bids in bid_job_before's order (a total one: any sort gives it) */
DL_MERGE_SORT(sort_bids_by_job, struct bid, bid_job_before)

/* bid x's objective in the MIP: its value, and the bonus of its bidder's rank among r */
static double mip_obj(const struct themis *T, const struct bid *x, size_t r)
{
	uint32_t rank = T->bidder_rank ? T->bidder_rank[x->job] : x->job;
	return x->v + RANK_EPS * (double)(r - rank);
}

/*
 * The MIP's answer without the solver, where it cannot differ: every bid
 * takes one GPU in common (one node on offer, say), so at most one wins, and
 * one objective beats every other and zero by far more than the solver's
 * tolerances (1e-7; GLPK then ends on that bid alone). 1 when decided.
 */
#define CLEAR_MARGIN 1e-5
static int mip_clique(struct themis *T, size_t nb, size_t r)
{
	const struct bid *b0 = &T->bids[0];
	if (!share_a_gpu(T))
		return 0;
	size_t best = 0;
	double top = mip_obj(T, b0, r), second = 0;
	for (size_t b = 1; b < T->nbids; b++) {
		double o = mip_obj(T, &T->bids[b], r);
		if (o > top) {
			second = top > second ? top : second;
			top = o;
			best = b;
		} else if (o > second) {
			second = o;
		}
	}
	if (!(top - second > CLEAR_MARGIN * (fabs(top) > 1 ? fabs(top) : 1)))
		return 0;
	for (size_t i = 0; i < nb; i++)
		T->won[i] = -1;
	T->won[T->bids[best].job] = (int)best;
	return 1;
}

/* a job's bids in a round, bids[first .. end), and the most any of them is worth */
struct job_bids {
	uint32_t first, end;
	double most;
};

/*
 * mip_search's state: the round's jobs (most valuable first), their bids'
 * objectives, a bound on what the jobs from q on can add (ub[q]); the best
 * packing found (best_pick: a bid per job, -1: none) and its objective, and
 * a bound on every other packing's (other).
 */
struct packing {
	struct themis *T;
	const struct job_bids *jobs;
	const double *obj, *ub;
	size_t njobs;
	int *pick, *best_pick;
	double best, other, margin;
	long budget;
};

/*
 * The packings that extend pick[0..q) (objective cur so far). A subtree is
 * skipped, its bound joining other, when it cannot decide anything: when
 * its bound is not above other, or, while the best is not yet clear of
 * other by the margin, not above the best plus the margin (it could only
 * hold packings that leave the round undecided).
 */
static void pack_from(struct packing *P, size_t q, double cur)
{
	struct themis *T = P->T;
	if (--P->budget < 0)
		return;
	if (q == P->njobs) {
		if (cur > P->best) {
			P->other = P->best > P->other ? P->best : P->other;
			P->best = cur;
			memcpy(P->best_pick, P->pick, P->njobs * sizeof(*P->pick));
		} else if (cur > P->other) {
			P->other = cur;
		}
		return;
	}
	double bound = cur + P->ub[q], bar = P->other;
	if (!(P->best - P->other > P->margin) && P->best + P->margin > bar)
		bar = P->best + P->margin;
	if (!(bound > bar)) {
		P->other = bound > P->other ? bound : P->other;
		return;
	}
	for (uint32_t b = P->jobs[q].first; b < P->jobs[q].end; b++) {
		const struct bid *x = &T->bids[b];
		int k = 0;
		while (k < x->n && T->gmark[T->gbuf[x->off + k]] != T->mark)
			k++;
		if (k < x->n)
			continue; /* a GPU of it is taken */
		for (k = 0; k < x->n; k++)
			T->gmark[T->gbuf[x->off + k]] = T->mark;
		P->pick[q] = (int)b;
		pack_from(P, q + 1, cur + P->obj[b]);
		for (k = 0; k < x->n; k++)
			T->gmark[T->gbuf[x->off + k]] = 0;
	}
	P->pick[q] = -1;
	pack_from(P, q + 1, cur);
}

/* how many subtrees mip_search looks at before it leaves the round to GLPK */
#define SEARCH_BUDGET 1024
/* the most bids mip_search takes (its arrays are on the stack) */
#define SEARCH_BIDS 256

/*
 * The MIP's answer without the solver, where it cannot differ, as
 * mip_clique's but for any round: a search of the packings (the bids
 * grouped by job, the most valuable jobs first, so that the bound on the
 * rest falls fast) finds the best, and the best beats every other packing
 * by far more than the solver's tolerances (a bound on the others:
 * pack_from). Rounds whose jobs have bids of equal value on other GPUs (the
 * common case: node placements of one rate) tie, and go to GLPK. 1 when
 * decided.
 */
static int mip_search(struct themis *T, size_t nb, size_t r)
{
	size_t n = T->nbids, nj = 0;
	struct job_bids jobs[SEARCH_BIDS];
	double obj[SEARCH_BIDS], ub[SEARCH_BIDS + 1];
	int pick[SEARCH_BIDS], best_pick[SEARCH_BIDS];
	if (n > SEARCH_BIDS)
		return 0;
	for (size_t b = 0; b < n; b++) {
		obj[b] = mip_obj(T, &T->bids[b], r);
		if (isnan(obj[b]))
			return 0;
		if (b == 0 || T->bids[b].job != T->bids[b - 1].job)
			jobs[nj++] = (struct job_bids){(uint32_t)b, (uint32_t)b, 0};
		struct job_bids *jb = &jobs[nj - 1];
		jb->end = (uint32_t)b + 1;
		jb->most = obj[b] > jb->most ? obj[b] : jb->most;
	}
	for (size_t q = 1; q < nj; q++) { /* most valuable first (insertion: a few dozen) */
		struct job_bids x = jobs[q];
		size_t k = q;
		for (; k > 0 && jobs[k - 1].most < x.most; k--)
			jobs[k] = jobs[k - 1];
		jobs[k] = x;
	}
	ub[nj] = 0;
	for (size_t q = nj; q-- > 0;)
		ub[q] = ub[q + 1] + jobs[q].most;
	struct packing P = {.T = T,
			    .jobs = jobs,
			    .obj = obj,
			    .ub = ub,
			    .njobs = nj,
			    .pick = pick,
			    .best_pick = best_pick,
			    .best = -INFINITY,
			    .other = -INFINITY,
			    .budget = SEARCH_BUDGET};
	P.margin = CLEAR_MARGIN * (ub[0] > 1 ? ub[0] : 1);
	T->mark++;
	pack_from(&P, 0, 0);
	if (P.budget < 0 || !(P.best - P.other > P.margin))
		return 0;
	for (size_t i = 0; i < nb; i++)
		T->won[i] = -1;
	for (size_t q = 0; q < nj; q++)
		if (best_pick[q] >= 0)
			T->won[T->bids[best_pick[q]].job] = best_pick[q];
	return 1;
}

/*
 * The exact choice among the round's nb bidders (of r candidates): max sum
 * of values, GPU-disjoint, one bid a job (0, or -1: keep greedy's).
 */
static int mip(struct themis *T, size_t nb, size_t r)
{
	if (!T->p.reference && mip_clique(T, nb, r))
		return 0;
	/* bids grouped by job again (greedy sorted them by value); won[] follows */
	sort_bids_by_job(T->bids, T->nbids, &T->bids_tmp, &T->bids_tmp_alloc);
	if (!T->p.reference && mip_search(T, nb, r))
		return 0;
	for (size_t i = 0; i < nb; i++)
		T->won[i] = -1;
	struct dl_lp *lp = dl_lp_new("themis", DL_LP_MAX);
	struct dl_err err = DL_ERR_INIT;
	T->mark++;
	int jrow = -1;
	uint32_t jlast = UINT32_MAX;
	size_t jfirst = 0;
	for (size_t b = 0; b < T->nbids; b++) {
		const struct bid *x = &T->bids[b];
		int col = dl_lp_add_col(lp, NULL, 0, 1, mip_obj(T, x, r));
		dl_lp_set_integer(lp, col);
		/* one bid a job (rows only for jobs with several bids) */
		if (x->job != jlast) {
			jlast = x->job;
			jfirst = b;
			jrow = -1;
		} else {
			if (jrow < 0) {
				jrow = dl_lp_add_row(lp, NULL, -DL_LP_INF, 1);
				dl_lp_coef(lp, jrow, (int)jfirst + 1, 1);
			}
			dl_lp_coef(lp, jrow, col, 1);
		}
		/* each GPU in one bid at most (rows only for GPUs in several) */
		for (int k = 0; k < x->n; k++) {
			int g = T->gbuf[x->off + k];
			if (T->gmark[g] != T->mark) {
				T->gmark[g] = T->mark;
				T->grow[g] = -1;
				T->gfirst[g] = col;
			} else {
				if (T->grow[g] < 0) {
					T->grow[g] = dl_lp_add_row(lp, NULL, -DL_LP_INF, 1);
					dl_lp_coef(lp, T->grow[g], T->gfirst[g], 1);
				}
				dl_lp_coef(lp, T->grow[g], col, 1);
			}
		}
	}
	struct dl_lp_opts o = DL_LP_OPTS_INIT;
	o.time_limit = 10;
	int rc = dl_lp_solve(lp, &o, &err);
	if (!rc) {
		for (size_t b = 0; b < T->nbids; b++)
			if (dl_lp_value(lp, (int)b + 1) > 0.5)
				T->won[T->bids[b].job] = (int)b;
	}
	dl_lp_free(lp);
	return rc;
}

/* ---- the auction ---- */

/* slot runs under a new lease, which may end at the first grid point at least L/2 away */
static void new_lease(struct themis *T, struct dl_sim *s, size_t slot)
{
	dl_tick now = dl_sim_now(s), L = T->lease;
	dl_tick at = (now + L / 2 + L - 1) / L * L;
	if (at <= now)
		at += L;
	set_state(T, slot, S_RUN);
	T->run[T->nrun - 1].end = at; /* (lease_add appends) */
}

/* slot holds its GPUs (its hold) under a new lease */
static void hold_gpus(struct themis *T, struct dl_sim *s, size_t slot)
{
	withdraw(T, tj(T, slot)->hold, tj(T, slot)->gpus);
	new_lease(T, s, slot);
}

/* the expired lease T->exp[i] goes on: its GPUs are its job's again, under a new lease */
static void renew(struct themis *T, struct dl_sim *s, size_t i)
{
	const struct lease *l = &T->exp[i];
	withdraw(T, l->hold, l->gpus);
	new_lease(T, s, l->slot);
}

static void start_won(struct themis *T, struct dl_sim *s, struct dl_sim_job *j)
{
	struct dl_sim_how how = DL_SIM_HOW(.gpus = tj(T, j->slot)->hold);
	if (dl_sim_start(s, j, &how) == DL_PLACED)
		hold_gpus(T, s, j->slot);
	else if (spot(T, j->slot)->st != S_RESV)
		set_state(T, j->slot, S_RESV); /* its GPUs are being checkpointed */
}

/* admission control: admit the oldest held-back jobs while the worst rho allows */
static void admit(struct themis *T, struct dl_sim *s)
{
	if (!(T->p.admission > 0) || T->out_head == T->nout)
		return;
	double worst = 0;
	int any = 0;
	for (size_t i = 0; i < T->spots.n; i++) {
		int st = T->spots.v[i].st;
		if (st == S_NONE || st == S_OUT)
			continue;
		double r = rho_est(T, s, dl_sim_slot_job(s, i), st);
		if (r > worst)
			worst = r;
		any = 1;
	}
	while (T->out_head < T->nout && (!any || worst < T->p.admission)) {
		size_t slot = T->out[T->out_head++];
		struct dl_sim_job *j = dl_sim_slot_job(s, slot);
		to_wait(T, s, j);
		double r = rho_est(T, s, j, S_WAIT);
		if (r > worst)
			worst = r;
		any = 1;
	}
	if (T->out_head == T->nout)
		T->out_head = T->nout = 0;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A round's outcome among its bidders rc[0..nb) (in rank order; bidder_rank
 * gives each its rank among the round's r candidates, NULL: nb == r and the
 * ranks are the indices): its bids are made (T->bids), the winners chosen
 * and given their GPUs.
 */
static void settle_round(struct themis *T, struct dl_sim *s, const struct cand *rc, size_t nb,
			 size_t r)
{
	struct dl_themis_stats *S = T->p.stats;
	(void)s;
	int optimal = greedy(T, nb);
	if (!optimal && T->nbids <= (size_t)T->p.mip_max) {
		if (mip(T, nb, r) == 0) {
			if (S)
				S->mip++;
		} else {
			greedy(T, nb); /* a solver failure (time limit): keep the greedy choice */
			if (S)
				S->greedy++;
		}
	} else if (S) {
		S->greedy++;
	}
	for (size_t i = 0; i < nb; i++) {
		if (T->won[i] < 0)
			continue;
		const struct bid *w = &T->bids[T->won[i]];
		/* own GPUs: the same array (hold) */
		int *h = hold_room(T, rc[i].slot, w->n);
		if (h != T->gbuf + w->off)
			memmove(h, T->gbuf + w->off, (size_t)w->n * sizeof(int));
		withdraw(T, h, w->n);
		DL_GROW(T->winners, T->nwin + 1, T->win_alloc);
		T->winners[T->nwin++] = rc[i].slot;
	}
}

static void rounds_of_cands(struct themis *T, struct dl_sim *s, size_t n, int sorted, int smallest);

/* the rounds as Themis holds them: every candidate ranked, every one asked to bid */
static void rounds_of_all(struct themis *T, struct dl_sim *s)
{
	size_t n = T->nwait + T->nexp;
	DL_GROW(T->cand, n, T->cand_alloc);
	size_t m = 0;
	for (size_t i = 0; i < T->nwait; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, T->wait[i]);
		T->cand[m++] = (struct cand){j->slot, rho_est(T, s, j, S_WAIT), tj(T, j->slot)->tie,
					     j->idx};
	}
	for (size_t i = 0; i < T->nexp; i++) {
		struct dl_sim_job *j = dl_sim_slot_job(s, T->exp[i].slot);
		T->cand[m++] = (struct cand){j->slot, rho_est(T, s, j, S_EXP), tj(T, j->slot)->tie,
					     j->idx};
	}
	size_t k = (size_t)floor(T->p.knob * (double)n + 1e-9);
	if (k < 1)
		k = 1;
	/* many small rounds: rank everyone once rather than select round by round */
	int sorted = k * 8 < n;
	if (sorted)
		qsort(T->cand, n, sizeof(*T->cand), cand_cmp);
	int smallest = INT32_MAX; /* no bidder needs fewer GPUs: stop when fewer are left */
	for (size_t i = 0; i < n; i++) {
		int g = dl_sim_slot_job(s, T->cand[i].slot)->gpus;
		if (g < smallest)
			smallest = g;
	}
	rounds_of_cands(T, s, n, sorted, smallest);
}

/*
 * The rounds among the n candidates T->cand (sorted: in rank order; else
 * each round selects its best), until fewer than smallest GPUs are left.
 */
static void rounds_of_cands(struct themis *T, struct dl_sim *s, size_t n, int sorted, int smallest)
{
	struct dl_themis_stats *S = T->p.stats;
	size_t k = (size_t)floor(T->p.knob * (double)n + 1e-9);
	if (k < 1)
		k = 1;
	DL_GROW(T->won, n, T->won_alloc);
	dl_tick now = dl_sim_now(s);
	T->bidder_rank = NULL;
	for (size_t at = 0; at < n && offered_total(T) >= smallest; at += k) {
		size_t r = n - at < k ? n - at : k;
		if (!sorted) {
			select_top(T->cand + at, n - at, r);
			qsort(T->cand + at, r, sizeof(*T->cand), cand_cmp);
		}
		struct cand *rc = T->cand + at;
		T->nbids = 0;
		T->gn = 0;
		T->round++;
		if (S)
			S->rounds++;
		int off = offered_total(T); /* (bids take nothing off the offer) */
		for (size_t i = 0; i < r; i++) {
			if (i + PREFETCH_AHEAD < r)
				prefetch_job(T, s, rc[i + PREFETCH_AHEAD].slot);
			struct dl_sim_job *j = dl_sim_slot_job(s, rc[i].slot);
			if (j->gpus > off)
				continue;
			int st = spot(T, rc[i].slot)->st;
			const struct themis_job *q = tj(T, rc[i].slot);
			if (st == S_EXP ||
			    !node_bids(T, now, j->gpus, j->submit, j->work_left / q->best,
				       q->wl_node, (uint32_t)i))
				make_bids(T, s, j, (uint32_t)i, st);
		}
		if (!T->nbids)
			continue;
		settle_round(T, s, rc, r, r);
	}
}

/* a ranks before b (entries of T->ranked, rho brought to now): as cand_before */
static int ranked_before(const struct themis *T, const struct ranked *a, const struct ranked *b)
{
	if (a->rho != b->rho)
		return a->rho > b->rho;
	const struct waiter *x = &T->waiters[a->slot], *y = &T->waiters[b->slot];
	if (x->tie != y->tie)
		return x->tie < y->tie;
	return x->idx < y->idx;
}

/* e's rho brought to now; 0 when e is void (its job left the queue since) */
static int ranked_now(const struct themis *T, struct ranked *e, dl_tick now)
{
	if (T->wseq[e->slot] != e->seq)
		return 0;
	e->rho = ((double)(now - e->submit) + e->wl_best) / e->ideal;
	return 1;
}

/*
 * T->ranked[lo, hi) in rank order, their rhos brought to now already: by
 * insertion (a job that moves finds its place by galloping back, then
 * bisecting) while the moves stay under budget, else by qsort (cand_cmp).
 * Without a NaN rho the order is total (rho, tie, index), so any part
 * sorted alone is in the order a sort of the whole gives it (rank_head).
 */
static void sort_ranked(struct themis *T, size_t lo, size_t hi, size_t budget)
{
	struct ranked *v = T->ranked;
	size_t moves = 0;
	for (size_t m = lo; m < hi && moves < budget; m++) {
		struct ranked e = v[m];
		if (m == lo || !ranked_before(T, &e, &v[m - 1]))
			continue;
		size_t good = m - 1, d = 1, at = lo; /* e before v[good] */
		while (good > lo) {
			size_t x = d < good - lo ? good - d : lo;
			if (!ranked_before(T, &e, &v[x])) {
				at = x + 1;
				break;
			}
			good = x;
			d *= 2;
		}
		while (at < good) {
			size_t mid = at + (good - at) / 2;
			if (ranked_before(T, &e, &v[mid]))
				good = mid;
			else
				at = mid + 1;
		}
		memmove(v + at + 1, v + at, (m - at) * sizeof(*v));
		v[at] = e;
		moves += m - at;
	}
	if (moves < budget)
		return;
	size_t n = hi - lo;
	DL_GROW(T->cand, n, T->cand_alloc);
	for (size_t i = 0; i < n; i++) {
		const struct waiter *w = &T->waiters[v[lo + i].slot];
		T->cand[i] = (struct cand){lo + i, v[lo + i].rho, w->tie, w->idx};
	}
	qsort(T->cand, n, sizeof(*T->cand), cand_cmp);
	DL_GROW(T->rest, n, T->rest_alloc);
	for (size_t i = 0; i < n; i++)
		T->rest[i] = v[T->cand[i].slot];
	memcpy(v + lo, T->rest, n * sizeof(*v));
}

/*
 * T->ranked brought to now: left jobs dropped, every rho recomputed, and
 * sorted again (sort_ranked: rhos grow at rates of their own, so the order
 * of the last auction is nearly right). The smallest gang among them in
 * *smallest.
 */
static void rank_waiters(struct themis *T, dl_tick now, int *smallest)
{
	size_t m = 0, budget = 8 * (T->nranked + 16);
	struct ranked *v = T->ranked;
	for (size_t i = 0; i < T->nranked; i++) {
		struct ranked e = v[i];
		if (!ranked_now(T, &e, now))
			continue;
		v[m++] = e;
	}
	T->nranked = m;
	sort_ranked(T, 0, m, budget);
	T->nsorted = m;
	*smallest = smallest_waiting(T);
}

/*
 * T->ranked brought to now as rank_waiters brings it, but sorted only as
 * far as the first rounds are likely to reach: the entries whose rho is
 * above that of the one now about `want` places down (a bar: they rank
 * before every other entry) come first, in rank order; the rest follow
 * in the order they had (sort_ranked sorts them if a round reaches them).
 * Returns how many are in order. The smallest gang among all in *smallest.
 * An auction reaches about a third of the queue on the bench trace, so
 * this spares the insertion pass two thirds of it. Where a rho could be
 * NaN (no order) or the queue is short, rank_waiters ranks it all.
 */
static size_t rank_head(struct themis *T, dl_tick now, size_t want, int *smallest)
{
	size_t n = T->nranked;
	struct ranked *v = T->ranked;
	if (T->nan_wl || want * 2 > n) {
		rank_waiters(T, now, smallest);
		return T->nranked;
	}
	double bar = ((double)(now - v[want].submit) + v[want].wl_best) / v[want].ideal;
	DL_GROW(T->rest, n, T->rest_alloc);
	size_t head = 0, nrest = 0, was_sorted = T->nsorted < n ? T->nsorted : n, risers = n;
	for (size_t i = 0; i < n; i++) {
		if (i == was_sorted)
			risers = head; /* the head's entries from here on were not in order */
		struct ranked e = v[i];
		if (!ranked_now(T, &e, now))
			continue;
		/*
		 * (A branch, one store: the old order is nearly the new one, so
		 * the entries fall above the bar, then below it, with few
		 * exceptions. Storing each entry to both places, without a
		 * branch, cost on_schedule 13% more time at 600k jobs.)
		 */
		if (e.rho > bar)
			v[head++] = e; /* (head <= i: in place) */
		else
			T->rest[nrest++] = e;
	}
	memcpy(v + head, T->rest, nrest * sizeof(*v));
	T->nranked = head + nrest;
	if (risers > head)
		risers = head;
	/*
	 * The head is the entries that were in order (still nearly so) and
	 * the risers from the rest, in no order: each part sorted alone, then
	 * merged, spares the risers long moves through the first part.
	 */
	sort_ranked(T, 0, risers, 8 * (risers + 16));
	sort_ranked(T, risers, head, 8 * (head - risers + 16));
	if (risers > 0 && risers < head && ranked_before(T, &v[risers], &v[risers - 1])) {
		size_t a = 0, b = risers, o = 0;
		while (a < risers && b < head)
			T->rest[o++] = ranked_before(T, &v[b], &v[a]) ? v[b++] : v[a++];
		while (a < risers)
			T->rest[o++] = v[a++];
		memcpy(v, T->rest, o * sizeof(*v)); /* (v[b..head) are in place) */
	}
	*smallest = smallest_waiting(T);
	return head;
}

/*
 * The jobs whose lease ended, in rank order, into e[0..T->nexp): T->runs
 * brought up to date (the jobs started since ranked, by rho_est, and merged
 * in; those that stopped dropped), then its expired ones picked out. The
 * order is total (rho, tie, index), so it is the order a sort gives them.
 */
static void rank_expired(struct themis *T, struct dl_sim *s, struct cand *e)
{
	size_t m = 0;
	for (size_t i = 0; i < T->nfresh; i++) {
		struct cand c = T->fresh[i];
		if (!runs_now(T, &c))
			continue;
		struct dl_sim_job *j = dl_sim_slot_job(s, c.slot);
		c.rho = rho_est(T, s, j, S_RUN);
		c.tie = tj(T, c.slot)->tie;
		c.idx = j->idx;
		T->fresh[m++] = c;
	}
	T->nfresh = 0;
	sort_cands(T->fresh, m, &T->cand_tmp, &T->cand_tmp_alloc);
	DL_GROW(T->runs_tmp, T->nruns + m, T->runs_tmp_alloc);
	struct cand *out = T->runs_tmp;
	size_t a = 0, b = 0, o = 0, ne = 0;
	while (a < T->nruns || b < m) {
		if (a < T->nruns && !runs_now(T, &T->runs[a])) {
			a++;
			continue;
		}
		const struct cand *c =
			a < T->nruns && (b == m || cand_before(&T->runs[a], &T->fresh[b]))
				? &T->runs[a++]
				: &T->fresh[b++];
		out[o++] = *c;
		if (spot(T, c->slot)->st == S_EXP)
			e[ne++] = *c;
	}
	size_t out_alloc = T->runs_tmp_alloc;
	T->runs_tmp = T->runs;
	T->runs_tmp_alloc = T->runs_alloc;
	T->runs = out;
	T->runs_alloc = out_alloc;
	T->nruns = o;
}

/*
 * The rounds of an auction where leases end, as rounds_of_all holds them,
 * from the waiting jobs kept ranked (rank_waiters) merged with the jobs
 * whose lease ended, sorted alone (their rho stands still while they run).
 * The order is total (rho, tie, index), so the rounds are the same.
 */
static void rounds_at_lease_end(struct themis *T, struct dl_sim *s)
{
	int smallest;
	rank_waiters(T, dl_sim_now(s), &smallest);
	size_t nw = T->nranked, ne = T->nexp, n = nw + ne;
	DL_GROW(T->cand, 2 * n, T->cand_alloc);
	struct cand *e = T->cand + n; /* the expired, then merged into T->cand[0..n) */
	rank_expired(T, s, e);
	for (size_t i = 0; i < ne; i++)
		if (T->exp[i].gpus < smallest)
			smallest = T->exp[i].gpus;
	size_t a = 0, b = 0;
	for (size_t m = 0; m < n; m++) {
		struct cand w = {0, 0, 0, 0, 0};
		if (a < nw) {
			const struct ranked *r = &T->ranked[a];
			const struct waiter *x = &T->waiters[r->slot];
			w = (struct cand){r->slot, r->rho, x->tie, x->idx, 0};
		}
		if (a < nw && (b == ne || cand_before(&w, &e[b]))) {
			T->cand[m] = w;
			a++;
		} else {
			T->cand[m] = e[b++];
		}
	}
	rounds_of_cands(T, s, n, 1, smallest);
}

/*
 * The same rounds when no lease ends, among the waiting jobs alone: ranked
 * incrementally (rank_waiters), and in each round only those that fit the
 * GPUs still on offer are asked, as rounds_of_all asks them; the rest of a
 * round costs a look at its gang size.
 */
/* 1 when some GPU is in every placement of the gangs used in this round (clear_round) */
static int templates_share_a_gpu(struct themis *T)
{
	const struct tmpl *first = NULL;
	for (int g = 1; g <= T->maxg && !first; g++)
		if (T->tmpls[g].used == T->round)
			first = &T->tmpls[g];
	for (int q = 0; first && q < first->n; q++) { /* (any placement holds the common GPU) */
		int gpu = T->gbuf[first->off[0] + q], all = 1;
		for (int g = 1; g <= T->maxg && all; g++) {
			if (T->tmpls[g].used != T->round)
				continue;
			const struct tmpl *tp = &T->tmpls[g];
			for (int b = 0; b < tp->n && all; b++) {
				int in = 0;
				for (int x = 0; x < g && !in; x++)
					in = T->gbuf[tp->off[b] + x] == gpu;
				all = in;
			}
		}
		if (all)
			return 1;
	}
	return 0;
}

/*
 * A round of rounds_of_waiters settled without making its bids, where that
 * gives the same winner: every job that fits bids from the round's node
 * placements (node_bids), more than --mip-max bids in all, and they all
 * take one GPU in common. Then greedy_clique gives the round to the first
 * bid of the most valuable job (the worse-ranked on a tie), and that is
 * the round's outcome (no MIP: too many bids). The values are compared as
 * their logs' arguments, the log taken only near the top, where two could
 * round to one value. 1 when settled; 0: hold the round as usual.
 */
static int clear_round(struct themis *T, dl_tick now, size_t at, size_t r, int off)
{
	DL_GROW(T->qbuf, r, T->qbuf_alloc);
	size_t nbids = 0;
	double qmax = 0;
	for (size_t i = 0; i < r; i++) {
		const struct ranked *e = &T->ranked[at + i];
		const struct waiter *w = &T->waiters[e->slot];
		T->qbuf[i] = NAN;
		if (w->gpus > off)
			continue;
		double wl_node = w->wl_node;
		if (isnan(wl_node))
			return 0;
		struct tmpl *tp = gang_tmpl(T, w->gpus);
		if (!tp->n)
			return 0;
		for (int b = 0; b < tp->n; b++)
			if (tp->leased[b])
				return 0;
		double el = (double)(now - e->submit);
		double num = el + (double)T->lease + e->wl_best, den = el + wl_node;
		if (!(den > 0))
			return 0;
		double q = num / den;
		if (!(q > 1)) /* log(q) not above 0: not worth waiting for (make_bids) */
			return 0;
		T->qbuf[i] = q;
		if (q > qmax)
			qmax = q;
		nbids += (size_t)tp->n;
		tp->used = T->round;
	}
	if (nbids <= (size_t)T->p.mip_max || !templates_share_a_gpu(T))
		return 0;
	size_t best = r;
	double vbest = 0, near = qmax * (1 - 1e-12);
	for (size_t i = 0; i < r; i++)
		if (T->qbuf[i] >= near) {
			double v = log(T->qbuf[i]);
			if (best == r || v > vbest) {
				best = i;
				vbest = v;
			}
		}
	const struct ranked *e = &T->ranked[at + best];
	int g = T->waiters[e->slot].gpus;
	const struct tmpl *tp = &T->tmpls[g];
	int *h = hold_room(T, e->slot, g);
	memcpy(h, T->gbuf + tp->off[0], (size_t)g * sizeof(int));
	withdraw(T, h, g);
	DL_GROW(T->winners, T->nwin + 1, T->win_alloc);
	T->winners[T->nwin++] = e->slot;
	if (T->p.stats)
		T->p.stats->greedy++;
	return 1;
}

static void rounds_of_waiters(struct themis *T, struct dl_sim *s)
{
	struct dl_themis_stats *S = T->p.stats;
	int smallest;
	size_t want = (size_t)floor(T->p.knob * (double)T->nranked + 1e-9);
	size_t sorted = rank_head(T, dl_sim_now(s), 2 * (want > 0 ? want : 1), &smallest);
	size_t n = T->nranked;
	size_t k = (size_t)floor(T->p.knob * (double)n + 1e-9);
	if (k < 1)
		k = 1;
	DL_GROW(T->brank, k, T->brank_alloc);
	DL_GROW(T->won, k, T->won_alloc);
	dl_tick now = dl_sim_now(s);
	for (size_t at = 0; at < n && offered_total(T) >= smallest; at += k) {
		size_t r = n - at < k ? n - at : k, m = 0;
		if (at + r > sorted) { /* the round reaches past rank_head's bar */
			sort_ranked(T, sorted, n, 8 * (n - sorted + 16));
			sorted = n;
		}
		DL_GROW(T->cand, k, T->cand_alloc);
		if (S)
			S->rounds++;
		T->nbids = 0;
		T->gn = 0;
		T->round++;
		int off = offered_total(T); /* (bids take nothing off the offer) */
		if (clear_round(T, now, at, r, off))
			continue;
		for (size_t i = at; i < at + r; i++) {
			const struct ranked *e = &T->ranked[i];
			const struct waiter *w = &T->waiters[e->slot];
			if (w->gpus > off)
				continue;
			T->cand[m] = (struct cand){e->slot, e->rho, w->tie, w->idx};
			T->brank[m] = (uint32_t)(i - at);
			if (!node_bids(T, now, w->gpus, e->submit, e->wl_best, w->wl_node,
				       (uint32_t)m))
				make_bids(T, s, dl_sim_slot_job(s, e->slot), (uint32_t)m, S_WAIT);
			m++;
		}
		if (!T->nbids)
			continue;
		T->bidder_rank = T->brank;
		settle_round(T, s, T->cand, m, r);
		T->bidder_rank = NULL;
	}
	T->nsorted = sorted;
}

static void auction(struct themis *T, struct dl_sim *s)
{
	struct dl_themis_stats *S = T->p.stats;
	unsigned char *leased = T->leased;
	/* the expired leases' GPUs are on offer */
	for (size_t i = 0; i < T->nexp; i++) {
		const struct lease *l = &T->exp[i];
		if (i + PREFETCH_AHEAD < T->nexp)
			__builtin_prefetch(l[PREFETCH_AHEAD].hold);
		offer(T, l->hold, l->gpus);
		for (int k = 0; k < l->gpus; k++)
			leased[l->hold[k]] = 1;
	}
	if (!T->nwait) { /* nobody else bids: every lease is renewed */
		while (T->nexp) {
			const struct lease *l = &T->exp[T->nexp - 1];
			for (int q = 0; q < l->gpus; q++)
				leased[l->hold[q]] = 0;
			renew(T, s, T->nexp - 1);
			if (S)
				S->renewed++;
		}
		return;
	}
	if (!offered_total(T))
		return;
	if (S)
		S->auctions++;
	T->nwin = 0;
	if (T->p.reference)
		rounds_of_all(T, s);
	else if (T->nexp)
		rounds_at_lease_end(T, s);
	else
		rounds_of_waiters(T, s);
	/*
	 * Expired leases: renewed when the job won its GPUs or nobody took any;
	 * lost (preempted) when someone won one of them. Winners are marked by
	 * their GPUs being off the offer; a job's own winning bid is its hold.
	 */
	for (size_t i = 0; i < T->nwin; i++) {
		if (i + PREFETCH_AHEAD < T->nwin) {
			const struct spot *ahead = spot(T, T->winners[i + PREFETCH_AHEAD]);
			if (ahead->st == S_EXP)
				__builtin_prefetch(T->exp[ahead->pos].hold);
		}
		const struct spot *q = spot(T, T->winners[i]);
		if (q->st == S_EXP) {
			const struct lease *l = &T->exp[q->pos];
			for (int k = 0; k < l->gpus; k++)
				leased[l->hold[k]] = 0;
			new_lease(T, s, T->winners[i]);
			if (S)
				S->renewed++;
		}
	}
	for (size_t i = T->nexp; i-- > 0;) {
		const struct lease *l = &T->exp[i];
		if (i >= PREFETCH_AHEAD)
			__builtin_prefetch(l[-PREFETCH_AHEAD].hold);
		size_t slot = l->slot;
		int taken = 0;
		for (int k = 0; k < l->gpus; k++) {
			taken |= !offered(T, l->hold[k]);
			leased[l->hold[k]] = 0;
		}
		if (taken) {
			set_state(T, slot, S_SAVE);
			dl_sim_preempt(s, dl_sim_slot_job(s, slot));
			if (S)
				S->lost++;
		} else {
			renew(T, s, i);
			if (S)
				S->renewed++;
		}
	}
	for (size_t i = 0; i < T->nwin; i++) {
		size_t slot = T->winners[i];
		if (spot(T, slot)->st != S_WAIT)
			continue;
		struct dl_sim_job *j = dl_sim_slot_job(s, slot);
		set_state(T, slot, S_RESV);
		if (S)
			S->won++;
		start_won(T, s, j);
	}
}

/* ---- callbacks ---- */

static void on_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct themis *T = st;
	struct themis_job *q = tj(T, j->slot);
	spot(T, j->slot)->st = S_NONE; /* reset: the slot's last job left its state */
	q->gpus = j->gpus;
	/* ties: a draw from the job's own stream of --seed (the same whatever else happens) */
	struct dl_rng r;
	dl_rng_seed_stream(&r, T->p.seed, j->idx);
	q->tie = dl_rng_u64(&r);
	q->best = find_best_rate(T, s, j);
	if (T->p.admission > 0) {
		spot(T, j->slot)->st = S_OUT;
		DL_GROW(T->out, T->nout + 1, T->out_alloc);
		T->out[T->nout++] = j->slot;
	} else {
		to_wait(T, s, j);
	}
	T->dirty = 1;
}

static void on_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct themis *T = st;
	/* its GPUs nobody won are on offer already; it bids again */
	to_wait(T, s, j);
	T->dirty = 1;
}

static void on_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct themis *T = st;
	(void)s;
	offer(T, tj(T, j->slot)->hold, j->gpus);
	set_state(T, j->slot, S_NONE);
	T->dirty = 1;
}

static int waiters(const struct themis *T)
{
	return T->nwait > 0 || T->out_head < T->nout;
}

static int on_timer(void *st, struct dl_sim *s, size_t ji, int kind, uint64_t stamp)
{
	struct themis *T = st;
	(void)s;
	(void)ji;
	if (kind != T_GRID || stamp != T->grid_stamp)
		return 0;
	T->grid_at = -1;
	return waiters(T); /* on_schedule ends the leases due now */
}

/*
 * Leases end lazily: only a grid point with jobs waiting needs the leases
 * that are due to end (a lease nobody bids for is renewed as it stands, so
 * a job running alone costs no event per lease). A job-less timer wakes the
 * policy at the next grid point while jobs wait.
 */
static void end_leases(struct themis *T, struct dl_sim *s)
{
	dl_tick now = dl_sim_now(s);
	if (!waiters(T) || now % T->lease || T->expired_at == now)
		return;
	T->expired_at = now;
	for (size_t i = T->nrun; i-- > 0;) {
		if (T->run[i].end <= now) {
			set_state(T, T->run[i].slot, S_EXP);
			T->dirty = 1;
		}
	}
}

static void on_schedule(void *st, struct dl_sim *s)
{
	struct themis *T = st;
	/* winners whose GPUs were being checkpointed start when they are free */
	for (size_t i = T->nresv; i-- > 0;)
		start_won(T, s, dl_sim_slot_job(s, T->resv[i]));
	end_leases(T, s);
	if (T->dirty) {
		T->dirty = 0;
		double t0 = T->p.stats ? wall() : 0;
		admit(T, s);
		if (T->nexp || (T->nwait && offered_total(T)))
			auction(T, s);
		if (T->p.stats)
			T->p.stats->seconds += wall() - t0;
	}
	dl_tick now = dl_sim_now(s);
	if (waiters(T) && T->grid_at <= now) {
		T->grid_at = (now / T->lease + 1) * T->lease;
		T->grid_stamp++;
		dl_sim_timer(s, T->grid_at, DL_SIM_NOJOB, T_GRID, T->grid_stamp);
	}
}

const struct dl_sim_policy_ops dl_sim_themis = {
	.name = "themis",
	.summary = "Themis: leases auctioned to the worst finish-time fairness (rho) first",
	.opts = dl_themis_opts,
	.params_size = sizeof(struct dl_themis_params),
	.create = create,
	.destroy = destroy,
	.arrive = on_arrive,
	.saved = on_saved,
	.finish = on_finish,
	.timer = on_timer,
	.schedule = on_schedule,
};
