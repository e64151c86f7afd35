/* trace.c: import real cluster logs, generate synthetic workloads, describe traces */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/cluster.h"
#include "cmd.h"
#include "core/num.h"
#include "core/tz.h"
#include "trace/gen.h"
#include "trace/import.h"

enum {
	O_FROM = DL_OPT_FIRST_FREE,
	O_TZ,
	O_KEEP_EPOCH,
	O_THROUGHPUTS,
	O_GPU_TYPE,
	O_PHILLY_DURATION,
	O_SINCE,
	O_UNTIL,
	O_MIN_GPUS,
	O_MAX_GPUS,
	O_VC,
	O_USER,
	O_STATE,
	O_LIMIT,
	O_SEED,
	O_JOBS,
	O_RATE,
	O_LOAD,
	O_CLUSTER,
	O_GPUS,
	O_DURATION,
	O_USERS,
	O_VCS,
	O_IID,
	O_KEEP_UNFINISHED,
	O_SKIPPED,
	O_PROVENANCE,
	O_PRESET,
	O_SINGLE_GPU,
	O_WEIGHTS,
};

#define OPT_FROM                                                                                        \
	{                                                                                               \
		O_FROM, "from", "FMT",                                                                  \
			"input format, one of tiresias|gavel|philly|pai|helios|sacct|gavel-throughputs" \
	}
#define OPT_THROUGHPUTS                                                                     \
	{                                                                                   \
		O_THROUGHPUTS, "throughputs", "FILE",                                       \
			"throughputs table (stream, or Gavel's JSON if FILE ends in .json)" \
	}
#define OPT_PROVENANCE                                                                        \
	{                                                                                     \
		O_PROVENANCE, "provenance", NULL,                                             \
			"record this command line (and seed) in the first row: made_by, seed" \
	}
#define OPT_GPU_TYPE                                                                              \
	{                                                                                         \
		O_GPU_TYPE, "gpu-type", "TYPE", "reference GPU type for steps <-> seconds (v100)" \
	}

static const struct dl_opt import_opts[] = {
	OPT_FROM,
	{O_TZ, "tz", "ZONE", "time zone of dates in the input (default: $TZ, else local)"},
	{O_KEEP_EPOCH, "keep-epoch", NULL, "keep the input's time base (no shift to 0)"},
	OPT_THROUGHPUTS,
	OPT_GPU_TYPE,
	{O_PHILLY_DURATION, "philly-duration", "MODE",
	 "philly run time, one of span|sum (default span)"},
	{O_SINCE, "since", "TIME", "keep jobs submitted at or after TIME"},
	{O_UNTIL, "until", "TIME", "keep jobs submitted before TIME"},
	{O_MIN_GPUS, "min-gpus", "N", "keep jobs with at least N GPUs"},
	{O_MAX_GPUS, "max-gpus", "N", "keep jobs with at most N GPUs"},
	{O_VC, "vc", "LIST", "keep jobs of these VCs (comma-separated)"},
	{O_USER, "user", "LIST", "keep jobs of these users (comma-separated)"},
	{O_STATE, "state", "LIST", "keep jobs in these states (comma-separated)"},
	{O_LIMIT, "limit", "N", "keep the first N jobs (by submit) after filtering"},
	{O_KEEP_UNFINISHED, "keep-unfinished", NULL,
	 "sacct: keep running and pending jobs (duration: TimelimitRaw)"},
	{O_SKIPPED, "skipped", "FILE", "write the count of skipped rows per reason to FILE"},
	OPT_PROVENANCE,
	{0, NULL, NULL, NULL},
};

