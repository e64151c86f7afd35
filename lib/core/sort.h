/*
 * sort.h: the one stable sort (equal elements keep their order), for every
 * list whose ties must stay in input order: jobs by submit time, the
 * reference Tiresias simulator's list.sort(key=...).
 *
 * A bottom-up merge sort: O(n log n) comparisons, after an O(n) check that
 * returns at once when the array is sorted already (most traces are).
 * Scratch: n * size bytes, from `scratch` when it is not NULL (the caller's,
 * for sorts in a loop), else allocated and freed here.
 *
 * DL_MERGE_SORT is the same sort with the comparison inline, for one type
 * sorted in a hot loop (the drivers' auctions and rounds), where calls to a
 * comparison function cost more than the sort.
 */
#ifndef DL_SORT_H
#define DL_SORT_H

#include <stddef.h>
#include <string.h>

#include "core/xalloc.h"

/* < 0: a comes before b; 0: a tie (input order decides); > 0: b comes first */
typedef int (*dl_cmp_fn)(const void *a, const void *b, void *ctx);

void dl_stable_sort(void *base, size_t n, size_t size, dl_cmp_fn cmp, void *ctx, void *scratch);

/*
 * static void name(type *v, size_t n, type **tmp, size_t *tmp_alloc): v in
 * the order of before(a, b), stably (a merge sort: equal elements keep their
 * order), comparing inline rather than by qsort's calls; *tmp is its buffer
 */
#define DL_MERGE_SORT(name, type, before)                                                          \
	static void name(type *v, size_t n, type **tmp, size_t *tmp_alloc)                         \
	{                                                                                          \
		enum { RUN = 8 };                                                                  \
		for (size_t lo = 0; lo < n; lo += RUN) { /* insertion sort of each run */          \
			size_t hi = lo + RUN < n ? lo + RUN : n;                                   \
			for (size_t i = lo + 1; i < hi; i++) {                                     \
				type x = v[i];                                                     \
				size_t k = i;                                                      \
				for (; k > lo && before(&x, &v[k - 1]); k--)                       \
					v[k] = v[k - 1];                                           \
				v[k] = x;                                                          \
			}                                                                          \
		}                                                                                  \
		if (n <= RUN)                                                                      \
			return;                                                                    \
		DL_GROW(*tmp, n, *tmp_alloc);                                                      \
		type *src = v, *dst = *tmp;                                                        \
		for (size_t w = RUN; w < n; w *= 2) {                                              \
			for (size_t lo = 0; lo < n; lo += 2 * w) {                                 \
				size_t mid = lo + w < n ? lo + w : n;                              \
				size_t hi = lo + 2 * w < n ? lo + 2 * w : n;                       \
				size_t i = lo, j = mid, o = lo;                                    \
				while (i < mid && j < hi)                                          \
					dst[o++] = before(&src[j], &src[i]) ? src[j++] : src[i++]; \
				while (i < mid)                                                    \
					dst[o++] = src[i++];                                       \
				while (j < hi)                                                     \
					dst[o++] = src[j++];                                       \
			}                                                                          \
			type *t = src;                                                             \
			src = dst;                                                                 \
			dst = t;                                                                   \
		}                                                                                  \
		if (src != v)                                                                      \
			memcpy(v, src, n * sizeof(*v));                                            \
	}

#endif
