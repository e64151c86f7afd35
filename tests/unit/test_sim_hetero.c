/*
 * test_sim_hetero.c: per-model heterogeneity in the engine (sim.h tputs,
 * policy.h dl_sim_job_speed), through dl_sim_run with a built-in policy: the
 * speeds the policies see, the results, the fallback count and its names.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "simrun.h"
#include "tap.h"
#include "trace/throughputs.h"

static void add_tput(struct dl_tputs *t, const char *model, const char *type, int gpus, double v)
{
	struct dl_tput e = {(char *)model, (char *)type, gpus, "", v, -1, 0};
	struct dl_err err = DL_ERR_INIT;
	if (dl_tputs_add(t, &e, NULL, &err))
		printf("# %s\n", err.msg);
}

static void add_job(struct dl_jobset *js, const char *id, double submit, int gpus, double dur,
		    const char *model)
{
	struct dl_job j = DL_JOB_INIT;
	j.id = id;
	j.submit = submit;
	j.gpus = gpus;
	j.duration = dur;
	j.model = model;
	dl_jobset_add(js, &j);
}

/* runs the trace under fifo-backfill; the results in *out (free it) */
static int run(const char *spec, const struct dl_jobset *js, const struct dl_tputs *t,
	       struct dl_sim_stats *st, char **out)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, &err))
		return -1;
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV);
	struct dl_sim_config cfg = simrun_config(cl, js, dl_sim_policy_find("fifo-backfill"), NULL);
	cfg.tputs = t;
	cfg.results = w;
	int rc = dl_sim_run(&cfg, st, &err);
	if (rc)
		printf("# %s\n", err.msg);
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(f);
	dl_cluster_free(cl);
	return rc;
}

int main(void)
{
	struct dl_tputs t = DL_TPUTS_INIT;
	add_tput(&t, "m", "v100", 1, 4);
	add_tput(&t, "m", "k80", 1, 1);
	add_tput(&t, "m", "v100", 2, 6);
	add_tput(&t, "m", "k80", 2, 0); /* a 2-GPU gang of m does not fit a k80 */
	struct dl_jobset js;
	dl_jobset_init(&js);
	add_job(&js, "w", 0, 2, 60, "m");     /* only on the v100s (k80s come first): 60 s */
	add_job(&js, "a", 1, 1, 100, "m");    /* a k80 (w holds the v100s): 400 s */
	add_job(&js, "x", 2, 1, 30, "other"); /* no entry: the k80's speed 0.3, 100 s */
	add_job(&js, "y", 3, 1, 30, "");      /* no model: the same */
	struct dl_sim_stats st;
	char *buf = NULL;
	ok(run("1x1x2:k80,1x1x2:v100,1x1x2:k80", &js, &t, &st, &buf) == 0, "run");
	is_int(st.completed, 4, "every job completes");
	ok(strstr(buf, "\nw,0,2,60,0,60,60,0,60,0,0,node,1,v100,fifo-backfill,1,0,,120\n") != NULL,
	   "a type where the model's throughput is 0 is skipped: w on the v100s");
	ok(strstr(buf, "\na,1,1,100,1,401,400,0,400,0,0,node,1,k80,fifo-backfill,4,0,,400\n") !=
		   NULL,
	   "m on a k80 at 1/4 of its v100 throughput: 400 s");
	ok(strstr(buf,
		  "\nx,2,1,30,2,102,100,0,100,0,0,node,1,k80,fifo-backfill,3.333333,0,,100\n") !=
		   NULL,
	   "a model without an entry at the type's speed");
	is_int(st.tput_fallback, 2, "two jobs fell back to type speeds");
	ok(!strcmp(st.tput_missing, "'other'"), "the missing model is named (%s)", st.tput_missing);
	if (!strstr(buf, "\nw,"))
		printf("# %s", buf);
	free(buf);

	/* without the table: flat speeds, nothing to warn about */
	buf = NULL;
	ok(run("1x1x2:k80,1x1x2:v100,1x1x2:k80", &js, NULL, &st, &buf) == 0, "run without");
	is_int(st.tput_fallback, 0, "no fallback counted without a table");
	ok(strstr(buf, "\na,1,1,100,1,334.333333,") != NULL, "a at the k80's flat 0.3");
	free(buf);

	/* only k80s: the 2-GPU gang of m can never run there and is rejected on arrival */
	buf = NULL;
	ok(run("1x1x4:k80", &js, &t, &st, &buf) == 0, "run on k80s");
	is_int(st.rejected, 1, "w rejected");
	ok(strstr(buf, ",its throughput is 0 on every GPU type with room for it,\n") != NULL,
	   "with its reason");
	free(buf);

	dl_jobset_free(&js);
	dl_tputs_free(&t);
	return done_testing();
}
