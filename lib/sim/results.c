/*
 * results.c: the results stream of a run, in place or on a writer thread
 * (contract in results.h).
 *
 * The ring: the engine (producer) fills slots at `head`, publishes them by
 * setting `shown` under the mutex every RING_BATCH rows, and reuses a slot
 * only after the writer thread (consumer) has said, by `done`, that it is
 * through with it. Both counters only grow (slot = counter % RING_ROWS).
 * Everything shared is read and written under the mutex, so the mutex alone
 * orders the slots' contents between the threads; the rows themselves are
 * filled and formatted outside it.
 */
#include "sim/results.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

/*
 * 8192 rows of 128 bytes (struct dl_sim_result: a megabyte, about the
 * cache the cores share), 8 batches, so that neither side waits on the other's every
 * batch. A batch of 1024 makes the threads meet about 1,000 times in a
 * million rows: each meeting may wake the writer thread (a system call on
 * the simulating one), which at 256 a batch showed in its profile.
 */
#define RING_ROWS  8192
#define RING_BATCH 1024

enum {
	RC_ID,
	RC_SUBMIT,
	RC_GPUS,
	RC_DURATION,
	RC_START,
	RC_END,
	RC_JCT,
	RC_QDELAY,
	RC_RUNTIME,
	RC_PREEMPT,
	RC_MIGRATE,
	RC_TIER,
	RC_SLOWDOWN,
	RC_TYPE,
	RC_POLICY,
	RC_RHO,
	RC_COMM,
	RC_REJECTED,
	RC_OCCUPIED,
	RC_N
};

/* occupied_gpu_s last: it came after the others, and readers by position keep theirs */
/* clang-format off */
static const char *const result_cols[RC_N] = {
	"id",       "submit",      "gpus",     "duration",    "start",      "end",
	"jct",      "queue_delay", "run_time", "preemptions", "migrations", "tier",
	"slowdown", "gpu_type",    "policy",   "rho",         "comm_overhead_s",
	"rejected", "occupied_gpu_s",
};
/* clang-format on */

struct dl_sim_results {
	/* formatting: the writer thread's (or the caller's, in place) alone */
	struct dl_writer *w;
	const struct dl_cluster *cluster;
	const char *policy;
	dl_tick origin;
	size_t *type_len, policy_len, tier_len[DL_NTIERS]; /* lengths of names the rows repeat */
	/*
	 * The same names as CSV text (dl_csv_put), made once for result lines:
	 * entry t for GPU type t, ntypes + k for tier k, ntypes + DL_NTIERS for
	 * the policy; the text is at csv.buf + off.
	 */
	struct strbuf csv;
	struct csv_name {
		size_t off, len;
	} * csv_name;
	/* slowdowns repeat (one per model, size and tier): their text, direct-mapped */
	struct {
		uint64_t bits;
		char text[DL_NUM_BUF];
		size_t len;
	} slow[64];

	/* in place: the row being filled */
	struct dl_sim_result one;

	/* threaded */
	int threaded;
	struct dl_sim_result *ring; /* RING_ROWS */
	size_t head;		    /* producer: rows filled */
	size_t room;		    /* producer: its last look at `done` */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more, freed; /* for the writer thread, for the producer */
	/* under mu */
	size_t shown;	    /* rows published to the writer thread */
	size_t done;	    /* rows the writer thread is through with */
	int ending;	    /* no rows beyond shown will come */
	int thread_waits;   /* the writer thread sleeps on `more` */
	int producer_waits; /* the producer sleeps on `freed` */
	int write_errno;    /* the writer thread's: errno of its first write error */
};

void dl_sim_results_columns(struct dl_writer *w)
{
	dl_writer_set_columns(w, result_cols, RC_N);
}

/* ---- formatting (the writer thread's, or in place) ---- */

/* v's text (12 digits) and its length in *len */
static const char *slowdown_text(struct dl_sim_results *r, double v, size_t *len)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	size_t k = (size_t)((b ^ (b >> 23) ^ (b >> 41)) % DL_ARRAY_SIZE(r->slow));
	if (r->slow[k].bits != b || !r->slow[k].text[0]) {
		r->slow[k].len = (size_t)dl_fmt_double_prec(r->slow[k].text, v, 12);
		r->slow[k].bits = b;
	}
	*len = r->slow[k].len;
	return r->slow[k].text;
}

/* the CSV text of a string field at p (dl_csv_put): its end */
static char *put_str(char *p, const char *v, size_t len)
{
	return p + dl_csv_put(p, v, len);
}

/* name k of r->csv_name at p: its end */
static char *put_name(const struct dl_sim_results *r, char *p, size_t k)
{
	memcpy(p, r->csv.buf + r->csv_name[k].off, r->csv_name[k].len);
	return p + r->csv_name[k].len;
}

