/* sweep.c: policy experiments over grids, run here in parallel or as a Slurm job array */
#include <errno.h>
#include <time.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "sweep_run.h"

/* the commands a sweep runs, called in-process only to dry-check a run's options */
int cmd_trace(int argc, char **argv, struct dl_ctx *ctx);
int cmd_simulate(int argc, char **argv, struct dl_ctx *ctx);

struct sweep_args {
	struct dl_strlist axes, sets, extra;
	int64_t jobs;
	int emit, slurm, submit, status, timeline, wait, force;
	int64_t task;
	int64_t cpus;
	struct dl_sweep_slurm so;
	const char *dir;
};

#define AT(f) DL_OPT_AT(struct sweep_args, f)
static const struct dl_opt sweep_opts[] = {
	{DL_OPT_STRINGS, 0, "axis", "NAME=V1,V2,...",
	 "vary an option of trace gen or simulate, or trace (files); A..B: integers", AT(axes)},
	{DL_OPT_STRINGS, 0, "set", "NAME=VALUE",
	 "a fixed option of every run (NAME alone for a flag)", AT(sets)},
	{DL_OPT_FLAG, 0, "timeline", NULL, "keep each run's timeline (utilisation over time)",
	 AT(timeline)},
	{DL_OPT_INT, 'j', "jobs", "N", "run N at once; with --slurm: %N", AT(jobs), .imin = 1,
	 .imax = 100000, .def_doc = "the number of CPUs"},
	{DL_OPT_FLAG, 0, "emit", NULL, "print one shell command per run to do, run nothing",
	 AT(emit)},
	{DL_OPT_FLAG, 0, "slurm", NULL,
	 "write DIR/sweep.sbatch, a Slurm array job of the runs to do", AT(slurm)},
	{DL_OPT_FLAG, 0, "submit", NULL, "--slurm, then sbatch it and print the job id",
	 AT(submit)},
	{DL_OPT_FLAG, 0, "wait", NULL,
	 "after --submit, or alone: wait until DIR's Slurm arrays end, then collect", AT(wait)},
	{DL_OPT_FLAG, 0, "force", NULL,
	 "--submit although an array of DIR has runs queued or running (submits the others)",
	 AT(force)},
	{DL_OPT_STRING, 0, "partition", "P", "--slurm: the partition", AT(so.partition)},
	{DL_OPT_STRING, 0, "time", "T", "--slurm: the time limit of one run (sbatch --time)",
	 AT(so.time)},
	{DL_OPT_STRING, 0, "mem", "M", "--slurm: the memory of one run (sbatch --mem)", AT(so.mem)},
	{DL_OPT_STRING, 0, "account", "A", "--slurm: the account to charge", AT(so.account)},
	{DL_OPT_INT, 0, "cpus-per-task", "N", "--slurm: CPUs of one run", AT(cpus), .imin = 1,
	 .imax = 100000},
	{DL_OPT_STRINGS, 0, "sbatch-option", "OPT", "--slurm: one more #SBATCH line (repeatable)",
	 AT(extra)},
	{DL_OPT_FLAG, 0, "status", NULL,
	 "count done, queued, running, failed and missing runs of DIR, name failures", AT(status)},
	{DL_OPT_INT, 0, "task", "I", "run row I (0-based) of DIR/plan.csv; Slurm array tasks do",
	 AT(task), .imin = 0, .imax = LLONG_MAX / 2},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec sweep_spec = {
	.usage = "dlsched sweep --axis NAME=VALUES... [--set NAME=VALUE...] [-j N] [--emit | "
		 "--slurm [--submit]] DIR\n"
		 "dlsched sweep DIR\n"
		 "dlsched sweep --status DIR\n"
		 "dlsched sweep --wait DIR\n"
		 "dlsched sweep --task I DIR",
	.description =
		"Run the Cartesian product of the axes (options of trace gen and simulate, or\n"
		"trace files): each run generates a trace (or reads one), simulates it and\n"
		"reports it. DIR gets plan.csv, runs/ and summary.csv (axis values + one report\n"
		"row per run) for 'dlsched report --group-by'. Rerunning does only the runs\n"
		"that are missing or failed.",
	.opts = sweep_opts,
	.flags = DL_SPEC_NO_IO | DL_SPEC_NO_INPUT,
};

/* the options of trace gen and simulate, from their tables */
static void read_options(struct dl_sweep_cmdinfo *gen, struct dl_sweep_cmdinfo *sim)
{
	const struct dl_opt *t[DL_OPT_MAX_GROUPS + 1];
	memset(gen, 0, sizeof(*gen));
	memset(sim, 0, sizeof(*sim));
	gen->name = "trace gen";
	sim->name = "simulate";
	size_t n = dl_trace_gen_opt_tables(t, DL_ARRAY_SIZE(t));
	for (size_t i = 0; i < n; i++)
		dl_sweep_cmdinfo_add(gen, t[i]);
	n = dl_simulate_opt_tables(t, DL_ARRAY_SIZE(t));
	for (size_t i = 0; i < n; i++)
		dl_sweep_cmdinfo_add(sim, t[i]);
}

/*
 * Dry-check one stage: the command parses its options and stops before any
 * data (ctx.dry_run); its diagnostics come back as text (ctx.diag).
 */
static int check_stage(void *arg, int argc, char **argv, struct strbuf *why)
{
	(void)arg;
	struct dl_ctx c = {0};
	struct strbuf diag = STRBUF_INIT;
	c.dry_run = 1;
	c.quiet = 1;
	c.diag = &diag;
	int is_trace = argc > 1 && !strcmp(argv[1], "trace");
	c.cmdname = argv[1];
	/* getopt permutes argv: give it a copy of the pointers */
	char **copy = xcalloc((size_t)argc + 1, sizeof(*copy));
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	int rc = (is_trace ? cmd_trace : cmd_simulate)(argc - 1, copy + 1, &c);
	free(copy);
	if (rc != 0) {
		/* the first message (a command says one) */
		sb_setlen(&diag, strcspn(diag.buf, "\n"));
		sb_addstr(why, is_trace ? "trace gen: " : "simulate: ");
		sb_addstr(why, diag.len ? diag.buf : "rejected");
	}
	sb_release(&diag);
	return rc ? -1 : 0;
}

/* the running binary, absolute, so every run and Slurm task execs the same one */
static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		return xstrdup(buf);
	}
	/* no /proc: the first dlsched on PATH */
	const char *path = getenv("PATH");
	while (path && *path) {
		const char *e = strchr(path, ':');
		size_t len = e ? (size_t)(e - path) : strlen(path);
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "%.*s/dlsched", (int)len, path);
		if (access(sb.buf, X_OK) == 0)
			return sb_detach(&sb);
		sb_release(&sb);
		path = e ? e + 1 : NULL;
	}
	return NULL;
}

