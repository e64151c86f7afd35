/* slab.c: growing a slab (slab.h) */
#include <string.h>

#include "core/xalloc.h"
#include "sim/slab.h"

void *dl_slab_grow(void *v, size_t *n, size_t need, size_t size)
{
	if (need <= *n)
		return v;
	/* at least double: slots grow one at a time as jobs arrive */
	size_t grown = *n * 2 > need ? *n * 2 : need < 64 ? 64 : need;
	v = xreallocarray(v, grown, size);
	memset((char *)v + *n * size, 0, (grown - *n) * size);
	*n = grown;
	return v;
}
