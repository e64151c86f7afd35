/* options.c: option parsing, --help text and diagnostics shared by all commands */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "core/num.h"

static const struct dl_opt io_opts[] = {
	{'f', "format", "FMT", "output format: csv (default) or json (JSON Lines)"},
	{'o', "output", "PATH", "write to PATH atomically instead of standard output"},
	{DL_OPT_INPUT_FORMAT, "input-format", "FMT", "input format: auto (default), csv or json"},
	{0, NULL, NULL, NULL},
};

static const struct dl_opt always_opts[] = {
	{'q', "quiet", NULL, "no warnings or progress on standard error"},
	{'v', "verbose", NULL, "more detail on standard error (repeatable)"},
	{'h', "help", NULL, "show this help and exit"},
	{DL_OPT_LIST_OPTIONS, "list-options", NULL, NULL}, /* hidden: for completions */
	{0, NULL, NULL, NULL},
};

static void vmsg(const struct dl_ctx *ctx, const char *kind, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "dlsched %s: %s", ctx->cmdname, kind);
	sb_vaddf(&sb, fmt, ap);
	sb_addc(&sb, '\n');
	fputs(sb.buf, stderr);
	sb_release(&sb);
}

int dl_error(const struct dl_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(ctx, "", fmt, ap);
	va_end(ap);
	return DL_EXIT_DATA;
}

int dl_usage_error(const struct dl_ctx *ctx, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	fprintf(stderr, "dlsched %s: %s; see 'dlsched %s --help'\n", ctx->cmdname, sb.buf,
		ctx->cmdname);
	sb_release(&sb);
	return DL_EXIT_USAGE;
}

int dl_fail(const struct dl_ctx *ctx, const struct dl_err *err)
{
	fprintf(stderr, "dlsched %s: %s\n", ctx->cmdname, err->msg[0] ? err->msg : "failed");
	return err->code ? err->code : DL_EXIT_DATA;
}

