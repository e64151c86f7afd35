/*
 * state.c: free-GPU bookkeeping (see state.h).
 *
 * Four structures are kept in step on every change of a node's free count:
 * per-(type, free) bitsets of nodes for best fit, per-rack
 * histograms of node free counts for "how many nodes would this rack need",
 * per-rack lists of the nodes with a free GPU, and max-trees over the node
 * order for first fit. The trees are brought up to date only when a
 * first-fit query needs them (most placement policies never ask).
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/state.h"

/* Histograms cost racks * (maxg+1) ints; past this, count by scanning the rack. */
#define HIST_MAX_CELLS (1 << 24)

static int *tree_of(const struct dl_cluster_state *st, int type)
{
	int t = type < 0 ? st->ntypes : type;
	return st->tree + (size_t)t * 2 * (size_t)st->tsize;
}

static void tree_set(struct dl_cluster_state *st, int type, int node, int v)
{
	int *t = tree_of(st, type);
	int i = st->tsize + node;
	t[i] = v;
	for (i /= 2; i >= 1; i /= 2) {
		int m = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
		if (t[i] == m)
			break;
		t[i] = m;
	}
}

/*
 * Best fit: per (type, free count) bucket, a bitset over the nodes and,
 * past SUMMARY_WORDS words, a summary bitset of its non-empty words, so a
 * change is O(1) and "the lowest node with exactly f free GPUs" (or "none")
 * a scan of a few words. A small cluster's buckets are scanned whole: the
 * summary's upkeep (a branch on whether a word emptied, random to the
 * predictor) cost more in every change than it saved in a query.
 */
#define SUMMARY_WORDS 8
static uint64_t *bucket_bits(const struct dl_cluster_state *st, int type, int f)
{
	size_t b = (size_t)type * (size_t)(st->maxg + 1) + (size_t)f;
	return st->bbits + b * (size_t)(st->bwords + st->bsum);
}

static void bucket_link(struct dl_cluster_state *st, int node)
{
	const struct dl_state_node *ni = &st->ni[node];
	int f = st->node_free[node];
	uint64_t *w = st->bbits + ni->bword + (size_t)f * st->bstride - node / 64;
	w[node / 64] |= UINT64_C(1) << (node % 64);
	if (st->bsum)
		w[st->bwords + node / 4096] |= UINT64_C(1) << (node / 64 % 64);
}

/* the lowest node in a bucket, -1 when it is empty */
static int bucket_first(const struct dl_cluster_state *st, int type, int f)
{
	const uint64_t *w = bucket_bits(st, type, f), *sum = w + st->bwords;
	if (!st->bsum) {
		for (int k = 0; k < st->bwords; k++)
			if (w[k])
				return k * 64 + __builtin_ctzll(w[k]);
		return -1;
	}
	for (int k = 0; k < st->bsum; k++)
		if (sum[k]) {
			int word = k * 64 + __builtin_ctzll(sum[k]);
			return word * 64 + __builtin_ctzll(w[word]);
		}
	return -1;
}

/* DL_TIE_RECENT's bucket lists: out of one, to the head of another */
static inline void recent_unlink(struct dl_cluster_state *st, int node, int f)
{
	int prev = st->rprev[node], next = st->rnext[node];
	if (prev >= 0)
		st->rnext[prev] = next;
	else
		st->rhead[st->ni[node].type * (st->maxg + 1) + f] = next;
	if (next >= 0)
		st->rprev[next] = prev;
}

static inline void recent_push(struct dl_cluster_state *st, int node, int f)
{
	int *head = &st->rhead[st->ni[node].type * (st->maxg + 1) + f];
	st->rprev[node] = -1;
	st->rnext[node] = *head;
	if (*head >= 0)
		st->rprev[*head] = node;
	*head = node;
}

static inline void open_update(struct dl_cluster_state *st, int node)
{
	const struct dl_state_node *ni = &st->ni[node];
	int *list = st->open + ni->open_base, *cnt = &st->open_n[ni->rack];
	int pos = st->open_pos[node];
	if (st->node_free[node] > 0 && pos < 0) {
		st->open_pos[node] = *cnt;
		list[(*cnt)++] = node;
	} else if (st->node_free[node] == 0 && pos >= 0) {
		int last = list[--*cnt];
		list[pos] = last;
		st->open_pos[last] = pos;
		st->open_pos[node] = -1;
	}
}

