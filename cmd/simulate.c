/* simulate.c: replay a jobs trace on a cluster under a scheduling policy */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "policy/gittins.h"
#include "sim/tiresias.h"

enum {
	O_CLUSTER = DL_OPT_FIRST_FREE,
	O_POLICY,
	O_PLACE,
	O_COMPAT,
	O_EVENTS,
	O_TIMELINE,
	O_SEED,
	O_QUEUES,
	O_THRESHOLDS,
	O_STARVATION,
	O_DISTRIBUTION,
	O_DELTA,
	O_QUANTUM,
	O_CKPT,
	O_RESTORE,
	O_PROFILES,
};

static const struct dl_opt sim_opts[] = {
	{O_CLUSTER, "cluster", "SPEC", "the cluster: RACKSxNODESxGPUS[:TYPE],... or a spec file"},
	{O_POLICY, "policy", "P",
	 "fifo, fifo-backfill, sjf, srtf, las, tiresias-las (default), tiresias-gittins"},
	{O_PLACE, "place", "Q", "placement policy (default consolidate; compat: count or yarn)"},
	{O_COMPAT, "compat", "SIM", "behave like a reference simulator: tiresias"},
	{O_EVENTS, "events", "FILE", "write every job state change to FILE (JSON Lines)"},
	{O_TIMELINE, "timeline", "FILE", "write busy GPUs, running and pending jobs over time"},
	{O_SEED, "seed", "N", "seed for randomised placement (default 1)"},
	{O_QUEUES, "queues", "K", "tiresias-*: number of priority queues (default 3)"},
	{O_THRESHOLDS, "thresholds", "LIST",
	 "tiresias-*: K-1 queue limits in GPU-seconds (default 3250,7200)"},
	{O_STARVATION, "starvation", "N",
	 "tiresias-*: promote to Q0 after waiting N times the run time (default 0: off)"},
	{O_DISTRIBUTION, "distribution", "FILE",
	 "tiresias-gittins: job GPU-time samples (column duration); default: the trace"},
	{O_DELTA, "delta", "S", "tiresias-gittins: service quantum in GPU-seconds (default 3250)"},
	{O_QUANTUM, "quantum", "S", "las: re-evaluate priorities every S seconds (default 300)"},
	{O_CKPT, "checkpoint-cost", "S", "seconds a preempted job holds its GPUs (default 5)"},
	{O_RESTORE, "restore-cost", "S", "seconds a resumed job runs without progress (default 10)"},
	{O_PROFILES, "profiles", "FILE", "model profiles (from profile) for placement slowdown"},
	{0, NULL, NULL, NULL},
};

static const struct dl_cmd_spec sim_spec = {
	.usage = "dlsched simulate --cluster SPEC [--policy P] [--place Q] [options] [TRACE]\n"
		 "dlsched simulate --compat tiresias [--cluster SPEC.csv] --policy SCHEDULE "
		 "[--place count|yarn] TRACE",
	.description =
		"Replay a jobs stream (CSV or JSON Lines; '-' or nothing is standard input) on\n"
		"a cluster under a scheduling policy, with an exact discrete-event engine, and\n"
		"write one results row per job. With --compat tiresias, read the reference\n"
		"Tiresias simulator's trace and cluster_spec formats and write its job.csv.",
	.opts = sim_opts,
};

struct sim_args {
	const char *cluster, *policy, *place, *compat, *events, *timeline, *distribution;
	const char *thresholds, *profiles;
	const char *trace;
	uint64_t seed;
	long long queues;
	double starvation, delta, quantum, ckpt, restore;
	int set_ckpt, set_restore;
};

static double gittins_cb(const void *arg, double attained)
{
	return dl_gittins_index(arg, attained);
}

