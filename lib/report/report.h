/*
 * report.h: summary metrics of results streams, grouped by label, and their
 * rendering as tables (text, Markdown, CSV, JSON Lines) or one HTML page.
 *
 * A struct dl_report collects jobs from one or more results streams
 * (dl_report_read_results) and optional cluster timelines
 * (dl_report_read_timeline), then dl_report_compute() turns them into rows of
 * struct dl_report_row: one per label, or with opts.by one per label and
 * class ("all" first). Undefined metrics are NaN (a label with no finished
 * jobs has no JCT; no baseline, no speedup; no capacity, no utilisation);
 * the renderers print them as empty fields, null or "-".
 *
 * Definitions (dlsched-report(1) is the normative text):
 *   - percentiles use the nearest-rank method: the p-th percentile of n sorted
 *     values is v[ceil(p*n/100) - 1] (so the median of 1,2,3,4 is 2);
 *   - makespan = latest end of a finished job - earliest submit of any job;
 *   - slowdown of a finished job = jct / duration (jobs with duration 0 are
 *     left out), and Jain's index = (sum s)^2 / (n * sum s^2);
 *   - utilisation = busy GPU-seconds / (capacity * window): from a timeline,
 *     busy_gpus integrated over [first time, last time]; otherwise
 *     sum(gpus * run_time) over the makespan window;
 *   - speedup = baseline value / this value (for avg JCT and makespan).
 *
 * Ownership: the report owns every label, job and row; row strings stay valid
 * until dl_report_free(). Nothing here keeps static state.
 */
#ifndef DL_REPORT_H
#define DL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/common.h"
#include "table/table.h"

enum dl_report_by { DL_REPORT_BY_NONE = 0, DL_REPORT_BY_GPUS, DL_REPORT_BY_DURATION };

enum dl_report_format {
	DL_REPORT_TEXT = 0,
	DL_REPORT_CSV,
	DL_REPORT_JSON,
	DL_REPORT_MARKDOWN,
	DL_REPORT_HTML,
};

struct dl_report_opts {
	enum dl_report_by by;
	double capacity;      /* GPUs in the cluster; 0 = unknown */
	const char *baseline; /* label to compare against, or NULL */
};

struct dl_report_row {
	const char *label; /* owned by the report */
	const char *cls;   /* "all" or a class name (static) */
	int64_t jobs, finished, started;
	double avg_jct, median_jct, p90_jct, p95_jct, p99_jct;
	double makespan;
	double avg_queue_delay, p95_queue_delay;
	double utilization; /* fraction 0..1 */
	double preemptions_per_job, migrations_per_job;
	double jain_slowdown;
	double speedup_jct, speedup_makespan;
};

/* Page options for the HTML renderer. */
struct dl_report_page {
	const char *title; /* NULL: "dlsched report" */
	const char *date;  /* NULL: no date line */
};

struct dl_report;

struct dl_report *dl_report_new(void);
void dl_report_free(struct dl_report *rep);

/*
 * Read every row of a results stream. Each row's label is `label` when not
 * NULL, else its policy column when present and not empty, else `fallback`.
 * Required columns: submit, gpus, duration, start, end (start and end may be
 * empty: not started, not finished). Optional: jct, queue_delay, run_time
 * (derived from the times when absent or empty), preemptions, migrations
 * (0 when empty), policy. *first_label (if not NULL) receives the label of
 * the first row. An input without rows is an error.
 */
int dl_report_read_results(struct dl_report *rep, struct dl_reader *r, const char *label,
			   const char *fallback, const char **first_label, struct dl_err *err);

/* Read a timeline (time, busy_gpus, running, pending) for an existing label. */
int dl_report_read_timeline(struct dl_report *rep, struct dl_reader *r, const char *label,
			    struct dl_err *err);

/* Labels in order of first appearance. */
size_t dl_report_nlabels(const struct dl_report *rep);
const char *dl_report_label(const struct dl_report *rep, size_t i);

/*
 * Compute the rows. Fails (exit code 2, a usage error) when opts->baseline
 * names no label. May be called once.
 */
int dl_report_compute(struct dl_report *rep, const struct dl_report_opts *opts, struct dl_err *err);
size_t dl_report_nrows(const struct dl_report *rep);
const struct dl_report_row *dl_report_row(const struct dl_report *rep, size_t i);

/* Write the rows: CSV or JSON Lines through w (its columns are set here). */
void dl_report_write_stream(const struct dl_report *rep, struct dl_writer *w);
/* Write the rows as an aligned text table or a Markdown table. */
void dl_report_write_table(const struct dl_report *rep, FILE *fp, enum dl_report_format fmt);
/* Write one self-contained HTML page (well-formed XML) with inline SVG charts. */
void dl_report_write_html(const struct dl_report *rep, FILE *fp, const struct dl_report_page *page);

/* ---- statistics (stats.c), exported for tests and other commands ---- */

/* nearest-rank percentile of n ascending values, 0 < p <= 100; NaN when n == 0 */
double dl_report_percentile(const double *v, size_t n, double p);
/* Jain's fairness index of n values; NaN when n == 0 or all are 0 */
double dl_report_jain(const double *v, size_t n);
/* sort ascending (no NaN allowed) */
void dl_report_sort(double *v, size_t n);

/* ---- internals shared by the renderers (report.c) ---- */

struct dl_report_series {
	const char *label;
	const double *jct; /* finished jobs' JCTs, ascending */
	size_t njct;
	const double *qdelay; /* started jobs' queueing delays, ascending */
	size_t nqdelay;
	const double *tl_time, *tl_busy, *tl_pending; /* timeline points, time ascending */
	size_t ntl;
	int64_t jobs;
};
size_t dl_report_nseries(const struct dl_report *rep);
void dl_report_series(const struct dl_report *rep, size_t i, struct dl_report_series *s);
double dl_report_capacity(const struct dl_report *rep);
const char *dl_report_baseline(const struct dl_report *rep);

#endif
