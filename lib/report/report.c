/* report.c: reading results and timelines, and computing the summary rows */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"
#include "report/report.h"

struct job {
	double submit, duration, start, end, jct, qdelay, run_time; /* NaN = empty */
	int64_t gpus, preemptions, migrations;
};

struct timeline {
	double *time, *busy, *pending;
	size_t n, alloc;
};

struct label {
	char *name;
	struct job *jobs;
	size_t njobs, alloc;
	struct timeline tl;
	int has_tl;
	double *jct; /* after compute: finished JCTs, ascending */
	size_t njct;
	double *qdelay; /* after compute: started jobs' delays, ascending */
	size_t nqdelay;
};

struct dl_report {
	struct label *labels;
	size_t nlabels, alabels;
	struct strmap index;
	struct dl_report_row *rows;
	size_t nrows;
	double capacity;
	char *baseline;
	int computed;
};

static const char *const gpu_classes[] = {"1", "2-4", "5-8", ">8"};
static const char *const dur_classes[] = {"<10min", "10min-1h", "1h-10h", ">=10h"};
#define NCLASSES 4

struct dl_report *dl_report_new(void)
{
	struct dl_report *rep = xcalloc(1, sizeof(*rep));
	struct strmap init = STRMAP_INIT;
	rep->index = init;
	return rep;
}

void dl_report_free(struct dl_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nlabels; i++) {
		struct label *l = &rep->labels[i];
		free(l->name);
		free(l->jobs);
		free(l->tl.time);
		free(l->tl.busy);
		free(l->tl.pending);
		free(l->jct);
		free(l->qdelay);
	}
	free(rep->labels);
	strmap_free(&rep->index);
	free(rep->rows);
	free(rep->baseline);
	free(rep);
}

static size_t label_index(struct dl_report *rep, const char *name)
{
	int64_t *v = strmap_get(&rep->index, name);
	if (v)
		return (size_t)*v;
	DL_GROW(rep->labels, rep->nlabels + 1, rep->alabels);
	struct label *l = &rep->labels[rep->nlabels];
	memset(l, 0, sizeof(*l));
	l->name = xstrdup(name);
	strmap_put(&rep->index, name, (int64_t)rep->nlabels);
	return rep->nlabels++;
}

size_t dl_report_nlabels(const struct dl_report *rep)
{
	return rep->nlabels;
}

const char *dl_report_label(const struct dl_report *rep, size_t i)
{
	return rep->labels[i].name;
}

/*
 * Plain decimal integers of up to 15 digits (most simulator times) convert
 * exactly without strtod, which otherwise is the largest cost of a report
 * after the CSV reader itself. Anything else takes the strict parser.
 */
static int fast_int(const char *s, double *out)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == 15)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i || s[i])
		return 0;
	*out = (double)v;
	return 1;
}

/* an optional number: NaN when the column is absent or the field empty */
static int opt_num(const struct dl_reader *r, const struct dl_row *row, int col, int nonneg,
		   double *out, struct dl_err *err)
{
	*out = NAN;
	if (col < 0 || !row->f[col][0])
		return 0;
	if (fast_int(row->f[col], out))
		return 0;
	return nonneg ? dl_field_nonneg(r, row, col, out, err)
		      : dl_field_double(r, row, col, out, err);
}

static int req_num(const struct dl_reader *r, const struct dl_row *row, int col, int nonneg,
		   double *out, struct dl_err *err)
{
	if (fast_int(row->f[col], out))
		return 0;
	return nonneg ? dl_field_nonneg(r, row, col, out, err)
		      : dl_field_double(r, row, col, out, err);
}

static int opt_count(const struct dl_reader *r, const struct dl_row *row, int col, int64_t *out,
		     struct dl_err *err)
{
	*out = 0;
	if (dl_field_int64_opt(r, row, col, out, err))
		return -1;
	if (*out < 0)
		return dl_err_at(err, dl_reader_name(r), row->line,
				 "bad %s value '%.64s': expected an integer >= 0",
				 dl_reader_columns(r)[col], row->f[col]);
	return 0;
}

