/* advise.c: order a live Slurm queue by a priority policy (work in lib/advise/) */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "advise/advise.h"
#include "cluster/cluster.h"
#include "cmd.h"

struct advise_args {
	int policy;			  /* enum dl_policy */
	struct dl_mlfq_params mlfq;	  /* the MLFQ options (lib/policy/mlfq.h) */
	struct dl_gittins_params gittins; /* the Gittins options (lib/policy/gittins.h) */
	double cluster_gpus;
	double now;
	const char *queue, *sacct, *cluster;
	double max_age;
	int mech; /* enum dl_adv_mech */
	struct dl_strlist partitions, users, accounts;
	int apply;
	const char *log, *undo;
};

#define AT(f) DL_OPT_AT(struct advise_args, f)
static const struct dl_opt advise_opts[] = {
	{DL_OPT_CHOICE, 'p', "policy", "POLICY", "priority policy (required)", AT(policy),
	 .value_at = dl_policy_at},
	{DL_OPT_DOUBLE, 0, "cluster-gpus", "G",
	 "ftf: GPUs shared by the jobs (instead of the cluster's)", AT(cluster_gpus)},
	{DL_OPT_DOUBLE, 0, "now", "TIME", "time of the decision, Unix seconds", AT(now),
	 .def_doc = "the clock"},
	{DL_OPT_FILE, 0, "queue", "FILE", "the queue: squeue --json or -o output", AT(queue),
	 .def_doc = "run squeue"},
	{DL_OPT_FILE, 0, "sacct", "FILE", "attained service: sacct -P -D output", AT(sacct),
	 .def_doc = "run sacct"},
	{DL_OPT_STRING, 0, "cluster", "SPEC", "ftf: the cluster (scontrol show node -o output)",
	 AT(cluster), .def_doc = "run scontrol"},
	{DL_OPT_SECONDS, 0, "max-age", "SECONDS", "refuse a --queue file older than this (0: any)",
	 AT(max_age), .def = "300"},
	{DL_OPT_CHOICE, 'm', "mechanism", "HOW", "what the commands change", AT(mech),
	 .value_at = dl_adv_mech_at, .def = "nice"},
	{DL_OPT_STRINGS, 0, "partition", "NAME", "touch only jobs of this partition (repeatable)",
	 AT(partitions)},
	{DL_OPT_STRINGS, 0, "user", "NAME", "touch only jobs of this user (repeatable)", AT(users)},
	{DL_OPT_STRINGS, 0, "account", "NAME", "touch only jobs of this account (repeatable)",
	 AT(accounts)},
	{DL_OPT_FLAG, 0, "apply", NULL, "run the commands (default: print them)", AT(apply)},
	{DL_OPT_STRING, 0, "log", "FILE", "the audit log --apply and --undo append to", AT(log),
	 .flags = DL_OPTF_NONEMPTY},
	{DL_OPT_FILE, 0, "undo", "LOG", "restore what the applies in LOG changed", AT(undo)},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec advise_spec = {
	.usage = "dlsched advise --policy POLICY [options]\n"
		 "dlsched advise --policy POLICY --apply --log FILE [options]\n"
		 "dlsched advise --undo LOG [--log FILE] [options]",
	.description =
		"Order the pending jobs of a Slurm queue by a prioritize policy and print the\n"
		"scontrol commands that make Slurm's order that order (a dry run); --apply runs\n"
		"them and appends each to an audit log, --undo restores what a log changed.\n"
		"The queue, the accounting and the node list are read from squeue, sacct and\n"
		"scontrol, or from files (--queue, --sacct, --cluster).",
	.opts = advise_opts,
	.flags = DL_SPEC_NO_INPUT,
	.format_default = "text",
};

/* the policy's configuration, as prioritize builds it */
struct policy_setup {
	struct dl_prio_config cfg;
	struct dl_mlfq mlfq;
	struct dl_gittins *git;
};

static int setup_policy(const struct dl_ctx *ctx, const struct advise_args *a,
			struct policy_setup *ps)
{
	struct dl_err err = DL_ERR_INIT;
	if ((a->cluster_gpus > 0 || a->cluster) && a->policy != DL_POLICY_FTF)
		return dl_usage_error(ctx,
				      "--cluster-gpus and --cluster apply to --policy ftf only");
	if (dl_prio_config_from_params(&ps->cfg, (enum dl_policy)a->policy, &a->mlfq, &a->gittins,
				       &ps->mlfq, &ps->git, &err) == 0) {
		ps->cfg.now = a->now;
		ps->cfg.has_now = a->policy == DL_POLICY_FTF;
		dl_prio_check(&ps->cfg, &err);
	}
	if (err.code)
		return err.code == DL_EXIT_USAGE ? dl_usage_error(ctx, "%s", err.msg)
						 : dl_fail(ctx, &err);
	return 0;
}

/* the queue from --queue (checked for age) or from squeue */
static int read_queue(const struct dl_ctx *ctx, const struct advise_args *a, struct dl_adv_queue *q)
{
	struct dl_err err = DL_ERR_INIT;
	struct strbuf text = STRBUF_INIT;
	const char *name = a->queue;
	int rc;
	if (a->queue) {
		struct stat st;
		if (strcmp(a->queue, "-") && !stat(a->queue, &st) && a->max_age > 0 &&
		    a->now - (double)st.st_mtime > a->max_age) {
			return dl_error(ctx,
					"%s: stale queue: written %.0f s before --now, more than "
					"--max-age %g s",
					a->queue, a->now - (double)st.st_mtime, a->max_age);
		}
		rc = dl_read_file(a->queue, &text, &err);
	} else {
		/* squeue --json where this Slurm has it, else the fixed -o format */
		char *json[] = {"squeue", "--json", NULL};
		char *fmt[] = {"squeue", "-a", "-r", "-t", "PD,R", "-o", DL_ADV_SQUEUE_FORMAT,
			       NULL};
		int status = 0;
		name = "squeue";
		rc = dl_adv_run(json, &text, &status, &err);
		if (!rc && status) {
			sb_reset(&text);
			rc = dl_adv_run(fmt, &text, &status, &err);
			if (!rc && status)
				rc = dl_err_set(&err, DL_EXIT_DATA,
						"squeue failed (exit status %d)", status);
		}
	}
	if (!rc)
		rc = dl_adv_queue_parse(q, name, text.buf ? text.buf : "", text.len, &err);
	sb_release(&text);
	return rc ? dl_fail(ctx, &err) : 0;
}

/* the attained service: from --sacct, or from sacct on the queue's jobs */
static int read_service(const struct dl_ctx *ctx, const struct advise_args *a,
			const struct dl_prio_config *cfg, struct dl_adv_queue *q)
{
	struct dl_err err = DL_ERR_INIT;
	unsigned needs = dl_prio_needs(cfg);
	int rc;
	if (!(needs & (DL_NEED_EXECUTED | DL_NEED_ATTAINED | DL_NEED_REMAINING)))
		return 0;
	if (a->sacct || !q->n) {
		rc = dl_adv_attained(q, a->sacct, a->now, &err);
		return rc ? dl_fail(ctx, &err) : 0;
	}
	struct strbuf ids = STRBUF_INIT;
	for (size_t i = 0; i < q->n; i++)
		if (!strchr(q->jobs[i].id, '[')) /* (sacct takes no task ranges) */
			sb_addf(&ids, "%s%s", ids.len ? "," : "", q->jobs[i].id);
	char *argv[] = {"sacct",
			"-a",
			"-X",
			"-D",
			"-P",
			"-o",
			"JobID,User,Account,Partition,Submit,Start,End,ElapsedRaw,AllocTRES,State",
			"-j",
			ids.buf,
			NULL};
	char *path = NULL;
	rc = ids.len ? dl_adv_run_to_file(argv, &path, &err) : 0;
	if (!rc)
		rc = dl_adv_attained(q, path, a->now, &err);
	if (path) {
		unlink(path);
		free(path);
	}
	sb_release(&ids);
	return rc ? dl_fail(ctx, &err) : 0;
}

/* ftf's share: --cluster-gpus, else the GPUs of --cluster or of scontrol show node -o */
static int read_cluster(const struct dl_ctx *ctx, const struct advise_args *a,
			struct dl_prio_config *cfg)
{
	struct dl_err err = DL_ERR_INIT;
	cfg->cluster_gpus = a->cluster_gpus;
	if (cfg->policy != DL_POLICY_FTF || a->cluster_gpus > 0)
		return 0;
	char *path = NULL;
	char *argv[] = {"scontrol", "show", "node", "-o", NULL};
	if (!a->cluster && dl_adv_run_to_file(argv, &path, &err))
		return dl_fail(ctx, &err);
	struct dl_cluster *c = NULL;
	int rc = dl_cluster_load(a->cluster ? a->cluster : path, &c, &err);
	if (path) {
		unlink(path);
		free(path);
	}
	if (rc)
		return dl_fail(ctx, &err);
	cfg->cluster_gpus = c->total_gpus;
	dl_cluster_free(c);
	return 0;
}

static int open_log(const struct dl_ctx *ctx, const char *path, int *fd)
{
	*fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return dl_error(ctx, "%s: %s", path, strerror(errno));
	return 0;
}

/* run one change and log it: 0 when scontrol succeeded, 1 when it failed, 2 when it did not run */
static int change(const struct dl_ctx *ctx, int fd, const char *log, struct dl_adv_audit *au,
		  enum dl_adv_mech mech, int64_t value)
{
	struct dl_err err = DL_ERR_INIT;
	struct strbuf buf = STRBUF_INIT, line = STRBUF_INIT;
	char *argv[5];
	dl_adv_command(au->job, mech, value, &buf, argv);
	sb_add_command(&line, argv[0], 3, argv + 1);
	au->mech = mech;
	au->after = value;
	au->command = line.buf;
	au->time = (double)time(NULL);
	int rc = dl_adv_run(argv, NULL, &au->exit_status, &err);
	if (rc)
		au->exit_status = 127;
	if (fd >= 0 && dl_adv_audit_write(fd, log, au, &err))
		rc = -1;
	if (rc)
		dl_fail(ctx, &err);
	else if (au->exit_status)
		dl_error(ctx, "'%s' failed (exit status %d)", line.buf, au->exit_status);
	sb_release(&buf);
	sb_release(&line);
	return rc ? 2 : au->exit_status != 0;
}

static int apply_plan(const struct dl_ctx *ctx, const struct advise_args *a,
		      const struct dl_adv_plan *p)
{
	int fd, failed = 0;
	size_t tried = 0;
	if (open_log(ctx, a->log, &fd))
		return DL_EXIT_DATA;
	for (size_t r = 0; r < p->n; r++) {
		const struct dl_adv_item *it = &p->items[r];
		if (!it->change)
			continue;
		struct dl_adv_audit au = {.action = "apply",
					  .policy = dl_policy_name((enum dl_policy)a->policy),
					  .job = it->job->id,
					  .user = it->job->user,
					  .before = it->before};
		int c = change(ctx, fd, a->log, &au, p->mech, it->after);
		failed += c != 0;
		tried++;
		if (c == 2) /* (scontrol cannot run, or the log cannot be written: stop) */
			break;
	}
	close(fd);
	if (failed)
		return dl_error(ctx, "%d of %zu changes failed, %zu not tried (see %s)", failed,
				p->nchanges, p->nchanges - tried, a->log);
	dl_info(ctx, "%zu changes applied, logged in %s", p->nchanges, a->log);
	return 0;
}

static int undo(const struct dl_ctx *ctx, const struct advise_args *a,
		const struct dl_adv_filter *f)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_adv_restore *r;
	size_t nr;
	if (dl_adv_audit_read(a->undo, &r, &nr, &err))
		return dl_fail(ctx, &err);
	struct dl_adv_queue q;
	int rc = read_queue(ctx, a, &q);
	if (rc) {
		dl_adv_restore_free(r, nr);
		return rc;
	}
	int fd = -1, failed = 0;
	size_t done = 0;
	if (a->log && open_log(ctx, a->log, &fd)) {
		dl_adv_restore_free(r, nr);
		dl_adv_queue_release(&q);
		return DL_EXIT_DATA;
	}
	printf("# dlsched advise: undo %s: %zu job%s changed\n", a->undo, nr, nr == 1 ? "" : "s");
	for (size_t k = 0; k < nr; k++) {
		const struct dl_adv_job *j = NULL;
		for (size_t i = 0; i < q.n && !j; i++)
			if (!strcmp(q.jobs[i].id, r[k].job))
				j = &q.jobs[i];
		if (!j || !j->pending || !dl_adv_filter_match(f, j)) {
			printf("# %s: %s, left alone\n", r[k].job,
			       !j	     ? "no longer queued"
			       : !j->pending ? "running"
					     : "outside the filters");
			continue;
		}
		int64_t now = r[k].mech == DL_ADV_NICE ? j->nice : j->priority;
		if (now == r[k].value) {
			printf("# %s: %s %lld already\n", j->id, dl_adv_field(r[k].mech),
			       (long long)now);
			continue;
		}
		struct strbuf buf = STRBUF_INIT, line = STRBUF_INIT;
		char *argv[5];
		dl_adv_command(j->id, r[k].mech, r[k].value, &buf, argv);
		sb_add_command(&line, argv[0], 3, argv + 1);
		printf("%s\n", line.buf);
		sb_release(&buf);
		sb_release(&line);
		struct dl_adv_audit au = {
			.action = "undo", .job = j->id, .user = j->user, .before = now};
		int c = change(ctx, fd, a->log, &au, r[k].mech, r[k].value);
		failed += c != 0;
		done++;
		if (c == 2)
			break;
	}
	if (fd >= 0)
		close(fd);
	dl_adv_restore_free(r, nr);
	dl_adv_queue_release(&q);
	if (failed)
		return dl_error(ctx, "%d of %zu restores failed", failed, done);
	return 0;
}

