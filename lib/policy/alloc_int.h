/*
 * alloc_int.h: what the allocation solvers share (lib/policy only): the
 * pieces of alloc.c that the re-solve session (alloc_session.c) builds its
 * warm LPs from, so both follow one definition of classes of identical jobs,
 * pair candidates, realised pairs and objectives. See alloc.c for each.
 * Nothing here owns memory beyond what its comment says.
 */
#ifndef DL_POLICY_ALLOC_INT_H
#define DL_POLICY_ALLOC_INT_H

#include "core/strbuf.h"
#include "policy/alloc.h"

/*
 * Packed and merged, the LP has a column per pair of classes and type. It is
 * solved as it is up to max(candidate pairs, 4 per job, this many) pairs of
 * classes, beyond that per job on the candidate pairs (see dl_alloc_solve):
 */
#define DL_ALLOC_PAIR_CLASSES_MIN 1024
size_t alloc_pair_budget(size_t candidates, size_t m);

/* does the policy merge identical jobs (opts.per_job aside)? */
int alloc_merges(const struct dl_alloc_opts *o);
/* sb = the bytes of every field of j the policy's LP reads (equal keys: identical jobs) */
void alloc_job_key(struct strbuf *sb, const struct dl_alloc_problem *p,
		   const struct dl_alloc_job *j, enum dl_alloc_policy policy, int pack);
/* Gandiva's test for model classes ca, cb with alone throughputs ta, tb (> 1: share) */
double alloc_pair_score(const struct dl_alloc_problem *p, size_t ca, size_t cb, const double *ta,
			const double *tb);
/* pr->tput_a, tput_b (allocated, ntypes each) = the pair rates of classes ca and cb */
void alloc_pair_rates(const struct dl_alloc_problem *p, size_t ca, size_t cb,
		      struct dl_alloc_pair *pr);
/* a's rate beside b equals the partner rate in b's row, for every pair and type */
int alloc_pairs_symmetric(const struct dl_alloc_problem *p);
/*
 * From a solution of the merged LP (q: one job per class, with its count;
 * cls[i]: job i's class; qr: x per class, pairs of classes with their time)
 * fill res->pairs and res->px with pairs of p's jobs (res->x is the caller's).
 */
void alloc_realize_pairs(const struct dl_alloc_problem *p, const struct dl_alloc_problem *q,
			 const size_t *cls, const struct dl_alloc_result *qr,
			 struct dl_alloc_result *res);
/* the policy's objective on an allocation (*what: its name) */
double alloc_evaluate(const struct dl_alloc_problem *p, const struct dl_alloc_opts *o,
		      const struct dl_alloc_result *res, const char **what);
/* Gavel's normalisers for throughputs tput (prop) and for job j among m jobs (iso) */
double alloc_prop_of(const struct dl_alloc_problem *p, const double *tput);
double alloc_iso_of(const struct dl_alloc_problem *p, const struct dl_alloc_job *j, double m);
/* a solver value as a fraction: 0 below 1e-9, at most ub */
double alloc_clip(double v, double ub);
void alloc_free_pairs(struct dl_alloc_pair *pairs, size_t n);

#endif
