/* test_lp.c: the GLPK wrapper: optimum, infeasible, unbounded, MIP, and a silent stdout */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp/lp.h"
#include "capture.h"
#include "tap.h"

/* max 3x + 2y  s.t.  x + y <= 4,  x + 3y <= 6,  0 <= x <= 3,  y >= 0  ->  x=3, y=1, 11 */
static struct dl_lp *small_lp(int *x, int *y)
{
	struct dl_lp *lp = dl_lp_new("small", DL_LP_MAX);
	*x = dl_lp_add_col(lp, "x", 0, 3, 3);
	*y = dl_lp_add_col(lp, "y", 0, DL_LP_INF, 2);
	int r1 = dl_lp_add_row(lp, "c1", -DL_LP_INF, 4);
	int r2 = dl_lp_add_row(lp, "c2", -DL_LP_INF, 6);
	dl_lp_coef(lp, r1, *x, 1);
	dl_lp_coef(lp, r1, *y, 1);
	dl_lp_coef(lp, r2, *x, 1);
	/* entered in two parts: duplicates must be summed, not crash GLPK */
	dl_lp_coef(lp, r2, *y, 1);
	dl_lp_coef(lp, r2, *y, 2);
	return lp;
}

/* Run a solve with fd 1 and fd 2 sent to files; return what landed in each. */
static int solve_captured(struct dl_lp *lp, const struct dl_lp_opts *o, struct dl_err *err,
			  long *out_bytes, long *err_bytes, char *errbuf, size_t errbuf_len)
{
	struct capture c;
	capture_begin(&c);
	int rc = dl_lp_solve(lp, o, err);
	capture_end(&c);
	char none[1];
	*out_bytes = capture_text(&c, 1, none, sizeof(none));
	*err_bytes = capture_text(&c, 2, errbuf, errbuf_len);
	capture_free(&c);
	return rc;
}

/*
 * A solved model grows: a column (max 3x + 2y + 5z, z <= 1 in c1) -> x = 3,
 * z = 1, 14; then a row x + z <= 3 through dl_lp_coef -> x = 2, y = 1, z = 1,
 * 13. Then a model of 60 columns and 40 rows gains a row that cuts its
 * optimum a little (a[40] x <= its optimal value - 0.05): the dual simplex from the
 * kept basis takes fewer iterations than the same model solved from scratch,
 * to the same optimum.
 */
