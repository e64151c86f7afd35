/*
 * sweep.h: policy experiments over grids (dlsched sweep).
 *
 * A sweep is the Cartesian product of named axes (option values of
 * `dlsched trace gen` and `dlsched simulate`, or trace files) plus fixed
 * options. Its directory holds:
 *
 *   plan.csv     one row per run: run (the id), one column per axis, command
 *                (the exact shell command of the run, run from the directory)
 *   runs/ID/     results.csv, report.csv (one `dlsched report -f csv` row),
 *                timeline.csv when asked, stderr (every stage's), and a marker:
 *                done (holds the command: a done run whose command changed is
 *                redone) or failed (why)
 *   summary.csv  run, the axis columns, then the report columns of each done run,
 *                in plan order
 *
 * Run ids are 12 hex digits of a hash of the run's axis names and values, so
 * the same grid gives the same ids whatever the order of the axes, and a
 * grown grid keeps the ids of the runs it had. Every file is written to a
 * temporary name and renamed, so a run killed at any point is "missing",
 * never half done. (The processes of the runs are cmd/sweep_run.c's.)
 *
 * Ownership: a struct dl_sweep_spec and a struct dl_sweep_plan own all their
 * strings and arrays; dl_sweep_spec_release() and dl_sweep_plan_release()
 * free them. Nothing here keeps static state.
 */
#ifndef DL_SWEEP_H
#define DL_SWEEP_H

#include <stddef.h>

#include "core/common.h"
#include "core/opt.h"

/* where an axis or a fixed option goes */
enum {
	DL_SWEEP_GEN = 1 << 0,	 /* an option of `trace gen` */
	DL_SWEEP_SIM = 1 << 1,	 /* an option of `simulate` */
	DL_SWEEP_TRACE = 1 << 2, /* the trace file simulate reads */
};

/*
 * One option a command accepts, from its option table. Alternatives (the
 * policies of simulate) may each own an option of the same name with its
 * own type: defs holds every entry of that name.
 */
#define DL_SWEEP_MAX_DEFS 16
struct dl_sweep_optinfo {
	const char *name; /* the table's, without "--" */
	int takes_value;  /* 0 for a flag */
	int is_file;	  /* 1: its value names a file (made absolute); 2: a file if one exists */
	const struct dl_opt *defs[DL_SWEEP_MAX_DEFS];
	size_t ndefs;
};

struct dl_sweep_cmdinfo {
	const char *name; /* "trace gen", "simulate": in messages */
	struct dl_sweep_optinfo *opts;
	size_t nopts;
};

/* Add the options of a command's table (hidden ones left out); release frees opts. */
void dl_sweep_cmdinfo_add(struct dl_sweep_cmdinfo *c, const struct dl_opt *table);
void dl_sweep_cmdinfo_release(struct dl_sweep_cmdinfo *c);

struct dl_sweep_axis {
	char *name;	/* as given, e.g. "policy", "gen.seed", "trace" */
	char *option;	/* the option name without prefix ("seed"); NULL for trace */
	char **values;	/* as given */
	char **args;	/* the values as passed (files made absolute) */
	size_t nvalues; /* >= 1 */
	unsigned target;
	int flag; /* an option without value: the values are on/off */
};

struct dl_sweep_spec {
	struct dl_sweep_axis *axes; /* the varied axes, in the order given */
	size_t naxes;
	struct dl_sweep_axis *fixed; /* --set: one value each */
	size_t nfixed;
	int timeline; /* write runs/ID/timeline.csv and report utilisation from it */
};

void dl_sweep_spec_init(struct dl_sweep_spec *spec);
void dl_sweep_spec_release(struct dl_sweep_spec *spec);

/*
 * Add "NAME=V1,V2,..." (an axis; ';' separates the values instead when the
 * text has one, for values with commas; "A..B" is the integers A to B) or,
 * with fixed set, "NAME=VALUE" or a bare flag "NAME" (a --set). Checks the
 * name against the options of gen and sim, and every value with the typed
 * check of the command's own table (dl_opt_store): usage errors name the
 * axis and say what the command expects.
 */
int dl_sweep_spec_add(struct dl_sweep_spec *spec, const char *text, int fixed,
		      const struct dl_sweep_cmdinfo *gen, const struct dl_sweep_cmdinfo *sim,
		      struct dl_err *err);

/* Whole-spec checks (a trace and gen options together, no --cluster, ...). */
int dl_sweep_spec_finish(struct dl_sweep_spec *spec, struct dl_err *err);

