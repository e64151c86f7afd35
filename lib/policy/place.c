/*
 * place.c: the placement policies of place.h.
 *
 * Every policy first checks capacity (reject if the cluster can never hold
 * the job, wait if not enough GPUs are free now), then chooses GPUs through
 * the state's queries, so one decision costs O(k log nodes) for a job of k
 * GPUs, plus O(racks * maxg) when a job must span nodes (and O(nodes) for
 * gandiva's affinity scan).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/place.h"
#include "core/num.h"

static const char *const policy_names[DL_PLACE_NPOLICIES] = {
	"first-fit", "consolidate", "spread", "random", "tiresias", "gandiva", "dally",
};

const char *dl_place_policy_name(enum dl_place_policy p)
{
	return (unsigned)p < DL_PLACE_NPOLICIES ? policy_names[p] : "?";
}

const char *dl_place_policy_at(size_t i)
{
	return i < DL_PLACE_NPOLICIES ? policy_names[i] : NULL;
}

int dl_place_policy_parse(const char *s, enum dl_place_policy *out)
{
	for (int i = 0; i < DL_PLACE_NPOLICIES; i++)
		if (!strcmp(s, policy_names[i])) {
			*out = (enum dl_place_policy)i;
			return 0;
		}
	return -1;
}

struct dl_placer {
	struct dl_cluster_state *st;
	const struct dl_cluster *c;
	struct dl_place_opts o;
	struct dl_rng rng;
	int *affinity;		/* gandiva: per node, GPU count of the jobs it serves; 0 = none */
	int max_node, max_rack; /* capacity of the largest node and rack (all types) */
	int *max_node_t, *max_rack_t; /* per type */
	int *type_total;	      /* GPUs of each type; [ntypes] = all */
	struct dl_dally *dally;	      /* dally: timers and auto-tuner */
	int *tmp;		      /* scratch: node list */
	int *tmp2;		      /* scratch: rack list */
	/*
	 * The decision under way: nodes taken from and racks entered (counting
	 * a rack each time the taken node's rack differs from the last one's).
	 * That is the placement's nodes and racks when no node is taken twice
	 * and a rack's nodes are taken together, as the consolidating paths do;
	 * the paths that may come back (take_in_order, spread) set revisits.
	 */
	int took_nodes, took_racks, last_rack, revisits;
};

struct dl_placer *dl_placer_new(struct dl_cluster_state *st, const struct dl_place_opts *o)
{
	struct dl_placer *p = xcalloc(1, sizeof(*p));
	const struct dl_cluster *c = st->c;
	int T = (int)c->ntypes;
	p->st = st;
	p->c = c;
	p->o = *o;
	if (o->policy == DL_PLACE_DALLY)
		p->dally = dl_dally_new(&o->dally);
	dl_rng_seed(&p->rng, o->seed);
	p->affinity = xcalloc(c->nnodes + 1, sizeof(int));
	p->max_node_t = xcalloc((size_t)T + 1, sizeof(int));
	p->max_rack_t = xcalloc((size_t)T + 1, sizeof(int));
	p->type_total = xcalloc((size_t)T + 1, sizeof(int));
	int *rt = xcalloc((size_t)T + 1, sizeof(int));
	for (size_t r = 0; r < c->nracks; r++) {
		memset(rt, 0, ((size_t)T + 1) * sizeof(int));
		for (int k = 0; k < c->racks[r].nnodes; k++) {
			const struct dl_node *n = &c->nodes[c->racks[r].first_node + k];
			rt[n->type] += n->gpus;
			rt[T] += n->gpus;
			if (n->gpus > p->max_node_t[n->type])
				p->max_node_t[n->type] = n->gpus;
			if (n->gpus > p->max_node_t[T])
				p->max_node_t[T] = n->gpus;
			p->type_total[n->type] += n->gpus;
		}
		for (int t = 0; t <= T; t++)
			if (rt[t] > p->max_rack_t[t])
				p->max_rack_t[t] = rt[t];
	}
	free(rt);
	p->type_total[T] = c->total_gpus;
	p->max_node = p->max_node_t[T];
	p->max_rack = p->max_rack_t[T];
	p->tmp = xmalloc((c->nnodes + 1) * sizeof(int));
	p->tmp2 = xmalloc((c->nracks + 1) * sizeof(int));
	return p;
}

