/*
 * srtf.c: the srtf policy: shortest remaining work first
 * (an oracle), preemptive.
 * (the queues are queueing.c's; this file is the policy's ops)
 */
#include "sim/queueing.h"

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	(void)params, (void)err;
	struct dl_sq_setup u = {.kind = DL_SQ_SRTF};
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_srtf = {
	.name = "srtf",
	.summary = "shortest remaining time first (oracle), preemptive",
	.create = create,
	DL_SQ_CALLBACKS,
};
