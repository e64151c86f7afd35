/* import.c: importers of published traces and accounting logs (see import.h) */
#include "trace/import.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/num.h"
#include "core/strmap.h"

const char *const dl_import_fmt_names[DL_IMP_NFMT] = {
	"tiresias", "gavel", "philly", "pai", "helios", "sacct",
};

int dl_import_fmt_parse(const char *s, enum dl_import_fmt *out)
{
	for (int i = 0; i < DL_IMP_NFMT; i++)
		if (!strcmp(s, dl_import_fmt_names[i])) {
			*out = (enum dl_import_fmt)i;
			return 0;
		}
	return -1;
}

static const char *const skip_names[DL_SKIP_NREASONS] = {
	"no GPUs",
	"never started",
	"still running",
	"no attempts",
	"zero run time",
	"job step",
	"no tasks",
	"unfinished without a time limit",
	"rejected at submit",
	"cancelled while pending",
	"pending at the dump",
};

const char *dl_skip_reason_name(enum dl_skip_reason r)
{
	return r < DL_SKIP_NREASONS ? skip_names[r] : "?";
}

/* ---- small parsing helpers ---- */

static int digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int days_in_month(int y, int m)
{
	static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dm[m - 1];
}

int dl_parse_localtime(const char *s, size_t len, struct dl_timecache *cache, double *out)
{
	int y, mo, d, h = 0, mi = 0, se = 0;
	double frac = 0;
	if (len < 10 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
	    digits(s + 8, 2, &d))
		return -1;
	if (len > 10) {
		if (len < 19 || (s[10] != ' ' && s[10] != 'T') || digits(s + 11, 2, &h) ||
		    s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' ||
		    digits(s + 17, 2, &se))
			return -1;
		if (len > 19) {
			if (s[19] != '.' || len == 20)
				return -1;
			double scale = 0.1;
			for (size_t i = 20; i < len; i++, scale /= 10) {
				if (s[i] < '0' || s[i] > '9')
					return -1;
				frac += (s[i] - '0') * scale;
			}
		}
	}
	/* times before the epoch cannot be submits of a jobs stream (submit >= 0) */
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
	    mi > 59 || se > 60)
		return -1;
	int64_t key = (int64_t)y * 1000000 + mo * 10000 + d * 100 + h;
	size_t slot = (size_t)(key * 31 + d) % DL_TIMECACHE_SLOTS;
	double base;
	if (cache && cache->key[slot] == key) {
		base = cache->base[slot];
	} else {
		struct tm tm = {0};
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		tm.tm_hour = h;
		tm.tm_isdst = -1;
		time_t t = mktime(&tm);
		if (t == (time_t)-1 && y != 1970)
			return -1;
		base = (double)t;
		if (cache) {
			cache->key[slot] = key;
			cache->base[slot] = base;
		}
	}
	*out = base + mi * 60 + se + frac;
	return *out < 0 ? -1 : 0;
}

#define SACCT_TIME "YYYY-MM-DDTHH:MM:SS"

/* a local time field, or "FILE:LINE: bad COL value 'V': expected FORM from 1970 on" */
static int local_time_field(const char *file, long line, const char *col, const char *form,
			    const char *v, struct dl_timecache *tc, double *out, struct dl_err *err)
{
	if (!dl_parse_localtime(v, strlen(v), tc, out))
		return 0;
	return dl_err_at(err, file, line, "bad %s value '%.64s': expected %s from 1970 on", col, v,
			 form);
}

/* a missing time as logs write it */
static int is_unknown(const char *s)
{
	return !*s || !strcmp(s, "Unknown") || !strcmp(s, "None") || !strcmp(s, "NaN") ||
	       !strcmp(s, "nan") || !strcmp(s, "NA") || !strcmp(s, "null");
}

/* Split s in place at delim; stores up to max field starts; returns the field count. */
static size_t split(char *s, char delim, char **f, size_t max)
{
	size_t n = 0;
	for (;;) {
		if (n < max)
			f[n] = s;
		n++;
		char *p = strchr(s, delim);
		if (!p)
			return n;
		*p = 0;
		s = p + 1;
	}
}

static size_t count_fields(const char *s, char delim)
{
	size_t n = 1;
	for (; *s; s++)
		n += *s == delim;
	return n;
}

static void add_skip(struct dl_skips *sk, enum dl_skip_reason r)
{
	if (sk)
		sk->n[r]++;
}

/* ---- Slurm TRES ---- */

