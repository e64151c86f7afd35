/* test_place.c: placement policies (lib/policy/place.h) */
#include <stdlib.h>
#include <string.h>

#include "policy/place.h"
#include "tap.h"

struct env {
	struct dl_cluster *c;
	struct dl_cluster_state *st;
	struct dl_placer *p;
	int gpus[4096];
	struct dl_placement pl;
};

static int setup(struct env *e, const char *spec, struct dl_place_opts *o)
{
	struct dl_err err = DL_ERR_INIT;
	memset(e, 0, sizeof(*e));
	if (dl_cluster_load(spec, &e->c, &err) < 0) {
		ok(0, "load %s: %s", spec, err.msg);
		return -1;
	}
	e->st = dl_state_new(e->c);
	e->p = dl_placer_new(e->st, o);
	e->pl.gpus = e->gpus;
	return 0;
}

static void teardown(struct env *e)
{
	dl_placer_free(e->p);
	dl_state_free(e->st);
	dl_cluster_free(e->c);
}

static struct dl_placement *place(struct env *e, int k, int type, int cons, double wait)
{
	struct dl_place_req r = {k, type, cons, wait};
	dl_place(e->p, &r, &e->pl);
	return &e->pl;
}

static const char *fmt(struct env *e)
{
	static char buf[512];
	struct strbuf sb = STRBUF_INIT;
	dl_placement_format(e->c, e->pl.gpus, e->pl.ngpus, &sb);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	sb_release(&sb);
	return buf;
}

