/* priority_io.c: reading jobs with state, writing priorities (see priority_io.h) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/common.h"
#include "policy/priority_io.h"
#include "trace/jobs.h"

static const char *const out_cols[] = {"rank", "queue", "priority"};

static int is_out_col(const char *name)
{
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(name, out_cols[i]))
			return 1;
	return 0;
}

/* column indices; -1 = absent or not needed */
struct cols {
	int id, submit, gpus, duration, executed, attained, waiting, remaining, weight;
};

static int require(struct dl_reader *r, const char *name, const char *why, int *col,
		   struct dl_err *err)
{
	*col = dl_reader_require(r, name, why, err);
	return *col < 0 ? -1 : 0;
}

static int find_cols(struct dl_reader *r, const struct dl_prio_config *c, struct cols *k,
		     struct dl_err *err)
{
	unsigned need = dl_prio_needs(c);
	const char *pol = dl_policy_name(c->policy);
	char why[160];
	memset(k, -1, sizeof(*k));
	if (!dl_reader_ncols(r))
		return 0; /* 0 bytes: a stream without rows (dlsched-formats(5), EMPTY INPUT) */
	if (require(r, "id", "every row needs an id, the last tie-break", &k->id, err) ||
	    require(r, "submit", "ties break by submit time", &k->submit, err))
		return -1;
	snprintf(why, sizeof(why), "needed by --policy %s", pol);
	if ((need & DL_NEED_DURATION) && require(r, "duration", why, &k->duration, err))
		return -1;
	if (need & DL_NEED_EXECUTED) {
		if (c->policy == DL_POLICY_LAS || c->policy == DL_POLICY_GITTINS)
			snprintf(why, sizeof(why), "needed by --policy %s", pol);
		else if (!dl_policy_is_2d(c->policy) && c->mlfq && c->mlfq->nqueues > 1)
			snprintf(why, sizeof(why), "needed by --policy %s with queues", pol);
		else
			snprintf(why, sizeof(why), "needed by --starvation");
		if (require(r, "executed", why, &k->executed, err))
			return -1;
	}
	if (need & DL_NEED_ATTAINED) {
		k->attained = dl_reader_col(r, "attained");
		if (k->attained < 0) {
			snprintf(why, sizeof(why),
				 "needed by --policy %s when there is no 'attained' column", pol);
			if (require(r, "executed", why, &k->executed, err) ||
			    require(r, "gpus", why, &k->gpus, err)) {
				/* name the column the user most likely meant */
				if (dl_reader_col(r, "executed") < 0 &&
				    dl_reader_col(r, "gpus") >= 0)
					dl_err_at(err, dl_reader_name(r), 0,
						  "missing required column 'attained' (needed by "
						  "--policy %s; or give 'executed' and 'gpus')",
						  pol);
				return -1;
			}
		}
	}
	if ((need & DL_NEED_WAITING) &&
	    require(r, "waiting", "needed by --starvation", &k->waiting, err))
		return -1;
	if (need & DL_NEED_REMAINING) {
		k->remaining = dl_reader_col(r, "remaining");
		if (k->remaining < 0) {
			snprintf(why, sizeof(why),
				 "needed by --policy %s when there is no 'remaining' column", pol);
			if (require(r, "duration", why, &k->duration, err) ||
			    require(r, "executed", why, &k->executed, err))
				return -1;
		}
	}
	if ((need & DL_NEED_WEIGHT) && require(r, "weight", "needed by --weights", &k->weight, err))
		return -1;
	if ((need & DL_NEED_GPUS) && require(r, "gpus", "needed by --cluster-gpus", &k->gpus, err))
		return -1;
	return 0;
}

static int fill_job(struct dl_reader *r, const struct dl_row *row, const struct dl_prio_config *c,
		    const struct cols *k, struct dl_prio_job *j, struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	memset(j, 0, sizeof(*j));
	j->weight = 1;
	j->gpus = 1;
	if (dl_field_seconds(r, row, k->submit, &j->submit, err) ||
	    dl_field_nonneg(r, row, k->gpus, &j->gpus, err) ||
	    dl_field_seconds(r, row, k->duration, &j->duration, err) ||
	    dl_field_seconds(r, row, k->executed, &j->executed, err) ||
	    dl_field_nonneg(r, row, k->attained, &j->attained, err) ||
	    dl_field_seconds(r, row, k->waiting, &j->waiting, err) ||
	    dl_field_seconds(r, row, k->remaining, &j->remaining, err) ||
	    dl_field_double(r, row, k->weight, &j->weight, err))
		return -1;
	if (k->weight >= 0 && !(j->weight > 0))
		return dl_err_at(err, name, row->line,
				 "bad weight value '%s' (expected a number > 0)",
				 row->f[k->weight]);
	if (!row->f[k->id][0])
		return dl_err_at(err, name, row->line, "empty id");
	if (c->has_now && j->submit > c->now)
		return dl_err_at(err, name, row->line, "job '%s' is submitted at %s, after --now",
				 row->f[k->id], row->f[k->submit]);
	if (k->attained < 0 && k->executed >= 0 && k->gpus >= 0)
		j->attained = j->executed * j->gpus;
	if (k->remaining < 0 && k->duration >= 0 && k->executed >= 0) {
		j->remaining = j->duration - j->executed;
		if (j->remaining < 0)
			return dl_err_at(err, name, row->line,
					 "executed %s is more than duration %s",
					 row->f[k->executed], row->f[k->duration]);
	}
	if (c->policy == DL_POLICY_FTF && !(j->duration > 0))
		return dl_err_at(err, name, row->line,
				 "duration must be > 0 for --policy ftf (got '%s')",
				 row->f[k->duration]);
	return 0;
}

