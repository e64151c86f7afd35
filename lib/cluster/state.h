/*
 * state.h: which GPUs of a cluster are free, with fast queries for placement.
 *
 * A struct dl_cluster_state is the mutable half of the cluster model: the
 * cluster (cluster.h) stays immutable and may back many states (one per
 * simulation, one per policy being compared). The simulator calls
 * dl_state_take()/dl_state_release() for every job start and end, so every
 * update is O(log nodes) and every query below is O(1), O(log nodes) or
 * O(GPUs per node), as noted.
 *
 * GPUs are named by their global index (node->first_gpu + slot). A type
 * argument is a type index of the cluster, or DL_ANY_TYPE.
 *
 * Ownership: dl_state_new() allocates everything; dl_state_free() frees it.
 * The state keeps a pointer to the cluster, which must outlive it. No
 * function here reports errors except dl_state_take_gpu() (a GPU already in
 * use), which returns -1 and lets the caller name the offending input.
 */
#ifndef DL_CLUSTER_STATE_H
#define DL_CLUSTER_STATE_H

#include "cluster/cluster.h"

#define DL_ANY_TYPE (-1)

struct dl_state_node {
	size_t bword;	     /* bbits index of the node's word in bucket (type, 0) */
	int first_gpu, gpus; /* the cluster's, here so a change reads one record */
	int hbase;	     /* hist offset of (rack, type, 0), or 0 without hist */
	int rf_type; /* rack_free index of (rack, type); (rack, all) follows the rack's types */
	int rf_all;
	int type;
	int rack;
	int open_base; /* the rack's first node: its list in open */
};

struct dl_cluster_state {
	const struct dl_cluster *c;
	int ntypes;	     /* c->ntypes; slot ntypes in per-type arrays means "any" */
	int maxg;	     /* most GPUs on one node */
	unsigned char *used; /* per GPU: 1 = in use, only without fmask (NULL else) */
	uint64_t *fmask;     /* per node when maxg <= 64: bit s set = slot s free (NULL else) */
	int *node_free;	     /* per node */
	int *rack_free;	     /* [rack * (ntypes+1) + type], type ntypes = all types */
	int *type_free;	     /* [type], type ntypes = all types */
	/* nodes of each (type, free count): counts per rack, and bitsets */
	int *hist;	  /* [(rack * ntypes + type) * (maxg+1) + free] = nodes */
	uint64_t *bbits;  /* [type * (maxg+1) + free]: bwords of node bits, bsum of summary */
	int bwords, bsum; /* bsum 0: no summary (few words) */
	/* per type: bit f set when bucket (type, f) may hold a node (a superset: set on
	 * every entry, cleared by best fit when it finds the bucket empty); maxg < 64 only */
	uint64_t *bmay;
	/* max-trees over nodes (one per type and one for all), for first fit */
	int tsize;	     /* leaves (power of two) */
	int *tree;	     /* [(ntypes+1) * 2 * tsize] */
	const int *gpu_node; /* per GPU: its node (the cluster's index) */
	int gpu_shift;	     /* every node has 1 << gpu_shift GPUs (-1: no): gpu_node is a shift */
	/* nodes whose tree leaves are out of date (first-fit queries bring them up) */
	int *stale, nstale;
	unsigned char *is_stale;
	/* per node, where its cells are in the arrays above (node_change's every access) */
	struct dl_state_node *ni;
	size_t bstride; /* bwords + bsum: one bucket's words */
	/* per rack, its nodes with a free GPU (any order) */
	int *open;     /* [rack's first node + k], k < open_n[rack] */
	int *open_n;   /* per rack */
	int *open_pos; /* per node: its index in its rack's list, -1 if not open */
	/*
	 * DL_TIE_RECENT only (NULL else): each best-fit bucket's nodes as a list,
	 * the node whose free count changed last at its head.
	 */
	int *rhead;	    /* [type * (maxg+1) + free]: first node, -1 when empty */
	int *rnext, *rprev; /* per node */
};

/*
 * Which of the nodes in one best-fit bucket (of one type, with the same
 * free count) comes first: the lowest index (a placement that depends only
 * on the state), or the one whose free count changed last (Themis' offer:
 * the GPUs just given back are bid on first). The rule is the state's, set
 * when it is made; best fit, bucket walks and ties between types follow it.
 */
enum dl_state_tie { DL_TIE_LOWEST = 0, DL_TIE_RECENT = 1 };