int main(void)
{
	struct dl_place_opts o = DL_PLACE_OPTS_INIT;
	struct env e;
	struct dl_placement *pl;

	/* every policy: fill a heterogeneous cluster with random jobs, check invariants */
	for (int pol = 0; pol < DL_PLACE_NPOLICIES; pol++) {
		o = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
		o.policy = (enum dl_place_policy)pol;
		o.seed = 7;
		if (setup(&e, "2x4x8:v100,1x4x4:k80", &o) < 0)
			continue;
		int valid = 1, placed = 0, rejected = 0, used = 0;
		unsigned seed = 1;
		for (int j = 0; j < 200; j++) {
			seed = seed * 1103515245 + 12345;
			int k = 1 << ((seed >> 16) % 6); /* 1..32 */
			int type = (seed >> 8) % 3 == 0 ? (int)((seed >> 4) % 2) : DL_ANY_TYPE;
			int free_before = dl_state_type_free(e.st, type);
			pl = place(&e, k, type, (int)(seed & 1), 1e9);
			if (pl->decision == DL_PLACED) {
				placed++;
				used += k;
				valid &= pl->ngpus == k;
				for (int i = 0; i < pl->ngpus; i++) {
					valid &= i == 0 || pl->gpus[i] > pl->gpus[i - 1];
					valid &= type < 0 ||
						 e.c->nodes[dl_cluster_gpu_node(e.c, pl->gpus[i])].type ==
							 type;
				}
				valid &= dl_state_type_free(e.st, type) == free_before - k;
				/* nodes, racks and tier (counted from the takes) as the GPUs say */
				int nn, nr;
				enum dl_tier tier;
				dl_placement_describe(e.c, pl->gpus, pl->ngpus, &nn, &nr, &tier);
				valid &= nn == pl->nnodes && nr == pl->nracks && tier == pl->tier;
			} else if (pl->decision == DL_REJECT) {
				rejected++;
				valid &= k > (type < 0 ? e.c->total_gpus
						       : dl_cluster_type_gpus(e.c, type));
			} else {
				valid &= pl->reason != NULL && pl->ngpus == 0;
			}
			if ((seed >> 20) % 3 != 0 && pl->decision == DL_PLACED)
				dl_place_release(e.p, pl->gpus, pl->ngpus), used -= k;
		}
		ok(valid && placed > 10 && used == e.c->total_gpus - dl_state_total_free(e.st),
		   "%s: 200 random jobs placed validly (%d placed, %d rejected)",
		   dl_place_policy_name(o.policy), placed, rejected);
		teardown(&e);
	}

	/* rejection and waiting */
	o = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	o.policy = DL_PLACE_CONSOLIDATE;
	setup(&e, "1x2x4:v100,1x1x4:k80", &o);
	pl = place(&e, 13, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_REJECT && strstr(pl->reason, "more GPUs than the cluster"),
	   "job larger than the cluster is rejected: %s", pl->reason);
	pl = place(&e, 5, dl_cluster_type_index(e.c, "k80"), 0, 0);
	ok(pl->decision == DL_REJECT && strstr(pl->reason, "its type"),
	   "job larger than its type is rejected");
	pl = place(&e, 12, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_REJECT && strstr(pl->reason, "any one GPU type"),
	   "a gang never mixes GPU types: %s", pl->reason);
	pl = place(&e, 8, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_PLACED && !strcmp(e.c->types[e.c->nodes[dl_cluster_gpu_node(e.c, pl->gpus[0])].type].name, "v100"),
	   "untyped job goes to the fastest type");
	pl = place(&e, 5, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_WAIT && strstr(pl->reason, "free"), "v100 full, k80 too small: wait");
	pl = place(&e, 4, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_PLACED && pl->tier == DL_TIER_NODE, "then the k80 node");
	teardown(&e);
	setup(&e, "2x1x4", &o);
	pl = place(&e, 8, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_PLACED && pl->tier == DL_TIER_CLUSTER && pl->nracks == 2,
	   "whole cluster spans both racks");
	pl = place(&e, 1, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_WAIT && strstr(pl->reason, "free"), "full cluster: wait");
	teardown(&e);

	/* consolidate: best fit, fewest nodes */
	setup(&e, "2x4x8", &o);
	place(&e, 6, DL_ANY_TYPE, 0, 0);
	is_str(fmt(&e), "r0n0:0-5", "consolidate: 6 GPUs on the first node");
	place(&e, 2, DL_ANY_TYPE, 0, 0);
	is_str(fmt(&e), "r0n0:6-7", "consolidate: best fit fills the partly used node");
	pl = place(&e, 16, DL_ANY_TYPE, 0, 0);
	ok(pl->nnodes == 2 && pl->tier == DL_TIER_RACK, "consolidate: 16 GPUs on 2 nodes of a rack");
	pl = place(&e, 40, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_PLACED && pl->nnodes == 5 && pl->nracks == 2,
	   "consolidate: 40 GPUs on 5 whole nodes");
	teardown(&e);

	/* first-fit */
	o.policy = DL_PLACE_FIRST_FIT;
	setup(&e, "2x4x8", &o);
	place(&e, 6, DL_ANY_TYPE, 0, 0);
	is_str(fmt(&e), "r0n0:0-5", "first-fit: first node");
	place(&e, 4, DL_ANY_TYPE, 0, 0);
	is_str(fmt(&e), "r0n1:0-3", "first-fit: first node with room");
	place(&e, 1, DL_ANY_TYPE, 0, 0);
	is_str(fmt(&e), "r0n0:6", "first-fit: lowest node first");
	teardown(&e);

	/* spread */
	o.policy = DL_PLACE_SPREAD;
	setup(&e, "2x2x4", &o);
	pl = place(&e, 4, DL_ANY_TYPE, 0, 0);
	ok(pl->nnodes == 4 && pl->nracks == 2, "spread: 4 GPUs on 4 nodes in 2 racks (%s)", fmt(&e));
	teardown(&e);

	/* random: seeded */
	char a[512], b[512], c2[512];
	o.policy = DL_PLACE_RANDOM;
	o.seed = 42;
	setup(&e, "4x8x8", &o);
	place(&e, 6, DL_ANY_TYPE, 0, 0);
	snprintf(a, sizeof(a), "%s", fmt(&e));
	teardown(&e);
	setup(&e, "4x8x8", &o);
	place(&e, 6, DL_ANY_TYPE, 0, 0);
	snprintf(b, sizeof(b), "%s", fmt(&e));
	teardown(&e);
	o.seed = 43;
	setup(&e, "4x8x8", &o);
	place(&e, 6, DL_ANY_TYPE, 0, 0);
	snprintf(c2, sizeof(c2), "%s", fmt(&e));
	teardown(&e);
	ok(!strcmp(a, b) && strcmp(a, c2), "random: same seed same GPUs (%s), other seed differs (%s)",
	   a, c2);

	/* tiresias */
	o.policy = DL_PLACE_TIRESIAS;
	setup(&e, "1x2x4", &o);
	place(&e, 2, DL_ANY_TYPE, 0, 0);
	place(&e, 2, DL_ANY_TYPE, 0, 0);
	place(&e, 1, DL_ANY_TYPE, 0, 0); /* first-fit: r0n1:0; free: n0 none, n1 3 */
	place(&e, 1, DL_ANY_TYPE, 0, 0);
	/* now n1 has 2 free, n0 has 0 ... make both nodes 2 free */
	dl_state_reset(e.st);
	int t1[2] = {0, 1}, t2[2] = {4, 5};
	dl_state_take_gpu(e.st, t1[0]), dl_state_take_gpu(e.st, t1[1]);
	dl_state_take_gpu(e.st, t2[0]), dl_state_take_gpu(e.st, t2[1]);
	pl = place(&e, 4, DL_ANY_TYPE, 1, 0);
	ok(pl->decision == DL_WAIT && strstr(pl->reason, "tiresias"),
	   "tiresias: skewed model waits for one node");
	pl = place(&e, 4, DL_ANY_TYPE, 0, 0);
	ok(pl->decision == DL_PLACED && pl->nnodes == 2, "tiresias: other model takes what is free");
	teardown(&e);

	/* gandiva affinity */
	o.policy = DL_PLACE_GANDIVA;
	setup(&e, "1x4x8", &o);
	place(&e, 2, DL_ANY_TYPE, 0, 0);
	snprintf(a, sizeof(a), "%s", fmt(&e));
	place(&e, 1, DL_ANY_TYPE, 0, 0);
	snprintf(b, sizeof(b), "%s", fmt(&e));
	place(&e, 2, DL_ANY_TYPE, 0, 0);
	snprintf(c2, sizeof(c2), "%s", fmt(&e));
	ok(!strncmp(a, c2, 4) && strncmp(a, b, 4),
	   "gandiva: 2-GPU jobs share a node (%s, %s), the 1-GPU job goes elsewhere (%s)", a, c2,
	   b);
	teardown(&e);

	/* dally: timers */
	int held[4];
	o = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	o.policy = DL_PLACE_DALLY;
	setup(&e, "2x2x4", &o);
	double rt, nt;
	dl_place_dally_timers(e.p, 4, &rt, &nt);
	ok(rt == 6 * 20 && nt == 12 * 20, "dally: auto timers start at 6 and 12 leases (%g, %g)",
	   rt, nt);
	for (int nd = 0; nd < 4; nd++)
		dl_state_take(e.st, nd, 2, held); /* every node has 2 free */
	pl = place(&e, 4, DL_ANY_TYPE, 0, 100);
	ok(pl->decision == DL_WAIT && strstr(pl->reason, "node-level"),
	   "dally: waits before the rack timer");
	pl = place(&e, 4, DL_ANY_TYPE, 0, 130);
	ok(pl->decision == DL_PLACED && pl->tier == DL_TIER_RACK, "dally: rack tier after it");
	/* one GPU free per node: a 4-GPU job spans racks only after 12 leases */
	dl_state_reset(e.st);
	for (int nd = 0; nd < 4; nd++)
		dl_state_take(e.st, nd, 3, held);
	pl = place(&e, 4, DL_ANY_TYPE, 0, 200);
	ok(pl->decision == DL_WAIT && strstr(pl->reason, "rack-level"), "dally: network timer");
	pl = place(&e, 4, DL_ANY_TYPE, 0, 240);
	ok(pl->decision == DL_PLACED && pl->tier == DL_TIER_CLUSTER, "dally: cluster tier after it");
	teardown(&e);
	o.dally.rack_delay = 0;
	o.dally.net_delay = 5;
	setup(&e, "2x2x4", &o);
	dl_place_dally_timers(e.p, 4, &rt, &nt);
	ok(rt == 0 && nt == 5, "dally: timers from flags");
	teardown(&e);
	/* auto-tuning: long waits at the node tier raise the rack timer */
	o.dally.rack_delay = o.dally.net_delay = -1;
	o.dally.history = 100;
	setup(&e, "1x1x4", &o);
	for (int i = 0; i < 20; i++) {
		pl = place(&e, 4, DL_ANY_TYPE, 0, 20 * 30);
		memcpy(held, pl->gpus, sizeof(held));
		dl_place_release(e.p, held, 4);
	}
	dl_place_dally_timers(e.p, 4, &rt, &nt);
	is_double(rt, 30 * 20, 1e-9, "dally: rack timer tuned to mean+2sd of past waits (30 leases)");
	teardown(&e);

	/* placement text round trip */
	o.policy = DL_PLACE_FIRST_FIT;
	setup(&e, "2x2x4", &o);
	struct dl_err err = DL_ERR_INIT;
	int *g = NULL;
	size_t n = 0, al = 0;
	ok(dl_placement_parse(e.c, NULL, "r0n1:0-1,3;r1n0", &g, &n, &al, &err) == 0 && n == 7,
	   "parse placement text");
	struct strbuf sb = STRBUF_INIT;
	dl_placement_format(e.c, g, (int)n, &sb);
	is_str(sb.buf, "r0n1:0-1,3;r1n0:0-3", "format placement text");
	ok(dl_placement_parse(e.c, NULL, "r0n1:4", &g, &n, &al, &err) < 0 &&
		   strstr(err.msg, "r0n1"),
	   "slot out of range: %s", err.msg);
	ok(dl_placement_parse(e.c, NULL, "zz:1", &g, &n, &al, &err) < 0 &&
		   strstr(err.msg, "unknown node 'zz'"),
	   "unknown node: %s", err.msg);
	ok(dl_placement_parse(e.c, NULL, "r0n0:3-1", &g, &n, &al, &err) < 0, "reversed range");
	sb_release(&sb);
	free(g);
	teardown(&e);
	return done_testing();
}
