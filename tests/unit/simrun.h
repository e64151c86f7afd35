/*
 * simrun.h: what the tests that hold a driver's fast path against its
 * oracle share (test_gandiva, test_themis, test_sim_dally, test_sim_gavel):
 * a config with default placement, the bench's kind of trace generated in
 * memory, and a simulation whose
 * output streams are captured in memory for a byte comparison.
 *
 * Header-only, like tap.h: each test is one program. SANITIZED is 1 in an
 * ASan build (where an oracle run of 100,000 jobs takes minutes, so the
 * tests run fewer), else 0. A struct simrun owns its buffers: simrun_free.
 */
#ifndef DL_TEST_SIMRUN_H
#define DL_TEST_SIMRUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "table/table.h"
#include "trace/gen.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/*
 * `trace gen --seed SEED --jobs N --load LOAD` for a cluster of GPUS GPUs:
 * Philly durations and gang mix, Poisson arrivals. js is initialised here;
 * on failure the message is printed and -1 returned.
 */
static inline int simrun_philly(struct dl_jobset *js, uint64_t seed, int64_t n, double load,
				double gpus)
{
	struct dl_gen_opts o = {0};
	struct dl_err err = DL_ERR_INIT;
	o.seed = seed;
	o.jobs = n;
	o.mix_gpus = dl_gen_default_mix_gpus;
	o.mix_w = dl_gen_default_mix_w;
	o.nmix = 4;
	o.dist = DL_DUR_PHILLY;
	o.net_share = -1;
	o.rate_per_hour = load * gpus * 3600 / (dl_gen_mean_gpus(&o) * dl_gen_mean_duration(&o));
	dl_jobset_init(js);
	if (dl_gen(js, &o, &err)) {
		printf("# gen: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/*
 * A config that runs ops (with params; NULL: its defaults) on cluster cl over
 * jobs js (NULL: the caller sets cfg.trace), placing first fit with no costs:
 * the caller adds what its test needs.
 */
static inline struct dl_sim_config simrun_config(const struct dl_cluster *cl,
						 const struct dl_jobset *js,
						 const struct dl_sim_policy_ops *ops,
						 const void *params)
{
	struct dl_sim_config cfg = {0};
	cfg.cluster = cl;
	cfg.jobs = js;
	cfg.policy = ops;
	cfg.params = params;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	return cfg;
}

enum { SIMRUN_RESULTS, SIMRUN_EVENTS, SIMRUN_TIMELINE, SIMRUN_STREAMS };

struct simrun {
	char *buf[SIMRUN_STREAMS]; /* NULL for a stream not captured */
	size_t len[SIMRUN_STREAMS];
	struct dl_sim_stats st;
};

/*
 * Runs *cfg (the caller sets its cluster, jobs, policy, params, placement and
 * costs) with the streams whose bits are in want (1 << SIMRUN_RESULTS, ...)
 * written into out, as JSON Lines those whose bits are also in json, else as
 * CSV; cfg's writers are set and cleared here.
 * Returns dl_sim_run's status, printing its message on failure.
 */
static inline int simrun(struct dl_sim_config *cfg, unsigned want, unsigned json,
			 struct simrun *out)
{
	FILE *f[SIMRUN_STREAMS] = {NULL};
	struct dl_writer *w[SIMRUN_STREAMS] = {NULL};
	memset(out, 0, sizeof(*out));
	for (int k = 0; k < SIMRUN_STREAMS; k++)
		if (want & (1u << k)) {
			f[k] = open_memstream(&out->buf[k], &out->len[k]);
			w[k] = dl_writer_new(f[k], json & (1u << k) ? DL_OUT_JSON : DL_OUT_CSV);
		}
	cfg->results = w[SIMRUN_RESULTS];
	cfg->events = w[SIMRUN_EVENTS];
	cfg->timeline = w[SIMRUN_TIMELINE];
	struct dl_err err = DL_ERR_INIT;
	int rc = dl_sim_run(cfg, &out->st, &err);
	if (rc)
		printf("# run: %s\n", err.msg);
	for (int k = 0; k < SIMRUN_STREAMS; k++)
		if (w[k]) {
			dl_writer_finish(w[k]);
			dl_writer_free(w[k]);
			fclose(f[k]);
		}
	cfg->results = cfg->events = cfg->timeline = NULL;
	return rc;
}

static inline void simrun_free(struct simrun *o)
{
	for (int k = 0; k < SIMRUN_STREAMS; k++)
		free(o->buf[k]);
	memset(o, 0, sizeof(*o));
}

/*
 * Whether stream k of a and b holds the same bytes; if not, says on which
 * line they first part (a failing comparison of 100,000 rows needs a place
 * to look).
 */
static inline int simrun_same(const struct simrun *a, const struct simrun *b, int k)
{
	if (!a->buf[k] || !b->buf[k])
		return 0;
	if (a->len[k] == b->len[k] && !memcmp(a->buf[k], b->buf[k], a->len[k]))
		return 1;
	size_t line = 1;
	for (const char *x = a->buf[k], *y = b->buf[k]; *x && *x == *y; x++, y++)
		line += *x == '\n';
	printf("# first difference at line %zu\n", line);
	return 0;
}

/*
 * The data rows of CSV text whose column `name` (found in the header, so a
 * new column moves nothing) is not `value`; 0 when there is no such column.
 */
static inline size_t simrun_rows_not(const char *csv, const char *name, const char *value)
{
	size_t nl = strlen(name), vl = strlen(value);
	int col = 0;
	const char *c = csv;
	while (!(strncmp(c, name, nl) == 0 && (c[nl] == ',' || c[nl] == '\n'))) {
		c += strcspn(c, ",\n");
		if (*c != ',')
			return 0;
		c++;
		col++;
	}
	size_t n = 0;
	for (const char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		c = line + 1;
		for (int k = 0; k < col && c; k++) {
			c = strpbrk(c, ",\n");
			c = c && *c == ',' ? c + 1 : NULL;
		}
		if (c && !(strncmp(c, value, vl) == 0 && (c[vl] == ',' || c[vl] == '\n')))
			n++;
	}
	return n;
}

#endif
