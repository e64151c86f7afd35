/*
 * test_sim_policy.c: a whole scheduling policy written against policy.h
 * alone, as a new policy's author would, and runs of it checked by hand.
 *
 * round-robin: jobs start in arrival order on any GPU type; a job that has
 * run --slice seconds is preempted (checkpoint, then back at the tail of the
 * queue), so every waiting job gets a turn. Shipping it would take this file
 * moved to lib/sim/round_robin.c, `&dl_sim_round_robin,` in registry.c's
 * table (and its extern in policies.h), and a "# ROUND-ROBIN" section in
 * man/dlsched-simulate.1.scd; simulate's --policy, --help, option parsing
 * and completions follow the registry. Nothing here reaches into the engine:
 * costs, counters and events are the verbs' (dl_sim_start, dl_sim_preempt),
 * the policy only chooses.
 */
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "sim/sim.h"
#include "sim/slab.h"
#include "simrun.h"
#include "tap.h"

/* ---- the policy ---- */

struct rr_params {
	double slice; /* seconds a job runs before the next waiting one gets its GPUs */
};

static const struct dl_opt rr_opts[] = {
	{DL_OPT_SECONDS, 0, "slice", "S", "a job runs S seconds, then goes to the queue's tail",
	 DL_OPT_AT(struct rr_params, slice), .max = DL_SECONDS_MAX, .def = "600"},
	{DL_OPT_END},
};

/* slices shorter than a second would be a pass per microsecond */
static int rr_check(const void *params, struct dl_err *err)
{
	const struct rr_params *p = params;
	if (p->slice < 1)
		return dl_err_set(err, DL_EXIT_USAGE, "--slice must be 1 s or more");
	return 0;
}

struct rr_job {
	uint64_t turn; /* which of its turns is running: a slice timer names it */
};
DL_SLAB_DEFINE(rr_jobs, struct rr_job)

struct rr {
	dl_tick slice;
	size_t *queue; /* job indices, FIFO: queue[head..tail) */
	size_t head, tail, cap;
	struct rr_jobs jobs;
};

static void *rr_create(struct dl_sim *s, const void *params, struct dl_err *err)
{
	(void)s, (void)err;
	struct rr *R = xcalloc(1, sizeof(*R));
	R->slice = dl_sim_ticks(((const struct rr_params *)params)->slice);
	return R;
}

static void rr_destroy(void *st)
{
	struct rr *R = st;
	free(R->queue);
	rr_jobs_release(&R->jobs);
	free(R);
}

static void rr_push(struct rr *R, const struct dl_sim_job *j)
{
	if (R->tail == R->cap && R->head > 0) { /* full at the end: move the queue down */
		memmove(R->queue, R->queue + R->head, (R->tail - R->head) * sizeof(*R->queue));
		R->tail -= R->head;
		R->head = 0;
	}
	if (R->tail == R->cap) {
		R->cap = R->cap ? 2 * R->cap : 16;
		R->queue = xrealloc(R->queue, R->cap * sizeof(*R->queue));
	}
	R->queue[R->tail++] = j->idx;
}

static void rr_arrive(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)s;
	rr_jobs_at(&((struct rr *)st)->jobs, j->slot)->turn = 0;
	rr_push(st, j);
}

/* its checkpoint is written: it waits for its next turn at the tail */
static void rr_saved(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)s;
	rr_push(st, j);
}

static void rr_finish(void *st, struct dl_sim *s, struct dl_sim_job *j)
{
	(void)st, (void)s, (void)j;
}

/* a slice ended: the job goes unless it already finished or the timer is old */
static int rr_timer(void *st, struct dl_sim *s, size_t job, int kind, uint64_t turn)
{
	(void)kind;
	struct rr *R = st;
	struct dl_sim_job *j = dl_sim_job(s, job);
	if (!j || j->state != DL_SJ_RUNNING || rr_jobs_at(&R->jobs, j->slot)->turn != turn)
		return 0;
	dl_sim_preempt(s, j);
	return 1;
}

/* start queued jobs in order while they fit; the head waits for room */
static void rr_schedule(void *st, struct dl_sim *s)
{
	struct rr *R = st;
	while (R->head < R->tail) {
		struct dl_sim_job *j = dl_sim_job(s, R->queue[R->head]);
		struct dl_sim_how how = DL_SIM_HOW(); /* any GPU type, the engine's pause */
		enum dl_decision d = dl_sim_start(s, j, &how);
		if (d == DL_WAIT)
			return;
		R->head++;
		if (d == DL_REJECT)
			continue; /* gone */
		uint64_t turn = ++rr_jobs_at(&R->jobs, j->slot)->turn;
		/* the slice counts from the end of its restore: the pause is not its turn */
		dl_sim_timer(s, j->restore_until + R->slice, j->idx, 0, turn);
	}
}

static const struct dl_sim_policy_ops dl_sim_round_robin = {
	.name = "round-robin",
	.summary = "arrival order, each job --slice seconds at a time",
	.opts = rr_opts,
	.params_size = sizeof(struct rr_params),
	.check = rr_check,
	.create = rr_create,
	.destroy = rr_destroy,
	.arrive = rr_arrive,
	.saved = rr_saved,
	.finish = rr_finish,
	.timer = rr_timer,
	.schedule = rr_schedule,
};

