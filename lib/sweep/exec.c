/* exec.c: the commands of runs, their files and markers, summary.csv and the Slurm script */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io.h"
#include "core/num.h"
#include "sweep/sweep.h"
#include "table/table.h"

/* ---- the command's words ---- */

void dl_sweep_cmd_release(struct dl_sweep_cmd *cmd)
{
	for (size_t s = 0; s < cmd->nstages; s++) {
		for (int i = 0; i < cmd->stages[s].argc; i++)
			free(cmd->stages[s].argv[i]);
		free(cmd->stages[s].argv);
	}
	free(cmd->stages);
	memset(cmd, 0, sizeof(*cmd));
}

static void stage_add_word(struct dl_sweep_stage *st, char *w)
{
	st->argv = xreallocarray(st->argv, (size_t)st->argc + 2, sizeof(*st->argv));
	st->argv[st->argc++] = w;
	st->argv[st->argc] = NULL;
}

int dl_sweep_parse_command(const char *command, struct dl_sweep_cmd *cmd, struct dl_err *err)
{
	memset(cmd, 0, sizeof(*cmd));
	const char *p = command;
	int piped = 0, need_stage = 1;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if ((p[0] == '|' && p[1] != '|') || (p[0] == '&' && p[1] == '&')) {
			int is_pipe = p[0] == '|';
			if (need_stage)
				goto bad;
			p += is_pipe ? 1 : 2;
			piped = is_pipe;
			need_stage = 1;
			continue;
		}
		struct strbuf w = STRBUF_INIT;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\'') {
				const char *e = strchr(p + 1, '\'');
				if (!e) {
					sb_release(&w);
					goto bad;
				}
				sb_add(&w, p + 1, (size_t)(e - p - 1));
				p = e + 1;
			} else if (*p == '\\' && p[1]) {
				sb_addc(&w, p[1]);
				p += 2;
			} else if (strchr("|&;<>()$`\"*?[#~", *p)) {
				sb_release(&w);
				goto bad;
			} else {
				sb_addc(&w, *p++);
			}
		}
		if (need_stage) {
			cmd->stages =
				xreallocarray(cmd->stages, cmd->nstages + 1, sizeof(*cmd->stages));
			struct dl_sweep_stage *st = &cmd->stages[cmd->nstages++];
			memset(st, 0, sizeof(*st));
			st->piped = piped;
			need_stage = 0;
		}
		stage_add_word(&cmd->stages[cmd->nstages - 1], sb_detach(&w));
	}
	if (need_stage)
		goto bad;
	for (size_t s = 0; s < cmd->nstages; s++)
		if (strcmp(cmd->stages[s].argv[0], "dlsched")) {
			dl_err_set(err, DL_EXIT_DATA,
				   "only dlsched commands run in a sweep, not '%s'",
				   cmd->stages[s].argv[0]);
			dl_sweep_cmd_release(cmd);
			return -1;
		}
	return 0;
bad:
	dl_sweep_cmd_release(cmd);
	return dl_err_set(err, DL_EXIT_DATA, "cannot read the command '%.200s'", command);
}

/* ---- files of a run ---- */

static char *run_path(const char *dir, const char *id, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/runs/%s%s%s", dir, id, name ? "/" : "", name ? name : "");
	return sb_detach(&sb);
}

/* write text to path through a temporary file and rename */
static int write_atomic(const char *path, const char *text, struct dl_err *err)
{
	struct dl_output *out = dl_output_open(path, err);
	if (!out)
		return -1;
	fputs(text, dl_output_fp(out));
	return dl_output_commit(out, err);
}

