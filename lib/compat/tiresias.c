/*
 * tiresias.c: the reference Tiresias simulator's event loops, kept
 * statement-for-statement equivalent where the order of operations decides
 * the results (list orders, stable sorts, integer arithmetic). Each loop
 * names the reference function it mirrors; the semantics are written up in
 * dlsched-simulate(1), TIRESIAS COMPATIBILITY. Costs are the reference's
 * (O(jobs) per event): this mode is for reproducing published numbers, the
 * native engine (lib/sim) is for speed.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/sort.h"
#include "compat/tiresias.h"

#define T_MAX INT64_MAX

enum { TS_EVENT, TS_PENDING, TS_RUNNING, TS_END };

struct tplace {
	size_t node;
	int64_t gpus, cpus;
	double mem;
};

struct tjob {
	char *id; /* as the reference prints it */
	int64_t gpus, submit, duration;
	int status;
	int64_t start, end, pending, last_check, total_exec, exec, last_pending;
	int64_t preempt, resume, promote;
	int64_t remaining, remaining_gpu;
	size_t q;
	double rank;
	struct tplace *pl; /* yarn placement of the latest admission */
	size_t npl, plalloc;
};

struct dl_tiresias_trace {
	struct tjob *jobs;
	size_t n;
};

/* a Python list of job indices */
struct ilist {
	size_t *v;
	size_t n, alloc;
};

static void il_push(struct ilist *l, size_t x)
{
	DL_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = x;
}

static void il_remove(struct ilist *l, size_t x)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == x) {
			memmove(l->v + i, l->v + i + 1, (l->n - i - 1) * sizeof(*l->v));
			l->n--;
			return;
		}
}

static void il_free(struct ilist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* ---- inputs ---- */

void dl_tiresias_spec_default(struct dl_tiresias_spec *s)
{
	s->num_switch = 1;
	s->num_node_p_switch = 32;
	s->num_gpu_p_node = 8;
	s->num_cpu_p_node = 64;
	s->mem_p_node = 256;
}

int dl_tiresias_spec_load(const char *path, struct dl_tiresias_spec *s, struct dl_err *err)
{
	static const char *const names[5] = {"num_switch", "num_node_p_switch", "num_gpu_p_node",
					     "num_cpu_p_node", "mem_p_node"};
	struct dl_reader *r = dl_reader_open(path, DL_IN_CSV, err);
	if (!r)
		return -1;
	int col[5];
	for (int k = 0; k < 5; k++)
		if ((col[k] = dl_reader_require(r, names[k], "a Tiresias cluster_spec", err)) < 0)
			goto fail;
	struct dl_row row;
	int got = dl_reader_next(r, &row, err);
	if (got < 0)
		goto fail;
	if (got == 0) {
		dl_err_at(err, dl_reader_name(r), 0,
			  "no data row (a cluster_spec has exactly one)");
		goto fail;
	}
	int64_t v[5];
	for (int k = 0; k < 5; k++) {
		if (dl_field_int64(r, &row, col[k], &v[k], err) < 0)
			goto fail;
		if (v[k] < 1) {
			dl_err_at(err, dl_reader_name(r), row.line,
				  "bad %s value '%s': must be >= 1", names[k], row.f[col[k]]);
			goto fail;
		}
	}
	long line = row.line;
	got = dl_reader_next(r, &row, err);
	if (got < 0)
		goto fail;
	if (got > 0) {
		dl_err_at(err, dl_reader_name(r), row.line,
			  "a cluster_spec has one data row (the first is on line %ld)", line);
		goto fail;
	}
	if (v[0] * v[1] > (1 << 21) || v[0] * v[1] * v[2] > (1 << 24)) {
		dl_err_at(err, dl_reader_name(r), line, "cluster too large");
		goto fail;
	}
	s->num_switch = v[0];
	s->num_node_p_switch = v[1];
	s->num_gpu_p_node = v[2];
	s->num_cpu_p_node = v[3];
	s->mem_p_node = v[4];
	dl_reader_close(r);
	return 0;
fail:
	dl_reader_close(r);
	return -1;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* the reference turns every all-digit field into an int (so "007" prints as 7) */
static char *py_id(const char *s)
{
	if (!all_digits(s))
		return xstrdup(s);
	while (s[0] == '0' && s[1])
		s++;
	return xstrdup(s);
}

static int int_field(struct dl_reader *r, const struct dl_row *row, int col, const char *name,
		     int64_t min, int64_t *out, struct dl_err *err)
{
	const char *s = row->f[col];
	int64_t v;
	if (!all_digits(s) || dl_parse_int64(s, &v) < 0 || v < min)
		return dl_err_at(err, dl_reader_name(r), row->line,
				 "bad %s value '%s': must be an integer >= %lld", name, s,
				 (long long)min);
	*out = v;
	return 0;
}

static int cmp_tjob_submit(const void *a, const void *b, void *ctx)
{
	int64_t x = ((const struct tjob *)a)->submit, y = ((const struct tjob *)b)->submit;
	(void)ctx;
	return (x > y) - (x < y);
}

struct dl_tiresias_trace *dl_tiresias_trace_load(const char *path, enum dl_in_format fmt,
						 struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, fmt, err);
	if (!r)
		return NULL;
	const char *why = "a Tiresias job trace";
	int c_id = dl_reader_require(r, "job_id", why, err);
	int c_gpu = c_id < 0 ? -1 : dl_reader_require(r, "num_gpu", why, err);
	int c_sub = c_gpu < 0 ? -1 : dl_reader_require(r, "submit_time", why, err);
	int c_dur = c_sub < 0 ? -1 : dl_reader_require(r, "duration", why, err);
	if (c_dur < 0) {
		dl_reader_close(r);
		return NULL;
	}
	struct dl_tiresias_trace *t = xcalloc(1, sizeof(*t));
	size_t alloc = 0;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		struct tjob j = {0};
		double d;
		if (int_field(r, &row, c_gpu, "num_gpu", 1, &j.gpus, err) < 0 ||
		    int_field(r, &row, c_sub, "submit_time", 0, &j.submit, err) < 0) {
			got = -1;
			break;
		}
		if (dl_parse_double(row.f[c_dur], &d) < 0 || !(d >= 1.0) || d > 9e15) {
			dl_err_at(err, dl_reader_name(r), row.line,
				  "bad duration value '%s': must be at least 1 second",
				  row.f[c_dur]);
			got = -1;
			break;
		}
		j.duration = (int64_t)d; /* int(float(duration)) */
		j.id = py_id(row.f[c_id]);
		DL_GROW(t->jobs, t->n + 1, alloc);
		t->jobs[t->n++] = j;
	}
	dl_reader_close(r);
	if (got < 0) {
		dl_tiresias_trace_free(t);
		return NULL;
	}
	/* stable by submit (Python's list.sort) */
	dl_stable_sort(t->jobs, t->n, sizeof(*t->jobs), cmp_tjob_submit, NULL, NULL);
	return t;
}

