/*
 * fuzz_table.c: arbitrary bytes through the table reader (CSV and JSON Lines,
 * auto-detected) and back out through both writers, then the CSV output is
 * read again: it must parse, with the same number of rows.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "table/table.h"
#include "fuzz_util.h"


/* returns rows read, or -1 on a reader error; writes CSV to *csv when asked */
static long pass(const char *path, enum dl_in_format fmt, char **csv, size_t *csvlen)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(path, fmt, &err);
	if (!r)
		return -1;
	FILE *cf = csv ? open_memstream(csv, csvlen) : fopen("/dev/null", "w");
	FILE *jf = fopen("/dev/null", "w");
	struct dl_writer *cw = dl_writer_new(cf, DL_OUT_CSV);
	struct dl_writer *jw = dl_writer_new(jf, DL_OUT_JSON);
	dl_writer_set_columns(cw, dl_reader_columns(r), dl_reader_ncols(r));
	dl_writer_set_columns(jw, dl_reader_columns(r), dl_reader_ncols(r));
	struct dl_row row;
	long n = 0;
	int rc;
	while ((rc = dl_reader_next(r, &row, &err)) > 0) {
		for (size_t i = 0; i < row.n; i++) {
			dl_writer_str(cw, i, row.f[i]);
			dl_writer_auto(jw, i, row.f[i]);
		}
		dl_writer_end_row(cw);
		dl_writer_end_row(jw);
		n++;
	}
	dl_writer_finish(cw);
	dl_writer_free(cw);
	dl_writer_free(jw);
	fclose(cf);
	fclose(jf);
	dl_reader_close(r);
	return rc < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = to_fd_path(data, size, path);
	if (fd < 0)
		return 0;
	char *csv = NULL;
	size_t csvlen = 0;
	long n = pass(path, DL_IN_AUTO, &csv, &csvlen);
	close(fd);
	if (n > 0 && csv) {
		/* what we wrote must read back with the same number of rows */
		int fd2 = to_fd_path((const uint8_t *)csv, csvlen, path);
		if (fd2 >= 0) {
			long m = pass(path, DL_IN_CSV, NULL, NULL);
			close(fd2);
			if (m != n) {
				fprintf(stderr, "round trip: %ld rows became %ld\n", n, m);
				abort();
			}
		}
	}
	free(csv);
	return 0;
}
