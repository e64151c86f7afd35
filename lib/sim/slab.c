/* slab.c: growing a slab (slab.h) */
#include <string.h>

#include "core/xalloc.h"
#include "sim/slab.h"

void *dl_slab_grow(void *v, size_t *n, size_t need, size_t size)
{
	if (need <= *n)
		return v;
	/*
	 * A quarter more: slots grow one at a time as jobs arrive, so the copies
	 * stay amortised O(1) a slot (large reallocs are remapped, not copied),
	 * and at most a fifth of the slab is ever unused.
	 */
	size_t grown = *n + *n / 4;
	if (grown < need)
		grown = need < 64 ? 64 : need;
	v = xreallocarray(v, grown, size);
	memset((char *)v + *n * size, 0, (grown - *n) * size);
	*n = grown;
	return v;
}