size_t dl_tiresias_trace_njobs(const struct dl_tiresias_trace *t)
{
	return t->n;
}

void dl_tiresias_trace_free(struct dl_tiresias_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->jobs[i].id);
		free(t->jobs[i].pl);
	}
	free(t->jobs);
	free(t);
}

/* ---- schedules ---- */

enum loop { L_FIFO, L_FJF, L_SJF, L_SHORTEST, L_SHORTEST_GPU, L_DLAS };

struct sched {
	enum loop loop;
	int gputime;
	double starve; /* dlas: solve_starvation */
	int gittins;
};

static int parse_schedule(const char *s, struct sched *out)
{
	static const struct {
		const char *name;
		struct sched s;
	} tab[] = {
		{"fifo", {L_FIFO, 0, 0, 0}},
		{"fjf", {L_FJF, 0, 0, 0}},
		{"sjf", {L_SJF, 0, 0, 0}},
		{"shortest", {L_SHORTEST, 0, 0, 0}},
		{"shortest-gpu", {L_SHORTEST_GPU, 1, 0, 0}},
		{"dlas", {L_DLAS, 0, 0, 0}},
		{"dlas-gpu", {L_DLAS, 1, 0, 0}},
		{"dlas-gpu-05", {L_DLAS, 1, 0.5, 0}},
		{"dlas-gpu-1", {L_DLAS, 1, 1, 0}},
		{"dlas-gpu-2", {L_DLAS, 1, 2, 0}},
		{"dlas-gpu-4", {L_DLAS, 1, 4, 0}},
		{"dlas-gpu-8", {L_DLAS, 1, 8, 0}},
		{"dlas-gpu-10", {L_DLAS, 1, 10, 0}},
		{"dlas-gpu-100", {L_DLAS, 1, 100, 0}},
		{"dlas-gpu-1000", {L_DLAS, 1, 1000, 0}},
		{"dlas-gpu-gittins", {L_DLAS, 1, 0, 1}},
		/* the reference enables Gittins only for the exact name above */
		{"dlas-gpu-gittins-1", {L_DLAS, 1, 1, 0}},
		{"dlas-gpu-gittins-2", {L_DLAS, 1, 2, 0}},
		{"dlas-gpu-gittins-4", {L_DLAS, 1, 4, 0}},
		{"dlas-gpu-gittins-8", {L_DLAS, 1, 8, 0}},
	};
	for (size_t i = 0; i < DL_ARRAY_SIZE(tab); i++)
		if (!strcmp(s, tab[i].name)) {
			*out = tab[i].s;
			return 0;
		}
	return -1;
}

int dl_tiresias_check_schedule(const char *schedule, int *needs_gittins, struct dl_err *err)
{
	struct sched s;
	if (parse_schedule(schedule, &s) < 0)
		return dl_err_set(err, DL_EXIT_USAGE,
				  "unknown Tiresias schedule '%s' (fifo, fjf, sjf, shortest, "
				  "shortest-gpu, dlas, dlas-gpu, dlas-gpu-N, dlas-gpu-gittins)",
				  schedule);
	if (needs_gittins)
		*needs_gittins = s.gittins;
	return 0;
}