static const struct dl_opt gen_opts[] = {
	{O_SEED, "seed", "S", "random seed (default 1)"},
	{O_JOBS, "jobs", "N", "number of jobs (default 1000)"},
	{O_RATE, "rate", "R", "Poisson arrivals, R jobs per hour"},
	{O_LOAD, "load", "L", "arrivals for offered load L (0..) of --cluster"},
	{O_CLUSTER, "cluster", "SPEC", "GPUs for --load: a count or a cluster SPEC"},
	{O_GPUS, "gpus", "MIX", "GPU-count mix N:W,... (default 1:0.7,2:0.1,4:0.15,8:0.05)"},
	{O_DURATION, "duration", "DIST",
	 "philly, gavel, exp:MEAN, lognormal:MU:SIGMA or samples:FILE (default philly)"},
	OPT_THROUGHPUTS,
	OPT_GPU_TYPE,
	{O_USERS, "users", "N", "draw users user1..userN"},
	{O_VCS, "vcs", "N", "draw virtual clusters vc1..vcN"},
	{O_IID, "iid", NULL, "independent durations (default: stratified quantiles)"},
	{O_PRESET, "preset", "NAME",
	 "gavel: Gavel's continuous-trace generator (needs --throughputs)"},
	{O_SINGLE_GPU, "single-gpu", NULL, "every job on 1 GPU (Gavel's continuous-single trace)"},
	{O_WEIGHTS, "weights", "MIX",
	 "priority weights W:SHARE,... (Gavel's multi-priority: 1:0.8,5:0.2)"},
	OPT_PROVENANCE,
	{0, NULL, NULL, NULL},
};

static const struct dl_opt stats_opts[] = {
	{0, NULL, NULL, NULL},
};

/* union of all, for `dlsched trace --help` and the completions */
static const struct dl_opt all_opts[] = {
	OPT_FROM,
	{O_TZ, "tz", "ZONE", "import: time zone of dates in the input"},
	{O_KEEP_EPOCH, "keep-epoch", NULL, "import: keep the input's time base"},
	OPT_THROUGHPUTS,
	OPT_GPU_TYPE,
	{O_PHILLY_DURATION, "philly-duration", "MODE", "import: one of span|sum"},
	{O_SINCE, "since", "TIME", "import: keep jobs submitted at or after TIME"},
	{O_UNTIL, "until", "TIME", "import: keep jobs submitted before TIME"},
	{O_MIN_GPUS, "min-gpus", "N", "import: keep jobs with at least N GPUs"},
	{O_MAX_GPUS, "max-gpus", "N", "import: keep jobs with at most N GPUs"},
	{O_VC, "vc", "LIST", "import: keep jobs of these VCs"},
	{O_USER, "user", "LIST", "import: keep jobs of these users"},
	{O_STATE, "state", "LIST", "import: keep jobs in these states"},
	{O_LIMIT, "limit", "N", "import: keep the first N jobs"},
	{O_KEEP_UNFINISHED, "keep-unfinished", NULL, "import: keep running and pending sacct jobs"},
	{O_SKIPPED, "skipped", "FILE", "import: skipped rows per reason to FILE"},
	{O_SEED, "seed", "S", "gen: random seed"},
	{O_JOBS, "jobs", "N", "gen: number of jobs"},
	{O_RATE, "rate", "R", "gen: jobs per hour"},
	{O_LOAD, "load", "L", "gen: offered load of --cluster"},
	{O_CLUSTER, "cluster", "SPEC", "gen: GPUs for --load"},
	{O_GPUS, "gpus", "MIX", "gen: GPU-count mix N:W,..."},
	{O_DURATION, "duration", "DIST", "gen: duration distribution"},
	{O_USERS, "users", "N", "gen: number of users"},
	{O_VCS, "vcs", "N", "gen: number of VCs"},
	{O_IID, "iid", NULL, "gen: independent durations"},
	{O_PRESET, "preset", "NAME", "gen: gavel (Gavel's continuous trace)"},
	{O_SINGLE_GPU, "single-gpu", NULL, "gen: every job on 1 GPU"},
	{O_WEIGHTS, "weights", "MIX", "gen: priority-weight mix W:SHARE,..."},
	OPT_PROVENANCE,
	{0, NULL, NULL, NULL},
};

