/*
 * stats.h: order statistics shared by every command that summarises numbers
 * (trace stats, report).
 *
 * Two percentile definitions, because both are in use and documented:
 * nearest rank (report: every value is one of the data, easy to check by
 * hand) and linear interpolation between order statistics (trace stats:
 * numpy's default). Both take p in [0, 100] and an ascending array the caller
 * owns. Nothing here allocates except the sorts' one temporary buffer of n
 * values.
 */
#ifndef DL_STATS_H
#define DL_STATS_H

#include <stddef.h>

/* sort ascending; no NaN allowed. A radix sort on the bits for large n */
void dl_sort_doubles(double *v, size_t n);
/* a value carried along by its key */
struct dl_keyed {
	double key, value;
};
/* sort by key ascending, as dl_sort_doubles (no NaN key); equal keys in no set order */
void dl_sort_keyed(struct dl_keyed *v, size_t n);
/* nearest rank: v[ceil(p n / 100) - 1], 0 < p <= 100; NaN when n == 0 or p out of range */
double dl_percentile_nearest(const double *v, size_t n, double p);
/* linear interpolation between order statistics; 0 when n == 0 */
double dl_percentile_interp(const double *v, size_t n, double p);
/* Jain's fairness index (sum x)^2 / (n sum x^2); NaN when n == 0 or all are 0 */
double dl_jain_index(const double *v, size_t n);

#endif
