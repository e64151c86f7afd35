/* report.c: reading results and timelines, and computing the summary rows */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/strmap.h"
#include "core/stats.h"
#include "report/report.h"

/* the dimensions of --by user|account|partition, in the order of enum dl_report_by */
#define NGROUPS 3
static const char *const group_cols[NGROUPS] = {"user", "account", "partition"};

struct job {
	double submit, duration, start, end, jct, qdelay, run_time; /* NaN = empty */
	double rho, comm; /* the results' rho and comm_overhead_s: NaN when absent or empty */
	double occupied;  /* the results' occupied_gpu_s: NaN when absent or empty */
	int64_t gpus, preemptions, migrations;
	int reason;	/* -1: a job that ran (or waits); else why the simulator rejected it */
	int unfinished; /* unfinished at the dump (as run): out of every label (its reason says) */
	int64_t id;	/* offset of its id in the report's id arena, or -1 */
	int32_t grp[NGROUPS]; /* its user, account, partition (report->gname), -1: unknown */
};

/* a job id, for finding one twice in a label */
struct idref {
	uint64_t hash;
	size_t off; /* into the report's id arena */
	long line;
	int input;
};

struct timeline {
	double *time, *busy, *pending;
	size_t n, alloc;
};

struct label {
	char *name;
	struct job *jobs;
	size_t njobs, alloc;
	struct idref *ids;
	size_t nids, aids;
	struct timeline tl;
	int has_tl, as_run;
	int owner;    /* the input that filled it first */
	int explicit; /* named by --label (pooling inputs is then on purpose) */
	double *jct;  /* after compute: finished JCTs, ascending */
	size_t njct;
	double *qdelay; /* after compute: started jobs' delays, ascending */
	size_t nqdelay;
	double *slow; /* after compute: finished jobs' slowdowns, ascending */
	size_t nslow;
	double *rho; /* after compute: finished jobs' rho, in no order */
	size_t nrho;
	double *feedback; /* after compute: started jobs' start - submit, ascending */
	size_t nfeedback;
	int64_t jobs_in; /* after compute: jobs in the window, rejected ones left out */
};

/* a command that made an input (its made_by and seed), and the labels it made */
struct made {
	char *command, *seed;
	size_t *label; /* indices of the labels it made */
	size_t nlabel, alabel;
	struct strbuf labels; /* their names: "fifo, as run" */
};

struct dl_report {
	struct label *labels;
	size_t nlabels, alabels;
	struct strmap index;
	struct strmap policies; /* policy value -> label it was filed under (-2: several) */
	struct strmap reasons;	/* rejection reason -> index */
	char **reason_names;
	size_t nreasons, areasons;
	char *ids; /* arena of job ids */
	size_t idlen, idalloc;
	char **inputs; /* names of the inputs read, for messages */
	size_t ninputs, ainputs;
	int64_t rows_read;
	char **skip_reason; /* skipped on import: reason, count */
	int64_t *skip_count;
	size_t nskip, askip;
	char *skipped_text;
	struct made *made;
	size_t nmade, amade;
	struct dl_report_row *rows;
	size_t nrows;
	char **row_text; /* dropped_reasons of each row */
	char **row_json; /* and as JSON */
	double capacity;
	char *baseline;
	struct dl_report_window window;
	enum dl_report_by by;
	struct dl_report_night night;
	struct strmap gmap[NGROUPS]; /* user, account, partition names -> index */
	char **gname[NGROUPS];
	size_t ngname[NGROUPS], agname[NGROUPS];
	double origin;	  /* Unix time of time 0 (the as-run jobs' origin column), NaN: unknown */
	char *night_text; /* the labels' job counts when they differ */
	double t0, t1;	  /* the charts' measurement period */
	int has_period;
	int computed;
};

static const char *const gpu_classes[] = {"1", "2-4", "5-8", ">8"};
static const char *const dur_classes[] = {"<10min", "10min-1h", "1h-10h", ">=10h"};

struct dl_report *dl_report_new(void)
{
	struct dl_report *rep = xcalloc(1, sizeof(*rep));
	struct strmap init = STRMAP_INIT;
	rep->index = init;
	rep->policies = init;
	rep->reasons = init;
	rep->origin = NAN;
	for (int d = 0; d < NGROUPS; d++)
		rep->gmap[d] = init;
	return rep;
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void dl_report_free(struct dl_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nlabels; i++) {
		struct label *l = &rep->labels[i];
		free(l->name);
		free(l->jobs);
		free(l->ids);
		free(l->tl.time);
		free(l->tl.busy);
		free(l->tl.pending);
		free(l->jct);
		free(l->qdelay);
		free(l->slow);
		free(l->rho);
		free(l->feedback);
	}
	free(rep->labels);
	strmap_free(&rep->index);
	strmap_free(&rep->policies);
	strmap_free(&rep->reasons);
	free_strings(rep->reason_names, rep->nreasons);
	free(rep->ids);
	free_strings(rep->inputs, rep->ninputs);
	free_strings(rep->skip_reason, rep->nskip);
	free(rep->skip_count);
	free(rep->skipped_text);
	free(rep->night_text);
	for (int d = 0; d < NGROUPS; d++) {
		strmap_free(&rep->gmap[d]);
		free_strings(rep->gname[d], rep->ngname[d]);
	}
	for (size_t i = 0; i < rep->nmade; i++) {
		free(rep->made[i].command);
		free(rep->made[i].seed);
		sb_release(&rep->made[i].labels);
		free(rep->made[i].label);
	}
	free(rep->made);
	free_strings(rep->row_text, rep->nrows);
	free_strings(rep->row_json, rep->nrows);
	free(rep->rows);
	free(rep->baseline);
	free(rep);
}

static size_t label_index(struct dl_report *rep, const char *name)
{
	int64_t *v = strmap_get(&rep->index, name);
	if (v)
		return (size_t)*v;
	DL_GROW(rep->labels, rep->nlabels + 1, rep->alabels);
	struct label *l = &rep->labels[rep->nlabels];
	memset(l, 0, sizeof(*l));
	l->name = xstrdup(name);
	l->owner = -1;
	strmap_put(&rep->index, name, (int64_t)rep->nlabels);
	return rep->nlabels++;
}

/* the label for the rows of the current input: explicit when passed as --label */
static int claim_label(struct dl_report *rep, size_t li, int explicit, struct dl_err *err)
{
	struct label *l = &rep->labels[li];
	int input = (int)rep->ninputs - 1;
	if (l->owner < 0) {
		l->owner = input;
		l->explicit = explicit;
		return 0;
	}
	if (l->owner == input || (l->explicit && explicit))
		return 0;
	return dl_err_set(err, DL_EXIT_USAGE,
			  "%s and %s both have label '%s': give each a --label (the same "
			  "--label for both pools them on purpose)",
			  rep->inputs[l->owner], rep->inputs[input], l->name);
}

static void add_input(struct dl_report *rep, const struct dl_reader *r)
{
	DL_GROW(rep->inputs, rep->ninputs + 1, rep->ainputs);
	rep->inputs[rep->ninputs++] = xstrdup(dl_reader_name(r));
	rep->rows_read = 0;
}

size_t dl_report_nlabels(const struct dl_report *rep)
{
	return rep->nlabels;
}

const char *dl_report_label(const struct dl_report *rep, size_t i)
{
	return rep->labels[i].name;
}

int64_t dl_report_rows_read(const struct dl_report *rep)
{
	return rep->rows_read;
}

/*
 * Plain decimal integers of up to 15 digits (most simulator times) convert
 * exactly without strtod, which otherwise is the largest cost of a report
 * after the CSV reader itself. Anything else takes the strict parser.
 */
static int fast_int(const char *s, double *out)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == 15)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i || s[i])
		return 0;
	*out = (double)v;
	return 1;
}

/* what a number column holds: a number, >= 0, a time in seconds (dlsched-formats(5)'s limit) */
enum { NUM_NONNEG = 1, NUM_SECONDS = 2, NUM_DURATION = NUM_NONNEG | NUM_SECONDS };

