/* plan.c: sweep axes, the Cartesian product of runs, their commands and plan.csv */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "core/num.h"
#include "core/strmap.h"
#include "sweep/sweep.h"
#include "table/table.h"

/* at most this many runs in one plan (a typo such as seed=1..1000000 is a usage error) */
#define MAX_RUNS 1000000

void dl_sweep_spec_init(struct dl_sweep_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
}

static void axis_release(struct dl_sweep_axis *a)
{
	for (size_t i = 0; i < a->nvalues; i++) {
		free(a->values[i]);
		free(a->args[i]);
	}
	free(a->values);
	free(a->args);
	free(a->name);
	free(a->option);
}

void dl_sweep_spec_release(struct dl_sweep_spec *spec)
{
	for (size_t i = 0; i < spec->naxes; i++)
		axis_release(&spec->axes[i]);
	for (size_t i = 0; i < spec->nfixed; i++)
		axis_release(&spec->fixed[i]);
	free(spec->axes);
	free(spec->fixed);
	dl_sweep_spec_init(spec);
}

void dl_sweep_cmdinfo_add(struct dl_sweep_cmdinfo *c, const struct dl_opt *table)
{
	for (const struct dl_opt *o = table; o->type != DL_OPT_END; o++) {
		if (o->flags & DL_OPTF_HIDDEN)
			continue;
		struct dl_sweep_optinfo *info = NULL;
		for (size_t i = 0; i < c->nopts && !info; i++)
			if (!strcmp(c->opts[i].name, o->name))
				info = &c->opts[i];
		if (!info) {
			c->opts = xreallocarray(c->opts, c->nopts + 1, sizeof(*c->opts));
			info = &c->opts[c->nopts++];
			memset(info, 0, sizeof(*info));
			info->name = o->name;
			info->takes_value = dl_opt_takes_value(o);
			if (o->type == DL_OPT_FILE || o->type == DL_OPT_FILES)
				info->is_file = o->arg && !strcmp(o->arg, "SPEC") ? 2 : 1;
		}
		if (info->ndefs < DL_SWEEP_MAX_DEFS)
			info->defs[info->ndefs++] = o;
	}
}

void dl_sweep_cmdinfo_release(struct dl_sweep_cmdinfo *c)
{
	free(c->opts);
	c->opts = NULL;
	c->nopts = 0;
}

/*
 * The command's own check of one value: accepted when some entry of that
 * name stores it (dl_opt_store into a scratch struct); else why, as the
 * command says it.
 */
static int typed_check(const struct dl_sweep_optinfo *o, const char *v, struct strbuf *why)
{
	for (size_t d = 0; d < o->ndefs; d++) {
		const struct dl_opt *def = o->defs[d];
		void *scratch = xcalloc(1, def->offset + def->size + 16);
		int bad = dl_opt_store(def, scratch, v);
		if (!bad && (def->type == DL_OPT_STRINGS || def->type == DL_OPT_FILES))
			dl_strlist_free((struct dl_strlist *)((char *)scratch + def->offset));
		free(scratch);
		if (!bad)
			return 0;
	}
	if (o->ndefs)
		dl_opt_bad_value_text(o->defs[0], v, why);
	return o->ndefs ? -1 : 0;
}

static const struct dl_sweep_optinfo *find_opt(const struct dl_sweep_cmdinfo *c, const char *name)
{
	for (size_t i = 0; c && i < c->nopts; i++)
		if (!strcmp(c->opts[i].name, name))
			return &c->opts[i];
	return NULL;
}

/* options a sweep sets itself or that change what a run writes */
static int reserved(const char *name)
{
	static const char *const r[] = {"format", "output", "input-format", "quiet", "verbose",
					"help",	  "events", "timeline",	    "compat"};
	for (size_t i = 0; i < DL_ARRAY_SIZE(r); i++)
		if (!strcmp(r[i], name))
			return 1;
	return 0;
}

