/* alloc_input.c: jobs, throughputs and cluster types for allocate (see alloc_input.h) */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/strmap.h"
#include "cluster/cluster.h"
#include "policy/alloc_input.h"
#include "trace/jobs.h"

/* ---- jobs ---- */

struct jobcols {
	int id, gpus, weight, model, steps, done, elapsed, slo, entity;
	int *tput; /* [ntypes], -1 when absent */
};

static int find_tput_col(struct dl_reader *r, const char *type)
{
	const char *const *cols = dl_reader_columns(r);
	for (size_t c = 0; c < dl_reader_ncols(r); c++)
		if (!strncmp(cols[c], "throughput_", 11) && !strcasecmp(cols[c] + 11, type))
			return (int)c;
	return -1;
}

/*
 * A number >= 0 and <= max. The limits keep every LP coefficient finite and
 * within what a double-precision simplex can scale (values beyond them are
 * not plausible steps, seconds or steps/s).
 */
static int bounded(struct dl_reader *r, struct dl_row *row, int col, double max, double *v,
		   struct dl_err *err)
{
	double x;
	if (dl_field_nonneg(r, row, col, &x, err))
		return -1;
	if (x > max)
		return dl_err_at(err, dl_reader_name(r), row->line,
				 "bad %s value '%s' (at most %g)", dl_reader_columns(r)[col],
				 row->f[col], max);
	*v = x;
	return 0;
}

static int opt_bounded(struct dl_reader *r, struct dl_row *row, int col, double max, double *v,
		       struct dl_err *err)
{
	if (col < 0 || !*row->f[col])
		return 0;
	return bounded(r, row, col, max, v, err);
}

/* a new class of jobs of this model on gpus GPUs (no pair throughputs yet) */
static int add_class(struct dl_alloc_problem *p, const char *model, int gpus)
{
	p->class_model = xreallocarray(p->class_model, p->nclasses + 1, sizeof(char *));
	p->class_gpus = xreallocarray(p->class_gpus, p->nclasses + 1, sizeof(int));
	p->class_model[p->nclasses] = xstrdup(model);
	p->class_gpus[p->nclasses] = gpus;
	return (int)p->nclasses++;
}

/* the pair throughputs between every two classes, from the table's partner rows */
static void pair_tables(struct dl_alloc_problem *p, const struct dl_tputs *tt)
{
	size_t n = p->ntypes, C = p->nclasses;
	if (!tt->has_partner || !C)
		return;
	free(p->pair_self);
	free(p->pair_other);
	p->pair_self = xcalloc(C * C * n, sizeof(double));
	p->pair_other = xcalloc(C * C * n, sizeof(double));
	for (size_t a = 0; a < C; a++)
		for (size_t b = 0; b < C; b++)
			for (size_t t = 0; t < n; t++) {
				size_t at = (a * C + b) * n + t;
				p->pair_self[at] = p->pair_other[at] = NAN;
				if (p->class_gpus[a] != p->class_gpus[b])
					continue;
				const struct dl_tput *e =
					dl_tputs_find(tt, p->class_model[a], p->type_names[t],
						      p->class_gpus[a], p->class_model[b]);
				if (e && e->partner_throughput >= 0) {
					p->pair_self[at] = e->throughput;
					p->pair_other[at] = e->partner_throughput;
					continue;
				}
				/* a pair given in one order serves both */
				e = dl_tputs_find(tt, p->class_model[b], p->type_names[t],
						  p->class_gpus[b], p->class_model[a]);
				if (e && e->partner_throughput >= 0) {
					p->pair_self[at] = e->partner_throughput;
					p->pair_other[at] = e->throughput;
				}
			}
}

int dl_alloc_read_jobs(struct dl_reader *r, const struct dl_tputs *tt, const char *entity_col,
		       struct dl_alloc_problem *p, struct dl_err *err)
{
	size_t n = p->ntypes;
	struct jobcols c;
	struct strmap classes = STRMAP_INIT;
	struct dl_idset ids = DL_IDSET_INIT;
	struct strbuf sb = STRBUF_INIT;
	double *tput = xcalloc(n + 1, sizeof(double));
	const char *name = dl_reader_name(r);
	int rc = 0, got = 0, any_tcol = 0;

