/* mlfq.c: multi-level feedback queues (see mlfq.h) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/common.h"
#include "core/num.h"
#include "policy/mlfq.h"

const double dl_mlfq_tiresias_limits[3] = {3250, 7200, 18000};

static int check_limits(const double *limits, size_t n, const char *what, struct dl_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(limits[i]) || limits[i] <= 0)
			return dl_err_set(err, DL_EXIT_USAGE, "bad %s value '%g' (must be > 0)",
					  what, limits[i]);
		if (i && limits[i] <= limits[i - 1])
			return dl_err_set(err, DL_EXIT_USAGE,
					  "%s must be strictly ascending ('%g' after '%g')", what,
					  limits[i], limits[i - 1]);
	}
	return 0;
}

int dl_mlfq_init(struct dl_mlfq *m, size_t nqueues, const double *limits, size_t nlimits,
		 double starvation, struct dl_err *err)
{
	memset(m, 0, sizeof(*m));
	if (nqueues < 1)
		return dl_err_set(err, DL_EXIT_USAGE, "the number of queues must be at least 1");
	if (nlimits != nqueues - 1)
		return dl_err_set(err, DL_EXIT_USAGE, "%zu queues need %zu thresholds, %zu given",
				  nqueues, nqueues - 1, nlimits);
	if (check_limits(limits, nlimits, "threshold", err) < 0)
		return -1;
	if (!isfinite(starvation) || starvation < 0)
		return dl_err_set(err, DL_EXIT_USAGE, "bad starvation multiplier '%g'", starvation);
	m->nqueues = nqueues;
	m->limits = nlimits ? xmalloc(nlimits * sizeof(*limits)) : NULL;
	if (nlimits)
		memcpy(m->limits, limits, nlimits * sizeof(*limits));
	m->starvation = starvation;
	return 0;
}

void dl_mlfq_release(struct dl_mlfq *m)
{
	free(m->limits);
	m->limits = NULL;
	m->nqueues = 0;
}

size_t dl_mlfq_queue(const struct dl_mlfq *m, double service)
{
	/* number of limits <= service */
	size_t lo = 0, hi = m->nqueues - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->limits[mid] <= service)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double dl_mlfq_limit(const struct dl_mlfq *m, size_t q)
{
	return q + 1 < m->nqueues ? m->limits[q] : INFINITY;
}

double dl_mlfq_starve_limit(const struct dl_mlfq *m, double executed)
{
	if (!(m->starvation > 0) || !(executed > 0))
		return INFINITY;
	double lim = executed * m->starvation;
	return m->trunc ? trunc(lim) : lim;
}

int dl_mlfq_starving(const struct dl_mlfq *m, size_t queue, double executed, double waiting)
{
	return queue > 0 && waiting >= dl_mlfq_starve_limit(m, executed);
}

int dl_mlfq_parse_limits(const char *s, const char *what, double **out, size_t *n,
			 struct dl_err *err)
{
	double *v = NULL;
	size_t cnt = 0, alloc = 0;
	const char *p = s;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *item = xstrndup(p, len);
		double x;
		if (dl_parse_double(item, &x) < 0 || x <= 0) {
			dl_err_set(err, DL_EXIT_USAGE, "bad %s value '%s' (want numbers > 0)", what,
				   item);
			free(item);
			free(v);
			return -1;
		}
		free(item);
		DL_GROW(v, cnt + 1, alloc);
		v[cnt++] = x;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (check_limits(v, cnt, what, err) < 0) {
		free(v);
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
}

#define AT(f) DL_OPT_AT(struct dl_mlfq_params, f)
const struct dl_opt dl_mlfq_opts[] = {
	{DL_OPT_INT, 0, "queues", "K",
	 "MLFQ: number of queues (without --thresholds: Tiresias' limits 3250,7200,18000 in turn)",
	 AT(queues), .imin = 1, .imax = 1000000},
	{DL_OPT_NUMLIST, 0, "thresholds", "A,B,...",
	 "MLFQ: the K-1 queue limits, ascending (seconds; GPU-seconds for the 2D policies)",
	 AT(thresholds), .flags = DL_OPTF_GT},
	{DL_OPT_DOUBLE, 0, "starvation", "N",
	 "MLFQ: back to the top queue after waiting N times the run time (0: never)",
	 AT(starvation), .def = "0"},
	{DL_OPT_END},
};
#undef AT

int dl_mlfq_from_params(struct dl_mlfq *m, const struct dl_mlfq_params *p, size_t default_queues,
			struct dl_err *err)
{
	double *lim = NULL;
	size_t nlim = 0, k;
	if (p->thresholds) {
		if (dl_mlfq_parse_limits(p->thresholds, "--thresholds", &lim, &nlim, err) < 0)
			return -1;
		k = p->queues ? (size_t)p->queues : nlim + 1;
		if (nlim != k - 1) {
			free(lim);
			return dl_err_set(err, DL_EXIT_USAGE,
					  "--queues %d needs %d thresholds, %zu given", p->queues,
					  p->queues - 1, nlim);
		}
	} else {
		k = p->queues ? (size_t)p->queues : default_queues;
		if (k - 1 > DL_MLFQ_TIRESIAS_QUEUES)
			return dl_err_set(err, DL_EXIT_USAGE,
					  "--queues %zu needs --thresholds (the defaults give at "
					  "most %d queues)",
					  k, DL_MLFQ_TIRESIAS_QUEUES + 1);
		nlim = k - 1;
		lim = xmalloc(sizeof(dl_mlfq_tiresias_limits));
		memcpy(lim, dl_mlfq_tiresias_limits, sizeof(dl_mlfq_tiresias_limits));
	}
	int rc = dl_mlfq_init(m, k, lim, nlim, p->starvation, err);
	free(lim);
	return rc;
}