struct dl_sweep_row {
	char *id;
	char **values; /* one per axis of the plan */
	char *command;
};

struct dl_sweep_plan {
	char **axes; /* axis names (the plan.csv columns between run and command) */
	size_t naxes;
	struct dl_sweep_row *rows;
	size_t nrows;
};

void dl_sweep_plan_release(struct dl_sweep_plan *plan);

/* The runs of a spec, the first axis varying slowest. Fails on an id collision. */
int dl_sweep_plan_build(const struct dl_sweep_spec *spec, struct dl_sweep_plan *plan,
			struct dl_err *err);

/*
 * Dry-check every run before any starts: check() gets each stage's argv
 * (argv[0] "dlsched", argv[argc] NULL) and returns 0 if the command accepts
 * it, else -1 with its message in why. The first rejection becomes a usage
 * error naming the axis whose value it is (found by trying the axis' other
 * values), or the run when no single axis explains it.
 */
typedef int (*dl_sweep_check_fn)(void *arg, int argc, char **argv, struct strbuf *why);
int dl_sweep_plan_check(const struct dl_sweep_spec *spec, const struct dl_sweep_plan *plan,
			dl_sweep_check_fn check, void *arg, struct dl_err *err);

/* DIR/plan.csv, written atomically / read back (with file:line errors). */
int dl_sweep_plan_write(const struct dl_sweep_plan *plan, const char *dir, struct dl_err *err);
int dl_sweep_plan_read(struct dl_sweep_plan *plan, const char *dir, struct dl_err *err);
/*
 * A CSV table at path (written atomically: commit or abort *out after
 * dl_writer_free) with the columns run and the plan's axes; NULL on error.
 */
struct dl_output;
struct dl_writer;
struct dl_writer *dl_sweep_table_open(const struct dl_sweep_plan *plan, const char *path,
				      struct dl_output **out, struct dl_err *err);
/* 1 if the two plans have the same columns and rows */
int dl_sweep_plan_equal(const struct dl_sweep_plan *a, const struct dl_sweep_plan *b);

/* A plan's command split into stages: "A | B && C" is A piped into B, then C if both succeed. */
struct dl_sweep_stage {
	int argc;
	char **argv; /* argv[argc] == NULL */
	int piped;   /* reads the previous stage's standard output */
};

struct dl_sweep_cmd {
	struct dl_sweep_stage *stages;
	size_t nstages;
};

/* Parse the words sb_add_shell_word() writes (plain, '...', \x) and the operators | and &&. */
int dl_sweep_parse_command(const char *command, struct dl_sweep_cmd *cmd, struct dl_err *err);
void dl_sweep_cmd_release(struct dl_sweep_cmd *cmd);

/* ---- runs (exec.c) ---- */

enum dl_sweep_state { DL_SWEEP_MISSING = 0, DL_SWEEP_DONE, DL_SWEEP_FAILED };

enum dl_sweep_state dl_sweep_row_state(const struct dl_sweep_plan *plan, size_t i, const char *dir);
/* the failed marker's text ("exit 1 in simulate: ...") into sb; 0 or -1 if none */
int dl_sweep_row_failure(const struct dl_sweep_plan *plan, size_t i, const char *dir,
			 struct strbuf *sb);

/*
 * The files of run i: dl_sweep_run_path() names DIR/runs/ID/NAME (caller frees);
 * dl_sweep_run_begin() makes the run's directory and removes its markers (it is
 * missing until it ends); dl_sweep_run_end() writes the done marker (why NULL)
 * or the failed one with why. The processes are cmd/sweep_run.c's.
 */
char *dl_sweep_run_path(const char *dir, const char *id, const char *name);
int dl_sweep_run_begin(const struct dl_sweep_plan *plan, size_t i, const char *dir,
		       struct dl_err *err);
int dl_sweep_run_end(const struct dl_sweep_plan *plan, size_t i, const char *dir, const char *why,
		     struct dl_err *err);

/*
 * Run i's array task (of job) was ended by Slurm (state: "TIMEOUT", ...)
 * without a marker: keep Slurm's output of the task (DIR/slurm/JOB_I.out) as
 * runs/ID/slurm.out and mark the run failed with why, so that the failure
 * outlives Slurm's memory of it and a rerun redoes the run.
 */
int dl_sweep_run_ended_by_slurm(const struct dl_sweep_plan *plan, size_t i, const char *dir,
				const char *job, const char *state, struct dl_err *err);

