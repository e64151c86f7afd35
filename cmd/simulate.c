/* simulate.c: replay a jobs trace on a cluster under a scheduling policy */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cluster/netcost.h"
#include "policy/gittins.h"
#include "policy/mlfq.h"
#include "policy/place.h"
#include "sim/sim.h"
#include "sim/tiresias.h"
#include "trace/jobs.h"

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
	O_ANY_TYPE,
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
	 "tiresias-gittins: GPU-time samples (column duration); default: the trace"},
	{O_DELTA, "delta", "S", "tiresias-gittins: service quantum in GPU-seconds (default 3250)"},
	{O_QUANTUM, "quantum", "S", "las: re-evaluate priorities every S seconds (default 300)"},
	{O_CKPT, "checkpoint-cost", "S",
	 "seconds a preempted job saves, holding its GPUs (default 5)"},
	{O_RESTORE, "restore-cost", "S",
	 "seconds a resumed job runs without progress (default 10)"},
	{O_PROFILES, "profiles", "FILE", "model profiles (from profile) for placement slowdown"},
	{O_ANY_TYPE, "any-type", NULL, "ignore the trace's gpu_type column: jobs run on any type"},
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
	int set_ckpt, set_restore, set_queues, set_delta, set_quantum, any_type, set_seed;
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
		return dl_usage_error(ctx,
				      "--compat tiresias needs --policy (a Tiresias schedule)");
	o.schedule = a->policy;
	o.scheme = a->place ? a->place : "yarn";
	if (dl_tiresias_check_schedule(o.schedule, &needs_gittins, &err) < 0)
		return dl_usage_error(ctx, "%s", err.msg);
	if (strcmp(o.scheme, "count") && strcmp(o.scheme, "yarn"))
		return dl_usage_error(ctx, "unknown Tiresias scheme '%s' (count, yarn)", o.scheme);
	if (a->events)
		return dl_usage_error(ctx, "--events is not available with --compat tiresias");
	if (a->set_queues || a->thresholds || a->starvation > 0 || a->set_quantum || a->set_ckpt ||
	    a->set_restore || a->profiles || a->any_type || a->set_seed)
		return dl_usage_error(ctx,
				      "with --compat tiresias the schedule name sets the "
				      "policy; only --cluster, --place, --distribution, --delta "
				      "and --timeline apply");
	if (a->set_delta && !(a->delta > 0))
		return dl_usage_error(ctx, "--delta must be > 0");
	if (needs_gittins && !a->distribution)
		return dl_usage_error(ctx,
				      "--policy %s needs --distribution (the reference reads "
				      "yarn-gput1000.csv)",
				      a->policy);
	dl_tiresias_spec_default(&spec);
	if (a->cluster && dl_tiresias_spec_load(a->cluster, &spec, &err) < 0)
		return dl_fail(ctx, &err);
	if (ctx->dry_run)
		return 0;
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
		dl_warn(ctx,
			"%zu of %zu jobs never finished (the reference stops when the cluster "
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

static void progress_cb(void *arg, size_t done, size_t total)
{
	const struct dl_ctx *ctx = arg;
	fprintf(stderr, "\rdlsched %s: %3d%% (%zu/%zu jobs)%s", ctx->cmdname,
		total ? (int)(100.0 * (double)done / (double)total) : 100, done, total,
		done == total ? "\n" : "");
}

static int is_mlfq(const struct dl_sim_policy_ops *p)
{
	return !strncmp(p->name, "tiresias-", 9);
}

static int run_native(struct dl_ctx *ctx, const struct sim_args *a)
{
	struct dl_err err = DL_ERR_INIT;
	const char *pname = a->policy ? a->policy : "tiresias-las";
	const struct dl_sim_policy_ops *pol = dl_sim_policy_find(pname);
	if (!pol)
		return dl_usage_error(ctx,
				      "unknown --policy '%s' (fifo, fifo-backfill, sjf, srtf, "
				      "las, tiresias-las, tiresias-gittins)",
				      pname);
	if (!a->cluster)
		return dl_usage_error(ctx, "--cluster is required");
	if (!is_mlfq(pol) && (a->thresholds || a->set_queues || a->starvation > 0))
		return dl_usage_error(ctx, "--queues, --thresholds and --starvation apply to "
					   "tiresias-las and tiresias-gittins");
	if (strcmp(pname, "tiresias-gittins") && (a->distribution || a->set_delta))
		return dl_usage_error(ctx, "--distribution and --delta apply to tiresias-gittins");
	if (strcmp(pname, "las") && a->set_quantum)
		return dl_usage_error(ctx, "--quantum applies to las");
	if (a->set_delta && !(a->delta > 0))
		return dl_usage_error(ctx, "--delta must be > 0");
	struct dl_sim_config cfg = {0};
	cfg.policy = pol;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	cfg.place.policy = DL_PLACE_CONSOLIDATE;
	cfg.place.seed = a->seed;
	if (a->place && dl_place_policy_parse(a->place, &cfg.place.policy) < 0)
		return dl_usage_error(ctx,
				      "unknown --place '%s' (first-fit, consolidate, spread, "
				      "random, tiresias, gandiva, dally)",
				      a->place);
	cfg.any_type = a->any_type;
	cfg.checkpoint_cost = a->ckpt;
	cfg.restore_cost = a->restore;
	cfg.params.quantum = a->quantum;
	cfg.comm = DL_COMM_RING;

	struct dl_mlfq mlfq = {0};
	double *limits = NULL;
	size_t nlimits = 0;
	int have_mlfq = 0;
	if (is_mlfq(pol)) {
		size_t k = (size_t)a->queues;
		if (a->thresholds) {
			if (dl_mlfq_parse_limits(a->thresholds, "--thresholds", &limits, &nlimits,
						 &err) < 0)
				return dl_usage_error(ctx, "%s", err.msg);
			if (!a->set_queues)
				k = nlimits + 1;
		} else {
			if (k > DL_MLFQ_TIRESIAS_QUEUES) {
				return dl_usage_error(
					ctx, "--queues %zu needs --thresholds (%zu limits)", k,
					k - 1);
			}
			nlimits = k - 1;
			limits = xcalloc(k, sizeof(*limits));
			memcpy(limits, dl_mlfq_tiresias_limits, nlimits * sizeof(*limits));
		}
		if (dl_mlfq_init(&mlfq, k, limits, nlimits, a->starvation, &err) < 0) {
			free(limits);
			return dl_usage_error(ctx, "%s", err.msg);
		}
		free(limits);
		have_mlfq = 1;
		cfg.params.mlfq = &mlfq;
	}

	int rc = 0;
	struct dl_cluster *cl = NULL;
	struct dl_sim_trace trace;
	struct dl_net_models models;
	struct dl_gittins *g = NULL;
	struct dl_output *out = NULL, *ev = NULL, *tl = NULL;
	struct dl_writer *w = NULL, *ew = NULL, *tw = NULL;
	dl_sim_trace_init(&trace);
	dl_net_models_init(&models);
	if (dl_cluster_load(a->cluster, &cl, &err) < 0) {
		rc = dl_fail(ctx, &err);
		goto done;
	}
	if (ctx->dry_run)
		goto done;
	if (a->profiles && dl_net_models_read(&models, a->profiles, DL_IN_AUTO, &err) < 0) {
		rc = dl_fail(ctx, &err);
		goto done;
	}
	cfg.models = &models;
	struct dl_reader *r = dl_in_open(ctx, a->trace);
	if (!r) {
		rc = DL_EXIT_DATA;
		goto done;
	}
	int got = dl_sim_trace_read(&trace, r, &err);
	dl_reader_close(r);
	if (got < 0) {
		rc = dl_fail(ctx, &err);
		goto done;
	}
	if (!strcmp(pname, "tiresias-gittins")) {
		if (a->distribution) {
			g = dl_gittins_load(a->distribution, NULL, a->delta, DL_GITTINS_EXACT,
					    &err);
		} else {
			/* learned from the trace: every job's GPU-seconds */
			double *v = xcalloc(trace.n ? trace.n : 1, sizeof(*v));
			for (size_t i = 0; i < trace.n; i++)
				v[i] = (double)trace.jobs[i].work / DL_TICKS_PER_SECOND *
				       (double)trace.jobs[i].gpus;
			g = dl_gittins_new(v, trace.n, a->delta, DL_GITTINS_EXACT, &err);
			free(v);
		}
		if (!g) {
			rc = dl_fail(ctx, &err);
			goto done;
		}
		cfg.params.gittins = g;
	}
	cfg.cluster = cl;
	cfg.trace = &trace;
	out = dl_out_open(ctx, ctx->output);
	if (!out) {
		rc = DL_EXIT_DATA;
		goto done;
	}
	w = dl_out_writer(ctx, out);
	cfg.results = w;
	if (a->events) {
		if (!(ev = dl_out_open(ctx, a->events))) {
			rc = DL_EXIT_DATA;
			goto done;
		}
		ew = dl_writer_new(dl_output_fp(ev), DL_OUT_JSON);
		cfg.events = ew;
	}
	if (a->timeline) {
		if (!(tl = dl_out_open(ctx, a->timeline))) {
			rc = DL_EXIT_DATA;
			goto done;
		}
		tw = dl_writer_new(dl_output_fp(tl), ctx->format);
		cfg.timeline = tw;
	}
	if (ctx->stderr_is_tty && !ctx->quiet) {
		cfg.progress = progress_cb;
		cfg.progress_arg = ctx;
	}
	struct dl_sim_stats st;
	if (dl_sim_run(&cfg, &st, &err) < 0) {
		rc = dl_fail(ctx, &err);
		goto done;
	}
	dl_writer_finish(w);
	if (ew)
		dl_writer_finish(ew);
	if (tw)
		dl_writer_finish(tw);
	if (st.rejected)
		dl_warn(ctx, "%zu of %zu jobs can never run and were left out (first: '%s': %s)",
			st.rejected, st.jobs, st.first_rejected, st.reject_reason);
	dl_info(ctx, "%zu jobs completed, %zu events, %zu passes, makespan %g s", st.completed,
		st.events, st.passes, st.makespan);
done:
	if (w)
		dl_writer_free(w);
	if (ew)
		dl_writer_free(ew);
	if (tw)
		dl_writer_free(tw);
	if (tl)
		rc = dl_out_close(ctx, tl, rc);
	if (ev)
		rc = dl_out_close(ctx, ev, rc);
	if (out)
		rc = dl_out_close(ctx, out, rc);
	dl_gittins_free(g);
	dl_sim_trace_free(&trace);
	dl_net_models_free(&models);
	dl_cluster_free(cl);
	if (have_mlfq)
		dl_mlfq_release(&mlfq);
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
			a.set_seed = 1;
			break;
		case O_QUEUES:
			bad = dl_opt_int(ctx, "queues", arg, 1, 64, &a.queues);
			a.set_queues = 1;
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
			a.set_delta = 1;
			break;
		case O_QUANTUM:
			bad = dl_opt_nonneg(ctx, "quantum", arg, &a.quantum);
			a.set_quantum = 1;
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
		case O_ANY_TYPE:
			a.any_type = 1;
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
	if (a.place && !strcmp(a.place, "count"))
		return dl_usage_error(ctx, "--place count is a --compat tiresias scheme");
	return run_native(ctx, &a);
}
