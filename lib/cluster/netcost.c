/* netcost.c: the communication cost of a placement (see netcost.h) */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster/netcost.h"
#include "core/num.h"

/*
 * Built-in models. params and skew_rr (4 servers, round robin, weights only)
 * come from the real tensor lists in the research notes (torchvision models
 * and the Tiresias simulator's lists for inception4); bytes = 4 * params.
 * compute_s is an estimate of one iteration on a V100 in fp32 (CNNs at 32
 * images per GPU, from published images/s; language models from 6 * params *
 * tokens at about 40% of peak), stated in dlsched-place(1).
 */
static const struct {
	const char *name;
	double params, skew_rr, compute_s;
} builtin_models[] = {
	{"resnet50", 25610205, 1.20, 0.089}, /* first: the default */
	{"resnet18", 11699132, 1.43, 0.029},   {"mobilenet_v2", 3539036, 1.99, 0.036},
	{"alexnet", 61100840, 2.82, 0.011},    {"vgg16", 138357544, 3.28, 0.133},
	{"inception4", 42679816, 1.14, 0.246}, {"lstm_lm", 19780400, 2.00, 0.050},
	{"tiny_gpt", 51814400, 3.38, 0.230},
};

#define REF_BYTES_PER_S 12.5e9 /* 100 Gb/s */
#define REF_FACTOR	1.75   /* 2 (n-1)/n at n = 8 */
#define REF_LATENCY	1.4e-4 /* 2 (n-1) * 10 us at n = 8 */

double dl_net_compute_from_sensitivity(double bytes, double s)
{
	if (s <= 0)
		return INFINITY;
	if (s > 0.999)
		s = 0.999;
	double tref = REF_FACTOR * bytes / REF_BYTES_PER_S + REF_LATENCY;
	return tref * (1 - s) / s;
}

double dl_net_sensitivity_from_compute(double bytes, double compute_s)
{
	if (isinf(compute_s))
		return 0;
	double tref = REF_FACTOR * bytes / REF_BYTES_PER_S + REF_LATENCY;
	return tref + compute_s > 0 ? tref / (tref + compute_s) : 0;
}

static char *lower_dup(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

static struct dl_net_model *put(struct dl_net_models *m, const char *name)
{
	char *key = lower_dup(name);
	int64_t *i = strmap_get(&m->idx, key);
	struct dl_net_model *e;
	if (i) {
		e = &m->v[*i];
		free(key);
	} else {
		DL_GROW(m->v, m->n + 1, m->alloc);
		e = &m->v[m->n];
		memset(e, 0, sizeof(*e));
		e->name = key;
		strmap_put(&m->idx, key, (int64_t)m->n);
		m->n++;
	}
	return e;
}

void dl_net_models_init(struct dl_net_models *m)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < DL_ARRAY_SIZE(builtin_models); i++) {
		struct dl_net_model *e = put(m, builtin_models[i].name);
		e->bytes = 4 * builtin_models[i].params;
		e->skew_rr = builtin_models[i].skew_rr;
		e->compute_s = builtin_models[i].compute_s;
		e->sensitivity = dl_net_sensitivity_from_compute(e->bytes, e->compute_s);
		/* Tiresias' criterion at dlsched profile's default threshold */
		e->consolidate = e->skew_rr > 2.5;
	}
	m->def = 0;
}

void dl_net_models_free(struct dl_net_models *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	strmap_free(&m->idx);
	memset(m, 0, sizeof(*m));
}

const struct dl_net_model *dl_net_models_find(const struct dl_net_models *m, const char *name)
{
	char buf[256];
	size_t l = strlen(name);
	if (l >= sizeof(buf))
		return NULL;
	for (size_t i = 0; i <= l; i++)
		buf[i] = (char)tolower((unsigned char)name[i]);
	int64_t *i = strmap_get(&m->idx, buf);
	return i ? &m->v[*i] : NULL;
}

const struct dl_net_model *dl_net_models_default(const struct dl_net_models *m)
{
	return &m->v[m->def];
}

static int parse_bool(const char *s, int *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no")) {
		*out = 0;
		return 0;
	}
	return -1;
}