static struct dl_sweep_axis *find_axis(struct dl_sweep_axis *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* the value as a command receives it: files made absolute */
static int value_arg(const struct dl_sweep_axis *a, int is_file, const char *v, char **out,
		     struct dl_err *err)
{
	if (is_file && (is_file == 1 || access(v, F_OK) == 0)) {
		char *abs = realpath(v, NULL);
		if (!abs)
			return dl_err_set(err, DL_EXIT_USAGE, "%s '%s': cannot use '%s': %s",
					  a->flag ? "option" : "axis", a->name, v, strerror(errno));
		const char *ctl = dl_find_control(abs);
		if (ctl) {
			dl_err_set(err, DL_EXIT_USAGE,
				   "%s '%s': the path of '%s' has a control character (0x%02x)",
				   a->flag ? "option" : "axis", a->name, v,
				   (unsigned)(unsigned char)*ctl);
			free(abs);
			return -1;
		}
		*out = abs;
		return 0;
	}
	*out = xstrdup(v);
	return 0;
}

static void add_value(struct dl_sweep_axis *a, char *v, size_t *alloc)
{
	if (a->nvalues + 1 > *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		a->values = xreallocarray(a->values, *alloc, sizeof(*a->values));
	}
	a->values[a->nvalues++] = v;
}

/* split the values of an axis: "A..B" integer ranges, ',' or ';' lists */
static int split_values(struct dl_sweep_axis *a, const char *text, struct dl_err *err)
{
	const char *what = "axis";
	size_t alloc = 0;
	char sep = strchr(text, ';') ? ';' : ',';
	const char *p = text;
	for (;;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *tok = xstrndup(p, len);
		const char *dots = strstr(tok, "..");
		long long lo, hi;
		if (!len) {
			free(tok);
			return dl_err_set(err, DL_EXIT_USAGE, "%s '%s' has an empty value", what,
					  a->name);
		}
		if (dots && dots != tok) {
			char *left = xstrndup(tok, (size_t)(dots - tok));
			int bad = dl_parse_int_range(left, LLONG_MIN / 4, LLONG_MAX / 4, &lo) ||
				  dl_parse_int_range(dots + 2, LLONG_MIN / 4, LLONG_MAX / 4, &hi) ||
				  hi < lo;
			free(left);
			if (bad) {
				dl_err_set(err, DL_EXIT_USAGE,
					   "%s '%s': bad range '%s' (expected A..B, integers, "
					   "A <= B)",
					   what, a->name, tok);
				free(tok);
				return -1;
			}
			if (hi - lo >= MAX_RUNS) {
				dl_err_set(err, DL_EXIT_USAGE, "%s '%s': range '%s' is too long",
					   what, a->name, tok);
				free(tok);
				return -1;
			}
			free(tok);
			for (long long v = lo; v <= hi; v++) {
				struct strbuf sb = STRBUF_INIT;
				sb_addf(&sb, "%lld", v);
				add_value(a, sb_detach(&sb), &alloc);
			}
		} else {
			add_value(a, tok, &alloc);
		}
		if (!e)
			break;
		p = e + 1;
	}
	for (size_t i = 0; i < a->nvalues; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(a->values[i], a->values[k]))
				return dl_err_set(err, DL_EXIT_USAGE, "%s '%s' lists '%s' twice",
						  what, a->name, a->values[i]);
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '.' || *s == '_'))
			return 0;
	return 1;
}