static const struct dl_cmd_spec trace_spec = {
	.usage = "dlsched trace import --from FMT [options] FILE...\n"
		 "dlsched trace gen [--seed S] [--jobs N] (--rate R | --load L --cluster SPEC) "
		 "[options]\n"
		 "dlsched trace stats [options] [FILE...]",
	.description = "Turn cluster logs and published traces into the jobs stream, generate\n"
		       "synthetic workloads, and describe a jobs stream. Run\n"
		       "'dlsched trace SUBCOMMAND --help' for each subcommand's options.",
	.opts = all_opts,
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
		       "continuous traces (models from --throughputs).",
	.opts = gen_opts,
};

static const struct dl_cmd_spec stats_spec = {
	.usage = "dlsched trace stats [options] [FILE...]",
	.description = "Describe a jobs stream: counts, span, GPU mix, duration and GPU-time\n"
		       "percentiles, arrival rate, per VC. Text unless -f csv|json is given.",
	.opts = stats_opts,
};

/* ---- shared helpers ---- */

static int load_tputs(const struct dl_ctx *ctx, struct dl_tputs *t, const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	size_t len = strlen(path);
	int rc = len > 5 && !strcmp(path + len - 5, ".json")
			 ? dl_tputs_import_gavel(t, path, &err)
			 : dl_tputs_load(t, path, ctx->in_format, &err);
	if (rc)
		return dl_fail(ctx, &err);
	return 0;
}

/* --provenance: "dlsched trace SUB ARGS..." and its seed ("" for none), on the first row */
struct provenance {
	char *command; /* NULL when not asked */
	char seed[24];
};

static void provenance_init(struct provenance *p, const struct dl_ctx *ctx, int argc, char **argv,
			    int asked)
{
	p->command = NULL;
	p->seed[0] = '\0';
	if (!asked)
		return;
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "dlsched %s", ctx->cmdname);
	sb_add_command(&sb, "", argc, argv); /* argv[0] is the subcommand */
	p->command = sb_detach(&sb);
}

static void provenance_stamp(const struct provenance *p, struct dl_writer *w)
{
	if (!p->command)
		return;
	dl_writer_stamp(w, DL_COL_MADE_BY, p->command);
	dl_writer_stamp(w, DL_COL_SEED, p->seed);
}

static int write_jobs(const struct dl_ctx *ctx, const struct dl_jobset *js,
		      const struct provenance *prov)
{
	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out)
		return DL_EXIT_DATA;
	struct dl_writer *w = dl_out_writer(ctx, out);
	provenance_stamp(prov, w);
	dl_jobset_write(js, w);
	dl_writer_free(w);
	return dl_out_close(ctx, out, 0);
}

static int set_tz(const struct dl_ctx *ctx, const char *tz)
{
	/* the importers read dates with mktime(), which follows TZ */
	struct dl_err err = DL_ERR_INIT;
	if (!*tz)
		return dl_usage_error(ctx, "empty --tz value");
	if (dl_tz_check(tz, &err))
		return dl_usage_error(ctx, "%s", err.msg);
	setenv("TZ", tz, 1);
	tzset();
	return 0;
}

static int opt_i64(const struct dl_ctx *ctx, const char *name, const char *arg, long long min,
		   int64_t *out)
{
	long long v;
	if (dl_opt_int(ctx, name, arg, min, INT64_MAX, &v))
		return -1;
	*out = v;
	return 0;
}

/* ---- import ---- */

static int parse_when(const struct dl_ctx *ctx, const char *opt, const char *arg, double *out)
{
	/* seconds in the input's time base, or a date in --tz */
	if (!dl_parse_double(arg, out))
		return 0;
	if (!dl_parse_localtime(arg, strlen(arg), NULL, out))
		return 0;
	dl_usage_error(ctx, "bad --%s value '%s' (expected seconds or YYYY-MM-DD[ HH:MM:SS])", opt,
		       arg);
	return -1;
}

