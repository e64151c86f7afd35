/*
 * html.c: the report as one self-contained HTML page with inline SVG charts.
 *
 * The page is also well-formed XML (XHTML syntax: every element closed, every
 * attribute quoted, text escaped, invalid UTF-8 and control bytes replaced),
 * so `xmllint --noout` accepts it and any XML tool can pick numbers out of it.
 * No script, no font and no image is loaded from anywhere. Curves are
 * downsampled to a few hundred points, so a million jobs make a page of
 * the same size as a hundred. Times are shown in human units (s, min, h, d);
 * the exact seconds are in the cells' and points' tooltips.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "core/utf8.h"
#include "core/num.h"
#include "core/stats.h"
#include "core/strmap.h"
#include "report/render.h"

#define CDF_POINTS 400
#define TL_BUCKETS 480
#define TL_MARKERS 8

/* SVG geometry of one chart, in viewBox units */
#define CW 560
#define CH 300
#define ML 60
#define MR 18
#define MT 16
#define MB 46

static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f7f7f", "#1a1a1a",
};

static const char *color(size_t i)
{
	return palette[i % DL_ARRAY_SIZE(palette)];
}

/*
 * A label's colour follows its name, not its place among the inputs, so that
 * fifo is the same blue on every night's page and on the index. The usual
 * labels have colours of their own; any other name hashes to one (dash
 * patterns and markers still tell two of one colour apart).
 */
static const char *label_color(const char *label)
{
	static const char *const known[] = {"fifo", "tiresias-las", "tiresias-gittins", "las",
					    "sjf",  "srtf",	    "gandiva",		"as run"};
	for (size_t i = 0; i < DL_ARRAY_SIZE(known); i++)
		if (!strcmp(label, known[i]))
			return color(i);
	return color((size_t)(dl_hash_bytes(label, strlen(label)) % DL_ARRAY_SIZE(palette)));
}

/*
 * Lines that coincide (two policies with the same CDF) stay visible: each
 * series has its own dash pattern and marker shape besides its colour.
 */
static const char *const dashes[] = {"", "7 4", "2 3", "9 3 2 3", "4 2", "1 4", "12 4", "5 2 1 2"};

static void dash_attr(struct strbuf *sb, size_t i)
{
	const char *d = dashes[i % DL_ARRAY_SIZE(dashes)];
	if (*d)
		sb_addf(sb, " stroke-dasharray=\"%s\"", d);
}

/* append s escaped for XML text and attributes, as valid UTF-8 */
static void xml_escape(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		if (c < 0x80) {
			switch (c) {
			case '&':
				sb_addstr(sb, "&amp;");
				break;
			case '<':
				sb_addstr(sb, "&lt;");
				break;
			case '>':
				sb_addstr(sb, "&gt;");
				break;
			case '"':
				sb_addstr(sb, "&quot;");
				break;
			case '\'':
				sb_addstr(sb, "&#39;");
				break;
			default:
				if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
					sb_addstr(sb, "\xef\xbf\xbd");
				else
					sb_addc(sb, (int)c);
			}
			p++;
			continue;
		}
		/*
		 * a well-formed multi-byte sequence is copied, anything else is U+FFFD
		 * (so are U+FFFE and U+FFFF, which XML does not allow)
		 */
		uint32_t cp;
		size_t len = dl_utf8_decode(p, strnlen((const char *)p, 4), &cp);
		int ok = len && cp != 0xfffe && cp != 0xffff;
		if (ok)
			sb_add(sb, p, len);
		else
			sb_addstr(sb, "\xef\xbf\xbd");
		p += ok ? len : 1;
	}
}

/* at most max code points of s (escaped), the last one an ellipsis when cut; full in <title> */
static void short_label(struct strbuf *sb, const char *s, size_t max)
{
	size_t n = 0, cut = 0;
	for (size_t i = 0; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++n == max)
			cut = i;
	if (n <= max) {
		xml_escape(sb, s);
		return;
	}
	sb_addstr(sb, "<title>");
	xml_escape(sb, s);
	sb_addstr(sb, "</title>");
	char *head = xstrndup(s, cut);
	xml_escape(sb, head);
	free(head);
	sb_addstr(sb, "\xe2\x80\xa6");
}

/* ---- time in human units ---- */

struct tunit {
	double sec;
	const char *name;
};

static const struct tunit tunits[] = {{1, "s"}, {60, "min"}, {3600, "h"}, {86400, "d"}};

/* the unit a span of seconds reads best in: up to 2 min in s, 2 h in min, 3 d in h */
static const struct tunit *unit_for(double span)
{
	span = fabs(span);
	return span < 120      ? &tunits[0]
	       : span < 7200   ? &tunits[1]
	       : span < 259200 ? &tunits[2]
			       : &tunits[3];
}

/* 225 -> "3.75 min", 7200 -> "2 h": three significant digits in the largest fitting unit */
static void fmt_time(struct strbuf *sb, double v)
{
	char buf[DL_NUM_BUF];
	if (isnan(v)) {
		sb_addc(sb, '-');
		return;
	}
	double a = fabs(v);
	const struct tunit *u = a < 60	    ? &tunits[0]
				: a < 3600  ? &tunits[1]
				: a < 86400 ? &tunits[2]
					    : &tunits[3];
	dl_fmt_double_prec(buf, v / u->sec, 3);
	sb_addf(sb, "%s %s", buf, u->name);
}

/* exact seconds, for tooltips */
static void fmt_seconds(struct strbuf *sb, double v)
{
	char buf[DL_NUM_BUF];
	dl_fmt_double_prec(buf, v, 9);
	sb_addf(sb, "%s s", buf);
}

/* a tick label: 1500 -> "1.5k" */
static void fmt_tick(struct strbuf *sb, double v)
{
	double a = fabs(v);
	if (a >= 1e9)
		sb_addf(sb, "%gG", v / 1e9);
	else if (a >= 1e6)
		sb_addf(sb, "%gM", v / 1e6);
	else if (a >= 1e3)
		sb_addf(sb, "%gk", v / 1e3);
	else
		sb_addf(sb, "%g", v);
}

