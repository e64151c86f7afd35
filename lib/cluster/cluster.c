/*
 * cluster.c: loading a cluster model from any of the SPEC forms of cluster.h.
 *
 * Every form is turned into calls on a small builder (add a type, a rack, a
 * run of identical nodes), and finish() computes the derived fields (global
 * GPU numbering, totals), so all forms produce the same shape of cluster.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cluster/cluster.h"
#include "core/io.h"
#include "core/num.h"

/*
 * Built-in GPU types. Speeds of k80 and p100 are the geometric mean, over
 * Gavel's 26 single-GPU model configurations (simulation_throughputs.json),
 * of their throughput relative to v100. The others are rough ratios of vendor
 * training throughput and say so in the man page; a JSON spec overrides any
 * of them. Prices are approximate cloud on-demand list prices per GPU-hour
 * (k80/p100/v100 are the ones Gavel's cost policies use).
 */
static const struct dl_gpu_type builtin_types[] = {
	{"v100", 1.0, 16, 2.48}, {"v100m32", 1.0, 32, 2.48}, {"p100", 0.94, 16, 1.46},
	{"k80", 0.30, 12, 0.45}, {"t4", 0.45, 16, 0.35},     {"a100", 2.0, 40, 2.93},
	{"h100", 3.5, 80, 9.80}, {"misc", 0.5, 12, 0.45},
};

/* Defaults, per GPU: NVLink-class inside a node, one 100 Gb/s NIC share in a
 * rack, a 4:1 oversubscribed spine across racks. */
static const struct dl_link default_links[DL_NTIERS] = {
	{1200.0, 2.0},
	{100.0, 10.0},
	{25.0, 30.0},
};

const struct dl_gpu_type *dl_gpu_builtins(size_t *n)
{
	*n = DL_ARRAY_SIZE(builtin_types);
	return builtin_types;
}

const struct dl_gpu_type *dl_gpu_builtin(const char *name)
{
	for (size_t i = 0; i < DL_ARRAY_SIZE(builtin_types); i++)
		if (!strcasecmp(builtin_types[i].name, name))
			return &builtin_types[i];
	return NULL;
}

void dl_cluster_default_links(struct dl_link link[DL_NTIERS])
{
	memcpy(link, default_links, sizeof(default_links));
}

const char *dl_tier_name(enum dl_tier t)
{
	static const char *const names[] = {"node", "rack", "cluster"};
	return (unsigned)t < DL_NTIERS ? names[t] : "?";
}

int dl_cluster_type_index(const struct dl_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->ntypes; i++)
		if (!strcasecmp(c->types[i].name, name))
			return (int)i;
	return -1;
}

int dl_cluster_type_gpus(const struct dl_cluster *c, int type)
{
	int n = 0;
	for (size_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].type == type)
			n += c->nodes[i].gpus;
	return n;
}

int dl_cluster_node_index(const struct dl_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->nnodes; i++)
		if (!strcmp(c->nodes[i].name, name))
			return (int)i;
	return -1;
}

int dl_cluster_gpu_node(const struct dl_cluster *c, int gpu)
{
	int lo = 0, hi = (int)c->nnodes - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (c->nodes[mid].first_gpu <= gpu)
			lo = mid;
		else
			hi = mid - 1;
	}
	/* zero-GPU nodes share first_gpu with the next node: step back to the owner */
	while (lo > 0 && c->nodes[lo].gpus == 0)
		lo--;
	return lo;
}

void dl_cluster_free(struct dl_cluster *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntypes; i++)
		free(c->types[i].name);
	for (size_t i = 0; i < c->nracks; i++)
		free(c->racks[i].name);
	for (size_t i = 0; i < c->nnodes; i++)
		free(c->nodes[i].name);
	free(c->types);
	free(c->racks);
	free(c->nodes);
	free(c->source);
	free(c);
}

/* ---- builder ---- */

struct build {
	struct dl_cluster *c;
	size_t atypes, aracks, anodes;
	const char *where; /* for messages: the file or the spec text */
	long long gpus;
};

