/* trace.c: reading a jobs stream into the engine's compact form (see trace.h) */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/sort.h"
#include "sim/trace.h"

void dl_sim_trace_init(struct dl_sim_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->ids = (struct dl_idset)DL_IDSET_INIT;
	t->name_index = (struct strmap)STRMAP_INIT;
}

void dl_sim_trace_free(struct dl_sim_trace *t)
{
	free(t->jobs);
	free(t->weight);
	free(t->user);
	dl_idset_free(&t->ids);
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	strmap_free(&t->name_index);
	free(t->made_by);
	free(t->seed);
	memset(t, 0, sizeof(*t));
}

/* 1 + the index of name in the table (added if new), 0 for "" */
static uint32_t intern(struct dl_sim_trace *t, const char *name)
{
	if (!name || !*name)
		return 0;
	int64_t *v = strmap_get(&t->name_index, name);
	if (v)
		return (uint32_t)*v;
	DL_GROW(t->names, t->nnames + 1, t->names_alloc);
	t->names[t->nnames++] = xstrdup(name);
	strmap_put(&t->name_index, name, (int64_t)t->nnames);
	return (uint32_t)t->nnames;
}

static struct dl_sim_tjob *append(struct dl_sim_trace *t, double weight, const char *user)
{
	size_t old = t->alloc;
	DL_GROW(t->jobs, t->n + 1, t->alloc);
	if (t->weight && t->alloc != old)
		t->weight = xreallocarray(t->weight, t->alloc, sizeof(*t->weight));
	if (t->user && t->alloc != old)
		t->user = xreallocarray(t->user, t->alloc, sizeof(*t->user));
	if (weight != 1 && !t->weight) { /* the first weight that is not 1 */
		t->weight = xcalloc(t->alloc, sizeof(*t->weight));
		for (size_t i = 0; i < t->n; i++)
			t->weight[i] = 1;
	}
	if (t->weight)
		t->weight[t->n] = weight;
	uint32_t u = intern(t, user);
	if (u && !t->user) /* the first user */
		t->user = xcalloc(t->alloc, sizeof(*t->user));
	if (t->user)
		t->user[t->n] = u;
	return &t->jobs[t->n++];
}

static int cmp_submit(const void *a, const void *b, void *ctx)
{
	dl_tick x = ((const struct dl_sim_tjob *)a)->submit,
		y = ((const struct dl_sim_tjob *)b)->submit;
	(void)ctx;
	return (x > y) - (x < y);
}

/* a job and its side values, to sort them together (cmp_submit reads the job first) */
struct sided {
	struct dl_sim_tjob j;
	double w;
	uint32_t u;
};

/* stable by submit; most traces are sorted already (checked in O(n)) */
static void sort_by_submit(struct dl_sim_trace *t)
{
	if (!t->weight && !t->user) {
		dl_stable_sort(t->jobs, t->n, sizeof(*t->jobs), cmp_submit, NULL, NULL);
		return;
	}
	struct sided *v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	for (size_t i = 0; i < t->n; i++)
		v[i] = (struct sided){t->jobs[i], t->weight ? t->weight[i] : 1,
				      t->user ? t->user[i] : 0};
	dl_stable_sort(v, t->n, sizeof(*v), cmp_submit, NULL, NULL);
	for (size_t i = 0; i < t->n; i++) {
		t->jobs[i] = v[i].j;
		if (t->weight)
			t->weight[i] = v[i].w;
		if (t->user)
			t->user[i] = v[i].u;
	}
	free(v);
}

static int bad_time(const struct dl_reader *r, const struct dl_row *row, const char *col,
		    const char *v, struct dl_err *err)
{
	return dl_err_at(err, dl_reader_name(r), row->line,
			 "bad %s value '%.64s': beyond the simulator's range (2^60 microseconds)",
			 col, v);
}

/* an error on a later line: a repeated id on an earlier one comes first */
static int fail(struct dl_sim_trace *t, struct dl_err *err)
{
	struct dl_err first = DL_ERR_INIT;
	if (dl_idset_flush(&t->ids, &first) < 0)
		*err = first;
	return -1;
}

/*
 * A plain decimal below 1e10 (1 to 10 digits without a leading zero, then
 * optionally '.' and 1 to 6 digits; no sign, blank or exponent), in
 * microseconds, else -1. Such text is what every generated or imported
 * trace holds, and what dl_jobs_parse_row and dl_parse_micros both accept
 * with the same value and no error; anything else takes the full parse.
 */
