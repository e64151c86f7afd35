/*
 * gavel.h: the simulation policy `gavel` (lib/sim/gavel.c): Gavel's
 * round-based mechanism (OSDI'20) realising any allocation policy of
 * lib/policy/alloc.h, with its options.
 *
 * Its option table (lib/core/opt.h) stores into struct dl_gavel_params, the
 * policy's params (policy.h).
 */
#ifndef DL_SIM_GAVEL_H
#define DL_SIM_GAVEL_H

#include <stdint.h>

#include "core/opt.h"
#include "sim/policy.h"

enum dl_gavel_mechanism { DL_GAVEL_ROUNDS = 0, DL_GAVEL_EXACT = 1 };

struct dl_gavel_params {
	int alloc;	     /* enum dl_alloc_policy (--alloc) */
	double round;	     /* seconds a round lasts (--round) */
	int mechanism;	     /* enum dl_gavel_mechanism (--mechanism) */
	int work_conserving; /* backfill GPUs freed mid-round */
	int pack;	     /* space sharing from the pair throughputs */
	double reset;	     /* seconds between resets of the time received (--reset-interval) */
	/* hidden: simulate --compat gavel sets it (the reference's choices) */
	int compat;
	/*
	 * Tests only, in no option table: the driver as it was before it kept
	 * the sets of jobs a round can touch (running, given a type, just
	 * arrived, waiting for admission): every loop scans every slot, free
	 * GPUs are summed over the jobs, solve finds each job by its handle and
	 * copies its X (not read through its class in the session), the walk
	 * heaps every admitted job (not only those that can be taken, and
	 * pops even those that surely fit), the start order has every job
	 * given a type, is sorted again at every pass and tries each of them
	 * (not only those whose type has GPUs enough free), the engine says
	 * which jobs run, the session evaluates its objective. The results
	 * must be the same bytes either way (tests/unit/test_sim_gavel.c).
	 */
	int scan_all;
	/*
	 * Tests only, in no option table either: the walk computes every
	 * admitted job's priority at every round (as the rounds did before they
	 * kept each class's jobs not run since the last reset in blocks of one
	 * priority). The results must be the same bytes either way.
	 */
	int scan_jobs;
};

extern const struct dl_opt dl_gavel_opts[];
extern const struct dl_sim_policy_ops dl_sim_gavel;

#endif