static void describe(struct strbuf *sb, const struct dl_sweep_plan *plan, size_t i)
{
	sb_addf(sb, "%s (", plan->rows[i].id);
	for (size_t k = 0; k < plan->naxes; k++)
		sb_addf(sb, "%s%s=%s", k ? ", " : "", plan->axes[k], plan->rows[i].values[k]);
	sb_addc(sb, ')');
}

/*
 * What Slurm says of the tasks of DIR's recorded arrays (tasks[nrows]).
 * 0 with *have = 0 when no array was submitted; -1 when Slurm cannot be asked
 * (err). with_sacct: also Slurm's accounting (why a task ended).
 */
static int slurm_query(const struct dl_sweep_plan *plan, const char *dir, int with_sacct,
		       struct dl_sweep_task *tasks, int *have, struct dl_err *err)
{
	struct dl_sweep_jobs jobs;
	*have = 0;
	memset(tasks, 0, plan->nrows * sizeof(*tasks));
	if (dl_sweep_jobs_read(dir, &jobs, err))
		return -1;
	if (!jobs.n)
		return 0;
	struct strbuf list = STRBUF_INIT, q = STRBUF_INIT, a = STRBUF_INIT, e = STRBUF_INIT;
	dl_sweep_jobs_list(&jobs, &list);
	char *squeue[] = {"squeue", "-h", "-r", "-j", list.buf, "-o", "%i|%T", NULL};
	char *sacct[] = {"sacct", "-n", "-X", "-P", "-j", list.buf, "-o", "JobID,State", NULL};
	int rc = dl_sweep_capture(squeue, &q, &e, err);
	/* squeue fails when it knows none of the jobs any more (they ended long ago) */
	if (rc > 0 && strstr(e.buf, "Invalid job id")) {
		sb_reset(&q);
		rc = 0;
	}
	if (rc > 0) {
		while (e.len && (e.buf[e.len - 1] == '\n' || e.buf[e.len - 1] == ' '))
			sb_setlen(&e, e.len - 1);
		dl_err_set(err, DL_EXIT_DATA, "cannot ask Slurm (squeue -j %s): %s", list.buf,
			   e.len ? e.buf : "failed");
		rc = -1;
	}
	if (!rc && with_sacct) {
		sb_reset(&e);
		/* without accounting (sacct fails) the failures Slurm caused stay missing */
		if (dl_sweep_capture(sacct, &a, &e, err) != 0)
			sb_reset(&a);
	}
	if (!rc) {
		dl_sweep_slurm_states(&jobs, q.buf, a.buf, tasks, plan->nrows);
		*have = 1;
	}
	sb_release(&list);
	sb_release(&q);
	sb_release(&a);
	sb_release(&e);
	dl_sweep_jobs_release(&jobs);
	return rc ? -1 : 0;
}

