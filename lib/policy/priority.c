/* priority.c: priority policies (see priority.h) */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/common.h"
#include "core/num.h"
#include "core/rsort.h"
#include "policy/priority.h"

static const char *const policy_names[DL_POLICY_COUNT] = {
	"fifo", "sjf", "srtf", "las", "2d-las", "gittins", "2d-gittins", "ftf",
};

int dl_policy_parse(const char *s, enum dl_policy *out)
{
	for (int i = 0; i < DL_POLICY_COUNT; i++) {
		if (!strcmp(s, policy_names[i])) {
			*out = (enum dl_policy)i;
			return 0;
		}
	}
	return -1;
}

const char *dl_policy_at(size_t i)
{
	return i < DL_POLICY_COUNT ? policy_names[i] : NULL;
}

const char *dl_policy_name(enum dl_policy p)
{
	return (unsigned)p < DL_POLICY_COUNT ? policy_names[p] : "?";
}

int dl_policy_has_queues(enum dl_policy p)
{
	return (unsigned)p < DL_POLICY_COUNT && p != DL_POLICY_FTF;
}

int dl_policy_is_2d(enum dl_policy p)
{
	return p == DL_POLICY_LAS2D || p == DL_POLICY_GITTINS2D;
}

static int discretised(const struct dl_prio_config *c)
{
	return c->mlfq && c->mlfq->nqueues > 1;
}

unsigned dl_prio_needs(const struct dl_prio_config *c)
{
	unsigned need = 0;
	switch (c->policy) {
	case DL_POLICY_FIFO:
		break;
	case DL_POLICY_SJF:
		need |= DL_NEED_DURATION;
		break;
	case DL_POLICY_SRTF:
		need |= DL_NEED_REMAINING;
		break;
	case DL_POLICY_LAS:
	case DL_POLICY_GITTINS:
		need |= DL_NEED_EXECUTED;
		break;
	case DL_POLICY_LAS2D:
	case DL_POLICY_GITTINS2D:
		need |= DL_NEED_ATTAINED;
		break;
	case DL_POLICY_FTF:
		need |= DL_NEED_DURATION | DL_NEED_REMAINING;
		if (c->cluster_gpus > 0)
			need |= DL_NEED_GPUS;
		break;
	default:
		break;
	}
	/* queues are on executed seconds, or attained GPU-seconds for the 2d policies */
	if (discretised(c))
		need |= dl_policy_is_2d(c->policy) ? DL_NEED_ATTAINED : DL_NEED_EXECUTED;
	if (discretised(c) && c->mlfq->starvation > 0)
		need |= DL_NEED_EXECUTED | DL_NEED_WAITING;
	if (c->weights)
		need |= DL_NEED_WEIGHT;
	return need;
}

int dl_prio_check(const struct dl_prio_config *c, struct dl_err *err)
{
	if ((unsigned)c->policy >= DL_POLICY_COUNT)
		return dl_err_set(err, DL_EXIT_USAGE, "unknown policy %d", (int)c->policy);
	if ((c->policy == DL_POLICY_GITTINS || c->policy == DL_POLICY_GITTINS2D) && !c->gittins)
		return dl_err_set(err, DL_EXIT_USAGE,
				  "policy %s needs a job-size distribution (--distribution or "
				  "--learn-from)",
				  dl_policy_name(c->policy));
	if (c->mlfq && (c->mlfq->nqueues > 1 || c->mlfq->starvation > 0) &&
	    !dl_policy_has_queues(c->policy))
		return dl_err_set(err, DL_EXIT_USAGE,
				  "policy %s has no queues (--queues, --thresholds and "
				  "--starvation apply to every policy but ftf)",
				  dl_policy_name(c->policy));
	if (c->mlfq && c->mlfq->starvation > 0 && c->mlfq->nqueues < 2)
		return dl_err_set(err, DL_EXIT_USAGE,
				  "starvation promotion needs more than one queue");
	if (!isfinite(c->now))
		return dl_err_set(err, DL_EXIT_USAGE, "bad decision time");
	if (!isfinite(c->cluster_gpus) || c->cluster_gpus < 0)
		return dl_err_set(err, DL_EXIT_USAGE, "bad cluster size");
	return 0;
}

