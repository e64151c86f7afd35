/*
 * test_advise.c: the plan of dlsched advise on random queues. For every queue
 * (up to 8 pending jobs, priorities with many ties) the new priorities fall in
 * the policy's order, the jobs kept are untouched, no smaller set of changes
 * exists (checked against every subset), and a second plan on the changed
 * queue changes nothing, under both mechanisms.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "core/strbuf.h"
#include "core/rng.h"
#include "tap.h"

static uint64_t rng_state = 4242;

static uint64_t rnd(void)
{
	return dl_splitmix64(&rng_state);
}

/* squeue -o text of n pending jobs 1..n submitted in that order (fifo's order) */
static void queue_text(struct strbuf *sb, size_t n, const int64_t *prio, const int64_t *nice)
{
	sb_reset(sb);
	sb_addstr(sb, "JOBID|USER|ACCOUNT|PARTITION|SUBMIT_TIME|NODES|TRES_PER_NODE|TIME_LIMIT|"
		      "PRIORITY|NICE|STATE|TIME\n");
	for (size_t i = 0; i < n; i++)
		sb_addf(sb,
			"%zu|u|a|debug|2026-01-01T00:00:%02zu|1|gres:gpu:1|10:00|%lld|%lld|PENDING|0:00\n",
			i + 1, i, (long long)prio[i], (long long)nice[i]);
}

