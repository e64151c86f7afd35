/* trace.c: import real cluster logs, generate synthetic workloads, describe traces */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/cluster.h"
#include "cmd.h"
#include "core/num.h"
#include "core/tz.h"
#include "policy/alloc_input.h"
#include "trace/gen.h"
#include "trace/import.h"

/* the options of all three subcommands (each table uses its own fields) */
struct trace_args {
	/* import */
	int from; /* dl_import_fmt_names[], then gavel-throughputs (DL_IMP_NFMT) */
	const char *tz, *since, *until;
	int keep_epoch;
	struct dl_trace_filter f;
	struct dl_import_opts io;
	/* gen */
	struct dl_gen_opts o;
	double rate, load;
	const char *cluster, *mix, *dur, *weights;
	int preset; /* dl_gen_preset_at() */
	int single_gpu;
	double network_heavy;
	const char *skipped;
	/* import and gen */
	const char *throughputs;
	int provenance;
};

/* the --from names: the importers', then the throughputs conversion */
static const char *from_at(size_t i)
{
	if (i < DL_IMP_NFMT)
		return dl_import_fmt_names[i];
	return i == DL_IMP_NFMT ? "gavel-throughputs" : NULL;
}

static const char *const philly_modes[] = {"span", "sum", NULL}; /* io.philly_sum_attempts */

#define AT(f) DL_OPT_AT(struct trace_args, f)
#define OPT_THROUGHPUTS                                                             \
	{                                                                           \
		DL_OPT_FILE, 0, "throughputs", "FILE",                              \
			"throughputs table (a throughputs stream or Gavel's JSON)", \
			AT(throughputs)                                             \
	}
#define OPT_GPU_TYPE(field)                                                                       \
	{                                                                                         \
		DL_OPT_STRING, 0, "gpu-type", "TYPE", "reference GPU type for steps <-> seconds", \
			AT(field), .def_doc = "v100"                                              \
	}
#define WHEN_EXPECT "seconds or YYYY-MM-DD[ HH:MM:SS]"
#define OPT_PROVENANCE                                                                         \
	{                                                                                      \
		DL_OPT_FLAG, 0, "provenance", NULL,                                            \
			"record this command line (and seed) in the first row: made_by, seed", \
			AT(provenance)                                                         \
	}

static const struct dl_opt import_opts[] = {
	{DL_OPT_CHOICE, 0, "from", "FMT", "input format (required)", AT(from), .value_at = from_at},
	{DL_OPT_STRING, 0, "tz", "ZONE", "time zone of dates in the input", AT(tz),
	 .def_doc = "$TZ, else local", .flags = DL_OPTF_NONEMPTY, .expect = "a time zone name"},
	{DL_OPT_FLAG, 0, "keep-epoch", NULL, "keep the input's time base (no shift to 0)",
	 AT(keep_epoch)},
	OPT_THROUGHPUTS,
	OPT_GPU_TYPE(io.ref_gpu_type),
	{DL_OPT_CHOICE, 0, "philly-duration", "MODE", "philly run time", AT(io.philly_sum_attempts),
	 .values = philly_modes, .def = "span"},
	{DL_OPT_STRING, 0, "since", "TIME", "keep jobs submitted at or after TIME", AT(since),
	 .expect = WHEN_EXPECT},
	{DL_OPT_STRING, 0, "until", "TIME", "keep jobs submitted before TIME", AT(until),
	 .expect = WHEN_EXPECT},
	{DL_OPT_INT, 0, "min-gpus", "N", "keep jobs with at least N GPUs", AT(f.min_gpus),
	 .imin = 1, .imax = INT64_MAX},
	{DL_OPT_INT, 0, "max-gpus", "N", "keep jobs with at most N GPUs", AT(f.max_gpus), .imin = 1,
	 .imax = INT64_MAX},
	{DL_OPT_STRING, 0, "vc", "LIST", "keep jobs of these VCs (comma-separated)", AT(f.vcs)},
	{DL_OPT_STRING, 0, "user", "LIST", "keep jobs of these users (comma-separated)",
	 AT(f.users)},
	{DL_OPT_STRING, 0, "state", "LIST", "keep jobs in these states (comma-separated)",
	 AT(f.states)},
	{DL_OPT_INT, 0, "limit", "N", "keep the first N jobs (by submit) after filtering",
	 AT(f.limit)},
	{DL_OPT_FLAG, 0, "keep-unfinished", NULL,
	 "sacct: keep running and pending jobs (duration: TimelimitRaw)", AT(io.keep_unfinished)},
	{DL_OPT_FILE, 0, "skipped", "FILE", "write the count of skipped rows per reason to FILE",
	 AT(skipped)},
	OPT_PROVENANCE,
	{DL_OPT_END},
};