/* bring the first-fit trees up to date */
static void trees_update(struct dl_cluster_state *st)
{
	for (int k = 0; k < st->nstale; k++) {
		int node = st->stale[k];
		st->is_stale[node] = 0;
		tree_set(st, DL_ANY_TYPE, node, st->node_free[node]);
		if (st->ntypes > 1)
			tree_set(st, st->c->nodes[node].type, node, st->node_free[node]);
	}
	st->nstale = 0;
}

/*
 * every structure follows a change of node's free count by delta (not 0).
 * One pass with the arrays in locals: stores through int pointers would
 * otherwise make the compiler reload st's fields after each (a placement
 * changes a node or more per job started or stopped). Inlined into its
 * callers (take, release): on a fragmented cluster a start or stop changes
 * a few nodes, and the call's register saves were a tenth of the update.
 */
static inline __attribute__((always_inline)) void node_change(struct dl_cluster_state *st, int node,
							      int delta)
{
	const struct dl_state_node *ni = &st->ni[node];
	int *nf = st->node_free + node;
	int f0 = *nf, f1 = f0 + delta;
	*nf = f1;
	/* best-fit buckets: out of (type, f0), into (type, f1); the node's word is at bword */
	uint64_t *w = st->bbits + ni->bword, bit = UINT64_C(1) << (node % 64);
	size_t stride = st->bstride;
	uint64_t *w0 = w + (size_t)f0 * stride, *w1 = w + (size_t)f1 * stride;
	*w0 &= ~bit;
	*w1 |= bit;
	st->bmay[ni->type] |= UINT64_C(1) << (f1 % 64); /* (unused past 63) */
	if (st->bsum) {
		size_t wi = (size_t)node / 64, si = (size_t)st->bwords + wi / 64 - wi;
		uint64_t sbit = UINT64_C(1) << (wi % 64);
		if (!*w0)
			w0[si] &= ~sbit;
		w1[si] |= sbit;
	}
	if (st->rhead) {
		recent_unlink(st, node, f0);
		recent_push(st, node, f1);
	}
	if (st->hist) {
		int *h = st->hist + ni->hbase;
		h[f0]--;
		h[f1]++;
	}
	int *rf = st->rack_free, *tf = st->type_free;
	rf[ni->rf_type] += delta;
	rf[ni->rf_all] += delta;
	tf[ni->type] += delta;
	tf[st->ntypes] += delta;
	/*
	 * The rack's open list holds exactly its nodes with a free GPU: a
	 * release (delta > 0, known where this is inlined) can only open the
	 * node, a take only close it.
	 */
	if (delta > 0 ? f0 == 0 : f1 == 0) {
		int *list = st->open + ni->open_base, *cnt = &st->open_n[ni->rack];
		if (delta > 0) {
			st->open_pos[node] = *cnt;
			list[(*cnt)++] = node;
		} else {
			int pos = st->open_pos[node], last = list[--*cnt];
			list[pos] = last;
			st->open_pos[last] = pos;
			st->open_pos[node] = -1;
		}
	}
	if (!st->is_stale[node]) {
		st->is_stale[node] = 1;
		st->stale[st->nstale++] = node;
	}
}

struct dl_cluster_state *dl_state_new(const struct dl_cluster *c)
{
	return dl_state_new_tie(c, DL_TIE_LOWEST);
}

