/* test_cluster.c: every SPEC form of dl_cluster_load, and its errors */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "tap.h"

#define TD "testdata/cluster/"

/* write text to a fresh temporary file; path receives its name */
static void tmpfile_with(char path[64], const char *text)
{
	snprintf(path, 64, "/tmp/dlsched_test_cluster_XXXXXX");
	int fd = mkstemp(path);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static struct dl_cluster *load(const char *spec, struct dl_err *err)
{
	struct dl_cluster *c = NULL;
	dl_err_clear(err);
	if (dl_cluster_load(spec, &c, err) < 0)
		return NULL;
	return c;
}

static void check_consistent(const struct dl_cluster *c, const char *what)
{
	int g = 0, okk = 1;
	for (size_t i = 0; i < c->nnodes; i++) {
		okk &= c->nodes[i].first_gpu == g;
		okk &= c->nodes[i].rack >= 0 && (size_t)c->nodes[i].rack < c->nracks;
		okk &= c->nodes[i].type >= 0 && (size_t)c->nodes[i].type < c->ntypes;
		g += c->nodes[i].gpus;
	}
	for (size_t r = 0; r < c->nracks; r++)
		for (int k = 0; k < c->racks[r].nnodes; k++)
			okk &= (size_t)c->nodes[c->racks[r].first_node + k].rack == r;
	ok(okk && g == c->total_gpus, "%s: nodes, racks and GPU numbering agree", what);
}

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c;

	c = load("2x16x8:v100,1x16x4:k80", &err);
	ok(c != NULL, "shorthand loads");
	if (c) {
		is_int(c->nracks, 3, "shorthand racks");
		is_int(c->nnodes, 48, "shorthand nodes");
		is_int(c->total_gpus, 2 * 16 * 8 + 16 * 4, "shorthand GPUs");
		is_int(c->ntypes, 2, "two types");
		is_str(c->nodes[17].name, "r1n1", "node names are rack+index");
		is_int(dl_cluster_type_gpus(c, dl_cluster_type_index(c, "K80")), 64, "k80 GPUs");
		is_double(c->types[dl_cluster_type_index(c, "k80")].speed, 0.30, 1e-9,
			  "k80 speed from the built-in table");
		is_int(dl_cluster_node_index(c, "r2n15"), 47, "node by name");
		check_consistent(c, "shorthand");
		dl_cluster_free(c);
	}
	c = load("1x4x8", &err);
	ok(c && !strcmp(c->types[0].name, "v100"), "shorthand type defaults to v100");
	dl_cluster_free(c);

	const char *bad[] = {"", "2x16", "2x16x8:", "2x16x8:nope", "2xx8", "2x16x8,", "-1x2x3",
			     "1000000x1000x1000", "0x0x0", "3x3x3x3", "x", "1:2"};
	for (size_t i = 0; i < DL_ARRAY_SIZE(bad); i++) {
		c = load(bad[i], &err);
		ok(!c && err.msg[0], "bad spec '%s' is an error: %s", bad[i], err.msg);
		dl_cluster_free(c);
	}
	c = load("2x2x2:x9000", &err);
	ok(!c && strstr(err.msg, "unknown GPU type 'x9000'"), "unknown type named: %s", err.msg);

	c = load("36:36:36", &err);
	ok(c && c->total_gpus == 108 && c->ntypes == 3 && c->nnodes == 108,
	   "Gavel V:P:K: 1 GPU per server by default");
	dl_cluster_free(c);
	c = load("32:0:16/4:1:8", &err);
	ok(c && c->total_gpus == 48 && c->nnodes == 10 && c->nracks == 2, "Gavel V:P:K/S:S:S");
	dl_cluster_free(c);
	c = load("30:0:0/4:1:1", &err);
	ok(!c && strstr(err.msg, "do not fill"), "V:P:K with partial servers: %s", err.msg);

	c = load(TD "gavel_specs_heterogeneous.json", &err);
	ok(c && c->total_gpus == 900 && c->ntypes == 3, "Gavel cluster_specs JSON (300:300:300)");
	dl_cluster_free(c);
	c = load(TD "gavel_specs_heterogeneous.json#philly", &err);
	ok(c && c->total_gpus == 900, "Gavel cluster_specs JSON with #key");
	dl_cluster_free(c);
	c = load(TD "gavel_specs_heterogeneous.json#nope", &err);
	ok(!c && strstr(err.msg, "'nope'"), "unknown #key: %s", err.msg);

	c = load(TD "n160g8.csv", &err);
	ok(c != NULL, "Tiresias n160g8 loads: %s", err.msg);
	if (c) {
		is_int(c->total_gpus, 1280, "n160g8: 1280 GPUs");
		is_int(c->nracks, 5, "n160g8: switches become racks");
		is_int(c->nodes[0].cpus, 128, "n160g8: CPUs per node");
		is_double(c->nodes[0].mem_gb, 256, 0, "n160g8: memory per node");
		check_consistent(c, "tiresias");
		dl_cluster_free(c);
	}
	c = load(TD "cluster_spec.csv", &err);
	ok(c && c->total_gpus == 64, "Tiresias cluster_spec.csv: 64 GPUs");
	dl_cluster_free(c);

	c = load(TD "pai_machine_spec.csv", &err);
	ok(c != NULL, "PAI machine table loads: %s", err.msg);
	if (c) {
		is_int(c->total_gpus, 6742, "PAI: 6,742 GPUs");
		is_int(c->nnodes, 1814, "PAI: 1,814 GPU machines (CPU-only skipped)");
		is_int(c->ntypes, 5, "PAI: five GPU types");
		static const struct {
			const char *t;
			int g;
		} want[] = {{"misc", 2240}, {"p100", 1596}, {"v100m32", 1080}, {"t4", 994},
			    {"v100", 832}};
		for (size_t i = 0; i < DL_ARRAY_SIZE(want); i++)
			is_int(dl_cluster_type_gpus(c, dl_cluster_type_index(c, want[i].t)),
			       want[i].g, "PAI: %s GPUs", want[i].t);
		check_consistent(c, "pai");
		dl_cluster_free(c);
	}

	c = load(TD "small.json", &err);
	ok(c != NULL, "JSON spec loads: %s", err.msg);
	if (c) {
		is_int(c->nracks, 3, "JSON: racks with count expand");
		is_int(c->total_gpus, 2 * 8 + 4 + 2 * 3 * 4, "JSON: GPUs");
		is_str(c->racks[0].name, "a", "JSON: rack name");
		is_str(c->nodes[2].name, "big", "JSON: node name");
		int f = dl_cluster_type_index(c, "fast");
		ok(f >= 0 && c->types[f].speed == 2.5 && c->types[f].cost_per_hour == 4,
		   "JSON: custom type");
		is_double(c->link[DL_TIER_RACK].bandwidth_gbps, 50, 0, "JSON: rack link");
		is_int(c->nodes[0].cpus, 64, "JSON: node cpus");
		check_consistent(c, "json");
		dl_cluster_free(c);
	}
	c = load(TD "bad_type.json", &err);
	ok(!c && strstr(err.msg, "bad_type.json:5:") && strstr(err.msg, "'x9000'"),
	   "JSON unknown type has file:line: %s", err.msg);

	char tp[64];
	tmpfile_with(tp, "m1,V100,96,512,8\n");
	c = load(tp, &err);
	ok(c && c->total_gpus == 8 && !strcmp(c->nodes[0].name, "m1"), "one-line PAI table");
	dl_cluster_free(c);
	remove(tp);
	tmpfile_with(tp, "hello\n");
	c = load(tp, &err);
	ok(!c && strstr(err.msg, ":1: not a cluster spec"), "junk file: %s", err.msg);
	remove(tp);
	tmpfile_with(tp, "  4x2x8:a100 \n");
	c = load(tp, &err);
	ok(c && c->total_gpus == 64, "a file holding a shorthand");
	dl_cluster_free(c);
	remove(tp);

	c = load("no/such/file.json", &err);
	ok(!c && err.msg[0], "missing file is an error: %s", err.msg);
	ok(dl_gpu_builtin("V100") && !dl_gpu_builtin("v200"), "built-in lookup");
	return done_testing();
}