static int run_compat(struct dl_ctx *ctx, const struct sim_args *a)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_tiresias_spec spec;
	struct dl_tiresias_opts o = {0};
	int needs_gittins = 0;
	if (strcmp(a->compat, "tiresias"))
		return dl_usage_error(ctx, "unknown --compat value '%s' (tiresias)", a->compat);
	if (!a->policy)
		return dl_usage_error(ctx, "--compat tiresias needs --policy (a Tiresias schedule)");
	o.schedule = a->policy;
	o.scheme = a->place ? a->place : "yarn";
	if (dl_tiresias_check_schedule(o.schedule, &needs_gittins, &err) < 0)
		return dl_usage_error(ctx, "%s", err.msg);
	if (strcmp(o.scheme, "count") && strcmp(o.scheme, "yarn"))
		return dl_usage_error(ctx, "unknown Tiresias scheme '%s' (count, yarn)", o.scheme);
	if (a->events)
		return dl_usage_error(ctx, "--events is not available with --compat tiresias");
	if (needs_gittins && !a->distribution)
		return dl_usage_error(ctx, "--policy %s needs --distribution (the reference reads "
					   "yarn-gput1000.csv)",
				      a->policy);
	dl_tiresias_spec_default(&spec);
	if (a->cluster && dl_tiresias_spec_load(a->cluster, &spec, &err) < 0)
		return dl_fail(ctx, &err);
	struct dl_gittins *g = NULL;
	if (needs_gittins) {
		g = dl_gittins_load(a->distribution, NULL, a->delta, DL_GITTINS_TIRESIAS, &err);
		if (!g)
			return dl_fail(ctx, &err);
		o.gittins_index = gittins_cb;
		o.gittins_arg = g;
	}
	struct dl_tiresias_trace *t = dl_tiresias_trace_load(a->trace, ctx->in_format, &err);
	if (!t) {
		dl_gittins_free(g);
		return dl_fail(ctx, &err);
	}

	int rc = 0;
	struct dl_output *out = dl_out_open(ctx, ctx->output);
	struct dl_output *tl = NULL;
	struct dl_writer *w = NULL, *tw = NULL;
	if (!out) {
		rc = DL_EXIT_DATA;
		goto done;
	}
	if (a->timeline) {
		tl = dl_out_open(ctx, a->timeline);
		if (!tl) {
			rc = DL_EXIT_DATA;
			goto done;
		}
		tw = dl_writer_new(dl_output_fp(tl), ctx->format);
	}
	w = dl_out_writer(ctx, out);
	struct dl_tiresias_stats st;
	if (dl_tiresias_run(t, &spec, &o, w, tw, &st, &err) < 0) {
		rc = dl_fail(ctx, &err);
		goto done;
	}
	dl_writer_finish(w);
	if (tw)
		dl_writer_finish(tw);
	if (st.unfinished)
		dl_warn(ctx, "%zu of %zu jobs never finished (the reference stops when the cluster "
			     "cannot run them)",
			st.unfinished, dl_tiresias_trace_njobs(t));
	dl_info(ctx, "%zu jobs completed, %zu events", st.completed, st.events);
done:
	if (w)
		dl_writer_free(w);
	if (tw)
		dl_writer_free(tw);
	if (tl)
		rc = dl_out_close(ctx, tl, rc);
	if (out)
		rc = dl_out_close(ctx, out, rc);
	dl_tiresias_trace_free(t);
	dl_gittins_free(g);
	return rc;
}

DL_COMMAND(simulate, "replay a trace on a cluster under a scheduling policy")
{
	struct dl_optstate st;
	struct sim_args a = {0};
	const char *arg;
	int c;
	a.seed = 1;
	a.queues = 3;
	a.delta = 3250;
	a.quantum = 300;
	a.ckpt = 5;
	a.restore = 10;
	dl_opt_begin(&st, ctx, argc, argv, &sim_spec);
	while ((c = dl_opt_next(&st, &arg)) > 0) {
		int bad = 0;
		switch (c) {
		case O_CLUSTER:
			a.cluster = arg;
			break;
		case O_POLICY:
			a.policy = arg;
			break;
		case O_PLACE:
			a.place = arg;
			break;
		case O_COMPAT:
			a.compat = arg;
			break;
		case O_EVENTS:
			a.events = arg;
			break;
		case O_TIMELINE:
			a.timeline = arg;
			break;
		case O_SEED:
			bad = dl_opt_uint64(ctx, "seed", arg, &a.seed);
			break;
		case O_QUEUES:
			bad = dl_opt_int(ctx, "queues", arg, 1, 64, &a.queues);
			break;
		case O_THRESHOLDS:
			a.thresholds = arg;
			break;
		case O_STARVATION:
			bad = dl_opt_nonneg(ctx, "starvation", arg, &a.starvation);
			break;
		case O_DISTRIBUTION:
			a.distribution = arg;
			break;
		case O_DELTA:
			bad = dl_opt_nonneg(ctx, "delta", arg, &a.delta);
			break;
		case O_QUANTUM:
			bad = dl_opt_nonneg(ctx, "quantum", arg, &a.quantum);
			break;
		case O_CKPT:
			bad = dl_opt_nonneg(ctx, "checkpoint-cost", arg, &a.ckpt);
			a.set_ckpt = 1;
			break;
		case O_RESTORE:
			bad = dl_opt_nonneg(ctx, "restore-cost", arg, &a.restore);
			a.set_restore = 1;
			break;
		case O_PROFILES:
			a.profiles = arg;
			break;
		}
		if (bad) {
			dl_opt_end(&st);
			return DL_EXIT_USAGE;
		}
	}
	dl_opt_end(&st);
	if (c == DL_OPT_EXIT)
		return st.exit_code;
	if (argc - st.optind > 1)
		return dl_usage_error(ctx, "one trace at most (got %d)", argc - st.optind);
	a.trace = st.optind < argc ? argv[st.optind] : "-";
	if (a.compat)
		return run_compat(ctx, &a);
	return dl_usage_error(ctx, "native policies are not built yet");
}
