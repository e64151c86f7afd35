/*
 * jobs.h: the canonical jobs stream (a trace) in memory and on the wire.
 *
 * Columns (dlsched-formats(5), "jobs"): id, submit, gpus, duration are
 * required; model, user, vc, weight, gpu_type, steps, state are optional.
 * Any other column is kept and passed through unchanged by commands that
 * copy rows (dl_jobset_write_row writes it back).
 *
 * Validation (dl_jobs_parse_row): id non-empty; submit a finite number >= 0;
 * gpus an integer >= 1; duration a finite number > 0; weight >= 0 (default 1);
 * steps >= 0 (absent: -1). Empty optional fields mean "absent". Values over
 * the maxima below are errors too (dl_job_check, also used by the importers
 * on the values they compute). Errors read "FILE:LINE: bad COL value 'TEXT':
 * why" (or "missing required column 'COL'").
 *
 * Two ways to read:
 *  - streaming: dl_jobs_cols_init() on an open dl_reader, then for every row
 *    dl_jobs_parse_row(); the job's strings point into the row and are valid
 *    until the next dl_reader_next();
 *  - whole file: dl_jobset_load() appends every row to a struct dl_jobset,
 *    which owns copies of all strings (ids, names and pass-through fields).
 *
 * Ownership: a struct dl_jobset owns its jobs array, its column names and
 * every string its jobs point to (a string arena); dl_jobset_free() releases
 * all of it. Pointers into a jobset stay valid until dl_jobset_free(), also
 * across dl_jobset_add()/dl_jobset_load() (strings never move; only the jobs
 * array may be reallocated, so keep indices rather than struct dl_job
 * pointers across additions).
 */
#ifndef DL_TRACE_JOBS_H
#define DL_TRACE_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"
#include "table/table.h"

/* the known columns, in canonical output order */
enum dl_job_col {
	DL_JC_ID,
	DL_JC_SUBMIT,
	DL_JC_GPUS,
	DL_JC_DURATION,
	DL_JC_MODEL,
	DL_JC_USER,
	DL_JC_VC,
	DL_JC_WEIGHT,
	DL_JC_GPU_TYPE,
	DL_JC_STEPS,
	DL_JC_STATE,
	DL_JC_NKNOWN,
};

extern const char *const dl_job_col_names[DL_JC_NKNOWN];

struct dl_job {
	const char *id;
	double submit;	 /* seconds from the trace origin */
	int64_t gpus;	 /* gang size, >= 1 */
	double duration; /* seconds on the reference GPU type, placed ideally, > 0 */
	/* optional text columns: "" when absent */
	const char *model, *user, *vc, *gpu_type, *state;
	double weight; /* 1 when absent */
	double steps;  /* -1 when absent */
	long line;     /* input line (0 when generated or imported without one) */
	/*
	 * Pass-through fields: extra[k] is the value of the jobset's pass-through
	 * column k, for k < nextra (later columns are empty for this job).
	 */
	const char **extra;
	size_t nextra;
};

/*
 * A job with every optional field absent, as a row that leaves them empty
 * reads: "" texts (id too, until it is set), weight 1, steps -1, all else 0.
 * `struct dl_job j = DL_JOB_INIT;` or `*job = (struct dl_job)DL_JOB_INIT;`.
 */
#define DL_JOB_INIT                                                                       \
	{                                                                                 \
		.id = "", .model = "", .user = "", .vc = "", .gpu_type = "", .state = "", \
		.weight = 1, .steps = -1                                                  \
	}

/*
 * The largest values a job may have (dlsched-formats(5)): submit and duration
 * DL_SECONDS_MAX (core/num.h, 1e10 s), and these.
 */
#define DL_JOB_GPUS_MAX	  1000000
#define DL_JOB_WEIGHT_MAX 1e6
#define DL_JOB_STEPS_MAX  1e15

/*
 * Check a job's numbers against the limits (finite, in range); on failure
 * "FILE:LINE: bad COL value 'V': over the maximum of ..." (line from
 * job->line; 0 omits it). Returns 0 or -1.
 */
int dl_job_check(const struct dl_job *job, const char *file, struct dl_err *err);

/* column indices of a dl_reader, -1 when absent */
struct dl_jobs_cols {
	int col[DL_JC_NKNOWN];
};

/* Find the columns; error if a required one is missing. */
int dl_jobs_cols_init(struct dl_jobs_cols *jc, const struct dl_reader *r, struct dl_err *err);
/* Validate one row into *job (strings point into row; job->extra = NULL). */
int dl_jobs_parse_row(const struct dl_jobs_cols *jc, const struct dl_reader *r,
		      const struct dl_row *row, struct dl_job *job, struct dl_err *err);

struct dl_strarena; /* private to jobs.c */

struct dl_jobset {
	struct dl_job *jobs;
	size_t n, alloc;
	/*
	 * Output columns: the known columns in use (id, submit, gpus, duration
	 * always; optional ones once a job sets them or an input has them) in
	 * canonical order, then the pass-through columns in first-seen order.
	 */
	unsigned has; /* bit (1 << dl_job_col) for each known column in use */
	char **pass;  /* pass-through column names */
	size_t npass, pass_alloc;
	struct dl_strarena *arena; /* owns every string the jobs point to */
};

#define DL_JOBSET_INIT \
	{              \
		0      \
	}

