/*
 * lp.h: the only door to GLPK. Linear (and mixed-integer) programs built
 * column by column and row by row, solved quietly, with every solver outcome
 * mapped to an error that names the reason.
 *
 * Why a wrapper: GLPK prints its log on stdout (which would corrupt our
 * streams), aborts the process on bad indices or duplicate matrix entries,
 * and reports "the solver ran" separately from "the problem has an optimum".
 * Here:
 *   - nothing is ever written to stdout: the terminal output is switched off
 *     for every call, or routed to stderr (prefixed "[glpk] ") when
 *     opts.verbose is set, and msg_lev is off unless verbose;
 *   - indices are checked by the wrapper and duplicate (row, col) entries are
 *     summed, so GLPK's own argument checks never fire; should one fire
 *     anyway, its error hook turns it into an error (exit 1, "internal solver
 *     error") instead of abort(); GLPK's whole environment is then gone, so
 *     every other struct dl_lp becomes unusable (dl_lp_free still works);
 *   - dl_lp_solve() returns 0 only for a proven optimum; otherwise -1 with
 *     err->code = DL_EXIT_NOSOL (3) and a reason: "infeasible", "unbounded",
 *     "time limit of N s reached", "iteration limit", "numerical
 *     difficulties", or DL_EXIT_DATA for a model file that cannot be written.
 *
 * Columns and rows are numbered from 1, as in GLPK. Bounds use -DL_LP_INF /
 * DL_LP_INF for "none". Names must be unique, 1..255 characters of
 * [A-Za-z0-9_.]; they appear in --dump-model files (CPLEX LP format) and may
 * be NULL (then GLPK's defaults r_N / x_N are written).
 *
 * Ownership: dl_lp_new() returns an object the caller frees with
 * dl_lp_free(); names are copied. dl_lp_value() is valid after a successful
 * solve until the model changes. One dl_lp must not be used from two threads
 * (GLPK is not thread-safe).
 */
#ifndef DL_LP_H
#define DL_LP_H

#include <stddef.h>

#include "core/common.h"

#define DL_LP_INF 1e300

enum dl_lp_dir { DL_LP_MIN = 0, DL_LP_MAX = 1 };

struct dl_lp_opts {
	double time_limit; /* seconds; <= 0 means none */
	int verbose;	   /* > 0: GLPK's log to stderr */
	int presolve;	   /* use GLPK's LP presolver */
	int dual;	   /* dual simplex (then primal) instead of primal */
};

#define DL_LP_OPTS_INIT    \
	{                  \
		0, 0, 0, 0 \
	}

/* what the last solve found (also filled on failure) */
struct dl_lp_info {
	const char *status; /* "optimal", "infeasible", "unbounded", ... */
	double objective;
	double seconds; /* wall time inside GLPK */
	int rows, cols, nonzeros;
	int is_mip;
};

struct dl_lp;

struct dl_lp *dl_lp_new(const char *name, enum dl_lp_dir dir);
void dl_lp_free(struct dl_lp *lp);

/* a continuous column (or integer with dl_lp_set_integer); returns its index */
int dl_lp_add_col(struct dl_lp *lp, const char *name, double lb, double ub, double obj);
/* a row lb <= sum <= ub; returns its index */
int dl_lp_add_row(struct dl_lp *lp, const char *name, double lb, double ub);
/* add v to the coefficient of (row, col); zero values are dropped */
void dl_lp_coef(struct dl_lp *lp, int row, int col, double v);
/*
 * Replace column col's coefficients by vals[k] in rows[k] (k < n). Unlike
 * dl_lp_coef, this keeps a solved model and its basis: the next solve starts
 * from the last basis (as after dl_lp_set_row_bounds), which makes repeated
 * solves of a slowly changing LP cheap.
 */
void dl_lp_set_col(struct dl_lp *lp, int col, int n, const int *rows, const double *vals);
void dl_lp_set_obj(struct dl_lp *lp, int col, double v);
void dl_lp_set_row_bounds(struct dl_lp *lp, int row, double lb, double ub);
void dl_lp_set_col_bounds(struct dl_lp *lp, int col, double lb, double ub);
/* make a column integer (binary when its bounds are [0,1]): the solve becomes a MIP */
void dl_lp_set_integer(struct dl_lp *lp, int col);
int dl_lp_ncols(const struct dl_lp *lp);
int dl_lp_nrows(const struct dl_lp *lp);

/* Solve. 0 = optimal (values available); -1 = see err (and dl_lp_info). */
int dl_lp_solve(struct dl_lp *lp, const struct dl_lp_opts *opts, struct dl_err *err);
double dl_lp_value(const struct dl_lp *lp, int col);
double dl_lp_objective(const struct dl_lp *lp);
const struct dl_lp_info *dl_lp_info(const struct dl_lp *lp);

/* Write the model in CPLEX LP format (what `glpsol --lp` reads). */
int dl_lp_write(struct dl_lp *lp, const char *path, struct dl_err *err);

#endif
