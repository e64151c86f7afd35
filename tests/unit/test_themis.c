/*
 * test_themis.c: themis' fast auctions against the oracle. dl_sim_themis
 * ranks only the waiting jobs that can bid and settles clear one-GPU rounds
 * without GLPK; dl_sim_themis_reference is the policy as first written (every
 * candidate ranked and asked, GLPK for every round the greedy cannot
 * settle). On generated Philly-like traces, seed fixed, under load enough
 * that queues grow to hundreds, both must write the same results and events
 * byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/policies.h"
#include "sim/sim.h"
#include "sim/themis.h"
#include "table/table.h"
#include "tap.h"
#include "trace/gen.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

struct out {
	char *results, *events;
	size_t rlen, elen;
	struct dl_sim_stats st;
};

/* njobs Philly-like jobs (GPUs 1:0.7 2:0.1 4:0.15 8:0.05) at offered load on gpus GPUs */
static int gen(struct dl_jobset *js, uint64_t seed, int64_t njobs, double load, int gpus)
{
	struct dl_gen_opts o = {0};
	struct dl_err err = DL_ERR_INIT;
	o.seed = seed;
	o.jobs = njobs;
	o.mix_gpus = dl_gen_default_mix_gpus;
	o.mix_w = dl_gen_default_mix_w;
	o.nmix = 4;
	o.dist = DL_DUR_PHILLY;
	o.net_share = -1;
	o.rate_per_hour = load * gpus * 3600 / (dl_gen_mean_duration(&o) * dl_gen_mean_gpus(&o));
	dl_jobset_init(js);
	if (dl_gen(js, &o, &err)) {
		printf("# gen: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int run(const struct dl_sim_policy_ops *ops, const char *spec, const struct dl_jobset *js,
	       const char *const *opts, struct out *o)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, &err)) {
		printf("# cluster: %s\n", err.msg);
		return -1;
	}
	void *params = dl_sim_params_new(ops);
	for (size_t i = 0; opts && opts[i]; i += 2)
		if (dl_sim_params_set(ops, params, opts[i], opts[i + 1])) {
			printf("# bad option --%s %s\n", opts[i], opts[i + 1]);
			return -1;
		}
	memset(o, 0, sizeof(*o));
	FILE *fr = open_memstream(&o->results, &o->rlen);
	FILE *fe = open_memstream(&o->events, &o->elen);
	struct dl_writer *wr = dl_writer_new(fr, DL_OUT_CSV);
	struct dl_writer *we = dl_writer_new(fe, DL_OUT_CSV);
	struct dl_sim_config cfg = {0};
	cfg.cluster = cl;
	cfg.jobs = js;
	cfg.policy = ops;
	cfg.params = params;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	cfg.place.policy = DL_PLACE_CONSOLIDATE;
	cfg.place.seed = 1;
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	cfg.results = wr;
	cfg.events = we;
	int rc = dl_sim_run(&cfg, &o->st, &err);
	if (rc)
		printf("# run: %s\n", err.msg);
	dl_writer_finish(wr);
	dl_writer_finish(we);
	dl_writer_free(wr);
	dl_writer_free(we);
	fclose(fr);
	fclose(fe);
	free(params);
	dl_cluster_free(cl);
	return rc;
}

/* the first line where a and b differ (for the failure message) */
static size_t first_diff_line(const char *a, const char *b)
{
	size_t line = 1;
	for (; *a && *a == *b; a++, b++)
		line += *a == '\n';
	return line;
}

static void same(const char *what, const char *spec, const struct dl_jobset *js,
		 const char *const *opts)
{
	struct out fast, ref;
	int rf = run(&dl_sim_themis, spec, js, opts, &fast);
	int rr = run(&dl_sim_themis_reference, spec, js, opts, &ref);
	ok(rf == 0 && rr == 0, "%s: both run", what);
	ok(fast.st.completed > 0 && fast.st.completed == ref.st.completed, "%s: %zu jobs completed",
	   what, fast.st.completed);
	int rsame = fast.rlen == ref.rlen && !memcmp(fast.results, ref.results, ref.rlen);
	ok(rsame, "%s: results byte-identical (%zu bytes)", what, ref.rlen);
	if (!rsame)
		printf("# first difference at line %zu\n",
		       first_diff_line(fast.results, ref.results));
	int esame = fast.elen == ref.elen && !memcmp(fast.events, ref.events, ref.elen);
	ok(esame, "%s: events byte-identical (%zu bytes)", what, ref.elen);
	if (!esame)
		printf("# first difference at line %zu\n",
		       first_diff_line(fast.events, ref.events));
	free(fast.results);
	free(fast.events);
	free(ref.results);
	free(ref.events);
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
	if (gen(&js, 7, n, 1.3, SANITIZED ? 512 : 2048) == 0) {
		char what[64];
		snprintf(what, sizeof(what), "%lld jobs on %s", (long long)n, big);
		same(what, big, &js, NULL);
		dl_jobset_free(&js);
	} else {
		ok(0, "generate the trace");
	}
	/* two GPU types, the knob's ends, admission control and short leases */
	if (gen(&js, 3, 6000, 1.4, 256) == 0) {
		static const char *const knob0[] = {"fairness-knob", "0", NULL};
		static const char *const knob1[] = {"fairness-knob", "1", "lease", "120", NULL};
		static const char *const admit[] = {"admission", "1.5", "mip-max", "8", NULL};
		same("2 types, knob 0.2", "2x8x8:v100,2x8x8:k80", &js, NULL);
		same("2 types, knob 0", "2x8x8:v100,2x8x8:k80", &js, knob0);
		same("2 types, knob 1, lease 120", "2x8x8:k80,2x8x8:v100", &js, knob1);
		same("admission 1.5, mip-max 8", "4x8x8", &js, admit);
		dl_jobset_free(&js);
	} else {
		ok(0, "generate the small trace");
	}
	return done_testing();
}
