/* queue.c: the live queue from squeue (JSON or the -o text) and its attained service */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "core/num.h"
#include "core/strmap.h"
#include "core/xalloc.h"
#include "trace/import.h"
#include "trace/jobs.h"

void dl_adv_queue_release(struct dl_adv_queue *q)
{
	for (size_t i = 0; i < q->n; i++) {
		free(q->jobs[i].id);
		free(q->jobs[i].user);
		free(q->jobs[i].account);
		free(q->jobs[i].partition);
	}
	free(q->jobs);
	free(q->name);
	memset(q, 0, sizeof(*q));
}

static struct dl_adv_job *add_job(struct dl_adv_queue *q)
{
	if (q->n == q->alloc) {
		q->alloc = q->alloc ? 2 * q->alloc : 16;
		q->jobs = xreallocarray(q->jobs, q->alloc, sizeof(*q->jobs));
	}
	struct dl_adv_job *j = &q->jobs[q->n++];
	memset(j, 0, sizeof(*j));
	j->elapsed = -1;
	return j;
}

/* Job ids reach scontrol: digits, or an array task "N_M" / "N_[RANGES]" */
static int good_job_id(const char *s)
{
	size_t d = strspn(s, "0123456789");
	if (!d || d > 20)
		return 0;
	s += d;
	if (!*s)
		return 1;
	if (*s++ != '_')
		return 0;
	if (*s == '[') {
		size_t r = strspn(s + 1, "0123456789,-%");
		return r && s[1 + r] == ']' && !s[2 + r];
	}
	d = strspn(s, "0123456789");
	return d && d <= 20 && !s[d];
}

/* STATE: 1 pending, 2 running, 0 anything else (completing, finished: not in the queue) */
static int state_kind(const char *s)
{
	if (!strcmp(s, "PENDING") || !strcmp(s, "PD"))
		return 1;
	if (!strcmp(s, "RUNNING") || !strcmp(s, "R") || !strcmp(s, "CONFIGURING") ||
	    !strcmp(s, "CF"))
		return 2;
	return 0;
}

/*
 * squeue's TRES_PER_NODE ("gres:gpu:v100:2", "gres/gpu:v100=2", "N/A") as GPUs
 * per node, through the sacct importer's TRES reader
 */
static int gpus_per_node(const char *s, int64_t *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = s;
	*out = 0;
	if (!*s || !strcmp(s, "N/A") || !strcmp(s, "(null)"))
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (!strncmp(p, "gres:", 5)) {
			p += 5;
			len -= 5;
		}
		if (sb.len)
			sb_addc(&sb, ',');
		sb_add(&sb, p, len);
		p += len;
		if (*p)
			p++;
	}
	int rc = dl_sacct_gpus(sb.buf, out, NULL, NULL);
	sb_release(&sb);
	return rc;
}

/* ---- text: squeue -o DL_ADV_SQUEUE_FORMAT ---- */

enum {
	Q_ID,
	Q_USER,
	Q_ACCOUNT,
	Q_PART,
	Q_SUBMIT,
	Q_NODES,
	Q_TRES,
	Q_LIMIT,
	Q_PRIO,
	Q_NICE,
	Q_STATE,
	Q_TIME,
	Q_N
};
static const char *const q_cols[Q_N] = {
	"JOBID",	 "USER",       "ACCOUNT",  "PARTITION", "SUBMIT_TIME", "NODES",
	"TRES_PER_NODE", "TIME_LIMIT", "PRIORITY", "NICE",	"STATE",       "TIME",
};
/* the columns a queue cannot do without (ACCOUNT, PARTITION and NODES have defaults) */
static const int q_required[] = {Q_ID,	 Q_USER, Q_SUBMIT, Q_TRES, Q_LIMIT,
				 Q_PRIO, Q_NICE, Q_STATE,  Q_TIME};

static int bad(struct dl_err *err, const char *name, long line, const char *col, const char *v,
	       const char *want)
{
	return dl_err_at(err, name, line, "bad %s value '%.64s': expected %s", col, v, want);
}

