/*
 * engine.c: the discrete-event simulator core (contract in sim.h and
 * policy.h). Events live in a binary heap ordered by (time, kind, sequence);
 * a job's completion event is recomputed whenever its rate changes and the
 * stale one is recognised by the job's version number (lazy deletion), so
 * every event costs O(log n).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/state.h"
#include "core/num.h"
#include "sim/sim.h"

enum ev_kind { EV_FINISH = 0, EV_SAVED = 1, EV_TIMER = 3 };

struct event {
	double t;
	int kind;
	int tkind; /* policy timer kind */
	size_t job;
	uint64_t stamp; /* job version (finish, saved) or policy stamp (timer) */
	uint64_t seq;
};

struct dl_sim {
	const struct dl_sim_config *cfg;
	struct dl_sim_stats *st;
	struct dl_sim_job *jobs;
	size_t njobs;
	double now;
	struct event *heap;
	size_t nheap, heapalloc;
	uint64_t seq;
	struct dl_cluster_state *state;
	struct dl_placer *placer;
	struct dl_netcost nc;
	unsigned char *occ; /* jobs per GPU (packing) */
	int *gpubuf;	    /* scratch, one per GPU */
	void *pst;	    /* the policy's state */
	int *gpumem;	    /* backing store of every job's gpu array */
	size_t running, queued;
	int total_gpus;
	/* timeline de-duplication */
	int tl_busy;
	size_t tl_running, tl_pending;
	int tl_written;
	size_t next_progress, last_progress;
};

/* ---- heap ---- */