struct dl_cluster_state *dl_state_new_tie(const struct dl_cluster *c, enum dl_state_tie tie)
{
	struct dl_cluster_state *st = xcalloc(1, sizeof(*st));
	int T = (int)c->ntypes, N = (int)c->nnodes;
	st->c = c;
	st->ntypes = T;
	for (int i = 0; i < N; i++)
		if (c->nodes[i].gpus > st->maxg)
			st->maxg = c->nodes[i].gpus;
	if (st->maxg <= 64)
		st->fmask = xcalloc((size_t)N + 1, sizeof(*st->fmask));
	else
		st->used = xcalloc((size_t)c->total_gpus + 1, 1);
	st->bmay = xcalloc((size_t)T + 1, sizeof(*st->bmay));
	st->node_free = xcalloc((size_t)N + 1, sizeof(int));
	st->rack_free = xcalloc((c->nracks + 1) * (size_t)(T + 1), sizeof(int));
	st->type_free = xcalloc((size_t)T + 1, sizeof(int));
	if ((double)c->nracks * T * (st->maxg + 1) <= HIST_MAX_CELLS)
		st->hist = xcalloc(c->nracks * (size_t)T * (size_t)(st->maxg + 1) + 1, sizeof(int));
	st->bwords = (N + 63) / 64;
	st->bsum = st->bwords <= SUMMARY_WORDS ? 0 : (st->bwords + 63) / 64;
	size_t nb = (size_t)T * (size_t)(st->maxg + 1) + 1;
	st->bbits = xcalloc(nb * (size_t)(st->bwords + st->bsum) + 1, sizeof(*st->bbits));
	st->tsize = 1;
	while (st->tsize < N)
		st->tsize *= 2;
	/* per-type trees only when there is more than one type */
	size_t ntrees = T > 1 ? (size_t)T + 1 : 1;
	st->tree = xmalloc((ntrees + 1) * 2 * (size_t)st->tsize * sizeof(int));
	st->stale = xmalloc(((size_t)N + 1) * sizeof(int));
	st->is_stale = xcalloc((size_t)N + 1, 1);
	st->open = xmalloc(((size_t)N + 1) * sizeof(int));
	st->open_n = xcalloc(c->nracks + 1, sizeof(int));
	st->open_pos = xmalloc(((size_t)N + 1) * sizeof(int));
	st->gpu_node = c->gpu_node;
	st->bstride = (size_t)(st->bwords + st->bsum);
	st->ni = xcalloc((size_t)N + 1, sizeof(*st->ni));
	if (tie == DL_TIE_RECENT) {
		st->rhead = xmalloc((nb + 1) * sizeof(int));
		st->rnext = xmalloc(((size_t)N + 1) * sizeof(int));
		st->rprev = xmalloc(((size_t)N + 1) * sizeof(int));
	}
	/* nodes of one power-of-two size: a GPU's node is a shift, without the table */
	st->gpu_shift = -1;
	if (N > 0 && st->maxg > 0 && !(st->maxg & (st->maxg - 1))) {
		st->gpu_shift = __builtin_ctz((unsigned)st->maxg);
		for (int i = 0; i < N; i++)
			if (c->nodes[i].gpus != st->maxg)
				st->gpu_shift = -1;
	}
	for (int i = 0; i < N; i++) {
		const struct dl_node *n = &c->nodes[i];
		struct dl_state_node *ni = &st->ni[i];
		ni->first_gpu = n->first_gpu;
		ni->gpus = n->gpus;
		ni->type = n->type;
		ni->rack = n->rack;
		ni->bword = (size_t)n->type * (size_t)(st->maxg + 1) * st->bstride + (size_t)i / 64;
		if (st->hist)
			ni->hbase = (n->rack * T + n->type) * (st->maxg + 1);
		ni->rf_type = n->rack * (T + 1) + n->type;
		ni->rf_all = n->rack * (T + 1) + T;
		ni->open_base = c->racks[n->rack].first_node;
	}
	dl_state_reset(st);
	return st;
}

