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
 * on three GPU types (an agnostic policy: the seeded type shuffle),
 * --work-conserving, and the walk over three types (a job given a faster
 * type is passed over on the slower ones) with the default policy, with
 * finish-time fairness (a class per job) and with fifo-perf (solved per job,
 * not by class).
 *
 * The fast path reads X through the jobs' classes in the allocation session
 * and walks, on each type, only the jobs whose priority is among the first
 * GPUs-left / gpus of their gang size; the oracle copies X into every job
 * and walks a heap of every admitted job. The fast path also keeps each
 * class's jobs not run since the last reset in blocks of one priority
 * (ordered by deficit and job order between resets); a second oracle,
 * dl_gavel_params.scan_jobs, computes every admitted job's priority at every
 * round instead, and must give the same bytes too. A run with short rounds
 * and resets makes resets (when the blocks are sorted again) frequent; a
 * run at load 4 with a reset every other round makes new ties between a
 * block's members at a reset, whose order decides who runs; and Gavel's own
 * traces (models from the throughputs table) run packed.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/gavel.h"
#include "simrun.h"
#include "tap.h"
#include "trace/throughputs.h"

struct run_opts {
	const char *cluster;
	const char *alloc; /* --alloc, NULL: the default */
	int compat, work_conserving;
	const char *round, *reset;    /* --round, --reset-interval; NULL: the defaults */
	const struct dl_tputs *tputs; /* --throughputs, NULL: none */
	int pack;
};

enum mode { FAST, SCAN_ALL, SCAN_JOBS };
static const char *const mode_name[] = {"the sets", "every slot scanned", "every job's priority"};

/* one run, its results and events captured in *o; 0 on success */
static int run(const struct run_opts *ro, const struct dl_jobset *js, enum mode mode,
	       struct simrun *o)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	memset(o, 0, sizeof(*o));
	if (dl_cluster_load(ro->cluster, &cl, &err)) {
		printf("# %s\n", err.msg);
		return -1;
	}
	struct dl_gavel_params *p = dl_sim_params_new(&dl_sim_gavel);
	if (ro->alloc)
		dl_sim_params_set(&dl_sim_gavel, p, "alloc", ro->alloc);
	p->compat = ro->compat;
	p->work_conserving = ro->work_conserving;
	if (ro->round)
		dl_sim_params_set(&dl_sim_gavel, p, "round", ro->round);
	if (ro->reset)
		dl_sim_params_set(&dl_sim_gavel, p, "reset-interval", ro->reset);
	p->pack = ro->pack;
	p->scan_all = mode == SCAN_ALL;
	p->scan_jobs = mode == SCAN_JOBS;
	struct dl_sim_config cfg = simrun_config(cl, js, &dl_sim_gavel, p);
	cfg.tputs = ro->tputs;
	/* simulate's default costs; --compat gavel has none (as the reference) */
	cfg.checkpoint_cost = ro->compat ? 0 : 5;
	cfg.restore_cost = ro->compat ? 0 : 10;
	/* results as CSV, events as JSON Lines (`simulate --events x.jsonl`) */
	int rc = simrun(&cfg, 1u << SIMRUN_RESULTS | 1u << SIMRUN_EVENTS, 1u << SIMRUN_EVENTS, o);
	free(p);
	dl_cluster_free(cl);
	return rc;
}

/* the fast path against the oracles on one trace and configuration */
static void same_as_oracle(const char *name, const struct run_opts *ro, const struct dl_jobset *js)
{
	struct simrun r[3];
	for (int k = 0; k < 3; k++)
		ok(run(ro, js, (enum mode)k, &r[k]) == 0, "%s: run (%s)", name, mode_name[k]);
	size_t jobs = js->n;
	ok(r[0].st.completed + r[0].st.rejected == jobs,
	   "%s: every one of %zu jobs completes or is rejected", name, jobs);
	/* the queue the sets save scanning: the point of the check (printed for the record) */
	printf("# %s: %zu jobs completed, %zu at once at most; %s\n", name, r[0].st.completed,
	       r[0].st.peak_active, r[0].st.policy_summary);
	ok(r[0].len[SIMRUN_RESULTS] > jobs && simrun_same(&r[0], &r[1], SIMRUN_RESULTS),
	   "%s: results byte-identical to a scan of every slot", name);
	ok(simrun_same(&r[0], &r[1], SIMRUN_EVENTS), "%s: events byte-identical too", name);
	ok(r[0].buf[SIMRUN_EVENTS] && !strstr(r[0].buf[SIMRUN_EVENTS], "\"extend\""),
	   "%s: no event for a lease extension", name);
	/* the summary's counts after the allocations' mean time (a clock's, not the run's) */
	is_str(strstr(r[0].st.policy_summary, "; "), strstr(r[1].st.policy_summary, "; "),
	       "%s: the same rounds and lease extensions", name);
	ok(simrun_same(&r[0], &r[2], SIMRUN_RESULTS) && simrun_same(&r[0], &r[2], SIMRUN_EVENTS),
	   "%s: results and events byte-identical to every job's priority at every round", name);
	for (int k = 0; k < 3; k++)
		simrun_free(&r[k]);
}

