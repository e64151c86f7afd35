/* report.c: summary metrics of results streams, side by side, as tables or an HTML page */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cluster/cluster.h"
#include "core/num.h"
#include "core/tz.h"
#include "report/group.h"
#include "report/report.h"
#include "sweep/sweep.h"
#include "version.h"

struct report_args {
	int fmt; /* enum dl_report_format, by formats[] */
	const char *output;
	const char *baseline;
	struct dl_strlist labels, timelines, skipped;
	const char *as_run;
	struct dl_report_window window;
	int gpus;
	const char *cluster;
	int by; /* by_names[], when given */
	const char *title, *date;
	const char *group_by;
	int allow_unequal;
	const char *tz;
	const char *index;
};

/* --window: the measurement window (dl_report_window_parse) */
static int store_window(const struct dl_opt *o, void *base, const char *arg)
{
	return dl_report_window_parse(arg, (struct dl_report_window *)((char *)base + o->offset));
}

/* in the order of enum dl_report_format */
static const char *const formats[] = {"text", "csv", "json", "markdown", "html", NULL};
static const char *const format_aliases[] = {"jsonl=json", "md=markdown", NULL};
/* in the order of enum dl_report_by, from DL_REPORT_BY_GPUS */
static const char *const by_names[] = {"gpus", "duration", "user", "account", "partition", NULL};

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
	{DL_OPT_FILES, 't', "timeline", "[LABEL=]FILE",
	 "a timeline, filed under its policy's label or LABEL (repeatable)", AT(timelines)},
	{DL_OPT_FILE, 0, "as-run", "JOBS",
	 "add the label 'as run': Slurm's real schedule from trace import", AT(as_run)},
	{DL_OPT_FILES, 0, "skipped", "FILE",
	 "count rows trace import --skipped left out (repeatable)", AT(skipped)},
	{DL_OPT_CALLBACK, 0, "window", "W", "measure only a window of jobs or time", AT(window),
	 .fn = store_window, .expect = "arrivals, jobs:FROM-TO or time:FROM-[TO]",
	 .def_doc = "all jobs, the whole run"},
	{DL_OPT_FLAG, 0, "allow-unequal", NULL,
	 "compare labels even when they cover different jobs", AT(allow_unequal)},
	{DL_OPT_INT, 0, "gpus", "N", "GPUs in the cluster, for utilisation", AT(gpus), .imin = 1,
	 .imax = 100000000},
	{DL_OPT_FILE, 'c', "cluster", "SPEC",
	 "the cluster, for utilisation (as in dlsched simulate)", AT(cluster)},
	{DL_OPT_CHOICE, 0, "by", "CLASS",
	 "also rows per class: gpus, duration, user, account or partition", AT(by),
	 .values = by_names},
	{DL_OPT_STRING, 0, "title", "TEXT", "title of the HTML page", AT(title),
	 .def_doc = "dlsched report"},
	{DL_OPT_STRING, 0, "tz", "ZONE", "the site's time zone, for clock times on the page",
	 AT(tz), .def_doc = "$TZ, else local", .flags = DL_OPTF_NONEMPTY,
	 .expect = "a time zone name"},
	{DL_OPT_STRING, 0, "date", "TEXT", "date line of the HTML page (e.g. the night it covers)",
	 AT(date)},
	{DL_OPT_STRING, 0, "index", "DIR",
	 "an index page of the report pages in DIR: each night, and trends per label", AT(index)},
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
		"migrations per job, Jain's index of slowdowns, speedups against --baseline,\n"
		"jobs dropped (skipped on import or rejected by simulate) per reason, average and\n"
		"p95 time to first feedback, average, p95 and maximum rho and Jain's index of rho,\n"
		"and communication overhead (total, per job, share of GPU time).\n"
		"Percentiles are nearest-rank. Times are in seconds (human units on the page).",
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

static int cluster_gpus(const char *spec, double *gpus, struct dl_report_page *page,
			struct dl_err *err)
{
	struct dl_cluster *cl = NULL;
	if (dl_cluster_load(spec, &cl, err))
		return -1;
	*gpus = cl->total_gpus;
	page->unavailable_nodes = cl->unavailable_nodes;
	page->unavailable_gpus = cl->unavailable_gpus;
	dl_cluster_free(cl);
	return 0;
}

