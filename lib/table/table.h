/*
 * table.h: streams of rows, read from CSV or JSON Lines and written to either.
 *
 * Reader: dl_reader_open() opens a file or "-" (gzip transparently), detects
 * the format (a first non-blank byte '{' means JSON Lines) unless told, and
 * reads the header (CSV: the first non-blank line; JSON Lines: the keys of the
 * first object, in order). dl_reader_next() yields one row at a time; the
 * row's strings belong to the reader and stay valid until the next call.
 * Memory is bounded by the longest row, not by the number of rows. Rows carry
 * the physical line on which they start. Every error names FILE:LINE.
 * Limits, so that memory stays bounded whatever the input: a line (JSON
 * Lines) or a row (CSV, quoted newlines included) is at most DL_LINE_MAX
 * (64 MiB), and a header at most DL_TABLE_MAX_COLUMNS columns.
 *
 * JSON Lines values become text: strings as they are, integers in decimal,
 * reals in shortest round-trip form, true/false as words, null as the empty
 * string, and arrays/objects as compact JSON. A later object may omit keys
 * (their fields are empty) but may not introduce a key the first object did
 * not have.
 *
 * Writer: dl_writer_new() writes to a FILE it does not own. Set the columns,
 * then fill fields of a row by column index and end the row. CSV quotes only
 * where needed (`,` `"` CR LF or edge blanks) and ends lines with "\n". JSON
 * Lines writes one object per row with the same keys; strings are escaped,
 * invalid UTF-8 becomes U+FFFD, and a non-finite number (NaN, inf), a field
 * left unset and an empty string become null (an empty field in CSV): absent
 * is null in JSON, as the reader reads it. dl_writer_free() frees the writer only;
 * the caller checks the FILE for write errors.
 */
#ifndef DL_TABLE_H
#define DL_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "core/common.h"
#include "core/io.h"

enum dl_in_format { DL_IN_AUTO = 0, DL_IN_CSV, DL_IN_JSON };

#define DL_TABLE_MAX_COLUMNS 65536
enum dl_out_format { DL_OUT_CSV = 0, DL_OUT_JSON };

struct dl_row {
	size_t n;  /* == dl_reader_ncols() */
	char **f;  /* n NUL-terminated fields */
	long line; /* physical line where the row starts (1-based) */
};

struct dl_reader;

struct dl_reader *dl_reader_open(const char *path, enum dl_in_format fmt, struct dl_err *err);
/* what DL_IN_AUTO reads: DL_IN_JSON when the first non-blank byte is '{', else DL_IN_CSV; -1 */
int dl_input_detect(struct dl_input *in, struct dl_err *err);
/* Take over an open input (closed by dl_reader_close, also on failure). */
struct dl_reader *dl_reader_from_input(struct dl_input *in, enum dl_in_format fmt,
				       struct dl_err *err);
/* 1 = a row in *row, 0 = end of input, -1 = error */
int dl_reader_next(struct dl_reader *r, struct dl_row *row, struct dl_err *err);
void dl_reader_close(struct dl_reader *r);

const char *dl_reader_name(const struct dl_reader *r);
/* does it read a regular file (dl_input_regular)? */
int dl_reader_regular(const struct dl_reader *r);
enum dl_in_format dl_reader_format(const struct dl_reader *r);
size_t dl_reader_ncols(const struct dl_reader *r);
const char *const *dl_reader_columns(const struct dl_reader *r);
/* column index of name, or -1 */
int dl_reader_col(const struct dl_reader *r, const char *name);
/* column index, or -1 with "FILE: missing required column 'NAME'" (+ why, if given) */
int dl_reader_require(const struct dl_reader *r, const char *name, const char *why,
		      struct dl_err *err);

/*
 * Typed field access with errors of the form "FILE:LINE: bad COL value 'TEXT'".
 * col < 0 (an absent optional column) leaves *out unchanged and returns 0.
 * An empty field is an error unless the _opt variant is used (then *out is
 * left unchanged and 0 is returned).
 */
int dl_field_int64(const struct dl_reader *r, const struct dl_row *row, int col, int64_t *out,
		   struct dl_err *err);
int dl_field_double(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
		    struct dl_err *err);
int dl_field_nonneg(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
		    struct dl_err *err);
/* a number of seconds: as dl_field_nonneg, and at most DL_SECONDS_MAX ("over the maximum") */
int dl_field_seconds(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
		     struct dl_err *err);
