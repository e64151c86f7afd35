/*
 * test_simulate.c: the simulator's ordered sets and the policy interface
 * (policy.h) driven by a scripted test policy: explicit GPUs, packing with a
 * shared speed, migration costs, timers, preemption costs, rejection.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/state.h"
#include "core/rng.h"
#include "sim/oset.h"
#include "sim/queueing.h"
#include "sim/sim.h"
#include "sim/slab.h"
#include "simrun.h"
#include "tap.h"

/* ---- ordered sets against a brute-force model ---- */

static int cmp_key(const struct dl_onode *a, const struct dl_onode *b)
{
	return dl_okey_less(a, b) ? -1 : dl_okey_less(b, a) ? 1 : 0;
}

static void test_oset(void)
{
	enum { N = 2000 };
	struct dl_opool pool;
	struct dl_oset s = DL_OSET_INIT;
	unsigned char in[N] = {0};
	dl_opool_init(&pool, N);
	unsigned x = 12345;
	int bad_order = 0, bad_count = 0, bad_back = 0;
	for (int step = 0; step < 20000; step++) {
		x = x * 1103515245u + 12345u;
		size_t i = (x >> 8) % N;
		if (in[i]) {
			dl_oset_erase(&pool, &s, i);
			in[i] = 0;
		} else {
			/* few distinct k0 values so ties go to k1 and k2 */
			dl_oset_insert(&pool, &s, i, (double)((x >> 4) % 7),
				       (double)((x >> 12) % 3), i);
			in[i] = 1;
		}
		if (step % 997)
			continue;
		size_t n = 0, prev = DL_ONIL;
		for (size_t k = dl_oset_first(&pool, &s); k != DL_ONIL;
		     k = dl_oset_next(&pool, k)) {
			if (prev != DL_ONIL && cmp_key(&pool.n[prev], &pool.n[k]) >= 0)
				bad_order++;
			if (!in[k])
				bad_count++;
			prev = k;
			n++;
		}
		size_t want = 0;
		for (size_t k = 0; k < N; k++)
			want += in[k];
		bad_count += n != want || n != s.count;
		size_t m = 0;
		for (size_t k = dl_oset_last(&pool, &s); k != DL_ONIL; k = dl_oset_prev(&pool, k))
			m++;
		bad_back += m != n;
	}
	ok(!bad_order, "oset: in-order walk is sorted by (k0, k1, k2)");
	ok(!bad_count, "oset: walk visits exactly the members");
	ok(!bad_back, "oset: backward walk visits as many");
	dl_opool_release(&pool);
}

/* ---- a scripted policy ---- */

enum { K_MIGRATE = 1, K_PREEMPT = 2, K_RESUME = 3 };

struct script {
	int phase;
	int timer_calls, saved_calls, finishes;
};

static void *sc_create(struct dl_sim *s, const void *p, struct dl_err *err)
{
	(void)s, (void)p, (void)err;
	return calloc(1, sizeof(struct script));
}

static void sc_destroy(void *st)
{
	free(st);
}

static void sc_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)st, (void)s, (void)j;
}

static void sc_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct script *S = st;
	(void)j;
	S->saved_calls++;
	dl_sim_timer(s, dl_sim_now(s) + 5 * DL_TICKS_PER_SECOND, 2, K_RESUME, 0);
}

static void sc_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct script *S = st;
	(void)s, (void)j;
	S->finishes++;
}

static int sc_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	struct script *S = st;
	(void)stamp;
	S->timer_calls++;
	struct dl_sim_job *j = dl_sim_job(s, job);
	if (kind == K_MIGRATE) {
		static const int to[2] = {6, 7};
		dl_sim_migrate(s, j, to, 2, DL_SIM_PAUSE_RULE);
	} else if (kind == K_PREEMPT) {
		dl_sim_preempt(s, j);
	} else if (kind == K_RESUME) {
		dl_sim_start(s, j, NULL);
	}
	return 1;
}

/*
 * Jobs (submit order): 0 "mig" 2 GPUs 100 s, 1 "packA" 1 GPU 50 s, 2 "pre" 1 GPU
 * 40 s, 3 "pack B" 1 GPU 50 s, 4 "huge" 99 GPUs. At t = 0: mig on GPUs 0,1 (a
 * migration to 6,7 at t = 10), packA and packB share GPU 2 at half speed each,
 * pre on the placer's choice (preempted at t = 20, resumed 5 s after saving).
 */
static void sc_schedule(void *st, struct dl_sim *s)
{
	struct script *S = st;
	if (S->phase)
		return;
	S->phase = 1;
	static const int g01[2] = {0, 1}, g2[1] = {2};
	struct dl_sim_how how = DL_SIM_HOW(.gpus = g01);
	ok(dl_sim_start(s, dl_sim_job(s, 0), &how) == DL_PLACED, "explicit GPUs: placed");
	how.gpus = g2;
	how.shared = 1;
	how.share = 0.5;
	ok(dl_sim_start(s, dl_sim_job(s, 1), &how) == DL_PLACED, "packing: first on GPU 2");
	ok(dl_sim_start(s, dl_sim_job(s, 3), &how) == DL_PLACED, "packing: second on GPU 2");
	how.shared = 0;
	ok(dl_sim_start(s, dl_sim_job(s, 2), &how) == DL_WAIT,
	   "unshared start on a held GPU waits");
	ok(dl_sim_start(s, dl_sim_job(s, 2), NULL) == DL_PLACED, "placer start");
	is_int(dl_sim_free_gpus(s), 8 - 4, "a shared GPU is taken once");
	dl_sim_timer(s, dl_sim_ticks(10), 0, K_MIGRATE, 0);
	dl_sim_timer(s, dl_sim_ticks(20), 2, K_PREEMPT, 0);
}

