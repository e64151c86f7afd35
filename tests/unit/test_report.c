/* test_report.c: percentiles, Jain's index, sorting and the metrics of hand-computed results */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "report/report.h"
#include "tap.h"

#define TD "testdata/report/"

static void test_percentiles(void)
{
	double a[] = {1, 2, 3, 4};
	is_double(dl_percentile_nearest(a, 4, 50), 2, 0, "median of 1..4 is 2 (nearest rank)");
	is_double(dl_percentile_nearest(a, 4, 25), 1, 0, "p25 of 1..4");
	is_double(dl_percentile_nearest(a, 4, 75), 3, 0, "p75 of 1..4");
	is_double(dl_percentile_nearest(a, 4, 76), 4, 0, "p76 of 1..4");
	is_double(dl_percentile_nearest(a, 4, 100), 4, 0, "p100 is the maximum");
	double b[100];
	for (int i = 0; i < 100; i++)
		b[i] = i + 1;
	is_double(dl_percentile_nearest(b, 10, 90), 9, 0, "p90 of 1..10 is 9");
	is_double(dl_percentile_nearest(b, 10, 95), 10, 0, "p95 of 1..10 is 10");
	is_double(dl_percentile_nearest(b, 20, 95), 19, 0, "p95 of 1..20 is 19 (exact rank)");
	is_double(dl_percentile_nearest(b, 100, 99), 99, 0, "p99 of 1..100 is 99");
	is_double(dl_percentile_nearest(b, 1, 1), 1, 0, "any percentile of one value");
	ok(isnan(dl_percentile_nearest(b, 0, 50)), "no values: NaN");
	double c[] = {7};
	is_double(dl_percentile_nearest(c, 1, 99), 7, 0, "p99 of one value");
}