void dl_state_reset(struct dl_cluster_state *st)
{
	const struct dl_cluster *c = st->c;
	int T = st->ntypes, N = (int)c->nnodes;
	if (st->used)
		memset(st->used, 0, (size_t)c->total_gpus);
	memset(st->bmay, 0, (size_t)T * sizeof(*st->bmay));
	memset(st->rack_free, 0, c->nracks * (size_t)(T + 1) * sizeof(int));
	memset(st->type_free, 0, ((size_t)T + 1) * sizeof(int));
	if (st->hist)
		memset(st->hist, 0, c->nracks * (size_t)T * (size_t)(st->maxg + 1) * sizeof(int));
	size_t nb = (size_t)T * (size_t)(st->maxg + 1);
	memset(st->bbits, 0, nb * (size_t)(st->bwords + st->bsum) * sizeof(*st->bbits));
	size_t ntrees = T > 1 ? (size_t)T + 1 : 1;
	for (size_t i = 0; i < (ntrees + 1) * 2 * (size_t)st->tsize; i++)
		st->tree[i] = -1;
	memset(st->open_n, 0, c->nracks * sizeof(int));
	memset(st->is_stale, 0, (size_t)N);
	st->nstale = 0;
	if (st->rhead)
		for (size_t k = 0; k < nb; k++)
			st->rhead[k] = -1;
	for (int i = 0; i < N; i++) {
		const struct dl_node *n = &c->nodes[i];
		st->node_free[i] = n->gpus;
		if (st->fmask)
			st->fmask[i] = n->gpus >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n->gpus) - 1;
		st->open_pos[i] = -1;
		open_update(st, i);
		bucket_link(st, i);
		if (st->rhead)
			recent_push(st, i, n->gpus);
		st->bmay[n->type] |= UINT64_C(1) << (n->gpus % 64);
		if (st->hist)
			st->hist[((size_t)n->rack * (size_t)T + (size_t)n->type) *
					 (size_t)(st->maxg + 1) +
				 (size_t)n->gpus]++;
		st->rack_free[n->rack * (T + 1) + n->type] += n->gpus;
		st->rack_free[n->rack * (T + 1) + T] += n->gpus;
		st->type_free[n->type] += n->gpus;
		st->type_free[T] += n->gpus;
	}
	/* build the trees bottom-up in O(nodes) */
	for (int t = (T > 1 ? 0 : T); t <= T; t++) {
		int *tr = tree_of(st, t == T ? DL_ANY_TYPE : t);
		for (int i = 0; i < N; i++)
			if (t == T || c->nodes[i].type == t)
				tr[st->tsize + i] = c->nodes[i].gpus;
		for (int i = st->tsize - 1; i >= 1; i--)
			tr[i] = tr[2 * i] > tr[2 * i + 1] ? tr[2 * i] : tr[2 * i + 1];
	}
}

void dl_state_free(struct dl_cluster_state *st)
{
	if (!st)
		return;
	free(st->used);
	free(st->fmask);
	free(st->bmay);
	free(st->node_free);
	free(st->rack_free);
	free(st->type_free);
	free(st->hist);
	free(st->bbits);
	free(st->tree);
	free(st->ni);
	free(st->stale);
	free(st->is_stale);
	free(st->open);
	free(st->open_n);
	free(st->open_pos);
	free(st->rhead);
	free(st->rnext);
	free(st->rprev);
	free(st);
}

int dl_state_take(struct dl_cluster_state *st, int node, int k, int *out)
{
	const struct dl_state_node *n = &st->ni[node];
	int got = 0;
	if (st->fmask) {
		/* the lowest free slots, a bit at a time: no branch per slot */
		uint64_t m = st->fmask[node];
		while (got < k && m) {
			out[got++] = n->first_gpu + __builtin_ctzll(m);
			m &= m - 1;
		}
		st->fmask[node] = m;
		if (got)
			node_change(st, node, -got);
		return got;
	}
	for (int s = 0; s < n->gpus && got < k; s++) {
		int g = n->first_gpu + s;
		if (!st->used[g]) {
			st->used[g] = 1;
			out[got++] = g;
		}
	}
	if (got)
		node_change(st, node, -got);
	return got;
}

int dl_state_take_nodes(struct dl_cluster_state *st, const int *nodes, int n, int *out)
{
	int got = 0;
	if (!st->fmask) {
		for (int i = 0; i < n; i++)
			got += dl_state_take(st, nodes[i], st->ni[nodes[i]].gpus, out + got);
		return got;
	}
	for (int i = 0; i < n; i++) {
		int node = nodes[i], first = st->ni[node].first_gpu, k = 0;
		uint64_t m = st->fmask[node];
		for (; m; m &= m - 1)
			out[got + k++] = first + __builtin_ctzll(m);
		st->fmask[node] = 0;
		if (k)
			node_change(st, node, -k);
		got += k;
	}
	return got;
}

int dl_state_take_gpu(struct dl_cluster_state *st, int gpu)
{
	if (gpu < 0 || gpu >= st->c->total_gpus || !dl_state_gpu_free(st, gpu))
		return -1;
	int node = dl_state_gpu_node(st, gpu);
	if (st->fmask)
		st->fmask[node] &= ~(UINT64_C(1) << (gpu - st->ni[node].first_gpu));
	else
		st->used[gpu] = 1;
	node_change(st, node, -1);
	return 0;
}

