/*
 * group.h: summaries of many runs grouped by their axes (report --group-by).
 *
 * Input: a table with one row per run, such as a sweep's summary.csv: some
 * key columns (the axes: policy, load, seed, ...) and the metric columns of
 * `dlsched report` (avg_jct, makespan, utilization, ...; any column named
 * like one). dl_group_read() groups the rows by the named key columns, in
 * order of first appearance, and for every metric gives, per group, the
 * number of values, their mean and the 95% percentile-bootstrap interval of
 * the mean (dl_mean_boot95: it stays in the metric's range). Empty fields are
 * left out; with fewer than two values the interval is undefined (NaN).
 * Columns that are neither grouped nor metrics (seed, run, label) are what
 * varies within a group; a run id on two rows is an error.
 *
 * Ownership: struct dl_group owns everything it holds; dl_group_free().
 */
#ifndef DL_REPORT_GROUP_H
#define DL_REPORT_GROUP_H

#include <stdio.h>

#include "report/report.h"

/* t(0.975, dof): the two-sided 95% critical value of Student's t (dof >= 1) */
double dl_student_t975(long dof);
/* mean and 95% half-width of v[0..n) (NaN half-width when n < 2) */
void dl_mean_ci95(const double *v, size_t n, double *mean, double *half);

/*
 * Mean and 95% percentile-bootstrap interval [lo, hi] of the mean of v[0..n):
 * the 2.5% and 97.5% points (nearest rank, ceil(q B)-th smallest) of the means
 * of resamples with replacement: all n^n ordered ones when n <= 5, else
 * 2000 drawn from a fixed seed (the same bytes every time). Every resample
 * mean lies between the smallest and largest value, so the interval never
 * leaves a metric's range (never below 0 for a time, above 1 for a share);
 * with few runs it is about their range. NaN lo and hi when n < 2.
 */
#define DL_BOOT_EXACT_MAX 5
#define DL_BOOT_DRAWS	  2000
#define DL_BOOT_SEED	  20261128
void dl_mean_boot95(const double *v, size_t n, double *mean, double *lo, double *hi);

struct dl_group;

struct dl_group *dl_group_new(void);
void dl_group_free(struct dl_group *g);

/*
 * Read every row of r, grouped by the columns in by (each must exist and
 * not be a metric... it may be one: then it is a key). Errors name file and
 * line. May be called for several inputs with the same columns.
 */
int dl_group_read(struct dl_group *g, struct dl_reader *r, const char *const *by, size_t nby,
		  struct dl_err *err);

/* runs read so far (rows of every input) */
size_t dl_group_nruns(const struct dl_group *g);

/* CSV or JSON Lines: the key columns, runs, then NAME, NAME_lo95 and NAME_hi95 per metric */
void dl_group_write_stream(const struct dl_group *g, struct dl_writer *w);
/* text or Markdown: "mean [lo, hi]" per metric */
void dl_group_write_table(const struct dl_group *g, FILE *fp, enum dl_report_format fmt);
/*
 * One HTML page: the table, and for each main metric a chart against the
 * last numeric key (one line per combination of the other keys, with its
 * confidence band).
 */
void dl_group_write_html(const struct dl_group *g, FILE *fp, const struct dl_report_page *page);

#endif
