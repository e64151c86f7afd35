/* plan.c: the policy's order of the pending jobs, and the fewest changes that realise it */
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "core/common.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "table/table.h"

/* Slurm's bounds: a priority of 0 holds a job; nice is within +-(2^31 - 3) */
#define PRIO_MIN 1
#define PRIO_MAX 4294967294LL
#define NICE_MAX 2147483645LL

static const char *const mech_names[] = {"nice", "priority", NULL};

const char *dl_adv_mech_at(size_t i)
{
	return i < DL_ARRAY_SIZE(mech_names) ? mech_names[i] : NULL;
}

const char *dl_adv_field(enum dl_adv_mech mech)
{
	return mech == DL_ADV_NICE ? "Nice" : "Priority";
}

/* value is in a comma-separated list (a job pending in several partitions) */
static int in_list(const char *const *want, size_t n, const char *value)
{
	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(want[i]);
		for (const char *p = value; *p;) {
			size_t l = strcspn(p, ",");
			if (l == len && !strncmp(p, want[i], len))
				return 1;
			p += l;
			if (*p)
				p++;
		}
	}
	return 0;
}

int dl_adv_filter_match(const struct dl_adv_filter *f, const struct dl_adv_job *j)
{
	return in_list(f->partitions, f->npartitions, j->partition) &&
	       in_list(f->users, f->nusers, j->user) &&
	       in_list(f->accounts, f->naccounts, j->account);
}

void dl_adv_command(const char *job, enum dl_adv_mech mech, int64_t value, struct strbuf *buf,
		    char *argv[5])
{
	sb_reset(buf);
	sb_addf(buf, "scontrol%cupdate%cJobId=%s%c%s=%lld", 0, 0, job, 0, dl_adv_field(mech),
		(long long)value);
	argv[0] = buf->buf;
	for (int k = 1; k < 4; k++)
		argv[k] = argv[k - 1] + strlen(argv[k - 1]) + 1;
	argv[4] = NULL;
}

/* today's order: priority, highest first, then submit time; input order breaks ties */
static int today_cmp(const void *a, const void *b, void *ctx)
{
	const struct dl_adv_job *const *jobs = ctx;
	const struct dl_adv_job *x = jobs[*(const size_t *)a], *y = jobs[*(const size_t *)b];
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return (x->submit > y->submit) - (x->submit < y->submit);
}

/*
 * Which jobs keep their priority: p[0..n) are the current priorities in the
 * policy's order. Jobs a < b may both stay when p[a] - p[b] >= b - a (the
 * b - a - 1 jobs between them fit in the gap), i.e. p[a] + a >= p[b] + b: the
 * longest non-increasing subsequence of p[i] + i. keep[i] is set for it.
 */
static void keep_set(const int64_t *p, size_t n, unsigned char *keep)
{
	size_t *tail = xcalloc(n + 1, sizeof(*tail)); /* tail[l]: last index of a run of l+1 */
	size_t *prev = xcalloc(n + 1, sizeof(*prev));
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t c = p[i] + (int64_t)i;
		/* the first run whose last value is < c (non-increasing runs) */
		size_t lo = 0, hi = len;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (p[tail[mid]] + (int64_t)tail[mid] >= c)
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tail[lo - 1] : SIZE_MAX;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	memset(keep, 0, n);
	for (size_t i = len ? tail[len - 1] : SIZE_MAX; i != SIZE_MAX; i = prev[i])
		keep[i] = 1;
	free(tail);
	free(prev);
}

/* new priorities q[0..n), strictly decreasing, equal to p where keep is set */
static void place(const int64_t *p, const unsigned char *keep, size_t n, int64_t *q)
{
	size_t first = 0;
	while (first < n && !keep[first])
		first++;
	for (size_t i = 0; i < first && i < n; i++)
		q[i] = p[first] + (int64_t)(first - i);
	for (size_t a = first; a < n; a++) {
		if (!keep[a])
			continue;
		q[a] = p[a];
		size_t b = a + 1;
		while (b < n && !keep[b])
			b++;
		if (b == n) {
			for (size_t i = a + 1; i < n; i++)
				q[i] = p[a] - (int64_t)(i - a);
			break;
		}
		/* spread the jobs between two kept ones evenly over their gap */
		int64_t gap = p[a] - p[b], m = (int64_t)(b - a - 1);
		for (int64_t k = 1; k <= m; k++)
			q[a + (size_t)k] = p[a] - k * gap / (m + 1);
	}
}

void dl_adv_plan_release(struct dl_adv_plan *p)
{
	free(p->items);
	memset(p, 0, sizeof(*p));
}

