/*
 * las.c: the las policy: least executed seconds first, preemptive,
 * re-evaluated at arrivals, completions and every --quantum seconds, with
 * the anti-thrash rule: a started or resumed job keeps its GPUs until its
 * restore is over and it has run --min-run seconds past it (the queues are
 * queueing.c's).
 */
#include "core/num.h"
#include "sim/queueing.h"

struct las_params {
	double quantum; /* seconds; 0: none */
	double min_run; /* seconds; 0: the quantum */
};

static const struct dl_opt las_opts[] = {
	{DL_OPT_SECONDS, 0, "quantum", "S",
	 "also re-rank every S seconds while jobs wait (0: at events only)",
	 DL_OPT_AT(struct las_params, quantum), .max = DL_SECONDS_MAX, .def = "300"},
	{DL_OPT_SECONDS, 0, "min-run", "S",
	 "a started or resumed job runs S seconds past its restore before it may be "
	 "preempted (0: one --quantum)",
	 DL_OPT_AT(struct las_params, min_run), .max = DL_SECONDS_MAX, .def = "0"},
	{DL_OPT_END},
};

/*
 * A tick every microsecond would take a pass per microsecond of a run that
 * lasts months: a quantum is 0 (none) or a second at least.
 */
static int check(const void *params, struct dl_err *err)
{
	const struct las_params *p = params;
	if (p->quantum > 0 && p->quantum < 1) {
		char q[DL_NUM_BUF];
		dl_fmt_double(q, p->quantum);
		return dl_err_set(err, DL_EXIT_USAGE,
				  "--quantum %s is shorter than 1 s (0: no quantum ticks)", q);
	}
	return 0;
}

static void *create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	(void)err;
	const struct las_params *p = params;
	struct dl_sq_setup u = {.kind = DL_SQ_LAS, .quantum = p->quantum, .min_run = p->min_run};
	return dl_sq_create(s, &u);
}

const struct dl_sim_policy_ops dl_sim_las = {
	.name = "las",
	.summary = "least attained seconds first, preemptive, every --quantum",
	.opts = las_opts,
	.params_size = sizeof(struct las_params),
	.check = check,
	.create = create,
	DL_SQ_CALLBACKS,
};