static double nice_step(double range, int target)
{
	if (!(range > 0))
		return 1;
	double raw = range / target;
	double mag = pow(10, floor(log10(raw)));
	double n = raw / mag;
	return (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * mag;
}

/*
 * An axis: linear, or log10(1 + v) for values spanning several decades.
 * Values are in `scale` units (60 for minutes); a time axis labels its log
 * ticks 1 s, 10 s, 1 min, ...
 */
struct axis {
	double lo, hi; /* in transformed units */
	int log, time;
	double scale;
	double px0, px1; /* pixel range */
	/* a clock axis: seconds since origin (Unix time), ticks every step s of local time */
	int clock, days;
	double origin, step;
};

static double tf(const struct axis *a, double v)
{
	return a->log ? log10(1 + (v > 0 ? v : 0)) : v / a->scale;
}

static double px(const struct axis *a, double v)
{
	double t = tf(a, v);
	double f = a->hi > a->lo ? (t - a->lo) / (a->hi - a->lo) : 0.5;
	return a->px0 + f * (a->px1 - a->px0);
}

static void axis_init(struct axis *a, double vmin, double vmax, int allow_log, double scale,
		      double px0, double px1)
{
	a->clock = 0;
	a->px0 = px0;
	a->px1 = px1;
	a->scale = scale;
	a->time = 0;
	if (!(vmax > vmin)) {
		vmin = vmin > 0 ? 0 : vmin;
		vmax = vmin + scale;
	}
	a->log = allow_log && vmin >= 0 && vmax > 100 && vmax > 100 * (vmin > 1 ? vmin : 1);
	if (a->log) {
		a->lo = 0;
		a->hi = ceil(log10(1 + vmax) * 4) / 4;
	} else {
		vmin /= scale;
		vmax /= scale;
		double step = nice_step(vmax - (vmin > 0 ? 0 : vmin), 5);
		a->lo = vmin > 0 ? 0 : floor(vmin / step) * step;
		a->hi = ceil(vmax / step) * step;
	}
}

/* a linear axis over [t0, t1] without forcing 0 in (timelines of a window) */
static void axis_span(struct axis *a, double t0, double t1, double scale, double px0, double px1)
{
	a->px0 = px0;
	a->px1 = px1;
	a->scale = scale;
	a->log = 0;
	a->time = 0;
	a->clock = 0;
	if (!(t1 > t0))
		t1 = t0 + scale;
	double step = nice_step((t1 - t0) / scale, 5);
	a->lo = floor(t0 / scale / step) * step;
	a->hi = ceil(t1 / scale / step) * step;
}

/* seconds east of UTC of the local time (TZ) at Unix time t */
static double utc_offset(double t)
{
	time_t tt = (time_t)floor(t);
	struct tm tm;
	if (!localtime_r(&tt, &tm))
		return 0;
	return (double)tm.tm_gmtoff;
}

/*
 * A clock axis over [t0, t1] seconds since origin: ticks on whole minutes,
 * hours or days of the local time, at most 7 of them
 */
static void axis_clock(struct axis *a, double t0, double t1, double origin, double px0, double px1)
{
	static const double steps[] = {60,   120,   300,   600,	  900,	 1800,	 3600,
				       7200, 10800, 21600, 43200, 86400, 172800, 604800};
	a->px0 = px0;
	a->px1 = px1;
	a->scale = 1;
	a->log = a->time = 0;
	a->clock = 1;
	a->origin = origin;
	if (!(t1 > t0))
		t1 = t0 + 60;
	a->lo = t0;
	a->hi = t1;
	a->step = steps[DL_ARRAY_SIZE(steps) - 1];
	for (size_t i = 0; i < DL_ARRAY_SIZE(steps); i++)
		if ((t1 - t0) / steps[i] <= 7) {
			a->step = steps[i];
			break;
		}
	a->days = t1 - t0 >= 86400 || a->step >= 86400;
}

static const double log_time_ticks[] = {0, 1, 10, 60, 600, 3600, 36000, 86400, 864000, 8640000};

/* ticks of an axis into t[] (at most 16, in data units), returns the count */
static int axis_ticks(const struct axis *a, double *t)
{
	int n = 0;
	if (a->clock) {
		/* whole steps of local time: shift by the zone's offset at the start */
		double off = utc_offset(a->origin + a->lo);
		double first =
			ceil((a->origin + a->lo + off) / a->step) * a->step - off - a->origin;
		for (double v = first; v <= a->hi + 1e-9 && n < 16; v += a->step)
			t[n++] = v;
		return n;
	}
	if (a->log && a->time) {
		for (size_t i = 0; i < DL_ARRAY_SIZE(log_time_ticks); i++)
			if (log10(1 + log_time_ticks[i]) <= a->hi + 1e-9)
				t[n++] = log_time_ticks[i];
		return n;
	}
	if (a->log) {
		t[n++] = 0;
		for (double d = 1; log10(1 + d) <= a->hi + 1e-9 && n < 16; d *= 10)
			t[n++] = d;
		return n;
	}
	double step = nice_step(a->hi - a->lo, 5);
	for (double v = a->lo; v <= a->hi + step * 1e-9 && n < 16; v += step)
		t[n++] = (fabs(v) < step * 1e-9 ? 0 : v) * a->scale;
	return n;
}

/* "14:30", or "Mon 14:30" on an axis of days, in the local time (TZ) */
static void fmt_clock(struct strbuf *sb, double unix_time, int days)
{
	time_t tt = (time_t)floor(unix_time + 0.5);
	struct tm tm;
	char buf[32];
	if (!localtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), days ? "%a %H:%M" : "%H:%M", &tm))
		buf[0] = '\0';
	sb_addstr(sb, buf);
}

static void tick_label(struct strbuf *sb, const struct axis *a, double v)
{
	if (a->clock) {
		fmt_clock(sb, a->origin + v, a->days);
		return;
	}
	if (a->log && a->time) {
		if (v == 0)
			sb_addc(sb, '0');
		else
			fmt_time(sb, v);
	} else {
		fmt_tick(sb, v / a->scale);
	}
}

static void svg_open(struct strbuf *sb, const char *id, const char *title)
{
	sb_addf(sb,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" class=\"chart\" "
		"viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		id, CW, CH);
	xml_escape(sb, title);
	sb_addstr(sb, "\">\n");
}

/* frame, grid, ticks and axis titles */
static void svg_axes(struct strbuf *sb, const struct axis *x, const struct axis *y,
		     const char *xtitle, const char *ytitle, int ypercent)
{
	double t[16];
	int n = axis_ticks(y, t);
	for (int i = 0; i < n; i++) {
		double py = px(y, t[i]);
		sb_addf(sb, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			ML, py, CW - MR, py);
		sb_addf(sb, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", ML - 6,
			py + 4);
		if (ypercent)
			sb_addf(sb, "%g%%", t[i] * 100);
		else
			tick_label(sb, y, t[i]);
		sb_addstr(sb, "</text>\n");
	}
	n = axis_ticks(x, t);
	for (int i = 0; i < n; i++) {
		double pxx = px(x, t[i]);
		sb_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			pxx, MT, pxx, CH - MB);
		sb_addf(sb, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", pxx,
			CH - MB + 16);
		tick_label(sb, x, t[i]);
		sb_addstr(sb, "</text>\n");
	}
	sb_addf(sb, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML,
		MT, CW - ML - MR, CH - MT - MB);
	sb_addf(sb, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
		(ML + CW - MR) / 2, CH - 8);
	xml_escape(sb, xtitle);
	sb_addstr(sb, "</text>\n");
	sb_addf(sb,
		"<text class=\"axis\" x=\"14\" y=\"%d\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %d)\">",
		(MT + CH - MB) / 2, (MT + CH - MB) / 2);
	xml_escape(sb, ytitle);
	sb_addstr(sb, "</text>\n");
}

/* a marker of series i centred on (x, y): circle, square, triangle or diamond */
static void marker_shape(struct strbuf *sb, size_t i, double x, double y, double r)
{
	switch (i % 4) {
	case 0:
		sb_addf(sb, "M%.1f %.1fa%.1f %.1f 0 1 0 %.1f 0a%.1f %.1f 0 1 0 %.1f 0Z", x - r, y,
			r, r, 2 * r, r, r, -2 * r);
		break;
	case 1:
		sb_addf(sb, "M%.1f %.1fh%.1fv%.1fh%.1fZ", x - r, y - r, 2 * r, 2 * r, -2 * r);
		break;
	case 2:
		sb_addf(sb, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y - r * 1.25, x + r * 1.15,
			y + r * 0.85, x - r * 1.15, y + r * 0.85);
		break;
	default:
		sb_addf(sb, "M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y - r * 1.3, x + r, y,
			x, y + r * 1.3, x - r, y);
	}
}