void dl_placer_free(struct dl_placer *p)
{
	if (!p)
		return;
	dl_dally_free(p->dally);
	free(p->affinity);
	free(p->max_node_t);
	free(p->max_rack_t);
	free(p->type_total);
	free(p->tmp);
	free(p->tmp2);
	free(p);
}

static int tslot(const struct dl_placer *p, int type)
{
	return type < 0 ? (int)p->c->ntypes : type;
}

/* ---- building blocks; each takes exactly `k` GPUs or nothing ---- */

/* every take goes through here: it counts nodes and racks (struct dl_placer) */
static inline __attribute__((always_inline)) void take_node(struct dl_placer *p, int node, int k,
							    struct dl_placement *out)
{
	int got = dl_state_take(p->st, node, k, out->gpus + out->ngpus);
	if (got) {
		int r = p->st->ni[node].rack;
		out->ngpus += got;
		p->took_nodes++;
		p->took_racks += r != p->last_rack;
		p->last_rack = r;
	}
}

/* first node with room for all k, or -1 */
static int fits_one_node(struct dl_placer *p, int type, int k)
{
	return dl_state_first_fit(p->st, type, k, 0, (int)p->c->nnodes);
}

/* take k free GPUs in node order starting at node `start` (wrapping); caller checked supply */
static void take_in_order(struct dl_placer *p, int type, int k, int start, int per_node,
			  struct dl_placement *out)
{
	int n = (int)p->c->nnodes, lo = start;
	p->revisits = 1; /* it wraps, and random calls it a GPU at a time */
	while (out->ngpus < k) {
		int nd = dl_state_first_fit(p->st, type, 1, lo, n);
		if (nd < 0) {
			nd = dl_state_first_fit(p->st, type, 1, 0, n);
			if (nd < 0)
				return; /* cannot happen when the caller checked supply */
		}
		int want = k - out->ngpus;
		if (per_node && want > per_node)
			want = per_node;
		take_node(p, nd, want, out);
		lo = nd + 1;
		if (lo >= n)
			lo = 0;
	}
}

/* nodes of rack r with free GPUs of `type`, emptiest first, into p->tmp */
static int rack_nodes_by_free(struct dl_placer *p, int r, int type)
{
	const struct dl_rack *rk = &p->c->racks[r];
	int G = p->st->maxg, n = 0, at[65], nopen;
	const int *open = dl_state_rack_open(p->st, r, &nopen);
	if (nopen <= 16) {
		/* a busy rack: sort its few open nodes (free count descending, then index) */
		for (int i = 0; i < nopen; i++) {
			int nd = open[i], f = dl_state_node_free(p->st, nd), k = n;
			if (type >= 0 && p->c->nodes[nd].type != type)
				continue;
			for (; k > 0; k--) {
				int o = p->tmp[k - 1], fo = dl_state_node_free(p->st, o);
				if (fo > f || (fo == f && o < nd))
					break;
				p->tmp[k] = o;
			}
			p->tmp[k] = nd;
			n++;
		}
		return n;
	}
	/* counting sort by free count, descending; index order within a count (two passes) */
	memset(at, 0, (size_t)(G + 1) * sizeof(at[0])); /* (not all 65: a call's tenth, else) */
	for (int i = 0; i < rk->nnodes; i++) {
		int nd = rk->first_node + i;
		if (type < 0 || p->c->nodes[nd].type == type)
			at[dl_state_node_free(p->st, nd)]++;
	}
	for (int f = G; f >= 1; f--) {
		int c = at[f];
		at[f] = n;
		n += c;
	}
	for (int i = 0; i < rk->nnodes; i++) {
		int nd = rk->first_node + i, f = dl_state_node_free(p->st, nd);
		if (f > 0 && (type < 0 || p->c->nodes[nd].type == type))
			p->tmp[at[f]++] = nd;
	}
	return n;
}