static int num_field(const struct dl_reader *r, const struct dl_row *row, int col, int kind,
		     double *out, struct dl_err *err)
{
	if (!fast_int(row->f[col], out) &&
	    ((kind & NUM_NONNEG) ? dl_field_nonneg(r, row, col, out, err)
				 : dl_field_double(r, row, col, out, err)))
		return -1;
	/* the limit of every reader of times: larger ones overflow sums, and are bad data */
	if ((kind & NUM_SECONDS) && fabs(*out) > DL_SECONDS_MAX)
		return dl_err_at(err, dl_reader_name(r), row->line,
				 "bad %s value '%.64s': %s of %s1e10 seconds (317 years)",
				 dl_reader_columns(r)[col], row->f[col],
				 *out > 0 ? "over the maximum" : "under the minimum",
				 *out > 0 ? "" : "-");
	return 0;
}

/* an optional number: NaN when the column is absent or the field empty */
static int opt_num(const struct dl_reader *r, const struct dl_row *row, int col, int kind,
		   double *out, struct dl_err *err)
{
	*out = NAN;
	if (col < 0 || !row->f[col][0])
		return 0;
	return num_field(r, row, col, kind, out, err);
}

static int req_num(const struct dl_reader *r, const struct dl_row *row, int col, int kind,
		   double *out, struct dl_err *err)
{
	return num_field(r, row, col, kind, out, err);
}

static int opt_count(const struct dl_reader *r, const struct dl_row *row, int col, int64_t *out,
		     struct dl_err *err)
{
	*out = 0;
	if (dl_field_int64_opt(r, row, col, out, err))
		return -1;
	if (*out < 0)
		return dl_err_at(err, dl_reader_name(r), row->line,
				 "bad %s value '%.64s': expected an integer >= 0",
				 dl_reader_columns(r)[col], row->f[col]);
	return 0;
}

static int reason_index(struct dl_report *rep, const char *s)
{
	int64_t *v = strmap_get(&rep->reasons, s);
	if (v)
		return (int)*v;
	DL_GROW(rep->reason_names, rep->nreasons + 1, rep->areasons);
	rep->reason_names[rep->nreasons] = xstrdup(s);
	strmap_put(&rep->reasons, s, (int64_t)rep->nreasons);
	return (int)rep->nreasons++;
}

static int32_t group_index(struct dl_report *rep, int d, const char *name)
{
	int64_t *v = strmap_get(&rep->gmap[d], name);
	if (v)
		return (int32_t)*v;
	DL_GROW(rep->gname[d], rep->ngname[d] + 1, rep->agname[d]);
	rep->gname[d][rep->ngname[d]] = xstrdup(name);
	strmap_put(&rep->gmap[d], name, (int64_t)rep->ngname[d]);
	return (int32_t)rep->ngname[d]++;
}

/* remember that rows of policy p went to label li (-2 when to several) */
static void note_policy(struct dl_report *rep, const char *p, size_t li)
{
	int64_t *v = strmap_get(&rep->policies, p);
	if (!v)
		strmap_put(&rep->policies, p, (int64_t)li);
	else if (*v != (int64_t)li)
		*v = -2;
}

static void add_id(struct dl_report *rep, struct label *l, struct job *j, const char *id, long line)
{
	j->id = (int64_t)rep->idlen;
	size_t n = strlen(id);
	DL_GROW(rep->ids, rep->idlen + n + 1, rep->idalloc);
	memcpy(rep->ids + rep->idlen, id, n + 1);
	DL_GROW(l->ids, l->nids + 1, l->aids);
	struct idref *ref = &l->ids[l->nids++];
	ref->hash = dl_hash_bytes(id, n);
	ref->off = rep->idlen;
	ref->line = line;
	ref->input = (int)rep->ninputs - 1;
	rep->idlen += n + 1;
}

/* a command that made the label's jobs: merged with an earlier one of the same command and seed */
static void note_made(struct dl_report *rep, const char *command, const char *seed, size_t li)
{
	size_t i = 0;
	while (i < rep->nmade &&
	       (strcmp(rep->made[i].command, command) || strcmp(rep->made[i].seed, seed)))
		i++;
	if (i == rep->nmade) {
		DL_GROW(rep->made, rep->nmade + 1, rep->amade);
		memset(&rep->made[i], 0, sizeof(rep->made[i]));
		rep->made[i].command = xstrdup(command);
		rep->made[i].seed = xstrdup(seed);
		sb_init(&rep->made[i].labels);
		rep->nmade++;
	}
	struct made *m = &rep->made[i];
	for (size_t k = 0; k < m->nlabel; k++)
		if (m->label[k] == li)
			return;
	DL_GROW(m->label, m->nlabel + 1, m->alabel);
	m->label[m->nlabel++] = li;
	sb_addf(&m->labels, "%s%s", m->labels.len ? ", " : "", rep->labels[li].name);
}

size_t dl_report_nmade(const struct dl_report *rep)
{
	return rep->nmade;
}

void dl_report_made(const struct dl_report *rep, size_t i, struct dl_report_made *m)
{
	m->labels = rep->made[i].labels.buf;
	m->command = rep->made[i].command;
	m->seed = rep->made[i].seed;
}

/* after an input: when no rows were read, the label is still there (a night without jobs) */
static int no_rows(struct dl_report *rep, const char *label, const char *fallback,
		   const char **first_label, struct dl_err *err)
{
	if (rep->rows_read)
		return 0;
	size_t cur = label_index(rep, label ? label : fallback);
	if (claim_label(rep, cur, label != NULL, err))
		return -1;
	if (first_label)
		*first_label = rep->labels[cur].name;
	return 0;
}