/* a point with a tooltip: <path class="pt"><title>LABEL: TEXT</title></path> */
static void marker(struct strbuf *sb, size_t i, double x, double y, const char *label,
		   const char *text)
{
	sb_addstr(sb, "<path class=\"pt\" data-label=\"");
	xml_escape(sb, label);
	/* a style, not a fill attribute: the charts' CSS leaves lines unfilled */
	sb_addf(sb, "\" style=\"fill:%s\" d=\"", label_color(label));
	marker_shape(sb, i, x, y, 3.5);
	sb_addstr(sb, "\"><title>");
	xml_escape(sb, label);
	sb_addstr(sb, ": ");
	xml_escape(sb, text);
	sb_addstr(sb, "</title></path>\n");
}

/* which series a legend lists */
enum legend_kind { LEG_ALL, LEG_JCT, LEG_QDELAY, LEG_SLOW, LEG_TIMELINE, LEG_RHO, LEG_FEEDBACK };

static void legend(struct strbuf *sb, const struct dl_report *rep, enum legend_kind what)
{
	sb_addstr(sb, "<ul class=\"legend\">");
	for (size_t i = 0; i < dl_report_nseries(rep); i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		if (what == LEG_TIMELINE && s.ntl < 2)
			continue; /* only the labels drawn */
		/* the key: a short stretch of the series' line with its marker */
		sb_addf(sb,
			"<li><svg class=\"key\" viewBox=\"0 0 30 12\" width=\"30\" height=\"12\">"
			"<line x1=\"1\" y1=\"6\" x2=\"29\" y2=\"6\" stroke=\"%s\" stroke-width=\"2\"",
			label_color(s.label));
		dash_attr(sb, i);
		sb_addf(sb, "/><path fill=\"%s\" d=\"", label_color(s.label));
		marker_shape(sb, i, 15, 6, 3.5);
		sb_addstr(sb, "\"/></svg>");
		xml_escape(sb, s.label);
		if (s.as_run)
			sb_addstr(sb, " <em>(Slurm's real schedule)</em>");
		if (what == LEG_JCT && !s.njct)
			sb_addstr(sb, " <em>(no finished jobs)</em>");
		else if (what == LEG_QDELAY && !s.nqdelay)
			sb_addstr(sb, " <em>(no started jobs)</em>");
		else if ((what == LEG_SLOW && !s.nslowdown) || (what == LEG_RHO && !s.njct))
			sb_addstr(sb, " <em>(no finished jobs)</em>");
		else if (what == LEG_RHO && !s.nrho)
			sb_addstr(sb, " <em>(no rho column)</em>");
		else if (what == LEG_FEEDBACK && !s.nfeedback)
			sb_addstr(sb, " <em>(no started jobs)</em>");
		sb_addstr(sb, "</li>");
	}
	sb_addstr(sb, "</ul>\n");
}

enum cdf_kind { CDF_JCT, CDF_QDELAY, CDF_SLOW, CDF_RHO, CDF_FEEDBACK };

static const double *cdf_values(const struct dl_report_series *s, enum cdf_kind k, size_t *n)
{
	switch (k) {
	case CDF_JCT:
		*n = s->njct;
		return s->jct;
	case CDF_QDELAY:
		*n = s->nqdelay;
		return s->qdelay;
	case CDF_SLOW:
		*n = s->nslowdown;
		return s->slowdown;
	case CDF_RHO:
		*n = s->nrho;
		return s->rho;
	default:
		*n = s->nfeedback;
		return s->feedback;
	}
}

/*
 * The values of a CDF, ascending: JCTs and delays come sorted; slowdowns and
 * rho are sorted here (into *owned, which the caller frees), as only the page
 * needs them in order.
 */
static const double *cdf_sorted(const struct dl_report_series *s, enum cdf_kind k, size_t *n,
				double **owned)
{
	const double *v = cdf_values(s, k, n);
	*owned = NULL;
	if ((k != CDF_SLOW && k != CDF_RHO) || !*n)
		return v;
	*owned = xmalloc(*n * sizeof(**owned));
	memcpy(*owned, v, *n * sizeof(**owned));
	dl_sort_doubles(*owned, *n);
	return *owned;
}

/* one CDF per label of the sorted values chosen by kind, with points at p50, p90, p99 */
static void cdf_chart(struct strbuf *sb, const struct dl_report *rep, enum cdf_kind kind)
{
	static const char *const ids[] = {"jct-cdf", "qdelay-cdf", "slowdown-cdf", "rho-cdf",
					  "feedback-cdf"};
	static const char *const cls[] = {"cdf-jct", "cdf-qdelay", "cdf-slowdown", "cdf-rho",
					  "cdf-feedback"};
	static const char *const names[] = {"JCT", "queueing delay", "slowdown", "rho",
					    "time to first feedback"};
	/* the time axes' titles */
	static const char *const what[] = {"job completion time", "queueing delay", "", "",
					   "time to first feedback: start - submit"};
	double vmin = INFINITY, vmax = -INFINITY;
	size_t ns = dl_report_nseries(rep);
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		size_t n;
		dl_report_series(rep, i, &s);
		const double *v = cdf_values(&s, kind, &n);
		for (size_t k = 0; k < n; k++) {
			vmin = v[k] < vmin ? v[k] : vmin;
			vmax = v[k] > vmax ? v[k] : vmax;
		}
	}
	if (vmin > vmax)
		vmin = 0, vmax = 1;
	int is_time = kind != CDF_SLOW && kind != CDF_RHO;
	const struct tunit *u = unit_for(is_time ? vmax : 1);
	struct axis x, y;
	axis_init(&x, vmin, vmax, 1, is_time ? u->sec : 1, ML, CW - MR);
	x.time = is_time;
	axis_init(&y, 0, 1, 0, 1, CH - MB, MT);
	char xt[80];
	if (kind == CDF_SLOW)
		snprintf(xt, sizeof(xt), "slowdown: JCT / duration%s", x.log ? " (log scale)" : "");
	else if (kind == CDF_RHO)
		snprintf(xt, sizeof(xt), "rho: JCT / ideal time alone%s",
			 x.log ? " (log scale)" : "");
	else if (x.log)
		snprintf(xt, sizeof(xt), "%s (log scale)", what[kind]);
	else
		snprintf(xt, sizeof(xt), "%s (%s)", what[kind], u->name);
	char title[80];
	snprintf(title, sizeof(title), "CDF of %s per label", names[kind]);
	svg_open(sb, ids[kind], title);
	svg_axes(sb, &x, &y, xt, "fraction of jobs", 1);
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		size_t n;
		double *owned;
		dl_report_series(rep, i, &s);
		const double *v = cdf_sorted(&s, kind, &n, &owned);
		if (!n)
			continue;
		sb_addf(sb, "<path class=\"%s\" data-label=\"", cls[kind]);
		xml_escape(sb, s.label);
		sb_addf(sb, "\" stroke=\"%s\"", label_color(s.label));
		dash_attr(sb, i);
		sb_addf(sb, " d=\"M%.1f %.1f", px(&x, v[0]), px(&y, 0));
		size_t k = n < CDF_POINTS ? n : CDF_POINTS;
		double lastx = px(&x, v[0]), lasty = px(&y, 0);
		for (size_t q = 1; q <= k; q++) {
			/* the value at rank ceil(q*n/k): exact quantiles, evenly spaced */
			size_t idx = (size_t)((q * n + k - 1) / k) - 1;
			double cx = px(&x, v[idx]), cy = px(&y, (double)(idx + 1) / (double)n);
			/* a step: across at the old height, then up */
			if (cx - lastx > 0.05)
				sb_addf(sb, "H%.1f", cx);
			if (lasty - cy > 0.05)
				sb_addf(sb, "V%.1f", cy);
			lastx = cx;
			lasty = cy;
		}
		sb_addstr(sb, "\"/>\n");
		static const double pct[] = {50, 90, 99};
		static const char *const pname[] = {"median", "p90", "p99"};
		for (size_t p = 0; p < DL_ARRAY_SIZE(pct); p++) {
			size_t rank = (size_t)ceil(pct[p] * (double)n / 100);
			double val = v[rank ? rank - 1 : 0];
			struct strbuf t = STRBUF_INIT;
			sb_addf(&t, "%s %s ", pname[p], names[kind]);
			if (is_time) {
				fmt_time(&t, val);
				sb_addstr(&t, " (");
				fmt_seconds(&t, val);
				sb_addc(&t, ')');
			} else {
				char buf[DL_NUM_BUF];
				dl_fmt_double_prec(buf, val, 4);
				sb_addstr(&t, buf);
			}
			sb_addf(&t, ", %zu of %zu jobs", rank, n);
			marker(sb, i, px(&x, val), px(&y, (double)rank / (double)n), s.label,
			       t.buf);
			sb_release(&t);
		}
		free(owned);
	}
	sb_addstr(sb, "</svg>\n");
}

