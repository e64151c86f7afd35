/* trace.c: reading a jobs stream into the engine's compact form (see trace.h) */
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
	*job = (struct dl_job){0};
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
	job->weight = 1;
	job->steps = -1;
	return 0;
}

int dl_sim_trace_read(struct dl_sim_trace *t, struct dl_reader *r, struct dl_err *err)
{
	struct dl_jobs_cols jc;
	if (dl_jobs_cols_init(&jc, r, err))
		return -1;
	const char *file = dl_reader_name(r);
	const int csub = jc.col[DL_JC_SUBMIT], cdur = jc.col[DL_JC_DURATION];
	int cmade = dl_reader_col(r, DL_COL_MADE_BY), cseed = dl_reader_col(r, DL_COL_SEED);
	struct dl_row row;
	struct dl_job job;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		dl_tick sub, work;
		if (plain_row(&jc, &row, &job, &sub, &work) < 0) {
			if (dl_jobs_parse_row(&jc, r, &row, &job, err))
				return fail(t, err);
			if (dl_parse_micros(row.f[csub], &sub) || sub > DL_SIM_INPUT_MAX) {
				bad_time(r, &row, "submit", row.f[csub], err);
				return fail(t, err);
			}
			if (dl_parse_micros(row.f[cdur], &work) || work > DL_SIM_INPUT_MAX) {
				bad_time(r, &row, "duration", row.f[cdur], err);
				return fail(t, err);
			}
			if (work < 1) {
				dl_err_at(err, file, row.line,
					  "bad duration value '%.64s': under the simulator's "
					  "resolution (1 microsecond)",
					  row.f[cdur]);
				return fail(t, err);
			}
		}
		if (cmade >= 0 && !t->made_by && row.f[cmade][0]) {
			t->made_by = xstrdup(row.f[cmade]);
			t->seed = xstrdup(dl_field_str(&row, cseed));
		}
		size_t ref;
		if (dl_idset_add_later(&t->ids, job.id, file, row.line, &ref, err))
			return fail(t, err);
		if (t->n >= UINT32_MAX - 1) {
			dl_err_at(err, file, row.line, "too many jobs for one simulation");
			return fail(t, err);
		}
		struct dl_sim_tjob *j = append(t, job.weight, job.user);
		j->id = (uint32_t)ref;
		j->gpus = job.gpus > INT32_MAX ? INT32_MAX : (int32_t)job.gpus;
		j->submit = sub;
		j->work = work;
		j->type = intern(t, job.gpu_type);
		j->model = intern(t, job.model);
	}
	if (got < 0 || dl_idset_flush(&t->ids, err) < 0)
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
