/*
 * fuzz_cluster.c: arbitrary bytes through the cluster spec loader, as a file
 * (JSON, Tiresias CSV, PAI table, one-line shorthand) or, when the input
 * starts with "S:", as a SPEC argument. A loaded cluster must be internally
 * consistent, and the free-GPU state and a placer must work on it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "policy/place.h"
#include "fuzz_util.h"

static void check(const struct dl_cluster *c)
{
	long long g = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct dl_node *n = &c->nodes[i];
		if (n->first_gpu != g || n->rack < 0 || (size_t)n->rack >= c->nracks || n->type < 0 ||
		    (size_t)n->type >= c->ntypes || n->gpus < 0 || !n->name)
			abort();
		g += n->gpus;
	}
	if (g != c->total_gpus || g <= 0)
		abort();
	for (size_t r = 0; r < c->nracks; r++)
		for (int k = 0; k < c->racks[r].nnodes; k++)
			if ((size_t)c->nodes[c->racks[r].first_node + k].rack != r)
				abort();
	if (c->total_gpus > (1 << 16))
		return; /* keep each run fast */
	struct dl_cluster_state *st = dl_state_new(c);
	struct dl_place_opts o = DL_PLACE_OPTS_INIT;
	o.policy = DL_PLACE_CONSOLIDATE;
	struct dl_placer *p = dl_placer_new(st, &o);
	int *gpus = malloc(sizeof(int) * ((size_t)c->total_gpus + 1));
	struct dl_placement pl = {0};
	pl.gpus = gpus;
	for (int k = 1; k <= c->total_gpus; k *= 3) {
		struct dl_place_req req = {k, DL_ANY_TYPE, 0, 0};
		dl_place(p, &req, &pl);
		if (pl.decision == DL_PLACED && pl.ngpus != k)
			abort();
	}
	if (dl_state_total_free(st) < 0)
		abort();
	free(gpus);
	dl_placer_free(p);
	dl_state_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c = NULL;
	if (size >= 2 && data[0] == 'S' && data[1] == ':') {
		if (size > 300 || memchr(data, '\0', size))
			return 0;
		char *spec = strndup((const char *)data + 2, size - 2);
		/* a SPEC naming a file would read the disk: only shorthand/V:P:K here */
		if (spec && !strchr(spec, '/') && !strchr(spec, '.') && !strchr(spec, '#') &&
		    dl_cluster_load(spec, &c, &err) == 0) {
			check(c);
			dl_cluster_free(c);
		}
		free(spec);
		return 0;
	}
	char path[64];
	int fd = to_fd_path(data, size, path);
	if (fd < 0)
		return 0;
	if (dl_cluster_load(path, &c, &err) == 0) {
		check(c);
		dl_cluster_free(c);
	} else if (!err.msg[0]) {
		abort(); /* a failure must say why */
	}
	close(fd);
	return 0;
}