static const struct dl_sim_policy_ops script_ops = {
	.name = "script",
	.summary = "test",
	.create = sc_create,
	.destroy = sc_destroy,
	.arrive = sc_arrive,
	.saved = sc_saved,
	.finish = sc_finish,
	.timer = sc_timer,
	.schedule = sc_schedule,
};

/* the scripted policy's five jobs (above), all submitted at 0 */
static void script_jobs(struct dl_jobset *js)
{
	dl_jobset_init(js);
	static const char *const ids[5] = {"mig", "packA", "pre", "packB", "huge"};
	static const int gpus[5] = {2, 1, 1, 1, 99};
	static const double dur[5] = {100, 50, 40, 50, 10};
	for (int k = 0; k < 5; k++) {
		struct dl_job j = DL_JOB_INIT;
		j.id = ids[k];
		j.gpus = gpus[k];
		j.duration = dur[k];
		dl_jobset_add(js, &j);
	}
}

/* the script on cl: checkpoints take 3 s, restores 7 s */
static struct dl_sim_config script_config(const struct dl_cluster *cl, const struct dl_jobset *js)
{
	struct dl_sim_config cfg = simrun_config(cl, js, &script_ops, NULL);
	cfg.checkpoint_cost = 3;
	cfg.restore_cost = 7;
	return cfg;
}

static void test_interface(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	ok(dl_cluster_load("1x1x8", &cl, &err) == 0, "cluster");
	struct dl_jobset js;
	script_jobs(&js);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV);
	struct dl_sim_config cfg = script_config(cl, &js);
	cfg.results = w;
	struct dl_sim_stats st;
	ok(dl_sim_run(&cfg, &st, &err) == 0, "run: %s", err.msg);
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(f);
	is_int(st.completed, 4, "four jobs complete");
	is_int(st.rejected, 1, "the 99-GPU job is rejected");
	ok(!strcmp(st.first_rejected, "huge"), "rejected job named");
	/* mig: 10 s of work, migrate at 10 (3 + 7 s without progress), 90 s left: 110 */
	ok(strstr(buf, "\nmig,0,2,100,0,110,110,0,110,0,1,node,1,v100,script,1.1,0,,220\n") != NULL,
	   "migration costs checkpoint + restore");
	/*
	 * packed jobs at half speed: 50 s of work takes 100 s, and each occupied
	 * half of GPU 2's 100 s
	 */
	ok(strstr(buf, "\npackA,0,1,50,0,100,100,0,100,0,0,node,1,v100,script,2,0,,50\n") != NULL,
	   "packing: half speed, half the GPU");
	ok(strstr(buf, "\npackB,0,1,50,0,100,100,0,100,0,0,node,1,v100,script,2,0,,50\n") != NULL,
	   "packing: the partner's half");
	/*
	 * pre: 20 s done, saves 3 s (20..23), resumes at 28, restores 7 s, 20 s
	 * left: 55; it held its GPU 0..23 and 28..55 (the save included): 50
	 */
	ok(strstr(buf, "\npre,0,1,40,0,55,55,8,47,1,0,node,1,v100,script,1.375,0,,50\n") != NULL,
	   "preemption: checkpoint, wait, restore");
	/* the rejected job keeps a row: no times, the reason in 'rejected' */
	ok(strstr(buf, "\nhuge,") &&
		   strstr(strstr(buf, "\nhuge,"),
			  ",,,,,,,,,,script,,,needs more GPUs than the cluster has,\n"),
	   "a rejected job's row says why");
	if (!strstr(buf, "\npre,"))
		printf("# %s", buf);
	free(buf);
	dl_jobset_free(&js);
	dl_cluster_free(cl);
}

/* ---- rho and comm_overhead_s: exact on hand-computable placements ---- */

/*
 * A policy that places each job on the GPUs its table names and migrates two
 * of them later (1x2x8: GPUs 0-7 on node 0, 8-15 on node 1).
 */
static const int comm_at[4][2] = {{15, -1}, {3, 11}, {0, 8}, {7, 9}};
static const int comm_to[4][2] = {{-1, -1}, {-1, -1}, {4, 12}, {5, 6}};
static const double comm_when[4] = {0, 0, 50, 20};

static void cm_schedule(void *st, struct dl_sim *s)
{
	int *done = st;
	if (*done)
		return;
	*done = 1;
	for (size_t k = 0; k < 4; k++) {
		struct dl_sim_how how = DL_SIM_HOW(.gpus = comm_at[k]);
		dl_sim_start(s, dl_sim_job(s, k), &how);
		if (comm_when[k] > 0)
			dl_sim_timer(s, dl_sim_ticks(comm_when[k]), k, K_MIGRATE, 0);
	}
}

static int cm_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	(void)st, (void)kind, (void)stamp;
	return dl_sim_migrate(s, dl_sim_job(s, job), comm_to[job], 2, DL_SIM_PAUSE_RULE) == 0;
}