/* ---- the cluster (cluster.py, switch.py, node.py) ---- */

struct tnode {
	int64_t free_gpus, free_cpus;
	double free_mem;
};

struct tcluster {
	struct dl_tiresias_spec s;
	int count; /* scheme count, else yarn */
	int64_t num_node, num_gpu, free_gpu;
	struct tnode *nodes;
	size_t *pick; /* scratch: chosen full nodes */
};

static const double WORKER_MEM = 5, PS_MEM = 6, P_W_MEM = 0.1;

static void empty_infra(struct tcluster *c)
{
	c->free_gpu = c->num_gpu;
	for (int64_t i = 0; i < c->num_node; i++) {
		/* init_node(gpus, cpus): free_mem is not reset (the reference's leak) */
		c->nodes[i].free_gpus = c->s.num_gpu_p_node;
		c->nodes[i].free_cpus = c->s.num_cpu_p_node;
	}
}

static void add_place(struct tjob *j, size_t node, int64_t gpus, int64_t cpus, double mem)
{
	DL_GROW(j->pl, j->npl + 1, j->plalloc);
	j->pl[j->npl++] = (struct tplace){node, gpus, cpus, mem};
}

/* switch.try_single_node_alloc */
static int yarn_single(struct tcluster *c, struct tjob *j, size_t first)
{
	int64_t need_cpu = j->gpus == 1 ? 2 * j->gpus : 6 * j->gpus;
	for (int64_t n = 0; n < c->s.num_node_p_switch; n++) {
		struct tnode *nd = &c->nodes[first + (size_t)n];
		if (nd->free_gpus >= j->gpus && nd->free_cpus >= need_cpu &&
		    nd->free_mem >= WORKER_MEM) {
			nd->free_gpus -= j->gpus;
			nd->free_cpus -= need_cpu;
			nd->free_mem = nd->free_mem - WORKER_MEM;
			add_place(j, first + (size_t)n, j->gpus, need_cpu, WORKER_MEM);
			return 1;
		}
	}
	return 0;
}

/* switch.try_cross_node_alloc */
static int yarn_cross(struct tcluster *c, struct tjob *j, size_t first)
{
	int64_t G = c->s.num_gpu_p_node, N = c->s.num_node_p_switch;
	int64_t nfull = j->gpus / G, last_gpu = j->gpus % G;
	int64_t last_cpu = last_gpu * 6, idle_cpu = G * 6;
	double ps_mem = PS_MEM + (double)j->gpus * P_W_MEM;
	double ps_w_mem = ps_mem + WORKER_MEM;
	size_t nf = 0;
	for (int64_t n = 0; n < N && (int64_t)nf < nfull; n++) {
		struct tnode *nd = &c->nodes[first + (size_t)n];
		if (nd->free_gpus == G && nd->free_cpus >= idle_cpu &&
		    nd->free_mem >= ps_w_mem * (double)G)
			c->pick[nf++] = first + (size_t)n;
	}
	if ((int64_t)nf < nfull)
		return 0;
	size_t last = SIZE_MAX;
	if (last_gpu) {
		for (int64_t n = 0; n < N && last == SIZE_MAX; n++) {
			size_t id = first + (size_t)n;
			int used = 0;
			for (size_t k = 0; k < nf; k++)
				used |= c->pick[k] == id;
			struct tnode *nd = &c->nodes[id];
			if (!used && nd->free_gpus >= last_gpu && nd->free_cpus >= last_cpu &&
			    nd->free_mem >= ps_w_mem * (double)last_gpu)
				last = id;
		}
		if (last == SIZE_MAX)
			return 0;
	}
	for (size_t k = 0; k < nf; k++) {
		struct tnode *nd = &c->nodes[c->pick[k]];
		nd->free_gpus -= G;
		nd->free_cpus -= idle_cpu;
		double m = ps_w_mem * (double)G;
		nd->free_mem -= m;
		add_place(j, c->pick[k], G, idle_cpu, m);
	}
	if (last_gpu) {
		struct tnode *nd = &c->nodes[last];
		nd->free_gpus -= last_gpu;
		nd->free_cpus -= last_cpu;
		double m = ps_w_mem * (double)last_gpu;
		nd->free_mem -= m;
		add_place(j, last, last_gpu, last_cpu, m);
	}
	return 1;
}

/* run_sim.try_get_job_res */
static int place(struct tcluster *c, struct tjob *j)
{
	if (c->count) {
		if (c->free_gpu >= j->gpus) {
			c->free_gpu -= j->gpus;
			return 1;
		}
		return 0;
	}
	for (int64_t s = 0; s < c->s.num_switch; s++) {
		size_t first = (size_t)(s * c->s.num_node_p_switch);
		if (j->gpus > c->s.num_gpu_p_node ? yarn_cross(c, j, first)
						  : yarn_single(c, j, first))
			return 1;
	}
	return 0;
}

