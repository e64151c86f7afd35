/* test_prioritize.c: priority policies, MLFQ inside them, and the tie-break order */
#include <math.h>
#include <stdlib.h>

#include "policy/priority.h"
#include "tap.h"

#define N 6

static void setup(struct dl_prio_job *j)
{
	/* id, submit, gpus, duration, executed, waiting */
	static const char *ids[N] = {"a", "10", "9", "b", "x", "2"};
	static const double v[N][5] = {
		{0, 8, 5000, 600, 100}, {10, 1, 200, 0, 150}, {10, 2, 9000, 4000, 300},
		{30, 4, 3000, 100, 0},	{40, 1, 120, 100, 0}, {50, 2, 20000, 5000, 9000},
	};
	memset(j, 0, N * sizeof(*j));
	for (size_t i = 0; i < N; i++) {
		j[i].id = ids[i];
		j[i].submit = v[i][0];
		j[i].gpus = v[i][1];
		j[i].duration = v[i][2];
		j[i].executed = v[i][3];
		j[i].waiting = v[i][4];
		j[i].attained = v[i][1] * v[i][3];
		j[i].remaining = v[i][2] - v[i][3];
		j[i].weight = 1;
		j[i].pos = i;
	}
}

/* the ids in rank order, joined by spaces */
static const char *order(const struct dl_prio_config *c, struct dl_prio_job *j)
{
	static char buf[128];
	struct dl_prio_job sorted[N];
	size_t *ord = dl_prioritize(c, j, N);
	buf[0] = 0;
	for (size_t i = 0; i < N; i++) {
		if (j[ord[i]].rank != i + 1) {
			free(ord);
			return "bad rank";
		}
		strcat(buf, i ? " " : "");
		strcat(buf, j[ord[i]].id);
		sorted[i] = j[ord[i]];
	}
	free(ord);
	/* callers below look at the jobs best first */
	memcpy(j, sorted, sizeof(sorted));
	return buf;
}

