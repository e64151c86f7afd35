/*
 * test_themis.c: themis' fast auctions against the oracle. dl_sim_themis
 * ranks only the waiting jobs that can bid and settles clear one-GPU rounds
 * without GLPK; with params.reference set it is the policy as first written (every
 * candidate ranked and asked, GLPK for every round the greedy cannot
 * settle). On generated Philly-like traces, seed fixed, under load enough
 * that queues grow to hundreds, both must write the same results and events
 * byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/netcost.h"
#include "sim/policies.h"
#include "sim/themis.h"
#include "simrun.h"
#include "tap.h"

/*
 * simulate --policy themis on spec with options opts (name, value, ..., NULL);
 * net: with the network cost models (a gang is slower spread, and slower on
 * one node than its best rate says)
 */
static int run(int reference, const char *spec, const struct dl_jobset *js, const char *const *opts,
	       int net, struct simrun *o)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, &err)) {
		printf("# cluster: %s\n", err.msg);
		return -1;
	}
	struct dl_themis_params *params = dl_sim_params_new(&dl_sim_themis);
	for (size_t i = 0; opts && opts[i]; i += 2)
		if (dl_sim_params_set(&dl_sim_themis, params, opts[i], opts[i + 1])) {
			printf("# bad option --%s %s\n", opts[i], opts[i + 1]);
			free(params);
			dl_cluster_free(cl);
			return -1;
		}
	params->reference = reference;
	struct dl_sim_config cfg = simrun_config(cl, js, &dl_sim_themis, params);
	cfg.place.policy = DL_PLACE_CONSOLIDATE;
	cfg.place.seed = 1;
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	struct dl_net_models models;
	dl_net_models_init(&models);
	if (net) {
		cfg.models = &models;
		cfg.comm = DL_COMM_RING;
	}
	int rc = simrun(&cfg, 1u << SIMRUN_RESULTS | 1u << SIMRUN_EVENTS, 0, o);
	dl_net_models_free(&models);
	free(params);
	dl_cluster_free(cl);
	return rc;
}

static void same(const char *what, const char *spec, const struct dl_jobset *js,
		 const char *const *opts, int net)
{
	struct simrun fast, ref;
	int rf = run(0, spec, js, opts, net, &fast);
	int rr = run(1, spec, js, opts, net, &ref);
	ok(rf == 0 && rr == 0, "%s: both run", what);
	ok(fast.st.completed > 0 && fast.st.completed == ref.st.completed, "%s: %zu jobs completed",
	   what, fast.st.completed);
	ok(simrun_same(&fast, &ref, SIMRUN_RESULTS), "%s: results byte-identical (%zu bytes)", what,
	   ref.len[SIMRUN_RESULTS]);
	ok(simrun_same(&fast, &ref, SIMRUN_EVENTS), "%s: events byte-identical (%zu bytes)", what,
	   ref.len[SIMRUN_EVENTS]);
	simrun_free(&fast);
	simrun_free(&ref);
}

/* every job twice (ids ID and IDb): equal rhos and bid values, left to the order of ties */
static void twin(struct dl_jobset *js)
{
	size_t n = js->n;
	for (size_t i = 0; i < n; i++) {
		struct dl_job j = js->jobs[i]; /* (a copy: adding may move the jobs) */
		char id[80];
		snprintf(id, sizeof(id), "%sb", j.id);
		j.id = id;
		dl_jobset_add(js, &j);
	}
}

int main(void)
{
	struct dl_jobset js;
	/*
	 * The bench's shape: 2,048 GPUs, Philly-like jobs at load 1.3 (queues of
	 * hundreds after the first third). ASan makes the reference run slow:
	 * 20,000 jobs there, on a cluster a quarter the size, reach the same
	 * queues.
	 */
	int64_t n = SANITIZED ? 20000 : 100000;
	const char *big = SANITIZED ? "2x32x8" : "8x32x8";
	if (simrun_philly(&js, 7, n, 1.3, SANITIZED ? 512 : 2048) == 0) {
		char what[64];
		snprintf(what, sizeof(what), "%lld jobs on %s", (long long)n, big);
		same(what, big, &js, NULL, 0);
		dl_jobset_free(&js);
	} else {
		ok(0, "generate the trace");
	}
	/* two GPU types, the knob's ends, admission control and short leases */
	if (simrun_philly(&js, 3, 6000, 1.4, 256) == 0) {
		static const char *const knob0[] = {"fairness-knob", "0", NULL};
		static const char *const knob1[] = {"fairness-knob", "1", "lease", "120", NULL};
		static const char *const admit[] = {"admission", "1.5", "mip-max", "8", NULL};
		same("2 types, knob 0.2", "2x8x8:v100,2x8x8:k80", &js, NULL, 0);
		same("2 types, knob 0", "2x8x8:v100,2x8x8:k80", &js, knob0, 0);
		same("2 types, knob 1, lease 120", "2x8x8:k80,2x8x8:v100", &js, knob1, 0);
		same("admission 1.5, mip-max 8", "4x8x8", &js, admit, 0);
		/* one type: bids from the round's node placements, at rates below the best */
		same("network models, 4x8x8", "4x8x8", &js, NULL, 1);
		same("network models, knob 0, 4x8x8", "4x8x8", &js, knob0, 1);
		dl_jobset_free(&js);
	} else {
		ok(0, "generate the small trace");
	}
	if (simrun_philly(&js, 5, 3000, 0.7, 256) == 0) {
		static const char *const knob0[] = {"fairness-knob", "0", NULL};
		static const char *const mip4[] = {"mip-max", "4", NULL};
		twin(&js);
		same("twins, 4x8x8", "4x8x8", &js, NULL, 0);
		same("twins, mip-max 4, 4x8x8", "4x8x8", &js, mip4, 0);
		same("twins, knob 0, 4x8x8", "4x8x8", &js, knob0, 0);
		dl_jobset_free(&js);
	} else {
		ok(0, "generate the twins' trace");
	}
	return done_testing();
}
