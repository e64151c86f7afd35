/* allocate.c: Gavel's heterogeneity-aware allocation policies, solved with GLPK */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/num.h"
#include "policy/alloc.h"
#include "policy/alloc_input.h"

struct allocate_args {
	const char *cluster, *throughputs, *costs, *entity_weights, *entity_col, *jobs;
	int pairs;
	int strict_slo;
	struct dl_alloc_opts o;
};

static const char *const entity_policies[] = {"fairness", "fifo", NULL}; /* o.entity_fifo */

#define AT(f) DL_OPT_AT(struct allocate_args, f)
static const struct dl_opt allocate_opts[] = {
	{DL_OPT_FILE, 'c', "cluster", "SPEC", "the cluster (see dlsched-cluster(1)), e.g. 36:36:36",
	 AT(cluster)},
	{DL_OPT_CHOICE, 0, "policy", "NAME", "allocation policy", AT(o.policy),
	 .value_at = dl_alloc_policy_at, .def = "max-min-fairness-perf"},
	{DL_OPT_FILE, 0, "throughputs", "FILE", "throughputs stream, looked up by model and gpus",
	 AT(throughputs)},
	{DL_OPT_FLAG, 0, "pack", NULL, "space sharing: let pairs of jobs share GPUs", AT(o.pack)},
	{DL_OPT_INT, 0, "pair-candidates", "N",
	 "with --pack --per-job, partners considered per job", AT(pairs), .imin = 1, .imax = 1000,
	 .def = "4"},
	{DL_OPT_INT, 0, "partitions", "K", "POP: solve K random groups of jobs separately",
	 AT(o.partitions), .imin = 1, .imax = 1 << 20, .def = "1"},
	{DL_OPT_UINT64, 0, "seed", "N", "seed for partitions, fifo and gandiva", AT(o.seed),
	 .def = "0"},
	{DL_OPT_STRING, 0, "costs", "LIST", "dollars per GPU-hour, TYPE=PRICE,... (min-cost)",
	 AT(costs)},
	{DL_OPT_STRING, 0, "entity-weights", "LIST",
	 "weights of entities, NAME=W,... (water-filling)", AT(entity_weights)},
	{DL_OPT_STRING, 0, "entity-column", "COL", "column naming the entity (e.g. user, vc)",
	 AT(entity_col), .def_doc = "entity"},
	{DL_OPT_CHOICE, 0, "entity-policy", "P", "how water-filling shares inside an entity",
	 AT(o.entity_fifo), .values = entity_policies, .def = "fairness"},
	{DL_OPT_FLAG, 0, "strict-slo", NULL, "min-cost: exit 3 when the SLOs are infeasible",
	 AT(strict_slo)},
	{DL_OPT_SECONDS, 0, "time-limit", "SECS", "give up each solve after SECS seconds (exit 3)",
	 AT(o.lp.time_limit)},
	{DL_OPT_FILE, 0, "dump-model", "PATH", "write the LP in CPLEX LP format (for glpsol)",
	 AT(o.dump_model)},
	{DL_OPT_FLAG, 0, "per-job", NULL, "one LP row per job (do not merge identical jobs)",
	 AT(o.per_job)},
	{DL_OPT_FLAG, 0, "head-of-line", NULL,
	 "fifo, fifo-perf: stop at the first job that fits nowhere (Gavel)", AT(o.head_of_line)},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec allocate_spec = {
	.usage = "dlsched allocate --cluster SPEC [--policy NAME] [--throughputs FILE] [JOBS]",
	.description =
		"Compute the fraction of time each job spends on each GPU type under one of\n"
		"Gavel's policies (max-min-fairness, max-min-fairness-perf,\n"
		"finish-time-fairness, min-makespan, max-throughput, min-cost,\n"
		"water-filling) or a baseline (fifo, fifo-perf, isolated, gandiva). Writes\n"
		"job, gpu_type, fraction, effective_throughput [, partner]. -v prints the\n"
		"objective and the solver status; no solution exits 3 with the reason.",
	.opts = allocate_opts,
};

/* the rows of one job: its time on each type, then its pairs */
static void write_job(struct dl_writer *w, const struct dl_alloc_problem *p,
		      const struct dl_alloc_result *res, size_t i, const size_t *pstart,
		      const size_t *padj, int partner_col)
{
	size_t n = p->ntypes;
	for (size_t t = 0; t < n; t++) {
		double x = res->x[i * n + t];
		dl_writer_str(w, 0, p->jobs[i].id);
		dl_writer_str(w, 1, p->type_names[t]);
		dl_writer_double_prec(w, 2, x, 10);
		dl_writer_double_prec(w, 3, x * p->jobs[i].tput[t], 10);
		dl_writer_end_row(w);
	}
	for (size_t q = pstart[i]; partner_col && q < pstart[i + 1]; q++) {
		const struct dl_alloc_pair *pr = &res->pairs[padj[q]];
		int mine_a = pr->a == (int)i;
		size_t other = (size_t)(mine_a ? pr->b : pr->a);
		for (size_t t = 0; t < n; t++) {
			double x = res->px[padj[q] * n + t];
			if (!(x > 0))
				continue;
			dl_writer_str(w, 0, p->jobs[i].id);
			dl_writer_str(w, 1, p->type_names[t]);
			dl_writer_double_prec(w, 2, x, 10);
			dl_writer_double_prec(w, 3, x * (mine_a ? pr->tput_a[t] : pr->tput_b[t]),
					      10);
			dl_writer_str(w, 4, p->jobs[other].id);
			dl_writer_end_row(w);
		}
	}
}

static int write_allocation(const struct dl_ctx *ctx, const struct dl_alloc_problem *p,
			    const struct dl_alloc_result *res, int partner_col)
{
	struct dl_table_out out;
	if (dl_table_out_open(ctx, ctx->output, ctx->format, &out))
		return DL_EXIT_DATA;
	struct dl_writer *w = out.w;
	static const char *const cols[] = {"job", "gpu_type", "fraction", "effective_throughput",
					   "partner"};
	dl_writer_set_columns(w, cols, partner_col ? 5 : 4);
	/* pairs of each job, partners in index order (pairs are sorted by (a, b)) */
	size_t m = p->njobs;
	size_t *pstart = xcalloc(m + 2, sizeof(size_t)),
	       *padj = xcalloc(2 * res->npairs + 1, sizeof(size_t));
	size_t *fill = xcalloc(m + 1, sizeof(size_t));
	for (size_t k = 0; k < res->npairs; k++) {
		pstart[res->pairs[k].a + 1]++;
		pstart[res->pairs[k].b + 1]++;
	}
	for (size_t i = 0; i < m; i++)
		pstart[i + 1] += pstart[i];
	for (size_t k = 0; k < res->npairs; k++) {
		padj[pstart[res->pairs[k].a] + fill[res->pairs[k].a]++] = k;
		padj[pstart[res->pairs[k].b] + fill[res->pairs[k].b]++] = k;
	}
	for (size_t i = 0; i < m; i++)
		write_job(w, p, res, i, pstart, padj, partner_col);
	free(pstart);
	free(padj);
	free(fill);
	return dl_table_out_close(ctx, &out, 1, 0);
}

static int parse_args(struct dl_ctx *ctx, int argc, char **argv, struct allocate_args *a)
{
	struct dl_optstate st;
	if (dl_opt_parse(&st, ctx, argc, argv, &allocate_spec, a))
		return st.exit_code ? st.exit_code : -1;
	int first = st.optind;
	if (first < argc - 1)
		return dl_usage_error(ctx, "too many inputs (one jobs stream)");
	a->jobs = first < argc ? argv[first] : "-";
	if (!a->cluster)
		return dl_usage_error(ctx, "--cluster is required");
	struct dl_err err = DL_ERR_INIT;
	const struct dl_alloc_policy_info *info = dl_alloc_policy_info(a->o.policy);
	if (dl_alloc_check_pack(a->o.policy, a->o.pack, &err) < 0)
		return dl_usage_error(ctx, "%s", err.msg);
	if (a->o.pack && !a->throughputs)
		return dl_usage_error(ctx, "--pack needs --throughputs (pair throughputs)");
	if (a->o.dump_model && !info->lp)
		return dl_usage_error(ctx, "--dump-model: %s solves no LP", info->name);
	if (a->strict_slo && a->o.policy != DL_ALLOC_MIN_COST)
		return dl_usage_error(ctx, "--strict-slo applies to min-cost only");
	a->o.lp.verbose = ctx->verbose > 1; /* -vv: GLPK's own log */
	return 0;
}

DL_COMMAND(allocate, "heterogeneity-aware allocation policies (Gavel) as LPs on GLPK")
{
	struct allocate_args a = {0};
	struct dl_alloc_opts defaults = DL_ALLOC_OPTS_INIT;
	a.o = defaults;
	int rc = parse_args(ctx, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;

	struct dl_err err = DL_ERR_INIT;
	struct dl_alloc_problem p;
	struct dl_tputs tputs = DL_TPUTS_INIT, *tt = NULL;
	struct dl_alloc_result res = {0};
	if (dl_alloc_cluster_types(a.cluster, &p, &err))
		return dl_fail(ctx, &err);
	if ((a.costs && dl_alloc_set_costs(&p, a.costs, &err)) ||
	    (a.entity_weights && dl_alloc_set_entity_weights(&p, a.entity_weights, &err))) {
		dl_alloc_problem_free(&p);
		return dl_usage_error(ctx, "%s", err.msg);
	}
	if (a.throughputs) {
		if (dl_alloc_load_throughputs(a.throughputs, ctx->in_format, &tputs, &err)) {
			rc = dl_fail(ctx, &err);
			goto out;
		}
		tt = &tputs;
	}
	struct dl_reader *r = dl_in_open(ctx, a.jobs);
	if (!r)
		goto data_error;
	rc = dl_alloc_read_jobs(r, tt, a.entity_col, &p, &err);
	dl_reader_close(r);
	if (rc) {
		rc = dl_fail(ctx, &err);
		goto out;
	}
	if (a.o.pack && dl_alloc_policy_info(a.o.policy)->lp) /* (gandiva pairs its own way) */
		dl_alloc_prune_pairs(&p, a.pairs);
	if (a.o.policy == DL_ALLOC_MIN_COST && a.strict_slo)
		a.o.strict_slo = 1;
	if (dl_alloc_solve(&p, &a.o, &res, &err)) {
		rc = err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
					       : dl_fail(ctx, &err);
		goto out;
	}
	if (res.note[0])
		dl_warn(ctx, "%s", res.note);
	if (res.merged_pairs)
		dl_info(ctx,
			"%s: %zu jobs, %zu GPU types, all pairs of jobs in %zu pairs of classes",
			dl_alloc_policy_name(a.o.policy), p.njobs, p.ntypes, res.merged_pairs);
	else
		dl_info(ctx, "%s: %zu jobs, %zu GPU types, %zu candidate pairs",
			dl_alloc_policy_name(a.o.policy), p.njobs, p.ntypes, p.npairs);
	dl_info(ctx, "objective %.10g (%s)", res.objective, res.objective_name);
	if (res.merged)
		dl_info(ctx, "identical jobs merged: %zu LP classes for %zu jobs", res.merged,
			p.njobs);
	if (res.lp_solves)
		dl_info(ctx,
			"status optimal; lp objective %.10g; %d rows, %d columns; %d solves "
			"in %.3f s",
			res.lp_objective, res.lp_rows, res.lp_cols, res.lp_solves, res.lp_seconds);
	rc = write_allocation(ctx, &p, &res, a.o.pack);
	goto out;
data_error:
	rc = DL_EXIT_DATA;
out:
	dl_alloc_result_free(&res);
	dl_tputs_free(&tputs);
	dl_alloc_problem_free(&p);
	return rc;
}
