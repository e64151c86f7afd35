/*
 * alloc_input.h: building an allocation problem (alloc.h) from streams.
 *
 * - The throughputs stream (dlsched-formats(5)): model, gpu_type, gpus,
 *   throughput [, partner, partner_throughput]; a row with a partner gives
 *   the model's steps/s while sharing its GPUs with the partner (same gpus),
 *   and the partner's. A pair given in one order serves both orders.
 * - The jobs stream: id, gpus [, weight, model, throughput_TYPE...,
 *   steps, steps_done, elapsed, slo, entity]. A job's throughput on a type
 *   comes from its throughput_TYPE column when that is present and not
 *   empty, else from the throughputs stream by (model, gpus, type).
 * - The GPU types and counts of a cluster SPEC, for the forms allocate
 *   needs: Gavel's "V:P:K" counts (v100, p100, k80) and the shorthand
 *   RACKSxNODESxGPUS[:TYPE] joined by ','.
 *
 * Ownership: dl_alloc_tputs_read() returns a table freed with
 * dl_alloc_tputs_free(). The problem functions fill a caller's problem
 * (alloc.h owns it from then on).
 */
#ifndef DL_POLICY_ALLOC_INPUT_H
#define DL_POLICY_ALLOC_INPUT_H

#include "policy/alloc.h"
#include "table/table.h"

struct dl_alloc_tputs;

int dl_alloc_tputs_read(struct dl_reader *r, struct dl_alloc_tputs **out, struct dl_err *err);
void dl_alloc_tputs_free(struct dl_alloc_tputs *tt);
/* steps/s of model on gpus GPUs of type alone, or NaN when unknown */
double dl_alloc_tputs_get(const struct dl_alloc_tputs *tt, const char *model, int gpus,
			  const char *type);

/* p must be initialised with its GPU types (dl_alloc_cluster_types); tt may be NULL */
int dl_alloc_read_jobs(struct dl_reader *r, const struct dl_alloc_tputs *tt,
		       struct dl_alloc_problem *p, struct dl_err *err);

/* Initialise p with the GPU types and counts of a cluster SPEC. */
int dl_alloc_cluster_types(const char *spec, struct dl_alloc_problem *p, struct dl_err *err);

/*
 * Apply "NAME=VALUE,NAME=VALUE" to GPU type costs (what = "costs") or entity
 * weights (what = "entity-weights"); errors name the option.
 */
int dl_alloc_set_costs(struct dl_alloc_problem *p, const char *list, struct dl_err *err);
int dl_alloc_set_entity_weights(struct dl_alloc_problem *p, const char *list, struct dl_err *err);

#endif
