/*
 * fifo_backfill.c: the fifo-backfill policy: submit order;
 * jobs that do not fit are skipped; never preempts.
 * (the queues are queueing.c's; this file is the policy's ops)
 */
#include "sim/queueing.h"

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	(void)params, (void)err;
	struct dl_sq_setup u = {.kind = DL_SQ_BACKFILL};
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_fifo_backfill = {
	.name = "fifo-backfill",
	.summary = "submit order, skip jobs that do not fit, no preemption",
	.create = create,
	DL_SQ_CALLBACKS,
};
