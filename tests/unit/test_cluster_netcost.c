/* test_cluster_netcost.c: the network cost model's promises (netcost.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/netcost.h"
#include "tap.h"

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c;
	if (dl_cluster_load("4x4x8:v100", &c, &err) < 0) {
		ok(0, "load: %s", err.msg);
		return done_testing();
	}
	struct dl_net_models m;
	dl_net_models_init(&m);
	const struct dl_net_model *vgg = dl_net_models_find(&m, "VGG16");
	const struct dl_net_model *res = dl_net_models_find(&m, "resnet50");
	ok(vgg && res, "built-in vgg16 and resnet50");
	ok(dl_net_models_default(&m) == res, "default model is resnet50");
	ok(!dl_net_models_find(&m, "nosuchnet"), "unknown model not found");

	for (int comm = 0; comm < 2; comm++) {
		struct dl_netcost nc;
		dl_netcost_init(&nc, c, (enum dl_comm)comm);
		const char *cn = comm ? "ps" : "ring";
		for (size_t i = 0; i < m.n; i++) {
			const struct dl_net_model *x = &m.v[i];
			for (int n = 1; n <= 8; n++)
				is_double(dl_netcost_slowdown(&nc, x, n, DL_TIER_NODE, 1), 1, 0,
					  "%s %s n=%d in one node: slowdown 1", cn, x->name, n);
			int mono = 1;
			for (int n = 2; n <= 128; n *= 2) {
				double prev = 0;
				for (int t = 0; t < DL_NTIERS; t++) {
					double s = dl_netcost_slowdown(&nc, x, n, (enum dl_tier)t, 1);
					mono &= s >= prev && s >= 1;
					prev = s;
				}
			}
			ok(mono, "%s %s: slowdown never decreases as the tier widens", cn, x->name);
		}
		double sv = dl_netcost_slowdown(&nc, vgg, 8, DL_TIER_CLUSTER, 1);
		double sr = dl_netcost_slowdown(&nc, res, 8, DL_TIER_CLUSTER, 1);
		ok(sv > sr && sr > 1, "%s: vgg16 across racks slows more (%g) than resnet50 (%g)", cn,
		   sv, sr);
		is_int(dl_netcost_consolidated_tier(&nc, 8), DL_TIER_NODE, "8 GPUs fit a node");
		is_int(dl_netcost_consolidated_tier(&nc, 9), DL_TIER_RACK, "9 GPUs need a rack");
		is_int(dl_netcost_consolidated_tier(&nc, 33), DL_TIER_CLUSTER, "33 need the cluster");
		is_double(dl_netcost_slowdown(&nc, vgg, 32, DL_TIER_RACK, 1), 1, 0,
			  "%s: 32 GPUs in one rack is their consolidated placement", cn);
	}
	/* the ring formula by hand: 2 (n-1)/n B / bw + 2 (n-1) lat at the rack tier */
	struct dl_netcost nc;
	dl_netcost_init(&nc, c, DL_COMM_RING);
	double want = 2 * 0.75 * res->bytes / (100e9 / 8) + 2 * 3 * 10e-6;
	is_double(dl_netcost_comm(&nc, res, 4, DL_TIER_RACK), want, 1e-12, "ring formula");
	dl_netcost_init(&nc, c, DL_COMM_PS);
	want = 2 * vgg->skew_rr * 0.75 * vgg->bytes / (25e9 / 8) + 2 * 30e-6;
	is_double(dl_netcost_comm(&nc, vgg, 4, DL_TIER_CLUSTER), want, 1e-12, "ps formula");
	is_double(dl_net_sensitivity_from_compute(1e8, dl_net_compute_from_sensitivity(1e8, 0.3)),
		  0.3, 1e-12, "sensitivity and compute time invert");

	ok(dl_net_models_read(&m, "testdata/place/profiles.csv", DL_IN_AUTO, &err) == 0,
	   "profiles read: %s", err.msg);
	const struct dl_net_model *pv = dl_net_models_find(&m, "vgglike");
	const struct dl_net_model *pr = dl_net_models_find(&m, "resnetlike");
	const struct dl_net_model *pf = dl_net_models_find(&m, "flat");
	ok(pv && pr && pf && pv->consolidate && !pr->consolidate, "profile rows and consolidate");
	if (pv && pr && pf) {
		dl_netcost_init(&nc, c, DL_COMM_RING);
		ok(dl_netcost_slowdown(&nc, pv, 16, DL_TIER_CLUSTER, 1) >
			   dl_netcost_slowdown(&nc, pr, 16, DL_TIER_CLUSTER, 1),
		   "profiled VGG-like slows more than ResNet-50-like across racks");
		is_double(dl_netcost_slowdown(&nc, pf, 16, DL_TIER_CLUSTER, 1), 1, 0,
			  "sensitivity 0: never slowed");
	}
	ok(dl_net_models_read(&m, "testdata/place/profiles_bad.csv", DL_IN_AUTO, &err) < 0 &&
		   strstr(err.msg, "profiles_bad.csv:3:"),
	   "bad sensitivity names file:line: %s", err.msg);
	/* odd links (a rack link faster than the node link) still never speed up a wider tier */
	struct dl_cluster *odd;
	char tp[] = "/tmp/dlsched_test_netcost_XXXXXX";
	int fd = mkstemp(tp);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fp)
		return done_testing();
	fputs("{\"shorthand\": \"2x2x4\", \"links\": {\"node\": {\"bandwidth_gbps\": 10},"
	      " \"rack\": {\"bandwidth_gbps\": 400, \"latency_us\": 1},"
	      " \"cluster\": {\"bandwidth_gbps\": 100}}}",
	      fp);
	fclose(fp);
	if (dl_cluster_load(tp, &odd, &err) == 0) {
		dl_netcost_init(&nc, odd, DL_COMM_RING);
		double a = dl_netcost_iter(&nc, vgg, 4, DL_TIER_NODE, 1);
		double b = dl_netcost_iter(&nc, vgg, 4, DL_TIER_RACK, 1);
		double d = dl_netcost_iter(&nc, vgg, 4, DL_TIER_CLUSTER, 1);
		ok(a <= b && b <= d, "bottleneck links: iteration time never falls as the tier widens");
		dl_cluster_free(odd);
	} else {
		ok(0, "odd links spec: %s", err.msg);
	}
	remove(tp);
	dl_net_models_free(&m);
	dl_cluster_free(c);
	return done_testing();
}