static void test_jain(void)
{
	double eq[] = {3, 3, 3};
	is_double(dl_jain_index(eq, 3), 1, 1e-15, "Jain of equal values is 1");
	double one[] = {1, 0, 0, 0};
	is_double(dl_jain_index(one, 4), 0.25, 1e-15, "Jain of one non-zero of 4 is 1/4");
	double two[] = {1, 3};
	is_double(dl_jain_index(two, 2), 16.0 / 20.0, 1e-15, "Jain of 1,3 is 16/20");
	ok(isnan(dl_jain_index(two, 0)), "Jain of nothing is NaN");
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void test_sort(void)
{
	size_t n = 50000;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	unsigned long s = 12345;
	for (size_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ul + 1442695040888963407ul;
		double v = (double)(s >> 11) / 9007199254740992.0;
		a[i] = b[i] = (i % 7 == 0) ? -v * 1e6 : (i % 5 == 0 ? floor(v * 10) : v * 1e4);
	}
	dl_sort_doubles(a, n);
	qsort(b, n, sizeof(*b), cmpd);
	ok(!memcmp(a, b, n * sizeof(*a)), "radix sort agrees with qsort on 50000 values");
	/* the keyed sort: the same keys in the same order, each value still beside its key */
	struct dl_keyed *kv = malloc(n * sizeof(*kv));
	for (size_t i = 0; i < n; i++)
		kv[i] = (struct dl_keyed){b[(i * 7919) % n], -(double)((i * 7919) % n)};
	dl_sort_keyed(kv, n);
	int keys_sorted = 1, values_kept = 1;
	for (size_t i = 0; i < n; i++) {
		keys_sorted &= kv[i].key == b[i];
		values_kept &= b[(size_t)-kv[i].value] == kv[i].key;
	}
	ok(keys_sorted, "keyed radix sort orders 50000 keys as qsort does");
	ok(values_kept, "keyed radix sort keeps each value with its key");
	free(kv);
	free(a);
	free(b);
}

static struct dl_report *load(const char *const *files, size_t n, const char *timeline,
			      const struct dl_report_opts *o, struct dl_err *err)
{
	struct dl_report *rep = dl_report_new();
	const char *first = NULL;
	for (size_t i = 0; i < n; i++) {
		struct dl_reader *r = dl_reader_open(files[i], DL_IN_AUTO, err);
		if (!r || dl_report_read_results(rep, r, NULL, "file", i ? NULL : &first, err)) {
			dl_reader_close(r);
			dl_report_free(rep);
			return NULL;
		}
		dl_reader_close(r);
	}
	if (timeline) {
		struct dl_reader *r = dl_reader_open(timeline, DL_IN_AUTO, err);
		int bad = !r || dl_report_read_timeline(rep, r, first, NULL, err);
		dl_reader_close(r);
		if (bad) {
			dl_report_free(rep);
			return NULL;
		}
	}
	if (dl_report_compute(rep, o, err)) {
		dl_report_free(rep);
		return NULL;
	}
	return rep;
}

static void test_metrics(void)
{
	struct dl_err err = DL_ERR_INIT;
	const char *files[] = {TD "fifo.csv", TD "las.csv", TD "stuck.csv", TD "srtf.jsonl"};
	struct dl_report_opts o = {
		DL_REPORT_BY_NONE, 4, "fifo", {0}, 1} /* different jobs, on purpose */;
	struct dl_report *rep = load(files, 4, NULL, &o, &err);
	ok(rep != NULL, "four results files load: %s", err.msg);
	if (!rep)
		return;
	is_int(dl_report_nrows(rep), 4, "one row per label");
	const struct dl_report_row *f = dl_report_row(rep, 0), *l = dl_report_row(rep, 1);
	const struct dl_report_row *st = dl_report_row(rep, 2), *sr = dl_report_row(rep, 3);
	is_str(f->label, "fifo", "label from the policy column");
	is_str(st->label, "file", "label falls back when there is no policy column");
	/* fifo: JCTs 100 140 330 330, delays 0 90 130 320, GPU-s 1010 over 360 s on 4 GPUs */
	is_double(f->avg_jct, 225, 0, "fifo avg JCT");
	is_double(f->median_jct, 140, 0, "fifo median JCT");
	is_double(f->p90_jct, 330, 0, "fifo p90 JCT");
	is_double(f->p99_jct, 330, 0, "fifo p99 JCT");
	is_double(f->makespan, 360, 0, "fifo makespan");
	is_double(f->avg_queue_delay, 135, 0, "fifo avg queueing delay");
	is_double(f->p95_queue_delay, 320, 0, "fifo p95 queueing delay");
	is_double(f->utilization, 1010.0 / 1440.0, 0, "fifo utilisation from run intervals");
	/* slowdowns 1, 2.8, 1.65, 33 */
	double s = 1 + 2.8 + 1.65 + 33, s2 = 1 + 2.8 * 2.8 + 1.65 * 1.65 + 33 * 33;
	is_double(f->jain_slowdown, s * s / (4 * s2), 1e-12, "fifo Jain index of slowdowns");
	is_double(f->speedup_jct, 1, 0, "baseline speedup is 1");
	/* las: JCTs 10 50 110 280, delays 0 0 10 40, one preemption, one migration */
	is_double(l->avg_jct, 112.5, 0, "las avg JCT");
	is_double(l->median_jct, 50, 0, "las median JCT");
	is_double(l->p95_jct, 280, 0, "las p95 JCT");
	is_double(l->makespan, 300, 0, "las makespan");
	is_double(l->avg_queue_delay, 12.5, 0, "las avg queueing delay");
	is_double(l->p95_queue_delay, 40, 0, "las p95 queueing delay");
	is_double(l->preemptions_per_job, 0.25, 0, "las preemptions per job");
	is_double(l->migrations_per_job, 0.25, 0, "las migrations per job");
	is_double(l->speedup_jct, 2, 0, "las JCT speedup over fifo");
	is_double(l->speedup_makespan, 1.2, 0, "las makespan speedup over fifo");
	/* a label with no finished jobs: counts, no JCT, no division by zero */
	is_int(st->jobs, 2, "stuck jobs");
	is_int(st->finished, 0, "stuck finished");
	ok(isnan(st->avg_jct) && isnan(st->makespan) && isnan(st->speedup_jct) &&
		   isnan(st->jain_slowdown) && isnan(st->utilization),
	   "no finished jobs: JCT, makespan, speedup, Jain, utilisation undefined");
	/* srtf (JSON Lines): one of two jobs finished */
	is_int(sr->jobs, 2, "srtf jobs");
	is_int(sr->finished, 1, "srtf finished");
	is_double(sr->avg_jct, 10, 0, "srtf avg JCT over finished jobs only");
	is_double(sr->makespan, 10, 0, "srtf makespan");
	struct dl_report_series ser;
	dl_report_series(rep, 0, &ser);
	ok(ser.njct == 4 && ser.jct[0] == 100 && ser.jct[3] == 330, "fifo CDF data sorted");
	dl_report_free(rep);
}

/* placed.csv (testdata/report/NOTE): rho, first feedback and comm overhead by hand */
static void test_fairness(void)
{
	struct dl_err err = DL_ERR_INIT;
	const char *files[] = {TD "placed.csv", TD "fifo.csv"};
	struct dl_report_opts o = {DL_REPORT_BY_GPUS, 0, NULL, {0}, 1} /* different jobs */;
	struct dl_report *rep = load(files, 2, NULL, &o, &err);
	ok(rep != NULL, "placed and fifo load: %s", err.msg);
	if (!rep)
		return;
	const struct dl_report_row *p = dl_report_row(rep, 0);
	is_str(p->cls, "all", "placed: the all row first");
	/* rho of the finished jobs 1 1.25 6 1.65 (the unfinished and the rejected have none) */
	is_double(p->avg_rho, 9.9 / 4, 1e-15, "avg rho");
	is_double(p->p95_rho, 6, 0, "p95 rho: nearest rank 4 of 4");
	is_double(p->max_rho, 6, 0, "max rho");
	double s2 = 1 + 1.25 * 1.25 + 36 + 1.65 * 1.65;
	is_double(p->jain_rho, 9.9 * 9.9 / (4 * s2), 1e-15, "Jain's index of rho");
	/* start - submit of the five started jobs: 0 0 10 80 160 */
	is_double(p->avg_first_feedback, 50, 0, "avg time to first feedback");
	is_double(p->p95_first_feedback, 160, 0, "p95 time to first feedback");
	ok(p->avg_first_feedback < p->avg_queue_delay,
	   "first feedback ignores waits after a start");
	is_double(p->total_comm_overhead, 62.5, 0, "total comm overhead");
	is_double(p->avg_comm_overhead, 15.625, 0, "comm overhead per job that has one");
	is_double(p->comm_share, 225.0 / 1235.0, 1e-15, "share of GPU time lost to communication");
	/* the class of 1-GPU jobs (1 and 4): rho 1 and 6 */
	const struct dl_report_row *c1 = dl_report_row(rep, 1);
	is_str(c1->cls, "1", "the 1-GPU class");
	is_double(c1->jain_rho, 49.0 / 74.0, 1e-15, "Jain of rho 1, 6 is 49/74");
	is_double(c1->p95_first_feedback, 10, 0, "p95 first feedback of 0, 10");
	is_double(c1->comm_share, 0, 0, "no comm overhead on one GPU");
	/* fifo.csv has no rho or comm_overhead_s column: absent, not zero */
	const struct dl_report_row *f = NULL;
	for (size_t i = 0; i < dl_report_nrows(rep); i++)
		if (!strcmp(dl_report_row(rep, i)->label, "fifo") &&
		    !strcmp(dl_report_row(rep, i)->cls, "all"))
			f = dl_report_row(rep, i);
	ok(f != NULL, "fifo's all row");
	if (f) {
		ok(isnan(f->avg_rho) && isnan(f->p95_rho) && isnan(f->max_rho) &&
			   isnan(f->jain_rho) && isnan(f->total_comm_overhead) &&
			   isnan(f->avg_comm_overhead) && isnan(f->comm_share),
		   "older results: rho and comm metrics undefined");
		is_double(f->avg_first_feedback, 135, 0,
			  "older results: first feedback from start");
	}
	struct dl_report_series ser;
	dl_report_series(rep, 0, &ser);
	ok(ser.nrho == 4 && ser.nfeedback == 5 && ser.feedback[4] == 160,
	   "the page's data: 4 rho, 5 first feedbacks sorted");
	dl_report_series(rep, 1, &ser);
	ok(ser.nrho == 0 && ser.nfeedback == 4, "fifo: no rho for the page");
	dl_report_free(rep);
}

static void test_timeline_and_by(void)
{
	struct dl_err err = DL_ERR_INIT;
	const char *files[] = {TD "fifo.csv", TD "las.csv"};
	struct dl_report_opts o = {DL_REPORT_BY_GPUS, 8, NULL};
	struct dl_report *rep = load(files, 2, TD "fifo.timeline.csv", &o, &err);
	ok(rep != NULL, "results with a timeline load: %s", err.msg);
	if (!rep)
		return;
	/* classes used: 1, 2-4 (no 5-8, no >8) -> all, 1, 2-4 per label */
	is_int(dl_report_nrows(rep), 6, "--by gpus: all + two classes per label");
	const struct dl_report_row *r = dl_report_row(rep, 0);
	is_double(r->utilization, 1010.0 / (8 * 360.0), 0, "utilisation from the timeline");
	r = dl_report_row(rep, 1);
	is_str(r->cls, "1", "first class is 1 GPU");
	is_int(r->jobs, 2, "fifo 1-GPU jobs");
	is_double(r->avg_jct, 215, 0, "fifo 1-GPU avg JCT (100+330)/2");
	is_double(r->makespan, 360, 0, "fifo 1-GPU makespan");
	ok(isnan(r->utilization), "no utilisation for a class row");
	r = dl_report_row(rep, 2);
	is_str(r->cls, "2-4", "second class is 2-4 GPUs");
	is_double(r->avg_jct, 235, 0, "fifo 2-4 GPU avg JCT (140+330)/2");
	is_double(r->makespan, 340, 0, "fifo 2-4 GPU makespan 350-10");
	r = dl_report_row(rep, 3);
	is_double(r->utilization, 1010.0 / (8 * 300.0), 0, "las utilisation from run intervals");
	dl_report_free(rep);
}

static void expect_error(const char *path, const char *want, const char *what)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_report *rep = dl_report_new();
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, &err);
	int rc = r ? dl_report_read_results(rep, r, NULL, "x", NULL, &err) : -1;
	ok(rc < 0 && strstr(err.msg, want), "%s: '%s'", what, err.msg);
	dl_reader_close(r);
	dl_report_free(rep);
}