int dl_sacct_gpus(const char *tres, int64_t *gpus, const char **type, size_t *typelen)
{
	int64_t untyped = -1, typed = 0;
	int ntypes = 0;
	const char *t1 = NULL;
	size_t t1len = 0;
	const char *p = tres;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *name = p, *val = NULL;
		size_t namelen = len;
		/* TRES: gres/gpu[:type]=N ; old GRES: gpu[:type]:N[(IDX:...)] */
		if (len > 8 && !strncmp(p, "gres/gpu", 8) && (p[8] == '=' || p[8] == ':')) {
			const char *eq = memchr(p, '=', len);
			if (!eq)
				return -1;
			namelen = (size_t)(eq - p);
			val = eq + 1;
			name = p + 8;
			namelen -= 8;
		} else if (len > 4 && !strncmp(p, "gpu:", 4)) {
			const char *last = p + len;
			const char *paren = memchr(p, '(', len);
			if (paren)
				last = paren;
			const char *colon = last;
			while (colon > p && colon[-1] != ':')
				colon--;
			val = colon;
			name = p + 3; /* ":type:" or ":" */
			namelen = (size_t)(colon - 1 - name);
			len = (size_t)(last - p);
		}
		if (val) {
			const char *vend = p + len;
			int64_t v = 0;
			if (val == vend)
				return -1;
			for (const char *q = val; q < vend; q++) {
				if (*q < '0' || *q > '9' || v > 1000000000)
					return -1;
				v = v * 10 + (*q - '0');
			}
			if (namelen == 0) {
				untyped = untyped < 0 ? v : untyped + v;
			} else {
				typed += v;
				if (!ntypes || namelen - 1 != t1len || strncmp(name + 1, t1, t1len))
					ntypes++;
				if (!t1) {
					t1 = name + 1;
					t1len = namelen - 1;
				}
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	/* typed entries repeat the untyped total: count them once */
	*gpus = untyped >= 0 ? untyped : typed;
	if (type) {
		*type = ntypes == 1 ? t1 : NULL;
		*typelen = ntypes == 1 ? t1len : 0;
	}
	return 0;
}

/* ---- line-oriented input shared by sacct, gavel and pai ---- */

struct lines {
	struct dl_input *in;
	struct strbuf sb;
	long line;
	const char *name;
};

static int lines_open(struct lines *l, const char *path, struct dl_err *err)
{
	l->in = dl_input_open(path, err);
	sb_init(&l->sb);
	l->line = 0;
	l->name = l->in ? dl_input_name(l->in) : path;
	return l->in ? 0 : -1;
}

/* 1 = a line in l->sb (CR stripped, and a UTF-8 BOM before the first), 0 = EOF, -1 = error */
static int lines_next(struct lines *l, struct dl_err *err)
{
	int got = dl_input_getline(l->in, &l->sb, err);
	if (got > 0 && ++l->line == 1 && l->sb.len >= 3 && !memcmp(l->sb.buf, "\xEF\xBB\xBF", 3)) {
		/* as the table reader does: a file saved by a Windows editor starts with one */
		memmove(l->sb.buf, l->sb.buf + 3, l->sb.len - 3);
		sb_setlen(&l->sb, l->sb.len - 3);
	}
	return got;
}

static void lines_close(struct lines *l)
{
	if (l->in)
		dl_input_close(l->in);
	sb_release(&l->sb);
}

static int blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			return 0;
	return 1;
}

/* ---- tiresias ---- */

static int import_tiresias(struct dl_jobset *js, const char *path, struct dl_skips *sk,
			   struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, err);
	if (!r)
		return -1;
	int rc = -1;
	int cid = dl_reader_require(r, "job_id", "a Tiresias trace", err);
	int cg = cid < 0 ? -1 : dl_reader_require(r, "num_gpu", "a Tiresias trace", err);
	int cs = cg < 0 ? -1 : dl_reader_require(r, "submit_time", "a Tiresias trace", err);
	int cd = cs < 0 ? -1 : dl_reader_require(r, "duration", "a Tiresias trace", err);
	int cm = dl_reader_col(r, "model_name"), ci = dl_reader_col(r, "iterations");
	if (cd < 0)
		goto out;
	const char *name = dl_reader_name(r);
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		struct dl_job j = DL_JOB_INIT;
		j.line = row.line;
		j.id = row.f[cid];
		if (!*j.id) {
			dl_err_at(err, name, row.line, "empty job_id value");
			goto out;
		}
		if (dl_parse_int64(row.f[cg], &j.gpus) || j.gpus < 0) {
			dl_err_at(err, name, row.line,
				  "bad num_gpu value '%.64s': expected an integer >= 0", row.f[cg]);
			goto out;
		}
		if (dl_parse_nonneg(row.f[cs], &j.submit)) {
			dl_err_at(err, name, row.line,
				  "bad submit_time value '%.64s': expected a number >= 0",
				  row.f[cs]);
			goto out;
		}
		if (dl_parse_double(row.f[cd], &j.duration) || !(j.duration > 0)) {
			dl_err_at(err, name, row.line,
				  "bad duration value '%.64s': expected a number > 0", row.f[cd]);
			goto out;
		}
		j.model = dl_field_str(&row, cm);
		const char *it = dl_field_str(&row, ci);
		if (*it && dl_parse_nonneg(it, &j.steps)) {
			dl_err_at(err, name, row.line,
				  "bad iterations value '%.64s': expected a number >= 0", it);
			goto out;
		}
		if (!j.gpus) {
			add_skip(sk, DL_SKIP_NO_GPUS);
			continue;
		}
		dl_jobset_add(js, &j);
	}
	rc = got < 0 ? -1 : 0;
out:
	dl_reader_close(r);
	return rc;
}

/* ---- gavel ---- */

static int import_gavel(struct dl_jobset *js, const char *path, const struct dl_import_opts *o,
			int64_t *next_id, struct dl_err *err)
{
	struct lines l;
	if (lines_open(&l, path, err))
		return -1;
	const char *ref = o && o->ref_gpu_type ? o->ref_gpu_type : "v100";
	int rc = -1, got;
	char *f[10];
	char idbuf[32];
	while ((got = lines_next(&l, err)) > 0) {
		if (blank(l.sb.buf))
			continue;
		size_t n = split(l.sb.buf, '\t', f, 10);
		if (n != 10 && n != 7) {
			dl_err_at(err, l.name, l.line,
				  "expected 10 tab-separated fields (or the legacy 7), found %zu",
				  n);
			goto out;
		}
		const char *steps_s = n == 10 ? f[5] : f[4];
		const char *scale_s = f[6]; /* the same place in both forms */
		const char *arr_s = n == 10 ? f[9] : f[5];
		struct dl_job j = DL_JOB_INIT;
		j.line = l.line;
		j.model = f[0];
		if (!*j.model) {
			dl_err_at(err, l.name, l.line, "empty job_type value");
			goto out;
		}
		int64_t steps;
		if (dl_parse_int64(steps_s, &steps) || steps < 1) {
			dl_err_at(err, l.name, l.line,
				  "bad total_steps value '%.64s': expected an integer >= 1",
				  steps_s);
			goto out;
		}
		j.steps = (double)steps;
		if (dl_parse_int64(scale_s, &j.gpus) || j.gpus < 1) {
			dl_err_at(err, l.name, l.line,
				  "bad scale_factor value '%.64s': expected an integer >= 1",
				  scale_s);
			goto out;
		}
		if (dl_parse_nonneg(arr_s, &j.submit)) {
			dl_err_at(err, l.name, l.line,
				  "bad arrival_time value '%.64s': expected a number >= 0", arr_s);
			goto out;
		}
		if (n == 10 && dl_parse_nonneg(f[7], &j.weight)) {
			dl_err_at(err, l.name, l.line,
				  "bad priority_weight value '%.64s': expected a number >= 0",
				  f[7]);
			goto out;
		}
		if (!o || !o->tputs) {
			dl_err_at(err, l.name, l.line,
				  "gavel traces give steps, not seconds: a throughputs table is "
				  "needed (--throughputs)");
			goto out;
		}
		double tput = dl_tputs_get(o->tputs, j.model, ref, j.gpus);
		if (tput < 0) {
			dl_err_at(err, l.name, l.line,
				  "no throughput for model '%.80s' on %lld '%s' GPUs in the "
				  "throughputs table",
				  j.model, (long long)j.gpus, ref);
			goto out;
		}
		if (!(tput > 0)) {
			dl_err_at(err, l.name, l.line,
				  "throughput of model '%.80s' on %lld '%s' GPUs is 0", j.model,
				  (long long)j.gpus, ref);
			goto out;
		}
		j.duration = j.steps / tput;
		snprintf(idbuf, sizeof(idbuf), "%lld", (long long)(*next_id)++);
		j.id = idbuf;
		dl_jobset_add(js, &j);
	}
	rc = got < 0 ? -1 : 0;
out:
	lines_close(&l);
	return rc;
}