enum { ST_DONE, ST_QUEUED, ST_RUNNING, ST_FAILED, ST_MISSING, ST_N };

/* a row's state from its files and, for one not done, from Slurm */
static int row_status(const struct dl_sweep_plan *plan, size_t i, const char *dir,
		      const struct dl_sweep_task *t)
{
	enum dl_sweep_state s = dl_sweep_row_state(plan, i, dir);
	if (s == DL_SWEEP_DONE)
		return ST_DONE;
	if (t && t->state == DL_TASK_QUEUED)
		return ST_QUEUED;
	if (t && t->state == DL_TASK_RUNNING)
		return ST_RUNNING;
	if (s == DL_SWEEP_FAILED || (t && t->state == DL_TASK_FAILED))
		return ST_FAILED;
	return ST_MISSING;
}

static int do_status(struct dl_ctx *ctx, const struct dl_sweep_plan *plan, const char *dir)
{
	struct dl_sweep_task *tasks = xcalloc(plan->nrows ? plan->nrows : 1, sizeof(*tasks));
	struct dl_sweep_jobs jobs;
	struct dl_err err = DL_ERR_INIT;
	int have = 0;
	if (slurm_query(plan, dir, 1, tasks, &have, &err))
		dl_warn(ctx, "%s; counting from the files of '%s' alone", err.msg, dir);
	err = (struct dl_err)DL_ERR_INIT;
	if (dl_sweep_jobs_read(dir, &jobs, &err))
		memset(&jobs, 0, sizeof(jobs));
	static const char *const word[ST_N] = {"done", "queued", "running", "failed", "missing"};
	size_t n[ST_N] = {0};
	struct strbuf lines = STRBUF_INIT;
	for (size_t i = 0; i < plan->nrows; i++) {
		const struct dl_sweep_task *t = have ? &tasks[i] : NULL;
		int s = row_status(plan, i, dir, t);
		n[s]++;
		if (s == ST_DONE)
			continue;
		sb_addf(&lines, "%-8s", word[s]);
		describe(&lines, plan, i);
		const char *job = t && (size_t)t->job < jobs.n ? jobs.id[t->job] : NULL;
		if ((s == ST_QUEUED || s == ST_RUNNING) && job)
			sb_addf(&lines, ": Slurm task %s_%zu", job, i);
		if (s == ST_FAILED && dl_sweep_row_state(plan, i, dir) == DL_SWEEP_FAILED) {
			struct strbuf why = STRBUF_INIT;
			dl_sweep_row_failure(plan, i, dir, &why);
			sb_addf(&lines, ": %s", why.buf);
			char *e = dl_sweep_run_path(dir, plan->rows[i].id, "stderr");
			if (access(e, F_OK) == 0)
				sb_addf(&lines, ", see %s", e);
			free(e);
			sb_release(&why);
		} else if (s == ST_FAILED && job) {
			sb_addf(&lines, ": Slurm %s (task %s_%zu), see %s/slurm/%s_%zu.out",
				t->slurm_state, job, i, dir, job, i);
			char *e = dl_sweep_run_path(dir, plan->rows[i].id, "stderr");
			if (access(e, F_OK) == 0)
				sb_addf(&lines, " and %s", e);
			free(e);
		} else if (s == ST_MISSING && job && !strncmp(t->slurm_state, "CANCELLED", 9)) {
			sb_addf(&lines, ": cancelled in Slurm (task %s_%zu)", job, i);
		}
		sb_addc(&lines, '\n');
	}
	printf("%zu runs: %zu done, %zu queued, %zu running, %zu failed, %zu missing\n%s",
	       plan->nrows, n[ST_DONE], n[ST_QUEUED], n[ST_RUNNING], n[ST_FAILED], n[ST_MISSING],
	       lines.buf);
	sb_release(&lines);
	dl_sweep_jobs_release(&jobs);
	free(tasks);
	return n[ST_DONE] == plan->nrows ? 0 : DL_EXIT_DATA;
}

