/* simulate.c: replay a jobs trace on a cluster under a scheduling policy */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cluster/netcost.h"
#include "policy/gittins.h"
#include "policy/mlfq.h"
#include "policy/place.h"
#include "sim/dally.h"
#include "sim/sim.h"
#include "sim/tiresias.h"
#include "trace/jobs.h"

struct sim_args {
	const char *cluster, *policy, *place, *events, *timeline, *distribution;
	const char *thresholds, *profiles;
	const char *trace;
	int compat; /* given: compat_names[] */
	uint64_t seed;
	int queues;
	double starvation, delta, quantum, ckpt, restore;
	int set_ckpt, set_restore, set_queues, set_delta, set_quantum, any_type, set_seed;
	int set_policy, set_place;
	int provenance;
	struct dl_congestion congestion;
	struct dl_sim_dally dally; /* dally's options (its table: lib/sim/dally.c) */
	int dally_given;	   /* one of them was given */
	int restart_given;	   /* --restart-cost was given */
	char *command;		   /* with --provenance: this command line, else NULL */
};

/* the native engine's policies, from the registry */
static const char *sim_policy_at(size_t i)
{
	size_t n;
	const struct dl_sim_policy_ops *const *all = dl_sim_policies(&n);
	return i < n ? all[i]->name : NULL;
}

static const char *const compat_names[] = {"tiresias", NULL};

#define AT(f) DL_OPT_AT(struct sim_args, f)
static const struct dl_opt sim_opts[] = {
	{DL_OPT_FILE, 'c', "cluster", "SPEC",
	 "the cluster: RACKSxNODESxGPUS[:TYPE],... or a spec file", AT(cluster)},
	/* open: with --compat tiresias they take the reference's names instead */
	{DL_OPT_CHOICE, 0, "policy", "P", "scheduling policy", AT(policy),
	 .value_at = sim_policy_at, .def = "tiresias-las", .flags = DL_OPTF_OPEN},
	{DL_OPT_CHOICE, 0, "place", "Q", "placement policy (compat: count or yarn)", AT(place),
	 .value_at = dl_place_policy_at, .def = "consolidate", .flags = DL_OPTF_OPEN},
	{DL_OPT_CHOICE, 0, "compat", "SIM", "behave like a reference simulator", AT(compat),
	 .values = compat_names},
	{DL_OPT_FILE, 0, "events", "FILE", "write every job state change to FILE (JSON Lines)",
	 AT(events)},
	{DL_OPT_FILE, 0, "timeline", "FILE", "write busy GPUs, running and pending jobs over time",
	 AT(timeline)},
	{DL_OPT_UINT64, 0, "seed", "N", "seed for randomised placement", AT(seed), .def = "1"},
	{DL_OPT_INT, 0, "queues", "K", "tiresias-*: number of priority queues", AT(queues),
	 .imin = 1, .imax = 64, .def = "3"},
	{DL_OPT_NUMLIST, 0, "thresholds", "LIST", "tiresias-*: K-1 queue limits in GPU-seconds",
	 AT(thresholds), .flags = DL_OPTF_GT, .def_doc = "3250,7200"},
	{DL_OPT_DOUBLE, 0, "starvation", "N",
	 "tiresias-*: promote to Q0 after waiting N times the run time (0: off)", AT(starvation),
	 .def = "0"},
	{DL_OPT_FILE, 0, "distribution", "FILE",
	 "tiresias-gittins: GPU-time samples (column duration)", AT(distribution),
	 .def_doc = "the trace"},
	{DL_OPT_DOUBLE, 0, "delta", "S", "tiresias-gittins: service quantum in GPU-seconds",
	 AT(delta), .flags = DL_OPTF_GT, .def = "3250"},
	{DL_OPT_SECONDS, 0, "quantum", "S", "las: re-evaluate priorities every S seconds",
	 AT(quantum), .def = "300"},
	{DL_OPT_SECONDS, 0, "checkpoint-cost", "S",
	 "seconds a preempted job saves, holding its GPUs", AT(ckpt), .def = "5"},
	{DL_OPT_SECONDS, 0, "restore-cost", "S", "seconds a resumed job runs without progress",
	 AT(restore), .def = "10"},
	{DL_OPT_FILE, 0, "profiles", "FILE", "model profiles (from profile) for placement slowdown",
	 AT(profiles)},
	{DL_OPT_CALLBACK, 0, "congestion", "TIER=DIV,...",
	 "divide the bandwidth of congested tiers (rack=2,cluster=4)", AT(congestion),
	 .fn = dl_congestion_opt, .expect = DL_CONGESTION_EXPECT, .def_doc = "the spec's (none)"},
	{DL_OPT_FLAG, 0, "any-type", NULL,
	 "ignore the trace's gpu_type column: jobs run on any type", AT(any_type)},
	{DL_OPT_FLAG, 0, "provenance", NULL,
	 "record this command line and seed (and the trace's) in the first results row",
	 AT(provenance)},
	{DL_OPT_END},
};
#undef AT

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
	if (!a->set_policy)
		return dl_usage_error(ctx,
				      "--compat tiresias needs --policy (a Tiresias schedule)");
	o.schedule = a->policy;
	o.scheme = a->set_place ? a->place : "yarn";
	if (dl_tiresias_check_schedule(o.schedule, &needs_gittins, &err) < 0)
		return dl_usage_error(ctx, "%s", err.msg);
	if (strcmp(o.scheme, "count") && strcmp(o.scheme, "yarn"))
		return dl_usage_error(ctx, "unknown Tiresias scheme '%s' (count, yarn)", o.scheme);
	if (a->events)
		return dl_usage_error(ctx, "--events is not available with --compat tiresias");
	if (a->set_queues || a->thresholds || a->starvation > 0 || a->set_quantum || a->set_ckpt ||
	    a->set_restore || a->profiles || a->any_type || a->set_seed || a->provenance ||
	    a->congestion.div[DL_TIER_NODE] > 0 || a->congestion.div[DL_TIER_RACK] > 0 ||
	    a->congestion.div[DL_TIER_CLUSTER] > 0 || a->dally_given)
		return dl_usage_error(ctx,
				      "with --compat tiresias the schedule name sets the "
				      "policy; only --cluster, --place, --distribution, --delta "
				      "and --timeline apply");
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