/* ---- philly ---- */

/* a Philly time: string date, or "None"/null/absent (returns 1 = missing) */
static int philly_time(json_t *v, struct dl_timecache *tc, double *out, int *bad)
{
	*bad = 0;
	if (!v || json_is_null(v))
		return 1;
	if (!json_is_string(v)) {
		*bad = 1;
		return 1;
	}
	const char *s = json_string_value(v);
	if (is_unknown(s))
		return 1;
	if (dl_parse_localtime(s, strlen(s), tc, out)) {
		*bad = 1;
		return 1;
	}
	return 0;
}

static const char *philly_str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_string(v) ? json_string_value(v) : "";
}

static int philly_job(struct dl_jobset *js, json_t *job, const char *name, long line,
		      const struct dl_import_opts *o, struct dl_timecache *tc, struct dl_skips *sk,
		      struct dl_err *err)
{
	int bad;
	if (!json_is_object(job))
		return dl_err_at(err, name, line, "expected a job object");
	struct dl_job j = DL_JOB_INIT;
	j.line = line;
	j.id = philly_str(job, "jobid");
	if (!*j.id)
		return dl_err_at(err, name, line, "job without a 'jobid' string");
	json_t *sub = json_object_get(job, "submitted_time");
	if (philly_time(sub, tc, &j.submit, &bad)) {
		if (bad)
			return dl_err_at(err, name, line,
					 "job '%.64s': bad submitted_time (expected "
					 "\"YYYY-MM-DD HH:MM:SS\")",
					 j.id);
		return dl_err_at(err, name, line, "job '%.64s': no submitted_time", j.id);
	}
	j.user = philly_str(job, "user");
	j.vc = philly_str(job, "vc");
	j.state = philly_str(job, "status");
	json_t *att = json_object_get(job, "attempts");
	if (att && !json_is_array(att) && !json_is_null(att))
		return dl_err_at(err, name, line, "job '%.64s': 'attempts' is not a list", j.id);
	size_t na = json_is_array(att) ? json_array_size(att) : 0;
	if (!na) {
		add_skip(sk, DL_SKIP_NO_ATTEMPTS);
		return 0;
	}
	double first_start = 0, last_end = 0, sum = 0;
	int have_first = 0, have_last = 0, complete = 0;
	for (size_t a = 0; a < na; a++) {
		json_t *at = json_array_get(att, a);
		if (!json_is_object(at))
			return dl_err_at(err, name, line,
					 "job '%.64s': attempt %zu is not an object", j.id, a + 1);
		double st = 0, en = 0;
		int miss_s = philly_time(json_object_get(at, "start_time"), tc, &st, &bad);
		if (bad)
			return dl_err_at(err, name, line,
					 "job '%.64s': attempt %zu: bad start_time", j.id, a + 1);
		int miss_e = philly_time(json_object_get(at, "end_time"), tc, &en, &bad);
		if (bad)
			return dl_err_at(err, name, line, "job '%.64s': attempt %zu: bad end_time",
					 j.id, a + 1);
		if (!miss_s && !have_first) {
			/* the first known start: a lost start time of an early attempt does not
			 * make the job "never started" */
			have_first = 1;
			first_start = st;
		}
		if (a == 0) {
			/* GPU count: all GPUs listed in the first attempt's detail (the notebook's
			 * rule) */
			json_t *det = json_object_get(at, "detail");
			if (det && !json_is_array(det))
				return dl_err_at(err, name, line,
						 "job '%.64s': attempt 1: 'detail' is not a list",
						 j.id);
			for (size_t k = 0; det && k < json_array_size(det); k++) {
				json_t *g = json_object_get(json_array_get(det, k), "gpus");
				if (g && !json_is_array(g))
					return dl_err_at(err, name, line,
							 "job '%.64s': attempt 1: 'gpus' is not a "
							 "list",
							 j.id);
				j.gpus += (int64_t)json_array_size(g);
			}
		}
		if (a == na - 1) {
			have_last = !miss_e;
			last_end = en;
		}
		if (!miss_s && !miss_e) {
			sum += en - st;
			complete = 1;
		}
	}
	if (!j.gpus) {
		add_skip(sk, DL_SKIP_NO_GPUS);
		return 0;
	}
	if (o && o->philly_sum_attempts) {
		if (!complete) {
			add_skip(sk, have_first ? DL_SKIP_RUNNING : DL_SKIP_NOT_STARTED);
			return 0;
		}
		j.duration = sum;
	} else {
		if (!have_first) {
			add_skip(sk, DL_SKIP_NOT_STARTED);
			return 0;
		}
		if (!have_last) {
			add_skip(sk, DL_SKIP_RUNNING);
			return 0;
		}
		j.duration = last_end - first_start;
	}
	if (!(j.duration > 0)) {
		add_skip(sk, DL_SKIP_ZERO_RUNTIME);
		return 0;
	}
	dl_jobset_add(js, &j);
	return 0;
}

static size_t skip_ws(const char *s, size_t pos, size_t len, long *line)
{
	while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) {
		if (s[pos] == '\n')
			(*line)++;
		pos++;
	}
	return pos;
}

