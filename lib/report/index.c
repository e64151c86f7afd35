/*
 * index.c: the index page of a directory of nightly pages (report --index):
 * one row per night with a link to its page, and the trend of average wait
 * and average JCT per night and label. Each page says its numbers in its
 * hidden paragraph id="night-data" (html.c); pages without one (other files,
 * pages of older versions) are listed as such, not guessed at.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "report/render.h"

struct night {
	char *file;   /* the page's file name in the directory */
	json_t *data; /* its night-data object, or NULL */
};

static int cmp_night(const void *a, const void *b)
{
	return strcmp(((const struct night *)a)->file, ((const struct night *)b)->file);
}

/* undo the XML escapes html.c writes in an attribute (&quot; &amp; &lt; &gt; &#39;) */
static void xml_unescape(struct strbuf *out, const char *s, size_t n)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = {{"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&#39;", '\''}};
	for (size_t i = 0; i < n;) {
		size_t k = 0;
		if (s[i] == '&')
			while (k < DL_ARRAY_SIZE(ents) &&
			       strncmp(s + i, ents[k].ent, strlen(ents[k].ent)))
				k++;
		if (s[i] == '&' && k < DL_ARRAY_SIZE(ents)) {
			sb_addc(out, ents[k].c);
			i += strlen(ents[k].ent);
		} else {
			sb_addc(out, s[i++]);
		}
	}
}

/* the night-data of a page, or NULL when it has none; -1 on a read error */
static int read_night(const char *path, json_t **data, struct dl_err *err)
{
	static const char mark[] = "<p id=\"night-data\" class=\"data\" data-night=\"";
	*data = NULL;
	struct dl_input *in = dl_input_open(path, err);
	if (!in)
		return -1;
	struct strbuf line = STRBUF_INIT, text = STRBUF_INIT;
	int got = 0;
	while (!*data && (got = dl_input_getline(in, &line, err)) > 0) {
		const char *p = strstr(line.buf, mark);
		const char *q = p ? strchr(p + sizeof(mark) - 1, '"') : NULL;
		if (!q)
			continue;
		sb_reset(&text);
		xml_unescape(&text, p + sizeof(mark) - 1, (size_t)(q - p) - (sizeof(mark) - 1));
		json_t *o = json_loads(text.buf, 0, NULL);
		if (json_is_object(o) && json_is_array(json_object_get(o, "labels")))
			*data = o;
		else
			json_decref(o);
	}
	sb_release(&line);
	sb_release(&text);
	dl_input_close(in);
	return got < 0 && !*data ? -1 : 0;
}

static double num_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* the night's name: its --date, else its file name without .html */
static void night_name(struct strbuf *sb, const struct night *n)
{
	json_t *d = json_object_get(n->data, "night");
	if (json_is_string(d) && *json_string_value(d)) {
		sb_addstr(sb, json_string_value(d));
		return;
	}
	size_t len = strlen(n->file);
	sb_add(sb, n->file, len > 5 ? len - 5 : len);
}

/* one label's value of key in night k, NaN when it has none */
static double value(const struct night *n, const char *label, const char *key)
{
	json_t *labels = json_object_get(n->data, "labels"), *l;
	size_t i;
	json_array_foreach (labels, i, l) {
		json_t *name = json_object_get(l, "label");
		if (json_is_string(name) && !strcmp(json_string_value(name), label))
			return num_of(l, key);
	}
	return NAN;
}