/* ---- runs of it ---- */

static void add_job(struct dl_jobset *js, const char *id, double submit, double duration)
{
	struct dl_job j = {0};
	j.id = id;
	j.submit = submit;
	j.gpus = 1;
	j.duration = duration;
	j.model = j.user = j.vc = j.gpu_type = j.state = "";
	j.weight = 1;
	j.steps = -1;
	dl_jobset_add(js, &j);
}

/* run js on spec under round-robin with --slice slice; the results CSV (free it) */
static char *run(const char *spec, const struct dl_jobset *js, const char *slice,
		 struct dl_sim_stats *st)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, &err) < 0) {
		ok(0, "cluster %s: %s", spec, err.msg);
		return NULL;
	}
	void *params = dl_sim_params_new(&dl_sim_round_robin);
	ok(dl_sim_params_set(&dl_sim_round_robin, params, "slice", slice) == 0 &&
		   dl_sim_round_robin.check(params, &err) == 0,
	   "--slice %s", slice);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(f, DL_OUT_CSV);
	struct dl_sim_config cfg = simrun_config(cl, js, &dl_sim_round_robin, params);
	cfg.checkpoint_cost = 1;
	cfg.restore_cost = 2;
	cfg.results = w;
	ok(dl_sim_run(&cfg, st, &err) == 0, "round-robin on %s: %s", spec, err.msg);
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(f);
	free(params);
	dl_cluster_free(cl);
	return buf;
}

/* the row of job id in results csv, up to its 7th field (id,submit,gpus,duration,start,end,jct) */
static int has_row(const char *csv, const char *row)
{
	if (csv && strstr(csv, row))
		return 1;
	printf("# no row %s in:\n%s", row, csv ? csv : "(none)\n");
	return 0;
}

/*
 * One GPU, --slice 10, checkpoint 1 s, restore 2 s; a (15 s) and b (5 s) at 0.
 * a runs 0..10 and saves until 11 (b waits); b runs 11..16 and ends; a
 * resumes at 16, restores until 18 and does its last 5 s: ends at 23.
 */
static void test_turns(void)
{
	struct dl_jobset js;
	dl_jobset_init(&js);
	add_job(&js, "a", 0, 15);
	add_job(&js, "b", 0, 5);
	struct dl_sim_stats st;
	char *csv = run("1x1x1", &js, "10", &st);
	ok(has_row(csv, "\na,0,1,15,0,23,23,"), "a: a turn, then the rest after b, paying 2 s");
	ok(has_row(csv, "\nb,0,1,5,11,16,16,"), "b: its turn comes when a's checkpoint is written");
	is_int(st.completed, 2, "both complete");
	free(csv);

	/* a slice longer than the job: no preemption, plain arrival order */
	csv = run("1x1x1", &js, "60", &st);
	ok(has_row(csv, "\na,0,1,15,0,15,15,") && has_row(csv, "\nb,0,1,5,15,20,20,"),
	   "--slice longer than a job: arrival order");
	free(csv);
	dl_jobset_free(&js);

	/* one after another, each as the last ends: the queue wraps and grows */
	static const char *const ids[20] = {"j0",  "j1",  "j2",	 "j3",	"j4",  "j5",  "j6",
					    "j7",  "j8",  "j9",	 "j10", "j11", "j12", "j13",
					    "j14", "j15", "j16", "j17", "j18", "j19"};
	dl_jobset_init(&js);
	for (int k = 0; k < 20; k++)
		add_job(&js, ids[k], 5 * k, 5);
	csv = run("1x1x1", &js, "60", &st);
	ok(st.completed == 20 && has_row(csv, "\nj19,95,1,5,95,100,5,"), "20 jobs in turn");
	free(csv);
	dl_jobset_free(&js);
}

/*
 * DL_SIM_HOW() means any GPU type: two jobs on a k80 and a v100 both start
 * at 0 (a zero-initialised how would have meant type 0 and kept one waiting).
 */
static void test_any_type(void)
{
	struct dl_jobset js;
	dl_jobset_init(&js);
	add_job(&js, "a", 0, 20);
	add_job(&js, "b", 0, 20);
	struct dl_sim_stats st;
	char *csv = run("1x1x1:k80,1x1x1:v100", &js, "600", &st);
	ok(has_row(csv, "\na,0,1,20,0,") && has_row(csv, "\nb,0,1,20,0,"),
	   "DL_SIM_HOW(): both types used at once");
	free(csv);
	dl_jobset_free(&js);
}

static void test_check(void)
{
	struct dl_err err = DL_ERR_INIT;
	void *params = dl_sim_params_new(&dl_sim_round_robin);
	is_int(dl_sim_params_set(&dl_sim_round_robin, params, "slice", "0.5"), 0,
	       "--slice 0.5 parses");
	ok(dl_sim_round_robin.check(params, &err) < 0 && strstr(err.msg, "--slice"),
	   "--slice under 1 s is refused by check()");
	is_int(dl_sim_params_set(&dl_sim_round_robin, params, "quantum", "5"), 1,
	       "another policy's option is not round-robin's");
	free(params);
}

int main(void)
{
	test_turns();
	test_any_type();
	test_check();
	return done_testing();
}