static void count_lines(const char *s, size_t from, size_t to, long *line)
{
	for (size_t i = from; i < to; i++)
		if (s[i] == '\n')
			(*line)++;
}

static int import_philly(struct dl_jobset *js, const char *path, const struct dl_import_opts *o,
			 struct dl_skips *sk, struct dl_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	if (dl_read_file(path, &sb, err)) {
		sb_release(&sb);
		return -1;
	}
	const char *name = path && strcmp(path, "-") ? path : "<stdin>";
	const char *s = sb.buf;
	size_t len = sb.len, pos = 0;
	long line = 1;
	int rc = -1;
	struct dl_timecache tc = DL_TIMECACHE_INIT;
	pos = skip_ws(s, pos, len, &line);
	if (pos >= len || s[pos] != '[') {
		dl_err_at(err, name, line, "expected a JSON list of jobs (Philly cluster_job_log)");
		goto out;
	}
	pos = skip_ws(s, pos + 1, len, &line);
	if (pos < len && s[pos] == ']') {
		pos++;
	} else {
		for (;;) {
			json_error_t jerr;
			json_t *job = json_loadb(s + pos, len - pos, JSON_DISABLE_EOF_CHECK, &jerr);
			if (!job) {
				dl_err_at(err, name, line + (jerr.line > 0 ? jerr.line - 1 : 0),
					  "bad JSON: %s", jerr.text);
				goto out;
			}
			long at = line;
			count_lines(s, pos, pos + (size_t)jerr.position, &line);
			pos += (size_t)jerr.position;
			int r = philly_job(js, job, name, at, o, &tc, sk, err);
			json_decref(job);
			if (r)
				goto out;
			pos = skip_ws(s, pos, len, &line);
			if (pos < len && s[pos] == ',') {
				pos = skip_ws(s, pos + 1, len, &line);
				continue;
			}
			if (pos < len && s[pos] == ']') {
				pos++;
				break;
			}
			dl_err_at(err, name, line, "expected ',' or ']' after a job");
			goto out;
		}
	}
	pos = skip_ws(s, pos, len, &line);
	if (pos < len) {
		dl_err_at(err, name, line, "unexpected data after the list of jobs");
		goto out;
	}
	rc = 0;
out:
	sb_release(&sb);
	return rc;
}

/* ---- helios ---- */

static int import_helios(struct dl_jobset *js, const char *path, struct dl_skips *sk,
			 struct dl_err *err)
{
	struct dl_reader *r = dl_reader_open(path, DL_IN_AUTO, err);
	if (!r)
		return -1;
	int rc = -1;
	const char *why = "a Helios cluster_log.csv";
	int cid = dl_reader_require(r, "job_id", why, err);
	int cg = cid < 0 ? -1 : dl_reader_require(r, "gpu_num", why, err);
	int cs = cg < 0 ? -1 : dl_reader_require(r, "submit_time", why, err);
	int cd = cs < 0 ? -1 : dl_reader_require(r, "duration", why, err);
	if (cd < 0)
		goto out;
	int cu = dl_reader_col(r, "user"), cv = dl_reader_col(r, "vc");
	int cst = dl_reader_col(r, "state"), cstart = dl_reader_col(r, "start_time");
	const char *name = dl_reader_name(r);
	struct dl_timecache tc = DL_TIMECACHE_INIT;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		struct dl_job j = DL_JOB_INIT;
		j.line = row.line;
		j.id = row.f[cid];
		if (!*j.id) {
			dl_err_at(err, name, row.line, "empty job_id value");
			goto out;
		}
		const char *v = row.f[cg];
		if (dl_parse_int64(v, &j.gpus) || j.gpus < 0) {
			dl_err_at(err, name, row.line,
				  "bad gpu_num value '%.64s': expected an integer >= 0", v);
			goto out;
		}
		v = row.f[cs];
		if (local_time_field(name, row.line, "submit_time", "YYYY-MM-DD HH:MM:SS", v, &tc,
				     &j.submit, err))
			goto out;
		v = row.f[cd];
		int dur_unknown = is_unknown(v);
		if (!dur_unknown && dl_parse_double(v, &j.duration)) {
			dl_err_at(err, name, row.line,
				  "bad duration value '%.64s': expected seconds", v);
			goto out;
		}
		j.user = dl_field_str(&row, cu);
		j.vc = dl_field_str(&row, cv);
		j.state = dl_field_str(&row, cst);
		if (!j.gpus) {
			add_skip(sk, DL_SKIP_NO_GPUS);
			continue;
		}
		if (cstart >= 0 && is_unknown(row.f[cstart])) {
			add_skip(sk, DL_SKIP_NOT_STARTED);
			continue;
		}
		if (dur_unknown) {
			add_skip(sk, DL_SKIP_RUNNING);
			continue;
		}
		if (!(j.duration > 0)) {
			add_skip(sk, DL_SKIP_ZERO_RUNTIME);
			continue;
		}
		dl_jobset_add(js, &j);
	}
	rc = got < 0 ? -1 : 0;
out:
	dl_reader_close(r);
	return rc;
}

/* ---- sacct ---- */

enum {
	SC_JOBID,
	SC_JOBIDRAW,
	SC_USER,
	SC_ACCOUNT,
	SC_PARTITION,
	SC_SUBMIT,
	SC_START,
	SC_END,
	SC_ELAPSEDRAW,
	SC_ELAPSED,
	SC_ALLOCTRES,
	SC_ALLOCGRES,
	SC_STATE,
	SC_REQTRES,
	SC_TIMELIMITRAW,
	SC_N,
};
static const char *const sacct_cols[SC_N] = {
	"JobID",     "JobIDRaw",  "User",  "Account",	 "Partition",
	"Submit",    "Start",	  "End",   "ElapsedRaw", "Elapsed",
	"AllocTRES", "AllocGRES", "State", "ReqTRES",	 "TimelimitRaw",
};

/* the pass-through columns of Slurm's real schedule */
static const char *const asrun_cols[2] = {"start", "end"};
/* the GPU type Slurm allocated (AllocTRES), beside the type asked for (ReqTRES) */
#define ALLOC_TYPE_COL "alloc_gpu_type"

