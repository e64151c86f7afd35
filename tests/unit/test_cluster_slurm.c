/*
 * test_cluster_slurm.c: clusters read from Slurm's own node lists (scontrol
 * show node, with and without -o, and sinfo -N -o '%N %c %m %G'), on output
 * captured from a real slurmctld 22.05 (testdata/cluster/slurm/NOTE.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "tap.h"

#define TD "testdata/cluster/slurm/"

static void tmpfile_with(char path[64], const char *text)
{
	snprintf(path, 64, "/tmp/dlsched_test_slurm_XXXXXX");
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

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_cluster *c;

	c = load(TD "scontrol_show_node_o.txt", &err);
	check_captured(c, "scontrol show node -o");
	dl_cluster_free(c);
	c = load(TD "scontrol_show_node.txt", &err);
	check_captured(c, "scontrol show node");
	dl_cluster_free(c);
	c = load(TD "sinfo_N.txt", &err);
	check_captured(c, "sinfo -N");
	dl_cluster_free(c);

	c = load(TD "sinfo_aggregated.txt", &err);
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
	return done_testing();
}
