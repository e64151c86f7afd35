/* place.c: place a queue of jobs on a cluster, one placement row per job */
#include "cmd.h"
#include "policy/place_io.h"

struct place_args {
	const char *cluster, *used, *profiles;
	struct dl_place_opts po;
	int comm; /* enum dl_comm */
	double now;
	struct dl_congestion congestion;
};

static const char *const comm_names[] = {"ring", "ps", NULL}; /* enum dl_comm */

#define AT(f) DL_OPT_AT(struct place_args, f)
static const struct dl_opt place_opts[] = {
	{DL_OPT_FILE, 'c', "cluster", "SPEC",
	 "the cluster (shorthand, JSON, Tiresias CSV, Gavel V:P:K, PAI table)", AT(cluster)},
	{DL_OPT_FILE, 'u', "used", "FILE",
	 "GPUs already in use: a table with 'placement' or 'node' [+ 'gpus']", AT(used)},
	{DL_OPT_FILE, 'p', "profiles", "FILE",
	 "model profiles (from dlsched profile) for the network cost", AT(profiles)},
	{DL_OPT_CHOICE, 'P', "policy", "NAME", "placement policy", AT(po.policy),
	 .value_at = dl_place_policy_at, .def = "consolidate"},
	{DL_OPT_UINT64, 's', "seed", "N", "seed of the random policy", AT(po.seed), .def = "1"},
	{DL_OPT_CHOICE, 0, "comm", "MODE", "communication pattern", AT(comm), .values = comm_names,
	 .def = "ring"},
	{DL_OPT_CALLBACK, 0, "congestion", "TIER=DIV,...",
	 "divide the bandwidth of congested tiers (rack=2,cluster=4)", AT(congestion),
	 .fn = dl_congestion_opt, .expect = DL_CONGESTION_EXPECT, .def_doc = "the spec's (none)"},
	{DL_OPT_SECONDS, 0, "now", "TIME", "the current time: a job's wait is TIME - submit",
	 AT(now)},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec place_spec = {
	.usage = "dlsched place --cluster SPEC [options] [JOBS]",
	.description =
		"Read jobs (in priority order, e.g. from 'dlsched prioritize') and place each\n"
		"on the cluster under --policy, writing one placements row per job: id, gpus,\n"
		"gpu_type, nodes, racks, tier, slowdown, placement, decision (placed, wait or\n"
		"reject) and reason. Placed jobs keep their GPUs for the rest of the queue.",
	.opts = place_opts,
};

/* the GPUs already in use (--used) */
static int load_used(const struct dl_ctx *ctx, const char *path, struct dl_cluster_state *st)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_in_open(ctx, path);
	if (!r)
		return DL_EXIT_DATA;
	int rc = dl_place_read_used(r, st, &err) < 0 ? dl_fail(ctx, &err) : 0;
	dl_reader_close(r);
	return rc;
}

static void warn_cb(void *arg, const char *msg)
{
	dl_warn(arg, "%s", msg);
}

DL_COMMAND(place, "place jobs on a cluster topology and cost the placement")
{
	struct dl_optstate st;
	struct place_args a = {.po = DL_PLACE_OPTS_INIT};
	/* Dally's timers: the option group simulate --policy dally shares (policy/dally.h) */
	const struct dl_opt_group dally = {dl_dally_opt_table, &a.po.dally, DL_DALLY_OPT_TITLE};
	if (dl_opt_parse_groups(&st, ctx, argc, argv, &place_spec, &a, &dally, 1))
		return st.exit_code;

	if (!a.cluster)
		return dl_usage_error(ctx, "--cluster SPEC is required");
	if (argc - st.optind > 1)
		return dl_usage_error(ctx, "at most one jobs file");
	const char *jobs = st.optind < argc ? argv[st.optind] : "-";
	const char *cluster = a.cluster, *used = a.used, *profiles = a.profiles;
	struct dl_place_opts po = a.po;
	enum dl_comm comm = (enum dl_comm)a.comm;

	struct dl_cluster *c = NULL;
	struct dl_net_models models;
	struct dl_netcost nc;
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	dl_net_models_init(&models);
	if (dl_cluster_load(cluster, &c, &err) < 0) {
		dl_net_models_free(&models);
		return dl_fail(ctx, &err);
	}
	dl_cluster_congest(c, &a.congestion);
	if (profiles && dl_net_models_read(&models, profiles, ctx->in_format, &err) < 0)
		rc = dl_fail(ctx, &err);
	struct dl_cluster_state *cs = dl_state_new(c);
	if (!rc && used)
		rc = load_used(ctx, used, cs);
	dl_netcost_init(&nc, c, comm);
	struct dl_placer *placer = dl_placer_new(cs, &po);
	struct dl_reader *r = NULL;
	if (!rc) {
		r = dl_in_open(ctx, jobs);
		if (!r)
			rc = DL_EXIT_DATA;
	}
	struct dl_table_out out = {0};
	if (!rc && !(rc = dl_table_out_open(ctx, ctx->output, ctx->format, &out))) {
		const struct dl_place_stream ps = {
			.placer = placer,
			.c = c,
			.models = &models,
			.nc = &nc,
			.now = a.now,
			.have_now = dl_opt_given(&st, "now") > 0,
			.warn = warn_cb,
			.warn_arg = (void *)ctx,
		};
		if (dl_place_stream(&ps, r, out.w, &err) < 0)
			rc = dl_fail(ctx, &err);
		rc = dl_table_out_close(ctx, &out, 1, rc);
	}
	dl_reader_close(r);
	dl_placer_free(placer);
	dl_state_free(cs);
	dl_net_models_free(&models);
	dl_cluster_free(c);
	return rc;
}