int dl_report_read_results(struct dl_report *rep, struct dl_reader *r, const char *label,
			   const char *fallback, const char **first_label, struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	if (!dl_reader_ncols(r))
		return dl_err_at(err, name, 0, "empty input: expected a results stream");
	static const char *const why = "a results stream (from 'dlsched simulate')";
	int c_submit = dl_reader_require(r, "submit", why, err);
	int c_gpus = c_submit < 0 ? -1 : dl_reader_require(r, "gpus", why, err);
	int c_dur = c_gpus < 0 ? -1 : dl_reader_require(r, "duration", why, err);
	int c_start = c_dur < 0 ? -1 : dl_reader_require(r, "start", why, err);
	int c_end = c_start < 0 ? -1 : dl_reader_require(r, "end", why, err);
	if (c_end < 0)
		return -1;
	int c_jct = dl_reader_col(r, "jct");
	int c_qd = dl_reader_col(r, "queue_delay");
	int c_rt = dl_reader_col(r, "run_time");
	int c_pre = dl_reader_col(r, "preemptions");
	int c_mig = dl_reader_col(r, "migrations");
	int c_pol = label ? -1 : dl_reader_col(r, "policy");

	struct dl_row row;
	int got;
	size_t cur = (size_t)-1;
	long nrows = 0;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		/* the label: cached while consecutive rows share it */
		const char *lname = label;
		if (!lname) {
			const char *p = dl_field_str(&row, c_pol);
			lname = *p ? p : fallback;
		}
		if (cur == (size_t)-1 || strcmp(rep->labels[cur].name, lname))
			cur = label_index(rep, lname);
		if (!nrows && first_label)
			*first_label = rep->labels[cur].name;
		nrows++;

		struct job j;
		if (req_num(r, &row, c_submit, 0, &j.submit, err) ||
		    dl_field_int64(r, &row, c_gpus, &j.gpus, err) ||
		    req_num(r, &row, c_dur, 1, &j.duration, err) ||
		    opt_num(r, &row, c_start, 0, &j.start, err) ||
		    opt_num(r, &row, c_end, 0, &j.end, err) ||
		    opt_num(r, &row, c_jct, 1, &j.jct, err) ||
		    opt_num(r, &row, c_qd, 1, &j.qdelay, err) ||
		    opt_num(r, &row, c_rt, 1, &j.run_time, err) ||
		    opt_count(r, &row, c_pre, &j.preemptions, err) ||
		    opt_count(r, &row, c_mig, &j.migrations, err))
			return -1;
		if (j.gpus < 1)
			return dl_err_at(err, name, row.line,
					 "bad gpus value '%.64s': expected an integer >= 1",
					 row.f[c_gpus]);
		if (!isnan(j.end) && isnan(j.start))
			return dl_err_at(err, name, row.line, "a job with an end needs a start");
		if (!isnan(j.start) && j.start < j.submit)
			return dl_err_at(err, name, row.line, "start %s is before submit %s",
					 row.f[c_start], row.f[c_submit]);
		if (!isnan(j.end) && j.end < j.start)
			return dl_err_at(err, name, row.line, "end %s is before start %s",
					 row.f[c_end], row.f[c_start]);
		/* derived values where the stream left them out */
		if (!isnan(j.end) && isnan(j.jct))
			j.jct = j.end - j.submit;
		if (isnan(j.end))
			j.jct = NAN; /* an unfinished job has no JCT whatever the column says */
		if (!isnan(j.start) && isnan(j.qdelay))
			j.qdelay = j.start - j.submit;
		if (!isnan(j.end) && isnan(j.run_time))
			j.run_time = j.end - j.start;

		struct label *l = &rep->labels[cur];
		DL_GROW(l->jobs, l->njobs + 1, l->alloc);
		l->jobs[l->njobs++] = j;
	}
	if (got < 0)
		return -1;
	if (!nrows)
		return dl_err_at(err, name, 0, "no result rows (only a header)");
	return 0;
}