static int parse_text(struct dl_adv_queue *q, char *text, struct dl_err *err)
{
	int col[Q_N];
	char *f[64];
	size_t ncols = 0;
	long line = 0;
	struct dl_timecache tc = DL_TIMECACHE_INIT;
	for (int c = 0; c < Q_N; c++)
		col[c] = -1;
	char *p = text;
	while (*p) {
		char *nl = strchr(p, '\n');
		char *next = nl ? nl + 1 : p + strlen(p);
		if (nl) {
			*nl = 0;
			if (nl > p && nl[-1] == '\r')
				nl[-1] = 0;
		}
		line++;
		char *s = p;
		p = next;
		if (!*s)
			continue;
		if (!ncols) {
			ncols = dl_split_fields(s, '|', f, 64);
			if (ncols > 64)
				return dl_err_at(err, q->name, line, "more than 64 columns");
			for (size_t i = 0; i < ncols; i++)
				for (int c = 0; c < Q_N; c++)
					if (!strcmp(f[i], q_cols[c]) && col[c] < 0)
						col[c] = (int)i;
			for (size_t k = 0; k < DL_ARRAY_SIZE(q_required); k++)
				if (col[q_required[k]] < 0)
					return dl_err_at(err, q->name, line,
							 "missing column '%s' (squeue -o '%s', "
							 "with its header line)",
							 q_cols[q_required[k]],
							 DL_ADV_SQUEUE_FORMAT);
			continue;
		}
		size_t n = dl_split_fields(s, '|', f, 64);
		if (n != ncols)
			return dl_err_at(err, q->name, line,
					 "expected %zu '|'-separated fields, found %zu", ncols, n);
		int kind = state_kind(f[col[Q_STATE]]);
		if (!kind)
			continue;
		const char *v = f[col[Q_ID]];
		if (!good_job_id(v))
			return bad(err, q->name, line, "JOBID", v,
				   "a job id (digits, or an array task N_M)");
		struct dl_adv_job *j = add_job(q);
		j->line = line;
		j->pending = kind == 1;
		j->id = xstrdup(v);
		j->user = xstrdup(f[col[Q_USER]]);
		/* squeue -o writes "(null)" where --json has "": no account */
		v = col[Q_ACCOUNT] >= 0 ? f[col[Q_ACCOUNT]] : "";
		j->account = xstrdup(strcmp(v, "(null)") ? v : "");
		j->partition = xstrdup(col[Q_PART] >= 0 ? f[col[Q_PART]] : "");
		if (!*j->user)
			return dl_err_at(err, q->name, line, "empty USER value");
		v = f[col[Q_SUBMIT]];
		if (dl_parse_localtime(v, strlen(v), &tc, &j->submit))
			return bad(err, q->name, line, "SUBMIT_TIME", v, "YYYY-MM-DDTHH:MM:SS");
		int64_t nodes = 1;
		if (col[Q_NODES] >= 0 &&
		    (dl_parse_int64(f[col[Q_NODES]], &nodes) || nodes < 1 || nodes > 1000000))
			return bad(err, q->name, line, "NODES", f[col[Q_NODES]],
				   "a node count >= 1");
		v = f[col[Q_TRES]];
		if (gpus_per_node(v, &j->gpus) || j->gpus > 1000000)
			return bad(err, q->name, line, "TRES_PER_NODE", v,
				   "gres:gpu[:TYPE]:N entries or N/A");
		j->gpus *= nodes;
		v = f[col[Q_LIMIT]];
		if (!strcmp(v, "UNLIMITED") || !strcmp(v, "INFINITE") || !strcmp(v, "NOT_SET"))
			j->limit = -1;
		else if (dl_slurm_duration(v, &j->limit))
			return bad(err, q->name, line, "TIME_LIMIT", v,
				   "[D-]HH:MM:SS, MM:SS or UNLIMITED");
		v = f[col[Q_TIME]];
		if (dl_slurm_duration(v, &j->elapsed))
			return bad(err, q->name, line, "TIME", v, "[D-]HH:MM:SS or MM:SS");
		if (j->pending)
			j->elapsed = 0;
		v = f[col[Q_PRIO]];
		if (dl_parse_int64(v, &j->priority) || j->priority < 0)
			return bad(err, q->name, line, "PRIORITY", v, "an integer >= 0");
		v = f[col[Q_NICE]];
		if (dl_parse_int64(v, &j->nice) || j->nice < -2147483645LL ||
		    j->nice > 2147483645LL)
			return bad(err, q->name, line, "NICE", v, "an integer");
	}
	if (!ncols)
		return dl_err_at(err, q->name, 0, "empty input: no squeue header line");
	return 0;
}