static int ev_less(const struct event *a, const struct event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

static void heap_push(struct dl_sim *s, struct event e)
{
	e.seq = s->seq++;
	DL_GROW(s->heap, s->nheap + 1, s->heapalloc);
	size_t i = s->nheap++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct event heap_pop(struct dl_sim *s)
{
	struct event top = s->heap[0];
	struct event last = s->heap[--s->nheap];
	size_t i = 0, n = s->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (n)
		s->heap[i] = last;
	return top;
}

/* ---- output ---- */

enum { EC_TIME, EC_JOB, EC_EVENT, EC_GPUS, EC_PLACEMENT, EC_DETAIL, EC_N };

static void emit(struct dl_sim *s, const struct dl_sim_job *j, const char *what, const char *detail,
		 int with_place)
{
	struct dl_writer *w = s->cfg->events;
	if (!w)
		return;
	dl_writer_seconds(w, EC_TIME, s->now);
	dl_writer_str(w, EC_JOB, j->job->id);
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
	if (detail)
		dl_writer_str(w, EC_DETAIL, detail);
	else
		dl_writer_null(w, EC_DETAIL);
	dl_writer_end_row(w);
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
	dl_writer_seconds(w, 0, s->now);
	dl_writer_int(w, 1, busy);
	dl_writer_int(w, 2, (int64_t)s->running);
	dl_writer_int(w, 3, (int64_t)s->queued);
	dl_writer_str(w, 4, s->cfg->policy->name); /* the label report files it under */
	dl_writer_end_row(w);
}

enum {
	RC_ID,
	RC_SUBMIT,
	RC_GPUS,
	RC_DURATION,
	RC_START,
	RC_END,
	RC_JCT,
	RC_QDELAY,
	RC_RUNTIME,
	RC_PREEMPT,
	RC_MIGRATE,
	RC_TIER,
	RC_SLOWDOWN,
	RC_TYPE,
	RC_POLICY,
	RC_REJECTED,
	RC_N
};

static const char *const result_cols[RC_N] = {
	"id",	    "submit",	   "gpus",     "duration",    "start",	    "end",
	"jct",	    "queue_delay", "run_time", "preemptions", "migrations", "tier",
	"slowdown", "gpu_type",	   "policy",   "rejected",
};

static void result_row(struct dl_sim *s, const struct dl_sim_job *j)
{
	struct dl_writer *w = s->cfg->results;
	if (!w)
		return;
	double jct = j->end - j->submit;
	dl_writer_str(w, RC_ID, j->job->id);
	dl_writer_seconds(w, RC_SUBMIT, j->submit);
	dl_writer_int(w, RC_GPUS, j->gpus);
	dl_writer_seconds(w, RC_DURATION, j->duration);
	dl_writer_seconds(w, RC_START, j->start);
	dl_writer_seconds(w, RC_END, j->end);
	dl_writer_seconds(w, RC_JCT, jct);
	dl_writer_seconds(w, RC_QDELAY, jct - j->executed);
	dl_writer_seconds(w, RC_RUNTIME, j->executed);
	dl_writer_int(w, RC_PREEMPT, j->preemptions);
	dl_writer_int(w, RC_MIGRATE, j->migrations);
	dl_writer_str(w, RC_TIER, dl_tier_name(j->tier));
	dl_writer_double_prec(w, RC_SLOWDOWN, j->slowdown, 12);
	dl_writer_str(w, RC_TYPE, s->cfg->cluster->types[j->gpu_type].name);
	dl_writer_str(w, RC_POLICY, s->cfg->policy->name);
	dl_writer_end_row(w);
}

/* a job that can never run: its row has no times and says why in `rejected` */
static void rejected_row(struct dl_sim *s, const struct dl_sim_job *j, const char *why)
{
	struct dl_writer *w = s->cfg->results;
	if (!w)
		return;
	dl_writer_str(w, RC_ID, j->job->id);
	dl_writer_seconds(w, RC_SUBMIT, j->submit);
	dl_writer_int(w, RC_GPUS, j->job->gpus);
	dl_writer_seconds(w, RC_DURATION, j->duration);
	dl_writer_str(w, RC_TYPE, j->job->gpu_type ? j->job->gpu_type : "");
	dl_writer_str(w, RC_POLICY, s->cfg->policy->name);
	if (j->type == -2) {
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "unknown GPU type '%s'", j->job->gpu_type);
		dl_writer_str(w, RC_REJECTED, sb.buf);
		sb_release(&sb);
	} else {
		dl_writer_str(w, RC_REJECTED, why);
	}
	dl_writer_end_row(w);
}

/* ---- accounting ---- */

double dl_sim_now(const struct dl_sim *s)
{
	return s->now;
}

size_t dl_sim_njobs(const struct dl_sim *s)
{
	return s->njobs;
}

struct dl_sim_job *dl_sim_job(struct dl_sim *s, size_t idx)
{
	return &s->jobs[idx];
}

const struct dl_cluster *dl_sim_cluster(const struct dl_sim *s)
{
	return s->cfg->cluster;
}

int dl_sim_total_gpus(const struct dl_sim *s)
{
	return s->total_gpus;
}

int dl_sim_free_gpus(const struct dl_sim *s)
{
	return dl_state_total_free(s->state);
}

void dl_sim_sync(struct dl_sim *s, struct dl_sim_job *j)
{
	double t = s->now, dt = t - j->since;
	if (dt <= 0)
		return;
	if (j->state == DL_SJ_RUNNING) {
		double from = j->restore_until > j->since ? j->restore_until : j->since;
		if (t > from)
			j->work_left -= (t - from) * j->rate;
		if (j->work_left < 0)
			j->work_left = 0;
		j->executed += dt;
		j->attained += dt * j->gpus;
	} else if (j->state == DL_SJ_QUEUED) {
		j->waited += dt;
	}
	j->since = t;
}

/* (re)compute j's completion event after a change of rate or placement */
static void plan_finish(struct dl_sim *s, struct dl_sim_job *j)
{
	j->version++;
	if (j->state != DL_SJ_RUNNING)
		return;
	double from = j->restore_until > s->now ? j->restore_until : s->now;
	double t = j->rate > 0 ? from + j->work_left / j->rate : INFINITY;
	if (!isfinite(t))
		return; /* a zero share: the policy must change it */
	heap_push(s, (struct event){t, EV_FINISH, 0, j->idx, j->version, 0});
}

/* speed, tier and slowdown of the GPUs j holds */
static void describe(struct dl_sim *s, struct dl_sim_job *j)
{
	const struct dl_cluster *c = s->cfg->cluster;
	int nn, nr;
	dl_placement_describe(c, j->gpu, j->ngpu, &nn, &nr, &j->tier);
	/* the slowest GPU sets the pace of a synchronous job */
	double speed = INFINITY;
	int type = 0;
	for (int k = 0; k < j->ngpu; k++) {
		int ty = c->nodes[dl_cluster_gpu_node(c, j->gpu[k])].type;
		if (c->types[ty].speed < speed) {
			speed = c->types[ty].speed;
			type = ty;
		}
	}
	j->gpu_type = type;
	j->speed = speed;
	j->slowdown = 1;
	if (s->cfg->models && j->model && j->ngpu > 1)
		j->slowdown = dl_netcost_slowdown(&s->nc, j->model, j->ngpu, j->tier, speed);
	j->rate = speed / j->slowdown * j->share;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void release_gpus(struct dl_sim *s, struct dl_sim_job *j)
{
	int n = 0;
	for (int k = 0; k < j->ngpu; k++)
		if (--s->occ[j->gpu[k]] == 0)
			s->gpubuf[n++] = j->gpu[k];
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
	if (!s->st->first_rejected) {
		s->st->first_rejected = j->job->id;
		s->st->reject_reason = why;
	}
	emit(s, j, "reject", why, 0);
	rejected_row(s, j, why);
}

enum dl_decision dl_sim_start(struct dl_sim *s, struct dl_sim_job *j, const struct dl_sim_how *how)
{
	if (j->state != DL_SJ_QUEUED)
		return DL_WAIT;
	dl_sim_sync(s, j);
	double share = how && how->share > 0 ? how->share : 1;
	if (how && how->gpus) {
		for (int k = 0; k < j->gpus; k++) {
			int g = how->gpus[k];
			if (g < 0 || g >= s->total_gpus || (s->occ[g] && !how->shared))
				return DL_WAIT;
		}
		for (int k = 0; k < j->gpus; k++) {
			int g = how->gpus[k];
			if (s->occ[g]++ == 0)
				dl_state_take_gpu(s->state, g);
			j->gpu[k] = g;
		}
	} else {
		struct dl_place_req req = {j->gpus, j->type, 0, j->waited};
		if (how && how->type != DL_ANY_TYPE)
			req.type = how->type;
		if (j->model)
			req.consolidate = j->model->consolidate;
		struct dl_placement pl = {0};
		pl.gpus = j->gpu;
		dl_place(s->placer, &req, &pl);
		if (pl.decision == DL_REJECT) {
			reject(s, j, pl.reason ? pl.reason : "cannot be placed");
			return DL_REJECT;
		}
		if (pl.decision != DL_PLACED)
			return DL_WAIT;
		for (int k = 0; k < j->gpus; k++)
			s->occ[j->gpu[k]]++;
	}
	j->ngpu = j->gpus;
	qsort(j->gpu, (size_t)j->ngpu, sizeof(*j->gpu), cmp_int);
	j->share = share;
	describe(s, j);
	int resumed = j->starts > 0;
	j->restore_until = resumed ? s->now + s->cfg->restore_cost : s->now;
	if (!resumed)
		j->start = s->now;
	j->starts++;
	j->state = DL_SJ_RUNNING;
	s->queued--;
	s->running++;
	plan_finish(s, j);
	emit(s, j, resumed ? "resume" : "start", NULL, 1);
	return DL_PLACED;
}

void dl_sim_preempt(struct dl_sim *s, struct dl_sim_job *j)
{
	if (j->state != DL_SJ_RUNNING)
		return;
	dl_sim_sync(s, j);
	j->preemptions++;
	s->running--;
	emit(s, j, "preempt", NULL, 0);
	j->state = DL_SJ_SAVING;
	j->version++;
	/* even at zero cost the job is re-queued by an event, after this pass */
	heap_push(s, (struct event){s->now + s->cfg->checkpoint_cost, EV_SAVED, 0, j->idx,
				    j->version, 0});
}

int dl_sim_migrate(struct dl_sim *s, struct dl_sim_job *j, const int *gpus, int n)
{
	if (j->state != DL_SJ_RUNNING || n != j->gpus)
		return -1;
	for (int k = 0; k < n; k++)
		if (gpus[k] < 0 || gpus[k] >= s->total_gpus || s->occ[gpus[k]])
			return -1;
	dl_sim_sync(s, j);
	release_gpus(s, j);
	for (int k = 0; k < n; k++) {
		s->occ[gpus[k]]++;
		dl_state_take_gpu(s->state, gpus[k]);
		j->gpu[k] = gpus[k];
	}
	j->ngpu = n;
	qsort(j->gpu, (size_t)n, sizeof(*j->gpu), cmp_int);
	describe(s, j);
	j->migrations++;
	j->restore_until = s->now + s->cfg->checkpoint_cost + s->cfg->restore_cost;
	plan_finish(s, j);
	emit(s, j, "migrate", NULL, 1);
	return 0;
}

void dl_sim_set_share(struct dl_sim *s, struct dl_sim_job *j, double share)
{
	if (!(share > 0) || share > 1)
		share = 1;
	dl_sim_sync(s, j);
	j->share = share;
	if (j->state == DL_SJ_RUNNING) {
		j->rate = j->speed / j->slowdown * share;
		plan_finish(s, j);
	}
}

void dl_sim_timer(struct dl_sim *s, double at, size_t job, int kind, uint64_t stamp)
{
	if (!(at >= s->now))
		at = s->now;
	heap_push(s, (struct event){at, EV_TIMER, kind, job, stamp, 0});
}

void dl_sim_note(struct dl_sim *s, const struct dl_sim_job *j, const char *what, const char *detail)
{
	emit(s, j, what, detail, 0);
}

/* ---- the run ---- */

static void finish(struct dl_sim *s, struct dl_sim_job *j)
{
	dl_sim_sync(s, j);
	j->work_left = 0;
	j->end = s->now;
	emit(s, j, "finish", NULL, 0);
	release_gpus(s, j);
	j->state = DL_SJ_DONE;
	j->version++;
	s->running--;
	s->st->completed++;
	result_row(s, j);
	s->cfg->policy->finish(s->pst, s, j);
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

static void arrive(struct dl_sim *s, struct dl_sim_job *j)
{
	j->state = DL_SJ_QUEUED;
	j->since = s->now;
	s->queued++;
	emit(s, j, "arrive", NULL, 0);
	if (j->type == -2) {
		reject(s, j, "unknown gpu_type");
		return;
	}
	if (j->gpus > type_gpus_of(s, j->type)) {
		reject(s, j,
		       j->type == DL_ANY_TYPE ? "needs more GPUs than the cluster has"
					      : "needs more GPUs of its type than the cluster has");
		return;
	}
	s->cfg->policy->arrive(s->pst, s, j);
}

static int cmp_submit(const void *a, const void *b)
{
	const struct dl_sim_job *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx); /* input order */
}

static void set_columns(const struct dl_sim_config *cfg)
{
	if (cfg->results)
		dl_writer_set_columns(cfg->results, result_cols, RC_N);
	if (cfg->events) {
		static const char *const ec[EC_N] = {"time", "job",	  "event",
						     "gpus", "placement", "detail"};
		dl_writer_set_columns(cfg->events, ec, EC_N);
	}
	if (cfg->timeline) {
		static const char *const tc[5] = {"time", "busy_gpus", "running", "pending",
						  "policy"};
		dl_writer_set_columns(cfg->timeline, tc, 5);
	}
}

int dl_sim_run(const struct dl_sim_config *cfg, struct dl_sim_stats *st, struct dl_err *err)
{
	struct dl_sim s_, *s = &s_;
	memset(st, 0, sizeof(*st));
	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->st = st;
	s->njobs = cfg->jobs->n;
	st->jobs = s->njobs;
	s->total_gpus = cfg->cluster->total_gpus;
	set_columns(cfg);

	s->jobs = xcalloc(s->njobs ? s->njobs : 1, sizeof(*s->jobs));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct dl_job *dj = &cfg->jobs->jobs[i];
		struct dl_sim_job *j = &s->jobs[i];
		j->job = dj;
		j->idx = i;
		j->gpus = dj->gpus > s->total_gpus ? s->total_gpus + 1 : (int)dj->gpus;
		j->type = DL_ANY_TYPE;
		if (!cfg->any_type && dj->gpu_type && *dj->gpu_type) {
			j->type = dl_cluster_type_index(cfg->cluster, dj->gpu_type);
			if (j->type < 0)
				j->type = -2; /* rejected on arrival */
		}
		j->submit = dj->submit;
		j->duration = dj->duration;
		j->work_left = dj->duration;
		j->share = 1;
		j->start = -1;
		if (cfg->models)
			j->model = dj->model && *dj->model
					   ? dl_net_models_find(cfg->models, dj->model)
					   : NULL;
		if (cfg->models && !j->model)
			j->model = dl_net_models_default(cfg->models);
	}
	qsort(s->jobs, s->njobs, sizeof(*s->jobs), cmp_submit);
	int *gpuarena = xcalloc(s->njobs ? s->njobs : 1, sizeof(int)); /* offsets */
	size_t total = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		s->jobs[i].idx = i;
		gpuarena[i] = (int)(s->jobs[i].gpus <= s->total_gpus ? s->jobs[i].gpus : 0);
		total += (size_t)gpuarena[i];
	}
	int *gpumem = s->gpumem = xcalloc(total ? total : 1, sizeof(int));
	for (size_t i = 0, off = 0; i < s->njobs; i++) {
		s->jobs[i].gpu = gpumem + off;
		off += (size_t)gpuarena[i];
	}
	free(gpuarena);

	s->state = dl_state_new(cfg->cluster);
	s->placer = dl_placer_new(s->state, &cfg->place);
	dl_netcost_init(&s->nc, cfg->cluster, cfg->comm);
	s->occ = xcalloc((size_t)s->total_gpus + 1, 1);
	s->gpubuf = xcalloc((size_t)s->total_gpus + 1, sizeof(int));
	int rc = 0;
	s->pst = cfg->policy->create(s, &cfg->params, err);
	if (!s->pst) {
		rc = -1;
		goto out;
	}

	size_t next = 0; /* next arrival */
	size_t step = s->njobs / 100 ? s->njobs / 100 : 1;
	s->next_progress = step;
	double first_submit = s->njobs ? s->jobs[0].submit : 0;
	while (next < s->njobs || s->nheap) {
		/* drop superseded completions and checkpoint ends first */
		while (s->nheap && s->heap[0].kind < EV_TIMER &&
		       s->heap[0].stamp != s->jobs[s->heap[0].job].version) {
			heap_pop(s);
			st->events++;
		}
		if (!(next < s->njobs || s->nheap))
			break;
		double ta = next < s->njobs ? s->jobs[next].submit : INFINITY;
		double th = s->nheap ? s->heap[0].t : INFINITY;
		s->now = ta < th ? ta : th;
		int passes = 0;
		for (;;) {
			int real = 0;
			/* completions and checkpoint ends at now */
			while (s->nheap && s->heap[0].t <= s->now && s->heap[0].kind < EV_TIMER) {
				struct event e = heap_pop(s);
				struct dl_sim_job *j = &s->jobs[e.job];
				st->events++;
				if (e.stamp != j->version)
					continue; /* superseded */
				if (e.kind == EV_FINISH && j->state == DL_SJ_RUNNING) {
					finish(s, j);
					real = 1;
				} else if (e.kind == EV_SAVED && j->state == DL_SJ_SAVING) {
					saved(s, j);
					real = 1;
				}
			}
			while (next < s->njobs && s->jobs[next].submit <= s->now) {
				st->events++;
				arrive(s, &s->jobs[next++]);
				real = 1;
			}
			while (s->nheap && s->heap[0].t <= s->now && s->heap[0].kind == EV_TIMER) {
				struct event e = heap_pop(s);
				st->events++;
				if (cfg->policy->timer &&
				    cfg->policy->timer(s->pst, s, e.job, e.tkind, e.stamp))
					real = 1;
			}
			if (real) {
				cfg->policy->schedule(s->pst, s);
				st->passes++;
			}
			if (!(s->nheap && s->heap[0].t <= s->now))
				break;
			if (++passes > 100000) {
				rc = dl_err_set(err, DL_EXIT_DATA,
						"policy '%s' does not settle at time %g",
						cfg->policy->name, s->now);
				goto out;
			}
		}
		timeline_row(s);
		if (cfg->progress && st->completed >= s->next_progress) {
			cfg->progress(cfg->progress_arg, st->completed, s->njobs);
			s->last_progress = st->completed;
			while (s->next_progress <= st->completed)
				s->next_progress += step;
		}
		if (st->completed && s->now - first_submit > st->makespan)
			st->makespan = s->now - first_submit;
		if (!s->nheap && next >= s->njobs)
			break;
	}
	/*
	 * Jobs left queued with nothing running or coming can never start; jobs
	 * left running have no completion event (a policy set a zero share).
	 */
	for (size_t i = 0; i < s->njobs; i++) {
		struct dl_sim_job *j = &s->jobs[i];
		if (j->state == DL_SJ_QUEUED) {
			reject(s, j, "never placed (fragmentation or policy)");
		} else if (j->state == DL_SJ_RUNNING) {
			release_gpus(s, j);
			s->running--;
			j->state = DL_SJ_QUEUED;
			s->queued++;
			reject(s, j, "never finished (the policy left it at zero speed)");
		}
	}
	if (cfg->progress && (s->last_progress != st->completed || !st->completed))
		cfg->progress(cfg->progress_arg, st->completed, s->njobs);
out:
	if (s->pst)
		cfg->policy->destroy(s->pst);
	dl_placer_free(s->placer);
	dl_state_free(s->state);
	free(s->occ);
	free(s->gpubuf);
	free(s->heap);
	free(s->gpumem);
	free(s->jobs);
	return rc;
}
