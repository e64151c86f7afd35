/* cluster.c: show a cluster spec expanded, and list the built-in GPU types and models */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cluster/netcost.h"
#include "cmd.h"
#include "core/num.h"

enum { BY_NODE, BY_RACK, BY_TYPE };
static const char *const by_names[] = {"node", "rack", "type", NULL};

struct cluster_args {
	int by;
	const char *profiles;
};

/* dispatched below, after the options are parsed */
static const struct dl_subcmd subcommands[] = {{"show"}, {"types"}, {"models"}, {NULL}};

static const struct dl_opt cluster_opts[] = {
	{DL_OPT_CHOICE, 0, "by", "LEVEL", "show: rows per level for CSV/JSON",
	 DL_OPT_AT(struct cluster_args, by), .values = by_names, .def = "node"},
	{DL_OPT_FILE, 0, "profiles", "FILE", "models: add the models of a profiles stream",
	 DL_OPT_AT(struct cluster_args, profiles)},
	{DL_OPT_END},
};

static const struct dl_cmd_spec cluster_spec = {
	.usage = "dlsched cluster show [options] SPEC\n"
		 "dlsched cluster types\n"
		 "dlsched cluster models [--profiles FILE]",
	.description =
		"show: expand a cluster SPEC (shorthand RACKSxNODESxGPUS[:TYPE],..., a JSON spec,\n"
		"a Tiresias cluster_spec CSV, Gavel V:P:K or cluster_specs JSON, the Alibaba PAI\n"
		"machine table, Slurm's 'scontrol show node -o' or 'sinfo -N -o \"%N %c %m %G\"'\n"
		"output; - reads standard input) and print its topology and totals: a text\n"
		"summary by default, or one row per node (rack, type with --by) with\n"
		"-f csv|json.\n"
		"types: the built-in GPU types. models: the network cost model's models.",
	.opts = cluster_opts,
	.format_default = "text for show, csv otherwise",
	.subcommands = subcommands,
};

static void text_summary(FILE *fp, const struct dl_cluster *c)
{
	char b1[DL_NUM_BUF], b2[DL_NUM_BUF], b3[DL_NUM_BUF];
	fprintf(fp, "cluster %s: %zu racks, %zu nodes, %d GPUs\n", c->source, c->nracks, c->nnodes,
		c->total_gpus);
	fprintf(fp, "types:\n");
	double cost = 0;
	for (size_t t = 0; t < c->ntypes; t++) {
		const struct dl_gpu_type *ty = &c->types[t];
		int g = dl_cluster_type_gpus(c, (int)t);
		dl_fmt_double(b1, ty->speed);
		dl_fmt_double(b2, ty->memory_gb);
		dl_fmt_double(b3, ty->cost_per_hour);
		fprintf(fp, "  %-10s %7d GPUs  speed %-5s memory %4s GB  $%s/GPU-hour\n", ty->name,
			g, b1, b2, b3);
		cost += g * ty->cost_per_hour;
	}
	dl_fmt_double_prec(b1, cost, 6);
	fprintf(fp, "  all        %7d GPUs  $%s/hour\n", c->total_gpus, b1);
	fprintf(fp, "links (per GPU):\n");
	for (int t = 0; t < DL_NTIERS; t++) {
		dl_fmt_double(b1, c->link[t].bandwidth_gbps);
		dl_fmt_double(b2, c->link[t].latency_us);
		fprintf(fp, "  %-8s %8s Gb/s %6s us", dl_tier_name((enum dl_tier)t), b1, b2);
		if (c->congestion[t] > 1) {
			dl_fmt_double(b1, c->congestion[t]);
			dl_fmt_double(b2, c->link[t].bandwidth_gbps / c->congestion[t]);
			fprintf(fp, "  congested /%s: %s Gb/s", b1, b2);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "racks:\n");
	for (size_t r = 0; r < c->nracks; r++) {
		const struct dl_rack *rk = &c->racks[r];
		int g = 0;
		for (int k = 0; k < rk->nnodes; k++)
			g += c->nodes[rk->first_node + k].gpus;
		fprintf(fp, "  %-10s %5d nodes %6d GPUs:", rk->name, rk->nnodes, g);
		/* runs of identical nodes, e.g. "16 x 8 v100" */
		int k = 0;
		while (k < rk->nnodes) {
			const struct dl_node *n = &c->nodes[rk->first_node + k];
			int run = 1;
			while (k + run < rk->nnodes &&
			       c->nodes[rk->first_node + k + run].gpus == n->gpus &&
			       c->nodes[rk->first_node + k + run].type == n->type)
				run++;
			fprintf(fp, "%s %d x %d %s", k ? "," : "", run, n->gpus,
				c->types[n->type].name);
			k += run;
		}
		fputc('\n', fp);
	}
}

static void rows_by_node(struct dl_writer *w, const struct dl_cluster *c)
{
	static const char *const cols[] = {"node",	"rack", "gpu_type", "gpus",
					   "first_gpu", "cpus", "mem_gb"};
	dl_writer_set_columns(w, cols, DL_ARRAY_SIZE(cols));
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct dl_node *n = &c->nodes[i];
		dl_writer_str(w, 0, n->name);
		dl_writer_str(w, 1, c->racks[n->rack].name);
		dl_writer_str(w, 2, c->types[n->type].name);
		dl_writer_int(w, 3, n->gpus);
		dl_writer_int(w, 4, n->first_gpu);
		if (n->cpus)
			dl_writer_int(w, 5, n->cpus);
		else
			dl_writer_null(w, 5);
		if (n->mem_gb > 0)
			dl_writer_double(w, 6, n->mem_gb);
		else
			dl_writer_null(w, 6);
		dl_writer_end_row(w);
	}
}

