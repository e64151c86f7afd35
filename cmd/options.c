/* options.c: option parsing, --help text and diagnostics shared by all commands */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "core/num.h"

/*
 * One diagnostic: "dlsched CMD: KIND MESSAGE[SUFFIX]" on stderr, or just
 * "KIND MESSAGE" as a line of ctx->diag for a command run in-process.
 */
static void emit(const struct dl_ctx *ctx, const char *kind, const char *msg, const char *suffix)
{
	if (ctx->diag) {
		sb_addf(ctx->diag, "%s%s\n", kind, msg);
		return;
	}
	fprintf(stderr, "dlsched %s: %s%s%s\n", ctx->cmdname, kind, msg, suffix);
}

static void vmsg(const struct dl_ctx *ctx, const char *kind, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	sb_vaddf(&sb, fmt, ap);
	emit(ctx, kind, sb.buf, "");
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
	struct strbuf sb = STRBUF_INIT, see = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	sb_addf(&see, "; see 'dlsched %s --help'", ctx->cmdname);
	emit(ctx, "", sb.buf, see.buf);
	sb_release(&sb);
	sb_release(&see);
	return DL_EXIT_USAGE;
}

int dl_fail(const struct dl_ctx *ctx, const struct dl_err *err)
{
	emit(ctx, "", err->msg[0] ? err->msg : "failed", "");
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

/* ---- the common options, stored in struct dl_ctx ---- */

static const char *const out_formats[] = {"csv", "json", NULL};
static const char *const in_formats[] = {"auto", "csv", "json", NULL};
static const char *const jsonl_alias[] = {"jsonl=json", NULL};

#define CTX(f) DL_OPT_AT(struct dl_ctx, f)

/* copied into st->io, where the command's -f default is set */
static const struct dl_opt out_opts[] = {
	{DL_OPT_CHOICE, 'f', "format", "FMT", "output format", CTX(format), .values = out_formats,
	 .aliases = jsonl_alias, .def = "csv"},
	{DL_OPT_FILE, 'o', "output", "PATH", "write to PATH atomically instead of standard output",
	 CTX(output), .flags = DL_OPTF_NONEMPTY, .expect = "a non-empty path"},
	{DL_OPT_END},
};

static const struct dl_opt in_opts[] = {
	{DL_OPT_CHOICE, 0, "input-format", "FMT", "input format", CTX(in_format),
	 .values = in_formats, .aliases = jsonl_alias, .def = "auto"},
	{DL_OPT_END},
};

static const struct dl_opt noise_opts[] = {
	{DL_OPT_FLAG, 'q', "quiet", NULL, "no warnings or progress on standard error", CTX(quiet)},
	{DL_OPT_COUNT, 'v', "verbose", NULL, "more detail on standard error (repeatable)",
	 CTX(verbose)},
	{DL_OPT_END},
};

/* actions: the parser acts on these at once (they store into st->scratch) */
enum { ACT_HELP, ACT_LIST_OPTIONS, ACT_MAN_OPTIONS, ACT_LIST_SUBCOMMANDS };
#define ACT DL_OPT_AT(struct dl_optstate, scratch)
static const struct dl_opt action_opts[] = {
	[ACT_HELP] = {DL_OPT_FLAG, 'h', "help", NULL, "show this help and exit", ACT},
	/* hidden helpers for the completions and the man pages, like git's --git-completion-helper
	 */
	[ACT_LIST_OPTIONS] = {DL_OPT_FLAG, 0, "list-options", NULL, NULL, ACT,
			      .flags = DL_OPTF_HIDDEN},
	[ACT_MAN_OPTIONS] = {DL_OPT_FLAG, 0, "man-options", NULL, NULL, ACT,
			     .flags = DL_OPTF_HIDDEN},
	[ACT_LIST_SUBCOMMANDS] = {DL_OPT_FLAG, 0, "list-subcommands", NULL, NULL, ACT,
				  .flags = DL_OPTF_HIDDEN},
	{DL_OPT_END},
};

static int hidden(const struct dl_opt *o)
{
	return !o->help || (o->flags & DL_OPTF_HIDDEN);
}

static size_t table_len(const struct dl_opt *o)
{
	size_t n = 0;
	while (o && o[n].type != DL_OPT_END)
		n++;
	return n;
}

static int is_common(const struct dl_optstate *st, size_t g)
{
	const struct dl_opt *o = st->groups[g].opts;
	return o == st->io || o == in_opts || o == noise_opts || o == action_opts;
}

/* the k-th option over all groups, and its group */
static const struct dl_opt *entry_at(const struct dl_optstate *st, size_t k, size_t *group)
{
	for (size_t g = 0; g < st->ngroups; g++) {
		size_t n = table_len(st->groups[g].opts);
		if (k < n) {
			*group = g;
			return &st->groups[g].opts[k];
		}
		k -= n;
	}
	return NULL;
}

static void bug(const struct dl_optstate *st, const char *what, const char *name)
{
	fprintf(stderr, "dlsched %s: BUG: option table: %s '%s'\n", st->ctx->cmdname, what, name);
	abort();
}

static void add_group(struct dl_optstate *st, const struct dl_opt *opts, void *base,
		      const char *title, unsigned flags, const char *const *doc_defaults)
{
	if (!opts)
		return;
	if (st->ngroups == DL_OPT_MAX_GROUPS)
		bug(st, "too many groups at", opts->name);
	if (doc_defaults) { /* this user's documented defaults, in a copy of the table */
		size_t n = table_len(opts);
		if (st->ndocs + n + 1 > DL_ARRAY_SIZE(st->docs))
			bug(st, "too many documented defaults at", opts->name);
		struct dl_opt *copy = st->docs + st->ndocs;
		memcpy(copy, opts, (n + 1) * sizeof(*copy));
		st->ndocs += n + 1;
		for (const char *const *d = doc_defaults; *d; d++) {
			size_t len = strcspn(*d, "=");
			struct dl_opt *o = copy;
			while (o->type != DL_OPT_END &&
			       (strncmp(o->name, *d, len) || o->name[len] || o->def))
				o++;
			if (o->type == DL_OPT_END || !(*d)[len])
				bug(st, "documented default of no option (or one with a default)",
				    *d);
			o->def_doc = *d + len + 1;
		}
		st->orig[st->ngroups] = opts;
		opts = copy;
	}
	st->groups[st->ngroups++] = (struct dl_opt_group){opts, base, title, flags, NULL};
}

static int deferred(const struct dl_optstate *st, size_t g)
{
	return (st->groups[g].flags & DL_GROUP_DEFER) != 0;
}

/* ---- messages ---- */

static void bad_value(const struct dl_ctx *ctx, const struct dl_opt *o, const char *arg)
{
	struct strbuf msg = STRBUF_INIT;
	dl_opt_bad_value_text(o, arg, &msg);
	emit(ctx, "", msg.buf, "");
	sb_release(&msg);
}

static const struct dl_opt *find_long(const struct dl_optstate *st, const char *name, size_t *k_out)
{
	size_t k = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++, k++)
			if (!strcmp(o->name, name)) {
				if (k_out)
					*k_out = k;
				return o;
			}
	return NULL;
}

