/*
 * test_prioritize_sort.c: dl_prioritize's radix sort must give exactly the
 * dl_prio_cmp order (a total order, positions being distinct): random jobs
 * with many ties in submit time and id, integer and text ids, NaN, -0 and
 * infinite sizes, under several policies.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy/priority.h"
#include "core/rng.h"
#include "tap.h"

static uint64_t rng_state = 12345;

static uint64_t rnd(void)
{
	return dl_splitmix64(&rng_state);
}

static double pick(void)
{
	switch (rnd() % 12) {
	case 0:
		return NAN;
	case 1:
		return -0.0;
	case 2:
		return 0.0;
	case 3:
		return INFINITY;
	case 4:
		return -1.5;
	default:
		return (double)(rnd() % 50);
	}
}

static int run(enum dl_policy policy, size_t n, int weights)
{
	static const char *text_ids[] = {"a", "b", "job-7", "", "10x"};
	static const char *int_ids[] = {"1", "2", "10", "-3", "007", "99999999999"};
	struct dl_prio_job *j = calloc(n ? n : 1, sizeof(*j));
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd() % 3;
		j[i].id = r == 0 ? NULL : r == 1 ? text_ids[rnd() % 5] : int_ids[rnd() % 6];
		j[i].submit = pick();
		j[i].gpus = 1 + (double)(rnd() % 4);
		j[i].duration = pick();
		j[i].executed = pick();
		j[i].attained = pick();
		j[i].remaining = pick();
		j[i].waiting = (double)(rnd() % 100);
		j[i].weight = 1 + (double)(rnd() % 3);
		j[i].pos = n - i; /* not the array order */
	}
	struct dl_prio_config c = {.policy = policy, .weights = weights};
	size_t *ord = dl_prioritize(&c, j, n);
	int good = 1;
	for (size_t i = 0; i < n; i++) {
		if (j[ord[i]].rank != i + 1)
			good = 0;
		if (i > 0 && dl_prio_cmp(&j[ord[i - 1]], &j[ord[i]]) >= 0)
			good = 0;
	}
	free(ord);
	free(j);
	return good;
}

int main(void)
{
	static const enum dl_policy pol[] = {DL_POLICY_FIFO, DL_POLICY_SJF, DL_POLICY_SRTF,
					     DL_POLICY_LAS, DL_POLICY_LAS2D};
	static const size_t sizes[] = {0, 1, 2, 3, 17, 1000, 100000};
	for (size_t p = 0; p < sizeof(pol) / sizeof(pol[0]); p++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int w = 0; w < 2; w++)
				ok(run(pol[p], sizes[s], w),
				   "policy %d, %zu jobs, weights %d: dl_prio_cmp order",
				   (int)pol[p], sizes[s], w);
	return done_testing();
}