static const struct dl_opt gen_opts[] = {
	{DL_OPT_UINT64, 0, "seed", "S", "random seed", AT(o.seed), .def = "1"},
	{DL_OPT_INT, 0, "jobs", "N", "number of jobs", AT(o.jobs), .def = "1000"},
	{DL_OPT_DOUBLE, 0, "rate", "R", "Poisson arrivals, R jobs per hour", AT(rate),
	 .flags = DL_OPTF_GT},
	{DL_OPT_DOUBLE, 0, "load", "L", "arrivals for offered load L of --cluster", AT(load),
	 .flags = DL_OPTF_GT},
	{DL_OPT_FILE, 'c', "cluster", "SPEC", "GPUs for --load: a count or a cluster SPEC",
	 AT(cluster)},
	{DL_OPT_STRING, 0, "gpus", "MIX", "GPU-count mix N:W,...", AT(mix),
	 .def_doc = "1:0.7,2:0.1,4:0.15,8:0.05",
	 .expect = "GPUS:WEIGHT,... with a positive weight"},
	{DL_OPT_STRING, 0, "duration", "DIST", "duration distribution", AT(dur), .def = "philly",
	 .expect = "philly, gavel, exp:MEAN, lognormal:MU:SIGMA or samples:FILE"},
	OPT_THROUGHPUTS,
	OPT_GPU_TYPE(o.ref_gpu_type),
	{DL_OPT_INT, 0, "users", "N", "draw users user1..userN", AT(o.users), .imin = 1,
	 .imax = INT64_MAX},
	{DL_OPT_INT, 0, "vcs", "N", "draw virtual clusters vc1..vcN", AT(o.vcs), .imin = 1,
	 .imax = INT64_MAX},
	{DL_OPT_FLAG, 0, "iid", NULL, "independent durations (default: stratified quantiles)",
	 AT(o.iid)},
	{DL_OPT_CHOICE, 0, "preset", "NAME",
	 "gavel: Gavel's continuous traces (needs --throughputs); dally: Dally's mixed workload",
	 AT(preset), .value_at = dl_gen_preset_name_at, .def = "none"},
	{DL_OPT_DOUBLE, 0, "network-heavy", "P",
	 "draw models from the network cost table, a share P of them network-heavy",
	 AT(network_heavy), .min = 0, .max = 1, .def_doc = "0.5 with --preset dally"},
	{DL_OPT_FLAG, 0, "single-gpu", NULL, "every job on 1 GPU (Gavel's continuous-single trace)",
	 AT(single_gpu)},
	{DL_OPT_STRING, 0, "weights", "MIX",
	 "priority weights W:SHARE,... (Gavel's multi-priority: 1:0.8,5:0.2)", AT(weights),
	 .expect = "WEIGHT:SHARE,... with weights in (0, 1e6] and a positive share"},
	OPT_PROVENANCE,
	{DL_OPT_END},
};
#undef AT

size_t dl_trace_gen_opt_tables(const struct dl_opt **out, size_t max)
{
	if (max < 1)
		return 0;
	out[0] = gen_opts;
	return 1;
}

static int trace_import(int argc, char **argv, struct dl_ctx *ctx);
static int trace_gen(int argc, char **argv, struct dl_ctx *ctx);
static int trace_stats(int argc, char **argv, struct dl_ctx *ctx);

