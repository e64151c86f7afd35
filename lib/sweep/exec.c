/* exec.c: running one sweep run (fork/exec, no shell), its state, and summary.csv */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/io.h"
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

/* ---- running ---- */

static int mkdir_p(const char *path, struct dl_err *err)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	return dl_err_set(err, DL_EXIT_DATA, "cannot create '%s': %s", path, strerror(errno));
}

/* in the child: never returns */
static void exec_stage(const struct dl_sweep_stage *st, const char *dir, const char *exe, int in,
		       int out, int errfd)
{
	if (in != STDIN_FILENO) {
		dup2(in, STDIN_FILENO);
		close(in);
	}
	if (out != STDOUT_FILENO) {
		dup2(out, STDOUT_FILENO);
		close(out);
	}
	dup2(errfd, STDERR_FILENO);
	close(errfd);
	signal(SIGPIPE, SIG_DFL);
	if (chdir(dir)) {
		dprintf(STDERR_FILENO, "dlsched sweep: cannot enter '%s': %s\n", dir,
			strerror(errno));
		_exit(127);
	}
	execv(exe, st->argv);
	dprintf(STDERR_FILENO, "dlsched sweep: cannot run '%s': %s\n", exe, strerror(errno));
	_exit(127);
}

static void stage_name(struct strbuf *sb, const struct dl_sweep_stage *st)
{
	sb_addstr(sb, st->argc > 1 ? st->argv[1] : "dlsched");
	if (st->argc > 2 && !strcmp(st->argv[1], "trace"))
		sb_addf(sb, " %s", st->argv[2]);
}

/*
 * Run the pipeline of stages [a, b). 0 when every stage exited 0, else 1 with
 * why filled: the stage that failed (not one that only lost its reader).
 */
static int run_pipeline(const struct dl_sweep_cmd *cmd, size_t a, size_t b, const char *dir,
			const char *exe, int errfd, struct strbuf *why, struct dl_err *err)
{
	pid_t *pids = xcalloc(b - a, sizeof(*pids));
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int rc = 0;
	if (in < 0) {
		free(pids);
		return dl_err_set(err, DL_EXIT_DATA, "cannot open /dev/null: %s", strerror(errno));
	}
	size_t started = 0;
	for (size_t s = a; s < b; s++) {
		int fds[2] = {-1, -1};
		int out;
		if (s + 1 < b) {
			if (pipe2(fds, O_CLOEXEC)) {
				rc = dl_err_set(err, DL_EXIT_DATA, "cannot make a pipe: %s",
						strerror(errno));
				break;
			}
			out = fds[1];
		} else {
			out = open("/dev/null", O_WRONLY | O_CLOEXEC);
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0)
			exec_stage(&cmd->stages[s], dir, exe, in, out, errfd);
		close(in);
		close(out);
		in = fds[0];
		if (pid < 0) {
			rc = dl_err_set(err, DL_EXIT_DATA, "cannot fork: %s", strerror(errno));
			break;
		}
		pids[started++] = pid;
	}
	if (in >= 0)
		close(in);
	int failed_at = -1, failed_status = 0, pipe_only = 1;
	for (size_t k = 0; k < started; k++) {
		int status;
		while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
			;
		int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		int lost_reader = WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE;
		if (!ok && (failed_at < 0 || (pipe_only && !lost_reader))) {
			failed_at = (int)k;
			failed_status = status;
			pipe_only = lost_reader;
		}
	}
	free(pids);
	if (rc)
		return -1;
	if (failed_at < 0)
		return 0;
	const struct dl_sweep_stage *st = &cmd->stages[a + (size_t)failed_at];
	if (WIFEXITED(failed_status))
		sb_addf(why, "exit %d in ", WEXITSTATUS(failed_status));
	else
		sb_addf(why, "signal %d in ", WTERMSIG(failed_status));
	stage_name(why, st);
	return 1;
}

