#include "table/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/utf8.h"

/* F_RAW: text already as CSV writes it (quoted if need be), from a direct row (below) */
enum field_kind { F_UNSET = 0, F_STR, F_NUM, F_NULL, F_BOOL, F_RAW };

struct dl_writer {
	FILE *fp;
	enum dl_out_format fmt;
	char **cols;
	size_t ncols;
	int started; /* a row (or the header) has been written */
	struct strbuf vals;
	size_t *off, *len;
	unsigned char *kind;
	size_t alloc;
	struct strbuf line;
	struct strbuf *json_keys;	  /* pre-quoted "key": per column */
	int crlf;			  /* CSV lines end with "\r\n" */
	char **stamp_name, **stamp_value; /* dl_writer_stamp(), resolved by write_header */
	size_t *stamp_col;
	size_t nstamps;
	int rows; /* data rows written */
	/*
	 * CSV rows whose fields come in column order (most writers fill a row
	 * left to right) are written straight into vals as the line itself,
	 * commas and quotes included, so that ending the row is one write. A
	 * field set out of order turns the row back into separate fields
	 * (F_RAW: kept as written) for end_row to join.
	 */
	int direct;  /* this row is being written as a line */
	size_t next; /* direct: the columns before this one are written */
};

struct dl_writer *dl_writer_new(FILE *fp, enum dl_out_format fmt)
{
	struct dl_writer *w = xcalloc(1, sizeof(*w));
	w->fp = fp;
	w->fmt = fmt;
	sb_init(&w->vals);
	sb_init(&w->line);
	w->direct = fmt == DL_OUT_CSV;
	return w;
}

static void ensure_cols(struct dl_writer *w)
{
	if (w->alloc >= w->ncols)
		return;
	size_t n = w->ncols;
	w->off = xreallocarray(w->off, n, sizeof(*w->off));
	w->len = xreallocarray(w->len, n, sizeof(*w->len));
	w->kind = xreallocarray(w->kind, n, sizeof(*w->kind));
	for (size_t i = w->alloc; i < n; i++)
		w->kind[i] = F_UNSET;
	w->alloc = n;
}

void dl_writer_set_columns(struct dl_writer *w, const char *const *names, size_t n)
{
	for (size_t i = 0; i < w->ncols; i++)
		free(w->cols[i]);
	free(w->cols);
	w->cols = NULL;
	w->ncols = 0;
	for (size_t i = 0; i < n; i++)
		dl_writer_add_column(w, names[i]);
}

size_t dl_writer_add_column(struct dl_writer *w, const char *name)
{
	w->cols = xreallocarray(w->cols, w->ncols + 1, sizeof(*w->cols));
	w->cols[w->ncols] = xstrdup(name);
	w->ncols++;
	ensure_cols(w);
	return w->ncols - 1;
}

FILE *dl_writer_file(const struct dl_writer *w)
{
	return w->fp;
}

void dl_writer_set_crlf(struct dl_writer *w, int crlf)
{
	w->crlf = crlf;
}

size_t dl_writer_ncols(const struct dl_writer *w)
{
	return w->ncols;
}

/* bytes that force quotes anywhere in a CSV field */
static const unsigned char csv_special[256] = {[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1};

/* a direct row goes back to separate fields: what is written so far is kept as is */
static void undirect(struct dl_writer *w)
{
	for (size_t i = 0; i < w->next && i < w->ncols; i++)
		if (w->kind[i] != F_UNSET)
			w->kind[i] = F_RAW;
	w->direct = 0;
}

/*
 * Where field col's text goes, with room for `room` bytes: on a direct row,
 * after the commas up to it (a column skipped is empty, as unset fields are).
 * NULL when col is not a column (a programming error, ignored rather than
 * corrupting the row).
 */
static inline char *field_begin(struct dl_writer *w, size_t col, size_t room)
{
	if (col >= w->ncols)
		return NULL;
	if (w->direct && col < w->next)
		undirect(w); /* set again, or out of order */
	/* after fields 0..next-1 the line holds next-1 commas; field col needs col */
	size_t commas = w->direct ? col - (w->next ? w->next - 1 : 0) : 0;
	struct strbuf *v = &w->vals;
	if (v->alloc - v->len <= commas + room)
		sb_grow(v, commas + room);
	char *p = v->buf + v->len;
	if (w->direct) {
		if (commas == 1) /* (a loop would become a call to memset) */
			*p++ = ',';
		else if (commas)
			p = (char *)memset(p, ',', commas) + commas;
		v->len += commas;
		w->next = col + 1;
	}
	return p;
}

static inline void field_end(struct dl_writer *w, size_t col, size_t n, enum field_kind k)
{
	w->off[col] = w->vals.len;
	w->len[col] = n;
	w->kind[col] = (unsigned char)k;
	w->vals.len += n;
}

size_t dl_csv_put(char *p, const char *s, size_t len)
{
	/* copy while looking for a byte that needs quotes; quote when one shows */
	int quote = len && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t');
	for (size_t i = 0; i < len && !quote; i++) {
		quote = csv_special[(unsigned char)s[i]];
		p[i] = s[i];
	}
	if (!quote)
		return len;
	/* as end_row quotes: in '"', every '"' doubled */
	char *q = p;
	*q++ = '"';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			*q++ = '"';
		*q++ = s[i];
	}
	*q++ = '"';
	return (size_t)(q - p);
}