/*
 * Why a job that never started was skipped: pending when sacct ran, cancelled
 * while it waited, or failed at once (a submission Slurm could not run)
 */
static enum dl_skip_reason not_started(const char *state)
{
	if (!strcmp(state, "PENDING") || !strcmp(state, "REQUEUED") || !strcmp(state, "RESIZING"))
		return DL_SKIP_PENDING;
	if (!strcmp(state, "CANCELLED"))
		return DL_SKIP_CANCELLED_PENDING;
	return DL_SKIP_REJECTED;
}

void dl_import_shift_times(struct dl_jobset *js, double delta)
{
	for (size_t c = 0; c < js->npass; c++) {
		if (strcmp(js->pass[c], asrun_cols[0]) && strcmp(js->pass[c], asrun_cols[1]))
			continue;
		for (size_t i = 0; i < js->n; i++) {
			struct dl_job *j = &js->jobs[i];
			double v;
			char buf[DL_NUM_BUF];
			if (c >= j->nextra || !*j->extra[c] || dl_parse_double(j->extra[c], &v))
				continue;
			dl_fmt_double(buf, v + delta);
			j->extra[c] = dl_jobset_strdup(js, buf);
		}
	}
}

/* a time limit in minutes (TimelimitRaw) as seconds; -1 for UNLIMITED, Partition_Limit, ... */
static double timelimit_seconds(const char *v)
{
	int64_t m;
	if (dl_parse_int64(v, &m) || m <= 0 || m >= 4294967294LL) /* INFINITE, NO_VAL */
		return -1;
	return (double)m * 60;
}

/* "[D-]HH:MM:SS" or "MM:SS" (sacct's Elapsed) */
static int parse_elapsed(const char *s, double *out)
{
	long d = 0, h = 0, m = 0, sec = 0;
	const char *dash = strchr(s, '-');
	char *end;
	if (dash) {
		d = strtol(s, &end, 10);
		if (end != dash || d < 0)
			return -1;
		s = dash + 1;
	}
	int n = 0;
	long part[3];
	while (n < 3) {
		if (*s < '0' || *s > '9')
			return -1;
		part[n++] = strtol(s, &end, 10);
		if (*end == ':') {
			s = end + 1;
			continue;
		}
		if (*end)
			return -1;
		break;
	}
	if (n == 3) {
		h = part[0];
		m = part[1];
		sec = part[2];
	} else if (n == 2) {
		m = part[0];
		sec = part[1];
	} else {
		return -1;
	}
	*out = (double)d * 86400 + (double)h * 3600 + (double)m * 60 + (double)sec;
	return 0;
}

/* one sacct file's reading: its columns and what the rows reuse */
struct sacct {
	int col[SC_N];	/* field index of each SC_ column, -1 = absent */
	size_t ncols;	/* fields of the header; 0 before it */
	char **f;	/* the current line's fields */
	size_t pass[4]; /* pass-through column + 1 of start, end, alloc type, partition */
	int keep_unfinished;
	struct dl_timecache tc;
	struct strbuf state, gtype, atype; /* the row's State, GPU type asked for, type run on */
	const char *extra[64];		   /* the row's pass-through fields */
	char startbuf[DL_NUM_BUF], endbuf[DL_NUM_BUF];
};

/* the header line (sacct -P, or -p with a trailing '|'): find the columns, declare the
 * pass-through ones. 0, or -1 when a column the jobs need is missing */
static int sacct_header(struct sacct *s, struct dl_jobset *js, const struct lines *l,
			struct dl_err *err)
{
	int *col = s->col;
	size_t n = count_fields(l->sb.buf, '|');
	s->f = xcalloc(n, sizeof(*s->f));
	split(l->sb.buf, '|', s->f, n);
	s->ncols = n;
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < SC_N; c++)
			if (!strcmp(s->f[i], sacct_cols[c]) && col[c] < 0)
				col[c] = (int)i;
	if (col[SC_JOBID] < 0)
		col[SC_JOBID] = col[SC_JOBIDRAW];
	if (col[SC_JOBID] < 0)
		return dl_err_at(err, l->name, l->line,
				 "no sacct header with a JobID column (run sacct -P "
				 "without -n/--noheader)");
	if (col[SC_SUBMIT] < 0)
		return dl_err_at(err, l->name, l->line, "missing required column 'Submit'");
	if (col[SC_ALLOCTRES] < 0 && col[SC_ALLOCGRES] < 0)
		return dl_err_at(err, l->name, l->line,
				 "missing required column 'AllocTRES' (or AllocGRES)");
	if (col[SC_ELAPSEDRAW] < 0 && col[SC_ELAPSED] < 0 && (col[SC_START] < 0 || col[SC_END] < 0))
		return dl_err_at(err, l->name, l->line,
				 "missing required column 'ElapsedRaw' (or Elapsed, or "
				 "Start and End)");
	/* Slurm's real schedule, for report --as-run */
	for (int k = 0; k < 2; k++)
		if (col[k ? SC_END : SC_START] >= 0)
			s->pass[k] = dl_jobset_pass_col(js, asrun_cols[k]) + 1;
	if (col[SC_REQTRES] >= 0)
		s->pass[2] = dl_jobset_pass_col(js, ALLOC_TYPE_COL) + 1;
	/* vc is the Account when there is one: the partition for report --by */
	if (col[SC_PARTITION] >= 0)
		s->pass[3] = dl_jobset_pass_col(js, "partition") + 1;
	return 0;
}

/*
 * The job's run time: ElapsedRaw, else Elapsed, else End - Start (each when
 * there); 0 when none is known. 0, or -1 on a bad value.
 */
static int sacct_duration(const struct sacct *s, const struct lines *l, int have_times,
			  double start, double end, double *duration, struct dl_err *err)
{
	const int *col = s->col;
	const char *v;
	*duration = 0;
	if (col[SC_ELAPSEDRAW] >= 0) {
		v = s->f[col[SC_ELAPSEDRAW]];
		int64_t e;
		if (dl_parse_int64(v, &e) || e < 0)
			return dl_err_at(err, l->name, l->line,
					 "bad ElapsedRaw value '%.64s': expected seconds", v);
		*duration = (double)e;
	} else if (col[SC_ELAPSED] >= 0) {
		v = s->f[col[SC_ELAPSED]];
		if (parse_elapsed(v, duration))
			return dl_err_at(err, l->name, l->line,
					 "bad Elapsed value '%.64s': expected [D-]HH:MM:SS", v);
	} else if (have_times) {
		*duration = end - start;
	}
	return 0;
}