/* +1: larger priority values are better; -1: smaller are better */
static int better_high(enum dl_policy p)
{
	return p == DL_POLICY_GITTINS || p == DL_POLICY_GITTINS2D || p == DL_POLICY_FTF;
}

void dl_prio_eval(const struct dl_prio_config *c, struct dl_prio_job *j, size_t njobs)
{
	double v = 0;
	switch (c->policy) {
	case DL_POLICY_FIFO:
		v = j->submit;
		break;
	case DL_POLICY_SJF:
		v = j->duration;
		break;
	case DL_POLICY_SRTF:
		v = j->remaining;
		break;
	case DL_POLICY_LAS:
		v = j->executed;
		break;
	case DL_POLICY_LAS2D:
		v = j->attained;
		break;
	case DL_POLICY_GITTINS:
		v = dl_gittins_index(c->gittins, j->executed);
		break;
	case DL_POLICY_GITTINS2D:
		v = dl_gittins_index(c->gittins, j->attained);
		break;
	case DL_POLICY_FTF: {
		double ideal = j->duration;
		if (c->cluster_gpus > 0 && j->gpus > 0 && njobs) {
			/* Themis: the job's 1/n share of the cluster, at most its demand */
			double share = c->cluster_gpus / (double)njobs;
			double got = j->gpus < share ? j->gpus : share;
			ideal = j->duration * j->gpus / got;
		}
		double shared = c->now - j->submit + j->remaining;
		v = ideal > 0 ? shared / ideal : (shared > 0 ? INFINITY : 1.0);
		break;
	}
	default:
		break;
	}
	int high = better_high(c->policy);
	if (c->weights && j->weight > 0) {
		if (c->policy == DL_POLICY_FIFO)
			;
		else if (high)
			v *= j->weight;
		else
			v /= j->weight;
	}
	j->priority = v;
	j->id_is_int = j->id && dl_parse_int64(j->id, &j->id_int) == 0;
	if (c->policy == DL_POLICY_FIFO)
		/* heavier first, then by arrival (the tie-break after the key) */
		j->key = c->weights ? -j->weight : 0;
	else
		j->key = high ? -v : v;
	j->queue = 0;
	if (discretised(c)) {
		double service = dl_policy_is_2d(c->policy) ? j->attained : j->executed;
		j->queue = dl_mlfq_queue(c->mlfq, service);
		if (dl_mlfq_starving(c->mlfq, j->queue, j->executed, j->waiting))
			j->queue = 0;
		/* Tiresias: FIFO inside each queue of the discretised LAS */
		if (c->policy == DL_POLICY_LAS || c->policy == DL_POLICY_LAS2D)
			j->key = 0;
	}
}

/* integer ids first, numerically; then other ids bytewise */
static int cmp_id(const struct dl_prio_job *a, const struct dl_prio_job *b)
{
	if (a->id_is_int && b->id_is_int)
		return (a->id_int > b->id_int) - (a->id_int < b->id_int);
	if (a->id_is_int != b->id_is_int)
		return a->id_is_int ? -1 : 1;
	return strcmp(a->id ? a->id : "", b->id ? b->id : "");
}