int dl_sweep_spec_add(struct dl_sweep_spec *spec, const char *text, int fixed,
		      const struct dl_sweep_cmdinfo *gen, const struct dl_sweep_cmdinfo *sim,
		      struct dl_err *err)
{
	const char *what = fixed ? "option" : "axis";
	const char *eq = strchr(text, '=');
	char *name = eq ? xstrndup(text, (size_t)(eq - text)) : xstrdup(text);
	if (!eq && !fixed) {
		dl_err_set(err, DL_EXIT_USAGE, "bad --axis '%s' (expected NAME=VALUE,...)", text);
		free(name);
		return -1;
	}
	if (!valid_name(name)) {
		dl_err_set(err, DL_EXIT_USAGE, "bad %s name '%s'", what, name);
		free(name);
		return -1;
	}
	if (find_axis(spec->axes, spec->naxes, name) ||
	    find_axis(spec->fixed, spec->nfixed, name)) {
		dl_err_set(err, DL_EXIT_USAGE, "%s '%s' is given twice", what, name);
		free(name);
		return -1;
	}
	struct dl_sweep_axis a;
	memset(&a, 0, sizeof(a));
	a.name = name;
	const char *opt = name;
	unsigned only = DL_SWEEP_GEN | DL_SWEEP_SIM;
	if (!strncmp(name, "gen.", 4)) {
		opt = name + 4;
		only = DL_SWEEP_GEN;
	} else if (!strncmp(name, "sim.", 4)) {
		opt = name + 4;
		only = DL_SWEEP_SIM;
	}
	const struct dl_sweep_optinfo *go = only & DL_SWEEP_GEN ? find_opt(gen, opt) : NULL;
	const struct dl_sweep_optinfo *so = only & DL_SWEEP_SIM ? find_opt(sim, opt) : NULL;
	int is_file = 0;
	if (!strcmp(name, "trace")) {
		a.target = DL_SWEEP_TRACE;
		is_file = 1;
	} else if (reserved(opt)) {
		dl_err_set(err, DL_EXIT_USAGE, "%s '%s': the sweep sets --%s itself", what, name,
			   opt);
		goto fail;
	} else if (!go && !so) {
		dl_err_set(err, DL_EXIT_USAGE, "unknown %s '%s' (not trace, nor an option of %s)",
			   what, name,
			   only == DL_SWEEP_GEN	  ? "trace gen"
			   : only == DL_SWEEP_SIM ? "simulate"
						  : "trace gen or simulate");
		goto fail;
	} else {
		a.option = xstrdup(opt);
		a.target = (go ? DL_SWEEP_GEN : 0) | (so ? DL_SWEEP_SIM : 0);
		const struct dl_sweep_optinfo *o = so ? so : go;
		a.flag = !o->takes_value;
		is_file = o->is_file;
		if (go && so && go->takes_value != so->takes_value) {
			dl_err_set(err, DL_EXIT_USAGE, "%s '%s' is ambiguous: use gen.%s or sim.%s",
				   what, name, opt, opt);
			goto fail;
		}
	}
	if (!eq) {
		if (!a.flag) {
			dl_err_set(err, DL_EXIT_USAGE, "option '%s' needs a value (--set %s=VALUE)",
				   name, name);
			goto fail;
		}
		size_t alloc = 0;
		add_value(&a, xstrdup("on"), &alloc);
	} else if (fixed) {
		size_t alloc = 0;
		if (!eq[1]) {
			dl_err_set(err, DL_EXIT_USAGE, "option '%s' has an empty value", name);
			goto fail;
		}
		add_value(&a, xstrdup(eq + 1), &alloc);
	} else {
		if (!eq[1]) {
			dl_err_set(err, DL_EXIT_USAGE, "axis '%s' has no values", name);
			goto fail;
		}
		if (split_values(&a, eq + 1, err))
			goto fail;
	}
	a.args = xcalloc(a.nvalues, sizeof(*a.args));
	for (size_t i = 0; i < a.nvalues; i++) {
		if (a.flag && strcmp(a.values[i], "on") && strcmp(a.values[i], "off")) {
			dl_err_set(err, DL_EXIT_USAGE,
				   "%s '%s': --%s takes no value; its values are on and off", what,
				   name, a.option);
			goto fail;
		}
		const char *ctl = dl_find_control(a.values[i]);
		if (ctl) {
			dl_err_set(err, DL_EXIT_USAGE,
				   "%s '%s': a value has a control character (0x%02x): runs are "
				   "shell commands in plan.csv",
				   what, name, (unsigned)(unsigned char)*ctl);
			goto fail;
		}
		const struct dl_sweep_optinfo *const checks[2] = {go, so};
		const struct dl_sweep_cmdinfo *const cmds[2] = {gen, sim};
		for (int k = 0; k < 2 && !a.flag; k++) {
			struct strbuf why = STRBUF_INIT;
			if (checks[k] && typed_check(checks[k], a.values[i], &why)) {
				dl_err_set(err, DL_EXIT_USAGE, "%s '%s' value '%s': %s: %s", what,
					   name, a.values[i], cmds[k]->name, why.buf);
				sb_release(&why);
				goto fail;
			}
			sb_release(&why);
		}
		if (value_arg(&a, is_file, a.values[i], &a.args[i], err)) {
			/* name the axis as the user wrote it */
			goto fail;
		}
	}
	if (fixed) {
		spec->fixed = xreallocarray(spec->fixed, spec->nfixed + 1, sizeof(*spec->fixed));
		spec->fixed[spec->nfixed++] = a;
	} else {
		spec->axes = xreallocarray(spec->axes, spec->naxes + 1, sizeof(*spec->axes));
		spec->axes[spec->naxes++] = a;
	}
	return 0;
fail:
	if (!a.args)
		a.args = xcalloc(a.nvalues ? a.nvalues : 1, sizeof(*a.args));
	axis_release(&a);
	return -1;
}

