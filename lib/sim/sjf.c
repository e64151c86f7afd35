/*
 * sjf.c: the sjf policy: shortest duration first (an
 * oracle: it reads the trace's durations), backfill, no preemption.
 * (the queues are queueing.c's; this file names the policy)
 */
#include "sim/queueing.h"

DL_SQ_PLAIN_POLICY(dl_sim_sjf, DL_SQ_SJF, "sjf",
		   "shortest duration first (oracle), backfill, no preemption");