static char *lower_dup(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

static int add_type(struct build *b, const char *name, double speed, double mem, double cost)
{
	struct dl_cluster *c = b->c;
	int i = dl_cluster_type_index(c, name);
	if (i < 0) {
		DL_GROW(c->types, c->ntypes + 1, b->atypes);
		i = (int)c->ntypes++;
		c->types[i].name = lower_dup(name);
	}
	c->types[i].speed = speed;
	c->types[i].memory_gb = mem;
	c->types[i].cost_per_hour = cost;
	return i;
}

/* index of a type already in the cluster or built in (added on first use), or -1 */
static int use_type(struct build *b, const char *name)
{
	int i = dl_cluster_type_index(b->c, name);
	if (i >= 0)
		return i;
	const struct dl_gpu_type *t = dl_gpu_builtin(name);
	if (!t)
		return -1;
	return add_type(b, t->name, t->speed, t->memory_gb, t->cost_per_hour);
}

static int add_rack(struct build *b, const char *name, struct dl_err *err)
{
	struct dl_cluster *c = b->c;
	if (c->nracks >= DL_CLUSTER_MAX_RACKS)
		return dl_err_at(err, b->where, 0, "more than %d racks", DL_CLUSTER_MAX_RACKS);
	DL_GROW(c->racks, c->nracks + 1, b->aracks);
	struct dl_rack *r = &c->racks[c->nracks];
	if (name)
		r->name = xstrdup(name);
	else {
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "r%zu", c->nracks);
		r->name = sb_detach(&sb);
	}
	r->first_node = (int)c->nnodes;
	r->nnodes = 0;
	c->nracks++;
	return 0;
}

/*
 * Append `count` nodes to the last rack. `name` (may be NULL) names the node;
 * with count > 1 an index is appended. Returns -1 past the size limits.
 */
static int add_nodes(struct build *b, long long count, long long gpus, int type, int cpus,
		     double mem, const char *name, struct dl_err *err)
{
	struct dl_cluster *c = b->c;
	struct dl_rack *r = &c->racks[c->nracks - 1];
	if (count < 0 || gpus < 0)
		return dl_err_at(err, b->where, 0, "negative node or GPU count");
	if (gpus > DL_NODE_MAX_GPUS)
		return dl_err_at(err, b->where, 0, "more than %d GPUs on one node",
				 DL_NODE_MAX_GPUS);
	if (count > DL_CLUSTER_MAX_NODES || (long long)c->nnodes + count > DL_CLUSTER_MAX_NODES)
		return dl_err_at(err, b->where, 0, "more than %d nodes", DL_CLUSTER_MAX_NODES);
	if (gpus > DL_CLUSTER_MAX_GPUS || b->gpus + count * gpus > DL_CLUSTER_MAX_GPUS)
		return dl_err_at(err, b->where, 0, "more than %d GPUs", DL_CLUSTER_MAX_GPUS);
	b->gpus += count * gpus;
	for (long long k = 0; k < count; k++) {
		DL_GROW(c->nodes, c->nnodes + 1, b->anodes);
		struct dl_node *n = &c->nodes[c->nnodes];
		struct strbuf sb = STRBUF_INIT;
		if (name && count == 1)
			sb_addstr(&sb, name);
		else if (name)
			sb_addf(&sb, "%s%lld", name, k);
		else
			sb_addf(&sb, "%sn%d", r->name, r->nnodes);
		n->name = sb_detach(&sb);
		n->rack = (int)c->nracks - 1;
		n->type = type;
		n->gpus = (int)gpus;
		n->first_gpu = 0;
		n->cpus = cpus;
		n->mem_gb = mem;
		c->nnodes++;
		r->nnodes++;
	}
	return 0;
}

static int finish(struct build *b, struct dl_err *err)
{
	struct dl_cluster *c = b->c;
	long long g = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		c->nodes[i].first_gpu = (int)g;
		g += c->nodes[i].gpus;
	}
	if (g <= 0)
		return dl_err_at(err, b->where, 0, "the cluster has no GPUs");
	c->total_gpus = (int)g;
	return 0;
}

/* ---- shorthand: RACKSxNODESxGPUS[:TYPE][,...] ---- */

