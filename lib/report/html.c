/*
 * html.c: the report as one self-contained HTML page with inline SVG charts.
 *
 * The page is also well-formed XML (XHTML syntax: every element closed, every
 * attribute quoted, text escaped, invalid UTF-8 and control bytes replaced),
 * so `xmllint --noout` accepts it and any XML tool can pick numbers out of it.
 * No script, no font and no image is loaded from anywhere. Curves are
 * downsampled to a few hundred points, so a million jobs make a page of
 * the same size as a hundred.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/num.h"
#include "report/render.h"

#define CDF_POINTS 400
#define TL_BUCKETS 480

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

/* An axis: linear, or log10(1 + v) for values spanning several decades. */
struct axis {
	double lo, hi; /* in transformed units */
	int log;
	double px0, px1; /* pixel range */
};

static double tf(const struct axis *a, double v)
{
	return a->log ? log10(1 + (v > 0 ? v : 0)) : v;
}

static double px(const struct axis *a, double v)
{
	double t = tf(a, v);
	double f = a->hi > a->lo ? (t - a->lo) / (a->hi - a->lo) : 0.5;
	return a->px0 + f * (a->px1 - a->px0);
}

static void axis_init(struct axis *a, double vmin, double vmax, int allow_log, double px0,
		      double px1)
{
	a->px0 = px0;
	a->px1 = px1;
	if (!(vmax > vmin)) {
		vmin = vmin > 0 ? 0 : vmin;
		vmax = vmin + 1;
	}
	a->log = allow_log && vmin >= 0 && vmax > 100 && vmax > 100 * (vmin > 1 ? vmin : 1);
	if (a->log) {
		a->lo = 0;
		a->hi = ceil(log10(1 + vmax) * 4) / 4;
	} else {
		double step = nice_step(vmax - (vmin > 0 ? 0 : vmin), 5);
		a->lo = vmin > 0 ? 0 : floor(vmin / step) * step;
		a->hi = ceil(vmax / step) * step;
	}
}

