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
#include "xorshift.h"

/*
 * Under ASan a 100,000-job pair takes minutes: 20,000 jobs on an eighth of
 * the GPUs, which they overload as soon (fewer would not fill 2,048 GPUs)
 */
#define JOBS	(SANITIZED ? 20000 : 100000)
#define CLUSTER (SANITIZED ? "2x16x8" : "8x32x8")
#define GPUS	(SANITIZED ? 256 : 2048)

/* a run's settings beside the trace */
struct setup {
	const char *cluster;
	double quantum, suspend, checkpoint, restore;
};

/* the bench's: simulate's defaults, with swap costs */
static const struct setup bench = {CLUSTER, 60, 0.1, 5, 10};

/* the run's results and timeline (CSV), as simulate --policy gandiva --slice slice writes them */
static int run(const struct dl_jobset *js, const struct setup *u, int slice, int oracle,
	       struct simrun *out)
{
	const struct dl_sim_policy_ops *ops = dl_sim_policy_find("gandiva");
	struct dl_gandiva_params *p = dl_sim_params_new(ops);
	p->slice = slice;
	p->slice_oracle = oracle;
	p->quantum = u->quantum;
	p->suspend_cost = u->suspend;
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(u->cluster, &cl, &err)) {
		free(p);
		return -1;
	}
	struct dl_net_models models;
	dl_net_models_init(&models);
	struct dl_sim_config cfg = simrun_config(cl, js, ops, p);
	dl_place_policy_parse(ops->place, &cfg.place.policy);
	cfg.models = &models;
	cfg.comm = DL_COMM_RING;
	cfg.checkpoint_cost = u->checkpoint;
	cfg.restore_cost = u->restore;
	int rc = simrun(&cfg, 1u << SIMRUN_RESULTS | 1u << SIMRUN_TIMELINE, 0, out);
	if (!rc && out->st.completed != js->n) {
		printf("# %zu of %zu jobs completed\n", out->st.completed, js->n);
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
	int rf = run(&js, &bench, slice, 0, &fast);
	int rr = run(&js, &bench, slice, 1, &ref);
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

/*
 * Small traces that make coincidences: submits on coarse grids, a few
 * repeated durations (some not whole seconds), gangs of 1 to 8 on 8 to 16
 * GPUs, so that sets slice in step, complete at the same microsecond and
 * de-oversubscribe at slice instants; under four settings (swap costs
 * above a quantum among them). Round robin, fast against the oracle.
 */
static void small_traces(int n)
{
	static const double dur[] = {30,  59.9, 60,   100,	  120,	      120.1, 200,  240.1,
				     500, 1000, 3000, 123.456789, 777.777777, 60.1,  180.2};
	static const int gang[] = {1, 1, 1, 2, 2, 4, 8};
	static const double grid[] = {1, 10, 60.1};
	static const struct setup setups[] = {{"2x2x4", 60, 0.1, 5, 10},
					      {"1x2x4", 60, 0.1, 100, 100},
					      {"2x2x4", 30, 0, 5, 10},
					      {"1x3x4", 20, 5, 1, 1}};
	unsigned long long rng = 88172645463325252ULL;
	size_t fast_events = 0, ref_events = 0;
	int same = 0, runs = 0;
	char first[160] = "";
	for (int t = 0; t < n; t++) {
		struct dl_jobset js;
		dl_jobset_init(&js);
		int jobs = 8 + (int)xorshift_below(&rng, 73);
		double g = grid[xorshift_below(&rng, 3)],
		       *submit = xcalloc((size_t)jobs, sizeof(double));
		for (int i = 0; i < jobs; i++)
			submit[i] = xorshift_below(&rng, 60) * g;
		for (int i = 1; i < jobs; i++) /* sorted, as a trace's submits are */
			for (int k = i; k > 0 && submit[k - 1] > submit[k]; k--) {
				double x = submit[k];
				submit[k] = submit[k - 1];
				submit[k - 1] = x;
			}
		for (int i = 0; i < jobs; i++) {
			char id[16];
			snprintf(id, sizeof(id), "j%d", i);
			struct dl_job j = DL_JOB_INIT;
			j.id = id;
			j.submit = submit[i];
			j.gpus = gang[xorshift_below(&rng, 7)];
			j.duration = dur[xorshift_below(&rng, 15)];
			dl_jobset_add(&js, &j);
		}
		free(submit);
		for (size_t k = 0; k < DL_ARRAY_SIZE(setups); k++) {
			struct simrun fast, ref;
			int ok_ = run(&js, &setups[k], DL_GANDIVA_ROUND_ROBIN, 0, &fast) == 0 &&
				  run(&js, &setups[k], DL_GANDIVA_ROUND_ROBIN, 1, &ref) == 0 &&
				  fast.len[SIMRUN_RESULTS] == ref.len[SIMRUN_RESULTS] &&
				  !memcmp(fast.buf[SIMRUN_RESULTS], ref.buf[SIMRUN_RESULTS],
					  ref.len[SIMRUN_RESULTS]) &&
				  fast.len[SIMRUN_TIMELINE] == ref.len[SIMRUN_TIMELINE] &&
				  !memcmp(fast.buf[SIMRUN_TIMELINE], ref.buf[SIMRUN_TIMELINE],
					  ref.len[SIMRUN_TIMELINE]) &&
				  fast.st.makespan == ref.st.makespan;
			runs++;
			same += ok_;
			if (!ok_ && !first[0])
				snprintf(first, sizeof(first), " (first: trace %d, setting %zu)", t,
					 k);
			fast_events += fast.st.events;
			ref_events += ref.st.events;
			simrun_free(&fast);
			simrun_free(&ref);
		}
		dl_jobset_free(&js);
	}
	ok(same == runs, "small traces: %d of %d runs byte-identical to the reference%s", same,
	   runs, first);
	ok(fast_events * 3 < ref_events * 2,
	   "small traces: %zu events, against %zu one slice at a time", fast_events, ref_events);
}

int main(void)
{
	small_traces(SANITIZED ? 100 : 600);
	compare(1.5, DL_GANDIVA_ROUND_ROBIN);
	compare(1.5, DL_GANDIVA_FLUID);
	compare(1.2, DL_GANDIVA_ROUND_ROBIN);
	return done_testing();
}
