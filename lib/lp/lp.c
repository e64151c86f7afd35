/* lp.c: the GLPK wrapper (see lp.h for the contract) */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lp/lp.h"

struct lp_var {
	char *name;
	double lb, ub, obj;
	int is_int;
};

struct lp_trip {
	int row, col;
	double v;
};

struct dl_lp {
	char *name;
	enum dl_lp_dir dir;
	struct lp_var *cols, *rows; /* [0] unused, as in GLPK */
	size_t ncols, nrows, acols, arows;
	struct lp_trip *trip;
	size_t ntrip, atrip;
	/* columns replaced in the built problem, not yet in trip (see fold_columns) */
	struct lp_trip *repl;
	size_t nrepl, arepl;
	char *replaced; /* [1..ncols] */
	size_t areplaced;
	glp_prob *prob; /* built from the arrays above; NULL when stale */
	int nint;	/* integer columns */
	double *val;	/* [1..ncols] after a successful solve */
	int have_val;
	struct dl_lp_info info;
	jmp_buf jb;  /* GLPK's error hook jumps back here */
	int verbose; /* of the current call, for the terminal hook */
};

struct dl_lp *dl_lp_new(const char *name, enum dl_lp_dir dir)
{
	struct dl_lp *lp = xcalloc(1, sizeof(*lp));
	lp->name = xstrdup(name ? name : "dlsched");
	lp->dir = dir;
	lp->ncols = lp->nrows = 0;
	DL_GROW(lp->cols, 1, lp->acols);
	DL_GROW(lp->rows, 1, lp->arows);
	lp->info.status = "not solved";
	return lp;
}

void dl_lp_free(struct dl_lp *lp)
{
	if (!lp)
		return;
	if (lp->prob)
		glp_delete_prob(lp->prob);
	for (size_t i = 1; i <= lp->ncols; i++)
		free(lp->cols[i].name);
	for (size_t i = 1; i <= lp->nrows; i++)
		free(lp->rows[i].name);
	free(lp->cols);
	free(lp->rows);
	free(lp->trip);
	free(lp->repl);
	free(lp->replaced);
	free(lp->val);
	free(lp->name);
	free(lp);
}

/* bring trip up to date with the columns dl_lp_set_col replaced */
static void fold_columns(struct dl_lp *lp)
{
	if (!lp->nrepl && !lp->replaced)
		return;
	size_t n = 0;
	for (size_t k = 0; k < lp->ntrip; k++)
		if (!lp->replaced || (size_t)lp->trip[k].col >= lp->areplaced ||
		    !lp->replaced[lp->trip[k].col])
			lp->trip[n++] = lp->trip[k];
	lp->ntrip = n;
	DL_GROW(lp->trip, lp->ntrip + lp->nrepl, lp->atrip);
	memcpy(lp->trip + lp->ntrip, lp->repl, lp->nrepl * sizeof(*lp->repl));
	lp->ntrip += lp->nrepl;
	lp->nrepl = 0;
	free(lp->replaced);
	lp->replaced = NULL;
	lp->areplaced = 0;
}

static void stale(struct dl_lp *lp)
{
	fold_columns(lp);
	if (lp->prob) {
		glp_delete_prob(lp->prob);
		lp->prob = NULL;
	}
	lp->have_val = 0;
}

int dl_lp_add_col(struct dl_lp *lp, const char *name, double lb, double ub, double obj)
{
	stale(lp);
	DL_GROW(lp->cols, lp->ncols + 2, lp->acols);
	struct lp_var *v = &lp->cols[++lp->ncols];
	v->name = name ? xstrdup(name) : NULL;
	v->lb = lb;
	v->ub = ub;
	v->obj = obj;
	v->is_int = 0;
	return (int)lp->ncols;
}

int dl_lp_add_row(struct dl_lp *lp, const char *name, double lb, double ub)
{
	stale(lp);
	DL_GROW(lp->rows, lp->nrows + 2, lp->arows);
	struct lp_var *v = &lp->rows[++lp->nrows];
	v->name = name ? xstrdup(name) : NULL;
	v->lb = lb;
	v->ub = ub;
	v->obj = 0;
	v->is_int = 0;
	return (int)lp->nrows;
}

/* A bad index is a bug in the caller: fail loudly rather than let GLPK abort later. */
static void check_index(int i, size_t n, const char *what)
{
	if (i < 1 || (size_t)i > n) {
		fprintf(stderr, "dlsched: internal error: LP %s index %d out of 1..%zu\n", what, i,
			n);
		abort();
	}
}

void dl_lp_coef(struct dl_lp *lp, int row, int col, double v)
{
	check_index(row, lp->nrows, "row");
	check_index(col, lp->ncols, "column");
	if (v == 0)
		return;
	stale(lp);
	DL_GROW(lp->trip, lp->ntrip + 1, lp->atrip);
	lp->trip[lp->ntrip++] = (struct lp_trip){row, col, v};
}