static int parse_count(const char *s, size_t len, long long *out)
{
	char buf[32];
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)buf[i]))
			return -1;
	return dl_parse_int_range(buf, 0, DL_CLUSTER_MAX_GPUS, out);
}

static int parse_shorthand(struct build *b, const char *spec, struct dl_err *err)
{
	const char *p = spec;
	if (!*p)
		return dl_err_set(err, DL_EXIT_DATA, "empty cluster spec");
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		size_t dims_len = colon ? (size_t)(colon - p) : len;
		long long v[3];
		const char *q = p;
		int k;
		for (k = 0; k < 3; k++) {
			const char *x = k < 2 ? memchr(q, 'x', dims_len - (size_t)(q - p)) : NULL;
			size_t l = x ? (size_t)(x - q) : dims_len - (size_t)(q - p);
			if (k < 2 && !x)
				break;
			if (parse_count(q, l, &v[k]) < 0)
				break;
			q += l + (x ? 1 : 0);
		}
		if (k < 3)
			return dl_err_set(err, DL_EXIT_DATA,
					  "bad cluster spec '%.*s' (want RACKSxNODESxGPUS[:TYPE], "
					  "a file, or V:P:K)",
					  (int)len, p);
		char tname[64];
		int type;
		if (colon) {
			size_t tl = len - dims_len - 1;
			if (!tl || tl >= sizeof(tname))
				return dl_err_set(err, DL_EXIT_DATA, "bad GPU type in '%.*s'",
						  (int)len, p);
			memcpy(tname, colon + 1, tl);
			tname[tl] = '\0';
			type = use_type(b, tname);
			if (type < 0)
				return dl_err_set(err, DL_EXIT_DATA,
						  "unknown GPU type '%s' in cluster spec", tname);
		} else {
			type = use_type(b, builtin_types[0].name);
		}
		if (v[0] > 100000 || v[1] > DL_CLUSTER_MAX_NODES)
			return dl_err_set(err, DL_EXIT_DATA, "cluster spec '%.*s' is too large",
					  (int)len, p);
		if (v[0] * v[1] > DL_CLUSTER_MAX_NODES || v[0] * v[1] * v[2] > DL_CLUSTER_MAX_GPUS)
			return dl_err_set(err, DL_EXIT_DATA, "cluster spec '%.*s' is too large",
					  (int)len, p);
		for (long long r = 0; r < v[0]; r++) {
			if (add_rack(b, NULL, err) < 0 ||
			    add_nodes(b, v[1], v[2], type, 0, 0, NULL, err) < 0)
				return -1;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return dl_err_set(err, DL_EXIT_DATA, "cluster spec ends with ','");
		}
	}
	return 0;
}

/* ---- Gavel V:P:K[/S:S:S] ---- */

static int is_vpk(const char *s)
{
	int colons = 0, slashes = 0;
	for (const char *p = s; *p; p++) {
		if (*p == ':' || *p == '/') {
			colons += *p == ':';
			slashes += *p == '/';
		} else if (!isdigit((unsigned char)*p)) {
			return 0;
		}
	}
	return colons == 2 * (1 + slashes) && slashes <= 1;
}

static int parse_counts3(const char *s, size_t len, long long v[3])
{
	const char *p = s, *end = s + len;
	for (int k = 0; k < 3; k++) {
		const char *c = k < 2 ? memchr(p, ':', (size_t)(end - p)) : end;
		if (!c || parse_count(p, (size_t)(c - p), &v[k]) < 0)
			return -1;
		p = c + 1;
	}
	return 0;
}

