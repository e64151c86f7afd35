/* group.c: runs grouped by their axes: mean and 95% confidence interval per metric */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/rng.h"
#include "core/strmap.h"
#include "report/group.h"
#include "report/render.h"

/* t(0.975, dof) for dof 1..30 (standard tables, 3 decimals) */
static const double t975[] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201,	2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080,	2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double dl_student_t975(long dof)
{
	if (dof < 1)
		return NAN;
	if (dof <= 30)
		return t975[dof - 1];
	/* Cornish-Fisher expansion around the normal quantile: within 1e-4 from dof 30 on */
	double z = 1.959963984540054, d = (double)dof;
	double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
	return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

void dl_mean_ci95(const double *v, size_t n, double *mean, double *half)
{
	*mean = NAN;
	*half = NAN;
	if (!n)
		return;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double m = sum / (double)n;
	*mean = m;
	if (n < 2)
		return;
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	double s = sqrt(ss / (double)(n - 1));
	*half = dl_student_t975((long)n - 1) * s / sqrt((double)n);
}

static int cmp_mean(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void dl_mean_boot95(const double *v, size_t n, double *mean, double *lo, double *hi)
{
	*mean = *lo = *hi = NAN;
	if (!n)
		return;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	*mean = sum / (double)n;
	if (n < 2)
		return;
	/* every ordered resample when there are few (n^n <= 3125), else seeded draws */
	size_t nb = 1;
	int exact = n <= DL_BOOT_EXACT_MAX;
	if (exact)
		for (size_t i = 0; i < n; i++)
			nb *= n;
	else
		nb = DL_BOOT_DRAWS;
	double *means = xcalloc(nb, sizeof(*means));
	size_t *pick = xcalloc(n, sizeof(*pick));
	struct dl_rng rng;
	dl_rng_seed(&rng, DL_BOOT_SEED);
	for (size_t b = 0; b < nb; b++) {
		double s = 0;
		for (size_t i = 0; i < n; i++)
			s += v[exact ? pick[i] : (size_t)dl_rng_below(&rng, n)];
		means[b] = s / (double)n;
		/* the next tuple of indices (an odometer) */
		for (size_t i = 0; exact && i < n && ++pick[i] == n; i++)
			pick[i] = 0;
	}
	qsort(means, nb, sizeof(*means), cmp_mean);
	*lo = means[(size_t)ceil(0.025 * (double)nb) - 1];
	*hi = means[(size_t)ceil(0.975 * (double)nb) - 1];
	free(pick);
	free(means);
}

struct values {
	double *v;
	size_t n, alloc;
};

/* one run of a group, for the page's list of runs */
struct run {
	char *id;   /* its run column ("" without one) */
	char *over; /* its values of the columns the mean runs over: "seed=1" */
};

struct group {
	char **key; /* nby values */
	size_t runs;
	struct values *m; /* one per metric of dl_report_cols (NULL when not a metric) */
	struct run *run;  /* runs of them */
	size_t arun;
};

struct dl_group {
	char **by;
	size_t nby;
	struct group *groups;
	size_t ngroups, agroups;
	struct strmap index;
	size_t ncols;	 /* entries of dl_report_cols */
	int *present;	 /* per report column: some input had it as a metric */
	char *first_src; /* name of the first input, for the page */
	/* the columns the means run over (neither keys nor metrics nor run/label): their
	 * distinct values in order of appearance, ", "-joined */
	char **over;
	struct strbuf *over_values;
	size_t nover;
	struct strmap over_seen; /* "COLUMN\x1fVALUE" */
};

struct dl_group *dl_group_new(void)
{
	struct dl_group *g = xcalloc(1, sizeof(*g));
	struct strmap init = STRMAP_INIT;
	g->index = init;
	g->over_seen = init;
	while (dl_report_cols[g->ncols].name)
		g->ncols++;
	g->present = xcalloc(g->ncols, sizeof(*g->present));
	return g;
}

void dl_group_free(struct dl_group *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->ngroups; i++) {
		struct group *gr = &g->groups[i];
		for (size_t k = 0; k < g->nby; k++)
			free(gr->key[k]);
		free(gr->key);
		for (size_t c = 0; c < g->ncols; c++)
			free(gr->m[c].v);
		free(gr->m);
		for (size_t k = 0; k < gr->runs; k++) {
			free(gr->run[k].id);
			free(gr->run[k].over);
		}
		free(gr->run);
	}
	for (size_t k = 0; k < g->nover; k++) {
		free(g->over[k]);
		sb_release(&g->over_values[k]);
	}
	free(g->over);
	free(g->over_values);
	strmap_free(&g->over_seen);
	for (size_t k = 0; k < g->nby; k++)
		free(g->by[k]);
	free(g->by);
	free(g->groups);
	free(g->present);
	free(g->first_src);
	strmap_free(&g->index);
	free(g);
}

static int metric_col(const char *name)
{
	for (int c = 0; dl_report_cols[c].name; c++)
		if (dl_report_cols[c].kind != DL_COL_STR && !strcmp(dl_report_cols[c].name, name))
			return c;
	return -1;
}

int dl_group_read(struct dl_group *g, struct dl_reader *r, const char *const *by, size_t nby,
		  struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	if (!g->by) {
		g->nby = nby;
		g->by = xcalloc(nby ? nby : 1, sizeof(*g->by));
		for (size_t k = 0; k < nby; k++)
			g->by[k] = xstrdup(by[k]);
		g->first_src = xstrdup(name);
	}
	if (!dl_reader_ncols(r))
		return 0; /* 0 bytes: no runs, as a header alone (dlsched-formats(5)) */
	int *keycol = xcalloc(nby ? nby : 1, sizeof(*keycol));
	int *mcol = xcalloc(g->ncols, sizeof(*mcol)); /* reader column of each metric, or -1 */
	int rc = 0, any = 0;
	for (size_t k = 0; k < nby && !rc; k++) {
		keycol[k] = dl_reader_col(r, by[k]);
		if (keycol[k] < 0) {
			struct strbuf cols = STRBUF_INIT;
			const char *const *cn = dl_reader_columns(r);
			for (size_t c = 0; c < dl_reader_ncols(r); c++)
				if (metric_col(cn[c]) < 0)
					sb_addf(&cols, "%s%s", cols.len ? ", " : "", cn[c]);
			rc = dl_err_at(err, name, 1, "no column '%s' to group by (columns: %s)",
				       by[k], cols.buf);
			sb_release(&cols);
		}
	}
	for (size_t c = 0; c < g->ncols && !rc; c++) {
		mcol[c] = -1;
		if (dl_report_cols[c].kind == DL_COL_STR)
			continue;
		int in_by = 0;
		for (size_t k = 0; k < nby; k++)
			in_by |= !strcmp(by[k], dl_report_cols[c].name);
		if (in_by)
			continue;
		mcol[c] = dl_reader_col(r, dl_report_cols[c].name);
		if (mcol[c] >= 0)
			g->present[c] = any = 1;
	}
	if (!rc && !any)
		rc = dl_err_at(err, name, 1,
			       "no metric columns (expected a sweep's summary.csv or report rows)");
	/* the other columns: what the runs of a group differ in (the seed, typically) */
	size_t ncols = dl_reader_ncols(r);
	int *overcol = xcalloc(ncols ? ncols : 1, sizeof(*overcol)); /* index into g->over */
	const char *const *cn = dl_reader_columns(r);
	for (size_t c = 0; c < ncols && !rc; c++) {
		overcol[c] = -1;
		int skip = metric_col(cn[c]) >= 0 || !strcmp(cn[c], "run");
		for (int k = 0; dl_report_cols[k].name && !skip; k++)
			skip = !strcmp(cn[c], dl_report_cols[k].name); /* label, dropped_reasons */
		for (size_t k = 0; k < nby && !skip; k++)
			skip = (size_t)keycol[k] == c;
		if (skip)
			continue;
		size_t o = 0;
		while (o < g->nover && strcmp(g->over[o], cn[c]))
			o++;
		if (o == g->nover) {
			g->over = xreallocarray(g->over, o + 1, sizeof(*g->over));
			g->over_values =
				xreallocarray(g->over_values, o + 1, sizeof(*g->over_values));
			g->over[o] = xstrdup(cn[c]);
			sb_init(&g->over_values[o]);
			g->nover++;
		}
		overcol[c] = (int)o;
	}
	int runcol = dl_reader_col(r, "run");
	struct strmap run_line = STRMAP_INIT; /* a run counted twice would weigh double */
	struct dl_row row;
	int got = 0;
	struct strbuf key = STRBUF_INIT;
	while (!rc && (got = dl_reader_next(r, &row, err)) > 0) {
		const char *id = dl_field_str(&row, runcol);
		const int64_t *before = *id ? strmap_get(&run_line, id) : NULL;
		if (before) {
			rc = dl_err_at(err, name, row.line, "run %.40s is also on line %lld", id,
				       (long long)*before);
			break;
		}
		if (*id)
			strmap_put(&run_line, id, (int64_t)row.line);
		sb_reset(&key);
		for (size_t k = 0; k < nby; k++) {
			sb_addstr(&key, row.f[keycol[k]]);
			sb_addc(&key, '\x1f');
		}
		int64_t *v = strmap_get(&g->index, key.buf);
		size_t gi;
		if (v) {
			gi = (size_t)*v;
		} else {
			DL_GROW(g->groups, g->ngroups + 1, g->agroups);
			struct group *ng = &g->groups[g->ngroups];
			memset(ng, 0, sizeof(*ng));
			ng->key = xcalloc(nby ? nby : 1, sizeof(*ng->key));
			for (size_t k = 0; k < nby; k++)
				ng->key[k] = xstrdup(row.f[keycol[k]]);
			ng->m = xcalloc(g->ncols, sizeof(*ng->m));
			strmap_put(&g->index, key.buf, (int64_t)g->ngroups);
			gi = g->ngroups++;
		}
		struct group *gr = &g->groups[gi];
		DL_GROW(gr->run, gr->runs + 1, gr->arun);
		struct strbuf over = STRBUF_INIT;
		for (size_t c = 0; c < ncols; c++) {
			if (overcol[c] < 0)
				continue;
			sb_addf(&over, "%s%s=%s", over.len ? " " : "", cn[c], row.f[c]);
			size_t o = (size_t)overcol[c];
			struct strbuf seen = STRBUF_INIT;
			sb_addf(&seen, "%s\x1f%s", cn[c], row.f[c]);
			if (!strmap_get(&g->over_seen, seen.buf)) {
				strmap_put(&g->over_seen, seen.buf, 1);
				sb_addf(&g->over_values[o], "%s%s",
					g->over_values[o].len ? ", " : "", row.f[c]);
			}
			sb_release(&seen);
		}
		gr->run[gr->runs].id = xstrdup(dl_field_str(&row, runcol));
		gr->run[gr->runs].over = sb_detach(&over);
		gr->runs++;
		for (size_t c = 0; c < g->ncols && !rc; c++) {
			if (mcol[c] < 0 || !row.f[mcol[c]][0])
				continue;
			double d;
			if (dl_field_double(r, &row, mcol[c], &d, err)) {
				rc = -1;
				break;
			}
			struct values *vs = &gr->m[c];
			DL_GROW(vs->v, vs->n + 1, vs->alloc);
			vs->v[vs->n++] = d;
		}
	}
	if (got < 0)
		rc = -1;
	strmap_free(&run_line);
	sb_release(&key);
	free(keycol);
	free(mcol);
	free(overcol);
	return rc ? -1 : 0;
}

size_t dl_group_nruns(const struct dl_group *g)
{
	size_t n = 0;
	for (size_t i = 0; i < g->ngroups; i++)
		n += g->groups[i].runs;
	return n;
}

static void stats_of(const struct group *gr, size_t c, double *mean, double *lo, double *hi)
{
	dl_mean_boot95(gr->m[c].v, gr->m[c].n, mean, lo, hi);
}

static void write_num(struct dl_writer *w, size_t col, double v)
{
	if (isnan(v))
		dl_writer_null(w, col);
	else
		dl_writer_double(w, col, v);
}

void dl_group_write_stream(const struct dl_group *g, struct dl_writer *w)
{
	for (size_t k = 0; k < g->nby; k++)
		dl_writer_add_column(w, g->by[k]);
	dl_writer_add_column(w, "runs");
	for (size_t c = 0; c < g->ncols; c++) {
		if (!g->present[c])
			continue;
		struct strbuf lo = STRBUF_INIT, hi = STRBUF_INIT;
		sb_addf(&lo, "%s_lo95", dl_report_cols[c].name);
		sb_addf(&hi, "%s_hi95", dl_report_cols[c].name);
		dl_writer_add_column(w, dl_report_cols[c].name);
		dl_writer_add_column(w, lo.buf);
		dl_writer_add_column(w, hi.buf);
		sb_release(&lo);
		sb_release(&hi);
	}
	for (size_t i = 0; i < g->ngroups; i++) {
		const struct group *gr = &g->groups[i];
		size_t col = 0;
		for (size_t k = 0; k < g->nby; k++)
			dl_writer_auto(w, col++, gr->key[k]);
		dl_writer_int(w, col++, (int64_t)gr->runs);
		for (size_t c = 0; c < g->ncols; c++) {
			if (!g->present[c])
				continue;
			double m, lo, hi;
			stats_of(gr, c, &m, &lo, &hi);
			write_num(w, col++, m);
			write_num(w, col++, lo);
			write_num(w, col++, hi);
		}
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
}

/* a value for people: times in the nightly page's units on the page, seconds in text */
static void human(struct strbuf *sb, const struct dl_report_col *col, double v, int page)
{
	if (page && col->kind == DL_COL_TIME && !isnan(v))
		dl_html_fmt_time(sb, v);
	else
		dl_report_fmt_human(sb, col, v);
}

/* "mean [lo, hi]" for people */
static void cell(struct strbuf *sb, const struct group *gr, size_t c)
{
	double m, lo, hi;
	stats_of(gr, c, &m, &lo, &hi);
	dl_report_fmt_human(sb, &dl_report_cols[c], m);
	if (!isnan(lo)) {
		sb_addstr(sb, " [");
		dl_report_fmt_human(sb, &dl_report_cols[c], lo);
		sb_addstr(sb, ", ");
		dl_report_fmt_human(sb, &dl_report_cols[c], hi);
		sb_addc(sb, ']');
	}
}

/* metrics shown to people: present, defined somewhere, and not a speedup without baseline */
static int shown(const struct dl_group *g, size_t c)
{
	if (!g->present[c])
		return 0;
	for (size_t i = 0; i < g->ngroups; i++)
		if (g->groups[i].m[c].n)
			return 1;
	return 0;
}

static size_t utf8_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

void dl_group_write_table(const struct dl_group *g, FILE *fp, enum dl_report_format fmt)
{
	int md = fmt == DL_REPORT_MARKDOWN;
	size_t nc = g->nby + 1;
	for (size_t c = 0; c < g->ncols; c++)
		nc += (size_t)shown(g, c);
	size_t nr = g->ngroups + 1;
	struct strbuf *cells = xcalloc(nr * nc, sizeof(*cells));
	int *left = xcalloc(nc, sizeof(*left));
	for (size_t i = 0; i < nr * nc; i++)
		sb_init(&cells[i]);
	size_t k = 0;
	for (; k < g->nby; k++) {
		sb_addstr(&cells[k], g->by[k]);
		left[k] = 1;
	}
	sb_addstr(&cells[k++], "runs");
	for (size_t c = 0; c < g->ncols; c++)
		if (shown(g, c))
			sb_addstr(&cells[k++], dl_report_cols[c].header);
	for (size_t i = 0; i < g->ngroups; i++) {
		const struct group *gr = &g->groups[i];
		struct strbuf *rowc = &cells[(i + 1) * nc];
		k = 0;
		for (; k < g->nby; k++)
			sb_addstr(&rowc[k], gr->key[k]);
		sb_addf(&rowc[k++], "%zu", gr->runs);
		for (size_t c = 0; c < g->ncols; c++)
			if (shown(g, c))
				cell(&rowc[k++], gr, c);
	}
	size_t *w = xcalloc(nc, sizeof(*w));
	for (size_t i = 0; i < nr * nc; i++)
		if (utf8_width(cells[i].buf) > w[i % nc])
			w[i % nc] = utf8_width(cells[i].buf);
	for (size_t i = 0; i < nr; i++) {
		struct strbuf line = STRBUF_INIT;
		for (size_t j = 0; j < nc; j++) {
			const char *s = cells[i * nc + j].buf;
			size_t pad = w[j] - utf8_width(s);
			sb_addstr(&line, md ? (j ? " | " : "| ") : (j ? "  " : ""));
			for (size_t p = 0; !left[j] && p < pad; p++)
				sb_addc(&line, ' ');
			sb_addstr(&line, s);
			for (size_t p = 0; left[j] && (md || j + 1 < nc) && p < pad; p++)
				sb_addc(&line, ' ');
		}
		sb_addstr(&line, md ? " |\n" : "\n");
		if (md && i == 0) {
			for (size_t j = 0; j < nc; j++) {
				sb_addstr(&line, "| ");
				for (size_t p = 0; p + 1 < w[j]; p++)
					sb_addc(&line, '-');
				sb_addstr(&line, left[j] ? "- " : ": ");
			}
			sb_addstr(&line, "|\n");
		}
		fputs(line.buf, fp);
		sb_release(&line);
	}
	fputs("\nmean [95% interval of the mean: percentile bootstrap over the runs of each "
	      "group]\n",
	      fp);
	for (size_t i = 0; i < nr * nc; i++)
		sb_release(&cells[i]);
	free(cells);
	free(left);
	free(w);
}

/* the last key whose values are all numbers: the x axis of the charts, or -1 */
static int numeric_key(const struct dl_group *g)
{
	for (size_t k = g->nby; k-- > 0;) {
		int ok = g->ngroups > 0;
		for (size_t i = 0; i < g->ngroups && ok; i++) {
			double d;
			ok = !dl_parse_double(g->groups[i].key[k], &d);
		}
		if (ok)
			return (int)k;
	}
	return -1;
}

/* the series label of a group: its other keys, "policy=fifo" or "all" */
static void series_name(struct strbuf *sb, const struct dl_group *g, const struct group *gr, int xk)
{
	for (size_t k = 0; k < g->nby; k++) {
		if ((int)k == xk)
			continue;
		if (sb->len)
			sb_addstr(sb, ", ");
		sb_addstr(sb, gr->key[k]);
	}
	if (!sb->len)
		sb_addstr(sb, "all");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* what a charted metric is, for its chart's title */
static const struct {
	const char *name, *what;
} charted[] = {
	{"avg_jct", "Average job completion time"},
	{"p95_jct", "95th percentile of job completion time (p95 JCT)"},
	{"avg_queue_delay", "Average queueing delay"},
	{"makespan", "Makespan (first submit to last end)"},
	{"utilization", "GPU utilisation"},
	{"max_rho", "Worst finish-time fairness (max rho: JCT over the time alone)"},
	{"avg_first_feedback", "Average time to first feedback"},
	{"comm_share", "Share of GPU time lost to communication"},
};

/* the unit of a time axis whose values reach y1 */
static void time_unit(double y1, double *scale, const char **name)
{
	static const struct {
		double sec, up_to;
		const char *name;
	} u[] = {{1, 120, "s"}, {60, 7200, "min"}, {3600, 172800, "h"}, {86400, INFINITY, "d"}};
	size_t k = 0;
	while (y1 >= u[k].up_to)
		k++;
	*scale = u[k].sec;
	*name = u[k].name;
}

/* one metric against the numeric key: a line and a confidence band per series */
static void line_chart(struct strbuf *sb, const struct dl_group *g, size_t c, int xk,
		       const char *what)
{
	const struct dl_report_col *col = &dl_report_cols[c];
	size_t ng = g->ngroups;
	double *x = xcalloc(ng, sizeof(*x));
	char **series = xcalloc(ng, sizeof(*series));
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	size_t nmin = SIZE_MAX, nmax = 0;
	for (size_t i = 0; i < ng; i++) {
		struct strbuf s = STRBUF_INIT;
		series_name(&s, g, &g->groups[i], xk);
		series[i] = sb_detach(&s);
		dl_parse_double(g->groups[i].key[xk], &x[i]);
		double m, lo, hi;
		stats_of(&g->groups[i], c, &m, &lo, &hi);
		if (isnan(m))
			continue;
		size_t n = g->groups[i].m[c].n;
		nmin = n < nmin ? n : nmin;
		nmax = n > nmax ? n : nmax;
		x0 = fmin(x0, x[i]);
		x1 = fmax(x1, x[i]);
		y0 = fmin(y0, isnan(lo) ? m : lo);
		y1 = fmax(y1, isnan(hi) ? m : hi);
	}
	if (x0 > x1)
		x0 = 0, x1 = 1, y0 = 0, y1 = 1;
	int pct = col->kind == DL_COL_PERCENT;
	double yscale = 1;
	const char *unit = NULL;
	if (col->kind == DL_COL_TIME)
		time_unit(y1, &yscale, &unit);
	struct strbuf id = STRBUF_INIT, title = STRBUF_INIT, yt = STRBUF_INIT, ns = STRBUF_INIT;
	if (nmin == nmax)
		sb_addf(&ns, "%zu", nmin);
	else
		sb_addf(&ns, "%zu to %zu", nmin, nmax);
	sb_addf(&id, "group-%s", col->name);
	sb_addf(&title,
		"%s against %s: each point the mean over a group's n = %s runs of each run's "
		"value, its band the 95%% bootstrap interval of that mean",
		what, g->by[xk], ns.buf);
	sb_addf(&yt, "%s%s%s%s", col->header, unit ? " (" : "", unit ? unit : "", unit ? ")" : "");
	struct dl_html_chart *ch = dl_html_chart_open_span(
		sb, id.buf, title.buf, x0, x1, y0 < 0 ? y0 : 0, y1, yscale, g->by[xk], yt.buf, pct);
	/* series in order of first appearance (first[i]: group i starts one), points in x order */
	int *first = xcalloc(ng ? ng : 1, sizeof(*first));
	for (size_t i = 0; i < ng; i++) {
		first[i] = 1;
		for (size_t j = 0; j < i && first[i]; j++)
			first[i] = strcmp(series[i], series[j]) != 0;
	}
	size_t nseries = 0;
	enum { X, MEAN, LO, HI, N, NP };
	double *pts = xcalloc(ng * NP, sizeof(*pts));
	for (size_t i = 0; i < ng; i++) {
		if (!first[i])
			continue;
		size_t np = 0;
		for (size_t j = i; j < ng; j++) {
			double m, lo, hi;
			if (strcmp(series[i], series[j]))
				continue;
			stats_of(&g->groups[j], c, &m, &lo, &hi);
			if (isnan(m))
				continue;
			double *p = &pts[np * NP];
			p[X] = x[j];
			p[MEAN] = m;
			p[LO] = isnan(lo) ? m : lo;
			p[HI] = isnan(hi) ? m : hi;
			p[N] = (double)g->groups[j].m[c].n;
			np++;
		}
		qsort(pts, np, NP * sizeof(*pts), cmp_double);
		const char *color = dl_html_color(nseries++);
		if (!np)
			continue;
		/* a light fill and dashed edges: overlapping bands stay apart */
		sb_addf(sb,
			"<path class=\"band\" style=\"fill:%s;fill-opacity:0.10;stroke:%s;"
			"stroke-opacity:0.6;stroke-width:1;stroke-dasharray:4 3\" d=\"",
			color, color);
		for (size_t p = 0; p < np; p++)
			sb_addf(sb, "%s%.1f %.1f", p ? "L" : "M",
				dl_html_chart_px(ch, pts[p * NP + X]),
				dl_html_chart_py(ch, pts[p * NP + HI]));
		for (size_t p = np; p-- > 0;)
			sb_addf(sb, "L%.1f %.1f", dl_html_chart_px(ch, pts[p * NP + X]),
				dl_html_chart_py(ch, pts[p * NP + LO]));
		sb_addstr(sb, "Z\"/>\n<path class=\"mean\" data-label=\"");
		dl_html_escape(sb, series[i]);
		sb_addf(sb, "\" stroke=\"%s\" d=\"", color);
		for (size_t p = 0; p < np; p++)
			sb_addf(sb, "%s%.1f %.1f", p ? "L" : "M",
				dl_html_chart_px(ch, pts[p * NP + X]),
				dl_html_chart_py(ch, pts[p * NP + MEAN]));
		sb_addstr(sb, "\"/>\n");
		for (size_t p = 0; p < np; p++) {
			const double *q = &pts[p * NP];
			struct strbuf tip = STRBUF_INIT;
			sb_addf(&tip, "%s, %s=%g: ", series[i], g->by[xk], q[X]);
			human(&tip, col, q[MEAN], 1);
			sb_addstr(&tip, " [");
			human(&tip, col, q[LO], 1);
			sb_addstr(&tip, ", ");
			human(&tip, col, q[HI], 1);
			sb_addf(&tip, "], n = %.0f", q[N]);
			sb_addf(sb,
				"<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
				"<title>",
				dl_html_chart_px(ch, q[X]), dl_html_chart_py(ch, q[MEAN]), color);
			dl_html_escape(sb, tip.buf);
			sb_addstr(sb, "</title></circle>\n");
			sb_release(&tip);
		}
	}
	/* where 0 is, for checks of the bands against a metric's range */
	sb_addf(sb,
		"<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"none\"/>\n",
		dl_html_chart_px(ch, x0), dl_html_chart_px(ch, x1), dl_html_chart_py(ch, 0),
		dl_html_chart_py(ch, 0));
	dl_html_chart_close(sb, ch);
	/* the legend: one swatch per series */
	sb_addstr(sb, "<ul class=\"legend\">");
	nseries = 0;
	for (size_t i = 0; i < ng; i++) {
		if (!first[i])
			continue;
		sb_addf(sb, "<li><span class=\"swatch\" style=\"background:%s\">&#160;</span>",
			dl_html_color(nseries++));
		dl_html_escape(sb, series[i]);
		sb_addstr(sb, "</li>");
	}
	sb_addstr(sb, "</ul>\n");
	for (size_t i = 0; i < ng; i++)
		free(series[i]);
	free(series);
	free(first);
	free(x);
	free(pts);
	sb_release(&id);
	sb_release(&title);
	sb_release(&yt);
	sb_release(&ns);
}

/* does metric c take more than one value over all runs (else: a footnote, not a column) */
static int varies(const struct dl_group *g, size_t c)
{
	int have = 0;
	double first = 0;
	for (size_t i = 0; i < g->ngroups; i++)
		for (size_t k = 0; k < g->groups[i].m[c].n; k++) {
			double v = g->groups[i].m[c].v[k];
			if (!have)
				first = v, have = 1;
			else if (v != first)
				return 1;
		}
	return 0;
}

/* what a group's mean runs over, and every run with its command (plan.csv) when known */
static void runs_list(struct strbuf *sb, const struct dl_group *g,
		      const struct dl_report_page *page)
{
	if (g->nover) {
		sb_addstr(sb, "<p id=\"over\">Each mean is over runs that differ in ");
		for (size_t o = 0; o < g->nover; o++) {
			sb_addstr(sb, o ? "; " : "");
			dl_html_escape(sb, g->over[o]);
			sb_addstr(sb, " (");
			dl_html_escape(sb, g->over_values[o].buf);
			sb_addstr(sb, ")");
		}
		sb_addstr(sb, ".</p>\n");
	}
	size_t runs = 0;
	for (size_t i = 0; i < g->ngroups; i++)
		runs += g->groups[i].runs;
	sb_addf(sb, "<details><summary>The %zu runs%s</summary>\n<table id=\"runs\"><thead><tr>",
		runs, page && page->nruns ? " and their commands (plan.csv)" : "");
	for (size_t k = 0; k < g->nby; k++) {
		sb_addstr(sb, "<th class=\"s\">");
		dl_html_escape(sb, g->by[k]);
		sb_addstr(sb, "</th>");
	}
	sb_addstr(sb, "<th class=\"s\">over</th><th class=\"s\">run</th>");
	if (page && page->nruns)
		sb_addstr(sb, "<th class=\"s\">command</th>");
	sb_addstr(sb, "</tr></thead><tbody>\n");
	struct strmap cmds = STRMAP_INIT; /* run id -> index into page->runs */
	for (size_t k = 0; page && k < page->nruns; k++)
		if (!strmap_get(&cmds, page->runs[k].id))
			strmap_put(&cmds, page->runs[k].id, (int64_t)k);
	for (size_t i = 0; i < g->ngroups; i++) {
		const struct group *gr = &g->groups[i];
		for (size_t r = 0; r < gr->runs; r++) {
			sb_addstr(sb, "<tr>");
			for (size_t k = 0; k < g->nby; k++) {
				sb_addstr(sb, "<td class=\"s\">");
				dl_html_escape(sb, gr->key[k]);
				sb_addstr(sb, "</td>");
			}
			sb_addstr(sb, "<td class=\"s\">");
			dl_html_escape(sb, gr->run[r].over);
			sb_addstr(sb, "</td><td class=\"s\">");
			dl_html_escape(sb, gr->run[r].id);
			sb_addstr(sb, "</td>");
			if (page && page->nruns) {
				const int64_t *k = strmap_get(&cmds, gr->run[r].id);
				const char *cmd = k ? page->runs[*k].command : "-";
				sb_addstr(sb, "<td class=\"s\"><code>");
				dl_html_escape(sb, cmd);
				sb_addstr(sb, "</code></td>");
			}
			sb_addstr(sb, "</tr>\n");
		}
	}
	sb_addstr(sb, "</tbody></table>\n</details>\n");
	strmap_free(&cmds);
}

/* metric columns per table of the page: with the keys, a table fits 1280 pixels */
#define GROUP_TABLE_COLS 8

/* one cell of the page's tables: the mean, the interval below, seconds and n in the tooltip */
static void group_cell(struct strbuf *sb, const struct group *gr, size_t c)
{
	const struct dl_report_col *col = &dl_report_cols[c];
	double m, lo, hi;
	stats_of(gr, c, &m, &lo, &hi);
	struct strbuf v = STRBUF_INIT, tip = STRBUF_INIT;
	human(&v, col, m, 1);
	if (col->kind == DL_COL_TIME && !isnan(m)) {
		sb_addf(&tip, "mean %.9g s", m);
		if (!isnan(lo))
			sb_addf(&tip, ", 95%% interval %.9g s to %.9g s", lo, hi);
		sb_addf(&tip, ", n = %zu", gr->m[c].n);
	} else {
		sb_addf(&tip, "n = %zu", gr->m[c].n);
	}
	sb_addstr(sb, "<td title=\"");
	dl_html_escape(sb, tip.buf);
	sb_addstr(sb, "\">");
	dl_html_escape(sb, v.buf);
	if (!isnan(lo)) {
		sb_reset(&v);
		human(&v, col, lo, 1);
		sb_addstr(&v, " \xe2\x80\x93 ");
		human(&v, col, hi, 1);
		sb_addstr(sb, "<small style=\"display:block;color:#666;white-space:nowrap\">");
		dl_html_escape(sb, v.buf);
		sb_addstr(sb, "</small>");
	}
	sb_addstr(sb, "</td>");
	sb_release(&v);
	sb_release(&tip);
}

void dl_group_write_html(const struct dl_group *g, FILE *fp, const struct dl_report_page *page)
{
	const char *title = page && page->title ? page->title : "dlsched sweep report";
	struct strbuf sb = STRBUF_INIT;
	dl_html_page_head(&sb, title);
	if (page && page->date) {
		dl_html_escape(&sb, page->date);
		sb_addstr(&sb, " \xc2\xb7 ");
	}
	size_t runs = 0;
	for (size_t i = 0; i < g->ngroups; i++)
		runs += g->groups[i].runs;
	sb_addf(&sb, "%zu groups of %zu runs, grouped by ", g->ngroups, runs);
	for (size_t k = 0; k < g->nby; k++) {
		if (k)
			sb_addstr(&sb, ", ");
		dl_html_escape(&sb, g->by[k]);
	}
	sb_addstr(&sb, "</p>\n</header>\n<section class=\"card\">\n<h2>Mean per group, and the 95% "
		       "interval of the mean</h2>\n");
	/* the metrics that vary, at most GROUP_TABLE_COLS per table so that each fits the page */
	size_t *cols = xcalloc(g->ncols, sizeof(*cols)), ncols = 0;
	for (size_t c = 0; c < g->ncols; c++)
		if (shown(g, c) && varies(g, c))
			cols[ncols++] = c;
	size_t ntables = (ncols + GROUP_TABLE_COLS - 1) / GROUP_TABLE_COLS;
	size_t per = ntables ? (ncols + ntables - 1) / ntables : 1; /* balanced: 6, 6, 5 */
	for (size_t t0 = 0; t0 < ncols || (!t0 && !ncols); t0 += per) {
		size_t t1 = t0 + per < ncols ? t0 + per : ncols;
		if (t0)
			sb_addf(&sb,
				"<div class=\"scroll\" style=\"margin-top:1em\"><table "
				"id=\"groups-%zu\">\n<thead><tr>",
				t0 / per + 1);
		else
			sb_addstr(&sb, "<div class=\"scroll\"><table id=\"groups\">\n<thead><tr>");
		for (size_t k = 0; k < g->nby; k++) {
			sb_addstr(&sb, "<th class=\"s\">");
			dl_html_escape(&sb, g->by[k]);
			sb_addstr(&sb, "</th>");
		}
		sb_addstr(&sb, "<th title=\"runs in the group\">n</th>");
		for (size_t q = t0; q < t1; q++) {
			sb_addstr(&sb, "<th>");
			dl_html_escape(&sb, dl_report_cols[cols[q]].header);
			sb_addstr(&sb, "</th>");
		}
		sb_addstr(&sb, "</tr></thead>\n<tbody>\n");
		for (size_t i = 0; i < g->ngroups; i++) {
			const struct group *gr = &g->groups[i];
			sb_addstr(&sb, "<tr>");
			for (size_t k = 0; k < g->nby; k++) {
				sb_addstr(&sb, "<td class=\"s\">");
				dl_html_escape(&sb, gr->key[k]);
				sb_addstr(&sb, "</td>");
			}
			sb_addf(&sb, "<td>%zu</td>", gr->runs);
			for (size_t q = t0; q < t1; q++)
				group_cell(&sb, gr, cols[q]);
			sb_addstr(&sb, "</tr>\n");
		}
		sb_addstr(&sb, "</tbody></table></div>\n");
		if (!ncols)
			break;
	}
	free(cols);
	/* metrics with one value in every run: a footnote instead of a column of "200" */
	struct strbuf same = STRBUF_INIT;
	for (size_t c = 0; c < g->ncols; c++) {
		if (!shown(g, c) || varies(g, c))
			continue;
		double m, lo, hi;
		for (size_t i = 0; i < g->ngroups; i++) {
			stats_of(&g->groups[i], c, &m, &lo, &hi);
			if (!isnan(m))
				break;
		}
		sb_addstr(&same, same.len ? ", " : "");
		dl_html_escape(&same, dl_report_cols[c].header);
		sb_addc(&same, ' ');
		struct strbuf v = STRBUF_INIT;
		human(&v, &dl_report_cols[c], m, 1);
		dl_html_escape(&same, v.buf);
		sb_release(&v);
	}
	if (same.len)
		sb_addf(&sb, "<p class=\"note\" id=\"same\">The same in every run: %s.</p>\n",
			same.buf);
	sb_release(&same);
	sb_addstr(&sb, "<p class=\"note\">Each cell: the mean over the group's runs, and below it "
		       "the 95% interval of that mean (percentile bootstrap, see the end of the "
		       "page); n is the number of runs. Times in human units; the cells' tooltips "
		       "and the CSV and JSON outputs hold seconds.</p>\n</section>\n");
	int xk = numeric_key(g);
	if (xk >= 0) {
		sb_addstr(&sb, "<div class=\"grid2\">\n");
		for (size_t m = 0; m < DL_ARRAY_SIZE(charted); m++) {
			int c = metric_col(charted[m].name);
			/* a metric the same in every run is in the footnote, not a flat chart */
			if (c < 0 || !shown(g, (size_t)c) || !varies(g, (size_t)c) ||
			    !strcmp(g->by[xk], charted[m].name))
				continue;
			sb_addf(&sb, "<figure data-metric=\"%s\">\n<h2>", charted[m].name);
			dl_html_escape(&sb, charted[m].what);
			sb_addstr(&sb, " against ");
			dl_html_escape(&sb, g->by[xk]);
			sb_addstr(&sb, "</h2>\n");
			line_chart(&sb, g, (size_t)c, xk, charted[m].what);
			sb_addstr(&sb, "</figure>\n");
		}
		sb_addstr(&sb, "</div>\n");
	} else {
		sb_addstr(&sb, "<p class=\"note\">No numeric column among the groups to draw the "
			       "metrics against.</p>\n");
	}
	struct strbuf extra = STRBUF_INIT;
	runs_list(&extra, g, page);
	dl_html_footer(&sb, page,
		       "Intervals and bands: the 95% percentile bootstrap interval of the mean "
		       "over the runs of a group (the 2.5% and 97.5% points of the means of "
		       "resamples with replacement: all n^n of them up to n = 5, else 2000 from "
		       "a fixed seed). They lie between the smallest and the largest run's "
		       "value, so never outside a metric's range (below 0 for a time); with "
		       "few runs they are about the range of the runs, not a claim of "
		       "precision. Nothing is clipped.",
		       extra.buf);
	sb_release(&extra);
	sb_addstr(&sb, "</main>\n</body>\n</html>\n");
	fwrite(sb.buf, 1, sb.len, fp);
	sb_release(&sb);
}
