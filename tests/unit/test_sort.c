/*
 * test_sort.c: dl_stable_sort against an insertion sort (stable by
 * construction) on random records with many equal keys, of several sizes,
 * with and without the caller's scratch, sorted and unsorted input.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "tap.h"

struct rec {
	int key;
	int pos; /* input position: ties must keep it ascending */
	char pad[5];
};

static int by_key(const void *a, const void *b, void *ctx)
{
	int x = ((const struct rec *)a)->key, y = ((const struct rec *)b)->key;
	(*(int *)ctx)++;
	return (x > y) - (x < y);
}

int main(void)
{
	unsigned x = 99;
	int bad = 0, calls = 0;
	for (int round = 0; round < 300; round++) {
		int n = round < 100 ? round : 1 + (round * 37) % 3000;
		struct rec *a = calloc((size_t)n + 1, sizeof(*a)),
			   *b = calloc((size_t)n + 1, sizeof(*b));
		for (int i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			a[i].key = round % 7 == 0 ? i / 3
						  : (int)((x >> 8) % (1 + (unsigned)round % 20));
			a[i].pos = i;
		}
		memcpy(b, a, (size_t)n * sizeof(*a));
		for (int i = 1; i < n; i++) { /* the reference */
			struct rec r = b[i];
			int k = i;
			for (; k > 0 && b[k - 1].key > r.key; k--)
				b[k] = b[k - 1];
			b[k] = r;
		}
		struct rec *scratch = round % 2 ? calloc((size_t)n + 1, sizeof(*a)) : NULL;
		dl_stable_sort(a, (size_t)n, sizeof(*a), by_key, &calls, scratch);
		bad += memcmp(a, b, (size_t)n * sizeof(*a)) != 0;
		free(scratch);
		free(a);
		free(b);
	}
	ok(!bad, "dl_stable_sort == a stable insertion sort on 300 arrays (%d mismatches)", bad);
	ok(calls > 0, "the comparison gets the caller's context");
	return done_testing();
}
