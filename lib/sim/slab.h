/*
 * slab.h: per-job storage a policy sizes itself, indexed by the job's slot
 * (policy.h: small, below dl_sim_slots(), the job's from arrival to
 * completion), after git's commit-slab. A policy keeps its private per-job
 * state here instead of in the engine's job struct:
 *
 *   struct las_job { int64_t key; int flag; };
 *   DL_SLAB_DEFINE(las_jobs, struct las_job)      // struct las_jobs, las_jobs_at()
 *   struct las_jobs jobs = {0};
 *   las_jobs_at(&jobs, j->slot)->flag = 1;      // grows (zeroed) on demand
 *   las_jobs_release(&jobs);
 *
 * An entry is zero when first reached and keeps whatever the last job in
 * that slot left: reset it when a job arrives. Pointers are valid until the
 * next _at() of a slot not reached yet (it may move the array).
 */
#ifndef DL_SIM_SLAB_H
#define DL_SIM_SLAB_H

#include <stddef.h>
#include <stdlib.h>

/* the array v of *n entries of size bytes, grown to at least need (zeroed) */
void *dl_slab_grow(void *v, size_t *n, size_t need, size_t size);

#define DL_SLAB_DEFINE(name, type)                                                   \
	struct name {                                                                \
		type *v;                                                             \
		size_t n;                                                            \
	};                                                                           \
	static inline type *name##_at(struct name *sl, size_t slot)                  \
	{                                                                            \
		if (slot >= sl->n)                                                   \
			sl->v = dl_slab_grow(sl->v, &sl->n, slot + 1, sizeof(type)); \
		return &sl->v[slot];                                                 \
	}                                                                            \
	static inline void name##_release(struct name *sl)                           \
	{                                                                            \
		free(sl->v);                                                         \
		sl->v = NULL;                                                        \
		sl->n = 0;                                                           \
	}

#endif