int dl_prio_read(struct dl_reader *r, const struct dl_prio_config *c, struct dl_prio_table *t,
		 struct dl_err *err)
{
	struct cols k;
	memset(t, 0, sizeof(*t));
	if (find_cols(r, c, &k, err) < 0)
		return -1;
	t->ncols = dl_reader_ncols(r);
	t->cols = xcalloc(t->ncols ? t->ncols : 1, sizeof(*t->cols));
	for (size_t i = 0; i < t->ncols; i++)
		t->cols[i] = xstrdup(dl_reader_columns(r)[i]);

	struct strbuf text;
	sb_init(&text);
	size_t alloc_jobs = 0, alloc_off = 0;
	size_t *id_off = NULL, alloc_id = 0;
	struct dl_idset ids = DL_IDSET_INIT;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		DL_GROW(t->jobs, t->n + 1, alloc_jobs);
		DL_GROW(t->row_off, t->n + 1, alloc_off);
		DL_GROW(id_off, t->n + 1, alloc_id);
		struct dl_prio_job *j = &t->jobs[t->n];
		if (fill_job(r, &row, c, &k, j, err) < 0 ||
		    dl_idset_add(&ids, row.f[k.id], dl_reader_name(r), row.line, NULL, err) < 0) {
			got = -1;
			break;
		}
		j->pos = t->n;
		t->row_off[t->n] = text.len;
		for (size_t i = 0; i < row.n; i++) {
			if ((int)i == k.id)
				id_off[t->n] = text.len;
			sb_add(&text, row.f[i], strlen(row.f[i]) + 1);
		}
		t->n++;
	}
	dl_idset_free(&ids);
	t->text = sb_detach(&text);
	for (size_t i = 0; i < t->n; i++)
		t->jobs[i].id = t->text + id_off[i];
	free(id_off);
	if (got < 0) {
		dl_prio_table_release(t);
		return -1;
	}
	return 0;
}

void dl_prio_write(const struct dl_prio_table *t, const size_t *order, struct dl_writer *w)
{
	char *skip = xcalloc(t->ncols ? t->ncols : 1, 1);
	/* text columns of the jobs stream stay strings in JSON ("1" joins with "1") */
	static const char *const text_cols[] = {"id", "model", "user", "vc", "gpu_type", "state"};
	char *text = xcalloc(t->ncols ? t->ncols : 1, 1);
	for (size_t i = 0; i < t->ncols; i++) {
		for (size_t k = 0; k < DL_ARRAY_SIZE(text_cols); k++)
			text[i] |= !strcmp(t->cols[i], text_cols[k]);
		skip[i] = (char)is_out_col(t->cols[i]);
		if (!skip[i])
			dl_writer_add_column(w, t->cols[i]);
	}
	size_t base = dl_writer_ncols(w);
	for (size_t i = 0; i < 3; i++)
		dl_writer_add_column(w, out_cols[i]);
	for (size_t r = 0; r < t->n; r++) {
		const struct dl_prio_job *j = &t->jobs[order ? order[r] : r];
		/*
		 * Rows come out in priority order, which can be random against the
		 * input: fetch a later row's job and text early (a cache-miss-bound loop).
		 */
		if (order && r + 16 < t->n) {
			__builtin_prefetch(&t->jobs[order[r + 16]]);
			__builtin_prefetch(&t->row_off[order[r + 16]]);
		}
		if (order && r + 8 < t->n)
			__builtin_prefetch(t->text + t->row_off[order[r + 8]]);
		const char *p = t->text + t->row_off[j->pos];
		size_t out = 0;
		for (size_t i = 0; i < t->ncols; i++) {
			size_t len = strlen(p);
			if (!skip[i] && text[i])
				dl_writer_str(w, out++, p);
			else if (!skip[i])
				dl_writer_auto(w, out++, p);
			p += len + 1;
		}
		dl_writer_int(w, base, (int64_t)j->rank);
		dl_writer_int(w, base + 1, (int64_t)j->queue);
		/* integral values print as dl_fmt_double would, without its cost */
		if (j->priority == floor(j->priority) && fabs(j->priority) < 9e15)
			dl_writer_int(w, base + 2, (int64_t)j->priority);
		else
			dl_writer_double(w, base + 2, j->priority);
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
	free(skip);
	free(text);
}

void dl_prio_table_release(struct dl_prio_table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->jobs);
	free(t->text);
	free(t->row_off);
	memset(t, 0, sizeof(*t));
}
