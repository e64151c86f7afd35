/* test_cluster_state.c: the free-GPU state against a naive model, under random take/release */
#include <stdlib.h>
#include <string.h>

#include "cluster/state.h"
#include "tap.h"
#include "xorshift.h"

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
	return xorshift_below(&rng, n);
}

/* naive answers computed from each GPU's free flag alone */
static int naive_node_free(const struct dl_cluster_state *st, int node)
{
	const struct dl_node *n = &st->c->nodes[node];
	int f = 0;
	for (int s = 0; s < n->gpus; s++)
		f += dl_state_gpu_free(st, n->first_gpu + s);
	return f;
}

/*
 * When each node's free count last changed (a larger stamp is later), kept
 * by the test beside the state: DL_TIE_RECENT's order. A new or reset state
 * counts as changed node by node in index order.
 */
static long *stamp, clock_now;

static void stamp_reset(const struct dl_cluster *c)
{
	for (size_t i = 0; i < c->nnodes; i++)
		stamp[i] = ++clock_now;
}

static void stamp_gpus(const struct dl_cluster *c, const int *gpus, int n)
{
	for (int i = 0; i < n; i++)
		stamp[dl_cluster_gpu_node(c, gpus[i])] = ++clock_now;
}

/* a node comes before another in the state's tie order */
static int tie_before(const struct dl_cluster_state *st, int a, int b)
{
	if (!st->rhead)
		return a < b;
	const struct dl_cluster *c = st->c;
	int ra = 0, rb = 0;
	for (size_t k = 0; k < c->ntypes; k++) {
		ra = c->type_order[k] == c->nodes[a].type ? (int)k : ra;
		rb = c->type_order[k] == c->nodes[b].type ? (int)k : rb;
	}
	return ra != rb ? ra < rb : stamp[a] > stamp[b];
}

/* every bucket walked: its nodes (type, exactly f free), each once, in the tie order */
static int check_buckets(const struct dl_cluster_state *st)
{
	const struct dl_cluster *c = st->c;
	int bad = 0;
	for (int t = 0; t < (int)c->ntypes; t++)
		for (int f = 0; f <= st->maxg; f++) {
			int want = 0, got = 0;
			for (size_t i = 0; i < c->nnodes; i++)
				want += c->nodes[i].type == t && naive_node_free(st, (int)i) == f;
			for (int n = dl_state_bucket_first(st, t, f), prev = -1;
			     n >= 0 && got <= want; prev = n, n = dl_state_bucket_next(st, n)) {
				got++;
				bad += c->nodes[n].type != t || naive_node_free(st, n) != f;
				bad += prev >= 0 && !tie_before(st, prev, n);
			}
			bad += got != want;
		}
	return bad;
}

