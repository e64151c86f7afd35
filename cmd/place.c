/* place.c: place a queue of jobs on a cluster, one placement row per job */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/netcost.h"
#include "cmd.h"
#include "core/strmap.h"
#include "policy/place.h"
#include "trace/jobs.h"

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

enum { C_ID, C_GPUS, C_TYPE, C_NODES, C_RACKS, C_TIER, C_SLOW, C_PLACE, C_DEC, C_REASON, C_N };
static const char *const out_cols[C_N] = {"id",	  "gpus",     "gpu_type",  "nodes",    "racks",
					  "tier", "slowdown", "placement", "decision", "reason"};

/* mark the GPUs of one --used row; overlaps are errors naming both lines */
static int used_row(struct dl_cluster_state *st, const struct strmap *names, const char *file,
		    long line, const char *text, long *owner, int **g, size_t *alloc,
		    struct dl_err *err)
{
	size_t n = 0;
	if (dl_placement_parse(st->c, names, text, g, &n, alloc, err) < 0) {
		char msg[DL_ERR_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		return dl_err_at(err, file, line, "%s", msg);
	}
	for (size_t i = 0; i < n; i++) {
		int gpu = (*g)[i];
		if (dl_state_take_gpu(st, gpu) < 0) {
			const struct dl_node *nd = &st->c->nodes[dl_cluster_gpu_node(st->c, gpu)];
			if (owner[gpu] == line)
				return dl_err_at(err, file, line, "GPU %s:%d is listed twice",
						 nd->name, gpu - nd->first_gpu);
			return dl_err_at(
				err, file, line,
				"GPU %s:%d is already used (line %ld): overlapping entries",
				nd->name, gpu - nd->first_gpu, owner[gpu]);
		}
		owner[gpu] = line;
	}
	return 0;
}

static int load_used(const struct dl_ctx *ctx, const char *path, struct dl_cluster_state *st)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_in_open(ctx, path);
	if (!r)
		return DL_EXIT_DATA;
	int cp = dl_reader_col(r, "placement"), cn = dl_reader_col(r, "node");
	int cg = dl_reader_col(r, "gpus"), cd = dl_reader_col(r, "decision");
	int rc = 0;
	if (cp < 0 && cn < 0 && dl_reader_ncols(r)) { /* (0 bytes: nothing used) */
		dl_reader_close(r);
		return dl_error(ctx, "%s: needs a 'placement' or a 'node' column", path);
	}
	const struct dl_cluster *c = st->c;
	struct strmap names = STRMAP_INIT;
	for (size_t i = 0; i < c->nnodes; i++)
		strmap_put(&names, c->nodes[i].name, (int64_t)i);
	long *owner = xcalloc((size_t)c->total_gpus + 1, sizeof(long));
	int *g = NULL;
	size_t alloc = 0;
	struct strbuf text = STRBUF_INIT;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, &err)) > 0) {
		sb_reset(&text);
		if (cp >= 0) {
			const char *d = dl_field_str(&row, cd);
			if (*d && strcmp(d, "placed"))
				continue; /* a placements stream: only placed jobs hold GPUs */
			sb_addstr(&text, dl_field_str(&row, cp));
		} else {
			const char *gp = dl_field_str(&row, cg);
			sb_addstr(&text, dl_field_str(&row, cn));
			if (*gp)
				sb_addf(&text, ":%s", gp);
			if (!*dl_field_str(&row, cn)) {
				dl_err_at(&err, dl_reader_name(r), row.line, "empty node");
				got = -1;
				break;
			}
		}
		if (used_row(st, &names, dl_reader_name(r), row.line, text.buf, owner, &g, &alloc,
			     &err) < 0) {
			got = -1;
			break;
		}
	}
	if (got < 0)
		rc = dl_fail(ctx, &err);
	sb_release(&text);
	free(g);
	free(owner);
	strmap_free(&names);
	dl_reader_close(r);
	return rc;
}

struct place_run {
	const struct dl_ctx *ctx;
	struct dl_cluster *c;
	struct dl_cluster_state *st;
	struct dl_placer *placer;
	struct dl_net_models models;
	struct dl_netcost nc;
	struct strmap warned; /* unknown model names already reported */
	double now;
	int have_now;
};