static const struct dl_sim_policy_ops comm_ops = {
	.name = "comm",
	.summary = "test",
	.create = sc_create,
	.destroy = sc_destroy,
	.arrive = sc_arrive,
	.finish = sc_finish,
	.timer = cm_timer,
	.schedule = cm_schedule,
};

static void test_rho_comm(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	ok(dl_cluster_load("1x2x8", &cl, &err) == 0, "cluster");
	/*
	 * Links and model chosen for a slowdown of exactly 1.25 across nodes: no
	 * latency, free inside a node, 32 Gb/s (4e9 B/s) between nodes; 1e9
	 * gradient bytes over 2 GPUs by ring take 0.25 s against 1 s of compute.
	 */
	for (int t = 0; t < DL_NTIERS; t++)
		cl->link[t] = (struct dl_link){t == DL_TIER_NODE ? INFINITY : 32, 0};
	struct dl_net_models models;
	dl_net_models_init(&models);
	models.v[models.def].bytes = 1e9;
	models.v[models.def].compute_s = 1;
	struct dl_jobset js;
	dl_jobset_init(&js);
	static const char *const ids[4] = {"alone", "spread", "hop", "fix"};
	static const int gpus[4] = {1, 2, 2, 2};
	static const double dur[4] = {50, 100, 100, 100};
	for (int k = 0; k < 4; k++) {
		struct dl_job j = DL_JOB_INIT;
		j.id = ids[k];
		j.gpus = gpus[k];
		j.duration = dur[k];
		dl_jobset_add(&js, &j);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV);
	struct dl_sim_config cfg = simrun_config(cl, &js, &comm_ops, NULL);
	cfg.models = &models;
	cfg.comm = DL_COMM_RING;
	cfg.checkpoint_cost = 3;
	cfg.restore_cost = 7;
	cfg.results = w;
	struct dl_sim_stats st;
	ok(dl_sim_run(&cfg, &st, &err) == 0, "run: %s", err.msg);
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(f);
	ok(strstr(buf, ",policy,rho,comm_overhead_s,rejected,occupied_gpu_s\n") != NULL,
	   "the columns");
	/* a job alone on its ideal placement: rho 1, no overhead */
	ok(strstr(buf, "\nalone,0,1,50,0,50,50,0,50,0,0,node,1,v100,comm,1,0,,50\n") != NULL,
	   "alone: rho 1, comm 0");
	/* 100 s of work at slowdown 1.25: 125 s running, 25 of them lost; rho = slowdown */
	ok(strstr(buf, "\nspread,0,2,100,0,125,125,0,125,0,0,rack,1.25,v100,comm,1.25,25,,250\n") !=
		   NULL,
	   "spread: rho 1.25, comm 25");
	/*
	 * 50 s at 0.8 (40 done), 3 + 7 s without progress on the new GPUs (not
	 * communication), 60 left at 0.8: 75 s; overhead (50 + 75) x 0.2 = 25
	 */
	ok(strstr(buf, "\nhop,0,2,100,0,135,135,0,135,0,1,rack,1.25,v100,comm,1.35,25,,270\n") !=
		   NULL,
	   "migrated across nodes: restores are not communication");
	/* 20 s at 0.8 (16 done), 10 s moving, 84 s on one node: overhead 20 x 0.2 = 4 */
	ok(strstr(buf, "\nfix,0,2,100,0,114,114,0,114,0,1,node,1,v100,comm,1.14,4,,228\n") != NULL,
	   "consolidated by a migration: overhead only while spread");
	if (!strstr(buf, "\nfix,0,2,100,0,114,"))
		printf("# %s", buf);
	free(buf);
	dl_jobset_free(&js);
	dl_net_models_free(&models);
	dl_cluster_free(cl);
}

/*
 * The same script advanced with dl_sim_step(): one instant per step, the
 * state after each as the script made it.
 */
static void test_steps(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	dl_cluster_load("1x1x8", &cl, &err);
	struct dl_jobset js;
	script_jobs(&js);
	struct dl_sim_config cfg = script_config(cl, &js);
	struct dl_sim_stats st;
	struct dl_sim *s = dl_sim_new(&cfg, &st, &err);
	ok(s != NULL, "dl_sim_new: %s", err.msg);
	/* instants: starts, migration, preemption, saved, resumed, then the completions */
	static const double when[8] = {0, 10, 20, 23, 28, 55, 100, 110};
	int at_ok = 1, steps = 0, rc;
	int mig_moved = 0, pre_saving = 0, pre_queued = 0, pre_resumed = 0, pre_gone = 0;
	int busy_at_20 = -1;
	while ((rc = dl_sim_step(s, &err)) > 0) {
		dl_tick now = dl_sim_now(s);
		at_ok &= steps < 8 && now == dl_sim_ticks(when[steps]);
		struct dl_sim_job *mig = dl_sim_job(s, 0), *pre = dl_sim_job(s, 2);
		if (now == dl_sim_ticks(10))
			mig_moved = mig && mig->migrations == 1 && mig->gpu[0] == 6;
		if (now == dl_sim_ticks(20)) {
			pre_saving = pre && pre->state == DL_SJ_SAVING;
			busy_at_20 = dl_sim_total_gpus(s) - dl_sim_free_gpus(s);
		}
		if (now == dl_sim_ticks(23))
			pre_queued = pre && pre->state == DL_SJ_QUEUED && pre->preemptions == 1;
		if (now == dl_sim_ticks(28))
			pre_resumed = pre && pre->state == DL_SJ_RUNNING;
		if (now == dl_sim_ticks(55))
			pre_gone = pre == NULL && st.completed == 1;
		steps++;
	}
	is_int(rc, 0, "the last step says nothing is left");
	is_int(steps, 8, "eight instants");
	ok(at_ok, "each step is the next instant");
	ok(mig_moved, "after t=10: mig migrated to GPUs 6,7");
	ok(pre_saving, "after t=20: pre saves its checkpoint");
	is_int(busy_at_20, 4, "holding its GPU while it saves");
	ok(pre_queued, "after t=23: pre is queued again, preempted once");
	ok(pre_resumed, "after t=28: resumed");
	ok(pre_gone, "after t=55: pre completed and gone");
	is_int(st.completed, 4, "four completed");
	is_int(st.rejected, 1, "one rejected");
	is_int(dl_sim_step(s, &err), 0, "stepping a finished run does nothing");
	dl_sim_free(s);
	dl_jobset_free(&js);
	dl_cluster_free(cl);
}

