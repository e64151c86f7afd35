/*
 * test_cluster.c: every SPEC form of dl_cluster_load, and its errors; Slurm's node
 * lists on output captured from a real slurmctld 22.05 (testdata/cluster/slurm/).
 */
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

#define SLURM TD "slurm/"

static struct dl_cluster *load_text(const char *text, struct dl_err *err)
{
	char path[64];
	tmpfile_with(path, text);
	struct dl_cluster *c = load(path, err);
	unlink(path);
	return c;
}

static int type_gpus(const struct dl_cluster *c, const char *name)
{
	int t = dl_cluster_type_index(c, name);
	return t < 0 ? -1 : dl_cluster_type_gpus(c, t);
}

/* the captured cluster: gpu01, gpu02 (8 a100 each, gpu02 drained), localhost (2 v100 +
 * 2 a100), old01 (4 untyped, down), cpu01 (no GPUs) */
static void check_captured(const struct dl_cluster *c, const char *what)
{
	if (!ok(c != NULL, "%s: loads", what))
		return;
	is_int(c->total_gpus, 24, "%s: 24 GPUs (CPU-only cpu01 left out)", what);
	is_int(c->nnodes, 5, "%s: 5 nodes (localhost split by type)", what);
	is_int(c->nracks, 1, "%s: one rack (no topology in the node list)", what);
	is_int(type_gpus(c, "a100"), 18, "%s: 18 a100", what);
	is_int(type_gpus(c, "v100"), 2, "%s: 2 v100", what);
	is_int(type_gpus(c, "gpu"), 4, "%s: untyped gpu:4 is type 'gpu'", what);
	int speeds1 = 1;
	for (size_t t = 0; t < c->ntypes; t++)
		speeds1 &= c->types[t].speed == 1.0;
	ok(speeds1, "%s: every type runs at speed 1 (sacct times are measured on them)", what);
	int g1 = dl_cluster_node_index(c, "gpu01");
	ok(g1 >= 0 && c->nodes[g1].gpus == 8 && c->nodes[g1].cpus == 64 &&
		   c->nodes[g1].mem_gb == 500,
	   "%s: gpu01 has 8 GPUs, 64 CPUs, 512000 MB", what);
	ok(dl_cluster_node_index(c, "gpu02") >= 0 && dl_cluster_node_index(c, "old01") >= 0,
	   "%s: drained and down nodes are in", what);
	int lv = dl_cluster_node_index(c, "localhost/v100");
	int la = dl_cluster_node_index(c, "localhost/a100");
	ok(lv >= 0 && la >= 0 && c->nodes[lv].gpus == 2 && c->nodes[la].gpus == 2 &&
		   c->nodes[lv].cpus == 2,
	   "%s: a node with two types becomes NODE/TYPE per type", what);
	ok(dl_cluster_node_index(c, "cpu01") < 0, "%s: no CPU-only node", what);
}