/* summary.csv once every run is done (any executor's last task does it) */
static int collect_if_done(struct dl_ctx *ctx, const struct dl_sweep_plan *plan, const char *dir,
			   int always)
{
	size_t ndone = 0;
	for (size_t i = 0; i < plan->nrows; i++)
		ndone += dl_sweep_row_state(plan, i, dir) == DL_SWEEP_DONE;
	if (ndone < plan->nrows && !always)
		return 0;
	struct dl_err err = DL_ERR_INIT;
	if (dl_sweep_collect(plan, dir, &ndone, &err))
		return dl_fail(ctx, &err);
	return 0;
}

static void progress_cb(void *arg, size_t finished, size_t total, size_t failed)
{
	const struct dl_ctx *ctx = arg;
	fprintf(stderr, "\rdlsched %s: %zu/%zu runs, %zu failed%s", ctx->cmdname, finished, total,
		failed, finished == total ? "\n" : "");
}

/* sbatch the script, record the array job id in DIR and print it */
static int run_sbatch(struct dl_ctx *ctx, const char *dir)
{
	struct strbuf script = STRBUF_INIT, out = STRBUF_INIT, errout = STRBUF_INIT;
	struct dl_err err = DL_ERR_INIT;
	sb_addf(&script, "%s/sweep.sbatch", dir);
	char *argv[] = {"sbatch", "--parsable", script.buf, NULL};
	int st = dl_sweep_capture(argv, &out, &errout, &err);
	int rc = 0;
	fputs(errout.buf, stderr);
	if (st < 0) {
		rc = dl_fail(ctx, &err);
	} else if (st != 0) {
		rc = dl_error(ctx, "sbatch '%s' failed", script.buf);
	} else {
		/* --parsable: "JOBID" or "JOBID;CLUSTER" */
		out.len = strcspn(out.buf, ";\n");
		out.buf[out.len] = 0;
		if (dl_sweep_jobs_add(dir, out.buf, &err))
			rc = dl_fail(ctx, &err);
		printf("%s\n", out.buf);
		fflush(stdout);
	}
	sb_release(&script);
	sb_release(&out);
	sb_release(&errout);
	return rc;
}

/*
 * --wait: until no task of DIR's arrays is queued or running (squeue), then
 * until Slurm's accounting has the end of every task not done (it lags).
 */
static int wait_for_arrays(struct dl_ctx *ctx, const struct dl_sweep_plan *plan, const char *dir)
{
	struct dl_sweep_task *tasks = xcalloc(plan->nrows ? plan->nrows : 1, sizeof(*tasks));
	struct dl_err err = DL_ERR_INIT;
	int have = 0, rc = 0;
	const struct timespec pause = {0, 500 * 1000 * 1000};
	for (;;) {
		if (slurm_query(plan, dir, 0, tasks, &have, &err)) {
			rc = dl_fail(ctx, &err);
			break;
		}
		if (!have) {
			rc = dl_usage_error(ctx, "no Slurm array was submitted from '%s'", dir);
			break;
		}
		size_t active = 0;
		for (size_t i = 0; i < plan->nrows; i++)
			active += tasks[i].state == DL_TASK_QUEUED ||
				  tasks[i].state == DL_TASK_RUNNING;
		if (!active)
			break;
		nanosleep(&pause, NULL);
	}
	/*
	 * accounting: a run that started (its stderr exists) and ended without a marker
	 * was ended by Slurm; wait for the row that says how (ten seconds at most)
	 */
	for (int tries = 0; !rc && tries < 20; tries++) {
		if (slurm_query(plan, dir, 1, tasks, &have, &err)) {
			rc = dl_fail(ctx, &err);
			break;
		}
		size_t unknown = 0;
		for (size_t i = 0; i < plan->nrows; i++) {
			if (tasks[i].slurm_state[0] ||
			    dl_sweep_row_state(plan, i, dir) != DL_SWEEP_MISSING)
				continue;
			char *e = dl_sweep_run_path(dir, plan->rows[i].id, "stderr");
			unknown += access(e, F_OK) == 0;
			free(e);
		}
		if (!unknown)
			break;
		nanosleep(&pause, NULL);
	}
	/* a task Slurm ended leaves its output and the reason with the run (collecting) */
	struct dl_sweep_jobs jobs = {NULL, 0};
	if (!rc && dl_sweep_jobs_read(dir, &jobs, &err))
		rc = dl_fail(ctx, &err);
	for (size_t i = 0; !rc && i < plan->nrows; i++)
		if (tasks[i].state == DL_TASK_FAILED && (size_t)tasks[i].job < jobs.n &&
		    dl_sweep_row_state(plan, i, dir) == DL_SWEEP_MISSING &&
		    dl_sweep_run_ended_by_slurm(plan, i, dir, jobs.id[tasks[i].job],
						tasks[i].slurm_state, &err))
			rc = dl_fail(ctx, &err);
	dl_sweep_jobs_release(&jobs);
	free(tasks);
	return rc;
}