static const struct dl_opt *find_short(const struct dl_optstate *st, int c, size_t *k_out)
{
	size_t k = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++, k++)
			if (o->short_name == c) {
				*k_out = k;
				return o;
			}
	return NULL;
}

static int unknown_long(const struct dl_optstate *st, const char *bad)
{
	const struct dl_ctx *ctx = st->ctx;
	const char *eq = strchr(bad, '=');
	size_t len = eq ? (size_t)(eq - bad) - 2 : strlen(bad) - 2;
	char *name = xstrndup(bad + 2, len);
	const struct dl_opt *o = find_long(st, name, NULL);
	int rc;
	if (o && eq && !dl_opt_takes_value(o)) {
		rc = dl_usage_error(ctx, "option '--%s' takes no value", o->name);
		free(name);
		return rc;
	}
	/* an abbreviation of several options (getopt accepts a unique one) */
	struct strbuf matches = STRBUF_INIT;
	size_t nmatch = 0;
	struct dl_suggest sug;
	dl_suggest_init(&sug, name);
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *p = st->groups[g].opts; p->type != DL_OPT_END; p++) {
			if (hidden(p) || find_long(st, p->name, NULL) != p)
				continue;
			if (len && !strncmp(p->name, name, len)) {
				sb_addf(&matches, "%s--%s", nmatch++ ? ", " : "", p->name);
			}
			dl_suggest_add(&sug, p->name);
		}
	if (nmatch > 1)
		rc = dl_usage_error(ctx, "option '--%s' is ambiguous (%s)", name, matches.buf);
	else if (sug.best)
		rc = dl_usage_error(ctx, "unknown option '%s' (did you mean --%s?)", bad, sug.best);
	else
		rc = dl_usage_error(ctx, "unknown option '%s'", bad);
	sb_release(&matches);
	free(name);
	return rc;
}