/* clusters from Slurm's node lists, on real slurmctld output (testdata/cluster/slurm) */
static void test_slurm(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c;

	c = load(SLURM "scontrol_show_node_o.txt", &err);
	check_captured(c, "scontrol show node -o");
	dl_cluster_free(c);
	c = load(SLURM "scontrol_show_node.txt", &err);
	check_captured(c, "scontrol show node");
	dl_cluster_free(c);
	c = load(SLURM "sinfo_N.txt", &err);
	check_captured(c, "sinfo -N");
	dl_cluster_free(c);

	c = load(SLURM "sinfo_aggregated.txt", &err);
	ok(!c && strstr(err.msg, "sinfo_aggregated.txt:2:") && strstr(err.msg, "-N"),
	   "sinfo without -N: error at line 2 asking for -N (%s)", err.msg);

	/* Gres forms: sockets in parentheses (with a comma), a type named twice, other GRES */
	c = load_text("NodeName=n1 CPUTot=8 Gres=gpu:a100:4(S:0,1),gpu:a100:4(S:2-3),shard:16 "
		      "RealMemory=2048 State=IDLE\n",
		      &err);
	ok(c && c->total_gpus == 8 && c->nnodes == 1 && !strcmp(c->nodes[0].name, "n1") &&
		   c->nodes[0].mem_gb == 2,
	   "gpu:a100:4(S:0,1),gpu:a100:4(S:2-3),shard:16: one node of 8 a100 (%s)", err.msg);
	dl_cluster_free(c);
	/* a Reason with blanks and an '=' after the keys does not change them */
	c = load_text("NodeName=n1 Gres=gpu:t4:2 OS=Linux 6.1 #1 SMP State=DOWN "
		      "Reason=bad Gres=gpu:9 [root@2026-11-23T09:24:26]\n",
		      &err);
	ok(c && c->total_gpus == 2 && type_gpus(c, "t4") == 2,
	   "the first Gres= of a record counts");
	dl_cluster_free(c);
	c = load_text("NodeName=n1 Gres=gpu:a100:x\n", &err);
	ok(!c && strstr(err.msg, ":1: bad Gres entry 'gpu:a100:x'"), "bad Gres count: %s", err.msg);
	c = load_text("NodeName=n1 Gres=gpu:4 CPUTot=many\n", &err);
	ok(!c && strstr(err.msg, ":1: bad CPUTot value 'many'"), "bad CPUTot: %s", err.msg);
	c = load_text("NodeName=n1 Gres=(null)\nNodeName=n2 Gres=(null)\n", &err);
	ok(!c && strstr(err.msg, "no node with GPUs"), "no GPU node: %s", err.msg);
	c = load_text("NODELIST CPUS MEMORY GRES\nn1 8 100 gpu:2\nn1 8 100 gpu:4\n", &err);
	ok(!c && strstr(err.msg, ":3: node 'n1' is listed twice with different Gres"),
	   "a node twice with two Gres: %s", err.msg);
	c = load_text("NODELIST NODES PARTITION STATE\nn1 1 debug idle\n", &err);
	ok(!c && strstr(err.msg, ":1: sinfo output without the NODELIST and GRES columns"),
	   "sinfo without GRES: %s", err.msg);
	c = load_text("NODELIST|GRES\nn1|gpu:v100:4\nn2|gpu:v100:4\n", &err);
	ok(c && c->total_gpus == 8 && c->nnodes == 2, "sinfo with '|' and only NODELIST, GRES");
	dl_cluster_free(c);
	c = load_text("NODELIST GRES\nn1 gpu:v100:4 extra\n", &err);
	ok(!c && strstr(err.msg, ":2: expected 2 fields, found 3"), "sinfo ragged row: %s",
	   err.msg);
	c = load_text("NodeName=n1 Gres=gpu:4\nGres=gpu:2\n", &err);
	ok(!c && strstr(err.msg, ":2: expected a NodeName= line"), "stray line: %s", err.msg);
}

/* the indexes built at load: every GPU's node, and the types fastest first */
static void test_indexes(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c = load("1x2x4:k80,1x1x8:v100m32,1x3x2:a100,1x1x2:v100", &err);
	if (!ok(c != NULL, "indexes: cluster (%s)", err.msg))
		return;
	int bad = 0;
	for (size_t i = 0; i < c->nnodes; i++)
		for (int k = 0; k < c->nodes[i].gpus; k++)
			bad += dl_cluster_gpu_node(c, c->nodes[i].first_gpu + k) != (int)i;
	ok(!bad && c->total_gpus == 24, "indexes: each of the 24 GPUs is on its node");
	int want[4] = {2, 1, 3, 0}; /* a100; v100m32 and v100 tie in the spec's order; k80 */
	int same = c->ntypes == 4;
	for (size_t t = 0; same && t < 4; t++)
		same = c->type_order[t] == want[t];
	ok(same, "indexes: types fastest first, ties in the spec's order");
	dl_cluster_free(c);
}

int main(void)
{
	test_indexes();
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
	test_slurm();
	return done_testing();
}
