/* test_trace_import.c: the importers' helpers, filters, statistics and the generator */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/num.h"
#include "core/rng.h"
#include "core/stats.h"
#include "tap.h"
#include "trace/gen.h"
#include "trace/import.h"

static void test_gres(void)
{
	int64_t g;
	const char *type;
	size_t tl;
	struct {
		const char *tres;
		int64_t want;
		const char *type;
	} ok_cases[] = {
		{"billing=1,cpu=1,gres/gpu=2,node=1", 2, NULL},
		{"cpu=8,gres/gpu=4,gres/gpu:a100=4,mem=64G", 4, "a100"},
		{"cpu=2,gres/gpu:v100=1,gres/gpu:t4=1,node=1", 2, NULL},
		{"gres/gpu:h100=8", 8, "h100"},
		{"billing=1,cpu=1,node=1", 0, NULL},
		{"", 0, NULL},
		{"gpu:4", 4, NULL},
		{"gpu:tesla:2(IDX:0-1)", 2, "tesla"},
		{"gres/gpumem=40G,gres/gpu=1", 1, NULL},
	};
	for (size_t i = 0; i < sizeof(ok_cases) / sizeof(*ok_cases); i++) {
		int rc = dl_sacct_gpus(ok_cases[i].tres, &g, &type, &tl);
		ok(rc == 0 && g == ok_cases[i].want, "gpus of '%s' = %lld (got %lld)",
		   ok_cases[i].tres, (long long)ok_cases[i].want, (long long)g);
		if (ok_cases[i].type)
			ok(type && tl == strlen(ok_cases[i].type) &&
				   !strncmp(type, ok_cases[i].type, tl),
			   "type of '%s'", ok_cases[i].tres);
		else
			ok(type == NULL, "no single type in '%s'", ok_cases[i].tres);
	}
	ok(dl_sacct_gpus("gres/gpu=x", &g, NULL, NULL) == -1, "bad count rejected");
	ok(dl_sacct_gpus("gres/gpu:a100", &g, NULL, NULL) == -1,
	   "typed entry without '=' rejected");
	ok(dl_sacct_gpus("gres/gpu=", &g, NULL, NULL) == -1, "empty count rejected");
}