/* a name's CSV text into r->csv (setup) */
static void add_csv_name(struct dl_sim_results *r, size_t k, const char *name)
{
	size_t len = strlen(name);
	sb_grow(&r->csv, 2 * len + 2);
	r->csv_name[k].off = r->csv.len;
	r->csv_name[k].len = dl_csv_put(r->csv.buf + r->csv.len, name, len);
	r->csv.len += r->csv_name[k].len;
}

static const char *row_id(const struct dl_sim_result *x)
{
	return x->id ? x->id : x->id_short;
}

/* a copy of len (<= 16) bytes at `at`, earlier in the same line, to p: its end */
static inline char *copy_text(char *p, const char *at, size_t len)
{
	uint64_t a, b; /* both read before either is written: `at` may run into p */
	memcpy(&a, at, 8);
	memcpy(&b, at + 8, 8);
	memcpy(p, &a, 8);
	memcpy(p + 8, &b, 8);
	return p + len;
}

/*
 * dl_fmt_micros of v at p (with room for DL_NUM_BUF bytes, as every field
 * of a line has), or, when v is `was`, whose text (len bytes) is at `at`
 * with 16 readable bytes, a copy of that text: the same bytes (the text is
 * a function of the value) for a tenth of the work. Returns the end.
 */
static inline char *micros_again(char *p, dl_tick v, dl_tick was, const char *at, size_t len)
{
	if (v == was && len <= 16)
		return copy_text(p, at, len);
	return p + dl_fmt_micros(p, v);
}

/* dl_fmt_micros(1000000), with the 16 bytes micros_again reads */
static const char one_second[16] = "1";

/*
 * A result row as one CSV line (dl_writer_line_begin): what result_row's
 * fields give set one by one, without the writer's work per field (a
 * million rows make this a tenth of a run). 0 when the writer wants fields.
 */
static int result_line(struct dl_sim_results *r, const struct dl_sim_result *x, double rho)
{
	struct dl_writer *w = r->w;
	size_t nt = r->cluster->ntypes, tier = nt + x->tier, type = (size_t)x->gpu_type;
	size_t room = 2 * x->id_len + 2 + r->csv_name[tier].len + r->csv_name[type].len +
		      r->csv_name[nt + DL_NTIERS].len + RC_N +
		      (RC_N - 2) * DL_NUM_BUF; /* (the slowdown may take two) */
	char *p0 = dl_writer_line_begin(w, room), *p = p0;
	if (!p)
		return 0;
	dl_tick jct = x->end - x->submit, sub = r->origin + x->submit;
	p = put_str(p, row_id(x), x->id_len);
	*p++ = ',';
	/*
	 * A row repeats its times: a job that never waited starts at its
	 * submit, and one that ran alone through runs and holds its GPUs for
	 * its duration. The same ticks are the same text: such a field is
	 * copied from the one before (see micros_again).
	 */
	char *t_sub = p;
	p += dl_fmt_micros(p, sub);
	size_t n_sub = (size_t)(p - t_sub);
	*p++ = ',';
	p += dl_fmt_int64(p, x->gpus);
	*p++ = ',';
	char *t_dur = p;
	p += dl_fmt_micros(p, x->duration);
	size_t n_dur = (size_t)(p - t_dur);
	*p++ = ',';
	p = micros_again(p, r->origin + x->start, sub, t_sub, n_sub);
	*p++ = ',';
	p += dl_fmt_micros(p, r->origin + x->end);
	*p++ = ',';
	char *t_jct = p;
	p = micros_again(p, jct, x->duration, t_dur, n_dur);
	size_t n_jct = (size_t)(p - t_jct);
	*p++ = ',';
	p += dl_fmt_micros(p, jct - x->executed);
	*p++ = ',';
	char *t_run = p;
	p = micros_again(p, x->executed, jct, t_jct, n_jct);
	size_t n_run = (size_t)(p - t_run);
	*p++ = ',';
	p += dl_fmt_int64(p, x->preemptions);
	*p++ = ',';
	p += dl_fmt_int64(p, x->migrations);
	*p++ = ',';
	p = put_name(r, p, tier);
	*p++ = ',';
	if (isfinite(x->slowdown)) {
		/* a number's text (digits, '.', 'e', signs): its CSV text as it is */
		size_t len;
		const char *t = slowdown_text(r, x->slowdown, &len);
		memcpy(p, t, len);
		p += len;
	}
	*p++ = ',';
	p = put_name(r, p, type);
	*p++ = ',';
	p = put_name(r, p, nt + DL_NTIERS);
	*p++ = ',';
	if (rho < 9e12) /* (1 when the job never waited) */
		p = micros_again(p, (dl_tick)llround(rho * 1e6), 1000000, one_second, 1);
	else if (isfinite(rho))
		p += dl_fmt_double(p, rho);
	*p++ = ',';
	/* (no network cost, the usual case, without a call to llround) */
	p += dl_fmt_micros(p, x->comm == 0 ? 0 : (dl_tick)llround(x->comm));
	*p++ = ',';
	*p++ = ','; /* rejected: empty */
	p = micros_again(p, x->occupied, x->executed, t_run, n_run);
	dl_writer_line_end(w, (size_t)(p - p0), RC_OCCUPIED + 1);
	dl_writer_end_row(w);
	return 1;
}