int main(void)
{
	struct dl_prio_job j[N];
	struct dl_prio_config c = {0};
	struct dl_err err = DL_ERR_INIT;

	c.policy = DL_POLICY_FIFO;
	setup(j);
	/* submit ties at 10: integer ids before others, numerically: 9 before 10 */
	is_str(order(&c, j), "a 9 10 b x 2", "fifo, ties by submit then id");
	c.policy = DL_POLICY_SJF;
	setup(j);
	is_str(order(&c, j), "x 10 b a 9 2", "sjf by duration");
	c.policy = DL_POLICY_SRTF;
	setup(j);
	is_str(order(&c, j), "x 10 b a 9 2", "srtf by remaining");
	is_double(j[0].priority, 20, 0, "srtf priority = remaining");
	c.policy = DL_POLICY_LAS;
	setup(j);
	is_str(order(&c, j), "10 b x a 9 2", "las by executed (b and x tie at 100: submit)");
	c.policy = DL_POLICY_LAS2D;
	setup(j);
	is_str(order(&c, j), "10 x b a 9 2", "2d-las by GPU-seconds");
	is_double(j[2].priority, 400, 0, "2d-las priority = gpus x executed");

	/* weights: b (4 GPUs x 100) weighted 8 beats x (100) */
	setup(j);
	j[3].weight = 8;
	c.weights = 1;
	is_str(order(&c, j), "10 b x a 9 2", "2d-las / weight");
	is_double(j[1].priority, 50, 0, "weighted priority 400/8");
	c.policy = DL_POLICY_FIFO;
	setup(j);
	j[5].weight = 3;
	is_str(order(&c, j), "2 a 9 10 b x", "fifo with weights: heaviest first");
	c.weights = 0;

	/* MLFQ on GPU-seconds [1000, 10000]: Q0 {10:0, x:100, b:400}, Q1 {a:4800, 9:8000,
	 * 2:10000->Q2} */
	struct dl_mlfq m;
	double lim[] = {1000, 10000};
	ok(dl_mlfq_init(&m, 3, lim, 2, 0, &err) == 0, "mlfq");
	c.policy = DL_POLICY_LAS2D;
	c.mlfq = &m;
	setup(j);
	is_str(order(&c, j), "10 b x a 9 2", "discretised 2d-las: FIFO inside each queue");
	is_int(j[5].queue, 2, "10000 GPU-s is in Q2");
	is_int(j[3].queue, 1, "4800 GPU-s is in Q1");
	dl_mlfq_release(&m);
	/* starvation N = 2: job 2 ran 5000 s and waited 9000 < 10000: stays; job 9 ran 4000 waited
	 * 300 */
	ok(dl_mlfq_init(&m, 3, lim, 2, 1.5, &err) == 0, "mlfq with starvation 1.5");
	setup(j);
	is_str(order(&c, j), "10 b x 2 a 9", "waited 9000 >= 1.5 x 5000: back to Q0");
	is_int(j[3].queue, 0, "promoted job in Q0");
	dl_mlfq_release(&m);
	c.mlfq = NULL;

	/* Gittins on a distribution where short jobs dominate */
	double s[] = {100, 200, 300, 400, 50000, 60000};
	struct dl_gittins *g = dl_gittins_new(s, 6, 500, DL_GITTINS_EXACT, &err);
	ok(g != NULL, "gittins");
	c.policy = DL_POLICY_GITTINS;
	c.gittins = g;
	ok(dl_prio_check(&c, &err) == 0, "gittins config ok");
	setup(j);
	const char *got = order(&c, j);
	/* every job with executed >= 400 has the same index (only long jobs left) */
	ok(!strncmp(got, "10 b x", 6) || !strncmp(got, "10 x b", 6),
	   "gittins: the least-served first here (%s)", got);
	ok(j[0].priority >= j[N - 1].priority, "gittins: highest index first");
	for (size_t i = 1; i < N; i++)
		if (dl_prio_cmp(&j[i - 1], &j[i]) >= 0)
			ok(0, "sorted at %zu", i);
	dl_gittins_free(g);
	c.gittins = NULL;
	c.policy = DL_POLICY_GITTINS2D;
	ok(dl_prio_check(&c, &err) < 0 && strstr(err.msg, "distribution"),
	   "2d-gittins without a distribution: %s", err.msg);

	/* ftf: rho = (now - submit + remaining) / duration */
	c.policy = DL_POLICY_FTF;
	c.now = 100;
	setup(j);
	dl_prio_eval(&c, &j[1], N);
	is_double(j[1].priority, (100 - 10 + 200) / 200.0, 1e-12, "rho of job 10");
	c.cluster_gpus = 6; /* share 1 GPU per job: job a (8 GPUs) ideal = 5000 x 8 */
	dl_prio_eval(&c, &j[0], N);
	is_double(j[0].priority, (100 - 0 + 4400) / 40000.0, 1e-12, "rho with a 1/n share");
	setup(j);
	c.cluster_gpus = 0;
	/* rho: 10 1.45, b .99, a .9, 2 .7525, x .667, 9 .566 */
	is_str(order(&c, j), "10 b a 2 x 9", "ftf: least fair first");
	c.now = 0;

	/* config checks */
	ok(dl_mlfq_init(&m, 2, lim, 1, 0, &err) == 0, "2 queues");
	c.policy = DL_POLICY_SRTF;
	c.mlfq = &m;
	ok(dl_prio_check(&c, &err) == 0, "srtf + queues is fine");
	ok(dl_prio_needs(&c) & DL_NEED_EXECUTED, "srtf with queues reads executed");
	c.policy = DL_POLICY_FTF;
	ok(dl_prio_check(&c, &err) < 0 && strstr(err.msg, "no queues"), "ftf + queues: %s",
	   err.msg);
	dl_mlfq_release(&m);
	c.mlfq = NULL;

	enum dl_policy p;
	ok(dl_policy_parse("2d-gittins", &p) == 0 && p == DL_POLICY_GITTINS2D, "parse 2d-gittins");
	ok(dl_policy_parse("tiresias", &p) < 0, "reject unknown policy");
	is_str(dl_policy_name(DL_POLICY_LAS2D), "2d-las", "policy name");
	return done_testing();
}