/* cluster.release_job_res */
static void release(struct tcluster *c, struct tjob *j)
{
	if (c->count) {
		c->free_gpu += j->gpus;
		if (c->free_gpu > c->num_gpu)
			c->free_gpu = c->num_gpu;
	} else {
		for (size_t k = 0; k < j->npl; k++) {
			struct tnode *nd = &c->nodes[j->pl[k].node];
			nd->free_cpus += j->pl[k].cpus;
			if (nd->free_cpus > c->s.num_cpu_p_node)
				nd->free_cpus = c->s.num_cpu_p_node;
			nd->free_gpus += j->pl[k].gpus;
			if (nd->free_gpus > c->s.num_gpu_p_node)
				nd->free_gpus = c->s.num_gpu_p_node;
			nd->free_mem = nd->free_mem + j->pl[k].mem;
		}
	}
	j->status = TS_END;
}

static int64_t check_free_gpu(const struct tcluster *c)
{
	if (c->count)
		return c->free_gpu;
	int64_t f = 0;
	for (int64_t i = 0; i < c->num_node; i++)
		f += c->nodes[i].free_gpus;
	return f;
}

/* ---- logging (log.py) ---- */

struct run {
	struct dl_tiresias_trace *t;
	struct tcluster c;
	struct sched sc;
	const struct dl_tiresias_opts *o;
	struct dl_writer *jw, *cw;
	struct dl_tiresias_stats *st;
};

static void log_complete(struct run *r, size_t ji, int64_t t)
{
	struct tjob *j = &r->t->jobs[ji];
	struct dl_writer *w = r->jw;
	size_t k = 0;
	j->end = t;
	dl_writer_int(w, k++, t);
	dl_writer_auto(w, k++, j->id);
	dl_writer_int(w, k++, j->gpus);
	dl_writer_int(w, k++, j->submit);
	dl_writer_int(w, k++, j->start);
	dl_writer_int(w, k++, j->end);
	dl_writer_int(w, k++, j->end - j->start);
	dl_writer_int(w, k++, j->end - j->submit);
	dl_writer_int(w, k++, j->duration);
	dl_writer_int(w, k++, j->pending);
	dl_writer_int(w, k++, j->preempt);
	if (r->c.count)
		dl_writer_int(w, k++, j->resume);
	dl_writer_int(w, k++, j->promote);
	dl_writer_end_row(w);
	r->st->completed++;
}

static void checkpoint(struct run *r, int64_t t)
{
	r->st->events++;
	if (!r->cw)
		return;
	int64_t idle_node = 0, busy_node = 0, idle_gpu = 0, busy_gpu = 0;
	int64_t pend = 0, running = 0, done = 0;
	if (r->c.count) {
		idle_gpu = r->c.free_gpu;
		busy_gpu = r->c.num_gpu - r->c.free_gpu;
		/* int(math.ceil(busy_gpu / gpus_per_node)) with true division */
		busy_node = (busy_gpu + r->c.s.num_gpu_p_node - 1) / r->c.s.num_gpu_p_node;
		idle_node = r->c.num_node - busy_node;
	}
	for (size_t i = 0; i < r->t->n; i++) {
		int s = r->t->jobs[i].status;
		running += s == TS_RUNNING;
		pend += s == TS_PENDING;
		done += s == TS_END;
	}
	struct dl_writer *w = r->cw;
	int64_t v[9] = {t,	  idle_node, busy_node, busy_node, idle_gpu,
			busy_gpu, pend,	     running,	done};
	for (size_t k = 0; k < 9; k++)
		dl_writer_int(w, k, v[k]);
	dl_writer_end_row(w);
}

/* ---- arrival events (jobs.prepare_job_start_events / add_job_end_event) ---- */

struct tevent {
	int64_t time;
	struct ilist start, end;
};

struct evq {
	struct tevent *e;
	size_t head, n, alloc;
};

static void evq_free(struct evq *q)
{
	for (size_t i = 0; i < q->n; i++) {
		il_free(&q->e[i].start);
		il_free(&q->e[i].end);
	}
	free(q->e);
}

/* the event at `time`, created in time order if absent (times are unique) */
static struct tevent *evq_at(struct evq *q, int64_t time)
{
	size_t lo = q->head, hi = q->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (q->e[mid].time < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < q->n && q->e[lo].time == time)
		return &q->e[lo];
	DL_GROW(q->e, q->n + 1, q->alloc);
	memmove(q->e + lo + 1, q->e + lo, (q->n - lo) * sizeof(*q->e));
	q->n++;
	memset(&q->e[lo], 0, sizeof(q->e[lo]));
	q->e[lo].time = time;
	return &q->e[lo];
}

static void evq_init(struct evq *q, const struct dl_tiresias_trace *t)
{
	memset(q, 0, sizeof(*q));
	for (size_t i = 0; i < t->n; i++) {
		/* jobs are sorted by submit, so the new event is always the last */
		if (!q->n || q->e[q->n - 1].time != t->jobs[i].submit)
			evq_at(q, t->jobs[i].submit);
		il_push(&q->e[q->n - 1].start, i);
	}
}

static size_t evq_left(const struct evq *q)
{
	return q->n - q->head;
}