struct dl_cluster_state *dl_state_new(const struct dl_cluster *c);
/* a state whose best-fit ties follow `tie` (dl_state_new: DL_TIE_LOWEST) */
struct dl_cluster_state *dl_state_new_tie(const struct dl_cluster *c, enum dl_state_tie tie);
void dl_state_free(struct dl_cluster_state *st);
/* mark every GPU free again (O(GPUs + nodes)) */
void dl_state_reset(struct dl_cluster_state *st);

static inline int dl_state_total_free(const struct dl_cluster_state *st)
{
	return st->type_free[st->ntypes];
}
static inline int dl_state_type_free(const struct dl_cluster_state *st, int type)
{
	return st->type_free[type < 0 ? st->ntypes : type];
}
static inline int dl_state_node_free(const struct dl_cluster_state *st, int node)
{
	return st->node_free[node];
}
static inline int dl_state_rack_free(const struct dl_cluster_state *st, int rack, int type)
{
	return st->rack_free[rack * (st->ntypes + 1) + (type < 0 ? st->ntypes : type)];
}
/* the node of a GPU (global index) */
static inline int dl_state_gpu_node(const struct dl_cluster_state *st, int gpu)
{
	return st->gpu_shift >= 0 ? gpu >> st->gpu_shift : st->gpu_node[gpu];
}
static inline int dl_state_gpu_free(const struct dl_cluster_state *st, int gpu)
{
	if (!st->fmask)
		return !st->used[gpu];
	int node = dl_state_gpu_node(st, gpu);
	return (int)(st->fmask[node] >> (gpu - st->ni[node].first_gpu)) & 1;
}

/*
 * Take up to k free GPUs of `node`, lowest slots first, writing their global
 * indices to out (room for k). Returns how many were taken. O(GPUs per node
 * + log nodes).
 */
int dl_state_take(struct dl_cluster_state *st, int node, int k, int *out);
/* Take every free GPU of each of n nodes, in that order (as dl_state_take with k = all);
 * returns how many were written to out. */
int dl_state_take_nodes(struct dl_cluster_state *st, const int *nodes, int n, int *out);
/* Take one GPU by global index; -1 if it is already in use. */
int dl_state_take_gpu(struct dl_cluster_state *st, int gpu);
/*
 * Take n GPUs by global index, skipping those in use (valid indices): the
 * state dl_state_take_gpu on each in turn leaves, ties included, with one
 * update per run of GPUs on one node instead of one per GPU. Returns how
 * many were taken.
 */
int dl_state_take_gpus(struct dl_cluster_state *st, const int *gpus, int n);
/* Free GPUs by global index (each must be in use). */
void dl_state_release(struct dl_cluster_state *st, const int *gpus, int n);

/* First node (lowest index) in [lo, hi) of `type` with at least `need` free GPUs, or -1.
 * O(log nodes). */
int dl_state_first_fit(struct dl_cluster_state *st, int type, int need, int lo, int hi);
/*
 * The nodes of rack r with at least one free GPU, in no particular order
 * (*n of them). O(1); valid until the state changes.
 */
static inline const int *dl_state_rack_open(const struct dl_cluster_state *st, int rack, int *n)
{
	*n = st->open_n[rack];
	return st->open + st->c->racks[rack].first_node;
}
/*
 * Best fit: a node of `type` with the fewest free GPUs that still holds
 * `need`, or -1 (it forgets buckets it finds empty, hence not const). Ties
 * follow the state's rule: the lowest node index (DL_TIE_LOWEST), or, with
 * DL_TIE_RECENT, the type first in the cluster's type order (fastest), then
 * the node changed last. O(types * maxg).
 */
int dl_state_best_fit(struct dl_cluster_state *st, int type, int need);
/*
 * The nodes of best fit's bucket (type, free): the first in the tie order,
 * or -1 when none has exactly `free` free GPUs, then the one after `node`
 * (in its bucket), or -1. A caller that wants more than one candidate walks
 * the buckets tightest first, as best fit does: free from need up, types in
 * the cluster's order. Valid until the state changes.
 */
int dl_state_bucket_first(const struct dl_cluster_state *st, int type, int free);
int dl_state_bucket_next(const struct dl_cluster_state *st, int node);
/* The fewest nodes of rack `rack` (of `type`) that together hold `need` free
 * GPUs, or 0 when the rack cannot hold it. O(types * maxg). */
int dl_state_rack_nodes_needed(const struct dl_cluster_state *st, int rack, int type, int need);

#endif