static int advise(const struct dl_ctx *ctx, const struct advise_args *a,
		  const struct dl_adv_filter *f)
{
	struct policy_setup ps = {0};
	struct dl_adv_queue q = {0};
	struct dl_adv_plan p = {0};
	struct dl_err err = DL_ERR_INIT;
	int rc = setup_policy(ctx, a, &ps);
	if (!rc)
		rc = read_queue(ctx, a, &q);
	if (!rc)
		rc = read_service(ctx, a, &ps.cfg, &q);
	if (!rc)
		rc = read_cluster(ctx, a, &ps.cfg);
	if (!rc && dl_adv_plan_build(&q, &ps.cfg, f, (enum dl_adv_mech)a->mech, a->now, &p, &err))
		rc = dl_fail(ctx, &err);
	if (rc)
		goto out;
	/* the plan is out in full before anything runs */
	struct dl_output *o = dl_out_open(ctx, ctx->output);
	if (!o) {
		rc = DL_EXIT_DATA;
		goto out;
	}
	if (ctx->format_set) {
		struct dl_writer *w = dl_out_writer(ctx, o);
		dl_adv_plan_rows(&p, w);
		dl_writer_free(w);
	} else {
		struct strbuf sb = STRBUF_INIT;
		dl_adv_plan_text(&p, dl_policy_name(ps.cfg.policy), &sb);
		fwrite(sb.buf ? sb.buf : "", 1, sb.len, dl_output_fp(o));
		sb_release(&sb);
	}
	rc = dl_out_close(ctx, o, 0);
	if (!rc && a->apply)
		rc = apply_plan(ctx, a, &p);
out:
	dl_adv_plan_release(&p);
	dl_adv_queue_release(&q);
	dl_gittins_free(ps.git);
	dl_mlfq_release(&ps.mlfq);
	return rc;
}