/* ---- one_queue_fifo_sim_jobs and fit_first_sim_jobs ---- */

static void loop_fifo(struct run *r, int backfill)
{
	struct evq q;
	struct ilist pending = {0}, started = {0};
	evq_init(&q, r->t);
	while (evq_left(&q) + pending.n > 0) {
		if (!evq_left(&q)) {
			r->st->unfinished += pending.n; /* "cluster is not large enough" */
			break;
		}
		/* copy: inserting end events may move the array */
		int64_t t = q.e[q.head].time;
		for (size_t k = 0; k < q.e[q.head].end.n; k++) {
			size_t ji = q.e[q.head].end.v[k];
			release(&r->c, &r->t->jobs[ji]);
			log_complete(r, ji, t);
		}
		for (size_t k = 0; k < q.e[q.head].start.n; k++) {
			size_t ji = q.e[q.head].start.v[k];
			r->t->jobs[ji].status = TS_PENDING;
			il_push(&pending, ji);
		}
		started.n = 0;
		if (!backfill) {
			if (check_free_gpu(&r->c) > 0)
				for (size_t k = 0; k < pending.n; k++) {
					if (!place(&r->c, &r->t->jobs[pending.v[k]]))
						break;
					il_push(&started, pending.v[k]);
				}
		} else {
			for (size_t k = 0; k < pending.n; k++) {
				if (check_free_gpu(&r->c) <= 0)
					break;
				if (place(&r->c, &r->t->jobs[pending.v[k]]))
					il_push(&started, pending.v[k]);
			}
		}
		for (size_t k = 0; k < started.n; k++) {
			struct tjob *j = &r->t->jobs[started.v[k]];
			j->status = TS_RUNNING;
			j->start = t;
			j->end = t + j->duration;
			j->pending = j->start - j->submit;
			il_remove(&pending, started.v[k]);
			il_push(&evq_at(&q, j->end)->end, started.v[k]);
		}
		il_free(&q.e[q.head].start);
		il_free(&q.e[q.head].end);
		q.head++;
		checkpoint(r, t);
	}
	evq_free(&q);
	il_free(&pending);
	il_free(&started);
}

/* ---- shared by the preemptive loops ---- */

static void move_to_runnable(struct tjob *j)
{
	j->status = TS_PENDING;
	j->start = T_MAX;
	j->last_check = j->submit;
	j->total_exec = j->exec = j->pending = j->last_pending = 0;
}

/* Python's list.sort(key=...) is stable: the one stable sort, on job indices */
typedef int (*jcmp)(const struct run *r, size_t a, size_t b); /* <0: a before b */

struct jsort {
	const struct run *r;
	jcmp cmp;
};

static int jsort_cmp(const void *a, const void *b, void *ctx)
{
	const struct jsort *js = ctx;
	return js->cmp(js->r, *(const size_t *)a, *(const size_t *)b);
}

static void stable_sort(const struct run *r, size_t *v, size_t n, size_t *tmp, jcmp cmp)
{
	struct jsort js = {r, cmp};
	dl_stable_sort(v, n, sizeof(*v), jsort_cmp, &js, tmp);
}

#define JOB(r, i) (&(r)->t->jobs[i])
#define CMP(x, y) (((x) > (y)) - ((x) < (y)))

static int by_gpus(const struct run *r, size_t a, size_t b)
{
	return CMP(JOB(r, a)->gpus, JOB(r, b)->gpus);
}

static int by_remaining(const struct run *r, size_t a, size_t b)
{
	return CMP(JOB(r, a)->remaining, JOB(r, b)->remaining);
}

static int by_remaining_gpu(const struct run *r, size_t a, size_t b)
{
	return CMP(JOB(r, a)->remaining_gpu, JOB(r, b)->remaining_gpu);
}

/* sort(key=(rank, r_submit_time), reverse=True): rank desc, submit asc, stable */
static int by_gittins(const struct run *r, size_t a, size_t b)
{
	const struct tjob *x = JOB(r, a), *y = JOB(r, b);
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return CMP(x->submit, y->submit);
}

/* ---- smallest_first_sim_jobs and shortest_first_sim_jobs ---- */

struct endev {
	int64_t time;
	struct ilist jobs;
};

