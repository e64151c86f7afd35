/*
 * tiresias_gittins.c: Tiresias' 2D-Gittins: the MLFQ of tiresias-las, and
 * inside a queue the Gittins index of the attained GPU-seconds, from
 * --distribution or learned from the trace's own jobs (the queues are
 * queueing.c's).
 */
#include <stddef.h>
#include <stdlib.h>

#include "sim/queueing.h"

struct tgittins_params {
	struct dl_mlfq_params mlfq;
	const char *distribution; /* NULL: learn from the trace */
	double delta;
};

#define AT(f) DL_OPT_AT(struct tgittins_params, f)
static const struct dl_opt tgittins_opts[] = {
	{DL_OPT_FILE, 0, "distribution", "FILE", "GPU-time samples (column duration)",
	 AT(distribution), .def_doc = "the trace"},
	{DL_OPT_DOUBLE, 0, "delta", "S", "service quantum in GPU-seconds", AT(delta),
	 .flags = DL_OPTF_GT, .def = "3250"},
	{DL_OPT_END},
};
#undef AT

/* tiresias-gittins' index: from --distribution, else learned from the trace */
static struct dl_gittins *gittins_for(struct dl_sim *s, const struct tgittins_params *p,
				      struct dl_err *err)
{
	if (p->distribution)
		return dl_gittins_load(p->distribution, NULL, p->delta, DL_GITTINS_EXACT, err);
	const struct dl_sim_trace *t = dl_sim_trace_of(s);
	if (!t->n)
		return NULL; /* an empty trace needs none */
	/* every job's GPU-seconds */
	double *v = xcalloc(t->n, sizeof(*v));
	for (size_t i = 0; i < t->n; i++)
		v[i] = (double)t->jobs[i].work / DL_TICKS_PER_SECOND * (double)t->jobs[i].gpus;
	struct dl_gittins *g = dl_gittins_new(v, t->n, p->delta, DL_GITTINS_EXACT, err);
	free(v);
	return g;
}

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	const struct tgittins_params *p = params;
	struct dl_sq_setup u = {.kind = DL_SQ_TGITTINS};
	if (dl_mlfq_from_params(&u.queues, &p->mlfq, DL_MLFQ_TIRESIAS_QUEUES, err) < 0)
		return NULL;
	u.gittins = gittins_for(s, p, err);
	if (!u.gittins && dl_sim_njobs(s)) {
		dl_mlfq_release(&u.queues);
		return NULL;
	}
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_tiresias_gittins = {
	.name = "tiresias-gittins",
	.summary = "Tiresias 2D-Gittins: MLFQ, Gittins index in a queue",
	.opts = tgittins_opts,
	.params_size = sizeof(struct tgittins_params),
	.create = create,
	DL_SQ_CALLBACKS,
	.shared = {{dl_mlfq_opts, offsetof(struct tgittins_params, mlfq), dl_sq_tiresias_defaults,
		    dl_sq_mlfq_check}},
};