static int parse_vpk(struct build *b, const char *spec, struct dl_err *err)
{
	static const char *const names[3] = {"v100", "p100", "k80"};
	long long n[3], per[3] = {1, 1, 1};
	const char *slash = strchr(spec, '/');
	size_t l1 = slash ? (size_t)(slash - spec) : strlen(spec);
	if (parse_counts3(spec, l1, n) < 0 ||
	    (slash && parse_counts3(slash + 1, strlen(slash + 1), per) < 0))
		return dl_err_set(err, DL_EXIT_DATA,
				  "bad Gavel cluster spec '%s' (want V:P:K or V:P:K/S:S:S)", spec);
	for (int k = 0; k < 3; k++) {
		if (!n[k])
			continue;
		if (per[k] <= 0 || n[k] % per[k])
			return dl_err_set(err, DL_EXIT_DATA,
					  "Gavel cluster spec '%s': %lld %s GPUs do not fill "
					  "servers of %lld",
					  spec, n[k], names[k], per[k]);
		int type = use_type(b, names[k]);
		if (add_rack(b, names[k], err) < 0 ||
		    add_nodes(b, n[k] / per[k], per[k], type, 0, 0, NULL, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- line-oriented files: Tiresias cluster_spec and the PAI machine table ---- */

struct line {
	char *text;
	long no;
};

static size_t split_lines(char *buf, struct line **out)
{
	size_t n = 0, alloc = 0;
	struct line *v = NULL;
	long no = 0;
	char *p = buf;
	while (*p) {
		char *e = strchr(p, '\n');
		no++;
		if (e)
			*e = '\0';
		size_t l = strlen(p);
		if (l && p[l - 1] == '\r')
			p[--l] = '\0';
		char *t = p;
		while (*t == ' ' || *t == '\t')
			t++;
		if (*t) {
			DL_GROW(v, n + 1, alloc);
			v[n].text = p;
			v[n].no = no;
			n++;
		}
		if (!e)
			break;
		p = e + 1;
	}
	*out = v;
	return n;
}

/* split s in place at ','; returns the number of fields (at most max) */
static int split_commas(char *s, char **f, int max)
{
	int n = 0;
	for (;;) {
		if (n == max)
			return max + 1;
		f[n++] = s;
		char *c = strchr(s, ',');
		if (!c)
			return n;
		*c = '\0';
		s = c + 1;
	}
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t l = strlen(s);
	while (l && isspace((unsigned char)s[l - 1]))
		s[--l] = '\0';
	return s;
}

static int parse_tiresias(struct build *b, struct line *lines, size_t n, struct dl_err *err)
{
	static const char *const want[] = {"num_switch", "num_node_p_switch", "num_gpu_p_node",
					   "num_cpu_p_node", "mem_p_node"};
	char *h[8], *f[8];
	int nh = split_commas(lines[0].text, h, 7);
	if (n < 2)
		return dl_err_at(err, b->where, lines[0].no, "cluster_spec has no data row");
	if (n > 2)
		return dl_err_at(err, b->where, lines[2].no,
				 "cluster_spec has more than one data row");
	int nf = split_commas(lines[1].text, f, 7);
	if (nf != nh)
		return dl_err_at(err, b->where, lines[1].no, "expected %d fields, found %d", nh,
				 nf);
	long long v[5] = {0, 0, 0, 0, 0};
	int seen[5] = {0};
	for (int i = 0; i < nh; i++) {
		char *name = trim(h[i]);
		for (int k = 0; k < 5; k++) {
			if (strcmp(name, want[k]))
				continue;
			char *val = trim(f[i]);
			if (dl_parse_int_range(val, 0, DL_CLUSTER_MAX_GPUS, &v[k]) < 0)
				return dl_err_at(err, b->where, lines[1].no, "bad %s value '%s'",
						 want[k], val);
			seen[k] = 1;
		}
	}
	for (int k = 0; k < 3; k++)
		if (!seen[k])
			return dl_err_at(err, b->where, lines[0].no, "missing required column '%s'",
					 want[k]);
	if (v[0] * v[1] > DL_CLUSTER_MAX_NODES)
		return dl_err_at(err, b->where, lines[1].no, "more than %d nodes",
				 DL_CLUSTER_MAX_NODES);
	int type = use_type(b, builtin_types[0].name);
	for (long long s = 0; s < v[0]; s++) {
		if (add_rack(b, NULL, err) < 0 ||
		    add_nodes(b, v[1], v[2], type, (int)v[3], (double)v[4], NULL, err) < 0)
			return -1;
	}
	return 0;
}

/* Alibaba PAI pai_machine_spec.csv: machine,gpu_type,cap_cpu,cap_mem,cap_gpu (no header). */
struct pai_row {
	char *machine;
	int type;
	long long cpu, gpu;
	double mem;
};

static int pai_cmp(const void *a, const void *b)
{
	const struct pai_row *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	/* stable: keep file order within a type (machine pointers increase with it) */
	return x->machine < y->machine ? -1 : x->machine > y->machine;
}

static int parse_pai(struct build *b, struct line *lines, size_t n, struct dl_err *err)
{
	struct pai_row *rows = xcalloc(n, sizeof(*rows));
	size_t nr = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char *f[6];
		if (split_commas(lines[i].text, f, 5) != 5) {
			rc = dl_err_at(
				err, b->where, lines[i].no,
				"not a cluster spec: expected the 5 fields of a PAI machine table "
				"(machine,gpu_type,cap_cpu,cap_mem,cap_gpu)");
			break;
		}
		struct pai_row *r = &rows[nr];
		const char *tn = trim(f[1]);
		if (dl_parse_int_range(trim(f[4]), 0, 1024, &r->gpu) < 0) {
			rc = dl_err_at(err, b->where, lines[i].no, "bad cap_gpu value '%s'", f[4]);
			break;
		}
		if (dl_parse_int_range(trim(f[2]), 0, 1 << 20, &r->cpu) < 0) {
			rc = dl_err_at(err, b->where, lines[i].no, "bad cap_cpu value '%s'", f[2]);
			break;
		}
		if (dl_parse_nonneg(trim(f[3]), &r->mem) < 0) {
			rc = dl_err_at(err, b->where, lines[i].no, "bad cap_mem value '%s'", f[3]);
			break;
		}
		if (!r->gpu)
			continue; /* CPU-only machine */
		r->type = use_type(b, tn);
		if (r->type < 0) {
			rc = dl_err_at(err, b->where, lines[i].no, "unknown GPU type '%s'", tn);
			break;
		}
		r->machine = trim(f[0]);
		nr++;
	}
	if (!rc) {
		/* PAI has no rack data: one rack per GPU type, in order of first appearance */
		qsort(rows, nr, sizeof(*rows), pai_cmp);
		for (size_t i = 0; i < nr && !rc; i++) {
			if ((!i || rows[i].type != rows[i - 1].type) &&
			    add_rack(b, b->c->types[rows[i].type].name, err) < 0) {
				rc = -1;
				break;
			}
			rc = add_nodes(b, 1, rows[i].gpu, rows[i].type, (int)rows[i].cpu,
				       rows[i].mem, rows[i].machine, err);
		}
	}
	free(rows);
	return rc;
}

/* ---- JSON: dlsched's own spec and Gavel's cluster_specs ---- */

/* the line of the first occurrence of "needle" (quoted) in text, or 0 */
static long line_of(const char *text, const char *needle)
{
	struct strbuf q = STRBUF_INIT;
	sb_addf(&q, "\"%s\"", needle);
	const char *p = strstr(text, q.buf);
	sb_release(&q);
	if (!p)
		return 0;
	long line = 1;
	for (const char *s = text; s < p; s++)
		line += *s == '\n';
	return line;
}

static int json_num(struct build *b, json_t *o, const char *key, const char *ctx, double min,
		    double *out, struct dl_err *err)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < min)
		return dl_err_at(err, b->where, 0, "%s: bad '%s' (want a number >= %g)", ctx, key,
				 min);
	*out = json_number_value(v);
	return 0;
}

static int json_int(struct build *b, json_t *o, const char *key, const char *ctx, long long max,
		    long long *out, struct dl_err *err)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return dl_err_at(err, b->where, 0, "%s: bad '%s' (want an integer 0..%lld)", ctx,
				 key, max);
	*out = json_integer_value(v);
	return 0;
}