static void loop_shortest(struct run *r)
{
	struct evq q;
	struct ilist run = {0}, runs = {0}, pre = {0};
	struct endev *ends = NULL;
	size_t nends = 0, endalloc = 0;
	size_t *tmp = xcalloc(r->t->n + 1, sizeof(*tmp));
	jcmp cmp = r->sc.loop == L_SJF	      ? by_gpus
		   : r->sc.loop == L_SHORTEST ? by_remaining
					      : by_remaining_gpu;
	evq_init(&q, r->t);
	while (evq_left(&q) + run.n > 0) {
		if (evq_left(&q) + nends == 0) {
			r->st->unfinished += run.n;
			break;
		}
		int64_t st = evq_left(&q) ? q.e[q.head].time : T_MAX;
		int64_t et = nends ? ends[0].time : T_MAX;
		int64_t t;
		struct ilist *evs = NULL, *eve = NULL;
		if (et < st) {
			t = et;
			eve = &ends[0].jobs;
		} else {
			t = st;
			evs = &q.e[q.head].start;
			if (et == st)
				eve = &ends[0].jobs;
		}
		if (eve)
			for (size_t k = 0; k < eve->n; k++) {
				release(&r->c, JOB(r, eve->v[k]));
				log_complete(r, eve->v[k], t);
				il_remove(&run, eve->v[k]);
			}
		if (evs) {
			for (size_t k = 0; k < evs->n; k++) {
				struct tjob *j = JOB(r, evs->v[k]);
				move_to_runnable(j);
				il_push(&run, evs->v[k]);
				j->remaining = j->duration;
				j->remaining_gpu = j->remaining * j->gpus;
			}
			il_free(&q.e[q.head].start);
			il_free(&q.e[q.head].end);
			q.head++;
		}
		for (size_t k = 0; k < run.n; k++) {
			struct tjob *j = JOB(r, run.v[k]);
			if (j->status == TS_RUNNING) {
				j->total_exec += t - j->last_check;
				j->last_check = t;
				j->remaining = j->duration - j->total_exec;
				if (r->sc.gputime)
					j->remaining_gpu = j->remaining * j->gpus;
			} else if (j->status == TS_PENDING) {
				j->pending += t - j->last_check;
				j->last_check = t;
			}
		}
		stable_sort(r, run.v, run.n, tmp, cmp);
		runs.n = pre.n = 0;
		empty_infra(&r->c);
		for (size_t k = 0; k < run.n; k++) {
			struct tjob *j = JOB(r, run.v[k]);
			if (j->status == TS_RUNNING)
				j->npl = 0;
			if (place(&r->c, j)) {
				if (j->start == T_MAX)
					j->start = t;
				if (j->status == TS_PENDING)
					il_push(&runs, run.v[k]);
			} else if (j->status == TS_RUNNING) {
				il_push(&pre, run.v[k]);
			}
		}
		for (size_t k = 0; k < pre.n; k++) {
			JOB(r, pre.v[k])->status = TS_PENDING;
			JOB(r, pre.v[k])->preempt++;
		}
		for (size_t k = 0; k < runs.n; k++) {
			JOB(r, runs.v[k])->status = TS_RUNNING;
			JOB(r, runs.v[k])->resume++;
		}
		/* end events: every distinct end time, jobs in runnable order */
		for (size_t e = 0; e < nends; e++)
			il_free(&ends[e].jobs);
		nends = 0;
		for (size_t k = 0; k < run.n; k++) {
			struct tjob *j = JOB(r, run.v[k]);
			if (j->status != TS_RUNNING)
				continue;
			int64_t end = t + j->remaining;
			size_t e = 0;
			while (e < nends && ends[e].time != end)
				e++;
			if (e == nends) {
				DL_GROW(ends, nends + 1, endalloc);
				memset(&ends[nends], 0, sizeof(*ends));
				ends[nends++].time = end;
			}
			il_push(&ends[e].jobs, run.v[k]);
		}
		/* stable sort by time (insertion: few distinct values) */
		for (size_t a = 1; a < nends; a++) {
			struct endev x = ends[a];
			size_t b = a;
			while (b > 0 && ends[b - 1].time > x.time) {
				ends[b] = ends[b - 1];
				b--;
			}
			ends[b] = x;
		}
		checkpoint(r, t);
	}
	for (size_t e = 0; e < nends; e++)
		il_free(&ends[e].jobs);
	free(ends);
	free(tmp);
	evq_free(&q);
	il_free(&run);
	il_free(&runs);
	il_free(&pre);
}

/* ---- dlas_sim_jobs ---- */

#define NQ 3
static const int64_t queue_limit[NQ] = {3250, 7200, 18000};