static int read_jobs(struct dl_report *rep, struct dl_reader *r, const char *label,
		     const char *fallback, const char **first_label, const char *why,
		     struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	add_input(rep, r);
	if (!dl_reader_ncols(r)) /* 0 bytes: as a header alone (dlsched-formats(5), EMPTY INPUT) */
		return no_rows(rep, label, fallback, first_label, err);
	int c_submit = dl_reader_require(r, "submit", why, err);
	int c_gpus = c_submit < 0 ? -1 : dl_reader_require(r, "gpus", why, err);
	int c_dur = c_gpus < 0 ? -1 : dl_reader_require(r, "duration", why, err);
	int c_start = c_dur < 0 ? -1 : dl_reader_require(r, "start", why, err);
	int c_end = c_start < 0 ? -1 : dl_reader_require(r, "end", why, err);
	if (c_end < 0)
		return -1;
	int c_id = dl_reader_col(r, "id");
	int c_jct = dl_reader_col(r, "jct");
	int c_qd = dl_reader_col(r, "queue_delay");
	int c_rt = dl_reader_col(r, "run_time");
	int c_pre = dl_reader_col(r, "preemptions");
	int c_mig = dl_reader_col(r, "migrations");
	int c_pol = dl_reader_col(r, "policy");
	int c_rej = dl_reader_col(r, "rejected");
	/* absent in results of older versions (and in jobs streams): the metrics are then too */
	int c_rho = dl_reader_col(r, "rho");
	int c_comm = dl_reader_col(r, "comm_overhead_s");
	int c_occ = dl_reader_col(r, "occupied_gpu_s");
	/* provenance (dlsched-formats(5)): what made the trace, then what made this stream */
	int c_made[2] = {dl_reader_col(r, "trace_" DL_COL_MADE_BY),
			 dl_reader_col(r, DL_COL_MADE_BY)};
	int c_seed[2] = {dl_reader_col(r, "trace_" DL_COL_SEED), dl_reader_col(r, DL_COL_SEED)};
	int want_made = c_made[0] >= 0 || c_made[1] >= 0;
	int c_origin = dl_reader_col(r, "origin");
	/* --by user|account|partition: a jobs stream's vc is its account (or partition) */
	int c_grp[NGROUPS];
	for (int d = 0; d < NGROUPS; d++)
		c_grp[d] = dl_reader_col(r, group_cols[d]);
	if (c_grp[1] < 0)
		c_grp[1] = dl_reader_col(r, "vc");

	struct dl_row row;
	int got;
	size_t cur = (size_t)-1;
	struct strbuf lastpol = STRBUF_INIT;
	int have_lastpol = 0;
	/* labels whose policy this input has noted (a label is its policy without --label) */
	unsigned char *noted = NULL;
	size_t anoted = 0;
	int rc = 0;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		/* the label: cached while consecutive rows share it */
		const char *pol = dl_field_str(&row, c_pol);
		const char *lname = label ? label : *pol ? pol : fallback;
		if (cur == (size_t)-1 || strcmp(rep->labels[cur].name, lname)) {
			cur = label_index(rep, lname);
			if ((rc = claim_label(rep, cur, label != NULL, err)))
				break;
			have_lastpol = 0;
			if (!label && *pol) {
				if (cur >= anoted) {
					size_t a = anoted;
					anoted = rep->alabels;
					noted = xreallocarray(noted, anoted, 1);
					memset(noted + a, 0, anoted - a);
				}
				if (!noted[cur])
					note_policy(rep, pol, cur);
				noted[cur] = 1;
			}
		}
		if (label && *pol && (!have_lastpol || strcmp(lastpol.buf, pol))) {
			note_policy(rep, pol, cur);
			sb_reset(&lastpol);
			sb_addstr(&lastpol, pol);
			have_lastpol = 1;
		}
		if (!rep->rows_read && first_label)
			*first_label = rep->labels[cur].name;
		if (c_origin >= 0 && row.f[c_origin][0] && isnan(rep->origin)) {
			double o;
			if (dl_field_nonneg(r, &row, c_origin, &o, err)) {
				rc = -1;
				break;
			}
			rep->origin = o;
		}
		rep->rows_read++;
		if (want_made) {
			/* each first non-empty made_by, in this order */
			for (int k = 0; k < 2; k++)
				if (c_made[k] >= 0 && row.f[c_made[k]][0]) {
					note_made(rep, row.f[c_made[k]],
						  dl_field_str(&row, c_seed[k]), cur);
					c_made[k] = -1;
				}
			want_made = c_made[0] >= 0 || c_made[1] >= 0;
		}

		struct job j;
		if (req_num(r, &row, c_submit, NUM_SECONDS, &j.submit, err) ||
		    dl_field_int64(r, &row, c_gpus, &j.gpus, err) ||
		    req_num(r, &row, c_dur, NUM_DURATION, &j.duration, err) ||
		    opt_num(r, &row, c_start, NUM_SECONDS, &j.start, err) ||
		    opt_num(r, &row, c_end, NUM_SECONDS, &j.end, err) ||
		    opt_num(r, &row, c_jct, NUM_DURATION, &j.jct, err) ||
		    opt_num(r, &row, c_qd, NUM_DURATION, &j.qdelay, err) ||
		    opt_num(r, &row, c_rt, NUM_DURATION, &j.run_time, err) ||
		    opt_num(r, &row, c_rho, NUM_NONNEG, &j.rho, err) ||
		    opt_num(r, &row, c_comm, NUM_DURATION, &j.comm, err) ||
		    opt_num(r, &row, c_occ, NUM_DURATION, &j.occupied, err) ||
		    opt_count(r, &row, c_pre, &j.preemptions, err) ||
		    opt_count(r, &row, c_mig, &j.migrations, err)) {
			rc = -1;
			break;
		}
		if (j.gpus < 1) {
			rc = dl_err_at(err, name, row.line,
				       "bad gpus value '%.64s': expected an integer >= 1",
				       row.f[c_gpus]);
			break;
		}
		j.reason = -1;
		const char *rej = dl_field_str(&row, c_rej);
		if (*rej) {
			/* a job the simulator could never run: no times, whatever the fields say */
			j.reason = reason_index(rep, rej);
			j.start = j.end = j.jct = j.qdelay = j.run_time = j.rho = j.comm = NAN;
		}
		if (!isnan(j.end) && isnan(j.start)) {
			rc = dl_err_at(err, name, row.line, "a job with an end needs a start");
			break;
		}
		if (!isnan(j.start) && j.start < j.submit) {
			rc = dl_err_at(err, name, row.line, "start %s is before submit %s",
				       row.f[c_start], row.f[c_submit]);
			break;
		}
		if (!isnan(j.end) && j.end < j.start) {
			rc = dl_err_at(err, name, row.line, "end %s is before start %s",
				       row.f[c_end], row.f[c_start]);
			break;
		}
		/* derived values where the stream left them out */
		if (!isnan(j.end) && isnan(j.jct))
			j.jct = j.end - j.submit;
		/* an unfinished job has no JCT (nor rho) whatever the columns say */
		if (isnan(j.end))
			j.jct = j.rho = NAN;
		if (!isnan(j.start) && isnan(j.qdelay))
			j.qdelay = j.start - j.submit;
		if (!isnan(j.end) && isnan(j.run_time))
			j.run_time = j.end - j.start;

		struct label *l = &rep->labels[cur];
		j.unfinished = 0;
		j.id = -1;
		for (int d = 0; d < NGROUPS; d++)
			j.grp[d] = c_grp[d] >= 0 && row.f[c_grp[d]][0]
					   ? group_index(rep, d, row.f[c_grp[d]])
					   : -1;
		if (c_id >= 0 && row.f[c_id][0])
			add_id(rep, l, &j, row.f[c_id], row.line);
		DL_GROW(l->jobs, l->njobs + 1, l->alloc);
		l->jobs[l->njobs++] = j;
	}
	sb_release(&lastpol);
	free(noted);
	if (rc)
		return -1;
	if (got < 0)
		return -1;
	return no_rows(rep, label, fallback, first_label, err);
}

int dl_report_read_results(struct dl_report *rep, struct dl_reader *r, const char *label,
			   const char *fallback, const char **first_label, struct dl_err *err)
{
	return read_jobs(rep, r, label, fallback, first_label,
			 "a results stream (from 'dlsched simulate')", err);
}

int dl_report_read_asrun(struct dl_report *rep, struct dl_reader *r, struct dl_err *err)
{
	const char *first = NULL;
	if (read_jobs(rep, r, NULL, "as run", &first,
		      "a jobs stream with Slurm's start and end (from 'dlsched trace import "
		      "--from sacct')",
		      err))
		return -1;
	/* every row is "as run" (a jobs stream has no policy column) */
	for (size_t i = 0; i < rep->nlabels; i++)
		if (rep->labels[i].owner == (int)rep->ninputs - 1 &&
		    strcmp(rep->labels[i].name, "as run"))
			return dl_err_at(
				err, dl_reader_name(r), 0,
				"a policy column: --as-run takes the jobs stream, not results");
	rep->labels[label_index(rep, "as run")].as_run = 1;
	return 0;
}

/* the label a timeline belongs to, or -1 with an error naming the labels */
static int timeline_label(struct dl_report *rep, const char *name, const char *label,
			  const char *policy, const char *fallback, struct dl_err *err)
{
	if (!label && policy && *policy) {
		int64_t *v = strmap_get(&rep->policies, policy);
		if (v && *v == -2)
			return dl_err_set(err, DL_EXIT_USAGE,
					  "timeline %s: policy '%s' is under several labels: name "
					  "its label with -t LABEL=FILE",
					  name, policy);
		if (v)
			return (int)*v;
		label = policy;
	}
	const char *want = label ? label : fallback;
	int64_t *v = strmap_get(&rep->index, want);
	if (v)
		return (int)*v;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < rep->nlabels; i++)
		sb_addf(&sb, "%s'%s'", i ? ", " : "", rep->labels[i].name);
	dl_err_set(err, DL_EXIT_USAGE,
		   "timeline %s has label '%s', which no results input has (labels: %s)", name,
		   want, sb.len ? sb.buf : "none");
	sb_release(&sb);
	return -1;
}

