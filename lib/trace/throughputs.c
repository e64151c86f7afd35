/* throughputs.c: the throughputs table, its stream reader and Gavel's JSON */
#include "trace/throughputs.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

static void make_key(struct strbuf *sb, const char *model, const char *gpu_type, int64_t gpus,
		     const char *partner)
{
	/* unit separator: cannot appear in any sensible name, and names are compared
	 * whole */
	sb_reset(sb);
	sb_addstr(sb, model);
	sb_addc(sb, 0x1f);
	sb_addstr(sb, gpu_type);
	sb_addf(sb, "\x1f%lld\x1f", (long long)gpus);
	sb_addstr(sb, partner ? partner : "");
}

void dl_tputs_free(struct dl_tputs *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].model);
		free(t->v[i].gpu_type);
		free(t->v[i].partner);
	}
	free(t->v);
	strmap_free(&t->index);
	memset(t, 0, sizeof(*t));
}

static const char *describe(const struct dl_tput *e, struct strbuf *sb)
{
	sb_reset(sb);
	sb_addf(sb, "model '%s' on %lld '%s'", e->model, (long long)e->gpus, e->gpu_type);
	if (e->partner && *e->partner)
		sb_addf(sb, " with partner '%s'", e->partner);
	return sb->buf;
}

int dl_tputs_add(struct dl_tputs *t, const struct dl_tput *e, const char *file, struct dl_err *err)
{
	struct strbuf key = STRBUF_INIT, what = STRBUF_INIT;
	make_key(&key, e->model, e->gpu_type, e->gpus, e->partner);
	int64_t *have = strmap_getn(&t->index, key.buf, key.len);
	if (have) {
		const struct dl_tput *old = &t->v[*have];
		if (old->line > 0)
			dl_err_at(err, file ? file : "", e->line,
				  "duplicate throughput for %s (first on line %ld)",
				  describe(e, &what), old->line);
		else
			dl_err_at(err, file ? file : "", e->line, "duplicate throughput for %s",
				  describe(e, &what));
		sb_release(&key);
		sb_release(&what);
		return -1;
	}
	DL_GROW(t->v, t->n + 1, t->alloc);
	struct dl_tput *n = &t->v[t->n];
	n->model = xstrdup(e->model);
	n->gpu_type = xstrdup(e->gpu_type);
	n->gpus = e->gpus;
	n->partner = xstrdup(e->partner ? e->partner : "");
	n->throughput = e->throughput;
	n->partner_throughput = *n->partner ? e->partner_throughput : -1;
	n->line = e->line;
	if (*n->partner)
		t->has_partner = 1;
	strmap_putn(&t->index, key.buf, key.len, (int64_t)t->n);
	t->n++;
	sb_release(&key);
	sb_release(&what);
	return 0;
}

int dl_tputs_add_reader(struct dl_tputs *t, struct dl_reader *r, struct dl_err *err)
{
	if (!dl_reader_ncols(r))
		return 0; /* 0 bytes: a stream without rows (dlsched-formats(5), EMPTY INPUT) */
	int cm = dl_reader_require(r, "model", NULL, err);
	int ct = cm < 0 ? -1 : dl_reader_require(r, "gpu_type", NULL, err);
	int cg = ct < 0 ? -1 : dl_reader_require(r, "gpus", NULL, err);
	int cv = cg < 0 ? -1 : dl_reader_require(r, "throughput", NULL, err);
	if (cv < 0)
		return -1;
	int cp = dl_reader_col(r, "partner");
	int cpv = dl_reader_col(r, "partner_throughput");
	const char *name = dl_reader_name(r);
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		struct dl_tput e = {0};
		e.line = row.line;
		e.model = row.f[cm];
		e.gpu_type = row.f[ct];
		e.partner = (char *)dl_field_str(&row, cp);
		e.partner_throughput = -1;
		if (!*e.model)
			return dl_err_at(err, name, row.line, "empty model value");
		if (!*e.gpu_type)
			return dl_err_at(err, name, row.line, "empty gpu_type value");
		if (dl_parse_int64(row.f[cg], &e.gpus) || e.gpus < 1)
			return dl_err_at(err, name, row.line,
					 "bad gpus value '%.64s': expected an integer >= 1",
					 row.f[cg]);
		if (dl_parse_nonneg(row.f[cv], &e.throughput))
			return dl_err_at(err, name, row.line,
					 "bad throughput value '%.64s': expected a number >= 0",
					 row.f[cv]);
		const char *pv = dl_field_str(&row, cpv);
		if (*pv) {
			if (!*e.partner)
				return dl_err_at(err, name, row.line,
						 "partner_throughput given without a partner");
			if (dl_parse_nonneg(pv, &e.partner_throughput))
				return dl_err_at(err, name, row.line,
						 "bad partner_throughput value '%.64s': expected a "
						 "number >= 0",
						 pv);
		}
		if (dl_tputs_add(t, &e, name, err))
			return -1;
	}
	return got < 0 ? -1 : 0;
}