static void rows_by_rack(struct dl_writer *w, const struct dl_cluster *c)
{
	static const char *const cols[] = {"rack", "nodes", "gpus", "gpu_types"};
	dl_writer_set_columns(w, cols, DL_ARRAY_SIZE(cols));
	struct strbuf sb = STRBUF_INIT;
	int *seen = xcalloc(c->ntypes + 1, sizeof(int));
	for (size_t r = 0; r < c->nracks; r++) {
		const struct dl_rack *rk = &c->racks[r];
		int g = 0;
		sb_reset(&sb);
		memset(seen, 0, (c->ntypes + 1) * sizeof(int));
		for (int k = 0; k < rk->nnodes; k++) {
			const struct dl_node *n = &c->nodes[rk->first_node + k];
			g += n->gpus;
			if (!seen[n->type]) {
				seen[n->type] = 1;
				if (sb.len)
					sb_addc(&sb, ' ');
				sb_addstr(&sb, c->types[n->type].name);
			}
		}
		dl_writer_str(w, 0, rk->name);
		dl_writer_int(w, 1, rk->nnodes);
		dl_writer_int(w, 2, g);
		dl_writer_str(w, 3, sb.buf);
		dl_writer_end_row(w);
	}
	free(seen);
	sb_release(&sb);
}

static void rows_by_type(struct dl_writer *w, const struct dl_cluster *c)
{
	static const char *const cols[] = {"gpu_type", "nodes",	    "gpus",
					   "speed",    "memory_gb", "cost_per_hour"};
	dl_writer_set_columns(w, cols, DL_ARRAY_SIZE(cols));
	for (size_t t = 0; t <= c->ntypes; t++) {
		int nodes = 0, g = 0;
		for (size_t i = 0; i < c->nnodes; i++)
			if (t == c->ntypes || c->nodes[i].type == (int)t) {
				nodes++;
				g += c->nodes[i].gpus;
			}
		dl_writer_str(w, 0, t < c->ntypes ? c->types[t].name : "all");
		dl_writer_int(w, 1, nodes);
		dl_writer_int(w, 2, g);
		if (t < c->ntypes) {
			dl_writer_double(w, 3, c->types[t].speed);
			dl_writer_double(w, 4, c->types[t].memory_gb);
			dl_writer_double(w, 5, c->types[t].cost_per_hour);
		} else {
			for (size_t k = 3; k <= 5; k++)
				dl_writer_null(w, k);
		}
		dl_writer_end_row(w);
	}
}