enum dl_sweep_state dl_sweep_row_state(const struct dl_sweep_plan *plan, size_t i, const char *dir)
{
	const struct dl_sweep_row *row = &plan->rows[i];
	char *done = run_path(dir, row->id, "done");
	struct strbuf sb = STRBUF_INIT;
	struct dl_err err = DL_ERR_INIT;
	enum dl_sweep_state st = DL_SWEEP_MISSING;
	if (access(done, F_OK) == 0 && dl_read_file(done, &sb, &err) == 0 && sb.len &&
	    sb.buf[sb.len - 1] == '\n' && sb.len - 1 == strlen(row->command) &&
	    !memcmp(sb.buf, row->command, sb.len - 1)) {
		st = DL_SWEEP_DONE;
	} else {
		char *failed = run_path(dir, row->id, "failed");
		if (access(failed, F_OK) == 0)
			st = DL_SWEEP_FAILED;
		free(failed);
	}
	sb_release(&sb);
	free(done);
	return st;
}

int dl_sweep_row_failure(const struct dl_sweep_plan *plan, size_t i, const char *dir,
			 struct strbuf *sb)
{
	char *failed = run_path(dir, plan->rows[i].id, "failed");
	struct dl_err err = DL_ERR_INIT;
	int rc = dl_read_file(failed, sb, &err);
	free(failed);
	while (sb->len && sb->buf[sb->len - 1] == '\n')
		sb_setlen(sb, sb->len - 1);
	return rc;
}

/* ---- a run's directory and markers (the processes are cmd/sweep_run.c's) ---- */

static int mkdir_p(const char *path, struct dl_err *err)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	return dl_err_set(err, DL_EXIT_DATA, "cannot create '%s': %s", path, strerror(errno));
}

char *dl_sweep_run_path(const char *dir, const char *id, const char *name)
{
	return run_path(dir, id, name);
}

int dl_sweep_run_begin(const struct dl_sweep_plan *plan, size_t i, const char *dir,
		       struct dl_err *err)
{
	const char *id = plan->rows[i].id;
	char *runs = run_path(dir, "", NULL);
	char *rundir = run_path(dir, id, NULL);
	runs[strlen(runs) - 1] = 0; /* "DIR/runs/" -> "DIR/runs" */
	int rc = mkdir_p(runs, err) || mkdir_p(rundir, err) ? -1 : 0;
	free(runs);
	free(rundir);
	if (rc)
		return -1;
	/* from here until a marker is written the run counts as missing */
	const char *const markers[] = {"done", "failed"};
	for (size_t k = 0; k < 2; k++) {
		char *m = run_path(dir, id, markers[k]);
		unlink(m);
		free(m);
	}
	return 0;
}

int dl_sweep_run_end(const struct dl_sweep_plan *plan, size_t i, const char *dir, const char *why,
		     struct dl_err *err)
{
	const struct dl_sweep_row *row = &plan->rows[i];
	char *path = run_path(dir, row->id, why ? "failed" : "done");
	struct strbuf text = STRBUF_INIT;
	sb_addf(&text, "%s\n", why ? why : row->command);
	int rc = write_atomic(path, text.buf, err);
	sb_release(&text);
	free(path);
	return rc;
}

int dl_sweep_run_ended_by_slurm(const struct dl_sweep_plan *plan, size_t i, const char *dir,
				const char *job, const char *state, struct dl_err *err)
{
	const char *id = plan->rows[i].id;
	struct strbuf from = STRBUF_INIT, text = STRBUF_INIT, why = STRBUF_INIT;
	sb_addf(&from, "%s/slurm/%s_%zu.out", dir, job, i);
	int rc = dl_sweep_run_begin(plan, i, dir, err);
	char *to = run_path(dir, id, "slurm.out");
	if (!rc && access(from.buf, F_OK) == 0)
		rc = dl_read_file(from.buf, &text, err) || write_atomic(to, text.buf, err) ? -1 : 0;
	sb_addf(&why, "Slurm %s (task %s_%zu), see %s", state, job, i, to);
	if (!rc)
		rc = dl_sweep_run_end(plan, i, dir, why.buf, err);
	free(to);
	sb_release(&from);
	sb_release(&text);
	sb_release(&why);
	return rc;
}

/* ---- summary.csv ---- */

static int is_axis(const struct dl_sweep_plan *plan, const char *name)
{
	if (!strcmp(name, "run"))
		return 1;
	for (size_t k = 0; k < plan->naxes; k++)
		if (!strcmp(plan->axes[k], name))
			return 1;
	return 0;
}

