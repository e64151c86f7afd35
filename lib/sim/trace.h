/*
 * trace.h: the jobs of a simulation, in the engine's compact form.
 *
 * A run reads its trace once and keeps, per job, only what the engine needs:
 * 32 bytes (the id's handle, submit time and duration in integer
 * microseconds, the gang size, the gpu_type and model as indices into a
 * table of distinct names) plus the id's text. Everything a waiting or
 * running job needs beyond that lives in the engine only while the job is
 * active (policy.h).
 *
 * dl_sim_trace_read() streams a jobs stream (dlsched-formats(5), "jobs"):
 * each row is validated as by every reader of jobs (dl_jobs_parse_row), its
 * id must be unique (dl_idset: "FILE:LINE: duplicate id 'a' (first on line
 * 2)"), and submit and duration are read from their text straight into
 * microseconds (dl_parse_micros: exact at any magnitude; a duration under
 * half a microsecond, or a time beyond 2^60 microseconds, is a bad value).
 * From a regular file the rows are read ahead by a thread of the call's own
 * (joined before it returns; the reader belongs to that thread meanwhile),
 * with the same errors: the first bad line in file order.
 * dl_sim_trace_from_jobset() converts jobs already in memory (library
 * callers; ids are not checked). Both leave the jobs stably sorted by
 * submit time (ties in input order): a job's index in the trace is its
 * index in the run.
 *
 * Ownership: the trace owns its jobs, ids and names; dl_sim_trace_free()
 * releases them. dl_sim_trace_id() and name pointers stay valid until then.
 */
#ifndef DL_SIM_TRACE_H
#define DL_SIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strmap.h"
#include "trace/jobs.h"

/* simulated time and work: integer microseconds */
typedef int64_t dl_tick;
#define DL_TICKS_PER_SECOND 1000000
/* the largest submit time or duration a trace may hold (about 36,500 years) */
#define DL_SIM_INPUT_MAX (INT64_C(1) << 60)

struct dl_sim_tjob {
	uint32_t id;	/* handle of the id (dl_sim_trace_id) */
	int32_t gpus;	/* gang size, >= 1 (capped at INT32_MAX) */
	dl_tick submit; /* microseconds from the trace's origin */
	dl_tick work;	/* duration: reference-GPU microseconds, >= 1 */
	uint32_t type;	/* 1 + index in names of the gpu_type; 0 when absent */
	uint32_t model; /* 1 + index in names of the model; 0 when absent */
};

struct dl_sim_trace {
	struct dl_sim_tjob *jobs;
	size_t n, alloc;
	struct dl_idset ids;
	char **names; /* distinct gpu_type and model names */
	size_t nnames, names_alloc;
	struct strmap name_index;
	/*
	 * Per job, in the same order, kept only when some job has one: its
	 * weight (NULL while every weight is 1) and its user, as 1 + an index
	 * into names (NULL while no job has a user; 0: none)
	 */
	double *weight;
	uint32_t *user;
	/* provenance (dlsched-formats(5)): made_by and seed of the first row of the
	 * stream read with a non-empty made_by, or NULL */
	char *made_by, *seed;
};

void dl_sim_trace_init(struct dl_sim_trace *t);
void dl_sim_trace_free(struct dl_sim_trace *t);
/* Read every row of r (the caller closes r). 0, or -1 with "FILE:LINE: ..." in *err. */
int dl_sim_trace_read(struct dl_sim_trace *t, struct dl_reader *r, struct dl_err *err);
int dl_sim_trace_from_jobset(struct dl_sim_trace *t, const struct dl_jobset *js,
			     struct dl_err *err);

static inline const char *dl_sim_trace_id(const struct dl_sim_trace *t, size_t i)
{
	return dl_idset_str(&t->ids, t->jobs[i].id);
}
/* the name behind a type or model index, NULL for 0 */
static inline const char *dl_sim_trace_name(const struct dl_sim_trace *t, uint32_t k)
{
	return k ? t->names[k - 1] : NULL;
}

#endif
