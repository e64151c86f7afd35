/*
 * fuzz_allocate.c: arbitrary bytes as an allocate jobs stream, then solved.
 *
 * The first byte picks the policy (modulo the number of policies) and
 * whether to use 2 POP partitions (bit 7); the rest is the jobs stream for
 * a cluster of 2 v100, 1 p100 and 1 k80 (throughput_TYPE columns). Whatever
 * the reader accepts must either solve or fail with exit 3 (no solution) or
 * 2 (min-cost without prices cannot happen here), and a solved allocation
 * must satisfy Gavel's base constraints with a finite objective.
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

#include "policy/alloc_input.h"
#include "fuzz_util.h"


static void check(const struct dl_alloc_problem *p, const struct dl_alloc_result *r)
{
	size_t n = p->ntypes;
	const double eps = 1e-6;
	double *used = calloc(n + 1, sizeof(double));
	for (size_t i = 0; i < p->njobs; i++) {
		double s = 0;
		for (size_t t = 0; t < n; t++) {
			double x = r->x[i * n + t];
			if (!(x >= 0 && x <= 1))
				abort();
			s += x;
			used[t] += p->jobs[i].gpus * x;
		}
		if (s > 1 + eps)
			abort();
	}
	for (size_t t = 0; t < n; t++)
		if (used[t] > p->capacity[t] * (1 + eps) + eps)
			abort();
	if (p->njobs && isnan(r->objective))
		abort();
	free(used);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char path[64];
	int fd = to_fd_path(data + 1, size - 1, path);
	if (fd < 0)
		return 0;
	struct dl_err err = DL_ERR_INIT;
	struct dl_alloc_problem p;
	if (dl_alloc_cluster_types("1x1x2:v100,1x1x1:p100,1x1x1:k80", &p, &err))
		abort();
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, &err);
	int ok = r && !dl_alloc_read_jobs(r, NULL, NULL, &p, &err);
	if (r)
		dl_reader_close(r);
	close(fd);
	if (ok && p.njobs <= 40) {
		struct dl_alloc_opts o = DL_ALLOC_OPTS_INIT;
		struct dl_alloc_result res;
		o.policy = (enum dl_alloc_policy)(data[0] % DL_ALLOC_NPOLICIES);
		o.partitions = data[0] & 0x80 ? 2 : 1;
		o.lp.time_limit = 2;
		if (!dl_alloc_solve(&p, &o, &res, &err)) {
			check(&p, &res);
			dl_alloc_result_free(&res);
		} else if (err.code != DL_EXIT_NOSOL) {
			fprintf(stderr, "unexpected failure: %s\n", err.msg);
			abort();
		}
	}
	dl_alloc_problem_free(&p);
	return 0;
}
