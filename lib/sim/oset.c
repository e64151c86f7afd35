/*
 * oset.c: B+ trees with parent links (see oset.h).
 *
 * Leaves hold jobs with their keys, in key order, and are chained in that
 * order; inner nodes hold children, with key[c] a lower bound of every key
 * under child c (key[0] bounds nothing: the node's own bound applies). A
 * key is routed to the last child whose bound it reaches, so bounds stay
 * true when keys leave and need no update: an insert only splits full
 * nodes on its way up, an erase only drops nodes it leaves empty (no
 * merging: a leaf holds a job at least, so there are never more leaves
 * than jobs). Every job knows its leaf, so erase, next and prev start
 * there, not at the root.
 */
#include <stdlib.h>
#include <string.h>

#include "core/common.h"
#include "sim/oset.h"

#define NIL UINT32_MAX
#define FAN DL_OSET_FAN

static int key_less(const struct dl_okey *a, const struct dl_okey *b)
{
	if (a->k0 != b->k0)
		return a->k0 < b->k0;
	if (a->k1 != b->k1)
		return a->k1 < b->k1;
	return a->k2 < b->k2;
}

static void init_jobs(struct dl_onode *n, size_t from, size_t to)
{
	memset(n + from, 0, (to - from) * sizeof(*n));
	for (size_t i = from; i < to; i++)
		n[i].leaf = NIL;
}

void dl_opool_init(struct dl_opool *pool, size_t njobs)
{
	memset(pool, 0, sizeof(*pool));
	pool->cap = njobs;
	pool->n = xcalloc(njobs ? njobs : 1, sizeof(*pool->n));
	init_jobs(pool->n, 0, njobs);
	pool->bfree = NIL;
}

void dl_opool_grow(struct dl_opool *pool, size_t need)
{
	if (need <= pool->cap)
		return;
	/* in steps of 1024: big blocks grow in place, and nothing is touched twice */
	size_t cap = (need + 1023) / 1024 * 1024;
	pool->n = xreallocarray(pool->n, cap, sizeof(*pool->n));
	init_jobs(pool->n, pool->cap, cap);
	pool->cap = cap;
}

void dl_opool_release(struct dl_opool *pool)
{
	free(pool->n);
	free(pool->b);
	memset(pool, 0, sizeof(*pool));
	pool->bfree = NIL;
}

/* a new empty tree node (pointers into pool->b are stale afterwards) */
static uint32_t node_new(struct dl_opool *P, int leaf)
{
	uint32_t id;
	if (P->bfree != NIL) {
		id = P->bfree;
		P->bfree = P->b[id].next;
	} else {
		DL_GROW(P->b, P->nb + 1, P->balloc);
		id = (uint32_t)P->nb++;
	}
	struct dl_obnode *b = &P->b[id];
	b->parent = b->prev = b->next = NIL;
	b->n = 0;
	b->leaf = (uint16_t)leaf;
	return id;
}

static void node_free(struct dl_opool *P, uint32_t id)
{
	P->b[id].next = P->bfree;
	P->bfree = id;
}

/* where x is among b's items (it is there) */
static unsigned item_pos(const struct dl_obnode *b, uint32_t x)
{
	unsigned k = 0;
	while (b->item[k] != x)
		k++;
	return k;
}

