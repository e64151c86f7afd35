/*
 * engine.c: the discrete-event simulator core (contract in sim.h and
 * policy.h). Times are integer ticks. Events live in three queues, each in
 * time order: completions of running jobs in an indexed 4-ary heap (a job's
 * entry moves when its rate changes and leaves when it is preempted, so
 * nothing stale accumulates), checkpoint ends in a FIFO (they are all
 * --checkpoint-cost after the preemption, so they come in the order they are
 * made) and policy timers in a 4-ary heap; arrivals come from the sorted
 * trace. Active jobs live in slots (fixed-size chunks that never move,
 * reused through a free list); the rest of the trace stays compact.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cluster/state.h"
#include "core/num.h"
#include "core/strmap.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "trace/throughputs.h"

/* a run ends with an error rather than let a time pass this (about 146,000 years) */
#define HORIZON	   (INT64_C(1) << 62)
#define SLOT_CHUNK 1024 /* job slots are allocated this many at a time (they never move) */
/*
 * j->type of a job whose trace names a GPU type the cluster does not have
 * (beside DL_ANY_TYPE and the type indices): rejected on arrival, so no
 * policy ever sees it
 */
#define UNKNOWN_TYPE (-2)
/*
 * Scheduling passes at one instant before a run ends with "does not settle":
 * each pass is only run after events at that instant (a preemption at zero
 * cost frees GPUs at once), so a policy that needs more is thrashing.
 */
#define MAX_PASSES_PER_INSTANT 100000
/*
 * Preemptions with no arrival or completion in between, after which a run
 * is looked at for a livelock (stall_check), and the share of the cluster's
 * GPU time that must have gone to progress between two such looks.
 */
#define STALL_PREEMPTIONS 1000000
#define STALL_USEFUL	  1e-4
#define PROGRESS_CALLS	  100 /* cfg->progress: about every 1% of the jobs */

/* a policy timer (in `timers`) */
struct event {
	dl_tick t;
	uint64_t seq;	/* ties at one time: in the order they were made */
	uint64_t stamp; /* the policy's stamp */
	uint32_t job;	/* the job's index, UINT32_MAX for none */
	int32_t kind;	/* the policy's kind */
};

/*
 * A completion's key (in `fin`): its time, and among completions at one
 * time the order they were made in. The keys are an array of their own, the
 * jobs' slots another: a step down the heap compares four children, which
 * then share one or two cache lines instead of four (a start, preemption or
 * completion takes a heap step or more on every level).
 */
struct fin_key {
	dl_tick t;
	uint64_t seq;
};

struct finheap {
	struct fin_key *a;
	uint32_t *job; /* per entry: the job's slot */
	size_t n, alloc;
};

/*
 * A (model, gang size) of the trace with a throughputs table (sim.h): its
 * speed on each type relative to the reference type, and spread over nodes
 * (the table's TYPE_unconsolidated; -1 when none).
 */
struct trow {
	double ref;		/* steps/s on the reference type; 0: no entry (type speeds) */
	double *speed, *spread; /* [ntypes] */
	int missing;		/* some type fell back to its speed */
	int forbids;		/* some type has speed 0 */
	const char *
		never; /* why the job can never run (a throughput of 0 on the reference), or NULL */
};

/* does the table give model on gpus GPUs (alone) a throughput above 0 on some type? */
static int runs_on_some_type(const struct dl_tputs *tt, const char *model, int gpus)
{
	for (size_t i = 0; i < tt->n; i++) {
		const struct dl_tput *e = &tt->v[i];
		if (e->gpus == gpus && !*e->partner && e->throughput > 0 &&
		    !strcmp(e->model, model))
			return 1;
	}
	return 0;
}

/*
 * A checkpoint end: the job's slot, so that its delivery reaches the job
 * without the per-index slot table (a cache miss per checkpoint end on a
 * large trace), and its index, which tells whether the slot still holds it.
 */
struct saving {
	dl_tick t;
	uint64_t version;
	uint32_t job, slot;
};

/*
 * A GPU's occupancy: the jobs on it (packing; gavel's exact shares) and the
 * integral over time of 1/jobs while occupied (ticks), as of `since`: a
 * job's occupied time on a GPU is its growth while it is there, so the jobs
 * packed on a GPU share its time and their sum is the time it was occupied
 * (results' occupied_gpu_s). One record, not three arrays: a start or
 * release reads all three, and on a big run each array's line was a cache
 * miss of its own.
 */
struct gpu_occ {
	dl_tick since;
	double share;
	uint16_t jobs; /* (as wide as it always was) */
};

struct evheap {
	struct event *a;
	size_t n, alloc;
};

struct dl_sim {
	const struct dl_sim_config *cfg;
	struct dl_sim_stats *st;
	const struct dl_sim_trace *trace;
	struct dl_sim_trace own; /* cfg->jobs converted */
	size_t njobs;
	dl_tick origin; /* the first submit, in trace time */
	dl_tick now;	/* ticks after origin */
	dl_tick ckpt, restore;
	int overflow;	       /* a time passed HORIZON */
	size_t stalled;	       /* preemptions since the last look, arrival or completion */
	int stall_looks;       /* stall_check's looks since the last arrival or completion */
	dl_tick stalled_since; /* the first of those preemptions */
	dl_tick look_t;	       /* the last look: its time and the work done by then */
	double look_work;
	int livelock; /* stall_check found that the run no longer progresses */
	/* active jobs */
	uint32_t *slot_of; /* per job: its slot + 1 while active, else 0 */
	struct dl_sim_job **chunk;
	size_t nchunks, nslots;
	uint32_t *free_slot;
	size_t nfree, free_alloc, active;
	/* per distinct gpu_type / model name of the trace */
	int *type_of_name;
	size_t policy_len;
	struct dl_sim_results *res; /* the results stream, when cfg->results */
	const struct dl_net_model **model_of_name;
	/* heterogeneity: rows by (model, gpus) */
	struct trow *trows;
	size_t ntrows, trows_alloc;
	struct strmap trow_index;
	unsigned char *model_missing; /* per name: already in st->tput_missing */
	int *type_order;	      /* scratch, one per type */
	const char *ref_type;
	/* events */
	struct finheap fin;
	struct evheap timers;
	uint32_t *fin_pos;	      /* per slot: 1 + its completion's place in fin, 0 for none */
	struct saving *sv;	      /* a ring */
	size_t sv_head, sv_n, sv_cap; /* sv_cap: a power of two (indices wrap by a mask) */
	uint64_t seq;
	/* the cluster */
	struct dl_cluster_state *state;
	struct dl_placer *placer;
	struct dl_netcost nc;
	struct gpu_occ *occ; /* per GPU: its jobs and occupied time */
	int *gpubuf;	     /* scratch, one per GPU */
	void *pst;	     /* the policy's state */
	void *own_params;    /* the policy's defaults when cfg->params is NULL */
	size_t running, queued;
	int total_gpus;
	/* timeline de-duplication */
	int tl_busy;
	size_t tl_running, tl_pending;
	int tl_written;
	size_t next_progress, last_progress, progress_step;
	size_t next_arrival; /* the next job of the trace to arrive */
	int drained;	     /* dl_sim_step() found nothing left and wound up */
	/*
	 * the network slowdowns of multi-GPU placements, direct-mapped by
	 * (model, gang, tier, speed): a run has few of them, and each start on
	 * more than one GPU asked the cost model again
	 */
	struct {
		const struct dl_net_model *model; /* NULL: empty */
		int n, tier;
		double speed, slowdown;
	} netc[64];
};

/* ---- event queues (4-ary heaps: half the levels of binary ones, children side by side) ---- */

static int ev_less(const struct event *a, const struct event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return a->seq < b->seq;
}

struct dl_sim_job *dl_sim_slot_job(struct dl_sim *s, size_t slot);

