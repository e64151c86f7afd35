/* test_report_group.c: Student t, mean and 95% confidence intervals on hand-computed data */
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
	/* fifo: avg_jct 11 +- 12.706; utilisation: one value (0.5), no interval.
	 * las: avg_jct 5 +- 0; utilisation 0.5 +- 12.706 * sqrt(0.125) / sqrt(2) = 3.1765 */
	is_str(buf,
	       "policy,runs,avg_jct,avg_jct_ci95,utilization,utilization_ci95\n"
	       "fifo,2,11,12.706,0.5,\n"
	       "las,2,5,0,0.5,3.1765\n",
	       "means and half-widths per policy");
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
	test_group();
	return done_testing();
}