/*
 * Take (take = 1) or free (0) the GPUs gpus[*i..] that lie on gpus[*i]'s
 * node, consecutive, with one update of the node (those already so count
 * once or not at all); *i moves past them. Returns how many changed.
 * Inlined with a constant `take` into dl_state_take_gpus and
 * dl_state_release.
 *
 * A run changing its node once leaves the buckets, counts and lists as a
 * change per GPU would (a node moved to a bucket's head goes there once,
 * last), and bmay, a superset, only misses intermediate buckets best fit
 * would have found empty.
 */
static inline __attribute__((always_inline)) int flip_run(struct dl_cluster_state *st,
							  const int *gpus, int n, int *i, int take)
{
	int k = *i, node = dl_state_gpu_node(st, gpus[k]);
	const struct dl_state_node *nd = &st->ni[node];
	unsigned lo = (unsigned)nd->first_gpu, span = (unsigned)nd->gpus;
	int cnt = 0;
	if (st->fmask) {
		/* the run's GPUs in the other state (each counted once) flip their free bits */
		uint64_t m = st->fmask[node];
		do {
			uint64_t bit = UINT64_C(1) << ((unsigned)gpus[k] - lo);
			cnt += take ? (m & bit) != 0 : !(m & bit);
			m = take ? m & ~bit : m | bit;
			k++;
		} while (k < n && (unsigned)gpus[k] - lo < span);
		st->fmask[node] = m;
	} else {
		do {
			cnt += take ? !st->used[gpus[k]] : st->used[gpus[k]];
			st->used[gpus[k]] = (unsigned char)take;
			k++;
		} while (k < n && (unsigned)gpus[k] - lo < span);
	}
	*i = k;
	if (cnt)
		node_change(st, node, take ? -cnt : cnt);
	return cnt;
}

int dl_state_take_gpus(struct dl_cluster_state *st, const int *gpus, int n)
{
	int i = 0, taken = 0;
	while (i < n)
		taken += flip_run(st, gpus, n, &i, 1);
	return taken;
}

void dl_state_release(struct dl_cluster_state *st, const int *gpus, int n)
{
	int i = 0;
	while (i < n)
		flip_run(st, gpus, n, &i, 0);
}

static int descend(const int *t, int i, int l, int r, int need, int lo, int hi)
{
	if (r <= lo || l >= hi || t[i] < need)
		return -1;
	if (r - l == 1)
		return l;
	int m = (l + r) / 2;
	int f = descend(t, 2 * i, l, m, need, lo, hi);
	return f >= 0 ? f : descend(t, 2 * i + 1, m, r, need, lo, hi);
}

int dl_state_first_fit(struct dl_cluster_state *st, int type, int need, int lo, int hi)
{
	if (st->nstale)
		trees_update(st);
	if (need < 1)
		need = 1;
	if (hi > (int)st->c->nnodes)
		hi = (int)st->c->nnodes;
	if (lo >= hi)
		return -1;
	const int *t = tree_of(st, st->ntypes > 1 ? type : DL_ANY_TYPE);
	int f = descend(t, 1, 0, st->tsize, need, lo, hi);
	if (f >= 0 && st->ntypes <= 1 && type >= 0 && st->c->nodes[f].type != type)
		return -1;
	return f;
}

