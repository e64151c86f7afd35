/* simulate.c: replay a jobs trace on a cluster under a scheduling policy */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cluster/netcost.h"
#include "core/num.h"
#include "policy/gittins.h"
#include "policy/alloc_input.h"
#include "policy/place.h"
#include "sim/sim.h"
#include "compat/tiresias.h"
#include "trace/jobs.h"

struct sim_args {
	const char *cluster, *policy, *place, *events, *timeline, *profiles, *throughputs,
		*ref_type;
	const char *trace;
	int compat; /* given: compat_at() */
	uint64_t seed;
	double ckpt, restore;
	int set_ckpt, set_restore, any_type, set_seed;
	int set_policy, set_place;
	int provenance;
	char *command;			 /* with --provenance: this command line, else NULL */
	struct dl_congestion congestion; /* --congestion: 0 = the spec's */
	/* the chosen policy's parameters (its option table's struct), NULL with --compat */
	const struct dl_sim_policy_ops *pol;
	void *params;
};

/* --compat tiresias: the reference's Gittins table */
struct compat_args {
	const char *distribution;
	double delta;
};

/* the native engine's policies, from the registry */
static const char *sim_policy_at(size_t i)
{
	size_t n;
	const struct dl_sim_policy_ops *const *all = dl_sim_policies(&n);
	return i < n ? all[i]->name : NULL;
}

/*
 * --compat: 0 is the reference Tiresias simulator (its own engine, run_compat),
 * then the registry's policies that declare a reference (ops->compat)
 */
static const struct dl_sim_policy_ops *compat_policy(size_t i)
{
	size_t n;
	const struct dl_sim_policy_ops *const *all = dl_sim_policies(&n);
	for (size_t k = 0; k < n; k++)
		if (all[k]->compat && --i == 0)
			return all[k];
	return NULL;
}

static const char *compat_at(size_t i)
{
	const struct dl_sim_policy_ops *ops = i ? compat_policy(i) : NULL;
	return !i ? "tiresias" : ops ? ops->compat->name : NULL;
}

#define AT(f) DL_OPT_AT(struct sim_args, f)
static const struct dl_opt sim_opts[] = {
	{DL_OPT_FILE, 'c', "cluster", "SPEC",
	 "the cluster: RACKSxNODESxGPUS[:TYPE],... or a spec file", AT(cluster)},
	/* open: with --compat tiresias they take the reference's names instead */
	{DL_OPT_CHOICE, 0, "policy", "P", "scheduling policy", AT(policy),
	 .value_at = sim_policy_at, .def = DL_SIM_POLICY_DEFAULT, .flags = DL_OPTF_OPEN},
	{DL_OPT_CHOICE, 0, "place", "Q", "placement policy (compat: count or yarn)", AT(place),
	 .value_at = dl_place_policy_at, .def = "consolidate", .flags = DL_OPTF_OPEN},
	{DL_OPT_CHOICE, 0, "compat", "SIM", "behave like a reference simulator", AT(compat),
	 .value_at = compat_at},
	{DL_OPT_FILE, 0, "events", "FILE", "write every job state change to FILE (JSON Lines)",
	 AT(events)},
	{DL_OPT_FILE, 0, "timeline", "FILE", "write busy GPUs, running and pending jobs over time",
	 AT(timeline)},
	{DL_OPT_UINT64, 0, "seed", "N", "seed for randomised placement", AT(seed), .def = "1"},
	{DL_OPT_SECONDS, 0, "checkpoint-cost", "S",
	 "seconds a preempted job saves, holding its GPUs", AT(ckpt), .max = DL_SECONDS_MAX,
	 .def = "5"},
	{DL_OPT_SECONDS, 0, "restore-cost", "S", "seconds a resumed job runs without progress",
	 AT(restore), .max = DL_SECONDS_MAX, .def = "10"},
	{DL_OPT_FILE, 0, "profiles", "FILE", "model profiles (from profile) for placement slowdown",
	 AT(profiles)},
	{DL_OPT_FILE, 0, "throughputs", "FILE",
	 "per-model speed on each GPU type (throughputs stream or Gavel's JSON)", AT(throughputs)},
	{DL_OPT_STRING, 0, "gpu-type", "TYPE",
	 "--throughputs: the reference type, on which durations are run times", AT(ref_type),
	 .def = "v100"},
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

#define CA(f) DL_OPT_AT(struct compat_args, f)
static const struct dl_opt compat_opts[] = {
	{DL_OPT_FILE, 0, "distribution", "FILE",
	 "the Gittins schedules' job sizes (the reference reads yarn-gput1000.csv)",
	 CA(distribution)},
	{DL_OPT_DOUBLE, 0, "delta", "S", "the Gittins schedules' service quantum in GPU-seconds",
	 CA(delta), .flags = DL_OPTF_GT, .def = "3250"},
	{DL_OPT_END},
};
#undef CA

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

static int run_compat(struct dl_ctx *ctx, const struct sim_args *a, const struct compat_args *ca)
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
	if (a->set_ckpt || a->set_restore || a->profiles || a->any_type || a->set_seed ||
	    a->provenance || a->throughputs || a->congestion.div[DL_TIER_NODE] > 0 ||
	    a->congestion.div[DL_TIER_RACK] > 0 || a->congestion.div[DL_TIER_CLUSTER] > 0)
		return dl_usage_error(ctx,
				      "with --compat tiresias the schedule name sets the "
				      "policy; only --cluster, --place, --distribution, --delta "
				      "and --timeline apply");
	if (needs_gittins && !ca->distribution)
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
		g = dl_gittins_load(ca->distribution, NULL, ca->delta, DL_GITTINS_TIRESIAS, &err);
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
	dl_stamp_provenance(w, a->command, seed);
	dl_writer_stamp(w, "trace_" DL_COL_MADE_BY, trace->made_by ? trace->made_by : "");
	dl_writer_stamp(w, "trace_" DL_COL_SEED, trace->seed ? trace->seed : "");
}