static const struct dl_subcmd trace_subs[] = {
	{"import", trace_import},
	{"gen", trace_gen},
	{"stats", trace_stats},
	{NULL, NULL},
};

static const struct dl_cmd_spec trace_spec = {
	.usage = "dlsched trace import --from FMT [options] FILE...\n"
		 "dlsched trace gen [--seed S] [--jobs N] (--rate R | --load L --cluster SPEC) "
		 "[options]\n"
		 "dlsched trace stats [options] [FILE...]",
	.description = "Turn cluster logs and published traces into the jobs stream, generate\n"
		       "synthetic workloads, and describe a jobs stream. Run\n"
		       "'dlsched trace SUBCOMMAND --help' for each subcommand's options.",
	.subcommands = trace_subs,
};

static const struct dl_cmd_spec import_spec = {
	.usage = "dlsched trace import --from FMT [options] FILE...",
	.description =
		"Convert a trace or accounting log to the jobs stream (sorted by submit,\n"
		"time 0 at the first submit). Formats: tiresias, gavel, philly, pai (job and\n"
		"task tables), helios, sacct (sacct -P -X output); gavel-throughputs converts\n"
		"Gavel's throughputs JSON to the throughputs stream.",
	.opts = import_opts,
};

static const struct dl_cmd_spec gen_spec = {
	.usage = "dlsched trace gen [--seed S] [--jobs N] (--rate R | --load L --cluster SPEC) "
		 "[options]",
	.description = "Generate a synthetic jobs stream: Poisson arrivals, a GPU-count mix and\n"
		       "durations from a named distribution. --preset gavel draws Gavel's\n"
		       "continuous traces (models from --throughputs); --preset dally a\n"
		       "Helios-like gang mix with network-sensitive models (--network-heavy).",
	.opts = gen_opts,
};

static const struct dl_cmd_spec stats_spec = {
	.usage = "dlsched trace stats [options] [FILE...]",
	.description = "Describe a jobs stream: counts, span, GPU mix, duration and GPU-time\n"
		       "percentiles, arrival rate, per VC. Text unless -f csv|json is given.",
	.format_default = "text",
};

/* ---- shared helpers ---- */

/* as simulate and allocate read --throughputs: a stream or Gavel's JSON, by its shape */
static int load_tputs(const struct dl_ctx *ctx, struct dl_tputs *t, const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	if (dl_alloc_load_throughputs(path, ctx->in_format, t, &err))
		return dl_fail(ctx, &err);
	return 0;
}

/* --provenance: "dlsched trace SUB ARGS..." and its seed ("" for none), on the first row */
struct provenance {
	char *command; /* NULL when not asked */
	char seed[24];
	char origin[DL_NUM_BUF]; /* sacct: the Unix time of time 0 ("" when none) */
};

static void provenance_init(struct provenance *p, const struct dl_ctx *ctx, int argc, char **argv,
			    int asked)
{
	p->command = NULL;
	p->origin[0] = '\0';
	p->seed[0] = '\0';
	if (asked)
		p->command = dl_command_line(ctx, argc, argv); /* argv[0] is the subcommand */
}

static void provenance_stamp(const struct provenance *p, struct dl_writer *w)
{
	if (p->origin[0])
		dl_writer_stamp(w, "origin", p->origin);
	if (p->command)
		dl_stamp_provenance(w, p->command, p->seed);
}

static int write_jobs(const struct dl_ctx *ctx, const struct dl_jobset *js,
		      const struct provenance *prov)
{
	struct dl_table_out t;
	if (dl_table_out_open(ctx, ctx->output, ctx->format, &t))
		return DL_EXIT_DATA;
	provenance_stamp(prov, t.w);
	dl_jobset_write(js, t.w);
	return dl_table_out_close(ctx, &t, 1, 0);
}

