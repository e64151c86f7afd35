/*
 * policies.h: the built-in policies' ops, for the registry (registry.c).
 * Each is defined in its own file in lib/sim with its option table, params
 * struct and check beside its driver.
 */
#ifndef DL_SIM_POLICIES_H
#define DL_SIM_POLICIES_H

#include "sim/policy.h"

/* one line each (registry.c lists them in --help's order) */
extern const struct dl_sim_policy_ops dl_sim_fifo;
extern const struct dl_sim_policy_ops dl_sim_fifo_backfill;
extern const struct dl_sim_policy_ops dl_sim_sjf;
extern const struct dl_sim_policy_ops dl_sim_srtf;
extern const struct dl_sim_policy_ops dl_sim_las;
extern const struct dl_sim_policy_ops dl_sim_tiresias_las;
extern const struct dl_sim_policy_ops dl_sim_tiresias_gittins;
extern const struct dl_sim_policy_ops dl_sim_gavel;
extern const struct dl_sim_policy_ops dl_sim_gandiva;
extern const struct dl_sim_policy_ops dl_sim_themis;
extern const struct dl_sim_policy_ops dl_sim_dally;

#endif
