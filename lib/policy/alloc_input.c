/* alloc_input.c: jobs, throughputs and cluster types for allocate (see alloc_input.h) */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/strmap.h"
#include "policy/alloc_input.h"

struct dl_alloc_tputs {
	struct strmap index; /* key -> slot in self/other */
	double *self, *other;
	size_t n, alloc;
	int has_pairs;
};

/* model \x1f gpus \x1f [partner \x1f] lower-case type */
static void tkey(struct strbuf *sb, const char *model, int gpus, const char *partner,
		 const char *type)
{
	sb_reset(sb);
	sb_addf(sb, "%s\x1f%d\x1f", model, gpus);
	if (partner)
		sb_addf(sb, "%s\x1f", partner);
	for (const char *c = type; *c; c++)
		sb_addc(sb, tolower((unsigned char)*c));
}

int dl_alloc_tputs_read(struct dl_reader *r, struct dl_alloc_tputs **out, struct dl_err *err)
{
	struct dl_alloc_tputs *tt = xcalloc(1, sizeof(*tt));
	struct strbuf key = STRBUF_INIT;
	const char *why = "in a throughputs stream";
	int cm = dl_reader_require(r, "model", why, err);
	int ct = cm < 0 ? -1 : dl_reader_require(r, "gpu_type", why, err);
	int cg = ct < 0 ? -1 : dl_reader_require(r, "gpus", why, err);
	int cv = cg < 0 ? -1 : dl_reader_require(r, "throughput", why, err);
	int cp = dl_reader_col(r, "partner"), cpv = dl_reader_col(r, "partner_throughput");
	int rc = cv < 0 ? -1 : 0;
	struct dl_row row;
	int got = 0;
	while (!rc && (got = dl_reader_next(r, &row, err)) > 0) {
		int64_t gpus;
		double v, pv = NAN;
		const char *model = dl_field_str(&row, cm), *type = dl_field_str(&row, ct);
		const char *partner = dl_field_str(&row, cp);
		if (dl_field_int64(r, &row, cg, &gpus, err) ||
		    dl_field_nonneg(r, &row, cv, &v, err)) {
			rc = -1;
			break;
		}
		if (gpus < 1 || gpus > 1 << 20) {
			rc = dl_err_at(err, dl_reader_name(r), row.line, "bad gpus value '%s'",
				       row.f[cg]);
			break;
		}
		if (!*model || !*type) {
			rc = dl_err_at(err, dl_reader_name(r), row.line, "empty %s",
				       *model ? "gpu_type" : "model");
			break;
		}
		if (*partner) {
			if (cpv < 0) {
				rc = dl_err_at(err, dl_reader_name(r), row.line,
					       "a partner needs a partner_throughput column");
				break;
			}
			if (dl_field_nonneg(r, &row, cpv, &pv, err)) {
				rc = -1;
				break;
			}
			tt->has_pairs = 1;
		}
		tkey(&key, model, (int)gpus, *partner ? partner : NULL, type);
		if (strmap_get(&tt->index, key.buf)) {
			rc = dl_err_at(err, dl_reader_name(r), row.line,
				       "duplicate throughput for model '%s'%s%s on %d x '%s'",
				       model, *partner ? " with partner " : "", partner, (int)gpus,
				       type);
			break;
		}
		DL_GROW(tt->self, tt->n + 1, tt->alloc);
		tt->other = xreallocarray(tt->other, tt->alloc, sizeof(double));
		tt->self[tt->n] = v;
		tt->other[tt->n] = pv;
		strmap_put(&tt->index, key.buf, (int64_t)tt->n);
		tt->n++;
	}
	if (got < 0)
		rc = -1;
	sb_release(&key);
	if (rc) {
		dl_alloc_tputs_free(tt);
		return -1;
	}
	*out = tt;
	return 0;
}

void dl_alloc_tputs_free(struct dl_alloc_tputs *tt)
{
	if (!tt)
		return;
	strmap_free(&tt->index);
	free(tt->self);
	free(tt->other);
	free(tt);
}