int dl_report_read_timeline(struct dl_report *rep, struct dl_reader *r, const char *label,
			    const char *fallback, struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	add_input(rep, r);
	static const char *const why = "a timeline (from 'dlsched simulate --timeline')";
	int c_time = -1, c_busy = -1, c_pend = -1;
	/* 0 bytes: a timeline without points, as a header alone (dlsched-formats(5)) */
	if (dl_reader_ncols(r)) {
		c_time = dl_reader_require(r, "time", why, err);
		c_busy = c_time < 0 ? -1 : dl_reader_require(r, "busy_gpus", why, err);
		c_pend = c_busy < 0 ? -1 : dl_reader_require(r, "pending", why, err);
		if (c_pend < 0)
			return -1;
	}
	int c_pol = dl_reader_col(r, "policy");
	struct timeline t = {0};
	struct strbuf pol = STRBUF_INIT;
	struct dl_row row;
	int got, rc = 0;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		double tm, busy, pend;
		if (num_field(r, &row, c_time, NUM_SECONDS, &tm, err) ||
		    dl_field_nonneg(r, &row, c_busy, &busy, err) ||
		    dl_field_nonneg(r, &row, c_pend, &pend, err)) {
			rc = -1;
			break;
		}
		const char *p = dl_field_str(&row, c_pol);
		if (!t.n) {
			sb_addstr(&pol, p);
		} else if (strcmp(pol.buf, p)) {
			rc = dl_err_at(err, name, row.line,
				       "policy '%.64s' after '%.64s': one timeline per policy", p,
				       pol.buf);
			break;
		}
		if (t.n && tm < t.time[t.n - 1]) {
			rc = dl_err_at(err, name, row.line,
				       "time %s goes backwards (timelines are in time order)",
				       row.f[c_time]);
			break;
		}
		if (t.n + 1 > t.alloc) {
			size_t a = t.alloc ? t.alloc * 2 : 256;
			t.time = xreallocarray(t.time, a, sizeof(double));
			t.busy = xreallocarray(t.busy, a, sizeof(double));
			t.pending = xreallocarray(t.pending, a, sizeof(double));
			t.alloc = a;
		}
		t.time[t.n] = tm;
		t.busy[t.n] = busy;
		t.pending[t.n] = pend;
		t.n++;
	}
	rep->rows_read = (int64_t)t.n;
	int li = -1;
	if (!rc && got >= 0)
		li = timeline_label(rep, name, label, pol.buf, fallback, err);
	if (li >= 0 && rep->labels[li].has_tl)
		li = dl_err_set(err, DL_EXIT_USAGE, "a second timeline for label '%s' (%s)",
				rep->labels[li].name, name);
	sb_release(&pol);
	if (li < 0 || rc || got < 0) {
		free(t.time);
		free(t.busy);
		free(t.pending);
		return -1;
	}
	rep->labels[li].tl = t;
	rep->labels[li].has_tl = 1;
	return 0;
}

int dl_report_read_skipped(struct dl_report *rep, struct dl_reader *r, struct dl_err *err)
{
	const char *name = dl_reader_name(r);
	add_input(rep, r);
	if (!dl_reader_ncols(r))
		return 0; /* 0 bytes: no counts, as a header alone (dlsched-formats(5)) */
	static const char *const why = "skipped-row counts (from 'dlsched trace import --skipped')";
	int c_reason = dl_reader_require(r, "reason", why, err);
	int c_count = c_reason < 0 ? -1 : dl_reader_require(r, "count", why, err);
	if (c_count < 0)
		return -1;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		int64_t n;
		if (dl_field_int64(r, &row, c_count, &n, err))
			return -1;
		const char *why_row = row.f[c_reason];
		if (n < 0 || !*why_row)
			return dl_err_at(err, name, row.line,
					 "bad skipped row: expected a reason and a count >= 0");
		rep->rows_read++;
		size_t k = 0;
		while (k < rep->nskip && strcmp(rep->skip_reason[k], why_row))
			k++;
		if (k == rep->nskip) {
			DL_GROW(rep->skip_reason, rep->nskip + 1, rep->askip);
			rep->skip_count =
				xreallocarray(rep->skip_count, rep->askip, sizeof(int64_t));
			rep->skip_reason[k] = xstrdup(why_row);
			rep->skip_count[k] = 0;
			rep->nskip++;
		}
		rep->skip_count[k] += n;
	}
	return got < 0 ? -1 : 0;
}

/* the class dimension's group (user, account, partition), or -1 */
static int group_dim(enum dl_report_by by)
{
	return by >= DL_REPORT_BY_USER ? (int)(by - DL_REPORT_BY_USER) : -1;
}

static size_t nclasses(const struct dl_report *rep, enum dl_report_by by)
{
	int d = group_dim(by);
	return d < 0 ? 4 : rep->ngname[d] + 1; /* the last: jobs of no known group */
}

static const char *class_name(const struct dl_report *rep, enum dl_report_by by, size_t c)
{
	int d = group_dim(by);
	if (d >= 0)
		return c < rep->ngname[d] ? rep->gname[d][c] : "(unknown)";
	return (by == DL_REPORT_BY_GPUS ? gpu_classes : dur_classes)[c];
}

static int class_of(const struct dl_report *rep, enum dl_report_by by, const struct job *j)
{
	int g = group_dim(by);
	if (g >= 0)
		return j->grp[g] >= 0 ? j->grp[g] : (int)rep->ngname[g];
	if (by == DL_REPORT_BY_GPUS)
		return j->gpus <= 1 ? 0 : j->gpus <= 4 ? 1 : j->gpus <= 8 ? 2 : 3;
	double d = j->duration;
	return d < 600 ? 0 : d < 3600 ? 1 : d < 36000 ? 2 : 3;
}

/* busy GPU-seconds of a step-function timeline within [a, b] */
static double timeline_area(const struct timeline *t, double a, double b)
{
	double area = 0;
	for (size_t i = 0; i + 1 < t->n; i++) {
		double s = t->time[i] > a ? t->time[i] : a;
		double e = t->time[i + 1] < b ? t->time[i + 1] : b;
		if (e > s)
			area += t->busy[i] * (e - s);
	}
	return area;
}

/* busy GPU-seconds over capacity * window, from a step-function timeline */
static double timeline_util(const struct timeline *t, double capacity)
{
	if (!(capacity > 0) || t->n < 2)
		return NAN;
	double window = t->time[t->n - 1] - t->time[0];
	return window > 0 ? timeline_area(t, t->time[0], t->time[t->n - 1]) / (capacity * window)
			  : NAN;
}

/*
 * GPU-seconds within [a, b] that the jobs of l claim beyond the cluster's
 * capacity: jobs that shared GPUs (packed pairs) each count their GPUs, but a
 * GPU is occupied once. Only jobs that held their GPUs from start to end
 * (run_time = end - start) say where they were busy; a job with gaps
 * (preempted) might have been off its GPUs at any instant, so it takes no
 * part. 0 when no instant has more GPUs held than the cluster has.
 */
static double shared_excess(const struct label *l, const unsigned char *in, double capacity,
			    double a, double b)
{
	/* (time, GPUs taken or given back); ties in any order: cur is exact between times */
	struct dl_keyed *ev = xcalloc(2 * (l->njobs ? l->njobs : 1), sizeof(*ev));
	size_t n = 0;
	for (size_t i = 0; i < l->njobs; i++) {
		const struct job *j = &l->jobs[i];
		if ((in && !in[i]) || j->reason >= 0 || isnan(j->run_time) ||
		    !(j->end > j->start) || j->run_time < (j->end - j->start) * (1 - 1e-9))
			continue;
		double rate = (double)j->gpus;
		ev[n++] = (struct dl_keyed){j->start, rate};
		ev[n++] = (struct dl_keyed){j->end, -rate};
	}
	dl_sort_keyed(ev, n);
	double cur = 0, excess = 0;
	for (size_t i = 0; i < n; i++) {
		cur += ev[i].value;
		if (i + 1 == n || cur <= capacity)
			continue;
		double s = ev[i].key > a ? ev[i].key : a;
		double e = ev[i + 1].key < b ? ev[i + 1].key : b;
		if (e > s)
			excess += (cur - capacity) * (e - s);
	}
	free(ev);
	return excess;
}

