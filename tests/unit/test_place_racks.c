/*
 * test_place_racks.c: take_cluster_fewest's rack picking (few racks) against
 * the rack sort it replaces. This file builds lib/policy/place.c a second
 * time with the picking off (DL_PLACE_PICK_RACKS_MAX 0) under other names,
 * then runs the same random jobs through both placers, each on its own
 * state, and wants the same decisions and GPUs at every step.
 */
#include <stdlib.h>
#include <string.h>

#define DL_PLACE_PICK_RACKS_MAX 0
#define dl_place_policy_name	sorted_place_policy_name
#define dl_place_policy_at	sorted_place_policy_at
#define dl_place_policy_parse	sorted_place_policy_parse
#define dl_placer_new		sorted_placer_new
#define dl_placer_free		sorted_placer_free
#define dl_place		sorted_place
#define dl_place_release	sorted_place_release
#define dl_place_dally_timers	sorted_place_dally_timers
#define dl_placer_dally		sorted_placer_dally
#define dl_placement_describe	sorted_placement_describe
#define dl_placement_format	sorted_placement_format
#define dl_placement_parse	sorted_placement_parse
#include "policy/place.c"
#undef dl_place_policy_name
#undef dl_place_policy_at
#undef dl_place_policy_parse
#undef dl_placer_new
#undef dl_placer_free
#undef dl_place
#undef dl_place_release
#undef dl_place_dally_timers
#undef dl_placer_dally
#undef dl_placement_describe
#undef dl_placement_format
#undef dl_placement_parse

#include "tap.h"

/* the library's (place.h was read under the other names) */
struct dl_placer *dl_placer_new(struct dl_cluster_state *st, const struct dl_place_opts *o);
void dl_placer_free(struct dl_placer *p);
void dl_place(struct dl_placer *p, const struct dl_place_req *req, struct dl_placement *out);
void dl_place_release(struct dl_placer *p, const int *gpus, int n);

#define HELD 512

int main(void)
{
	/* small nodes and racks: jobs up to 16 GPUs often fit no single rack */
	const char *specs[] = {"8x4x4", "3x2x8", "2x3x4:v100,3x2x4:k80", "16x2x2"};
	enum dl_place_policy pols[] = {DL_PLACE_CONSOLIDATE, DL_PLACE_TIRESIAS, DL_PLACE_GANDIVA,
				       DL_PLACE_DALLY};
	for (size_t s = 0; s < DL_ARRAY_SIZE(specs); s++) {
		for (size_t q = 0; q < DL_ARRAY_SIZE(pols); q++) {
			struct dl_err err = DL_ERR_INIT;
			struct dl_cluster *c;
			if (dl_cluster_load(specs[s], &c, &err) < 0) {
				ok(0, "load %s: %s", specs[s], err.msg);
				continue;
			}
			struct dl_place_opts o = DL_PLACE_OPTS_INIT;
			o.policy = pols[q];
			o.dally.rack_delay = o.dally.net_delay = 0;
			struct dl_cluster_state *st1 = dl_state_new(c), *st2 = dl_state_new(c);
			struct dl_placer *p1 = dl_placer_new(st1, &o),
					 *p2 = sorted_placer_new(st2, &o);
			static int g1[HELD][64], g2[HELD][64];
			int n[HELD], held = 0, same = 1, wide = 0;
			unsigned seed = 12345u + (unsigned)(s * 7 + q);
			for (int step = 0; step < 3000 && same; step++) {
				seed = seed * 1103515245 + 12345;
				if (held < HELD && (seed >> 16) % 3) {
					int k = 1 + (int)((seed >> 8) % 16);
					int type = c->ntypes > 1 && (seed >> 4) % 2
							   ? (int)((seed >> 5) % 2)
							   : DL_ANY_TYPE;
					struct dl_place_req r = {k, type, (int)(seed & 1), 1e9};
					struct dl_placement a = {.gpus = g1[held]},
							    b = {.gpus = g2[held]};
					dl_place(p1, &r, &a);
					sorted_place(p2, &r, &b);
					same &= a.decision == b.decision && a.ngpus == b.ngpus &&
						a.tier == b.tier && a.nnodes == b.nnodes &&
						a.nracks == b.nracks &&
						!memcmp(a.gpus, b.gpus,
							(size_t)a.ngpus * sizeof(int));
					if (a.decision == DL_PLACED) {
						wide += a.tier == DL_TIER_CLUSTER;
						n[held++] = a.ngpus;
					}
				} else if (held) {
					int i = (int)((seed >> 8) % (unsigned)held);
					dl_place_release(p1, g1[i], n[i]);
					sorted_place_release(p2, g2[i], n[i]);
					held--;
					memcpy(g1[i], g1[held], sizeof(g1[i]));
					memcpy(g2[i], g2[held], sizeof(g2[i]));
					n[i] = n[held];
				}
			}
			ok(same && wide > 0,
			   "%s, %s: picked racks place as sorted racks (%d across racks)", specs[s],
			   sorted_place_policy_name(o.policy), wide);
			dl_placer_free(p1);
			sorted_placer_free(p2);
			dl_state_free(st1);
			dl_state_free(st2);
			dl_cluster_free(c);
		}
	}
	return done_testing();
}