void dl_warn(const struct dl_ctx *ctx, const char *fmt, ...)
{
	if (ctx->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(ctx, "warning: ", fmt, ap);
	va_end(ap);
}

void dl_info(const struct dl_ctx *ctx, const char *fmt, ...)
{
	if (!ctx->verbose || ctx->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(ctx, "", fmt, ap);
	va_end(ap);
}

int dl_opt_double(const struct dl_ctx *ctx, const char *opt, const char *arg, double *out)
{
	if (dl_parse_double(arg, out))
		return dl_usage_error(ctx, "bad --%s value '%s'", opt, arg), -1;
	return 0;
}

int dl_opt_nonneg(const struct dl_ctx *ctx, const char *opt, const char *arg, double *out)
{
	if (dl_parse_nonneg(arg, out))
		return dl_usage_error(ctx, "bad --%s value '%s' (expected a number >= 0)", opt,
				      arg),
		       -1;
	return 0;
}

int dl_opt_int(const struct dl_ctx *ctx, const char *opt, const char *arg, long long min,
	       long long max, long long *out)
{
	if (dl_parse_int_range(arg, min, max, out))
		return dl_usage_error(ctx,
				      "bad --%s value '%s' (expected an integer in %lld..%lld)",
				      opt, arg, min, max),
		       -1;
	return 0;
}

int dl_opt_uint64(const struct dl_ctx *ctx, const char *opt, const char *arg, uint64_t *out)
{
	if (dl_parse_uint64(arg, out))
		return dl_usage_error(ctx, "bad --%s value '%s' (expected an integer >= 0)", opt,
				      arg),
		       -1;
	return 0;
}

static size_t count_opts(const struct dl_opt *o)
{
	size_t n = 0;
	while (o && o[n].id)
		n++;
	return n;
}

static const struct dl_opt *opt_groups(const struct dl_cmd_spec *spec, int g)
{
	switch (g) {
	case 0:
		return spec->opts;
	case 1:
		return (spec->flags & DL_SPEC_NO_IO) ? NULL : io_opts;
	case 2:
		return always_opts;
	default:
		return NULL;
	}
}

static const struct dl_opt *find_opt(const struct dl_cmd_spec *spec, int id)
{
	for (int g = 0; g < 3; g++) {
		const struct dl_opt *o = opt_groups(spec, g);
		for (size_t i = 0; o && o[i].id; i++)
			if (o[i].id == id)
				return &o[i];
	}
	return NULL;
}

void dl_print_help(const struct dl_ctx *ctx, const struct dl_cmd_spec *spec, FILE *fp)
{
	(void)ctx;
	const char *u = spec->usage;
	int first = 1;
	while (u && *u) {
		const char *nl = strchr(u, '\n');
		size_t len = nl ? (size_t)(nl - u) : strlen(u);
		fprintf(fp, "%s %.*s\n", first ? "usage:" : "   or:", (int)len, u);
		first = 0;
		u += len + (nl ? 1 : 0);
	}
	if (spec->description)
		fprintf(fp, "\n%s\n", spec->description);
	fputs("\noptions:\n", fp);
	for (int g = 0; g < 3; g++) {
		const struct dl_opt *o = opt_groups(spec, g);
		for (size_t i = 0; o && o[i].id; i++) {
			if (!o[i].help)
				continue;
			struct strbuf sb = STRBUF_INIT;
			if (o[i].id < 128)
				sb_addf(&sb, "-%c, ", o[i].id);
			else
				sb_addstr(&sb, "    ");
			sb_addf(&sb, "--%s", o[i].name);
			if (o[i].arg)
				sb_addf(&sb, " %s", o[i].arg);
			if (sb.len < 26)
				fprintf(fp, "  %-26s %s\n", sb.buf, o[i].help);
			else
				fprintf(fp, "  %s\n  %-26s %s\n", sb.buf, "", o[i].help);
			sb_release(&sb);
		}
	}
	fprintf(fp, "\nSee dlsched-%s(1) for details.\n", ctx->cmdname);
}

void dl_opt_begin(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
		  const struct dl_cmd_spec *spec)
{
	memset(st, 0, sizeof(*st));
	st->ctx = ctx;
	st->spec = spec;
	st->argc = argc;
	st->argv = argv;
	size_t n = 0;
	for (int g = 0; g < 3; g++)
		n += count_opts(opt_groups(spec, g));
	st->longopts = xcalloc(n + 1, sizeof(*st->longopts));
	struct strbuf so = STRBUF_INIT;
	sb_addc(&so, ':'); /* report missing arguments as ':' */
	size_t k = 0;
	for (int g = 0; g < 3; g++) {
		const struct dl_opt *o = opt_groups(spec, g);
		for (size_t i = 0; o && o[i].id; i++) {
			st->longopts[k].name = o[i].name;
			st->longopts[k].has_arg = o[i].arg ? required_argument : no_argument;
			st->longopts[k].flag = NULL;
			st->longopts[k].val = o[i].id;
			k++;
			if (o[i].id < 128) {
				sb_addc(&so, o[i].id);
				if (o[i].arg)
					sb_addc(&so, ':');
			}
		}
	}
	st->shortopts = sb_detach(&so);
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
}

static int list_options(struct dl_optstate *st)
{
	for (int g = 0; g < 3; g++) {
		const struct dl_opt *o = opt_groups(st->spec, g);
		for (size_t i = 0; o && o[i].id; i++) {
			if (!o[i].help)
				continue;
			/* NAME<TAB>ARG-or-empty<TAB>help: enough for bash, zsh and fish */
			printf("--%s\t%s\t%s\n", o[i].name, o[i].arg ? o[i].arg : "", o[i].help);
		}
	}
	return 0;
}

int dl_opt_next(struct dl_optstate *st, const char **arg)
{
	struct dl_ctx *ctx = st->ctx;
	for (;;) {
		int longidx = -1;
		int c = getopt_long(st->argc, st->argv, st->shortopts, st->longopts, &longidx);
		st->optind = optind;
		*arg = optarg;
		if (c == -1)
			return DL_OPT_DONE;
		if (c == '?') {
			const char *bad = st->argv[optind - 1];
			if (optopt && optopt < 256 && optopt != '?' &&
			    !(bad && bad[0] == '-' && bad[1] == '-'))
				st->exit_code = dl_usage_error(ctx, "unknown option '-%c'", optopt);
			else
				st->exit_code = dl_usage_error(ctx, "unknown option '%s'", bad);
			return DL_OPT_EXIT;
		}
		if (c == ':') {
			const struct dl_opt *o = find_opt(st->spec, optopt);
			if (o)
				st->exit_code =
					dl_usage_error(ctx, "option '--%s' needs a value", o->name);
			else
				st->exit_code = dl_usage_error(ctx, "option '%s' needs a value",
							       st->argv[optind - 1]);
			return DL_OPT_EXIT;
		}
		switch (c) {
		case 'f':
			if (st->spec->flags & DL_SPEC_NO_IO)
				return c;
			if (dl_parse_out_format(optarg, &ctx->format)) {
				st->exit_code = dl_usage_error(
					ctx, "bad --format value '%s' (expected csv or json)",
					optarg);
				return DL_OPT_EXIT;
			}
			ctx->format_set = 1;
			continue;
		case 'o':
			if (st->spec->flags & DL_SPEC_NO_IO)
				return c;
			if (!*optarg) {
				st->exit_code = dl_usage_error(ctx, "empty --output path");
				return DL_OPT_EXIT;
			}
			ctx->output = optarg;
			continue;
		case DL_OPT_INPUT_FORMAT:
			if (dl_parse_in_format(optarg, &ctx->in_format)) {
				st->exit_code = dl_usage_error(
					ctx,
					"bad --input-format value '%s' (expected auto, csv or json)",
					optarg);
				return DL_OPT_EXIT;
			}
			continue;
		case 'q':
			ctx->quiet = 1;
			continue;
		case 'v':
			ctx->verbose++;
			continue;
		case 'h':
			dl_print_help(ctx, st->spec, stdout);
			st->exit_code = 0;
			return DL_OPT_EXIT;
		case DL_OPT_LIST_OPTIONS:
			st->exit_code = list_options(st);
			return DL_OPT_EXIT;
		default:
			return c;
		}
	}
}

char **dl_opt_inputs(const struct dl_optstate *st, int *n)
{
	static char *stdin_only[] = {"-"};
	if (st->optind < st->argc) {
		*n = st->argc - st->optind;
		return st->argv + st->optind;
	}
	*n = 1;
	return stdin_only;
}

void dl_opt_end(struct dl_optstate *st)
{
	free(st->longopts);
	free(st->shortopts);
	st->longopts = NULL;
	st->shortopts = NULL;
}

/*
 * The -o temporary files open right now (simulate writes up to three at once),
 * removed if a signal (SIGPIPE too: -o and a pipe at once) or running out of
 * memory ends the run.
 */
#define MAX_PENDING 8
static volatile sig_atomic_t pending_used[MAX_PENDING];
static char pending_path[MAX_PENDING][4096];

void dl_out_discard_pending(void)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending_used[i]) {
			unlink(pending_path[i]);
			pending_used[i] = 0;
		}
}

