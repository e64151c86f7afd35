/*
 * fuzz_report.c: arbitrary bytes as a results stream (and as a timeline) through
 * dlsched report's reader, metrics and every renderer. Besides not crashing,
 * the HTML page must stay valid UTF-8 without control characters whatever the
 * labels hold (the page is well-formed XML only if that holds), and no row may
 * count more finished jobs than jobs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/report.h"
#include "fuzz_util.h"

static struct dl_reader *open_bytes(const uint8_t *data, size_t size, int *fd)
{
	char path[64];
	*fd = to_fd_path(data, size, path);
	if (*fd < 0)
		return NULL;
	struct dl_err err = DL_ERR_INIT;
	return dl_reader_open(path, DL_IN_AUTO, &err);
}

static int valid_text(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c < 0x80) {
			if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
				return 0;
			i++;
			continue;
		}
		size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
		if (!len || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = -1;
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = open_bytes(data, size, &fd);
	struct dl_report *rep = dl_report_new();
	const char *first = NULL;
	int ok = r && !dl_report_read_results(rep, r, NULL, "file", &first, &err);
	dl_reader_close(r);
	if (fd >= 0)
		close(fd);
	if (ok) {
		/* the same bytes as a timeline: usually an error, never a crash */
		r = open_bytes(data, size, &fd);
		if (r)
			dl_report_read_timeline(rep, r, first, NULL, &err);
		dl_reader_close(r);
		if (fd >= 0)
			close(fd);
		struct dl_report_opts o = {(enum dl_report_by)(size % 3), (double)(size % 5), first};
		if (!dl_report_compute(rep, &o, &err)) {
			for (size_t i = 0; i < dl_report_nrows(rep); i++)
				if (dl_report_row(rep, i)->finished > dl_report_row(rep, i)->jobs)
					abort();
			char *buf = NULL;
			size_t len = 0;
			FILE *fp = open_memstream(&buf, &len);
			struct dl_report_page page = {first, "2026-11-21"};
			dl_report_write_html(rep, fp, &page);
			fclose(fp);
			if (!valid_text((const unsigned char *)buf, len)) {
				fprintf(stderr, "HTML page is not valid UTF-8 text\n");
				abort();
			}
			free(buf);
			fp = fopen("/dev/null", "w");
			dl_report_write_table(rep, fp, DL_REPORT_TEXT);
			dl_report_write_table(rep, fp, DL_REPORT_MARKDOWN);
			struct dl_writer *w = dl_writer_new(fp, DL_OUT_JSON);
			dl_report_write_stream(rep, w);
			dl_writer_free(w);
			fclose(fp);
		}
	}
	dl_report_free(rep);
	return 0;
}
