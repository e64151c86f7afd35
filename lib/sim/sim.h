/*
 * sim.h: run one simulation (the native engine; see policy.h for how the
 * engine and the policies divide the work).
 *
 * dl_sim_run() replays cfg->trace (trace.h: sorted by submit time, ties in
 * input order), or cfg->jobs converted to one, on cfg->cluster under
 * cfg->policy and writes, as it goes:
 *   results   one row per completed job, in completion order
 *             (dlsched-formats(5) "results"), when not NULL;
 *   events    one row per job state change (arrive, start, preempt, saved,
 *             suspend, resume, migrate, finish, reject, and the policy's
 *             notes);
 *   timeline  time, busy_gpus, running, pending whenever one changes.
 * Jobs that can never run (more GPUs than the cluster, or than all GPUs of
 * their type; an unknown GPU type) are rejected at submission: counted in
 * the stats, reported in events, left out of the results, never retried.
 *
 * Same inputs and seed: byte-identical outputs (no clocks, no global state;
 * ties broken by fixed rules). Times are integer microseconds (policy.h), so
 * shifting every submit shifts the output times by exactly as much and
 * changes nothing else. Memory: the trace (about 50 bytes a job) plus about
 * 250 bytes for each job waiting or running at once.
 *
 * Ownership: everything in cfg is borrowed for the call; the writers must
 * have no columns yet (the engine sets them). dl_sim_run() formats and
 * writes the results on a thread of its own (results.h; joined before it
 * returns), unless another of the run's streams shares their file; stepped
 * runs write them in place.
 */
#ifndef DL_SIM_SIM_H
#define DL_SIM_SIM_H

#include "sim/policy.h"

struct dl_sim_config {
	const struct dl_cluster *cluster;
	const struct dl_sim_trace *trace; /* the jobs; NULL: convert jobs */
	const struct dl_jobset *jobs;
	const struct dl_sim_policy_ops *policy;
	const void *params; /* the policy's (dl_sim_params_new()); NULL: its defaults */
	struct dl_place_opts place;
	const struct dl_net_models *models; /* for slowdown; NULL: no network cost */
	enum dl_comm comm;
	double checkpoint_cost, restore_cost;
	int any_type; /* ignore the jobs' gpu_type (run anywhere) */
	/*
	 * Heterogeneity (policy.h, "Progress"): per-model throughputs, or NULL
	 * for the types' flat speeds; ref_type names the table's reference type
	 * (NULL: "v100"), on which a job's duration is its run time.
	 */
	const struct dl_tputs *tputs;
	const char *ref_type;
	struct dl_writer *results, *events, *timeline;
	/* called about every 1% of jobs completed (may be NULL) */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
};

struct dl_sim_stats {
	size_t jobs, completed, rejected;
	size_t events;		  /* events delivered (heap pops + arrivals) */
	size_t passes;		  /* scheduling passes */
	size_t peak_active;	  /* most jobs waiting or running at once */
	double makespan;	  /* last completion - first submit (seconds) */
	char first_rejected[128]; /* id of the first rejected job ("" if none; cut at 127 bytes) */
	const char *reject_reason;
	/* with tputs: jobs that ran at a type's speed for want of an entry, and
	 * their distinct models (", "-separated, cut with "..." at 255 bytes) */
	size_t tput_fallback;
	char tput_missing[256];
	char policy_summary[200]; /* the policy's own counts (dl_sim_policy_summary), or "" */
	char policy_warning[200]; /* the policy's first warning, or "" */
};

int dl_sim_run(const struct dl_sim_config *cfg, struct dl_sim_stats *st, struct dl_err *err);

/*
 * The same run advanced by hand, one instant at a time (unit tests,
 * debugging a policy): dl_sim_run() is dl_sim_new(), dl_sim_step() until it
 * returns 0, dl_sim_free().
 *   dl_sim_new    set up (cluster state, the trace, the policy's create());
 *                 NULL with *err filled on failure
 *   dl_sim_step   deliver the events of the next instant, in the fixed order,
 *                 with the policy's passes; 1 when it did, 0 when nothing is
 *                 left (then the run is wound up: jobs that can never run are
 *                 rejected), -1 with *err filled (the run is over)
 *   dl_sim_free   release everything (at any point)
 * Between steps, the calls of policy.h that read (dl_sim_now, dl_sim_job,
 * dl_sim_free_gpus, ...) show the state after that instant; *st is kept up
 * to date.
 */
struct dl_sim *dl_sim_new(const struct dl_sim_config *cfg, struct dl_sim_stats *st,
			  struct dl_err *err);
int dl_sim_step(struct dl_sim *s, struct dl_err *err);
void dl_sim_free(struct dl_sim *s);

#endif
