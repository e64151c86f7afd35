/*
 * dally.h: the Dally simulation driver (simulate --policy dally; Sharma et
 * al., arXiv 2401.16492), described in dlsched-simulate(1), DALLY.
 *
 * Its parameters are two shared option groups, each declared once (the
 * ops' shared[]): the Dally timers of place --policy dally (policy/dally.h,
 * at struct dl_sim_dally's timers) and the MLFQ options of tiresias-las
 * (policy/mlfq.h, at mlfq: the queues that rank jobs before their ratio),
 * plus its own --restart-cost (dl_sim_dally_opts, over struct dl_sim_dally). The driver keeps its
 * timers in a struct dl_dally and places through the run's placer with req.within (whatever --place
 * is), so the delay placement and the auto-tuner are the same code as place's.
 */
#ifndef DL_SIM_DALLY_H
#define DL_SIM_DALLY_H

#include "policy/dally.h"
#include "policy/mlfq.h"
#include "sim/policy.h"

/* seconds without progress per GPU when a job resumes on new GPUs (Dally's simulator:
 * CHECKPOINTING_OVERHEAD_PER_GPU) */
#define DL_SIM_DALLY_RESTART "1"

struct dl_sim_dally {
	struct dl_mlfq_params mlfq;
	struct dl_dally_opts timers;
	double restart_cost; /* seconds per GPU */
	/*
	 * Tests only (no option sets it): find expired leases by scanning every
	 * running job at each lease end, the first algorithm, kept as the oracle
	 * the indexed one must match byte for byte.
	 */
	int scan_leases;
};

extern const struct dl_opt dl_sim_dally_opts[];

#endif
