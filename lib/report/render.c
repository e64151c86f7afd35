/* render.c: the summary rows as CSV/JSON Lines, an aligned text table or Markdown */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "report/render.h"

#define F(field) offsetof(struct dl_report_row, field)

const struct dl_report_col dl_report_cols[] = {
	{"label", "label", DL_COL_STR, F(label)},
	{"class", "class", DL_COL_STR, F(cls)},
	{"jobs", "jobs", DL_COL_INT, F(jobs)},
	{"finished", "finished", DL_COL_INT, F(finished)},
	{"avg_jct", "avg JCT", DL_COL_TIME, F(avg_jct)},
	{"median_jct", "median", DL_COL_TIME, F(median_jct)},
	{"p90_jct", "p90", DL_COL_TIME, F(p90_jct)},
	{"p95_jct", "p95", DL_COL_TIME, F(p95_jct)},
	{"p99_jct", "p99", DL_COL_TIME, F(p99_jct)},
	{"makespan", "makespan", DL_COL_TIME, F(makespan)},
	{"avg_queue_delay", "avg wait", DL_COL_TIME, F(avg_queue_delay)},
	{"p95_queue_delay", "p95 wait", DL_COL_TIME, F(p95_queue_delay)},
	{"utilization", "util", DL_COL_PERCENT, F(utilization)},
	{"preemptions_per_job", "preempt/job", DL_COL_RATIO, F(preemptions_per_job)},
	{"migrations_per_job", "migr/job", DL_COL_RATIO, F(migrations_per_job)},
	{"jain_slowdown", "Jain", DL_COL_RATIO, F(jain_slowdown)},
	{"speedup_jct", "speedup JCT", DL_COL_SPEEDUP, F(speedup_jct)},
	{"speedup_makespan", "speedup makespan", DL_COL_SPEEDUP, F(speedup_makespan)},
	{"dropped", "dropped", DL_COL_INT, F(dropped)},
	{"dropped_reasons", "dropped because", DL_COL_STR, F(dropped_reasons)},
	/* after the older columns, so that scripts cutting fields by position keep working */
	{"avg_first_feedback", "first feedback", DL_COL_TIME, F(avg_first_feedback)},
	{"p95_first_feedback", "p95 feedback", DL_COL_TIME, F(p95_first_feedback)},
	{"avg_rho", "avg rho", DL_COL_RATIO, F(avg_rho)},
	{"p95_rho", "p95 rho", DL_COL_RATIO, F(p95_rho)},
	{"max_rho", "max rho", DL_COL_RATIO, F(max_rho)},
	{"jain_rho", "Jain rho", DL_COL_RATIO, F(jain_rho)},
	{"total_comm_overhead", "comm total", DL_COL_TIME, F(total_comm_overhead)},
	{"avg_comm_overhead", "comm/job", DL_COL_TIME, F(avg_comm_overhead)},
	{"comm_share", "comm GPU share", DL_COL_PERCENT, F(comm_share)},
	{NULL, NULL, 0, 0},
};

double dl_report_col_num(const struct dl_report_col *c, const struct dl_report_row *r)
{
	const char *p = (const char *)r + c->offset;
	if (c->kind == DL_COL_INT) {
		int64_t v;
		memcpy(&v, p, sizeof(v));
		return (double)v;
	}
	double d;
	memcpy(&d, p, sizeof(d));
	return d;
}

const char *dl_report_col_str(const struct dl_report_col *c, const struct dl_report_row *r)
{
	const char *s;
	memcpy(&s, (const char *)r + c->offset, sizeof(s));
	return s;
}

void dl_report_fmt_human(struct strbuf *sb, const struct dl_report_col *c, double v)
{
	char buf[DL_NUM_BUF];
	if (isnan(v)) {
		sb_addc(sb, '-');
		return;
	}
	switch (c->kind) {
	case DL_COL_INT:
		sb_addf(sb, "%.0f", v);
		break;
	case DL_COL_TIME:
		/* seconds: whole seconds when large, else up to 4 significant digits */
		if (fabs(v) >= 1000)
			sb_addf(sb, "%.0f", v);
		else {
			dl_fmt_double_prec(buf, v, 4);
			sb_addstr(sb, buf);
		}
		break;
	case DL_COL_PERCENT:
		sb_addf(sb, "%.1f%%", v * 100);
		break;
	case DL_COL_RATIO:
		sb_addf(sb, "%.3f", v);
		break;
	case DL_COL_SPEEDUP:
		sb_addf(sb, "%.2fx", v);
		break;
	default:
		break;
	}
}

