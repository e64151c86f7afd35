/*
 * fifo.c: the fifo policy: submit order; nothing starts
 * past a job that cannot start; never preempts.
 * (the queues are queueing.c's; this file is the policy's ops)
 */
#include "sim/queueing.h"

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	(void)params, (void)err;
	struct dl_sq_setup u = {.kind = DL_SQ_FIFO};
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_fifo = {
	.name = "fifo",
	.summary = "submit order, head-of-line blocking, no preemption",
	.create = create,
	DL_SQ_CALLBACKS,
};