/* the window's view of a label: which jobs count, and the measurement period */
struct view {
	const unsigned char *in; /* NULL: every job */
	int period;		 /* utilisation over [a, b] rather than the whole run */
	double a, b;
};

/*
 * Metrics of the jobs of l in class cls (-1 = all) within the view. When keep
 * is set the sorted arrays are handed to l for the charts.
 */
static void metrics(const struct dl_report *rep, struct label *l, enum dl_report_by by, int cls,
		    double capacity, int keep, const struct view *v, int64_t *rejected,
		    size_t nreasons, struct dl_report_row *row)
{
	memset(row, 0, sizeof(*row));
	row->label = l->name;
	row->cls = cls < 0 ? "all" : class_name(rep, by, (size_t)cls);
	size_t cap = l->njobs ? l->njobs : 1;
	double *jct = xmalloc(cap * sizeof(*jct));
	double *qd = xmalloc(cap * sizeof(*qd));
	double *slow = xmalloc(cap * sizeof(*slow));
	double *rho = xmalloc(cap * sizeof(*rho));
	double *fb = xmalloc(cap * sizeof(*fb));
	size_t nj = 0, nq = 0, ns = 0, nr = 0, nf = 0, nc = 0;
	double sum_jct = 0, sum_qd = 0, busy = 0, min_submit = INFINITY, max_end = -INFINITY;
	double sum_rho = 0, sum_fb = 0, sum_comm = 0, comm_gpu = 0, held_gpu = 0;
	double pre = 0, mig = 0; /* sums of any int64 counts cannot overflow a double */
	/*
	 * the GPU-seconds the simulator says each job occupied (its GPUs' time shared
	 * with the jobs packed alongside), when every job that ran has them
	 */
	double occupied = 0;
	int occupied_all = 1;
	int64_t jobs = 0;
	memset(rejected, 0, (nreasons ? nreasons : 1) * sizeof(*rejected));
	for (size_t i = 0; i < l->njobs; i++) {
		const struct job *j = &l->jobs[i];
		if (v->in && !v->in[i])
			continue;
		if (cls >= 0 && class_of(rep, by, j) != cls)
			continue;
		if (j->reason >= 0) {
			rejected[j->reason]++;
			row->dropped++;
			/* given up after it held GPUs (at zero speed): they were occupied */
			if (!isnan(j->occupied) && !v->period)
				occupied += j->occupied;
			continue;
		}
		jobs++;
		pre += (double)j->preemptions;
		mig += (double)j->migrations;
		if (j->submit < min_submit)
			min_submit = j->submit;
		if (!isnan(j->run_time)) {
			double held = (double)j->gpus * j->run_time;
			if (isnan(j->occupied))
				occupied_all = 0;
			if (!v->period) {
				busy += held;
				occupied += j->occupied;
			} else if (j->end > j->start) {
				/* the run time spread over the job's span, clipped to the period */
				double s = j->start > v->a ? j->start : v->a;
				double e = j->end < v->b ? j->end : v->b;
				if (e > s) {
					busy += held * (e - s) / (j->end - j->start);
					occupied += j->occupied * (e - s) / (j->end - j->start);
				}
			}
		}
		if (!isnan(j->qdelay)) {
			qd[nq++] = j->qdelay;
			sum_qd += j->qdelay;
		}
		if (!isnan(j->start)) {
			/* time to first feedback: every started job, preempted later or not */
			fb[nf++] = j->start - j->submit;
			sum_fb += j->start - j->submit;
		}
		if (!isnan(j->comm)) {
			nc++;
			sum_comm += j->comm;
			if (!isnan(j->run_time)) {
				comm_gpu += (double)j->gpus * j->comm;
				held_gpu += (double)j->gpus * j->run_time;
			}
		}
		if (isnan(j->end))
			continue;
		if (!isnan(j->rho)) {
			rho[nr++] = j->rho;
			sum_rho += j->rho;
		}
		jct[nj++] = j->jct;
		sum_jct += j->jct;
		if (j->end > max_end)
			max_end = j->end;
		if (j->duration > 0)
			slow[ns++] = j->jct / j->duration;
	}
	row->jobs = jobs;
	row->finished = (int64_t)nj;
	row->started = (int64_t)nq;
	dl_sort_doubles(jct, nj);
	dl_sort_doubles(qd, nq);
	row->avg_jct = nj ? sum_jct / (double)nj : NAN;
	row->median_jct = dl_percentile_nearest(jct, nj, 50);
	row->p90_jct = dl_percentile_nearest(jct, nj, 90);
	row->p95_jct = dl_percentile_nearest(jct, nj, 95);
	row->p99_jct = dl_percentile_nearest(jct, nj, 99);
	row->makespan = nj ? max_end - min_submit : NAN;
	row->avg_queue_delay = nq ? sum_qd / (double)nq : NAN;
	row->p95_queue_delay = dl_percentile_nearest(qd, nq, 95);
	row->preemptions_per_job = jobs ? pre / (double)jobs : NAN;
	row->migrations_per_job = jobs ? mig / (double)jobs : NAN;
	row->jain_slowdown = dl_jain_index(slow, ns);
	dl_sort_doubles(fb, nf);
	row->avg_first_feedback = nf ? sum_fb / (double)nf : NAN;
	row->p95_first_feedback = dl_percentile_nearest(fb, nf, 95);
	row->avg_rho = nr ? sum_rho / (double)nr : NAN;
	row->jain_rho = dl_jain_index(rho, nr);
	/* the percentile needs them sorted; the page's CDF sorts its own copy */
	double *sorted_rho = xmalloc((nr ? nr : 1) * sizeof(*sorted_rho));
	memcpy(sorted_rho, rho, nr * sizeof(*rho));
	dl_sort_doubles(sorted_rho, nr);
	row->p95_rho = dl_percentile_nearest(sorted_rho, nr, 95);
	row->max_rho = nr ? sorted_rho[nr - 1] : NAN;
	free(sorted_rho);
	row->total_comm_overhead = nc ? sum_comm : NAN;
	row->avg_comm_overhead = nc ? sum_comm / (double)nc : NAN;
	row->comm_share = held_gpu > 0 ? comm_gpu / held_gpu : NAN;
	row->utilization = NAN;
	if (cls < 0) {
		/*
		 * utilisation is a property of the whole run, not of a class; without a
		 * timeline, GPU-seconds occupied: the simulator's occupied_gpu_s counts a
		 * packed GPU once, exactly; results without it (older files, other tools)
		 * take gpus x run_time, less what exceeds the capacity at any instant
		 */
		if (v->period) {
			double len = v->b - v->a;
			if (occupied_all) {
				busy = occupied;
			} else if (capacity > 0 && len > 0 && !l->has_tl) {
				double x = shared_excess(l, v->in, capacity, v->a, v->b);
				row->gpus_shared = x > 0;
				busy -= x;
			}
			if (capacity > 0 && len > 0)
				row->utilization =
					(l->has_tl ? timeline_area(&l->tl, v->a, v->b) : busy) /
					(capacity * len);
		} else if (l->has_tl) {
			row->utilization = timeline_util(&l->tl, capacity);
		} else if (capacity > 0 && nj && row->makespan > 0 && occupied_all) {
			row->utilization = occupied / (capacity * row->makespan);
		} else if (capacity > 0 && nj && row->makespan > 0) {
			double x = shared_excess(l, NULL, capacity, -INFINITY, INFINITY);
			row->gpus_shared = x > 0;
			row->utilization = (busy - x) / (capacity * row->makespan);
		}
	}
	row->speedup_jct = NAN;
	row->speedup_makespan = NAN;
	if (keep) {
		/* slowdowns stay unsorted: only the page's CDF needs them in order */
		l->jct = jct;
		l->njct = nj;
		l->qdelay = qd;
		l->nqdelay = nq;
		l->slow = slow;
		l->nslow = ns;
		l->rho = rho;
		l->nrho = nr;
		l->feedback = fb;
		l->nfeedback = nf;
		l->jobs_in = jobs;
	} else {
		free(jct);
		free(qd);
		free(slow);
		free(rho);
		free(fb);
	}
}