int dl_report_read_timeline(struct dl_report *rep, struct dl_reader *r, const char *label,
			    struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	if (!dl_reader_ncols(r))
		return dl_err_at(err, name, 0, "empty input: expected a timeline");
	static const char *const why = "a timeline (from 'dlsched simulate --timeline')";
	int c_time = dl_reader_require(r, "time", why, err);
	int c_busy = c_time < 0 ? -1 : dl_reader_require(r, "busy_gpus", why, err);
	int c_pend = c_busy < 0 ? -1 : dl_reader_require(r, "pending", why, err);
	if (c_pend < 0)
		return -1;
	size_t li = label_index(rep, label); /* may move rep->labels */
	struct label *l = &rep->labels[li];
	if (l->has_tl)
		return dl_err_at(err, name, 0, "a second timeline for label '%s'", label);
	l->has_tl = 1;
	struct timeline *t = &l->tl;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		double tm, busy, pend;
		if (dl_field_double(r, &row, c_time, &tm, err) ||
		    dl_field_nonneg(r, &row, c_busy, &busy, err) ||
		    dl_field_nonneg(r, &row, c_pend, &pend, err))
			return -1;
		if (t->n && tm < t->time[t->n - 1])
			return dl_err_at(err, name, row.line,
					 "time %s goes backwards (timelines are in time order)",
					 row.f[c_time]);
		if (t->n + 1 > t->alloc) {
			size_t a = t->alloc ? t->alloc * 2 : 256;
			t->time = xreallocarray(t->time, a, sizeof(double));
			t->busy = xreallocarray(t->busy, a, sizeof(double));
			t->pending = xreallocarray(t->pending, a, sizeof(double));
			t->alloc = a;
		}
		t->time[t->n] = tm;
		t->busy[t->n] = busy;
		t->pending[t->n] = pend;
		t->n++;
	}
	if (got < 0)
		return -1;
	if (!t->n)
		return dl_err_at(err, name, 0, "no timeline rows (only a header)");
	return 0;
}

static int class_of(enum dl_report_by by, const struct job *j)
{
	if (by == DL_REPORT_BY_GPUS)
		return j->gpus <= 1 ? 0 : j->gpus <= 4 ? 1 : j->gpus <= 8 ? 2 : 3;
	double d = j->duration;
	return d < 600 ? 0 : d < 3600 ? 1 : d < 36000 ? 2 : 3;
}

/* busy GPU-seconds over capacity * window, from a step-function timeline */
static double timeline_util(const struct timeline *t, double capacity)
{
	if (!(capacity > 0) || t->n < 2)
		return NAN;
	double area = 0;
	for (size_t i = 0; i + 1 < t->n; i++)
		area += t->busy[i] * (t->time[i + 1] - t->time[i]);
	double window = t->time[t->n - 1] - t->time[0];
	return window > 0 ? area / (capacity * window) : NAN;
}

/*
 * Metrics of the jobs of l in class cls (-1 = all). When keep is set the
 * sorted JCT and delay arrays are handed to l for the charts.
 */
static void metrics(struct label *l, enum dl_report_by by, int cls, double capacity, int keep,
		    struct dl_report_row *row)
{
	memset(row, 0, sizeof(*row));
	row->label = l->name;
	row->cls = cls < 0 ? "all" : (by == DL_REPORT_BY_GPUS ? gpu_classes : dur_classes)[cls];
	double *jct = xmalloc((l->njobs ? l->njobs : 1) * sizeof(*jct));
	double *qd = xmalloc((l->njobs ? l->njobs : 1) * sizeof(*qd));
	double *slow = xmalloc((l->njobs ? l->njobs : 1) * sizeof(*slow));
	size_t nj = 0, nq = 0, ns = 0;
	double sum_jct = 0, sum_qd = 0, busy = 0, min_submit = INFINITY, max_end = -INFINITY;
	double pre = 0, mig = 0; /* sums of any int64 counts cannot overflow a double */
	int64_t jobs = 0;
	for (size_t i = 0; i < l->njobs; i++) {
		const struct job *j = &l->jobs[i];
		if (cls >= 0 && class_of(by, j) != cls)
			continue;
		jobs++;
		pre += (double)j->preemptions;
		mig += (double)j->migrations;
		if (j->submit < min_submit)
			min_submit = j->submit;
		if (!isnan(j->run_time))
			busy += (double)j->gpus * j->run_time;
		if (!isnan(j->qdelay)) {
			qd[nq++] = j->qdelay;
			sum_qd += j->qdelay;
		}
		if (isnan(j->end))
			continue;
		jct[nj++] = j->jct;
		sum_jct += j->jct;
		if (j->end > max_end)
			max_end = j->end;
		if (j->duration > 0)
			slow[ns++] = j->jct / j->duration;
	}
	row->jobs = jobs;
	row->finished = (int64_t)nj;
	row->started = (int64_t)nq;
	dl_report_sort(jct, nj);
	dl_report_sort(qd, nq);
	row->avg_jct = nj ? sum_jct / (double)nj : NAN;
	row->median_jct = dl_report_percentile(jct, nj, 50);
	row->p90_jct = dl_report_percentile(jct, nj, 90);
	row->p95_jct = dl_report_percentile(jct, nj, 95);
	row->p99_jct = dl_report_percentile(jct, nj, 99);
	row->makespan = nj ? max_end - min_submit : NAN;
	row->avg_queue_delay = nq ? sum_qd / (double)nq : NAN;
	row->p95_queue_delay = dl_report_percentile(qd, nq, 95);
	row->preemptions_per_job = jobs ? pre / (double)jobs : NAN;
	row->migrations_per_job = jobs ? mig / (double)jobs : NAN;
	row->jain_slowdown = dl_report_jain(slow, ns);
	row->utilization = NAN;
	if (cls < 0) {
		/* utilisation is a property of the whole run, not of a class */
		if (l->has_tl)
			row->utilization = timeline_util(&l->tl, capacity);
		else if (capacity > 0 && nj && row->makespan > 0)
			row->utilization = busy / (capacity * row->makespan);
	}
	row->speedup_jct = NAN;
	row->speedup_makespan = NAN;
	free(slow);
	if (keep) {
		l->jct = jct;
		l->njct = nj;
		l->qdelay = qd;
		l->nqdelay = nq;
	} else {
		free(jct);
		free(qd);
	}
}

