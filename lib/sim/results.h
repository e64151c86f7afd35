/*
 * results.h: the results stream of a run (dlsched-formats(5) "results"),
 * written by the engine (engine.c) and by nothing else.
 *
 * The engine copies what a row needs of a finished or rejected job into a
 * struct dl_sim_result (the job's slot is reused once it leaves) and hands
 * it over; the rows are formatted and written in the order handed over, to
 * the same bytes whichever way they are written:
 *
 *   threaded  on a writer thread of the run's own, through a bounded ring
 *             shared with no one else: formatting and writing a million
 *             rows is a tenth of a run, which the machine's second core
 *             then does while the first simulates. Rows are published in
 *             batches, so the two threads meet (a mutex) once every few
 *             hundred rows, and one waits only when the ring is full or
 *             empty.
 *   in place  at once, on the caller's thread (stepped runs, whose caller
 *             may look at the stream between steps; a stream sharing its
 *             file with another the engine writes, whose rows must stay
 *             interleaved as they come; a system without threads to spare).
 *
 *   dl_sim_results_columns  set w's columns (before the run, so that a run
 *                        that writes no row still has its header)
 *   dl_sim_results_new   make the stream; threaded asks for a writer thread
 *                        (it falls back to in place if none can be made)
 *   dl_sim_results_slot  the row to fill next (waits while the ring is full)
 *   dl_sim_results_put   hand the filled row over
 *   dl_sim_results_end   write what is left, stop the thread (joined), free
 *
 * Until dl_sim_results_end returns, a threaded stream's writer, and the
 * FILE under it, belong to the writer thread: the caller must not touch
 * them (write errors show on the FILE afterwards, as ever: ferror; errno is then
 * the writer thread's first write error's, as it would be in place). Nothing
 * here stops on a write error: the rows go on to the FILE, as in place.
 *
 * Ownership: w, the cluster and the policy name are borrowed until
 * dl_sim_results_end; a row's id, why and type_name point at text that
 * lives as long (the trace's ids and names, static reasons).
 */
#ifndef DL_SIM_RESULTS_H
#define DL_SIM_RESULTS_H

#include <stdint.h>

#include "cluster/cluster.h"
#include "sim/trace.h"
#include "table/table.h"

/* one results row: a finished job (why == NULL) or a rejected one */
struct dl_sim_result {
	const char *id;	       /* the trace's id, or NULL: it is in id_short */
	const char *why;       /* rejected: why (static text); NULL: finished */
	const char *type_name; /* rejected: the trace's gpu_type ("": none) */
	dl_tick submit, duration, start, end, executed; /* ticks; submit, start, end from origin */
	dl_tick occupied; /* GPU-ticks held, shared with the jobs packed alongside */
	double slowdown, comm;
	uint32_t id_len;
	int32_t gpus; /* finished: the engine's; rejected: the trace's */
	int32_t preemptions, migrations;
	int16_t gpu_type;     /* finished: the type index of the GPUs held */
	uint8_t tier;	      /* finished: enum dl_tier */
	uint8_t unknown_type; /* rejected for its unknown gpu_type */
	char id_short[16];    /* a short id, copied (id_len bytes) */
};

struct dl_sim_results;

struct dl_sim_results *dl_sim_results_new(struct dl_writer *w, const struct dl_cluster *c,
					  const char *policy, dl_tick origin, int threaded);
struct dl_sim_result *dl_sim_results_slot(struct dl_sim_results *r);
void dl_sim_results_put(struct dl_sim_results *r);
void dl_sim_results_end(struct dl_sim_results *r);
void dl_sim_results_columns(struct dl_writer *w);

#endif