static void test_time(void)
{
	struct dl_timecache tc = DL_TIMECACHE_INIT;
	double t;
	setenv("TZ", "UTC", 1);
	tzset();
	ok(!dl_parse_localtime("2020-04-01 00:00:10", 19, &tc, &t) && t == 1585699210, "UTC date");
	ok(!dl_parse_localtime("2020-04-01T01:02:03.25", 22, &tc, &t) && t == 1585702923.25,
	   "T separator and fraction");
	ok(!dl_parse_localtime("2020-02-29", 10, NULL, &t) && t == 1582934400,
	   "date only, leap day");
	const char *bad[] = {"2020-02-30 00:00:00",  "2020-13-01",	     "2020-04-01 24:00:00",
			     "2020-04-01 00:60:00",  "2020/04/01",	     "2020-04-01 00:00",
			     "2020-04-01 00:00:00.", "2020-04-01 00:00:00Z", "Unknown"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(dl_parse_localtime(bad[i], strlen(bad[i]), &tc, &t) == -1, "'%s' rejected",
		   bad[i]);
	/* daylight saving: 01:30 CET and 03:30 CEST on 2026-03-29 are one hour apart */
	setenv("TZ", "Europe/Berlin", 1);
	tzset();
	struct dl_timecache tb = DL_TIMECACHE_INIT;
	double a, b;
	dl_parse_localtime("2026-03-29T01:30:00", 19, &tb, &a);
	dl_parse_localtime("2026-03-29T03:30:00", 19, &tb, &b);
	is_double(b - a, 3600, 0, "spring-forward gap is one hour");
	/* the cache gives the same answers as no cache, across many hours */
	int same = 1;
	char buf[32];
	for (int k = 0; k < 2000; k++) {
		int day = 1 + k % 28, hour = (k * 7) % 24;
		snprintf(buf, sizeof(buf), "2026-10-%02d %02d:%02d:%02d", day, hour, k % 60,
			 (k * 13) % 60);
		double x, y;
		dl_parse_localtime(buf, strlen(buf), &tb, &x);
		dl_parse_localtime(buf, strlen(buf), NULL, &y);
		same &= x == y;
	}
	ok(same, "cached and uncached times agree");
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_write_numbers(void)
{
	/* the jobs writer's fast number path must print what dl_fmt_double prints */
	struct dl_jobset js;
	struct dl_rng r;
	dl_jobset_init(&js);
	dl_rng_seed(&r, 9);
	double vals[4000];
	for (int i = 0; i < 4000; i++) {
		double v;
		switch (i % 4) {
		case 0:
			v = (double)dl_rng_below(&r, 4000000000ULL);
			break;
		case 1:
			v = round(dl_rng_uniform(&r) * 1e9) / 1000;
			break;
		case 2:
			v = dl_rng_uniform(&r) * 1e6;
			break;
		default:
			v = dl_rng_exp(&r, 1e13);
			break;
		}
		vals[i] = v;
		struct dl_job j = DL_JOB_INIT;
		j.id = "x";
		j.submit = v;
		j.gpus = j.duration = 1;
		dl_jobset_add(&js, &j);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(fp, DL_OUT_CSV);
	dl_jobset_write(&js, w);
	dl_writer_free(w);
	fclose(fp);
	int same = 1, i = -1;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"), i++) {
		if (i < 0)
			continue;
		char want[DL_NUM_BUF], *f = strchr(line, ',') + 1;
		*strchr(f, ',') = 0;
		dl_fmt_double(want, vals[i]);
		if (strcmp(f, want)) {
			printf("# %s != %s\n", f, want);
			same = 0;
		}
	}
	ok(same && i == 4000, "fast number output equals the shortest round trip");
	free(buf);
	dl_jobset_free(&js);
}

static void test_filter_stats(void)
{
	struct dl_jobset js;
	dl_jobset_init(&js);
	const char *vcs[] = {"a", "b", "a", "c", "a"};
	for (int i = 0; i < 5; i++) {
		char id[8];
		snprintf(id, sizeof(id), "%d", i);
		struct dl_job j = DL_JOB_INIT;
		j.id = id;
		j.submit = 10.0 * i;
		j.gpus = 1 << i;
		j.duration = 100 + i;
		j.vc = vcs[i];
		j.state = "COMPLETED";
		dl_jobset_add(&js, &j);
	}
	struct dl_trace_stats st;
	dl_trace_stats_compute(&js, &st);
	is_int(st.jobs, 5, "stats: jobs");
	is_double(st.span, 40, 0, "stats: span");
	is_double(st.rate_per_hour, 4 * 3600.0 / 40, 1e-9, "stats: arrivals per hour");
	is_double(st.dur_p50, 102, 0, "stats: median");
	is_double(st.dur_p25, 101, 0, "stats: p25");
	is_double(st.gt_total, 100 + 202 + 408 + 824 + 1664, 0, "stats: GPU time");
	is_int(st.nmix, 5, "stats: five GPU counts");
	is_int(st.nvc, 3, "stats: three vcs");
	ok(st.nvc == 3 && !strcmp(st.vc[0].vc, "a") && st.vc[0].jobs == 3, "stats: vc a has 3");
	dl_trace_stats_free(&st);
	double v[] = {1, 2, 3, 4};
	is_double(dl_percentile_interp(v, 4, 50), 2.5, 1e-12, "percentile interpolates");
	is_double(dl_percentile_interp(v, 4, 100), 4, 0, "percentile 1 = max");

	struct dl_trace_filter f = DL_TRACE_FILTER_INIT;
	f.vcs = "A,c";
	f.min_gpus = 2;
	size_t removed = dl_jobset_filter(&js, &f);
	is_int(removed, 2, "filter removed 2");
	ok(js.n == 3 && !strcmp(js.jobs[0].id, "2") && !strcmp(js.jobs[2].id, "4"),
	   "filter keeps order");
	struct dl_trace_filter g = DL_TRACE_FILTER_INIT;
	g.has_since = 1;
	g.since = 25;
	g.limit = 1;
	dl_jobset_filter(&js, &g);
	ok(js.n == 1 && !strcmp(js.jobs[0].id, "3"), "since and limit");
	dl_jobset_shift(&js, -30);
	is_double(js.jobs[0].submit, 0, 0, "shift");
	dl_jobset_free(&js);
}

static void test_gen(void)
{
	struct dl_gen_opts o = {0};
	struct dl_err err = DL_ERR_INIT;
	o.seed = 11;
	o.jobs = 50000;
	o.rate_per_hour = 3600;
	o.mix_gpus = dl_gen_default_mix_gpus;
	o.mix_w = dl_gen_default_mix_w;
	o.nmix = 4;
	o.dist = DL_DUR_EXP;
	o.mean = 200;
	struct dl_jobset a, b;
	dl_jobset_init(&a);
	dl_jobset_init(&b);
	ok(!dl_gen(&a, &o, &err) && a.n == 50000, "gen 50000 jobs");
	ok(!dl_gen(&b, &o, &err), "gen again");
	int same = a.n == b.n;
	for (size_t i = 0; same && i < a.n; i++)
		same = a.jobs[i].submit == b.jobs[i].submit && a.jobs[i].gpus == b.jobs[i].gpus &&
		       a.jobs[i].duration == b.jobs[i].duration;
	ok(same, "same seed, same jobs");
	double gaps = a.jobs[a.n - 1].submit / (double)(a.n - 1);
	is_double(gaps, 1, 0.02, "mean gap 1 s at 3600 jobs/hour");
	size_t ones = 0;
	double dsum = 0;
	for (size_t i = 0; i < a.n; i++) {
		ones += a.jobs[i].gpus == 1;
		dsum += a.jobs[i].duration;
	}
	is_double((double)ones / (double)a.n, 0.7, 0.01, "70%% single-GPU jobs");
	is_double(dsum / (double)a.n, 200, 2, "exponential mean 200 (stratified)");
	dl_jobset_free(&b);
	/* changing the duration distribution leaves arrivals and GPU counts alone */
	dl_jobset_init(&b);
	o.dist = DL_DUR_GAVEL;
	dl_gen(&b, &o, &err);
	same = 1;
	for (size_t i = 0; i < a.n; i++)
		same &= a.jobs[i].submit == b.jobs[i].submit && a.jobs[i].gpus == b.jobs[i].gpus;
	ok(same, "independent random streams per column");
	is_double(dl_gen_mean_duration(&o),
		  60 * (0.8 * (1000 - pow(10, 1.5)) / (1.5 * log(10)) + 0.2 * 9000 / log(10)), 1e-6,
		  "gavel mean duration");
	dl_jobset_free(&a);
	dl_jobset_free(&b);
	o.dist = DL_DUR_PHILLY;
	double m = dl_gen_mean_duration(&o);
	ok(m > 14000 && m < 15200, "philly table mean near the sample's 14613 s (%g)", m);
}

/* each of the n strata gets exactly one job, for any n (the order is a permutation) */
static void test_gen_strata(void)
{
	static const size_t sizes[] = {1, 2, 3, 5, 64, 65, 1000, 4097};
	for (size_t t = 0; t < DL_ARRAY_SIZE(sizes); t++) {
		size_t n = sizes[t];
		double *samples = malloc(n * sizeof(*samples));
		char *seen = calloc(n, 1);
		for (size_t i = 0; i < n; i++)
			samples[i] = (double)(i + 1); /* stratum s draws sample s + 1 */
		struct dl_gen_opts o = {0};
		struct dl_err err = DL_ERR_INIT;
		o.seed = 5 + t;
		o.jobs = (int64_t)n;
		o.rate_per_hour = 60;
		o.mix_gpus = dl_gen_default_mix_gpus;
		o.mix_w = dl_gen_default_mix_w;
		o.nmix = 4;
		o.dist = DL_DUR_SAMPLES;
		o.samples = samples;
		o.nsamples = n;
		struct dl_gen *g = dl_gen_new(&o, &err);
		struct dl_job j;
		size_t got = 0, dup = 0, in_order = 0;
		while (g && dl_gen_next(g, &j, &err) > 0) {
			size_t s = (size_t)j.duration - 1;
			dup += s >= n || seen[s];
			if (s < n)
				seen[s] = 1;
			in_order += s == got;
			got++;
		}
		dl_gen_free(g);
		ok(got == n && !dup, "%zu jobs fill the %zu strata once each", got, n);
		if (n >= 64)
			ok(in_order < n / 4, "strata of %zu jobs come in a shuffled order (%zu in place)",
			   n, in_order);
		free(samples);
		free(seen);
	}
}

int main(void)
{
	test_gres();
	test_time();
	test_write_numbers();
	test_filter_stats();
	test_gen();
	test_gen_strata();
	return done_testing();
}
