/*
 * test_table_fast.c: the CSV reader's plain-line fast path gives exactly what
 * libcsv gives. Each random input is read twice: with the header `a,b,c`
 * (plain, so the fast path splits every plain line) and with `"a",b,c` (a
 * quote on the first line sends everything to libcsv); the column names are
 * the same (half the cases have one column, `a`). Rows, fields, line numbers and errors must match,
 * across 64 KiB chunk boundaries, with blank lines, blanks around fields, wrong field counts, no
 * final newline, and quotes, CRs or NULs that switch to libcsv midway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "table/table.h"
#include "core/rng.h"
#include "tap.h"

static uint64_t rng_state = 0x853c49e6748fea9bu;

static unsigned rnd(unsigned n)
{
	return (unsigned)(dl_splitmix64(&rng_state) % n);
}

static char *write_tmp(const char *text, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/dlfastXXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* every row as "LINE:f1|f2|...\n", or the error; the file name is left out */
static void dump(const char *path, struct strbuf *out)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(path, DL_IN_CSV, &err);
	if (!r) {
		const char *m = strchr(err.msg, ':');
		sb_addf(out, "open error%s\n", m ? m : err.msg);
		return;
	}
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, &err)) > 0) {
		sb_addf(out, "%ld:", row.line);
		for (size_t i = 0; i < row.n; i++)
			sb_addf(out, "%s%s", i ? "|" : "", row.f[i]);
		sb_addc(out, '\n');
	}
	if (got < 0) {
		const char *m = strchr(err.msg, ':');
		sb_addf(out, "error%s\n", m ? m : err.msg);
	}
	dl_reader_close(r);
}

/* a random body: mostly plain lines; `spice` adds quotes and CRs now and then */
static void body(struct strbuf *b, size_t bytes, int spice)
{
	static const char *const pieces[] = {"a", "bb", "1.5", "x y", " ", "\t", "", "id-7"};
	while (b->len < bytes) {
		unsigned kind = rnd(20);
		if (kind == 0) { /* blank line */
			sb_addc(b, '\n');
			continue;
		}
		if (kind == 1) { /* blanks only */
			sb_addstr(b, rnd(2) ? "  \t\n" : " \n");
			continue;
		}
		unsigned nf = kind == 2 ? 1 + rnd(5) : 3; /* sometimes the wrong count */
		if (kind == 3) { /* a long line, across a chunk boundary now and then */
			unsigned n = 1000 + rnd(90000);
			for (unsigned k = 0; k < n; k++)
				sb_addc(b, (char)('a' + rnd(26)));
			sb_addstr(b, ",1,2\n");
			continue;
		}
		for (unsigned f = 0; f < nf; f++) {
			if (f)
				sb_addc(b, ',');
			unsigned parts = rnd(3);
			for (unsigned k = 0; k < parts; k++)
				sb_addstr(b, pieces[rnd(8)]);
		}
		if (spice && rnd(200) == 0)
			sb_addstr(b, rnd(2) ? ",\"q,uo\"\"ted\"" : "\r");
		/* a NUL inside a line: the fast path's scans stop on it */
		if (spice && rnd(300) == 0)
			sb_add(b, rnd(2) ? "x\0y" : ",\0", 3);
		sb_addc(b, '\n');
	}
	if (rnd(2)) /* no final newline */
		sb_setlen(b, b->len - 1);
}

int main(void)
{
	int bad = 0, cases = 0, slow_midway = 0;
	for (int t = 0; t < 200; t++, cases++) {
		struct strbuf b = STRBUF_INIT, fast = STRBUF_INIT, slow = STRBUF_INIT,
			      in1 = STRBUF_INIT, in2 = STRBUF_INIT;
		size_t bytes = t < 170 ? 1 + rnd(400) : 50000 + rnd(300000);
		body(&b, bytes, t % 3 == 2);
		/* one column too: then a row of one empty field is a row, not a blank line */
		sb_addstr(&in1, t % 2 ? "a\n" : "a,b,c\n");
		sb_add(&in1, b.buf, b.len);
		sb_addstr(&in2, t % 2 ? "\"a\"\n" : "\"a\",b,c\n");
		sb_add(&in2, b.buf, b.len);
		slow_midway += memchr(b.buf, '"', b.len) != NULL || memchr(b.buf, '\r', b.len) ||
			       memchr(b.buf, '\0', b.len);
		char *p1 = write_tmp(in1.buf, in1.len), *p2 = write_tmp(in2.buf, in2.len);
		dump(p1, &fast);
		dump(p2, &slow);
		if (strcmp(fast.buf, slow.buf)) {
			if (bad++ < 3) {
				size_t k = 0;
				while (fast.buf[k] && fast.buf[k] == slow.buf[k])
					k++;
				printf("# case %d differs at byte %zu: fast '%.60s' libcsv '%.60s'\n",
				       t, k, fast.buf + k, slow.buf + k);
			}
		}
		unlink(p1);
		unlink(p2);
		free(p1);
		free(p2);
		sb_release(&b);
		sb_release(&fast);
		sb_release(&slow);
		sb_release(&in1);
		sb_release(&in2);
	}
	ok(!bad, "fast path == libcsv on %d random inputs (%d switch to libcsv midway)", cases,
	   slow_midway);
	ok(slow_midway > 0, "some inputs switch midway");
	return done_testing();
}
