/* stats.c: order statistics shared by trace stats and report (see stats.h) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rsort.h"
#include "core/stats.h"
#include "core/xalloc.h"

double dl_percentile_nearest(const double *v, size_t n, double p)
{
	if (!n || !(p > 0) || p > 100)
		return NAN;
	/*
	 * Nearest rank: the smallest value with at least p% of the values at or
	 * below it. p*n is exact for the integral p used here, and a quotient
	 * that is mathematically an integer is exact too, so ceil() is safe.
	 */
	double x = ceil(p * (double)n / 100.0);
	size_t rank = x < 1 ? 1 : (size_t)x;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

double dl_jain_index(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += v[i];
		s2 += v[i] * v[i];
	}
	if (!(s2 > 0))
		return NAN;
	return s * s / ((double)n * s2);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Sort n records of `size` bytes whose first 8 bytes hold a dl_rsort_key, by that
 * key: a million JCTs sort in a few milliseconds with dl_rsort, where
 * qsort's comparator calls dominated report and trace stats. The sorted
 * records end in v.
 */
static void sort_by_dkey(unsigned char *v, size_t n, size_t size)
{
	unsigned char *tmp = xmalloc(n * size);
	unsigned char *sorted = dl_rsort(v, tmp, n, size, 0, 0);
	if (sorted != v)
		memcpy(v, sorted, n * size);
	free(tmp);
}

/* the keys live in v's own storage (no aliasing: memcpy), so trace stats needs no copy */
void dl_sort_doubles(double *v, size_t n)
{
	if (n < 2048) {
		qsort(v, n, sizeof(*v), cmp_double);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = dl_rsort_key(v[i]);
		memcpy(&v[i], &k, sizeof(k));
	}
	sort_by_dkey((unsigned char *)v, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &v[i], sizeof(k));
		v[i] = dl_rsort_key_value(k);
	}
}

static int cmp_keyed(const void *a, const void *b)
{
	return cmp_double(&((const struct dl_keyed *)a)->key, &((const struct dl_keyed *)b)->key);
}

void dl_sort_keyed(struct dl_keyed *v, size_t n)
{
	if (n < 2048) {
		qsort(v, n, sizeof(*v), cmp_keyed);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = dl_rsort_key(v[i].key);
		memcpy(&v[i].key, &k, sizeof(k));
	}
	sort_by_dkey((unsigned char *)v, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &v[i].key, sizeof(k));
		v[i].key = dl_rsort_key_value(k);
	}
}

double dl_percentile_interp(const double *v, size_t n, double p)
{
	if (!n)
		return 0;
	double h = (double)(n - 1) * (p / 100.0);
	size_t i = (size_t)h;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}