static int has_target(const struct dl_sweep_spec *spec, unsigned t, const char *option)
{
	for (size_t i = 0; i < spec->naxes; i++)
		if ((spec->axes[i].target & t) &&
		    (!option || (spec->axes[i].option && !strcmp(spec->axes[i].option, option))))
			return 1;
	for (size_t i = 0; i < spec->nfixed; i++)
		if ((spec->fixed[i].target & t) &&
		    (!option || (spec->fixed[i].option && !strcmp(spec->fixed[i].option, option))))
			return 1;
	return 0;
}

static void drop_target(struct dl_sweep_axis *v, size_t n, unsigned t)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].target != t)
			v[i].target &= ~t;
}

int dl_sweep_spec_finish(struct dl_sweep_spec *spec, struct dl_err *err)
{
	if (has_target(spec, DL_SWEEP_TRACE, NULL)) {
		/* runs read trace files: options of both commands go to simulate only */
		drop_target(spec->axes, spec->naxes, DL_SWEEP_GEN);
		drop_target(spec->fixed, spec->nfixed, DL_SWEEP_GEN);
		for (size_t i = 0; i < spec->naxes + spec->nfixed; i++) {
			const struct dl_sweep_axis *a =
				i < spec->naxes ? &spec->axes[i] : &spec->fixed[i - spec->naxes];
			if (a->target == DL_SWEEP_GEN)
				return dl_err_set(err, DL_EXIT_USAGE,
						  "%s '%s' is a trace gen option, but the runs "
						  "read trace files (trace)",
						  i < spec->naxes ? "axis" : "option", a->name);
		}
	}
	if (!has_target(spec, DL_SWEEP_SIM, "cluster"))
		return dl_err_set(err, DL_EXIT_USAGE,
				  "no cluster: give --set cluster=SPEC or --axis cluster=...");
	if (!spec->naxes)
		return dl_err_set(err, DL_EXIT_USAGE, "no axis: give at least one --axis");
	return 0;
}

void dl_sweep_plan_release(struct dl_sweep_plan *plan)
{
	for (size_t i = 0; i < plan->nrows; i++) {
		struct dl_sweep_row *r = &plan->rows[i];
		for (size_t k = 0; k < plan->naxes; k++)
			free(r->values[k]);
		free(r->values);
		free(r->id);
		free(r->command);
	}
	for (size_t k = 0; k < plan->naxes; k++)
		free(plan->axes[k]);
	free(plan->axes);
	free(plan->rows);
	memset(plan, 0, sizeof(*plan));
}

static void word(struct strbuf *sb, const char *w)
{
	if (sb->len)
		sb_addc(sb, ' ');
	sb_add_shell_word(sb, w);
}

/* --opt value (or --opt for a flag that is on) of every axis and fixed option for target t */
static void add_opts(struct strbuf *sb, const struct dl_sweep_spec *spec, const size_t *vi,
		     unsigned t)
{
	for (size_t i = 0; i < spec->nfixed + spec->naxes; i++) {
		int fx = i < spec->nfixed;
		const struct dl_sweep_axis *a =
			fx ? &spec->fixed[i] : &spec->axes[i - spec->nfixed];
		if (!(a->target & t) || a->target == DL_SWEEP_TRACE)
			continue;
		const char *arg = a->args[fx ? 0 : vi[i - spec->nfixed]];
		struct strbuf o = STRBUF_INIT;
		sb_addf(&o, "--%s", a->option);
		if (a->flag) {
			if (!strcmp(arg, "on"))
				word(sb, o.buf);
		} else {
			word(sb, o.buf);
			word(sb, arg);
		}
		sb_release(&o);
	}
}

static const char *spec_value(const struct dl_sweep_spec *spec, const size_t *vi, unsigned t,
			      const char *option)
{
	for (size_t i = 0; i < spec->naxes; i++)
		if ((spec->axes[i].target & t) &&
		    (!option || (spec->axes[i].option && !strcmp(spec->axes[i].option, option))))
			return spec->axes[i].args[vi[i]];
	for (size_t i = 0; i < spec->nfixed; i++)
		if ((spec->fixed[i].target & t) &&
		    (!option || (spec->fixed[i].option && !strcmp(spec->fixed[i].option, option))))
			return spec->fixed[i].args[0];
	return NULL;
}