/* the job's pass-through fields (its start, end, GPU type run on, partition) in s->extra */
static size_t sacct_extra(struct sacct *s, int have_start, double start, int have_end, double end)
{
	const char **extra = s->extra;
	size_t nx = 0;
	for (int k = 0; k < 4; k++) {
		if (!s->pass[k])
			continue;
		while (nx < s->pass[k] - 1 && nx < DL_ARRAY_SIZE(s->extra))
			extra[nx++] = "";
		const char *val = k == 3 ? s->f[s->col[SC_PARTITION]] : s->atype.buf;
		if (k < 2) {
			int have = k ? have_end : have_start;
			char *buf = k ? s->endbuf : s->startbuf;
			if (have)
				dl_fmt_double(buf, k ? end : start);
			val = have ? buf : "";
		}
		if (nx < DL_ARRAY_SIZE(s->extra))
			extra[nx++] = val;
	}
	return nx;
}

/*
 * One job line: the job added to js, or skipped (a step, not started, still
 * running or pending without --keep-unfinished, no GPUs, no run time; counted
 * in sk). 0, or -1 on a bad line.
 */
static int sacct_row(struct sacct *s, struct dl_jobset *js, const struct lines *l,
		     struct dl_skips *sk, struct dl_err *err)
{
	const int *col = s->col;
	char **f = s->f;
	size_t n = split(l->sb.buf, '|', f, s->ncols);
	if (n != s->ncols)
		return dl_err_at(err, l->name, l->line,
				 "expected %zu '|'-separated fields, found %zu", s->ncols, n);
	struct dl_job j = DL_JOB_INIT;
	j.line = l->line;
	j.id = f[col[SC_JOBID]];
	if (!*j.id)
		return dl_err_at(err, l->name, l->line, "empty JobID value");
	const char *v = f[col[SC_SUBMIT]];
	if (local_time_field(l->name, l->line, "Submit", SACCT_TIME, v, &s->tc, &j.submit, err))
		return -1;
	j.user = col[SC_USER] >= 0 ? f[col[SC_USER]] : "";
	j.vc = col[SC_ACCOUNT] >= 0	? f[col[SC_ACCOUNT]]
	       : col[SC_PARTITION] >= 0 ? f[col[SC_PARTITION]]
					: "";
	if (col[SC_STATE] >= 0) {
		/* "CANCELLED by 123" -> "CANCELLED" */
		const char *st = f[col[SC_STATE]];
		sb_reset(&s->state);
		sb_add(&s->state, st, strcspn(st, " +"));
		j.state = s->state.buf;
	}
	if (strchr(j.id, '.')) {
		add_skip(sk, DL_SKIP_STEP);
		return 0;
	}
	double start = 0, end = 0;
	int have_start = 0, have_end = 0;
	/* unfinished at dump time: pending (no Start, no End) or running (no End) */
	int pending = 0, running = 0;
	int end_unknown = col[SC_END] >= 0 && is_unknown(f[col[SC_END]]);
	if (col[SC_START] >= 0) {
		v = f[col[SC_START]];
		if (is_unknown(v) && s->keep_unfinished && end_unknown) {
			pending = 1;
		} else if (is_unknown(v)) {
			add_skip(sk, end_unknown ? DL_SKIP_PENDING : not_started(j.state));
			return 0;
		} else {
			if (local_time_field(l->name, l->line, "Start", SACCT_TIME, v, &s->tc,
					     &start, err))
				return -1;
			have_start = 1;
		}
	}
	if (col[SC_END] >= 0 && !pending) {
		v = f[col[SC_END]];
		if (end_unknown && s->keep_unfinished) {
			running = 1;
		} else if (end_unknown) {
			add_skip(sk, DL_SKIP_RUNNING);
			return 0;
		} else {
			if (local_time_field(l->name, l->line, "End", SACCT_TIME, v, &s->tc, &end,
					     err))
				return -1;
			have_end = 1;
		}
	}
	const char *tres = col[SC_ALLOCTRES] >= 0 ? f[col[SC_ALLOCTRES]] : f[col[SC_ALLOCGRES]];
	const char *tres_col = col[SC_ALLOCTRES] >= 0 ? "AllocTRES" : "AllocGRES";
	if (pending && col[SC_REQTRES] >= 0) {
		tres = f[col[SC_REQTRES]]; /* nothing is allocated yet */
		tres_col = "ReqTRES";
	}
	const char *type;
	size_t typelen;
	if (dl_sacct_gpus(tres, &j.gpus, &type, &typelen))
		return dl_err_at(err, l->name, l->line,
				 "bad %s value '%.80s': expected gres/gpu[:TYPE]=N entries",
				 tres_col, tres);
	sb_reset(&s->gtype);
	if (type)
		sb_add(&s->gtype, type, typelen);
	/* what it ran on, for the as-run label; what it asked for, for the what-if */
	sb_reset(&s->atype);
	sb_addstr(&s->atype, pending ? "" : s->gtype.buf);
	if (col[SC_REQTRES] >= 0) {
		const char *req = f[col[SC_REQTRES]];
		int64_t asked;
		sb_reset(&s->gtype);
		if (dl_sacct_gpus(req, &asked, &type, &typelen))
			return dl_err_at(err, l->name, l->line,
					 "bad ReqTRES value '%.80s': expected gres/gpu[:TYPE]=N "
					 "entries",
					 req);
		if (type)
			sb_add(&s->gtype, type, typelen);
	}
	j.gpu_type = s->gtype.buf;
	if (sacct_duration(s, l, have_start && have_end, start, end, &j.duration, err))
		return -1;
	if (!j.gpus) {
		/* a job cancelled while it waited: Slurm gives it Start = End (the
		 * cancel time) and no AllocTRES, but it asked for GPUs (ReqTRES) */
		int64_t asked = 0;
		if (col[SC_REQTRES] >= 0 &&
		    dl_sacct_gpus(f[col[SC_REQTRES]], &asked, &type, &typelen))
			asked = 0;
		add_skip(sk, asked > 0 ? not_started(j.state) : DL_SKIP_NO_GPUS);
		return 0;
	}
	if (pending || running) {
		/* the time limit bounds the run: what Slurm's own backfill assumes */
		double limit =
			col[SC_TIMELIMITRAW] >= 0 ? timelimit_seconds(f[col[SC_TIMELIMITRAW]]) : -1;
		if (limit < 0) {
			add_skip(sk, DL_SKIP_NO_LIMIT);
			return 0;
		}
		if (!running || limit > j.duration)
			j.duration = limit;
	}
	if (!(j.duration > 0)) {
		add_skip(sk, DL_SKIP_ZERO_RUNTIME);
		return 0;
	}
	j.nextra = sacct_extra(s, have_start, start, have_end, end);
	j.extra = j.nextra ? s->extra : NULL;
	dl_jobset_add(js, &j);
	return 0;
}

