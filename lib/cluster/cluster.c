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
#include "core/opt.h"
#include "core/strmap.h"

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
	free(c->gpu_node);
	free(c->type_order);
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
	c->gpu_node = xmalloc((size_t)g * sizeof(int));
	for (size_t i = 0; i < c->nnodes; i++)
		for (int k = 0; k < c->nodes[i].gpus; k++)
			c->gpu_node[c->nodes[i].first_gpu + k] = (int)i;
	/* insertion by speed, strictly faster moving ahead: ties keep the spec's order */
	c->type_order = xcalloc(c->ntypes + 1, sizeof(int));
	for (size_t t = 0; t < c->ntypes; t++) {
		size_t k = t;
		for (; k > 0 && c->types[c->type_order[k - 1]].speed < c->types[t].speed; k--)
			c->type_order[k] = c->type_order[k - 1];
		c->type_order[k] = (int)t;
	}
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

/* ---- Slurm: scontrol show node [-o] and sinfo -N -o '%N %c %m %G' ---- */

/*
 * Slurm's node lists say nothing about how fast the GPUs are, and sacct's run
 * times were measured on those very GPUs: every type of a cluster read from
 * Slurm runs at speed 1 (memory and price from the built-in table when the
 * name is a built-in one). Untyped GPUs ("gpu:4") get the type "gpu".
 */
static int slurm_type(struct build *b, const char *name, size_t len, long line, struct dl_err *err)
{
	char buf[64];
	if (!len) {
		name = "gpu";
		len = 3;
	}
	if (len >= sizeof(buf))
		return dl_err_at(err, b->where, line, "GPU type '%.*s' is too long", (int)len,
				 name);
	memcpy(buf, name, len);
	buf[len] = '\0';
	int i = dl_cluster_type_index(b->c, buf);
	if (i >= 0)
		return i;
	if (b->c->ntypes >= 64)
		return dl_err_at(err, b->where, line, "more than 64 GPU types");
	const struct dl_gpu_type *t = dl_gpu_builtin(buf);
	return add_type(b, buf, 1.0, t ? t->memory_gb : 0, t ? t->cost_per_hour : 0);
}

#define SLURM_MAX_NODE_TYPES 16

struct slurm_gpus {
	int type[SLURM_MAX_NODE_TYPES];
	long long count[SLURM_MAX_NODE_TYPES];
	int n;
};

/*
 * A node's GRES: "gpu:a100:8", "gpu:4", "gpu:v100:2,gpu:a100:2(S:0-1)",
 * "(null)"; other resources (shard, mps, ...) are ignored. Counts of a type
 * named twice add up.
 */