int dl_opt_bad_value(const struct dl_optstate *st, const char *name, const char *arg)
{
	const struct dl_opt *o = find_long(st, name, NULL);
	if (!o)
		bug(st, "no option", name);
	bad_value(st->ctx, o, arg);
	return DL_EXIT_USAGE;
}

int dl_opt_given(const struct dl_optstate *st, const char *name)
{
	size_t k;
	if (!find_long(st, name, &k))
		bug(st, "no option", name);
	return st->given[k];
}

/* the group of table opts (as given to the parser) */
static size_t group_with(const struct dl_optstate *st, const struct dl_opt *opts)
{
	for (size_t g = 0; g < st->ngroups; g++)
		if (st->groups[g].opts == opts || st->orig[g] == opts)
			return g;
	bug(st, "no group of table", opts->name);
	return 0;
}

/* index of the first option of group g */
static size_t group_start(const struct dl_optstate *st, size_t g)
{
	size_t k = 0;
	for (size_t i = 0; i < g; i++)
		k += table_len(st->groups[i].opts);
	return k;
}

/* how often the option of group g at k was given (alternatives share a count) */
static int given_at(const struct dl_optstate *st, size_t g, const struct dl_opt *o)
{
	size_t k = group_start(st, g) + (size_t)(o - st->groups[g].opts);
	if (deferred(st, g))
		find_long(st, o->name, &k);
	return st->given[k];
}

const struct dl_opt *dl_opt_group_given(const struct dl_optstate *st, const struct dl_opt *opts)
{
	size_t g = group_with(st, opts);
	for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++)
		if (given_at(st, g, o))
			return o;
	return NULL;
}

void dl_opt_choose(struct dl_optstate *st, const struct dl_opt *opts, void *base)
{
	size_t g = group_with(st, opts);
	if (!deferred(st, g))
		bug(st, "choosing a group that is not deferred at", opts->name);
	st->groups[g].base = base;
}

/*
 * "--quantum applies to --policy las or gandiva": every user named in the
 * titles ("a, b") of the groups owning name; a title that is an option
 * itself ("--compat tiresias") is named as it is.
 */
static int not_chosen(const struct dl_optstate *st, const char *name, const char *selector)
{
	const char *users[DL_OPT_MAX_GROUPS * 4];
	size_t len[DL_OPT_MAX_GROUPS * 4], n = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++) {
			const char *t = st->groups[g].title;
			if (strcmp(o->name, name) || !t)
				continue;
			while (*t && n < DL_ARRAY_SIZE(users)) {
				len[n] = strcspn(t, ",");
				users[n++] = t;
				t += len[n - 1];
				t += strspn(t, ", ");
			}
		}
	struct strbuf sb = STRBUF_INIT;
	int named = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addstr(&sb, i + 1 == n ? " or " : ", ");
		if (users[i][0] != '-' && !named++)
			sb_addf(&sb, "%s ", selector);
		sb_add(&sb, users[i], len[i]);
	}
	int rc = dl_usage_error(st->ctx, "--%s applies to %s", name, sb.buf);
	sb_release(&sb);
	return rc;
}