/*
 * ---- suspend and resume (Gandiva's time slices) ----
 * 2 GPUs, a and b (100 s) start alone; at 10 c (50 s) starts shared on a's
 * GPU and a is suspended with a resume cost of 2 s; c's finish at 60 hands
 * the GPU back to a, which restores 2 s and ends at 62 + 90 = 152. At 20 b
 * is suspended and restarted at once as a move (how.moved): checkpoint +
 * restore (3 + 7 s) without progress, 80 s left: 110.
 */
static void su_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)st, (void)s, (void)j;
}

static void su_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)st;
	static const int g0[1] = {0};
	if (j->idx == 2) {
		struct dl_sim_how how = DL_SIM_HOW(.gpus = g0, .shared = 1);
		ok(dl_sim_start(s, dl_sim_job(s, 0), &how) == DL_PLACED, "suspend: resumed");
		ok(dl_sim_job(s, 0)->restore_until == dl_sim_now(s) + dl_sim_ticks(2),
		   "suspend: the resume pays its own cost");
	}
}

static int su_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	(void)st, (void)job, (void)stamp;
	static const int g0[1] = {0}, g1[1] = {1};
	if (kind == 1) {
		struct dl_sim_how how = DL_SIM_HOW(.gpus = g0, .shared = 1);
		ok(dl_sim_start(s, dl_sim_job(s, 2), &how) == DL_PLACED,
		   "suspend: c shares a's GPU");
		dl_sim_suspend(s, dl_sim_job(s, 0), dl_sim_ticks(2));
		ok(dl_sim_job(s, 0)->state == DL_SJ_QUEUED, "suspend: queued at once");
		is_int(dl_sim_free_gpus(s), 0, "suspend: the GPU stays taken by c");
	} else {
		struct dl_sim_job *b = dl_sim_job(s, 1);
		dl_sim_suspend(s, b, dl_sim_ticks(1));
		struct dl_sim_how how = DL_SIM_HOW(.gpus = g1, .moved = 1);
		ok(dl_sim_start(s, b, &how) == DL_PLACED && b->migrations == 1,
		   "a moved resume counts as a migration");
	}
	return 1;
}

static void su_schedule(void *st, struct dl_sim *s)
{
	int *done = st;
	if (*done)
		return;
	*done = 1;
	static const int g0[1] = {0}, g1[1] = {1};
	struct dl_sim_how how = DL_SIM_HOW(.gpus = g0);
	dl_sim_start(s, dl_sim_job(s, 0), &how);
	how.gpus = g1;
	dl_sim_start(s, dl_sim_job(s, 1), &how);
	dl_sim_timer(s, dl_sim_ticks(10), DL_SIM_NOJOB, 1, 0);
	dl_sim_timer(s, dl_sim_ticks(20), DL_SIM_NOJOB, 2, 0);
}

static void *su_create(struct dl_sim *s, const void *p, struct dl_err *err)
{
	(void)s, (void)p, (void)err;
	return xcalloc(1, sizeof(int));
}

static const struct dl_sim_policy_ops suspend_ops = {
	.name = "suspend",
	.summary = "test",
	.create = su_create,
	.destroy = free,
	.arrive = su_arrive,
	.finish = su_finish,
	.timer = su_timer,
	.schedule = su_schedule,
};