static void set(struct dl_writer *w, size_t col, const char *s, size_t len, enum field_kind k)
{
	if (w->direct && k == F_STR) {
		char *p = field_begin(w, col, 2 * len + 2);
		if (!p)
			return;
		size_t n = dl_csv_put(p, s, len);
		/* quoted text is kept as written (F_RAW) should the row turn indirect */
		field_end(w, col, n, n == len ? F_STR : F_RAW);
		return;
	}
	char *p = field_begin(w, col, len);
	if (!p)
		return;
	memcpy(p, s, len);
	field_end(w, col, len, k);
}

void dl_writer_strn(struct dl_writer *w, size_t col, const char *s, size_t len)
{
	set(w, col, s, len, F_STR);
}

void dl_writer_str(struct dl_writer *w, size_t col, const char *s)
{
	set(w, col, s, strlen(s), F_STR);
}

int dl_is_json_number(const char *s)
{
	const char *p = s;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return 0;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

void dl_writer_auto(struct dl_writer *w, size_t col, const char *s)
{
	set(w, col, s, strlen(s), dl_is_json_number(s) ? F_NUM : F_STR);
}

void dl_writer_json(struct dl_writer *w, size_t col, const char *json, const char *text)
{
	if (w->fmt == DL_OUT_JSON)
		set(w, col, json, strlen(json), F_NUM); /* F_NUM: written as it is */
	else
		set(w, col, text, strlen(text), F_STR);
}

char *dl_writer_line_begin(struct dl_writer *w, size_t room)
{
	if (!w->direct || w->nstamps || w->next || w->vals.len)
		return NULL;
	sb_grow(&w->vals, room);
	return w->vals.buf;
}

void dl_writer_line_end(struct dl_writer *w, size_t len, size_t cols)
{
	/* as if fields 0..cols-1 were set in order: end_row adds the rest's commas */
	w->vals.len = len;
	w->next = cols < w->ncols ? cols : w->ncols;
}

/* a number formatted straight into the row's buffer (fmt writes at most DL_NUM_BUF bytes) */
#define SET_FORMATTED(w, col, fmt, v)                               \
	do {                                                        \
		char *p_ = field_begin((w), (col), DL_NUM_BUF);     \
		if (!p_)                                            \
			return;                                     \
		field_end((w), (col), (size_t)fmt(p_, (v)), F_NUM); \
	} while (0)

void dl_writer_int(struct dl_writer *w, size_t col, int64_t v)
{
	SET_FORMATTED(w, col, dl_fmt_int64, v);
}

void dl_writer_double(struct dl_writer *w, size_t col, double v)
{
	if (!isfinite(v)) {
		set(w, col, "", 0, F_NULL);
		return;
	}
	SET_FORMATTED(w, col, dl_fmt_double, v);
}

void dl_writer_double_prec(struct dl_writer *w, size_t col, double v, int digits)
{
	if (!isfinite(v)) {
		set(w, col, "", 0, F_NULL);
		return;
	}
	char buf[DL_NUM_BUF];
	int n = dl_fmt_double_prec(buf, v, digits);
	set(w, col, buf, (size_t)n, F_NUM);
}

void dl_writer_seconds(struct dl_writer *w, size_t col, double v)
{
	if (isfinite(v) && fabs(v) < 1e15)
		v = round(v * 1e6) / 1e6;
	dl_writer_double(w, col, v);
}

void dl_writer_micros(struct dl_writer *w, size_t col, int64_t us)
{
	SET_FORMATTED(w, col, dl_fmt_micros, us);
}

void dl_writer_bool(struct dl_writer *w, size_t col, int v)
{
	set(w, col, v ? "true" : "false", v ? 4 : 5, F_BOOL);
}

void dl_writer_null(struct dl_writer *w, size_t col)
{
	set(w, col, "", 0, F_NULL);
}

static int csv_needs_quotes(const char *s, size_t len)
{
	if (len > 0 && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		return 1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == ',' || c == '"' || c == '\r' || c == '\n')
			return 1;
	}
	return 0;
}

