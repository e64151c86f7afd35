/*
 * oset.h: ordered sets of job indices (B+ trees) for the policies.
 *
 * A policy keeps its queues as ordered sets: insert, erase, next and prev
 * cost O(log n) at most (next and prev are O(1) but at the end of a leaf),
 * first and last O(1), so a scheduling pass pays only for the jobs it looks
 * at. Keys are (k0, k1, k2), compared in that order (k2 is a unique
 * sequence number, so the order is total and reproducible).
 *
 * The trees keep their keys inline, up to DL_OSET_FAN to a node, so an
 * insert reads a few cache lines where a binary tree of the same jobs
 * (the treap this replaced) missed the cache on every level.
 *
 * All sets of a policy share one struct dl_opool: per job (indexed by the
 * jobs' slots, policy.h, grown as slots are added) its key and the leaf that
 * holds it, and the tree nodes of every set. Each job is in at most one set
 * at a time. The shape depends only on the operations: same input, same
 * shape.
 *
 * Ownership: dl_opool_init allocates the arrays; dl_opool_release frees
 * them. A struct dl_oset is four words and owns nothing (its nodes are the
 * pool's).
 */
#ifndef DL_SIM_OSET_H
#define DL_SIM_OSET_H

#include <stddef.h>
#include <stdint.h>

/* job and node indices are below 2^32 - 1 (slots of a run) */
#define DL_ONIL ((size_t)UINT32_MAX)
/* entries per tree node */
#define DL_OSET_FAN 16

/* a job's entry: its key while it is in a set */
struct dl_onode {
	double k0, k1;
	uint64_t k2;
	uint32_t leaf; /* the leaf holding it */
	uint32_t in;   /* in a set */
};

struct dl_okey {
	double k0, k1;
	uint64_t k2;
};

/* a tree node: a leaf holds jobs, an inner node children (key[0] bounds nothing) */
struct dl_obnode {
	uint32_t parent;
	uint32_t prev, next; /* leaves: their neighbours in key order */
	uint16_t n, leaf;
	uint32_t item[DL_OSET_FAN]; /* jobs, or children */
	struct dl_okey key[DL_OSET_FAN];
};

struct dl_opool {
	struct dl_onode *n; /* per job */
	size_t cap;
	struct dl_obnode *b; /* tree nodes */
	size_t nb, balloc;
	uint32_t bfree; /* a freed tree node (chained through .next), or UINT32_MAX */
};

struct dl_oset {
	size_t root; /* a tree node */
	size_t count;
	size_t first, last; /* jobs, kept up to date: O(1) to read */
};

#define DL_OSET_INIT                         \
	{                                    \
		DL_ONIL, 0, DL_ONIL, DL_ONIL \
	}

void dl_opool_init(struct dl_opool *pool, size_t njobs);
/* room for jobs 0..need-1 (new ones are in no set) */
void dl_opool_grow(struct dl_opool *pool, size_t need);
void dl_opool_release(struct dl_opool *pool);

void dl_oset_insert(struct dl_opool *pool, struct dl_oset *s, size_t i, double k0, double k1,
		    uint64_t k2);
/* i leaves s (nothing if it is in no set) */
void dl_oset_erase(struct dl_opool *pool, struct dl_oset *s, size_t i);
static inline int dl_oset_has(const struct dl_opool *pool, size_t i)
{
	return pool->n[i].in != 0;
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
/* the job after (before) i in its set, DL_ONIL at the end or when i is in none */
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
