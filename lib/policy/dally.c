/*
 * dally.c: Dally's delay timers, their auto-tuner and their option group
 * (dally.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "policy/dally.h"

/* --rack-delay, --network-delay: "auto" (stored as -1) or seconds >= 0 */
int dl_dally_store_delay(const struct dl_opt *o, void *base, const char *arg)
{
	if (!strcmp(arg, "auto")) {
		*(double *)((char *)base + o->offset) = -1;
		return 0;
	}
	struct dl_opt secs = *o;
	secs.type = DL_OPT_SECONDS;
	secs.min = 0;
	secs.max = DL_SECONDS_MAX;
	secs.flags = 0;
	return dl_opt_store(&secs, base, arg);
}

#define AT(f) DL_OPT_AT(struct dl_dally_opts, f)
const struct dl_opt dl_dally_opt_table[] = {
	{DL_OPT_SECONDS, 0, "lease", "SECONDS", "the lease: the unit of the timers", AT(lease),
	 .min = 1, .max = DL_SECONDS_MAX, .def = "20"},
	{DL_OPT_CALLBACK, 0, "rack-delay", "SECONDS",
	 "wait before a job may span the nodes of a rack", AT(rack_delay),
	 .fn = dl_dally_store_delay, .expect = "auto or a number of seconds in 0..10000000000",
	 .def = "auto"},
	{DL_OPT_CALLBACK, 0, "network-delay", "SECONDS", "wait before a job may span racks",
	 AT(net_delay), .fn = dl_dally_store_delay,
	 .expect = "auto or a number of seconds in 0..10000000000", .def = "auto"},
	{DL_OPT_INT, 0, "history", "N", "waits the auto-tuner remembers per GPU demand",
	 AT(history), .imin = 1, .imax = 1000000, .def = "50"},
	{DL_OPT_END},
};
#undef AT

/* a ring buffer of past waits (in leases) for one GPU demand, and its estimate */
struct hist {
	double *v;
	int n, pos;
	double est; /* dl_dally_estimate of the window, kept up to date by record */
};

struct dl_dally {
	struct dl_dally_opts o;
	struct hist hnode[DL_DALLY_MAX_DEMAND + 1], hrack[DL_DALLY_MAX_DEMAND + 1];
};

double dl_dally_estimate(const double *v, int n)
{
	double s = 0, s2 = 0;
	for (int i = 0; i < n; i++) {
		s += v[i];
		s2 += v[i] * v[i];
	}
	if (!n || s == 0)
		return 1;
	double mean = s / n;
	double var = s2 / n - mean * mean; /* population variance */
	return mean + DL_DALLY_SIGMAS * sqrt(var > 0 ? var : 0);
}

struct dl_dally *dl_dally_new(const struct dl_dally_opts *o)
{
	struct dl_dally *d = xcalloc(1, sizeof(*d));
	d->o = *o;
	for (int i = 0; i <= DL_DALLY_MAX_DEMAND; i++)
		d->hnode[i].est = d->hrack[i].est = dl_dally_estimate(NULL, 0);
	if (!(d->o.lease > 0))
		d->o.lease = 20;
	if (d->o.history < 1)
		d->o.history = 1;
	return d;
}

void dl_dally_free(struct dl_dally *d)
{
	if (!d)
		return;
	for (int i = 0; i <= DL_DALLY_MAX_DEMAND; i++) {
		free(d->hnode[i].v);
		free(d->hrack[i].v);
	}
	free(d);
}

const struct dl_dally_opts *dl_dally_opts(const struct dl_dally *d)
{
	return &d->o;
}

static int demand(int gpus)
{
	return gpus < 0 ? 0 : gpus > DL_DALLY_MAX_DEMAND ? DL_DALLY_MAX_DEMAND : gpus;
}

void dl_dally_timers(const struct dl_dally *d, int gpus, double *rack, double *net)
{
	int k = demand(gpus);
	double H = d->o.history;
	if (d->o.rack_delay >= 0) {
		*rack = d->o.rack_delay;
	} else {
		double l = ceil(d->hnode[k].est);
		if (l < DL_DALLY_RACK_FLOOR)
			l = DL_DALLY_RACK_FLOOR;
		if (l > ceil(DL_DALLY_RACK_CAP * H))
			l = ceil(DL_DALLY_RACK_CAP * H);
		*rack = l * d->o.lease;
	}
	if (d->o.net_delay >= 0) {
		*net = d->o.net_delay;
	} else {
		double l = ceil(d->hrack[k].est);
		if (l < DL_DALLY_NET_FLOOR)
			l = DL_DALLY_NET_FLOOR;
		if (l > H)
			l = H;
		*net = l * d->o.lease;
	}
}

enum dl_tier dl_dally_open_tier(const struct dl_dally *d, int gpus, double wait)
{
	double rack, net;
	dl_dally_timers(d, gpus, &rack, &net);
	return wait >= net ? DL_TIER_CLUSTER : wait >= rack ? DL_TIER_RACK : DL_TIER_NODE;
}

void dl_dally_record(struct dl_dally *d, int gpus, enum dl_tier tier, double wait)
{
	double leases = wait / d->o.lease;
	if (leases < 1 || tier == DL_TIER_CLUSTER)
		return;
	struct hist *h = tier == DL_TIER_NODE ? &d->hnode[demand(gpus)] : &d->hrack[demand(gpus)];
	int H = d->o.history;
	if (!h->v)
		h->v = xcalloc((size_t)H, sizeof(double));
	h->v[h->pos] = leases;
	h->pos = (h->pos + 1) % H;
	if (h->n < H)
		h->n++;
	h->est = dl_dally_estimate(h->v, h->n);
}