static void test_suspend(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	ok(dl_cluster_load("1x1x2", &cl, &err) == 0, "cluster");
	struct dl_jobset js;
	dl_jobset_init(&js);
	static const char *const ids[3] = {"a", "b", "c"};
	static const double dur[3] = {100, 100, 50};
	for (int k = 0; k < 3; k++) {
		struct dl_job j = DL_JOB_INIT;
		j.id = ids[k];
		j.gpus = 1;
		j.duration = dur[k];
		dl_jobset_add(&js, &j);
	}
	char *buf = NULL, *ebuf = NULL;
	size_t len = 0, elen = 0;
	FILE *f = open_memstream(&buf, &len), *ef = open_memstream(&ebuf, &elen);
	struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV), *ew = dl_writer_new(ef, DL_OUT_CSV);
	struct dl_sim_config cfg = simrun_config(cl, &js, &suspend_ops, NULL);
	cfg.checkpoint_cost = 3;
	cfg.restore_cost = 7;
	cfg.results = w;
	cfg.events = ew;
	struct dl_sim_stats st;
	ok(dl_sim_run(&cfg, &st, &err) == 0, "suspend run: %s", err.msg);
	dl_writer_finish(w);
	dl_writer_free(w);
	dl_writer_finish(ew);
	dl_writer_free(ew);
	fclose(f);
	fclose(ef);
	ok(strstr(buf, "\nc,0,1,50,10,60,60,10,50,0,0,node,1,v100,suspend,1.2,0,,50\n") != NULL,
	   "suspend: c runs 10..60");
	ok(strstr(buf, "\na,0,1,100,0,152,152,50,102,1,0,node,1,v100,suspend,1.52,0,,102\n") !=
		   NULL,
	   "suspend: a waits 50 s, pays 2 s on resume");
	ok(strstr(buf, "\nb,0,1,100,0,110,110,0,110,1,1,node,1,v100,suspend,1.1,0,,110\n") != NULL,
	   "a moved resume pays checkpoint + restore");
	ok(strstr(ebuf, "10,a,suspend,1,,\n") && strstr(ebuf, "20,b,migrate,1,r0n0:1,\n"),
	   "suspend and migrate events");
	if (!strstr(buf, "\na,0,1,100,0,152,"))
		printf("# %s# %s", buf, ebuf);
	free(buf);
	free(ebuf);
	dl_jobset_free(&js);
	dl_cluster_free(cl);
}

static void test_lookup(void)
{
	size_t n;
	const struct dl_sim_policy_ops *const *all = dl_sim_policies(&n);
	is_int(n, 11,
	       "eleven built-in policies (the seven queueing ones, gavel, gandiva, themis and dally)");
	int found = 1;
	for (size_t i = 0; i < n; i++)
		found &= dl_sim_policy_find(all[i]->name) == all[i];
	ok(found, "every policy is found by its name");
	ok(dl_sim_policy_find("no-such-policy") == NULL, "unknown names are not");
}

/* per-slot storage: zeroed when reached, kept across growth */
struct slab_entry {
	int64_t a;
	int b;
};
DL_SLAB_DEFINE(test_slab, struct slab_entry)

static void test_slab(void)
{
	struct test_slab sl = {0};
	test_slab_at(&sl, 3)->a = 7;
	ok(sl.n >= 4, "grown to reach slot 3");
	int zero = 1;
	for (size_t i = 0; i < sl.n; i++)
		zero &= i == 3 || (sl.v[i].a == 0 && sl.v[i].b == 0);
	ok(zero, "the other entries are zero");
	test_slab_at(&sl, 100000)->b = 9;
	ok(sl.n > 100000 && test_slab_at(&sl, 3)->a == 7, "growth keeps what was there");
	ok(test_slab_at(&sl, 99999)->a == 0 && test_slab_at(&sl, 100000)->b == 9,
	   "and zeroes what is new");
	test_slab_release(&sl);
	ok(sl.v == NULL && sl.n == 0, "released");
}

/* a policy's parameters through its own table, as the command line sets them */
static void test_params(void)
{
	const struct dl_sim_policy_ops *las = dl_sim_policy_find("las");
	const struct dl_sim_policy_ops *tl = dl_sim_policy_find("tiresias-las");
	const struct dl_sim_policy_ops *fifo = dl_sim_policy_find("fifo");
	ok(las && tl && fifo, "policies found");
	ok(dl_sim_params_new(fifo) == NULL, "fifo has no parameters");
	double *q = dl_sim_params_new(las);
	ok(q && *q == 300, "las: the table's default quantum is stored");
	is_int(dl_sim_params_set(las, q, "quantum", "60"), 0, "set --quantum");
	ok(*q == 60, "stored where the table says");
	is_int(dl_sim_params_set(las, q, "quantum", "-1"), -1, "a bad value is refused");
	ok(*q == 60, "and not stored");
	is_int(dl_sim_params_set(las, q, "queues", "2"), 1, "las has no --queues");
	free(q);
	struct dl_err err = DL_ERR_INIT;
	void *p = dl_sim_params_new(tl);
	is_int(dl_sim_params_set(tl, p, "queues", "5"), 0,
	       "the shared MLFQ group is tiresias-las'");
	ok(dl_sim_params_check(tl, p, &err) < 0 && err.code == DL_EXIT_USAGE,
	   "check: 5 queues without thresholds is a usage error");
	dl_sim_params_set(tl, p, "thresholds", "10,20,30,40");
	err = (struct dl_err)DL_ERR_INIT;
	is_int(dl_sim_params_check(tl, p, &err), 0, "with 4 thresholds it is fine");
	free(p);

	/* a shared group anywhere in the params: its check gets its own struct */
	struct late_mlfq {
		double before[3];
		struct dl_mlfq_params mlfq;
	};
	const struct dl_sim_policy_ops late = {
		.name = "late-mlfq",
		.params_size = sizeof(struct late_mlfq),
		.shared = {{dl_mlfq_opts, offsetof(struct late_mlfq, mlfq), NULL,
			    dl_sq_mlfq_check}},
	};
	struct late_mlfq *lp = dl_sim_params_new(&late);
	is_int(dl_sim_params_set(&late, lp, "queues", "70"), 0,
	       "set --queues past the group's start");
	dl_sim_params_set(&late, lp, "thresholds",
			  "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,"
			  "20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,"
			  "36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,"
			  "52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,"
			  "68,69");
	ok(lp->mlfq.queues == 70 && lp->before[0] == 0, "stored in the group, not at offset 0");
	err = (struct dl_err)DL_ERR_INIT;
	ok(dl_sim_params_check(&late, lp, &err) < 0 && strstr(err.msg, "70 queues"),
	   "the group's check reads the group: 70 queues are too many (%s)", err.msg);
	free(lp);
}

