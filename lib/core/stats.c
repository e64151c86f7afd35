/* stats.c: order statistics shared by trace stats and report (see stats.h) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* order-preserving map of a double's bits to an unsigned key */
static uint64_t dkey(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

static double undkey(uint64_t k)
{
	uint64_t u = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

/*
 * LSD radix sort, 16 bits per pass, of n records of `size` bytes whose first 8
 * bytes hold a dkey: a million JCTs sort in a few milliseconds, where qsort's
 * comparator calls dominated report and trace stats. Passes whose digit is the
 * same for every key are skipped (common: the sign and exponent bits of
 * similar values). The only temporaries are one buffer of n records and the
 * counts; the sorted records end in v.
 */
static inline void radix_sort_keys(unsigned char *v, size_t n, size_t size)
{
	unsigned char *a = v, *b = xmalloc(n * size);
	size_t *count = xmalloc(65536 * sizeof(*count));
	for (int shift = 0; shift < 64; shift += 16) {
		uint64_t k;
		memset(count, 0, 65536 * sizeof(*count));
		for (size_t i = 0; i < n; i++) {
			memcpy(&k, a + i * size, sizeof(k));
			count[(k >> shift) & 0xffff]++;
		}
		memcpy(&k, a, sizeof(k));
		if (count[(k >> shift) & 0xffff] == n)
			continue;
		size_t sum = 0;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			memcpy(&k, a + i * size, sizeof(k));
			memcpy(b + count[(k >> shift) & 0xffff]++ * size, a + i * size, size);
		}
		unsigned char *t = a;
		a = b;
		b = t;
	}
	if (a != v)
		memcpy(v, a, n * size);
	free(a == v ? b : a);
	free(count);
}

/* the keys live in v's own storage (no aliasing: memcpy), so trace stats needs no copy */
void dl_sort_doubles(double *v, size_t n)
{
	if (n < 2048) {
		qsort(v, n, sizeof(*v), cmp_double);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = dkey(v[i]);
		memcpy(&v[i], &k, sizeof(k));
	}
	radix_sort_keys((unsigned char *)v, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &v[i], sizeof(k));
		v[i] = undkey(k);
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
		uint64_t k = dkey(v[i].key);
		memcpy(&v[i].key, &k, sizeof(k));
	}
	radix_sort_keys((unsigned char *)v, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &v[i].key, sizeof(k));
		v[i].key = undkey(k);
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