void dl_csv_quote(struct strbuf *sb, const char *s, size_t len)
{
	if (!csv_needs_quotes(s, len)) {
		sb_add(sb, s, len);
		return;
	}
	sb_addc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			sb_addc(sb, '"');
		sb_addc(sb, s[i]);
	}
	sb_addc(sb, '"');
}

void dl_json_quote(struct strbuf *sb, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	sb_addc(sb, '"');
	size_t i = 0;
	while (i < len) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			size_t j = i;
			while (j < len && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' &&
			       s[j] != '\\')
				j++;
			sb_add(sb, s + i, j - i);
			i = j;
			continue;
		}
		switch (c) {
		case '"':
			sb_addstr(sb, "\\\"");
			i++;
			continue;
		case '\\':
			sb_addstr(sb, "\\\\");
			i++;
			continue;
		case '\n':
			sb_addstr(sb, "\\n");
			i++;
			continue;
		case '\r':
			sb_addstr(sb, "\\r");
			i++;
			continue;
		case '\t':
			sb_addstr(sb, "\\t");
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20) {
			sb_addf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = dl_utf8_decode(s + i, len - i, &cp);
		if (n == 0) {
			sb_addstr(sb, "\xEF\xBF\xBD");
			i++;
		} else {
			sb_add(sb, s + i, n);
			i += n;
		}
	}
	sb_addc(sb, '"');
}

void dl_writer_stamp(struct dl_writer *w, const char *name, const char *value)
{
	w->stamp_name = xreallocarray(w->stamp_name, w->nstamps + 1, sizeof(*w->stamp_name));
	w->stamp_value = xreallocarray(w->stamp_value, w->nstamps + 1, sizeof(*w->stamp_value));
	w->stamp_col = xreallocarray(w->stamp_col, w->nstamps + 1, sizeof(*w->stamp_col));
	w->stamp_name[w->nstamps] = xstrdup(name);
	w->stamp_value[w->nstamps] = xstrdup(value);
	w->nstamps++;
}

/* each stamp's column: the column of that name, else a new last one */
static void resolve_stamps(struct dl_writer *w)
{
	for (size_t k = 0; k < w->nstamps; k++) {
		size_t c = 0;
		while (c < w->ncols && strcmp(w->cols[c], w->stamp_name[k]))
			c++;
		w->stamp_col[k] = c < w->ncols ? c : dl_writer_add_column(w, w->stamp_name[k]);
	}
}

/* the stamps' fields: their values on the first row, null on the others */
static void fill_stamps(struct dl_writer *w)
{
	for (size_t k = 0; k < w->nstamps; k++) {
		const char *v = w->stamp_value[k];
		if (w->rows || !*v)
			set(w, w->stamp_col[k], "", 0, F_NULL);
		else
			set(w, w->stamp_col[k], v, strlen(v), dl_is_json_number(v) ? F_NUM : F_STR);
	}
}

static void write_header(struct dl_writer *w)
{
	resolve_stamps(w);
	if (w->fmt == DL_OUT_CSV) {
		sb_reset(&w->line);
		for (size_t i = 0; i < w->ncols; i++) {
			if (i)
				sb_addc(&w->line, ',');
			const char *name = w->cols[i];
			if (i == 0 && !strncmp(name, "\xEF\xBB\xBF", 3)) {
				/* quoted, so a reader does not take it for a byte order mark */
				sb_addc(&w->line, '"');
				for (const char *p = name; *p; p++) {
					if (*p == '"')
						sb_addc(&w->line, '"');
					sb_addc(&w->line, *p);
				}
				sb_addc(&w->line, '"');
				continue;
			}
			dl_csv_quote(&w->line, name, strlen(name));
		}
		if (w->crlf)
			sb_addc(&w->line, '\r');
		sb_addc(&w->line, '\n');
		fwrite(w->line.buf, 1, w->line.len, w->fp);
	} else {
		w->json_keys = xcalloc(w->ncols ? w->ncols : 1, sizeof(*w->json_keys));
		for (size_t i = 0; i < w->ncols; i++) {
			sb_init(&w->json_keys[i]);
			dl_json_quote(&w->json_keys[i], w->cols[i], strlen(w->cols[i]));
			sb_addc(&w->json_keys[i], ':');
		}
	}
	w->started = 1;
}