/* take k GPUs from rack r using as few nodes as possible */
static void take_rack_fewest(struct dl_placer *p, int r, int type, int k, struct dl_placement *out)
{
	int n;
	if (p->st->maxg <= 64) {
		n = rack_nodes_by_free(p, r, type);
	} else {
		/* huge nodes: selection, racks of those have few nodes */
		const struct dl_rack *rk = &p->c->racks[r];
		n = 0;
		for (int i = 0; i < rk->nnodes; i++) {
			int nd = rk->first_node + i;
			if ((type < 0 || p->c->nodes[nd].type == type) &&
			    dl_state_node_free(p->st, nd) > 0)
				p->tmp[n++] = nd;
		}
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (dl_state_node_free(p->st, p->tmp[j]) >
				    dl_state_node_free(p->st, p->tmp[i])) {
					int t = p->tmp[i];
					p->tmp[i] = p->tmp[j];
					p->tmp[j] = t;
				}
	}
	/*
	 * Largest nodes first, but the last node is the best fit for what is
	 * left, so big free nodes are not broken needlessly.
	 */
	int i = 0;
	while (out->ngpus < k && i < n) {
		int rest = k - out->ngpus;
		int best = -1;
		for (int j = i; j < n; j++) {
			int f = dl_state_node_free(p->st, p->tmp[j]);
			/* the tightest fit; the first (lowest index) of equals */
			if (f >= rest && (best < 0 || f < dl_state_node_free(p->st, p->tmp[best])))
				best = j;
		}
		if (best >= 0) {
			take_node(p, p->tmp[best], rest, out);
			return;
		}
		take_node(p, p->tmp[i], rest, out);
		i++;
	}
}

/* the rack that holds k with fewest nodes (ties: least free, then lowest index), or -1 */
static int best_rack(struct dl_placer *p, int type, int k)
{
	int best = -1, bn = 0, bf = 0;
	for (size_t r = 0; r < p->c->nracks; r++) {
		int f = dl_state_rack_free(p->st, (int)r, type);
		if (f < k)
			continue;
		int nn = dl_state_rack_nodes_needed(p->st, (int)r, type, k);
		if (!nn)
			continue;
		if (best < 0 || nn < bn || (nn == bn && f < bf)) {
			best = (int)r;
			bn = nn;
			bf = f;
		}
	}
	return best;
}

struct rack_cmp {
	const struct dl_cluster_state *st;
	int type;
};