/* the command of the run with value indices vi */
static char *build_command(const struct dl_sweep_spec *spec, const size_t *vi, const char *id)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	const char *trace = spec_value(spec, vi, DL_SWEEP_TRACE, NULL);
	if (!trace) {
		word(&sb, "dlsched");
		word(&sb, "trace");
		word(&sb, "gen");
		add_opts(&sb, spec, vi, DL_SWEEP_GEN);
		sb_addstr(&sb, " |");
	}
	word(&sb, "dlsched");
	word(&sb, "simulate");
	add_opts(&sb, spec, vi, DL_SWEEP_SIM);
	if (spec->timeline) {
		word(&sb, "--timeline");
		sb_addf(&path, "runs/%s/timeline.csv", id);
		word(&sb, path.buf);
		sb_reset(&path);
	}
	word(&sb, "-o");
	sb_addf(&path, "runs/%s/results.csv", id);
	word(&sb, path.buf);
	if (trace)
		word(&sb, trace);
	sb_addstr(&sb, " &&");
	word(&sb, "dlsched");
	word(&sb, "report");
	word(&sb, "-f");
	word(&sb, "csv");
	const char *cluster = spec_value(spec, vi, DL_SWEEP_SIM, "cluster");
	if (cluster) {
		word(&sb, "--cluster");
		word(&sb, cluster);
	}
	if (spec->timeline) {
		word(&sb, "-t");
		sb_reset(&path);
		sb_addf(&path, "runs/%s/timeline.csv", id);
		word(&sb, path.buf);
	}
	word(&sb, "-o");
	sb_reset(&path);
	sb_addf(&path, "runs/%s/report.csv", id);
	word(&sb, path.buf);
	sb_reset(&path);
	sb_addf(&path, "runs/%s/results.csv", id);
	word(&sb, path.buf);
	sb_release(&path);
	return sb_detach(&sb);
}

static void fnv_add(uint64_t *h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s;; p++) {
		*h ^= *p;
		*h *= 1099511628211ULL;
		if (!*p)
			break;
	}
}