int dl_opt_apply(struct dl_optstate *st, const char *selector)
{
	for (size_t g = 0; g < st->ngroups; g++) {
		if (!deferred(st, g) || !st->groups[g].base)
			continue;
		const struct dl_opt *bad;
		if (dl_opt_set_defaults(st->groups[g].opts, st->groups[g].base, &bad))
			bug(st, "bad default of", bad->name);
	}
	size_t k = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++, k++) {
			if (!deferred(st, g) || !st->given[k])
				continue; /* (alternatives count at their first spelling) */
			const char *arg = st->deferred[k] ? st->deferred[k] : "";
			int owned = 0;
			for (size_t h = 0; h < st->ngroups; h++) {
				if (!deferred(st, h) || !st->groups[h].base)
					continue;
				for (const struct dl_opt *p = st->groups[h].opts;
				     p->type != DL_OPT_END; p++) {
					if (strcmp(p->name, o->name))
						continue;
					owned = 1;
					if (dl_opt_store(p, st->groups[h].base, arg)) {
						bad_value(st->ctx, p, arg);
						return DL_EXIT_USAGE;
					}
				}
			}
			if (!owned)
				return not_chosen(st, o->name, selector);
		}
	return 0;
}

/* ---- --help ---- */

/* the help line with the values and the default the table gives */
static void help_text(const struct dl_opt *o, struct strbuf *sb)
{
	sb_addstr(sb, o->help);
	const char *def = dl_opt_default(o);
	int choice = o->type == DL_OPT_CHOICE && dl_opt_value(o, 0);
	if (!choice && !def)
		return;
	sb_addstr(sb, " (");
	if (choice) {
		sb_addstr(sb, "one of ");
		dl_opt_values(o, ", ", sb);
	}
	if (def)
		sb_addf(sb, "%sdefault %s", choice ? "; " : "", def);
	sb_addc(sb, ')');
}

#define HELP_COL   29
#define HELP_WIDTH 80

/* "  LEFT   text..." with text wrapped at HELP_WIDTH under column HELP_COL */
static void print_wrapped(FILE *fp, const char *left, const char *text)
{
	int col = fprintf(fp, "  %s", left);
	if (col > HELP_COL - 2) { /* at least two spaces between option and text */
		fputc('\n', fp);
		col = 0;
	}
	fprintf(fp, "%*s", HELP_COL - col, "");
	col = HELP_COL;
	const char *p = text;
	int first = 1;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (!first && col + 1 + (int)w > HELP_WIDTH) {
			fprintf(fp, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (!first) {
			fputc(' ', fp);
			col++;
		}
		fwrite(p, 1, w, fp);
		col += (int)w;
		p += w;
		first = 0;
	}
	fputc('\n', fp);
}

static void option_left(const struct dl_opt *o, struct strbuf *sb)
{
	if (o->short_name)
		sb_addf(sb, "-%c, ", o->short_name);
	else
		sb_addstr(sb, "    ");
	sb_addf(sb, "--%s", o->name);
	if (dl_opt_takes_value(o))
		sb_addf(sb, " %s", o->arg ? o->arg : "VALUE");
}

/*
 * Group g continues the previous group's heading: both titled alike (a
 * policy's own options and a group only it shares, such as dally's timers).
 */
static int same_heading(const struct dl_optstate *st, size_t g)
{
	const char *t = st->groups[g].title, *p = g ? st->groups[g - 1].title : NULL;
	return t && p && !strcmp(t, p);
}

static void print_help(const struct dl_optstate *st, FILE *fp)
{
	const struct dl_cmd_spec *spec = st->spec;
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
	for (size_t g = 0; g < st->ngroups; g++) {
		if (g == 0 || (st->groups[g].title && !same_heading(st, g)))
			fprintf(fp, "\n%s%s:\n", st->groups[g].title ? st->groups[g].title : "",
				st->groups[g].title ? " options" : "options");
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++) {
			if (hidden(o))
				continue;
			struct strbuf left = STRBUF_INIT, text = STRBUF_INIT;
			option_left(o, &left);
			help_text(o, &text);
			print_wrapped(fp, left.buf, text.buf);
			sb_release(&left);
			sb_release(&text);
		}
	}
	fprintf(fp, "\nSee dlsched-%s(1) for details.\n", st->ctx->cmdname);
}

