/* report.c: summary metrics of results streams, side by side, as tables or an HTML page */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cluster/cluster.h"
#include "core/num.h"
#include "report/group.h"
#include "report/report.h"

struct report_args {
	int fmt; /* enum dl_report_format, by formats[] */
	const char *output;
	const char *baseline;
	struct dl_strlist labels, timelines;
	int gpus;
	const char *cluster;
	int by; /* by_names[], when given */
	const char *title, *date;
	const char *group_by;
};

/* in the order of enum dl_report_format */
static const char *const formats[] = {"text", "csv", "json", "markdown", "html", NULL};
static const char *const format_aliases[] = {"jsonl=json", "md=markdown", NULL};
static const char *const by_names[] = {"gpus", "duration", NULL};

#define AT(f) DL_OPT_AT(struct report_args, f)
static const struct dl_opt report_opts[] = {
	{DL_OPT_CHOICE, 'f', "format", "FMT", "output format", AT(fmt), .values = formats,
	 .aliases = format_aliases, .def_doc = "text on a terminal, else csv"},
	{DL_OPT_FILE, 'o', "output", "PATH",
	 "write to PATH atomically (its suffix can set the format)", AT(output),
	 .flags = DL_OPTF_NONEMPTY, .expect = "a non-empty path"},
	{DL_OPT_STRING, 'b', "baseline", "LABEL",
	 "speedups of average JCT and makespan against LABEL", AT(baseline)},
	{DL_OPT_STRINGS, 'l', "label", "NAME", "label of the inputs in order (repeatable)",
	 AT(labels)},
	{DL_OPT_FILES, 't', "timeline", "FILE",
	 "timeline of the input in the same position (repeatable)", AT(timelines)},
	{DL_OPT_INT, 0, "gpus", "N", "GPUs in the cluster, for utilisation", AT(gpus), .imin = 1,
	 .imax = 100000000},
	{DL_OPT_FILE, 'c', "cluster", "SPEC",
	 "the cluster, for utilisation (as in dlsched simulate)", AT(cluster)},
	{DL_OPT_CHOICE, 0, "by", "CLASS", "also rows per class: gpus (1, 2-4, 5-8, >8) or duration",
	 AT(by), .values = by_names},
	{DL_OPT_STRING, 0, "title", "TEXT", "title of the HTML page", AT(title),
	 .def_doc = "dlsched report"},
	{DL_OPT_STRING, 0, "date", "TEXT", "date line of the HTML page (e.g. the night it covers)",
	 AT(date)},
	{DL_OPT_STRING, 0, "group-by", "AXES",
	 "runs of a sweep (summary.csv or its DIR): mean and 95% CI per group of AXES",
	 AT(group_by)},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec report_spec = {
	.usage = "dlsched report [options] [RESULTS...]",
	.description =
		"Summarise results streams (from dlsched simulate; '-' or nothing is standard\n"
		"input) with one row per label: jobs, finished, average, median, p90, p95, p99 JCT,\n"
		"makespan, average and p95 queueing delay, GPU utilisation, preemptions and\n"
		"migrations per job, Jain's index of slowdowns and speedups against --baseline.\n"
		"Percentiles are nearest-rank. Times are in seconds.",
	.opts = report_opts,
	.flags = DL_SPEC_NO_IO,
};

/* the format an output path's suffix asks for, or -1 */
static int format_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot = strrchr(base ? base : path, '.');
	if (!dot)
		return -1;
	if (!strcmp(dot, ".htm"))
		return DL_REPORT_HTML;
	if (!strcmp(dot, ".txt"))
		return DL_REPORT_TEXT;
	return dl_opt_choice_index(&report_opts[0], dot + 1);
}