static int import_sacct(struct dl_jobset *js, const char *path, const struct dl_import_opts *o,
			struct dl_skips *sk, struct dl_err *err)
{
	struct lines l;
	if (lines_open(&l, path, err))
		return -1;
	struct sacct s = {.keep_unfinished = o && o->keep_unfinished, .tc = DL_TIMECACHE_INIT};
	sb_init(&s.state);
	sb_init(&s.gtype);
	sb_init(&s.atype);
	for (int c = 0; c < SC_N; c++)
		s.col[c] = -1;
	int rc = 0, got = 0;
	while (!rc && (got = lines_next(&l, err)) > 0) {
		if (blank(l.sb.buf))
			continue;
		rc = s.ncols ? sacct_row(&s, js, &l, sk, err) : sacct_header(&s, js, &l, err);
	}
	if (!rc && got < 0)
		rc = -1;
	if (!rc && !s.ncols)
		rc = dl_err_at(err, l.name, 0, "empty input: no sacct header line");
	free(s.f);
	sb_release(&s.state);
	sb_release(&s.gtype);
	sb_release(&s.atype);
	lines_close(&l);
	return rc;
}

/* ---- pai ---- */

struct pai_agg {
	double gpu;	/* sum of inst_num * plan_gpu / 100 */
	double start;	/* earliest task start */
	double end;	/* latest task end */
	int started;	/* some task has a start */
	int unfinished; /* some task has no end */
	char *gpu_type; /* of the first GPU task */
};

struct pai_state {
	struct strmap index; /* job_name -> agg index */
	struct pai_agg *agg;
	size_t n, alloc;
};

static int pai_num(const char *s, double *out, int empty_ok)
{
	if (!*s && empty_ok) {
		*out = 0;
		return 0;
	}
	return dl_parse_double(s, out);
}

static int pai_tasks(struct pai_state *ps, struct lines *l, char *first, struct dl_err *err)
{
	char *f[10];
	int got = 1;
	for (char *line = first;; line = NULL) {
		if (!line) {
			if ((got = lines_next(l, err)) <= 0)
				break;
			line = l->sb.buf;
		}
		if (blank(line))
			continue;
		size_t n = split(line, ',', f, 10);
		if (n != 10)
			return dl_err_at(err, l->name, l->line,
					 "expected 10 fields of the PAI task table, found %zu", n);
		double inst, plan, st = 0, en = 0;
		if (pai_num(f[2], &inst, 0) || inst < 0)
			return dl_err_at(err, l->name, l->line, "bad inst_num value '%.64s'", f[2]);
		if (pai_num(f[8], &plan, 1) || plan < 0)
			return dl_err_at(err, l->name, l->line, "bad plan_gpu value '%.64s'", f[8]);
		int has_st = !is_unknown(f[4]), has_en = !is_unknown(f[5]);
		if (has_st && dl_parse_double(f[4], &st))
			return dl_err_at(err, l->name, l->line, "bad start_time value '%.64s'",
					 f[4]);
		if (has_en && dl_parse_double(f[5], &en))
			return dl_err_at(err, l->name, l->line, "bad end_time value '%.64s'", f[5]);
		if (!*f[0])
			return dl_err_at(err, l->name, l->line, "empty job_name value");
		int64_t *at = strmap_get(&ps->index, f[0]);
		struct pai_agg *a;
		if (at) {
			a = &ps->agg[*at];
		} else {
			DL_GROW(ps->agg, ps->n + 1, ps->alloc);
			a = &ps->agg[ps->n];
			memset(a, 0, sizeof(*a));
			strmap_put(&ps->index, f[0], (int64_t)ps->n);
			ps->n++;
		}
		double g = inst * plan / 100;
		a->gpu += g;
		if (g > 0 && !a->gpu_type && *f[9])
			a->gpu_type = xstrdup(f[9]);
		if (has_st) {
			if (!a->started || st < a->start)
				a->start = st;
			a->started = 1;
		}
		if (has_en) {
			if (en > a->end)
				a->end = en;
		} else {
			a->unfinished = 1;
		}
	}
	return got < 0 ? -1 : 0;
}