/*
 * ---- the results stream: on its writer thread (dl_sim_run) and in place
 * (stepped), the same bytes ----
 * 10,000 jobs, one a second, each done in half a second, every seventh too
 * wide for the cluster (rejected on arrival), every fifth an id too long to
 * be copied short, one that needs quotes: rows in submit order, finished
 * and rejected interleaved, over more rows than the writer thread's ring.
 */
#define RES_JOBS 10000

static void results_jobs(struct dl_jobset *js, char (*ids)[48])
{
	dl_jobset_init(js);
	for (int k = 0; k < RES_JOBS; k++) {
		if (k == 4242)
			snprintf(ids[k], sizeof(ids[k]), "needs,quotes %d", k);
		else if (k % 5 == 0)
			snprintf(ids[k], sizeof(ids[k]), "a-rather-long-job-identifier-%d", k);
		else
			snprintf(ids[k], sizeof(ids[k]), "j%d", k);
		struct dl_job j = DL_JOB_INIT;
		j.id = ids[k];
		j.submit = k;
		j.gpus = k % 7 == 3 ? 99 : 1;
		j.duration = 0.5;
		dl_jobset_add(js, &j);
	}
}

/* the results of jobs js under fifo as fmt, run whole (threaded) or stepped (in place) */
static char *results_of(const struct dl_cluster *cl, const struct dl_jobset *js,
			enum dl_out_format fmt, int stepped, size_t *len)
{
	struct dl_err err = DL_ERR_INIT;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct dl_writer *w = dl_writer_new(f, fmt);
	struct dl_sim_config cfg = simrun_config(cl, js, dl_sim_policy_find("fifo"), NULL);
	cfg.results = w;
	struct dl_sim_stats st;
	int rc = 0;
	if (stepped) {
		struct dl_sim *s = dl_sim_new(&cfg, &st, &err);
		while (s && (rc = dl_sim_step(s, &err)) > 0)
			;
		dl_sim_free(s);
		rc = s && rc == 0 ? 0 : -1;
	} else {
		rc = dl_sim_run(&cfg, &st, &err);
	}
	ok(rc == 0, "%s run: %s", stepped ? "stepped" : "whole", err.msg);
	is_int(st.rejected, (RES_JOBS + 3) / 7, "every seventh job rejected");
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(f);
	return buf;
}

static void test_results_stream(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	dl_cluster_load("1x1x8", &cl, &err);
	static char ids[RES_JOBS][48];
	struct dl_jobset js;
	results_jobs(&js, ids);
	for (int json = 0; json < 2; json++) {
		enum dl_out_format fmt = json ? DL_OUT_JSON : DL_OUT_CSV;
		size_t tlen, slen;
		char *whole = results_of(cl, &js, fmt, 0, &tlen);
		char *stepped = results_of(cl, &js, fmt, 1, &slen);
		ok(tlen == slen && !memcmp(whole, stepped, tlen),
		   "%s: the writer thread writes what stepping writes in place",
		   json ? "JSON" : "CSV");
		if (!json) {
			/* a row per job, in submit order, each finished or rejected as it should */
			int in_order = 1, rows = 0;
			struct strbuf want = STRBUF_INIT;
			char *line = strchr(whole, '\n');
			for (; line && line[1]; line = strchr(line + 1, '\n'), rows++) {
				const char *id = ids[rows];
				sb_reset(&want);
				sb_addf(&want, strchr(id, ',') ? "\"%s\"," : "%s,", id);
				char *end = strchr(line + 1, '\n'), *last = end;
				/* rejected: a reason before the last field (occupied_gpu_s) */
				while (last && last > line + 2 && last[-1] != ',')
					last--;
				int rejected = last && last[-2] != ',';
				if (strncmp(line + 1, want.buf, want.len) ||
				    rejected != (rows % 7 == 3))
					in_order = 0;
			}
			sb_release(&want);
			is_int(rows, RES_JOBS, "a row per job");
			ok(in_order, "rows in submit order, rejected ones where they arrived");
		}
		free(whole);
		free(stepped);
	}
	dl_jobset_free(&js);
	dl_cluster_free(cl);
}

/*
 * ---- the livelock detector ----
 * A policy that swaps two 1-GPU jobs on one GPU, each run `slice` ticks past
 * its restore (checkpoints 5 s, restores 10 s): with a microsecond slice the
 * jobs progress a microsecond in 15 s, so no job would complete for ages
 * (1000 s of work) while the clock runs; the run must stop with the
 * livelock error. With a second's slice (a sixteenth of the GPU time goes
 * to progress) the jobs swap more than the detector's two million
 * preemptions without a completion, yet the run is no livelock: it ends.
 */
struct swapper {
	dl_tick slice;
	size_t next;
};