/* "runs/fifo.csv.gz" -> "fifo" (the label of a file without a policy column) */
static char *label_of_path(const char *path)
{
	if (!strcmp(path, "-"))
		return xstrdup("stdin");
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *s = xstrdup(b);
	size_t n = strlen(s);
	if (n > 3 && !strcmp(s + n - 3, ".gz"))
		s[n -= 3] = 0;
	char *dot = strrchr(s, '.');
	if (dot && dot != s)
		*dot = 0;
	return s;
}

static int cluster_gpus(const char *spec, double *gpus, struct dl_err *err)
{
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, err))
		return -1;
	*gpus = cl->total_gpus;
	dl_cluster_free(cl);
	return 0;
}

/* --group-by: the runs of a sweep, grouped; an input that is a directory means DIR/summary.csv */
static int report_grouped(struct dl_ctx *ctx, char **files, size_t nfiles, const char *group_by,
			  enum dl_report_format fmt, const char *output,
			  const struct dl_report_page *page)
{
	char *list = xstrdup(group_by);
	const char **by = xcalloc(strlen(list) + 1, sizeof(*by));
	size_t nby = 0;
	int rc = 0;
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		by[nby++] = t;
	if (!nby)
		rc = dl_usage_error(ctx, "empty --group-by");
	struct dl_group *g = dl_group_new();
	for (size_t i = 0; i < nfiles && !rc; i++) {
		struct strbuf path = STRBUF_INIT;
		struct stat stt;
		sb_addstr(&path, files[i]);
		if (strcmp(files[i], "-") && !stat(files[i], &stt) && S_ISDIR(stt.st_mode))
			sb_addstr(&path, "/summary.csv");
		struct dl_reader *r = dl_in_open(ctx, path.buf);
		struct dl_err err = DL_ERR_INIT;
		if (!r)
			rc = DL_EXIT_DATA;
		else if (dl_group_read(g, r, by, nby, &err))
			rc = dl_fail(ctx, &err);
		dl_reader_close(r);
		sb_release(&path);
	}
	struct dl_output *out = rc ? NULL : dl_out_open(ctx, output);
	if (!rc && !out)
		rc = DL_EXIT_DATA;
	if (!rc) {
		FILE *fp = dl_output_fp(out);
		if (fmt == DL_REPORT_CSV || fmt == DL_REPORT_JSON) {
			struct dl_writer *w =
				dl_writer_new(fp, fmt == DL_REPORT_JSON ? DL_OUT_JSON : DL_OUT_CSV);
			dl_group_write_stream(g, w);
			dl_writer_free(w);
		} else if (fmt == DL_REPORT_HTML) {
			dl_group_write_html(g, fp, page);
		} else {
			dl_group_write_table(g, fp, fmt);
		}
		rc = dl_out_close(ctx, out, 0);
	}
	dl_group_free(g);
	free(by);
	free(list);
	return rc;
}