int dl_adv_plan_build(const struct dl_adv_queue *q, const struct dl_prio_config *cfg,
		      const struct dl_adv_filter *f, enum dl_adv_mech mech, double now,
		      struct dl_adv_plan *p, struct dl_err *err)
{
	memset(p, 0, sizeof(*p));
	p->mech = mech;
	/*
	 * sel[0..n): the pending jobs to order; sel[n..m): the other GPU jobs, which
	 * only count as contenders (ftf's n jobs sharing the cluster)
	 */
	const struct dl_adv_job **sel = xcalloc(q->n + 1, sizeof(*sel));
	size_t n = 0, m = 0;
	for (size_t i = 0; i < q->n; i++) {
		const struct dl_adv_job *j = &q->jobs[i];
		if (!j->pending)
			p->nrunning++;
		/* a held job (priority 0) is left alone: any new priority would release it */
		else if (!dl_adv_filter_match(f, j) || j->priority == 0 || j->gpus <= 0)
			p->nskipped++;
		else
			sel[n++] = j;
	}
	m = n;
	for (size_t i = 0; i < q->n; i++) {
		const struct dl_adv_job *j = &q->jobs[i];
		if (j->gpus > 0 && (!j->pending || (j->priority > 0 && !dl_adv_filter_match(f, j))))
			sel[m++] = j;
	}
	struct dl_prio_config c = *cfg;
	c.now = now;
	c.has_now = cfg->policy == DL_POLICY_FTF;
	unsigned needs = dl_prio_needs(&c);
	struct dl_prio_job *pj = xcalloc(m + 1, sizeof(*pj));
	for (size_t i = 0; i < m; i++) {
		const struct dl_adv_job *j = sel[i];
		if ((needs & (DL_NEED_DURATION | DL_NEED_REMAINING)) && j->limit < 0 && i < n) {
			dl_err_at(err, q->name, j->line,
				  "job %s has no time limit, and --policy %s estimates its run "
				  "time by the limit",
				  j->id, dl_policy_name(c.policy));
			free(pj);
			free(sel);
			return -1;
		}
		pj[i].id = j->id;
		pj[i].submit = j->submit > now && c.has_now ? now : j->submit;
		pj[i].gpus = (double)j->gpus;
		/* (a contender's own value is never used: any duration does) */
		pj[i].duration = j->limit > 0 ? j->limit : 1;
		pj[i].executed = j->executed;
		pj[i].attained = j->attained;
		pj[i].waiting = now > j->submit ? now - j->submit : 0;
		pj[i].remaining = pj[i].duration > j->executed ? pj[i].duration - j->executed : 0;
		pj[i].weight = 1;
		pj[i].pos = i;
	}
	size_t *all = dl_prioritize(&c, pj, m), *order = xcalloc(n + 1, sizeof(*order));
	for (size_t r = 0, k = 0; r < m; r++)
		if (all[r] < n)
			order[k++] = all[r];
	free(all);
	size_t *today = xcalloc(n + 1, sizeof(*today));
	for (size_t i = 0; i < n; i++)
		today[i] = i;
	dl_stable_sort(today, n, sizeof(*today), today_cmp, sel, NULL);
	size_t *today_rank = xcalloc(n + 1, sizeof(*today_rank));
	for (size_t r = 0; r < n; r++)
		today_rank[today[r]] = r + 1;

	int64_t *cur = xcalloc(n + 1, sizeof(*cur)), *want = xcalloc(n + 1, sizeof(*want));
	unsigned char *keep = xcalloc(n + 1, 1);
	for (size_t r = 0; r < n; r++)
		cur[r] = sel[order[r]]->priority;
	keep_set(cur, n, keep);
	place(cur, keep, n, want);

	int rc = 0;
	p->items = xcalloc(n + 1, sizeof(*p->items));
	p->n = n;
	for (size_t r = 0; r < n; r++) {
		struct dl_adv_item *it = &p->items[r];
		const struct dl_adv_job *j = sel[order[r]];
		it->job = j;
		it->policy_rank = r + 1;
		it->today_rank = today_rank[order[r]];
		it->new_priority = want[r];
		it->before = mech == DL_ADV_NICE ? j->nice : j->priority;
		it->after = mech == DL_ADV_NICE ? j->nice + (j->priority - want[r]) : want[r];
		it->change = it->after != it->before;
		p->nchanges += it->change;
		if (want[r] < PRIO_MIN || want[r] > PRIO_MAX ||
		    (mech == DL_ADV_NICE && (it->after > NICE_MAX || it->after < -NICE_MAX))) {
			rc = dl_err_at(err, q->name, j->line,
				       "no room for job %s at rank %zu: it would need priority "
				       "%lld, outside Slurm's 1..%lld%s",
				       j->id, r + 1, (long long)want[r], PRIO_MAX,
				       mech == DL_ADV_NICE ? " or a nice beyond +-2147483645" : "");
			break;
		}
	}
	free(keep);
	free(cur);
	free(want);
	free(today_rank);
	free(today);
	free(order);
	free(pj);
	free(sel);
	if (rc)
		dl_adv_plan_release(p);
	return rc;
}