/* the most jobs that can keep their priority: every subset, by brute force */
static size_t most_kept(const int64_t *p, size_t n)
{
	size_t best = 0;
	for (unsigned s = 1; s < (1u << n); s++) {
		size_t k = 0, last = SIZE_MAX;
		int ok = 1;
		for (size_t i = 0; i < n && ok; i++) {
			if (!(s & (1u << i)))
				continue;
			if (last != SIZE_MAX && p[last] - p[i] < (int64_t)(i - last))
				ok = 0;
			last = i;
			k++;
		}
		if (ok && k > best)
			best = k;
	}
	return best;
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct dl_prio_config cfg = {.policy = DL_POLICY_FIFO};
	struct dl_adv_filter any = {0};
	int bad_order = 0, bad_kept = 0, not_minimal = 0, second = 0, errors = 0;
	for (int round = 0; round < 3000; round++) {
		size_t n = 1 + rnd() % 8;
		enum dl_adv_mech mech = rnd() % 2 ? DL_ADV_NICE : DL_ADV_PRIORITY;
		int64_t prio[8], nice[8], by_policy[8];
		for (size_t i = 0; i < n; i++) {
			prio[i] = 1000 + (int64_t)(rnd() % (round % 3 ? 12 : 40));
			nice[i] = (int64_t)(rnd() % 5);
		}
		struct dl_adv_queue q;
		struct dl_adv_plan p;
		struct dl_err err = DL_ERR_INIT;
		queue_text(&sb, n, prio, nice);
		if (dl_adv_queue_parse(&q, "q", sb.buf, sb.len, &err) ||
		    dl_adv_attained(&q, NULL, 0, &err) ||
		    dl_adv_plan_build(&q, &cfg, &any, mech, 100, &p, &err)) {
			errors++;
			printf("# round %d: %s\n", round, err.msg);
			continue;
		}
		size_t kept = 0;
		for (size_t r = 0; r < p.n; r++) {
			const struct dl_adv_item *it = &p.items[r];
			by_policy[r] = it->job->priority;
			if (r && !(p.items[r - 1].new_priority > it->new_priority))
				bad_order++;
			if (!it->change && it->new_priority != it->job->priority)
				bad_kept++;
			if (mech == DL_ADV_NICE &&
			    it->after != it->job->nice + it->job->priority - it->new_priority)
				bad_kept++;
			kept += !it->change;
		}
		if (p.n != n || kept != most_kept(by_policy, n))
			not_minimal++;
		/* Slurm after the plan: the new priorities (and nice values) */
		for (size_t r = 0; r < p.n; r++) {
			size_t i = (size_t)atoi(p.items[r].job->id) - 1;
			prio[i] = p.items[r].new_priority;
			if (mech == DL_ADV_NICE)
				nice[i] = p.items[r].after;
		}
		dl_adv_plan_release(&p);
		dl_adv_queue_release(&q);
		queue_text(&sb, n, prio, nice);
		if (dl_adv_queue_parse(&q, "q", sb.buf, sb.len, &err) ||
		    dl_adv_attained(&q, NULL, 0, &err) ||
		    dl_adv_plan_build(&q, &cfg, &any, mech, 100, &p, &err)) {
			errors++;
			continue;
		}
		second += p.nchanges != 0;
		dl_adv_plan_release(&p);
		dl_adv_queue_release(&q);
	}
	is_int(errors, 0, "every random queue parses and plans");
	is_int(bad_order, 0, "new priorities strictly decrease in the policy's order");
	is_int(bad_kept, 0,
	       "a job without a change keeps its priority; nice moves by the difference");
	is_int(not_minimal, 0, "the fewest changes (every subset tried)");
	is_int(second, 0, "a second plan on the changed queue changes nothing");

	/* filters: a job outside them is not in the plan; held and CPU jobs are left alone */
	const char *text =
		"JOBID|USER|ACCOUNT|PARTITION|SUBMIT_TIME|NODES|TRES_PER_NODE|TIME_LIMIT|"
		"PRIORITY|NICE|STATE|TIME\n"
		"1|ann|x|gpu,debug|2026-01-01T00:00:00|1|gres:gpu:1|5:00|10|0|PENDING|0:00\n"
		"2|bob|x|gpu|2026-01-01T00:00:01|1|gres:gpu:1|5:00|20|0|PENDING|0:00\n"
		"3|ann|y|gpu|2026-01-01T00:00:02|1|gres:gpu:1|5:00|30|0|PENDING|0:00\n"
		"4|ann|x|gpu|2026-01-01T00:00:03|1|gres:gpu:1|5:00|0|0|PENDING|0:00\n"
		"5|ann|x|gpu|2026-01-01T00:00:04|1|N/A|5:00|40|0|PENDING|0:00\n"
		"6|ann|x|gpu|2026-01-01T00:00:05|2|gres:gpu:v100:2|5:00|50|0|RUNNING|1:00\n";
	const char *ann[] = {"ann"}, *x[] = {"x"}, *debug[] = {"debug"};
	struct dl_adv_filter f = {.users = ann, .nusers = 1, .accounts = x, .naccounts = 1};
	struct dl_adv_queue q;
	struct dl_adv_plan p;
	struct dl_err err = DL_ERR_INIT;
	int rc = dl_adv_queue_parse(&q, "q", text, strlen(text), &err);
	is_int(rc, 0, "the filter queue parses");
	if (!rc) {
		is_int(q.jobs[5].gpus, 4, "GPUs per node times nodes");
		dl_adv_attained(&q, NULL, 0, &err);
		is_double(q.jobs[5].attained, 240, 0, "a running job's service: TIME x GPUs");
		rc = dl_adv_plan_build(&q, &cfg, &f, DL_ADV_NICE, 100, &p, &err);
		is_int(rc, 0, "filtered plan");
		is_int((int64_t)p.n, 1, "only ann's account-x GPU job that is not held");
		is_str(p.n ? p.items[0].job->id : "", "1", "job 1");
		is_int((int64_t)p.nskipped, 4, "bob's, account y, held, CPU-only: left alone");
		is_int((int64_t)p.nrunning, 1, "one running");
		dl_adv_plan_release(&p);
		struct dl_adv_filter fp = {.partitions = debug, .npartitions = 1};
		dl_adv_plan_build(&q, &cfg, &fp, DL_ADV_NICE, 100, &p, &err);
		is_int((int64_t)p.n, 1, "a job pending in gpu,debug matches --partition debug");
		dl_adv_plan_release(&p);
		dl_adv_queue_release(&q);
	}
	sb_release(&sb);
	return done_testing();
}
