/* test_dally.c: Dally's timers and auto-tuner (lib/policy/dally.h), the notes' arithmetic */
#include <string.h>

#include "policy/dally.h"
#include "tap.h"

static void record_all(struct dl_dally *d, int gpus, enum dl_tier tier, const double *leases,
		       int n, double lease)
{
	for (int i = 0; i < n; i++)
		dl_dally_record(d, gpus, tier, leases[i] * lease);
}

int main(void)
{
	/* mean + 2 sigma, sigma the population deviation */
	static const double w[] = {2, 4, 4, 4, 5, 5, 7, 9};
	is_double(dl_dally_estimate(w, 8), 9, 1e-12, "waits {2,4,4,4,5,5,7,9}: mean 5, sigma 2, est 9");
	static const double ones[] = {1, 1, 1, 1};
	is_double(dl_dally_estimate(ones, 4), 1, 1e-12, "waits {1,1,1,1}: est 1");
	is_double(dl_dally_estimate(NULL, 0), 1, 0, "empty window: est 1");
	static const double zeros[] = {0, 0};
	is_double(dl_dally_estimate(zeros, 2), 1, 0, "a window summing to 0: est 1");
	static const double two[] = {1, 3};
	/* sample sigma would give 2 + 2 sqrt(2); the population's gives 2 + 2 */
	is_double(dl_dally_estimate(two, 2), 4, 1e-12, "waits {1,3}: population sigma 1, est 4");

	struct dl_dally_opts o = DL_DALLY_OPTS_INIT;
	struct dl_dally *d = dl_dally_new(&o);
	double rack, net;
	dl_dally_timers(d, 4, &rack, &net);
	ok(rack == 6 * 20 && net == 12 * 20, "empty windows: rack 6 and network 12 leases (%g, %g)",
	   rack, net);
	record_all(d, 4, DL_TIER_NODE, w, 8, 20);
	dl_dally_timers(d, 4, &rack, &net);
	ok(rack == 9 * 20 && net == 12 * 20,
	   "node waits {2,4,4,4,5,5,7,9}: rack = min(40, max(6, 9)) = 9 leases (%g)", rack);
	dl_dally_timers(d, 2, &rack, &net);
	ok(rack == 6 * 20, "another demand keeps its own window (%g)", rack);
	dl_dally_free(d);

	d = dl_dally_new(&o);
	record_all(d, 4, DL_TIER_NODE, ones, 4, 20);
	dl_dally_timers(d, 4, &rack, &net);
	ok(rack == 6 * 20, "node waits {1,1,1,1}: est 1, rack = the floor 6 (%g)", rack);
	/* waits under a lease and cluster-tier placements are not remembered */
	dl_dally_record(d, 4, DL_TIER_NODE, 19.999);
	dl_dally_record(d, 4, DL_TIER_CLUSTER, 100 * 20);
	dl_dally_timers(d, 4, &rack, &net);
	ok(rack == 6 * 20 && net == 12 * 20, "short waits and cluster placements do not count");
	/* rack waits tune the network timer: {20 x 30 leases}: est 30 */
	for (int i = 0; i < 20; i++)
		dl_dally_record(d, 4, DL_TIER_RACK, 30 * 20);
	dl_dally_timers(d, 4, &rack, &net);
	ok(net == 30 * 20, "rack waits of 30 leases: network timer 30 leases (%g)", net);
	dl_dally_free(d);

	/* caps: ceil(0.8 H) for the rack timer, H for the network timer */
	o.history = 10;
	d = dl_dally_new(&o);
	static const double long_waits[] = {50, 50, 50};
	record_all(d, 8, DL_TIER_NODE, long_waits, 3, 20);
	record_all(d, 8, DL_TIER_RACK, long_waits, 3, 20);
	dl_dally_timers(d, 8, &rack, &net);
	ok(rack == 8 * 20 && net == 10 * 20, "H = 10: rack capped at 8, network at 10 (%g, %g)",
	   rack, net);
	/* the window slides: 10 short waits push the long ones out */
	for (int i = 0; i < 10; i++)
		dl_dally_record(d, 8, DL_TIER_NODE, 2 * 20);
	dl_dally_timers(d, 8, &rack, &net);
	ok(rack == 6 * 20, "the window forgets waits older than H (%g)", rack);
	/* the open tier at a wait */
	ok(dl_dally_open_tier(d, 8, 119) == DL_TIER_NODE && dl_dally_open_tier(d, 8, 120) ==
		   DL_TIER_RACK && dl_dally_open_tier(d, 8, 200) == DL_TIER_CLUSTER,
	   "open tiers: node before the rack timer, rack from it, cluster from the network timer");
	dl_dally_free(d);

	/* fixed timers (--rack-delay, --network-delay) and "auto" through the option table */
	struct dl_dally_opts p;
	memset(&p, 0, sizeof(p));
	const struct dl_opt *bad = NULL;
	ok(dl_opt_set_defaults(dl_dally_opt_table, &p, &bad) == 0 && p.lease == 20 &&
		   p.rack_delay < 0 && p.net_delay < 0 && p.history == 50,
	   "the option table's defaults: lease 20, auto, auto, 50");
	ok(dl_opt_store(&dl_dally_opt_table[1], &p, "30") == 0 && p.rack_delay == 30,
	   "--rack-delay 30");
	ok(dl_opt_store(&dl_dally_opt_table[1], &p, "auto") == 0 && p.rack_delay < 0,
	   "--rack-delay auto");
	ok(dl_opt_store(&dl_dally_opt_table[2], &p, "-1") < 0, "--network-delay -1 is refused");
	p.rack_delay = 0;
	p.net_delay = 45;
	d = dl_dally_new(&p);
	dl_dally_timers(d, 4, &rack, &net);
	ok(rack == 0 && net == 45, "fixed timers are used as given (%g, %g)", rack, net);
	ok(dl_dally_open_tier(d, 4, 0) == DL_TIER_RACK, "rack timer 0: the rack tier at once");
	dl_dally_free(d);
	return done_testing();
}