static int place_jobs(struct place_run *pr, struct dl_reader *r, struct dl_writer *w)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_jobs_cols jc;
	if (dl_jobs_cols_init(&jc, r, &err) < 0)
		return dl_fail(pr->ctx, &err);
	int cwait = dl_reader_col(r, "wait");
	int *gpus = NULL;
	size_t galloc = 0;
	struct strbuf sb = STRBUF_INIT;
	struct dl_idset ids = DL_IDSET_INIT;
	struct dl_row row;
	int got, rc = 0;
	const struct dl_cluster *c = pr->c;
	while ((got = dl_reader_next(r, &row, &err)) > 0) {
		struct dl_job job;
		if (dl_jobs_parse_row(&jc, r, &row, &job, &err) < 0 ||
		    dl_idset_add(&ids, job.id, dl_reader_name(r), row.line, NULL, &err) < 0) {
			got = -1;
			break;
		}
		struct dl_place_req req = {0, DL_ANY_TYPE, 0, 0};
		req.gpus = job.gpus > c->total_gpus ? c->total_gpus + 1 : (int)job.gpus;
		const char *reject = NULL;
		if (*job.gpu_type) {
			req.type = dl_cluster_type_index(c, job.gpu_type);
			if (req.type < 0 && !dl_gpu_builtin(job.gpu_type)) {
				dl_err_at(&err, dl_reader_name(r), row.line,
					  "unknown GPU type '%s'", job.gpu_type);
				got = -1;
				break;
			}
			if (req.type < 0)
				reject = "no GPUs of its type in the cluster";
		}
		const struct dl_net_model *m = NULL;
		if (*job.model) {
			m = dl_net_models_find(&pr->models, job.model);
			if (!m && strmap_put(&pr->warned, job.model, 1))
				dl_warn(pr->ctx,
					"%s:%ld: no profile for model '%s'; costed as '%s'",
					dl_reader_name(r), row.line, job.model,
					dl_net_models_default(&pr->models)->name);
		}
		if (!m)
			m = dl_net_models_default(&pr->models);
		req.consolidate = m->consolidate;
		if (cwait >= 0 && *dl_field_str(&row, cwait)) {
			if (dl_field_nonneg(r, &row, cwait, &req.wait, &err) < 0) {
				got = -1;
				break;
			}
		} else if (pr->have_now) {
			req.wait = pr->now > job.submit ? pr->now - job.submit : 0;
		}
		DL_GROW(gpus, (size_t)req.gpus + 1, galloc);
		struct dl_placement pl = {0};
		pl.gpus = gpus;
		if (reject) {
			pl.decision = DL_REJECT;
			pl.reason = reject;
		} else {
			dl_place(pr->placer, &req, &pl);
		}
		dl_writer_str(w, C_ID, job.id);
		dl_writer_int(w, C_GPUS, job.gpus);
		if (pl.decision == DL_PLACED) {
			int t = c->nodes[dl_cluster_gpu_node(c, pl.gpus[0])].type;
			double speed = c->types[t].speed;
			dl_writer_str(w, C_TYPE, c->types[t].name);
			dl_writer_int(w, C_NODES, pl.nnodes);
			dl_writer_int(w, C_RACKS, pl.nracks);
			dl_writer_str(w, C_TIER, dl_tier_name(pl.tier));
			dl_writer_double_prec(
				w, C_SLOW,
				dl_netcost_slowdown(&pr->nc, m, pl.ngpus, pl.tier, speed), 6);
			sb_reset(&sb);
			dl_placement_format(c, pl.gpus, pl.ngpus, &sb);
			dl_writer_str(w, C_PLACE, sb.buf);
			dl_writer_str(w, C_DEC, "placed");
		} else {
			if (*job.gpu_type)
				dl_writer_str(w, C_TYPE, job.gpu_type);
			dl_writer_str(w, C_DEC, pl.decision == DL_WAIT ? "wait" : "reject");
			dl_writer_str(w, C_REASON, pl.reason);
		}
		dl_writer_end_row(w);
	}
	if (got < 0)
		rc = dl_fail(pr->ctx, &err);
	free(gpus);
	sb_release(&sb);
	dl_idset_free(&ids);
	return rc;
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

	struct place_run pr = {0};
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	pr.ctx = ctx;
	pr.now = a.now;
	pr.have_now = dl_opt_given(&st, "now") > 0;
	dl_net_models_init(&pr.models);
	if (dl_cluster_load(cluster, &pr.c, &err) < 0) {
		dl_net_models_free(&pr.models);
		return dl_fail(ctx, &err);
	}
	dl_cluster_congest(pr.c, &a.congestion);
	if (profiles && dl_net_models_read(&pr.models, profiles, ctx->in_format, &err) < 0)
		rc = dl_fail(ctx, &err);
	pr.st = dl_state_new(pr.c);
	if (!rc && used)
		rc = load_used(ctx, used, pr.st);
	dl_netcost_init(&pr.nc, pr.c, comm);
	pr.placer = dl_placer_new(pr.st, &po);
	struct dl_reader *r = NULL;
	if (!rc) {
		r = dl_in_open(ctx, jobs);
		if (!r)
			rc = DL_EXIT_DATA;
	}
	if (!rc) {
		struct dl_output *out = dl_out_open(ctx, ctx->output);
		if (!out) {
			rc = DL_EXIT_DATA;
		} else {
			struct dl_writer *w = dl_out_writer(ctx, out);
			dl_writer_set_columns(w, out_cols, C_N);
			rc = place_jobs(&pr, r, w);
			if (!rc)
				dl_writer_finish(w);
			dl_writer_free(w);
			rc = dl_out_close(ctx, out, rc);
		}
	}
	dl_reader_close(r);
	strmap_free(&pr.warned);
	dl_placer_free(pr.placer);
	dl_state_free(pr.st);
	dl_net_models_free(&pr.models);
	dl_cluster_free(pr.c);
	return rc;
}