/* ---- --list-options: one line per option for the completions and the tests ---- */

static void list_options(const struct dl_optstate *st, FILE *fp)
{
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++) {
			if (hidden(o))
				continue;
			/* --NAME ARG HELP -S TYPE DEFAULT VALUES (space-separated) GROUP,
			 * tab-separated
			 */
			struct strbuf v = STRBUF_INIT;
			if (o->type == DL_OPT_CHOICE)
				dl_opt_values(o, " ", &v);
			const char *def = dl_opt_default(o);
			fprintf(fp, "--%s\t%s\t%s\t", o->name,
				dl_opt_takes_value(o) ? (o->arg ? o->arg : "VALUE") : "", o->help);
			if (o->short_name)
				fprintf(fp, "-%c", o->short_name);
			/* the group's heading last: alternatives may share a name */
			fprintf(fp, "\t%s\t%s\t%s\t%s\n", dl_opt_type_name(o->type), def ? def : "",
				v.buf, st->groups[g].title ? st->groups[g].title : "");
			sb_release(&v);
		}
}

/* ---- --man-options: scdoc entries, spliced into man/dlsched-CMD.1.scd ---- */

static void man_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '*' || *s == '_' || *s == '\\')
			sb_addc(sb, '\\');
		sb_addc(sb, *s);
	}
}

/* "the timer unit" -> "The timer unit." */
static void man_sentence(struct strbuf *sb, const char *s)
{
	size_t start = sb->len;
	man_escape(sb, s);
	if (sb->len > start && sb->buf[start] >= 'a' && sb->buf[start] <= 'z')
		sb->buf[start] = (char)(sb->buf[start] - 'a' + 'A');
	if (sb->len > start && sb->buf[sb->len - 1] != '.')
		sb_addc(sb, '.');
}

static void man_entry(const struct dl_opt *o, FILE *fp)
{
	struct strbuf sb = STRBUF_INIT;
	/* *-c, --cluster* _SPEC_ */
	sb_addc(&sb, '*');
	if (o->short_name)
		sb_addf(&sb, "-%c, ", o->short_name);
	sb_addf(&sb, "--%s*", o->name);
	if (dl_opt_takes_value(o)) {
		sb_addstr(&sb, " _");
		man_escape(&sb, o->arg ? o->arg : "VALUE");
		sb_addc(&sb, '_');
	}
	/* the help line, which the page's own "@--NAME" prose replaces */
	sb_addf(&sb, "\n@--%s\t", o->name);
	man_sentence(&sb, o->help);
	struct strbuf expect = STRBUF_INIT;
	if (o->type != DL_OPT_STRING && o->type != DL_OPT_FILE && o->type != DL_OPT_STRINGS &&
	    o->type != DL_OPT_FILES && o->type != DL_OPT_CALLBACK)
		dl_opt_expect(o, &expect);
	const char *def = dl_opt_default(o);
	if (expect.len || def) {
		sb_addc(&sb, '\n');
		sb_addc(&sb, '\t');
		if (expect.len)
			man_sentence(&sb, expect.buf);
		if (def) {
			sb_addstr(&sb, expect.len ? " Default: " : "Default: ");
			man_escape(&sb, def);
			sb_addc(&sb, '.');
		}
	}
	fprintf(fp, "%s\n\n", sb.buf);
	sb_release(&expect);
	sb_release(&sb);
}

static void man_options(const struct dl_optstate *st, FILE *fp)
{
	for (size_t g = 0; g < st->ngroups; g++) {
		/* "@group" lines tell man/splice.sh which part is which */
		if (is_common(st, g))
			fprintf(fp, "@group common\n");
		else if (!same_heading(st, g))
			fprintf(fp, "@group own%s%s\n", st->groups[g].title ? " " : "",
				st->groups[g].title ? st->groups[g].title : "");
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++)
			if (!hidden(o))
				man_entry(o, fp);
	}
}

/* ---- parsing ---- */

