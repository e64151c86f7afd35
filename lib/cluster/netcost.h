/*
 * netcost.h: what a placement costs a distributed job in communication time.
 *
 * The model (documented with its formulas in dlsched-place(1), NETWORK COST):
 * an iteration takes compute + communication. Compute is the model's
 * compute_s on the reference GPU divided by the GPU type's speed.
 * Communication for n GPUs whose widest tier is T uses the bottleneck link of
 * tiers node..T (lowest bandwidth, highest latency among them), so a wider
 * tier can never be faster; a congested tier's bandwidth is first divided by
 * the cluster's divisor for it (cluster.h, congestion):
 *
 *   ring all-reduce:   2 (n-1)/n * B / bw + 2 (n-1) * lat
 *   parameter servers: 2 skew_rr (n-1)/n * B / bw + 2 lat
 *                      (one server per worker; the busiest carries skew_rr
 *                       times the mean load, and talks to every worker)
 *
 * with B the model's gradient bytes. slowdown = iteration time at the
 * placement / iteration time at the consolidated placement of the same n
 * GPUs (the narrowest tier whose largest node or rack could hold n), so one
 * node gives exactly 1 and slowdown never decreases as the tier widens.
 *
 * Model parameters come from a built-in table of common models (bytes and
 * skew from their real tensor lists, compute_s a documented estimate) or from
 * a `profiles` stream (dlsched-formats(5)). A profile's sensitivity s in
 * [0, 1] (dlsched profile: (skew_rr - 1) / (P - 1)) is read as the share of
 * an iteration spent communicating by ring all-reduce over 8 GPUs at
 * 100 Gb/s and 10 us, which gives the compute time a model file cannot tell:
 *   compute_s = t_ref * (1 - s) / s,   t_ref = 1.75 * B / 12.5e9 + 1.4e-4 s
 * (s = 0: spreading costs nothing, slowdown 1 everywhere).
 *
 * Ownership: struct dl_net_models owns its entries and names;
 * dl_net_models_free() releases them. struct dl_netcost borrows the cluster.
 */
#ifndef DL_CLUSTER_NETCOST_H
#define DL_CLUSTER_NETCOST_H

#include "cluster/cluster.h"
#include "core/strmap.h"
#include "table/table.h"

enum dl_comm { DL_COMM_RING = 0, DL_COMM_PS = 1 };

struct dl_net_model {
	char *name;	  /* lower case */
	double bytes;	  /* gradient bytes exchanged per iteration (fp32 weights) */
	double skew_rr;	  /* busiest parameter server's load / mean (>= 1) */
	double compute_s; /* compute time per iteration on the reference GPU; inf = no comm cost */
	double sensitivity; /* communication share at the reference link, in [0, 1] */
	int consolidate;    /* the profile asks for consolidation (Tiresias) */
};

struct dl_net_models {
	struct dl_net_model *v;
	size_t n, alloc;
	struct strmap idx; /* name -> index */
	int def;	   /* index of the default model for jobs without one */
};

/* the built-in table (always loaded; a profiles file adds or overrides) */
void dl_net_models_init(struct dl_net_models *m);
void dl_net_models_free(struct dl_net_models *m);
/*
 * Read a profiles stream: columns model, bytes, skew_rr, sensitivity
 * required; consolidate optional (1/0/true/false); others ignored. Errors
 * name FILE:LINE.
 */
int dl_net_models_read(struct dl_net_models *m, const char *path, enum dl_in_format fmt,
		       struct dl_err *err);
/* by name (case-insensitive), or NULL */
const struct dl_net_model *dl_net_models_find(const struct dl_net_models *m, const char *name);
/* the model a job without (or with an unknown) model name is costed as */
const struct dl_net_model *dl_net_models_default(const struct dl_net_models *m);
/* sensitivity <-> compute time, per the formula above */
double dl_net_compute_from_sensitivity(double bytes, double sensitivity);
double dl_net_sensitivity_from_compute(double bytes, double compute_s);

struct dl_netcost {
	const struct dl_cluster *c;
	enum dl_comm comm;
	int max_node_gpus, max_rack_gpus; /* for the consolidated tier */
	struct dl_link eff[DL_NTIERS];	  /* bottleneck link up to each tier */
};

void dl_netcost_init(struct dl_netcost *nc, const struct dl_cluster *c, enum dl_comm comm);
/* narrowest tier whose largest node/rack could hold n GPUs */
enum dl_tier dl_netcost_consolidated_tier(const struct dl_netcost *nc, int n);
/* seconds of communication per iteration for n GPUs spanning `tier` */
double dl_netcost_comm(const struct dl_netcost *nc, const struct dl_net_model *m, int n,
		       enum dl_tier tier);
/* seconds per iteration on GPUs of relative speed `speed` */
double dl_netcost_iter(const struct dl_netcost *nc, const struct dl_net_model *m, int n,
		       enum dl_tier tier, double speed);
/* iteration time at `tier` / at the consolidated tier (>= 1; 1 for n <= 1) */
double dl_netcost_slowdown(const struct dl_netcost *nc, const struct dl_net_model *m, int n,
			   enum dl_tier tier, double speed);

#endif