static int64_t *lookup(const struct dl_alloc_tputs *tt, struct strbuf *sb, const char *model,
		       int gpus, const char *partner, const char *type)
{
	tkey(sb, model, gpus, partner, type);
	return strmap_get(&tt->index, sb->buf);
}

double dl_alloc_tputs_get(const struct dl_alloc_tputs *tt, const char *model, int gpus,
			  const char *type)
{
	struct strbuf sb = STRBUF_INIT;
	int64_t *k = lookup(tt, &sb, model, gpus, NULL, type);
	sb_release(&sb);
	return k ? tt->self[*k] : NAN;
}

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

static int opt_nonneg(struct dl_reader *r, struct dl_row *row, int col, double *v,
		      struct dl_err *err)
{
	if (col < 0 || !*row->f[col])
		return 0;
	return dl_field_nonneg(r, row, col, v, err);
}

int dl_alloc_read_jobs(struct dl_reader *r, const struct dl_alloc_tputs *tt,
		       struct dl_alloc_problem *p, struct dl_err *err)
{
	size_t n = p->ntypes;
	struct jobcols c;
	struct strmap ids = STRMAP_INIT, classes = STRMAP_INIT;
	struct strbuf sb = STRBUF_INIT;
	char **class_model = NULL;
	int *class_gpus = NULL;
	double *tput = xcalloc(n + 1, sizeof(double));
	const char *name = dl_reader_name(r);
	int rc = 0, got = 0, any_tcol = 0;
	size_t C = 0;

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
	c.entity = dl_reader_col(r, "entity");
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
		if (strmap_get(&ids, id)) {
			rc = dl_err_at(err, name, row.line, "duplicate id '%s'", id);
			break;
		}
		strmap_put(&ids, id, 1);
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
				if (dl_field_nonneg(r, &row, c.tput[t], &tput[t], err))
					rc = -1;
			} else if (tt && *model) {
				tput[t] =
					dl_alloc_tputs_get(tt, model, (int)gpus, p->type_names[t]);
				if (isnan(tput[t]))
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
			if (dl_field_nonneg(r, &row, c.weight, &j->weight, err)) {
				rc = -1;
				break;
			}
			if (!(j->weight > 0)) {
				rc = dl_err_at(err, name, row.line,
					       "bad weight value '%s' (must be > 0)",
					       row.f[c.weight]);
				break;
			}
		}
		if (opt_nonneg(r, &row, c.steps, &j->steps, err) ||
		    opt_nonneg(r, &row, c.done, &j->steps_done, err) ||
		    opt_nonneg(r, &row, c.elapsed, &j->elapsed, err) ||
		    opt_nonneg(r, &row, c.slo, &j->slo, err)) {
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
				class_model =
					xreallocarray(class_model, p->nclasses + 1, sizeof(char *));
				class_gpus =
					xreallocarray(class_gpus, p->nclasses + 1, sizeof(int));
				class_model[p->nclasses] = xstrdup(model);
				class_gpus[p->nclasses] = (int)gpus;
				strmap_put(&classes, sb.buf, (int64_t)p->nclasses);
				j->klass = (int)p->nclasses++;
			} else {
				j->klass = (int)*k;
			}
		}
	}
	if (got < 0)
		rc = -1;
	/* pair throughputs between the classes present */
	C = p->nclasses;
	if (!rc && tt && tt->has_pairs && C) {
		p->pair_self = xcalloc(C * C * n, sizeof(double));
		p->pair_other = xcalloc(C * C * n, sizeof(double));
		for (size_t a = 0; a < C; a++)
			for (size_t b = 0; b < C; b++)
				for (size_t t = 0; t < n; t++) {
					size_t at = (a * C + b) * n + t;
					p->pair_self[at] = p->pair_other[at] = NAN;
					if (class_gpus[a] != class_gpus[b])
						continue;
					int64_t *k = lookup(tt, &sb, class_model[a], class_gpus[a],
							    class_model[b], p->type_names[t]);
					if (k) {
						p->pair_self[at] = tt->self[*k];
						p->pair_other[at] = tt->other[*k];
						continue;
					}
					k = lookup(tt, &sb, class_model[b], class_gpus[b],
						   class_model[a], p->type_names[t]);
					if (k) {
						p->pair_self[at] = tt->other[*k];
						p->pair_other[at] = tt->self[*k];
					}
				}
	}