void dl_jobset_init(struct dl_jobset *js);
void dl_jobset_free(struct dl_jobset *js);
/* Copy a string into the jobset's arena (valid until dl_jobset_free). */
const char *dl_jobset_strdup(struct dl_jobset *js, const char *s);
const char *dl_jobset_strndup(struct dl_jobset *js, const char *s, size_t len);
/*
 * Append a copy of *job (its strings are copied into the arena; job->extra,
 * if any, is indexed like js->pass and copied too). Optional columns with
 * values become output columns. Returns the new job (valid until the next
 * append).
 */
struct dl_job *dl_jobset_add(struct dl_jobset *js, const struct dl_job *job);
/*
 * Index of pass-through column `name` (added if new): importers use it to
 * attach extra columns (e.g. PAI's fractional gpu_request) through job.extra.
 */
size_t dl_jobset_pass_col(struct dl_jobset *js, const char *name);
/* Declare an optional known column as in use even if no job sets it. */
void dl_jobset_use_col(struct dl_jobset *js, enum dl_job_col c);
/*
 * Append every row of an open reader (the reader stays open and owned by the
 * caller). Unknown columns become pass-through columns; a later file may add
 * more (earlier jobs then have empty fields there).
 */
int dl_jobset_add_reader(struct dl_jobset *js, struct dl_reader *r, struct dl_err *err);
/* Open path ("-" = stdin; gzip ok), append its rows, close it. */
int dl_jobset_load(struct dl_jobset *js, const char *path, enum dl_in_format fmt,
		   struct dl_err *err);
/* Stable sort by submit time (ties keep input order). */
void dl_jobset_sort_submit(struct dl_jobset *js);
/* Smallest submit (0 for an empty set). */
double dl_jobset_min_submit(const struct dl_jobset *js);

/*
 * Unique ids. A job id names one job: every command that reads jobs and
 * keys anything by id (simulate, prioritize, place, allocate) passes each
 * row's id through one struct dl_idset, which refuses the second occurrence
 * with "FILE:LINE: duplicate id 'ID' (first on line N)". The set keeps a copy
 * of every id (packed in one buffer, with its line) and a hash index over
 * them; *ref, when not NULL, receives a handle for dl_idset_str(), so a
 * reader may keep the set's copy as its only copy of the ids.
 *
 * Ownership: the set owns its copies; dl_idset_str() pointers are valid
 * until the next dl_idset_add() or dl_idset_free() (handles stay valid).
 * dl_idset_drop_index() frees the index and keeps the strings (no more adds).
 */
struct dl_idset {
	char *pool; /* per id: its line (int64, unaligned), the id, a NUL */
	size_t len, alloc;
	uint64_t *slot; /* open addressing: 0 empty, else hash << 32 | (handle + 1) */
	size_t cap, n;
	unsigned bits; /* cap = 2^bits */
	/* ids added with dl_idset_add_later and not checked yet */
	struct dl_idset_later {
		uint32_t hash, ref;
	} later[64];
	size_t nlater;
	const char *later_file;
	/*
	 * While every id so far is a canonical integer ("0", "17", no leading
	 * zero) and larger than the one before, they are unique by
	 * construction (generated traces, most logs): nothing is indexed until
	 * an id breaks the pattern.
	 */
	int not_rising;
	int64_t last_int;
};

#define DL_IDSET_INIT \
	{             \
		0     \
	}

int dl_idset_add(struct dl_idset *s, const char *id, const char *file, long line, size_t *ref,
		 struct dl_err *err);
/*
 * The same check for a reader that reads everything first: ids are kept at
 * once (*ref is valid) but checked 64 at a time, their index slots fetched
 * together (a big index does not fit in any cache). Any error, of this check
 * or of anything else the reader sees, must be preceded by dl_idset_flush,
 * which reports the first repeat in input order, as dl_idset_add would have.
 * file must stay valid until then.
 */
int dl_idset_add_later(struct dl_idset *s, const char *id, const char *file, long line, size_t *ref,
		       struct dl_err *err);
int dl_idset_flush(struct dl_idset *s, struct dl_err *err);
/* keep a copy of id without checking or indexing it; returns its handle */
size_t dl_idset_store(struct dl_idset *s, const char *id, long line);
static inline const char *dl_idset_str(const struct dl_idset *s, size_t ref)
{
	return s->pool + ref;
}
void dl_idset_drop_index(struct dl_idset *s);
void dl_idset_free(struct dl_idset *s);

/*
 * Writing: dl_jobset_write_columns() adds the jobset's columns to w (before
 * any row; callers may add their own columns afterwards) and returns the
 * index of the first one; dl_jobset_write_row() fills job i's fields starting
 * at that index (the caller fills its own columns and ends the row).
 * dl_jobset_write() does all of it and dl_writer_finish().
 */
size_t dl_jobset_write_columns(const struct dl_jobset *js, struct dl_writer *w);
void dl_jobset_write_row(const struct dl_jobset *js, struct dl_writer *w, size_t first, size_t i);
/* the same for a job that is not in js (streaming): js gives only the columns */
void dl_job_write_row(const struct dl_jobset *js, struct dl_writer *w, size_t first,
		      const struct dl_job *j);
void dl_jobset_write(const struct dl_jobset *js, struct dl_writer *w);

#endif
