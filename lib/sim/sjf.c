/*
 * sjf.c: the sjf policy: shortest duration first (an
 * oracle: it reads the trace's durations), backfill, no preemption.
 * (the queues are queueing.c's; this file is the policy's ops)
 */
#include "sim/queueing.h"

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	(void)params, (void)err;
	struct dl_sq_setup u = {.kind = DL_SQ_SJF};
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_sjf = {
	.name = "sjf",
	.summary = "shortest duration first (oracle), backfill, no preemption",
	.create = create,
	DL_SQ_CALLBACKS,
};