static void test_errors(void)
{
	char path[] = "/tmp/test_report_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	fclose(fp);
	{
		/* 0 bytes: a stream without rows, so a label without jobs (dlsched-formats(5)) */
		struct dl_err err = DL_ERR_INIT;
		struct dl_report *rep = dl_report_new();
		struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, &err);
		int rc = r ? dl_report_read_results(rep, r, NULL, "x", NULL, &err) : -1;
		ok(rc == 0 && dl_report_nlabels(rep) == 1, "empty file: a label: '%s'", err.msg);
		dl_reader_close(r);
		dl_report_free(rep);
	}
	struct {
		const char *text, *want, *what;
	} cases[] = {
		{"id,submit,gpus,start,end\n1,0,1,0,1\n", "missing required column 'duration'",
		 "missing column"},
		{"id,submit,gpus,duration,start,end\n1,0,0,5,0,5\n", ":2: bad gpus value '0'",
		 "zero GPUs"},
		{"id,submit,gpus,duration,start,end\n1,0,1,5,0,5\n2,0,1,x,0,5\n",
		 ":3: bad duration value 'x'", "bad duration"},
		{"id,submit,gpus,duration,start,end\n1,10,1,5,3,15\n",
		 ":2: start 3 is before submit", "start before submit"},
		{"id,submit,gpus,duration,start,end\n1,0,1,5,9,5\n", ":2: end 5 is before start",
		 "end before start"},
		{"id,submit,gpus,duration,start,end\n1,0,1,5,,5\n", ":2: a job with an end needs",
		 "end without start"},
		{"id,submit,gpus,duration,start,end,jct\n1,0,1,5,0,5,-1\n",
		 ":2: bad jct value '-1'", "negative jct"},
		{"id,submit,gpus,duration,start,end,preemptions\n1,0,1,5,0,5,-2\n",
		 ":2: bad preemptions value '-2'", "negative preemptions"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fp = fopen(path, "w");
		fputs(cases[i].text, fp);
		fclose(fp);
		expect_error(path, cases[i].want, cases[i].what);
	}
	/* a timeline going backwards */
	fp = fopen(path, "w");
	fputs("time,busy_gpus,running,pending\n0,1,1,0\n5,1,1,0\n4,0,0,0\n", fp);
	fclose(fp);
	struct dl_err err = DL_ERR_INIT;
	struct dl_report *rep = dl_report_new();
	struct dl_reader *r = dl_reader_open(TD "fifo.csv", DL_IN_AUTO, &err);
	ok(r && !dl_report_read_results(rep, r, "a", "x", NULL, &err), "results labelled 'a'");
	dl_reader_close(r);
	r = dl_reader_open(path, DL_IN_AUTO, &err);
	ok(r && dl_report_read_timeline(rep, r, "a", NULL, &err) < 0 &&
		   strstr(err.msg, ":4: time 4 goes backwards"),
	   "timeline backwards: '%s'", err.msg);
	dl_reader_close(r);
	/* an unknown baseline is a usage error naming the labels */
	dl_err_clear(&err);
	struct dl_report_opts o = {DL_REPORT_BY_NONE, 0, "nope"};
	ok(dl_report_compute(rep, &o, &err) < 0 && err.code == DL_EXIT_USAGE &&
		   strstr(err.msg, "labels: 'a'"),
	   "unknown baseline: '%s'", err.msg);
	dl_report_free(rep);
	remove(path);
}