static int64_t plain_micros(const char *s)
{
	const char *p = s;
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9' && p - s < 11)
		v = v * 10 + (uint64_t)(*p++ - '0');
	size_t n = (size_t)(p - s);
	if (!n || n > 10 || (n > 1 && s[0] == '0'))
		return -1;
	int f = 0;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9' && f < 7) {
			v = v * 10 + (uint64_t)(*p++ - '0');
			f++;
		}
		if (!f || f > 6)
			return -1;
	}
	if (*p)
		return -1;
	static const uint32_t to_micros[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
	return (int64_t)(v * to_micros[f]);
}

/* a plain gang size: 1 to 1,000,000 without a leading zero, else -1 */
static int64_t plain_gpus(const char *s)
{
	int64_t v = 0;
	int n = 0;
	for (; s[n] >= '0' && s[n] <= '9' && n < 8; n++)
		v = v * 10 + (s[n] - '0');
	if (!n || s[n] || s[0] == '0' || v > DL_JOB_GPUS_MAX)
		return -1;
	return v;
}

/*
 * The row's job when every field it needs is plain (above) and in range:
 * what the full parse would give, without it (it was most of the time spent
 * reading a trace). 0, or -1 to take the full parse.
 */
static int plain_row(const struct dl_jobs_cols *jc, const struct dl_row *row, struct dl_job *job,
		     dl_tick *sub, dl_tick *work)
{
	const int *col = jc->col;
	if (!*row->f[col[DL_JC_ID]] || *dl_field_str(row, col[DL_JC_WEIGHT]) ||
	    *dl_field_str(row, col[DL_JC_STEPS]))
		return -1;
	*sub = plain_micros(row->f[col[DL_JC_SUBMIT]]);
	*work = plain_micros(row->f[col[DL_JC_DURATION]]);
	int64_t gpus = plain_gpus(row->f[col[DL_JC_GPUS]]);
	if (*sub < 0 || *work < 1 || gpus < 1)
		return -1;
	/* every field as dl_jobs_parse_row sets it (weight and steps: empty, so their defaults) */
	*job = (struct dl_job)DL_JOB_INIT;
	job->id = row->f[col[DL_JC_ID]];
	job->line = row->line;
	job->submit = (double)*sub / DL_TICKS_PER_SECOND;
	job->duration = (double)*work / DL_TICKS_PER_SECOND;
	job->gpus = gpus;
	job->model = dl_field_str(row, col[DL_JC_MODEL]);
	job->user = dl_field_str(row, col[DL_JC_USER]);
	job->vc = dl_field_str(row, col[DL_JC_VC]);
	job->gpu_type = dl_field_str(row, col[DL_JC_GPU_TYPE]);
	job->state = dl_field_str(row, col[DL_JC_STATE]);
	return 0;
}

/* what every row needs: the columns, the input's name */
struct reading {
	struct dl_jobs_cols jc;
	const struct dl_reader *r;
	const char *file;
	int csub, cdur, cmade, cseed;
};

/* one row into the trace: 0, or -1 with "FILE:LINE: ..." in *err */
static int take_row(struct dl_sim_trace *t, const struct reading *g, const struct dl_row *row,
		    struct dl_err *err)
{
	const struct dl_reader *r = g->r;
	struct dl_job job;
	dl_tick sub, work;
	if (plain_row(&g->jc, row, &job, &sub, &work) < 0) {
		if (dl_jobs_parse_row(&g->jc, r, row, &job, err))
			return -1;
		if (dl_parse_micros(row->f[g->csub], &sub) || sub > DL_SIM_INPUT_MAX)
			return bad_time(r, row, "submit", row->f[g->csub], err);
		if (dl_parse_micros(row->f[g->cdur], &work) || work > DL_SIM_INPUT_MAX)
			return bad_time(r, row, "duration", row->f[g->cdur], err);
		if (work < 1)
			return dl_err_at(err, g->file, row->line,
					 "bad duration value '%.64s': under the simulator's "
					 "resolution (1 microsecond)",
					 row->f[g->cdur]);
	}
	if (g->cmade >= 0 && !t->made_by && row->f[g->cmade][0]) {
		t->made_by = xstrdup(row->f[g->cmade]);
		t->seed = xstrdup(dl_field_str(row, g->cseed));
	}
	size_t ref;
	if (dl_idset_add_later(&t->ids, job.id, g->file, row->line, &ref, err))
		return -1;
	if (t->n >= UINT32_MAX - 1)
		return dl_err_at(err, g->file, row->line, "too many jobs for one simulation");
	struct dl_sim_tjob *j = append(t, job.weight, job.user);
	j->id = (uint32_t)ref;
	j->gpus = job.gpus > INT32_MAX ? INT32_MAX : (int32_t)job.gpus;
	j->submit = sub;
	j->work = work;
	j->type = intern(t, job.gpu_type);
	j->model = intern(t, job.model);
	return 0;
}