/* ---- JSON: squeue --json ---- */

/* a number member (plain, or Slurm 23's {"set", "infinite", "number"}); 0 absent, 1, 2 infinite */
static int json_num(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);
	if (json_is_object(v)) {
		json_t *set = json_object_get(v, "set"), *inf = json_object_get(v, "infinite");
		if (json_is_true(inf))
			return 2;
		if (json_is_false(set))
			return 0;
		v = json_object_get(v, "number");
	}
	if (!json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return 1;
}

static const char *json_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_array(v)) /* job_state is a list of flags in Slurm 23 */
		v = json_array_get(v, 0);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int parse_json(struct dl_adv_queue *q, const char *text, size_t len, struct dl_err *err)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root)
		return dl_err_at(err, q->name, je.line, "bad JSON: %s", je.text);
	int rc = -1;
	json_t *jobs = json_object_get(root, "jobs");
	if (!json_is_array(jobs)) {
		dl_err_at(err, q->name, 0, "no \"jobs\" list (expected squeue --json output)");
		goto out;
	}
	struct strbuf id = STRBUF_INIT;
	for (size_t i = 0; i < json_array_size(jobs); i++) {
		json_t *o = json_array_get(jobs, i);
		long at = (long)i + 1;
		const char *state = json_str(o, "job_state");
		if (!json_is_object(o) || !state) {
			dl_err_at(err, q->name, 0, "job %ld: no job_state", at);
			goto fail;
		}
		int kind = state_kind(state);
		if (!kind)
			continue;
		double jid, aid = 0, tid;
		if (json_num(o, "job_id", &jid) != 1 || jid < 1 || jid != floor(jid)) {
			dl_err_at(err, q->name, 0, "job %ld: no job_id", at);
			goto fail;
		}
		sb_reset(&id);
		const char *tasks = json_str(o, "array_task_string");
		if (json_num(o, "array_job_id", &aid) == 1 && aid >= 1 &&
		    json_num(o, "array_task_id", &tid) == 1 && tid >= 0)
			sb_addf(&id, "%.0f_%.0f", aid, tid);
		else if (aid >= 1 && tasks && *tasks)
			sb_addf(&id, "%.0f_[%s]", aid, tasks);
		else
			sb_addf(&id, "%.0f", jid);
		if (!good_job_id(id.buf)) {
			dl_err_at(err, q->name, 0, "job %ld: bad job id '%.64s'", at, id.buf);
			goto fail;
		}
		struct dl_adv_job *j = add_job(q);
		j->line = at;
		j->pending = kind == 1;
		j->id = sb_detach(&id);
		const char *u = json_str(o, "user_name"), *a = json_str(o, "account"),
			   *p = json_str(o, "partition");
		j->user = xstrdup(u ? u : "");
		j->account = xstrdup(a ? a : "");
		j->partition = xstrdup(p ? p : "");
		if (!*j->user) {
			dl_err_at(err, q->name, 0, "job %s: no user_name", j->id);
			goto fail;
		}
		double v, now = 0;
		if (json_num(o, "submit_time", &j->submit) != 1 || j->submit < 0) {
			dl_err_at(err, q->name, 0, "job %s: no submit_time", j->id);
			goto fail;
		}
		int lim = json_num(o, "time_limit", &v);
		j->limit = lim == 1 && v > 0 && v < 4294967294.0 ? v * 60 : -1;
		if (!json_num(o, "priority", &v) || v < 0 || v != floor(v)) {
			dl_err_at(err, q->name, 0, "job %s: no priority", j->id);
			goto fail;
		}
		j->priority = (int64_t)v;
		j->nice = 0; /* (Slurm 22.05 writes null for 0) */
		if (json_num(o, "nice", &v) == 1) {
			/* Slurm 22.05 writes a negative nice as an unsigned 32-bit number */
			if (v >= 2147483648.0 && v < 4294967296.0)
				v -= 4294967296.0;
			if (v != floor(v) || fabs(v) > 2147483645.0) {
				dl_err_at(err, q->name, 0, "job %s: bad nice", j->id);
				goto fail;
			}
			j->nice = (int64_t)v;
		}
		const char *tres = json_str(o, j->pending ? "tres_req_str" : "tres_alloc_str");
		if (!tres || !*tres)
			tres = json_str(o, "tres_req_str");
		if (tres && dl_sacct_gpus(tres, &j->gpus, NULL, NULL)) {
			dl_err_at(err, q->name, 0, "job %s: bad TRES '%.64s'", j->id, tres);
			goto fail;
		}
		j->elapsed = 0;
		if (!j->pending && json_num(o, "start_time", &j->start) == 1) {
			/* no elapsed time in squeue --json: the run up to the dump, else to now */
			if (json_num(root, "last_update", &now) == 1)
				j->elapsed = now > j->start ? now - j->start : 0;
			else
				j->elapsed = -1;
		}
	}
	rc = 0;
	goto out;
