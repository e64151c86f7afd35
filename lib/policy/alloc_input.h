/*
 * alloc_input.h: building an allocation problem (alloc.h) from streams.
 *
 * - The jobs stream: id, gpus [, weight, model, throughput_TYPE...,
 *   steps, steps_done, elapsed, slo, entity]. A job's throughput on a type
 *   comes from its throughput_TYPE column when that is present and not
 *   empty, else from the throughputs table (lib/trace/throughputs.h) by
 *   (model, gpu_type, gpus). Pair throughputs come from the table's partner
 *   rows; a pair given in one order serves both orders.
 * - The GPU types, counts and prices of a cluster SPEC (any form of
 *   dl_cluster_load, lib/cluster/cluster.h).
 *
 * Ownership: the functions fill a caller's problem (alloc.h owns it from
 * then on, dl_alloc_problem_free releases it); the throughputs table is
 * only read.
 */
#ifndef DL_POLICY_ALLOC_INPUT_H
#define DL_POLICY_ALLOC_INPUT_H

#include "policy/alloc.h"
#include "table/table.h"
#include "trace/throughputs.h"

/*
 * Load a throughputs stream, or Gavel's throughputs JSON (a file of its shape,
 * dl_tputs_try_gavel_buf). A JSON file is at most DL_TPUTS_JSON_MAX bytes,
 * and a table without entries is an error ("FILE: no throughputs in it").
 */
int dl_alloc_load_throughputs(const char *path, enum dl_in_format fmt, struct dl_tputs *t,
			      struct dl_err *err);

/*
 * p must be initialised with its GPU types (dl_alloc_cluster_types); tt may
 * be NULL; entity_col names the column of the jobs' entities (NULL: "entity").
 */
int dl_alloc_read_jobs(struct dl_reader *r, const struct dl_tputs *tt, const char *entity_col,
		       struct dl_alloc_problem *p, struct dl_err *err);

/*
 * Jobs that arrive later (a re-solve session, alloc.h): make every (model,
 * gpus) of the table a class of p (p->class_model, class_gpus, in table
 * order, after those p has) with the pair throughputs between them, so a job
 * of that model and gpus can take dl_alloc_model_class() as its klass.
 */
void dl_alloc_model_classes(struct dl_alloc_problem *p, const struct dl_tputs *tt);
/* the class of (model, gpus), or -1 */
int dl_alloc_model_class(const struct dl_alloc_problem *p, const char *model, int gpus);

/* Initialise p with the GPU types, counts and prices of a cluster SPEC ... */
int dl_alloc_cluster_types(const char *spec, struct dl_alloc_problem *p, struct dl_err *err);
/* ... or of a loaded cluster (types without GPUs are left out); -1 if it has no GPUs */
struct dl_cluster;
int dl_alloc_problem_from_cluster(const struct dl_cluster *c, struct dl_alloc_problem *p,
				  struct dl_err *err);

/*
 * Apply "NAME=VALUE,NAME=VALUE" to GPU type costs (what = "costs") or entity
 * weights (what = "entity-weights"); errors name the option.
 */
int dl_alloc_set_costs(struct dl_alloc_problem *p, const char *list, struct dl_err *err);
int dl_alloc_set_entity_weights(struct dl_alloc_problem *p, const char *list, struct dl_err *err);

#endif