void dl_lp_set_col(struct dl_lp *lp, int col, int n, const int *rows, const double *vals)
{
	check_index(col, lp->ncols, "column");
	for (int k = 0; k < n; k++)
		check_index(rows[k], lp->nrows, "row");
	lp->have_val = 0;
	if ((size_t)col >= lp->areplaced) {
		size_t old = lp->areplaced;
		lp->areplaced = lp->ncols + 1;
		lp->replaced = xreallocarray(lp->replaced, lp->areplaced, 1);
		memset(lp->replaced + old, 0, lp->areplaced - old);
	}
	if (lp->replaced[col]) { /* replaced again: drop the previous replacement */
		size_t m = 0;
		for (size_t k = 0; k < lp->nrepl; k++)
			if (lp->repl[k].col != col)
				lp->repl[m++] = lp->repl[k];
		lp->nrepl = m;
	}
	lp->replaced[col] = 1;
	/* duplicate rows are summed, as by dl_lp_coef; zeros dropped */
	size_t first = lp->nrepl;
	for (int k = 0; k < n; k++) {
		size_t q = first;
		while (q < lp->nrepl && lp->repl[q].row != rows[k])
			q++;
		if (q < lp->nrepl) {
			lp->repl[q].v += vals[k];
			continue;
		}
		DL_GROW(lp->repl, lp->nrepl + 1, lp->arepl);
		lp->repl[lp->nrepl++] = (struct lp_trip){rows[k], col, vals[k]};
	}
	size_t m = first;
	for (size_t k = first; k < lp->nrepl; k++)
		if (lp->repl[k].v != 0)
			lp->repl[m++] = lp->repl[k];
	lp->nrepl = m;
	if (!lp->prob)
		return;
	/* into the built problem, keeping its basis (GLPK refactorises it) */
	size_t len = lp->nrepl - first;
	int *ind = xcalloc(len + 1, sizeof(*ind));
	double *val = xcalloc(len + 1, sizeof(*val));
	for (size_t k = 0; k < len; k++) {
		ind[k + 1] = lp->repl[first + k].row;
		val[k + 1] = lp->repl[first + k].v;
	}
	glp_set_mat_col(lp->prob, col, (int)len, ind, val);
	free(ind);
	free(val);
}

static int glp_type(double lb, double ub)
{
	int lo = lb > -DL_LP_INF, hi = ub < DL_LP_INF;
	if (lo && hi)
		return lb == ub ? GLP_FX : GLP_DB;
	return lo ? GLP_LO : hi ? GLP_UP : GLP_FR;
}

void dl_lp_set_obj(struct dl_lp *lp, int col, double v)
{
	check_index(col, lp->ncols, "column");
	lp->cols[col].obj = v;
	lp->have_val = 0;
	if (lp->prob)
		glp_set_obj_coef(lp->prob, col, v);
}

void dl_lp_set_row_bounds(struct dl_lp *lp, int row, double lb, double ub)
{
	check_index(row, lp->nrows, "row");
	lp->rows[row].lb = lb;
	lp->rows[row].ub = ub;
	lp->have_val = 0;
	/* keep the built problem: a re-solve then starts from the last basis */
	if (lp->prob)
		glp_set_row_bnds(lp->prob, row, glp_type(lb, ub), lb, ub);
}

void dl_lp_set_col_bounds(struct dl_lp *lp, int col, double lb, double ub)
{
	check_index(col, lp->ncols, "column");
	lp->cols[col].lb = lb;
	lp->cols[col].ub = ub;
	lp->have_val = 0;
	if (lp->prob)
		glp_set_col_bnds(lp->prob, col, glp_type(lb, ub), lb, ub);
}

void dl_lp_set_integer(struct dl_lp *lp, int col)
{
	check_index(col, lp->ncols, "column");
	if (!lp->cols[col].is_int)
		lp->nint++;
	lp->cols[col].is_int = 1;
	stale(lp);
}

int dl_lp_ncols(const struct dl_lp *lp)
{
	return (int)lp->ncols;
}

int dl_lp_nrows(const struct dl_lp *lp)
{
	return (int)lp->nrows;
}

static int cmp_trip(const void *a, const void *b)
{
	const struct lp_trip *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return (x->col > y->col) - (x->col < y->col);
}

/* ---- keeping GLPK quiet ---- */

static int term_hook(void *info, const char *s)
{
	const struct dl_lp *lp = info;
	if (lp->verbose > 0)
		fprintf(stderr, "[glpk] %s", s);
	return 1; /* nonzero: GLPK writes nothing itself */
}

