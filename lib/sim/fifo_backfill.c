/*
 * fifo_backfill.c: the fifo-backfill policy: submit order;
 * jobs that do not fit are skipped; never preempts.
 * (the queues are queueing.c's; this file names the policy)
 */
#include "sim/queueing.h"

DL_SQ_PLAIN_POLICY(dl_sim_fifo_backfill, DL_SQ_BACKFILL, "fifo-backfill",
		   "submit order, skip jobs that do not fit, no preemption");