/* the skipped rows per reason (reason, count), for report --skipped */
static int write_skips(const struct dl_ctx *ctx, const struct dl_skips *sk, const char *path)
{
	struct dl_output *out = dl_out_open(ctx, path);
	if (!out)
		return DL_EXIT_DATA;
	struct dl_writer *w = dl_writer_new(dl_output_fp(out), ctx->format);
	static const char *const cols[] = {"reason", "count"};
	dl_writer_set_columns(w, cols, 2);
	for (int r = 0; r < DL_SKIP_NREASONS; r++) {
		if (!sk->n[r])
			continue;
		dl_writer_str(w, 0, dl_skip_reason_name((enum dl_skip_reason)r));
		dl_writer_int(w, 1, sk->n[r]);
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	return dl_out_close(ctx, out, 0);
}

static int report_skips(const struct dl_ctx *ctx, const struct dl_skips *sk)
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
		dl_warn(ctx, "skipped %lld input %s that cannot run as GPU jobs: %s",
			(long long)total, total == 1 ? "row" : "rows", sb.buf);
	sb_release(&sb);
	return 0;
}

static int import_throughputs(const struct dl_ctx *ctx, char **files, int nfiles)
{
	struct dl_tputs t = DL_TPUTS_INIT;
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	for (int i = 0; i < nfiles && !rc; i++)
		if (dl_tputs_import_gavel(&t, files[i], &err))
			rc = dl_fail(ctx, &err);
	if (!rc) {
		dl_tputs_sort(&t);
		struct dl_output *out = dl_out_open(ctx, ctx->output);
		if (!out) {
			rc = DL_EXIT_DATA;
		} else {
			struct dl_writer *w = dl_out_writer(ctx, out);
			dl_tputs_write(&t, w);
			dl_writer_free(w);
			rc = dl_out_close(ctx, out, 0);
		}
	}
	dl_tputs_free(&t);
	return rc;
}