/* one input of the footer, with its size when it is a file */
static void note_input(struct dl_report_input *in, const char *role, const char *path, int64_t rows)
{
	struct stat st;
	in->role = role;
	in->path = strcmp(path, "-") ? path : "standard input";
	in->bytes = strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode)
			    ? (int64_t)st.st_size
			    : -1;
	in->rows = rows;
}

/* read every input into rep; the footer's list of inputs goes to ins */
static int read_inputs(const struct dl_ctx *ctx, struct dl_report *rep, char **files, size_t nfiles,
		       const struct report_args *a, struct dl_report_input *ins, size_t *nins)
{
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	*nins = 0;
	for (size_t i = 0; i < nfiles && !rc; i++) {
		struct dl_reader *r = dl_in_open(ctx, files[i]);
		if (!r)
			return DL_EXIT_DATA;
		char *fallback = label_of_path(files[i]);
		if (dl_report_read_results(rep, r, i < a->labels.n ? a->labels.v[i] : NULL,
					   fallback, NULL, &err))
			rc = err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
						       : dl_fail(ctx, &err);
		free(fallback);
		dl_reader_close(r);
		note_input(&ins[(*nins)++], "results", files[i], dl_report_rows_read(rep));
	}
	if (!rc && a->as_run) {
		struct dl_reader *r = dl_in_open(ctx, a->as_run);
		if (!r)
			return DL_EXIT_DATA;
		if (dl_report_read_asrun(rep, r, &err))
			rc = err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
						       : dl_fail(ctx, &err);
		dl_reader_close(r);
		note_input(&ins[(*nins)++], "as run", a->as_run, dl_report_rows_read(rep));
	}
	for (size_t i = 0; i < a->timelines.n && !rc; i++) {
		/* LABEL=FILE names the label; a file that exists as written is just a file */
		const char *arg = a->timelines.v[i], *eq = strchr(arg, '='), *path = arg;
		struct stat st;
		char *label = NULL;
		if (eq && eq > arg && stat(arg, &st)) {
			label = xstrndup(arg, (size_t)(eq - arg));
			path = eq + 1;
		}
		struct dl_reader *r = dl_in_open(ctx, path);
		if (!r) {
			free(label);
			return DL_EXIT_DATA;
		}
		char *fallback = label_of_path(path);
		size_t n = strlen(fallback);
		if (n > 9 && !strcmp(fallback + n - 9, ".timeline"))
			fallback[n - 9] = '\0'; /* fifo.timeline.csv: the label fifo */
		if (dl_report_read_timeline(rep, r, label, fallback, &err))
			rc = err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
						       : dl_fail(ctx, &err);
		free(fallback);
		free(label);
		dl_reader_close(r);
		note_input(&ins[(*nins)++], "timeline", path, dl_report_rows_read(rep));
	}
	for (size_t i = 0; i < a->skipped.n && !rc; i++) {
		struct dl_reader *r = dl_in_open(ctx, a->skipped.v[i]);
		if (!r)
			return DL_EXIT_DATA;
		if (dl_report_read_skipped(rep, r, &err))
			rc = dl_fail(ctx, &err);
		dl_reader_close(r);
		note_input(&ins[(*nins)++], "skipped", a->skipped.v[i], dl_report_rows_read(rep));
	}
	return rc;
}

/*
 * The plan.csv beside a sweep's summary (DIR/summary.csv), for the runs'
 * commands on the page; in->path is then its path (the caller frees it).
 * Without one, *plan is empty; a bad one is a warning (the page goes on).
 */
static void read_plan(const struct dl_ctx *ctx, const char *summary, struct dl_sweep_plan *plan,
		      struct dl_report_input *in)
{
	const char *slash = strrchr(summary, '/');
	char *dir = slash ? xstrndup(summary, (size_t)(slash - summary)) : xstrdup(".");
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	struct dl_err err = DL_ERR_INIT;
	memset(plan, 0, sizeof(*plan));
	sb_addf(&path, "%s/plan.csv", dir);
	if (!stat(path.buf, &st)) {
		if (dl_sweep_plan_read(plan, dir, &err))
			dl_warn(ctx, "%s; the page lists no commands", err.msg);
		else
			note_input(in, "plan", sb_detach(&path), (int64_t)plan->nrows);
	}
	sb_release(&path);
	free(dir);
}