/*
 * --provenance: this command and its seed, and the trace's own made_by and
 * seed (of its first row with a made_by, when it has one), on the first
 * results row (dlsched-formats(5), PROVENANCE)
 */
static void stamp_provenance(struct dl_writer *w, const struct sim_args *a,
			     const struct dl_sim_trace *trace)
{
	char seed[32];
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)a->seed);
	dl_writer_stamp(w, DL_COL_MADE_BY, a->command);
	dl_writer_stamp(w, DL_COL_SEED, seed);
	dl_writer_stamp(w, "trace_" DL_COL_MADE_BY, trace->made_by ? trace->made_by : "");
	dl_writer_stamp(w, "trace_" DL_COL_SEED, trace->seed ? trace->seed : "");
}

static int run_native(struct dl_ctx *ctx, const struct sim_args *a)
{
	struct dl_err err = DL_ERR_INIT;
	const char *pname = a->policy;
	const struct dl_sim_policy_ops *pol = dl_sim_policy_find(pname);
	if (!a->cluster)
		return dl_usage_error(ctx, "--cluster is required");
	if (!is_mlfq(pol) && (a->thresholds || a->set_queues || a->starvation > 0))
		return dl_usage_error(ctx, "--queues, --thresholds and --starvation apply to "
					   "tiresias-las and tiresias-gittins");
	if (strcmp(pname, "tiresias-gittins") && (a->distribution || a->set_delta))
		return dl_usage_error(ctx, "--distribution and --delta apply to tiresias-gittins");
	if (strcmp(pname, "las") && a->set_quantum)
		return dl_usage_error(ctx, "--quantum applies to las");
	struct dl_sim_config cfg = {0};
	cfg.policy = pol;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	cfg.place.policy = DL_PLACE_CONSOLIDATE;
	cfg.place.seed = a->seed;
	dl_place_policy_parse(a->place, &cfg.place.policy); /* checked after parsing */
	/* dally places jobs itself, with its own timers (lib/sim/dally.h) */
	int is_dally = pol == &dl_sim_dally_ops;
	if (is_dally && a->set_place && cfg.place.policy != DL_PLACE_DALLY)
		return dl_usage_error(ctx, "--policy dally places jobs itself (--place dally)");
	if (a->dally_given && !is_dally && (cfg.place.policy != DL_PLACE_DALLY || a->restart_given))
		return dl_usage_error(ctx,
				      "--lease, --rack-delay, --network-delay, --history and "
				      "--restart-cost apply to --policy dally (the timers also "
				      "to --place dally)");
	cfg.place.dally = a->dally.timers;
	cfg.params.policy = &a->dally;
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
	dl_cluster_congest(cl, &a->congestion);
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
		} else if (trace.n) {
			/* learned from the trace: every job's GPU-seconds */
			double *v = xcalloc(trace.n ? trace.n : 1, sizeof(*v));
			for (size_t i = 0; i < trace.n; i++)
				v[i] = (double)trace.jobs[i].work / DL_TICKS_PER_SECOND *
				       (double)trace.jobs[i].gpus;
			g = dl_gittins_new(v, trace.n, a->delta, DL_GITTINS_EXACT, &err);
			free(v);
		}
		if (!g && (a->distribution || trace.n)) {
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
	if (a->command)
		stamp_provenance(w, a, &trace);
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
		dl_warn(ctx,
			"%zu of %zu jobs can never run: their rows say why in column 'rejected' "
			"(first: '%s': %s)",
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
	const struct dl_opt_group dally = {dl_sim_dally_opts, &a.dally, "dally"};
	if (dl_opt_parse_groups(&st, ctx, argc, argv, &sim_spec, &a, &dally, 1))
		return st.exit_code;
	a.dally_given = dl_opt_group_given(&st, 1) != NULL;
	a.restart_given = dl_opt_given(&st, "restart-cost");
	a.set_seed = dl_opt_given(&st, "seed");
	a.set_queues = dl_opt_given(&st, "queues");
	a.set_delta = dl_opt_given(&st, "delta");
	a.set_quantum = dl_opt_given(&st, "quantum");
	a.set_ckpt = dl_opt_given(&st, "checkpoint-cost");
	a.set_restore = dl_opt_given(&st, "restore-cost");
	a.set_policy = dl_opt_given(&st, "policy");
	a.set_place = dl_opt_given(&st, "place");
	int compat = dl_opt_given(&st, "compat") > 0;
	/* --policy and --place name the reference's schedules and schemes with --compat */
	if (!compat && !dl_sim_policy_find(a.policy))
		return dl_opt_bad_value(&st, "policy", a.policy);
	if (!compat && strcmp(a.place, "count") &&
	    dl_place_policy_parse(a.place, &(enum dl_place_policy){0}) < 0)
		return dl_opt_bad_value(&st, "place", a.place);
	if (argc - st.optind > 1)
		return dl_usage_error(ctx, "one trace at most (got %d)", argc - st.optind);
	a.trace = st.optind < argc ? argv[st.optind] : "-";
	if (compat)
		return run_compat(ctx, &a);
	if (!strcmp(a.place, "count"))
		return dl_usage_error(ctx, "--place count is a --compat tiresias scheme");
	if (a.provenance) {
		struct strbuf cmd = STRBUF_INIT;
		sb_addf(&cmd, "dlsched %s", ctx->cmdname);
		sb_add_command(&cmd, "", argc - 1, argv + 1);
		a.command = sb_detach(&cmd);
	}
	int rc = run_native(ctx, &a);
	free(a.command);
	return rc;
}