/* the plan of DIR: built from the axes (and written when new or changed), or read */
static int load_plan(struct dl_ctx *ctx, const struct sweep_args *a, struct dl_sweep_plan *plan)
{
	struct dl_err err = DL_ERR_INIT;
	struct stat stt;
	if (!a->axes.n && !a->sets.n) {
		if (dl_sweep_plan_read(plan, a->dir, &err))
			return stat(a->dir, &stt)
				       ? dl_usage_error(ctx, "no sweep in '%s'; give --axis",
							a->dir)
				       : dl_fail(ctx, &err);
		return 0;
	}
	struct dl_sweep_cmdinfo gen, sim;
	read_options(&gen, &sim);
	struct dl_sweep_spec spec;
	dl_sweep_spec_init(&spec);
	spec.timeline = a->timeline;
	int rc = 0;
	for (size_t i = 0; i < a->sets.n && !rc; i++)
		rc = dl_sweep_spec_add(&spec, a->sets.v[i], 1, &gen, &sim, &err);
	for (size_t i = 0; i < a->axes.n && !rc; i++)
		rc = dl_sweep_spec_add(&spec, a->axes.v[i], 0, &gen, &sim, &err);
	if (!rc)
		rc = dl_sweep_spec_finish(&spec, &err);
	if (!rc)
		rc = dl_sweep_plan_build(&spec, plan, &err);
	if (!rc && dl_sweep_plan_check(&spec, plan, check_stage, NULL, &err)) {
		dl_sweep_plan_release(plan);
		rc = -1;
	}
	dl_sweep_cmdinfo_release(&gen);
	dl_sweep_cmdinfo_release(&sim);
	dl_sweep_spec_release(&spec);
	if (rc)
		return err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
						 : dl_fail(ctx, &err);
	if (mkdir(a->dir, 0777) && errno != EEXIST) {
		dl_sweep_plan_release(plan);
		return dl_error(ctx, "cannot create '%s': %s", a->dir, strerror(errno));
	}
	struct dl_sweep_plan old;
	struct dl_err oerr = DL_ERR_INIT;
	int same = 0;
	if (dl_sweep_plan_read(&old, a->dir, &oerr) == 0) {
		same = dl_sweep_plan_equal(&old, plan);
		if (!same)
			dl_info(ctx, "'%s' had another plan: runs whose command changed are redone",
				a->dir);
		dl_sweep_plan_release(&old);
	}
	if (!same && dl_sweep_plan_write(plan, a->dir, &err)) {
		dl_sweep_plan_release(plan);
		return dl_fail(ctx, &err);
	}
	return 0;
}

static int do_task(struct dl_ctx *ctx, const struct dl_sweep_plan *plan, const char *dir,
		   const char *exe, long long task)
{
	if (task < 0 || (size_t)task >= plan->nrows)
		return dl_usage_error(ctx, "--task %lld is not a row of '%s/plan.csv' (0..%zu)",
				      task, dir, plan->nrows - 1);
	size_t i = (size_t)task;
	int rc = 0;
	if (dl_sweep_row_state(plan, i, dir) != DL_SWEEP_DONE) {
		struct dl_err err = DL_ERR_INIT;
		int r = dl_sweep_run_row(plan, i, dir, exe, &err);
		if (r < 0)
			return dl_fail(ctx, &err);
		if (r == 2)
			return dl_error(ctx, "run %s was cancelled; it stays missing",
					plan->rows[i].id);
		if (r == 1) {
			struct strbuf why = STRBUF_INIT;
			dl_sweep_row_failure(plan, i, dir, &why);
			rc = dl_error(ctx, "run %s failed: %s (see %s/runs/%s/stderr)",
				      plan->rows[i].id, why.buf, dir, plan->rows[i].id);
			sb_release(&why);
		}
	}
	int crc = collect_if_done(ctx, plan, dir, 0);
	return rc ? rc : crc;
}

