/*
 * test_sim_gavel.c: the gavel driver's rounds touch only the jobs whose
 * state can change (the sets of slots in lib/sim/gavel.c), and give the same
 * bytes as a scan of every slot at every round (the driver before issue 33,
 * kept as the oracle: dl_gavel_params.scan_all, which no option sets).
 *
 * The trace is the bench's kind, generated here: Philly durations and gang
 * mix, seed 1, offered load 1.2 on the 2,048 GPUs of 8x32x8 (the queue
 * grows all along), 100,000 jobs (10,000 under the sanitizers, where a
 * 100k-job run twice takes minutes). Results and events must match byte for
 * byte. Smaller runs cover the other ways through the rounds: --compat gavel
 * on three GPU types (an agnostic policy: the seeded type shuffle) and
 * --work-conserving.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/gavel.h"
#include "sim/sim.h"
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

/* trace gen --seed 1 --load 1.2 --cluster SPEC --jobs n (Philly durations and gangs) */
static void philly(struct dl_jobset *js, int64_t n, double load, int gpus)
{
	struct dl_gen_opts o = {0};
	o.seed = 1;
	o.jobs = n;
	o.mix_gpus = dl_gen_default_mix_gpus;
	o.mix_w = dl_gen_default_mix_w;
	o.nmix = 4;
	o.dist = DL_DUR_PHILLY;
	o.net_share = -1;
	o.rate_per_hour = load * gpus * 3600 / (dl_gen_mean_gpus(&o) * dl_gen_mean_duration(&o));
	struct dl_err err = DL_ERR_INIT;
	dl_jobset_init(js);
	if (dl_gen(js, &o, &err))
		printf("# gen: %s\n", err.msg);
}

struct run_opts {
	const char *cluster;
	const char *alloc; /* --alloc, NULL: the default */
	int compat, work_conserving;
};

/* one run; results and events in *res, *ev (free them); 0 on success */
static int run(const struct run_opts *ro, const struct dl_jobset *js, int scan_all, char **res,
	       char **ev, struct dl_sim_stats *st)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(ro->cluster, &cl, &err)) {
		printf("# %s\n", err.msg);
		return -1;
	}
	struct dl_gavel_params *p = dl_sim_params_new(&dl_sim_gavel);
	if (ro->alloc)
		dl_sim_params_set(&dl_sim_gavel, p, "alloc", ro->alloc);
	p->compat = ro->compat;
	p->work_conserving = ro->work_conserving;
	p->scan_all = scan_all;
	size_t rlen = 0, elen = 0;
	FILE *rf = open_memstream(res, &rlen), *ef = open_memstream(ev, &elen);
	struct dl_writer *rw = dl_writer_new(rf, DL_OUT_CSV), *ew = dl_writer_new(ef, DL_OUT_JSON);
	struct dl_sim_config cfg = {0};
	cfg.cluster = cl;
	cfg.jobs = js;
	cfg.policy = &dl_sim_gavel;
	cfg.params = p;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	/* simulate's default costs; --compat gavel has none (as the reference) */
	cfg.checkpoint_cost = ro->compat ? 0 : 5;
	cfg.restore_cost = ro->compat ? 0 : 10;
	cfg.results = rw;
	cfg.events = ew;
	int rc = dl_sim_run(&cfg, st, &err);
	if (rc)
		printf("# %s\n", err.msg);
	dl_writer_finish(rw);
	dl_writer_finish(ew);
	dl_writer_free(rw);
	dl_writer_free(ew);
	fclose(rf);
	fclose(ef);
	free(p);
	dl_cluster_free(cl);
	return rc;
}

/* the fast path against the oracle on one trace and configuration */
static void same_as_oracle(const char *name, const struct run_opts *ro, const struct dl_jobset *js)
{
	char *res[2] = {NULL, NULL}, *ev[2] = {NULL, NULL};
	struct dl_sim_stats st[2];
	for (int k = 0; k < 2; k++)
		ok(run(ro, js, k, &res[k], &ev[k], &st[k]) == 0, "%s: run (%s)", name,
		   k ? "every slot scanned" : "the sets");
	size_t jobs = js->n;
	ok(st[0].completed + st[0].rejected == jobs,
	   "%s: every one of %zu jobs completes or is rejected", name, jobs);
	/* the queue the sets save scanning: the point of the check (printed for the record) */
	printf("# %s: %zu jobs completed, %zu at once at most; %s\n", name, st[0].completed,
	       st[0].peak_active, st[0].policy_summary);
	ok(res[0] && res[1] && strlen(res[0]) > jobs && !strcmp(res[0], res[1]),
	   "%s: results byte-identical to a scan of every slot", name);
	ok(ev[0] && ev[1] && !strcmp(ev[0], ev[1]), "%s: events byte-identical too", name);
	ok(!strstr(ev[0], "\"extend\""), "%s: no event for a lease extension", name);
	/* the summary's counts after the allocations' mean time (a clock's, not the run's) */
	is_str(strstr(st[0].policy_summary, "; "), strstr(st[1].policy_summary, "; "),
	       "%s: the same rounds and lease extensions", name);
	for (int k = 0; k < 2; k++) {
		free(res[k]);
		free(ev[k]);
	}
}

int main(void)
{
	struct dl_jobset js;
	philly(&js, SANITIZED ? 10000 : 100000, 1.2, 2048);
	struct run_opts def = {"8x32x8", NULL, 0, 0};
	same_as_oracle(SANITIZED ? "philly 10k, load 1.2" : "philly 100k, load 1.2", &def, &js);
	dl_jobset_free(&js);

	/* three GPU types (36 each), the other ways through a round */
	philly(&js, SANITIZED ? 1000 : 5000, 1.2, 108);
	struct run_opts compat = {"36:36:36", "max-min-fairness", 1, 0};
	same_as_oracle("compat gavel, agnostic, 3 types", &compat, &js);
	struct run_opts wc = {"36:36:36", NULL, 0, 1};
	same_as_oracle("work-conserving, 3 types", &wc, &js);
	dl_jobset_free(&js);
	return done_testing();
}