static int cmp_rack_free(const void *a, const void *b, void *arg)
{
	const struct rack_cmp *rc = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int fx = dl_state_rack_free(rc->st, x, rc->type);
	int fy = dl_state_rack_free(rc->st, y, rc->type);
	if (fx != fy)
		return fx > fy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* every free GPU of `type` in rack r (what take_rack_fewest takes when it must take them all) */
static void take_rack_all(struct dl_placer *p, int r, int type, struct dl_placement *out)
{
	int n, m = 0;
	const int *open = dl_state_rack_open(p->st, r, &n);
	for (int i = 0; i < n; i++) /* a copy: taking a node changes the list */
		if (type < 0 || p->c->nodes[open[i]].type == type)
			p->tmp[m++] = open[i];
	/* each listed node has a free GPU: each is taken from (take_node's counts) */
	out->ngpus += dl_state_take_nodes(p->st, p->tmp, m, out->gpus + out->ngpus);
	if (m) {
		p->took_nodes += m;
		p->took_racks += r != p->last_rack;
		p->last_rack = r;
	}
}

/* racks up to which take_cluster_fewest picks racks rather than sorting them (the unit
 * test builds this file again with 0, the sort alone, to compare) */
#ifndef DL_PLACE_PICK_RACKS_MAX
#define DL_PLACE_PICK_RACKS_MAX 16
#endif

/* across racks: fullest-free racks first, fewest nodes inside each */
static void take_cluster_fewest(struct dl_placer *p, int type, int k, struct dl_placement *out)
{
	if (p->c->nracks <= DL_PLACE_PICK_RACKS_MAX) {
		/*
		 * Few racks: pick the fullest rack left (lowest index on ties), as
		 * the sort below orders them. Every pick but the last takes all its
		 * rack's free GPUs (its count drops to 0) and the others' counts do
		 * not move, so the picks follow that order; a job needs two or
		 * three. The pick is a running maximum without branches: which
		 * rack is fuller is random to the predictor (as in the sort).
		 */
		int R = (int)p->c->nracks;
		while (out->ngpus < k) {
			int r = -1, f = 0, before = out->ngpus;
			for (int i = 0; i < R; i++) {
				int fi = dl_state_rack_free(p->st, i, type), more = fi > f;
				f = more ? fi : f;
				r = more ? i : r;
			}
			if (r < 0)
				return;
			int want = k - out->ngpus;
			if (want >= f && p->st->maxg <= 64)
				take_rack_all(p, r, type, out);
			else
				take_rack_fewest(p, r, type, out->ngpus + (want < f ? want : f),
						 out);
			if (out->ngpus == before)
				return; /* cannot happen; the caller would see the shortfall */
		}
		return;
	}
	int n = 0;
	/* without a branch: which racks have room is random to the predictor */
	for (size_t r = 0; r < p->c->nracks; r++) {
		p->tmp2[n] = (int)r;
		n += dl_state_rack_free(p->st, (int)r, type) > 0;
	}
	struct rack_cmp rc = {p->st, type};
	/* few racks: insertion sort (qsort_r's setup cost more than the sort) */
	for (int i = 1; i < n; i++) {
		int x = p->tmp2[i], m = i;
		for (; m > 0 && cmp_rack_free(&p->tmp2[m - 1], &x, &rc) > 0; m--)
			p->tmp2[m] = p->tmp2[m - 1];
		p->tmp2[m] = x;
	}
	for (int i = 0; i < n && out->ngpus < k; i++) {
		int r = p->tmp2[i];
		int f = dl_state_rack_free(p->st, r, type);
		int want = k - out->ngpus;
		if (want >= f && p->st->maxg <= 64)
			take_rack_all(p, r, type, out); /* the same GPUs, without choosing */
		else
			take_rack_fewest(p, r, type, out->ngpus + (want < f ? want : f), out);
	}
}

/* consolidate: one node (best fit), else one rack (fewest nodes), else fewest racks */
static inline __attribute__((always_inline)) void
place_consolidated(struct dl_placer *p, int type, int k, struct dl_placement *out)
{
	int nd = dl_state_best_fit(p->st, type, k);
	if (nd >= 0) {
		take_node(p, nd, k, out);
		return;
	}
	int r = best_rack(p, type, k);
	if (r >= 0) {
		take_rack_fewest(p, r, type, k, out);
		return;
	}
	take_cluster_fewest(p, type, k, out);
}

static void place_first_fit(struct dl_placer *p, int type, int k, struct dl_placement *out)
{
	int nd = fits_one_node(p, type, k);
	if (nd >= 0)
		take_node(p, nd, k, out);
	else
		take_in_order(p, type, k, 0, 0, out);
}

/* the node of rack r (in [lo, hi)) with the most free GPUs of type: O(log nodes) */
static int emptiest_in(struct dl_placer *p, int type, int lo, int hi)
{
	int G = p->st->maxg;
	/* binary search on the free count with first-fit queries */
	int a = 1, b = G, best = -1;
	while (a <= b) {
		int m = (a + b) / 2;
		int nd = dl_state_first_fit(p->st, type, m, lo, hi);
		if (nd >= 0) {
			best = nd;
			a = m + 1;
		} else {
			b = m - 1;
		}
	}
	return best;
}

static void place_spread(struct dl_placer *p, int type, int k, struct dl_placement *out)
{
	int R = (int)p->c->nracks, r = 0, idle = 0;
	p->revisits = 1; /* a GPU at a time, racks in turn */
	while (out->ngpus < k && idle < R) {
		const struct dl_rack *rk = &p->c->racks[r];
		int nd = emptiest_in(p, type, rk->first_node, rk->first_node + rk->nnodes);
		if (nd >= 0) {
			take_node(p, nd, 1, out);
			idle = 0;
		} else {
			idle++;
		}
		r = (r + 1) % R;
	}
}

static void place_random(struct dl_placer *p, int type, int k, struct dl_placement *out)
{
	int n = (int)p->c->nnodes;
	while (out->ngpus < k) {
		int start = (int)dl_rng_below(&p->rng, (uint64_t)n);
		take_in_order(p, type, out->ngpus + 1, start, 1, out);
	}
}

/* gandiva: same affinity (most free first), then empty nodes, then any node */
static void place_gandiva(struct dl_placer *p, int type, int k, struct dl_placement *out)
{
	const struct dl_cluster *c = p->c;
	if (k <= p->max_node_t[tslot(p, type)]) {
		int same = -1, sf = 0, empty = -1, other = -1, of = 1 << 30;
		for (size_t i = 0; i < c->nnodes; i++) {
			int f = dl_state_node_free(p->st, (int)i);
			if (f < k || (type >= 0 && c->nodes[i].type != type))
				continue;
			if (p->affinity[i] == k) {
				if (f > sf) {
					same = (int)i;
					sf = f;
				}
			} else if (!p->affinity[i]) {
				if (empty < 0)
					empty = (int)i;
			} else if (f < of) {
				other = (int)i;
				of = f;
			}
		}
		int nd = same >= 0 ? same : empty >= 0 ? empty : other;
		if (nd >= 0) {
			if (!p->affinity[nd])
				p->affinity[nd] = k;
			take_node(p, nd, k, out);
			return;
		}
	}
	/* multi-node jobs (or no single node): consolidate; nodes get this job's size */
	place_consolidated(p, type, k, out);
}

/* ---- dally ---- */

void dl_place_dally_timers(const struct dl_placer *p, int gpus, double *rack, double *net)
{
	if (p->dally) {
		dl_dally_timers(p->dally, gpus, rack, net);
	} else {
		*rack = p->o.dally.rack_delay;
		*net = p->o.dally.net_delay;
	}
}

struct dl_dally *dl_placer_dally(struct dl_placer *p)
{
	return p->dally;
}

/* as consolidated as possible within tier max: NULL when placed (*tier then says where) */
static const char *place_within(struct dl_placer *p, int type, int k, enum dl_tier max,
				enum dl_tier *tier, struct dl_placement *out)
{
	int nd = dl_state_best_fit(p->st, type, k);
	if (nd >= 0) {
		take_node(p, nd, k, out);
		*tier = DL_TIER_NODE;
		return NULL;
	}
	if (max < DL_TIER_RACK)
		return "dally: waiting for a node-level placement (rack timer not expired)";
	int r = best_rack(p, type, k);
	if (r >= 0) {
		take_rack_fewest(p, r, type, k, out);
		*tier = DL_TIER_RACK;
		return NULL;
	}
	if (max < DL_TIER_CLUSTER)
		return "dally: waiting for a rack-level placement (network timer not expired)";
	take_cluster_fewest(p, type, k, out);
	*tier = DL_TIER_CLUSTER;
	return NULL;
}

/* within tier `open`, widened for a job no node (rack) of its type could hold */
static const char *place_tiered(struct dl_placer *p, int type, int k, enum dl_tier open,
				enum dl_tier *tier, struct dl_placement *out)
{
	int ts = tslot(p, type);
	if (k > p->max_node_t[ts] && open < DL_TIER_RACK)
		open = DL_TIER_RACK;
	if (k > p->max_rack_t[ts])
		open = DL_TIER_CLUSTER;
	return place_within(p, type, k, open, tier, out);
}

/*
 * Tiered delay (dally.h): one node now; one rack once the rack timer is up
 * (or when no node could ever hold the job); anywhere once the network timer
 * is up (or no rack could). Node and rack placements after a wait of a lease
 * or more feed the auto-tuner. (simulate --policy dally does the same with
 * its own timers, through req.within.)
 */
static const char *place_dally(struct dl_placer *p, const struct dl_place_req *req,
			       struct dl_placement *out)
{
	enum dl_tier tier;
	const char *why =
		place_tiered(p, req->type, req->gpus,
			     dl_dally_open_tier(p->dally, req->gpus, req->wait), &tier, out);
	if (!why)
		dl_dally_record(p->dally, req->gpus, tier, req->wait);
	return why;
}

/* ---- the entry point ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

void dl_placement_describe(const struct dl_cluster *c, const int *gpus, int n, int *nnodes,
			   int *nracks, enum dl_tier *tier)
{
	/* few GPUs per placement: count distinct nodes and racks by a quadratic-free
	 * pass when sorted, with a fallback check for unsorted input */
	if (n == 1) { /* most gangs: one node, one rack */
		*nnodes = *nracks = 1;
		*tier = DL_TIER_NODE;
		return;
	}
	int nn = 0, nr = 0, prev_node = -1, prev_rack = -1, first_rack = -1, multi = 0;
	int sorted = 1; /* so far: then nodes and racks come in order, each new one is new */
	for (int i = 0; i < n; i++) {
		int nd = dl_cluster_gpu_node(c, gpus[i]);
		int r = c->nodes[nd].rack;
		if (i && gpus[i] < gpus[i - 1])
			sorted = 0;
		if (nd != prev_node) {
			int seen = 0;
			for (int j = 0; j < i && !seen && !sorted; j++)
				seen = gpus[j] > gpus[i] && dl_cluster_gpu_node(c, gpus[j]) == nd;
			nn += !seen;
		}
		if (r != prev_rack) {
			int seen = 0;
			for (int j = 0; j < i && !seen && !sorted; j++)
				seen = c->nodes[dl_cluster_gpu_node(c, gpus[j])].rack == r;
			nr += !seen;
		}
		if (first_rack < 0)
			first_rack = r;
		else if (r != first_rack)
			multi = 1;
		prev_node = nd;
		prev_rack = r;
	}
	*nnodes = nn;
	*nracks = nr;
	*tier = multi ? DL_TIER_CLUSTER : nn > 1 ? DL_TIER_RACK : DL_TIER_NODE;
}