int main(void)
{
	struct dl_jobset js;
	simrun_philly(&js, 1, SANITIZED ? 10000 : 100000, 1.2, 2048);
	struct run_opts def = {"8x32x8", NULL, 0, 0, NULL, NULL, NULL, 0};
	same_as_oracle(SANITIZED ? "philly 10k, load 1.2" : "philly 100k, load 1.2", &def, &js);
	dl_jobset_free(&js);

	/* three GPU types (36 each), the other ways through a round */
	simrun_philly(&js, 1, SANITIZED ? 1000 : 5000, 1.2, 108);
	struct run_opts compat = {"36:36:36", "max-min-fairness", 1, 0, NULL, NULL, NULL, 0};
	same_as_oracle("compat gavel, agnostic, 3 types", &compat, &js);
	struct run_opts wc = {"36:36:36", NULL, 0, 1, NULL, NULL, NULL, 0};
	same_as_oracle("work-conserving, 3 types", &wc, &js);
	struct run_opts types3 = {"36:36:36", NULL, 0, 0, NULL, NULL, NULL, 0};
	same_as_oracle("3 types", &types3, &js);
	struct run_opts resets = {"36:36:36", "max-min-fairness", 0, 0, "120", "250", NULL, 0};
	same_as_oracle("3 types, a reset every few rounds", &resets, &js);
	dl_jobset_free(&js);

	/*
	 * New ties at a reset. A block's members keep their order through a
	 * reset, as all get the same addend, except where two deficits that
	 * differ only by rounding (the same time received, summed in another
	 * order) round to one value with it: the later job must then go back
	 * behind the earlier. Short rounds and a reset every other round, on a
	 * queue that grows fast, make such ties where a round's cut falls
	 * between the two (this trace and configuration do; most do not).
	 */
	simrun_philly(&js, 1, 2000, 4, 108);
	struct run_opts ties = {"36:36:36", "max-throughput", 0, 0, "20", "30", NULL, 0};
	same_as_oracle("new ties at a reset: max-throughput, load 4, 3 types", &ties, &js);
	dl_jobset_free(&js);

	/* policies whose solves cost every job (a class per job; not warm): fewer jobs */
	simrun_philly(&js, 2, SANITIZED ? 200 : 600, 1.2, 108);
	struct run_opts ftf = {"36:36:36", "finish-time-fairness", 0, 0, NULL, NULL, NULL, 0};
	same_as_oracle("finish-time fairness, 3 types", &ftf, &js);
	struct run_opts fifo = {"36:36:36", "fifo-perf", 0, 0, NULL, NULL, NULL, 0};
	same_as_oracle("fifo-perf, 3 types", &fifo, &js);
	dl_jobset_free(&js);

	/*
	 * Gavel's own traces (models, with pair throughputs): packed rounds,
	 * in which a job keeps running only with the same partner too
	 */
	struct dl_tputs tp = DL_TPUTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	ok(dl_tputs_load(&tp, "testdata/allocate/gavel_throughputs.csv.gz", DL_IN_AUTO, &err) == 0,
	   "the throughputs table loads");
	struct dl_gen_opts o = {0};
	o.seed = 2;
	o.jobs = SANITIZED ? 200 : 600;
	o.rate_per_hour = 10;
	o.mix_gpus = dl_gen_default_mix_gpus;
	o.mix_w = dl_gen_default_mix_w;
	o.nmix = 4;
	o.dist = DL_DUR_GAVEL;
	o.tputs = &tp;
	o.net_share = -1;
	dl_jobset_init(&js);
	ok(dl_gen(&js, &o, &err) == 0, "a Gavel trace is generated");
	struct run_opts pack = {"36:36:36", NULL, 0, 0, NULL, NULL, &tp, 1};
	same_as_oracle("packed, Gavel's trace, 3 types", &pack, &js);
	struct run_opts mtpack = {"36:36:36", "max-throughput", 0, 0, NULL, NULL, &tp, 1};
	same_as_oracle("packed max-throughput, Gavel's trace, 3 types", &mtpack, &js);
	dl_jobset_free(&js);
	dl_tputs_free(&tp);
	return done_testing();
}
