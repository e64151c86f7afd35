/*
 * report.h: summary metrics of results streams, grouped by label, and their
 * rendering as tables (text, Markdown, CSV, JSON Lines) or one HTML page.
 *
 * A struct dl_report collects jobs from one or more results streams
 * (dl_report_read_results), Slurm's real schedule (dl_report_read_asrun),
 * cluster timelines (dl_report_read_timeline) and the counts of rows an
 * importer skipped (dl_report_read_skipped); then dl_report_compute() turns
 * them into rows of struct dl_report_row: one per label, or with opts.by one
 * per label and class ("all" first). Undefined metrics are NaN (a label with
 * no finished jobs has no JCT; no baseline, no speedup; no capacity, no
 * utilisation); the renderers print them as empty fields, null or "-".
 *
 * Labels: each input's rows go to its --label, else to each row's policy
 * column, else to the input's file name. Two inputs may fill one label only
 * when both were given that label on purpose (dl_report_read_results fails
 * with DL_EXIT_USAGE otherwise), and within a label a job id may appear once
 * (dl_report_compute fails). A results row with a non-empty `rejected` field
 * is a job the simulator could never run: it is counted per reason in
 * `dropped`, never in the metrics.
 *
 * Definitions (dlsched-report(1) is the normative text):
 *   - percentiles use the nearest-rank method: the p-th percentile of n sorted
 *     values is v[ceil(p*n/100) - 1] (so the median of 1,2,3,4 is 2);
 *   - makespan = latest end of a finished job - earliest submit of any job;
 *   - slowdown of a finished job = jct / duration (jobs with duration 0 are
 *     left out), and Jain's index = (sum s)^2 / (n * sum s^2);
 *   - utilisation = busy GPU-seconds / (capacity * window): from a timeline,
 *     busy_gpus integrated over [first time, last time]; otherwise the sum
 *     of the results' occupied_gpu_s (a packed GPU once) over the makespan
 *     window, or without that column sum(gpus * run_time) less what exceeds
 *     the capacity at any instant (gpus_shared); with a --window, over
 *     the measurement period instead (see struct dl_report_window);
 *   - speedup = baseline value / this value (for avg JCT and makespan);
 *   - time to first feedback = start - submit of every started job;
 *   - rho and comm_overhead_s are the results' own columns (dlsched-formats(5)),
 *     never derived: without them (older results, jobs streams) their metrics
 *     are NaN; comm_share = sum(comm_overhead_s * gpus) / sum(run_time * gpus)
 *     over the jobs with both.
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

/*
 * Class rows: by GPU count or duration class, or by the jobs' user, account
 * (a jobs stream's vc) or partition, which results streams take from the
 * input that has them (the --as-run jobs), by job id
 */
enum dl_report_by {
	DL_REPORT_BY_NONE = 0,
	DL_REPORT_BY_GPUS,
	DL_REPORT_BY_DURATION,
	DL_REPORT_BY_USER,
	DL_REPORT_BY_ACCOUNT,
	DL_REPORT_BY_PARTITION,
};

enum dl_report_format {
	DL_REPORT_TEXT = 0,
	DL_REPORT_CSV,
	DL_REPORT_JSON,
	DL_REPORT_MARKDOWN,
	DL_REPORT_HTML,
};

/*
 * Which jobs the metrics cover, and over which period utilisation and the
 * over-time charts are measured (steady state, as Gavel and Tiresias report):
 *   ALL       every job; the period is the whole run (the default);
 *   ARRIVALS  every job; the period runs from the first to the last submit;
 *   JOBS      jobs number from..to-1 in submit order (counted from 0, ties in
 *             input order, rejected jobs counted too: Gavel's -s/-e); the
 *             period runs from the first to the last submit among them;
 *   TIME      jobs submitted in [from, to) seconds; the period is [from, to)
 *             within the data (to may be INFINITY: up to the end).
 */
enum dl_window_kind { DL_WINDOW_ALL = 0, DL_WINDOW_ARRIVALS, DL_WINDOW_JOBS, DL_WINDOW_TIME };

struct dl_report_window {
	enum dl_window_kind kind;
	double from, to;
};

/* "arrivals", "jobs:FROM-TO" or "time:FROM-[TO]" (times with an s, m, h or d suffix) */
int dl_report_window_parse(const char *s, struct dl_report_window *w);
/* the window as the page and the man page say it ("jobs 4000 to 4999 in submit order") */
void dl_report_window_describe(const struct dl_report_window *w, struct strbuf *sb);