static void error_hook(void *info)
{
	struct dl_lp *lp = info;
	longjmp(lp->jb, 1);
}

static void quiet_begin(struct dl_lp *lp, int verbose)
{
	lp->verbose = verbose;
	glp_term_hook(term_hook, lp);
	glp_term_out(verbose > 0 ? GLP_ON : GLP_OFF);
	glp_error_hook(error_hook, lp);
}

static void quiet_end(void)
{
	glp_error_hook(NULL, NULL);
	glp_term_out(GLP_OFF);
	glp_term_hook(NULL, NULL);
}

/* After GLPK's error hook fired: its environment is unusable and must go. */
static int internal_error(struct dl_lp *lp, struct dl_err *err)
{
	lp->prob = NULL; /* freed with the environment */
	glp_free_env();
	lp->info.status = "internal solver error";
	return dl_err_set(err, DL_EXIT_DATA, "internal solver error in GLPK (see above)");
}

static void build(struct dl_lp *lp)
{
	fold_columns(lp);
	glp_prob *p = glp_create_prob();
	glp_set_prob_name(p, lp->name);
	glp_set_obj_dir(p, lp->dir == DL_LP_MAX ? GLP_MAX : GLP_MIN);
	if (lp->nrows)
		glp_add_rows(p, (int)lp->nrows);
	if (lp->ncols)
		glp_add_cols(p, (int)lp->ncols);
	for (size_t i = 1; i <= lp->nrows; i++) {
		struct lp_var *r = &lp->rows[i];
		if (r->name)
			glp_set_row_name(p, (int)i, r->name);
		glp_set_row_bnds(p, (int)i, glp_type(r->lb, r->ub), r->lb, r->ub);
	}
	for (size_t j = 1; j <= lp->ncols; j++) {
		struct lp_var *c = &lp->cols[j];
		if (c->name)
			glp_set_col_name(p, (int)j, c->name);
		if (c->is_int)
			glp_set_col_kind(p, (int)j, c->lb == 0 && c->ub == 1 ? GLP_BV : GLP_IV);
		glp_set_col_bnds(p, (int)j, glp_type(c->lb, c->ub), c->lb, c->ub);
		glp_set_obj_coef(p, (int)j, c->obj);
	}
	/* GLPK rejects duplicate (row, col) entries: sum them */
	if (lp->ntrip)
		qsort(lp->trip, lp->ntrip, sizeof(*lp->trip), cmp_trip);
	size_t n = 0;
	for (size_t k = 0; k < lp->ntrip; k++) {
		if (n && lp->trip[n - 1].row == lp->trip[k].row &&
		    lp->trip[n - 1].col == lp->trip[k].col)
			lp->trip[n - 1].v += lp->trip[k].v;
		else
			lp->trip[n++] = lp->trip[k];
	}
	lp->ntrip = n;
	int *ia = xcalloc(n + 1, sizeof(*ia)), *ja = xcalloc(n + 1, sizeof(*ja));
	double *ar = xcalloc(n + 1, sizeof(*ar));
	int ne = 0;
	for (size_t k = 0; k < n; k++) {
		if (lp->trip[k].v == 0)
			continue;
		ne++;
		ia[ne] = lp->trip[k].row;
		ja[ne] = lp->trip[k].col;
		ar[ne] = lp->trip[k].v;
	}
	glp_load_matrix(p, ne, ia, ja, ar);
	glp_scale_prob(p, GLP_SF_AUTO);
	free(ia);
	free(ja);
	free(ar);
	lp->prob = p;
	lp->info.rows = (int)lp->nrows;
	lp->info.cols = (int)lp->ncols;
	lp->info.nonzeros = ne;
}

static double now_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int tm_lim_ms(double secs)
{
	if (secs <= 0)
		return INT_MAX;
	double ms = ceil(secs * 1000);
	return ms >= INT_MAX ? INT_MAX : (int)ms;
}

static int fail(struct dl_lp *lp, const char *status, struct dl_err *err, double time_limit)
{
	lp->info.status = status;
	if (!strcmp(status, "time limit"))
		return dl_err_set(err, DL_EXIT_NOSOL, "no solution: time limit of %g s reached",
				  time_limit);
	return dl_err_set(err, DL_EXIT_NOSOL, "no solution: the problem is %s", status);
}

/* map glp_simplex's return code and status */
static const char *simplex_outcome(glp_prob *p, int ret)
{
	switch (ret) {
	case 0:
		switch (glp_get_status(p)) {
		case GLP_OPT:
			return NULL;
		case GLP_NOFEAS:
			return "infeasible";
		case GLP_UNBND:
			return "unbounded";
		default:
			return "without a proven optimum (numerical difficulties)";
		}
	case GLP_ENOPFS:
		return "infeasible";
	case GLP_ENODFS:
		return "unbounded";
	case GLP_ETMLIM:
		return "time limit";
	case GLP_EITLIM:
		return "stopped at the iteration limit";
	case GLP_EBOUND:
		return "infeasible (a lower bound above its upper bound)";
	default:
		return "not solved (numerical difficulties)";
	}
}

