#include "table/table.h"

#include <csv.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/strmap.h"
#include "table/jsonflat.h"

#define CHUNK (1 << 16)

struct dl_reader {
	struct dl_input *in;
	enum dl_in_format fmt;
	char **cols;
	size_t ncols;
	struct strmap colidx;
	char **fields; /* ncols pointers handed out in dl_row */
	int eof;

	/* CSV state */
	struct csv_parser csv;
	int csv_inited;
	int at_start; /* BOM not yet checked */
	int failed;
	struct dl_err *cb_err;
	struct strbuf cur; /* fields of the row being parsed, NUL-separated */
	size_t *cur_off;
	size_t cur_n, cur_alloc;
	long cur_nl;   /* newlines inside quoted fields of the current row */
	long line;     /* physical line where the next row starts */
	int prev_term; /* terminator of the previous row callback */
	/* completed rows not yet handed out */
	struct strbuf qbuf;
	size_t *qoff; /* field offsets into qbuf */
	size_t qoff_n, qoff_alloc;
	struct qrow {
		size_t first, n;
		long line;
	} * qrows;
	size_t qrows_n, qrows_alloc, qnext;
	char *chunk;
	/* the plain-line fast path (see plain_feed) */
	int slow;	     /* libcsv parses everything from here on */
	struct strbuf carry; /* bytes after the last complete line */

	/* JSON state */
	struct strbuf jline;
	struct strbuf jvals;
	size_t *joff;
	long jlineno;
	struct strbuf jkey, jval; /* scratch of the flat-object fast path */
	json_t *jfirst;		  /* parsed at open for the header, returned by the first next() */
};

const char *dl_reader_name(const struct dl_reader *r)
{
	return dl_input_name(r->in);
}

int dl_reader_regular(const struct dl_reader *r)
{
	return dl_input_regular(r->in);
}

enum dl_in_format dl_reader_format(const struct dl_reader *r)
{
	return r->fmt;
}

size_t dl_reader_ncols(const struct dl_reader *r)
{
	return r->ncols;
}

const char *const *dl_reader_columns(const struct dl_reader *r)
{
	return (const char *const *)r->cols;
}

int dl_reader_col(const struct dl_reader *r, const char *name)
{
	int64_t *v = strmap_get(&r->colidx, name);
	return v ? (int)*v : -1;
}

int dl_reader_require(const struct dl_reader *r, const char *name, const char *why,
		      struct dl_err *err)
{
	int c = dl_reader_col(r, name);
	if (c >= 0)
		return c;
	if (why)
		dl_err_at(err, dl_reader_name(r), 0, "missing required column '%s' (%s)", name,
			  why);
	else
		dl_err_at(err, dl_reader_name(r), 0, "missing required column '%s'", name);
	return -1;
}

static int add_column(struct dl_reader *r, const char *name, size_t len, long line,
		      struct dl_err *err)
{
	if (r->ncols >= DL_TABLE_MAX_COLUMNS)
		return dl_err_at(err, dl_reader_name(r), line, "more than %d columns",
				 DL_TABLE_MAX_COLUMNS);
	if (len == 0)
		return dl_err_at(err, dl_reader_name(r), line, "empty column name in header");
	if (!strmap_putn(&r->colidx, name, len, (int64_t)r->ncols))
		return dl_err_at(err, dl_reader_name(r), line, "duplicate column '%.*s'", (int)len,
				 name);
	r->cols = xreallocarray(r->cols, r->ncols + 1, sizeof(*r->cols));
	r->cols[r->ncols++] = xstrndup(name, len);
	return 0;
}

/* ---- CSV ---- */

static void csv_on_field(void *s, size_t len, void *ud)
{
	struct dl_reader *r = ud;
	if (r->failed)
		return;
	if (s && len && memchr(s, '\0', len)) {
		/* text data never holds NUL; this is binary input */
		dl_err_at(r->cb_err, dl_reader_name(r), r->line + r->cur_nl, "NUL byte in field");
		r->failed = 1;
		return;
	}
	if (s && len) {
		const char *p = s, *end = p + len;
		while ((p = memchr(p, '\n', (size_t)(end - p)))) {
			r->cur_nl++;
			p++;
		}
	}
	/* a row with more fields than the header is an error: count them, keep none */
	if (r->fields && r->cur_n >= r->ncols) {
		r->cur_n++;
		return;
	}
	if (!r->fields && r->cur_n >= DL_TABLE_MAX_COLUMNS) {
		dl_err_at(r->cb_err, dl_reader_name(r), r->line, "more than %d columns",
			  DL_TABLE_MAX_COLUMNS);
		r->failed = 1;
		return;
	}
	DL_GROW(r->cur_off, r->cur_n + 1, r->cur_alloc);
	r->cur_off[r->cur_n++] = r->cur.len;
	if (s && len)
		sb_add(&r->cur, s, len);
	sb_addc(&r->cur, '\0');
}