/*
 * --group-by: the runs of a sweep, grouped; an input that is a directory
 * means DIR/summary.csv, and a plan.csv beside a summary gives the page the
 * runs' commands
 */
static int report_grouped(struct dl_ctx *ctx, char **files, size_t nfiles, const char *group_by,
			  enum dl_report_format fmt, const char *output,
			  struct dl_report_page *page)
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
	struct dl_report_input *ins = xcalloc(2 * nfiles + 1, sizeof(*ins));
	char **paths = xcalloc(2 * nfiles + 1, sizeof(*paths));
	struct dl_sweep_plan *plans = xcalloc(nfiles + 1, sizeof(*plans));
	size_t nins = 0, nruns = 0;
	for (size_t i = 0; i < nfiles && !rc; i++) {
		struct strbuf path = STRBUF_INIT;
		struct stat stt;
		sb_addstr(&path, files[i]);
		if (strcmp(files[i], "-") && !stat(files[i], &stt) && S_ISDIR(stt.st_mode))
			sb_addstr(&path, "/summary.csv");
		struct dl_reader *r = dl_in_open(ctx, path.buf);
		struct dl_err err = DL_ERR_INIT;
		size_t before = dl_group_nruns(g);
		if (!r)
			rc = DL_EXIT_DATA;
		else if (dl_group_read(g, r, by, nby, &err))
			rc = dl_fail(ctx, &err);
		dl_reader_close(r);
		paths[nins] = sb_detach(&path);
		note_input(&ins[nins], "summary", paths[nins],
			   (int64_t)(dl_group_nruns(g) - before));
		nins++;
		if (!rc && fmt == DL_REPORT_HTML && strcmp(files[i], "-")) {
			read_plan(ctx, paths[nins - 1], &plans[i], &ins[nins]);
			if (ins[nins].path) {
				paths[nins] = (char *)ins[nins].path;
				nins++;
			}
			nruns += plans[i].nrows;
		}
	}
	struct dl_report_run *runs = xcalloc(nruns + 1, sizeof(*runs));
	nruns = 0;
	for (size_t i = 0; i < nfiles; i++)
		for (size_t k = 0; k < plans[i].nrows; k++) {
			runs[nruns].id = plans[i].rows[k].id;
			runs[nruns++].command = plans[i].rows[k].command;
		}
	page->inputs = ins;
	page->ninputs = nins;
	page->runs = runs;
	page->nruns = nruns;
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
	for (size_t i = 0; i < nfiles; i++)
		dl_sweep_plan_release(&plans[i]);
	for (size_t i = 0; i < nins; i++)
		free(paths[i]);
	free(plans);
	free(paths);
	free(runs);
	free(ins);
	free(by);
	free(list);
	return rc;
}

/* --index DIR: the index page (to -o, which is left out of the pages when in DIR) */
static int report_index(struct dl_ctx *ctx, const char *dir, const char *output,
			struct dl_report_page *page)
{
	const char *base = output ? strrchr(output, '/') : NULL;
	base = base ? base + 1 : output;
	struct dl_output *out = dl_out_open(ctx, output);
	if (!out)
		return DL_EXIT_DATA;
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	if (dl_report_write_index(dl_output_fp(out), dir, base, page, &err))
		rc = dl_fail(ctx, &err);
	return dl_out_close(ctx, out, rc);
}

static void free_args(struct report_args *a)
{
	dl_strlist_free(&a->labels);
	dl_strlist_free(&a->timelines);
	dl_strlist_free(&a->skipped);
}

