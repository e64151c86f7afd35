/*
 * fifo.c: the fifo policy: submit order; nothing starts
 * past a job that cannot start; never preempts.
 * (the queues are queueing.c's; this file names the policy)
 */
#include "sim/queueing.h"

DL_SQ_PLAIN_POLICY(dl_sim_fifo, DL_SQ_FIFO, "fifo",
		   "submit order, head-of-line blocking, no preemption");