/* one policy decision for a job restricted to `type` (or any type when the cluster has one);
 * inlined into dl_place, whose every call makes one or more */
static inline __attribute__((always_inline)) void
place_typed(struct dl_placer *p, const struct dl_place_req *req, struct dl_placement *out)
{
	int k = req->gpus, type = req->type, ts = tslot(p, type);
	out->decision = DL_PLACED;
	out->reason = NULL;
	out->ngpus = 0;
	p->took_nodes = p->took_racks = p->revisits = 0;
	p->last_rack = -1;
	if (k > p->type_total[ts]) {
		out->decision = DL_REJECT;
		out->reason = type < 0 ? "needs more GPUs than the cluster has"
				       : "needs more GPUs of its type than the cluster has";
		return;
	}
	if (k > dl_state_type_free(p->st, type)) {
		out->decision = DL_WAIT;
		out->reason = "not enough free GPUs";
		return;
	}
	const char *why = NULL;
	enum dl_tier within_tier;
	if (req->within > 0)
		why = place_tiered(p, type, k, (enum dl_tier)(req->within - 1), &within_tier, out);
	else
		switch (p->o.policy) {
		case DL_PLACE_FIRST_FIT:
			place_first_fit(p, type, k, out);
			break;
		case DL_PLACE_CONSOLIDATE:
			place_consolidated(p, type, k, out);
			break;
		case DL_PLACE_SPREAD:
			place_spread(p, type, k, out);
			break;
		case DL_PLACE_RANDOM:
			place_random(p, type, k, out);
			break;
		case DL_PLACE_TIRESIAS:
			if (!req->consolidate) {
				place_first_fit(p, type, k, out);
			} else if (k <= p->max_node_t[ts]) {
				int nd = dl_state_best_fit(p->st, type, k);
				if (nd >= 0)
					take_node(p, nd, k, out);
				else
					why = "tiresias: consolidated model waits for one node";
			} else if (k <= p->max_rack_t[ts]) {
				int r = best_rack(p, type, k);
				if (r >= 0)
					take_rack_fewest(p, r, type, k, out);
				else
					why = "tiresias: consolidated model waits for one rack";
			} else {
				take_cluster_fewest(p, type, k, out);
			}
			break;
		case DL_PLACE_GANDIVA:
			place_gandiva(p, type, k, out);
			break;
		case DL_PLACE_DALLY:
			why = place_dally(p, req, out);
			break;
		default:
			why = "unknown policy";
		}
	if (why || out->ngpus != k) {
		/* give back anything taken (only on an internal shortfall) */
		if (out->ngpus)
			dl_state_release(p->st, out->gpus, out->ngpus);
		out->ngpus = 0;
		out->decision = DL_WAIT;
		out->reason = why ? why : "could not place";
		return;
	}
	if (k > 16) {
		qsort(out->gpus, (size_t)k, sizeof(int), cmp_int);
	} else { /* most gangs are small */
		for (int i = 1; i < k; i++) {
			int x = out->gpus[i], m = i;
			for (; m > 0 && out->gpus[m - 1] > x; m--)
				out->gpus[m] = out->gpus[m - 1];
			out->gpus[m] = x;
		}
	}
	if (p->revisits) {
		dl_placement_describe(p->c, out->gpus, k, &out->nnodes, &out->nracks, &out->tier);
	} else { /* what dl_placement_describe would say, from the takes */
		out->nnodes = p->took_nodes;
		out->nracks = p->took_racks;
		out->tier = out->nracks > 1   ? DL_TIER_CLUSTER
			    : out->nnodes > 1 ? DL_TIER_RACK
					      : DL_TIER_NODE;
	}
	if (p->o.policy == DL_PLACE_GANDIVA && out->nnodes > 1) {
		/* nodes taken whole by a multi-node job get that job's size as affinity */
		int prev = -1;
		for (int i = 0; i < k; i++) {
			int a = dl_cluster_gpu_node(p->c, out->gpus[i]);
			if (a != prev && !p->affinity[a])
				p->affinity[a] = k;
			prev = a;
		}
	}
}

