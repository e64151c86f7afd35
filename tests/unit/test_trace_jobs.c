/* test_trace_jobs.c: jobs stream validation, jobset, throughputs table, rng */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "tap.h"
#include "trace/jobs.h"
#include "trace/throughputs.h"

static char *write_tmp(const char *text)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/dltestXXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		abort();
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* load text as a jobs file; returns rc and leaves the message in err */
static int load(const char *text, struct dl_jobset *js, struct dl_err *err)
{
	char *p = write_tmp(text);
	dl_err_clear(err);
	int rc = dl_jobset_load(js, p, DL_IN_AUTO, err);
	unlink(p);
	free(p);
	return rc;
}

/* the error message without the temporary file name */
static const char *msg_tail(const struct dl_err *err)
{
	const char *p = strchr(err->msg, ':');
	return p ? p + 1 : err->msg;
}

static void test_bad(const char *text, const char *want, const char *name)
{
	struct dl_jobset js;
	struct dl_err err = DL_ERR_INIT;
	dl_jobset_init(&js);
	int rc = load(text, &js, &err);
	is_int(rc, -1, "%s fails", name);
	is_str(msg_tail(&err), want, "%s message", name);
	dl_jobset_free(&js);
}

static void test_jobs(void)
{
	struct dl_jobset js;
	struct dl_err err = DL_ERR_INIT;
	dl_jobset_init(&js);
	int rc = load("id,submit,gpus,duration,note,user\n"
		      "a,10,2,100,x,alice\n"
		      "b,5,1,50.5,\"y,z\",\n"
		      "c,5,4,7,w,bob\n",
		      &js, &err);
	is_int(rc, 0, "valid jobs load: %s", err.msg);
	is_int(js.n, 3, "three jobs");
	is_str(js.jobs[1].id, "b", "id kept");
	is_double(js.jobs[1].duration, 50.5, 0, "decimal duration");
	is_int(js.jobs[2].gpus, 4, "gpus");
	is_double(js.jobs[0].weight, 1, 0, "weight defaults to 1");
	is_double(js.jobs[0].steps, -1, 0, "steps absent = -1");
	is_int(js.npass, 1, "one pass-through column");
	is_str(js.pass[0], "note", "pass-through column name");
	is_int(js.jobs[2].line, 4, "line numbers kept");
	dl_jobset_sort_submit(&js);
	is_str(js.jobs[0].id, "b", "sorted: first submit 5 in input order");
	is_str(js.jobs[1].id, "c", "stable tie order");
	is_str(js.jobs[2].id, "a", "sorted last");
	is_str(js.jobs[0].extra[0], "y,z", "pass-through value follows its job");

	char buf[4096] = {0};
	FILE *fp = fmemopen(buf, sizeof(buf) - 1, "w");
	struct dl_writer *w = dl_writer_new(fp, DL_OUT_CSV);
	dl_jobset_write(&js, w);
	dl_writer_free(w);
	fclose(fp);
	is_str(buf,
	       "id,submit,gpus,duration,user,note\n"
	       "b,5,1,50.5,,\"y,z\"\n"
	       "c,5,4,7,bob,w\n"
	       "a,10,2,100,alice,x\n",
	       "written with known columns first, then pass-through");
	dl_jobset_free(&js);

	test_bad("id,submit,gpus\na,1,1\n", " missing required column 'duration'",
		 "missing duration");
	test_bad("id,submit,gpus,duration\na,1,1,x\n",
		 "2: bad duration value 'x': expected a number > 0", "bad duration");
	test_bad("id,submit,gpus,duration\na,1,1,0\n",
		 "2: bad duration value '0': expected a number > 0", "zero duration");
	test_bad("id,submit,gpus,duration\na,1,1,-3\n",
		 "2: bad duration value '-3': expected a number > 0", "negative duration");
	test_bad("id,submit,gpus,duration\na,1,1,1\nb,-1,1,1\n",
		 "3: bad submit value '-1': expected a number >= 0", "negative submit");
	test_bad("id,submit,gpus,duration\na,1,0,1\n",
		 "2: bad gpus value '0': expected an integer >= 1", "zero gpus");
	test_bad("id,submit,gpus,duration\na,1,1.5,1\n",
		 "2: bad gpus value '1.5': expected an integer >= 1", "fractional gpus");
	test_bad("id,submit,gpus,duration\n,1,1,1\n", "2: empty id value", "empty id");
	test_bad("id,submit,gpus,duration,weight\na,1,1,1,-2\n",
		 "2: bad weight value '-2': expected a number >= 0", "negative weight");
	test_bad("{\"id\":1,\"submit\":0,\"gpus\":2,\"duration\":\"nan\"}\n",
		 "1: bad duration value 'nan': expected a number > 0", "JSON NaN duration");

	/* jobs built in memory: optional columns appear once set */
	dl_jobset_init(&js);
	struct dl_job j = DL_JOB_INIT;
	j.id = "x";
	j.duration = 3;
	j.gpus = 1;
	j.vc = "vc1";
	dl_jobset_add(&js, &j);
	ok(js.has & (1u << DL_JC_VC), "vc column in use after a job sets it");
	ok(!(js.has & (1u << DL_JC_MODEL)), "model column unused");
	dl_jobset_free(&js);
}