int dl_sweep_run_row(const struct dl_sweep_plan *plan, size_t i, const char *dir, const char *exe,
		     struct dl_err *err)
{
	const struct dl_sweep_row *row = &plan->rows[i];
	struct dl_sweep_cmd cmd;
	if (dl_sweep_parse_command(row->command, &cmd, err)) {
		dl_err_prefix(err, "%s/plan.csv: run %s: ", dir, row->id);
		return -1;
	}
	char *runs = run_path(dir, "", NULL);
	char *rundir = run_path(dir, row->id, NULL);
	char *done = run_path(dir, row->id, "done");
	char *failed = run_path(dir, row->id, "failed");
	char *errpath = run_path(dir, row->id, "stderr");
	int rc = 0, errfd = -1;
	struct strbuf why = STRBUF_INIT;
	runs[strlen(runs) - 1] = 0; /* "DIR/runs/" -> "DIR/runs" */
	if (mkdir_p(runs, err) || mkdir_p(rundir, err)) {
		rc = -1;
		goto out;
	}
	/* from here until the marker is written the run counts as missing */
	unlink(done);
	unlink(failed);
	errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (errfd < 0) {
		rc = dl_err_set(err, DL_EXIT_DATA, "cannot write '%s': %s", errpath,
				strerror(errno));
		goto out;
	}
	for (size_t a = 0; a < cmd.nstages && !rc;) {
		size_t b = a + 1;
		while (b < cmd.nstages && cmd.stages[b].piped)
			b++;
		rc = run_pipeline(&cmd, a, b, dir, exe, errfd, &why, err);
		a = b;
	}
	if (rc == 0) {
		struct strbuf text = STRBUF_INIT;
		sb_addf(&text, "%s\n", row->command);
		if (write_atomic(done, text.buf, err))
			rc = -1;
		sb_release(&text);
	} else if (rc == 1) {
		sb_addc(&why, '\n');
		if (write_atomic(failed, why.buf, err))
			rc = -1;
	}
out:
	if (errfd >= 0)
		close(errfd);
	sb_release(&why);
	dl_sweep_cmd_release(&cmd);
	free(runs);
	free(rundir);
	free(done);
	free(failed);
	free(errpath);
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

/* ---- executors ---- */

int dl_sweep_run_local(const struct dl_sweep_plan *plan, const size_t *todo, size_t ntodo,
		       const char *dir, const char *exe, long jobs, dl_sweep_progress_fn progress,
		       void *arg, size_t *nfailed, struct dl_err *err)
{
	size_t next = 0, running = 0, finished = 0;
	int rc = 0;
	*nfailed = 0;
	if (jobs < 1)
		jobs = 1;
	while (next < ntodo || running) {
		while (!rc && running < (size_t)jobs && next < ntodo) {
			fflush(NULL);
			pid_t pid = fork();
			if (pid == 0) {
				struct dl_err werr = DL_ERR_INIT;
				int r = dl_sweep_run_row(plan, todo[next], dir, exe, &werr);
				if (r < 0)
					dprintf(STDERR_FILENO, "dlsched sweep: run %s: %s\n",
						plan->rows[todo[next]].id, werr.msg);
				_exit(r == 0 ? 0 : r == 1 ? 1 : 2);
			}
			if (pid < 0) {
				rc = dl_err_set(err, DL_EXIT_DATA, "cannot fork: %s",
						strerror(errno));
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			rc = dl_err_set(err, DL_EXIT_DATA, "wait: %s", strerror(errno));
			break;
		}
		running--;
		finished++;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			(*nfailed)++;
		if (progress)
			progress(arg, finished, ntodo, *nfailed);
	}
	return rc ? -1 : 0;
}

int dl_sweep_write_sbatch(const char *dir, const char *exe, const size_t *todo, size_t ntodo,
			  const struct dl_sweep_slurm *o, struct dl_err *err)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	sb_addf(&path, "%s/slurm", dir);
	if (mkdir_p(path.buf, err)) {
		sb_release(&path);
		return -1;
	}
	sb_addstr(&sb,
		  "#!/bin/sh\n# written by dlsched sweep: one array task per run of plan.csv\n");
	sb_addstr(&sb, "#SBATCH --job-name=dlsched-sweep\n#SBATCH --array=");
	for (size_t i = 0; i < ntodo;) {
		size_t k = i;
		while (k + 1 < ntodo && todo[k + 1] == todo[k] + 1)
			k++;
		sb_addf(&sb, "%s%zu", i ? "," : "", todo[i]);
		if (k > i)
			sb_addf(&sb, "-%zu", todo[k]);
		i = k + 1;
	}
	if (o->max_running > 0)
		sb_addf(&sb, "%%%ld", o->max_running);
	sb_addc(&sb, '\n');
	sb_addstr(&sb, "#SBATCH --output=");
	sb_addf(&sb, "%s/slurm/%%A_%%a.out\n", dir);
	if (o->partition)
		sb_addf(&sb, "#SBATCH --partition=%s\n", o->partition);
	if (o->time)
		sb_addf(&sb, "#SBATCH --time=%s\n", o->time);
	if (o->mem)
		sb_addf(&sb, "#SBATCH --mem=%s\n", o->mem);
	if (o->account)
		sb_addf(&sb, "#SBATCH --account=%s\n", o->account);
	if (o->cpus_per_task > 0)
		sb_addf(&sb, "#SBATCH --cpus-per-task=%ld\n", o->cpus_per_task);
	for (size_t i = 0; i < o->nextra; i++)
		sb_addf(&sb, "#SBATCH %s\n", o->extra[i]);
	sb_addstr(&sb, "exec ");
	dl_sweep_quote(&sb, exe);
	sb_addstr(&sb, " sweep --task \"$SLURM_ARRAY_TASK_ID\" ");
	dl_sweep_quote(&sb, dir);
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