static int cmp_speed(const void *a, const void *b, void *arg)
{
	const struct dl_cluster *c = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if (c->types[x].speed != c->types[y].speed)
		return c->types[x].speed > c->types[y].speed ? -1 : 1;
	return x < y ? -1 : x > y;
}

void dl_place(struct dl_placer *p, const struct dl_place_req *req, struct dl_placement *out)
{
	int T = (int)p->c->ntypes;
	out->ngpus = 0;
	out->nnodes = out->nracks = 0;
	out->tier = DL_TIER_NODE;
	if (req->gpus < 1) {
		out->decision = DL_REJECT;
		out->reason = "a job needs at least one GPU";
		return;
	}
	if (req->type >= 0 || T == 1) {
		place_typed(p, req, out);
		return;
	}
	/*
	 * A gang runs on one GPU type: try the types fastest first and take
	 * the first that places the job now.
	 */
	int order[64], n = 0, biggest = 0;
	for (int t = 0; t < T && n < 64; t++)
		order[n++] = t;
	qsort_r(order, (size_t)n, sizeof(int), cmp_speed, (void *)p->c);
	const char *first_reason = NULL;
	for (int i = 0; i < n; i++) {
		int t = order[i];
		if (p->type_total[t] > biggest)
			biggest = p->type_total[t];
		if (req->gpus > p->type_total[t])
			continue;
		struct dl_place_req r = *req;
		r.type = t;
		place_typed(p, &r, out);
		if (out->decision == DL_PLACED)
			return;
		if (!first_reason)
			first_reason = out->reason;
	}
	out->ngpus = 0;
	if (req->gpus > biggest) {
		out->decision = DL_REJECT;
		out->reason = req->gpus > p->c->total_gpus
				      ? "needs more GPUs than the cluster has"
				      : "needs more GPUs than any one GPU type has";
	} else {
		out->decision = DL_WAIT;
		out->reason = first_reason ? first_reason : "not enough free GPUs";
	}
}

