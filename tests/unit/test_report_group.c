/* test_report_group.c: Student t, bootstrap and t intervals of the mean on hand-computed data */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/group.h"
#include "tap.h"

static void test_t(void)
{
	is_double(dl_student_t975(1), 12.706, 1e-9, "t(0.975, 1)");
	is_double(dl_student_t975(4), 2.776, 1e-9, "t(0.975, 4)");
	is_double(dl_student_t975(30), 2.042, 1e-9, "t(0.975, 30)");
	/* tables: 2.0211 (40), 1.9840 (100), 1.9623 (1000) */
	is_double(dl_student_t975(40), 2.0211, 2e-4, "t(0.975, 40) from the expansion");
	is_double(dl_student_t975(100), 1.9840, 2e-4, "t(0.975, 100)");
	is_double(dl_student_t975(1000), 1.9623, 2e-4, "t(0.975, 1000)");
	ok(isnan(dl_student_t975(0)), "no degrees of freedom: NaN");
}

static void test_ci(void)
{
	/* mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; s = sqrt(32/7) = 2.13809;
	 * half = 2.365 * 2.13809 / sqrt(8) = 1.78777 */
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	double m, h;
	dl_mean_ci95(v, 8, &m, &h);
	is_double(m, 5, 1e-12, "mean of 2,4,4,4,5,5,7,9");
	is_double(h, 1.787772, 1e-5, "95%% half-width of 2,4,4,4,5,5,7,9");
	/* two values 10, 12: s = sqrt(2), half = 12.706 * sqrt(2) / sqrt(2) */
	double w[] = {10, 12};
	dl_mean_ci95(w, 2, &m, &h);
	is_double(m, 11, 1e-12, "mean of 10, 12");
	is_double(h, 12.706, 1e-9, "half-width of 10, 12 is t(1)");
	dl_mean_ci95(w, 1, &m, &h);
	is_double(m, 10, 0, "one value: its mean");
	ok(isnan(h), "one value: no interval");
	double same[] = {3, 3, 3};
	dl_mean_ci95(same, 3, &m, &h);
	is_double(h, 0, 0, "equal values: zero width");
}

static void test_boot(void)
{
	double m, lo, hi;
	/* two runs: the 4 resample means 10, 11, 11, 12; ranks ceil(0.1) = 1, ceil(3.9) = 4 */
	double w[] = {10, 12};
	dl_mean_boot95(w, 2, &m, &lo, &hi);
	is_double(m, 11, 0, "mean of 10, 12");
	is_double(lo, 10, 0, "two runs: the interval is their range (low)");
	is_double(hi, 12, 0, "two runs: the interval is their range (high)");
	/* heavy tail, n = 3: the t-interval is 3 +- 4.303 * 2.6458 / 1.732 = [-3.57, 9.57];
	 * the 27 resample means lie in [1, 6], ranks 1 and 27 */
	double t[] = {1, 2, 6};
	dl_mean_boot95(t, 3, &m, &lo, &hi);
	is_double(m, 3, 1e-12, "mean of 1, 2, 6");
	is_double(lo, 1, 0, "n = 3: low end 1, not below 0 as t gives (-3.57)");
	is_double(hi, 6, 0, "n = 3: high end 6");
	/* n = 4: 256 resamples. Below 1.5: 1111 (1 way), 1112 (4); at 1.5: 1122 (6), 1113 (4):
	 * the 7th smallest is 1.5. Above 8: 10,10,10,10 (1), 10,10,10,3 (4); at 8: 10,10,10,2
	 * (4), ranks 248-251: the 250th is 8 */
	double f[] = {1, 2, 3, 10};
	dl_mean_boot95(f, 4, &m, &lo, &hi);
	is_double(m, 4, 1e-12, "mean of 1, 2, 3, 10");
	is_double(lo, 1.5, 1e-12, "n = 4: 7th of 256 resample means");
	is_double(hi, 8, 1e-12, "n = 4: 250th of 256");
	/* a share: never above 1, never below 0 */
	double u[] = {0.98, 1, 1, 0.99, 1, 0.97, 1, 1};
	dl_mean_boot95(u, 8, &m, &lo, &hi);
	ok(lo >= 0.97 && hi <= 1 && lo <= m && m <= hi, "n = 8 (drawn): inside [0.97, 1]: %g %g",
	   lo, hi);
	double lo2, hi2;
	dl_mean_boot95(u, 8, &m, &lo2, &hi2);
	ok(lo == lo2 && hi == hi2, "the same bytes every time (fixed seed)");
	dl_mean_boot95(u, 1, &m, &lo, &hi);
	ok(m == 0.98 && isnan(lo) && isnan(hi), "one run: no interval");
	double same[] = {3, 3, 3};
	dl_mean_boot95(same, 3, &m, &lo, &hi);
	ok(lo == 3 && hi == 3, "equal values: zero width");
}

static void test_group(void)
{
	char path[] = "/tmp/test_report_group_XXXXXX";
	int fd = mkstemp(path);
	const char *csv = "run,policy,seed,label,avg_jct,utilization\n"
			  "a,fifo,1,fifo,10,0.5\n"
			  "b,fifo,2,fifo,12,\n"
			  "c,las,1,las,5,0.25\n"
			  "d,las,2,las,5,0.75\n";
	ok(fd >= 0 && write(fd, csv, strlen(csv)) == (ssize_t)strlen(csv), "wrote the summary");
	close(fd);
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(path, DL_IN_CSV, &err);
	struct dl_group *g = dl_group_new();
	const char *by[] = {"policy"};
	ok(r && !dl_group_read(g, r, by, 1, &err), "grouped by policy: %s", err.msg);
	dl_reader_close(r);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(fp, DL_OUT_CSV);
	dl_group_write_stream(g, w);
	dl_writer_free(w);
	fclose(fp);
	/* fifo: avg_jct 11 in [10, 12]; utilisation: one value (0.5), no interval.
	 * las: avg_jct 5 in [5, 5]; utilisation 0.5 in [0.25, 0.75] (the t half-width,
	 * 3.1765, would have given [-2.68, 3.68] for a share) */
	is_str(buf,
	       "policy,runs,avg_jct,avg_jct_lo95,avg_jct_hi95,utilization,utilization_lo95,"
	       "utilization_hi95\n"
	       "fifo,2,11,10,12,0.5,,\n"
	       "las,2,5,5,5,0.5,0.25,0.75\n",
	       "means and bootstrap intervals per policy");
	free(buf);
	dl_group_free(g);
	/* a missing group column is an error naming it */
	r = dl_reader_open(path, DL_IN_CSV, &err);
	g = dl_group_new();
	const char *bad[] = {"load"};
	ok(dl_group_read(g, r, bad, 1, &err) < 0 && strstr(err.msg, "no column 'load'"),
	   "unknown group column: %s", err.msg);
	dl_reader_close(r);
	dl_group_free(g);
	unlink(path);
}

int main(void)
{
	test_t();
	test_ci();
	test_boot();
	test_group();
	return done_testing();
}
