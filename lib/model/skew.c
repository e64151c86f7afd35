/*
 * skew.c: how unevenly a model's tensors load P parameter servers.
 *
 * skew_rr is the Tiresias simulator's ps_max_ave: tensor i (file order) goes
 * to server i mod P, a server's load is the sum of its tensors' sizes, and the
 * skew is max load / mean load, where the mean is over all P servers. It is 1
 * for a perfectly balanced model and P when one server carries everything.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

double dl_skew_rr(const int64_t *sizes, size_t n, int ps)
{
	if (ps < 1)
		return 0;
	double *load = xcalloc((size_t)ps, sizeof(*load));
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		load[i % (size_t)ps] += (double)sizes[i];
		total += (double)sizes[i];
	}
	double max = 0;
	for (int p = 0; p < ps; p++)
		if (load[p] > max)
			max = load[p];
	free(load);
	return total > 0 ? max / (total / ps) : 0;
}

struct sized {
	int64_t size;
	size_t index;
};

static int largest_first(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

double dl_skew_greedy(const int64_t *sizes, size_t n, int ps)
{
	if (ps < 1)
		return 0;
	struct sized *s = xcalloc(n ? n : 1, sizeof(*s));
	double *load = xcalloc((size_t)ps, sizeof(*load));
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		s[i].size = sizes[i];
		s[i].index = i;
		total += (double)sizes[i];
	}
	qsort(s, n, sizeof(*s), largest_first);
	for (size_t i = 0; i < n; i++) {
		int best = 0; /* the least loaded server; the lowest index on ties */
		for (int p = 1; p < ps; p++)
			if (load[p] < load[best])
				best = p;
		load[best] += (double)s[i].size;
	}
	double max = 0;
	for (int p = 0; p < ps; p++)
		if (load[p] > max)
			max = load[p];
	free(s);
	free(load);
	return total > 0 ? max / (total / ps) : 0;
}

double dl_sensitivity(double skew_rr, int ps)
{
	if (ps <= 1 || !(skew_rr > 1))
		return 0;
	double s = (skew_rr - 1) / (ps - 1);
	return s > 1 ? 1 : s;
}

void dl_profile_model(const struct dl_model *m, int ps, double threshold, int all,
		      struct dl_profile *out)
{
	memset(out, 0, sizeof(*out));
	out->ps = ps;
	int64_t *sizes = xcalloc(m->n ? m->n : 1, sizeof(*sizes));
	size_t n = 0;
	int64_t largest = 0;
	double total = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct dl_tensor *t = &m->t[i];
		if (!dl_tensor_counted(t, all))
			continue;
		sizes[n++] = t->numel;
		/* saturate rather than overflow on absurd declared shapes */
		if (__builtin_add_overflow(out->params, t->numel, &out->params))
			out->params = INT64_MAX;
		total += (double)t->numel;
		if (t->bytes > 0 && __builtin_add_overflow(out->bytes, t->bytes, &out->bytes))
			out->bytes = INT64_MAX;
		if (t->numel > largest)
			largest = t->numel;
	}
	out->tensors = n;
	out->largest_share = total > 0 ? (double)largest / total : 0;
	out->skew_rr = dl_skew_rr(sizes, n, ps);
	out->skew_greedy = dl_skew_greedy(sizes, n, ps);
	out->sensitivity = dl_sensitivity(out->skew_rr, ps);
	out->consolidate = out->skew_rr > threshold;
	free(sizes);
}
