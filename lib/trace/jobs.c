/* jobs.c: the jobs stream: validation, an in-memory set, writing */
#include "trace/jobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/sort.h"
#include "core/strmap.h"

const char *const dl_job_col_names[DL_JC_NKNOWN] = {
	"id", "submit", "gpus",	    "duration", "model", "user",
	"vc", "weight", "gpu_type", "steps",	"state",
};

#define REQUIRED_MASK \
	((1u << DL_JC_ID) | (1u << DL_JC_SUBMIT) | (1u << DL_JC_GPUS) | (1u << DL_JC_DURATION))

/*
 * A string arena: strings are packed into large chunks that never move, so
 * pointers handed out stay valid until the arena is freed.
 */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

struct dl_strarena {
	struct arena_chunk *head;
};

#define ARENA_CHUNK (256 * 1024)

static char *arena_alloc(struct dl_strarena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
		c = xmalloc(sizeof(*c) + size);
		c->used = 0;
		c->size = size;
		if (a->head && size != ARENA_CHUNK) {
			/* a big one-off string: keep filling the current chunk */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	char *p = c->data + c->used;
	c->used += n;
	return p;
}

static void arena_free(struct dl_strarena *a)
{
	if (!a)
		return;
	for (struct arena_chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void dl_jobset_init(struct dl_jobset *js)
{
	memset(js, 0, sizeof(*js));
	js->has = REQUIRED_MASK;
}

void dl_jobset_free(struct dl_jobset *js)
{
	free(js->jobs);
	for (size_t i = 0; i < js->npass; i++)
		free(js->pass[i]);
	free(js->pass);
	arena_free(js->arena);
	memset(js, 0, sizeof(*js));
}

const char *dl_jobset_strndup(struct dl_jobset *js, const char *s, size_t len)
{
	if (!len)
		return "";
	if (!js->arena)
		js->arena = xcalloc(1, sizeof(*js->arena));
	char *p = arena_alloc(js->arena, len + 1);
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

const char *dl_jobset_strdup(struct dl_jobset *js, const char *s)
{
	return dl_jobset_strndup(js, s, strlen(s));
}

void dl_jobset_use_col(struct dl_jobset *js, enum dl_job_col c)
{
	js->has |= 1u << c | REQUIRED_MASK;
}

int dl_jobs_cols_init(struct dl_jobs_cols *jc, const struct dl_reader *r, struct dl_err *err)
{
	if (!dl_reader_ncols(r)) {
		/* 0 bytes: a stream without rows, as a header alone (dlsched-formats(5), EMPTY
		 * INPUT) */
		for (int c = 0; c < DL_JC_NKNOWN; c++)
			jc->col[c] = -1;
		return 0;
	}
	for (int c = 0; c < DL_JC_NKNOWN; c++) {
		if (c <= DL_JC_DURATION)
			jc->col[c] = dl_reader_require(r, dl_job_col_names[c], NULL, err);
		else
			jc->col[c] = dl_reader_col(r, dl_job_col_names[c]);
		if (c <= DL_JC_DURATION && jc->col[c] < 0)
			return -1;
	}
	return 0;
}

static int bad(const struct dl_reader *r, const struct dl_row *row, const char *col, const char *v,
	       const char *why, struct dl_err *err)
{
	if (!*v)
		return dl_err_at(err, dl_reader_name(r), row->line, "empty %s value", col);
	return dl_err_at(err, dl_reader_name(r), row->line, "bad %s value '%.64s': %s", col, v,
			 why);
}

int dl_jobs_parse_row(const struct dl_jobs_cols *jc, const struct dl_reader *r,
		      const struct dl_row *row, struct dl_job *job, struct dl_err *err)
{
	const int *col = jc->col;
	const char *v;
	*job = (struct dl_job)DL_JOB_INIT;
	job->line = row->line;

	job->id = row->f[col[DL_JC_ID]];
	if (!*job->id)
		return bad(r, row, "id", "", "", err);

	v = row->f[col[DL_JC_SUBMIT]];
	if (dl_parse_nonneg(v, &job->submit))
		return bad(r, row, "submit", v, "expected a number >= 0", err);

	v = row->f[col[DL_JC_GPUS]];
	if (dl_parse_int64(v, &job->gpus) || job->gpus < 1)
		return bad(r, row, "gpus", v, "expected an integer >= 1", err);

	v = row->f[col[DL_JC_DURATION]];
	if (dl_parse_double(v, &job->duration) || !(job->duration > 0))
		return bad(r, row, "duration", v, "expected a number > 0", err);

	job->model = dl_field_str(row, col[DL_JC_MODEL]);
	job->user = dl_field_str(row, col[DL_JC_USER]);
	job->vc = dl_field_str(row, col[DL_JC_VC]);
	job->gpu_type = dl_field_str(row, col[DL_JC_GPU_TYPE]);
	job->state = dl_field_str(row, col[DL_JC_STATE]);

	v = dl_field_str(row, col[DL_JC_WEIGHT]);
	if (*v && dl_parse_nonneg(v, &job->weight))
		return bad(r, row, "weight", v, "expected a number >= 0", err);
	v = dl_field_str(row, col[DL_JC_STEPS]);
	if (*v && dl_parse_nonneg(v, &job->steps))
		return bad(r, row, "steps", v, "expected a number >= 0", err);
	return dl_job_check(job, dl_reader_name(r), err);
}

/* v within [lo, max] (lo excluded when lo_open), else "FILE:LINE: bad COL value 'V': why" */
static int in_range(const char *file, long line, const char *col, double v, double lo, int lo_open,
		    double max, const char *max_text, struct dl_err *err)
{
	char buf[DL_NUM_BUF], why[96];
	if (v > max)
		snprintf(why, sizeof(why), "over the maximum of %s", max_text);
	else if (isnan(v) || v < lo || (lo_open && v == lo))
		snprintf(why, sizeof(why), "expected a number %s %g", lo_open ? ">" : ">=", lo);
	else
		return 0;
	dl_fmt_double(buf, v);
	return dl_err_at(err, file, line, "bad %s value '%s': %s", col, buf, why);
}

int dl_job_check(const struct dl_job *j, const char *file, struct dl_err *err)
{
	static const char *const seconds = "1e10 seconds (317 years)";
	long line = j->line;
	if (in_range(file, line, "submit", j->submit, 0, 0, DL_SECONDS_MAX, seconds, err) ||
	    in_range(file, line, "duration", j->duration, 0, 1, DL_SECONDS_MAX, seconds, err) ||
	    in_range(file, line, "gpus", (double)j->gpus, 1, 0, DL_JOB_GPUS_MAX, "1000000", err) ||
	    in_range(file, line, "weight", j->weight, 0, 0, DL_JOB_WEIGHT_MAX, "1e6", err) ||
	    (j->steps != -1 &&
	     in_range(file, line, "steps", j->steps, 0, 0, DL_JOB_STEPS_MAX, "1e15", err)))
		return -1;
	return 0;
}

static void note_optional(struct dl_jobset *js, const struct dl_job *j)
{
	if (*j->model)
		js->has |= 1u << DL_JC_MODEL;
	if (*j->user)
		js->has |= 1u << DL_JC_USER;
	if (*j->vc)
		js->has |= 1u << DL_JC_VC;
	if (*j->gpu_type)
		js->has |= 1u << DL_JC_GPU_TYPE;
	if (*j->state)
		js->has |= 1u << DL_JC_STATE;
	if (j->weight != 1)
		js->has |= 1u << DL_JC_WEIGHT;
	if (j->steps >= 0)
		js->has |= 1u << DL_JC_STEPS;
}

struct dl_job *dl_jobset_add(struct dl_jobset *js, const struct dl_job *job)
{
	if (!js->has)
		js->has = REQUIRED_MASK;
	DL_GROW(js->jobs, js->n + 1, js->alloc);
	struct dl_job *j = &js->jobs[js->n++];
	*j = *job;
	j->id = dl_jobset_strdup(js, job->id);
	j->model = dl_jobset_strdup(js, job->model ? job->model : "");
	j->user = dl_jobset_strdup(js, job->user ? job->user : "");
	j->vc = dl_jobset_strdup(js, job->vc ? job->vc : "");
	j->gpu_type = dl_jobset_strdup(js, job->gpu_type ? job->gpu_type : "");
	j->state = dl_jobset_strdup(js, job->state ? job->state : "");
	j->extra = NULL;
	j->nextra = 0;
	if (job->extra && job->nextra) {
		if (!js->arena)
			js->arena = xcalloc(1, sizeof(*js->arena));
		const char **e = (const char **)(void *)arena_alloc(
			js->arena, job->nextra * sizeof(*e) + sizeof(void *));
		/* arena chunks are malloc-aligned but strings may have misaligned the
		 * cursor */
		e = (const char **)(((uintptr_t)e + sizeof(void *) - 1) &
				    ~(uintptr_t)(sizeof(void *) - 1));
		for (size_t k = 0; k < job->nextra; k++)
			e[k] = dl_jobset_strdup(js, job->extra[k] ? job->extra[k] : "");
		j->extra = e;
		j->nextra = job->nextra;
	}
	note_optional(js, j);
	return j;
}

size_t dl_jobset_pass_col(struct dl_jobset *js, const char *name)
{
	for (size_t k = 0; k < js->npass; k++)
		if (!strcmp(js->pass[k], name))
			return k;
	DL_GROW(js->pass, js->npass + 1, js->pass_alloc);
	js->pass[js->npass] = xstrdup(name);
	return js->npass++;
}

int dl_jobset_add_reader(struct dl_jobset *js, struct dl_reader *r, struct dl_err *err)
{
	struct dl_jobs_cols jc;
	if (!js->has)
		js->has = REQUIRED_MASK;
	if (dl_jobs_cols_init(&jc, r, err))
		return -1;
	size_t ncols = dl_reader_ncols(r);
	const char *const *names = dl_reader_columns(r);
	/* for each reader column: its pass-through index, or -1 for a known column */
	long *map = xmalloc((ncols ? ncols : 1) * sizeof(*map));
	size_t maxpass = 0;
	for (size_t c = 0; c < ncols; c++) {
		map[c] = -1;
		int known = 0;
		for (int k = 0; k < DL_JC_NKNOWN; k++)
			if (jc.col[k] == (int)c) {
				known = 1;
				js->has |= 1u << k;
			}
		if (!known) {
			map[c] = (long)dl_jobset_pass_col(js, names[c]);
			if ((size_t)map[c] + 1 > maxpass)
				maxpass = (size_t)map[c] + 1;
		}
	}
	const char **extra = xcalloc(maxpass ? maxpass : 1, sizeof(*extra));
	struct dl_row row;
	struct dl_job job;
	int got, rc = 0;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		if (dl_jobs_parse_row(&jc, r, &row, &job, err)) {
			rc = -1;
			break;
		}
		for (size_t k = 0; k < maxpass; k++)
			extra[k] = "";
		for (size_t c = 0; c < ncols; c++)
			if (map[c] >= 0)
				extra[map[c]] = row.f[c];
		job.extra = extra;
		job.nextra = maxpass;
		dl_jobset_add(js, &job);
	}
	if (got < 0)
		rc = -1;
	free(extra);
	free(map);
	return rc;
}

int dl_jobset_load(struct dl_jobset *js, const char *path, enum dl_in_format fmt,
		   struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, fmt, err);
	if (!r)
		return -1;
	int rc = dl_jobset_add_reader(js, r, err);
	dl_reader_close(r);
	return rc;
}

/* ---- unique ids ---- */

/*
 * A slot holds 32 bits of the id's hash (high) and 1 + the id's handle
 * (low). The home slot is taken from the top bits of the hash, so the index
 * grows without reading an id again.
 */
#define SLOT_HANDLE(x) ((size_t)((x)&UINT32_MAX) - 1)
#define SLOT_HASH(x)   ((uint32_t)((x) >> 32))

static uint32_t id_hash(const char *id, size_t len)
{
	/* FNV-1a, then a final mix so the top bits are spread */
	uint64_t h = dl_hash_bytes(id, len);
	h ^= h >> 29;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	return (uint32_t)((h ^ (h >> 32)) >> 32);
}

static size_t home(const struct dl_idset *s, uint32_t h)
{
	return (size_t)h >> (32 - s->bits);
}

static void idset_grow(struct dl_idset *s)
{
	uint64_t *old = s->slot;
	size_t oldcap = s->cap;
	s->bits = oldcap ? s->bits + 1 : 10;
	s->cap = (size_t)1 << s->bits;
	s->slot = xcalloc(s->cap, sizeof(*s->slot));
	for (size_t k = 0; k < oldcap; k++)
		if (old[k]) {
			size_t i = home(s, SLOT_HASH(old[k]));
			while (s->slot[i])
				i = (i + 1) & (s->cap - 1);
			s->slot[i] = old[k];
		}
	free(old);
}

static size_t store(struct dl_idset *s, const char *id, size_t len, long line)
{
	int64_t ln = line;
	size_t need = s->len + sizeof(ln) + len + 1;
	if (need > s->alloc) {
		s->alloc = s->alloc ? s->alloc : 1 << 16;
		while (s->alloc < need)
			s->alloc *= 2;
		s->pool = xrealloc(s->pool, s->alloc);
	}
	memcpy(s->pool + s->len, &ln, sizeof(ln));
	size_t r = s->len + sizeof(ln);
	memcpy(s->pool + r, id, len + 1);
	s->len = need;
	return r;
}

size_t dl_idset_store(struct dl_idset *s, const char *id, long line)
{
	return store(s, id, strlen(id), line);
}

static long line_of(const struct dl_idset *s, size_t ref)
{
	int64_t line;
	memcpy(&line, s->pool + ref - sizeof(line), sizeof(line));
	return (long)line;
}

/* index the id stored at ref, or report it as a repeat */
static int index_id(struct dl_idset *s, uint32_t h, size_t ref, const char *file,
		    struct dl_err *err)
{
	const char *id = s->pool + ref;
	if ((s->n + 1) * 4 > s->cap * 3) {
		if (s->bits >= 32)
			return dl_err_at(err, file, line_of(s, ref), "too many job ids");
		idset_grow(s);
	}
	size_t i = home(s, h);
	for (; s->slot[i]; i = (i + 1) & (s->cap - 1)) {
		if (SLOT_HASH(s->slot[i]) != h)
			continue;
		size_t r = SLOT_HANDLE(s->slot[i]);
		if (!strcmp(s->pool + r, id))
			return dl_err_at(err, file, line_of(s, ref),
					 "duplicate id '%.64s' (first on line %ld)", id,
					 line_of(s, r));
	}
	s->slot[i] = (uint64_t)h << 32 | ((uint64_t)ref + 1);
	s->n++;
	return 0;
}

/* does id continue the rising run of canonical integers? (then it is new) */
static int rising(struct dl_idset *s, const char *id)
{
	if (s->not_rising)
		return 0;
	int64_t v = 0;
	int n = 0;
	for (; id[n] >= '0' && id[n] <= '9' && n < 18; n++)
		v = v * 10 + (id[n] - '0');
	if (n > 0 && !id[n] && (id[0] != '0' || n == 1) && (!s->len || v > s->last_int)) {
		s->last_int = v;
		return 1;
	}
	/* the run ends: index every id kept so far (distinct, so no check) */
	s->not_rising = 1;
	for (size_t off = 0; off < s->len;) {
		size_t r = off + sizeof(int64_t), len = strlen(s->pool + r);
		uint32_t h = id_hash(s->pool + r, len);
		struct dl_err ignored = DL_ERR_INIT;
		index_id(s, h, r, NULL, &ignored);
		off = r + len + 1;
	}
	return 0;
}

/*
 * keep a copy of id (checked for size, not for repeats); 0 or -1. *fresh:
 * it continues the rising run, so it needs no index.
 */
static int keep(struct dl_idset *s, const char *id, const char *file, long line, uint32_t *h,
		size_t *ref, int *fresh, struct dl_err *err)
{
	*fresh = rising(s, id);
	*h = 0; /* set on failure too: gcc -O3 cannot see that callers stop then */
	*ref = 0;
	size_t len = strlen(id);
	if (s->len + sizeof(int64_t) + len + 1 >= UINT32_MAX)
		return dl_err_at(err, file, line, "too many job ids (4 GiB of them)");
	*h = *fresh ? 0 : id_hash(id, len); /* a rising id needs no index, so no hash */
	*ref = store(s, id, len, line);
	return 0;
}

int dl_idset_add(struct dl_idset *s, const char *id, const char *file, long line, size_t *ref,
		 struct dl_err *err)
{
	uint32_t h;
	size_t r;
	int fresh;
	if (keep(s, id, file, line, &h, &r, &fresh, err) ||
	    (!fresh && index_id(s, h, r, file, err)))
		return -1;
	if (ref)
		*ref = r;
	return 0;
}

int dl_idset_flush(struct dl_idset *s, struct dl_err *err)
{
	size_t n = s->nlater;
	s->nlater = 0;
	while (s->cap && (s->n + n) * 4 > s->cap * 3 && s->bits < 32)
		idset_grow(s); /* so that the slots fetched below stay where they are */
	for (size_t k = 0; s->cap && k < n; k++)
		__builtin_prefetch(&s->slot[home(s, s->later[k].hash)]);
	for (size_t k = 0; k < n; k++)
		if (index_id(s, s->later[k].hash, s->later[k].ref, s->later_file, err))
			return -1;
	return 0;
}

int dl_idset_add_later(struct dl_idset *s, const char *id, const char *file, long line, size_t *ref,
		       struct dl_err *err)
{
	uint32_t h;
	int fresh;
	if (keep(s, id, file, line, &h, ref, &fresh, err))
		return -1;
	if (fresh)
		return 0;
	size_t r = *ref;
	s->later_file = file;
	s->later[s->nlater++] = (struct dl_idset_later){h, (uint32_t)r};
	if (s->nlater == DL_ARRAY_SIZE(s->later))
		return dl_idset_flush(s, err);
	return 0;
}

void dl_idset_drop_index(struct dl_idset *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = 0;
	s->bits = 0;
}

void dl_idset_free(struct dl_idset *s)
{
	free(s->pool);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

static int cmp_submit(const void *a, const void *b, void *ctx)
{
	double x = ((const struct dl_job *)a)->submit, y = ((const struct dl_job *)b)->submit;
	(void)ctx;
	return (x > y) - (x < y);
}

void dl_jobset_sort_submit(struct dl_jobset *js)
{
	dl_stable_sort(js->jobs, js->n, sizeof(*js->jobs), cmp_submit, NULL, NULL);
}

double dl_jobset_min_submit(const struct dl_jobset *js)
{
	double m = 0;
	for (size_t i = 0; i < js->n; i++)
		if (i == 0 || js->jobs[i].submit < m)
			m = js->jobs[i].submit;
	return m;
}

/*
 * Fast exact formatting for the common cases (integers, and values with at most
 * three decimals such as generated times): the same text as dl_fmt_double's
 * shortest round trip, without printf's arbitrary-precision path, which
 * dominated import time. Returns the length, or 0 when v needs the general path.
 */
static size_t fmt_fast(char buf[DL_NUM_BUF], double v)
{
	if (!(fabs(v) < 1e12))
		return 0;
	double m = round(v * 1000);
	if (m / 1000 != v)
		return 0;
	int64_t x = (int64_t)m;
	char tmp[DL_NUM_BUF];
	size_t n = 0, len = 0;
	int neg = x < 0;
	uint64_t u = neg ? (uint64_t)(-x) : (uint64_t)x;
	uint64_t ip = u / 1000, fp = u % 1000;
	do {
		tmp[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (neg && (u != 0))
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	if (fp) {
		buf[len++] = '.';
		buf[len++] = (char)('0' + fp / 100);
		buf[len++] = (char)('0' + fp / 10 % 10);
		buf[len++] = (char)('0' + fp % 10);
		while (buf[len - 1] == '0')
			len--;
	}
	buf[len] = 0;
	return len;
}

static void write_num(struct dl_writer *w, size_t col, double v)
{
	char buf[DL_NUM_BUF];
	if (fmt_fast(buf, v))
		dl_writer_auto(w, col, buf);
	else
		dl_writer_double(w, col, v);
}

static void write_int(struct dl_writer *w, size_t col, int64_t v)
{
	char buf[DL_NUM_BUF];
	if (v > -1000000000 && v < 1000000000 && fmt_fast(buf, (double)v))
		dl_writer_auto(w, col, buf);
	else
		dl_writer_int(w, col, v);
}

size_t dl_jobset_write_columns(const struct dl_jobset *js, struct dl_writer *w)
{
	size_t first = dl_writer_ncols(w);
	unsigned has = js->has | REQUIRED_MASK;
	for (int c = 0; c < DL_JC_NKNOWN; c++)
		if (has & (1u << c))
			dl_writer_add_column(w, dl_job_col_names[c]);
	for (size_t k = 0; k < js->npass; k++)
		dl_writer_add_column(w, js->pass[k]);
	return first;
}

void dl_jobset_write_row(const struct dl_jobset *js, struct dl_writer *w, size_t first, size_t i)
{
	dl_job_write_row(js, w, first, &js->jobs[i]);
}

void dl_job_write_row(const struct dl_jobset *js, struct dl_writer *w, size_t first,
		      const struct dl_job *j)
{
	unsigned has = js->has | REQUIRED_MASK;
	size_t col = first;
	for (int c = 0; c < DL_JC_NKNOWN; c++) {
		if (!(has & (1u << c)))
			continue;
		switch (c) {
		case DL_JC_ID:
			dl_writer_str(w, col, j->id); /* "1" is a string in every stream */
			break;
		case DL_JC_SUBMIT:
			write_num(w, col, j->submit);
			break;
		case DL_JC_GPUS:
			write_int(w, col, j->gpus);
			break;
		case DL_JC_DURATION:
			write_num(w, col, j->duration);
			break;
		case DL_JC_MODEL:
			dl_writer_str(w, col, j->model);
			break;
		case DL_JC_USER:
			dl_writer_str(w, col, j->user);
			break;
		case DL_JC_VC:
			dl_writer_str(w, col, j->vc);
			break;
		case DL_JC_WEIGHT:
			write_num(w, col, j->weight);
			break;
		case DL_JC_GPU_TYPE:
			dl_writer_str(w, col, j->gpu_type);
			break;
		case DL_JC_STEPS:
			if (j->steps >= 0)
				write_num(w, col, j->steps);
			break;
		case DL_JC_STATE:
			dl_writer_str(w, col, j->state);
			break;
		}
		col++;
	}
	for (size_t k = 0; k < js->npass; k++, col++)
		if (k < j->nextra)
			dl_writer_auto(w, col, j->extra[k]);
}

void dl_jobset_write(const struct dl_jobset *js, struct dl_writer *w)
{
	size_t first = dl_jobset_write_columns(js, w);
	for (size_t i = 0; i < js->n; i++) {
		dl_jobset_write_row(js, w, first, i);
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
}
