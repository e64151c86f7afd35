/*
 * test_gandiva.c: the gandiva driver's shortcuts change no result. A
 * Philly-like trace generated here (seed fixed; 100,000 jobs on 2,048 GPUs,
 * 20,000 on 256 under ASan) runs overloaded (load 1.5: sets time-slice,
 * spread jobs consolidate, suspended jobs migrate) and at the bench's load
 * 1.2, under both slice modes, once as `dlsched simulate` runs it and once
 * with the params-only slice_oracle switch (the reference code, every
 * shortcut off, every round-robin slice an event of its own); the results
 * and timelines must be the same bytes, and the makespan the same. Round
 * robin must have skipped most slices in closed form (far fewer events).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/gandiva.h"
#include "simrun.h"
#include "tap.h"

/*
 * Under ASan a 100,000-job pair takes minutes: 20,000 jobs on an eighth of
 * the GPUs, which they overload as soon (fewer would not fill 2,048 GPUs)
 */
#define JOBS	(SANITIZED ? 20000 : 100000)
#define CLUSTER (SANITIZED ? "2x16x8" : "8x32x8")
#define GPUS	(SANITIZED ? 256 : 2048)

/* the run's results (CSV), as simulate --policy gandiva --slice slice writes them */
static int run(const struct dl_jobset *js, int slice, int oracle, struct simrun *out)
{
	const struct dl_sim_policy_ops *ops = dl_sim_policy_find("gandiva");
	struct dl_gandiva_params *p = dl_sim_params_new(ops);
	p->slice = slice;
	p->slice_oracle = oracle;
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(CLUSTER, &cl, &err)) {
		free(p);
		return -1;
	}
	struct dl_net_models models;
	dl_net_models_init(&models);
	struct dl_sim_config cfg = simrun_config(cl, js, ops, p);
	dl_place_policy_parse(ops->place, &cfg.place.policy);
	cfg.models = &models;
	cfg.comm = DL_COMM_RING;
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	int rc = simrun(&cfg, 1u << SIMRUN_RESULTS | 1u << SIMRUN_TIMELINE, 0, out);
	if (!rc && out->st.completed != (size_t)JOBS) {
		printf("# %zu of %d jobs completed\n", out->st.completed, JOBS);
		rc = -1;
	}
	dl_net_models_free(&models);
	dl_cluster_free(cl);
	free(p);
	return rc;
}

static void compare(double load, int slice)
{
	const char *mode = slice == DL_GANDIVA_FLUID ? "fluid" : "round-robin";
	struct dl_jobset js;
	if (simrun_philly(&js, 1, JOBS, load, GPUS)) {
		ok(0, "load %g: trace generated", load);
		return;
	}
	struct simrun fast, ref;
	int rf = run(&js, slice, 0, &fast);
	int rr = run(&js, slice, 1, &ref);
	ok(rf == 0 && rr == 0, "load %g, %s: both runs complete all %d jobs", load, mode, JOBS);
	/* the comparison means something only where the shortcuts' cases occur */
	const char *res = ref.buf[SIMRUN_RESULTS] ? ref.buf[SIMRUN_RESULTS] : "";
	size_t sliced = simrun_rows_not(res, "preemptions", "0"),
	       moved = simrun_rows_not(res, "migrations", "0"),
	       spread = simrun_rows_not(res, "slowdown", "1");
	ok(sliced > JOBS / 100 && moved > JOBS / 1000 && spread > JOBS / 100,
	   "load %g, %s: %zu jobs preempted, %zu migrated, %zu slowed by spreading", load, mode,
	   sliced, moved, spread);
	ok(simrun_same(&fast, &ref, SIMRUN_RESULTS),
	   "load %g, %s: results byte-identical to the reference (%zu bytes)", load, mode,
	   ref.len[SIMRUN_RESULTS]);
	ok(simrun_same(&fast, &ref, SIMRUN_TIMELINE) && fast.st.makespan == ref.st.makespan,
	   "load %g, %s: timeline (%zu bytes) and makespan identical", load, mode,
	   ref.len[SIMRUN_TIMELINE]);
	/* round robin: most slices skipped in closed form, so that the comparison covers it */
	if (slice == DL_GANDIVA_ROUND_ROBIN)
		ok(fast.st.events * 3 < ref.st.events && fast.st.passes * 3 < ref.st.passes,
		   "load %g, %s: %zu events and %zu passes, against %zu and %zu one slice at a time",
		   load, mode, fast.st.events, fast.st.passes, ref.st.events, ref.st.passes);
	simrun_free(&fast);
	simrun_free(&ref);
	dl_jobset_free(&js);
}

int main(void)
{
	compare(1.5, DL_GANDIVA_ROUND_ROBIN);
	compare(1.5, DL_GANDIVA_FLUID);
	compare(1.2, DL_GANDIVA_ROUND_ROBIN);
	return done_testing();
}