/*
 * ---- reading ahead ----
 * Taking rows from the reader (input, gzip, CSV or JSON) is about a third
 * of reading a trace; a thread of the call's own does it for a regular file
 * while this one converts the rows, which it gets copied, in batches, in
 * file order. The reader thread stops at its end or error (handed over
 * after its last rows, so that an error on an earlier line still comes
 * first) or when told (an error here): a regular file never makes it wait
 * for a writer, so it is joined at once. A pipe or terminal is read in
 * line, as before. Memory: AHEAD_BATCHES batches of about AHEAD_BYTES, or
 * of one row each when rows are longer than that.
 */
#define AHEAD_ROWS    4096	/* rows a batch at most */
#define AHEAD_BYTES   (1 << 20) /* and about this much text (rows may be long) */
#define AHEAD_BATCHES 3

struct batch {
	struct strbuf text; /* the rows' fields, each NUL-terminated, one after another */
	size_t *off;	    /* ncols a row: where each field starts in text */
	long *line;	    /* each row's line */
	size_t n, off_alloc, line_alloc;
};

struct ahead {
	struct dl_reader *r;
	size_t ncols;
	struct batch b[AHEAD_BATCHES]; /* batch k in b[k % AHEAD_BATCHES] */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu */
	size_t filled, taken; /* batches handed over, and converted */
	int done;	      /* the last batch is handed over */
	int got;	      /* then: dl_reader_next's last answer (0 end, -1 error in err) */
	int stop;	      /* the converter wants no more */
	struct dl_err err;
};

/* a copy of row (its fields' text, NUL-terminated) at the end of b: one grow, then plain copies */
static void batch_add(struct batch *b, const struct dl_row *row, size_t ncols)
{
	DL_GROW(b->off, (b->n + 1) * ncols, b->off_alloc);
	DL_GROW(b->line, b->n + 1, b->line_alloc);
	size_t *off = b->off + b->n * ncols, at = b->text.len;
	for (size_t c = 0; c < ncols; c++) {
		off[c] = at;
		at += strlen(row->f[c]) + 1;
	}
	sb_grow(&b->text, at - b->text.len);
	for (size_t c = 0; c < ncols; c++)
		memcpy(b->text.buf + off[c], row->f[c], (c + 1 < ncols ? off[c + 1] : at) - off[c]);
	b->text.len = at;
	b->line[b->n++] = row->line;
}

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;
	struct dl_err err = DL_ERR_INIT;
	int got = 1;
	for (size_t k = 0; got > 0; k++) {
		pthread_mutex_lock(&a->mu);
		while (k - a->taken == AHEAD_BATCHES && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		int stop = a->stop;
		pthread_mutex_unlock(&a->mu);
		if (stop)
			break;
		struct batch *b = &a->b[k % AHEAD_BATCHES];
		b->n = 0;
		sb_reset(&b->text);
		struct dl_row row;
		while (b->n < AHEAD_ROWS && b->text.len < AHEAD_BYTES &&
		       (got = dl_reader_next(a->r, &row, &err)) > 0)
			batch_add(b, &row, a->ncols);
		pthread_mutex_lock(&a->mu);
		a->filled = k + 1;
		if (got <= 0) {
			a->done = 1;
			a->got = got;
			a->err = err;
		}
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	return NULL;
}

/* the rows of a's reader through take_row, read ahead: as read_inline */
static int read_ahead(struct dl_sim_trace *t, struct ahead *a, const struct reading *g,
		      struct dl_err *err)
{
	int rc = 0;
	struct dl_row row;
	row.n = a->ncols;
	row.f = xcalloc(a->ncols ? a->ncols : 1, sizeof(*row.f));
	for (size_t k = 0;; k++) {
		pthread_mutex_lock(&a->mu);
		while (k == a->filled)
			pthread_cond_wait(&a->cv, &a->mu);
		int last = a->done && k + 1 == a->filled;
		pthread_mutex_unlock(&a->mu);
		const struct batch *b = &a->b[k % AHEAD_BATCHES];
		for (size_t i = 0; i < b->n && !rc; i++) {
			for (size_t c = 0; c < a->ncols; c++)
				row.f[c] = b->text.buf + b->off[i * a->ncols + c];
			row.line = b->line[i];
			rc = take_row(t, g, &row, err);
		}
		pthread_mutex_lock(&a->mu);
		a->taken = k + 1;
		if (rc)
			a->stop = 1;
		pthread_cond_broadcast(&a->cv);
		if (last && !rc && a->got < 0) {
			*err = a->err;
			rc = -1;
		}
		pthread_mutex_unlock(&a->mu);
		if (rc || last)
			break;
	}
	free(row.f);
	return rc;
}

/* the rows of r through take_row, on this thread: 0, or -1 with *err */
static int read_inline(struct dl_sim_trace *t, struct dl_reader *r, const struct reading *g,
		       struct dl_err *err)
{
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0)
		if (take_row(t, g, &row, err) < 0)
			return -1;
	return got < 0 ? -1 : 0;
}