	c.tput = xcalloc(n + 1, sizeof(int));
	if (!dl_reader_ncols(r)) /* empty input: no jobs */
		goto done;
	c.id = dl_reader_require(r, "id", "in a jobs stream", err);
	c.gpus = c.id < 0 ? -1 : dl_reader_require(r, "gpus", "in a jobs stream", err);
	if (c.gpus < 0)
		rc = -1;
	c.weight = dl_reader_col(r, "weight");
	c.model = dl_reader_col(r, "model");
	c.steps = dl_reader_col(r, "steps");
	c.done = dl_reader_col(r, "steps_done");
	c.elapsed = dl_reader_col(r, "elapsed");
	c.slo = dl_reader_col(r, "slo");
	c.entity = dl_reader_col(r, entity_col ? entity_col : "entity");
	for (size_t t = 0; t < n; t++) {
		c.tput[t] = find_tput_col(r, p->type_names[t]);
		any_tcol |= c.tput[t] >= 0;
	}
	if (!rc && !any_tcol && (c.model < 0 || !tt))
		rc = dl_err_set(err, DL_EXIT_DATA,
				"%s: no throughputs: give throughput_TYPE columns, or a 'model' "
				"column and --throughputs",
				name);
	struct dl_row row;
	while (!rc && (got = dl_reader_next(r, &row, err)) > 0) {
		const char *id = dl_field_str(&row, c.id);
		const char *model = dl_field_str(&row, c.model);
		int64_t gpus;
		if (!*id) {
			rc = dl_err_at(err, name, row.line, "empty id");
			break;
		}
		if (dl_idset_add(&ids, id, name, row.line, NULL, err) < 0) {
			rc = -1;
			break;
		}
		if (dl_field_int64(r, &row, c.gpus, &gpus, err)) {
			rc = -1;
			break;
		}
		if (gpus < 1 || gpus > 1 << 20) {
			rc = dl_err_at(err, name, row.line, "bad gpus value '%s'", row.f[c.gpus]);
			break;
		}
		for (size_t t = 0; t < n && !rc; t++) {
			tput[t] = NAN;
			if (c.tput[t] >= 0 && *row.f[c.tput[t]]) {
				if (bounded(r, &row, c.tput[t], 1e12, &tput[t], err))
					rc = -1;
			} else if (tt && *model) {
				tput[t] = dl_tputs_get(tt, model, p->type_names[t], gpus);
				if (tput[t] < 0)
					rc = dl_err_at(err, name, row.line,
						       "no throughput for model '%s' on %d x '%s'",
						       model, (int)gpus, p->type_names[t]);
			} else {
				rc = dl_err_at(err, name, row.line,
					       "job '%s' has no throughput on '%s' (no "
					       "throughput_%s value%s)",
					       id, p->type_names[t], p->type_names[t],
					       tt ? " and no model" : "");
			}
		}
		if (rc)
			break;
		size_t i = dl_alloc_problem_add_job(p, id, (int)gpus, tput);
		struct dl_alloc_job *j = &p->jobs[i];
		if (c.weight >= 0 && *row.f[c.weight]) {
			if (bounded(r, &row, c.weight, 1e6, &j->weight, err)) {
				rc = -1;
				break;
			}
			if (!(j->weight >= 1e-6)) {
				rc = dl_err_at(err, name, row.line,
					       "bad weight value '%s' (at least 1e-06)",
					       row.f[c.weight]);
				break;
			}
		}
		if (opt_bounded(r, &row, c.steps, 1e15, &j->steps, err) ||
		    opt_bounded(r, &row, c.done, 1e15, &j->steps_done, err) ||
		    opt_bounded(r, &row, c.elapsed, 1e12, &j->elapsed, err) ||
		    opt_bounded(r, &row, c.slo, 1e12, &j->slo, err)) {
			rc = -1;
			break;
		}
		if (c.entity >= 0 && *row.f[c.entity])
			j->entity = dl_alloc_problem_entity(p, row.f[c.entity]);
		if (*model) {
			sb_reset(&sb);
			sb_addf(&sb, "%s\x1f%d", model, (int)gpus);
			int64_t *k = strmap_get(&classes, sb.buf);
			if (!k) {
				strmap_put(&classes, sb.buf, (int64_t)p->nclasses);
				j->klass = add_class(p, model, (int)gpus);
			} else {
				j->klass = (int)*k;
			}
		}
	}
	if (got < 0)
		rc = -1;
	if (!rc && tt)
		pair_tables(p, tt);
done:
	dl_idset_free(&ids);
	strmap_free(&classes);
	sb_release(&sb);
	free(tput);
	free(c.tput);
	return rc;
}

int dl_alloc_model_class(const struct dl_alloc_problem *p, const char *model, int gpus)
{
	for (size_t c = 0; c < p->nclasses; c++)
		if (p->class_gpus[c] == gpus && !strcmp(p->class_model[c], model))
			return (int)c;
	return -1;
}

void dl_alloc_model_classes(struct dl_alloc_problem *p, const struct dl_tputs *tt)
{
	for (size_t k = 0; k < tt->n; k++) {
		const struct dl_tput *e = &tt->v[k];
		if (!*e->partner && e->gpus <= 1 << 20 &&
		    dl_alloc_model_class(p, e->model, (int)e->gpus) < 0)
			add_class(p, e->model, (int)e->gpus);
	}
	pair_tables(p, tt);
}

