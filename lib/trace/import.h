/*
 * import.h: turning published traces and accounting logs into jobs.
 *
 * Every importer appends jobs to a struct dl_jobset (which owns all their
 * strings) in input order and returns -1 with "FILE:LINE: ..." on malformed
 * input. Rows that are well formed but cannot become a job (a CPU-only job, a
 * job that never started, a Slurm job step, ...) are not errors: they are
 * skipped and counted by reason in struct dl_skips, which the caller reports.
 *
 * Times given as dates ("YYYY-MM-DD HH:MM:SS", also with 'T') are read in the
 * process's local time zone (mktime; the command sets TZ from --tz), so the
 * result is seconds since the Unix epoch; callers shift to origin 0.
 * Formats (columns, rules) are documented in dlsched-trace(1).
 */
#ifndef DL_TRACE_IMPORT_H
#define DL_TRACE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/jobs.h"
#include "trace/throughputs.h"

enum dl_import_fmt {
	DL_IMP_TIRESIAS,
	DL_IMP_GAVEL,
	DL_IMP_PHILLY,
	DL_IMP_PAI,
	DL_IMP_HELIOS,
	DL_IMP_SACCT,
	DL_IMP_NFMT,
};

extern const char *const dl_import_fmt_names[DL_IMP_NFMT];
/* 0 and *out, or -1 for an unknown name */
int dl_import_fmt_parse(const char *s, enum dl_import_fmt *out);

enum dl_skip_reason {
	DL_SKIP_NO_GPUS,      /* CPU-only job */
	DL_SKIP_NOT_STARTED,  /* never started (pending, cancelled while pending) */
	DL_SKIP_RUNNING,      /* no end time yet */
	DL_SKIP_NO_ATTEMPTS,  /* Philly: empty attempt list */
	DL_SKIP_ZERO_RUNTIME, /* ran for 0 s (or less) */
	DL_SKIP_STEP,	      /* Slurm job step (JobID with '.'): use sacct -X */
	DL_SKIP_NO_TASKS,     /* PAI: job without rows in the task table */
	DL_SKIP_NO_LIMIT,     /* sacct, keep_unfinished: running or pending without a time limit */
	/* sacct splits "never started" three ways: a pending job is not a dead one */
	DL_SKIP_REJECTED,	   /* failed before it started (rejected at submit) */
	DL_SKIP_CANCELLED_PENDING, /* cancelled while it waited */
	DL_SKIP_PENDING,	   /* still pending when sacct ran */
	DL_SKIP_NREASONS,
};

struct dl_skips {
	int64_t n[DL_SKIP_NREASONS];
};

const char *dl_skip_reason_name(enum dl_skip_reason r);

struct dl_import_opts {
	/* gavel: steps -> duration = steps / throughput(model, ref_gpu_type, gpus) */
	const struct dl_tputs *tputs;
	const char *ref_gpu_type; /* NULL = "v100" */
	/* philly: 0 = last end - first start (the official notebook); 1 = sum of attempts */
	int philly_sum_attempts;
	/*
	 * sacct: keep jobs running (End Unknown) or pending (Start and End Unknown)
	 * at dump time, with the time limit (TimelimitRaw, minutes) as duration and
	 * ReqTRES for a pending job's GPUs. Whatever this says, a job's gpu_type is
	 * the type it asked for (ReqTRES; empty for an untyped request) when the
	 * input has ReqTRES, and the type it ran on goes to alloc_gpu_type.
	 */
	int keep_unfinished;
};

/*
 * Import files of format fmt into js. PAI takes the job table and the task
 * table (in any order, told apart by their column counts); every other
 * format takes one or more files of that format, appended in order.
 */
int dl_import_files(struct dl_jobset *js, enum dl_import_fmt fmt, char *const *paths, size_t n,
		    const struct dl_import_opts *o, struct dl_skips *sk, struct dl_err *err);

/*
 * Local date-time "YYYY-MM-DD[ T]HH:MM:SS[.fff]" or "YYYY-MM-DD" to Unix
 * seconds. cache may be NULL; it remembers recent hours' starts so a million
 * rows need not call mktime three million times.
 */
#define DL_TIMECACHE_SLOTS 64
struct dl_timecache {
	/* direct-mapped by hour: key y*1000000 + m*10000 + d*100 + h, 0 = empty */
	int64_t key[DL_TIMECACHE_SLOTS];
	double base[DL_TIMECACHE_SLOTS]; /* Unix time of that hour's start */
};
#define DL_TIMECACHE_INIT \
	{                 \
		{0},      \
		{         \
			0 \
		}         \
	}
/* a local time (in TZ) from 1970 on, as seconds since the epoch; -1 when malformed or earlier */
int dl_parse_localtime(const char *s, size_t len, struct dl_timecache *cache, double *out);

/*
 * The sacct importer keeps Slurm's real Start and End as the pass-through
 * columns "start" and "end" (seconds, in the time base of submit; empty when
 * unknown). Shift them by delta as dl_jobset_shift() shifts submit.
 */
void dl_import_shift_times(struct dl_jobset *js, double delta);

/* Slurm's "[D-]HH:MM:SS" or "MM:SS" (sacct Elapsed, squeue TIME_LIMIT) as seconds; 0 or -1 */
int dl_slurm_duration(const char *s, double *out);
/* split s in place at delim (sacct's and squeue's '|'); up to max field starts; the field count */
size_t dl_split_fields(char *s, char delim, char **f, size_t max);

/* Slurm TRES string -> GPU count (untyped gres/gpu, else the sum of typed ones) */
int dl_sacct_gpus(const char *tres, int64_t *gpus, const char **type, size_t *typelen);

#endif