int dl_tputs_load(struct dl_tputs *t, const char *path, enum dl_in_format fmt, struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, fmt, err);
	if (!r)
		return -1;
	int rc = dl_tputs_add_reader(t, r, err);
	dl_reader_close(r);
	return rc;
}

/* Parse Gavel's "('MODEL', S)" (utils.parse_job_type_tuple); model into sb. */
static int parse_job_type(const char *s, struct strbuf *model, int64_t *scale)
{
	size_t len = strlen(s);
	if (len < 7 || strncmp(s, "('", 2) || s[len - 1] != ')')
		return -1;
	/* the model may itself contain "', " so split at the last one, as the greedy
	 * regex does */
	const char *sep = NULL;
	for (const char *p = s + 2; (p = strstr(p, "', ")); p++)
		sep = p;
	if (!sep)
		return -1;
	char num[32];
	size_t nlen = (size_t)(s + len - 1 - (sep + 3));
	if (nlen == 0 || nlen >= sizeof(num))
		return -1;
	memcpy(num, sep + 3, nlen);
	num[nlen] = 0;
	for (size_t i = 0; i < nlen; i++)
		if (num[i] < '0' || num[i] > '9')
			return -1;
	if (dl_parse_int64(num, scale) || *scale < 1)
		return -1;
	sb_reset(model);
	sb_add(model, s + 2, (size_t)(sep - (s + 2)));
	return model->len ? 0 : -1;
}

static int json_number(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return -1;
	double d = json_number_value(v);
	if (!(d >= 0) || d > 1e300)
		return -1;
	*out = d;
	return 0;
}

static int import_root(struct dl_tputs *t, const char *name, json_t *root, struct dl_err *err)
{
	int rc = -1;
	size_t added = 0;
	struct strbuf model = STRBUF_INIT, partner = STRBUF_INIT;
	if (!json_is_object(root)) {
		dl_err_at(err, name, 0, "expected a JSON object of GPU types");
		goto out;
	}
	const char *wt, *jk, *pk;
	json_t *jobs, *entry, *pv;
	json_object_foreach (root, wt, jobs) {
		if (!*wt || !json_is_object(jobs)) {
			dl_err_at(err, name, 0, "GPU type '%.64s': expected an object of job types",
				  wt);
			goto out;
		}
		json_object_foreach (jobs, jk, entry) {
			int64_t scale;
			if (parse_job_type(jk, &model, &scale)) {
				dl_err_at(err, name, 0,
					  "GPU type '%.64s': bad job type '%.80s': expected "
					  "\"('MODEL', GPUS)\"",
					  wt, jk);
				goto out;
			}
			if (!json_is_object(entry)) {
				dl_err_at(err, name, 0, "'%.64s' on '%.64s': expected an object",
					  jk, wt);
				goto out;
			}
			json_object_foreach (entry, pk, pv) {
				struct dl_tput e = {0};
				e.model = model.buf;
				e.gpu_type = (char *)wt;
				e.gpus = scale;
				e.partner_throughput = -1;
				if (!strcmp(pk, "null")) {
					e.partner = "";
					if (json_number(pv, &e.throughput)) {
						dl_err_at(err, name, 0,
							  "'%.64s' on '%.64s': bad throughput", jk,
							  wt);
						goto out;
					}
				} else {
					int64_t pscale;
					if (parse_job_type(pk, &partner, &pscale) ||
					    pscale != scale) {
						dl_err_at(err, name, 0,
							  "'%.64s' on '%.64s': bad partner "
							  "'%.80s': expected \"('MODEL', %lld)\"",
							  jk, wt, pk, (long long)scale);
						goto out;
					}
					e.partner = partner.buf;
					if (!json_is_array(pv) || json_array_size(pv) != 2 ||
					    json_number(json_array_get(pv, 0), &e.throughput) ||
					    json_number(json_array_get(pv, 1),
							&e.partner_throughput)) {
						dl_err_at(
							err, name, 0,
							"'%.64s' with '%.64s' on '%.64s': "
							"expected [throughput, partner_throughput]",
							jk, pk, wt);
						goto out;
					}
				}
				if (dl_tputs_add(t, &e, name, err))
					goto out;
				added++;
			}
		}
	}
	if (!added) {
		/* every job would fall back to its type's speed: say so instead */
		dl_err_at(err, name, 0, "no throughputs in it");
		goto out;
	}
	rc = 0;
out:
	sb_release(&model);
	sb_release(&partner);
	return rc;
}