static void setup(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
		  const struct dl_cmd_spec *spec, void *args, const struct dl_opt_group *more,
		  size_t nmore)
{
	memset(st, 0, sizeof(*st));
	st->ctx = ctx;
	st->spec = spec;
	st->argc = argc;
	st->argv = argv;
	add_group(st, spec ? spec->opts : NULL, args, NULL, 0, NULL);
	/* groups without a heading (shared tables) continue the command's list */
	for (size_t i = 0; i < nmore; i++)
		if (!more[i].title)
			add_group(st, more[i].opts, more[i].base, NULL, more[i].flags,
				  more[i].doc_defaults);
	if (!spec || !(spec->flags & DL_SPEC_NO_IO)) {
		memcpy(st->io, out_opts, sizeof(out_opts));
		if (spec && spec->format_default) {
			st->io[0].def = NULL;
			st->io[0].def_doc = spec->format_default;
		}
		add_group(st, st->io, ctx, NULL, 0, NULL);
	}
	if (!spec || !(spec->flags & DL_SPEC_NO_INPUT))
		add_group(st, in_opts, ctx, NULL, 0, NULL);
	add_group(st, noise_opts, ctx, NULL, 0, NULL);
	add_group(st, action_opts, st, NULL, 0, NULL);
	/* the groups with a heading last, so that the untitled ones are one list */
	for (size_t i = 0; i < nmore; i++)
		if (more[i].title)
			add_group(st, more[i].opts, more[i].base, more[i].title, more[i].flags,
				  more[i].doc_defaults);
}

/* does o take arg (stored into scratch, not into its struct) */
static int takes(const struct dl_opt *o, const char *arg)
{
	union {
		char c[64];
		double d;
		int64_t i;
		void *p;
	} tmp;
	struct dl_opt one = *o;
	if (o->type == DL_OPT_STRINGS || o->type == DL_OPT_FILES || o->type == DL_OPT_CALLBACK ||
	    o->size > sizeof(tmp))
		return 1; /* (these allocate or have side effects) */
	one.offset = 0;
	return dl_opt_store(&one, &tmp, arg) == 0;
}

/*
 * A deferred option's value is checked at once against every table that
 * has the option, so that a value none takes gets the usual message
 * whatever the choice; the chosen table checks it again when it stores it.
 */
static int deferred_ok(const struct dl_optstate *st, const char *name, const char *arg)
{
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++)
			if (deferred(st, g) && !strcmp(o->name, name) && takes(o, arg))
				return 1;
	return 0;
}

/* the group of the k-th option */
static size_t group_of(const struct dl_optstate *st, size_t k)
{
	size_t g = 0;
	entry_at(st, k, &g);
	return g;
}

/*
 * A second spelling of one option is a mistake in the tables, except in
 * alternatives (deferred groups), which may each own one (alike enough for
 * getopt: all take a value or none does).
 */
static void check_tables(const struct dl_optstate *st)
{
	size_t n = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++) {
			size_t k = 0;
			if (++n > DL_OPT_MAX)
				bug(st, "too many options at", o->name);
			const struct dl_opt *first = find_long(st, o->name, &k);
			if (first != o) {
				size_t g1 = group_of(st, k);
				if (!deferred(st, g) || !deferred(st, g1) || g1 == g ||
				    dl_opt_takes_value(first) != dl_opt_takes_value(o))
					bug(st, "duplicate option", o->name);
			}
			if (o->short_name && deferred(st, g))
				bug(st, "short name of a deferred option", o->name);
			if (o->short_name && find_short(st, o->short_name, &k) != o)
				bug(st, "duplicate short name of", o->name);
			if (!st->groups[g].base) /* a deferred group not chosen yet */
				continue;
			const struct dl_opt *bad;
			const struct dl_opt one[2] = {*o, {DL_OPT_END}};
			if (dl_opt_set_defaults(one, st->groups[g].base, &bad))
				bug(st, "bad default of", o->name);
		}
}

int dl_opt_parse(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
		 const struct dl_cmd_spec *spec, void *args)
{
	return dl_opt_parse_groups(st, ctx, argc, argv, spec, args, NULL, 0);
}

