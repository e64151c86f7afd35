/*
 * tiresias.h: `simulate --compat tiresias`, a row-for-row reimplementation of
 * the reference Tiresias simulator (SymbioticLab/Tiresias simulator/, the
 * Python 2 code at 959f9b0; the semantics, quirks included, are written up in
 * dlsched-simulate(1), TIRESIAS COMPATIBILITY).
 *
 * It reads the reference's own formats (a job trace with job_id, num_gpu,
 * submit_time, duration; a one-row cluster_spec CSV) and writes its job.csv
 * (one row per completed job, in completion order) and, optionally, its
 * cluster.csv (one row per processed event). The reference's quirks are kept
 * on purpose, because they decide its numbers:
 *   - integer seconds everywhere; Python 2 floor division in the 2D-LAS
 *     queue-jump time (t + (limit - executed) // gpus) and in the Gittins
 *     table (through lib/policy/gittins.h, arithmetic "tiresias");
 *   - preemptive loops empty the cluster and re-admit every job at every
 *     event (free migration); dlas* ignore the placement scheme;
 *   - yarn in the preemptive loops never gives memory back when the cluster
 *     is emptied (the reference's free_mem leak), so those runs can stop
 *     early: jobs left unfinished are counted in the stats;
 *   - the dlas-gpu-gittins-N names behave exactly like dlas-gpu-N (the
 *     reference enables Gittins ordering only for the exact name);
 *   - in the dlas loops, a completion due at the instant of the next arrival
 *     is attached to that arrival event (the reference aliases its end_jobs
 *     list); if a queue jump comes first, those jobs are logged as completed
 *     when the arrival is processed, preempted or not.
 * CSV output ends lines with CRLF, as the reference's files do, so they
 * compare byte for byte.
 * Schedules: fifo fjf sjf shortest shortest-gpu dlas dlas-gpu
 * dlas-gpu-{05,1,2,4,8,10,100,1000} dlas-gpu-gittins dlas-gpu-gittins-{1,2,4,8}.
 * Schemes: count, yarn. Other reference names (gittins, lpjf, gandiva, ...)
 * are broken or experimental upstream and rejected.
 *
 * Ownership: dl_tiresias_load_* return objects the caller frees with the
 * matching _free. dl_tiresias_run borrows everything and writes rows to the
 * writers it is given (it never touches stdout itself).
 */
#ifndef DL_COMPAT_TIRESIAS_H
#define DL_COMPAT_TIRESIAS_H

#include <stdint.h>

#include "core/common.h"
#include "table/table.h"

struct dl_tiresias_spec {
	int64_t num_switch, num_node_p_switch, num_gpu_p_node, num_cpu_p_node, mem_p_node;
};

/* the reference's flag defaults: 1 switch x 32 nodes x 8 GPUs, 64 CPUs, 256 GB */
void dl_tiresias_spec_default(struct dl_tiresias_spec *s);
/* a cluster_spec CSV (exactly one data row with the five columns) */
int dl_tiresias_spec_load(const char *path, struct dl_tiresias_spec *s, struct dl_err *err);

struct dl_tiresias_trace;

/* job_id, num_gpu, submit_time, duration (other columns ignored); rows stable-sorted by submit */
struct dl_tiresias_trace *dl_tiresias_trace_load(const char *path, enum dl_in_format fmt,
						 struct dl_err *err);
size_t dl_tiresias_trace_njobs(const struct dl_tiresias_trace *t);
void dl_tiresias_trace_free(struct dl_tiresias_trace *t);

struct dl_tiresias_opts {
	const char *schedule; /* a reference --schedule name */
	const char *scheme;   /* "count" or "yarn" (the reference default) */
	/*
	 * dlas-gpu-gittins: the Gittins index of an attained GPU-service, from
	 * the job-size distribution (cmd/ wires dl_gittins_index of
	 * lib/policy/gittins.h with arithmetic "tiresias"); NULL otherwise.
	 */
	double (*gittins_index)(const void *arg, double attained);
	const void *gittins_arg;
};

struct dl_tiresias_stats {
	size_t completed;  /* rows written to job.csv */
	size_t unfinished; /* jobs the reference would never finish (cluster too small, yarn leak)
			    */
	size_t events;	   /* events processed (= cluster.csv rows) */
};

/* 0 if the schedule name is supported; else -1 with a usage error */
int dl_tiresias_check_schedule(const char *schedule, int *needs_gittins, struct dl_err *err);

/*
 * Run the simulation. Rows go to jobs (job.csv columns, set here) and, when
 * not NULL, to cluster (cluster.csv columns). The trace is consumed (its
 * per-job state is used), so run it once.
 */
int dl_tiresias_run(struct dl_tiresias_trace *t, const struct dl_tiresias_spec *spec,
		    const struct dl_tiresias_opts *opts, struct dl_writer *jobs,
		    struct dl_writer *cluster, struct dl_tiresias_stats *st, struct dl_err *err);

#endif
