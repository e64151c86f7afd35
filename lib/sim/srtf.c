/*
 * srtf.c: the srtf policy: shortest remaining work first
 * (an oracle), preemptive.
 * (the queues are queueing.c's; this file names the policy)
 */
#include "sim/queueing.h"

DL_SQ_PLAIN_POLICY(dl_sim_srtf, DL_SQ_SRTF, "srtf",
		   "shortest remaining time first (oracle), preemptive");
