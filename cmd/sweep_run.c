/*
 * sweep_run.c: the processes of a sweep (dlsched sweep's executors): each run's
 * stages exec'ed from the dlsched binary (never a shell), stages joined by "|"
 * sharing a pipe, and a pool of worker processes for -j. The files of a run
 * (its directory, markers, summary) are lib/sweep's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep_run.h"

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
 * Signals that cancel a run rather than fail it: scancel, kill, Ctrl-C, a
 * hang-up. A cancelled run gets no marker, so it stays missing and the next
 * sweep redoes it (its stage cannot tell us whether it would have worked).
 */
static int cancelling_signal(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGKILL;
}

/*
 * Run the pipeline of stages [a, b). 0 when every stage exited 0, 2 when a
 * stage was cancelled (cancelling_signal), else 1 with why filled: the stage
 * that failed (not one that only lost its reader).
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
	int failed_at = -1, failed_status = 0, pipe_only = 1, cancelled = 0;
	for (size_t k = 0; k < started; k++) {
		int status;
		while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
			;
		int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		int lost_reader = WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE;
		if (WIFSIGNALED(status) && cancelling_signal(WTERMSIG(status)))
			cancelled = 1;
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
	if (cancelled)
		return 2;
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
	char *errpath = dl_sweep_run_path(dir, row->id, "stderr");
	int rc = 0, errfd = -1;
	struct strbuf why = STRBUF_INIT;
	if (dl_sweep_run_begin(plan, i, dir, err)) {
		rc = -1;
		goto out;
	}
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
	if ((rc == 0 || rc == 1) && dl_sweep_run_end(plan, i, dir, rc ? why.buf : NULL, err))
		rc = -1;
out:
	if (errfd >= 0)
		close(errfd);
	sb_release(&why);
	dl_sweep_cmd_release(&cmd);
	free(errpath);
	return rc;
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

/* ---- other programs (sbatch, squeue, sacct) ---- */

int dl_sweep_capture(char *const argv[], struct strbuf *out, struct strbuf *errout,
		     struct dl_err *err)
{
	int o[2], e[2];
	if (pipe2(o, O_CLOEXEC))
		return dl_err_set(err, DL_EXIT_DATA, "cannot make a pipe: %s", strerror(errno));
	if (pipe2(e, O_CLOEXEC)) {
		close(o[0]);
		close(o[1]);
		return dl_err_set(err, DL_EXIT_DATA, "cannot make a pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(o[1], STDOUT_FILENO);
		dup2(e[1], STDERR_FILENO);
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	if (pid < 0) {
		close(o[0]);
		close(e[0]);
		return dl_err_set(err, DL_EXIT_DATA, "cannot fork: %s", strerror(errno));
	}
	struct pollfd fds[2] = {{o[0], POLLIN, 0}, {e[0], POLLIN, 0}};
	struct strbuf *to[2] = {out, errout};
	int open_fds = 2;
	while (open_fds) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			if (fds[k].fd < 0 || !fds[k].revents)
				continue;
			char buf[4096];
			ssize_t n = read(fds[k].fd, buf, sizeof(buf));
			if (n > 0) {
				sb_add(to[k], buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(fds[k].fd);
				fds[k].fd = -1;
				open_fds--;
			}
		}
	}
	for (int k = 0; k < 2; k++)
		if (fds[k].fd >= 0)
			close(fds[k].fd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