static int trace_import(int argc, char **argv, struct dl_ctx *ctx)
{
	struct dl_optstate st;
	const char *arg, *from = NULL, *tz = NULL, *tput_path = NULL, *since = NULL, *until = NULL;
	const char *skipped = NULL;
	struct dl_trace_filter f = DL_TRACE_FILTER_INIT;
	struct dl_import_opts io = {0};
	int keep_epoch = 0, provenance = 0, c, rc = 0;
	dl_opt_begin(&st, ctx, argc, argv, &import_spec);
	while (!rc && (c = dl_opt_next(&st, &arg)) > 0) {
		switch (c) {
		case O_FROM:
			from = arg;
			break;
		case O_TZ:
			tz = arg;
			break;
		case O_KEEP_EPOCH:
			keep_epoch = 1;
			break;
		case O_THROUGHPUTS:
			tput_path = arg;
			break;
		case O_GPU_TYPE:
			io.ref_gpu_type = arg;
			break;
		case O_PHILLY_DURATION:
			if (!strcmp(arg, "span"))
				io.philly_sum_attempts = 0;
			else if (!strcmp(arg, "sum"))
				io.philly_sum_attempts = 1;
			else
				rc = dl_usage_error(
					ctx,
					"bad --philly-duration value '%s' (expected span or sum)",
					arg);
			break;
		case O_SINCE:
			since = arg;
			break;
		case O_UNTIL:
			until = arg;
			break;
		case O_MIN_GPUS:
			rc = opt_i64(ctx, "min-gpus", arg, 1, &f.min_gpus) ? DL_EXIT_USAGE : 0;
			break;
		case O_MAX_GPUS:
			rc = opt_i64(ctx, "max-gpus", arg, 1, &f.max_gpus) ? DL_EXIT_USAGE : 0;
			break;
		case O_VC:
			f.vcs = arg;
			break;
		case O_USER:
			f.users = arg;
			break;
		case O_STATE:
			f.states = arg;
			break;
		case O_LIMIT:
			rc = opt_i64(ctx, "limit", arg, 0, &f.limit) ? DL_EXIT_USAGE : 0;
			break;
		case O_KEEP_UNFINISHED:
			io.keep_unfinished = 1;
			break;
		case O_SKIPPED:
			skipped = arg;
			break;
		case O_PROVENANCE:
			provenance = 1;
			break;
		}
	}
	dl_opt_end(&st);
	if (rc)
		return rc;
	if (c == DL_OPT_EXIT)
		return st.exit_code;
	char **files = argv + st.optind;
	int nfiles = argc - st.optind;
	struct strbuf known = STRBUF_INIT;
	for (int i = 0; i < DL_IMP_NFMT; i++)
		sb_addf(&known, "%s, ", dl_import_fmt_names[i]);
	sb_addstr(&known, "gavel-throughputs");
	enum dl_import_fmt fmt = DL_IMP_NFMT;
	if (!from)
		rc = dl_usage_error(ctx, "--from FMT is required (one of %s)", known.buf);
	else if (strcmp(from, "gavel-throughputs") && dl_import_fmt_parse(from, &fmt))
		rc = dl_usage_error(ctx, "unknown format '%s' (known: %s)", from, known.buf);
	sb_release(&known);
	if (rc)
		return rc;
	if (nfiles < 1)
		return dl_usage_error(ctx, "no input file (use '-' for standard input)");
	if (tz && set_tz(ctx, tz))
		return DL_EXIT_USAGE;
	if (since && parse_when(ctx, "since", since, &f.since))
		return DL_EXIT_USAGE;
	if (until && parse_when(ctx, "until", until, &f.until))
		return DL_EXIT_USAGE;
	f.has_since = since != NULL;
	f.has_until = until != NULL;
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
	if (!keep_epoch) {
		double delta = -dl_jobset_min_submit(&js);
		dl_jobset_shift(&js, delta);
		dl_import_shift_times(&js, delta);
	}
	dl_info(ctx, "%zu jobs", js.n);
	struct provenance prov;
	provenance_init(&prov, ctx, argc, argv, provenance);
	rc = write_jobs(ctx, &js, &prov);
	free(prov.command);
	if (!rc && skipped)
		rc = write_skips(ctx, &sk, skipped);
out:
	dl_jobset_free(&js);
	dl_tputs_free(&t);
	return rc;
}

/* ---- gen ---- */

/*
 * "V:W,V:W,...": values (GPU counts when gpus, else weights > 0) with their
 * shares; the message names the option.
 */