/* is the file JSON (Gavel's, or JSON Lines) by the readers' own test? 1, 0, or -1 */
static int is_json(const char *path, struct dl_err *err)
{
	struct dl_input *in = dl_input_open(path, err);
	if (!in)
		return -1;
	int fmt = dl_input_detect(in, err);
	dl_input_close(in);
	return fmt < 0 ? -1 : fmt == DL_IN_JSON;
}

int dl_alloc_load_throughputs(const char *path, enum dl_in_format fmt, struct dl_tputs *t,
			      struct dl_err *err)
{
	int file = strcmp(path, "-") && fmt != DL_IN_CSV;
	int json = file ? is_json(path, err) : 0;
	if (json < 0)
		return -1;
	struct strbuf doc = STRBUF_INIT;
	/*
	 * JSON is parsed whole (a Gavel document, or a JSON Lines record that
	 * may be as long): its size is bounded before any parse
	 */
	if (json && dl_read_file_max(path, &doc, DL_TPUTS_JSON_MAX, "a throughputs JSON", err)) {
		sb_release(&doc);
		return -1;
	}
	/* Gavel's shape, and only it, is Gavel's JSON: its errors are then the useful ones */
	int rc = json ? dl_tputs_try_gavel_buf(t, path, doc.buf, doc.len, err) : 1;
	sb_release(&doc);
	if (rc == 1)
		rc = dl_tputs_load(t, path, fmt, err);
	if (!rc && !t->n)
		rc = dl_err_at(err, strcmp(path, "-") ? path : "<stdin>", 0,
			       "no throughputs in it");
	return rc;
}

/* ---- cluster types ---- */

int dl_alloc_problem_from_cluster(const struct dl_cluster *c, struct dl_alloc_problem *p,
				  struct dl_err *err)
{
	size_t n = 0;
	for (size_t t = 0; t < c->ntypes; t++)
		n += dl_cluster_type_gpus(c, (int)t) > 0;
	if (!n)
		return dl_err_set(err, DL_EXIT_DATA, "cluster '%s' has no GPUs",
				  c->source ? c->source : "");
	dl_alloc_problem_init(p, n);
	n = 0;
	for (size_t t = 0; t < c->ntypes; t++) {
		int gpus = dl_cluster_type_gpus(c, (int)t);
		if (gpus > 0)
			dl_alloc_problem_set_type(p, n++, c->types[t].name, gpus,
						  c->types[t].cost_per_hour);
	}
	return 0;
}

int dl_alloc_cluster_types(const char *spec, struct dl_alloc_problem *p, struct dl_err *err)
{
	struct dl_cluster *c = NULL;
	if (dl_cluster_load(spec, &c, err))
		return -1;
	int rc = dl_alloc_problem_from_cluster(c, p, err);
	dl_cluster_free(c);
	return rc;
}

static int parse_list(const char *list, const char *opt,
		      int (*apply)(void *ctx, const char *name, double v, struct dl_err *err),
		      void *ctx, struct dl_err *err)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		double v;
		if (!eq || eq == tok || dl_parse_nonneg(eq + 1, &v)) {
			rc = dl_err_set(err, DL_EXIT_USAGE,
					"bad --%s item '%s' (expected NAME=NUMBER)", opt, tok);
			break;
		}
		*eq = 0;
		rc = apply(ctx, tok, v, err);
	}
	if (!rc && !*list)
		rc = dl_err_set(err, DL_EXIT_USAGE, "empty --%s", opt);
	free(copy);
	return rc;
}

static int apply_cost(void *ctx, const char *name, double v, struct dl_err *err)
{
	struct dl_alloc_problem *p = ctx;
	for (size_t t = 0; t < p->ntypes; t++)
		if (!strcasecmp(p->type_names[t], name)) {
			p->cost[t] = v;
			return 0;
		}
	return dl_err_set(err, DL_EXIT_USAGE, "--costs: the cluster has no GPU type '%s'", name);
}

static int apply_weight(void *ctx, const char *name, double v, struct dl_err *err)
{
	struct dl_alloc_problem *p = ctx;
	if (!(v > 0))
		return dl_err_set(err, DL_EXIT_USAGE,
				  "--entity-weights: weight of '%s' must be > 0", name);
	int e = dl_alloc_problem_entity(p, name); /* may move entity_weight */
	p->entity_weight[e] = v;
	return 0;
}

int dl_alloc_set_costs(struct dl_alloc_problem *p, const char *list, struct dl_err *err)
{
	return parse_list(list, "costs", apply_cost, p, err);
}

int dl_alloc_set_entity_weights(struct dl_alloc_problem *p, const char *list, struct dl_err *err)
{
	return parse_list(list, "entity-weights", apply_weight, p, err);
}
