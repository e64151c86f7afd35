/*
 * test_gandiva.c: the gandiva driver's shortcuts change no result. A
 * Philly-like trace generated here (seed fixed; 100,000 jobs on 2,048 GPUs,
 * 20,000 on 256 under ASan) runs overloaded (load 1.5: sets time-slice,
 * spread jobs consolidate, suspended jobs migrate) and at the bench's load
 * 1.2, under both slice modes, once as `dlsched simulate` runs it and once
 * with the params-only slice_oracle switch (the reference code, every
 * shortcut off); the results must be the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/gandiva.h"
#include "sim/sim.h"
#include "tap.h"
#include "trace/gen.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
/*
 * Under ASan a 100,000-job pair takes minutes: 20,000 jobs on an eighth of
 * the GPUs, which they overload as soon (fewer would not fill 2,048 GPUs)
 */
#ifdef SANITIZED
#define JOBS	20000
#define CLUSTER "2x16x8"
#define GPUS	256
#else
#define JOBS	100000
#define CLUSTER "8x32x8"
#define GPUS	2048
#endif

/* `trace gen --seed 1 --jobs JOBS --load load --cluster CLUSTER` */
static int gen(struct dl_jobset *js, double load)
{
	struct dl_gen_opts o = {0};
	struct dl_err err = DL_ERR_INIT;
	o.seed = 1;
	o.jobs = JOBS;
	o.mix_gpus = dl_gen_default_mix_gpus;
	o.mix_w = dl_gen_default_mix_w;
	o.nmix = 4;
	o.dist = DL_DUR_PHILLY;
	o.net_share = -1;
	o.rate_per_hour = load * GPUS * 3600 / (dl_gen_mean_gpus(&o) * dl_gen_mean_duration(&o));
	int rc = dl_gen(js, &o, &err);
	if (rc)
		printf("# gen: %s\n", err.msg);
	return rc;
}

/* the run's results (CSV) in *out, as simulate --policy gandiva --slice slice writes them */
static int run(const struct dl_jobset *js, int slice, int oracle, char **out, size_t *len)
{
	const struct dl_sim_policy_ops *ops = dl_sim_policy_find("gandiva");
	struct dl_gandiva_params *p = dl_sim_params_new(ops);
	p->slice = slice;
	p->slice_oracle = oracle;
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(CLUSTER, &cl, &err)) {
		free(p);
		return -1;
	}
	struct dl_net_models models;
	dl_net_models_init(&models);
	FILE *f = open_memstream(out, len);
	struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV);
	struct dl_sim_config cfg = {0};
	cfg.cluster = cl;
	cfg.jobs = js;
	cfg.policy = ops;
	cfg.params = p;
	cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
	dl_place_policy_parse(ops->place, &cfg.place.policy);
	cfg.models = &models;
	cfg.comm = DL_COMM_RING;
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	cfg.results = w;
	struct dl_sim_stats st;
	int rc = dl_sim_run(&cfg, &st, &err);
	if (rc)
		printf("# run: %s\n", err.msg);
	else if (st.completed != JOBS) {
		printf("# %zu of %d jobs completed\n", st.completed, JOBS);
		rc = -1;
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(f);
	dl_net_models_free(&models);
	dl_cluster_free(cl);
	free(p);
	return rc;
}

/* rows whose column col (0-based) is not `zero` */
static size_t rows_with(const char *csv, int col, const char *zero)
{
	size_t n = 0, zl = strlen(zero);
	const char *line = strchr(csv, '\n');
	while (line && line[1]) {
		const char *c = line + 1;
		for (int k = 0; k < col && c; k++) {
			c = strchr(c, ',');
			if (c)
				c++;
		}
		if (c && !(strncmp(c, zero, zl) == 0 && (c[zl] == ',' || c[zl] == '\n')))
			n++;
		line = strchr(line + 1, '\n');
	}
	return n;
}

/* the first byte where a and b differ, for the message */
static size_t first_difference(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0;
	while (i < na && i < nb && a[i] == b[i])
		i++;
	return i;
}

static void compare(double load, int slice)
{
	const char *mode = slice == DL_GANDIVA_FLUID ? "fluid" : "round-robin";
	struct dl_jobset js;
	dl_jobset_init(&js);
	if (gen(&js, load)) {
		ok(0, "load %g: trace generated", load);
		return;
	}
	char *fast = NULL, *ref = NULL;
	size_t nf = 0, nr = 0;
	int rf = run(&js, slice, 0, &fast, &nf);
	int rr = run(&js, slice, 1, &ref, &nr);
	ok(rf == 0 && rr == 0, "load %g, %s: both runs complete all %d jobs", load, mode, JOBS);
	/* the comparison means something only where the shortcuts' cases occur */
	size_t sliced = rows_with(ref, 9, "0"), moved = rows_with(ref, 10, "0"),
	       spread = rows_with(ref, 12, "1");
	ok(sliced > JOBS / 100 && moved > JOBS / 1000 && spread > JOBS / 100,
	   "load %g, %s: %zu jobs preempted, %zu migrated, %zu slowed by spreading", load, mode,
	   sliced, moved, spread);
	size_t d = first_difference(fast, nf, ref, nr);
	ok(nf == nr && d == nf,
	   "load %g, %s: results byte-identical to the reference (%zu bytes%s)", load, mode, nr,
	   nf == nr && d == nf ? "" : ", they differ");
	if (d < nf || d < nr) {
		size_t from = d > 200 ? d - 200 : 0;
		printf("# first difference at byte %zu:\n# fast: %.300s\n# ref:  %.300s\n", d,
		       fast + from, ref + from);
	}
	free(fast);
	free(ref);
	dl_jobset_free(&js);
}

int main(void)
{
	compare(1.5, DL_GANDIVA_ROUND_ROBIN);
	compare(1.5, DL_GANDIVA_FLUID);
	compare(1.2, DL_GANDIVA_ROUND_ROBIN);
	return done_testing();
}
