/*
 * gen.h: synthetic workloads (trace gen), trace statistics and filters.
 *
 * dl_gen_new() .. dl_gen_next() .. dl_gen_free() generate o->jobs jobs one
 * at a time, in memory that does not depend on o->jobs (dl_gen() appends
 * them all to a jobset): Poisson arrivals (first job at 0, exponential gaps
 * of mean 3600/rate_per_hour s), a GPU count from a weighted mix, a duration
 * from a named distribution, and optionally a model (uniform over the models
 * of a throughputs table that run on that many reference GPUs; steps =
 * duration x throughput), a user, a VC and a priority weight from a mix. Durations are stratified
 * by default: the n jobs take one random quantile from each of the n strata [k/n, (k+1)/n), in a
 * pseudo-random order (a keyed permutation, computed per job), so a trace of any size follows the
 * distribution without sampling noise in its percentiles; o->iid = 1 draws independent quantiles
 * instead. Every random choice has its own generator stream derived from
 * the seed, so e.g. changing the duration distribution does not move the
 * arrival times. Same options and seed: identical jobs. A generated job
 * outside the jobs stream's limits (dl_job_check: a submit time past 1e10 s
 * when --jobs is large and the rate low) is an error.
 *
 * Nothing here keeps state between calls; the caller owns every array it
 * passes in and the jobset owns what is generated.
 */
#ifndef DL_TRACE_GEN_H
#define DL_TRACE_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/strmap.h"
#include "cluster/netcost.h"
#include "trace/jobs.h"
#include "trace/throughputs.h"

#define DL_PHILLY_NQ 2001
/* quantiles k/2000 of the Philly run-time sample (philly_dist.c) */
extern const double dl_philly_quantiles[DL_PHILLY_NQ];

enum dl_dur_dist {
	DL_DUR_PHILLY,	  /* empirical Philly run times (inverse CDF of the quantile table) */
	DL_DUR_GAVEL,	  /* 60*10^U(1.5,3) with p = 0.8, else 60*10^U(3,4) (Gavel's generator) */
	DL_DUR_EXP,	  /* exponential with mean `mean` */
	DL_DUR_LOGNORMAL, /* exp(mu + sigma N(0,1)) */
	DL_DUR_SAMPLES,	  /* uniform draw from `samples` (bootstrap) */
};

struct dl_gen_opts {
	uint64_t seed;
	int64_t jobs;
	double rate_per_hour; /* arrivals per hour (> 0) */
	/* GPU-count mix: gpus[i] with weight w[i] (weights need not sum to 1) */
	const int64_t *mix_gpus;
	const double *mix_w;
	size_t nmix;
	enum dl_dur_dist dist;
	double mean;	       /* exponential */
	double mu, sigma;      /* lognormal */
	const double *samples; /* DL_DUR_SAMPLES */
	size_t nsamples;
	const struct dl_tputs *tputs; /* NULL: no model column */
	const char *ref_gpu_type;     /* NULL = "v100" */
	int64_t users, vcs;	      /* 0 = no such column; else names user1.., vc1.. */
	int iid; /* 1: independent duration quantiles; 0: stratified (see dl_gen) */
	/* priority weights: weight_v[i] with probability weight_w[i] (normalised); none: no column
	 */
	const double *weight_v, *weight_w;
	size_t nweights;
	/*
	 * network-sensitive models (trace gen --network-heavy, --preset dally):
	 * with net_share >= 0, each job's model is drawn from net's table: with
	 * probability net_share a network-heavy one (sensitivity >= DL_GEN_HEAVY),
	 * else a light one, uniformly inside the group (own generator stream).
	 * net_share < 0 (and net NULL): no such draw. Not with tputs.
	 */
	const struct dl_net_models *net;
	double net_share;
};

/* the sensitivity from which a model counts as network-heavy (netcost.h's s) */
#define DL_GEN_HEAVY 0.25
/* --preset dally's GPU mix: Helios-like (median 1, mean 3.64; Helios: 1 and 3.716) */
extern const int64_t dl_gen_dally_mix_gpus[5];
extern const double dl_gen_dally_mix_w[5];

/* the default (Philly-like) GPU mix used by Gavel's generator: 1:0.7 2:0.1 4:0.15 8:0.05 */
extern const int64_t dl_gen_default_mix_gpus[4];
extern const double dl_gen_default_mix_w[4];

/*
 * trace gen --preset: a published generator's choices, one row each, which
 * the command applies where the user left the choice open (an explicit
 * --duration, --gpus or --network-heavy wins):
 *   none   nothing
 *   gavel  Gavel's continuous traces: its durations, the default GPU mix,
 *          models from a throughputs table (required)
 *   dally  Dally's mixed workload: Philly durations, the Helios-like gang
 *          mix, models from the network cost table, half of them
 *          network-heavy; a gang mix, so not with a single-GPU trace
 */
struct dl_gen_preset {
	const char *name;
	const char
		*duration; /* the duration distribution it implies (trace gen's syntax), or NULL */
	const int64_t *mix_gpus; /* its GPU mix (nmix entries), or NULL */
	const double *mix_w;
	size_t nmix;
	int needs_tputs;  /* models come from a throughputs table, which must be given */
	double net_share; /* >= 0: models from the network cost table, this share heavy */
	int gangs;	  /* about gangs: refuses a single-GPU trace */
};

/* the i-th preset ("none" first), NULL after the last */
const struct dl_gen_preset *dl_gen_preset_at(size_t i);
/* its name (an option table's value list), NULL after the last */
const char *dl_gen_preset_name_at(size_t i);

/* rounds of the Feistel permutation that orders the strata (gen.c) */
#define DL_GEN_PERM_ROUNDS 4