static int check(struct dl_cluster_state *st, const char *when)
{
	const struct dl_cluster *c = st->c;
	int bad = 0, total = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		int f = naive_node_free(st, (int)i);
		bad += f != dl_state_node_free(st, (int)i);
		total += f;
	}
	bad += total != dl_state_total_free(st);
	for (size_t r = 0; r < c->nracks; r++) {
		for (int t = -1; t < (int)c->ntypes; t++) {
			int f = 0;
			for (int k = 0; k < c->racks[r].nnodes; k++) {
				int nd = c->racks[r].first_node + k;
				if (t < 0 || c->nodes[nd].type == t)
					f += naive_node_free(st, nd);
			}
			bad += f != dl_state_rack_free(st, (int)r, t);
		}
	}
	for (int t = -1; t < (int)c->ntypes; t++) {
		for (int need = 1; need <= st->maxg; need++) {
			/* first fit over the whole cluster and over one rack */
			int want = -1, want_rack = -1;
			const struct dl_rack *r1 = &c->racks[c->nracks / 2];
			for (size_t i = 0; i < c->nnodes; i++) {
				int okn = (t < 0 || c->nodes[i].type == t) &&
					  naive_node_free(st, (int)i) >= need;
				if (okn && want < 0)
					want = (int)i;
				if (okn && want_rack < 0 && (int)i >= r1->first_node &&
				    (int)i < r1->first_node + r1->nnodes)
					want_rack = (int)i;
			}
			bad += dl_state_first_fit(st, t, need, 0, (int)c->nnodes) != want;
			bad += dl_state_first_fit(st, t, need, r1->first_node,
						  r1->first_node + r1->nnodes) != want_rack;
			/* best fit: some node with the minimal sufficient free count */
			int bf = dl_state_best_fit(st, t, need), minf = 1 << 30, mini = -1;
			for (size_t i = 0; i < c->nnodes; i++) {
				int f = naive_node_free(st, (int)i);
				if ((t < 0 || c->nodes[i].type == t) && f >= need &&
				    (f < minf || (f == minf && tie_before(st, (int)i, mini)))) {
					minf = f;
					mini = (int)i;
				}
			}
			bad += bf != mini; /* the first in the tie order among the tightest */
		}
	}
	/* nodes needed per rack (of each type, and of all): greedy largest first over a copy */
	for (size_t r = 0; r < c->nracks; r++) {
		for (int t = -1; t < (int)c->ntypes; t++) {
			int need = 1 + (int)rnd((unsigned)dl_state_rack_free(st, (int)r, t) + 3);
			int *v = xmalloc(((size_t)c->racks[r].nnodes + 1) * sizeof(int)), n = 0,
			    got = 0, nodes = 0;
			for (int k = 0; k < c->racks[r].nnodes; k++)
				if (t < 0 || c->nodes[c->racks[r].first_node + k].type == t)
					v[n++] = naive_node_free(st, c->racks[r].first_node + k);
			while (got < need && n) {
				int bi = 0;
				for (int i = 1; i < n; i++)
					if (v[i] > v[bi])
						bi = i;
				got += v[bi];
				nodes++;
				v[bi] = v[--n];
			}
			free(v);
			int want = got >= need ? nodes : 0;
			bad += dl_state_rack_nodes_needed(st, (int)r, t, need) != want;
		}
	}
	/* each rack's open list: its nodes with a free GPU, each once */
	for (size_t r = 0; r < c->nracks; r++) {
		int n, want = 0;
		const int *open = dl_state_rack_open(st, (int)r, &n);
		for (int k = 0; k < c->racks[r].nnodes; k++) {
			int nd = c->racks[r].first_node + k, seen = 0;
			for (int i = 0; i < n; i++)
				seen += open[i] == nd;
			want += naive_node_free(st, nd) > 0;
			bad += seen != (naive_node_free(st, nd) > 0);
		}
		bad += n != want;
	}
	bad += check_buckets(st);
	return ok(!bad, "state consistent %s%s (%d mismatches)", when,
		  st->rhead ? " (ties: recent)" : "", bad);
}

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c;
	/* the last has more than 512 nodes: its best-fit buckets keep a summary (state.c) */
	/* the last: nodes past 64 GPUs, kept without slot masks */
	/* the second: the slower type first, where ties between types differ by rule */
	const char *specs[] = {"2x3x8:v100,1x4x4:k80,1x2x2:p100",
			       "1x2x4:k80,1x2x4:v100",
			       "3x5x4",
			       "1x1x8",
			       "2x300x2",
			       "1x3x80"};
	for (size_t run = 0; run < 2 * DL_ARRAY_SIZE(specs); run++) {
		size_t s = run / 2;
		enum dl_state_tie tie = run % 2 ? DL_TIE_RECENT : DL_TIE_LOWEST;
		if (dl_cluster_load(specs[s], &c, &err) < 0) {
			ok(0, "load %s: %s", specs[s], err.msg);
			continue;
		}
		struct dl_cluster_state *st = dl_state_new_tie(c, tie);
		stamp = xcalloc(c->nnodes + 1, sizeof(*stamp));
		stamp_reset(c);
		check(st, "after new");
		int *held = xmalloc((size_t)c->total_gpus * sizeof(int));
		int nheld = 0, allok = 1;
		for (int step = 0; step < 400; step++) {
			if (!rnd(10)) {
				/* every free GPU of two nodes at once */
				int nodes[2] = {(int)rnd((unsigned)c->nnodes),
						(int)rnd((unsigned)c->nnodes)};
				if (nodes[1] == nodes[0])
					nodes[1] = -1;
				int n = nodes[1] < 0 ? 1 : 2, want = 0;
				for (int i = 0; i < n; i++)
					want += dl_state_node_free(st, nodes[i]);
				int got = dl_state_take_nodes(st, nodes, n, held + nheld);
				stamp_gpus(c, held + nheld, got);
				allok &= got == want && !dl_state_node_free(st, nodes[0]);
				for (int i = 0; i < got; i++)
					allok &= !dl_state_gpu_free(st, held[nheld + i]);
				nheld += got;
			} else if (!rnd(5)) {
				/*
				 * GPUs by index, free or not, in runs on one node or
				 * scattered (a node may come back, a GPU twice): each
				 * free one taken, its node's change stamped, in order,
				 * as dl_state_take_gpu on each would
				 */
				int list[24], n = 0, want = 0, node = (int)rnd((unsigned)c->nnodes);
				while (n < 1 + (int)rnd(24)) {
					if (rnd(4)) {
						const struct dl_node *nd = &c->nodes[node];
						list[n++] = nd->first_gpu +
							    (int)rnd((unsigned)nd->gpus);
					} else {
						list[n++] = (int)rnd((unsigned)c->total_gpus);
					}
					if (!rnd(3))
						node = (int)rnd((unsigned)c->nnodes);
				}
				unsigned char *seen = xcalloc((size_t)c->total_gpus, 1);
				for (int i = 0; i < n; i++)
					if (dl_state_gpu_free(st, list[i]) && !seen[list[i]]) {
						seen[list[i]] = 1;
						held[nheld + want++] = list[i];
						stamp_gpus(c, &list[i], 1);
					}
				free(seen);
				allok &= dl_state_take_gpus(st, list, n) == want;
				for (int i = 0; i < want; i++)
					allok &= !dl_state_gpu_free(st, held[nheld + i]);
				nheld += want;
			} else if (rnd(3) && dl_state_total_free(st)) {
				int node = (int)rnd((unsigned)c->nnodes);
				int k = 1 + (int)rnd(8);
				int before = dl_state_node_free(st, node);
				int got = dl_state_take(st, node, k, held + nheld);
				stamp_gpus(c, held + nheld, got);
				allok &= got == (before < k ? before : k);
				nheld += got;
			} else if (nheld) {
				int i = (int)rnd((unsigned)nheld);
				dl_state_release(st, &held[i], 1);
				stamp_gpus(c, &held[i], 1);
				held[i] = held[--nheld];
			}
			if (step % 50 == 49) {
				char when[64];
				snprintf(when, sizeof(when), "%s step %d", specs[s], step);
				allok &= check(st, when);
				/* the free flags against what the test holds */
				int used = 0, heldfree = 0;
				for (int g = 0; g < c->total_gpus; g++)
					used += !dl_state_gpu_free(st, g);
				for (int i = 0; i < nheld; i++)
					heldfree += dl_state_gpu_free(st, held[i]);
				allok &= ok(used == nheld && !heldfree,
					    "%s: %d GPUs in use, %d held", when, used, nheld);
			}
		}
		ok(allok, "%s: take returns what was free", specs[s]);
		ok(dl_state_take_gpu(st, held[0]) == -1 || !nheld, "taking a used GPU fails");
		dl_state_release(st, held, nheld);
		stamp_gpus(c, held, nheld);
		is_int(dl_state_total_free(st), c->total_gpus, "%s: all released", specs[s]);
		ok(dl_state_take_gpu(st, 0) == 0 &&
			   dl_state_node_free(st, 0) == c->nodes[0].gpus - 1,
		   "take_gpu updates the node");
		dl_state_reset(st);
		stamp_reset(c);
		check(st, "after reset");
		/* filled node by node and emptied again: whole bucket words empty and refill */
		int got = 0;
		for (size_t i = 0; i < c->nnodes; i++) {
			int k = dl_state_take(st, (int)i, c->nodes[i].gpus, held + got);
			stamp_gpus(c, held + got, k);
			got += k;
		}
		is_int(got, c->total_gpus, "%s: everything taken", specs[s]);
		check(st, "when full");
		for (int i = 0; i < got; i += 3) {
			dl_state_release(st, held + i, got - i < 3 ? got - i : 3);
			stamp_gpus(c, held + i, got - i < 3 ? got - i : 3);
		}
		check(st, "emptied again");
		free(held);
		free(stamp);
		dl_state_free(st);
		dl_cluster_free(c);
	}
	return done_testing();
}