/* Python's // on ints (floor, also for negatives) */
static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static void loop_dlas(struct run *r)
{
	struct evq q;
	struct ilist run = {0}, runs = {0}, pre = {0}, queues[NQ] = {{0}}, pend = {0};
	struct ilist endj = {0};
	int64_t end_time = T_MAX, next_jump = T_MAX;
	size_t *tmp = xcalloc(r->t->n + 1, sizeof(*tmp));
	const int gt = r->sc.gputime;
	const double N = r->sc.starve;
	evq_init(&q, r->t);
	while (evq_left(&q) + run.n > 0) {
		if (evq_left(&q) + (end_time != T_MAX) == 0) {
			r->st->unfinished += run.n;
			break;
		}
		int64_t st = evq_left(&q) ? q.e[q.head].time : T_MAX;
		int64_t t;
		/* the jobs to log as completed at t: the end event's, or the arrival event's */
		struct ilist *ends = NULL;
		int have_start = 0;
		if (end_time < st) {
			t = end_time;
			ends = &endj;
		} else {
			t = st;
			have_start = 1;
			if (end_time == st) {
				/*
				 * The reference aliases the end event's job list into the
				 * arrival event (event['end_jobs'] = end_events[0]['end_jobs'])
				 * before it knows whether a queue jump comes first. If one
				 * does, the arrival event stays queued with that list, and
				 * whenever it is processed those jobs are logged as completed
				 * then, preempted or not. The list is never changed after
				 * this pass, so a copy behaves exactly like the alias.
				 */
				struct ilist *a = &q.e[q.head].end;
				a->n = 0;
				for (size_t k = 0; k < endj.n; k++)
					il_push(a, endj.v[k]);
			}
			ends = &q.e[q.head].end;
		}
		if (t > next_jump) { /* a pure wakeup for a queue jump */
			t = next_jump;
			have_start = 0;
			ends = NULL;
		}
		if (ends)
			for (size_t k = 0; k < ends->n; k++) {
				struct tjob *j = JOB(r, ends->v[k]);
				release(&r->c, j);
				log_complete(r, ends->v[k], t);
				il_remove(&run, ends->v[k]);
				il_remove(&queues[j->q], ends->v[k]);
			}
		if (have_start) {
			struct ilist *s = &q.e[q.head].start;
			for (size_t k = 0; k < s->n; k++) {
				struct tjob *j = JOB(r, s->v[k]);
				move_to_runnable(j);
				il_push(&run, s->v[k]);
				j->q = 0;
				il_push(&queues[0], s->v[k]);
			}
			il_free(&q.e[q.head].start);
			il_free(&q.e[q.head].end);
			q.head++;
		}
		for (size_t k = 0; k < run.n; k++) {
			size_t ji = run.v[k];
			struct tjob *j = JOB(r, ji);
			if (j->status == TS_RUNNING) {
				int64_t d = t - j->last_check;
				j->total_exec += d;
				j->exec += d;
				j->last_check = t;
				int64_t jgt = gt ? j->exec * j->gpus : j->exec;
				if (j->q < NQ - 1 && jgt >= queue_limit[j->q]) {
					il_push(&queues[j->q + 1], ji);
					il_remove(&queues[j->q], ji);
					j->q++;
				}
				if (r->sc.gittins)
					j->rank =
						r->o->gittins_index(r->o->gittins_arg, (double)jgt);
			} else if (j->status == TS_PENDING) {
				int64_t d = t - j->last_check;
				j->last_check = t;
				j->pending += d;
				if (j->exec > 0)
					j->last_pending += d;
				if (N > 0 && j->q > 0 && j->total_exec > 0 && j->exec > 0 &&
				    j->last_pending >= (int64_t)((double)j->exec * N)) {
					j->exec = 0;
					j->last_pending = 0;
					il_push(&queues[0], ji);
					il_remove(&queues[j->q], ji);
					j->q = 0;
					j->promote++;
				}
				if (r->sc.gittins) {
					int64_t jgt = gt ? j->exec * j->gpus : j->exec;
					j->rank =
						r->o->gittins_index(r->o->gittins_arg, (double)jgt);
				}
			}
		}
		/* schedule: GPU counting only, whatever the scheme */
		r->c.free_gpu = r->c.num_gpu;
		runs.n = pre.n = 0;
		for (size_t qi = 0; qi < NQ; qi++) {
			struct ilist *qu = &queues[qi];
			if (r->sc.gittins)
				stable_sort(r, qu->v, qu->n, tmp, by_gittins);
			for (size_t k = 0; k < qu->n; k++) {
				struct tjob *j = JOB(r, qu->v[k]);
				if (r->c.free_gpu >= j->gpus) {
					if (j->status == TS_PENDING)
						il_push(&runs, qu->v[k]);
					r->c.free_gpu -= j->gpus;
				} else if (j->status == TS_RUNNING) {
					il_push(&pre, qu->v[k]);
				}
			}
		}
		for (size_t k = 0; k < pre.n; k++) {
			JOB(r, pre.v[k])->status = TS_PENDING;
			JOB(r, pre.v[k])->preempt++;
		}
		for (size_t k = 0; k < runs.n; k++) {
			struct tjob *j = JOB(r, runs.v[k]);
			j->status = TS_RUNNING;
			j->resume++;
			if (j->start == T_MAX)
				j->start = t;
		}
		/* each queue: running jobs first, then pending, both in list order */
		for (size_t qi = 0; qi < NQ; qi++) {
			struct ilist *qu = &queues[qi];
			size_t o = 0;
			pend.n = 0;
			for (size_t k = 0; k < qu->n; k++) {
				if (JOB(r, qu->v[k])->status == TS_PENDING)
					il_push(&pend, qu->v[k]);
				else
					qu->v[o++] = qu->v[k];
			}
			if (pend.n)
				memcpy(qu->v + o, pend.v, pend.n * sizeof(*pend.v));
		}
		/* the single next end event: the earliest end, ties in runnable order */
		end_time = T_MAX;
		endj.n = 0;
		for (size_t k = 0; k < run.n; k++) {
			struct tjob *j = JOB(r, run.v[k]);
			if (j->status != TS_RUNNING)
				continue;
			int64_t e = t + (j->duration - j->total_exec);
			if (e < end_time) {
				end_time = e;
				endj.n = 0;
			}
			if (e == end_time)
				il_push(&endj, run.v[k]);
		}
		/* the next queue jump (demotion or starvation promotion) */
		next_jump = T_MAX;
		for (size_t k = 0; k < run.n; k++) {
			struct tjob *j = JOB(r, run.v[k]);
			int64_t jump = T_MAX;
			if (j->status == TS_RUNNING) {
				if (j->q < NQ - 1)
					jump = gt ? t + floordiv(queue_limit[j->q] - j->exec,
								 j->gpus)
						  : t + queue_limit[j->q] - j->exec;
			} else if (j->status == TS_PENDING) {
				if (N > 0 && j->q > 0 && j->total_exec != 0 && j->exec > 0) {
					int64_t diff = (int64_t)((double)j->exec * N -
								 (double)j->last_pending);
					if (diff > 0)
						jump = t + diff;
				}
			}
			/*
			 * The reference would loop forever (or go back in time) on a jump
			 * that is not in the future, which only a job wider than the
			 * queue limit can cause; wake up a second later instead.
			 */
			if (jump <= t)
				jump = t + 1;
			if (jump < next_jump)
				next_jump = jump;
		}
		checkpoint(r, t);
	}
	free(tmp);
	evq_free(&q);
	il_free(&run);
	il_free(&runs);
	il_free(&pre);
	il_free(&pend);
	il_free(&endj);
	for (size_t qi = 0; qi < NQ; qi++)
		il_free(&queues[qi]);
}