static int check_keys(struct build *b, json_t *o, const char *const *keys, const char *ctx,
		      const char *text, struct dl_err *err)
{
	const char *k;
	json_t *v;
	json_object_foreach (o, k, v) {
		int ok = 0;
		for (const char *const *p = keys; *p; p++)
			ok |= !strcmp(*p, k);
		if (!ok)
			return dl_err_at(err, b->where, line_of(text, k), "%s: unknown key '%s'",
					 ctx, k);
	}
	return 0;
}

static int json_types(struct build *b, json_t *types, const char *text, struct dl_err *err)
{
	static const char *const keys[] = {"name", "speed", "memory_gb", "cost_per_hour", NULL};
	if (!json_is_array(types))
		return dl_err_at(err, b->where, 0, "'types' must be an array");
	if (json_array_size(types) > 64)
		return dl_err_at(err, b->where, 0, "more than 64 GPU types");
	size_t i;
	json_t *t;
	json_array_foreach (types, i, t) {
		char ctx[64];
		snprintf(ctx, sizeof(ctx), "types[%zu]", i);
		if (!json_is_object(t))
			return dl_err_at(err, b->where, 0, "%s must be an object", ctx);
		if (check_keys(b, t, keys, ctx, text, err) < 0)
			return -1;
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || !*name || strlen(name) > 63)
			return dl_err_at(err, b->where, 0, "%s: missing or bad 'name'", ctx);
		const struct dl_gpu_type *bt = dl_gpu_builtin(name);
		double speed = bt ? bt->speed : -1, mem = bt ? bt->memory_gb : 0,
		       cost = bt ? bt->cost_per_hour : 0;
		if (json_num(b, t, "speed", ctx, 0, &speed, err) < 0 ||
		    json_num(b, t, "memory_gb", ctx, 0, &mem, err) < 0 ||
		    json_num(b, t, "cost_per_hour", ctx, 0, &cost, err) < 0)
			return -1;
		if (speed <= 0)
			return dl_err_at(err, b->where, line_of(text, name),
					 "%s: type '%s' needs a positive 'speed'", ctx, name);
		add_type(b, name, speed, mem, cost);
	}
	return 0;
}