/*
 * The Slurm options of this --slurm: those of the command line, then those
 * kept in DIR from the last --slurm for the ones not given (a rerun asks
 * Slurm for what the first submit did). Says what it reuses and what a
 * command-line value replaces. merged borrows from a and saved.
 */
static int merge_slurm_options(struct dl_ctx *ctx, const struct sweep_args *a,
			       struct dl_sweep_slurm *merged, struct dl_sweep_slurm *saved)
{
	struct dl_err err = DL_ERR_INIT;
	*merged = a->so;
	int got = dl_sweep_slurm_read(a->dir, saved, &err);
	if (got < 0)
		return dl_fail(ctx, &err);
	if (got > 0)
		return 0;
	struct strbuf reused = STRBUF_INIT, replaced = STRBUF_INIT;
	const struct {
		const char *name;
		const char **cur;
		const char *old;
	} v[] = {{"partition", &merged->partition, saved->partition},
		 {"time", &merged->time, saved->time},
		 {"mem", &merged->mem, saved->mem},
		 {"account", &merged->account, saved->account}};
	for (size_t i = 0; i < DL_ARRAY_SIZE(v); i++) {
		if (!v[i].old)
			continue;
		if (!*v[i].cur) {
			*v[i].cur = v[i].old;
			sb_addf(&reused, " --%s ", v[i].name);
			sb_add_shell_word(&reused, v[i].old);
		} else if (strcmp(*v[i].cur, v[i].old)) {
			sb_addf(&replaced, "%s--%s ", replaced.len ? ", " : "", v[i].name);
			sb_add_shell_word(&replaced, *v[i].cur);
			sb_addstr(&replaced, " replaces ");
			sb_add_shell_word(&replaced, v[i].old);
		}
	}
	const struct {
		const char *name;
		long *cur, old;
	} n[] = {{"jobs", &merged->max_running, saved->max_running},
		 {"cpus-per-task", &merged->cpus_per_task, saved->cpus_per_task}};
	for (size_t i = 0; i < DL_ARRAY_SIZE(n); i++) {
		if (!n[i].old)
			continue;
		if (!*n[i].cur) {
			*n[i].cur = n[i].old;
			sb_addf(&reused, " --%s %ld", n[i].name, n[i].old);
		} else if (*n[i].cur != n[i].old) {
			sb_addf(&replaced, "%s--%s %ld replaces %ld", replaced.len ? ", " : "",
				n[i].name, *n[i].cur, n[i].old);
		}
	}
	if (saved->nextra && !merged->nextra) {
		merged->extra = saved->extra;
		merged->nextra = saved->nextra;
		for (size_t i = 0; i < saved->nextra; i++) {
			sb_addstr(&reused, " --sbatch-option=");
			sb_add_shell_word(&reused, saved->extra[i]);
		}
	} else if (saved->nextra) {
		int same = saved->nextra == merged->nextra;
		for (size_t i = 0; same && i < saved->nextra; i++)
			same = !strcmp(saved->extra[i], merged->extra[i]);
		if (!same)
			sb_addf(&replaced, "%sthe --sbatch-option list replaces the %zu kept",
				replaced.len ? ", " : "", saved->nextra);
	}
	if (!ctx->quiet && reused.len)
		fprintf(stderr, "dlsched %s: as the last --slurm of this sweep:%s\n", ctx->cmdname,
			reused.buf);
	if (!ctx->quiet && replaced.len)
		fprintf(stderr, "dlsched %s: note: %s (the last --slurm's, in %s/slurm/options)\n",
			ctx->cmdname, replaced.buf, a->dir);
	sb_release(&reused);
	sb_release(&replaced);
	return 0;
}

/*
 * A --submit while runs of DIR are queued or running in a recorded array would
 * queue them twice: refused, or with --force those runs are left to that array.
 */