static void *sw_create(struct dl_sim *s, const void *p, struct dl_err *err)
{
	(void)s, (void)err;
	struct swapper *W = xcalloc(1, sizeof(*W));
	W->slice = *(const dl_tick *)p;
	return W;
}

static void sw_nop(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)st, (void)s, (void)j;
}

static int sw_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	(void)st, (void)kind;
	struct dl_sim_job *j = dl_sim_job(s, job);
	if (!j || j->version != stamp || j->state != DL_SJ_RUNNING)
		return 0;
	dl_sim_preempt(s, j);
	return 1;
}

static void sw_schedule(void *st, struct dl_sim *s)
{
	struct swapper *W = st;
	if (!dl_sim_free_gpus(s))
		return;
	for (size_t k = 0; k < 2; k++) {
		struct dl_sim_job *j = dl_sim_job(s, (W->next + k) % 2);
		if (j && j->state == DL_SJ_QUEUED && dl_sim_start(s, j, NULL) == DL_PLACED) {
			W->next = (j->idx + 1) % 2;
			dl_sim_timer(s, j->restore_until + W->slice, j->idx, 0, j->version);
			return;
		}
	}
}

static const struct dl_sim_policy_ops swapper_ops = {
	.name = "swapper",
	.summary = "test",
	.create = sw_create,
	.destroy = free,
	.arrive = sw_nop,
	.saved = sw_nop,
	.finish = sw_nop,
	.timer = sw_timer,
	.schedule = sw_schedule,
};

static int swap_run(dl_tick slice, double duration, struct dl_sim_stats *st, struct dl_err *err)
{
	struct dl_cluster *cl = NULL;
	dl_cluster_load("1x1x1", &cl, err);
	struct dl_jobset js;
	dl_jobset_init(&js);
	for (int k = 0; k < 2; k++) {
		struct dl_job j = DL_JOB_INIT;
		j.id = k ? "b" : "a";
		j.gpus = 1;
		j.duration = duration;
		dl_jobset_add(&js, &j);
	}
	struct dl_sim_config cfg = simrun_config(cl, &js, &swapper_ops, &slice);
	cfg.checkpoint_cost = 5;
	cfg.restore_cost = 10;
	int rc = dl_sim_run(&cfg, st, err);
	dl_jobset_free(&js);
	dl_cluster_free(cl);
	return rc;
}

static void test_livelock(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_sim_stats st;
	ok(swap_run(1, 1000, &st, &err) < 0 && err.code == DL_EXIT_DATA &&
		   strstr(err.msg, "policy 'swapper' makes no progress: from time 1e-06 on"),
	   "a swap that progresses a microsecond in 15 s is a livelock: %s", err.msg);
	is_int(st.completed, 0, "livelock: no completion");
	ok(st.passes < 5000000, "livelock: stopped after its two million preemptions (%zu passes)",
	   (size_t)st.passes);
	err = (struct dl_err)DL_ERR_INIT;
	ok(swap_run(DL_TICKS_PER_SECOND, 1100000, &st, &err) == 0 && st.completed == 2,
	   "a slow swap (a sixteenth of the time) is no livelock: %s", err.msg);
}

/* ---- a slot's GPUs: inside its record for small gangs, an array for wide ones ---- */

/*
 * Jobs one after another on an empty 1x2x16 cluster, so each reuses the
 * last one's slot with a gang below, at and above the record's room for 8:
 * first fit gives each GPUs 0..k-1, which its GPU list must hold at its
 * start and halfway through its run. Under ASan, a wrong free of the record's own
 * room (or a lost array) fails the run.
 */
static const int reuse_gpus[] = {1, 12, 3, 32, 8, 9, 2, 16, 8, 1, 17};

struct reuse {
	int starts, intact, finishes;
};

static int reuse_holds_first(const struct dl_sim_job *j)
{
	int good = j->ngpu == j->gpus;
	for (int k = 0; k < j->ngpu && good; k++)
		good = j->gpu[k] == k;
	return good;
}

static void *ru_create(struct dl_sim *s, const void *p, struct dl_err *err)
{
	(void)s, (void)p, (void)err;
	return calloc(1, sizeof(struct reuse));
}

static void ru_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct reuse *R = st;
	R->starts += dl_sim_start(s, j, NULL) == DL_PLACED;
	R->intact += reuse_holds_first(j);
	dl_sim_timer(s, dl_sim_now(s) + dl_sim_ticks(25), j->idx, 0, 0); /* halfway */
}

static int ru_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp)
{
	struct reuse *R = st;
	(void)kind, (void)stamp;
	R->intact += reuse_holds_first(dl_sim_job(s, job));
	return 0;
}

static void ru_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	struct reuse *R = st;
	(void)s, (void)j;
	R->finishes++;
}

static void ru_schedule(void *st, struct dl_sim *s)
{
	(void)st, (void)s;
}

static struct reuse *ru_seen;

static void ru_destroy(void *st)
{
	*ru_seen = *(struct reuse *)st;
	free(st);
}

static const struct dl_sim_policy_ops reuse_ops = {
	.name = "reuse",
	.summary = "test",
	.create = ru_create,
	.destroy = ru_destroy,
	.arrive = ru_arrive,
	.finish = ru_finish,
	.timer = ru_timer,
	.schedule = ru_schedule,
};