int dl_tputs_import_gavel_buf(struct dl_tputs *t, const char *name, const char *data, size_t len,
			      struct dl_err *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return dl_err_at(err, name, jerr.line, "bad JSON: %s", jerr.text);
	int rc = import_root(t, name, root, err);
	json_decref(root);
	return rc;
}

int dl_tputs_try_gavel_buf(struct dl_tputs *t, const char *name, const char *data, size_t len,
			   struct dl_err *err)
{
	json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, NULL);
	int gavel = json_is_object(root);
	const char *key;
	json_t *v;
	json_object_foreach (root, key, v)
		gavel = gavel && json_is_object(v);
	int rc = gavel ? import_root(t, name, root, err) : 1;
	json_decref(root);
	return rc;
}

int dl_tputs_import_gavel(struct dl_tputs *t, const char *path, struct dl_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	if (dl_read_file_max(path, &sb, DL_TPUTS_JSON_MAX, "a throughputs JSON", err)) {
		sb_release(&sb);
		return -1;
	}
	int rc = dl_tputs_import_gavel_buf(t, path && strcmp(path, "-") ? path : "<stdin>", sb.buf,
					   sb.len, err);
	sb_release(&sb);
	return rc;
}

const struct dl_tput *dl_tputs_find(const struct dl_tputs *t, const char *model,
				    const char *gpu_type, int64_t gpus, const char *partner)
{
	if (!t->n)
		return NULL;
	struct strbuf key = STRBUF_INIT;
	make_key(&key, model, gpu_type, gpus, partner);
	int64_t *at = strmap_getn(&t->index, key.buf, key.len);
	sb_release(&key);
	return at ? &t->v[*at] : NULL;
}

double dl_tputs_get(const struct dl_tputs *t, const char *model, const char *gpu_type, int64_t gpus)
{
	const struct dl_tput *e = dl_tputs_find(t, model, gpu_type, gpus, NULL);
	return e ? e->throughput : -1;
}

int dl_tputs_has_type(const struct dl_tputs *t, const char *gpu_type)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].gpu_type, gpu_type))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void dl_tputs_types(const struct dl_tputs *t, struct strbuf *sb)
{
	struct strmap seen = STRMAP_INIT;
	const char **v = NULL;
	size_t n = 0, alloc = 0;
	for (size_t i = 0; i < t->n; i++)
		if (strmap_put(&seen, t->v[i].gpu_type, 1)) {
			DL_GROW(v, n + 1, alloc);
			v[n++] = t->v[i].gpu_type;
		}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "%s%s", i ? ", " : "", v[i]);
	free(v);
	strmap_free(&seen);
}

static int cmp_tput(const void *a, const void *b)
{
	const struct dl_tput *x = a, *y = b;
	int c = strcmp(x->model, y->model);
	if (!c)
		c = strcmp(x->gpu_type, y->gpu_type);
	if (!c)
		c = (x->gpus > y->gpus) - (x->gpus < y->gpus);
	if (!c)
		c = strcmp(x->partner, y->partner);
	return c;
}

void dl_tputs_sort(struct dl_tputs *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_tput); /* keys are unique: order is total */
	struct strbuf key = STRBUF_INIT;
	for (size_t i = 0; i < t->n; i++) {
		make_key(&key, t->v[i].model, t->v[i].gpu_type, t->v[i].gpus, t->v[i].partner);
		strmap_putn(&t->index, key.buf, key.len, (int64_t)i);
	}
	sb_release(&key);
}

size_t dl_tputs_models(const struct dl_tputs *t, int64_t gpus, const char ***out)
{
	struct strmap seen = STRMAP_INIT;
	const char **v = NULL;
	size_t n = 0, alloc = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct dl_tput *e = &t->v[i];
		if (*e->partner || (gpus > 0 && e->gpus != gpus))
			continue;
		if (strmap_put(&seen, e->model, 1)) {
			DL_GROW(v, n + 1, alloc);
			v[n++] = e->model;
		}
	}
	strmap_free(&seen);
	*out = v;
	return n;
}

void dl_tputs_write(const struct dl_tputs *t, struct dl_writer *w)
{
	dl_writer_add_column(w, "model");
	dl_writer_add_column(w, "gpu_type");
	dl_writer_add_column(w, "gpus");
	dl_writer_add_column(w, "throughput");
	if (t->has_partner) {
		dl_writer_add_column(w, "partner");
		dl_writer_add_column(w, "partner_throughput");
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct dl_tput *e = &t->v[i];
		dl_writer_str(w, 0, e->model);
		dl_writer_str(w, 1, e->gpu_type);
		dl_writer_int(w, 2, e->gpus);
		dl_writer_double(w, 3, e->throughput);
		if (t->has_partner && *e->partner) {
			dl_writer_str(w, 4, e->partner);
			if (e->partner_throughput >= 0)
				dl_writer_double(w, 5, e->partner_throughput);
		}
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
}