/* the change of one item as the table says it: "nice 0 -> -5", or "-" */
static void change_text(const struct dl_adv_plan *p, const struct dl_adv_item *it,
			struct strbuf *sb)
{
	if (!it->change)
		sb_addstr(sb, "-");
	else
		sb_addf(sb, "%s %lld -> %lld", mech_names[p->mech], (long long)it->before,
			(long long)it->after);
}

static void text_row(struct strbuf *out, const char *const *v, const size_t *width, size_t n)
{
	sb_addstr(out, "#");
	for (size_t c = 0; c < n; c++)
		sb_addf(out, " %-*s", c + 1 < n ? (int)width[c] : 0, v[c]);
	sb_addc(out, '\n');
}

void dl_adv_plan_text(const struct dl_adv_plan *p, const char *policy, struct strbuf *out)
{
	static const char *const head[] = {"job",   "user",	"partition", "policy",
					   "today", "priority", "change"};
	enum { NCOL = DL_ARRAY_SIZE(head) };
	struct strbuf cmd = STRBUF_INIT;
	size_t width[NCOL];
	char *(*cells)[NCOL] = xcalloc(p->n + 1, sizeof(*cells));
	for (size_t c = 0; c < NCOL; c++)
		width[c] = strlen(head[c]);
	for (size_t r = 0; r < p->n; r++) {
		const struct dl_adv_item *it = &p->items[r];
		struct strbuf cell = STRBUF_INIT;
		change_text(p, it, &cell);
		cells[r][6] = sb_detach(&cell);
		cells[r][0] = xstrdup(it->job->id);
		cells[r][1] = xstrdup(it->job->user);
		cells[r][2] = xstrdup(*it->job->partition ? it->job->partition : "-");
		sb_addf(&cell, "%zu", it->policy_rank);
		cells[r][3] = sb_detach(&cell);
		sb_addf(&cell, "%zu", it->today_rank);
		cells[r][4] = sb_detach(&cell);
		sb_addf(&cell, "%lld", (long long)it->job->priority);
		cells[r][5] = sb_detach(&cell);
		for (size_t c = 0; c < NCOL; c++)
			if (strlen(cells[r][c]) > width[c])
				width[c] = strlen(cells[r][c]);
	}
	sb_addf(out, "# dlsched advise: %s over %zu pending job%s (%zu running, %zu left alone), ",
		policy, p->n, p->n == 1 ? "" : "s", p->nrunning, p->nskipped);
	sb_addf(out, "mechanism %s: %zu change%s\n", mech_names[p->mech], p->nchanges,
		p->nchanges == 1 ? "" : "s");
	if (p->n)
		text_row(out, head, width, NCOL);
	for (size_t r = 0; r < p->n; r++)
		text_row(out, (const char *const *)cells[r], width, NCOL);
	for (size_t r = 0; r < p->n; r++) {
		const struct dl_adv_item *it = &p->items[r];
		char *argv[5];
		if (!it->change)
			continue;
		dl_adv_command(it->job->id, p->mech, it->after, &cmd, argv);
		sb_add_command(out, argv[0], 3, argv + 1);
		sb_addc(out, '\n');
	}
	sb_release(&cmd);
	for (size_t r = 0; r < p->n; r++)
		for (size_t c = 0; c < NCOL; c++)
			free(cells[r][c]);
	free(cells);
}

void dl_adv_plan_rows(const struct dl_adv_plan *p, struct dl_writer *w)
{
	static const char *const cols[] = {"job",	  "user",	"account",  "partition",
					   "policy_rank", "today_rank", "priority", "new_priority",
					   "field",	  "before",	"after",    "command"};
	struct strbuf cmd = STRBUF_INIT, line = STRBUF_INIT;
	dl_writer_set_columns(w, cols, DL_ARRAY_SIZE(cols));
	for (size_t r = 0; r < p->n; r++) {
		const struct dl_adv_item *it = &p->items[r];
		char *argv[5];
		dl_writer_str(w, 0, it->job->id);
		dl_writer_str(w, 1, it->job->user);
		dl_writer_str(w, 2, it->job->account);
		dl_writer_str(w, 3, it->job->partition);
		dl_writer_int(w, 4, (int64_t)it->policy_rank);
		dl_writer_int(w, 5, (int64_t)it->today_rank);
		dl_writer_int(w, 6, it->job->priority);
		dl_writer_int(w, 7, it->new_priority);
		dl_writer_str(w, 8, dl_adv_field(p->mech));
		dl_writer_int(w, 9, it->before);
		dl_writer_int(w, 10, it->after);
		if (it->change) {
			dl_adv_command(it->job->id, p->mech, it->after, &cmd, argv);
			sb_reset(&line);
			sb_add_command(&line, argv[0], 3, argv + 1);
			dl_writer_str(w, 11, line.buf);
		} else {
			dl_writer_null(w, 11);
		}
		dl_writer_end_row(w);
	}
	sb_release(&cmd);
	sb_release(&line);
}