static void csv_on_row(int term, void *ud)
{
	struct dl_reader *r = ud;
	if (r->failed)
		return;
	int prev = r->prev_term;
	r->prev_term = term;
	if (r->cur_n == 0) {
		/* the LF of a CRLF pair arrives as an empty row after '\r' */
		if (!(term == '\n' && prev == '\r'))
			r->line++;
		return;
	}
	{
		DL_GROW(r->qrows, r->qrows_n + 1, r->qrows_alloc);
		struct qrow *q = &r->qrows[r->qrows_n++];
		q->first = r->qoff_n;
		q->n = r->cur_n;
		q->line = r->line;
		size_t base = r->qbuf.len,
		       kept = r->fields && r->cur_n > r->ncols ? r->ncols : r->cur_n;
		sb_add(&r->qbuf, r->cur.buf, r->cur.len);
		DL_GROW(r->qoff, r->qoff_n + kept, r->qoff_alloc);
		for (size_t i = 0; i < kept; i++)
			r->qoff[r->qoff_n++] = base + r->cur_off[i];
	}
	r->line += 1 + r->cur_nl;
	r->cur_nl = 0;
	r->cur_n = 0;
	sb_reset(&r->cur);
}

static int csv_never_space(unsigned char c)
{
	(void)c;
	return 0;
}