static int cmp_double(double a, double b)
{
	/* NaN sorts last so the order stays total */
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

int dl_prio_cmp(const struct dl_prio_job *a, const struct dl_prio_job *b)
{
	int r;
	if (a->queue != b->queue)
		return a->queue < b->queue ? -1 : 1;
	if ((r = cmp_double(a->key, b->key)))
		return r;
	if ((r = cmp_double(a->submit, b->submit)))
		return r;
	if ((r = cmp_id(a, b)))
		return r;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/*
 * Sorting moves small records (the keys inline, so most comparisons touch no
 * job) rather than whole jobs, which stay where they are. The order is that of
 * dl_prio_cmp: an LSD radix sort on (queue, key, submit), mapped to integers
 * that compare as cmp_double does, then runs with equal keys sorted by id and
 * position with a comparison sort (the radix sort is stable, so equal records
 * stay in input order as they did under qsort's merge sort).
 */
struct sort_rec {
	uint64_t k[3]; /* submit, key, queue: least significant first */
	const struct dl_prio_job *job;
};

/* unsigned code with the order of cmp_double: -0 equals 0, NaN last */
static uint64_t double_code(double d)
{
	if (isnan(d))
		return UINT64_MAX;
	return dl_rsort_key(d == 0 ? 0.0 : d);
}

/* the rest of dl_prio_cmp once queue, key and submit are equal */
static int rec_tie_cmp(const void *pa, const void *pb)
{
	const struct sort_rec *a = pa, *b = pb;
	int r = cmp_id(a->job, b->job);
	if (r)
		return r;
	return (a->job->pos > b->job->pos) - (a->job->pos < b->job->pos);
}

/* sorts a (or tmp, as scratch) and returns the one holding the result */
static struct sort_rec *radix_sort(struct sort_rec *a, struct sort_rec *tmp, size_t n)
{
	for (int w = 0; w < 3; w++) { /* least significant word first */
		size_t off = offsetof(struct sort_rec, k) + (size_t)w * sizeof(a->k[0]);
		struct sort_rec *s = dl_rsort(a, tmp, n, sizeof(*a), off, 0);
		if (s != a) {
			tmp = a;
			a = s;
		}
	}
	return a;
}

size_t *dl_prioritize(const struct dl_prio_config *c, struct dl_prio_job *jobs, size_t n)
{
	size_t *order = xmalloc((n ? n : 1) * sizeof(*order));
	struct sort_rec *rec = xmalloc((n ? n : 1) * sizeof(*rec));
	struct sort_rec *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	for (size_t i = 0; i < n; i++) {
		dl_prio_eval(c, &jobs[i], n);
		rec[i].k[0] = double_code(jobs[i].submit);
		rec[i].k[1] = double_code(jobs[i].key);
		rec[i].k[2] = jobs[i].queue;
		rec[i].job = &jobs[i];
	}
	struct sort_rec *s = radix_sort(rec, tmp, n);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && s[j].k[0] == s[i].k[0] && s[j].k[1] == s[i].k[1] &&
		       s[j].k[2] == s[i].k[2])
			j++;
		if (j - i > 1)
			qsort(s + i, j - i, sizeof(*s), rec_tie_cmp);
		i = j;
	}
	for (size_t i = 0; i < n; i++) {
		order[i] = (size_t)(s[i].job - jobs);
		jobs[order[i]].rank = i + 1;
	}
	free(rec);
	free(tmp);
	return order;
}

int dl_prio_config_from_params(struct dl_prio_config *c, enum dl_policy policy,
			       const struct dl_mlfq_params *mp, const struct dl_gittins_params *gp,
			       struct dl_mlfq *mlfq, struct dl_gittins **git, struct dl_err *err)
{
	int is_git = policy == DL_POLICY_GITTINS || policy == DL_POLICY_GITTINS2D;
	c->policy = policy;
	*git = NULL;
	if (!is_git && (gp->distribution || gp->learn_from))
		return dl_err_set(err, DL_EXIT_USAGE,
				  "--distribution and --learn-from apply to gittins and 2d-gittins "
				  "only");
	if (gp->distribution && gp->learn_from)
		return dl_err_set(err, DL_EXIT_USAGE, "give either --distribution or --learn-from");
	if (dl_mlfq_from_params(mlfq, mp, 1, err) < 0) {
		err->code = DL_EXIT_USAGE;
		return -1;
	}
	c->mlfq = mlfq;
	if (gp->distribution)
		*git = dl_gittins_load(gp->distribution, gp->column, gp->delta,
				       (enum dl_gittins_arith)gp->arith, err);
	else if (gp->learn_from)
		*git = dl_gittins_load_trace(gp->learn_from, dl_policy_is_2d(policy), gp->delta,
					     (enum dl_gittins_arith)gp->arith, err);
	if ((gp->distribution || gp->learn_from) && !*git)
		return -1;
	c->gittins = *git;
	return 0;
}