static void on_signal(int sig)
{
	dl_out_discard_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* catch sig unless it is ignored (nohup, trap '' PIPE): that choice stays the caller's */
static void catch_signal(int sig)
{
	struct sigaction old;
	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		signal(sig, on_signal);
}

static void pending_add(const char *tmp)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	size_t len = strlen(tmp);
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending_used[i] && len < sizeof(pending_path[i])) {
			memcpy(pending_path[i], tmp, len + 1);
			pending_used[i] = 1;
			for (size_t k = 0; k < DL_ARRAY_SIZE(sigs); k++)
				catch_signal(sigs[k]);
			return;
		}
}

static int pending_find(const char *tmp)
{
	for (int i = 0; tmp && i < MAX_PENDING; i++)
		if (pending_used[i] && !strcmp(pending_path[i], tmp))
			return i;
	return -1;
}

struct dl_output *dl_out_open(const struct dl_ctx *ctx, const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_output *out = dl_output_open(path, &err);
	if (!out) {
		dl_fail(ctx, &err);
		return NULL;
	}
	if (dl_output_tmpname(out))
		pending_add(dl_output_tmpname(out));
	return out;
}

int dl_out_close(const struct dl_ctx *ctx, struct dl_output *out, int rc)
{
	if (!out)
		return rc;
	int slot = pending_find(dl_output_tmpname(out));
	if (rc == 0) {
		struct dl_err err = DL_ERR_INIT;
		if (dl_output_commit(out, &err))
			rc = dl_fail(ctx, &err);
	} else {
		dl_output_abort(out);
	}
	if (slot >= 0) /* only now: the temporary is renamed or removed */
		pending_used[slot] = 0;
	return rc;
}

struct dl_writer *dl_out_writer(const struct dl_ctx *ctx, struct dl_output *out)
{
	return dl_writer_new(dl_output_fp(out), ctx->format);
}

struct dl_reader *dl_in_open(const struct dl_ctx *ctx, const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(path, ctx->in_format, &err);
	if (!r)
		dl_fail(ctx, &err);
	return r;
}