/* the results, --events and --timeline streams (only the results when the others are not asked) */
struct sim_outputs {
	struct dl_table_out t[3];
};

static int outputs_open(struct dl_ctx *ctx, const struct sim_args *a, struct sim_outputs *o,
			const struct dl_sim_trace *trace)
{
	const char *path[3] = {ctx->output, a->events, a->timeline};
	const enum dl_out_format fmt[3] = {ctx->format, DL_OUT_JSON, ctx->format};
	for (int i = 0; i < 3; i++)
		if ((!i || path[i]) && dl_table_out_open(ctx, path[i], fmt[i], &o->t[i]))
			return DL_EXIT_DATA;
	if (a->command)
		stamp_provenance(o->t[0].w, a, trace);
	return 0;
}

/* commit the outputs when rc is 0 (or remove them); the final exit code */
static int outputs_close(struct dl_ctx *ctx, struct sim_outputs *o, int rc)
{
	return dl_table_out_close(ctx, o->t, 3, rc);
}

/* the trace (and --profiles), read whole before the run */
static int read_trace(struct dl_ctx *ctx, const struct sim_args *a, struct dl_sim_trace *trace,
		      struct dl_net_models *models)
{
	struct dl_err err = DL_ERR_INIT;
	if (a->profiles && dl_net_models_read(models, a->profiles, DL_IN_AUTO, &err) < 0)
		return dl_fail(ctx, &err);
	struct dl_reader *r = dl_in_open(ctx, a->trace);
	if (!r)
		return DL_EXIT_DATA;
	int got = dl_sim_trace_read(trace, r, &err);
	dl_reader_close(r);
	return got < 0 ? dl_fail(ctx, &err) : 0;
}

/* a --gpu-type the table does not have: every job would miss its entry */
static int bad_ref_type(const struct dl_ctx *ctx, const struct sim_args *a,
			const struct dl_tputs *tputs)
{
	struct strbuf types = STRBUF_INIT;
	dl_tputs_types(tputs, &types);
	int rc = dl_usage_error(ctx, "--gpu-type '%s' is not a GPU type of %s (it has %s)",
				a->ref_type, a->throughputs, types.buf);
	sb_release(&types);
	return rc;
}