/* the bucket of a fractional position, clamped (never a float-to-int overflow) */
static size_t bucket(double f, size_t B)
{
	if (!(f >= 0))
		return 0;
	return f >= (double)B ? B - 1 : (size_t)f;
}

/* time-weighted averages of a step function over B equal buckets of [t0, t1] */
static void bucketize(const double *t, const double *v, size_t n, double t0, double t1, double *out,
		      double *cover, size_t B)
{
	memset(out, 0, B * sizeof(*out));
	memset(cover, 0, B * sizeof(*cover));
	double bw = (t1 - t0) / (double)B;
	for (size_t i = 0; i + 1 < n; i++) {
		double a = t[i] > t0 ? t[i] : t0, b = t[i + 1] < t1 ? t[i + 1] : t1;
		if (!(b > a))
			continue;
		size_t ka = bucket((a - t0) / bw, B), kb = bucket((b - t0) / bw, B);
		for (size_t k = ka; k <= kb; k++) {
			double lo = t0 + (double)k * bw, hi = lo + bw;
			double s = a > lo ? a : lo, e = b < hi ? b : hi;
			if (e > s) {
				out[k] += v[i] * (e - s);
				cover[k] += e - s;
			}
		}
	}
	for (size_t k = 0; k < B; k++)
		out[k] = cover[k] > 0 ? out[k] / cover[k] : NAN;
}

/* utilisation (or busy GPUs) or pending jobs over time, one line per timeline */
static void timeline_chart(struct strbuf *sb, const struct dl_report *rep, int pending,
			   const struct dl_report_page *page)
{
	size_t ns = dl_report_nseries(rep);
	double cap = dl_report_capacity(rep);
	double t0 = INFINITY, t1 = -INFINITY, vmax = 0;
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		if (!s.ntl)
			continue;
		t0 = s.tl_time[0] < t0 ? s.tl_time[0] : t0;
		t1 = s.tl_time[s.ntl - 1] > t1 ? s.tl_time[s.ntl - 1] : t1;
		const double *v = pending ? s.tl_pending : s.tl_busy;
		for (size_t k = 0; k < s.ntl; k++)
			vmax = v[k] > vmax ? v[k] : vmax;
	}
	/*
	 * with a --window: from the measurement period's start (shaded) to the
	 * end of the last job of every label, so the night is seen to its end
	 */
	double p0, p1;
	int period = dl_report_period(rep, &p0, &p1) && p1 > p0;
	if (period)
		t0 = p0;
	if (!(t1 > t0))
		t1 = t0 + 1;
	int frac = !pending && cap > 0;
	double scale = frac ? 1 / cap : 1;
	const struct tunit *u = unit_for(t1 - t0);
	struct axis x, y;
	double origin;
	int clock = dl_report_origin(rep, &origin);
	if (clock)
		axis_clock(&x, t0, t1, origin, ML, CW - MR);
	else
		axis_span(&x, t0, t1, u->sec, ML, CW - MR);
	axis_init(&y, 0, frac ? (vmax * scale > 1 ? vmax * scale : 1) : (vmax > 0 ? vmax : 1), 0, 1,
		  CH - MB, MT);
	const char *id = pending ? "pending-time" : "util-time";
	svg_open(sb, id, pending ? "pending jobs over time" : "GPU utilisation over time");
	char xt[96];
	if (clock)
		snprintf(xt, sizeof(xt), "clock time (%.60s)",
			 page && page->tz ? page->tz : "local time");
	else
		snprintf(xt, sizeof(xt), "time (%s)", u->name);
	svg_axes(sb, &x, &y, xt,
		 pending ? "pending jobs"
		 : frac	 ? "GPU utilisation"
			 : "busy GPUs",
		 frac);
	if (period) {
		double b = p1 < t1 ? p1 : t1;
		sb_addf(sb,
			"<rect class=\"period\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
			"<title>the measurement period (--window)</title></rect>\n",
			px(&x, t0), MT, px(&x, b) - px(&x, t0), CH - MT - MB);
	}
	double *out = xmalloc(TL_BUCKETS * sizeof(*out));
	double *cover = xmalloc(TL_BUCKETS * sizeof(*cover));
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		if (s.ntl < 2)
			continue;
		bucketize(s.tl_time, pending ? s.tl_pending : s.tl_busy, s.ntl, t0, t1, out, cover,
			  TL_BUCKETS);
		sb_addf(sb, "<path class=\"%s\" data-label=\"", pending ? "tl-pending" : "tl-util");
		xml_escape(sb, s.label);
		sb_addf(sb, "\" stroke=\"%s\"", label_color(s.label));
		dash_attr(sb, i);
		sb_addstr(sb, " d=\"");
		int pen = 0;
		for (size_t k = 0; k < TL_BUCKETS; k++) {
			if (isnan(out[k])) {
				pen = 0;
				continue;
			}
			double tm = t0 + ((double)k + 0.5) * (t1 - t0) / TL_BUCKETS;
			sb_addf(sb, "%s%.1f %.1f", pen ? "L" : "M", px(&x, tm),
				px(&y, out[k] * scale));
			pen = 1;
		}
		sb_addstr(sb, "\"/>\n");
		/* points with the averages, staggered per series so they do not cover each other */
		for (size_t m = 0; m < TL_MARKERS; m++) {
			size_t k = (size_t)(((double)m + 0.5 + (double)(i % 4) / 4) * TL_BUCKETS /
					    TL_MARKERS);
			if (k >= TL_BUCKETS || isnan(out[k]))
				continue;
			double tm = t0 + ((double)k + 0.5) * (t1 - t0) / TL_BUCKETS;
			char buf[DL_NUM_BUF];
			struct strbuf t = STRBUF_INIT;
			sb_addstr(&t, "at ");
			if (clock)
				fmt_clock(&t, origin + tm, x.days);
			else
				fmt_time(&t, tm);
			if (frac) {
				dl_fmt_double_prec(buf, out[k] * scale * 100, 3);
				sb_addf(&t, ": %s%% of the GPUs busy", buf);
			} else {
				dl_fmt_double_prec(buf, out[k], 4);
				sb_addf(&t, ": %s %s", buf, pending ? "jobs pending" : "GPUs busy");
			}
			sb_addstr(&t, " (average over ");
			fmt_time(&t, (t1 - t0) / TL_BUCKETS);
			sb_addc(&t, ')');
			marker(sb, i, px(&x, tm), px(&y, out[k] * scale), s.label, t.buf);
			sb_release(&t);
		}
	}
	free(out);
	free(cover);
	sb_addstr(sb, "</svg>\n");
}