static int set_tz(const struct dl_ctx *ctx, const char *tz)
{
	/* the importers read dates with mktime(), which follows TZ */
	struct dl_err err = DL_ERR_INIT;
	if (dl_tz_check(tz, &err))
		return dl_usage_error(ctx, "%s", err.msg);
	setenv("TZ", tz, 1);
	tzset();
	return 0;
}

/* ---- import ---- */

static int parse_when(const struct dl_optstate *st, const char *opt, const char *arg, double *out)
{
	/* seconds in the input's time base, or a date in --tz */
	if (!dl_parse_double(arg, out))
		return 0;
	if (!dl_parse_localtime(arg, strlen(arg), NULL, out))
		return 0;
	dl_opt_bad_value(st, opt, arg);
	return -1;
}

/* the skipped rows per reason (reason, count), for report --skipped */
static int write_skips(const struct dl_ctx *ctx, const struct dl_skips *sk, const char *path)
{
	struct dl_table_out t;
	if (dl_table_out_open(ctx, path, ctx->format, &t))
		return DL_EXIT_DATA;
	static const char *const cols[] = {"reason", "count"};
	dl_writer_set_columns(t.w, cols, 2);
	for (int r = 0; r < DL_SKIP_NREASONS; r++) {
		if (!sk->n[r])
			continue;
		dl_writer_str(t.w, 0, dl_skip_reason_name((enum dl_skip_reason)r));
		dl_writer_int(t.w, 1, sk->n[r]);
		dl_writer_end_row(t.w);
	}
	return dl_table_out_close(ctx, &t, 1, 0);
}

/*
 * The skipped rows per reason: under -v (an ordinary night skips CPU jobs and
 * jobs still pending, and cron mails whatever reaches stderr). Only job steps
 * need a person: the log was taken without sacct -X.
 */
static void report_skips(const struct dl_ctx *ctx, const struct dl_skips *sk)
{
	int64_t total = 0;
	struct strbuf sb = STRBUF_INIT;
	for (int r = 0; r < DL_SKIP_NREASONS; r++) {
		if (!sk->n[r])
			continue;
		sb_addf(&sb, "%s%lld %s", total ? ", " : "", (long long)sk->n[r],
			dl_skip_reason_name((enum dl_skip_reason)r));
		total += sk->n[r];
	}
	if (total)
		dl_info(ctx, "skipped %lld input %s that cannot run as GPU jobs: %s",
			(long long)total, total == 1 ? "row" : "rows", sb.buf);
	if (sk->n[DL_SKIP_STEP])
		dl_warn(ctx,
			"skipped %lld Slurm job step%s (JobID with '.'): take the log with "
			"sacct -X",
			(long long)sk->n[DL_SKIP_STEP], sk->n[DL_SKIP_STEP] == 1 ? "" : "s");
	sb_release(&sb);
}

static int import_throughputs(const struct dl_ctx *ctx, char **files, int nfiles)
{
	struct dl_tputs t = DL_TPUTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	for (int i = 0; i < nfiles && !rc; i++)
		if (dl_tputs_import_gavel(&t, files[i], &err))
			rc = dl_fail(ctx, &err);
	struct dl_table_out out;
	if (!rc && !(rc = dl_table_out_open(ctx, ctx->output, ctx->format, &out))) {
		dl_tputs_sort(&t);
		dl_tputs_write(&t, out.w);
		rc = dl_table_out_close(ctx, &out, 1, 0);
	}
	dl_tputs_free(&t);
	return rc;
}

