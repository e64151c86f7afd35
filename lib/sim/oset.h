/*
 * oset.h: ordered sets of job indices (intrusive treaps) for the policies.
 *
 * A policy keeps its queues as ordered sets: insert, erase, first, last,
 * next and prev are O(log n) expected, and walking a set in order costs
 * O(1) amortised per step, so a scheduling pass pays only for the jobs it
 * looks at. Keys are (k0, k1, k2), compared in that order (k2 is a unique
 * sequence number, so the order is total and reproducible).
 *
 * All sets of a policy share one struct dl_opool indexed by the jobs' slots
 * (policy.h), grown as slots are added; each job is in at most one set at a
 * time (its node lives in the pool). Treap priorities come from a hash of the
 * node index: same input, same shape.
 *
 * Ownership: dl_opool_init allocates the node arrays; dl_opool_release frees
 * them. A struct dl_oset is two words and owns nothing.
 */
#ifndef DL_SIM_OSET_H
#define DL_SIM_OSET_H

#include <stddef.h>
#include <stdint.h>

/* node indices are below 2^32 - 1 (slots of a run) */
#define DL_ONIL	    ((size_t)UINT32_MAX)
#define DL_ONODE_IN (UINT32_C(1) << 31)

/*
 * What a descent reads at each level, k0 and the children, comes first:
 * 16 bytes, in one cache line for seven nodes in eight (nodes are 40 bytes).
 */
struct dl_onode {
	double k0;
	uint32_t l, r;
	uint32_t p;
	uint32_t pri; /* 31 bits of treap priority; DL_ONODE_IN while in a set */
	double k1;
	uint64_t k2;
};

struct dl_opool {
	struct dl_onode *n;
	size_t cap;
};

struct dl_oset {
	size_t root;
	size_t count;
	size_t first, last; /* kept up to date: O(1) to read */
};

#define DL_OSET_INIT                         \
	{                                    \
		DL_ONIL, 0, DL_ONIL, DL_ONIL \
	}

void dl_opool_init(struct dl_opool *pool, size_t njobs);
/* room for nodes 0..need-1 (new nodes are in no set) */
void dl_opool_grow(struct dl_opool *pool, size_t need);
void dl_opool_release(struct dl_opool *pool);

void dl_oset_insert(struct dl_opool *pool, struct dl_oset *s, size_t i, double k0, double k1,
		    uint64_t k2);
void dl_oset_erase(struct dl_opool *pool, struct dl_oset *s, size_t i);
static inline int dl_oset_has(const struct dl_opool *pool, size_t i)
{
	return (pool->n[i].pri & DL_ONODE_IN) != 0;
}
static inline size_t dl_oset_first(const struct dl_opool *pool, const struct dl_oset *s)
{
	(void)pool;
	return s->first;
}
static inline size_t dl_oset_last(const struct dl_opool *pool, const struct dl_oset *s)
{
	(void)pool;
	return s->last;
}
size_t dl_oset_next(const struct dl_opool *pool, size_t i);
size_t dl_oset_prev(const struct dl_opool *pool, size_t i);
/* is a before b in key order? (inline: the policies' walks compare set heads) */
static inline int dl_okey_less(const struct dl_onode *a, const struct dl_onode *b)
{
	if (a->k0 != b->k0)
		return a->k0 < b->k0;
	if (a->k1 != b->k1)
		return a->k1 < b->k1;
	return a->k2 < b->k2;
}

#endif