static int json_links(struct build *b, json_t *links, const char *text, struct dl_err *err)
{
	static const char *const keys[] = {"node", "rack", "cluster", NULL};
	static const char *const lkeys[] = {"bandwidth_gbps", "latency_us", NULL};
	if (!json_is_object(links))
		return dl_err_at(err, b->where, 0, "'links' must be an object");
	if (check_keys(b, links, keys, "links", text, err) < 0)
		return -1;
	for (int t = 0; t < DL_NTIERS; t++) {
		json_t *l = json_object_get(links, keys[t]);
		if (!l)
			continue;
		char ctx[32];
		snprintf(ctx, sizeof(ctx), "links.%s", keys[t]);
		if (!json_is_object(l))
			return dl_err_at(err, b->where, 0, "%s must be an object", ctx);
		if (check_keys(b, l, lkeys, ctx, text, err) < 0 ||
		    json_num(b, l, "bandwidth_gbps", ctx, 0, &b->c->link[t].bandwidth_gbps, err) <
			    0 ||
		    json_num(b, l, "latency_us", ctx, 0, &b->c->link[t].latency_us, err) < 0)
			return -1;
		if (b->c->link[t].bandwidth_gbps <= 0)
			return dl_err_at(err, b->where, 0, "%s: bandwidth_gbps must be positive",
					 ctx);
	}
	return 0;
}