struct dl_report_opts {
	enum dl_report_by by;
	double capacity;      /* GPUs in the cluster; 0 = unknown */
	const char *baseline; /* label to compare against, or NULL */
	struct dl_report_window window;
	int allow_unequal; /* compare labels whose job sets differ */
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
	int64_t dropped;	     /* rows skipped on import plus jobs rejected */
	const char *dropped_reasons; /* "2 never started; 4 unknown GPU type 'a100'" or "" */
	double avg_first_feedback, p95_first_feedback; /* start - submit of started jobs */
	double avg_rho, p95_rho, max_rho, jain_rho;    /* the results' rho of finished jobs */
	double total_comm_overhead, avg_comm_overhead; /* the results' comm_overhead_s */
	double comm_share; /* sum(comm_overhead_s x gpus) / sum(run_time x gpus), 0..1 */
	int gpus_shared; /* estimated without occupied_gpu_s: jobs claimed more GPUs than there are
			  */
	const char *dropped_json; /* dropped_reasons as a JSON object of counts: {"no GPUs":2} */
};

/* the reason of the jobs unfinished when sacct ran, left out of every label */
#define DL_REPORT_UNFINISHED "unfinished at the dump"

/*
 * The night the labels cover, counted once (after dl_report_compute):
 * the jobs of each label (when equal), the rows trace import skipped, and
 * the jobs unfinished at the dump that every label leaves out.
 */
struct dl_report_night {
	int equal;    /* every label covers the same jobs */
	int64_t jobs; /* the first label's jobs (rejected ones included, unfinished not) */
	int64_t skipped;
	int64_t unfinished, unfinished_running; /* running ones among them; the rest pended */
};

/* One input of the page's provenance footer (the caller owns the strings). */
struct dl_report_input {
	const char *role; /* "results", "timeline", "as run", "skipped" */
	const char *path;
	int64_t bytes; /* -1: unknown (standard input) */
	int64_t rows;  /* -1: not a table (a cluster spec) */
};

/* One run of a sweep (plan.csv), for the --group-by page's footer (the caller owns it). */
struct dl_report_run {
	const char *id;	     /* the run column */
	const char *command; /* its exact command */
};

/* Page options for the HTML renderers. */
struct dl_report_page {
	const char *title;   /* NULL: "dlsched report" */
	const char *date;    /* NULL: no date line */
	const char *version; /* dlsched's version for the footer, or NULL */
	const char *command; /* the command line that made the page, or NULL */
	const char *tz;	     /* the zone of clock times (the process's TZ is set to it), or NULL */
	/* --cluster from scontrol: nodes with GPUs drained or down, and their GPUs */
	int unavailable_nodes, unavailable_gpus;
	const struct dl_report_input *inputs;
	size_t ninputs;
	const struct dl_report_run *runs; /* --group-by: the sweep's runs, or NULL */
	size_t nruns;
};

struct dl_report;

struct dl_report *dl_report_new(void);
void dl_report_free(struct dl_report *rep);

/*
 * Read every row of a results stream. Each row's label is `label` when not
 * NULL, else its policy column when present and not empty, else `fallback`.
 * Required columns: submit, gpus, duration, start, end (start and end may be
 * empty: not started, not finished). Optional: id (unique within a label),
 * jct, queue_delay, run_time (derived from the times when absent or empty),
 * preemptions, migrations (0 when empty), policy, rejected. *first_label (if
 * not NULL) receives the label of the first row. A header without rows is
 * an input without jobs: its label (`label`, else `fallback`) is kept. A
 * label filled by an earlier input is an error (code DL_EXIT_USAGE) unless
 * both inputs passed it as `label`.
 */
int dl_report_read_results(struct dl_report *rep, struct dl_reader *r, const char *label,
			   const char *fallback, const char **first_label, struct dl_err *err);
/*
 * Read a jobs stream with Slurm's real start and end (trace import --from
 * sacct) as the label "as run". Its timeline is derived from the jobs.
 */
int dl_report_read_asrun(struct dl_report *rep, struct dl_reader *r, struct dl_err *err);
/* rows of the last read (results, as run, timeline or skipped) */
int64_t dl_report_rows_read(const struct dl_report *rep);

/*
 * Read a timeline (time, busy_gpus, running, pending [, policy]). Its label:
 * `label` when not NULL; else the label that the results filed its policy
 * under; else (no policy column, or no rows) `fallback` (the file name). The
 * label must exist already, and have no timeline yet.
 */