static void result_row(struct dl_sim_results *r, const struct dl_sim_result *x)
{
	struct dl_writer *w = r->w;
	dl_tick jct = x->end - x->submit;
	/*
	 * Finish-time fairness: the JCT against the job's ideal time alone, its
	 * duration. Six decimals, as times have: both the writer and report's
	 * reader then take their fast paths (17 round-trip digits cost report a
	 * third more time on a million rows).
	 */
	double rho = x->duration > 0 ? (double)jct / (double)x->duration : NAN;
	if (result_line(r, x, rho))
		return;
	dl_writer_strn(w, RC_ID, row_id(x), x->id_len);
	dl_writer_micros(w, RC_SUBMIT, r->origin + x->submit);
	dl_writer_int(w, RC_GPUS, x->gpus);
	dl_writer_micros(w, RC_DURATION, x->duration);
	dl_writer_micros(w, RC_START, r->origin + x->start);
	dl_writer_micros(w, RC_END, r->origin + x->end);
	dl_writer_micros(w, RC_JCT, jct);
	dl_writer_micros(w, RC_QDELAY, jct - x->executed);
	dl_writer_micros(w, RC_RUNTIME, x->executed);
	dl_writer_int(w, RC_PREEMPT, x->preemptions);
	dl_writer_int(w, RC_MIGRATE, x->migrations);
	dl_writer_strn(w, RC_TIER, dl_tier_name((enum dl_tier)x->tier), r->tier_len[x->tier]);
	size_t slen;
	if (isfinite(x->slowdown))
		dl_writer_auto(w, RC_SLOWDOWN, slowdown_text(r, x->slowdown, &slen));
	else
		dl_writer_null(w, RC_SLOWDOWN);
	dl_writer_strn(w, RC_TYPE, r->cluster->types[x->gpu_type].name, r->type_len[x->gpu_type]);
	dl_writer_strn(w, RC_POLICY, r->policy, r->policy_len);
	if (rho < 9e12)
		dl_writer_micros(w, RC_RHO, (dl_tick)llround(rho * 1e6));
	else
		dl_writer_double(w, RC_RHO, rho); /* beyond int64 micros; NaN: empty */
	dl_writer_micros(w, RC_COMM, (dl_tick)llround(x->comm));
	dl_writer_micros(w, RC_OCCUPIED, x->occupied);
	dl_writer_end_row(w);
}

/* a job that can never run: its row has no times and says why in `rejected` */
static void rejected_row(struct dl_sim_results *r, const struct dl_sim_result *x)
{
	struct dl_writer *w = r->w;
	dl_writer_strn(w, RC_ID, row_id(x), x->id_len);
	dl_writer_micros(w, RC_SUBMIT, r->origin + x->submit);
	dl_writer_int(w, RC_GPUS, x->gpus);
	dl_writer_micros(w, RC_DURATION, x->duration);
	dl_writer_str(w, RC_TYPE, x->type_name);
	dl_writer_strn(w, RC_POLICY, r->policy, r->policy_len);
	if (x->unknown_type) {
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "unknown GPU type '%s'", x->type_name);
		dl_writer_str(w, RC_REJECTED, sb.buf);
		sb_release(&sb);
	} else {
		dl_writer_str(w, RC_REJECTED, x->why);
	}
	if (x->occupied > 0) /* it held GPUs before it was given up */
		dl_writer_micros(w, RC_OCCUPIED, x->occupied);
	dl_writer_end_row(w);
}

static void write_row(struct dl_sim_results *r, const struct dl_sim_result *x)
{
	if (x->why)
		rejected_row(r, x);
	else
		result_row(r, x);
}

/* ---- the writer thread ---- */