/* ticks of an axis into t[] (at most 16), returns the count */
static int axis_ticks(const struct axis *a, double *t)
{
	int n = 0;
	if (a->log) {
		t[n++] = 0;
		for (double d = 1; log10(1 + d) <= a->hi + 1e-9 && n < 16; d *= 10)
			t[n++] = d;
		return n;
	}
	double step = nice_step(a->hi - a->lo, 5);
	for (double v = a->lo; v <= a->hi + step * 1e-9 && n < 16; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
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
			fmt_tick(sb, t[i]);
		sb_addstr(sb, "</text>\n");
	}
	n = axis_ticks(x, t);
	for (int i = 0; i < n; i++) {
		double pxx = px(x, t[i]);
		sb_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			pxx, MT, pxx, CH - MB);
		sb_addf(sb, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", pxx,
			CH - MB + 16);
		fmt_tick(sb, t[i]);
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

static void legend(struct strbuf *sb, const struct dl_report *rep, const char *what)
{
	sb_addstr(sb, "<ul class=\"legend\">");
	for (size_t i = 0; i < dl_report_nseries(rep); i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		if (what && !strcmp(what, "timeline") && s.ntl < 2)
			continue; /* only the labels drawn */
		sb_addf(sb, "<li><span class=\"swatch\" style=\"background:%s\">&#160;</span>",
			color(i));
		xml_escape(sb, s.label);
		if (what && !strcmp(what, "jct") && !s.njct)
			sb_addstr(sb, " <em>(no finished jobs)</em>");
		else if (what && !strcmp(what, "qdelay") && !s.nqdelay)
			sb_addstr(sb, " <em>(no started jobs)</em>");
		sb_addstr(sb, "</li>");
	}
	sb_addstr(sb, "</ul>\n");
}

/* one CDF per label of the sorted values chosen by `which` (0 = JCT, 1 = delay) */
static void cdf_chart(struct strbuf *sb, const struct dl_report *rep, int which)
{
	const char *id = which ? "qdelay-cdf" : "jct-cdf";
	const char *cls = which ? "cdf-qdelay" : "cdf-jct";
	double vmin = INFINITY, vmax = -INFINITY;
	size_t ns = dl_report_nseries(rep);
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		const double *v = which ? s.qdelay : s.jct;
		size_t n = which ? s.nqdelay : s.njct;
		if (!n)
			continue;
		vmin = v[0] < vmin ? v[0] : vmin;
		vmax = v[n - 1] > vmax ? v[n - 1] : vmax;
	}
	if (vmin > vmax)
		vmin = 0, vmax = 1;
	struct axis x, y;
	axis_init(&x, vmin, vmax, 1, ML, CW - MR);
	axis_init(&y, 0, 1, 0, CH - MB, MT);
	char xt[64];
	snprintf(xt, sizeof(xt), "%s (s%s)", which ? "queueing delay" : "job completion time",
		 x.log ? ", log scale" : "");
	svg_open(sb, id, which ? "CDF of queueing delay per label" : "CDF of JCT per label");
	svg_axes(sb, &x, &y, xt, "fraction of jobs", 1);
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		const double *v = which ? s.qdelay : s.jct;
		size_t n = which ? s.nqdelay : s.njct;
		if (!n)
			continue;
		sb_addf(sb, "<path class=\"%s\" data-label=\"", cls);
		xml_escape(sb, s.label);
		sb_addf(sb, "\" stroke=\"%s\" d=\"M%.1f %.1f", color(i), px(&x, v[0]), px(&y, 0));
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
		double a = t[i], b = t[i + 1];
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
static void timeline_chart(struct strbuf *sb, const struct dl_report *rep, int pending)
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
	if (!(t1 > t0))
		t1 = t0 + 1;
	int frac = !pending && cap > 0;
	double scale = frac ? 1 / cap : 1;
	/* hours on the axis when the run is long */
	double tdiv = t1 - t0 >= 3 * 3600 ? 3600 : 1;
	struct axis x, y;
	axis_init(&x, t0 / tdiv, t1 / tdiv, 0, ML, CW - MR);
	axis_init(&y, 0, frac ? (vmax * scale > 1 ? vmax * scale : 1) : (vmax > 0 ? vmax : 1), 0,
		  CH - MB, MT);
	const char *id = pending ? "pending-time" : "util-time";
	svg_open(sb, id, pending ? "pending jobs over time" : "GPU utilisation over time");
	svg_axes(sb, &x, &y, tdiv > 1 ? "time (h)" : "time (s)",
		 pending ? "pending jobs"
		 : frac	 ? "GPU utilisation"
			 : "busy GPUs",
		 frac);
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
		sb_addf(sb, "\" stroke=\"%s\" d=\"", color(i));
		int pen = 0;
		for (size_t k = 0; k < TL_BUCKETS; k++) {
			if (isnan(out[k])) {
				pen = 0;
				continue;
			}
			double tm = t0 + ((double)k + 0.5) * (t1 - t0) / TL_BUCKETS;
			sb_addf(sb, "%s%.1f %.1f", pen ? "L" : "M", px(&x, tm / tdiv),
				px(&y, out[k] * scale));
			pen = 1;
		}
		sb_addstr(sb, "\"/>\n");
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
	struct axis x;
	axis_init(&x, 0, vmax > 0 ? vmax : 1, 0, lw, CW - 110);
	double t[16];
	int n = axis_ticks(&x, t);
	for (int i = 0; i < n; i++) {
		double pxx = px(&x, t[i]);
		sb_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			pxx, MT - 4, pxx, h - 26);
		sb_addf(sb, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", pxx,
			h - 12);
		fmt_tick(sb, t[i]);
		sb_addstr(sb, "</text>\n");
	}
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
			sb_addf(sb,
				"<text class=\"barvalue\" x=\"%d\" y=\"%d\">no finished jobs</text>\n",
				lw + 6, y0 + bh / 2 + 5);
		} else {
			double w = px(&x, r->avg_jct) - lw;
			sb_addstr(sb, "<rect class=\"bar\" data-label=\"");
			xml_escape(sb, r->label);
			sb_addf(sb,
				"\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				lw, y0, w > 0.5 ? w : 0.5, bh, color(li));
			struct strbuf v = STRBUF_INIT;
			char buf[DL_NUM_BUF];
			if (r->avg_jct >= 1000)
				sb_addf(&v, "%.0f s", r->avg_jct);
			else {
				dl_fmt_double_prec(buf, r->avg_jct, 4);
				sb_addf(&v, "%s s", buf);
			}
			if (base && !strcmp(base, r->label))
				sb_addstr(&v, " (baseline)");
			else if (!isnan(r->speedup_jct))
				sb_addf(&v, " (%.2fx)", r->speedup_jct);
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
	"tr.base td{background:#f0f6ff}\n"
	"tr.sub td{color:#5b6475}\n"
	".scroll{overflow-x:auto}\n"
	".grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:18px;align-items:start}\n"
	".grid2 figure{margin:0}\n"
	"figure h2{margin-bottom:4px}\n"
	"svg.chart{width:100%;height:auto;display:block}\n"
	".chart .grid{stroke:#e6e8ee;stroke-width:1}\n"
	".chart .frame{fill:none;stroke:#9aa3b2;stroke-width:1}\n"
	".chart .axisline{stroke:#9aa3b2;stroke-width:1}\n"
	".chart .tick{font-size:11px;fill:#5b6475}\n"
	".chart .axis{font-size:12px;fill:#2a3142}\n"
	".chart .barlabel{font-size:13px;fill:#1d2330}\n"
	".chart .barvalue{font-size:12px;fill:#2a3142}\n"
	".chart path{fill:none;stroke-width:2;stroke-linejoin:round}\n"
	".legend{list-style:none;margin:6px 0 0;padding:0;font-size:13px}\n"
	".legend li{display:inline-flex;align-items:center;margin:0 16px 4px 0}\n"
	".legend em{margin-left:4px;color:#5b6475}\n"
	".swatch{display:inline-block;width:12px;height:12px;border-radius:2px;"
	"margin-right:6px;font-size:0;line-height:0;flex:none}\n"
	".note{color:#8a3b12;font-size:13px;margin:8px 0 0}\n"
	"footer{color:#5b6475;font-size:12px;margin-top:8px}\n";

static void summary_table(struct strbuf *sb, const struct dl_report *rep)
{
	const struct dl_report_col *shown[32];
	size_t ns = 0;
	for (const struct dl_report_col *c = dl_report_cols; c->name && ns < 32; c++)
		if (dl_report_col_shown(rep, c, 1))
			shown[ns++] = c;
	sb_addstr(sb, "<div class=\"scroll\"><table id=\"summary\">\n<thead><tr>");
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
		int isbase = base && !strcmp(base, r->label) && !sub;
		sb_addf(sb, "<tr%s>", isbase ? " class=\"base\"" : sub ? " class=\"sub\"" : "");
		for (size_t k = 0; k < ns; k++) {
			const struct dl_report_col *c = shown[k];
			struct strbuf cell = STRBUF_INIT;
			if (c->kind == DL_COL_STR)
				sb_addstr(&cell, dl_report_col_str(c, r));
			else
				dl_report_fmt_human(&cell, c, dl_report_col_num(c, r));
			sb_addstr(sb, c->kind == DL_COL_STR ? "<td class=\"s\">" : "<td>");
			xml_escape(sb, cell.buf);
			sb_addstr(sb, "</td>");
			sb_release(&cell);
		}
		sb_addstr(sb, "</tr>\n");
	}
	sb_addstr(sb, "</tbody></table></div>\n");
	struct strbuf notes = STRBUF_INIT;
	dl_report_notes(rep, &notes, 0);
	if (notes.len) {
		sb_addstr(sb, "<p class=\"note\">");
		xml_escape(sb, notes.buf);
		sb_addstr(sb, "</p>\n");
	}
	sb_release(&notes);
}

void dl_report_write_html(const struct dl_report *rep, FILE *fp, const struct dl_report_page *page)
{
	const char *title = page && page->title ? page->title : "dlsched report";
	struct strbuf sb = STRBUF_INIT;
	dl_html_page_head(&sb, title);
	if (page && page->date) {
		xml_escape(&sb, page->date);
		sb_addstr(&sb, " \xc2\xb7 ");
	}
	int64_t jobs = 0;
	int any_tl = 0;
	size_t ns = dl_report_nseries(rep);
	for (size_t i = 0; i < ns; i++) {
		struct dl_report_series s;
		dl_report_series(rep, i, &s);
		jobs += s.jobs;
		any_tl |= s.ntl > 1;
	}
	sb_addf(&sb, "%zu label%s, %lld jobs", ns, ns == 1 ? "" : "s", (long long)jobs);
	if (dl_report_capacity(rep) > 0)
		sb_addf(&sb, ", %g GPUs", dl_report_capacity(rep));
	if (dl_report_baseline(rep)) {
		sb_addstr(&sb, ", baseline ");
		xml_escape(&sb, dl_report_baseline(rep));
	}
	sb_addstr(&sb, "</p>\n</header>\n");

	sb_addstr(&sb, "<section class=\"card\">\n<h2>Summary (times in seconds)</h2>\n");
	summary_table(&sb, rep);
	sb_addstr(&sb, "</section>\n<div class=\"grid2\">\n");

	sb_addstr(&sb, "<figure>\n<h2>Average JCT per label</h2>\n");
	bar_chart(&sb, rep);
	sb_addstr(&sb, "</figure>\n<figure>\n<h2>JCT distribution (CDF)</h2>\n");
	cdf_chart(&sb, rep, 0);
	legend(&sb, rep, "jct");
	sb_addstr(&sb, "</figure>\n<figure>\n<h2>Queueing delay distribution (CDF)</h2>\n");
	cdf_chart(&sb, rep, 1);
	legend(&sb, rep, "qdelay");
	sb_addstr(&sb, "</figure>\n");
	if (any_tl) {
		sb_addf(&sb, "<figure>\n<h2>%s over time</h2>\n",
			dl_report_capacity(rep) > 0 ? "GPU utilisation" : "Busy GPUs");
		timeline_chart(&sb, rep, 0);
		legend(&sb, rep, "timeline");
		sb_addstr(&sb, "</figure>\n<figure>\n<h2>Queue length over time</h2>\n");
		timeline_chart(&sb, rep, 1);
		legend(&sb, rep, "timeline");
		sb_addstr(&sb, "</figure>\n");
	}
	sb_addstr(&sb, "</div>\n<footer>Made by dlsched report. Percentiles are nearest-rank; "
		       "Jain's index is over the slowdowns jct/duration of finished jobs; "
		       "speedup = baseline / label.</footer>\n</main>\n</body>\n</html>\n");
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

struct dl_html_chart {
	struct axis x, y;
};

struct dl_html_chart *dl_html_chart_open(struct strbuf *sb, const char *id, const char *title,
					 double x0, double x1, double y0, double y1,
					 const char *xtitle, const char *ytitle, int ypercent)
{
	struct dl_html_chart *c = xcalloc(1, sizeof(*c));
	axis_init(&c->x, x0, x1, 0, ML, CW - MR);
	axis_init(&c->y, y0, y1, 0, CH - MB, MT);
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