static int json_racks(struct build *b, json_t *racks, const char *text, struct dl_err *err)
{
	static const char *const rkeys[] = {"name", "count", "nodes", NULL};
	static const char *const nkeys[] = {"name", "count",  "gpus", "type",
					    "cpus", "mem_gb", NULL};
	if (!json_is_array(racks))
		return dl_err_at(err, b->where, 0, "'racks' must be an array");
	size_t i, j;
	json_t *r, *n;
	json_array_foreach (racks, i, r) {
		char ctx[96];
		snprintf(ctx, sizeof(ctx), "racks[%zu]", i);
		if (!json_is_object(r))
			return dl_err_at(err, b->where, 0, "%s must be an object", ctx);
		if (check_keys(b, r, rkeys, ctx, text, err) < 0)
			return -1;
		long long count = 1;
		if (json_int(b, r, "count", ctx, 100000, &count, err) < 0)
			return -1;
		json_t *jn = json_object_get(r, "name");
		if (jn && !json_is_string(jn))
			return dl_err_at(err, b->where, 0, "%s: 'name' must be a string", ctx);
		const char *rname = json_string_value(jn);
		json_t *nodes = json_object_get(r, "nodes");
		if (!json_is_array(nodes))
			return dl_err_at(err, b->where, 0, "%s: 'nodes' must be an array", ctx);
		for (long long k = 0; k < count; k++) {
			struct strbuf sb = STRBUF_INIT;
			if (rname && count > 1)
				sb_addf(&sb, "%s%lld", rname, k);
			else if (rname)
				sb_addstr(&sb, rname);
			int ar = add_rack(b, rname ? sb.buf : NULL, err);
			sb_release(&sb);
			if (ar < 0)
				return -1;
			json_array_foreach (nodes, j, n) {
				char nctx[128];
				snprintf(nctx, sizeof(nctx), "%s.nodes[%zu]", ctx, j);
				if (!json_is_object(n))
					return dl_err_at(err, b->where, 0, "%s must be an object",
							 nctx);
				if (check_keys(b, n, nkeys, nctx, text, err) < 0)
					return -1;
				long long ncount = 1, gpus = -1, cpus = 0;
				double mem = 0;
				if (json_int(b, n, "count", nctx, DL_CLUSTER_MAX_NODES, &ncount,
					     err) < 0 ||
				    json_int(b, n, "gpus", nctx, DL_NODE_MAX_GPUS, &gpus, err) <
					    0 ||
				    json_int(b, n, "cpus", nctx, 1 << 20, &cpus, err) < 0 ||
				    json_num(b, n, "mem_gb", nctx, 0, &mem, err) < 0)
					return -1;
				if (gpus < 0)
					return dl_err_at(err, b->where, 0, "%s: missing 'gpus'",
							 nctx);
				json_t *jt = json_object_get(n, "type");
				json_t *jnn = json_object_get(n, "name");
				if ((jt && !json_is_string(jt)) || (jnn && !json_is_string(jnn)))
					return dl_err_at(err, b->where, 0,
							 "%s: 'type' and 'name' must be strings",
							 nctx);
				const char *tn = jt ? json_string_value(jt) : builtin_types[0].name;
				int type = use_type(b, tn);
				if (type < 0)
					return dl_err_at(err, b->where, line_of(text, tn),
							 "%s: unknown GPU type '%s'", nctx, tn);
				if (add_nodes(b, ncount, gpus, type, (int)cpus, mem,
					      json_string_value(jnn), err) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* Gavel's cluster_specs JSON: {"name": ["V:P:K", ...], ...}; `key` may pick one. */
static int is_gavel_specs(json_t *root)
{
	const char *k;
	json_t *v;
	if (!json_object_size(root))
		return 0;
	json_object_foreach (root, k, v) {
		if (!json_is_array(v) || !json_array_size(v))
			return 0;
		for (size_t i = 0; i < json_array_size(v); i++)
			if (!json_is_string(json_array_get(v, i)))
				return 0;
	}
	return 1;
}

static int parse_json(struct build *b, const char *text, const char *key, struct dl_err *err)
{
	static const char *const keys[] = {"types", "links", "racks", "shorthand", NULL};
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return dl_err_at(err, b->where, je.line, "bad JSON: %s", je.text);
	int rc = 0;
	if (!json_is_object(root)) {
		rc = dl_err_at(err, b->where, 0, "a cluster spec must be a JSON object");
	} else if (is_gavel_specs(root)) {
		json_t *v = NULL;
		if (key)
			v = json_object_get(root, key);
		else if (json_object_size(root) == 1)
			v = json_object_iter_value(json_object_iter(root));
		if (!v)
			rc = key ? dl_err_at(err, b->where, 0, "no cluster spec named '%s'", key)
				 : dl_err_at(err, b->where, 0,
					     "several cluster specs: pick one with FILE#NAME");
		else
			rc = parse_vpk(b, json_string_value(json_array_get(v, 0)), err);
	} else if (key) {
		rc = dl_err_at(err, b->where, 0, "'#%s' only applies to Gavel cluster_specs", key);
	} else {
		json_t *t = json_object_get(root, "types");
		json_t *l = json_object_get(root, "links");
		json_t *r = json_object_get(root, "racks");
		json_t *s = json_object_get(root, "shorthand");
		if (check_keys(b, root, keys, "spec", text, err) < 0)
			rc = -1;
		else if (t && json_types(b, t, text, err) < 0)
			rc = -1;
		else if (l && json_links(b, l, text, err) < 0)
			rc = -1;
		else if (!!r == !!s)
			rc = dl_err_at(err, b->where, 0,
				       "give exactly one of 'racks' and 'shorthand'");
		else if (r)
			rc = json_racks(b, r, text, err);
		else if (!json_is_string(s))
			rc = dl_err_at(err, b->where, 0, "'shorthand' must be a string");
		else if (parse_shorthand(b, json_string_value(s), err) < 0) {
			dl_err_prefix(err, "%s", b->where);
			rc = -1;
		}
	}
	json_decref(root);
	return rc;
}

static int parse_file(struct build *b, const char *path, const char *key, struct dl_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	if (dl_read_file(path, &sb, err) < 0)
		return -1;
	int rc;
	if (memchr(sb.buf, '\0', sb.len)) {
		rc = dl_err_at(err, path, 0, "not a cluster spec (binary data)");
		goto out;
	}
	const char *t = sb.buf;
	while (isspace((unsigned char)*t))
		t++;
	if (*t == '{') {
		rc = parse_json(b, sb.buf, key, err);
		goto out;
	}
	if (key) {
		rc = dl_err_at(err, path, 0, "'#%s' only applies to Gavel cluster_specs", key);
		goto out;
	}
	struct line *lines;
	size_t n = split_lines(sb.buf, &lines);
	if (!n) {
		rc = dl_err_at(err, path, 0, "empty cluster spec");
	} else if (!strncmp(trim(lines[0].text), "num_switch", 10)) {
		rc = parse_tiresias(b, lines, n, err);
	} else if (n == 1 && (is_vpk(trim(lines[0].text)) ||
			      memchr(lines[0].text, 'x', strcspn(lines[0].text, ",")))) {
		/* a file holding a shorthand or a V:P:K line (PAI machine ids are hex: no 'x') */
		char *s = trim(lines[0].text);
		rc = is_vpk(s) ? parse_vpk(b, s, err) : parse_shorthand(b, s, err);
		if (rc < 0)
			dl_err_prefix(err, "%s:%ld", path, lines[0].no);
	} else {
		rc = parse_pai(b, lines, n, err);
	}
	free(lines);
out:
	sb_release(&sb);
	return rc;
}

int dl_cluster_load(const char *spec, struct dl_cluster **out, struct dl_err *err)
{
	struct dl_cluster *c = xcalloc(1, sizeof(*c));
	struct build b = {c, 0, 0, 0, spec, 0};
	dl_cluster_default_links(c->link);
	c->source = xstrdup(spec);
	struct stat st;
	int rc, text = 0;
	char *hash = strrchr(spec, '#');
	if (!stat(spec, &st)) {
		rc = parse_file(&b, spec, NULL, err);
	} else if (hash && hash > spec && hash[1]) {
		char *path = xstrndup(spec, (size_t)(hash - spec));
		b.where = path;
		if (stat(path, &st))
			rc = dl_err_set(err, DL_EXIT_DATA, "%s: %s", path, strerror(errno));
		else
			rc = parse_file(&b, path, hash + 1, err);
		free(path);
		b.where = spec;
	} else if ((text = is_vpk(spec))) {
		rc = parse_vpk(&b, spec, err);
	} else if ((text = strchr(spec, 'x') != NULL)) {
		rc = parse_shorthand(&b, spec, err);
	} else {
		rc = dl_err_set(err, DL_EXIT_DATA,
				"%s: no such file, and not a cluster spec "
				"(RACKSxNODESxGPUS[:TYPE] or V:P:K)",
				spec);
	}
	if (!rc)
		rc = finish(&b, err);
	if (rc < 0 && text) /* a bad SPEC on the command line ("0x0x0") is a usage error */
		err->code = DL_EXIT_USAGE;
	if (rc < 0) {
		dl_cluster_free(c);
		*out = NULL;
		return -1;
	}
	*out = c;
	return 0;
}
