/*
 * cluster.h: the cluster model every command shares (topology, GPU types,
 * links), parsed from one SPEC argument.
 *
 * SPEC forms (dl_cluster_load decides by content, documented in
 * dlsched-cluster(1)):
 *   - shorthand RACKSxNODESxGPUS[:TYPE] joined by ',' ("2x16x8:v100,1x16x4:k80");
 *     TYPE defaults to the first known type; built-in types (v100, p100, k80,
 *     a100, ...) carry documented speed, memory and cost;
 *   - a JSON file (GPU types with speed/memory/cost, racks, nodes, link
 *     bandwidth and latency per tier);
 *   - a Tiresias cluster_spec CSV (num_switch,num_node_p_switch,num_gpu_p_node,
 *     num_cpu_p_node,mem_p_node): switches become racks;
 *   - Gavel's V:P:K counts ("36:36:36") or its cluster_specs JSON;
 *   - the Alibaba PAI machine table (pai_machine_spec.csv).
 *
 * A bad shorthand or V:P:K SPEC (including one with no GPUs, "0x0x0") fails
 * with exit code 2 (usage: it is command-line text); a bad or missing file, 1.
 *
 * Ownership: dl_cluster_load() returns a cluster the caller frees with
 * dl_cluster_free(); all names and arrays inside belong to it. A cluster is
 * immutable after loading; mutable free-GPU state lives in struct
 * dl_cluster_state (see below), so one cluster can back many simulations.
 */
#ifndef DL_CLUSTER_H
#define DL_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"

/* Link tiers, narrowest first. A placement's tier is the widest it spans. */
enum dl_tier { DL_TIER_NODE = 0, DL_TIER_RACK = 1, DL_TIER_CLUSTER = 2, DL_NTIERS = 3 };

struct dl_gpu_type {
	char *name;   /* "v100" */
	double speed; /* relative throughput, reference type = 1 */
	double memory_gb;
	double cost_per_hour; /* dollars per GPU-hour */
};

struct dl_link {
	double bandwidth_gbps; /* per-GPU share of the link, gigabits per second */
	double latency_us;
};

struct dl_node {
	char *name;    /* "r0n3" unless the spec names it */
	int rack;      /* index into racks */
	int type;      /* index into types */
	int gpus;      /* GPUs on this node */
	int first_gpu; /* global index of its GPU 0 */
	int cpus;      /* 0 when unknown */
	double mem_gb; /* 0 when unknown */
};

struct dl_rack {
	char *name;
	int first_node, nnodes;
};

struct dl_cluster {
	struct dl_gpu_type *types;
	size_t ntypes;
	struct dl_rack *racks;
	size_t nracks;
	struct dl_node *nodes;
	size_t nnodes;
	int total_gpus;
	/*
	 * Indexes built once at load, for every user of the cluster: gpu_node[g]
	 * is global GPU g's node (total_gpus entries: dl_cluster_gpu_node);
	 * type_order is the type indices fastest first (ties: the spec's order),
	 * ntypes entries.
	 */
	int *gpu_node;
	int *type_order;
	struct dl_link link[DL_NTIERS];
	/*
	 * congestion: each tier's link bandwidth is divided by this (>= 1; 1 =
	 * none), from the JSON spec's "congestion" object or --congestion. The
	 * links keep the hardware's numbers; the network cost model divides.
	 */
	double congestion[DL_NTIERS];
	char *source; /* the SPEC text or file it came from, for messages */
	/*
	 * scontrol show node: nodes with GPUs that were drained, down or failed
	 * (State=...DRAIN, DOWN, FAIL) and their GPUs. They are in the cluster
	 * all the same: the what-if counts them as available, and says so.
	 */
	int unavailable_nodes, unavailable_gpus;
};

int dl_cluster_load(const char *spec, struct dl_cluster **out, struct dl_err *err);
void dl_cluster_free(struct dl_cluster *c);
/* index of a GPU type by name (case-insensitive), or -1 */
int dl_cluster_type_index(const struct dl_cluster *c, const char *name);
/* GPUs of one type in the whole cluster */
int dl_cluster_type_gpus(const struct dl_cluster *c, int type);

/*
 * Extensions (place engineer). The built-in GPU type table, documented in
 * dlsched-cluster(1): speeds relative to v100 = 1, memory per GPU, list price
 * per GPU-hour. The table is constant; entries are never freed.
 */
const struct dl_gpu_type *dl_gpu_builtin(const char *name); /* case-insensitive, or NULL */
const struct dl_gpu_type *dl_gpu_builtins(size_t *n);
/* the default per-tier links (used when a spec gives none) */
void dl_cluster_default_links(struct dl_link link[DL_NTIERS]);
/* "node", "rack", "cluster" */
const char *dl_tier_name(enum dl_tier t);
/* index of a node by name, or -1 (linear; callers that look up often build a map) */
int dl_cluster_node_index(const struct dl_cluster *c, const char *name);
/* the node holding global GPU index gpu (0 <= gpu < total_gpus) */
static inline int dl_cluster_gpu_node(const struct dl_cluster *c, int gpu)
{
	return c->gpu_node[gpu];
}
/* Refuse specs larger than this (a typo such as 1000x1000x1000 is an error, not an OOM). */
#define DL_CLUSTER_MAX_GPUS  (1 << 24)
#define DL_CLUSTER_MAX_NODES (1 << 21)
#define DL_NODE_MAX_GPUS     1024
#define DL_CLUSTER_MAX_RACKS (1 << 16)

/*
 * Congestion (#18.2): a divisor of a tier's bandwidth, "rack=2,cluster=4"
 * (tiers node, rack, cluster; divisors in [1, 1e6]). A tier not named keeps
 * what the spec said. struct dl_congestion is what --congestion stores (a
 * CALLBACK option of place and simulate: dl_congestion_opt); 0 = not given.
 */
struct dl_congestion {
	double div[DL_NTIERS];
};
#define DL_CONGESTION_MAX 1e6
#define DL_CONGESTION_EXPECT \
	"TIER=DIVISOR[,...] with tiers node, rack, cluster (each once) and divisors >= 1"
int dl_congestion_parse(const char *text, struct dl_congestion *g, struct dl_err *err);
struct dl_opt;
/* the store of a DL_OPT_CALLBACK option whose field is a struct dl_congestion */
int dl_congestion_opt(const struct dl_opt *o, void *base, const char *arg);
/* apply the tiers g names to c (replacing the spec's divisors for them) */
void dl_cluster_congest(struct dl_cluster *c, const struct dl_congestion *g);

#endif