static int parse_mix(const struct dl_ctx *ctx, const char *s, int gpus, double **v, double **w,
		     size_t *n)
{
	char *copy = xstrdup(s), *save = NULL;
	size_t alloc = 0;
	int rc = 0;
	*n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		long long gv;
		double vv, wv;
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
		rc = gpus ? dl_usage_error(ctx,
					   "bad --gpus value '%s' (expected GPUS:WEIGHT,... with a "
					   "positive weight)",
					   s)
			  : dl_usage_error(
				    ctx,
				    "bad --weights value '%s' (expected WEIGHT:SHARE,... with "
				    "weights in (0, %g] and a positive share)",
				    s, DL_JOB_WEIGHT_MAX);
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

static int parse_duration(const struct dl_ctx *ctx, const char *s, struct dl_gen_opts *o,
			  double **samples)
{
	if (!strcmp(s, "philly")) {
		o->dist = DL_DUR_PHILLY;
	} else if (!strcmp(s, "gavel")) {
		o->dist = DL_DUR_GAVEL;
	} else if (!strncmp(s, "exp:", 4)) {
		o->dist = DL_DUR_EXP;
		if (dl_parse_double(s + 4, &o->mean) || !(o->mean > 0))
			return dl_usage_error(ctx, "bad --duration mean in '%s' (expected > 0)", s);
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
			return dl_usage_error(
				ctx, "bad --duration value '%s' (expected lognormal:MU:SIGMA)", s);
	} else if (!strncmp(s, "samples:", 8) && s[8]) {
		o->dist = DL_DUR_SAMPLES;
		int rc = load_samples(ctx, s + 8, samples, &o->nsamples);
		o->samples = *samples;
		return rc;
	} else {
		return dl_usage_error(ctx,
				      "unknown --duration '%s' (known: philly, gavel, exp:MEAN, "
				      "lognormal:MU:SIGMA, samples:FILE)",
				      s);
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
	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out) {
		dl_gen_free(g);
		return DL_EXIT_DATA;
	}
	struct dl_writer *w = dl_out_writer(ctx, out);
	provenance_stamp(prov, w);
	struct dl_jobset cols;
	dl_jobset_init(&cols);
	dl_gen_use_columns(g, &cols);
	size_t first = dl_jobset_write_columns(&cols, w);
	struct dl_job j;
	int got = 0, rc = 0;
	/* a write error (a reader that went away, with SIGPIPE ignored) ends the run */
	while (!ferror(dl_output_fp(out)) && (got = dl_gen_next(g, &j, &err)) > 0) {
		dl_job_write_row(&cols, w, first, &j);
		dl_writer_end_row(w);
	}
	if (got < 0)
		rc = dl_fail(ctx, &err);
	else
		dl_writer_finish(w);
	dl_writer_free(w);
	dl_jobset_free(&cols);
	dl_gen_free(g);
	return dl_out_close(ctx, out, rc);
}

static int trace_gen(int argc, char **argv, struct dl_ctx *ctx)
{
	struct dl_optstate st;
	const char *arg, *mix = NULL, *dur = NULL, *tput_path = NULL, *cluster = NULL;
	const char *preset = NULL, *weights = NULL;
	struct dl_gen_opts o = {0};
	double rate = 0, load = 0;
	int have_rate = 0, have_load = 0, single_gpu = 0, provenance = 0, c, rc = 0;
	o.seed = 1;
	o.jobs = 1000;
	dl_opt_begin(&st, ctx, argc, argv, &gen_spec);
	while (!rc && (c = dl_opt_next(&st, &arg)) > 0) {
		switch (c) {
		case O_SEED:
			rc = dl_opt_uint64(ctx, "seed", arg, &o.seed) ? DL_EXIT_USAGE : 0;
			break;
		case O_JOBS:
			rc = opt_i64(ctx, "jobs", arg, 0, &o.jobs) ? DL_EXIT_USAGE : 0;
			break;
		case O_RATE:
			rc = dl_opt_double(ctx, "rate", arg, &rate) ? DL_EXIT_USAGE : 0;
			if (!rc && !(rate > 0))
				rc = dl_usage_error(ctx, "--rate must be > 0");
			have_rate = 1;
			break;
		case O_LOAD:
			rc = dl_opt_double(ctx, "load", arg, &load) ? DL_EXIT_USAGE : 0;
			if (!rc && !(load > 0))
				rc = dl_usage_error(ctx, "--load must be > 0");
			have_load = 1;
			break;
		case O_CLUSTER:
			cluster = arg;
			break;
		case O_GPUS:
			mix = arg;
			break;
		case O_DURATION:
			dur = arg;
			break;
		case O_THROUGHPUTS:
			tput_path = arg;
			break;
		case O_GPU_TYPE:
			o.ref_gpu_type = arg;
			break;
		case O_USERS:
			rc = opt_i64(ctx, "users", arg, 1, &o.users) ? DL_EXIT_USAGE : 0;
			break;
		case O_VCS:
			rc = opt_i64(ctx, "vcs", arg, 1, &o.vcs) ? DL_EXIT_USAGE : 0;
			break;
		case O_IID:
			o.iid = 1;
			break;
		case O_PRESET:
			preset = arg;
			if (strcmp(arg, "gavel"))
				rc = dl_usage_error(ctx, "unknown --preset '%s' (known: gavel)",
						    arg);
			break;
		case O_SINGLE_GPU:
			single_gpu = 1;
			break;
		case O_WEIGHTS:
			weights = arg;
			break;
		case O_PROVENANCE:
			provenance = 1;
			break;
		}
	}
	dl_opt_end(&st);
	if (rc)
		return rc;
	if (c == DL_OPT_EXIT)
		return st.exit_code;
	if (st.optind < argc)
		return dl_usage_error(ctx, "unexpected argument '%s'", argv[st.optind]);
	if (have_rate == have_load)
		return dl_usage_error(ctx, "give exactly one of --rate and --load");
	if (single_gpu && mix)
		return dl_usage_error(ctx, "give one of --single-gpu and --gpus");
	/* Gavel's generator: its durations and GPU mix (the default), models from the table */
	if (preset && !tput_path)
		return dl_usage_error(ctx, "--preset gavel needs --throughputs (its models)");
	if (!dur)
		dur = preset ? "gavel" : "philly";
	int64_t cluster_gpus = 0;
	if (have_load && !cluster)
		return dl_usage_error(ctx, "--load needs --cluster");
	if (cluster) {
		struct dl_err cerr = DL_ERR_INIT;
		if (cluster_gpus_of(cluster, &cluster_gpus, &cerr))
			return dl_fail(ctx, &cerr);
	}

	int64_t *mg = NULL;
	double *mv = NULL, *mw = NULL, *wv = NULL, *ww = NULL, *samples = NULL;
	struct dl_tputs t = DL_TPUTS_INIT;
	static const int64_t one_gpu = 1;
	static const double all_of_them = 1;
	if (mix) {
		if ((rc = parse_mix(ctx, mix, 1, &mv, &mw, &o.nmix)))
			goto out;
		mg = xcalloc(o.nmix, sizeof(*mg));
		for (size_t i = 0; i < o.nmix; i++)
			mg[i] = (int64_t)mv[i];
		o.mix_gpus = mg;
		o.mix_w = mw;
	} else if (single_gpu) {
		o.mix_gpus = &one_gpu;
		o.mix_w = &all_of_them;
		o.nmix = 1;
	} else {
		o.mix_gpus = dl_gen_default_mix_gpus;
		o.mix_w = dl_gen_default_mix_w;
		o.nmix = 4;
	}
	if (weights) {
		if ((rc = parse_mix(ctx, weights, 0, &wv, &ww, &o.nweights)))
			goto out;
		o.weight_v = wv;
		o.weight_w = ww;
	}
	if ((rc = parse_duration(ctx, dur, &o, &samples)))
		goto out;
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
	provenance_init(&prov, ctx, argc, argv, provenance);
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
	return rc;
}

/* ---- stats ---- */

static int trace_stats(int argc, char **argv, struct dl_ctx *ctx)
{
	struct dl_optstate st;
	const char *arg;
	int c;
	dl_opt_begin(&st, ctx, argc, argv, &stats_spec);
	while ((c = dl_opt_next(&st, &arg)) > 0)
		;
	dl_opt_end(&st);
	if (c == DL_OPT_EXIT)
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
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return trace_import(argc - 1, argv + 1, ctx);
	if (argc >= 2 && !strcmp(argv[1], "gen"))
		return trace_gen(argc - 1, argv + 1, ctx);
	if (argc >= 2 && !strcmp(argv[1], "stats"))
		return trace_stats(argc - 1, argv + 1, ctx);
	if (argc >= 2 && argv[1][0] != '-')
		return dl_usage_error(
			ctx, "unknown subcommand '%s' (expected import, gen or stats)", argv[1]);
	/* only --help / --list-options make sense here */
	struct dl_optstate st;
	const char *arg;
	int c;
	dl_opt_begin(&st, ctx, argc, argv, &trace_spec);
	while ((c = dl_opt_next(&st, &arg)) > 0)
		;
	dl_opt_end(&st);
	if (c == DL_OPT_EXIT)
		return st.exit_code;
	return dl_usage_error(ctx, "expected a subcommand: import, gen or stats");
}