DL_COMMAND(advise, "apply a priority policy to a live Slurm queue (a dry run unless --apply)")
{
	struct dl_optstate st;
	struct advise_args a = {0};
	const struct dl_opt_group groups[] = {
		{dl_gittins_opts, &a.gittins, NULL, 0, NULL},
		{dl_mlfq_opts, &a.mlfq, NULL, 0, NULL},
	};
	int rc;
	if (dl_opt_parse_groups(&st, ctx, argc, argv, &advise_spec, &a, groups, 2))
		return st.exit_code;
	if (st.optind < argc)
		return dl_usage_error(ctx,
				      "no arguments expected (got '%s'): the inputs are "
				      "--queue, --sacct and --cluster",
				      argv[st.optind]);
	if (!dl_opt_given(&st, "now"))
		a.now = (double)time(NULL);
	struct dl_adv_filter f = {a.partitions.v, a.users.v, a.accounts.v,
				  a.partitions.n, a.users.n, a.accounts.n};
	if (a.undo) {
		if (dl_opt_given(&st, "policy") || a.apply)
			rc = dl_usage_error(ctx, "--undo restores a log: no --policy or --apply");
		else
			rc = undo(ctx, &a, &f);
	} else if (!dl_opt_given(&st, "policy")) {
		rc = dl_usage_error(ctx, "--policy is required");
	} else if (a.apply && !a.log) {
		rc = dl_usage_error(ctx, "--apply needs --log FILE (the audit log --undo reads)");
	} else if (a.log && !a.apply) {
		rc = dl_usage_error(ctx, "--log applies to --apply and --undo");
	} else {
		rc = advise(ctx, &a, &f);
	}
	dl_strlist_free(&a.partitions);
	dl_strlist_free(&a.users);
	dl_strlist_free(&a.accounts);
	return rc;
}