static void test_gpu_room(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	ok(dl_cluster_load("1x2x16", &cl, &err) == 0, "cluster");
	struct dl_jobset js;
	dl_jobset_init(&js);
	size_t n = DL_ARRAY_SIZE(reuse_gpus);
	for (size_t k = 0; k < n; k++) {
		struct dl_job j = DL_JOB_INIT;
		char id[16];
		snprintf(id, sizeof(id), "r%zu", k);
		j.id = id;
		j.gpus = reuse_gpus[k];
		j.submit = (double)k * 100; /* each done (50 s) before the next comes */
		j.duration = 50;
		dl_jobset_add(&js, &j);
	}
	struct reuse seen = {0};
	ru_seen = &seen;
	struct dl_sim_config cfg = simrun_config(cl, &js, &reuse_ops, NULL);
	struct dl_sim_stats st;
	ok(dl_sim_run(&cfg, &st, &err) == 0, "run: %s", err.msg);
	is_int(st.completed, (int64_t)n, "every gang completes");
	is_int(st.peak_active, 1, "one slot, reused by every job");
	is_int(seen.starts, (int)n, "every gang starts at once");
	is_int(seen.finishes, (int)n, "the policy hears of every completion");
	is_int(seen.intact, 2 * (int)n, "each GPU list holds its GPUs at start and halfway");
	dl_jobset_free(&js);
	dl_cluster_free(cl);
}

/*
 * dl_sim_type_free against its definition, the free GPUs of the type's nodes
 * (dl_sim_node_free summed), at every call of a policy that starts any job
 * that fits as jobs of mixed gangs come and go on three types of node. The
 * policy also hints dl_sim_prefetch at slots in range and far past it, which
 * must change nothing.
 */
struct typefree {
	int checks, bad, starts;
};

static void tf_check(struct typefree *T, struct dl_sim *s)
{
	const struct dl_cluster *c = dl_sim_cluster(s);
	int all = 0;
	for (size_t t = 0; t < c->ntypes; t++) {
		int sum = 0;
		for (size_t n = 0; n < c->nnodes; n++)
			if (c->nodes[n].type == (int)t)
				sum += dl_sim_node_free(s, (int)n);
		T->bad += dl_sim_type_free(s, (int)t) != sum;
		all += sum;
		T->checks++;
	}
	T->bad += dl_sim_type_free(s, DL_ANY_TYPE) != all || dl_sim_free_gpus(s) != all;
}

static void *tf_create(struct dl_sim *s, const void *p, struct dl_err *err)
{
	(void)s, (void)p, (void)err;
	return calloc(1, sizeof(struct typefree));
}

static void tf_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)j;
	tf_check(st, s);
}

static void tf_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)j;
	tf_check(st, s);
}

static void tf_schedule(void *st, struct dl_sim *s)
{
	struct typefree *T = st;
	for (size_t k = 0; k < dl_sim_slots(s); k++) {
		/* the hint, a few slots ahead as a loop would give it, in range or past it */
		dl_sim_prefetch(s, k + 3);
		dl_sim_prefetch(s, SIZE_MAX / 2);
		struct dl_sim_job *j = dl_sim_slot_job(s, k);
		if (j && j->state == DL_SJ_QUEUED && j->gpus <= dl_sim_free_gpus(s)) {
			T->starts += dl_sim_start(s, j, NULL) == DL_PLACED;
			tf_check(T, s);
		}
	}
}

static struct typefree *tf_seen;

static void tf_destroy(void *st)
{
	*tf_seen = *(struct typefree *)st;
	free(st);
}

static const struct dl_sim_policy_ops typefree_ops = {
	.name = "typefree",
	.summary = "test",
	.create = tf_create,
	.destroy = tf_destroy,
	.arrive = tf_arrive,
	.finish = tf_finish,
	.schedule = tf_schedule,
};

static void test_type_free(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	ok(dl_cluster_load("1x2x4:k80,1x3x2:v100,1x1x8:p100", &cl, &err) == 0, "cluster: %s",
	   err.msg);
	struct dl_jobset js;
	dl_jobset_init(&js);
	uint64_t rs = 7;
	for (int k = 0; k < 300; k++) {
		struct dl_job j = DL_JOB_INIT;
		char id[16];
		snprintf(id, sizeof(id), "t%d", k);
		j.id = id;
		j.gpus = 1 << (dl_splitmix64(&rs) % 4);
		j.submit = (double)k * 3;
		j.duration = 1 + (double)(dl_splitmix64(&rs) % 60);
		dl_jobset_add(&js, &j);
	}
	struct typefree seen = {0};
	tf_seen = &seen;
	struct dl_sim_config cfg = simrun_config(cl, &js, &typefree_ops, NULL);
	struct dl_sim_stats st;
	ok(dl_sim_run(&cfg, &st, &err) == 0, "run: %s", err.msg);
	is_int(st.completed, 300, "every job completes");
	ok(seen.starts >= 300 && seen.checks > 3000, "%d starts, %d checks", seen.starts,
	   seen.checks);
	is_int(seen.bad, 0, "dl_sim_type_free is the sum of its nodes' free GPUs");
	dl_jobset_free(&js);
	dl_cluster_free(cl);
}

int main(void)
{
	test_gpu_room();
	test_type_free();
	test_oset();
	test_interface();
	test_rho_comm();
	test_suspend();
	test_steps();
	test_lookup();
	test_params();
	test_slab();
	test_results_stream();
	test_livelock();
	return done_testing();
}