fail:
	sb_release(&id);
out:
	json_decref(root);
	return rc;
}

int dl_adv_queue_parse(struct dl_adv_queue *q, const char *name, const char *text, size_t len,
		       struct dl_err *err)
{
	memset(q, 0, sizeof(*q));
	q->name = xstrdup(name);
	size_t skip = 0;
	while (skip < len && strchr(" \t\r\n", text[skip]))
		skip++;
	int rc;
	if (skip < len && text[skip] == '{') {
		rc = parse_json(q, text, len, err);
	} else {
		char *copy = xstrndup(text, len);
		if (strlen(copy) != len)
			rc = dl_err_at(err, name, 0, "binary data (a NUL byte): not squeue output");
		else
			rc = parse_text(q, copy, err);
		free(copy);
	}
	if (rc)
		dl_adv_queue_release(q);
	return rc;
}

int dl_adv_attained(struct dl_adv_queue *q, const char *path, double now, struct dl_err *err)
{
	struct strmap ids = STRMAP_INIT;
	for (size_t i = 0; i < q->n; i++) {
		struct dl_adv_job *j = &q->jobs[i];
		if (j->elapsed < 0)
			j->elapsed = now > j->start ? now - j->start : 0;
		j->executed = j->elapsed;
		j->attained = j->elapsed * (double)j->gpus;
		strmap_put(&ids, j->id, (int64_t)i);
	}
	int rc = 0;
	if (path) {
		struct dl_jobset js;
		struct dl_skips sk = {{0}};
		struct dl_import_opts o = {0};
		char *paths[1] = {(char *)path};
		dl_jobset_init(&js);
		/* finished records only: runs that ended (a requeue) before this one */
		rc = dl_import_files(&js, DL_IMP_SACCT, paths, 1, &o, &sk, err);
		for (size_t k = 0; !rc && k < js.n; k++) {
			const struct dl_job *r = &js.jobs[k];
			int64_t *at = strmap_get(&ids, r->id);
			if (!at)
				continue;
			struct dl_adv_job *j = &q->jobs[*at];
			j->executed += r->duration;
			j->attained += r->duration * (double)r->gpus;
		}
		dl_jobset_free(&js);
	}
	strmap_free(&ids);
	return rc;
}