static void *writer_main(void *arg)
{
	struct dl_sim_results *r = arg;
	size_t tail = 0;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (tail == r->shown && !r->ending) {
			r->thread_waits = 1;
			pthread_cond_wait(&r->more, &r->mu);
			r->thread_waits = 0;
		}
		if (tail == r->shown)
			break; /* ending, and every row written */
		/* a batch at most at a time, so that the producer gets room back soon */
		size_t end = r->shown - tail > RING_BATCH ? tail + RING_BATCH : r->shown;
		pthread_mutex_unlock(&r->mu);
		for (; tail < end; tail++)
			write_row(r, &r->ring[tail % RING_ROWS]);
		/* errno is this thread's: keep the first write error's for the caller's message */
		if (!r->write_errno && ferror(dl_writer_file(r->w)))
			r->write_errno = errno ? errno : EIO;
		pthread_mutex_lock(&r->mu);
		r->done = tail;
		if (r->producer_waits)
			pthread_cond_signal(&r->freed);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/*
 * Publish the rows filled so far (under mu). A sleeping writer thread is
 * woken only once half the ring waits for it: it then writes them in one
 * go while the producer fills the other half, and a million rows cost a
 * few hundred wake-ups (each a system call here) rather than one a batch.
 */
static void publish_locked(struct dl_sim_results *r)
{
	r->shown = r->head;
	if (r->thread_waits && r->head - r->done >= RING_ROWS / 2)
		pthread_cond_signal(&r->more);
	r->room = r->done;
}

static void publish(struct dl_sim_results *r)
{
	pthread_mutex_lock(&r->mu);
	publish_locked(r);
	pthread_mutex_unlock(&r->mu);
}

/* ---- the producer's side ---- */

struct dl_sim_results *dl_sim_results_new(struct dl_writer *w, const struct dl_cluster *c,
					  const char *policy, dl_tick origin, int threaded)
{
	struct dl_sim_results *r = xcalloc(1, sizeof(*r));
	r->w = w;
	r->cluster = c;
	r->policy = policy;
	r->origin = origin;
	size_t nt = c->ntypes;
	r->type_len = xcalloc(nt + 1, sizeof(*r->type_len));
	for (size_t t = 0; t < nt; t++)
		r->type_len[t] = strlen(c->types[t].name);
	r->policy_len = strlen(policy);
	for (int t = 0; t < DL_NTIERS; t++)
		r->tier_len[t] = strlen(dl_tier_name((enum dl_tier)t));
	sb_init(&r->csv);
	r->csv_name = xcalloc(nt + DL_NTIERS + 1, sizeof(*r->csv_name));
	for (size_t t = 0; t < nt; t++)
		add_csv_name(r, t, c->types[t].name);
	for (int t = 0; t < DL_NTIERS; t++)
		add_csv_name(r, nt + (size_t)t, dl_tier_name((enum dl_tier)t));
	add_csv_name(r, nt + DL_NTIERS, policy);
	if (!threaded)
		return r;
	r->ring = xcalloc(RING_ROWS, sizeof(*r->ring));
	if (pthread_mutex_init(&r->mu, NULL))
		goto in_place;
	if (pthread_cond_init(&r->more, NULL))
		goto no_more;
	if (pthread_cond_init(&r->freed, NULL))
		goto no_freed;
	if (pthread_create(&r->thread, NULL, writer_main, r))
		goto no_thread;
	r->threaded = 1;
	return r;
	/* no thread to be had: the same rows, written in place */
no_thread:
	pthread_cond_destroy(&r->freed);
no_freed:
	pthread_cond_destroy(&r->more);
no_more:
	pthread_mutex_destroy(&r->mu);
in_place:
	free(r->ring);
	r->ring = NULL;
	return r;
}

struct dl_sim_result *dl_sim_results_slot(struct dl_sim_results *r)
{
	if (!r->threaded)
		return &r->one;
	if (r->head - r->room == RING_ROWS) {
		/* full: hand everything over and wait for the writer thread to free a batch */
		pthread_mutex_lock(&r->mu);
		publish_locked(r);
		while (r->head - r->room == RING_ROWS) {
			r->producer_waits = 1;
			pthread_cond_wait(&r->freed, &r->mu);
			r->producer_waits = 0;
			r->room = r->done;
		}
		pthread_mutex_unlock(&r->mu);
	}
	return &r->ring[r->head % RING_ROWS];
}

void dl_sim_results_put(struct dl_sim_results *r)
{
	if (!r->threaded) {
		write_row(r, &r->one);
		return;
	}
	if (++r->head % RING_BATCH == 0)
		publish(r);
}

void dl_sim_results_end(struct dl_sim_results *r)
{
	if (!r)
		return;
	if (r->threaded) {
		pthread_mutex_lock(&r->mu);
		publish_locked(r);
		r->ending = 1;
		pthread_cond_signal(&r->more);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
		if (r->write_errno)
			errno = r->write_errno; /* as if written here: the caller's message names it
						 */
		pthread_cond_destroy(&r->freed);
		pthread_cond_destroy(&r->more);
		pthread_mutex_destroy(&r->mu);
		free(r->ring);
	}
	free(r->type_len);
	sb_release(&r->csv);
	free(r->csv_name);
	free(r);
}