/* a trend chart of key over the nights, one line per label, in a unit that fits */
static void trend(struct strbuf *sb, const struct night *nights, size_t n, char **labels,
		  size_t nlabels, const char *key, const char *id, const char *what)
{
	double vmax = 0;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < nlabels; i++) {
			double v = value(&nights[k], labels[i], key);
			if (v > vmax)
				vmax = v;
		}
	double unit = vmax >= 7200 ? 3600 : vmax >= 120 ? 60 : 1;
	const char *uname = unit == 3600 ? "h" : unit == 60 ? "min" : "s";
	struct strbuf yt = STRBUF_INIT, title = STRBUF_INIT;
	sb_addf(&yt, "%s (%s)", what, uname);
	sb_addf(&title, "%s per night and label", what);
	sb_addf(sb, "<figure>\n<h2>%s per night</h2>\n", what);
	struct dl_html_chart *ch = dl_html_chart_open(sb, id, title.buf, 1, n > 1 ? (double)n : 2,
						      0, vmax > 0 ? vmax / unit : 1,
						      "night (row of the table)", yt.buf, 0);
	for (size_t i = 0; i < nlabels; i++) {
		const char *color = dl_html_label_color(labels[i]);
		sb_addstr(sb, "<path class=\"trend\" data-label=\"");
		dl_html_escape(sb, labels[i]);
		sb_addf(sb, "\" stroke=\"%s\" d=\"", color);
		int pen = 0;
		for (size_t k = 0; k < n; k++) {
			double v = value(&nights[k], labels[i], key);
			if (isnan(v)) {
				pen = 0;
				continue;
			}
			sb_addf(sb, "%s%.1f %.1f", pen ? "L" : "M",
				dl_html_chart_px(ch, (double)(k + 1)),
				dl_html_chart_py(ch, v / unit));
			pen = 1;
		}
		sb_addstr(sb, "\"/>\n");
		for (size_t k = 0; k < n; k++) {
			double v = value(&nights[k], labels[i], key);
			if (isnan(v))
				continue;
			struct strbuf tip = STRBUF_INIT;
			sb_addf(&tip, "%s, ", labels[i]);
			night_name(&tip, &nights[k]);
			sb_addf(&tip, ": %s %.4g %s (%.10g s)", what, v / unit, uname, v);
			sb_addstr(sb, "<circle class=\"point\" data-label=\"");
			dl_html_escape(sb, labels[i]);
			sb_addf(sb, "\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
				dl_html_chart_px(ch, (double)(k + 1)),
				dl_html_chart_py(ch, v / unit), color);
			dl_html_escape(sb, tip.buf);
			sb_addstr(sb, "</title></circle>\n");
			sb_release(&tip);
		}
	}
	dl_html_chart_close(sb, ch);
	sb_addstr(sb, "<ul class=\"legend\">");
	for (size_t i = 0; i < nlabels; i++) {
		sb_addf(sb, "<li><span class=\"swatch\" style=\"background:%s\">&#160;</span>",
			dl_html_label_color(labels[i]));
		dl_html_escape(sb, labels[i]);
		sb_addstr(sb, "</li>");
	}
	sb_addstr(sb, "</ul>\n</figure>\n");
	sb_release(&yt);
	sb_release(&title);
}