DL_COMMAND(report, "summarise results: JCT percentiles, makespan, utilisation, HTML charts")
{
	struct dl_optstate st;
	struct report_args a = {0};
	int rc = 0;
	if (dl_opt_parse(&st, ctx, argc, argv, &report_spec, &a)) {
		/* --help, --list-options or a usage error: nothing is read */
		dl_strlist_free(&a.labels);
		dl_strlist_free(&a.timelines);
		return st.exit_code;
	}
	enum dl_report_format fmt = (enum dl_report_format)a.fmt;
	int fmt_set = dl_opt_given(&st, "format") > 0;
	const char *output = a.output;
	struct dl_report_opts ro = {0};
	struct dl_report_page page = {0};
	const char *cluster = a.cluster;
	const char **labels = a.labels.v, **timelines = a.timelines.v;
	size_t nlabels = a.labels.n, ntimelines = a.timelines.n;
	ro.baseline = a.baseline;
	ro.capacity = a.gpus;
	if (dl_opt_given(&st, "by"))
		ro.by = a.by == 0 ? DL_REPORT_BY_GPUS : DL_REPORT_BY_DURATION;
	page.title = a.title;
	page.date = a.date;
	const char *group_by = a.group_by;

	int ninputs;
	char **files = dl_opt_inputs(&st, &ninputs);
	size_t nfiles = (size_t)ninputs;
	if (!rc && nlabels > nfiles)
		rc = dl_usage_error(ctx, "%zu --label options for %zu inputs", nlabels, nfiles);
	if (!rc && ntimelines > nfiles)
		rc = dl_usage_error(ctx, "%zu --timeline options for %zu inputs", ntimelines,
				    nfiles);
	if (!rc && cluster && ro.capacity > 0)
		rc = dl_usage_error(ctx, "--cluster and --gpus both give the cluster size");
	struct dl_err err = DL_ERR_INIT;
	if (!rc && cluster && cluster_gpus(cluster, &ro.capacity, &err))
		rc = dl_fail(ctx, &err);
	if (!rc && !fmt_set) {
		int f = output ? format_of_path(output) : -1;
		if (f >= 0)
			fmt = (enum dl_report_format)f;
		else
			fmt = !output && isatty(STDOUT_FILENO) ? DL_REPORT_TEXT : DL_REPORT_CSV;
	}

	if (!rc && group_by) {
		if (nlabels || ntimelines || ro.baseline || ro.by || cluster || ro.capacity > 0)
			rc = dl_usage_error(ctx,
					    "--group-by takes no --label, --timeline, --baseline, "
					    "--by, --cluster or --gpus (the runs have them)");
		else
			rc = report_grouped(ctx, files, nfiles, group_by, fmt, output, &page);
		dl_strlist_free(&a.labels);
		dl_strlist_free(&a.timelines);
		return rc;
	}

	struct dl_report *rep = dl_report_new();
	const char **first = xcalloc(nfiles, sizeof(*first));
	for (size_t i = 0; i < nfiles && !rc; i++) {
		struct dl_reader *r = dl_in_open(ctx, files[i]);
		if (!r) {
			rc = DL_EXIT_DATA;
			break;
		}
		char *fallback = label_of_path(files[i]);
		if (dl_report_read_results(rep, r, i < nlabels ? labels[i] : NULL, fallback,
					   &first[i], &err))
			rc = dl_fail(ctx, &err);
		free(fallback);
		dl_reader_close(r);
	}
	for (size_t i = 0; i < ntimelines && !rc; i++) {
		struct dl_reader *r = dl_in_open(ctx, timelines[i]);
		if (!r) {
			rc = DL_EXIT_DATA;
			break;
		}
		if (dl_report_read_timeline(rep, r, first[i], &err))
			rc = dl_fail(ctx, &err);
		dl_reader_close(r);
	}
	if (!rc && dl_report_compute(rep, &ro, &err))
		rc = err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
					       : dl_fail(ctx, &err);

	struct dl_output *out = NULL;
	if (!rc) {
		out = dl_out_open(ctx, output);
		if (!out)
			rc = DL_EXIT_DATA;
	}
	if (!rc) {
		FILE *fp = dl_output_fp(out);
		if (fmt == DL_REPORT_CSV || fmt == DL_REPORT_JSON) {
			struct dl_writer *w =
				dl_writer_new(fp, fmt == DL_REPORT_JSON ? DL_OUT_JSON : DL_OUT_CSV);
			dl_report_write_stream(rep, w);
			dl_writer_free(w);
		} else if (fmt == DL_REPORT_HTML) {
			dl_report_write_html(rep, fp, &page);
		} else {
			dl_report_write_table(rep, fp, fmt);
		}
		for (size_t i = 0; i < dl_report_nrows(rep); i++) {
			const struct dl_report_row *row = dl_report_row(rep, i);
			if (!strcmp(row->cls, "all") && !row->finished)
				dl_warn(ctx, "label '%s' has no finished jobs", row->label);
		}
		rc = dl_out_close(ctx, out, 0);
	}
	dl_report_free(rep);
	free(first);
	dl_strlist_free(&a.labels);
	dl_strlist_free(&a.timelines);
	return rc;
}