static void test_window_parse(void)
{
	struct dl_report_window w;
	ok(!dl_report_window_parse("arrivals", &w) && w.kind == DL_WINDOW_ARRIVALS, "arrivals");
	ok(!dl_report_window_parse("jobs:4000-5000", &w) && w.kind == DL_WINDOW_JOBS &&
		   w.from == 4000 && w.to == 5000,
	   "jobs:4000-5000 (Gavel's -s 4000 -e 5000)");
	ok(!dl_report_window_parse("time:1d-1.5d", &w) && w.kind == DL_WINDOW_TIME &&
		   w.from == 86400 && w.to == 129600,
	   "time:1d-1.5d in seconds");
	ok(!dl_report_window_parse("time:90m-", &w) && w.from == 5400 && isinf(w.to),
	   "time:90m- is open-ended");
	const char *bad[] = {"",	   "jobs",	 "jobs:5-5",   "jobs:9-2",
			     "jobs:-3",	   "jobs:1.5-3", "time:2h-1h", "time:x-1",
			     "time:1w-2w", "weekly",	 "jobs:1-"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(dl_report_window_parse(bad[i], &w) < 0, "bad window '%s'", bad[i]);
	struct strbuf sb = STRBUF_INIT;
	dl_report_window_parse("jobs:4000-5000", &w);
	dl_report_window_describe(&w, &sb);
	ok(strstr(sb.buf, "jobs 4000 to 4999 in submit order") != NULL, "described: %s", sb.buf);
	sb_release(&sb);
}

/* rejected rows, a window and an as-run timeline, through the library */
static void test_window_rejected_asrun(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_report *rep = dl_report_new();
	struct dl_reader *r = dl_reader_open(TD "rejected.csv", DL_IN_AUTO, &err);
	ok(r && !dl_report_read_results(rep, r, NULL, "x", NULL, &err), "rejected.csv read");
	dl_reader_close(r);
	/* the as-run label: fifo.csv read as a jobs stream has start and end, no policy... */
	char path[] = "/tmp/test_report_asrun_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	fputs("id,submit,gpus,duration,start,end\n1,0,2,10,0,10\n2,0,2,10,5,15\n3,1,1,5,,\n", fp);
	fclose(fp);
	r = dl_reader_open(path, DL_IN_AUTO, &err);
	ok(r && !dl_report_read_asrun(rep, r, &err), "as run read: %s", err.msg);
	dl_reader_close(r);
	remove(path);
	/* rejected.csv and the as-run jobs are different jobs: compared on purpose */
	struct dl_report_opts o = {DL_REPORT_BY_NONE, 4, NULL, {DL_WINDOW_JOBS, 1, 3}, 1};
	ok(!dl_report_compute(rep, &o, &err), "compute: %s", err.msg);
	/* fifo jobs in submit order: a(0) big(5) t1(10) b(10) t2(20) c(20); ranks 1, 2 */
	const struct dl_report_row *f = dl_report_row(rep, 0);
	is_int(f->jobs, 0, "window jobs:1-3 of rejected.csv: no job that ran");
	is_int(f->dropped, 2, "big and t1 dropped in the window");
	ok(!strcmp(f->dropped_reasons,
		   "1 needs more GPUs than the cluster has; 1 unknown GPU type 'a100'"),
	   "reasons in the window: %s", f->dropped_reasons);
	const struct dl_report_row *a = dl_report_row(rep, 1);
	ok(!strcmp(a->label, "as run"), "the label 'as run'");
	/*
	 * ranks 1, 2: job 2 (submit 0, 2nd in input order) and job 3 (submit 1, pending at
	 * the dump: left out of every label, dropped as unfinished)
	 */
	is_int(a->jobs, 1, "as run: 1 job in the window");
	is_int(a->finished, 1, "as run: one finished");
	is_int(a->dropped, 1, "as run: the pending job dropped");
	ok(!strcmp(a->dropped_reasons, "1 unfinished at the dump"), "as run dropped: %s",
	   a->dropped_reasons);
	is_double(a->avg_jct, 15, 0, "as run: JCT 15");
	/* period [0, 1]: the derived timeline has 2 GPUs busy over it (job 1) */
	is_double(a->utilization, 0.5, 1e-12, "as run: 2 of 4 GPUs busy over the arrivals");
	struct dl_report_series s;
	dl_report_series(rep, 1, &s);
	ok(s.as_run && s.ntl == 5 && s.tl_time[2] == 5 && s.tl_busy[2] == 4 && s.tl_pending[2] == 1,
	   "derived timeline: 4 busy and 1 pending from 5 s (%zu points)", s.ntl);
	dl_report_free(rep);
}

int main(void)
{
	test_percentiles();
	test_jain();
	test_sort();
	test_metrics();
	test_fairness();
	test_timeline_and_by();
	test_errors();
	test_window_parse();
	test_window_rejected_asrun();
	return done_testing();
}