static void test_tputs(void)
{
	struct dl_tputs t = DL_TPUTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	const char *json = "{\"v100\": {\"('ResNet-50 (batch size 64)', 2)\": {\"null\": 10.5,"
			   " \"('LM (batch size 5)', 2)\": [4, 3.25]},"
			   " \"('A3C', 1)\": {\"null\": 1}}, \"k80\": {\"('A3C', 1)\": {\"null\": "
			   "0.5}}}";
	int rc = dl_tputs_import_gavel_buf(&t, "g.json", json, strlen(json), &err);
	is_int(rc, 0, "gavel JSON imports: %s", err.msg);
	is_int(t.n, 4, "four entries");
	is_double(dl_tputs_get(&t, "ResNet-50 (batch size 64)", "v100", 2), 10.5, 0,
		  "solo throughput");
	is_double(dl_tputs_get(&t, "A3C", "k80", 1), 0.5, 0, "other type");
	is_double(dl_tputs_get(&t, "A3C", "k80", 2), -1, 0, "absent key");
	const struct dl_tput *p =
		dl_tputs_find(&t, "ResNet-50 (batch size 64)", "v100", 2, "LM (batch size 5)");
	ok(p && p->throughput == 4 && p->partner_throughput == 3.25, "pair entry");
	const char **models;
	size_t nm = dl_tputs_models(&t, 1, &models);
	is_int(nm, 1, "one model with 1 GPU");
	free(models);
	dl_tputs_sort(&t);
	is_str(t.v[0].model, "A3C", "sorted by model");
	is_double(dl_tputs_get(&t, "A3C", "v100", 1), 1, 0, "index rebuilt after sort");
	dl_tputs_free(&t);

	const char *bad[] = {
		"[1]",
		"{\"v100\": {\"ResNet\": {\"null\": 1}}}",
		"{\"v100\": {\"('A', 1)\": {\"null\": -1}}}",
		"{\"v100\": {\"('A', 1)\": {\"('B', 2)\": [1, 1]}}}",
		"{\"v100\": {\"('A', 1)\": {\"('B', 1)\": [1]}}}",
		"{\"v100\": {\"('A', x)\": {\"null\": 1}}}",
		"{\"v100\": ",
		"{}",		  /* no entries: every lookup would miss */
		"{\"v100\": {}}", /* the same */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct dl_tputs b = DL_TPUTS_INIT;
		dl_err_clear(&err);
		rc = dl_tputs_import_gavel_buf(&b, "g.json", bad[i], strlen(bad[i]), &err);
		ok(rc == -1 && !strncmp(err.msg, "g.json:", 7), "bad gavel JSON %zu rejected: %s",
		   i, err.msg);
		dl_tputs_free(&b);
	}

	char *path = write_tmp("model,gpu_type,gpus,throughput\nA,v100,1,2\nA,v100,1,3\n");
	dl_err_clear(&err);
	rc = dl_tputs_load(&t, path, DL_IN_AUTO, &err);
	ok(rc == -1 && strstr(err.msg, ":3: duplicate throughput for model 'A' on 1 'v100' "
				       "(first on line 2)"),
	   "duplicate key names both lines: %s", err.msg);
	dl_tputs_free(&t);
	unlink(path);
	free(path);
}

static void test_rng(void)
{
	struct dl_rng a, b;
	dl_rng_seed(&a, 42);
	dl_rng_seed(&b, 42);
	int same = 1;
	for (int i = 0; i < 100; i++)
		same &= dl_rng_u64(&a) == dl_rng_u64(&b);
	ok(same, "same seed, same sequence");
	dl_rng_seed(&b, 43);
	ok(dl_rng_u64(&a) != dl_rng_u64(&b), "different seeds differ");
	/* reference value of xoshiro256** seeded with splitmix64(0) */
	dl_rng_seed(&a, 0);
	uint64_t first = dl_rng_u64(&a);
	is_int(first == 0x99ec5f36cb75f2b4ULL, 1, "xoshiro256** reference output (%llx)",
	       (unsigned long long)first);
	double sum = 0, mn = 1, mx = 0;
	int counts[6] = {0};
	for (int i = 0; i < 60000; i++) {
		double u = dl_rng_uniform(&a);
		sum += u;
		mn = u < mn ? u : mn;
		mx = u > mx ? u : mx;
		counts[dl_rng_below(&a, 6)]++;
	}
	is_double(sum / 60000, 0.5, 0.01, "uniform mean");
	ok(mn >= 0 && mx < 1, "uniform in [0,1)");
	int fair = 1;
	for (int k = 0; k < 6; k++)
		fair &= counts[k] > 9500 && counts[k] < 10500;
	ok(fair, "below(6) roughly uniform");
	double es = 0;
	for (int i = 0; i < 100000; i++)
		es += dl_rng_exp(&a, 3);
	is_double(es / 100000, 3, 0.05, "exponential mean");
}

int main(void)
{
	test_jobs();
	test_tputs();
	test_rng();
	return done_testing();
}