static double ratio(double base, double v)
{
	if (isnan(base) || isnan(v) || !(v > 0))
		return NAN;
	return base / v;
}

/* ---- job ids: each at most once per label ---- */

static int check_ids(const struct dl_report *rep, const struct label *l, struct dl_err *err)
{
	if (l->nids < 2)
		return 0;
	size_t cap = 1;
	while (cap < 2 * l->nids)
		cap <<= 1;
	size_t *slot = xcalloc(cap, sizeof(*slot)); /* idref index + 1, 0 = empty */
	int rc = 0;
	for (size_t i = 0; i < l->nids && !rc; i++) {
		const struct idref *x = &l->ids[i];
		size_t k = (size_t)x->hash & (cap - 1);
		for (; slot[k]; k = (k + 1) & (cap - 1)) {
			const struct idref *y = &l->ids[slot[k] - 1];
			if (y->hash == x->hash && !strcmp(rep->ids + y->off, rep->ids + x->off)) {
				rc = dl_err_at(
					err, rep->inputs[x->input], x->line,
					"job id '%.64s' appears twice under label '%s' (first "
					"at %s:%ld)",
					rep->ids + x->off, l->name, rep->inputs[y->input], y->line);
				break;
			}
		}
		if (!rc)
			slot[k] = i + 1;
	}
	free(slot);
	return rc;
}

/* ---- Slurm's real schedule: a timeline from the jobs' start and end ---- */

struct tl_event {
	double t;
	double busy, pending;
};

static int cmp_event(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

static void derive_timeline(struct label *l)
{
	size_t n = 0;
	struct tl_event *ev = xcalloc(3 * (l->njobs ? l->njobs : 1), sizeof(*ev));
	for (size_t i = 0; i < l->njobs; i++) {
		const struct job *j = &l->jobs[i];
		if (j->reason >= 0)
			continue;
		ev[n++] = (struct tl_event){j->submit, 0, 1};
		if (isnan(j->start))
			continue;
		ev[n++] = (struct tl_event){j->start, (double)j->gpus, -1};
		if (!isnan(j->end))
			ev[n++] = (struct tl_event){j->end, -(double)j->gpus, 0};
	}
	qsort(ev, n, sizeof(*ev), cmp_event);
	struct timeline *t = &l->tl;
	t->alloc = n ? n : 1;
	t->time = xcalloc(t->alloc, sizeof(double));
	t->busy = xcalloc(t->alloc, sizeof(double));
	t->pending = xcalloc(t->alloc, sizeof(double));
	double busy = 0, pend = 0;
	for (size_t i = 0; i < n;) {
		double tm = ev[i].t;
		for (; i < n && ev[i].t == tm; i++) {
			busy += ev[i].busy;
			pend += ev[i].pending;
		}
		t->time[t->n] = tm;
		t->busy[t->n] = busy;
		t->pending[t->n] = pend;
		t->n++;
	}
	l->has_tl = t->n > 0;
	free(ev);
}

/* ---- the window ---- */

struct submit_rank {
	double submit;
	size_t i;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct submit_rank *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* which jobs of l the window holds (*in, NULL = all) and its period */
static void window_view(const struct label *l, const struct dl_report_window *w, unsigned char **in,
			struct view *v)
{
	*in = NULL;
	v->in = NULL;
	v->period = w->kind != DL_WINDOW_ALL;
	v->a = INFINITY;
	v->b = -INFINITY;
	if (!v->period)
		return;
	unsigned char *mask = xcalloc(l->njobs ? l->njobs : 1, 1);
	if (w->kind == DL_WINDOW_JOBS) {
		struct submit_rank *r = xcalloc(l->njobs ? l->njobs : 1, sizeof(*r));
		for (size_t i = 0; i < l->njobs; i++)
			r[i] = (struct submit_rank){l->jobs[i].submit, i};
		qsort(r, l->njobs, sizeof(*r), cmp_rank);
		for (size_t k = 0; k < l->njobs; k++)
			mask[r[k].i] = (double)k >= w->from && (double)k < w->to;
		free(r);
	} else {
		for (size_t i = 0; i < l->njobs; i++)
			mask[i] = w->kind == DL_WINDOW_ARRIVALS ||
				  (l->jobs[i].submit >= w->from && l->jobs[i].submit < w->to);
	}
	for (size_t i = 0; i < l->njobs; i++) {
		if (!mask[i])
			continue;
		if (l->jobs[i].submit < v->a)
			v->a = l->jobs[i].submit;
		if (l->jobs[i].submit > v->b)
			v->b = l->jobs[i].submit;
	}
	if (w->kind == DL_WINDOW_TIME) {
		/* [from, to) within the data */
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < l->njobs; i++) {
			const struct job *j = &l->jobs[i];
			lo = j->submit < lo ? j->submit : lo;
			hi = j->submit > hi ? j->submit : hi;
			if (!isnan(j->end) && j->end > hi)
				hi = j->end;
		}
		if (l->has_tl && l->tl.n && l->tl.time[l->tl.n - 1] > hi)
			hi = l->tl.time[l->tl.n - 1];
		v->a = w->from > lo ? w->from : lo;
		v->b = w->to < hi ? w->to : hi;
	}
	*in = mask;
	v->in = mask;
}

/*
 * Results streams carry no user, account or partition: a job takes them from
 * the input that has them (the as-run jobs stream), by its id
 */
static void fill_groups(struct dl_report *rep, int d)
{
	struct strmap byid = STRMAP_INIT;
	for (size_t i = 0; i < rep->nlabels; i++)
		for (size_t k = 0; k < rep->labels[i].njobs; k++) {
			const struct job *j = &rep->labels[i].jobs[k];
			if (j->grp[d] >= 0 && j->id >= 0 && !strmap_get(&byid, rep->ids + j->id))
				strmap_put(&byid, rep->ids + j->id, j->grp[d]);
		}
	for (size_t i = 0; i < rep->nlabels; i++)
		for (size_t k = 0; k < rep->labels[i].njobs; k++) {
			struct job *j = &rep->labels[i].jobs[k];
			int64_t *v = j->grp[d] < 0 && j->id >= 0
					     ? strmap_get(&byid, rep->ids + j->id)
					     : NULL;
			if (v)
				j->grp[d] = (int32_t)*v;
		}
	strmap_free(&byid);
}

/*
 * Jobs Slurm had not finished when sacct ran (the as-run label's jobs without
 * an end) are left out of every label, simulated ones included: the what-if ran
 * them to their time limits, Slurm did not, and only the same jobs compare.
 * Each counts as dropped, "unfinished at the dump".
 */
static void leave_out_unfinished(struct dl_report *rep)
{
	struct strmap open = STRMAP_INIT;
	for (size_t i = 0; i < rep->nlabels; i++) {
		const struct label *l = &rep->labels[i];
		for (size_t k = 0; l->as_run && k < l->njobs; k++) {
			const struct job *j = &l->jobs[k];
			if (j->reason >= 0 || !isnan(j->end) || j->id < 0)
				continue;
			strmap_put(&open, rep->ids + j->id, 1);
			rep->night.unfinished++;
			rep->night.unfinished_running += !isnan(j->start);
		}
	}
	if (rep->night.unfinished) {
		int reason = reason_index(rep, DL_REPORT_UNFINISHED);
		for (size_t i = 0; i < rep->nlabels; i++)
			for (size_t k = 0; k < rep->labels[i].njobs; k++) {
				struct job *j = &rep->labels[i].jobs[k];
				if (j->id >= 0 && strmap_get(&open, rep->ids + j->id)) {
					j->unfinished = 1;
					j->reason = reason;
				}
			}
	}
	strmap_free(&open);
}

/* jobs of l that the job sets compare (all but the unfinished), and whether each has an id */
static int64_t set_size(const struct label *l, int *all_ids)
{
	int64_t n = 0;
	*all_ids = 1;
	for (size_t k = 0; k < l->njobs; k++) {
		if (l->jobs[k].unfinished)
			continue;
		n++;
		*all_ids &= l->jobs[k].id >= 0;
	}
	return n;
}

/*
 * whether a and b list the same ids among their finished jobs in the same
 * order (labels of one simulation's results usually do); ids being unique in a
 * label, the two sets are then equal
 */
static int same_ids_in_order(const struct dl_report *rep, const struct label *a,
			     const struct label *b)
{
	size_t i = 0, k = 0;
	for (;;) {
		while (i < a->njobs && a->jobs[i].unfinished)
			i++;
		while (k < b->njobs && b->jobs[k].unfinished)
			k++;
		if (i == a->njobs || k == b->njobs)
			return i == a->njobs && k == b->njobs;
		if (strcmp(rep->ids + a->jobs[i++].id, rep->ids + b->jobs[k++].id))
			return 0;
	}
}

/*
 * Every label must cover the same jobs (by id; by count where ids are
 * missing): a what-if compares like with like or not at all
 */
static int check_job_sets(struct dl_report *rep, int allow, struct dl_err *err)
{
	rep->night.equal = 1;
	if (!rep->nlabels)
		return 0;
	const struct label *a = &rep->labels[0];
	int ids_a, ids_b;
	int64_t na = set_size(a, &ids_a);
	rep->night.jobs = na;
	struct strmap first = STRMAP_INIT; /* a's ids, filled when first needed */
	int first_filled = 0;
	struct strbuf counts = STRBUF_INIT;
	sb_addf(&counts, "%s %lld", a->name, (long long)na);
	int rc = 0;
	for (size_t i = 1; i < rep->nlabels; i++) {
		const struct label *b = &rep->labels[i];
		int64_t nb = set_size(b, &ids_b), both = 0;
		const char *example = NULL;
		sb_addf(&counts, ", %s %lld", b->name, (long long)nb);
		if (ids_a && ids_b && nb == na && same_ids_in_order(rep, a, b)) {
			both = na;
		} else if (ids_a && ids_b) {
			for (size_t k = 0; !first_filled && k < a->njobs; k++)
				if (!a->jobs[k].unfinished)
					strmap_put(&first, rep->ids + a->jobs[k].id, 1);
			first_filled = 1;
			for (size_t k = 0; k < b->njobs; k++) {
				const struct job *j = &b->jobs[k];
				if (j->unfinished)
					continue;
				if (strmap_get(&first, rep->ids + j->id))
					both++;
				else if (!example)
					example = rep->ids + j->id;
			}
		} else {
			both = na == nb ? na : -1;
		}
		if (both == na && both == nb)
			continue;
		rep->night.equal = 0;
		if (allow || rc)
			continue;
		if (both < 0) {
			rc = dl_err_set(
				err, DL_EXIT_DATA,
				"labels '%s' (%lld jobs) and '%s' (%lld jobs) cover different "
				"jobs; a report compares the same jobs in every label "
				"(--allow-unequal compares them anyway)",
				a->name, (long long)na, b->name, (long long)nb);
			continue;
		}
		if (!example) /* b is a subset: name one of a's that b lacks */
			for (size_t k = 0; k < a->njobs && !example; k++)
				example = a->jobs[k].unfinished ? NULL : rep->ids + a->jobs[k].id;
		rc = dl_err_set(
			err, DL_EXIT_DATA,
			"labels '%s' (%lld jobs) and '%s' (%lld jobs) cover different jobs: "
			"%lld only in '%s', %lld only in '%s' (one: '%.64s'); a report "
			"compares the same jobs in every label (--allow-unequal compares "
			"them anyway)",
			a->name, (long long)na, b->name, (long long)nb, (long long)(na - both),
			a->name, (long long)(nb - both), b->name, example ? example : "");
	}
	strmap_free(&first);
	if (!rep->night.equal)
		rep->night_text = sb_detach(&counts);
	sb_release(&counts);
	return rc;
}

/* "2 never started; 4 unknown GPU type 'a100'" (rejected: counts per reason, or NULL) */
static char *reasons_text(const struct dl_report *rep, int with_skipped, const int64_t *rejected)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t k = 0; with_skipped && k < rep->nskip; k++)
		if (rep->skip_count[k])
			sb_addf(&sb, "%s%lld %s", sb.len ? "; " : "", (long long)rep->skip_count[k],
				rep->skip_reason[k]);
	for (size_t k = 0; rejected && k < rep->nreasons; k++)
		if (rejected[k])
			sb_addf(&sb, "%s%lld %s", sb.len ? "; " : "", (long long)rejected[k],
				rep->reason_names[k]);
	return sb_detach(&sb);
}

