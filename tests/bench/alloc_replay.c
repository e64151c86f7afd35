/*
 * alloc_replay.c: a bench tool (not installed). Replays a jobs trace through
 * an allocation re-solve session (dl_alloc_session_*) as Gavel's exact
 * mechanism would: every job runs at the rate its allocation gives it
 * (sum_j X_ij T_ij, pairs included), and the allocation is re-solved at
 * every arrival and completion, after every active job's progress is
 * updated. Every K-th solve (--scratch-every K) the same job set is also
 * solved by dl_alloc_solve from scratch, timed alone.
 *
 *   alloc_replay --cluster SPEC --throughputs FILE [--policy P] [--pack]
 *                [--scratch-every K] TRACE
 *
 * Prints one line of key=value pairs (solves, session_s: wall seconds in the
 * session's calls, scratch_solves, scratch_s, jobs_max, jobs_mean, end: the
 * last completion) for tests/bench/b_allocate.sh. Exit 1 on any error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy/alloc.h"
#include "policy/alloc_input.h"
#include "trace/jobs.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct active {
	int64_t handle;
	size_t job; /* index in the trace */
	double left, done, rate;
};

static int fail(const char *what, const struct dl_err *err)
{
	fprintf(stderr, "alloc_replay: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
	return 1;
}

int main(int argc, char **argv)
{
	const char *cluster = NULL, *tputs_path = NULL, *trace = NULL;
	struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
	long every = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--cluster") && a + 1 < argc)
			cluster = argv[++a];
		else if (!strcmp(argv[a], "--throughputs") && a + 1 < argc)
			tputs_path = argv[++a];
		else if (!strcmp(argv[a], "--policy") && a + 1 < argc) {
			if (dl_alloc_policy_parse(argv[++a], &o.policy))
				return fail("unknown policy", NULL);
		} else if (!strcmp(argv[a], "--pack"))
			o.pack = 1;
		else if (!strcmp(argv[a], "--scratch-every") && a + 1 < argc)
			every = strtol(argv[++a], NULL, 10);
		else if (argv[a][0] != '-' && !trace)
			trace = argv[a];
		else
			return fail("usage: alloc_replay --cluster SPEC --throughputs FILE "
				    "[--policy P] [--pack] [--scratch-every K] TRACE",
				    NULL);
	}
	if (!cluster || !tputs_path || !trace)
		return fail("--cluster, --throughputs and a trace are required", NULL);
	struct dl_err err = DL_ERR_INIT;
	struct dl_alloc_problem p;
	struct dl_tputs tt = DL_TPUTS_INIT;
	struct dl_jobset js;
	dl_jobset_init(&js);
	if (dl_alloc_cluster_types(cluster, &p, &err))
		return fail(cluster, &err);
	if (dl_alloc_load_throughputs(tputs_path, DL_IN_AUTO, &tt, &err))
		return fail(tputs_path, &err);
	if (dl_jobset_load(&js, trace, DL_IN_AUTO, &err))
		return fail(trace, &err);
	dl_alloc_model_classes(&p, &tt);
	size_t n = p.ntypes, m = js.n;
	/* each job's throughputs on every type, and its steps */
	double *tput = calloc(m * n + 1, sizeof(double)), *steps = calloc(m + 1, sizeof(double));
	for (size_t i = 0; i < m; i++) {
		const struct dl_job *j = &js.jobs[i];
		double ref = dl_tputs_get(&tt, j->model, "v100", j->gpus);
		for (size_t t = 0; t < n; t++) {
			double v = dl_tputs_get(&tt, j->model, p.type_names[t], j->gpus);
			tput[i * n + t] = v > 0 ? v : 0;
		}
		steps[i] = j->steps > 0 ? j->steps : j->duration * (ref > 0 ? ref : 1);
	}
	struct dl_alloc_session *s = dl_alloc_session_new(&p, &o, &err);
	if (!s)
		return fail("session", &err);
	struct active *act = calloc(m + 1, sizeof(*act));
	size_t nact = 0, next = 0, solves = 0, scratch_solves = 0, jobs_max = 0;
	double t = 0, session_s = 0, scratch_s = 0, jobs_sum = 0;
	while (next < m || nact) {
		/* the next event: an arrival or the first completion at the current rates */
		double te = next < m ? js.jobs[next].submit : INFINITY;
		for (size_t k = 0; k < nact; k++)
			if (act[k].rate > 0 && t + act[k].left / act[k].rate < te)
				te = t + act[k].left / act[k].rate;
		if (!(te < INFINITY))
			return fail("jobs without any rate and no arrival left", NULL);
		double dt = te - t;
		t = te;
		double t0 = now();
		for (size_t k = 0; k < nact;) {
			struct active *a = &act[k];
			double run = a->rate * dt;
			a->left -= run;
			a->done += run;
			if (a->left <= 1e-9 * steps[a->job] + 1e-9) {
				dl_alloc_session_remove(s, a->handle);
				*a = act[--nact];
				continue;
			}
			dl_alloc_session_progress(s, a->handle, a->left, a->done,
						  t - js.jobs[a->job].submit);
			k++;
		}
		while (next < m && js.jobs[next].submit <= t) {
			const struct dl_job *j = &js.jobs[next];
			struct dl_alloc_job aj = {0};
			aj.id = (char *)j->id;
			aj.gpus = (int)j->gpus;
			aj.weight = j->weight;
			aj.tput = &tput[next * n];
			aj.steps = steps[next];
			aj.entity = -1;
			aj.klass = dl_alloc_model_class(&p, j->model, (int)j->gpus);
			aj.count = 1;
			aj.iso_done = -1;
			int64_t h = dl_alloc_session_add(s, &aj, &err);
			if (h < 0)
				return fail(j->id, &err);
			act[nact++] = (struct active){h, next, steps[next], 0, 0};
			next++;
		}
		struct dl_alloc_result res;
		if (dl_alloc_session_solve(s, &res, &err))
			return fail("solve", &err);
		session_s += now() - t0;
		solves++;
		const struct dl_alloc_problem *vp = dl_alloc_session_problem(s);
		jobs_max = vp->njobs > jobs_max ? vp->njobs : jobs_max;
		jobs_sum += (double)vp->njobs;
		/* rates: active jobs are in the session's order (both in order of arrival) */
		double *rate = calloc(vp->njobs + 1, sizeof(double));
		for (size_t i = 0; i < vp->njobs; i++)
			for (size_t u = 0; u < n; u++)
				rate[i] += res.x[i * n + u] * vp->jobs[i].tput[u];
		for (size_t k = 0; k < res.npairs; k++)
			for (size_t u = 0; u < n; u++) {
				rate[res.pairs[k].a] += res.pairs[k].tput_a[u] * res.px[k * n + u];
				rate[res.pairs[k].b] += res.pairs[k].tput_b[u] * res.px[k * n + u];
			}
		for (size_t k = 0; k < nact; k++)
			act[k].rate = rate[dl_alloc_session_index(s, act[k].handle)];
		free(rate);
		dl_alloc_result_free(&res);
		if (every > 0 && solves % (size_t)every == 0) {
			struct dl_alloc_problem c;
			dl_alloc_problem_copy(&c, vp, 1);
			if (o.pack)
				dl_alloc_prune_pairs(&c, 4);
			double t1 = now();
			if (dl_alloc_solve(&c, &o, &res, &err))
				return fail("scratch solve", &err);
			scratch_s += now() - t1;
			scratch_solves++;
			dl_alloc_result_free(&res);
			dl_alloc_problem_free(&c);
		}
	}
	const struct dl_alloc_session_stats *st = dl_alloc_session_stats(s);
	printf("solves=%zu session_s=%.6f warm=%ld lp_solves=%ld lp_s=%.6f iterations=%ld "
	       "scratch_solves=%zu scratch_s=%.6f jobs_max=%zu jobs_mean=%.1f end=%.0f\n",
	       solves, session_s, st->warm, st->lp_solves, st->lp_seconds, st->iterations,
	       scratch_solves, scratch_s, jobs_max, jobs_sum / (double)(solves ? solves : 1), t);
	dl_alloc_session_free(s);
	free(act);
	free(tput);
	free(steps);
	dl_jobset_free(&js);
	dl_tputs_free(&tt);
	dl_alloc_problem_free(&p);
	return 0;
}