int dl_field_int64_opt(const struct dl_reader *r, const struct dl_row *row, int col, int64_t *out,
		       struct dl_err *err);
int dl_field_double_opt(const struct dl_reader *r, const struct dl_row *row, int col, double *out,
			struct dl_err *err);
/* field text, or "" when col < 0 */
const char *dl_field_str(const struct dl_row *row, int col);

struct dl_writer;

struct dl_writer *dl_writer_new(FILE *fp, enum dl_out_format fmt);
/* Replace the columns (before the first row). Names are copied. */
void dl_writer_set_columns(struct dl_writer *w, const char *const *names, size_t n);
/* Append a column (before the first row); returns its index. */
size_t dl_writer_add_column(struct dl_writer *w, const char *name);
size_t dl_writer_ncols(const struct dl_writer *w);
/* the FILE it writes to (the caller's) */
FILE *dl_writer_file(const struct dl_writer *w);
/* CSV: end lines with "\r\n" (as Python's csv module does); JSON Lines: no effect */
void dl_writer_set_crlf(struct dl_writer *w, int crlf);
void dl_writer_str(struct dl_writer *w, size_t col, const char *s);
void dl_writer_strn(struct dl_writer *w, size_t col, const char *s, size_t len);
/* a number in JSON when s is a JSON number literal, a string otherwise */
void dl_writer_auto(struct dl_writer *w, size_t col, const char *s);
/* JSON Lines: json (a JSON value) as it is; CSV: text as a string */
void dl_writer_json(struct dl_writer *w, size_t col, const char *json, const char *text);
void dl_writer_int(struct dl_writer *w, size_t col, int64_t v);
void dl_writer_double(struct dl_writer *w, size_t col, double v);
/* rounded to `digits` significant digits */
void dl_writer_double_prec(struct dl_writer *w, size_t col, double v, int digits);
/*
 * a time or duration in seconds, rounded to the microsecond: sums and
 * differences of decimal times (3305.8019999999997) print as written (3305.802)
 */
void dl_writer_seconds(struct dl_writer *w, size_t col, double v);
/* a time in integer microseconds, as seconds: exact at any magnitude (dl_fmt_micros) */
void dl_writer_micros(struct dl_writer *w, size_t col, int64_t us);
void dl_writer_bool(struct dl_writer *w, size_t col, int v);
void dl_writer_null(struct dl_writer *w, size_t col);
/*
 * Provenance (before the first row; copies both): a column `name`, the
 * existing one of that name or else a new last one, whose field is `value` on
 * the first row and empty (null) on every other, so that the stream says once
 * what made it without a line plain CSV readers would trip on. An empty value
 * gives an empty field; a JSON number literal is a number in JSON Lines. A
 * stream without rows keeps only the column.
 */
void dl_writer_stamp(struct dl_writer *w, const char *name, const char *value);
/* the provenance columns of dlsched's streams: the command line that made it, its seed */
#define DL_COL_MADE_BY "made_by"
#define DL_COL_SEED    "seed"
/* write the row (fields not set are empty/null) and clear it */
void dl_writer_end_row(struct dl_writer *w);
/*
 * A CSV row written whole by the caller, for writers of millions of rows:
 * dl_writer_line_begin returns where to write the row's first `cols` fields
 * as CSV text, commas between them and no line end (at most `room` bytes),
 * or NULL when the row must be set field by field instead (JSON, stamps, a
 * row already begun). dl_writer_line_end(w, len, cols) then records the len
 * bytes written; end the row with dl_writer_end_row as usual (fields past
 * cols are empty). The same row set field by field gives the same bytes.
 */
char *dl_writer_line_begin(struct dl_writer *w, size_t room);
void dl_writer_line_end(struct dl_writer *w, size_t len, size_t cols);
/* s as a CSV field (quoted only if need be, as the writer does) at p, room 2 * len + 2: its length
 */
size_t dl_csv_put(char *p, const char *s, size_t len);
/* CSV: write the header if no row was written (so empty results keep a header) */
void dl_writer_finish(struct dl_writer *w);
void dl_writer_free(struct dl_writer *w);

/* does s look like a JSON number literal? */
int dl_is_json_number(const char *s);
/* append s as a JSON string literal (quotes, escapes, U+FFFD for bad UTF-8) */
void dl_json_quote(struct strbuf *sb, const char *s, size_t len);
/* append s as a CSV field, quoted only where needed */
void dl_csv_quote(struct strbuf *sb, const char *s, size_t len);

#endif
