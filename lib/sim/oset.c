/* oset.c: treaps with parent links (see oset.h) */
#include <stdlib.h>
#include <string.h>

#include "core/common.h"
#include "sim/oset.h"

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void init_nodes(struct dl_onode *n, size_t from, size_t to)
{
	memset(n + from, 0, (to - from) * sizeof(*n));
	for (size_t i = from; i < to; i++) {
		n[i].l = n[i].r = n[i].p = UINT32_MAX;
		n[i].pri = (uint32_t)(mix(i) >> 33); /* not in a set */
	}
}

void dl_opool_init(struct dl_opool *pool, size_t njobs)
{
	pool->cap = njobs;
	pool->n = xcalloc(njobs ? njobs : 1, sizeof(*pool->n));
	init_nodes(pool->n, 0, njobs);
}

void dl_opool_grow(struct dl_opool *pool, size_t need)
{
	if (need <= pool->cap)
		return;
	/* in steps of 1024: big blocks grow in place, and nothing is touched twice */
	size_t cap = (need + 1023) / 1024 * 1024;
	pool->n = xreallocarray(pool->n, cap, sizeof(*pool->n));
	init_nodes(pool->n, pool->cap, cap);
	pool->cap = cap;
}

void dl_opool_release(struct dl_opool *pool)
{
	free(pool->n);
	pool->n = NULL;
	pool->cap = 0;
}

/* make child x of parent link point to y */
static void replace_child(struct dl_opool *pool, struct dl_oset *s, size_t parent, size_t x,
			  size_t y)
{
	if (parent == DL_ONIL)
		s->root = y;
	else if (pool->n[parent].l == x)
		pool->n[parent].l = (uint32_t)y;
	else
		pool->n[parent].r = (uint32_t)y;
	if (y != DL_ONIL)
		pool->n[y].p = (uint32_t)parent;
}

/* inlined: an insert or erase rotates once or twice, and the call cost a fifth of a rotation */
static inline __attribute__((always_inline)) void rotate_up(struct dl_opool *pool,
							    struct dl_oset *s, size_t x)
{
	struct dl_onode *N = pool->n;
	size_t p = N[x].p, g = N[p].p;
	if (N[p].l == x) {
		size_t b = N[x].r;
		N[p].l = (uint32_t)b;
		if (b != DL_ONIL)
			N[b].p = (uint32_t)p;
		N[x].r = (uint32_t)p;
	} else {
		size_t b = N[x].l;
		N[p].r = (uint32_t)b;
		if (b != DL_ONIL)
			N[b].p = (uint32_t)p;
		N[x].l = (uint32_t)p;
	}
	N[p].p = (uint32_t)x;
	replace_child(pool, s, g, p, x);
}

void dl_oset_insert(struct dl_opool *pool, struct dl_oset *s, size_t i, double k0, double k1,
		    uint64_t k2)
{
	struct dl_onode *N = pool->n;
	N[i].k0 = k0;
	N[i].k1 = k1;
	N[i].k2 = k2;
	N[i].l = N[i].r = N[i].p = UINT32_MAX;
	N[i].pri |= DL_ONODE_IN;
	s->count++;
	if (s->root == DL_ONIL) {
		s->root = s->first = s->last = i;
		return;
	}
	/*
	 * A new first or last key hangs below the old one (which has no child on
	 * that side): the place a descent from the root would find, without the
	 * descent. Queues in arrival or start order only ever add a last key.
	 */
	size_t cur = s->root;
	if (dl_okey_less(&N[i], &N[s->first])) {
		N[s->first].l = (uint32_t)i;
		N[i].p = (uint32_t)s->first;
		s->first = i;
		goto placed;
	}
	if (!dl_okey_less(&N[i], &N[s->last])) { /* keys are unique: not less means greater */
		N[s->last].r = (uint32_t)i;
		N[i].p = (uint32_t)s->last;
		s->last = i;
		goto placed;
	}
	for (;;) {
		uint32_t *next = dl_okey_less(&N[i], &N[cur]) ? &N[cur].l : &N[cur].r;
		if (*next == DL_ONIL) {
			*next = (uint32_t)i;
			N[i].p = (uint32_t)cur;
			break;
		}
		cur = *next;
	}
placed:
	while (N[i].p != DL_ONIL && N[N[i].p].pri < N[i].pri)
		rotate_up(pool, s, i);
}

void dl_oset_erase(struct dl_opool *pool, struct dl_oset *s, size_t i)
{
	struct dl_onode *N = pool->n;
	if (!(N[i].pri & DL_ONODE_IN))
		return;
	if (s->first == i)
		s->first = dl_oset_next(pool, i);
	if (s->last == i)
		s->last = dl_oset_prev(pool, i);
	/* rotate i down until it has at most one child */
	while (N[i].l != DL_ONIL && N[i].r != DL_ONIL) {
		size_t c = N[N[i].l].pri > N[N[i].r].pri ? N[i].l : N[i].r;
		rotate_up(pool, s, c);
	}
	size_t child = N[i].l != DL_ONIL ? N[i].l : N[i].r;
	replace_child(pool, s, N[i].p, i, child);
	N[i].l = N[i].r = N[i].p = UINT32_MAX;
	N[i].pri &= ~DL_ONODE_IN;
	s->count--;
}

size_t dl_oset_next(const struct dl_opool *pool, size_t x)
{
	const struct dl_onode *N = pool->n;
	if (N[x].r != DL_ONIL) {
		x = N[x].r;
		while (N[x].l != DL_ONIL)
			x = N[x].l;
		return x;
	}
	size_t p = N[x].p;
	while (p != DL_ONIL && N[p].r == x) {
		x = p;
		p = N[p].p;
	}
	return p;
}

size_t dl_oset_prev(const struct dl_opool *pool, size_t x)
{
	const struct dl_onode *N = pool->n;
	if (N[x].l != DL_ONIL) {
		x = N[x].l;
		while (N[x].r != DL_ONIL)
			x = N[x].r;
		return x;
	}
	size_t p = N[x].p;
	while (p != DL_ONIL && N[p].l == x) {
		x = p;
		p = N[p].p;
	}
	return p;
}
