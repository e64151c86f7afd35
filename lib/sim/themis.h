/*
 * themis.h: Themis' finish-time fairness as a simulation policy (NSDI'20):
 * GPUs leased for --lease seconds, auctioned at each lease end to the
 * --fairness-knob share of jobs with the worst estimated rho. The mechanism
 * and every constant are described in themis.c and dlsched-simulate(1).
 *
 * Ownership: the option table and the ops are static data; stats is the
 * caller's (may be NULL) and is written while the run lasts.
 */
#ifndef DL_SIM_THEMIS_H
#define DL_SIM_THEMIS_H

#include <stdint.h>

#include "core/opt.h"
#include "sim/policy.h"

struct dl_themis_stats {
	size_t auctions; /* auctions held (instants with GPUs on offer and bidders) */
	size_t rounds;	 /* knob-sized rounds inside them */
	size_t mip;	 /* rounds solved by GLPK's MIP */
	size_t greedy;	 /* rounds decided greedily (too large, or greedy provably optimal) */
	size_t renewed, lost, won; /* leases renewed, lost (preempted), won by waiting jobs */
	double seconds;		   /* wall time inside auctions (measured only when stats is set) */
};

struct dl_themis_params {
	double lease;	  /* seconds */
	double knob;	  /* share of the bidders offered the GPUs per round, in [0, 1] */
	double admission; /* admit a new job only while the worst rho is below this (0: off) */
	int mip_max;	  /* bids in a round up to which it is solved exactly */
	uint64_t seed;	  /* set by create: the run's --seed (the order of ties) */
	struct dl_themis_stats *stats; /* filled if not NULL (the bench) */
	/*
	 * Tests only (no option sets it): Themis as it was first written, the
	 * oracle of tests/unit/test_themis.c. Every auction ranks every
	 * candidate and asks each to bid, and every round the greedy cannot
	 * settle goes to GLPK. Without it the policy keeps the waiting jobs
	 * ranked from one auction to the next, asks only those that fit the
	 * offer, makes node-tier bids from placements found once per gang size
	 * and round, and settles a round whose bids share a GPU without sorting
	 * or GLPK (or without making them) when its answer is clear; the
	 * results are the same byte for byte.
	 */
	int reference;
};

extern const struct dl_opt dl_themis_opts[];

#endif