int dl_opt_parse_groups(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
			const struct dl_cmd_spec *spec, void *args, const struct dl_opt_group *more,
			size_t nmore)
{
	setup(st, ctx, argc, argv, spec, args, more, nmore);
	check_tables(st); /* also stores the defaults */

	size_t total = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		total += table_len(st->groups[g].opts);
	struct option *longopts = xcalloc(total + 1, sizeof(*longopts));
	struct strbuf shortopts = STRBUF_INIT;
	sb_addc(&shortopts, ':'); /* report missing values as ':' */
	size_t k = 0, nlong = 0;
	for (size_t g = 0; g < st->ngroups; g++)
		for (const struct dl_opt *o = st->groups[g].opts; o->type != DL_OPT_END; o++, k++) {
			int arg = dl_opt_takes_value(o);
			if (find_long(st, o->name, NULL) != o)
				continue; /* an alternative's: getopt knows the name already */
			longopts[nlong].name = o->name;
			longopts[nlong].has_arg = arg ? required_argument : no_argument;
			longopts[nlong++].val = 256 + (int)k;
			if (o->short_name) {
				sb_addc(&shortopts, o->short_name);
				if (arg)
					sb_addc(&shortopts, ':');
			}
		}

	int stop = 0;
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while (!stop) {
		int c = getopt_long(argc, argv, shortopts.buf, longopts, NULL);
		if (c == -1)
			break;
		stop = 1;
		st->exit_code = DL_EXIT_USAGE;
		const char *bad = argv[optind - 1];
		size_t g0 = 0;
		if (c == '?') {
			if (optopt >= 256) /* a known flag given "=value" */
				dl_usage_error(ctx, "option '--%s' takes no value",
					       entry_at(st, (size_t)optopt - 256, &g0)->name);
			else if (optopt && !(bad && bad[0] == '-' && bad[1] == '-'))
				dl_usage_error(ctx, "unknown option '-%c'", optopt);
			else
				unknown_long(st, bad);
			break;
		}
		size_t idx = 0, g = 0;
		if (c == ':') {
			const struct dl_opt *o = NULL;
			if (optopt >= 256)
				o = entry_at(st, (size_t)optopt - 256, &g);
			else if (optopt)
				o = find_short(st, optopt, &idx);
			if (o)
				dl_usage_error(ctx, "option '--%s' needs a value", o->name);
			else
				dl_usage_error(ctx, "option '%s' needs a value", bad);
			break;
		}
		if (c >= 256)
			idx = (size_t)c - 256;
		else if (!find_short(st, c, &idx))
			bug(st, "getopt returned an unknown option", bad);
		const struct dl_opt *o = entry_at(st, idx, &g);
		if (st->given[idx] < 255)
			st->given[idx]++;
		if (o >= action_opts && o < action_opts + DL_ARRAY_SIZE(action_opts)) {
			st->exit_code = 0;
			switch (o - action_opts) {
			case ACT_HELP:
				print_help(st, stdout);
				break;
			case ACT_LIST_OPTIONS:
				list_options(st, stdout);
				break;
			case ACT_MAN_OPTIONS:
				man_options(st, stdout);
				break;
			case ACT_LIST_SUBCOMMANDS:
				for (size_t i = 0;
				     spec && spec->subcommands && spec->subcommands[i].name; i++)
					printf("%s\n", spec->subcommands[i].name);
				break;
			}
			break;
		}
		if (deferred(st, g)) { /* stored by dl_opt_apply() into the chosen group */
			st->deferred[idx] = optarg;
			if (!deferred_ok(st, o->name, optarg ? optarg : "")) {
				bad_value(ctx, o, optarg ? optarg : "");
				break;
			}
		} else if (dl_opt_store(o, st->groups[g].base, optarg ? optarg : "")) {
			bad_value(ctx, o, optarg ? optarg : "");
			break;
		}
		stop = 0;
		st->exit_code = 0;
	}
	st->optind = optind;
	if (!stop && (!spec || !(spec->flags & DL_SPEC_NO_IO)))
		ctx->format_set = dl_opt_given(st, "format") > 0;
	free(longopts);
	sb_release(&shortopts);
	return stop;
}