DL_COMMAND(report, "summarise results: JCT percentiles, makespan, utilisation, HTML charts")
{
	struct dl_optstate st;
	struct report_args a = {0};
	int rc = 0;
	if (dl_opt_parse(&st, ctx, argc, argv, &report_spec, &a)) {
		/* --help, --list-options or a usage error: nothing is read */
		free_args(&a);
		return st.exit_code;
	}
	enum dl_report_format fmt = (enum dl_report_format)a.fmt;
	int fmt_set = dl_opt_given(&st, "format") > 0;
	const char *output = a.output;
	struct dl_report_opts ro = {0};
	struct dl_report_page page = {0};
	const char *cluster = a.cluster;
	size_t nlabels = a.labels.n;
	ro.baseline = a.baseline;
	ro.capacity = a.gpus;
	ro.window = a.window;
	ro.allow_unequal = a.allow_unequal;
	if (dl_opt_given(&st, "by"))
		ro.by = (enum dl_report_by)(DL_REPORT_BY_GPUS + a.by);
	page.title = a.title;
	page.date = a.date;
	page.tz = a.tz ? a.tz : getenv("TZ");
	if (a.tz) {
		/* the page's clock times (localtime) follow TZ, as trace import's dates do */
		struct dl_err tzerr = DL_ERR_INIT;
		if (dl_tz_check(a.tz, &tzerr)) {
			rc = dl_usage_error(ctx, "%s", tzerr.msg);
			free_args(&a);
			return rc;
		}
		setenv("TZ", a.tz, 1);
		tzset();
	}
	const char *group_by = a.group_by;

	int ninputs;
	char **files = dl_opt_inputs(&st, &ninputs);
	size_t nfiles = (size_t)ninputs;
	if ((a.as_run || a.index) && st.optind >= argc)
		nfiles = 0; /* --as-run or --index alone: no results from standard input */
	if (!rc && nlabels > nfiles)
		rc = dl_usage_error(ctx, "%zu --label options for %zu inputs", nlabels, nfiles);
	if (!rc && cluster && ro.capacity > 0)
		rc = dl_usage_error(ctx, "--cluster and --gpus both give the cluster size");
	struct dl_err err = DL_ERR_INIT;
	if (!rc && cluster && cluster_gpus(cluster, &ro.capacity, &page, &err))
		rc = dl_fail(ctx, &err);
	if (!rc && !fmt_set) {
		int f = output ? format_of_path(output) : -1;
		if (f >= 0)
			fmt = (enum dl_report_format)f;
		else
			fmt = !output && isatty(STDOUT_FILENO) ? DL_REPORT_TEXT : DL_REPORT_CSV;
	}

	char *command = dl_command_line(ctx, argc, argv); /* the footer's */
	page.version = DLSCHED_VERSION;
	page.command = command;
	if (!rc && a.index) {
		if (nfiles || nlabels || a.timelines.n || a.skipped.n || a.as_run || group_by)
			rc = dl_usage_error(ctx,
					    "--index DIR reads the pages in DIR: no other input");
		else if (fmt_set && fmt != DL_REPORT_HTML)
			rc = dl_usage_error(ctx, "--index writes HTML");
		else
			rc = report_index(ctx, a.index, output, &page);
		free(command);
		free_args(&a);
		return rc;
	}
	if (!rc && group_by) {
		if (nlabels || a.timelines.n || a.skipped.n || a.as_run || ro.window.kind ||
		    ro.baseline || ro.by || cluster || ro.capacity > 0)
			rc = dl_usage_error(
				ctx,
				"--group-by takes no --label, --timeline, --as-run, --skipped, "
				"--window, --baseline, --by, --cluster or --gpus (the runs have "
				"them)");
		else
			rc = report_grouped(ctx, files, nfiles, group_by, fmt, output, &page);
		free(command);
		free_args(&a);
		return rc;
	}

	struct dl_report *rep = dl_report_new();
	struct dl_report_input *ins =
		xcalloc(nfiles + a.timelines.n + a.skipped.n + 3, sizeof(*ins));
	size_t nins = 0;
	if (!rc)
		rc = read_inputs(ctx, rep, files, nfiles, &a, ins, &nins);
	struct stat cst;
	if (!rc && cluster && !stat(cluster, &cst) && S_ISREG(cst.st_mode))
		note_input(&ins[nins++], "cluster", cluster, -1); /* a spec, not rows */
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
			page.inputs = ins;
			page.ninputs = nins;
			dl_report_write_html(rep, fp, &page);
		} else {
			dl_report_write_table(rep, fp, fmt);
		}
		for (size_t i = 0; i < dl_report_nrows(rep); i++) {
			const struct dl_report_row *row = dl_report_row(rep, i);
			if (!strcmp(row->cls, "all") && row->jobs && !row->finished)
				dl_warn(ctx, "label '%s' has no finished jobs", row->label);
		}
		rc = dl_out_close(ctx, out, 0);
	}
	dl_report_free(rep);
	free(command);
	free(ins);
	free_args(&a);
	return rc;
}
