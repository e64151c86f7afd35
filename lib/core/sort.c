/* sort.c: a stable bottom-up merge sort (see sort.h) */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"

void dl_stable_sort(void *base, size_t n, size_t size, dl_cmp_fn cmp, void *ctx, void *scratch)
{
	char *a = base;
	size_t i = 1;
	while (i < n && cmp(a + (i - 1) * size, a + i * size, ctx) <= 0)
		i++;
	if (i >= n)
		return;
	char *tmp = scratch ? scratch : xmalloc(n * size), *src = a, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t l = lo, r = mid, k = lo;
			/* the right element goes first only when strictly smaller: stable */
			while (l < mid && r < hi) {
				size_t from =
					cmp(src + r * size, src + l * size, ctx) < 0 ? r++ : l++;
				memcpy(dst + k++ * size, src + from * size, size);
			}
			memcpy(dst + k * size, src + l * size, (mid - l) * size);
			k += mid - l;
			memcpy(dst + k * size, src + r * size, (hi - r) * size);
		}
		char *x = src;
		src = dst;
		dst = x;
	}
	if (src != a)
		memcpy(a, src, n * size);
	if (!scratch)
		free(tmp);
}