static void grow_solved_model(const struct dl_lp_opts *o)
{
	struct dl_err err = DL_ERR_INIT;
	int x, y;
	struct dl_lp *lp = small_lp(&x, &y);
	is_int(dl_lp_solve(lp, o, &err), 0, "grow: first solve");
	int z = dl_lp_add_col(lp, "z", 0, 1, 5);
	ok(isnan(dl_lp_value(lp, x)), "grow: a new column invalidates the values");
	int one = 1;
	double v = 1;
	dl_lp_set_col(lp, z, 1, &one, &v);
	is_int(dl_lp_solve(lp, o, &err), 0, "grow: solved with a new column");
	is_double(dl_lp_objective(lp), 14, 1e-9, "grow: x = 3, z = 1: 14");
	is_double(dl_lp_value(lp, z), 1, 1e-9, "grow: z = 1");
	int r3 = dl_lp_add_row(lp, "c3", -DL_LP_INF, 3);
	dl_lp_coef(lp, r3, x, 1);
	dl_lp_coef(lp, r3, z, 0.5);
	dl_lp_coef(lp, r3, z, 0.5);
	is_int(dl_lp_solve(lp, o, &err), 0, "grow: solved with a new row");
	is_double(dl_lp_objective(lp), 13, 1e-9, "grow: x + z <= 3 gives 13");
	is_double(dl_lp_value(lp, y), 1, 1e-9, "grow: y = 1");
	is_int(dl_lp_info(lp)->nonzeros, 7, "grow: 7 nonzeros (z's two halves in c3 summed)");
	is_int(dl_lp_info(lp)->cols, 3, "grow: 3 columns");
	dl_lp_free(lp);

	/* warm against cold: max sum_j c_j x_j, 0 <= x_j <= 1, 40 random knapsack rows */
	struct dl_lp *warm = dl_lp_new("warm", DL_LP_MAX), *cold = dl_lp_new("cold", DL_LP_MAX);
	uint64_t s = 12345;
	double a[41][60], cut = 0;
	for (int i = 0; i < 41; i++)
		for (int j = 0; j < 60; j++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			a[i][j] = (double)(s >> 40) / (double)(1 << 24);
		}
	for (int pass = 0; pass < 2; pass++) {
		struct dl_lp *m = pass ? cold : warm;
		for (int j = 0; j < 60; j++)
			dl_lp_add_col(m, NULL, 0, 1, 1 + a[40][j]);
		for (int i = 0; i < 41; i++) {
			if (i == 40 && !pass) {
				/* the new row: a[40] x <= its value at the optimum, less 0.05 */
				is_int(dl_lp_solve(warm, o, &err), 0, "warm: first solve");
				for (int j = 0; j < 60; j++)
					cut += a[40][j] * dl_lp_value(warm, j + 1);
				cut -= 0.05;
			}
			int r = dl_lp_add_row(m, NULL, -DL_LP_INF, i < 40 ? 6 : cut);
			for (int j = 0; j < 60; j++)
				dl_lp_coef(m, r, j + 1, a[i][j]);
		}
	}
	struct dl_lp_opts od = *o;
	od.dual = 1;
	is_int(dl_lp_solve(warm, &od, &err), 0, "warm: re-solved with a cutting row");
	is_int(dl_lp_solve(cold, o, &err), 0, "cold: the same model from scratch");
	is_double(dl_lp_objective(warm), dl_lp_objective(cold), 1e-9 * dl_lp_objective(cold),
		  "warm and cold reach the same optimum");
	ok(dl_lp_info(warm)->iterations < dl_lp_info(cold)->iterations,
	   "the kept basis saves iterations (%ld warm, %ld cold)", dl_lp_info(warm)->iterations,
	   dl_lp_info(cold)->iterations);
	dl_lp_free(warm);
	dl_lp_free(cold);
}

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_lp_opts o = DL_LP_OPTS_INIT;
	int x, y;
	char ebuf[4096];
	long ob, eb;

	/* optimal */
	struct dl_lp *lp = small_lp(&x, &y);
	is_int(dl_lp_solve(lp, &o, &err), 0, "optimal LP solves");
	is_double(dl_lp_objective(lp), 11, 1e-9, "objective 11");
	is_double(dl_lp_value(lp, x), 3, 1e-9, "x = 3");
	is_double(dl_lp_value(lp, y), 1, 1e-9, "y = 1");
	is_str(dl_lp_info(lp)->status, "optimal", "status optimal");
	is_int(dl_lp_info(lp)->nonzeros, 4, "duplicate entries merged into one");

	/* changing a bound keeps the model and re-solves (warm start) */
	dl_lp_set_col_bounds(lp, x, 0, 1);
	is_int(dl_lp_solve(lp, &o, &err), 0, "re-solve after a bound change");
	/* x=1: y <= 3 and y <= 5/3 -> y = 5/3, obj = 3 + 10/3 */
	is_double(dl_lp_objective(lp), 3 + 10.0 / 3, 1e-9, "new optimum after the change");
	dl_lp_free(lp);

	/*
	 * replacing a column keeps the solved model: y's column becomes 2 in c1 and
	 * 1 in c2 (given as 0.5 + 0.5): x = 3, 2y <= 1, y <= 3 -> y = 1/2, obj 10
	 */
	lp = small_lp(&x, &y);
	is_int(dl_lp_solve(lp, &o, &err), 0, "solve before a column is replaced");
	int rows[3] = {1, 2, 2};
	double vals[3] = {2, 0.5, 0.5};
	dl_lp_set_col(lp, y, 3, rows, vals);
	ok(isnan(dl_lp_value(lp, y)), "a replaced column invalidates the values");
	is_int(dl_lp_solve(lp, &o, &err), 0, "re-solve after a column is replaced");
	is_double(dl_lp_objective(lp), 10, 1e-9, "new optimum after the replacement");
	is_int(dl_lp_info(lp)->nonzeros, 4, "the replacement was not rebuilt from scratch");
	/* replaced again (y only in c2, at 3), then a new row goes into the solved model */
	rows[0] = 2;
	vals[0] = 3;
	dl_lp_set_col(lp, y, 1, rows, vals);
	int r3 = dl_lp_add_row(lp, "c3", -DL_LP_INF, 10);
	dl_lp_coef(lp, r3, x, 1);
	is_int(dl_lp_solve(lp, &o, &err), 0, "re-solved after a replacement and a new row");
	/* x = 3, y <= 1 (c2) -> 11, and y's old entries are gone: 3 nonzeros + c3's */
	is_double(dl_lp_objective(lp), 11, 1e-9, "the last replacement holds");
	is_int(dl_lp_info(lp)->nonzeros, 4, "the replaced entries are gone");
	is_int(dl_lp_info(lp)->rows, 3, "the new row is counted");
	dl_lp_free(lp);
	/* before the first solve, a replacement goes into the model that is built */
	lp = small_lp(&x, &y);
	dl_lp_set_col(lp, y, 1, rows, vals);
	is_int(dl_lp_solve(lp, &o, &err), 0, "a column replaced before the first solve");
	is_double(dl_lp_objective(lp), 11, 1e-9, "x = 3, y = 1 with y only in c2 at 3");
	is_int(dl_lp_info(lp)->nonzeros, 3, "y has one entry");
	dl_lp_free(lp);

	/* infeasible: x >= 2 and x <= 1 through rows */
	lp = dl_lp_new("infeasible", DL_LP_MIN);
	x = dl_lp_add_col(lp, "x", 0, DL_LP_INF, 1);
	int r = dl_lp_add_row(lp, "lo", 2, DL_LP_INF);
	dl_lp_coef(lp, r, x, 1);
	r = dl_lp_add_row(lp, "hi", -DL_LP_INF, 1);
	dl_lp_coef(lp, r, x, 1);
	dl_err_clear(&err);
	is_int(dl_lp_solve(lp, &o, &err), -1, "infeasible LP fails");
	is_int(err.code, DL_EXIT_NOSOL, "infeasible maps to exit 3");
	ok(strstr(err.msg, "infeasible") != NULL, "message says infeasible: %s", err.msg);
	is_str(dl_lp_info(lp)->status, "infeasible", "status infeasible");
	/* the presolver path must give the same precise reason */
	o.presolve = 1;
	dl_err_clear(&err);
	dl_lp_set_row_bounds(lp, r, -DL_LP_INF, 1.5);
	is_int(dl_lp_solve(lp, &o, &err), -1, "infeasible with presolve fails");
	ok(strstr(err.msg, "infeasible") != NULL, "presolve: message says infeasible: %s", err.msg);
	o.presolve = 0;
	dl_lp_free(lp);

	/* crossed bounds are infeasible too, not a crash */
	lp = dl_lp_new("crossed", DL_LP_MAX);
	x = dl_lp_add_col(lp, "x", 2, 1, 1);
	r = dl_lp_add_row(lp, "r", -DL_LP_INF, 5);
	dl_lp_coef(lp, r, x, 1);
	dl_err_clear(&err);
	is_int(dl_lp_solve(lp, &o, &err), -1, "crossed bounds fail");
	ok(err.code == DL_EXIT_NOSOL && strstr(err.msg, "infeasible"), "crossed bounds: %s",
	   err.msg);
	dl_lp_free(lp);

	/* unbounded: max x + y with x - y <= 1 */
	lp = dl_lp_new("unbounded", DL_LP_MAX);
	x = dl_lp_add_col(lp, "x", 0, DL_LP_INF, 1);
	y = dl_lp_add_col(lp, "y", 0, DL_LP_INF, 1);
	r = dl_lp_add_row(lp, "r", -DL_LP_INF, 1);
	dl_lp_coef(lp, r, x, 1);
	dl_lp_coef(lp, r, y, -1);
	dl_err_clear(&err);
	is_int(dl_lp_solve(lp, &o, &err), -1, "unbounded LP fails");
	is_int(err.code, DL_EXIT_NOSOL, "unbounded maps to exit 3");
	ok(strstr(err.msg, "unbounded") != NULL, "message says unbounded: %s", err.msg);
	dl_lp_free(lp);

	/* a MIP: max x + y, 2x + 2y <= 3, integer -> 1 */
	lp = dl_lp_new("mip", DL_LP_MAX);
	x = dl_lp_add_col(lp, "x", 0, 1, 1);
	y = dl_lp_add_col(lp, "y", 0, 1, 1);
	dl_lp_set_integer(lp, x);
	dl_lp_set_integer(lp, y);
	r = dl_lp_add_row(lp, "r", -DL_LP_INF, 3);
	dl_lp_coef(lp, r, x, 2);
	dl_lp_coef(lp, r, y, 2);
	is_int(dl_lp_solve(lp, &o, &err), 0, "MIP solves");
	is_double(dl_lp_objective(lp), 1, 1e-9, "MIP optimum is integral (1, not 1.5)");
	dl_lp_free(lp);

	/* nothing on stdout, quiet or verbose; the verbose log goes to stderr */
	lp = small_lp(&x, &y);
	is_int(solve_captured(lp, &o, &err, &ob, &eb, ebuf, sizeof(ebuf)), 0, "quiet solve");
	is_int(ob, 0, "quiet solve writes nothing to stdout");
	is_int(eb, 0, "quiet solve writes nothing to stderr");
	dl_lp_free(lp);
	lp = small_lp(&x, &y);
	o.verbose = 1;
	is_int(solve_captured(lp, &o, &err, &ob, &eb, ebuf, sizeof(ebuf)), 0, "verbose solve");
	is_int(ob, 0, "verbose solve writes nothing to stdout");
	ok(eb > 0 && strstr(ebuf, "[glpk] ") != NULL, "verbose solve logs to stderr");
	o.verbose = 0;
	/* writing the model prints GLPK's "Writing problem data" nowhere */
	char mn[] = "/tmp/test_lp_modelXXXXXX";
	int fm = mkstemp(mn);
	close(fm);
	fflush(stdout);
	int so = dup(1);
	char on[] = "/tmp/test_lp_wXXXXXX";
	int fw = mkstemp(on);
	dup2(fw, 1);
	int wrc = dl_lp_write(lp, mn, &err);
	fflush(stdout);
	dup2(so, 1);
	close(so);
	is_int(wrc, 0, "model written");
	is_int(lseek(fw, 0, SEEK_END), 0, "writing the model prints nothing on stdout");
	close(fw);
	unlink(on);
	struct strbuf sb = STRBUF_INIT;
	FILE *fp = fopen(mn, "r");
	char line[256];
	while (fp && fgets(line, sizeof(line), fp))
		sb_addstr(&sb, line);
	if (fp)
		fclose(fp);
	ok(strstr(sb.buf, "Maximize") && strstr(sb.buf, "c2:"), "model is CPLEX LP with names");
	sb_release(&sb);
	unlink(mn);
	is_int(dl_lp_write(lp, "/nonexistent/dir/m.lp", &err), -1, "unwritable model path fails");
	is_int(err.code, DL_EXIT_DATA, "unwritable model path is exit 1");
	dl_lp_free(lp);

	grow_solved_model(&o);

	/* an empty model is a valid LP */
	lp = dl_lp_new("empty", DL_LP_MAX);
	is_int(dl_lp_solve(lp, &o, &err), 0, "empty LP solves");
	dl_lp_free(lp);
	return done_testing();
}