/* horizontal bars of average JCT per label, with the speedup against the baseline */
static void bar_chart(struct strbuf *sb, const struct dl_report *rep)
{
	size_t nr = dl_report_nrows(rep);
	double vmax = 0;
	size_t nl = 0;
	for (size_t i = 0; i < nr; i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		if (strcmp(r->cls, "all"))
			continue;
		nl++;
		if (!isnan(r->avg_jct) && r->avg_jct > vmax)
			vmax = r->avg_jct;
	}
	int lw = 150, bh = 26, h = MT + (int)nl * (bh + 10) + 30;
	sb_addf(sb,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"avg-jct\" class=\"chart\" "
		"viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"average JCT per label\">\n",
		CW, h);
	const struct tunit *u = unit_for(vmax);
	struct axis x;
	axis_init(&x, 0, vmax > 0 ? vmax : u->sec, 0, u->sec, lw, CW - 110);
	double t[16];
	int n = axis_ticks(&x, t);
	for (int i = 0; i < n; i++) {
		double pxx = px(&x, t[i]);
		sb_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			pxx, MT - 4, pxx, h - 26);
		sb_addf(sb, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", pxx,
			h - 12);
		tick_label(sb, &x, t[i]);
		sb_addstr(sb, "</text>\n");
	}
	sb_addf(sb, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
		CW - 110, h - 1, u->name);
	const char *base = dl_report_baseline(rep);
	size_t li = 0;
	for (size_t i = 0; i < nr; i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		if (strcmp(r->cls, "all"))
			continue;
		int y0 = MT + (int)li * (bh + 10);
		sb_addf(sb, "<text class=\"barlabel\" x=\"%d\" y=\"%d\" text-anchor=\"end\">",
			lw - 8, y0 + bh / 2 + 5);
		short_label(sb, r->label, 20);
		sb_addstr(sb, "</text>\n");
		if (isnan(r->avg_jct)) {
			sb_addf(sb, "<text class=\"barvalue\" x=\"%d\" y=\"%d\">%s</text>\n",
				lw + 6, y0 + bh / 2 + 5, r->jobs ? "no finished jobs" : "no jobs");
		} else {
			double w = px(&x, r->avg_jct) - lw;
			struct strbuf v = STRBUF_INIT;
			fmt_time(&v, r->avg_jct);
			if (base && !strcmp(base, r->label))
				sb_addstr(&v, " (baseline)");
			else if (!isnan(r->speedup_jct))
				sb_addf(&v, " (%.2fx)", r->speedup_jct);
			sb_addstr(sb, "<rect class=\"bar\" data-label=\"");
			xml_escape(sb, r->label);
			sb_addf(sb,
				"\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">",
				lw, y0, w > 0.5 ? w : 0.5, bh, label_color(r->label));
			sb_addstr(sb, "<title>");
			xml_escape(sb, r->label);
			sb_addstr(sb, ": average JCT ");
			xml_escape(sb, v.buf);
			sb_addf(sb, " = ");
			struct strbuf secs = STRBUF_INIT;
			fmt_seconds(&secs, r->avg_jct);
			sb_addf(&secs, " over %lld finished jobs", (long long)r->finished);
			xml_escape(sb, secs.buf);
			sb_release(&secs);
			sb_addstr(sb, "</title></rect>\n");
			sb_addf(sb, "<text class=\"barvalue\" x=\"%.1f\" y=\"%d\">", lw + w + 6,
				y0 + bh / 2 + 5);
			xml_escape(sb, v.buf);
			sb_addstr(sb, "</text>\n");
			sb_release(&v);
		}
		li++;
	}
	sb_addf(sb, "<line class=\"axisline\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", lw,
		MT - 4, lw, h - 26);
	sb_addstr(sb, "</svg>\n");
}