static void ev_up(struct evheap *h, size_t i, struct event e)
{
	while (i > 0) {
		size_t p = (i - 1) / 4;
		if (!ev_less(&e, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = e;
}

static void ev_down(struct evheap *h, size_t i, struct event e)
{
	size_t n = h->n;
	for (;;) {
		size_t c = 4 * i + 1, end = c + 4 < n ? c + 4 : n;
		if (c >= n)
			break;
		for (size_t k = c + 1; k < end; k++)
			if (ev_less(&h->a[k], &h->a[c]))
				c = k;
		if (!ev_less(&h->a[c], &e))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = e;
}

/* the next push's order key: even, so that dl_sim_order_mark's odd keys fall between two */
static uint64_t next_seq(struct dl_sim *s)
{
	return s->seq += 2;
}

static void ev_push(struct dl_sim *s, struct evheap *h, struct event e)
{
	e.seq = next_seq(s);
	DL_GROW(h->a, h->n + 1, h->alloc);
	ev_up(h, h->n++, e);
}

/* remove the entry at i */
static struct event ev_remove(struct evheap *h, size_t i)
{
	struct event e = h->a[i], last = h->a[--h->n];
	if (i < h->n) {
		if (i > 0 && ev_less(&last, &h->a[(i - 1) / 4]))
			ev_up(h, i, last);
		else
			ev_down(h, i, last);
	}
	return e;
}

static int ev_due(const struct evheap *h, dl_tick now)
{
	return h->n && h->a[0].t <= now;
}

/* ---- completions: the same 4-ary heap on fin_keys; each job knows its entry (fin_pos) ---- */

static inline int fin_less(const struct fin_key *a, const struct fin_key *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return a->seq < b->seq;
}

/* put (k, job) at i; the job remembers where its entry is */
static inline void fin_set(struct dl_sim *s, size_t i, struct fin_key k, uint32_t job)
{
	s->fin.a[i] = k;
	s->fin.job[i] = job;
	s->fin_pos[job] = (uint32_t)i + 1;
}

static void fin_up(struct dl_sim *s, size_t i, struct fin_key k, uint32_t job)
{
	const struct finheap *h = &s->fin;
	while (i > 0) {
		size_t p = (i - 1) / 4;
		if (!fin_less(&k, &h->a[p]))
			break;
		fin_set(s, i, h->a[p], h->job[p]);
		i = p;
	}
	fin_set(s, i, k, job);
}

static void fin_down(struct dl_sim *s, size_t i, struct fin_key k, uint32_t job)
{
	const struct finheap *h = &s->fin;
	size_t n = h->n;
	for (;;) {
		size_t c = 4 * i + 1, end = c + 4 < n ? c + 4 : n;
		if (c >= n)
			break;
		for (size_t m = c + 1; m < end; m++)
			if (fin_less(&h->a[m], &h->a[c]))
				c = m;
		if (!fin_less(&h->a[c], &k))
			break;
		fin_set(s, i, h->a[c], h->job[c]);
		i = c;
	}
	fin_set(s, i, k, job);
}

static void fin_push(struct dl_sim *s, dl_tick t, uint32_t job)
{
	struct finheap *h = &s->fin;
	if (h->n == h->alloc) {
		h->alloc = h->alloc ? 2 * h->alloc : 64;
		h->a = xreallocarray(h->a, h->alloc, sizeof(*h->a));
		h->job = xreallocarray(h->job, h->alloc, sizeof(*h->job));
	}
	fin_up(s, h->n++, (struct fin_key){t, next_seq(s)}, job);
}

/* remove the entry at i; its job's slot */
static uint32_t fin_remove(struct dl_sim *s, size_t i)
{
	struct finheap *h = &s->fin;
	uint32_t job = h->job[i];
	size_t last = --h->n;
	s->fin_pos[job] = 0;
	if (i < last) {
		struct fin_key k = h->a[last];
		if (i > 0 && fin_less(&k, &h->a[(i - 1) / 4]))
			fin_up(s, i, k, h->job[last]);
		else
			fin_down(s, i, k, h->job[last]);
	}
	return job;
}

/* j's completion event goes, if it has one */
static void fin_drop(struct dl_sim *s, const struct dl_sim_job *j)
{
	if (s->fin_pos[j->slot])
		fin_remove(s, s->fin_pos[j->slot] - 1);
}

static int fin_due(const struct finheap *h, dl_tick now)
{
	return h->n && h->a[0].t <= now;
}

static void saving_push(struct dl_sim *s, dl_tick t, const struct dl_sim_job *j)
{
	if (s->sv_n == s->sv_cap) {
		size_t cap = s->sv_cap ? 2 * s->sv_cap : 64;
		struct saving *v = xcalloc(cap, sizeof(*v));
		for (size_t k = 0; k < s->sv_n; k++)
			v[k] = s->sv[(s->sv_head + k) % s->sv_cap];
		free(s->sv);
		s->sv = v;
		s->sv_cap = cap;
		s->sv_head = 0;
	}
	/* a mask, not %: a division per preemption and per checkpoint end was a few % of a run */
	s->sv[(s->sv_head + s->sv_n++) & (s->sv_cap - 1)] =
		(struct saving){t, j->version, (uint32_t)j->idx, j->slot};
}

static const struct saving *saving_head(const struct dl_sim *s)
{
	return s->sv_n ? &s->sv[s->sv_head] : NULL;
}

/*
 * Checkpoint ends come in bursts (a round's preemptions, all made at one
 * instant), each on a job record no one has read since and on GPUs whose
 * occupancy no one has: while one is delivered, the record of the one
 * SAVING_AHEAD places on is asked for (the three lines a delivery reads:
 * policy.h), and the occupancy of the GPUs of the one half as far on, whose
 * record was asked for that many deliveries ago.
 */
#define SAVING_AHEAD 8

/*
 * ask for the three lines of j's record that a start, preemption or
 * checkpoint end reads (policy.h); always inline, here and below: gcc finds
 * a function of prefetches alone pure, and drops its calls
 */
static inline __attribute__((always_inline)) void record_prefetch(const struct dl_sim_job *j)
{
	const char *p = (const char *)j;
	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	__builtin_prefetch(p + 128);
}

static inline __attribute__((always_inline)) void saving_prefetch(struct dl_sim *s)
{
	size_t mask = s->sv_cap - 1;
	if (s->sv_n > SAVING_AHEAD)
		record_prefetch(dl_sim_slot_job(s, s->sv[(s->sv_head + SAVING_AHEAD) & mask].slot));
	if (s->sv_n > SAVING_AHEAD / 2) {
		const struct saving *a = &s->sv[(s->sv_head + SAVING_AHEAD / 2) & mask];
		const struct dl_sim_job *j = dl_sim_slot_job(s, a->slot);
		if (j->ngpu > 0 && j->idx == a->job) {
			__builtin_prefetch(&s->occ[j->gpu[0]]);
			__builtin_prefetch(&s->occ[j->gpu[j->ngpu / 2]]);
			__builtin_prefetch(&s->occ[j->gpu[j->ngpu - 1]]);
		}
	}
}

static void saving_pop(struct dl_sim *s)
{
	s->sv_head = (s->sv_head + 1) & (s->sv_cap - 1);
	s->sv_n--;
}

/* ---- active jobs ---- */

/*
 * the job a checkpoint end is for, if it still applies: its slot holds it
 * (a freed slot keeps its last job's index and final state, a reused one
 * another index) at the version it was preempted in, still saving
 */
static struct dl_sim_job *saving_job(struct dl_sim *s, const struct saving *sv)
{
	struct dl_sim_job *j = dl_sim_slot_job(s, sv->slot);
	return j->idx == sv->job && j->version == sv->version && j->state == DL_SJ_SAVING ? j
											  : NULL;
}

struct dl_sim_job *dl_sim_slot_job(struct dl_sim *s, size_t slot)
{
	return &s->chunk[slot / SLOT_CHUNK][slot % SLOT_CHUNK];
}

struct dl_sim_job *dl_sim_job(struct dl_sim *s, size_t idx)
{
	if (idx >= s->njobs || !s->slot_of[idx])
		return NULL;
	return dl_sim_slot_job(s, s->slot_of[idx] - 1);
}

void dl_sim_prefetch(struct dl_sim *s, size_t slot)
{
	if (slot < s->nslots)
		record_prefetch(dl_sim_slot_job(s, slot));
}

size_t dl_sim_slots(const struct dl_sim *s)
{
	return s->nslots;
}

/*
 * a chunk of zeroed job slots, each record on cache lines of its own
 * (policy.h: a preemption then touches three of them, where a record
 * across line boundaries took four or five)
 */
static struct dl_sim_job *slot_chunk_new(void)
{
	size_t size = SLOT_CHUNK * sizeof(struct dl_sim_job);
	void *p = aligned_alloc(_Alignof(struct dl_sim_job), size);
	if (!p)
		dl_out_of_memory(size);
	return memset(p, 0, size);
}

/* a slot for job idx (its GPU array, if any, is kept for reuse) */
static struct dl_sim_job *activate(struct dl_sim *s, size_t idx)
{
	size_t slot;
	if (s->nfree) {
		slot = s->free_slot[--s->nfree];
	} else {
		if (s->nslots == s->nchunks * SLOT_CHUNK) {
			s->chunk = xreallocarray(s->chunk, s->nchunks + 1, sizeof(*s->chunk));
			s->chunk[s->nchunks++] = slot_chunk_new();
			s->fin_pos = xreallocarray(s->fin_pos, s->nchunks * SLOT_CHUNK,
						   sizeof(*s->fin_pos));
			memset(s->fin_pos + (s->nchunks - 1) * SLOT_CHUNK, 0,
			       SLOT_CHUNK * sizeof(*s->fin_pos));
		}
		slot = s->nslots++;
	}
	struct dl_sim_job *j = dl_sim_slot_job(s, slot);
	int *gpu = j->gpu, cap = j->gpu_cap; /* a slot keeps its GPU array */
	memset(j, 0, sizeof(*j));
	j->slot = (uint32_t)slot;
	j->gpu = gpu;
	j->gpu_cap = cap;
	s->slot_of[idx] = (uint32_t)slot + 1;
	if (++s->active > s->st->peak_active)
		s->st->peak_active = s->active;
	return j;
}

static void deactivate(struct dl_sim *s, struct dl_sim_job *j)
{
	s->slot_of[j->idx] = 0;
	DL_GROW(s->free_slot, s->nfree + 1, s->free_alloc);
	s->free_slot[s->nfree++] = j->slot;
	s->active--;
}

/* ---- output ---- */

enum { EC_TIME, EC_JOB, EC_EVENT, EC_GPUS, EC_PLACEMENT, EC_DETAIL, EC_N };
enum { TC_TIME, TC_BUSY_GPUS, TC_RUNNING, TC_PENDING, TC_POLICY, TC_N };

static void emit_row(struct dl_sim *s, const struct dl_sim_job *j, const char *what,
		     const char *detail, int with_place)
{
	struct dl_writer *w = s->cfg->events;
	dl_writer_micros(w, EC_TIME, s->origin + s->now);
	dl_writer_strn(w, EC_JOB, j->id, j->id_len);
	dl_writer_str(w, EC_EVENT, what);
	dl_writer_int(w, EC_GPUS, j->gpus);
	if (with_place && j->ngpu) {
		struct strbuf sb = STRBUF_INIT;
		dl_placement_format(s->cfg->cluster, j->gpu, j->ngpu, &sb);
		dl_writer_str(w, EC_PLACEMENT, sb.buf);
		sb_release(&sb);
	} else {
		dl_writer_null(w, EC_PLACEMENT);
	}
	if (!detail && with_place && j->ngpu && s->cfg->cluster->ntypes > 1)
		detail = s->cfg->cluster->types[j->gpu_type].name; /* every type change shows */
	if (detail)
		dl_writer_str(w, EC_DETAIL, detail);
	else
		dl_writer_null(w, EC_DETAIL);
	dl_writer_end_row(w);
}

/* an event row, when --events asked for them (the test inline: most runs write none) */
static inline void emit(struct dl_sim *s, const struct dl_sim_job *j, const char *what,
			const char *detail, int with_place)
{
	if (s->cfg->events)
		emit_row(s, j, what, detail, with_place);
}

static void timeline_row(struct dl_sim *s)
{
	struct dl_writer *w = s->cfg->timeline;
	if (!w)
		return;
	int busy = s->total_gpus - dl_state_total_free(s->state);
	if (s->tl_written && busy == s->tl_busy && s->running == s->tl_running &&
	    s->queued == s->tl_pending)
		return;
	s->tl_written = 1;
	s->tl_busy = busy;
	s->tl_running = s->running;
	s->tl_pending = s->queued;
	dl_writer_micros(w, TC_TIME, s->origin + s->now);
	dl_writer_int(w, TC_BUSY_GPUS, busy);
	dl_writer_int(w, TC_RUNNING, (int64_t)s->running);
	dl_writer_int(w, TC_PENDING, (int64_t)s->queued);
	dl_writer_strn(w, TC_POLICY, s->cfg->policy->name, s->policy_len); /* report's label */
	dl_writer_end_row(w);
}

/*
 * j's id into a row: the trace's text, which outlives the run, or a short
 * id's copy (the job's own copy goes with its slot)
 */
static void row_id(struct dl_sim_result *x, const struct dl_sim_job *j)
{
	x->id_len = j->id_len;
	if (j->id == j->id_copy) {
		memcpy(x->id_short, j->id_copy, sizeof(x->id_short));
		x->id = NULL;
	} else {
		x->id = j->id;
	}
}

/* j's occupied GPU-ticks, rounded (never negative: a packed share's rounding stays at 0) */
static dl_tick occupied_ticks(const struct dl_sim_job *j)
{
	return j->occupied > 0 ? (dl_tick)(j->occupied + 0.5) : 0;
}

/* a finished job's row, handed to the results stream */
static void result_row(struct dl_sim *s, const struct dl_sim_job *j, dl_tick end)
{
	if (!s->res)
		return;
	struct dl_sim_result *x = dl_sim_results_slot(s->res);
	row_id(x, j);
	x->why = NULL;
	x->submit = j->submit;
	x->duration = j->duration;
	x->start = j->start;
	x->end = end;
	x->executed = j->executed;
	x->slowdown = j->slowdown;
	x->comm = j->comm;
	x->occupied = occupied_ticks(j);
	x->gpus = j->gpus;
	x->preemptions = j->preemptions;
	x->migrations = j->migrations;
	x->gpu_type = j->gpu_type;
	x->tier = j->tier;
	dl_sim_results_put(s->res);
}

/* a job that can never run: its row has no times and says why in `rejected` */
static void rejected_row(struct dl_sim *s, const struct dl_sim_job *j, const char *why)
{
	if (!s->res)
		return;
	/* the trace's own values: the engine caps gpus, and the type may be unknown */
	const struct dl_sim_tjob *t = &s->trace->jobs[j->idx];
	struct dl_sim_result *x = dl_sim_results_slot(s->res);
	row_id(x, j);
	x->why = why;
	x->type_name = t->type ? s->trace->names[t->type - 1] : "";
	x->unknown_type = j->type == UNKNOWN_TYPE;
	x->submit = j->submit;
	x->duration = j->duration;
	x->occupied = occupied_ticks(j); /* > 0 only when it held GPUs (left at zero speed) */
	x->gpus = t->gpus;
	dl_sim_results_put(s->res);
}

/* ---- accounting ---- */

dl_tick dl_sim_now(const struct dl_sim *s)
{
	return s->now;
}

size_t dl_sim_njobs(const struct dl_sim *s)
{
	return s->njobs;
}

const struct dl_sim_trace *dl_sim_trace_of(const struct dl_sim *s)
{
	return s->trace;
}

static int clamp_gpus(const struct dl_sim *s, int64_t gpus)
{
	return gpus > s->total_gpus ? s->total_gpus + 1 : (int)gpus;
}

int dl_sim_job_gpus(const struct dl_sim *s, size_t idx)
{
	return clamp_gpus(s, s->trace->jobs[idx].gpus);
}

const struct dl_cluster *dl_sim_cluster(const struct dl_sim *s)
{
	return s->cfg->cluster;
}

int dl_sim_total_gpus(const struct dl_sim *s)
{
	return s->total_gpus;
}

dl_tick dl_sim_migrate_cost(const struct dl_sim *s)
{
	return s->ckpt + s->restore;
}

int dl_sim_period_check(const struct dl_sim *s, const char *opt, double period,
			const char *resume_opt, double resume, struct dl_err *err)
{
	if (!resume_opt) {
		resume_opt = "--restore-cost";
		resume = s->cfg->restore_cost;
	}
	double swap = s->cfg->checkpoint_cost + resume;
	if (period > swap)
		return 0;
	char p[DL_NUM_BUF], c[DL_NUM_BUF];
	dl_fmt_double(p, period);
	dl_fmt_double(c, swap);
	return dl_err_set(err, DL_EXIT_USAGE,
			  "--%s %s is not longer than --checkpoint-cost + %s (%s s): a job "
			  "given GPUs for one %s only to lose them would make no progress",
			  opt, p, resume_opt, c, opt);
}

int dl_sim_node_free(const struct dl_sim *s, int node)
{
	return dl_state_node_free(s->state, node);
}

int dl_sim_type_free(const struct dl_sim *s, int type)
{
	return dl_state_type_free(s->state, type);
}

int dl_sim_free_gpus(const struct dl_sim *s)
{
	return dl_state_total_free(s->state);
}

dl_tick dl_sim_ticks(double seconds)
{
	if (!(seconds < (double)HORIZON / DL_TICKS_PER_SECOND))
		return seconds > 0 ? HORIZON + 1 : -HORIZON - 1;
	if (!(seconds > -(double)HORIZON / DL_TICKS_PER_SECOND))
		return -HORIZON - 1;
	return (dl_tick)llround(seconds * DL_TICKS_PER_SECOND);
}

/* ---- heterogeneity ---- */

uint64_t dl_sim_seed(const struct dl_sim *s)
{
	return s->cfg->place.seed;
}

const struct dl_tputs *dl_sim_tputs(const struct dl_sim *s)
{
	return s->cfg->tputs;
}

const char *dl_sim_job_model(const struct dl_sim *s, const struct dl_sim_job *j)
{
	return dl_sim_trace_name(s->trace, s->trace->jobs[j->idx].model);
}

const char *dl_sim_job_user(const struct dl_sim *s, const struct dl_sim_job *j)
{
	return s->trace->user ? dl_sim_trace_name(s->trace, s->trace->user[j->idx]) : NULL;
}

double dl_sim_job_weight(const struct dl_sim *s, const struct dl_sim_job *j)
{
	return s->trace->weight ? s->trace->weight[j->idx] : 1;
}

double dl_sim_job_speed(const struct dl_sim *s, const struct dl_sim_job *j, int type)
{
	if (j->tput_row >= 0)
		return s->trows[j->tput_row].speed[type];
	return s->cfg->cluster->types[type].speed;
}

double dl_sim_job_ref_tput(const struct dl_sim *s, const struct dl_sim_job *j)
{
	return j->tput_row >= 0 ? s->trows[j->tput_row].ref : 1;
}

/* add a model to the warning's list (once) */
static void note_missing(struct dl_sim *s, uint32_t model)
{
	if (!model || s->model_missing[model - 1])
		return;
	s->model_missing[model - 1] = 1;
	char *b = s->st->tput_missing;
	size_t len = strlen(b), cap = sizeof(s->st->tput_missing);
	if (len + 4 >= cap)
		return; /* "..." is there */
	int n = snprintf(b + len, cap - len, "%s'%s'", len ? ", " : "",
			 dl_sim_trace_name(s->trace, model));
	if (n < 0 || (size_t)n >= cap - len)
		memcpy(b + cap - 4, "...", 4);
}

/*
 * j's row of speeds (made on first use for its model and gang size), or -1
 * when the run has no table; a job without a table entry counts in the
 * warning (its model, or none)
 */
static int32_t tput_row(struct dl_sim *s, const struct dl_sim_tjob *t, int gpus)
{
	const struct dl_tputs *tt = s->cfg->tputs;
	if (!tt)
		return -1;
	const char *model = dl_sim_trace_name(s->trace, t->model);
	if (!model) {
		s->st->tput_fallback++;
		return -1;
	}
	char key[32];
	int klen = snprintf(key, sizeof(key), "%u/%d", t->model, gpus);
	int64_t *v = strmap_getn(&s->trow_index, key, (size_t)klen);
	if (!v) {
		const struct dl_cluster *c = s->cfg->cluster;
		DL_GROW(s->trows, s->ntrows + 1, s->trows_alloc);
		struct trow *r = &s->trows[s->ntrows];
		memset(r, 0, sizeof(*r));
		r->speed = xcalloc(c->ntypes + 1, sizeof(double));
		r->spread = xcalloc(c->ntypes + 1, sizeof(double));
		double ref = dl_tputs_get(tt, model, s->ref_type, gpus);
		r->ref = ref > 0 ? ref : 0;
		/*
		 * An entry of 0 on the reference type is no missing entry: the
		 * job's duration, its run time there, says it can never run
		 * (Gavel's tables mark gangs that do not fit in memory so).
		 */
		if (ref == 0)
			r->never = runs_on_some_type(tt, model, gpus)
					   ? "its throughput is 0 on the reference type, on which "
					     "its duration is a run time"
					   : "no throughput above 0 on any GPU type";
		struct strbuf sb = STRBUF_INIT;
		for (size_t ty = 0; ty < c->ntypes; ty++) {
			double x = ref > 0 ? dl_tputs_get(tt, model, c->types[ty].name, gpus) : -1;
			r->speed[ty] = x >= 0 ? x / ref : c->types[ty].speed;
			if (x < 0 && !r->never)
				r->missing = 1;
			else if (x == 0)
				r->forbids = 1;
			sb_reset(&sb);
			sb_addf(&sb, "%s_unconsolidated", c->types[ty].name);
			double u = ref > 0 && gpus > 1 ? dl_tputs_get(tt, model, sb.buf, gpus) : -1;
			r->spread[ty] = u >= 0 ? u / ref : -1;
		}
		sb_release(&sb);
		if (!r->ref) /* nothing to compare with: type speeds throughout */
			r->forbids = 0;
		strmap_putn(&s->trow_index, key, (size_t)klen, (int64_t)s->ntrows);
		v = strmap_getn(&s->trow_index, key, (size_t)klen);
		s->ntrows++;
	}
	const struct trow *r = &s->trows[*v];
	if (r->missing) {
		s->st->tput_fallback++;
		note_missing(s, t->model);
	}
	return (int32_t)*v;
}

void dl_sim_sync(struct dl_sim *s, struct dl_sim_job *j)
{
	dl_tick t = s->now, dt = t - j->since;
	if (dt <= 0)
		return;
	if (j->state == DL_SJ_RUNNING) {
		dl_tick from = j->restore_until > j->since ? j->restore_until : j->since;
		if (t > from) {
			j->work_left -= (double)(t - from) * j->rate;
			/*
			 * The communication overhead (results' comm_overhead_s): of these
			 * progress ticks, the share 1 - 1/slowdown is what the placement
			 * cost (at slowdown 1.25, 125 s of progress hold 25 s of it).
			 * Ticks x (s - 1) is exact for slowdowns such as 1.25, so only
			 * the division by s rounds: 125 s give exactly 25 s, which
			 * 1 - 1/s (1 - 0.8 is not 0.2 in binary) would not.
			 */
			if (j->slowdown > 1)
				j->comm += isfinite(j->slowdown)
						   ? (double)(t - from) * (j->slowdown - 1) /
							     j->slowdown
						   : (double)(t - from);
		}
		if (j->work_left < 0)
			j->work_left = 0;
		j->executed += dt;
	} else if (j->state == DL_SJ_QUEUED) {
		j->waited += dt;
	}
	j->since = t;
}

dl_tick dl_sim_executed(struct dl_sim *s, struct dl_sim_job *j)
{
	dl_sim_sync(s, j);
	return j->executed;
}

dl_tick dl_sim_waited(struct dl_sim *s, struct dl_sim_job *j)
{
	dl_sim_sync(s, j);
	return j->waited;
}

double dl_sim_work_left(struct dl_sim *s, struct dl_sim_job *j)
{
	dl_sim_sync(s, j);
	return j->work_left;
}

/* (re)compute j's completion event after a change of rate or placement */
/* j's completion as planned at instant at (its resume: now, or earlier for dl_sim_restate) */
static void plan_finish_at(struct dl_sim *s, struct dl_sim_job *j, dl_tick at)
{
	j->version++;
	j->finish_at = INT64_MAX;
	fin_drop(s, j);
	if (j->state != DL_SJ_RUNNING || !(j->rate > 0))
		return; /* a zero share: the policy must change it */
	dl_tick from = j->restore_until > at ? j->restore_until : at;
	/* exact when the rate is 1 (work_left is then an integer) */
	double need = j->rate == 1 ? j->work_left : nearbyint(j->work_left / j->rate);
	if (!(need < (double)(HORIZON - from))) {
		s->overflow = 1;
		return;
	}
	j->finish_at = from + (dl_tick)need;
	fin_push(s, j->finish_at, j->slot);
}

static void plan_finish(struct dl_sim *s, struct dl_sim_job *j)
{
	plan_finish_at(s, j, s->now);
}

/*
 * j's pace on n GPUs spanning tier: the slowest GPU sets the pace of a
 * synchronous job (its type in *type), and the placement's slowdown (a
 * measured spread throughput replaces the network model). Speed over
 * slowdown is its rate at share 1.
 */
/* dl_netcost_slowdown, remembered (struct dl_sim's netc) */
static double net_slowdown(struct dl_sim *s, const struct dl_net_model *m, int n, enum dl_tier tier,
			   double speed)
{
	size_t h = ((uintptr_t)m >> 4) * 31 + (size_t)n * 7 + (size_t)tier;
	h = (h ^ (h >> 6)) % DL_ARRAY_SIZE(s->netc);
	if (s->netc[h].model == m && s->netc[h].n == n && s->netc[h].tier == (int)tier &&
	    s->netc[h].speed == speed)
		return s->netc[h].slowdown;
	double v = dl_netcost_slowdown(&s->nc, m, n, tier, speed);
	s->netc[h].model = m;
	s->netc[h].n = n;
	s->netc[h].tier = (int)tier;
	s->netc[h].speed = speed;
	s->netc[h].slowdown = v;
	return v;
}

/* (inlined into describe: it runs at every start, and its call cost a third of it) */
static inline __attribute__((always_inline)) double pace(struct dl_sim *s,
							 const struct dl_sim_job *j,
							 const int *gpus, int n, enum dl_tier tier,
							 int *type, double *slowdown)
{
	const struct dl_cluster *c = s->cfg->cluster;
	/* on a cluster of one type, that type's speed without looking at each GPU */
	double speed = c->ntypes == 1 && n > 0 ? dl_sim_job_speed(s, j, 0) : INFINITY;
	*type = 0;
	for (int k = 0; k < n && c->ntypes > 1; k++) {
		int ty = c->nodes[dl_cluster_gpu_node(c, gpus[k])].type;
		double v = dl_sim_job_speed(s, j, ty);
		if (v < speed) {
			speed = v;
			*type = ty;
		}
	}
	*slowdown = 1;
	const struct trow *r = j->tput_row >= 0 ? &s->trows[j->tput_row] : NULL;
	if (r && tier != DL_TIER_NODE && r->spread[*type] > 0 && speed > 0)
		*slowdown = speed / r->spread[*type]; /* measured: it replaces the model */
	else if (s->cfg->models && j->model && n > 1)
		*slowdown = net_slowdown(s, j->model, n, tier, speed);
	return speed;
}

/* speed, tier (unless the placer gave it) and slowdown of the GPUs j holds */
static void describe(struct dl_sim *s, struct dl_sim_job *j, int tier_known)
{
	int nn, nr, type;
	if (!tier_known) {
		enum dl_tier tier;
		dl_placement_describe(s->cfg->cluster, j->gpu, j->ngpu, &nn, &nr, &tier);
		j->tier = (uint8_t)tier;
	}
	double speed = pace(s, j, j->gpu, j->ngpu, (enum dl_tier)j->tier, &type, &j->slowdown);
	j->gpu_type = (int16_t)type;
	j->rate = speed / j->slowdown * j->share;
}

/* what a bidding policy (themis) must know before it starts j there: see pace() */
double dl_sim_rate_on(struct dl_sim *s, const struct dl_sim_job *j, const int *gpus, int n)
{
	if (!(n > 0))
		return 0;
	int nn, nr, type;
	enum dl_tier tier;
	double slowdown;
	dl_placement_describe(s->cfg->cluster, gpus, n, &nn, &nr, &tier);
	double speed = pace(s, j, gpus, n, tier, &type, &slowdown);
	return speed / slowdown;
}

static void sort_gpus(int *g, int n)
{
	for (int i = 1; i < n; i++) {
		int x = g[i], k = i;
		for (; k > 0 && g[k - 1] > x; k--)
			g[k] = g[k - 1];
		g[k] = x;
	}
}

/*
 * GPU g's share brought up to now (before its occupancy changes); a GPU
 * held alone (the usual case) adds whole ticks, which stay exact
 */
static inline void occ_settle(struct dl_sim *s, int g)
{
	struct gpu_occ *u = &s->occ[g];
	unsigned o = u->jobs;
	if (o) {
		double dt = (double)(s->now - u->since);
		u->share += o == 1 ? dt : dt / o;
	}
	u->since = s->now;
}

/* j comes onto GPU g: the jobs per GPU, and j's occupied time from here */
static inline int occ_join(struct dl_sim *s, struct dl_sim_job *j, int g)
{
	occ_settle(s, g);
	j->occupied -= s->occ[g].share;
	return (int)s->occ[g].jobs++;
}

static void release_gpus(struct dl_sim *s, struct dl_sim_job *j)
{
	int n = 0;
	for (int k = 0; k < j->ngpu; k++) {
		int g = j->gpu[k];
		occ_settle(s, g);
		j->occupied += s->occ[g].share;
		if (--s->occ[g].jobs == 0)
			s->gpubuf[n++] = g;
	}
	if (n)
		dl_place_release(s->placer, s->gpubuf, n);
	j->ngpu = 0;
}

static void reject(struct dl_sim *s, struct dl_sim_job *j, const char *why)
{
	if (j->state == DL_SJ_QUEUED)
		s->queued--;
	j->state = DL_SJ_REJECTED;
	j->version++;
	s->st->rejected++;
	if (!s->st->reject_reason) {
		snprintf(s->st->first_rejected, sizeof(s->st->first_rejected), "%s", j->id);
		s->st->reject_reason = why;
	}
	emit(s, j, "reject", why, 0);
	rejected_row(s, j, why);
	deactivate(s, j);
}

/*
 * Room for j's GPUs: a small gang's inside the record (gpu_near), where a
 * release finds them on the lines it reads anyway (an array of its own was
 * a cache miss at every release and start), a wider one's an array the slot
 * keeps for its next jobs (grown for a wider one)
 */
static void gpu_room(struct dl_sim_job *j)
{
	int near = (int)DL_ARRAY_SIZE(j->gpu_near);
	if (j->gpus <= near) {
		if (j->gpu != j->gpu_near) {
			free(j->gpu);
			j->gpu = j->gpu_near;
			j->gpu_cap = near;
		}
	} else if (j->gpu_cap < j->gpus) {
		if (j->gpu != j->gpu_near)
			free(j->gpu);
		j->gpu = xcalloc((size_t)j->gpus, sizeof(*j->gpu));
		j->gpu_cap = j->gpus;
	}
}

/* a slot's GPU array unless it is the record's own room */
static void gpu_free(struct dl_sim_job *j)
{
	if (j->gpu != j->gpu_near)
		free(j->gpu);
}

/*
 * Place j on one of the types it runs on (speed > 0), fastest first (ties:
 * type order): the placer alone could pick a type where it cannot run.
 */
static void place_where_it_runs(struct dl_sim *s, const struct dl_sim_job *j,
				struct dl_place_req *req, struct dl_placement *pl)
{
	const struct dl_cluster *c = s->cfg->cluster;
	const double *speed = s->trows[j->tput_row].speed;
	int *order = s->type_order, n = 0;
	for (size_t ty = 0; ty < c->ntypes; ty++) {
		if (!(speed[ty] > 0))
			continue;
		int k = n++;
		for (; k > 0 && speed[order[k - 1]] < speed[ty]; k--)
			order[k] = order[k - 1];
		order[k] = (int)ty;
	}
	int waits = 0;
	for (int k = 0; k < n; k++) {
		req->type = order[k];
		dl_place(s->placer, req, pl);
		if (pl->decision == DL_PLACED)
			return;
		waits |= pl->decision == DL_WAIT;
	}
	/* arrive() rejected the jobs that fit no such type: this one waits */
	pl->decision = waits ? DL_WAIT : DL_REJECT;
	pl->reason = "its throughput is 0 on every GPU type with room for it";
}

/*
 * The ticks without progress of j resuming or moving now: pause seconds when
 * the policy gave them, else the engine's rule: a move (its state comes from
 * other GPUs) pays --checkpoint-cost + --restore-cost, a resume after
 * dl_sim_suspend the suspension's cost, any other resume --restore-cost.
 */
static dl_tick pause_ticks(const struct dl_sim *s, const struct dl_sim_job *j, double pause,
			   int moved)
{
	if (pause >= 0)
		return dl_sim_ticks(pause);
	if (moved)
		return s->ckpt + s->restore;
	return j->resume_cost >= 0 ? j->resume_cost : s->restore;
}

enum dl_decision dl_sim_start(struct dl_sim *s, struct dl_sim_job *j, const struct dl_sim_how *how)
{
	if (j->state != DL_SJ_QUEUED)
		return DL_WAIT;
	dl_sim_sync(s, j);
	double share = how && how->share > 0 ? how->share : 1;
	int tier_known = 0;
	if (how && how->gpus) {
		for (int k = 0; k < j->gpus; k++) {
			int g = how->gpus[k];
			if (g < 0 || g >= s->total_gpus || (s->occ[g].jobs && !how->shared))
				return DL_WAIT;
		}
		int m = 0; /* the GPUs j is first on, taken together: an update per node */
		for (int k = 0; k < j->gpus; k++) {
			int g = how->gpus[k];
			if (occ_join(s, j, g) == 0)
				s->gpubuf[m++] = g;
			j->gpu[k] = g;
		}
		dl_state_take_gpus(s->state, s->gpubuf, m);
		sort_gpus(j->gpu, j->gpus); /* (dl_place's come sorted) */
	} else {
		struct dl_place_req req = {j->gpus, j->type, 0,
					   (double)j->waited / DL_TICKS_PER_SECOND};
		if (how && how->type != DL_ANY_TYPE)
			req.type = how->type;
		if (how)
			req.within = how->within;
		if (j->model)
			req.consolidate = j->model->consolidate;
		struct dl_placement pl = {0};
		pl.gpus = j->gpu;
		if (req.type == DL_ANY_TYPE && j->tput_row >= 0 && s->trows[j->tput_row].forbids)
			place_where_it_runs(s, j, &req, &pl);
		else
			dl_place(s->placer, &req, &pl);
		if (pl.decision == DL_REJECT) {
			reject(s, j, pl.reason ? pl.reason : "cannot be placed");
			return DL_REJECT;
		}
		if (pl.decision != DL_PLACED)
			return DL_WAIT;
		for (int k = 0; k < j->gpus; k++)
			occ_join(s, j, j->gpu[k]);
		j->tier = (uint8_t)pl.tier; /* the placer sorted the GPUs and described them */
		tier_known = 1;
	}
	j->ngpu = j->gpus;
	j->share = share;
	describe(s, j, tier_known);
	int resumed = j->start >= 0, moved = resumed && how && how->moved;
	if (moved)
		j->migrations++;
	j->restore_until =
		resumed ? s->now + pause_ticks(s, j, how ? how->pause : DL_SIM_PAUSE_RULE, moved)
			: s->now;
	j->resume_cost = -1;
	if (!resumed)
		j->start = s->now;
	j->state = DL_SJ_RUNNING;
	s->queued--;
	s->running++;
	plan_finish(s, j);
	emit(s, j, moved ? "migrate" : resumed ? "resume" : "start", NULL, 1);
	return DL_PLACED;
}

/*
 * The GPU-ticks of reference work the active jobs have done by now (a
 * running job's counters brought up to now as dl_sim_sync would, without
 * touching them: a look must not change a run's arithmetic).
 */
static double work_done(struct dl_sim *s)
{
	double w = 0;
	for (size_t slot = 0; slot < s->nslots; slot++) {
		/* (a freed slot keeps its last job's final state: done or rejected) */
		const struct dl_sim_job *j = dl_sim_slot_job(s, slot);
		if (j->state == DL_SJ_DONE || j->state == DL_SJ_REJECTED)
			continue;
		double left = j->work_left;
		if (j->state == DL_SJ_RUNNING) {
			dl_tick from = j->restore_until > j->since ? j->restore_until : j->since;
			if (s->now > from)
				left -= (double)(s->now - from) * j->rate;
			if (left < 0)
				left = 0;
		}
		w += ((double)j->duration - left) * j->gpus;
	}
	return w;
}

/*
 * Every STALL_PREEMPTIONS preemptions with no arrival or completion in
 * between: is the run livelocked? A policy that keeps swapping jobs out
 * before they get anywhere (before their restores end, or just after) lets
 * the clock run with no completion: less than STALL_USEFUL of the cluster's
 * GPU time goes to progress. The first look takes the measure, each next
 * one compares (so the verdict covers at least STALL_PREEMPTIONS
 * preemptions); a completion or arrival starts again.
 */
static void stall_check(struct dl_sim *s)
{
	s->stalled = 0;
	double w = work_done(s);
	if (s->stall_looks++ && s->now > s->look_t &&
	    w - s->look_work < STALL_USEFUL * (double)(s->now - s->look_t) * s->total_gpus) {
		s->livelock = 1;
		return;
	}
	s->look_t = s->now;
	s->look_work = w;
}

void dl_sim_preempt(struct dl_sim *s, struct dl_sim_job *j)
{
	if (j->state != DL_SJ_RUNNING)
		return;
	dl_sim_sync(s, j);
	if (!s->stalled++ && !s->stall_looks)
		s->stalled_since = s->now;
	if (s->stalled >= STALL_PREEMPTIONS)
		stall_check(s);
	j->preemptions++;
	s->running--;
	emit(s, j, "preempt", NULL, 0);
	j->state = DL_SJ_SAVING;
	plan_finish(s, j); /* no completion while saving */
	/* even at zero cost the job is re-queued by an event, after this pass */
	saving_push(s, s->now + s->ckpt, j);
}

struct dl_placer *dl_sim_placer(struct dl_sim *s)
{
	return s->placer;
}

/* does j hold GPU g (its GPUs are sorted)? */
static int holds(const struct dl_sim_job *j, int g)
{
	int lo = 0, hi = j->ngpu;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (j->gpu[mid] < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->ngpu && j->gpu[lo] == g;
}

int dl_sim_migrate(struct dl_sim *s, struct dl_sim_job *j, const int *gpus, int n, double pause)
{
	if (j->state != DL_SJ_RUNNING || n != j->gpus)
		return -1;
	/* free GPUs, or GPUs j holds alone (consolidating onto a node it is partly on) */
	for (int k = 0; k < n; k++)
		if (gpus[k] < 0 || gpus[k] >= s->total_gpus ||
		    (s->occ[gpus[k]].jobs && !(s->occ[gpus[k]].jobs == 1 && holds(j, gpus[k]))))
			return -1;
	dl_sim_sync(s, j);
	release_gpus(s, j);
	for (int k = 0; k < n; k++) {
		occ_join(s, j, gpus[k]);
		j->gpu[k] = gpus[k];
	}
	dl_state_take_gpus(s->state, gpus, n);
	j->ngpu = n;
	sort_gpus(j->gpu, n);
	describe(s, j, 0);
	j->migrations++;
	j->restore_until = s->now + pause_ticks(s, j, pause, 1);
	plan_finish(s, j);
	emit(s, j, "migrate", NULL, 1);
	return 0;
}

void dl_sim_suspend(struct dl_sim *s, struct dl_sim_job *j, dl_tick resume_cost)
{
	if (j->state != DL_SJ_RUNNING)
		return;
	dl_sim_sync(s, j);
	j->preemptions++;
	emit(s, j, "suspend", NULL, 0);
	release_gpus(s, j);
	j->state = DL_SJ_QUEUED;
	j->resume_cost = resume_cost < 0 ? 0 : resume_cost;
	s->running--;
	s->queued++;
	plan_finish(s, j); /* no completion while suspended */
}

void dl_sim_set_share(struct dl_sim *s, struct dl_sim_job *j, double share)
{
	if (!(share > 0) || share > 1)
		share = 1;
	dl_sim_sync(s, j);
	j->share = share;
	if (j->state == DL_SJ_RUNNING) {
		j->rate = dl_sim_job_speed(s, j, j->gpu_type) / j->slowdown * share;
		plan_finish(s, j);
	}
}

void dl_sim_timer(struct dl_sim *s, dl_tick at, size_t job, int kind, uint64_t stamp)
{
	if (!(at >= s->now))
		at = s->now;
	if (at > HORIZON)
		return; /* it would never fire */
	uint32_t jb = job == DL_SIM_NOJOB ? UINT32_MAX : (uint32_t)job;
	ev_push(s, &s->timers, (struct event){at, 0, stamp, jb, kind});
}

/* ---- skipping work in closed form (policy.h: gandiva's time slices) ---- */

int dl_sim_logs_events(const struct dl_sim *s)
{
	return s->cfg->events != NULL;
}

uint64_t dl_sim_order_mark(const struct dl_sim *s)
{
	return s->seq + 1;
}

void dl_sim_hold(struct dl_sim *s, struct dl_sim_job *j)
{
	fin_drop(s, j);
	j->finish_at = INT64_MAX;
}

void dl_sim_restate(struct dl_sim *s, struct dl_sim_job *j, const struct dl_sim_counters *c)
{
	j->since = c->since;
	j->executed = c->executed;
	j->waited = c->waited;
	j->work_left = c->work_left;
	j->comm = c->comm;
	j->preemptions = c->preemptions;
	j->restore_until = c->restore_until;
	j->occupied += c->occupied_add;
	if (j->state != DL_SJ_RUNNING)
		return;
	plan_finish_at(s, j, j->since); /* as planned when it resumed, at since */
	if (c->order && s->fin_pos[j->slot]) {
		size_t i = s->fin_pos[j->slot] - 1;
		struct fin_key k = s->fin.a[i];
		uint64_t was = k.seq;
		k.seq = c->order;
		if (k.seq < was)
			fin_up(s, i, k, j->slot);
		else
			fin_down(s, i, k, j->slot);
	}
}

int dl_sim_timer_cancel(struct dl_sim *s, dl_tick at, int kind, uint64_t stamp)
{
	for (size_t i = 0; i < s->timers.n; i++) {
		const struct event *e = &s->timers.a[i];
		if (e->t == at && e->kind == kind && e->stamp == stamp) {
			ev_remove(&s->timers, i);
			return 0;
		}
	}
	return -1;
}

void dl_sim_policy_warning(struct dl_sim *s, const char *text)
{
	if (!s->st->policy_warning[0])
		snprintf(s->st->policy_warning, sizeof(s->st->policy_warning), "%s", text);
}

void dl_sim_policy_summary(struct dl_sim *s, const char *text)
{
	snprintf(s->st->policy_summary, sizeof(s->st->policy_summary), "%s", text);
}

void dl_sim_note(struct dl_sim *s, const struct dl_sim_job *j, const char *what, const char *detail)
{
	emit(s, j, what, detail, 0);
}

/* ---- the run ---- */

static void finish(struct dl_sim *s, struct dl_sim_job *j)
{
	s->stalled = 0;
	s->stall_looks = 0;
	dl_sim_sync(s, j);
	j->work_left = 0;
	emit(s, j, "finish", NULL, 0);
	release_gpus(s, j);
	j->state = DL_SJ_DONE;
	j->version++;
	s->running--;
	s->st->completed++;
	result_row(s, j, s->now);
	s->cfg->policy->finish(s->pst, s, j);
	deactivate(s, j);
}

static void saved(struct dl_sim *s, struct dl_sim_job *j)
{
	release_gpus(s, j);
	j->state = DL_SJ_QUEUED;
	j->since = s->now; /* saving time counts as neither running nor waiting */
	j->version++;
	s->queued++;
	emit(s, j, "saved", NULL, 0);
	if (s->cfg->policy->saved)
		s->cfg->policy->saved(s->pst, s, j);
}

static int type_gpus_of(const struct dl_sim *s, int type)
{
	return type == DL_ANY_TYPE ? s->total_gpus : dl_cluster_type_gpus(s->cfg->cluster, type);
}

/* a type with room for j's gang on which it makes progress */
static int runs_somewhere(const struct dl_sim *s, const struct dl_sim_job *j)
{
	const struct dl_cluster *c = s->cfg->cluster;
	for (size_t ty = 0; ty < c->ntypes; ty++)
		if ((j->type == DL_ANY_TYPE || j->type == (int)ty) &&
		    dl_sim_job_speed(s, j, (int)ty) > 0 && j->gpus <= type_gpus_of(s, (int)ty))
			return 1;
	return 0;
}

static void arrive(struct dl_sim *s, size_t idx)
{
	const struct dl_sim_tjob *t = &s->trace->jobs[idx];
	struct dl_sim_job *j = activate(s, idx);
	s->stalled = 0; /* an arrival may end a stall: the looks start again */
	s->stall_looks = 0;
	j->idx = (uint32_t)idx;
	j->id = dl_sim_trace_id(s->trace, idx);
	j->id_len = (uint32_t)strlen(j->id);
	if (j->id_len < sizeof(j->id_copy))
		j->id = memcpy(j->id_copy, j->id, j->id_len + 1);
	j->submit = t->submit - s->origin;
	j->duration = t->work;
	j->gpus = clamp_gpus(s, t->gpus);
	j->type = (int16_t)(t->type ? s->type_of_name[t->type - 1] : DL_ANY_TYPE);
	j->model = t->model ? s->model_of_name[t->model - 1] : NULL;
	if (s->cfg->models && !j->model)
		j->model = dl_net_models_default(s->cfg->models);
	j->work_left = (double)t->work;
	j->tput_row = tput_row(s, t, j->gpus);
	j->share = 1;
	j->start = -1;
	j->resume_cost = -1;
	j->state = DL_SJ_QUEUED;
	j->since = s->now;
	s->queued++;
	emit(s, j, "arrive", NULL, 0);
	if (j->type == UNKNOWN_TYPE) {
		reject(s, j, "unknown gpu_type");
		return;
	}
	if (j->gpus > type_gpus_of(s, j->type)) {
		reject(s, j,
		       j->type == DL_ANY_TYPE ? "needs more GPUs than the cluster has"
					      : "needs more GPUs of its type than the cluster has");
		return;
	}
	if (j->tput_row >= 0 && s->trows[j->tput_row].never) {
		reject(s, j, s->trows[j->tput_row].never);
		return;
	}
	if (j->tput_row >= 0 && s->trows[j->tput_row].forbids && !runs_somewhere(s, j)) {
		reject(s, j, "its throughput is 0 on every GPU type with room for it");
		return;
	}
	gpu_room(j);
	s->cfg->policy->arrive(s->pst, s, j);
}

static void set_columns(const struct dl_sim_config *cfg)
{
	if (cfg->results)
		dl_sim_results_columns(cfg->results);
	if (cfg->events) {
		static const char *const ec[EC_N] = {"time", "job",	  "event",
						     "gpus", "placement", "detail"};
		dl_writer_set_columns(cfg->events, ec, EC_N);
	}
	if (cfg->timeline) {
		static const char *const tc[TC_N] = {"time", "busy_gpus", "running", "pending",
						     "policy"};
		dl_writer_set_columns(cfg->timeline, tc, TC_N);
	}
}

/* per distinct name of the trace: its GPU type (UNKNOWN_TYPE: not the cluster's) and model */
static void resolve_names(struct dl_sim *s)
{
	const struct dl_sim_config *cfg = s->cfg;
	size_t n = s->trace->nnames;
	s->type_of_name = xcalloc(n ? n : 1, sizeof(*s->type_of_name));
	s->model_of_name = xcalloc(n ? n : 1, sizeof(*s->model_of_name));
	for (size_t k = 0; k < n; k++) {
		const char *name = s->trace->names[k];
		int ty = DL_ANY_TYPE;
		if (!cfg->any_type) {
			ty = dl_cluster_type_index(cfg->cluster, name);
			if (ty < 0)
				ty = UNKNOWN_TYPE;
		}
		s->type_of_name[k] = ty;
		if (cfg->models)
			s->model_of_name[k] = dl_net_models_find(cfg->models, name);
	}
}

static int setup(struct dl_sim *s, struct dl_err *err)
{
	const struct dl_sim_config *cfg = s->cfg;
	s->trace = cfg->trace;
	if (!s->trace) {
		dl_sim_trace_init(&s->own);
		if (dl_sim_trace_from_jobset(&s->own, cfg->jobs, err) < 0)
			return -1;
		s->trace = &s->own;
	}
	s->njobs = s->trace->n;
	s->st->jobs = s->njobs;
	s->origin = s->njobs ? s->trace->jobs[0].submit : 0;
	s->ckpt = dl_sim_ticks(cfg->checkpoint_cost);
	s->restore = dl_sim_ticks(cfg->restore_cost);
	if (s->ckpt < 0 || s->ckpt > DL_SIM_INPUT_MAX || s->restore < 0 ||
	    s->restore > DL_SIM_INPUT_MAX)
		return dl_err_set(err, DL_EXIT_USAGE, "checkpoint or restore cost out of range");
	s->total_gpus = cfg->cluster->total_gpus;
	s->slot_of = xcalloc(s->njobs ? s->njobs : 1, sizeof(*s->slot_of));
	resolve_names(s);
	s->state = dl_state_new(cfg->cluster);
	s->placer = dl_placer_new(s->state, &cfg->place);
	dl_netcost_init(&s->nc, cfg->cluster, cfg->comm);
	s->occ = xcalloc((size_t)s->total_gpus + 1, sizeof(*s->occ));
	s->gpubuf = xcalloc((size_t)s->total_gpus + 1, sizeof(int));
	s->policy_len = strlen(cfg->policy->name);
	s->ref_type = cfg->ref_type ? cfg->ref_type : "v100";
	s->trow_index = (struct strmap)STRMAP_INIT;
	s->model_missing = xcalloc(s->trace->nnames + 1, 1);
	s->type_order = xcalloc(cfg->cluster->ntypes + 1, sizeof(int));
	return 0;
}

static void teardown(struct dl_sim *s)
{
	/* first: the writer thread reads the trace's ids and names */
	dl_sim_results_end(s->res);
	if (s->pst)
		s->cfg->policy->destroy(s->pst);
	free(s->own_params);
	dl_placer_free(s->placer);
	dl_state_free(s->state);
	free(s->occ);
	free(s->gpubuf);
	free(s->fin.a);
	free(s->fin.job);
	free(s->timers.a);
	free(s->sv);
	for (size_t c = 0; c < s->nchunks; c++) {
		for (size_t k = 0; k < SLOT_CHUNK; k++)
			gpu_free(&s->chunk[c][k]);
		free(s->chunk[c]);
	}
	free(s->chunk);
	free(s->fin_pos);
	free(s->free_slot);
	free(s->slot_of);
	free(s->type_of_name);
	free(s->model_of_name);
	for (size_t k = 0; k < s->ntrows; k++) {
		free(s->trows[k].speed);
		free(s->trows[k].spread);
	}
	free(s->trows);
	strmap_free(&s->trow_index);
	free(s->model_missing);
	free(s->type_order);
	if (s->trace == &s->own)
		dl_sim_trace_free(&s->own);
}

/*
 * Jobs left queued with nothing running or coming can never start; jobs
 * left running have no completion event (a policy set a zero share).
 */
static void reject_leftovers(struct dl_sim *s)
{
	for (size_t i = 0; i < s->njobs; i++) {
		struct dl_sim_job *j = dl_sim_job(s, i);
		if (!j)
			continue;
		if (j->state == DL_SJ_QUEUED) {
			reject(s, j, "never placed (fragmentation or policy)");
		} else if (j->state == DL_SJ_RUNNING) {
			fin_drop(s, j);
			release_gpus(s, j);
			s->running--;
			j->state = DL_SJ_QUEUED;
			s->queued++;
			reject(s, j, "never finished (the policy left it at zero speed)");
		}
	}
}

/* ---- the run: setup, one instant at a time, drain ---- */

/* do writers a and b write to the same file (their rows then interleave as they come)? */
static int same_file(struct dl_writer *a, struct dl_writer *b)
{
	struct stat sa, sb;
	if (!a || !b)
		return 0;
	if (dl_writer_file(a) == dl_writer_file(b))
		return 1;
	if (fstat(fileno(dl_writer_file(a)), &sa) || fstat(fileno(dl_writer_file(b)), &sb))
		return 1; /* cannot tell: keep them in order */
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * dl_sim_new, with the results written on a thread of their own when
 * `threaded` (dl_sim_run: nobody looks at the stream before the run ends)
 * and no other stream of the run shares their file
 */
static struct dl_sim *sim_new(const struct dl_sim_config *cfg, struct dl_sim_stats *st,
			      int threaded, struct dl_err *err)
{
	struct dl_sim *s = xcalloc(1, sizeof(*s));
	memset(st, 0, sizeof(*st));
	s->cfg = cfg;
	s->st = st;
	set_columns(cfg);
	if (setup(s, err) < 0) {
		dl_sim_free(s);
		return NULL;
	}
	if (cfg->results) {
		threaded = threaded && !same_file(cfg->results, cfg->events) &&
			   !same_file(cfg->results, cfg->timeline);
		s->res = dl_sim_results_new(cfg->results, cfg->cluster, cfg->policy->name,
					    s->origin, threaded);
	}
	/* policies may keep a pointer to their params for the run */
	s->own_params = cfg->params ? NULL : dl_sim_params_new(cfg->policy);
	const void *params = cfg->params ? cfg->params : s->own_params;
	/* the option parser's rules hold for library callers too */
	if (dl_sim_params_check(cfg->policy, params, err) == 0)
		s->pst = cfg->policy->create(s, params, err);
	if (!s->pst) {
		dl_sim_free(s);
		return NULL;
	}
	s->progress_step = s->njobs / PROGRESS_CALLS ? s->njobs / PROGRESS_CALLS : 1;
	s->next_progress = s->progress_step;
	return s;
}

struct dl_sim *dl_sim_new(const struct dl_sim_config *cfg, struct dl_sim_stats *st,
			  struct dl_err *err)
{
	return sim_new(cfg, st, 0, err);
}

void dl_sim_free(struct dl_sim *s)
{
	if (!s)
		return;
	teardown(s);
	free(s);
}

/* the checkpoint end due first that still applies (stale ones are dropped), or NULL */
static const struct saving *live_saving(struct dl_sim *s)
{
	const struct saving *sv;
	while ((sv = saving_head(s))) {
		if (saving_job(s, sv))
			break;
		saving_pop(s);
		s->st->events++;
	}
	return sv;
}

/*
 * Deliver every event due now, in a fixed order (completions, checkpoint
 * ends, arrivals, timers); 1 if one of them was real (the policy's pass
 * must run), 0 if all were stale.
 */
static int deliver(struct dl_sim *s)
{
	const struct dl_sim_config *cfg = s->cfg;
	struct dl_sim_stats *st = s->st;
	const struct dl_sim_tjob *tj = s->trace->jobs;
	const struct saving *sv;
	int real = 0;
	while (fin_due(&s->fin, s->now)) {
		uint32_t slot = fin_remove(s, 0);
		st->events++;
		finish(s, dl_sim_slot_job(s, slot));
		real = 1;
	}
	while ((sv = saving_head(s)) && sv->t <= s->now) {
		saving_prefetch(s);
		struct dl_sim_job *j = saving_job(s, sv);
		saving_pop(s);
		st->events++;
		if (j) {
			saved(s, j);
			real = 1;
		}
	}
	while (s->next_arrival < s->njobs && tj[s->next_arrival].submit - s->origin <= s->now) {
		st->events++;
		arrive(s, s->next_arrival++);
		real = 1;
	}
	while (ev_due(&s->timers, s->now)) {
		struct event e = ev_remove(&s->timers, 0);
		size_t job = e.job == UINT32_MAX ? DL_SIM_NOJOB : e.job;
		st->events++;
		if (cfg->policy->timer && cfg->policy->timer(s->pst, s, job, e.kind, e.stamp))
			real = 1;
	}
	return real;
}

/*
 * One instant: deliver its events, let the policy decide, and again while
 * that made more events at the same instant; then the timeline and progress.
 */
static int instant(struct dl_sim *s, dl_tick t, struct dl_err *err)
{
	const struct dl_sim_config *cfg = s->cfg;
	struct dl_sim_stats *st = s->st;
	s->now = t;
	for (int passes = 0;; passes++) {
		if (deliver(s)) {
			cfg->policy->schedule(s->pst, s);
			st->passes++;
		}
		if (s->overflow)
			return dl_err_set(err, DL_EXIT_DATA,
					  "the simulation passes its time horizon (2^62 "
					  "microseconds, about 146,000 years)");
		if (s->livelock) {
			char tx[DL_NUM_BUF];
			dl_fmt_micros(tx, s->origin + s->stalled_since);
			return dl_err_set(
				err, DL_EXIT_DATA,
				"policy '%s' makes no progress: from time %s on, jobs are "
				"preempted over and over (%d million times) with no "
				"completion or arrival, and less than 1/%.0f of the GPU "
				"time goes to progress; try lower --checkpoint-cost and "
				"--restore-cost, or longer quanta, leases or rounds",
				cfg->policy->name, tx, 2 * STALL_PREEMPTIONS / 1000000,
				1 / STALL_USEFUL);
		}
		const struct saving *sv = saving_head(s);
		if (!(fin_due(&s->fin, s->now) || (sv && sv->t <= s->now) ||
		      ev_due(&s->timers, s->now)))
			break;
		if (passes >= MAX_PASSES_PER_INSTANT) {
			char tx[DL_NUM_BUF];
			dl_fmt_micros(tx, s->origin + s->now);
			return dl_err_set(err, DL_EXIT_DATA,
					  "policy '%s' does not settle at time %s",
					  cfg->policy->name, tx);
		}
	}
	timeline_row(s);
	if (cfg->progress && st->completed >= s->next_progress) {
		cfg->progress(cfg->progress_arg, st->completed, s->njobs);
		s->last_progress = st->completed;
		while (s->next_progress <= st->completed)
			s->next_progress += s->progress_step;
	}
	if (st->completed)
		st->makespan = (double)s->now / DL_TICKS_PER_SECOND;
	return 0;
}

/* nothing left to happen: what still waits can never run */
static void drain(struct dl_sim *s)
{
	const struct dl_sim_config *cfg = s->cfg;
	reject_leftovers(s);
	if (cfg->progress && (s->last_progress != s->st->completed || !s->st->completed))
		cfg->progress(cfg->progress_arg, s->st->completed, s->njobs);
	s->drained = 1;
}

int dl_sim_step(struct dl_sim *s, struct dl_err *err)
{
	if (s->drained)
		return 0;
	const struct saving *sv = live_saving(s);
	const struct dl_sim_tjob *tj = s->trace->jobs;
	size_t next = s->next_arrival;
	if (!(next < s->njobs || s->fin.n || sv || s->timers.n)) {
		drain(s);
		return 0;
	}
	/* the earliest of the next arrival, completion, checkpoint end and timer */
	dl_tick t = next < s->njobs ? tj[next].submit - s->origin : INT64_MAX;
	if (s->fin.n && s->fin.a[0].t < t)
		t = s->fin.a[0].t;
	if (sv && sv->t < t)
		t = sv->t;
	if (s->timers.n && s->timers.a[0].t < t)
		t = s->timers.a[0].t;
	return instant(s, t, err) < 0 ? -1 : 1;
}

int dl_sim_run(const struct dl_sim_config *cfg, struct dl_sim_stats *st, struct dl_err *err)
{
	struct dl_sim *s = sim_new(cfg, st, 1, err);
	if (!s)
		return -1;
	int rc;
	while ((rc = dl_sim_step(s, err)) > 0)
		;
	dl_sim_free(s);
	return rc < 0 ? -1 : 0;
}
