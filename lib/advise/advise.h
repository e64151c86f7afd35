/*
 * advise.h: realising a priority policy's order on a live Slurm queue.
 *
 * `dlsched advise` reads the queue (squeue), the attained service (sacct) and
 * the cluster (scontrol show node -o), orders the pending jobs by a
 * prioritize policy (policy/priority.h) and plans the fewest `scontrol
 * update` commands that make Slurm's pending order that order. The plan is
 * printed; applied, each command runs without a shell and is written to an
 * audit log (JSON Lines) that an undo reads back.
 *
 * Inputs (dlsched-advise(1) documents the commands that produce them):
 *   - the queue: `squeue --json`, or the fixed `squeue -o` format of
 *     DL_ADV_SQUEUE_FORMAT with its header line (columns found by name);
 *   - attained service: `sacct -P` output read by the trace importer
 *     (trace/import.h); every finished record of a queued job (a run before a
 *     requeue, with -D) counts its ElapsedRaw x allocated GPUs;
 *   - the cluster: anything dl_cluster_load reads (scontrol show node -o).
 *
 * Mechanisms: Slurm orders pending jobs by priority, highest first. "nice"
 * changes a job's nice value (priority = the site's factors - nice), "priority"
 * sets the priority itself (Slurm then stops computing it from the factors).
 * Either way the plan keeps the largest set of jobs whose priorities already
 * fall in the policy's order with room for the others between them, and moves
 * only the others: a queue already in order gets no command.
 *
 * Ownership: a queue owns its jobs and their strings (dl_adv_queue_release);
 * a plan owns its items (dl_adv_plan_release) and points into its queue.
 * Nothing here prints, exits or keeps state between calls.
 */
#ifndef DL_ADVISE_H
#define DL_ADVISE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/strbuf.h"
#include "policy/priority.h"

/* the squeue -o format the text reader expects (with its header line) */
#define DL_ADV_SQUEUE_FORMAT "%i|%u|%a|%P|%V|%D|%b|%l|%Q|%y|%T|%M"

struct dl_adv_job {
	char *id, *user, *account, *partition; /* owned */
	int pending;			       /* else running */
	double submit;			       /* Unix seconds */
	double limit;			       /* time limit in seconds, < 0 when unlimited */
	double elapsed; /* running: seconds run since it started, < 0 unknown (then now - start) */
	double start;	/* running: Unix seconds (JSON input) */
	int64_t gpus;	/* all nodes' GPUs */
	int64_t priority, nice;
	long line; /* input line (text) or 1-based job index (JSON) */
	/* from the accounting: earlier runs (requeued), and this run for a running job */
	double executed, attained; /* seconds, GPU-seconds */
};

struct dl_adv_queue {
	struct dl_adv_job *jobs;
	size_t n, alloc;
	char *name; /* the input's name for messages */
};

void dl_adv_queue_release(struct dl_adv_queue *q);
/*
 * Parse squeue output: JSON (starts with '{') or the -o text. Pending and
 * running jobs are kept, others (completing, finished) skipped. Job ids are
 * checked (digits, an array task "N_M" or "N_[...]") since they reach
 * scontrol. 0, or -1 with "NAME:LINE: ..." and the queue released.
 */
int dl_adv_queue_parse(struct dl_adv_queue *q, const char *name, const char *text, size_t len,
		       struct dl_err *err);
/*
 * Add the attained service from a sacct -P file (path) to the queue's jobs:
 * earlier runs from its finished records, the current run of running jobs
 * from the queue (elapsed, or now - start). path NULL: only the current runs.
 */
int dl_adv_attained(struct dl_adv_queue *q, const char *path, double now, struct dl_err *err);

enum dl_adv_mech { DL_ADV_NICE = 0, DL_ADV_PRIORITY };
/* "nice", "priority"; NULL after the last (an option's value list) */
const char *dl_adv_mech_at(size_t i);