static int trace_import(int argc, char **argv, struct dl_ctx *ctx)
{
	struct dl_optstate st;
	struct trace_args a = {.f = DL_TRACE_FILTER_INIT};
	int rc = 0;
	if (dl_opt_parse(&st, ctx, argc, argv, &import_spec, &a))
		return st.exit_code;
	struct dl_trace_filter f = a.f;
	struct dl_import_opts io = a.io;
	const char *tput_path = a.throughputs;
	char **files = argv + st.optind;
	int nfiles = argc - st.optind;
	if (!dl_opt_given(&st, "from")) {
		struct strbuf known = STRBUF_INIT;
		dl_opt_values(&import_opts[0], ", ", &known);
		rc = dl_usage_error(ctx, "--from FMT is required (one of %s)", known.buf);
		sb_release(&known);
		return rc;
	}
	enum dl_import_fmt fmt = (enum dl_import_fmt)a.from;
	if (nfiles < 1)
		return dl_usage_error(ctx, "no input file (use '-' for standard input)");
	if (a.tz && set_tz(ctx, a.tz))
		return DL_EXIT_USAGE;
	if (a.since && parse_when(&st, "since", a.since, &f.since))
		return DL_EXIT_USAGE;
	if (a.until && parse_when(&st, "until", a.until, &f.until))
		return DL_EXIT_USAGE;
	f.has_since = a.since != NULL;
	f.has_until = a.until != NULL;
	/* only gavel's steps need them: elsewhere they would be ignored without a word */
	if (fmt != DL_IMP_GAVEL && (tput_path || dl_opt_given(&st, "gpu-type")))
		return dl_usage_error(ctx, "--%s applies to --from gavel",
				      tput_path ? "throughputs" : "gpu-type");
	if (fmt == DL_IMP_NFMT)
		return import_throughputs(ctx, files, nfiles);
	if (io.keep_unfinished && fmt != DL_IMP_SACCT)
		return dl_usage_error(ctx, "--keep-unfinished applies to --from sacct");
	if (fmt == DL_IMP_GAVEL && !tput_path)
		return dl_usage_error(ctx, "gavel traces give steps, not seconds: --throughputs "
					   "FILE is needed");

	struct dl_tputs t = DL_TPUTS_INIT;
	struct dl_jobset js;
	struct dl_skips sk = {{0}};
	struct dl_err err = DL_ERR_INIT;
	dl_jobset_init(&js);
	if (tput_path && (rc = load_tputs(ctx, &t, tput_path)))
		goto out;
	io.tputs = tput_path ? &t : NULL;
	if (dl_import_files(&js, fmt, files, (size_t)nfiles, &io, &sk, &err)) {
		rc = dl_fail(ctx, &err);
		goto out;
	}
	report_skips(ctx, &sk);
	size_t before = js.n;
	dl_jobset_sort_submit(&js);
	size_t removed = dl_jobset_filter(&js, &f);
	if (removed)
		dl_info(ctx, "filters removed %zu of %zu jobs", removed, before);
	double origin = 0;
	if (!a.keep_epoch) {
		double delta = -dl_jobset_min_submit(&js);
		dl_jobset_shift(&js, delta);
		dl_import_shift_times(&js, delta);
		origin = -delta;
	}
	dl_info(ctx, "%zu jobs", js.n);
	struct provenance prov;
	provenance_init(&prov, ctx, argc, argv, a.provenance);
	/* Slurm's clock: report --tz draws the night's axes in the site's time */
	if (fmt == DL_IMP_SACCT && js.n && origin > 0)
		dl_fmt_double(prov.origin, origin);
	rc = write_jobs(ctx, &js, &prov);
	free(prov.command);
	if (!rc && a.skipped)
		rc = write_skips(ctx, &sk, a.skipped);
out:
	dl_jobset_free(&js);
	dl_tputs_free(&t);
	return rc;
}

/* ---- gen ---- */

/*
 * "V:W,V:W,...": values (GPU counts for --gpus, else priority weights > 0 for
 * --weights) with their shares; a bad value is reported against option name.
 */