/* the same counts as a JSON object: {"never started":2,"unknown GPU type 'a100'":4} */
static char *reasons_json(const struct dl_report *rep, int with_skipped, const int64_t *rejected)
{
	size_t n = (with_skipped ? rep->nskip : 0) + (rejected ? rep->nreasons : 0);
	const char **name = xcalloc(n ? n : 1, sizeof(*name));
	int64_t *count = xcalloc(n ? n : 1, sizeof(*count));
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		int skip = with_skipped && k < rep->nskip;
		size_t r = skip ? k : k - (with_skipped ? rep->nskip : 0);
		const char *why = skip ? rep->skip_reason[r] : rep->reason_names[r];
		int64_t c = skip ? rep->skip_count[r] : rejected[r];
		if (!c)
			continue;
		size_t i = 0;
		while (i < m && strcmp(name[i], why))
			i++;
		if (i == m)
			name[m++] = why;
		count[i] += c;
	}
	struct strbuf sb = STRBUF_INIT;
	sb_addc(&sb, '{');
	for (size_t i = 0; i < m; i++) {
		if (i)
			sb_addc(&sb, ',');
		dl_json_quote(&sb, name[i], strlen(name[i]));
		sb_addf(&sb, ":%lld", (long long)count[i]);
	}
	sb_addc(&sb, '}');
	free(name);
	free(count);
	return sb_detach(&sb);
}