/* "import, gen or stats" */
static void subcmd_names(const struct dl_cmd_spec *spec, struct strbuf *sb)
{
	const struct dl_subcmd *s = spec->subcommands;
	for (size_t i = 0; s[i].name; i++)
		sb_addf(sb, "%s%s", i ? (s[i + 1].name ? ", " : " or ") : "", s[i].name);
}

const struct dl_subcmd *dl_subcmd_find(const struct dl_ctx *ctx, const struct dl_cmd_spec *spec,
				       const char *name)
{
	struct strbuf names = STRBUF_INIT;
	subcmd_names(spec, &names);
	if (!name) {
		dl_usage_error(ctx, "expected a subcommand: %s", names.buf);
		sb_release(&names);
		return NULL;
	}
	struct dl_suggest sug;
	dl_suggest_init(&sug, name);
	for (const struct dl_subcmd *s = spec->subcommands; s->name; s++) {
		if (!strcmp(s->name, name)) {
			sb_release(&names);
			return s;
		}
		dl_suggest_add(&sug, s->name);
	}
	if (sug.best)
		dl_usage_error(ctx, "unknown subcommand '%s' (did you mean '%s'?)", name, sug.best);
	else
		dl_usage_error(ctx, "unknown subcommand '%s' (expected %s)", name, names.buf);
	sb_release(&names);
	return NULL;
}

int dl_subcmd_run(struct dl_ctx *ctx, int argc, char **argv, const struct dl_cmd_spec *spec)
{
	if (argc >= 2 && argv[1][0] != '-') {
		const struct dl_subcmd *s = dl_subcmd_find(ctx, spec, argv[1]);
		return s ? s->run(argc - 1, argv + 1, ctx) : DL_EXIT_USAGE;
	}
	/* only --help and the listing helpers make sense here */
	struct dl_optstate st;
	if (dl_opt_parse(&st, ctx, argc, argv, spec, NULL))
		return st.exit_code;
	dl_subcmd_find(ctx, spec, NULL);
	return DL_EXIT_USAGE;
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

void dl_print_common_man(FILE *fp)
{
	struct dl_optstate st;
	struct dl_ctx ctx = {0};
	ctx.cmdname = "";
	setup(&st, &ctx, 0, NULL, NULL, NULL, NULL, 0);
	man_options(&st, fp);
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

int dl_table_out_open(const struct dl_ctx *ctx, const char *path, enum dl_out_format fmt,
		      struct dl_table_out *t)
{
	t->w = NULL;
	if (!(t->out = dl_out_open(ctx, path)))
		return DL_EXIT_DATA;
	t->w = dl_writer_new(dl_output_fp(t->out), fmt);
	return 0;
}

int dl_table_out_close(const struct dl_ctx *ctx, struct dl_table_out *t, size_t n, int rc)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].w) {
			if (!rc)
				dl_writer_finish(t[i].w);
			dl_writer_free(t[i].w);
			t[i].w = NULL;
		}
	for (size_t i = n; i-- > 0;)
		if (t[i].out) {
			rc = dl_out_close(ctx, t[i].out, rc);
			t[i].out = NULL;
		}
	return rc;
}

char *dl_command_line(const struct dl_ctx *ctx, int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	int sub = argc > 0 && strcmp(argv[0], ctx->cmdname);
	sb_addf(&sb, "dlsched %s", ctx->cmdname);
	sb_add_command(&sb, "", sub ? argc : argc - 1, sub ? argv : argv + 1);
	return sb_detach(&sb);
}

void dl_stamp_provenance(struct dl_writer *w, const char *command, const char *seed)
{
	dl_writer_stamp(w, DL_COL_MADE_BY, command);
	dl_writer_stamp(w, DL_COL_SEED, seed);
}

struct dl_reader *dl_in_open(const struct dl_ctx *ctx, const char *path)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(path, ctx->in_format, &err);
	if (!r)
		dl_fail(ctx, &err);
	return r;
}
