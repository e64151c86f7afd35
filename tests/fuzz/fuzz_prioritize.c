/*
 * fuzz_prioritize.c: arbitrary bytes as a jobs-with-state table through
 * dl_prio_read, every policy and dl_prio_write, and as a Gittins sample file.
 * The first byte picks the policy, MLFQ, starvation and weights; the rest is
 * the table. Checks: reading either fails with a message or succeeds, and
 * then the ranks are 1..n in a strictly increasing dl_prio_cmp order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "policy/priority_io.h"
#include "fuzz_util.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	char path[64];
	int fd = to_fd_path(data + 1, size - 1, path);
	if (fd < 0)
		return 0;
	struct dl_err err = DL_ERR_INIT;

	/* the same bytes as a distribution file */
	struct dl_gittins *g =
		dl_gittins_load(path, "executed", 100, (enum dl_gittins_arith)(sel % 3), &err);
	if (g) {
		for (double a = 0; a < 1e6; a = a * 3 + 1) {
			double x = dl_gittins_index(g, a);
			if (!(x >= 0) || isinf(x))
				abort();
		}
		dl_gittins_free(g);
	} else if (!err.msg[0]) {
		abort();
	}
	double samples[] = {10, 20, 300, 4000, 50000};
	g = dl_gittins_new(samples, 5, 250, DL_GITTINS_TIRESIAS, &err);

	struct dl_mlfq m;
	double lim[] = {100, 1000};
	dl_mlfq_init(&m, (sel & 8) ? 3 : 1, lim, (sel & 8) ? 2 : 0, 0, &err);
	if ((sel & 8) && (sel & 16))
		m.starvation = 1.5;
	struct dl_prio_config c = {
		.policy = (enum dl_policy)(sel % DL_POLICY_COUNT),
		.mlfq = &m,
		.gittins = g,
		.weights = (sel & 32) != 0,
		.now = 1e6,
		.has_now = (sel & 64) != 0,
		.cluster_gpus = (sel & 128) ? 64 : 0,
	};
	if (!dl_policy_has_queues(c.policy)) {
		m.nqueues = 1;
		m.starvation = 0;
	}
	if (dl_prio_check(&c, &err) < 0)
		abort();

	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, &err);
	if (r) {
		struct dl_prio_table t;
		if (dl_prio_read(r, &c, &t, &err) == 0) {
			size_t *order = dl_prioritize(&c, t.jobs, t.n);
			for (size_t i = 0; i < t.n; i++) {
				if (t.jobs[order[i]].rank != i + 1)
					abort();
				if (i && dl_prio_cmp(&t.jobs[order[i - 1]], &t.jobs[order[i]]) >= 0)
					abort();
			}
			FILE *out = fopen("/dev/null", "w");
			struct dl_writer *w =
				dl_writer_new(out, (sel & 1) ? DL_OUT_JSON : DL_OUT_CSV);
			dl_prio_write(&t, order, w);
			dl_writer_free(w);
			fclose(out);
			free(order);
			dl_prio_table_release(&t);
		} else if (!err.msg[0]) {
			abort();
		}
		dl_reader_close(r);
	}
	dl_mlfq_release(&m);
	dl_gittins_free(g);
	close(fd);
	return 0;
}