static int csv_blank_space(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/*
 * ---- The plain-line fast path ----
 * Most CSV is plain: no quotes, no CR, no NUL. Complete lines of plain text
 * are split here, as libcsv would split them (with our options: blanks
 * around unquoted fields dropped, a line of blanks is no row, every line
 * counted), straight into the row queue. At the first line that is not
 * plain (or a line longer than FAST_LINE_MAX), everything from there on goes
 * to libcsv, which starts at that line as if it had parsed all before it.
 */
#define FAST_LINE_MAX (1 << 20)

static int is_blank_char(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * bytes that end a field (',', and the newline or NUL after a line) or make
 * a line not plain ('"', CR, NUL)
 */
static const unsigned char field_end[256] = {
	[','] = 1, ['"'] = 1, ['\r'] = 1, ['\0'] = 1, ['\n'] = 1};

/*
 * One line (no terminator) into the row queue, as libcsv's callbacks would
 * put it: 0, or -1 with nothing queued when the line is not plain. One pass
 * finds the fields, trims their blanks and copies them.
 */
static int plain_line(struct dl_reader *r, const char *s, size_t len)
{
	/*
	 * s[len] is the line's newline or the carry's NUL: both stop a field
	 * (a newline cannot be inside a line), so the scans below need no
	 * bound; p == end tells the line's end from a NUL inside it
	 */
	const char *end = s + len, *p = s;
	while (is_blank_char(*p))
		p++;
	if (p == end) { /* nothing but blanks: libcsv reports no field */
		r->line++;
		return 0;
	}
	size_t qoff0 = r->qoff_n;
	sb_grow(&r->qbuf, len + 1); /* fields and their NULs: at most len + 1 bytes */
	DL_GROW(r->qoff, r->qoff_n + len + 1, r->qoff_alloc); /* fields: at most len + 1 */
	char *base = r->qbuf.buf, *out = base + r->qbuf.len;
	size_t nf = 0;
	for (p = s;; p++) {
		while (is_blank_char(*p))
			p++;
		r->qoff[r->qoff_n++] = (size_t)(out - base);
		/* copy up to the field's end, then drop its trailing blanks */
		char *o = out;
		unsigned char c;
		while (!field_end[c = (unsigned char)*p]) {
			*o++ = (char)c;
			p++;
		}
		if (p != end && c != ',') {
			r->qoff_n = qoff0;
			return -1;
		}
		while (o > out && is_blank_char(o[-1]))
			o--;
		*o++ = '\0';
		out = o;
		nf++;
		if (p == end)
			break;
	}
	r->qbuf.len = (size_t)(out - base);
	DL_GROW(r->qrows, r->qrows_n + 1, r->qrows_alloc);
	struct qrow *q = &r->qrows[r->qrows_n++];
	q->first = qoff0;
	q->n = nf;
	q->line = r->line++;
	r->prev_term = '\n';
	return 0;
}

/* the complete lines of s[0..len) while they are plain; returns the bytes consumed */
static size_t plain_lines(struct dl_reader *r, const char *s, size_t len)
{
	size_t done = 0;
	while (done < len) {
		const char *nl = memchr(s + done, '\n', len - done);
		if (!nl)
			break;
		size_t n = (size_t)(nl - (s + done));
		if (plain_line(r, s + done, n) < 0) {
			r->slow = 1;
			break;
		}
		done += n + 1;
	}
	return done;
}

/*
 * Feed a chunk. Returns NULL when it was consumed here (rows may be queued),
 * else r->slow is set and *len bytes at the result are for libcsv.
 */
static const char *plain_feed(struct dl_reader *r, const char *p, size_t *len)
{
	sb_add(&r->carry, p, *len);
	size_t done = plain_lines(r, r->carry.buf, r->carry.len);
	size_t rest = r->carry.len - done;
	if (!r->slow && rest > FAST_LINE_MAX)
		r->slow = 1;
	if (r->slow) {
		*len = rest;
		return r->carry.buf + done;
	}
	memmove(r->carry.buf, r->carry.buf + done, rest);
	sb_setlen(&r->carry, rest);
	return NULL;
}

/* at the end of the input: the last line, if it has no newline */
static const char *plain_finish(struct dl_reader *r, size_t *len)
{
	const char *s = r->carry.buf;
	size_t n = r->carry.len;
	*len = n;
	if (!n)
		return NULL;
	if (plain_line(r, s, n) < 0) {
		r->slow = 1;
		return s;
	}
	sb_setlen(&r->carry, 0);
	return NULL;
}

/* parse more input into the row queue; 0 ok, -1 error; sets r->eof */
static int csv_fill(struct dl_reader *r, struct dl_err *err)
{
	r->qrows_n = r->qnext = r->qoff_n = 0;
	sb_reset(&r->qbuf);
	while (r->qrows_n == 0 && !r->eof) {
		ssize_t n = dl_input_read(r->in, r->chunk, CHUNK, err);
		if (n < 0)
			return -1;
		if (n == 0) {
			r->eof = 1;
			r->cb_err = err;
			if (!r->slow) {
				size_t rest;
				const char *q = plain_finish(r, &rest);
				if (!q)
					break;
				if (csv_parse(&r->csv, q, rest, csv_on_field, csv_on_row, r) <
					    rest &&
				    !r->failed)
					return dl_err_at(err, dl_reader_name(r), r->line,
							 "malformed CSV (%s)",
							 csv_strerror(csv_error(&r->csv)));
				if (r->failed)
					return -1;
			}
			int fini = csv_fini(&r->csv, csv_on_field, csv_on_row, r);
			if (r->failed)
				return -1;
			if (fini != 0)
				return dl_err_at(err, dl_reader_name(r), r->line,
						 "unterminated quoted field");
			break;
		}
		const char *p = r->chunk;
		size_t len = (size_t)n;
		if (r->at_start) {
			r->at_start = 0;
			if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
				p += 3;
				len -= 3;
			}
		}
		if (!r->slow && !(p = plain_feed(r, p, &len)))
			continue;
		r->cb_err = err;
		/*
		 * libcsv grows its field buffer by blk_size bytes at a time: keep
		 * blk_size at the buffer's size so that a long field costs
		 * O(n), not O(n^2) (doubling; one growth per chunk at most)
		 */
		size_t have = csv_get_buffer_size(&r->csv);
		csv_set_blk_size(&r->csv, have > CHUNK ? have : CHUNK);
		size_t done = csv_parse(&r->csv, p, len, csv_on_field, csv_on_row, r);
		sb_release(&r->carry); /* what the fast path handed over is parsed */
		if (r->failed)
			return -1;
		/* the row being parsed: complete fields plus the field in libcsv's buffer */
		if (r->cur.len + r->csv.entry_pos > DL_LINE_MAX)
			return dl_err_at(err, dl_reader_name(r), r->line,
					 "row longer than the limit of %d MiB", DL_LINE_MAX >> 20);
		if (done < len) {
			/* r->line is where the offending row starts */
			return dl_err_at(err, dl_reader_name(r), r->line, "malformed CSV (%s)",
					 csv_strerror(csv_error(&r->csv)));
		}
	}
	return 0;
}

static int csv_next_raw(struct dl_reader *r, struct qrow **q, struct dl_err *err)
{
	if (r->qnext >= r->qrows_n) {
		if (r->eof && r->qnext >= r->qrows_n)
			return 0;
		if (csv_fill(r, err))
			return -1;
		if (r->qrows_n == 0)
			return 0;
	}
	*q = &r->qrows[r->qnext++];
	return 1;
}

static int csv_open(struct dl_reader *r, struct dl_err *err)
{
	if (csv_init(&r->csv, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL))
		return dl_err_set(err, DL_EXIT_DATA, "cannot initialise CSV parser");
	r->csv_inited = 1;
	csv_set_space_func(&r->csv, csv_blank_space);
	csv_set_realloc_func(&r->csv, xrealloc); /* out of memory as everywhere else */
	(void)csv_never_space;
	r->chunk = xmalloc(CHUNK);
	r->at_start = 1;
	r->line = 1;
	struct qrow *q;
	int rc;
	do {
		rc = csv_next_raw(r, &q, err);
		if (rc <= 0)
			return rc;
		/* lines of blanks before the header are blank lines */
	} while (q->n == 1 && r->qbuf.buf[r->qoff[q->first]] == '\0');
	for (size_t i = 0; i < q->n; i++) {
		const char *name = r->qbuf.buf + r->qoff[q->first + i];
		if (add_column(r, name, strlen(name), q->line, err))
			return -1;
	}
	r->fields = xcalloc(r->ncols ? r->ncols : 1, sizeof(*r->fields));
	return 0;
}

static int csv_next(struct dl_reader *r, struct dl_row *row, struct dl_err *err)
{
	struct qrow *q;
	int rc;
	for (;;) {
		rc = csv_next_raw(r, &q, err);
		if (rc <= 0)
			return rc;
		/* a line of blanks is one empty field: skip it unless that is a valid row */
		if (!(q->n == 1 && r->ncols != 1 && r->qbuf.buf[r->qoff[q->first]] == '\0'))
			break;
	}
	if (q->n != r->ncols)
		return dl_err_at(err, dl_reader_name(r), q->line, "expected %zu fields, got %zu",
				 r->ncols, q->n);
	for (size_t i = 0; i < q->n; i++)
		r->fields[i] = r->qbuf.buf + r->qoff[q->first + i];
	row->n = r->ncols;
	row->f = r->fields;
	row->line = q->line;
	return 1;
}

/* ---- JSON Lines ---- */

static int is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* next non-blank line into r->jline (BOM removed), pointed to by s and len; 1/0/-1 */
static int json_next_line(struct dl_reader *r, const char **s, size_t *len, struct dl_err *err)
{
	for (;;) {
		int rc = dl_input_getline(r->in, &r->jline, err);
		if (rc <= 0)
			return rc;
		r->jlineno++;
		const char *p = r->jline.buf;
		size_t n = r->jline.len;
		if (r->jlineno == 1 && n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
			p += 3;
			n -= 3;
		}
		if (is_blank(p, n))
			continue;
		*s = p;
		*len = n;
		return 1;
	}
}

/* the line parsed by jansson as an object; 1 or -1 */
static int json_parse_object(struct dl_reader *r, const char *s, size_t len, json_t **obj,
			     struct dl_err *err)
{
	json_error_t jerr;
	json_t *v = json_loadb(s, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!v)
		return dl_err_at(err, dl_reader_name(r), r->jlineno, "bad JSON at column %d: %s",
				 jerr.column, jerr.text);
	if (!json_is_object(v)) {
		json_decref(v);
		return dl_err_at(err, dl_reader_name(r), r->jlineno,
				 "expected a JSON object per line");
	}
	*obj = v;
	return 1;
}

static int json_read_object(struct dl_reader *r, json_t **obj, struct dl_err *err)
{
	const char *s;
	size_t len;
	int rc = json_next_line(r, &s, &len, err);
	if (rc <= 0)
		return rc;
	return json_parse_object(r, s, len, obj, err);
}

static int fast_member(void *ud, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct dl_reader *r = ud;
	int64_t *ci = strmap_getn(&r->colidx, key, klen);
	if (!ci || r->joff[*ci] != (size_t)-1 || memchr(key, '\0', klen))
		return 1; /* unknown or repeated key: the full parser reports it */
	r->joff[*ci] = r->jvals.len;
	sb_add(&r->jvals, val, vlen);
	sb_addc(&r->jvals, '\0');
	return 0;
}

static void json_finish_row(struct dl_reader *r, struct dl_row *row)
{
	size_t empty = r->jvals.len;
	sb_addc(&r->jvals, '\0');
	for (size_t i = 0; i < r->ncols; i++)
		r->fields[i] = r->jvals.buf + (r->joff[i] == (size_t)-1 ? empty : r->joff[i]);
	row->n = r->ncols;
	row->f = r->fields;
	row->line = r->jlineno;
}

static int json_fill_row(struct dl_reader *r, json_t *obj, struct dl_row *row, struct dl_err *err)
{
	sb_reset(&r->jvals);
	for (size_t i = 0; i < r->ncols; i++)
		r->joff[i] = (size_t)-1;
	const char *key;
	json_t *val;
	/* first pass: values into jvals, offsets by column */
	json_object_foreach (obj, key, val) {
		int64_t *ci = strmap_get(&r->colidx, key);
		if (!ci)
			return dl_err_at(err, dl_reader_name(r), r->jlineno,
					 "key '%s' is not in the first record", key);
		r->joff[*ci] = r->jvals.len;
		dl_json_value_text(&r->jvals, val);
		sb_addc(&r->jvals, '\0');
	}
	json_finish_row(r, row);
	return 1;
}

static int json_open(struct dl_reader *r, json_t **first, struct dl_err *err)
{
	json_t *obj;
	int rc = json_read_object(r, &obj, err);
	if (rc <= 0)
		return rc;
	if (json_object_size(obj) == 0) {
		json_decref(obj);
		return dl_err_at(err, dl_reader_name(r), r->jlineno,
				 "the first JSON object has no keys (no columns)");
	}
	const char *key;
	json_t *val;
	json_object_foreach (obj, key, val) {
		if (add_column(r, key, strlen(key), r->jlineno, err)) {
			json_decref(obj);
			return -1;
		}
	}
	(void)val;
	r->fields = xcalloc(r->ncols ? r->ncols : 1, sizeof(*r->fields));
	r->joff = xcalloc(r->ncols ? r->ncols : 1, sizeof(*r->joff));
	*first = obj;
	return 0;
}

/* ---- common ---- */

struct dl_reader *dl_reader_open(const char *path, enum dl_in_format fmt, struct dl_err *err)
{
	struct dl_input *in = dl_input_open(path, err);
	if (!in)
		return NULL;
	return dl_reader_from_input(in, fmt, err);
}

int dl_input_detect(struct dl_input *in, struct dl_err *err)
{
	const unsigned char *p;
	size_t len;
	if (dl_input_peek(in, 4096, &p, &len, err))
		return -1;
	size_t i = 0;
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	return i < len && p[i] == '{' ? DL_IN_JSON : DL_IN_CSV;
}

struct dl_reader *dl_reader_from_input(struct dl_input *in, enum dl_in_format fmt,
				       struct dl_err *err)
{
	struct dl_reader *r = xcalloc(1, sizeof(*r));
	r->in = in;
	sb_init(&r->cur);
	sb_init(&r->qbuf);
	sb_init(&r->carry);
	sb_init(&r->jline);
	sb_init(&r->jvals);
	sb_init(&r->jkey);
	sb_init(&r->jval);
	if (fmt == DL_IN_AUTO) {
		int detected = dl_input_detect(in, err);
		if (detected < 0) {
			dl_reader_close(r);
			return NULL;
		}
		fmt = (enum dl_in_format)detected;
	}
	r->fmt = fmt;
	int rc;
	if (fmt == DL_IN_JSON) {
		json_t *first = NULL;
		rc = json_open(r, &first, err);
		r->jfirst = first;
	} else {
		rc = csv_open(r, err);
	}
	if (rc < 0) {
		dl_reader_close(r);
		return NULL;
	}
	return r;
}

int dl_reader_next(struct dl_reader *r, struct dl_row *row, struct dl_err *err)
{
	if (r->fmt == DL_IN_CSV)
		return csv_next(r, row, err);
	if (!r->fields)
		return 0; /* empty input */
	json_t *obj = r->jfirst;
	r->jfirst = NULL;
	if (!obj) {
		const char *line;
		size_t len;
		int rc = json_next_line(r, &line, &len, err);
		if (rc <= 0)
			return rc;
		sb_reset(&r->jvals);
		for (size_t i = 0; i < r->ncols; i++)
			r->joff[i] = (size_t)-1;
		if (dl_json_flat_parse(line, len, &r->jkey, &r->jval, fast_member, r) == 1) {
			json_finish_row(r, row);
			return 1;
		}
		if (json_parse_object(r, line, len, &obj, err) < 0)
			return -1;
	}
	int rc = json_fill_row(r, obj, row, err);
	json_decref(obj);
	return rc;
}

void dl_reader_close(struct dl_reader *r)
{
	if (!r)
		return;
	dl_input_close(r->in);
	for (size_t i = 0; i < r->ncols; i++)
		free(r->cols[i]);
	free(r->cols);
	strmap_free(&r->colidx);
	free(r->fields);
	if (r->csv_inited)
		csv_free(&r->csv);
	sb_release(&r->cur);
	free(r->cur_off);
	sb_release(&r->qbuf);
	sb_release(&r->carry);
	free(r->qoff);
	free(r->qrows);
	free(r->chunk);
	sb_release(&r->jline);
	sb_release(&r->jvals);
	sb_release(&r->jkey);
	sb_release(&r->jval);
	free(r->joff);
	if (r->jfirst)
		json_decref(r->jfirst);
	free(r);
}

const char *dl_field_str(const struct dl_row *row, int col)
{
	return col < 0 ? "" : row->f[col];
}

static int bad_value(const struct dl_reader *r, const struct dl_row *row, int col, const char *what,
		     struct dl_err *err)
{
	const char *v = row->f[col];
	if (!*v)
		return dl_err_at(err, dl_reader_name(r), row->line, "empty %s value", r->cols[col]);
	return dl_err_at(err, dl_reader_name(r), row->line, "bad %s value '%.64s'%s%s",
			 r->cols[col], v, what ? ": " : "", what ? what : "");
}

int dl_field_int64(const struct dl_reader *r, const struct dl_row *row, int col, int64_t *out,
		   struct dl_err *err)
{
	if (col < 0)
		return 0;
	if (dl_parse_int64(row->f[col], out))
		return bad_value(r, row, col, "expected an integer", err);
	return 0;
}

int dl_field_double(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
		    struct dl_err *err)
{
	if (col < 0)
		return 0;
	if (dl_parse_double(row->f[col], out))
		return bad_value(r, row, col, "expected a number", err);
	return 0;
}

int dl_field_nonneg(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
		    struct dl_err *err)
{
	if (col < 0)
		return 0;
	if (dl_parse_nonneg(row->f[col], out))
		return bad_value(r, row, col, "expected a number >= 0", err);
	return 0;
}

int dl_field_seconds(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
		     struct dl_err *err)
{
	double v;
	if (col < 0)
		return 0;
	if (dl_field_nonneg(r, row, col, &v, err))
		return -1;
	if (v > DL_SECONDS_MAX)
		return bad_value(r, row, col, "over the maximum of 1e10 seconds (317 years)", err);
	*out = v;
	return 0;
}

int dl_field_int64_opt(const struct dl_reader *r, const struct dl_row *row, int col, int64_t *out,
		       struct dl_err *err)
{
	if (col < 0 || !row->f[col][0])
		return 0;
	return dl_field_int64(r, row, col, out, err);
}

int dl_field_double_opt(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
			struct dl_err *err)
{
	if (col < 0 || !row->f[col][0])
		return 0;
	return dl_field_double(r, row, col, out, err);
}