static int run_native(struct dl_ctx *ctx, const struct sim_args *a)
{
	struct dl_err err = DL_ERR_INIT;
	if (!a->cluster)
		return dl_usage_error(ctx, "--cluster is required");
	struct dl_sim_config cfg = {0};
	cfg.policy = a->pol;
	cfg.params = a->params;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	cfg.place.policy = DL_PLACE_CONSOLIDATE;
	cfg.place.seed = a->seed;
	/* checked after parsing; a policy may imply its own placement (gandiva) */
	dl_place_policy_parse(!a->set_place && a->pol->place ? a->pol->place : a->place,
			      &cfg.place.policy);
	cfg.any_type = a->any_type;
	cfg.checkpoint_cost = a->ckpt;
	cfg.restore_cost = a->restore;
	cfg.comm = DL_COMM_RING;
	if (ctx->stderr_is_tty && !ctx->quiet) {
		cfg.progress = progress_cb;
		cfg.progress_arg = ctx;
	}

	int rc = 0;
	struct dl_cluster *cl = NULL;
	struct dl_sim_trace trace;
	struct dl_net_models models;
	struct sim_outputs o = {0};
	struct dl_sim_stats st;
	struct dl_tputs tputs = DL_TPUTS_INIT;
	dl_sim_trace_init(&trace);
	dl_net_models_init(&models);
	if (dl_cluster_load(a->cluster, &cl, &err) < 0)
		rc = dl_fail(ctx, &err);
	else
		dl_cluster_congest(cl, &a->congestion);
	if (rc || ctx->dry_run)
		; /* (with --dry-run the options are good) */
	else if (a->throughputs &&
		 dl_alloc_load_throughputs(a->throughputs, DL_IN_AUTO, &tputs, &err) < 0)
		rc = dl_fail(ctx, &err);
	else if (a->throughputs && !dl_tputs_has_type(&tputs, a->ref_type))
		rc = bad_ref_type(ctx, a, &tputs);
	else if (!(rc = read_trace(ctx, a, &trace, &models)) &&
		 !(rc = outputs_open(ctx, a, &o, &trace))) {
		cfg.cluster = cl;
		cfg.trace = &trace;
		cfg.models = &models;
		cfg.results = o.t[0].w;
		cfg.events = o.t[1].w;
		cfg.timeline = o.t[2].w;
		if (a->throughputs) {
			cfg.tputs = &tputs;
			cfg.ref_type = a->ref_type;
		}
		if (dl_sim_run(&cfg, &st, &err) < 0)
			rc = dl_fail(ctx, &err);
	}
	rc = outputs_close(ctx, &o, rc);
	if (!rc && !ctx->dry_run) {
		if (st.rejected)
			dl_warn(ctx,
				"%zu of %zu jobs can never run: their rows say why in column "
				"'rejected' (first: '%s': %s)",
				st.rejected, st.jobs, st.first_rejected, st.reject_reason);
		if (st.tput_fallback)
			dl_warn(ctx,
				"%zu jobs ran at their GPU types' speeds for want of an entry in %s "
				"(%s%s)",
				st.tput_fallback, a->throughputs,
				st.tput_missing[0] ? "models " : "jobs without a model",
				st.tput_missing[0] ? st.tput_missing : "");
		if (st.policy_warning[0])
			dl_warn(ctx, "%s", st.policy_warning);
		if (st.policy_summary[0])
			dl_info(ctx, "%s", st.policy_summary);
		dl_info(ctx, "%zu jobs completed, %zu events, %zu passes, makespan %g s",
			st.completed, st.events, st.passes, st.makespan);
	}
	dl_tputs_free(&tputs);
	dl_sim_trace_free(&trace);
	dl_net_models_free(&models);
	dl_cluster_free(cl);
	return rc;
}

/*
 * The policies' option groups, each table once, in the registry's order: a
 * table several policies share (MLFQ) is one group headed by all their
 * names. The --compat tiresias options are one more alternative.
 */
struct policy_groups {
	struct dl_opt_group g[DL_OPT_MAX_GROUPS];
	struct strbuf title[DL_OPT_MAX_GROUPS];
	size_t n;
};

static void add_policy_group(struct policy_groups *pg, const struct dl_opt *opts, const char *name,
			     const char *const *doc_defaults)
{
	if (!opts)
		return;
	for (size_t i = 0; i < pg->n; i++)
		if (pg->g[i].opts == opts) {
			sb_addf(&pg->title[i], ", %s", name);
			return;
		}
	if (pg->n == DL_ARRAY_SIZE(pg->g))
		return; /* (the parser's limit: it reports the table bug) */
	pg->title[pg->n] = (struct strbuf)STRBUF_INIT;
	sb_addstr(&pg->title[pg->n], name);
	pg->g[pg->n++] = (struct dl_opt_group){opts, NULL, NULL, DL_GROUP_DEFER, doc_defaults};
}

static void policy_groups(struct policy_groups *pg)
{
	size_t n;
	const struct dl_sim_policy_ops *const *all = dl_sim_policies(&n);
	pg->n = 0;
	for (size_t i = 0; i < n; i++) {
		add_policy_group(pg, all[i]->opts, all[i]->name, NULL);
		for (size_t g = 0; g < DL_SIM_MAX_SHARED; g++)
			add_policy_group(pg, all[i]->shared[g].opts, all[i]->name,
					 all[i]->shared[g].doc_defaults);
	}
	add_policy_group(pg, compat_opts, "--compat tiresias", NULL);
	for (size_t i = 0; i < pg->n; i++)
		pg->g[i].title = pg->title[i].buf;
}