static int parse_mix(const struct dl_optstate *st, const char *name, const char *s, double **v,
		     double **w, size_t *n)
{
	int gpus = !strcmp(name, "gpus");
	char *copy = xstrdup(s), *save = NULL;
	size_t alloc = 0;
	int rc = 0;
	*n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		long long gv = 0;
		double vv = 0, wv;
		if (!colon) {
			rc = -1;
			break;
		}
		*colon = 0;
		if (gpus ? dl_parse_int_range(tok, 1, 1000000, &gv)
			 : dl_parse_double(tok, &vv) || !(vv > 0) || vv > DL_JOB_WEIGHT_MAX) {
			rc = -1;
			break;
		}
		if (dl_parse_nonneg(colon + 1, &wv)) {
			rc = -1;
			break;
		}
		DL_GROW(*v, *n + 1, alloc);
		*w = xreallocarray(*w, alloc, sizeof(**w));
		(*v)[*n] = gpus ? (double)gv : vv;
		(*w)[*n] = wv;
		(*n)++;
	}
	double total = 0;
	for (size_t i = 0; i < *n; i++)
		total += (*w)[i];
	if (rc || !*n || !(total > 0))
		rc = dl_opt_bad_value(st, name, s);
	free(copy);
	return rc;
}

/* a GPU count, or any cluster SPEC of dlsched-cluster(1) (its total GPUs) */
static int cluster_gpus_of(const char *s, int64_t *out, struct dl_err *err)
{
	long long n;
	if (!dl_parse_int_range(s, 1, 100000000, &n)) {
		*out = n;
		return 0;
	}
	struct dl_cluster *c;
	if (dl_cluster_load(s, &c, err))
		return -1;
	*out = c->total_gpus;
	dl_cluster_free(c);
	return 0;
}

static int load_samples(const struct dl_ctx *ctx, const char *path, double **v, size_t *n)
{
	struct dl_reader *r = dl_in_open(ctx, path);
	if (!r)
		return DL_EXIT_DATA;
	struct dl_err err = DL_ERR_INIT;
	int col = dl_reader_col(r, "duration");
	if (col < 0)
		col = 0; /* a one-column file such as philly_runtime.csv ("runtime") */
	size_t alloc = 0;
	struct dl_row row;
	int got, rc = 0;
	*n = 0;
	while ((got = dl_reader_next(r, &row, &err)) > 0) {
		double d;
		if (dl_field_seconds(r, &row, col, &d, &err)) {
			got = -1;
			break;
		}
		DL_GROW(*v, *n + 1, alloc);
		(*v)[(*n)++] = d;
	}
	if (got < 0)
		rc = dl_fail(ctx, &err);
	else if (!*n)
		rc = dl_error(ctx, "%s: no duration samples", dl_reader_name(r));
	dl_reader_close(r);
	return rc;
}

static int parse_duration(const struct dl_optstate *st, const char *s, struct dl_gen_opts *o,
			  double **samples)
{
	if (!strcmp(s, "philly")) {
		o->dist = DL_DUR_PHILLY;
	} else if (!strcmp(s, "gavel")) {
		o->dist = DL_DUR_GAVEL;
	} else if (!strncmp(s, "exp:", 4)) {
		o->dist = DL_DUR_EXP;
		if (dl_parse_double(s + 4, &o->mean) || !(o->mean > 0))
			return dl_opt_bad_value(st, "duration", s);
	} else if (!strncmp(s, "lognormal:", 10)) {
		o->dist = DL_DUR_LOGNORMAL;
		char *copy = xstrdup(s + 10);
		char *colon = strchr(copy, ':');
		int bad = !colon;
		if (colon) {
			*colon = 0;
			bad = dl_parse_double(copy, &o->mu) ||
			      dl_parse_nonneg(colon + 1, &o->sigma);
		}
		free(copy);
		if (bad)
			return dl_opt_bad_value(st, "duration", s);
	} else if (!strncmp(s, "samples:", 8) && s[8]) {
		o->dist = DL_DUR_SAMPLES;
		int rc = load_samples(st->ctx, s + 8, samples, &o->nsamples);
		o->samples = *samples;
		return rc;
	} else {
		return dl_opt_bad_value(st, "duration", s);
	}
	return 0;
}

