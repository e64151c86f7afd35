/*
 * registry.c: the simulator's policies, in the order --help lists them.
 * Adding a policy (policy.h is its author's page): its file in lib/sim (ops,
 * option table, params struct, check and create beside its driver), its
 * line here and in policies.h, its section in man/dlsched-simulate.1.scd;
 * nothing in cmd/ (simulate's --help, options of the man page, completions
 * and option parsing follow the registry).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/policies.h"

/* one line each, so that policies added side by side merge cleanly */
/* clang-format off */
static const struct dl_sim_policy_ops *const all[] = {
	&dl_sim_fifo,
	&dl_sim_fifo_backfill,
	&dl_sim_sjf,
	&dl_sim_srtf,
	&dl_sim_las,
	&dl_sim_tiresias_las,
	&dl_sim_tiresias_gittins,
	&dl_sim_gavel,
	&dl_sim_gandiva,
	&dl_sim_themis,
	&dl_sim_dally,
};
/* clang-format on */

const struct dl_sim_policy_ops *dl_sim_policy_find(const char *name)
{
	for (size_t i = 0; i < DL_ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

const struct dl_sim_policy_ops *const *dl_sim_policies(size_t *n)
{
	*n = DL_ARRAY_SIZE(all);
	return all;
}

void *dl_sim_params_new(const struct dl_sim_policy_ops *ops)
{
	if (!ops->params_size)
		return NULL;
	char *p = xcalloc(1, ops->params_size);
	const struct dl_opt *bad;
	/* the tables' defaults parse (the option parser checks them at every run) */
	if (ops->opts)
		dl_opt_set_defaults(ops->opts, p, &bad);
	for (size_t g = 0; g < DL_SIM_MAX_SHARED; g++)
		if (ops->shared[g].opts)
			dl_opt_set_defaults(ops->shared[g].opts, p + ops->shared[g].at, &bad);
	return p;
}

int dl_sim_params_set(const struct dl_sim_policy_ops *ops, void *params, const char *name,
		      const char *value)
{
	const struct dl_opt *tables[1 + DL_SIM_MAX_SHARED] = {ops->opts};
	size_t at[1 + DL_SIM_MAX_SHARED] = {0};
	for (size_t g = 0; g < DL_SIM_MAX_SHARED; g++) {
		tables[1 + g] = ops->shared[g].opts;
		at[1 + g] = ops->shared[g].at;
	}
	for (size_t t = 0; t < 1 + DL_SIM_MAX_SHARED; t++)
		for (const struct dl_opt *o = tables[t]; o && o->type != DL_OPT_END; o++)
			if (!strcmp(o->name, name))
				return dl_opt_store(o, (char *)params + at[t], value) ? -1 : 0;
	return 1;
}

int dl_sim_params_check(const struct dl_sim_policy_ops *ops, const void *params, struct dl_err *err)
{
	for (size_t g = 0; g < DL_SIM_MAX_SHARED; g++)
		if (ops->shared[g].check &&
		    ops->shared[g].check((const char *)params + ops->shared[g].at, err) < 0)
			return -1;
	return ops->check ? ops->check(params, err) : 0;
}