/* read_ahead when r reads a regular file and a thread can be had, else read_inline */
static int read_rows(struct dl_sim_trace *t, struct dl_reader *r, const struct reading *g,
		     struct dl_err *err)
{
	if (!dl_reader_regular(r))
		return read_inline(t, r, g, err);
	struct ahead *a = xcalloc(1, sizeof(*a));
	a->r = r;
	a->ncols = dl_reader_ncols(r);
	int rc;
	if (pthread_mutex_init(&a->mu, NULL)) {
		rc = read_inline(t, r, g, err);
	} else {
		if (pthread_cond_init(&a->cv, NULL)) {
			rc = read_inline(t, r, g, err);
		} else {
			for (int k = 0; k < AHEAD_BATCHES; k++)
				sb_init(&a->b[k].text);
			if (pthread_create(&a->thread, NULL, ahead_main, a)) {
				rc = read_inline(t, r, g, err);
			} else {
				rc = read_ahead(t, a, g, err);
				pthread_join(a->thread, NULL);
			}
			for (int k = 0; k < AHEAD_BATCHES; k++) {
				sb_release(&a->b[k].text);
				free(a->b[k].off);
				free(a->b[k].line);
			}
			pthread_cond_destroy(&a->cv);
		}
		pthread_mutex_destroy(&a->mu);
	}
	free(a);
	return rc;
}

int dl_sim_trace_read(struct dl_sim_trace *t, struct dl_reader *r, struct dl_err *err)
{
	struct reading g;
	if (dl_jobs_cols_init(&g.jc, r, err))
		return -1;
	g.r = r;
	g.file = dl_reader_name(r);
	g.csub = g.jc.col[DL_JC_SUBMIT];
	g.cdur = g.jc.col[DL_JC_DURATION];
	g.cmade = dl_reader_col(r, DL_COL_MADE_BY);
	g.cseed = dl_reader_col(r, DL_COL_SEED);
	if (read_rows(t, r, &g, err) < 0 || dl_idset_flush(&t->ids, err) < 0)
		return fail(t, err);
	dl_idset_drop_index(&t->ids); /* the check is done; keep only the ids */
	sort_by_submit(t);
	return 0;
}

int dl_sim_trace_from_jobset(struct dl_sim_trace *t, const struct dl_jobset *js, struct dl_err *err)
{
	for (size_t i = 0; i < js->n; i++) {
		const struct dl_job *dj = &js->jobs[i];
		dl_tick sub, work;
		if (dl_micros_from_seconds(dj->submit, &sub) || sub < 0 || sub > DL_SIM_INPUT_MAX ||
		    dl_micros_from_seconds(dj->duration, &work) || work < 1 ||
		    work > DL_SIM_INPUT_MAX || dj->gpus < 1)
			return dl_err_set(err, DL_EXIT_DATA,
					  "job '%.64s': submit, duration or gpus out of the "
					  "simulator's range",
					  dj->id);
		size_t ref = dl_idset_store(&t->ids, dj->id, dj->line);
		if (ref > UINT32_MAX || t->n >= UINT32_MAX - 1)
			return dl_err_set(err, DL_EXIT_DATA, "too many jobs for one simulation");
		struct dl_sim_tjob *j = append(t, dj->weight, dj->user);
		j->id = (uint32_t)ref;
		j->gpus = dj->gpus > INT32_MAX ? INT32_MAX : (int32_t)dj->gpus;
		j->submit = sub;
		j->work = work;
		j->type = intern(t, dj->gpu_type);
		j->model = intern(t, dj->model);
	}
	sort_by_submit(t);
	return 0;
}
