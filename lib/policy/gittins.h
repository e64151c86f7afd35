/*
 * gittins.h: the Gittins index of a job from the distribution of job sizes.
 *
 * Tiresias (NSDI'19) orders jobs whose durations are unknown by the Gittins
 * index of their attained service a, for a service quantum Delta:
 *
 *     G(a) = P(S - a <= Delta | S > a) / E[min(S - a, Delta) | S > a]
 *
 * where S is a job's total service (seconds or GPU-seconds), known only as a
 * distribution: a file of samples (Tiresias' yarn-gput1000.csv) or the sizes
 * of the jobs that have already completed. A larger index means a higher
 * priority. Like the reference, values are scaled by 1e6 so they read as
 * "completions per mega-second of service" (299.701 rather than 0.000299701).
 *
 * Arithmetic (enum dl_gittins_arith), because the reference simulator
 * (SymbioticLab/Tiresias simulator/jobs.py, Python 2) does
 * not compute the textbook formula:
 *   TIRESIAS      the reference under Python 2, bit for bit: a table with one
 *                 value per sample d, computed at a = d - 1 and used for the
 *                 whole bin (previous sample, d]; the expectation sums the full
 *                 sample d (not d - a); the last sample always counts as
 *                 "not finished within Delta"; P rounded to 5 decimals, E
 *                 floor-divided when samples and Delta are integers (Python 2
 *                 `/` on ints) and rounded to 5, the index rounded to 4.
 *                 Attained service at or beyond the largest sample gives 0.
 *   TIRESIAS_PY3  the same table with true division (the reference under
 *                 Python 3; it differs from TIRESIAS in a few bins).
 *   EXACT         the formula above evaluated at the attained service itself
 *                 (no bins, no rounding, min(S - a, Delta) as written).
 *
 * Cost: dl_gittins_new sorts the samples and, for the table modes,
 * precomputes every bin (O(n log n)); dl_gittins_index is one binary search
 * (O(log n)) in every mode and allocates nothing, so a simulator may call it
 * for every job at every event. A struct dl_gittins is immutable after
 * creation: any number of readers may share it. There is no global state.
 *
 * Ownership: dl_gittins_new copies the samples; the caller frees the result
 * with dl_gittins_free.
 */
#ifndef DL_POLICY_GITTINS_H
#define DL_POLICY_GITTINS_H

#include <stddef.h>

#include "core/err.h"
#include "core/opt.h"

enum dl_gittins_arith {
	DL_GITTINS_TIRESIAS = 0,
	DL_GITTINS_TIRESIAS_PY3,
	DL_GITTINS_EXACT,
};

/* Tiresias' defaults: quantum Delta = 3250 (GPU-)seconds */
#define DL_GITTINS_DEFAULT_DELTA 3250.0

struct dl_gittins;

/*
 * Build from n >= 1 finite samples >= 0 (any order) and a quantum
 * delta > 0. Errors (exit 1): no samples, a negative or non-finite sample
 * (message names the sample's position), a bad delta.
 */
struct dl_gittins *dl_gittins_new(const double *samples, size_t n, double delta,
				  enum dl_gittins_arith arith, struct dl_err *err);

/*
 * Build from a table file (CSV or JSON Lines, gzip allowed, "-" = stdin) of
 * samples in column `column` (NULL means "duration", the column name of
 * Tiresias' yarn-gput*.csv). Errors name FILE:LINE.
 */
struct dl_gittins *dl_gittins_load(const char *path, const char *column, double delta,
				   enum dl_gittins_arith arith, struct dl_err *err);

/*
 * Learn the distribution from a jobs trace (id, submit, gpus, duration, ...):
 * each completed job's size, duration (gputime = 0) or duration x gpus
 * (gputime = 1). With a `state` column only rows whose state is completed,
 * pass, done or finished (any case) count; without one, every row does.
 */
struct dl_gittins *dl_gittins_load_trace(const char *path, int gputime, double delta,
					 enum dl_gittins_arith arith, struct dl_err *err);

/* The index (x 1e6) for attained service `attained`; 0 past the largest sample. */
double dl_gittins_index(const struct dl_gittins *g, double attained);

size_t dl_gittins_nsamples(const struct dl_gittins *g);
double dl_gittins_delta(const struct dl_gittins *g);
enum dl_gittins_arith dl_gittins_arith_of(const struct dl_gittins *g);

void dl_gittins_free(struct dl_gittins *g);

/*
 * The Gittins options of the commands that order jobs by a policy (prioritize,
 * advise): one option table (lib/core/opt.h) into struct dl_gittins_params.
 * dl_prio_config_from_params() (priority.h) loads what they name.
 */
struct dl_gittins_params {
	const char *distribution, *column, *learn_from;
	double delta;
	int arith; /* enum dl_gittins_arith */
};
extern const struct dl_opt dl_gittins_opts[];

/* "tiresias", "tiresias-py3", "exact"; 0 or -1 when unknown */
int dl_gittins_parse_arith(const char *s, enum dl_gittins_arith *out);
const char *dl_gittins_arith_name(enum dl_gittins_arith a);
/* the i-th name, NULL after the last (an option table's value list) */
const char *dl_gittins_arith_at(size_t i);

#endif