static int pai_jobs(struct dl_jobset *js, struct pai_state *ps, struct lines *l, char *first,
		    struct dl_skips *sk, struct dl_err *err)
{
	char *f[6];
	char req[DL_NUM_BUF];
	size_t pc = dl_jobset_pass_col(js, "gpu_request");
	const char **extra = xcalloc(pc + 1, sizeof(*extra));
	int got = 1, rc = -1;
	for (size_t k = 0; k <= pc; k++)
		extra[k] = "";
	for (char *line = first;; line = NULL) {
		if (!line) {
			if ((got = lines_next(l, err)) <= 0)
				break;
			line = l->sb.buf;
		}
		if (blank(line))
			continue;
		size_t n = split(line, ',', f, 6);
		if (n != 6) {
			dl_err_at(err, l->name, l->line,
				  "expected 6 fields of the PAI job table, found %zu", n);
			goto out;
		}
		struct dl_job j = DL_JOB_INIT;
		j.line = l->line;
		j.id = f[0];
		j.user = f[2];
		j.state = f[3];
		if (!*j.id) {
			dl_err_at(err, l->name, l->line, "empty job_name value");
			goto out;
		}
		if (dl_parse_nonneg(f[4], &j.submit)) {
			dl_err_at(err, l->name, l->line,
				  "bad start_time value '%.64s': expected seconds >= 0", f[4]);
			goto out;
		}
		int64_t *at = strmap_get(&ps->index, f[0]);
		if (!at) {
			add_skip(sk, DL_SKIP_NO_TASKS);
			continue;
		}
		struct pai_agg *a = &ps->agg[*at];
		if (!(a->gpu > 0)) {
			add_skip(sk, DL_SKIP_NO_GPUS);
			continue;
		}
		if (!a->started) {
			add_skip(sk, DL_SKIP_NOT_STARTED);
			continue;
		}
		if (a->unfinished || is_unknown(f[5])) {
			add_skip(sk, DL_SKIP_RUNNING);
			continue;
		}
		j.duration = a->end - a->start;
		if (!(j.duration > 0)) {
			add_skip(sk, DL_SKIP_ZERO_RUNTIME);
			continue;
		}
		/*
		 * Fractional requests (GPU sharing, e.g. 50 = half a GPU) occupy whole
		 * GPUs here: gpus = ceil(request); the request itself is kept in
		 * gpu_request. The 1e-9 absorbs float noise from inst_num * plan_gpu.
		 */
		double g = ceil(a->gpu - 1e-9);
		if (g > 1e9) {
			dl_err_at(err, l->name, l->line, "job '%.64s' requests %g GPUs", j.id, g);
			goto out;
		}
		j.gpus = (int64_t)g;
		j.gpu_type = a->gpu_type ? a->gpu_type : "";
		dl_fmt_double(req, a->gpu);
		extra[pc] = req;
		j.extra = extra;
		j.nextra = pc + 1;
		dl_jobset_add(js, &j);
	}
	rc = got < 0 ? -1 : 0;
out:
	free(extra);
	return rc;
}

/* the jobs an importer added from file, within the jobs stream's limits (dl_job_check) */
static int check_jobs(const struct dl_jobset *js, size_t from, const char *file, struct dl_err *err)
{
	for (size_t i = from; i < js->n; i++)
		if (dl_job_check(&js->jobs[i], strcmp(file, "-") ? file : "<stdin>", err))
			return -1;
	return 0;
}

static int import_pai(struct dl_jobset *js, char *const *paths, size_t np, struct dl_skips *sk,
		      struct dl_err *err)
{
	struct pai_state ps = {STRMAP_INIT, NULL, 0, 0};
	int rc = -1;
	/* pass 0: task tables (they must be known before jobs), pass 1: job tables */
	for (size_t i = 0; i < np; i++)
		if (!strcmp(paths[i], "-"))
			return dl_err_set(err, DL_EXIT_USAGE,
					  "pai reads two tables from files, not standard input");
	int *kind = xcalloc(np ? np : 1, sizeof(*kind));
	int ntask = 0, njob = 0;
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < np; i++) {
			if (pass > 0 && kind[i] != pass)
				continue;
			struct lines l;
			if (lines_open(&l, paths[i], err))
				goto out;
			int got;
			while ((got = lines_next(&l, err)) > 0 && blank(l.sb.buf))
				;
			if (got < 0) {
				lines_close(&l);
				goto out;
			}
			int r = 0;
			if (pass == 0) {
				size_t n = got ? count_fields(l.sb.buf, ',') : 0;
				if (n != 6 && n != 10 && got) {
					dl_err_at(err, l.name, l.line,
						  "expected the PAI job table (6 fields) or task "
						  "table (10 fields), found %zu fields",
						  n);
					lines_close(&l);
					goto out;
				}
				kind[i] = n == 10 ? 1 : 2;
				ntask += n == 10;
				njob += n == 6;
			} else if (got && pass == 1) {
				r = pai_tasks(&ps, &l, l.sb.buf, err);
			} else if (got) {
				size_t before = js->n;
				r = pai_jobs(js, &ps, &l, l.sb.buf, sk, err) ||
				    check_jobs(js, before, paths[i], err);
			}
			lines_close(&l);
			if (r)
				goto out;
		}
		if (pass == 0 && (!ntask || !njob)) {
			dl_err_set(err, DL_EXIT_USAGE,
				   "pai needs the job table (pai_job_table.csv) and the task table "
				   "(pai_task_table.csv)");
			goto out;
		}
	}
	rc = 0;
out:
	for (size_t i = 0; i < ps.n; i++)
		free(ps.agg[i].gpu_type);
	free(ps.agg);
	strmap_free(&ps.index);
	free(kind);
	return rc;
}

int dl_import_files(struct dl_jobset *js, enum dl_import_fmt fmt, char *const *paths, size_t n,
		    const struct dl_import_opts *o, struct dl_skips *sk, struct dl_err *err)
{
	if (fmt == DL_IMP_PAI)
		return import_pai(js, paths, n, sk, err);
	int64_t next_id = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = 0;
		size_t before = js->n;
		switch (fmt) {
		case DL_IMP_TIRESIAS:
			rc = import_tiresias(js, paths[i], sk, err);
			break;
		case DL_IMP_GAVEL:
			rc = import_gavel(js, paths[i], o, &next_id, err);
			break;
		case DL_IMP_PHILLY:
			rc = import_philly(js, paths[i], o, sk, err);
			break;
		case DL_IMP_HELIOS:
			rc = import_helios(js, paths[i], sk, err);
			break;
		case DL_IMP_SACCT:
			rc = import_sacct(js, paths[i], o, sk, err);
			break;
		default:
			return dl_err_set(err, DL_EXIT_USAGE, "unknown trace format");
		}
		if (rc || check_jobs(js, before, paths[i], err))
			return -1;
	}
	return 0;
}

int dl_slurm_duration(const char *s, double *out)
{
	return parse_elapsed(s, out);
}

size_t dl_split_fields(char *s, char delim, char **f, size_t max)
{
	return split(s, delim, f, max);
}