/* FNV-1a 64 of the axis names and values, sorted by name: independent of axis order */
static char *id_of(char *const *names, char *const *values, size_t n)
{
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n; i++) {
		size_t k = i;
		while (k > 0 && strcmp(names[order[k - 1]], names[i]) > 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	uint64_t h = 14695981039346656037ULL;
	for (size_t j = 0; j < n; j++) {
		fnv_add(&h, names[order[j]]);
		fnv_add(&h, values[order[j]]);
	}
	free(order);
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%012llx", (unsigned long long)(h >> 16));
	return sb_detach(&sb);
}

static char *run_id(const struct dl_sweep_spec *spec, const size_t *vi)
{
	size_t n = spec->naxes;
	char **names = xcalloc(n ? n : 1, sizeof(*names));
	char **values = xcalloc(n ? n : 1, sizeof(*values));
	for (size_t i = 0; i < n; i++) {
		names[i] = spec->axes[i].name;
		values[i] = spec->axes[i].values[vi[i]];
	}
	char *id = id_of(names, values, n);
	free(names);
	free(values);
	return id;
}

/* the fingerprint of a run's command in plan.sum: 16 hex digits of FNV-1a 64 */
static void command_sum(const char *id, const char *command, struct strbuf *sb)
{
	uint64_t h = 14695981039346656037ULL;
	fnv_add(&h, id);
	fnv_add(&h, command);
	sb_addf(sb, "%016llx", (unsigned long long)h);
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

int dl_sweep_plan_build(const struct dl_sweep_spec *spec, struct dl_sweep_plan *plan,
			struct dl_err *err)
{
	memset(plan, 0, sizeof(*plan));
	size_t n = 1;
	for (size_t i = 0; i < spec->naxes; i++) {
		if (n > MAX_RUNS / spec->axes[i].nvalues)
			return dl_err_set(err, DL_EXIT_USAGE, "more than %d runs in one sweep",
					  MAX_RUNS);
		n *= spec->axes[i].nvalues;
	}
	plan->naxes = spec->naxes;
	plan->axes = xcalloc(spec->naxes ? spec->naxes : 1, sizeof(*plan->axes));
	for (size_t i = 0; i < spec->naxes; i++)
		plan->axes[i] = xstrdup(spec->axes[i].name);
	plan->rows = xcalloc(n, sizeof(*plan->rows));
	plan->nrows = n;
	size_t *vi = xcalloc(spec->naxes ? spec->naxes : 1, sizeof(*vi));
	for (size_t r = 0; r < n; r++) {
		/* the first axis varies slowest */
		size_t rest = r;
		for (size_t i = spec->naxes; i-- > 0;) {
			vi[i] = rest % spec->axes[i].nvalues;
			rest /= spec->axes[i].nvalues;
		}
		struct dl_sweep_row *row = &plan->rows[r];
		row->id = run_id(spec, vi);
		row->values = xcalloc(spec->naxes ? spec->naxes : 1, sizeof(*row->values));
		for (size_t i = 0; i < spec->naxes; i++)
			row->values[i] = xstrdup(spec->axes[i].values[vi[i]]);
		row->command = build_command(spec, vi, row->id);
	}
	free(vi);
	/* ids must be unique (48 bits: a collision is astronomically rare, but never silent) */
	char **ids = xcalloc(n, sizeof(*ids));
	for (size_t r = 0; r < n; r++)
		ids[r] = plan->rows[r].id;
	char ***byid = xcalloc(n, sizeof(*byid));
	for (size_t r = 0; r < n; r++)
		byid[r] = &ids[r];
	qsort(byid, n, sizeof(*byid), cmp_id);
	int rc = 0;
	for (size_t r = 1; r < n && !rc; r++)
		if (!strcmp(*byid[r], *byid[r - 1]))
			rc = dl_err_set(err, DL_EXIT_USAGE,
					"two runs have the same id '%s'; change a value", *byid[r]);
	free(byid);
	free(ids);
	if (rc)
		dl_sweep_plan_release(plan);
	return rc;
}

/* ---- checking ---- */

static int check_command(const char *command, dl_sweep_check_fn check, void *arg,
			 struct strbuf *why)
{
	struct dl_sweep_cmd cmd;
	struct dl_err perr = DL_ERR_INIT;
	if (dl_sweep_parse_command(command, &cmd, &perr)) {
		sb_addstr(why, perr.msg);
		return -1;
	}
	int rc = 0;
	for (size_t s = 0; s < cmd.nstages && !rc; s++) {
		const struct dl_sweep_stage *st = &cmd.stages[s];
		/* the report stage reads what simulate wrote: nothing to check before */
		if (st->argc > 1 && !strcmp(st->argv[1], "report"))
			continue;
		rc = check(arg, st->argc, st->argv, why);
	}
	dl_sweep_cmd_release(&cmd);
	return rc;
}

static int check_at(const struct dl_sweep_spec *spec, const size_t *vi, dl_sweep_check_fn check,
		    void *arg, struct strbuf *why)
{
	char *command = build_command(spec, vi, "000000000000");
	int rc = check_command(command, check, arg, why);
	free(command);
	return rc;
}

int dl_sweep_plan_check(const struct dl_sweep_spec *spec, const struct dl_sweep_plan *plan,
			dl_sweep_check_fn check, void *arg, struct dl_err *err)
{
	size_t na = spec->naxes;
	size_t *vi = xcalloc(na ? na : 1, sizeof(*vi));
	struct strbuf why = STRBUF_INIT;
	int rc = 0;
	/* the first run whose command a stage rejects */
	size_t r;
	for (r = 0; r < plan->nrows; r++) {
		size_t rest = r;
		for (size_t i = na; i-- > 0;) {
			vi[i] = rest % spec->axes[i].nvalues;
			rest /= spec->axes[i].nvalues;
		}
		sb_reset(&why);
		if (check_at(spec, vi, check, arg, &why))
			break;
	}
	if (r < plan->nrows) {
		/* whose value is it: an axis whose other value makes the run acceptable */
		struct strbuf scratch = STRBUF_INIT;
		size_t blame = na;
		for (size_t i = 0; i < na && blame == na; i++) {
			size_t keep = vi[i];
			for (size_t v = 0; v < spec->axes[i].nvalues && blame == na; v++) {
				if (v == keep)
					continue;
				vi[i] = v;
				sb_reset(&scratch);
				if (!check_at(spec, vi, check, arg, &scratch))
					blame = i;
			}
			vi[i] = keep;
		}
		sb_release(&scratch);
		if (blame < na) {
			rc = dl_err_set(err, DL_EXIT_USAGE, "axis '%s' value '%s': %s",
					spec->axes[blame].name, spec->axes[blame].values[vi[blame]],
					why.buf);
		} else {
			struct strbuf vals = STRBUF_INIT;
			for (size_t i = 0; i < na; i++)
				sb_addf(&vals, "%s%s=%s", i ? ", " : "", spec->axes[i].name,
					spec->axes[i].values[vi[i]]);
			rc = dl_err_set(err, DL_EXIT_USAGE, "run %s (%s): %s", plan->rows[r].id,
					vals.buf, why.buf);
			sb_release(&vals);
		}
	}
	sb_release(&why);
	free(vi);
	return rc ? -1 : 0;
}

/* ---- plan.csv ---- */

struct dl_writer *dl_sweep_table_open(const struct dl_sweep_plan *plan, const char *path,
				      struct dl_output **out, struct dl_err *err)
{
	*out = dl_output_open(path, err);
	if (!*out)
		return NULL;
	struct dl_writer *w = dl_writer_new(dl_output_fp(*out), DL_OUT_CSV);
	dl_writer_add_column(w, "run");
	for (size_t k = 0; k < plan->naxes; k++)
		dl_writer_add_column(w, plan->axes[k]);
	return w;
}

static char *plan_path(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/plan.csv", dir);
	return sb_detach(&sb);
}

int dl_sweep_plan_write(const struct dl_sweep_plan *plan, const char *dir, struct dl_err *err)
{
	char *path = plan_path(dir);
	struct dl_output *out = NULL;
	struct dl_writer *w = dl_sweep_table_open(plan, path, &out, err);
	free(path);
	if (!w)
		return -1;
	dl_writer_add_column(w, "command");
	for (size_t r = 0; r < plan->nrows; r++) {
		const struct dl_sweep_row *row = &plan->rows[r];
		dl_writer_str(w, 0, row->id);
		for (size_t k = 0; k < plan->naxes; k++)
			dl_writer_str(w, k + 1, row->values[k]);
		dl_writer_str(w, plan->naxes + 1, row->command);
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	if (dl_output_commit(out, err))
		return -1;
	/* plan.sum after plan.csv: a plan killed between the two is refused, never trusted */
	struct strbuf sums = STRBUF_INIT, sum_path = STRBUF_INIT;
	for (size_t r = 0; r < plan->nrows; r++) {
		sb_addf(&sums, "%s ", plan->rows[r].id);
		command_sum(plan->rows[r].id, plan->rows[r].command, &sums);
		sb_addc(&sums, '\n');
	}
	sb_addf(&sum_path, "%s/plan.sum", dir);
	out = dl_output_open(sum_path.buf, err);
	int rc = -1;
	if (out) {
		fputs(sums.buf, dl_output_fp(out));
		rc = dl_output_commit(out, err);
	}
	sb_release(&sums);
	sb_release(&sum_path);
	return rc;
}

/*
 * The rows must be the ones the sweep wrote: a run id once (a copied row would
 * be run and counted twice), the id of its axis values (an edited value would
 * be reported but not used), and, with plan.sum, the command it was written
 * with. The line of the first row that is not is named.
 */
static int check_rows(const struct dl_sweep_plan *plan, const long *lines, const char *path,
		      const char *dir, struct dl_err *err)
{
	struct strmap seen = STRMAP_INIT;
	for (size_t r = 0; r < plan->nrows; r++) {
		const struct dl_sweep_row *row = &plan->rows[r];
		const int64_t *first = strmap_get(&seen, row->id);
		if (first) {
			long at = lines[*first];
			strmap_free(&seen);
			return dl_err_at(err, path, lines[r],
					 "run %s is also on line %ld: each run is one row", row->id,
					 at);
		}
		strmap_put(&seen, row->id, (int64_t)r);
		char *want = id_of(plan->axes, row->values, plan->naxes);
		int same = !strcmp(want, row->id);
		free(want);
		if (!same) {
			struct strbuf vals = STRBUF_INIT;
			for (size_t k = 0; k < plan->naxes; k++)
				sb_addf(&vals, "%s%s=%.40s", k ? ", " : "", plan->axes[k],
					row->values[k]);
			dl_err_at(err, path, lines[r],
				  "run %s is not the run of its values (%s): the plan was edited; "
				  "give the sweep its --axis options again to rewrite it",
				  row->id, vals.buf);
			sb_release(&vals);
			strmap_free(&seen);
			return -1;
		}
	}
	strmap_free(&seen);
	struct strbuf sum_path = STRBUF_INIT, text = STRBUF_INIT;
	sb_addf(&sum_path, "%s/plan.sum", dir);
	int rc = 0;
	if (access(sum_path.buf, F_OK) == 0 && dl_read_file(sum_path.buf, &text, err) == 0) {
		/* its lines, "ID SUM", as keys */
		struct strmap sums = STRMAP_INIT;
		for (char *p = text.buf; *p;) {
			char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			strmap_putn(&sums, p, len, 1);
			p += len + (nl != NULL);
		}
		for (size_t r = 0; r < plan->nrows && !rc; r++) {
			struct strbuf line = STRBUF_INIT;
			sb_addf(&line, "%s ", plan->rows[r].id);
			command_sum(plan->rows[r].id, plan->rows[r].command, &line);
			if (!strmap_get(&sums, line.buf))
				rc = dl_err_at(
					err, path, lines[r],
					"the command of run %s is not the one the sweep wrote "
					"(plan.sum): the plan was edited; give the sweep its "
					"--axis options again to rewrite it",
					plan->rows[r].id);
			sb_release(&line);
		}
		strmap_free(&sums);
	} else if (access(sum_path.buf, F_OK) == 0) {
		rc = -1;
	}
	sb_release(&text);
	sb_release(&sum_path);
	return rc;
}

int dl_sweep_plan_read(struct dl_sweep_plan *plan, const char *dir, struct dl_err *err)
{
	memset(plan, 0, sizeof(*plan));
	long *lines = NULL; /* of each row in plan.csv */
	char *path = plan_path(dir);
	struct dl_reader *r = dl_reader_open(path, DL_IN_CSV, err);
	free(path);
	if (!r)
		return -1;
	size_t nc = dl_reader_ncols(r);
	const char *const *cols = dl_reader_columns(r);
	int rc = 0;
	if (nc < 3 || strcmp(cols[0], "run") || strcmp(cols[nc - 1], "command")) {
		rc = dl_err_at(err, dl_reader_name(r), 1,
			       "not a sweep plan (expected columns run, AXES..., command)");
		goto out;
	}
	plan->naxes = nc - 2;
	plan->axes = xcalloc(plan->naxes, sizeof(*plan->axes));
	for (size_t k = 0; k < plan->naxes; k++)
		plan->axes[k] = xstrdup(cols[k + 1]);
	size_t alloc = 0, lalloc = 0;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		const char *id = row.f[0];
		int ok = strlen(id) == 12;
		for (const char *p = id; *p && ok; p++)
			ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
		if (!ok) {
			rc = dl_err_at(err, dl_reader_name(r), row.line, "bad run id '%.64s'", id);
			goto out;
		}
		DL_GROW(plan->rows, plan->nrows + 1, alloc);
		DL_GROW(lines, plan->nrows + 1, lalloc);
		lines[plan->nrows] = row.line;
		struct dl_sweep_row *pr = &plan->rows[plan->nrows++];
		pr->id = xstrdup(id);
		pr->values = xcalloc(plan->naxes, sizeof(*pr->values));
		for (size_t k = 0; k < plan->naxes; k++)
			pr->values[k] = xstrdup(row.f[k + 1]);
		pr->command = xstrdup(row.f[nc - 1]);
	}
	if (got < 0)
		rc = -1;
	else if (!plan->nrows)
		rc = dl_err_at(err, dl_reader_name(r), 0, "no runs in the plan");
	else
		rc = check_rows(plan, lines, dl_reader_name(r), dir, err);
out:
	free(lines);
	dl_reader_close(r);
	if (rc)
		dl_sweep_plan_release(plan);
	return rc ? -1 : 0;
}

int dl_sweep_plan_equal(const struct dl_sweep_plan *a, const struct dl_sweep_plan *b)
{
	if (a->naxes != b->naxes || a->nrows != b->nrows)
		return 0;
	for (size_t k = 0; k < a->naxes; k++)
		if (strcmp(a->axes[k], b->axes[k]))
			return 0;
	for (size_t r = 0; r < a->nrows; r++) {
		if (strcmp(a->rows[r].id, b->rows[r].id) ||
		    strcmp(a->rows[r].command, b->rows[r].command))
			return 0;
		for (size_t k = 0; k < a->naxes; k++)
			if (strcmp(a->rows[r].values[k], b->rows[r].values[k]))
				return 0;
	}
	return 1;
}
