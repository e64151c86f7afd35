/*
 * test_sim_dally.c: simulate --policy dally's lease index against the scan it
 * replaced (dally.h, scan_leases: every running job looked at every lease
 * end). Both run the same generated traces; results, events and timeline
 * must be the same bytes. The traces are generated here, seeds fixed: the
 * bench's workload (Philly-like, load 1.2) at 100,000 jobs on 8x32x8, then
 * smaller ones that reach the other paths: GPU types of other speeds (jobs
 * at rates other than 1, ranked at every lease end), short leases with
 * starvation promotion, and a free restart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cluster/netcost.h"
#include "policy/place.h"
#include "sim/dally.h"
#include "sim/trace.h"
#include "simrun.h"
#include "tap.h"

/*
 * Under the sanitizers the scan is some 20 times slower: fewer jobs there,
 * on a smaller cluster, where the queue builds up as soon (on 8x32x8 the
 * first 10,000 jobs never wait).
 */
#define BENCH_JOBS (SANITIZED ? 10000 : 100000)
#define BENCH_SPEC (SANITIZED ? "2x8x8" : "8x32x8")
#define SMALL_JOBS (SANITIZED ? 3000 : 10000)

/* jobs from `trace gen --seed SEED --load LOAD --cluster SPEC --jobs N` (Philly durations) */
static int gen_trace(struct dl_sim_trace *t, uint64_t seed, int64_t n, double load,
		     const struct dl_cluster *cl, struct dl_err *err)
{
	struct dl_jobset js;
	int rc = simrun_philly(&js, seed, n, load, (double)cl->total_gpus);
	if (rc)
		dl_err_set(err, DL_EXIT_DATA, "the trace could not be generated");
	else
		rc = dl_sim_trace_from_jobset(t, &js, err);
	dl_jobset_free(&js);
	return rc;
}

/* simulate --policy dally with options opts (name, value, ..., NULL) as the command does */
static int run(const struct dl_cluster *cl, const struct dl_sim_trace *t, int scan,
	       const char *const *opts, struct simrun *o, struct dl_err *err)
{
	const struct dl_sim_policy_ops *ops = dl_sim_policy_find("dally");
	struct dl_sim_dally *p = dl_sim_params_new(ops);
	for (; opts && *opts; opts += 2)
		if (dl_sim_params_set(ops, p, opts[0], opts[1])) {
			free(p);
			return dl_err_set(err, DL_EXIT_USAGE, "bad option --%s %s", opts[0],
					  opts[1]);
		}
	p->scan_leases = scan;
	if (ops->check && ops->check(p, err) < 0) {
		free(p);
		return -1;
	}
	struct dl_net_models models;
	dl_net_models_init(&models);
	struct dl_sim_config cfg = simrun_config(cl, NULL, ops, p);
	cfg.trace = t;
	dl_place_policy_parse("consolidate", &cfg.place.policy);
	cfg.place.seed = 1;
	cfg.models = &models;
	cfg.comm = DL_COMM_RING;
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	int rc = simrun(&cfg, 1u << SIMRUN_RESULTS | 1u << SIMRUN_EVENTS | 1u << SIMRUN_TIMELINE, 0,
			o);
	if (rc)
		dl_err_set(err, DL_EXIT_DATA, "the run failed");
	dl_net_models_free(&models);
	free(p);
	return rc;
}

/* the index and the scan on one trace: the same bytes in every stream (and `event` happens) */
static void same_as_scan(const char *name, const char *spec, uint64_t seed, int64_t n, double load,
			 const char *const *opts, const char *event)
{
	static const char *const stream[3] = {"results", "events", "timeline"};
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	struct dl_sim_trace t;
	dl_sim_trace_init(&t);
	struct simrun fast = {0}, scan = {0};
	if (dl_cluster_load(spec, &cl, &err) < 0 || gen_trace(&t, seed, n, load, cl, &err) < 0 ||
	    run(cl, &t, 0, opts, &fast, &err) < 0 || run(cl, &t, 1, opts, &scan, &err) < 0) {
		ok(0, "%s: %s", name, err.msg);
	} else {
		/* a run that preempts nobody would not test the leases */
		ok(strstr(fast.buf[1], ",preempt,") != NULL, "%s: leases are taken", name);
		if (event)
			ok(strstr(fast.buf[1], event) != NULL, "%s: events have %s", name, event);
		for (int i = 0; i < SIMRUN_STREAMS; i++)
			ok(fast.len[i] > 0 && simrun_same(&fast, &scan, i),
			   "%s: %s the same bytes as the scan's (%zu bytes)", name, stream[i],
			   fast.len[i]);
	}
	simrun_free(&fast);
	simrun_free(&scan);
	dl_sim_trace_free(&t);
	dl_cluster_free(cl);
}

int main(void)
{
	/* the bench's workload (make bench: trace gen --seed 1 --load 1.2 --cluster 8x32x8) */
	same_as_scan("the bench's workload", BENCH_SPEC, 1, BENCH_JOBS, 1.2, NULL, ",consolidate,");
	/* K80s run at another speed: jobs there rank at every lease end, the others wait */
	same_as_scan("two GPU types", "2x8x8:v100,2x8x8:k80", 7, SMALL_JOBS, 1.3, NULL, NULL);
	static const char *const churn[] = {"lease",	     "6", "starvation", "2",
					    "restart-cost",  "0", "rack-delay", "2",
					    "network-delay", "4", NULL};
	same_as_scan("short leases, starvation, free restarts", "2x4x8", 3, SMALL_JOBS, 1.5, churn,
		     ",promote,");
	return done_testing();
}