int dl_report_read_timeline(struct dl_report *rep, struct dl_reader *r, const char *label,
			    const char *fallback, struct dl_err *err);
/*
 * Read the counts of input rows an importer skipped (reason, count: written
 * by trace import --skipped); they are added to every label's dropped count.
 */
int dl_report_read_skipped(struct dl_report *rep, struct dl_reader *r, struct dl_err *err);

/*
 * The commands that made the inputs, from their provenance columns
 * (dlsched-formats(5), PROVENANCE: made_by and seed, trace_made_by and
 * trace_seed, the first non-empty ones of each input), in order of first
 * appearance, the trace's before the stream's own. One command with one seed
 * that made several labels is listed once with all of them. Strings belong to
 * the report.
 */
struct dl_report_made {
	const char *labels;  /* "fifo, tiresias-las, as run" */
	const char *command; /* "dlsched trace import --from sacct ..." */
	const char *seed;    /* "" when it had none */
};
size_t dl_report_nmade(const struct dl_report *rep);
void dl_report_made(const struct dl_report *rep, size_t i, struct dl_report_made *m);

/* Labels in order of first appearance. */
size_t dl_report_nlabels(const struct dl_report *rep);
const char *dl_report_label(const struct dl_report *rep, size_t i);

/*
 * Compute the rows. Fails (exit code 2, a usage error) when opts->baseline
 * names no label, or (exit code 1) when a label holds a job id twice, or when
 * two labels cover different jobs (ids; counts where ids are missing) and
 * opts->allow_unequal is not set. Jobs of the as-run label that had not
 * finished at the dump are first left out of every label. May be called once.
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

/*
 * The index page of the report pages in dir (report --index): a row per page
 * (file-name order) with its night's jobs and each label's average wait and
 * JCT, read from the page's night-data, and their trends per night; skip is a
 * file name to leave out (the index itself). -1 when dir cannot be read.
 */
int dl_report_write_index(FILE *fp, const char *dir, const char *skip,
			  const struct dl_report_page *page, struct dl_err *err);

/* statistics: core/stats.h (dl_percentile_nearest, dl_jain_index, dl_sort_doubles) */

/* ---- internals shared by the renderers (report.c) ---- */

struct dl_report_series {
	const char *label;
	const double *jct; /* finished jobs' JCTs, ascending */
	size_t njct;
	const double *qdelay; /* started jobs' queueing delays, ascending */
	size_t nqdelay;
	const double *slowdown; /* finished jobs' jct / duration, in no order */
	size_t nslowdown;
	const double *rho; /* finished jobs' rho (from the results), in no order */
	size_t nrho;
	const double *feedback; /* started jobs' start - submit, ascending */
	size_t nfeedback;
	const double *tl_time, *tl_busy, *tl_pending; /* timeline points, time ascending */
	size_t ntl;
	int64_t jobs; /* in the window, rejected ones left out */
	int as_run;   /* Slurm's real schedule (its timeline derived from the jobs) */
};
size_t dl_report_nseries(const struct dl_report *rep);
void dl_report_series(const struct dl_report *rep, size_t i, struct dl_report_series *s);
double dl_report_capacity(const struct dl_report *rep);
const char *dl_report_baseline(const struct dl_report *rep);
const struct dl_report_window *dl_report_window(const struct dl_report *rep);
/* the measurement period of the over-time charts: [*t0, *t1]; 0 when there is none */
int dl_report_period(const struct dl_report *rep, double *t0, double *t1);
/* the class rows' dimension (DL_REPORT_BY_NONE: no class rows) */
enum dl_report_by dl_report_by(const struct dl_report *rep);
/* "REASON: N; ..." of the rows every label lost on import ("" when none) */
const char *dl_report_skipped(const struct dl_report *rep);
const struct dl_report_night *dl_report_night(const struct dl_report *rep);
/* the Unix time of time 0, from an input's origin column (trace import --from sacct); 0 if none */
int dl_report_origin(const struct dl_report *rep, double *origin);
/* the partitions of the inputs' jobs (a jobs stream's partition column), in order */
size_t dl_report_npartitions(const struct dl_report *rep);
const char *dl_report_partition(const struct dl_report *rep, size_t i);
/* "fifo 35, as run 31" when the labels' job sets differ (--allow-unequal), else "" */
const char *dl_report_label_counts(const struct dl_report *rep);

#endif