/* is column c shown: class only with --by, and no column that is empty everywhere */
int dl_report_col_shown(const struct dl_report *rep, const struct dl_report_col *c, int human)
{
	size_t n = dl_report_nrows(rep);
	if (!strcmp(c->name, "class")) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(dl_report_row(rep, i)->cls, "all"))
				return 1;
		return 0;
	}
	if (human && !strcmp(c->name, "dropped_reasons"))
		return 0; /* too wide for a table: the notes under it say them */
	if (human && !strcmp(c->name, "dropped")) {
		for (size_t i = 0; i < n; i++)
			if (dl_report_row(rep, i)->dropped)
				return 1;
		return 0;
	}
	if (!human || c->kind == DL_COL_STR || c->kind == DL_COL_INT)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!isnan(dl_report_col_num(c, dl_report_row(rep, i))))
			return 1;
	/* the JCT columns stay, so a label without finished jobs still shows as such */
	return strstr(c->name, "jct") && !strstr(c->name, "speedup");
}

void dl_report_write_stream(const struct dl_report *rep, struct dl_writer *w)
{
	const struct dl_report_col *shown[DL_ARRAY_SIZE(dl_report_cols)];
	size_t ns = 0;
	for (const struct dl_report_col *c = dl_report_cols; c->name; c++)
		if (dl_report_col_shown(rep, c, 0)) {
			shown[ns++] = c;
			dl_writer_add_column(w, c->name);
		}
	for (size_t i = 0; i < dl_report_nrows(rep); i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		for (size_t k = 0; k < ns; k++) {
			const struct dl_report_col *c = shown[k];
			if (!strcmp(c->name, "dropped_reasons")) {
				/* JSON Lines: an object of counts for jq; CSV: the prose */
				dl_writer_json(w, k, r->dropped_json, r->dropped_reasons);
				continue;
			}
			if (c->kind == DL_COL_STR) {
				dl_writer_str(w, k, dl_report_col_str(c, r));
				continue;
			}
			double v = dl_report_col_num(c, r);
			if (isnan(v))
				dl_writer_null(w, k);
			else if (c->kind == DL_COL_INT)
				dl_writer_int(w, k, (int64_t)v);
			else
				dl_writer_double(w, k, v);
		}
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
}

/* display width of a UTF-8 string (code points; good enough for labels) */
static size_t width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void md_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`')
			sb_addc(sb, '\\');
		if (*s == '\n' || *s == '\r')
			sb_addc(sb, ' ');
		else
			sb_addc(sb, *s);
	}
}

/* a note's label: a list item in Markdown, plain text otherwise */
static void note_label(struct strbuf *sb, const char *label, int markdown)
{
	if (markdown) {
		sb_addstr(sb, "- ");
		md_escape(sb, label);
	} else {
		sb_addstr(sb, label);
	}
}

void dl_report_notes(const struct dl_report *rep, struct strbuf *sb, int markdown)
{
	for (size_t i = 0; i < dl_report_nrows(rep); i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		if (strcmp(r->cls, "all") || (r->finished && !r->dropped))
			continue;
		note_label(sb, r->label, markdown);
		if (!r->jobs)
			sb_addstr(sb, ": no jobs");
		else if (!r->finished)
			sb_addf(sb, ": no finished jobs (%lld submitted, %lld started)",
				(long long)r->jobs, (long long)r->started);
		if (r->dropped) {
			sb_addf(sb, "%s%lld dropped (", r->finished ? ": " : "; ",
				(long long)r->dropped);
			if (markdown)
				md_escape(sb, r->dropped_reasons);
			else
				sb_addstr(sb, r->dropped_reasons);
			sb_addc(sb, ')');
		}
		sb_addc(sb, '\n');
	}
	for (size_t i = 0; i < dl_report_nrows(rep); i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		if (strcmp(r->cls, "all") || !r->gpus_shared)
			continue;
		note_label(sb, r->label, markdown);
		sb_addstr(sb, ": jobs shared GPUs (more held than the cluster has): utilisation "
			      "counts each GPU once; its timeline (-t) gives it exactly\n");
	}
}

void dl_report_write_table(const struct dl_report *rep, FILE *fp, enum dl_report_format fmt)
{
	const struct dl_report_col *shown[DL_ARRAY_SIZE(dl_report_cols)];
	size_t ns = 0;
	/* for people the count of jobs left out comes last, beside the notes that say why */
	for (int pass = 0; pass < 2; pass++)
		for (const struct dl_report_col *c = dl_report_cols; c->name; c++)
			if ((strcmp(c->name, "dropped") == 0) == pass &&
			    dl_report_col_shown(rep, c, 1))
				shown[ns++] = c;
	size_t nr = dl_report_nrows(rep);
	/* cells[row][col], row 0 = header */
	struct strbuf *cells = xcalloc((nr + 1) * ns, sizeof(*cells));
	size_t *w = xcalloc(ns, sizeof(*w));
	for (size_t k = 0; k < ns; k++) {
		sb_init(&cells[k]);
		sb_addstr(&cells[k], shown[k]->header);
	}
	for (size_t i = 0; i < nr; i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		for (size_t k = 0; k < ns; k++) {
			struct strbuf *sb = &cells[(i + 1) * ns + k];
			sb_init(sb);
			const struct dl_report_col *c = shown[k];
			if (c->kind == DL_COL_STR) {
				const char *s = dl_report_col_str(c, r);
				if (fmt == DL_REPORT_MARKDOWN)
					md_escape(sb, s);
				else
					sb_addstr(sb, s);
			} else {
				dl_report_fmt_human(sb, c, dl_report_col_num(c, r));
			}
		}
	}
	for (size_t i = 0; i <= nr; i++)
		for (size_t k = 0; k < ns; k++) {
			size_t cw = width(cells[i * ns + k].buf);
			if (cw > w[k])
				w[k] = cw;
		}
	for (size_t i = 0; i <= nr; i++) {
		struct strbuf line = STRBUF_INIT;
		for (size_t k = 0; k < ns; k++) {
			const char *s = cells[i * ns + k].buf;
			size_t pad = w[k] - width(s);
			int left = shown[k]->kind == DL_COL_STR;
			if (fmt == DL_REPORT_MARKDOWN)
				sb_addstr(&line, k ? " | " : "| ");
			else if (k)
				sb_addstr(&line, "  ");
			if (!left)
				for (size_t p = 0; p < pad; p++)
					sb_addc(&line, ' ');
			sb_addstr(&line, s);
			if (left && (k + 1 < ns || fmt == DL_REPORT_MARKDOWN))
				for (size_t p = 0; p < pad; p++)
					sb_addc(&line, ' ');
		}
		if (fmt == DL_REPORT_MARKDOWN)
			sb_addstr(&line, " |");
		sb_addc(&line, '\n');
		if (fmt == DL_REPORT_MARKDOWN && i == 0) {
			for (size_t k = 0; k < ns; k++) {
				sb_addstr(&line, "| ");
				int left = shown[k]->kind == DL_COL_STR;
				for (size_t p = 0; p + 1 < w[k]; p++)
					sb_addc(&line, '-');
				sb_addc(&line, left ? '-' : ':');
				sb_addstr(&line, " ");
			}
			sb_addstr(&line, "|\n");
		}
		fputs(line.buf, fp);
		sb_release(&line);
	}
	struct strbuf notes = STRBUF_INIT;
	dl_report_notes(rep, &notes, fmt == DL_REPORT_MARKDOWN);
	if (notes.len) {
		fputc('\n', fp);
		fputs(notes.buf, fp);
	}
	sb_release(&notes);
	for (size_t i = 0; i < (nr + 1) * ns; i++)
		sb_release(&cells[i]);
	free(cells);
	free(w);
}