static const char *mip_outcome(glp_prob *p, int ret)
{
	switch (ret) {
	case 0:
		switch (glp_mip_status(p)) {
		case GLP_OPT:
			return NULL;
		case GLP_NOFEAS:
			return "infeasible";
		default:
			return "without a proven optimum";
		}
	case GLP_ENOPFS:
		return "infeasible";
	case GLP_ENODFS:
		return "unbounded";
	case GLP_ETMLIM:
		return "time limit";
	default:
		return "not solved (numerical difficulties)";
	}
}

int dl_lp_solve(struct dl_lp *lp, const struct dl_lp_opts *opts, struct dl_err *err)
{
	struct dl_lp_opts o = DL_LP_OPTS_INIT;
	if (opts)
		o = *opts;
	lp->have_val = 0;
	lp->info.is_mip = lp->nint > 0;
	const char *why = NULL;
	double t0 = now_secs();

	quiet_begin(lp, o.verbose);
	if (setjmp(lp->jb)) {
		quiet_end();
		return internal_error(lp, err);
	}
	if (!lp->prob) {
		build(lp);
		/* as glpsol does: a crash basis beats the all-slack one on these LPs */
		glp_adv_basis(lp->prob, 0);
	}
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = o.verbose > 0 ? GLP_MSG_ON : GLP_MSG_OFF;
	sp.presolve = o.presolve ? GLP_ON : GLP_OFF;
	/* primal by default, as glpsol: ~3x faster than dual on the packed LPs */
	sp.meth = o.dual ? GLP_DUALP : GLP_PRIMAL;
	sp.tm_lim = tm_lim_ms(o.time_limit);
	int ret = glp_simplex(lp->prob, &sp);
	if (ret == GLP_EBADB || ret == GLP_ESING || ret == GLP_ECOND) {
		/* a warm-start basis went bad: start again from the slack basis */
		glp_std_basis(lp->prob);
		ret = glp_simplex(lp->prob, &sp);
	}
	if ((ret == GLP_ENOPFS || ret == GLP_ENODFS) && o.presolve) {
		/* the presolver cannot tell infeasible from unbounded: ask the simplex */
		sp.presolve = GLP_OFF;
		ret = glp_simplex(lp->prob, &sp);
	}
	why = simplex_outcome(lp->prob, ret);
	if (!why && lp->nint) {
		glp_iocp ip;
		glp_init_iocp(&ip);
		ip.msg_lev = o.verbose > 0 ? GLP_MSG_ON : GLP_MSG_OFF;
		ip.presolve = GLP_OFF; /* the LP relaxation was just solved */
		double left = o.time_limit > 0 ? o.time_limit - (now_secs() - t0) : 0;
		ip.tm_lim = o.time_limit > 0 ? tm_lim_ms(left > 0.001 ? left : 0.001) : INT_MAX;
		why = mip_outcome(lp->prob, glp_intopt(lp->prob, &ip));
	}
	quiet_end();
	lp->info.seconds = now_secs() - t0;
	if (why)
		return fail(lp, why, err, o.time_limit);

	free(lp->val);
	lp->val = xcalloc(lp->ncols + 1, sizeof(*lp->val));
	for (size_t j = 1; j <= lp->ncols; j++)
		lp->val[j] = lp->nint ? glp_mip_col_val(lp->prob, (int)j)
				      : glp_get_col_prim(lp->prob, (int)j);
	lp->info.objective = lp->nint ? glp_mip_obj_val(lp->prob) : glp_get_obj_val(lp->prob);
	lp->info.status = "optimal";
	lp->have_val = 1;
	return 0;
}

double dl_lp_value(const struct dl_lp *lp, int col)
{
	check_index(col, lp->ncols, "column");
	return lp->have_val ? lp->val[col] : NAN;
}

double dl_lp_objective(const struct dl_lp *lp)
{
	return lp->have_val ? lp->info.objective : NAN;
}

const struct dl_lp_info *dl_lp_info(const struct dl_lp *lp)
{
	return &lp->info;
}

int dl_lp_write(struct dl_lp *lp, const char *path, struct dl_err *err)
{
	quiet_begin(lp, 0);
	if (setjmp(lp->jb)) {
		quiet_end();
		return internal_error(lp, err);
	}
	if (!lp->prob)
		build(lp);
	int ret = glp_write_lp(lp->prob, NULL, path);
	quiet_end();
	if (ret)
		return dl_err_set(err, DL_EXIT_DATA, "cannot write the model to '%s'", path);
	return 0;
}
