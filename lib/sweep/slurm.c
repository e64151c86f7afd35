/* slurm.c: the Slurm arrays of a sweep (DIR/slurm/jobs) and what squeue and sacct say of them */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "core/num.h"
#include "sweep/sweep.h"

static char *jobs_path(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/slurm/jobs", dir);
	return sb_detach(&sb);
}

/* a Slurm job id as sbatch --parsable prints it: digits only */
static int valid_job_id(const char *s)
{
	if (!*s || strlen(s) > 20)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

void dl_sweep_jobs_release(struct dl_sweep_jobs *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->id[i]);
	free(j->id);
	memset(j, 0, sizeof(*j));
}

int dl_sweep_jobs_read(const char *dir, struct dl_sweep_jobs *j, struct dl_err *err)
{
	memset(j, 0, sizeof(*j));
	char *path = jobs_path(dir);
	struct strbuf text = STRBUF_INIT;
	int rc = 0;
	if (access(path, F_OK) == 0 && dl_read_file(path, &text, err))
		rc = -1;
	long line = 0;
	for (char *p = text.buf; !rc && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		line++;
		if (!valid_job_id(p)) {
			rc = dl_err_at(err, path, line, "bad Slurm job id '%.40s'", p);
			break;
		}
		j->id = xreallocarray(j->id, j->n + 1, sizeof(*j->id));
		j->id[j->n++] = xstrdup(p);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (rc)
		dl_sweep_jobs_release(j);
	sb_release(&text);
	free(path);
	return rc;
}

int dl_sweep_jobs_add(const char *dir, const char *id, struct dl_err *err)
{
	if (!valid_job_id(id))
		return dl_err_set(err, DL_EXIT_DATA, "sbatch printed '%.40s', not a job id", id);
	struct dl_sweep_jobs j;
	if (dl_sweep_jobs_read(dir, &j, err))
		return -1;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < j.n; i++)
		sb_addf(&sb, "%s\n", j.id[i]);
	sb_addf(&sb, "%s\n", id);
	dl_sweep_jobs_release(&j);
	char *path = jobs_path(dir);
	struct dl_output *out = dl_output_open(path, err);
	int rc = -1;
	if (out) {
		fputs(sb.buf, dl_output_fp(out));
		rc = dl_output_commit(out, err);
	}
	free(path);
	sb_release(&sb);
	return rc;
}

void dl_sweep_jobs_list(const struct dl_sweep_jobs *j, struct strbuf *sb)
{
	for (size_t i = 0; i < j->n; i++)
		sb_addf(sb, "%s%s", i ? "," : "", j->id[i]);
}

/* the position of job id in j (later arrays win), or -1 */
static long job_index(const struct dl_sweep_jobs *j, const char *id, size_t len)
{
	for (size_t i = j->n; i-- > 0;)
		if (strlen(j->id[i]) == len && !strncmp(j->id[i], id, len))
			return (long)i;
	return -1;
}

/* Slurm's job states that end a task without its run (sacct) */
static int failed_state(const char *s)
{
	static const char *const bad[] = {"FAILED",    "TIMEOUT",   "OUT_OF_MEMORY",
					  "NODE_FAIL", "BOOT_FAIL", "DEADLINE"};
	for (size_t i = 0; i < DL_ARRAY_SIZE(bad); i++)
		if (!strncmp(s, bad[i], strlen(bad[i])))
			return 1;
	return 0;
}

/*
 * One line "JOB_TASK|STATE" (squeue -o %i|%T with -r, or sacct -P -o
 * JobID,State): the task of a recorded array and its state; 0 if the line
 * is not one (an array's summary row "JOB|..." or "JOB_[1-5%2]|...").
 */
static int parse_task_line(const struct dl_sweep_jobs *j, const char *line, size_t nrows, long *job,
			   size_t *task, const char **state)
{
	const char *us = strchr(line, '_'), *bar = strchr(line, '|');
	if (!us || !bar || us > bar)
		return 0;
	long long t;
	char *num = xstrndup(us + 1, (size_t)(bar - us - 1));
	int bad = dl_parse_int_range(num, 0, (long long)nrows - 1, &t);
	free(num);
	*job = job_index(j, line, (size_t)(us - line));
	if (bad || *job < 0)
		return 0;
	*task = (size_t)t;
	*state = bar + 1;
	return 1;
}

void dl_sweep_slurm_states(const struct dl_sweep_jobs *j, const char *squeue, const char *sacct,
			   struct dl_sweep_task *tasks, size_t nrows)
{
	memset(tasks, 0, nrows * sizeof(*tasks));
	const char *texts[2] = {sacct, squeue}; /* squeue's word last: it is the live one */
	for (int k = 0; k < 2; k++) {
		const char *p = texts[k];
		while (p && *p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char *line = xstrndup(p, len);
			long job;
			size_t t;
			const char *st;
			if (parse_task_line(j, line, nrows, &job, &t, &st) &&
			    (k == 1 || job >= tasks[t].job)) {
				enum dl_sweep_slurm_state s = DL_TASK_NONE;
				if (k == 1)
					s = !strcmp(st, "PENDING") || !strcmp(st, "REQUEUED") ||
							    !strncmp(st, "REQUEUE_", 8)
						    ? DL_TASK_QUEUED
						    : DL_TASK_RUNNING;
				else if (failed_state(st))
					s = DL_TASK_FAILED;
				tasks[t].state = s;
				tasks[t].job = job;
				snprintf(tasks[t].slurm_state, sizeof(tasks[t].slurm_state), "%s",
					 st);
			}
			free(line);
			p = nl ? nl + 1 : NULL;
		}
	}
}