/* a generator in progress (gen.c); borrows everything o points to */
struct dl_gen {
	struct dl_gen_opts o;
	const char *ref;
	double *cum;	      /* cumulative mix weights */
	double *wcum;	      /* cumulative priority-weight probabilities */
	const char ***models; /* per mix entry */
	size_t *nmodels;
	const char **heavy, **light; /* net: model names by group (borrowed from net) */
	size_t nheavy, nlight;
	struct dl_rng r_net;
	double *sorted; /* the samples, ascending */
	struct dl_rng r_arr, r_gpu, r_dur, r_model, r_user, r_vc, r_weight;
	double t, gap_mean;
	int64_t k;			       /* jobs generated */
	uint64_t perm_key[DL_GEN_PERM_ROUNDS]; /* the stratified order's permutation */
	int perm_bits;
	char idbuf[32], ubuf[32], vbuf[32]; /* the strings of the last job */
};

/* NULL with *err set on bad options */
struct dl_gen *dl_gen_new(const struct dl_gen_opts *o, struct dl_err *err);
/* declare the optional columns the jobs use (user, vc, model, steps) */
void dl_gen_use_columns(const struct dl_gen *g, struct dl_jobset *js);
/* 1 = the next job in *j (its strings valid until the next call), 0 = done, -1 = error */
int dl_gen_next(struct dl_gen *g, struct dl_job *j, struct dl_err *err);
void dl_gen_free(struct dl_gen *g);

/* mean duration of the distribution (for --load) */
double dl_gen_mean_duration(const struct dl_gen_opts *o);
/* mean GPU count of the mix */
double dl_gen_mean_gpus(const struct dl_gen_opts *o);
int dl_gen(struct dl_jobset *js, const struct dl_gen_opts *o, struct dl_err *err);

/* ---- filters ---- */

struct dl_trace_filter {
	int has_since, has_until;
	double since, until;		  /* keep since <= submit < until */
	int64_t min_gpus, max_gpus;	  /* 0 = no bound */
	const char *vcs, *users, *states; /* comma-separated lists, NULL = any */
	int64_t limit;			  /* < 0 = no limit; applied last */
};

#define DL_TRACE_FILTER_INIT                           \
	{                                              \
		0, 0, 0, 0, 0, 0, NULL, NULL, NULL, -1 \
	}

/* Keep the jobs that pass, in order; returns the number removed. */
size_t dl_jobset_filter(struct dl_jobset *js, const struct dl_trace_filter *f);
/* Add delta to every submit time. */
void dl_jobset_shift(struct dl_jobset *js, double delta);

/* ---- statistics ---- */

struct dl_stats_vc {
	char *vc; /* owned by the statistics */
	size_t jobs;
	double gpu_time, mean_duration, p50_duration;
};

struct dl_trace_stats {
	size_t jobs;
	double first_submit, last_submit, span, rate_per_hour;
	double gpus_mean;
	int64_t *mix_gpus; /* distinct GPU counts, ascending */
	size_t *mix_count;
	size_t nmix;
	double dur_mean, dur_min, dur_p25, dur_p50, dur_p75, dur_p90, dur_p99, dur_max;
	double gt_total, gt_mean, gt_p50, gt_p90, gt_p99;
	struct dl_stats_vc *vc; /* by name; empty when no job has a vc */
	size_t nvc;
};

/*
 * Statistics of a stream of jobs, in bounded memory: dl_stats_acc_init(),
 * then dl_stats_acc_add() per job (or dl_stats_acc_read() for every row of a
 * reader), then dl_stats_acc_finish(), which fills *st and frees the
 * accumulator (dl_stats_acc_free() frees one that is not finished). It keeps
 * 16 bytes per job (duration and GPU time; 20 once a job has a VC: its
 * index) plus one entry per VC and per distinct GPU count; finishing sorts in
 * place with one temporary array of 8 bytes per job, so the peak is 24 bytes
 * per job (plus an eighth while the arrays grow). Sums are taken in input
 * order, so the result equals dl_trace_stats_compute() on the same jobs.
 */
struct dl_stats_acc {
	size_t n, cap;
	double *dur, *gt;
	uint32_t *vci; /* VC id per job (0 = none); NULL until a job has a VC */
	double gsum, dur_sum, gt_sum, first, last;
	struct strmap vc_index; /* name -> VC id (1-based) */
	struct dl_stats_vc *vc; /* by id - 1; sums until the end */
	size_t nvc, vc_alloc;
	int64_t *mix_keys; /* open addressing: GPU count or -1 */
	size_t *mix_counts, mix_cap, nmix;
};

void dl_stats_acc_init(struct dl_stats_acc *a);
void dl_stats_acc_add(struct dl_stats_acc *a, const struct dl_job *j);
/* every row of r (a jobs stream); 0 or -1 with "FILE:LINE: ..." */
int dl_stats_acc_read(struct dl_stats_acc *a, struct dl_reader *r, struct dl_err *err);
void dl_stats_acc_finish(struct dl_stats_acc *a, struct dl_trace_stats *st);
void dl_stats_acc_free(struct dl_stats_acc *a);

/* The statistics of a jobset (arrays owned by st; free with dl_trace_stats_free). */
void dl_trace_stats_compute(const struct dl_jobset *js, struct dl_trace_stats *st);
void dl_trace_stats_free(struct dl_trace_stats *st);
/* as rows scope,metric,value (scope "all" or "vc=NAME") */
void dl_trace_stats_write(const struct dl_trace_stats *st, struct dl_writer *w);
/* human-readable text */
void dl_trace_stats_text(const struct dl_trace_stats *st, struct strbuf *out);

#endif