static double ratio(double base, double v)
{
	if (isnan(base) || isnan(v) || !(v > 0))
		return NAN;
	return base / v;
}

int dl_report_compute(struct dl_report *rep, const struct dl_report_opts *opts, struct dl_err *err)
{
	if (rep->computed)
		return dl_err_set(err, DL_EXIT_DATA, "report computed twice");
	size_t base = (size_t)-1;
	if (opts->baseline) {
		int64_t *v = strmap_get(&rep->index, opts->baseline);
		if (!v) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < rep->nlabels; i++)
				sb_addf(&sb, "%s'%s'", i ? ", " : "", rep->labels[i].name);
			dl_err_set(err, DL_EXIT_USAGE,
				   "--baseline '%s' is not a label (labels: %s)", opts->baseline,
				   sb.buf);
			sb_release(&sb);
			return -1;
		}
		base = (size_t)*v;
		rep->baseline = xstrdup(opts->baseline);
	}
	rep->computed = 1;
	rep->capacity = opts->capacity;
	enum dl_report_by by = opts->by;

	/* with --by, only the classes some label has jobs in */
	int used[NCLASSES] = {0};
	if (by != DL_REPORT_BY_NONE)
		for (size_t i = 0; i < rep->nlabels; i++)
			for (size_t k = 0; k < rep->labels[i].njobs; k++)
				used[class_of(by, &rep->labels[i].jobs[k])] = 1;
	size_t per = 1;
	for (int c = 0; c < NCLASSES; c++)
		per += (size_t)used[c];
	rep->nrows = rep->nlabels * per;
	rep->rows = xcalloc(rep->nrows ? rep->nrows : 1, sizeof(*rep->rows));
	for (size_t i = 0; i < rep->nlabels; i++) {
		struct dl_report_row *r = &rep->rows[i * per];
		metrics(&rep->labels[i], by, -1, opts->capacity, 1, r++);
		for (int c = 0; c < NCLASSES; c++)
			if (used[c])
				metrics(&rep->labels[i], by, c, opts->capacity, 0, r++);
	}
	if (base != (size_t)-1)
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct dl_report_row *b = &rep->rows[base * per + i % per];
			rep->rows[i].speedup_jct = ratio(b->avg_jct, rep->rows[i].avg_jct);
			rep->rows[i].speedup_makespan = ratio(b->makespan, rep->rows[i].makespan);
		}
	return 0;
}

size_t dl_report_nrows(const struct dl_report *rep)
{
	return rep->nrows;
}

const struct dl_report_row *dl_report_row(const struct dl_report *rep, size_t i)
{
	return &rep->rows[i];
}

size_t dl_report_nseries(const struct dl_report *rep)
{
	return rep->nlabels;
}

void dl_report_series(const struct dl_report *rep, size_t i, struct dl_report_series *s)
{
	const struct label *l = &rep->labels[i];
	memset(s, 0, sizeof(*s));
	s->label = l->name;
	s->jct = l->jct;
	s->njct = l->njct;
	s->qdelay = l->qdelay;
	s->nqdelay = l->nqdelay;
	s->jobs = (int64_t)l->njobs;
	if (l->has_tl) {
		s->tl_time = l->tl.time;
		s->tl_busy = l->tl.busy;
		s->tl_pending = l->tl.pending;
		s->ntl = l->tl.n;
	}
}

double dl_report_capacity(const struct dl_report *rep)
{
	return rep->capacity;
}

const char *dl_report_baseline(const struct dl_report *rep)
{
	return rep->baseline;
}
