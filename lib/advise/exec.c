/* exec.c: running Slurm's commands without a shell, and the audit log of what they changed */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h> /* (environ, with _GNU_SOURCE) */

#include "advise/advise.h"
#include "core/common.h"
#include "core/io.h"
#include "core/strmap.h"
#include "core/xalloc.h"

/*
 * Start argv with standard output on out_fd (-1: inherited), close_fd closed in
 * the child. posix_spawnp reports a program that cannot run (glibc waits for
 * the exec), and leaves no child of ours that could return into the library.
 */
static int spawn(char *const argv[], int out_fd, int close_fd, pid_t *pid, struct dl_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (close_fd >= 0)
		posix_spawn_file_actions_addclose(&fa, close_fd);
	if (out_fd >= 0 && out_fd != STDOUT_FILENO) {
		posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
		posix_spawn_file_actions_addclose(&fa, out_fd);
	}
	fflush(NULL);
	int e = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e)
		return dl_err_set(err, DL_EXIT_DATA, "cannot run '%s': %s", argv[0], strerror(e));
	return 0;
}

static int reap(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int dl_adv_run(char *const argv[], struct strbuf *out, int *status, struct dl_err *err)
{
	int fds[2] = {-1, -1};
	pid_t pid;
	if (out && pipe(fds))
		return dl_err_set(err, DL_EXIT_DATA, "cannot make a pipe: %s", strerror(errno));
	if (spawn(argv, out ? fds[1] : -1, out ? fds[0] : -1, &pid, err)) {
		if (out) {
			close(fds[0]);
			close(fds[1]);
		}
		return -1;
	}
	if (out) {
		close(fds[1]);
		char buf[65536];
		ssize_t n;
		while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			sb_add(out, buf, (size_t)n);
		}
		close(fds[0]);
	}
	*status = reap(pid);
	return 0;
}

int dl_adv_run_to_file(char *const argv[], char **path, struct dl_err *err)
{
	const char *dir = getenv("TMPDIR");
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/dlsched-advise.XXXXXX", dir && *dir ? dir : "/tmp");
	char *p = sb_detach(&sb);
	int fd = mkstemp(p);
	if (fd < 0) {
		dl_err_set(err, DL_EXIT_DATA, "cannot make a temporary file in '%s': %s",
			   dir && *dir ? dir : "/tmp", strerror(errno));
		free(p);
		return -1;
	}
	pid_t pid;
	int rc = spawn(argv, fd, -1, &pid, err);
	close(fd);
	if (!rc) {
		int st = reap(pid);
		if (st)
			rc = dl_err_set(err, DL_EXIT_DATA, "'%s %s' failed (exit status %d)",
					argv[0], argv[1] ? argv[1] : "", st);
	}
	if (rc) {
		unlink(p);
		free(p);
		return -1;
	}
	*path = p;
	return 0;
}

/* ---- audit log ---- */

int dl_adv_audit_write(int fd, const char *path, const struct dl_adv_audit *a, struct dl_err *err)
{
	char when[32];
	time_t t = (time_t)a->time;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *o = json_object();
	json_object_set_new(o, "time", json_string(when));
	json_object_set_new(o, "action", json_string(a->action));
	if (a->policy)
		json_object_set_new(o, "policy", json_string(a->policy));
	json_object_set_new(o, "job", json_string(a->job));
	json_object_set_new(o, "user", json_string(a->user));
	json_object_set_new(o, "field", json_string(dl_adv_field(a->mech)));
	json_object_set_new(o, "before", json_integer(a->before));
	json_object_set_new(o, "after", json_integer(a->after));
	json_object_set_new(o, "command", json_string(a->command));
	json_object_set_new(o, "exit", json_integer(a->exit_status));
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		dl_out_of_memory(0);
	size_t len = strlen(s);
	s[len++] = '\n'; /* (json_dumps leaves room: it wrote a NUL there) */
	size_t off = 0;
	int rc = 0;
	while (off < len) {
		ssize_t w = write(fd, s + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = dl_err_set(err, DL_EXIT_DATA, "%s: %s", path, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	free(s);
	return rc;
}

void dl_adv_restore_free(struct dl_adv_restore *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].job);
	free(r);
}

int dl_adv_audit_read(const char *path, struct dl_adv_restore **out, size_t *n, struct dl_err *err)
{
	struct strbuf sb = STRBUF_INIT, key = STRBUF_INIT;
	struct strmap seen = STRMAP_INIT; /* "JOB MECH" -> index in r */
	*out = NULL;
	*n = 0;
	if (dl_read_file(path, &sb, err))
		return -1;
	struct dl_adv_restore *r = NULL;
	size_t nr = 0, alloc = 0;
	long line = 0;
	int rc = 0;
	char *p = sb.buf;
	while (p && *p) {
		char *nl = strchr(p, '\n');
		line++;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *s = p;
		p = nl ? nl + 1 : NULL;
		if (!len)
			continue;
		json_error_t je;
		json_t *o = json_loadb(s, len, 0, &je);
		const char *job = json_string_value(json_object_get(o, "job"));
		const char *action = json_string_value(json_object_get(o, "action"));
		const char *field = json_string_value(json_object_get(o, "field"));
		json_t *before = json_object_get(o, "before"), *after = json_object_get(o, "after");
		json_t *ex = json_object_get(o, "exit");
		if (!o || !job || !action || !field || !json_is_integer(before) ||
		    !json_is_integer(after) || !json_is_integer(ex) ||
		    (strcmp(field, "Nice") && strcmp(field, "Priority"))) {
			if (o)
				rc = dl_err_at(err, path, line,
					       "not an audit line of dlsched advise (job, action, "
					       "field, before, after, exit)");
			else
				rc = dl_err_at(err, path, line, "bad JSON: %s", je.text);
			json_decref(o);
			break;
		}
		if (!strcmp(action, "apply") && json_integer_value(ex) == 0) {
			enum dl_adv_mech m = strcmp(field, "Nice") ? DL_ADV_PRIORITY : DL_ADV_NICE;
			sb_reset(&key);
			sb_addf(&key, "%s %d", job, (int)m);
			int64_t *at = strmap_get(&seen, key.buf);
			size_t k = at ? (size_t)*at : nr;
			if (!at) {
				strmap_put(&seen, key.buf, (int64_t)nr);
				if (nr == alloc) {
					alloc = alloc ? 2 * alloc : 16;
					r = xreallocarray(r, alloc, sizeof(*r));
				}
				r[nr].job = xstrdup(job);
				r[nr].mech = m;
				r[nr].value = json_integer_value(before);
				nr++;
			}
			r[k].after = json_integer_value(after);
		}
		json_decref(o);
	}
	sb_release(&sb);
	sb_release(&key);
	strmap_free(&seen);
	if (rc) {
		dl_adv_restore_free(r, nr);
		return -1;
	}
	*out = r;
	*n = nr;
	return 0;
}
