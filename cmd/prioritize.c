/* prioritize.c: order a job queue by a priority policy (work in lib/policy/priority*) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "policy/priority_io.h"

struct prio_args {
	int policy;			  /* enum dl_policy */
	struct dl_mlfq_params mlfq;	  /* the MLFQ options (lib/policy/mlfq.h) */
	struct dl_gittins_params gittins; /* the Gittins options (lib/policy/gittins.h) */
	int weights;
	double now;
	int has_now;
	double cluster_gpus;
};

#define AT(f) DL_OPT_AT(struct prio_args, f)
static const struct dl_opt prioritize_opts[] = {
	{DL_OPT_CHOICE, 'p', "policy", "POLICY", "priority policy (required)", AT(policy),
	 .value_at = dl_policy_at},
	{DL_OPT_FLAG, 0, "weights", NULL, "honour the 'weight' column", AT(weights)},
	{DL_OPT_DOUBLE, 0, "now", "TIME", "time of the decision (needed by ftf)", AT(now),
	 .min = -INFINITY, .max = INFINITY},
	{DL_OPT_DOUBLE, 0, "cluster-gpus", "G", "ftf: GPUs shared by the jobs (Themis' 1/n share)",
	 AT(cluster_gpus)},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec prioritize_spec = {
	.usage = "dlsched prioritize --policy POLICY [options] [JOBS]",
	.description =
		"Read jobs with their state (id, submit and the columns the policy needs:\n"
		"duration, executed, attained, waiting, remaining, weight, gpus; see\n"
		"dlsched-formats(5)) and write the same rows with rank, queue and priority,\n"
		"best first. Ties break by submit time, then id.",
	.opts = prioritize_opts,
};

static int run(const struct dl_ctx *ctx, const struct prio_args *a, const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_prio_config cfg = {0};
	struct dl_mlfq mlfq = {0};
	struct dl_gittins *git = NULL;
	int rc;

	if (a->policy == DL_POLICY_FTF && !a->has_now)
		return dl_usage_error(ctx, "--policy ftf needs --now");
	if (a->cluster_gpus > 0 && a->policy != DL_POLICY_FTF)
		return dl_usage_error(ctx, "--cluster-gpus applies to --policy ftf only");
	if (dl_prio_config_from_params(&cfg, (enum dl_policy)a->policy, &a->mlfq, &a->gittins,
				       &mlfq, &git, &err) == 0) {
		cfg.weights = a->weights;
		cfg.now = a->now;
		cfg.has_now = a->has_now;
		cfg.cluster_gpus = a->cluster_gpus;
		dl_prio_check(&cfg, &err);
	}
	if (err.code) {
		rc = err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
					       : dl_fail(ctx, &err);
		goto out;
	}

	struct dl_reader *r = dl_in_open(ctx, path);
	if (!r) {
		rc = DL_EXIT_DATA;
		goto out;
	}
	struct dl_prio_table t;
	if (dl_prio_read(r, &cfg, &t, &err) < 0) {
		dl_reader_close(r);
		rc = dl_fail(ctx, &err);
		goto out;
	}
	dl_reader_close(r);
	size_t *order = dl_prioritize(&cfg, t.jobs, t.n);
	dl_info(ctx, "%zu jobs ordered by %s in %zu queue(s)", t.n, dl_policy_name(cfg.policy),
		mlfq.nqueues);

	struct dl_output *o = dl_out_open(ctx, ctx->output);
	if (!o) {
		free(order);
		dl_prio_table_release(&t);
		rc = DL_EXIT_DATA;
		goto out;
	}
	struct dl_writer *w = dl_out_writer(ctx, o);
	dl_prio_write(&t, order, w);
	free(order);
	dl_writer_free(w);
	dl_prio_table_release(&t);
	rc = dl_out_close(ctx, o, 0);
out:
	dl_gittins_free(git);
	dl_mlfq_release(&mlfq);
	return rc;
}

DL_COMMAND(prioritize, "order a job queue by a priority policy (Tiresias, Themis, SRTF, ...)")
{
	struct dl_optstate st;
	struct prio_args a = {0};
	const struct dl_opt_group groups[] = {
		{dl_gittins_opts, &a.gittins, NULL, 0, NULL},
		{dl_mlfq_opts, &a.mlfq, NULL, 0, NULL},
	};
	if (dl_opt_parse_groups(&st, ctx, argc, argv, &prioritize_spec, &a, groups, 2))
		return st.exit_code;
	a.has_now = dl_opt_given(&st, "now") > 0;
	if (argc - st.optind > 1)
		return dl_usage_error(ctx, "one input at most (got %d)", argc - st.optind);
	if (!dl_opt_given(&st, "policy"))
		return dl_usage_error(ctx, "--policy is required");
	return run(ctx, &a, st.optind < argc ? argv[st.optind] : "-");
}