/* what may be touched: each list empty = any; a job must match every non-empty list */
struct dl_adv_filter {
	const char *const *partitions, *const *users, *const *accounts;
	size_t npartitions, nusers, naccounts;
};
int dl_adv_filter_match(const struct dl_adv_filter *f, const struct dl_adv_job *j);

struct dl_adv_item {
	const struct dl_adv_job *job;
	size_t policy_rank, today_rank; /* 1-based among the selected pending jobs */
	int64_t new_priority;		/* the priority the plan gives it */
	int64_t before, after;		/* nice or priority (the mechanism's field) */
	int change;			/* after != before */
};

struct dl_adv_plan {
	enum dl_adv_mech mech;
	struct dl_adv_item *items; /* in policy order */
	size_t n, nchanges;
	size_t nrunning, nskipped; /* running jobs seen; pending jobs outside the filters */
};

/*
 * Order the pending jobs the filter selects by cfg's policy at time now and
 * plan the changes. A policy that needs run times (sjf, srtf, ftf) takes the
 * time limit; a job without one is an error. 0, or -1 with *err.
 */
int dl_adv_plan_build(const struct dl_adv_queue *q, const struct dl_prio_config *cfg,
		      const struct dl_adv_filter *f, enum dl_adv_mech mech, double now,
		      struct dl_adv_plan *p, struct dl_err *err);
void dl_adv_plan_release(struct dl_adv_plan *p);

/*
 * The plan as text: '#' lines (a summary, then the table: job, user,
 * partition, policy rank, today's rank, priority, change), then one
 * shell-quoted scontrol command per change, so the text is a script.
 */
void dl_adv_plan_text(const struct dl_adv_plan *p, const char *policy, struct strbuf *out);
/* the plan as table rows (CSV/JSON): one per job, command empty when unchanged */
struct dl_writer;
void dl_adv_plan_rows(const struct dl_adv_plan *p, struct dl_writer *w);

/* the field an item changes: "Nice" or "Priority" */
const char *dl_adv_field(enum dl_adv_mech mech);
/*
 * The scontrol argv of setting job's field to value: argv[0..3] point into
 * buf (reset first), argv[4] = NULL.
 */
void dl_adv_command(const char *job, enum dl_adv_mech mech, int64_t value, struct strbuf *buf,
		    char *argv[5]);

/*
 * Run argv (argv[0] looked up in PATH, no shell). out NULL: standard output
 * is inherited, else captured into out. Standard error is inherited. 0 with
 * *status = the exit status (128 + signal when killed), or -1 when it could
 * not start at all.
 */
int dl_adv_run(char *const argv[], struct strbuf *out, int *status, struct dl_err *err);
/* run argv with standard output into a new temporary file; *path is malloc'ed */
int dl_adv_run_to_file(char *const argv[], char **path, struct dl_err *err);

/* ---- the audit log ---- */

/* one change made: appended as one JSON object per line */
struct dl_adv_audit {
	double time;	    /* Unix seconds */
	const char *action; /* "apply" or "undo" */
	const char *policy; /* NULL for undo */
	const char *job, *user;
	enum dl_adv_mech mech;
	int64_t before, after;
	const char *command; /* shell-quoted, as printed */
	int exit_status;
};
/* append one line to fd; 0, or -1 with *err naming path */
int dl_adv_audit_write(int fd, const char *path, const struct dl_adv_audit *a, struct dl_err *err);

/* what an undo restores: a job's field to its value before the first change logged */
struct dl_adv_restore {
	char *job; /* owned */
	enum dl_adv_mech mech;
	int64_t value;
	int64_t after; /* the last value the log set */
};
/*
 * Read an audit log: for each job changed by an "apply" line that succeeded
 * (exit 0), its value before the first such change. *out malloc'ed, in the
 * order jobs first appear. 0, or -1 with "PATH:LINE: ..." on a malformed line.
 */
int dl_adv_audit_read(const char *path, struct dl_adv_restore **out, size_t *n, struct dl_err *err);
void dl_adv_restore_free(struct dl_adv_restore *r, size_t n);

#endif