static int slurm_gres(struct build *b, const char *gres, long line, struct slurm_gpus *g,
		      struct dl_err *err)
{
	g->n = 0;
	if (!strcmp(gres, "(null)") || !*gres)
		return 0;
	const char *p = gres;
	while (*p) {
		/* one entry, up to a ',' outside parentheses */
		const char *e = p;
		int depth = 0;
		for (; *e && (depth || *e != ','); e++)
			depth += (*e == '(') - (*e == ')');
		const char *end = memchr(p, '(', (size_t)(e - p));
		if (!end)
			end = e;
		const char *c1 = memchr(p, ':', (size_t)(end - p));
		size_t namelen = c1 ? (size_t)(c1 - p) : (size_t)(end - p);
		if (namelen == 3 && !strncmp(p, "gpu", 3)) {
			const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
			const char *type = c2 ? c1 + 1 : c1;
			size_t typelen = c2 ? (size_t)(c2 - c1 - 1) : 0;
			const char *num = c2 ? c2 + 1 : c1 ? c1 + 1 : end;
			long long n;
			if (!c1 || (c2 && memchr(c2 + 1, ':', (size_t)(end - c2 - 1))) ||
			    parse_count(num, (size_t)(end - num), &n) < 0)
				return dl_err_at(err, b->where, line,
						 "bad Gres entry '%.*s' (want gpu[:TYPE]:COUNT)",
						 (int)(e - p), p);
			int t = slurm_type(b, type, typelen, line, err);
			if (t < 0)
				return -1;
			int k = 0;
			while (k < g->n && g->type[k] != t)
				k++;
			if (k == g->n) {
				if (g->n == SLURM_MAX_NODE_TYPES)
					return dl_err_at(err, b->where, line,
							 "more than %d GPU types on one node",
							 SLURM_MAX_NODE_TYPES);
				g->type[g->n] = t;
				g->count[g->n++] = 0;
			}
			g->count[k] += n;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

/*
 * Add one Slurm node: one dl_node per GPU type on it (a node with two types
 * becomes NODE/TYPE1 and NODE/TYPE2 in the same rack); no GPUs, no node.
 */
static int slurm_node(struct build *b, const char *name, const struct slurm_gpus *g, int cpus,
		      double mem_gb, struct dl_err *err)
{
	for (int k = 0; k < g->n; k++) {
		if (!g->count[k])
			continue;
		struct strbuf sb = STRBUF_INIT;
		sb_addstr(&sb, name);
		if (g->n > 1)
			sb_addf(&sb, "/%s", b->c->types[g->type[k]].name);
		int rc = add_nodes(b, 1, g->count[k], g->type[k], cpus, mem_gb, sb.buf, err);
		sb_release(&sb);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* an integer field of a Slurm listing, or "FILE:LINE: bad KEY value 'V'" */
static int slurm_int(struct build *b, const char *key, const char *v, size_t len, long line,
		     long long max, long long *out, struct dl_err *err)
{
	if (parse_count(v, len, out) < 0 || *out > max)
		return dl_err_at(err, b->where, line, "bad %s value '%.*s'", key, (int)len, v);
	return 0;
}

/*
 * Nodes already added, by name: sinfo -N lists a node once per partition, so
 * a repeat with the same GRES is skipped and one with another GRES is an error.
 */
struct slurm_seen {
	struct strmap names;
	char **gres;
	size_t n, alloc;
};

static int slurm_seen(struct build *b, struct slurm_seen *s, const char *name, size_t len,
		      const char *gres, long line, struct dl_err *err)
{
	int64_t *v = strmap_getn(&s->names, name, len);
	if (v) {
		if (strcmp(s->gres[*v], gres))
			return dl_err_at(err, b->where, line,
					 "node '%.*s' is listed twice with different Gres",
					 (int)len, name);
		return 1;
	}
	DL_GROW(s->gres, s->n + 1, s->alloc);
	s->gres[s->n] = xstrdup(gres);
	strmap_putn(&s->names, name, len, (int64_t)s->n++);
	return 0;
}

static void slurm_seen_free(struct slurm_seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->gres[i]);
	free(s->gres);
	strmap_free(&s->names);
}

/* the value of KEY= among the space-separated tokens of a record (first one wins) */
static const char *slurm_value(const char *rec, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *p = rec; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t tl = strcspn(p, " \t");
		if (tl > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			*len = tl - kl - 1;
			return p + kl + 1;
		}
		p += tl;
	}
	return NULL;
}

static int slurm_record(struct build *b, struct slurm_seen *seen, const char *rec, long line,
			struct dl_err *err)
{
	size_t nl, gl = 0, cl = 0, ml = 0;
	const char *name = slurm_value(rec, "NodeName", &nl);
	const char *gres = slurm_value(rec, "Gres", &gl);
	const char *cpus = slurm_value(rec, "CPUTot", &cl);
	const char *mem = slurm_value(rec, "RealMemory", &ml);
	long long nc = 0, nm = 0;
	if (!name || !nl)
		return dl_err_at(err, b->where, line, "a node without a NodeName");
	if ((cpus && slurm_int(b, "CPUTot", cpus, cl, line, 1 << 20, &nc, err) < 0) ||
	    (mem && slurm_int(b, "RealMemory", mem, ml, line, 1LL << 40, &nm, err) < 0))
		return -1;
	char *g = xstrndup(gres ? gres : "", gl);
	char *n = xstrndup(name, nl);
	struct slurm_gpus gpus;
	int rc = slurm_seen(b, seen, name, nl, g, line, err);
	if (!rc)
		rc = slurm_gres(b, g, line, &gpus, err);
	if (!rc)
		rc = slurm_node(b, n, &gpus, (int)nc, (double)nm / 1024, err);
	/* State=IDLE+DRAIN, DOWN*, MIXED+DRAIN: still counted, but the what-if says so */
	size_t sl = 0;
	const char *state = slurm_value(rec, "State", &sl);
	char *st = xstrndup(state ? state : "", sl);
	if (!rc && (strstr(st, "DRAIN") || strstr(st, "DOWN") || strstr(st, "FAIL"))) {
		long long held = 0;
		for (int k = 0; k < gpus.n; k++)
			held += gpus.count[k];
		if (held) {
			b->c->unavailable_nodes++;
			b->c->unavailable_gpus += (int)held;
		}
	}
	free(st);
	free(g);
	free(n);
	return rc < 0 ? -1 : 0;
}

/* scontrol show node, one line per node (-o) or records of indented lines */
static int parse_scontrol(struct build *b, struct line *lines, size_t n, struct dl_err *err)
{
	struct slurm_seen seen = {STRMAP_INIT, NULL, 0, 0};
	struct strbuf rec = STRBUF_INIT;
	int rc = 0;
	long first = 0;
	for (size_t i = 0; i <= n && !rc; i++) {
		int cont = i < n && (lines[i].text[0] == ' ' || lines[i].text[0] == '\t');
		if (i < n && cont) {
			sb_addc(&rec, ' ');
			sb_addstr(&rec, lines[i].text);
			continue;
		}
		if (rec.len)
			rc = slurm_record(b, &seen, rec.buf, first, err);
		if (i == n || rc)
			break;
		if (strncmp(lines[i].text, "NodeName=", 9)) {
			rc = dl_err_at(err, b->where, lines[i].no,
				       "expected a NodeName= line of 'scontrol show node'");
			break;
		}
		sb_reset(&rec);
		sb_addstr(&rec, lines[i].text);
		first = lines[i].no;
	}
	sb_release(&rec);
	slurm_seen_free(&seen);
	return rc;
}

/* split a sinfo line at blanks or '|' into at most max fields; returns the count */
static int sinfo_split(char *s, char **f, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t|", &save); t; t = strtok_r(NULL, " \t|", &save)) {
		if (n == max)
			return max + 1;
		f[n++] = t;
	}
	return n;
}

#define SINFO_MAX_COLS 32

/* sinfo -N -o '%N %c %m %G': columns found by their header names */
static int parse_sinfo(struct build *b, struct line *lines, size_t n, struct dl_err *err)
{
	char *h[SINFO_MAX_COLS], *f[SINFO_MAX_COLS];
	int nh = sinfo_split(lines[0].text, h, SINFO_MAX_COLS);
	int c_node = -1, c_gres = -1, c_cpus = -1, c_mem = -1;
	for (int i = 0; i < nh && i < SINFO_MAX_COLS; i++) {
		if (!strcmp(h[i], "NODELIST") && c_node < 0)
			c_node = i;
		else if (!strcmp(h[i], "GRES") && c_gres < 0)
			c_gres = i;
		else if (!strcmp(h[i], "CPUS") && c_cpus < 0)
			c_cpus = i;
		else if (!strcmp(h[i], "MEMORY") && c_mem < 0)
			c_mem = i;
	}
	if (nh > SINFO_MAX_COLS || c_gres < 0 || c_node < 0)
		return dl_err_at(err, b->where, lines[0].no,
				 "sinfo output without the NODELIST and GRES columns (run sinfo "
				 "-N -o '%%N %%c %%m %%G')");
	struct slurm_seen seen = {STRMAP_INIT, NULL, 0, 0};
	int rc = 0;
	for (size_t i = 1; i < n && !rc; i++) {
		long line = lines[i].no;
		int nf = sinfo_split(lines[i].text, f, SINFO_MAX_COLS);
		if (nf != nh) {
			rc = dl_err_at(err, b->where, line, "expected %d fields, found %d", nh, nf);
			break;
		}
		const char *name = f[c_node];
		if (strchr(name, '[') || strchr(name, ',')) {
			rc = dl_err_at(err, b->where, line,
				       "'%s' is a list of nodes: run sinfo with -N (one line per "
				       "node)",
				       name);
			break;
		}
		long long nc = 0, nm = 0;
		if ((c_cpus >= 0 &&
		     slurm_int(b, "CPUS", f[c_cpus], strlen(f[c_cpus]), line, 1 << 20, &nc, err)) ||
		    (c_mem >= 0 && slurm_int(b, "MEMORY", f[c_mem], strlen(f[c_mem]), line,
					     1LL << 40, &nm, err))) {
			rc = -1;
			break;
		}
		struct slurm_gpus gpus;
		rc = slurm_seen(b, &seen, name, strlen(name), f[c_gres], line, err);
		if (rc == 1) {
			rc = 0;
			continue;
		}
		if (!rc)
			rc = slurm_gres(b, f[c_gres], line, &gpus, err);
		if (!rc)
			rc = slurm_node(b, name, &gpus, (int)nc, (double)nm / 1024, err);
	}
	slurm_seen_free(&seen);
	return rc;
}

static int parse_slurm(struct build *b, struct line *lines, size_t n, int sinfo, struct dl_err *err)
{
	if (add_rack(b, "slurm", err) < 0)
		return -1;
	int rc = sinfo ? parse_sinfo(b, lines, n, err) : parse_scontrol(b, lines, n, err);
	if (!rc && !b->c->nnodes)
		return dl_err_at(
			err, b->where, 0,
			"no node with GPUs (Gres=gpu[:TYPE]:COUNT) in the Slurm node list");
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

static int json_congestion(struct build *b, json_t *g, const char *text, struct dl_err *err)
{
	static const char *const keys[] = {"node", "rack", "cluster", NULL};
	if (!json_is_object(g))
		return dl_err_at(err, b->where, 0, "'congestion' must be an object");
	if (check_keys(b, g, keys, "congestion", text, err) < 0)
		return -1;
	for (int t = 0; t < DL_NTIERS; t++) {
		if (json_num(b, g, keys[t], "congestion", 1, &b->c->congestion[t], err) < 0)
			return -1;
		if (b->c->congestion[t] > DL_CONGESTION_MAX)
			return dl_err_at(err, b->where, 0, "congestion: '%s' above %g", keys[t],
					 DL_CONGESTION_MAX);
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
	static const char *const keys[] = {"types", "links",	 "congestion",
					   "racks", "shorthand", NULL};
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
		json_t *g = json_object_get(root, "congestion");
		if (check_keys(b, root, keys, "spec", text, err) < 0)
			rc = -1;
		else if (t && json_types(b, t, text, err) < 0)
			rc = -1;
		else if (l && json_links(b, l, text, err) < 0)
			rc = -1;
		else if (g && json_congestion(b, g, text, err) < 0)
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
		rc = dl_err_at(err, b->where, 0, "not a cluster spec (binary data)");
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
		rc = dl_err_at(err, b->where, 0, "'#%s' only applies to Gavel cluster_specs", key);
		goto out;
	}
	struct line *lines;
	size_t n = split_lines(sb.buf, &lines);
	if (!n) {
		rc = dl_err_at(err, b->where, 0, "empty cluster spec");
	} else if (!strncmp(lines[0].text, "NodeName=", 9)) {
		rc = parse_slurm(b, lines, n, 0, err);
	} else if (!strncmp(trim(lines[0].text), "NODELIST", 8)) {
		rc = parse_slurm(b, lines, n, 1, err);
	} else if (!strncmp(trim(lines[0].text), "num_switch", 10)) {
		rc = parse_tiresias(b, lines, n, err);
	} else if (n == 1 && (is_vpk(trim(lines[0].text)) ||
			      memchr(lines[0].text, 'x', strcspn(lines[0].text, ",")))) {
		/* a file holding a shorthand or a V:P:K line (PAI machine ids are hex: no 'x') */
		char *s = trim(lines[0].text);
		rc = is_vpk(s) ? parse_vpk(b, s, err) : parse_shorthand(b, s, err);
		if (rc < 0)
			dl_err_prefix(err, "%s:%ld", b->where, lines[0].no);
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
	for (int t = 0; t < DL_NTIERS; t++)
		c->congestion[t] = 1;
	c->source = xstrdup(spec);
	struct stat st;
	int rc, text = 0;
	char *hash = strrchr(spec, '#');
	if (!strcmp(spec, "-")) {
		/* `scontrol show node -o | dlsched cluster show -` */
		b.where = "<stdin>";
		rc = parse_file(&b, spec, NULL, err);
	} else if (!stat(spec, &st)) {
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

/* ---- congestion ---- */

int dl_congestion_parse(const char *text, struct dl_congestion *g, struct dl_err *err)
{
	struct dl_congestion out = {{0}};
	const char *p = text;
	if (!*p)
		return dl_err_set(err, DL_EXIT_USAGE, "empty congestion");
	for (;;) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		int tier = -1;
		for (int t = 0; eq && t < DL_NTIERS; t++) {
			const char *name = dl_tier_name((enum dl_tier)t);
			if (strlen(name) == (size_t)(eq - p) && !strncmp(p, name, (size_t)(eq - p)))
				tier = t;
		}
		if (tier < 0)
			return dl_err_set(err, DL_EXIT_USAGE, "bad congestion entry '%.*s'",
					  (int)len, p);
		char num[64];
		size_t nl = len - (size_t)(eq + 1 - p);
		double v;
		if (!nl || nl >= sizeof(num))
			return dl_err_set(err, DL_EXIT_USAGE, "bad congestion entry '%.*s'",
					  (int)len, p);
		memcpy(num, eq + 1, nl);
		num[nl] = '\0';
		if (dl_parse_double(num, &v) < 0 || !(v >= 1) || v > DL_CONGESTION_MAX)
			return dl_err_set(err, DL_EXIT_USAGE,
					  "bad congestion divisor '%s' (a number in 1..%g)", num,
					  DL_CONGESTION_MAX);
		if (out.div[tier] > 0) /* which one would be meant? */
			return dl_err_set(err, DL_EXIT_USAGE, "congestion tier '%s' given twice",
					  dl_tier_name((enum dl_tier)tier));
		out.div[tier] = v;
		if (!p[len])
			break;
		p += len + 1;
	}
	*g = out;
	return 0;
}

int dl_congestion_opt(const struct dl_opt *o, void *base, const char *arg)
{
	struct dl_err err = DL_ERR_INIT;
	return dl_congestion_parse(arg, (struct dl_congestion *)((char *)base + o->offset), &err);
}

void dl_cluster_congest(struct dl_cluster *c, const struct dl_congestion *g)
{
	for (int t = 0; t < DL_NTIERS; t++)
		if (g->div[t] >= 1)
			c->congestion[t] = g->div[t];
}