static const char css[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"margin:0;background:#f4f5f7;color:#1d2330}\n"
	"main{max-width:1280px;margin:0 auto;padding:24px 28px 40px}\n"
	"header h1{font-size:26px;margin:0 0 4px}\n"
	".meta{color:#5b6475;margin:0 0 18px;font-size:14px}\n"
	"section.card,figure{background:#fff;border:1px solid #dde1e8;border-radius:8px;"
	"padding:14px 18px;margin:0 0 18px}\n"
	"h2{font-size:16px;margin:0 0 10px;color:#2a3142}\n"
	"table{border-collapse:collapse;font-size:12.5px;width:100%}\n"
	"th,td{padding:4px 6px;border-bottom:1px solid #eceef2;white-space:nowrap}\n"
	"th{text-align:right;color:#5b6475;font-weight:600;white-space:normal;vertical-align:bottom}\n"
	"td{text-align:right;font-variant-numeric:tabular-nums}\n"
	"th.s,td.s{text-align:left}\n"
	"td.w{white-space:normal}\n"
	"tr.base td{background:#f0f6ff}\n"
	"tr.sub td{color:#5b6475}\n"
	".scroll{overflow-x:auto}\n"
	".grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:18px;align-items:start}\n"
	".grid2 figure{margin:0}\n"
	"figure h2{margin-bottom:4px}\n"
	"svg.chart{width:100%;height:auto;display:block}\n"
	".chart .grid{stroke:#e6e8ee;stroke-width:1}\n"
	".chart .frame{fill:none;stroke:#9aa3b2;stroke-width:1}\n"
	".chart .period{fill:#eef3fb;stroke:none}\n"
	".data{display:none}\n"
	".chart .axisline{stroke:#9aa3b2;stroke-width:1}\n"
	".chart .tick{font-size:11px;fill:#5b6475}\n"
	".chart .axis{font-size:12px;fill:#2a3142}\n"
	".chart .barlabel{font-size:13px;fill:#1d2330}\n"
	".chart .barvalue{font-size:12px;fill:#2a3142}\n"
	".chart path{fill:none;stroke-width:2;stroke-linejoin:round}\n"
	".chart path.pt{stroke:#fff;stroke-width:1}\n"
	".legend{list-style:none;margin:6px 0 0;padding:0;font-size:13px}\n"
	".legend li{display:inline-flex;align-items:center;margin:0 16px 4px 0}\n"
	".legend em{margin-left:4px;color:#5b6475}\n"
	"svg.key{margin-right:6px;flex:none}\n"
	".swatch{display:inline-block;width:12px;height:12px;border-radius:2px;"
	"margin-right:6px;font-size:0;line-height:0;flex:none}\n"
	".note{color:#8a3b12;font-size:13px;margin:8px 0 0}\n"
	"#no-jobs p{font-size:15px;margin:4px 0}\n"
	"footer{color:#5b6475;font-size:12px;margin-top:8px}\n"
	"footer code{font-size:11.5px;white-space:pre-wrap;word-break:break-all;color:#2a3142}\n"
	"footer table{width:auto;font-size:12px;margin:6px 0}\n"
	"footer td,footer th{border:none;padding:1px 10px 1px 0}\n";

/*
 * A table of the rows of one kind: the "all" rows (class == 0) or the class
 * rows of --by (class == 1). Times in human units, seconds in the tooltips.
 */
static void summary_table(struct strbuf *sb, const struct dl_report *rep, int classes,
			  const char *id)
{
	const struct dl_report_col *shown[32];
	size_t ns = 0;
	for (const struct dl_report_col *c = dl_report_cols; c->name && ns < 32; c++)
		if (dl_report_col_shown(rep, c, 1) && (classes || strcmp(c->name, "class")) &&
		    strcmp(c->name, "dropped")) /* the "Jobs left out" card has them */
			shown[ns++] = c;
	sb_addf(sb, "<div class=\"scroll\"><table id=\"%s\">\n<thead><tr>", id);
	for (size_t k = 0; k < ns; k++) {
		sb_addf(sb, "<th%s>", shown[k]->kind == DL_COL_STR ? " class=\"s\"" : "");
		xml_escape(sb, shown[k]->header);
		sb_addstr(sb, "</th>");
	}
	sb_addstr(sb, "</tr></thead>\n<tbody>\n");
	const char *base = dl_report_baseline(rep);
	for (size_t i = 0; i < dl_report_nrows(rep); i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		int sub = strcmp(r->cls, "all") != 0;
		if (sub != classes || (sub && !r->jobs && !r->dropped))
			continue; /* a class this label has no job in */
		int isbase = base && !strcmp(base, r->label);
		sb_addf(sb, "<tr%s>", isbase && !sub ? " class=\"base\"" : "");
		for (size_t k = 0; k < ns; k++) {
			const struct dl_report_col *c = shown[k];
			struct strbuf cell = STRBUF_INIT;
			double v = c->kind == DL_COL_STR ? 0 : dl_report_col_num(c, r);
			if (c->kind == DL_COL_STR)
				sb_addstr(&cell, dl_report_col_str(c, r));
			else if (c->kind == DL_COL_TIME)
				fmt_time(&cell, v);
			else
				dl_report_fmt_human(&cell, c, v);
			if (c->kind == DL_COL_STR) {
				sb_addstr(sb, "<td class=\"s\">");
			} else if (c->kind == DL_COL_TIME && !isnan(v)) {
				struct strbuf t = STRBUF_INIT;
				fmt_seconds(&t, v);
				sb_addf(sb, "<td title=\"%s\">", t.buf);
				sb_release(&t);
			} else {
				sb_addstr(sb, "<td>");
			}
			xml_escape(sb, cell.buf);
			sb_addstr(sb, "</td>");
			sb_release(&cell);
		}
		sb_addstr(sb, "</tr>\n");
	}
	sb_addstr(sb, "</tbody></table></div>\n");
}

/*
 * What the what-if leaves out, from the inputs: every policy places GPU gangs
 * only; partitions the jobs came from are pooled; nodes the node list says
 * were drained or down count as available; jobs unfinished at the dump ran
 * to their time limits
 */
static void ignores_box(struct strbuf *sb, const struct dl_report *rep,
			const struct dl_report_page *page)
{
	int whatif = 0;
	for (size_t i = 0; i < dl_report_nseries(rep); i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		whatif |= !s.as_run;
	}
	if (!whatif)
		return;
	sb_addstr(sb, "<section class=\"card\" id=\"ignores\">\n<h2>What this what-if "
		      "ignores</h2>\n<ul>\n<li id=\"ignores-resources\">CPU and memory requests "
		      "and limits: the policies place GPUs only.</li>\n");
	size_t np = dl_report_npartitions(rep);
	if (np > 1) {
		sb_addf(sb, "<li id=\"ignores-partitions\">Partitions: the jobs came from %zu (",
			np);
		for (size_t i = 0; i < np; i++) {
			sb_addstr(sb, i ? ", " : "");
			xml_escape(sb, dl_report_partition(rep, i));
		}
		sb_addstr(sb, "); the what-if pools the cluster's GPUs for every job.</li>\n");
	}
	if (page && page->unavailable_nodes)
		sb_addf(sb,
			"<li id=\"ignores-drained\">Drained or down nodes: %d node%s with %d GPUs "
			"%s drained or down in the node list; the what-if counts them as "
			"available.</li>\n",
			page->unavailable_nodes, page->unavailable_nodes == 1 ? "" : "s",
			page->unavailable_gpus, page->unavailable_nodes == 1 ? "was" : "were");
	const struct dl_report_night *night = dl_report_night(rep);
	if (night->unfinished)
		sb_addf(sb,
			"<li id=\"ignores-unfinished\">The %lld job%s unfinished at the dump ran to "
			"%s time limit%s in the what-if (holding GPUs there); no label counts "
			"%s.</li>\n",
			(long long)night->unfinished, night->unfinished == 1 ? "" : "s",
			night->unfinished == 1 ? "its" : "their", night->unfinished == 1 ? "" : "s",
			night->unfinished == 1 ? "it" : "them");
	sb_addstr(sb, "</ul>\n</section>\n");
}

/* the jobs each label lost, and why (trace import's skips and simulate's rejections) */
static void dropped_table(struct strbuf *sb, const struct dl_report *rep)
{
	sb_addstr(sb, "<section class=\"card\" id=\"dropped\">\n<h2>Jobs left out</h2>\n"
		      "<table id=\"dropped-table\">\n<thead><tr><th class=\"s\">label</th>"
		      "<th>dropped</th><th class=\"s\">because</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < dl_report_nrows(rep); i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		if (strcmp(r->cls, "all"))
			continue;
		sb_addstr(sb, "<tr><td class=\"s\">");
		xml_escape(sb, r->label);
		sb_addf(sb, "</td><td>%lld</td><td class=\"s w\">", (long long)r->dropped);
		xml_escape(sb, *r->dropped_reasons ? r->dropped_reasons : "-");
		sb_addstr(sb, "</td></tr>\n");
	}
	sb_addstr(sb, "</tbody></table>\n<p class=\"note\">Rows skipped by <code>dlsched trace "
		      "import</code> count for every label; jobs rejected by <code>dlsched "
		      "simulate</code> (more GPUs than the cluster, a GPU type it lacks) for "
		      "the label that rejected them. Neither is in the metrics above.</p>\n"
		      "</section>\n");
}

void dl_html_footer(struct strbuf *sb, const struct dl_report_page *page, const char *note,
		    const char *extra)
{
	sb_addstr(sb, "<footer id=\"provenance\">\n<p>Made by dlsched report");
	if (page && page->version) {
		sb_addstr(sb, " (<span id=\"version\">dlsched ");
		xml_escape(sb, page->version);
		sb_addstr(sb, "</span>)");
	}
	sb_addstr(sb, ". ");
	xml_escape(sb, note);
	sb_addstr(sb, "</p>\n");
	if (page && page->command) {
		sb_addstr(sb, "<p>Command: <code id=\"command\">");
		xml_escape(sb, page->command);
		sb_addstr(sb, "</code></p>\n");
	}
	if (page && page->ninputs) {
		sb_addstr(sb, "<table id=\"inputs\"><thead><tr><th class=\"s\">input</th>"
			      "<th class=\"s\">file</th><th>bytes</th><th>rows</th></tr></thead>"
			      "<tbody>\n");
		for (size_t i = 0; i < page->ninputs; i++) {
			const struct dl_report_input *in = &page->inputs[i];
			sb_addstr(sb, "<tr><td class=\"s\">");
			xml_escape(sb, in->role);
			sb_addstr(sb, "</td><td class=\"s\">");
			xml_escape(sb, in->path);
			if (in->bytes >= 0)
				sb_addf(sb, "</td><td>%lld", (long long)in->bytes);
			else
				sb_addstr(sb, "</td><td>-");
			if (in->rows >= 0)
				sb_addf(sb, "</td><td>%lld</td></tr>\n", (long long)in->rows);
			else
				sb_addstr(sb, "</td><td>-</td></tr>\n");
		}
		sb_addstr(sb, "</tbody></table>\n");
	}
	if (extra)
		sb_addstr(sb, extra);
	sb_addstr(sb, "</footer>\n");
}

/* the commands that made the inputs (their made_by columns), when they say */
static void made_by_table(struct strbuf *sb, const struct dl_report *rep)
{
	size_t n = dl_report_nmade(rep);
	if (!n)
		return;
	sb_addstr(sb, "<p>How the inputs were made (their <em>made_by</em> columns):</p>\n"
		      "<table id=\"made-by\"><thead><tr><th class=\"s\">labels</th>"
		      "<th class=\"s\">command</th><th>seed</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		struct dl_report_made m;
		dl_report_made(rep, i, &m);
		sb_addstr(sb, "<tr><td class=\"s\">");
		xml_escape(sb, m.labels);
		sb_addstr(sb, "</td><td class=\"s\"><code>");
		xml_escape(sb, m.command);
		sb_addstr(sb, "</code></td><td>");
		xml_escape(sb, *m.seed ? m.seed : "-");
		sb_addstr(sb, "</td></tr>\n");
	}
	sb_addstr(sb, "</tbody></table>\n");
}

/*
 * The page's numbers for report --index, as JSON in the data-night attribute
 * of a hidden paragraph (no script): the night (--date) and each label's jobs, finished, average
 * JCT and average wait (null when undefined)
 */
static void night_data(struct strbuf *sb, const struct dl_report *rep,
		       const struct dl_report_page *page)
{
	json_t *o = json_object(), *labels = json_array();
	json_object_set_new(o, "night", page && page->date ? json_string(page->date) : json_null());
	json_object_set_new(o, "jobs", json_integer(dl_report_night(rep)->jobs));
	for (size_t i = 0; i < dl_report_nrows(rep); i++) {
		const struct dl_report_row *r = dl_report_row(rep, i);
		if (strcmp(r->cls, "all"))
			continue;
		json_t *l = json_object();
		json_object_set_new(l, "label", json_string(r->label));
		json_object_set_new(l, "jobs", json_integer(r->jobs));
		json_object_set_new(l, "finished", json_integer(r->finished));
		json_object_set_new(l, "avg_jct",
				    isnan(r->avg_jct) ? json_null() : json_real(r->avg_jct));
		json_object_set_new(l, "avg_queue_delay",
				    isnan(r->avg_queue_delay) ? json_null()
							      : json_real(r->avg_queue_delay));
		json_array_append_new(labels, l);
	}
	json_object_set_new(o, "labels", labels);
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(o);
	sb_addstr(sb, "<p id=\"night-data\" class=\"data\" data-night=\"");
	xml_escape(sb, text ? text : "{}");
	sb_addstr(sb, "\">The numbers for dlsched report --index.</p>\n");
	free(text);
}

static void footer(struct strbuf *sb, const struct dl_report *rep,
		   const struct dl_report_page *page)
{
	struct strbuf made = STRBUF_INIT;
	made_by_table(&made, rep);
	night_data(&made, rep, page);
	dl_html_footer(
		sb, page,
		"Percentiles are nearest-rank; Jain's index is over the slowdowns "
		"jct/duration of finished jobs, Jain rho over their rho; first feedback is "
		"start - submit; rho and comm overhead are the results' own columns (absent: "
		"-); speedup = baseline / label; times are rounded to 3 digits (hover for "
		"seconds).",
		made.len ? made.buf : NULL);
	sb_release(&made);
}

/* the class table's title, by enum dl_report_by */
static const char *const by_title[] = {"", "GPU count", "duration", "user", "account", "partition"};

void dl_report_write_html(const struct dl_report *rep, FILE *fp, const struct dl_report_page *page)
{
	const char *title = page && page->title ? page->title : "dlsched report";
	struct strbuf sb = STRBUF_INIT;
	dl_html_page_head(&sb, title);
	if (page && page->date) {
		xml_escape(&sb, page->date);
		sb_addstr(&sb, " \xc2\xb7 ");
	}
	int64_t jobs = 0, dropped = 0;
	int any_tl = 0, any_rho = 0;
	size_t ns = dl_report_nseries(rep);
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		jobs += s.jobs;
		any_tl |= s.ntl > 1;
		any_rho |= s.nrho > 0;
	}
	for (size_t i = 0; i < dl_report_nrows(rep); i++)
		if (!strcmp(dl_report_row(rep, i)->cls, "all"))
			dropped += dl_report_row(rep, i)->dropped;
	/* the night counted once: every label covers the same jobs */
	const struct dl_report_night *night = dl_report_night(rep);
	if (night->equal) {
		sb_addf(&sb, "<span id=\"night\">%zu label%s, %lld jobs", ns, ns == 1 ? "" : "s",
			(long long)night->jobs);
	} else {
		sb_addf(&sb, "<span id=\"night\">%zu labels of different jobs (", ns);
		xml_escape(&sb, dl_report_label_counts(rep));
		sb_addstr(&sb, ")");
	}
	if (night->skipped)
		sb_addf(&sb, "; %lld more row%s skipped on import", (long long)night->skipped,
			night->skipped == 1 ? "" : "s");
	if (night->unfinished)
		sb_addf(&sb,
			"; %lld unfinished at the dump (%lld running, %lld pending), left out "
			"of every label",
			(long long)night->unfinished, (long long)night->unfinished_running,
			(long long)(night->unfinished - night->unfinished_running));
	sb_addstr(&sb, "</span>");
	if (dl_report_capacity(rep) > 0)
		sb_addf(&sb, ", %g GPUs", dl_report_capacity(rep));
	if (dl_report_baseline(rep)) {
		sb_addstr(&sb, ", baseline ");
		xml_escape(&sb, dl_report_baseline(rep));
	}
	if (dl_report_window(rep)->kind != DL_WINDOW_ALL) {
		struct strbuf w = STRBUF_INIT;
		dl_report_window_describe(dl_report_window(rep), &w);
		sb_addstr(&sb, " \xc2\xb7 <span id=\"window\">window: ");
		xml_escape(&sb, w.buf);
		sb_addstr(&sb, "</span>");
		sb_release(&w);
	}
	sb_addstr(&sb, "</p>\n</header>\n");

	if (!jobs) {
		/* an empty night: say so, say what was left out, and draw nothing */
		sb_addstr(&sb, "<section class=\"card\" id=\"no-jobs\">\n<h2>No jobs</h2>\n<p>");
		sb_addstr(&sb, dropped ? "No job of the inputs could be compared: every one was "
					 "left out (below)."
				       : "The inputs hold no jobs: there is nothing to compare.");
		sb_addstr(&sb, "</p>\n</section>\n");
		if (dropped)
			dropped_table(&sb, rep);
		footer(&sb, rep, page);
		sb_addstr(&sb, "</main>\n</body>\n</html>\n");
		fwrite(sb.buf, 1, sb.len, fp);
		sb_release(&sb);
		return;
	}

	sb_addstr(&sb, "<section class=\"card\">\n<h2>Summary</h2>\n");
	summary_table(&sb, rep, 0, "summary");
	struct strbuf notes = STRBUF_INIT;
	dl_report_notes(rep, &notes, 0);
	if (notes.len) {
		sb_addstr(&sb, "<p class=\"note\">");
		xml_escape(&sb, notes.buf);
		sb_addstr(&sb, "</p>\n");
	}
	sb_release(&notes);
	sb_addstr(&sb, "</section>\n");
	if (dropped)
		dropped_table(&sb, rep);
	ignores_box(&sb, rep, page);
	if (dl_report_by(rep) != DL_REPORT_BY_NONE) {
		sb_addf(&sb, "<section class=\"card\" id=\"by-class\">\n<h2>By %s</h2>\n",
			by_title[dl_report_by(rep)]);
		summary_table(&sb, rep, 1, "by-class-table");
		sb_addstr(&sb, "</section>\n");
	}
	sb_addstr(&sb, "<div class=\"grid2\">\n");

	sb_addstr(&sb, "<figure>\n<h2>Average JCT per label</h2>\n");
	bar_chart(&sb, rep);
	sb_addstr(&sb, "</figure>\n<figure>\n<h2>JCT distribution (CDF)</h2>\n");
	cdf_chart(&sb, rep, CDF_JCT);
	legend(&sb, rep, LEG_JCT);
	sb_addstr(&sb,
		  "</figure>\n<figure>\n<h2>Slowdown distribution (CDF of JCT / duration)</h2>\n");
	cdf_chart(&sb, rep, CDF_SLOW);
	legend(&sb, rep, LEG_SLOW);
	sb_addstr(&sb, "</figure>\n<figure>\n<h2>Queueing delay distribution (CDF)</h2>\n");
	cdf_chart(&sb, rep, CDF_QDELAY);
	legend(&sb, rep, LEG_QDELAY);
	sb_addstr(&sb, "</figure>\n<figure>\n<h2>Time to first feedback (CDF of start - "
		       "submit)</h2>\n");
	cdf_chart(&sb, rep, CDF_FEEDBACK);
	legend(&sb, rep, LEG_FEEDBACK);
	sb_addstr(&sb, "</figure>\n");
	if (any_rho) {
		/* only from results with a rho column: older ones have none to draw */
		sb_addstr(&sb, "<figure>\n<h2>Finish-time fairness (CDF of rho)</h2>\n");
		cdf_chart(&sb, rep, CDF_RHO);
		legend(&sb, rep, LEG_RHO);
		sb_addstr(&sb, "</figure>\n");
	}
	if (any_tl) {
		sb_addf(&sb, "<figure>\n<h2>%s over time</h2>\n",
			dl_report_capacity(rep) > 0 ? "GPU utilisation" : "Busy GPUs");
		timeline_chart(&sb, rep, 0, page);
		legend(&sb, rep, LEG_TIMELINE);
		sb_addstr(&sb, "</figure>\n<figure>\n<h2>Queue length over time</h2>\n");
		timeline_chart(&sb, rep, 1, page);
		legend(&sb, rep, LEG_TIMELINE);
		sb_addstr(&sb, "</figure>\n");
	}
	sb_addstr(&sb, "</div>\n");
	footer(&sb, rep, page);
	sb_addstr(&sb, "</main>\n</body>\n</html>\n");
	fwrite(sb.buf, 1, sb.len, fp);
	sb_release(&sb);
}