static int skip_active(struct dl_ctx *ctx, const struct sweep_args *a,
		       const struct dl_sweep_plan *plan, size_t *todo, size_t *ntodo)
{
	struct dl_sweep_task *tasks = xcalloc(plan->nrows ? plan->nrows : 1, sizeof(*tasks));
	struct dl_err err = DL_ERR_INIT;
	int have = 0, rc = 0;
	if (slurm_query(plan, a->dir, 0, tasks, &have, &err)) {
		free(tasks);
		return dl_fail(ctx, &err);
	}
	size_t active = 0, kept = 0;
	for (size_t k = 0; k < *ntodo; k++) {
		enum dl_sweep_slurm_state s = tasks[todo[k]].state;
		if (s == DL_TASK_QUEUED || s == DL_TASK_RUNNING)
			active++;
		else
			todo[kept++] = todo[k];
	}
	if (active && !a->force)
		rc = dl_error(ctx,
			      "%zu runs of '%s' are queued or running in Slurm (see --status): "
			      "--wait for them, scancel them, or give --force to submit the others",
			      active, a->dir);
	else if (active && !ctx->quiet)
		fprintf(stderr,
			"dlsched sweep: --force: %zu runs queued or running are left to "
			"their array\n",
			active);
	if (!rc)
		*ntodo = kept;
	free(tasks);
	return rc;
}

static int do_run(struct dl_ctx *ctx, const struct sweep_args *a, const struct dl_sweep_plan *plan,
		  const char *exe)
{
	size_t *todo = xcalloc(plan->nrows, sizeof(*todo));
	size_t ntodo = 0;
	for (size_t i = 0; i < plan->nrows; i++)
		if (dl_sweep_row_state(plan, i, a->dir) != DL_SWEEP_DONE)
			todo[ntodo++] = i;
	struct dl_err err = DL_ERR_INIT;
	int rc = 0;
	if (!ctx->quiet)
		fprintf(stderr, "dlsched sweep: %zu runs: %zu done, %zu to run\n", plan->nrows,
			plan->nrows - ntodo, ntodo);
	if (a->emit) {
		for (size_t k = 0; k < ntodo; k++) {
			struct strbuf sb = STRBUF_INIT;
			sb_add_shell_word(&sb, exe);
			sb_addf(&sb, " sweep --task %zu ", todo[k]);
			sb_add_shell_word(&sb, a->dir);
			printf("%s\n", sb.buf);
			sb_release(&sb);
		}
	} else if (a->slurm) {
		struct dl_sweep_slurm so, saved;
		memset(&saved, 0, sizeof(saved));
		size_t before = ntodo;
		if (a->submit && ntodo)
			rc = skip_active(ctx, a, plan, todo, &ntodo);
		if (rc) {
			/* said */
		} else if (!ntodo && before) {
			if (!ctx->quiet)
				fprintf(stderr, "dlsched sweep: nothing to submit: every run not "
						"done is queued or running\n");
		} else if (!ntodo) {
			rc = collect_if_done(ctx, plan, a->dir, 1);
		} else if ((rc = merge_slurm_options(ctx, a, &so, &saved))) {
			/* said */
		} else if (dl_sweep_write_sbatch(a->dir, exe, todo, ntodo, &so, &err) ||
			   dl_sweep_slurm_write(a->dir, &so, &err)) {
			rc = dl_fail(ctx, &err);
		} else if (a->submit) {
			rc = run_sbatch(ctx, a->dir);
			if (!rc && a->wait)
				rc = wait_for_arrays(ctx, plan, a->dir);
			if (!rc && a->wait) {
				rc = collect_if_done(ctx, plan, a->dir, 1);
				int st = do_status(ctx, plan, a->dir);
				rc = rc ? rc : st;
			}
		} else if (!ctx->quiet) {
			fprintf(stderr,
				"dlsched sweep: wrote %s/sweep.sbatch; submit it with sbatch\n",
				a->dir);
		}
		dl_sweep_slurm_release(&saved);
	} else {
		size_t nfailed = 0;
		int tty = ctx->stderr_is_tty && !ctx->quiet;
		if (dl_sweep_run_local(plan, todo, ntodo, a->dir, exe, (long)a->jobs,
				       tty ? progress_cb : NULL, ctx, &nfailed, &err))
			rc = dl_fail(ctx, &err);
		if (!rc)
			rc = collect_if_done(ctx, plan, a->dir, 1);
		if (!rc && nfailed) {
			for (size_t k = 0; k < ntodo; k++) {
				if (dl_sweep_row_state(plan, todo[k], a->dir) != DL_SWEEP_FAILED)
					continue;
				struct strbuf why = STRBUF_INIT, d = STRBUF_INIT;
				describe(&d, plan, todo[k]);
				dl_sweep_row_failure(plan, todo[k], a->dir, &why);
				dl_error(ctx, "run %s failed: %s (see %s/runs/%s/stderr)", d.buf,
					 why.buf, a->dir, plan->rows[todo[k]].id);
				sb_release(&why);
				sb_release(&d);
			}
			rc = dl_error(ctx, "%zu of %zu runs failed; summary.csv has the others",
				      nfailed, ntodo);
		}
	}
	free(todo);
	return rc;
}