int dl_sweep_collect(const struct dl_sweep_plan *plan, const char *dir, size_t *ndone,
		     struct dl_err *err)
{
	struct strbuf path = STRBUF_INIT;
	sb_addf(&path, "%s/summary.csv", dir);
	struct dl_output *out = NULL;
	struct dl_writer *w = dl_sweep_table_open(plan, path.buf, &out, err);
	sb_release(&path);
	if (!w)
		return -1;
	char **cols = NULL; /* the report columns of the first done run */
	size_t ncols = 0;
	int *keep = NULL;
	int rc = 0;
	*ndone = 0;
	for (size_t i = 0; i < plan->nrows && !rc; i++) {
		if (dl_sweep_row_state(plan, i, dir) != DL_SWEEP_DONE)
			continue;
		const struct dl_sweep_row *row = &plan->rows[i];
		char *rp = run_path(dir, row->id, "report.csv");
		struct dl_reader *r = dl_reader_open(rp, DL_IN_CSV, err);
		free(rp);
		if (!r) {
			rc = -1;
			break;
		}
		size_t nc = dl_reader_ncols(r);
		const char *const *rc_cols = dl_reader_columns(r);
		if (!cols) {
			ncols = nc;
			cols = xcalloc(nc ? nc : 1, sizeof(*cols));
			keep = xcalloc(nc ? nc : 1, sizeof(*keep));
			for (size_t c = 0; c < nc; c++) {
				cols[c] = xstrdup(rc_cols[c]);
				keep[c] = !is_axis(plan, cols[c]);
				if (keep[c])
					dl_writer_add_column(w, cols[c]);
			}
		} else {
			int same = nc == ncols;
			for (size_t c = 0; c < nc && same; c++)
				same = !strcmp(cols[c], rc_cols[c]);
			if (!same) {
				rc = dl_err_at(err, dl_reader_name(r), 1,
					       "columns differ from the other runs' reports");
				dl_reader_close(r);
				break;
			}
		}
		struct dl_row rrow;
		int got;
		while ((got = dl_reader_next(r, &rrow, err)) > 0) {
			size_t col = 0;
			dl_writer_str(w, col++, row->id);
			for (size_t k = 0; k < plan->naxes; k++)
				dl_writer_str(w, col++, row->values[k]);
			for (size_t c = 0; c < nc; c++)
				if (keep[c])
					dl_writer_str(w, col++, rrow.f[c]);
			dl_writer_end_row(w);
		}
		if (got < 0)
			rc = -1;
		dl_reader_close(r);
		(*ndone)++;
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	for (size_t c = 0; c < ncols; c++)
		free(cols[c]);
	free(cols);
	free(keep);
	if (rc) {
		dl_output_abort(out);
		return -1;
	}
	return dl_output_commit(out, err);
}

/* a value that lands on a line of the script: none of a line's own characters */
static int check_script_value(const char *what, const char *v, struct dl_err *err)
{
	const char *c = dl_find_control(v);
	if (!*v)
		return dl_err_set(err, DL_EXIT_USAGE, "%s is empty", what);
	if (c)
		return dl_err_set(err, DL_EXIT_USAGE,
				  "%s has a control character (0x%02x at byte %zu): it cannot go "
				  "into a Slurm script",
				  what, (unsigned)(unsigned char)*c, (size_t)(c - v) + 1);
	return 0;
}

/* sbatch options the script sets itself, or that would replace the script */
static int owned_sbatch_option(const char *opt)
{
	static const char *const own[] = {"--array", "-a",	"--wrap", "--output",
					  "-o",	     "--error", "-e"};
	size_t len = strcspn(opt, "= ");
	for (size_t i = 0; i < DL_ARRAY_SIZE(own); i++)
		if (len == strlen(own[i]) && !strncmp(opt, own[i], len))
			return 1;
	/* -aN, -oFILE: a short option with its value attached */
	return opt[0] == '-' && opt[1] && opt[1] != '-' && strchr("aoe", opt[1]);
}

int dl_sweep_slurm_check(const struct dl_sweep_slurm *o, struct dl_err *err)
{
	const struct {
		const char *name, *value;
	} v[] = {{"--partition", o->partition},
		 {"--time", o->time},
		 {"--mem", o->mem},
		 {"--account", o->account}};
	for (size_t i = 0; i < DL_ARRAY_SIZE(v); i++)
		if (v[i].value && check_script_value(v[i].name, v[i].value, err))
			return -1;
	for (size_t i = 0; i < o->nextra; i++) {
		const char *x = o->extra[i];
		if (check_script_value("--sbatch-option", x, err))
			return -1;
		if (x[0] != '-')
			return dl_err_set(err, DL_EXIT_USAGE,
					  "--sbatch-option '%s' is not an option (one sbatch "
					  "option, such as --qos=short)",
					  x);
		if (owned_sbatch_option(x))
			return dl_err_set(
				err, DL_EXIT_USAGE,
				"--sbatch-option '%s': the sweep writes its array, output "
				"and command itself",
				x);
	}
	return 0;
}

/* "#SBATCH --NAME=VALUE", the option one shell-quoted word (sbatch reads quotes as sh does) */
static void sbatch_line(struct strbuf *sb, const char *name, const char *value)
{
	struct strbuf w = STRBUF_INIT;
	sb_addstr(&w, name);
	if (value)
		sb_addf(&w, "=%s", value);
	sb_addstr(sb, "#SBATCH ");
	sb_add_shell_word(sb, w.buf);
	sb_addc(sb, '\n');
	sb_release(&w);
}

int dl_sweep_write_sbatch(const char *dir, const char *exe, const size_t *todo, size_t ntodo,
			  const struct dl_sweep_slurm *o, struct dl_err *err)
{
	if (dl_sweep_slurm_check(o, err) || check_script_value("the sweep directory", dir, err) ||
	    check_script_value("the dlsched binary's path", exe, err))
		return -1;
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT, line = STRBUF_INIT;
	sb_addf(&path, "%s/slurm", dir);
	if (mkdir_p(path.buf, err)) {
		sb_release(&path);
		return -1;
	}
	sb_addstr(&sb,
		  "#!/bin/sh\n# written by dlsched sweep: one array task per run of plan.csv\n");
	sb_addstr(&sb, "#SBATCH --job-name=dlsched-sweep\n");
	for (size_t i = 0; i < ntodo;) {
		size_t k = i;
		while (k + 1 < ntodo && todo[k + 1] == todo[k] + 1)
			k++;
		sb_addf(&line, "%s%zu", i ? "," : "", todo[i]);
		if (k > i)
			sb_addf(&line, "-%zu", todo[k]);
		i = k + 1;
	}
	if (o->max_running > 0)
		sb_addf(&line, "%%%ld", o->max_running);
	sbatch_line(&sb, "--array", line.buf);
	sb_reset(&line);
	sb_addf(&line, "%s/slurm/%%A_%%a.out", dir);
	sbatch_line(&sb, "--output", line.buf);
	if (o->partition)
		sbatch_line(&sb, "--partition", o->partition);
	if (o->time)
		sbatch_line(&sb, "--time", o->time);
	if (o->mem)
		sbatch_line(&sb, "--mem", o->mem);
	if (o->account)
		sbatch_line(&sb, "--account", o->account);
	if (o->cpus_per_task > 0) {
		sb_reset(&line);
		sb_addf(&line, "%ld", o->cpus_per_task);
		sbatch_line(&sb, "--cpus-per-task", line.buf);
	}
	for (size_t i = 0; i < o->nextra; i++)
		sbatch_line(&sb, o->extra[i], NULL);
	sb_release(&line);
	sb_addstr(&sb, "exec ");
	sb_add_shell_word(&sb, exe);
	sb_addstr(&sb, " sweep --task \"$SLURM_ARRAY_TASK_ID\" ");
	sb_add_shell_word(&sb, dir);
	sb_addc(&sb, '\n');
	sb_reset(&path);
	sb_addf(&path, "%s/sweep.sbatch", dir);
	int rc = write_atomic(path.buf, sb.buf, err);
	if (!rc && chmod(path.buf, 0755))
		rc = dl_err_set(err, DL_EXIT_DATA, "cannot chmod '%s': %s", path.buf,
				strerror(errno));
	sb_release(&sb);
	sb_release(&path);
	return rc;
}

/* ---- the Slurm options kept in DIR/slurm/options ---- */

static char *options_path(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/slurm/options", dir);
	return sb_detach(&sb);
}

void dl_sweep_slurm_release(struct dl_sweep_slurm *o)
{
	free((char *)o->partition);
	free((char *)o->time);
	free((char *)o->mem);
	free((char *)o->account);
	for (size_t i = 0; i < o->nextra; i++)
		free((char *)o->extra[i]);
	free(o->extra);
	memset(o, 0, sizeof(*o));
}

int dl_sweep_slurm_read(const char *dir, struct dl_sweep_slurm *o, struct dl_err *err)
{
	memset(o, 0, sizeof(*o));
	char *path = options_path(dir);
	struct strbuf text = STRBUF_INIT;
	if (access(path, F_OK)) {
		free(path);
		return 1;
	}
	int rc = dl_read_file(path, &text, err);
	long line = 0;
	for (char *p = text.buf; !rc && p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		line++;
		char *eq = strchr(p, '=');
		const char **slot = NULL;
		long long n = 0;
		if (!eq) {
			rc = dl_err_at(err, path, line, "expected NAME=VALUE");
			break;
		}
		*eq = 0;
		const char *v = eq + 1;
		if (!strcmp(p, "partition"))
			slot = &o->partition;
		else if (!strcmp(p, "time"))
			slot = &o->time;
		else if (!strcmp(p, "mem"))
			slot = &o->mem;
		else if (!strcmp(p, "account"))
			slot = &o->account;
		if (slot) {
			free((char *)*slot);
			*slot = xstrdup(v);
		} else if (!strcmp(p, "sbatch-option")) {
			o->extra = xreallocarray(o->extra, o->nextra + 1, sizeof(*o->extra));
			o->extra[o->nextra++] = xstrdup(v);
		} else if ((!strcmp(p, "jobs") || !strcmp(p, "cpus-per-task")) &&
			   !dl_parse_int_range(v, 1, 100000, &n)) {
			*(p[0] == 'j' ? &o->max_running : &o->cpus_per_task) = (long)n;
		} else {
			rc = dl_err_at(err, path, line, "bad option '%.40s=%.40s'", p, v);
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!rc && dl_sweep_slurm_check(o, err)) {
		dl_err_prefix(err, "%s: ", path);
		err->code = DL_EXIT_DATA;
		rc = -1;
	}
	if (rc)
		dl_sweep_slurm_release(o);
	sb_release(&text);
	free(path);
	return rc ? -1 : 0;
}

int dl_sweep_slurm_write(const char *dir, const struct dl_sweep_slurm *o, struct dl_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	const struct {
		const char *name, *value;
	} v[] = {{"partition", o->partition},
		 {"time", o->time},
		 {"mem", o->mem},
		 {"account", o->account}};
	for (size_t i = 0; i < DL_ARRAY_SIZE(v); i++)
		if (v[i].value)
			sb_addf(&sb, "%s=%s\n", v[i].name, v[i].value);
	if (o->max_running > 0)
		sb_addf(&sb, "jobs=%ld\n", o->max_running);
	if (o->cpus_per_task > 0)
		sb_addf(&sb, "cpus-per-task=%ld\n", o->cpus_per_task);
	for (size_t i = 0; i < o->nextra; i++)
		sb_addf(&sb, "sbatch-option=%s\n", o->extra[i]);
	char *path = options_path(dir);
	int rc = write_atomic(path, sb.buf, err);
	free(path);
	sb_release(&sb);
	return rc;
}