int dl_tiresias_run(struct dl_tiresias_trace *t, const struct dl_tiresias_spec *spec,
		    const struct dl_tiresias_opts *opts, struct dl_writer *jobs,
		    struct dl_writer *cluster, struct dl_tiresias_stats *st, struct dl_err *err)
{
	struct run r = {0};
	memset(st, 0, sizeof(*st));
	if (parse_schedule(opts->schedule, &r.sc) < 0)
		return dl_tiresias_check_schedule(opts->schedule, NULL, err);
	if (strcmp(opts->scheme, "count") && strcmp(opts->scheme, "yarn"))
		return dl_err_set(err, DL_EXIT_USAGE, "unknown Tiresias scheme '%s' (count, yarn)",
				  opts->scheme);
	if (r.sc.gittins && !opts->gittins_index)
		return dl_err_set(err, DL_EXIT_USAGE, "schedule '%s' needs a job-size distribution",
				  opts->schedule);
	r.t = t;
	r.o = opts;
	r.jw = jobs;
	r.cw = cluster;
	r.st = st;
	r.c.s = *spec;
	r.c.count = !strcmp(opts->scheme, "count");
	r.c.num_node = spec->num_switch * spec->num_node_p_switch;
	r.c.num_gpu = r.c.num_node * spec->num_gpu_p_node;
	r.c.free_gpu = r.c.num_gpu;
	r.c.nodes = xcalloc((size_t)r.c.num_node, sizeof(*r.c.nodes));
	r.c.pick = xcalloc((size_t)spec->num_node_p_switch, sizeof(*r.c.pick));
	for (int64_t i = 0; i < r.c.num_node; i++)
		r.c.nodes[i] = (struct tnode){spec->num_gpu_p_node, spec->num_cpu_p_node,
					      (double)spec->mem_p_node};
	static const char *const jcols[] = {
		"time",	    "job_id",	     "num_gpu", "submit_time", "start_time",
		"end_time", "executed_time", "JCT",	"duration",    "pending_time",
		"preempt",  "resume",	     "promote"};
	/* the reference writes with Python's csv module: CRLF line ends */
	dl_writer_set_crlf(jobs, 1);
	for (size_t k = 0; k < DL_ARRAY_SIZE(jcols); k++)
		if (r.c.count || strcmp(jcols[k], "resume"))
			dl_writer_add_column(jobs, jcols[k]);
	if (cluster) {
		static const char *const ccols[] = {"time",	   "idle_node",	  "busy_node",
						    "full_node",   "idle_gpu",	  "busy_gpu",
						    "pending_job", "running_job", "completed_job"};
		dl_writer_set_crlf(cluster, 1);
		for (size_t k = 0; k < DL_ARRAY_SIZE(ccols); k++)
			dl_writer_add_column(cluster, ccols[k]);
	}
	for (size_t i = 0; i < t->n; i++) {
		struct tjob *j = &t->jobs[i];
		j->status = TS_EVENT;
		j->start = T_MAX;
		j->end = 0;
		j->rank = (double)INT64_MAX;
	}
	switch (r.sc.loop) {
	case L_FIFO:
		loop_fifo(&r, 0);
		break;
	case L_FJF:
		loop_fifo(&r, 1);
		break;
	case L_SJF:
	case L_SHORTEST:
	case L_SHORTEST_GPU:
		loop_shortest(&r);
		break;
	case L_DLAS:
		loop_dlas(&r);
		break;
	}
	free(r.c.nodes);
	free(r.c.pick);
	return 0;
}