/* ---- the page frame and line charts, for the other pages of lib/report (group.c) ---- */

void dl_html_page_head(struct strbuf *sb, const char *title)
{
	sb_addstr(sb, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
		      "<head>\n<meta charset=\"utf-8\"/>\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
		      "<title>");
	xml_escape(sb, title);
	sb_addf(sb, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<header>\n<h1>", css);
	xml_escape(sb, title);
	sb_addstr(sb, "</h1>\n<p class=\"meta\">");
}

void dl_html_escape(struct strbuf *sb, const char *s)
{
	xml_escape(sb, s);
}

const char *dl_html_color(size_t i)
{
	return color(i);
}

const char *dl_html_label_color(const char *label)
{
	return label_color(label);
}

struct dl_html_chart {
	struct axis x, y;
};

struct dl_html_chart *dl_html_chart_open(struct strbuf *sb, const char *id, const char *title,
					 double x0, double x1, double y0, double y1,
					 const char *xtitle, const char *ytitle, int ypercent)
{
	struct dl_html_chart *c = xcalloc(1, sizeof(*c));
	axis_init(&c->x, x0, x1, 0, 1, ML, CW - MR);
	axis_init(&c->y, y0, y1, 0, 1, CH - MB, MT);
	svg_open(sb, id, title);
	svg_axes(sb, &c->x, &c->y, xtitle, ytitle, ypercent);
	return c;
}

double dl_html_chart_px(const struct dl_html_chart *c, double x)
{
	return px(&c->x, x);
}

double dl_html_chart_py(const struct dl_html_chart *c, double y)
{
	return px(&c->y, y);
}

void dl_html_chart_close(struct strbuf *sb, struct dl_html_chart *c)
{
	sb_addstr(sb, "</svg>\n");
	free(c);
}

/* ---- for the grouped page (group.c) ---- */

void dl_html_fmt_time(struct strbuf *sb, double v)
{
	fmt_time(sb, v);
}

struct dl_html_chart *dl_html_chart_open_span(struct strbuf *sb, const char *id, const char *title,
					      double x0, double x1, double y0, double y1,
					      double yscale, const char *xtitle, const char *ytitle,
					      int ypercent)
{
	struct dl_html_chart *c = xcalloc(1, sizeof(*c));
	/* a hair inside, so that 0.6 / 0.2 rounding down to 2.999... does not start at 0.4 */
	double in = 1e-9 * fabs(x1 - x0);
	axis_span(&c->x, x0 + in, x1 - in, 1, ML, CW - MR);
	axis_init(&c->y, y0, y1, 0, yscale, CH - MB, MT);
	svg_open(sb, id, title);
	svg_axes(sb, &c->x, &c->y, xtitle, ytitle, ypercent);
	return c;
}
