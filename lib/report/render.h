/*
 * render.h: what the report renderers share (internal to lib/report): the
 * table of output columns and their human formatting. Nothing here owns
 * memory; strings written go into the caller's strbuf.
 */
#ifndef DL_REPORT_RENDER_H
#define DL_REPORT_RENDER_H

#include "report/report.h"

enum dl_col_kind {
	DL_COL_STR = 0, /* const char * */
	DL_COL_INT,	/* int64_t */
	DL_COL_TIME,	/* seconds */
	DL_COL_PERCENT, /* fraction shown as a percentage */
	DL_COL_RATIO,
	DL_COL_SPEEDUP,
};

struct dl_report_col {
	const char *name;   /* CSV/JSON key */
	const char *header; /* text, Markdown and HTML header */
	enum dl_col_kind kind;
	size_t offset; /* in struct dl_report_row */
};

/* every column, in output order, ended by a NULL name */
extern const struct dl_report_col dl_report_cols[];

double dl_report_col_num(const struct dl_report_col *c, const struct dl_report_row *r);
const char *dl_report_col_str(const struct dl_report_col *c, const struct dl_report_row *r);
/* a value for people: "-" when undefined, percentages, "1.25x" */
void dl_report_fmt_human(struct strbuf *sb, const struct dl_report_col *c, double v);
/* human: leave out columns that are undefined in every row (JCT columns stay) */
int dl_report_col_shown(const struct dl_report *rep, const struct dl_report_col *c, int human);
/* one line per label without finished jobs or with dropped jobs (Markdown list items if asked) */
void dl_report_notes(const struct dl_report *rep, struct strbuf *sb, int markdown);

/*
 * The HTML page frame and line charts (html.c), for pages other than the
 * report's own: dl_html_page_head() writes up to the open header paragraph
 * (class "meta"); a chart maps values with _px/_py inside an <svg> that
 * _close() ends (and frees the chart).
 */
void dl_html_page_head(struct strbuf *sb, const char *title);
void dl_html_escape(struct strbuf *sb, const char *s);
const char *dl_html_color(size_t i);
/* a label's colour, by its name: the same on every page */
const char *dl_html_label_color(const char *label);
struct dl_html_chart;
struct dl_html_chart *dl_html_chart_open(struct strbuf *sb, const char *id, const char *title,
					 double x0, double x1, double y0, double y1,
					 const char *xtitle, const char *ytitle, int ypercent);
/*
 * The same with an x axis over the data's span, not from 0 (a sweep's loads
 * 0.6-1.4), and y values shown divided by yscale (3600: hours)
 */
struct dl_html_chart *dl_html_chart_open_span(struct strbuf *sb, const char *id, const char *title,
					      double x0, double x1, double y0, double y1,
					      double yscale, const char *xtitle, const char *ytitle,
					      int ypercent);
/* a time for people, as the nightly page writes it: "3.75 min", "2 h" */
void dl_html_fmt_time(struct strbuf *sb, double v);
double dl_html_chart_px(const struct dl_html_chart *c, double x);
double dl_html_chart_py(const struct dl_html_chart *c, double y);
void dl_html_chart_close(struct strbuf *sb, struct dl_html_chart *c);
/*
 * The provenance footer (id "provenance") of every page: "Made by dlsched
 * report (VERSION). NOTE", the command line and the inputs with their sizes
 * (from page, when given), then extra (HTML, or NULL).
 */
void dl_html_footer(struct strbuf *sb, const struct dl_report_page *page, const char *note,
		    const char *extra);

#endif