void dl_place_release(struct dl_placer *p, const int *gpus, int n)
{
	dl_state_release(p->st, gpus, n);
	if (p->o.policy != DL_PLACE_GANDIVA)
		return;
	for (int i = 0; i < n; i++) {
		int a = dl_cluster_gpu_node(p->c, gpus[i]);
		if (dl_state_node_free(p->st, a) == p->c->nodes[a].gpus)
			p->affinity[a] = 0;
	}
}

/* ---- the placement text ---- */

void dl_placement_format(const struct dl_cluster *c, const int *gpus, int n, struct strbuf *sb)
{
	int i = 0;
	while (i < n) {
		int nd = dl_cluster_gpu_node(c, gpus[i]);
		const struct dl_node *node = &c->nodes[nd];
		if (i)
			sb_addc(sb, ';');
		sb_addstr(sb, node->name);
		sb_addc(sb, ':');
		int first = 1;
		while (i < n && gpus[i] < node->first_gpu + node->gpus) {
			int a = gpus[i] - node->first_gpu, b = a;
			while (i + 1 < n && gpus[i + 1] == gpus[i] + 1 &&
			       gpus[i + 1] < node->first_gpu + node->gpus) {
				i++;
				b++;
			}
			i++;
			if (!first)
				sb_addc(sb, ',');
			first = 0;
			if (a == b)
				sb_addf(sb, "%d", a);
			else
				sb_addf(sb, "%d-%d", a, b);
		}
	}
}

