/*
 * sort.h: the one stable sort (equal elements keep their order), for every
 * list whose ties must stay in input order: jobs by submit time, the
 * reference Tiresias simulator's list.sort(key=...).
 *
 * A bottom-up merge sort: O(n log n) comparisons, after an O(n) check that
 * returns at once when the array is sorted already (most traces are).
 * Scratch: n * size bytes, from `scratch` when it is not NULL (the caller's,
 * for sorts in a loop), else allocated and freed here.
 */
#ifndef DL_SORT_H
#define DL_SORT_H

#include <stddef.h>

/* < 0: a comes before b; 0: a tie (input order decides); > 0: b comes first */
typedef int (*dl_cmp_fn)(const void *a, const void *b, void *ctx);

void dl_stable_sort(void *base, size_t n, size_t size, dl_cmp_fn cmp, void *ctx, void *scratch);

#endif