/* the child of inner node b whose range holds k: the last c >= 1 with key[c] <= k, else 0 */
static unsigned child_for(const struct dl_obnode *b, const struct dl_okey *k)
{
	unsigned lo = 1, hi = b->n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (key_less(k, &b->key[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 1;
}

/* where k goes in leaf b: before its first greater key */
static unsigned leaf_pos(const struct dl_obnode *b, const struct dl_okey *k)
{
	unsigned lo = 0, hi = b->n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (key_less(k, &b->key[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* item x with key k at position pos of node id (it has room) */
static void put_at(struct dl_opool *P, uint32_t id, unsigned pos, uint32_t x,
		   const struct dl_okey *k)
{
	struct dl_obnode *b = &P->b[id];
	memmove(b->item + pos + 1, b->item + pos, (b->n - pos) * sizeof(b->item[0]));
	memmove(b->key + pos + 1, b->key + pos, (b->n - pos) * sizeof(b->key[0]));
	b->item[pos] = x;
	b->key[pos] = *k;
	b->n++;
	if (b->leaf)
		P->n[x].leaf = id;
	else
		P->b[x].parent = id;
}

static uint32_t split(struct dl_opool *P, struct dl_oset *s, uint32_t id);

/* right (bound sep) goes just after left, its new sibling, in their parent */
static void add_child(struct dl_opool *P, struct dl_oset *s, uint32_t left, uint32_t right,
		      struct dl_okey sep)
{
	uint32_t parent = P->b[left].parent;
	if (parent == NIL) { /* left was the root: a new root above both */
		uint32_t r = node_new(P, 0);
		struct dl_obnode *b = &P->b[r];
		b->item[0] = left;
		b->key[0] = sep; /* (bounds nothing) */
		b->item[1] = right;
		b->key[1] = sep;
		b->n = 2;
		P->b[left].parent = P->b[right].parent = r;
		s->root = r;
		return;
	}
	if (P->b[parent].n == FAN) {
		split(P, s, parent);
		parent = P->b[left].parent; /* the half that now holds left */
	}
	put_at(P, parent, item_pos(&P->b[parent], left) + 1, right, &sep);
}

/* move the upper half of full node id to a new right sibling: that sibling */
static uint32_t split(struct dl_opool *P, struct dl_oset *s, uint32_t id)
{
	uint32_t r = node_new(P, P->b[id].leaf);
	struct dl_obnode *a = &P->b[id], *b = &P->b[r];
	unsigned h = a->n / 2, m = a->n - h;
	memcpy(b->item, a->item + h, m * sizeof(b->item[0]));
	memcpy(b->key, a->key + h, m * sizeof(b->key[0]));
	a->n = (uint16_t)h;
	b->n = (uint16_t)m;
	if (b->leaf) {
		for (unsigned k = 0; k < m; k++)
			P->n[b->item[k]].leaf = r;
		b->prev = id;
		b->next = a->next;
		if (a->next != NIL)
			P->b[a->next].prev = r;
		a->next = r;
	} else {
		for (unsigned k = 0; k < m; k++)
			P->b[b->item[k]].parent = r;
	}
	/* the right half's first bound bounds all of it (a key, or a child's bound) */
	add_child(P, s, id, r, b->key[0]);
	return r;
}

void dl_oset_insert(struct dl_opool *pool, struct dl_oset *s, size_t i, double k0, double k1,
		    uint64_t k2)
{
	struct dl_onode *N = &pool->n[i];
	N->k0 = k0;
	N->k1 = k1;
	N->k2 = k2;
	N->in = 1;
	const struct dl_okey k = {k0, k1, k2};
	s->count++;
	if (s->root == DL_ONIL) {
		uint32_t r = node_new(pool, 1);
		s->root = r;
		put_at(pool, r, 0, (uint32_t)i, &k);
		s->first = s->last = i;
		return;
	}
	/*
	 * A new first or last key goes to the end of the first or last leaf
	 * without a descent (queues in arrival or start order only ever add a
	 * last key); their bounds (none, or one below every key) still hold.
	 */
	uint32_t leaf;
	unsigned pos;
	if (dl_okey_less(N, &pool->n[s->first])) {
		leaf = pool->n[s->first].leaf;
		pos = 0;
		s->first = i;
	} else if (dl_okey_less(&pool->n[s->last], N)) {
		leaf = pool->n[s->last].leaf;
		pos = pool->b[leaf].n;
		s->last = i;
	} else {
		leaf = (uint32_t)s->root;
		while (!pool->b[leaf].leaf)
			leaf = pool->b[leaf].item[child_for(&pool->b[leaf], &k)];
		pos = leaf_pos(&pool->b[leaf], &k);
	}
	if (pool->b[leaf].n == FAN) {
		uint32_t r = split(pool, s, leaf);
		unsigned h = pool->b[leaf].n;
		/* at h exactly it stays left: below the right half's bound */
		if (pos > h) {
			pos -= h;
			leaf = r;
		}
	}
	put_at(pool, leaf, pos, (uint32_t)i, &k);
}

/* drop empty node id, and its parents that this leaves empty */
static void drop_empty(struct dl_opool *P, struct dl_oset *s, uint32_t id)
{
	for (;;) {
		struct dl_obnode *b = &P->b[id];
		uint32_t parent = b->parent;
		if (b->leaf) {
			if (b->prev != NIL)
				P->b[b->prev].next = b->next;
			if (b->next != NIL)
				P->b[b->next].prev = b->prev;
		}
		node_free(P, id);
		if (parent == NIL) {
			s->root = DL_ONIL;
			return;
		}
		struct dl_obnode *p = &P->b[parent];
		unsigned c = item_pos(p, id);
		memmove(p->item + c, p->item + c + 1, (p->n - c - 1) * sizeof(p->item[0]));
		memmove(p->key + c, p->key + c + 1, (p->n - c - 1) * sizeof(p->key[0]));
		if (--p->n)
			break;
		id = parent;
	}
	/* a root with one child gives way to it */
	while (!P->b[s->root].leaf && P->b[s->root].n == 1) {
		uint32_t r = (uint32_t)s->root, c = P->b[r].item[0];
		P->b[c].parent = NIL;
		s->root = c;
		node_free(P, r);
	}
}

void dl_oset_erase(struct dl_opool *pool, struct dl_oset *s, size_t i)
{
	struct dl_onode *N = &pool->n[i];
	if (!N->in)
		return;
	if (s->first == i)
		s->first = dl_oset_next(pool, i);
	if (s->last == i)
		s->last = dl_oset_prev(pool, i);
	uint32_t leaf = N->leaf;
	struct dl_obnode *b = &pool->b[leaf];
	unsigned pos = item_pos(b, (uint32_t)i);
	memmove(b->item + pos, b->item + pos + 1, (b->n - pos - 1) * sizeof(b->item[0]));
	memmove(b->key + pos, b->key + pos + 1, (b->n - pos - 1) * sizeof(b->key[0]));
	b->n--;
	N->in = 0;
	N->leaf = NIL;
	s->count--;
	if (!b->n)
		drop_empty(pool, s, leaf);
}

size_t dl_oset_next(const struct dl_opool *pool, size_t i)
{
	const struct dl_onode *N = &pool->n[i];
	if (!N->in)
		return DL_ONIL;
	const struct dl_obnode *b = &pool->b[N->leaf];
	unsigned pos = item_pos(b, (uint32_t)i);
	if (pos + 1u < b->n)
		return b->item[pos + 1];
	return b->next == NIL ? DL_ONIL : pool->b[b->next].item[0];
}

size_t dl_oset_prev(const struct dl_opool *pool, size_t i)
{
	const struct dl_onode *N = &pool->n[i];
	if (!N->in)
		return DL_ONIL;
	const struct dl_obnode *b = &pool->b[N->leaf];
	unsigned pos = item_pos(b, (uint32_t)i);
	if (pos > 0)
		return b->item[pos - 1];
	if (b->prev == NIL)
		return DL_ONIL;
	const struct dl_obnode *p = &pool->b[b->prev];
	return p->item[p->n - 1];
}
