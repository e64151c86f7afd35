/*
 * place_io.h: the streams of `dlsched place` (dlsched-place(1)): the GPUs
 * already in use in, a queue of jobs in, one placements row per job out.
 *
 * dl_place_read_used() takes from a cluster state the GPUs a table says are
 * in use: a placements stream (column placement; with a decision column only
 * the placed rows hold GPUs) or a node table (node, and gpus: slots as in a
 * placement, else the whole node). A GPU named twice is an error at
 * FILE:LINE naming both lines. A table of 0 bytes uses nothing.
 *
 * dl_place_stream() reads jobs (the jobs stream: id, submit, gpus and the
 * optional gpu_type, model and wait columns) in order and places each with
 * the placer, which keeps the GPUs of placed jobs for the rest of the queue.
 * It writes the columns id, gpus, gpu_type, nodes, racks, tier, slowdown,
 * placement, decision (placed, wait or reject) and reason. A job's wait is
 * its wait column, else now - submit when have_now, else 0; its network
 * cost is its model's (a model without a profile is costed as the default
 * one, said once per model through warn). Bad rows, repeated ids and unknown
 * GPU types are errors at FILE:LINE.
 *
 * Nothing here owns the cluster, state, placer, models or netcost; the
 * caller keeps them alive for the call and still closes the reader and
 * finishes the writer.
 */
#ifndef DL_POLICY_PLACE_IO_H
#define DL_POLICY_PLACE_IO_H

#include "cluster/netcost.h"
#include "policy/place.h"
#include "table/table.h"

/* 0, or -1 with *err (a missing column, a bad or overlapping row at FILE:LINE) */
int dl_place_read_used(struct dl_reader *r, struct dl_cluster_state *st, struct dl_err *err);

struct dl_place_stream {
	struct dl_placer *placer; /* on a state of cluster c */
	const struct dl_cluster *c;
	const struct dl_net_models *models;
	const struct dl_netcost *nc;
	double now; /* with have_now: a job without a wait column waited now - submit */
	int have_now;
	/* a warning (no profile for a model), once per model; NULL: none */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/* 0, or -1 with *err; the rows written before an error stay in w */
int dl_place_stream(const struct dl_place_stream *ps, struct dl_reader *r, struct dl_writer *w,
		    struct dl_err *err);

#endif