void dl_writer_end_row(struct dl_writer *w)
{
	if (!w->started)
		write_header(w);
	if (w->nstamps) {
		if (w->direct)
			undirect(w);
		fill_stamps(w);
	}
	w->rows++;
	if (w->direct) {
		/* the line is written but for the commas of empty last columns and its end */
		struct strbuf *v = &w->vals;
		if (w->ncols == 1 && !v->len) {
			/* an empty line would read back as no row at all */
			sb_addstr(v, "\"\"");
		}
		size_t have = w->next ? w->next - 1 : 0, want = w->ncols ? w->ncols - 1 : 0;
		sb_grow(v, want - have + 2);
		memset(v->buf + v->len, ',', want - have);
		v->len += want - have;
		if (w->crlf)
			v->buf[v->len++] = '\r';
		v->buf[v->len++] = '\n';
		fwrite_unlocked(v->buf, 1, v->len, w->fp); /* one thread writes a stream */
		if (w->next)				   /* (no columns: no kinds either) */
			memset(w->kind, F_UNSET, w->next < w->ncols ? w->next : w->ncols);
		w->next = 0;
		v->len = 0;
		return;
	}
	struct strbuf *l = &w->line;
	sb_reset(l);
	if (w->fmt == DL_OUT_CSV) {
		if (w->ncols == 1 && (w->kind[0] == F_UNSET || w->len[0] == 0)) {
			/* an empty line would read back as no row at all */
			sb_addstr(l, "\"\"");
		}
		/* room for the worst case (every byte quoted), then plain stores */
		size_t room = 2 * w->vals.len + 3 * w->ncols + 4;
		sb_grow(l, room);
		char *p = l->buf + l->len;
		for (size_t i = 0; i < w->ncols; i++) {
			if (i)
				*p++ = ',';
			if (w->kind[i] == F_UNSET)
				continue; /* off and len are not set */
			const char *v = w->vals.buf + w->off[i];
			size_t n = w->len[i];
			if (w->kind[i] == F_STR && csv_needs_quotes(v, n)) {
				*p++ = '"';
				for (size_t k = 0; k < n; k++) {
					if (v[k] == '"')
						*p++ = '"';
					*p++ = v[k];
				}
				*p++ = '"';
			} else {
				memcpy(p, v, n);
				p += n;
			}
		}
		if (w->crlf)
			*p++ = '\r';
		l->len = (size_t)(p - l->buf);
	} else {
		sb_addc(l, '{');
		for (size_t i = 0; i < w->ncols; i++) {
			if (i)
				sb_addc(l, ',');
			sb_add(l, w->json_keys[i].buf, w->json_keys[i].len);
			switch (w->kind[i]) {
			case F_STR:
				/* empty is absent, as in CSV (and as the reader reads null) */
				if (!w->len[i]) {
					sb_addstr(l, "null");
					break;
				}
				dl_json_quote(l, w->vals.buf + w->off[i], w->len[i]);
				break;
			case F_NUM:
			case F_BOOL:
				sb_add(l, w->vals.buf + w->off[i], w->len[i]);
				break;
			default: /* F_NULL, and F_UNSET: a field the row did not fill is absent */
				sb_addstr(l, "null");
			}
		}
		sb_addc(l, '}');
	}
	sb_addc(l, '\n');
	fwrite_unlocked(l->buf, 1, l->len, w->fp); /* one thread writes a stream */
	for (size_t i = 0; i < w->ncols; i++)
		w->kind[i] = F_UNSET;
	sb_reset(&w->vals);
	w->direct = w->fmt == DL_OUT_CSV;
	w->next = 0;
}

void dl_writer_finish(struct dl_writer *w)
{
	if (!w->started && w->fmt == DL_OUT_CSV && w->ncols)
		write_header(w);
}

void dl_writer_free(struct dl_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->ncols; i++) {
		free(w->cols[i]);
		if (w->json_keys)
			sb_release(&w->json_keys[i]);
	}
	free(w->json_keys);
	free(w->cols);
	for (size_t k = 0; k < w->nstamps; k++) {
		free(w->stamp_name[k]);
		free(w->stamp_value[k]);
	}
	free(w->stamp_name);
	free(w->stamp_value);
	free(w->stamp_col);
	sb_release(&w->vals);
	sb_release(&w->line);
	free(w->off);
	free(w->len);
	free(w->kind);
	free(w);
}