done:
	for (size_t k = 0; k < C; k++)
		free(class_model[k]);
	free(class_model);
	free(class_gpus);
	strmap_free(&ids);
	strmap_free(&classes);
	sb_release(&sb);
	free(tput);
	free(c.tput);
	return rc;
}

/* ---- cluster types ---- */

static int add_type(struct dl_alloc_problem *p, const char *name, size_t len, double gpus)
{
	for (size_t t = 0; t < p->ntypes; t++)
		if (strlen(p->type_names[t]) == len && !strncasecmp(p->type_names[t], name, len)) {
			p->capacity[t] += gpus;
			return (int)t;
		}
	size_t t = p->ntypes++;
	p->type_names = xreallocarray(p->type_names, p->ntypes, sizeof(char *));
	p->capacity = xreallocarray(p->capacity, p->ntypes, sizeof(double));
	p->cost = xreallocarray(p->cost, p->ntypes, sizeof(double));
	p->type_names[t] = xstrndup(name, len);
	for (char *c = p->type_names[t]; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	p->capacity[t] = gpus;
	p->cost[t] = 0;
	return (int)t;
}

static int parse_count(const char *s, size_t len, long long *out)
{
	char buf[32];
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	return dl_parse_int_range(buf, 0, 1 << 24, out);
}

int dl_alloc_cluster_types(const char *spec, struct dl_alloc_problem *p, struct dl_err *err)
{
	dl_alloc_problem_init(p, 0);
	const char *s = spec;
	long long v[3];
	/* Gavel's V:P:K */
	if (strchr(s, ':') && !strchr(s, 'x')) {
		static const char *const gavel[3] = {"v100", "p100", "k80"};
		const char *q = s;
		int k = 0;
		for (; k < 3; k++) {
			const char *e = strchr(q, ':');
			size_t len = e ? (size_t)(e - q) : strlen(q);
			if (parse_count(q, len, &v[k]))
				break;
			q += len;
			if (!e)
				break;
			q++;
		}
		if (k != 2 || *q)
			goto bad;
		for (k = 0; k < 3; k++)
			if (v[k] > 0)
				add_type(p, gavel[k], strlen(gavel[k]), (double)v[k]);
	} else {
		/* RACKSxNODESxGPUS[:TYPE], ... */
		while (*s) {
			const char *e = strchr(s, ',');
			size_t len = e ? (size_t)(e - s) : strlen(s);
			const char *colon = memchr(s, ':', len);
			size_t dims_len = colon ? (size_t)(colon - s) : len;
			const char *q = s;
			for (int k = 0; k < 3; k++) {
				const char *x =
					k < 2 ? memchr(q, 'x', dims_len - (size_t)(q - s)) : NULL;
				size_t l = k < 2 ? (x ? (size_t)(x - q) : 0)
						 : dims_len - (size_t)(q - s);
				if ((k < 2 && !x) || parse_count(q, l, &v[k]))
					goto bad;
				q += l + 1;
			}
			const char *type = colon ? colon + 1 : "v100";
			size_t tlen = colon ? len - dims_len - 1 : 4;
			if (!tlen)
				goto bad;
			for (size_t k = 0; k < tlen; k++)
				if (!isalnum((unsigned char)type[k]) && type[k] != '_' &&
				    type[k] != '-')
					goto bad;
			if (v[0] * v[1] * v[2] > 0)
				add_type(p, type, tlen, (double)(v[0] * v[1] * v[2]));
			s += len;
			if (*s)
				s++;
			if (e && !*s)
				goto bad;
		}
	}
	if (!p->ntypes)
		return dl_err_set(err, DL_EXIT_USAGE, "cluster '%s' has no GPUs", spec);
	return 0;
bad:
	dl_alloc_problem_free(p);
	return dl_err_set(err, DL_EXIT_USAGE,
			  "bad cluster '%s' (expected V:P:K or RACKSxNODESxGPUS[:TYPE],...)", spec);
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