size_t dl_simulate_opt_tables(const struct dl_opt **out, size_t max)
{
	struct policy_groups pg;
	policy_groups(&pg);
	size_t n = 0;
	if (max > 0)
		out[n++] = sim_opts;
	for (size_t i = 0; i < pg.n; i++) {
		if (n < max)
			out[n++] = pg.g[i].opts;
		sb_release(&pg.title[i]);
	}
	return n;
}

/* the chosen policy's groups get its params; the others' options are refused */
static int choose_policy(struct dl_optstate *st, struct sim_args *a, struct compat_args *ca,
			 int compat)
{
	struct dl_err err = DL_ERR_INIT;
	if (compat) {
		dl_opt_choose(st, compat_opts, ca);
		return dl_opt_apply(st, "--policy");
	}
	a->pol = dl_sim_policy_find(a->policy);
	a->params = a->pol->params_size ? xcalloc(1, a->pol->params_size) : NULL;
	if (a->pol->opts)
		dl_opt_choose(st, a->pol->opts, a->params);
	for (size_t g = 0; g < DL_SIM_MAX_SHARED; g++)
		if (a->pol->shared[g].opts)
			dl_opt_choose(st, a->pol->shared[g].opts,
				      (char *)a->params + a->pol->shared[g].at);
	int rc = dl_opt_apply(st, "--policy");
	if (!rc && dl_sim_params_check(a->pol, a->params, &err) < 0)
		rc = dl_usage_error(st->ctx, "%s", err.msg);
	return rc;
}

DL_COMMAND(simulate, "replay a trace on a cluster under a scheduling policy")
{
	struct dl_optstate st;
	struct sim_args a = {0};
	struct compat_args ca = {0};
	struct policy_groups pg;
	policy_groups(&pg);
	int rc = dl_opt_parse_groups(&st, ctx, argc, argv, &sim_spec, &a, pg.g, pg.n);
	if (rc) {
		rc = st.exit_code;
		goto out;
	}
	a.set_seed = dl_opt_given(&st, "seed");
	a.set_ckpt = dl_opt_given(&st, "checkpoint-cost");
	a.set_restore = dl_opt_given(&st, "restore-cost");
	a.set_policy = dl_opt_given(&st, "policy");
	a.set_place = dl_opt_given(&st, "place");
	int given = dl_opt_given(&st, "compat") > 0;
	int compat = given && a.compat == 0; /* the Tiresias reference */
	/* a policy's reference: the policy, its own flag and the engine settings it declares */
	const struct dl_sim_policy_ops *ref =
		given && a.compat > 0 ? compat_policy(a.compat) : NULL;
	if (ref) {
		const struct dl_sim_compat *cp = ref->compat;
		if (a.set_policy && strcmp(a.policy, ref->name))
			rc = dl_usage_error(ctx, "--compat %s is for --policy %s", cp->name,
					    ref->name);
		else if (cp->no_swap_costs && (a.set_ckpt || a.set_restore))
			rc = dl_usage_error(
				ctx,
				"--compat %s has no checkpoint or restore costs (as the "
				"reference)",
				cp->name);
		if (rc)
			goto out;
		a.policy = ref->name;
		if (cp->no_swap_costs)
			a.ckpt = a.restore = 0;
	}
	/* --policy and --place name the reference's schedules and schemes with --compat */
	if (!compat && !dl_sim_policy_find(a.policy))
		rc = dl_opt_bad_value(&st, "policy", a.policy);
	else if (!compat && strcmp(a.place, "count") &&
		 dl_place_policy_parse(a.place, &(enum dl_place_policy){0}) < 0)
		rc = dl_opt_bad_value(&st, "place", a.place);
	else if (argc - st.optind > 1)
		rc = dl_usage_error(ctx, "one trace at most (got %d)", argc - st.optind);
	if (rc)
		goto out;
	a.trace = st.optind < argc ? argv[st.optind] : "-";
	if ((rc = choose_policy(&st, &a, &ca, compat)))
		goto out;
	if (ref) /* its params know what the reference does */
		dl_sim_params_set(a.pol, a.params, ref->compat->param, "1");
	if (compat) {
		rc = run_compat(ctx, &a, &ca);
		goto out;
	}
	if (!strcmp(a.place, "count")) {
		rc = dl_usage_error(ctx, "--place count is a --compat tiresias scheme");
		goto out;
	}
	if (dl_opt_given(&st, "gpu-type") && !a.throughputs) {
		rc = dl_usage_error(ctx, "--gpu-type is the reference type of --throughputs, "
					 "which is not given");
		goto out;
	}
	if (a.provenance)
		a.command = dl_command_line(ctx, argc, argv);
	rc = run_native(ctx, &a);
	free(a.command);
out:
	free(a.params);
	for (size_t i = 0; i < pg.n; i++)
		sb_release(&pg.title[i]);
	return rc;
}