int dl_report_write_index(FILE *fp, const char *dir, const char *skip,
			  const struct dl_report_page *page, struct dl_err *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return dl_err_set(err, DL_EXIT_DATA, "%s: cannot read the directory: %s", dir,
				  strerror(errno));
	struct night *nights = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".html") ||
		    (skip && !strcmp(e->d_name, skip)))
			continue;
		DL_GROW(nights, n + 1, alloc);
		nights[n].file = xstrdup(e->d_name);
		nights[n].data = NULL;
		n++;
	}
	closedir(d);
	qsort(nights, n, sizeof(*nights), cmp_night);
	int rc = 0;
	struct strbuf path = STRBUF_INIT;
	for (size_t k = 0; k < n && !rc; k++) {
		sb_reset(&path);
		sb_addf(&path, "%s/%s", dir, nights[k].file);
		rc = read_night(path.buf, &nights[k].data, err);
	}
	sb_release(&path);
	/* the nights with numbers, in file-name order (dated names sort by date) */
	struct night *ok = xcalloc(n ? n : 1, sizeof(*ok));
	size_t nok = 0;
	char **labels = NULL;
	size_t nlabels = 0, alabels = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		if (!nights[k].data)
			continue;
		ok[nok++] = nights[k];
		json_t *ls = json_object_get(nights[k].data, "labels"), *l;
		size_t i;
		json_array_foreach (ls, i, l) {
			json_t *name = json_object_get(l, "label");
			if (!json_is_string(name))
				continue;
			size_t j = 0;
			while (j < nlabels && strcmp(labels[j], json_string_value(name)))
				j++;
			if (j == nlabels) {
				DL_GROW(labels, nlabels + 1, alabels);
				labels[nlabels++] = xstrdup(json_string_value(name));
			}
		}
	}
	if (!rc) {
		struct strbuf sb = STRBUF_INIT;
		dl_html_page_head(&sb, page && page->title ? page->title : "dlsched nights");
		sb_addf(&sb, "<span id=\"nights\">%zu night%s</span> in ", nok,
			nok == 1 ? "" : "s");
		dl_html_escape(&sb, dir);
		sb_addstr(&sb, "</p>\n</header>\n<section class=\"card\">\n<h2>Nights</h2>\n");
		sb_addstr(&sb, "<div class=\"scroll\"><table id=\"nights-table\">\n<thead><tr>"
			       "<th>row</th><th class=\"s\">night</th><th>jobs</th>");
		for (size_t i = 0; i < nlabels; i++) {
			sb_addstr(&sb, "<th>");
			dl_html_escape(&sb, labels[i]);
			sb_addstr(&sb, " avg wait</th><th>");
			dl_html_escape(&sb, labels[i]);
			sb_addstr(&sb, " avg JCT</th>");
		}
		sb_addstr(&sb, "</tr></thead>\n<tbody>\n");
		for (size_t k = 0; k < nok; k++) {
			sb_addf(&sb, "<tr><td>%zu</td><td class=\"s\"><a href=\"", k + 1);
			dl_html_escape(&sb, ok[k].file);
			sb_addstr(&sb, "\">");
			night_name(&sb, &ok[k]);
			double jobs = num_of(ok[k].data, "jobs");
			sb_addstr(&sb, "</a></td><td>");
			if (isnan(jobs))
				sb_addstr(&sb, "-");
			else
				sb_addf(&sb, "%.0f", jobs);
			sb_addstr(&sb, "</td>");
			for (size_t i = 0; i < nlabels; i++)
				for (int c = 0; c < 2; c++) {
					double v = value(&ok[k], labels[i],
							 c ? "avg_jct" : "avg_queue_delay");
					if (isnan(v))
						sb_addstr(&sb, "<td>-</td>");
					else
						sb_addf(&sb, "<td title=\"%.10g s\">%.4g s</td>", v,
							v);
				}
			sb_addstr(&sb, "</tr>\n");
		}
		sb_addstr(&sb, "</tbody></table></div>\n");
		if (nok < n) {
			sb_addstr(&sb, "<p class=\"note\" id=\"not-pages\">Not report pages (no "
				       "numbers to read): ");
			for (size_t k = 0, m = 0; k < n; k++)
				if (!nights[k].data) {
					sb_addstr(&sb, m++ ? ", " : "");
					dl_html_escape(&sb, nights[k].file);
				}
			sb_addstr(&sb, ".</p>\n");
		}
		sb_addstr(&sb, "</section>\n");
		if (nok) {
			sb_addstr(&sb, "<div class=\"grid2\">\n");
			trend(&sb, ok, nok, labels, nlabels, "avg_queue_delay", "trend-wait",
			      "average wait");
			trend(&sb, ok, nok, labels, nlabels, "avg_jct", "trend-jct", "average JCT");
			sb_addstr(&sb, "</div>\n");
		}
		dl_html_footer(&sb, page,
			       "Each night's numbers are those of its page (every label over the "
			       "same jobs); rows in file-name order.",
			       NULL);
		sb_addstr(&sb, "</main>\n</body>\n</html>\n");
		fwrite(sb.buf, 1, sb.len, fp);
		sb_release(&sb);
	}
	for (size_t k = 0; k < n; k++) {
		free(nights[k].file);
		json_decref(nights[k].data);
	}
	for (size_t i = 0; i < nlabels; i++)
		free(labels[i]);
	free(labels);
	free(nights);
	free(ok);
	return rc;
}