/* generate and write one job at a time: memory does not grow with --jobs */
static int write_generated(const struct dl_ctx *ctx, const struct dl_gen_opts *o,
			   const struct provenance *prov)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_gen *g = dl_gen_new(o, &err);
	if (!g)
		return dl_fail(ctx, &err);
	struct dl_table_out t;
	if (dl_table_out_open(ctx, ctx->output, ctx->format, &t)) {
		dl_gen_free(g);
		return DL_EXIT_DATA;
	}
	provenance_stamp(prov, t.w);
	struct dl_jobset cols;
	dl_jobset_init(&cols);
	dl_gen_use_columns(g, &cols);
	size_t first = dl_jobset_write_columns(&cols, t.w);
	struct dl_job j;
	int got = 0, rc = 0;
	/* a write error (a reader that went away, with SIGPIPE ignored) ends the run */
	while (!ferror(dl_output_fp(t.out)) && (got = dl_gen_next(g, &j, &err)) > 0) {
		dl_job_write_row(&cols, t.w, first, &j);
		dl_writer_end_row(t.w);
	}
	if (got < 0)
		rc = dl_fail(ctx, &err);
	dl_jobset_free(&cols);
	dl_gen_free(g);
	return dl_table_out_close(ctx, &t, 1, rc);
}

static int trace_gen(int argc, char **argv, struct dl_ctx *ctx)
{
	struct dl_optstate st;
	struct trace_args a = {0};
	int rc = 0;
	if (dl_opt_parse(&st, ctx, argc, argv, &gen_spec, &a))
		return st.exit_code;
	struct dl_gen_opts o = a.o;
	const char *mix = a.mix, *dur = a.dur, *tput_path = a.throughputs, *cluster = a.cluster;
	double rate = a.rate, load = a.load;
	int have_rate = dl_opt_given(&st, "rate") > 0, have_load = dl_opt_given(&st, "load") > 0;
	if (st.optind < argc)
		return dl_usage_error(ctx, "unexpected argument '%s'", argv[st.optind]);
	if (have_rate == have_load)
		return dl_usage_error(ctx, "give exactly one of --rate and --load");
	if (a.single_gpu && mix)
		return dl_usage_error(ctx, "give one of --single-gpu and --gpus");
	/* the preset's choices, where the options leave them open */
	const struct dl_gen_preset *pre = dl_gen_preset_at((size_t)a.preset);
	if (pre->needs_tputs && !tput_path)
		return dl_usage_error(ctx, "--preset %s needs --throughputs (its models)",
				      pre->name);
	if (dl_opt_given(&st, "gpu-type") && !tput_path)
		return dl_usage_error(ctx, "--gpu-type is the reference type of --throughputs, "
					   "which is not given");
	if (pre->duration && !dl_opt_given(&st, "duration"))
		dur = pre->duration;
	int net = pre->net_share >= 0 || dl_opt_given(&st, "network-heavy");
	if (net && tput_path)
		return dl_usage_error(ctx,
				      "models come from --throughputs or from the network "
				      "cost table (--preset dally, --network-heavy), not both");
	if (pre->gangs && a.single_gpu)
		return dl_usage_error(ctx, "--preset %s is about gangs: not with --single-gpu",
				      pre->name);
	int64_t cluster_gpus = 0;
	if (have_load && !cluster)
		return dl_usage_error(ctx, "--load needs --cluster");
	if (cluster) {
		struct dl_err cerr = DL_ERR_INIT;
		if (cluster_gpus_of(cluster, &cluster_gpus, &cerr))
			return dl_fail(ctx, &cerr);
	}

	struct dl_net_models models; /* the built-in table, for --network-heavy */
	dl_net_models_init(&models);
	int64_t *mg = NULL;
	double *mv = NULL, *mw = NULL, *wv = NULL, *ww = NULL, *samples = NULL;
	struct dl_tputs t = DL_TPUTS_INIT;
	static const int64_t one_gpu = 1;
	static const double all_of_them = 1;
	if (mix) {
		if ((rc = parse_mix(&st, "gpus", mix, &mv, &mw, &o.nmix)))
			goto out;
		mg = xcalloc(o.nmix, sizeof(*mg));
		for (size_t i = 0; i < o.nmix; i++)
			mg[i] = (int64_t)mv[i];
		o.mix_gpus = mg;
		o.mix_w = mw;
	} else if (pre->mix_gpus) {
		o.mix_gpus = pre->mix_gpus;
		o.mix_w = pre->mix_w;
		o.nmix = pre->nmix;
	} else if (a.single_gpu) {
		o.mix_gpus = &one_gpu;
		o.mix_w = &all_of_them;
		o.nmix = 1;
	} else {
		o.mix_gpus = dl_gen_default_mix_gpus;
		o.mix_w = dl_gen_default_mix_w;
		o.nmix = 4;
	}
	if (a.weights) {
		if ((rc = parse_mix(&st, "weights", a.weights, &wv, &ww, &o.nweights)))
			goto out;
		o.weight_v = wv;
		o.weight_w = ww;
	}
	if ((rc = parse_duration(&st, dur, &o, &samples)))
		goto out;
	if (net) {
		o.net = &models;
		o.net_share = dl_opt_given(&st, "network-heavy") ? a.network_heavy : pre->net_share;
	}
	if (tput_path) {
		if ((rc = load_tputs(ctx, &t, tput_path)))
			goto out;
		o.tputs = &t;
	}
	if (have_load) {
		/* offered load = rate * E[gpus] * E[duration] / cluster GPUs */
		double work = dl_gen_mean_gpus(&o) * dl_gen_mean_duration(&o);
		rate = load * (double)cluster_gpus * 3600 / work;
		dl_info(ctx, "load %g on %lld GPUs: %g jobs per hour", load,
			(long long)cluster_gpus, rate);
	}
	o.rate_per_hour = rate;
	if (ctx->dry_run)
		goto out;
	struct provenance prov;
	provenance_init(&prov, ctx, argc, argv, a.provenance);
	snprintf(prov.seed, sizeof(prov.seed), "%llu", (unsigned long long)o.seed);
	rc = write_generated(ctx, &o, &prov);
	free(prov.command);
out:
	free(mg);
	free(mv);
	free(mw);
	free(wv);
	free(ww);
	free(samples);
	dl_tputs_free(&t);
	dl_net_models_free(&models);
	return rc;
}

