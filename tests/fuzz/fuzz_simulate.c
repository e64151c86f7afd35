/*
 * fuzz_simulate.c: arbitrary bytes as the simulator's inputs. The first byte
 * picks the path: a Tiresias trace run through every compat loop, a Tiresias
 * cluster_spec, or a jobs stream simulated natively on a small cluster under
 * every policy. Nothing may crash, hang or leak, and every native run must
 * account for each job exactly once (completed or rejected).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "policy/mlfq.h"
#include "sim/sim.h"
#include "compat/tiresias.h"

static void compat(const char *path)
{
	static const char *const sched[] = {"fifo", "fjf", "sjf", "shortest-gpu", "dlas-gpu-2"};
	static const char *const scheme[] = {"count", "yarn"};
	struct dl_tiresias_spec spec = {1, 2, 4, 16, 64};
	for (size_t k = 0; k < 5; k++) {
		struct dl_err err = DL_ERR_INIT;
		struct dl_tiresias_trace *t = dl_tiresias_trace_load(path, DL_IN_AUTO, &err);
		if (!t)
			return;
		if (dl_tiresias_trace_njobs(t) > 200) {
			dl_tiresias_trace_free(t);
			return;
		}
		FILE *f = fopen("/dev/null", "w");
		struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV);
		struct dl_writer *c = dl_writer_new(f, DL_OUT_JSON);
		struct dl_tiresias_opts o = {sched[k], scheme[k % 2], NULL, NULL};
		struct dl_tiresias_stats st;
		if (dl_tiresias_run(t, &spec, &o, w, c, &st, &err) == 0 &&
		    st.completed + st.unfinished > dl_tiresias_trace_njobs(t))
			abort();
		dl_writer_free(w);
		dl_writer_free(c);
		fclose(f);
		dl_tiresias_trace_free(t);
	}
}

static void native(const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_jobset js;
	dl_jobset_init(&js);
	if (dl_jobset_load(&js, path, DL_IN_AUTO, &err) < 0 || js.n > 100) {
		dl_jobset_free(&js);
		return;
	}
	for (size_t i = 0; i < js.n; i++)
		if (js.jobs[i].submit > 1e6 || js.jobs[i].duration > 1e4 ||
		    js.jobs[i].duration < 1e-3) {
			dl_jobset_free(&js); /* keep runs short */
			return;
		}
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load("1x2x4:v100,1x1x4:k80", &cl, &err) < 0) {
		dl_jobset_free(&js);
		return;
	}
	struct dl_net_models models;
	dl_net_models_init(&models);
	size_t np;
	const struct dl_sim_policy_ops *const *pols = dl_sim_policies(&np);
	for (size_t k = 0; k < np; k++) {
		/* small MLFQ limits and quantum, so that short fuzz traces cross them */
		void *params = dl_sim_params_new(pols[k]);
		dl_sim_params_set(pols[k], params, "thresholds", "50,200");
		dl_sim_params_set(pols[k], params, "starvation", "1");
		dl_sim_params_set(pols[k], params, "quantum", "500");
		FILE *f = fopen("/dev/null", "w");
		struct dl_writer *r = dl_writer_new(f, DL_OUT_CSV);
		struct dl_writer *e = dl_writer_new(f, DL_OUT_JSON);
		struct dl_writer *t = dl_writer_new(f, DL_OUT_CSV);
		struct dl_sim_config cfg = {0};
		cfg.cluster = cl;
		cfg.jobs = &js;
		cfg.policy = pols[k];
		cfg.params = params;
		cfg.place = (struct dl_place_opts)DL_PLACE_OPTS_INIT;
		cfg.place.policy = (enum dl_place_policy)(k % DL_PLACE_NPOLICIES);
		cfg.models = &models;
		cfg.checkpoint_cost = (double)(k % 3);
		cfg.restore_cost = (double)(k % 2) * 2;
		cfg.results = r;
		cfg.events = e;
		cfg.timeline = t;
		struct dl_sim_stats st;
		/* built-in policies always settle: a failed run is a bug */
		if (dl_sim_run(&cfg, &st, &err) < 0 || st.completed + st.rejected != js.n) {
			fprintf(stderr, "%s: %s\n", pols[k]->name, err.msg);
			abort();
		}
		dl_writer_free(r);
		dl_writer_free(e);
		dl_writer_free(t);
		fclose(f);
		free(params);
	}
	dl_net_models_free(&models);
	dl_cluster_free(cl);
	dl_jobset_free(&js);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	char path[64];
	int fd = to_fd_path(data + 1, size - 1, path);
	if (fd < 0)
		return 0;
	struct dl_err err = DL_ERR_INIT;
	struct dl_tiresias_spec spec;
	switch (data[0] % 3) {
	case 0:
		compat(path);
		break;
	case 1:
		dl_tiresias_spec_load(path, &spec, &err);
		break;
	default:
		native(path);
		break;
	}
	close(fd);
	return 0;
}