/* Slurm batch options of --slurm; NULL/0 members are left out. */
struct dl_sweep_slurm {
	const char *partition, *time, *mem, *account;
	long max_running;   /* the %M of --array, 0 for none */
	long cpus_per_task; /* 0: Slurm's default */
	const char **extra; /* verbatim sbatch options, one #SBATCH line each */
	size_t nextra;
};

/*
 * Usage errors (naming the option) for values that cannot go into the script:
 * empty, a control character (a newline would start a new line of it), an
 * --sbatch-option that is not an option or is one the script sets (--array,
 * --output, --error, --wrap). Every value is also shell-quoted where it lands.
 */
int dl_sweep_slurm_check(const struct dl_sweep_slurm *opts, struct dl_err *err);

/*
 * Write DIR/sweep.sbatch (after dl_sweep_slurm_check(); dir and exe too): an array job over the
 * rows in todo whose tasks run `EXE sweep --task $SLURM_ARRAY_TASK_ID DIR` (dir and exe absolute).
 * Slurm's own output goes to DIR/slurm/.
 */
int dl_sweep_write_sbatch(const char *dir, const char *exe, const size_t *todo, size_t ntodo,
			  const struct dl_sweep_slurm *opts, struct dl_err *err);

/*
 * The Slurm options of the last --slurm, kept in DIR/slurm/options (one
 * NAME=VALUE line each: partition, time, mem, account, jobs (the %N of
 * --array), cpus-per-task, sbatch-option, as the command line names them) so
 * a rerun's script asks Slurm for the same. dl_sweep_slurm_read() returns 1
 * when there is none, -1 on a bad file (line named); what it fills owns its
 * strings: free them with dl_sweep_slurm_release().
 */
int dl_sweep_slurm_read(const char *dir, struct dl_sweep_slurm *opts, struct dl_err *err);
int dl_sweep_slurm_write(const char *dir, const struct dl_sweep_slurm *opts, struct dl_err *err);
void dl_sweep_slurm_release(struct dl_sweep_slurm *opts);

/* ---- the Slurm arrays of a sweep (slurm.c) ---- */

/* DIR/slurm/jobs: the array job id of every --submit, oldest first */
struct dl_sweep_jobs {
	char **id;
	size_t n;
};
/* none recorded: 0 with n == 0; a bad file: -1 (line named) */
int dl_sweep_jobs_read(const char *dir, struct dl_sweep_jobs *jobs, struct dl_err *err);
/* record one more (id: what sbatch --parsable printed, digits) */
int dl_sweep_jobs_add(const char *dir, const char *id, struct dl_err *err);
void dl_sweep_jobs_release(struct dl_sweep_jobs *jobs);
/* "12,15": the ids for squeue -j and sacct -j */
void dl_sweep_jobs_list(const struct dl_sweep_jobs *jobs, struct strbuf *sb);

enum dl_sweep_slurm_state {
	DL_TASK_NONE = 0, /* not queued or running; nor failed in Slurm's accounting */
	DL_TASK_QUEUED,	  /* pending in squeue */
	DL_TASK_RUNNING,  /* running (or completing, suspended) in squeue */
	DL_TASK_FAILED,	  /* ended by Slurm: FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ... */
};

/* what Slurm says of the array task of one plan row */
struct dl_sweep_task {
	enum dl_sweep_slurm_state state;
	long job;	      /* index into dl_sweep_jobs of the array it was last seen in */
	char slurm_state[32]; /* Slurm's word ("TIMEOUT", "CANCELLED by 0"), "" if none */
};

/*
 * The state of every row's task, tasks[nrows], from the text of
 * `squeue -h -r -j JOBS -o %i|%T` and `sacct -n -X -P -j JOBS -o JobID,State`
 * (either may be NULL). squeue's word wins (it is live; sacct lags); among
 * arrays the latest recorded wins. Rows of no task stay DL_TASK_NONE.
 */
void dl_sweep_slurm_states(const struct dl_sweep_jobs *jobs, const char *squeue, const char *sacct,
			   struct dl_sweep_task *tasks, size_t nrows);

/*
 * Write DIR/summary.csv from the done runs (atomically). *ndone receives
 * their number. A report column named like an axis is left out (the axis
 * value stands for it).
 */
int dl_sweep_collect(const struct dl_sweep_plan *plan, const char *dir, size_t *ndone,
		     struct dl_err *err);

#endif