int dl_net_models_read(struct dl_net_models *m, const char *path, enum dl_in_format fmt,
		       struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, fmt, err);
	if (!r)
		return -1;
	const char *why = "a profiles stream, from dlsched profile";
	if (!dl_reader_ncols(r)) { /* 0 bytes: no profiles (dlsched-formats(5), EMPTY INPUT) */
		dl_reader_close(r);
		return 0;
	}
	int cm = dl_reader_require(r, "model", why, err);
	int cb = cm < 0 ? -1 : dl_reader_require(r, "bytes", why, err);
	int cs = cb < 0 ? -1 : dl_reader_require(r, "skew_rr", why, err);
	int cz = cs < 0 ? -1 : dl_reader_require(r, "sensitivity", why, err);
	int cc = dl_reader_col(r, "consolidate");
	int rc = cz < 0 ? -1 : 0;
	struct dl_row row;
	int got = 0;
	while (!rc && (got = dl_reader_next(r, &row, err)) > 0) {
		const char *name = dl_field_str(&row, cm);
		double bytes, skew, sens;
		int cons = 0;
		if (!*name || strlen(name) >= 256) {
			rc = dl_err_at(err, dl_reader_name(r), row.line, "bad model value '%s'",
				       name);
			break;
		}
		if (dl_field_nonneg(r, &row, cb, &bytes, err) < 0 ||
		    dl_field_nonneg(r, &row, cs, &skew, err) < 0 ||
		    dl_field_nonneg(r, &row, cz, &sens, err) < 0) {
			rc = -1;
			break;
		}
		if (sens > 1) {
			rc = dl_err_at(err, dl_reader_name(r), row.line,
				       "bad sensitivity value '%s': not in [0, 1]",
				       dl_field_str(&row, cz));
			break;
		}
		const char *cv = dl_field_str(&row, cc);
		if (*cv && parse_bool(cv, &cons) < 0) {
			rc = dl_err_at(err, dl_reader_name(r), row.line,
				       "bad consolidate value '%s'", cv);
			break;
		}
		struct dl_net_model *e = put(m, name);
		e->bytes = bytes;
		e->skew_rr = skew < 1 ? 1 : skew;
		e->sensitivity = sens;
		e->compute_s = dl_net_compute_from_sensitivity(bytes, sens);
		e->consolidate = cons;
	}
	if (got < 0)
		rc = -1;
	dl_reader_close(r);
	return rc;
}

void dl_netcost_init(struct dl_netcost *nc, const struct dl_cluster *c, enum dl_comm comm)
{
	nc->c = c;
	nc->comm = comm;
	nc->max_node_gpus = nc->max_rack_gpus = 0;
	for (size_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].gpus > nc->max_node_gpus)
			nc->max_node_gpus = c->nodes[i].gpus;
	for (size_t r = 0; r < c->nracks; r++) {
		int g = 0;
		for (int k = 0; k < c->racks[r].nnodes; k++)
			g += c->nodes[c->racks[r].first_node + k].gpus;
		if (g > nc->max_rack_gpus)
			nc->max_rack_gpus = g;
	}
	/* the bottleneck up to each tier: a wider tier is never faster */
	for (int t = 0; t < DL_NTIERS; t++) {
		nc->eff[t] = c->link[t];
		/* a congested tier: each GPU's share of the link is divided */
		if (c->congestion[t] > 1)
			nc->eff[t].bandwidth_gbps /= c->congestion[t];
		if (t > 0) {
			if (nc->eff[t - 1].bandwidth_gbps < nc->eff[t].bandwidth_gbps)
				nc->eff[t].bandwidth_gbps = nc->eff[t - 1].bandwidth_gbps;
			if (nc->eff[t - 1].latency_us > nc->eff[t].latency_us)
				nc->eff[t].latency_us = nc->eff[t - 1].latency_us;
		}
	}
}

enum dl_tier dl_netcost_consolidated_tier(const struct dl_netcost *nc, int n)
{
	if (n <= nc->max_node_gpus)
		return DL_TIER_NODE;
	if (n <= nc->max_rack_gpus)
		return DL_TIER_RACK;
	return DL_TIER_CLUSTER;
}

double dl_netcost_comm(const struct dl_netcost *nc, const struct dl_net_model *m, int n,
		       enum dl_tier tier)
{
	if (n <= 1)
		return 0;
	double bw = nc->eff[tier].bandwidth_gbps * 1e9 / 8; /* bytes/s */
	double lat = nc->eff[tier].latency_us * 1e-6;
	double frac = (double)(n - 1) / n;
	if (nc->comm == DL_COMM_PS)
		return 2 * m->skew_rr * frac * m->bytes / bw + 2 * lat;
	return 2 * frac * m->bytes / bw + 2 * (n - 1) * lat;
}

double dl_netcost_iter(const struct dl_netcost *nc, const struct dl_net_model *m, int n,
		       enum dl_tier tier, double speed)
{
	return m->compute_s / (speed > 0 ? speed : 1) + dl_netcost_comm(nc, m, n, tier);
}

double dl_netcost_slowdown(const struct dl_netcost *nc, const struct dl_net_model *m, int n,
			   enum dl_tier tier, double speed)
{
	if (n <= 1 || isinf(m->compute_s))
		return 1;
	enum dl_tier ct = dl_netcost_consolidated_tier(nc, n);
	if (tier <= ct)
		return 1;
	double a = dl_netcost_iter(nc, m, n, tier, speed);
	double b = dl_netcost_iter(nc, m, n, ct, speed);
	return b > 0 ? a / b : 1;
}