/* ---- stats ---- */

static int trace_stats(int argc, char **argv, struct dl_ctx *ctx)
{
	struct dl_optstate st;
	if (dl_opt_parse(&st, ctx, argc, argv, &stats_spec, NULL))
		return st.exit_code;
	int nfiles;
	char **files = dl_opt_inputs(&st, &nfiles);
	struct dl_stats_acc acc;
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	dl_stats_acc_init(&acc);
	for (int i = 0; i < nfiles && !rc; i++) {
		struct dl_reader *r = dl_in_open(ctx, files[i]);
		if (!r)
			rc = DL_EXIT_DATA;
		else if (dl_stats_acc_read(&acc, r, &err))
			rc = dl_fail(ctx, &err);
		dl_reader_close(r);
	}
	if (!rc) {
		struct dl_trace_stats s;
		dl_stats_acc_finish(&acc, &s);
		struct dl_output *out = dl_out_open(ctx, ctx->output);
		if (!out) {
			rc = DL_EXIT_DATA;
		} else {
			if (ctx->format_set) {
				struct dl_writer *w = dl_out_writer(ctx, out);
				dl_trace_stats_write(&s, w);
				dl_writer_free(w);
			} else {
				struct strbuf sb = STRBUF_INIT;
				dl_trace_stats_text(&s, &sb);
				fwrite(sb.buf, 1, sb.len, dl_output_fp(out));
				sb_release(&sb);
			}
			rc = dl_out_close(ctx, out, 0);
		}
		dl_trace_stats_free(&s);
	}
	dl_stats_acc_free(&acc);
	return rc;
}

DL_COMMAND(trace, "import cluster logs and traces, generate workloads, describe them")
{
	return dl_subcmd_run(ctx, argc, argv, &trace_spec);
}