/* DIR as every run and Slurm task sees it: absolute, without a trailing slash */
static char *abs_dir(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	if (dir[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		sb_addf(&sb, "%s/", cwd);
	}
	sb_addstr(&sb, dir);
	while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
		sb_setlen(&sb, sb.len - 1);
	return sb_detach(&sb);
}

DL_COMMAND(sweep, "run policy experiments over grids, here in parallel or as Slurm arrays")
{
	struct dl_optstate st;
	struct sweep_args a;
	int rc = 0;
	memset(&a, 0, sizeof(a));
	if (dl_opt_parse(&st, ctx, argc, argv, &sweep_spec, &a))
		rc = st.exit_code ? st.exit_code : -1;
	int jobs_set = !rc && dl_opt_given(&st, "jobs");
	int task_set = !rc && dl_opt_given(&st, "task");
	if (a.submit)
		a.slurm = 1;
	a.so.cpus_per_task = (long)a.cpus;
	if (!rc && st.optind != argc - 1)
		rc = dl_usage_error(ctx, st.optind >= argc ? "no sweep directory"
							   : "one sweep directory at most");
	int modes = a.status + task_set + a.emit + a.slurm + (a.wait && !a.submit);
	if (!rc && modes > 1)
		rc = dl_usage_error(ctx, "--status, --task, --emit, --slurm and --wait (but with "
					 "--submit) exclude each other");
	if (!rc && a.force && !a.submit)
		rc = dl_usage_error(ctx, "--force is for --submit");
	if (!rc && a.wait && !a.submit && (a.axes.n || a.sets.n || a.timeline))
		rc = dl_usage_error(ctx, "--wait alone reads the plan in DIR: no --axis or --set");
	if (!rc && (a.status || task_set) && (a.axes.n || a.sets.n || a.timeline))
		rc = dl_usage_error(ctx,
				    "--status and --task read the plan in DIR: no --axis or --set");
	if (!rc && !a.slurm &&
	    (a.so.partition || a.so.time || a.so.mem || a.so.account || a.cpus || a.extra.n))
		rc = dl_usage_error(ctx, "--partition, --time, --mem, --account, --cpus-per-task "
					 "and --sbatch-option need --slurm");
	if (rc) {
		dl_strlist_free(&a.axes);
		dl_strlist_free(&a.sets);
		dl_strlist_free(&a.extra);
		return rc < 0 ? 0 : rc;
	}
	a.so.extra = a.extra.v;
	a.so.nextra = a.extra.n;
	struct dl_err verr = DL_ERR_INIT;
	const char *ctl = dl_find_control(argv[argc - 1]);
	if (ctl)
		rc = dl_usage_error(ctx, "the sweep directory has a control character (0x%02x)",
				    (unsigned)(unsigned char)*ctl);
	else if (dl_sweep_slurm_check(&a.so, &verr))
		rc = dl_usage_error(ctx, "%s", verr.msg);
	if (rc) {
		dl_strlist_free(&a.axes);
		dl_strlist_free(&a.sets);
		dl_strlist_free(&a.extra);
		return rc;
	}
	if (a.slurm && jobs_set)
		a.so.max_running = (long)a.jobs;
	if (!jobs_set) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		a.jobs = n > 0 ? n : 1;
	}
	char *dir = abs_dir(argv[argc - 1]);
	char *exe = self_exe();
	struct dl_sweep_plan plan;
	memset(&plan, 0, sizeof(plan));
	a.dir = dir;
	if (!dir || !exe)
		rc = dl_error(ctx, "cannot find %s", dir ? "the dlsched binary" : "the directory");
	if (!rc)
		rc = load_plan(ctx, &a, &plan);
	if (!rc) {
		if (a.status) {
			rc = do_status(ctx, &plan, dir);
		} else if (a.wait && !a.submit) {
			rc = wait_for_arrays(ctx, &plan, dir);
			if (!rc)
				rc = collect_if_done(ctx, &plan, dir, 1);
			if (!rc)
				rc = do_status(ctx, &plan, dir);
		} else if (task_set)
			rc = do_task(ctx, &plan, dir, exe, a.task);
		else
			rc = do_run(ctx, &a, &plan, exe);
	}
	dl_sweep_plan_release(&plan);
	free(dir);
	free(exe);
	dl_strlist_free(&a.axes);
	dl_strlist_free(&a.sets);
	dl_strlist_free(&a.extra);
	return rc;
}