int dl_report_compute(struct dl_report *rep, const struct dl_report_opts *opts, struct dl_err *err)
{
	if (rep->computed)
		return dl_err_set(err, DL_EXIT_DATA, "report computed twice");
	size_t base = (size_t)-1;
	if (opts->baseline) {
		int64_t *v = strmap_get(&rep->index, opts->baseline);
		if (!v) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < rep->nlabels; i++)
				sb_addf(&sb, "%s'%s'", i ? ", " : "", rep->labels[i].name);
			dl_err_set(err, DL_EXIT_USAGE,
				   "--baseline '%s' is not a label (labels: %s)", opts->baseline,
				   sb.buf);
			sb_release(&sb);
			return -1;
		}
		base = (size_t)*v;
	}
	for (size_t i = 0; i < rep->nlabels; i++)
		if (check_ids(rep, &rep->labels[i], err))
			return -1;
	/* the as-run timeline keeps the unfinished jobs: they held GPUs that night */
	for (size_t i = 0; i < rep->nlabels; i++)
		if (rep->labels[i].as_run && !rep->labels[i].has_tl)
			derive_timeline(&rep->labels[i]);
	leave_out_unfinished(rep);
	if (check_job_sets(rep, opts->allow_unequal, err))
		return -1;
	if (opts->baseline)
		rep->baseline = xstrdup(opts->baseline);
	rep->computed = 1;
	rep->capacity = opts->capacity;
	rep->window = opts->window;
	enum dl_report_by by = rep->by = opts->by;
	int64_t skipped = 0;
	for (size_t k = 0; k < rep->nskip; k++)
		skipped += rep->skip_count[k];
	rep->skipped_text = reasons_text(rep, 1, NULL);
	rep->night.skipped = skipped;

	/* with --by, only the classes some label has jobs in */
	if (group_dim(by) >= 0)
		fill_groups(rep, group_dim(by));
	size_t ncls = by != DL_REPORT_BY_NONE ? nclasses(rep, by) : 0;
	int *used = xcalloc(ncls + 1, sizeof(*used));
	if (by != DL_REPORT_BY_NONE)
		for (size_t i = 0; i < rep->nlabels; i++)
			for (size_t k = 0; k < rep->labels[i].njobs; k++)
				used[class_of(rep, by, &rep->labels[i].jobs[k])] = 1;
	size_t per = 1;
	for (size_t c = 0; c < ncls; c++)
		per += (size_t)used[c];
	rep->nrows = rep->nlabels * per;
	rep->rows = xcalloc(rep->nrows ? rep->nrows : 1, sizeof(*rep->rows));
	rep->row_text = xcalloc(rep->nrows ? rep->nrows : 1, sizeof(*rep->row_text));
	rep->row_json = xcalloc(rep->nrows ? rep->nrows : 1, sizeof(*rep->row_json));
	int64_t *rejected = xcalloc(rep->nreasons ? rep->nreasons : 1, sizeof(*rejected));
	rep->t0 = INFINITY;
	rep->t1 = -INFINITY;
	for (size_t i = 0; i < rep->nlabels; i++) {
		struct label *l = &rep->labels[i];
		unsigned char *in;
		struct view v;
		window_view(l, &opts->window, &in, &v);
		if (v.period && v.b >= v.a) {
			rep->t0 = v.a < rep->t0 ? v.a : rep->t0;
			rep->t1 = v.b > rep->t1 ? v.b : rep->t1;
			rep->has_period = 1;
		}
		for (size_t c = 0, r = i * per; c <= ncls; c++) {
			int cls = (int)c - 1;
			if (cls >= 0 && !used[cls])
				continue;
			struct dl_report_row *row = &rep->rows[r];
			metrics(rep, l, by, cls, opts->capacity, cls < 0, &v, rejected,
				rep->nreasons, row);
			if (cls < 0)
				row->dropped += skipped;
			rep->row_text[r] = reasons_text(rep, cls < 0, rejected);
			row->dropped_reasons = rep->row_text[r];
			rep->row_json[r] = reasons_json(rep, cls < 0, rejected);
			row->dropped_json = rep->row_json[r];
			r++;
		}
		free(in);
	}
	free(rejected);
	free(used);
	if (base != (size_t)-1)
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct dl_report_row *b = &rep->rows[base * per + i % per];
			rep->rows[i].speedup_jct = ratio(b->avg_jct, rep->rows[i].avg_jct);
			rep->rows[i].speedup_makespan = ratio(b->makespan, rep->rows[i].makespan);
		}
	return 0;
}

size_t dl_report_nrows(const struct dl_report *rep)
{
	return rep->nrows;
}

const struct dl_report_row *dl_report_row(const struct dl_report *rep, size_t i)
{
	return &rep->rows[i];
}

size_t dl_report_nseries(const struct dl_report *rep)
{
	return rep->nlabels;
}

void dl_report_series(const struct dl_report *rep, size_t i, struct dl_report_series *s)
{
	const struct label *l = &rep->labels[i];
	memset(s, 0, sizeof(*s));
	s->label = l->name;
	s->jct = l->jct;
	s->njct = l->njct;
	s->qdelay = l->qdelay;
	s->nqdelay = l->nqdelay;
	s->slowdown = l->slow;
	s->nslowdown = l->nslow;
	s->rho = l->rho;
	s->nrho = l->nrho;
	s->feedback = l->feedback;
	s->nfeedback = l->nfeedback;
	s->jobs = l->jobs_in;
	s->as_run = l->as_run;
	if (l->has_tl) {
		s->tl_time = l->tl.time;
		s->tl_busy = l->tl.busy;
		s->tl_pending = l->tl.pending;
		s->ntl = l->tl.n;
	}
}

double dl_report_capacity(const struct dl_report *rep)
{
	return rep->capacity;
}

const char *dl_report_baseline(const struct dl_report *rep)
{
	return rep->baseline;
}

const struct dl_report_window *dl_report_window(const struct dl_report *rep)
{
	return &rep->window;
}

int dl_report_period(const struct dl_report *rep, double *t0, double *t1)
{
	*t0 = rep->t0;
	*t1 = rep->t1;
	return rep->has_period;
}

enum dl_report_by dl_report_by(const struct dl_report *rep)
{
	return rep->by;
}

const char *dl_report_skipped(const struct dl_report *rep)
{
	return rep->skipped_text ? rep->skipped_text : "";
}

size_t dl_report_npartitions(const struct dl_report *rep)
{
	return rep->ngname[DL_REPORT_BY_PARTITION - DL_REPORT_BY_USER];
}

const char *dl_report_partition(const struct dl_report *rep, size_t i)
{
	return rep->gname[DL_REPORT_BY_PARTITION - DL_REPORT_BY_USER][i];
}

int dl_report_origin(const struct dl_report *rep, double *origin)
{
	*origin = rep->origin;
	return !isnan(rep->origin);
}

const struct dl_report_night *dl_report_night(const struct dl_report *rep)
{
	return &rep->night;
}

const char *dl_report_label_counts(const struct dl_report *rep)
{
	return rep->night_text ? rep->night_text : "";
}

/* ---- --window ---- */

/* seconds with an optional unit: "90", "1.5h", "2d" */
static int parse_time_unit(const char *s, size_t len, double *out)
{
	char buf[64];
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	double mul = 1;
	char u = buf[len - 1];
	if (u == 's' || u == 'm' || u == 'h' || u == 'd') {
		mul = u == 's' ? 1 : u == 'm' ? 60 : u == 'h' ? 3600 : 86400;
		buf[--len] = '\0';
	}
	if (dl_parse_nonneg(buf, out))
		return -1;
	*out *= mul;
	return isfinite(*out) ? 0 : -1;
}

int dl_report_window_parse(const char *s, struct dl_report_window *w)
{
	memset(w, 0, sizeof(*w));
	if (!strcmp(s, "arrivals")) {
		w->kind = DL_WINDOW_ARRIVALS;
		return 0;
	}
	int jobs = !strncmp(s, "jobs:", 5), time = !strncmp(s, "time:", 5);
	if (!jobs && !time)
		return -1;
	const char *a = s + 5, *dash = strchr(a, '-');
	if (!dash)
		return -1;
	const char *b = dash + 1;
	w->kind = jobs ? DL_WINDOW_JOBS : DL_WINDOW_TIME;
	if (jobs) {
		long long x, y;
		char *sa = xstrndup(a, (size_t)(dash - a));
		int bad = dl_parse_int_range(sa, 0, INT64_MAX, &x) ||
			  dl_parse_int_range(b, 0, INT64_MAX, &y);
		free(sa);
		if (bad || y <= x)
			return -1;
		w->from = (double)x;
		w->to = (double)y;
		return 0;
	}
	if (parse_time_unit(a, (size_t)(dash - a), &w->from))
		return -1;
	if (!*b)
		w->to = INFINITY;
	else if (parse_time_unit(b, strlen(b), &w->to) || !(w->to > w->from))
		return -1;
	return 0;
}

void dl_report_window_describe(const struct dl_report_window *w, struct strbuf *sb)
{
	char a[DL_NUM_BUF], b[DL_NUM_BUF];
	switch (w->kind) {
	case DL_WINDOW_ARRIVALS:
		sb_addstr(sb, "all jobs; utilisation from the first to the last arrival");
		break;
	case DL_WINDOW_JOBS:
		dl_fmt_double(a, w->from);
		dl_fmt_double(b, w->to - 1);
		sb_addf(sb,
			"jobs %s to %s in submit order (from 0); utilisation over their arrivals",
			a, b);
		break;
	case DL_WINDOW_TIME:
		dl_fmt_double(a, w->from);
		if (isfinite(w->to)) {
			dl_fmt_double(b, w->to);
			sb_addf(sb, "jobs submitted from %s s to %s s", a, b);
		} else {
			sb_addf(sb, "jobs submitted from %s s on", a);
		}
		break;
	default:
		sb_addstr(sb, "all jobs, the whole run");
	}
}