static int parse_slot(const char *s, size_t len, int max, int *out)
{
	long long v;
	char buf[16];
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
	if (dl_parse_int_range(buf, 0, max - 1, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

int dl_placement_parse(const struct dl_cluster *c, const struct strmap *node_index,
		       const char *text, int **gpus, size_t *n, size_t *alloc, struct dl_err *err)
{
	const char *p = text;
	while (*p == ' ')
		p++;
	if (!*p)
		return 0;
	for (;;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		size_t nl = colon ? (size_t)(colon - p) : len;
		int nd = -1;
		if (node_index) {
			int64_t *v = strmap_getn(node_index, p, nl);
			nd = v ? (int)*v : -1;
		} else {
			char *name = xstrndup(p, nl);
			nd = dl_cluster_node_index(c, name);
			free(name);
		}
		if (nd < 0)
			return dl_err_set(err, DL_EXIT_DATA, "unknown node '%.*s'", (int)nl, p);
		const struct dl_node *node = &c->nodes[nd];
		if (!colon) {
			for (int s = 0; s < node->gpus; s++) {
				DL_GROW(*gpus, *n + 1, *alloc);
				(*gpus)[(*n)++] = node->first_gpu + s;
			}
		} else {
			const char *q = colon + 1, *end = p + len;
			for (;;) {
				const char *comma = memchr(q, ',', (size_t)(end - q));
				const char *e = comma ? comma : end;
				const char *dash = memchr(q, '-', (size_t)(e - q));
				int a, b;
				if (parse_slot(q, (size_t)((dash ? dash : e) - q), node->gpus, &a) <
					    0 ||
				    (dash && parse_slot(dash + 1, (size_t)(e - dash - 1),
							node->gpus, &b) < 0))
					return dl_err_set(
						err, DL_EXIT_DATA,
						"bad GPU list '%.*s' for node '%s' (%d GPUs)",
						(int)(e - q), q, node->name, node->gpus);
				if (!dash)
					b = a;
				if (b < a)
					return dl_err_set(err, DL_EXIT_DATA, "bad GPU range '%.*s'",
							  (int)(e - q), q);
				for (int s = a; s <= b; s++) {
					DL_GROW(*gpus, *n + 1, *alloc);
					(*gpus)[(*n)++] = node->first_gpu + s;
				}
				if (!comma)
					break;
				q = comma + 1;
			}
		}
		if (!semi)
			break;
		p = semi + 1;
	}
	return 0;
}
