/*
 * themis_auction.c: a bench tool (not installed). Runs one simulation under
 * themis, as `dlsched simulate --policy themis` does (results written to
 * /dev/null), and reports how much of the run's wall time went into the
 * auctions (the policy's own clock around each one).
 *
 *   themis_auction --cluster SPEC [--fairness-knob F] [--lease S] TRACE
 *
 * Prints one line of key=value pairs (total_s, auction_s, share, auctions,
 * rounds, mip, greedy, renewed, lost, won) for tests/bench/b_themis.sh.
 * Exit 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/netcost.h"
#include "sim/policies.h"
#include "sim/sim.h"
#include "sim/themis.h"
#include "table/table.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what, const struct dl_err *err)
{
	fprintf(stderr, "themis_auction: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
	return 1;
}

int main(int argc, char **argv)
{
	const char *spec = NULL, *path = NULL;
	struct dl_themis_params tp = {600, 0.2, 0, 64, 0, NULL};
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--cluster") && a + 1 < argc)
			spec = argv[++a];
		else if (!strcmp(argv[a], "--fairness-knob") && a + 1 < argc)
			tp.knob = strtod(argv[++a], NULL);
		else if (!strcmp(argv[a], "--lease") && a + 1 < argc)
			tp.lease = strtod(argv[++a], NULL);
		else if (argv[a][0] != '-' && !path)
			path = argv[a];
		else
			return fail("usage: themis_auction --cluster SPEC [--fairness-knob F] "
				    "[--lease S] TRACE",
				    NULL);
	}
	if (!spec || !path)
		return fail("--cluster and a trace are required", NULL);
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, &err) < 0)
		return fail("cluster", &err);
	struct dl_sim_trace trace;
	dl_sim_trace_init(&trace);
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, &err);
	if (!r || dl_sim_trace_read(&trace, r, &err) < 0) {
		if (r)
			dl_reader_close(r);
		dl_cluster_free(cl);
		return fail("trace", &err);
	}
	dl_reader_close(r);
	struct dl_net_models models;
	dl_net_models_init(&models);
	FILE *null = fopen("/dev/null", "w");
	struct dl_writer *w = dl_writer_new(null, DL_OUT_CSV);
	struct dl_themis_stats ts = {0};
	tp.stats = &ts;
	struct dl_sim_config cfg = {0};
	cfg.cluster = cl;
	cfg.trace = &trace;
	cfg.policy = &dl_sim_themis;
	cfg.params = &tp;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	cfg.place.policy = DL_PLACE_CONSOLIDATE;
	cfg.place.seed = 1; /* simulate's default --seed */
	cfg.models = &models;
	cfg.comm = DL_COMM_RING;
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	cfg.results = w;
	struct dl_sim_stats st;
	double t0 = now();
	int rc = dl_sim_run(&cfg, &st, &err);
	double total = now() - t0;
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(null);
	dl_net_models_free(&models);
	dl_sim_trace_free(&trace);
	dl_cluster_free(cl);
	if (rc < 0)
		return fail("simulate", &err);
	printf("total_s=%.4f auction_s=%.4f share=%.3f auctions=%zu rounds=%zu mip=%zu "
	       "greedy=%zu renewed=%zu lost=%zu won=%zu completed=%zu\n",
	       total, ts.seconds, total > 0 ? ts.seconds / total : 0, ts.auctions, ts.rounds,
	       ts.mip, ts.greedy, ts.renewed, ts.lost, ts.won, st.completed);
	return 0;
}