int dl_state_best_fit(struct dl_cluster_state *st, int type, int need)
{
	if (need < 1)
		need = 1;
	int best = -1, bestf = st->maxg + 1;
	if (st->maxg < 64) {
		/* the buckets that may hold a node, tightest first; empty ones are dropped */
		if (need > st->maxg)
			return -1;
		if (type >= 0 || st->ntypes == 1) { /* one type: its first non-empty bucket */
			int t = type < 0 ? 0 : type;
			for (uint64_t m = st->bmay[t] >> need << need; m; m &= m - 1) {
				int f = __builtin_ctzll(m), first = dl_state_bucket_first(st, t, f);
				if (first >= 0)
					return first;
				st->bmay[t] &= ~(UINT64_C(1) << f);
			}
			return -1;
		}
		/* (type >= 0 took the path above) */
		for (int ti = 0; ti < st->ntypes; ti++) {
			int t = st->c->type_order[ti];
			uint64_t m = st->bmay[t] >> need << need;
			while (m) {
				int f = __builtin_ctzll(m);
				if (f > bestf)
					break;
				int first = dl_state_bucket_first(st, t, f);
				if (first >= 0) {
					if (f < bestf || (!st->rhead && first < best)) {
						best = first;
						bestf = f;
					}
					break;
				}
				st->bmay[t] &= ~(UINT64_C(1) << f);
				m &= m - 1;
			}
		}
		return best;
	}
	for (int ti = 0; ti < st->ntypes; ti++) {
		int t = st->c->type_order[ti];
		if (type >= 0 && t != type)
			continue;
		for (int f = need; f <= bestf && f <= st->maxg; f++) {
			int first = dl_state_bucket_first(st, t, f);
			if (first >= 0) {
				if (f < bestf || (!st->rhead && first < best)) {
					best = first;
					bestf = f;
				}
				break;
			}
		}
	}
	return best;
}

int dl_state_bucket_first(const struct dl_cluster_state *st, int type, int free)
{
	if (type < 0 || type >= st->ntypes || free < 0 || free > st->maxg)
		return -1;
	if (st->rhead)
		return st->rhead[type * (st->maxg + 1) + free];
	return bucket_first(st, type, free);
}

int dl_state_bucket_next(const struct dl_cluster_state *st, int node)
{
	if (st->rhead)
		return st->rnext[node];
	const uint64_t *w = bucket_bits(st, st->ni[node].type, st->node_free[node]);
	int k = node / 64;
	uint64_t m = node % 64 == 63 ? 0 : w[k] >> (node % 64 + 1) << (node % 64 + 1);
	for (;;) {
		if (m)
			return k * 64 + __builtin_ctzll(m);
		if (++k >= st->bwords)
			return -1;
		m = w[k];
	}
}

int dl_state_rack_nodes_needed(const struct dl_cluster_state *st, int rack, int type, int need)
{
	if (dl_state_rack_free(st, rack, type) < need)
		return 0;
	int T = st->ntypes, G = st->maxg;
	int nodes = 0, got = 0;
	if (st->hist && (type >= 0 || T == 1)) {
		/* one type: one histogram row (counts below 2^25: no overflow) */
		const int *h =
			st->hist + ((size_t)rack * (size_t)T + (size_t)(type < 0 ? 0 : type)) *
					   (size_t)(G + 1);
		for (int f = G; f >= 1 && got < need; f--) {
			int cnt = h[f];
			if (!cnt)
				continue;
			int take = (need - got + f - 1) / f;
			if (take > cnt)
				take = cnt;
			nodes += take;
			got += take * f;
		}
		return nodes;
	}
	if (st->hist) {
		for (int f = G; f >= 1 && got < need; f--) {
			int cnt = 0;
			for (int t = 0; t < T; t++)
				if (type < 0 || t == type)
					cnt += st->hist[((size_t)rack * (size_t)T + (size_t)t) *
								(size_t)(G + 1) +
							(size_t)f];
			if (!cnt)
				continue;
			/* take as many nodes of this size as needed */
			long long rest = need - got;
			long long take = (rest + f - 1) / f;
			if (take > cnt)
				take = cnt;
			nodes += (int)take;
			got += (int)(take * f);
		}
		return nodes;
	}
	/* huge nodes: sort the rack's free counts */
	const struct dl_rack *r = &st->c->racks[rack];
	int *v = xmalloc(((size_t)r->nnodes + 1) * sizeof(int));
	int n = 0;
	for (int i = 0; i < r->nnodes; i++) {
		int nd = r->first_node + i;
		if (type < 0 || st->c->nodes[nd].type == type)
			v[n++] = st->node_free[nd];
	}
	/* selection of the largest first; racks with huge nodes have few nodes */
	while (got < need && n > 0) {
		int bi = 0;
		for (int i = 1; i < n; i++)
			if (v[i] > v[bi])
				bi = i;
		got += v[bi];
		nodes++;
		v[bi] = v[--n];
	}
	free(v);
	return nodes;
}
