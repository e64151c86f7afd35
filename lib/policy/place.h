/*
 * place.h: placement policies, one job at a time, against a free-GPU state.
 *
 * A struct dl_placer wraps a struct dl_cluster_state (cluster/state.h) with
 * what a policy remembers between jobs: the seeded generator (random),
 * per-node affinity (gandiva) and the wait histories of the delay timers
 * (dally). The simulator creates one placer per run and calls dl_place()
 * whenever it wants to start a job and dl_place_release() when it ends;
 * `dlsched place` does the same for a queue snapshot. Policies are described
 * in dlsched-place(1):
 *
 *   first-fit   first node (in order) with room, else free GPUs in node order
 *   consolidate best-fit node, else the rack needing fewest nodes (best fit
 *               on ties), else fewest racks; never waits while GPUs are free
 *   spread      one GPU at a time from the rack's emptiest node, racks in turn
 *   random      each GPU from the first node with a free GPU at or after a
 *               random node (seeded)
 *   tiresias    a job whose model asks for consolidation (req->consolidate)
 *               waits for its consolidated tier; others take first-fit
 *   gandiva     affinity: nodes already serving jobs of the same size, then
 *               empty nodes (which take that affinity), then any node
 *   dally       tiered delay: node tier at once; rack tier after the rack
 *               timer, cluster tier after the network timer (timers fixed or
 *               auto-tuned per GPU demand from a window of past waits)
 *
 * dl_place() never loops: a job larger than the cluster (or than all GPUs of
 * its type) is rejected with a reason; one that cannot be placed now waits.
 *
 * Typical use (a simulator):
 *
 *   struct dl_cluster_state *st = dl_state_new(cluster);
 *   struct dl_place_opts o = DL_PLACE_OPTS_INIT;  o.policy = DL_PLACE_DALLY;
 *   struct dl_placer *pl = dl_placer_new(st, &o);
 *   struct dl_place_req req = {job->gpus, type_or_DL_ANY_TYPE, model->consolidate,
 *                              now - job->waiting_since};
 *   struct dl_placement out = {.gpus = job_gpu_buffer};   // room for job->gpus
 *   dl_place(pl, &req, &out);          // out.decision, out.tier, out.gpus[0..ngpus)
 *   ... slowdown = dl_netcost_slowdown(&nc, model, out.ngpus, out.tier, speed);
 *   dl_place_release(pl, out.gpus, out.ngpus);   // when the job ends or is preempted
 *
 * Ownership: the placer borrows the cluster and the state (both must outlive
 * it) and owns its own arrays; dl_placer_free() releases them. Reason strings
 * are static.
 */
#ifndef DL_POLICY_PLACE_H
#define DL_POLICY_PLACE_H

#include <stdint.h>

#include "cluster/state.h"
#include "core/rng.h"
#include "policy/dally.h"
#include "core/strmap.h"

enum dl_place_policy {
	DL_PLACE_FIRST_FIT,
	DL_PLACE_CONSOLIDATE,
	DL_PLACE_SPREAD,
	DL_PLACE_RANDOM,
	DL_PLACE_TIRESIAS,
	DL_PLACE_GANDIVA,
	DL_PLACE_DALLY,
	DL_PLACE_NPOLICIES
};

/* "first-fit" ... "dally"; parse returns -1 for an unknown name */
const char *dl_place_policy_name(enum dl_place_policy p);
/* the i-th name, NULL after the last (an option table's value list) */
const char *dl_place_policy_at(size_t i);
int dl_place_policy_parse(const char *s, enum dl_place_policy *out);

struct dl_place_opts {
	enum dl_place_policy policy;
	uint64_t seed;		    /* random */
	struct dl_dally_opts dally; /* dally: the timers (dally.h) */
};

#define DL_PLACE_OPTS_INIT                                \
	{                                                 \
		DL_PLACE_FIRST_FIT, 0, DL_DALLY_OPTS_INIT \
	}

struct dl_place_req {
	int gpus;	 /* >= 1 */
	int type;	 /* cluster type index or DL_ANY_TYPE */
	int consolidate; /* tiresias: the job's model asks for consolidation */
	double wait;	 /* dally: seconds the job has waited for GPUs */
	/*
	 * 0: the placer's policy decides. 1 + T: whatever the policy, Dally's
	 * tiered placement with tier T open: as consolidated as possible (one
	 * node, else one rack, else fewest racks) but no wider than T, or than
	 * the next tier when the job is larger than any node (rack) of its type;
	 * else wait. Nothing is learned: the caller keeps the timers
	 * (simulate --policy dally, with its own struct dl_dally).
	 */
	int within;
};

enum dl_decision { DL_PLACED = 0, DL_WAIT = 1, DL_REJECT = 2 };

struct dl_placement {
	enum dl_decision decision;
	const char *reason; /* static; NULL when placed */
	enum dl_tier tier;
	int nnodes, nracks;
	int *gpus; /* caller's buffer with room for req->gpus; sorted global indices */
	int ngpus;
};

struct dl_placer;

struct dl_placer *dl_placer_new(struct dl_cluster_state *st, const struct dl_place_opts *o);
void dl_placer_free(struct dl_placer *p);
/* Decide for one job; when placed, its GPUs are taken from the state. */
void dl_place(struct dl_placer *p, const struct dl_place_req *req, struct dl_placement *out);
/* Give a job's GPUs back (also updates gandiva's affinity). */
void dl_place_release(struct dl_placer *p, const int *gpus, int n);
/* dally: the timers (seconds) a job of `gpus` GPUs would get now */
void dl_place_dally_timers(const struct dl_placer *p, int gpus, double *rack, double *net);
/* dally: the placer's timers and auto-tuner (NULL unless its policy is dally) */
struct dl_dally *dl_placer_dally(struct dl_placer *p);

/* nodes, racks and tier of a set of global GPU indices (sorted or not) */
void dl_placement_describe(const struct dl_cluster *c, const int *gpus, int n, int *nnodes,
			   int *nracks, enum dl_tier *tier);
/*
 * The placement text: "NODE:SLOTS;NODE:SLOTS", slots as comma-separated
 * numbers and ranges ("r0n0:0-3;r0n1:0,2"), nodes in cluster order. gpus
 * must be sorted.
 */
void dl_placement_format(const struct dl_cluster *c, const int *gpus, int n, struct strbuf *sb);
/*
 * Parse that text (or "NODE" alone, meaning all its GPUs) into global
 * indices appended to *gpus (grown with DL_GROW). Errors (unknown node, slot
 * out of range, bad syntax) are returned as a message without file:line, for
 * the caller to prefix. `node_index` may be NULL (then nodes are looked up
 * linearly).
 */
int dl_placement_parse(const struct dl_cluster *c, const struct strmap *node_index,
		       const char *text, int **gpus, size_t *n, size_t *alloc, struct dl_err *err);

#endif