static int show(struct dl_ctx *ctx, const char *spec, int by)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c;
	if (dl_cluster_load(spec, &c, &err) < 0)
		return dl_fail(ctx, &err);
	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out) {
		dl_cluster_free(c);
		return DL_EXIT_DATA;
	}
	if (!ctx->format_set) {
		text_summary(dl_output_fp(out), c);
	} else {
		struct dl_writer *w = dl_out_writer(ctx, out);
		if (by == BY_RACK)
			rows_by_rack(w, c);
		else if (by == BY_TYPE)
			rows_by_type(w, c);
		else
			rows_by_node(w, c);
		dl_writer_finish(w);
		dl_writer_free(w);
	}
	dl_cluster_free(c);
	return dl_out_close(ctx, out, 0);
}

static int types(struct dl_ctx *ctx)
{
	static const char *const cols[] = {"gpu_type", "speed", "memory_gb", "cost_per_hour"};
	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out)
		return DL_EXIT_DATA;
	struct dl_writer *w = dl_out_writer(ctx, out);
	dl_writer_set_columns(w, cols, DL_ARRAY_SIZE(cols));
	size_t n;
	const struct dl_gpu_type *t = dl_gpu_builtins(&n);
	for (size_t i = 0; i < n; i++) {
		dl_writer_str(w, 0, t[i].name);
		dl_writer_double(w, 1, t[i].speed);
		dl_writer_double(w, 2, t[i].memory_gb);
		dl_writer_double(w, 3, t[i].cost_per_hour);
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	return dl_out_close(ctx, out, 0);
}

static int models(struct dl_ctx *ctx, const char *profiles)
{
	static const char *const cols[] = {"model",	"bytes",       "skew_rr",
					   "compute_s", "sensitivity", "consolidate"};
	struct dl_net_models m;
	struct dl_err err = DL_ERR_INIT;
	dl_net_models_init(&m);
	if (profiles && dl_net_models_read(&m, profiles, ctx->in_format, &err) < 0) {
		dl_net_models_free(&m);
		return dl_fail(ctx, &err);
	}
	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out) {
		dl_net_models_free(&m);
		return DL_EXIT_DATA;
	}
	struct dl_writer *w = dl_out_writer(ctx, out);
	dl_writer_set_columns(w, cols, DL_ARRAY_SIZE(cols));
	for (size_t i = 0; i < m.n; i++) {
		dl_writer_str(w, 0, m.v[i].name);
		dl_writer_double(w, 1, m.v[i].bytes);
		dl_writer_double(w, 2, m.v[i].skew_rr);
		if (!isinf(m.v[i].compute_s))
			dl_writer_double_prec(w, 3, m.v[i].compute_s, 6);
		dl_writer_double_prec(w, 4, m.v[i].sensitivity, 6);
		dl_writer_int(w, 5, m.v[i].consolidate);
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	dl_net_models_free(&m);
	return dl_out_close(ctx, out, 0);
}

DL_COMMAND(cluster, "show cluster specs, GPU types and network cost models")
{
	struct dl_optstate st;
	struct cluster_args a = {0};
	/* the subcommand comes first; options after it (or --help alone) */
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	if (dl_opt_parse(&st, ctx, sub ? argc - 1 : argc, sub ? argv + 1 : argv, &cluster_spec, &a))
		return st.exit_code;
	int npos = (sub ? argc - 1 : argc) - st.optind;
	char **pos = (sub ? argv + 1 : argv) + st.optind;
	if (!sub)
		return dl_usage_error(ctx, "missing subcommand (show, types or models)");
	if (!strcmp(sub, "show")) {
		if (npos != 1)
			return dl_usage_error(ctx, "cluster show takes one SPEC");
		return show(ctx, pos[0], a.by);
	}
	if (npos)
		return dl_usage_error(ctx, "cluster %s takes no arguments", sub);
	if (!strcmp(sub, "types"))
		return types(ctx);
	if (!strcmp(sub, "models"))
		return models(ctx, a.profiles);
	return dl_usage_error(ctx, "unknown subcommand '%s' (show, types or models)", sub);
}
