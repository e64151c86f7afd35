/*
 * dally.h: Dally's delay timers and their auto-tuner (Sharma et al., arXiv
 * 2401.16492; mechanism and constants from its public simulator, see
 * dlsched-place(1) and dlsched-simulate(1), DALLY), shared by the placement
 * policy `dally` (place.h: `place --policy dally`, any simulation with
 * `--place dally`) and the simulation driver `simulate --policy dally`
 * (lib/sim/dally.c): the placer keeps a struct dl_dally and places with it;
 * the driver keeps its own and places through the run's placer with
 * req.within = the tier its timers opened (place.h): the same code.
 *
 * Delay scheduling over three tiers: a job takes one node at once if it can;
 * it may span the nodes of one rack once it has waited the rack timer, and
 * racks once it has waited the network timer (a job larger than any node,
 * resp. rack, skips that tier's wait). Timers are fixed (--rack-delay,
 * --network-delay, in seconds) or auto-tuned per GPU demand d:
 *
 *   est(window) = mean + 2 sigma of the waits (in leases, each >= 1) after
 *                 which jobs of demand d got a node-level (rack-level)
 *                 placement, sigma the population standard deviation; 1
 *                 when the window is empty or sums to 0
 *   rack timer  = min(ceil(0.8 H), max(6, ceil(est(node window)))) leases
 *   net timer   = min(H, max(12, ceil(est(rack window)))) leases
 *
 * with H = --history, the window length per demand. The option group below
 * (--lease, --rack-delay, --network-delay, --history) is declared once and
 * used by both commands (#13.2).
 *
 * Ownership: struct dl_dally owns its windows; dl_dally_free() releases them.
 */
#ifndef DL_POLICY_DALLY_H
#define DL_POLICY_DALLY_H

#include "cluster/cluster.h"
#include "core/opt.h"

/* auto-tuner constants (Dally's simulator, DallyIntraJobScheduler.tuneDelayTimers) */
#define DL_DALLY_RACK_FLOOR 6	 /* leases: the rack timer's floor */
#define DL_DALLY_NET_FLOOR  12	 /* leases: the network timer's floor */
#define DL_DALLY_RACK_CAP   0.8	 /* the rack timer's cap, times --history */
#define DL_DALLY_SIGMAS	    2.0	 /* est = mean + this many standard deviations */
#define DL_DALLY_MAX_DEMAND 4096 /* demands above share the last window */

struct dl_dally_opts {
	double lease;	   /* seconds per timer unit (> 0; default 20) */
	double rack_delay; /* seconds before the rack tier; < 0 = auto-tune (default) */
	double net_delay;  /* seconds before the cluster tier; < 0 = auto-tune (default) */
	int history;	   /* waits remembered per GPU demand (default 50) */
};

#define DL_DALLY_OPTS_INIT           \
	{                            \
		20.0, -1.0, -1.0, 50 \
	}

/*
 * The options, declared once: place's "dally" group and a shared group of
 * simulate --policy dally (stored into a struct dl_dally_opts).
 */
int dl_dally_store_delay(const struct dl_opt *o, void *base, const char *arg);
extern const struct dl_opt dl_dally_opt_table[];
#define DL_DALLY_OPT_TITLE "dally"

/* mean + 2 population standard deviations of v[0..n); 1 when n == 0 or the sum is 0 */
double dl_dally_estimate(const double *v, int n);

struct dl_dally;

struct dl_dally *dl_dally_new(const struct dl_dally_opts *o);
void dl_dally_free(struct dl_dally *d);
const struct dl_dally_opts *dl_dally_opts(const struct dl_dally *d);
/* the timers (seconds) a job of `gpus` GPUs gets now */
void dl_dally_timers(const struct dl_dally *d, int gpus, double *rack, double *net);
/*
 * The widest tier a job of `gpus` GPUs that has waited `wait` seconds may
 * take by its timers: DL_TIER_NODE, RACK or CLUSTER (sizes aside: the
 * placer also opens a tier the job cannot avoid).
 */
enum dl_tier dl_dally_open_tier(const struct dl_dally *d, int gpus, double wait);
/* a placement at `tier` after `wait` seconds: remembered when wait >= 1 lease (node, rack) */
void dl_dally_record(struct dl_dally *d, int gpus, enum dl_tier tier, double wait);

#endif
