/*
 * tiresias_las.c: Tiresias' 2D-LAS: multi-level feedback queues on attained
 * GPU-seconds (the shared MLFQ options, lib/policy/mlfq.h), FIFO inside a
 * queue, starvation promotion (the queues are queueing.c's).
 */
#include <stddef.h>

#include "sim/queueing.h"

struct tlas_params {
	struct dl_mlfq_params mlfq;
};

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	const struct tlas_params *p = params;
	struct dl_sq_setup u = {.kind = DL_SQ_TLAS};
	if (dl_mlfq_from_params(&u.queues, &p->mlfq, DL_MLFQ_TIRESIAS_QUEUES, err) < 0)
		return NULL;
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_tiresias_las = {
	.name = "tiresias-las",
	.summary = "Tiresias 2D-LAS: MLFQ on attained GPU-seconds",
	.params_size = sizeof(struct tlas_params),
	.create = create,
	DL_SQ_CALLBACKS,
	.shared = {{dl_mlfq_opts, offsetof(struct tlas_params, mlfq), dl_sq_tiresias_defaults,
		    dl_sq_mlfq_check}},
};
