/*
 * fuzz_trace.c: arbitrary bytes through the trace importers, the Gavel
 * throughputs JSON reader and the jobs stream reader.
 *
 * The first byte picks the reader (modulo 8): 0 tiresias, 1 gavel, 2 philly,
 * 3 pai (the rest is split at the first NUL byte into the task table and the
 * job table), 4 helios, 5 sacct, 6 Gavel throughputs JSON, 7 jobs stream; its
 * bit 3 sets keep_unfinished (sacct's running and pending jobs), and with 6
 * reads the throughputs as --throughputs does (a stream or Gavel's JSON, by
 * its shape). An accepted throughputs table has at least one entry.
 * Whatever is accepted must be valid jobs (gpus >= 1, duration > 0, finite
 * times, within dl_job_check's limits), give consistent statistics, and
 * survive a write/read round trip with the same job count.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "policy/alloc_input.h"
#include "trace/gen.h"
#include "trace/import.h"
#include "fuzz_util.h"


static void check_jobs(const struct dl_jobset *js)
{
	for (size_t i = 0; i < js->n; i++) {
		const struct dl_job *j = &js->jobs[i];
		struct dl_err err = DL_ERR_INIT;
		if (j->gpus < 1 || !(j->duration > 0) || !isfinite(j->duration) ||
		    !isfinite(j->submit) || !j->id || !*j->id || dl_job_check(j, "fuzz", &err)) {
			fprintf(stderr, "invalid job %zu accepted\n", i);
			abort();
		}
	}
	/* the streaming statistics agree with the jobs */
	struct dl_trace_stats st;
	dl_trace_stats_compute(js, &st);
	size_t mixed = 0;
	for (size_t k = 0; k < st.nmix; k++)
		mixed += st.mix_count[k];
	if (st.jobs != js->n || mixed != js->n ||
	    (js->n && !(st.dur_min <= st.dur_p50 && st.dur_p50 <= st.dur_max)))
		abort();
	dl_trace_stats_free(&st);
	/* round trip through CSV */
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(fp, DL_OUT_CSV);
	dl_jobset_write(js, w);
	dl_writer_free(w);
	fclose(fp);
	char path[64];
	int fd = to_fd_path((const uint8_t *)buf, len, path);
	if (fd >= 0) {
		struct dl_jobset back;
		struct dl_err err = DL_ERR_INIT;
		dl_jobset_init(&back);
		if (dl_jobset_load(&back, path, DL_IN_CSV, &err) || back.n != js->n) {
			fprintf(stderr, "round trip failed: %s (%zu jobs became %zu)\n", err.msg,
				js->n, back.n);
			abort();
		}
		dl_jobset_free(&back);
		close(fd);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	int which = data[0] % 8;
	int keep_unfinished = (data[0] & 8) != 0;
	data++;
	size--;
	struct dl_jobset js;
	struct dl_err err = DL_ERR_INIT;
	struct dl_skips sk = {{0}};
	struct dl_tputs t = DL_TPUTS_INIT;
	char path[64], path2[64];
	int fd2 = -1;
	dl_jobset_init(&js);
	if (which == 3) {
		const uint8_t *nul = memchr(data, 0, size);
		size_t a = nul ? (size_t)(nul - data) : size / 2;
		size_t b = nul ? size - a - 1 : size - a;
		int fd = to_fd_path(data, a, path);
		fd2 = to_fd_path(data + size - b, b, path2);
		if (fd >= 0 && fd2 >= 0) {
			char *paths[2] = {path, path2};
			if (!dl_import_files(&js, DL_IMP_PAI, paths, 2, NULL, &sk, &err))
				check_jobs(&js);
		}
		if (fd >= 0)
			close(fd);
	} else {
		int fd = to_fd_path(data, size, path);
		if (fd < 0)
			goto out;
		char *paths[1] = {path};
		int rc = 0;
		if (which == 6) {
			rc = keep_unfinished ? dl_alloc_load_throughputs(path, DL_IN_AUTO, &t, &err)
					     : dl_tputs_import_gavel(&t, path, &err);
			if (!rc && !t.n)
				abort(); /* an empty table would make every lookup miss */
			if (!rc)
				for (size_t i = 0; i < t.n; i++)
					if (t.v[i].gpus < 1 || !(t.v[i].throughput >= 0))
						abort();
		} else if (which == 7) {
			rc = dl_jobset_load(&js, path, DL_IN_AUTO, &err);
		} else {
			static const enum dl_import_fmt fmts[] = {
				DL_IMP_TIRESIAS, DL_IMP_GAVEL,	DL_IMP_PHILLY,
				DL_IMP_PAI,	 DL_IMP_HELIOS, DL_IMP_SACCT,
			};
			struct dl_import_opts o = {0};
			o.keep_unfinished = keep_unfinished; /* bit 3 of the first byte */
			if (which == 1) {
				/* a small table so gavel lines with model "A" can succeed */
				for (int g = 1; g <= 8; g *= 2) {
					struct dl_tput e = {"A", "v100", g, "", 2.5, -1, 0};
					dl_tputs_add(&t, &e, NULL, &err);
				}
				o.tputs = &t;
			}
			rc = dl_import_files(&js, fmts[which], paths, 1, &o, &sk, &err);
		}
		if (!rc && which != 6)
			check_jobs(&js);
		close(fd);
	}
out:
	if (fd2 >= 0)
		close(fd2);
	dl_tputs_free(&t);
	dl_jobset_free(&js);
	return 0;
}
