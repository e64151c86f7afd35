/* test_gittins.c: Gittins index against the Tiresias reference table */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "policy/gittins.h"
#include "tap.h"

#define YARN "testdata/prioritize/yarn-gput1000.csv"

/* the values the reference simulator (Tiresias simulator/jobs.py, Python 2) computes from
 * yarn-gput1000.csv with Delta 3250 */
static const struct {
	double a, want;
} ref[] = {
	{0, 299.701},	 {60, 299.701},	   {120, 299.701},   {121, 299.2165}, {200, 281.3944},
	{500, 249.8181}, {1000, 191.5154}, {2000, 129.4345}, {3000, 89.4121}, {3250, 87.4493},
	{5000, 58.8205}, {10000, 29.9396}, {20000, 11.4736}, {50000, 5.463},  {100000, 4.0659},
	{53294623, 0.0}, {53294624, 0.0},  {1e12, 0.0},
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* textbook Gittins index, O(n) per call, to check the O(log n) EXACT mode */
static double naive_exact(const double *d, size_t n, double delta, double a)
{
	double alive = 0, done = 0, e = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] <= a)
			continue;
		alive++;
		if (d[i] - a <= delta) {
			done++;
			e += d[i] - a;
		} else {
			e += delta;
		}
	}
	return alive ? (done / alive) / (e / alive) * 1e6 : 0.0;
}

/*
 * Whether g's index equals naive_exact on d at every attained a = a0, then
 * a * 1.37 + step, below `until` (printing each a where it does not).
 */
static int agrees_with_formula(const struct dl_gittins *g, const double *d, size_t n, double delta,
			       double a0, double step, double until)
{
	int agree = 1;
	for (double a = a0; a < until; a = a * 1.37 + step) {
		double want = naive_exact(d, n, delta, a), got = dl_gittins_index(g, a);
		if (fabs(got - want) > 1e-9 * (want + 1)) {
			agree = 0;
			printf("# a=%g got %.17g want %.17g\n", a, got, want);
		}
	}
	return agree;
}

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_gittins *g = dl_gittins_load(YARN, NULL, 3250, DL_GITTINS_TIRESIAS, &err);
	ok(g != NULL, "load %s (%s)", YARN, err.msg);
	if (!g)
		return done_testing();
	is_int(dl_gittins_nsamples(g), 1001, "1001 samples");
	for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
		is_double(dl_gittins_index(g, ref[i].a), ref[i].want, 1e-9, "tiresias index at %g",
			  ref[i].a);
	/*
	 * A step function, constant on [d[i-1], d[i]) (samples 121, 122, 124):
	 * the reference looks up the first sample > a.
	 */
	ok(dl_gittins_index(g, 122) == dl_gittins_index(g, 123.9), "constant within a bin");
	ok(dl_gittins_index(g, 121.9) != dl_gittins_index(g, 122), "changes at a sample");
	ok(dl_gittins_index(g, -5) == dl_gittins_index(g, 0), "negative service acts as 0");

	/* py3 arithmetic differs from py2 somewhere, but agrees on most bins */
	struct dl_gittins *g3 =
		dl_gittins_load(YARN, "duration", 3250, DL_GITTINS_TIRESIAS_PY3, &err);
	ok(g3 != NULL, "load py3 table");
	int differ = 0, close = 1;
	for (double a = 0; a < 100000 && g3; a += 11) {
		double x = dl_gittins_index(g, a), y = dl_gittins_index(g3, a);
		if (x != y)
			differ++;
		if (fabs(x - y) > 1e-3 * x + 1e-9)
			close = 0;
	}
	ok(differ > 0, "py3 true division changes some bins (%d)", differ);
	ok(close, "py3 bins within 0.1%% of py2");
	dl_gittins_free(g3);

	/* EXACT against the naive formula on the same samples */
	struct dl_gittins *ge = dl_gittins_load(YARN, NULL, 3250, DL_GITTINS_EXACT, &err);
	ok(ge != NULL, "load exact table");
	double d[1001];
	size_t n = 0;
	/* pull the samples back out through a second reader: the file itself */
	FILE *fp = fopen(YARN, "r");
	char line[64];
	if (fp && fgets(line, sizeof(line), fp))
		while (n < 1001 && fgets(line, sizeof(line), fp))
			d[n++] = strtod(line, NULL);
	if (fp)
		fclose(fp);
	is_int(n, 1001, "read samples directly");
	ok(!ge || agrees_with_formula(ge, d, n, 3250, -1, 3.5, 3e5),
	   "exact mode equals the textbook formula");
	dl_gittins_free(ge);
	dl_gittins_free(g);

	/* a tiny distribution computed by hand (reference arithmetic) */
	double s[] = {10, 20, 30, 40};
	g = dl_gittins_new(s, 4, 10, DL_GITTINS_TIRESIAS, &err);
	ok(g != NULL, "tiny table");
	/*
	 * bin (-inf,10]: a = 9, idx 0, next_a 19 -> idx_delta 1,
	 * p = 1/4 = 0.25, e = (10 + 3*10) // 4 = 10, index 0.25e6/10 = 25000
	 */
	is_double(dl_gittins_index(g, 5), 25000, 1e-9, "tiny bin 1");
	/* bin (10,20]: a = 19, idx 1, next_a 29 -> 2: p = round(1/3,5) = .33333, e = 40//3 = 13 */
	is_double(dl_gittins_index(g, 15), round(0.33333e6 / 13 * 1e4) / 1e4, 1e-9,
		  "tiny bin 2 (floor division)");
	/* bin (30,40]: a = 39 > 40 - 1 is false; next_a 49 > 39 -> idx_delta 3 = idx: p = 0 */
	is_double(dl_gittins_index(g, 35), 0, 0, "last bin is 0 (reference quirk)");
	is_double(dl_gittins_index(g, 40), 0, 0, "at the largest sample");
	dl_gittins_free(g);

	/*
	 * The samples are sorted inside (a radix sort of their bits): on shuffled
	 * samples with repeats, zeros (and a -0), fractions and magnitudes from
	 * 1e-3 to 5e11, the exact index equals the textbook formula on the
	 * samples as given (which needs no order).
	 */
	{
		enum { NS = 3000 };
		static double mixed[NS];
		uint64_t st = 12345;
		for (size_t i = 0; i < NS; i++) {
			st = st * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(st >> 33);
			mixed[i] = r % 7 == 0	? 0
				   : r % 5 == 0 ? (double)(r % 100)
						: ldexp(r % 1000 + 0.5, (int)(r % 40) - 10);
		}
		mixed[NS / 2] = -0.0;
		struct dl_gittins *gm = dl_gittins_new(mixed, NS, 100, DL_GITTINS_EXACT, &err);
		ok(gm && agrees_with_formula(gm, mixed, NS, 100, 0, 0.25, 1e12),
		   "shuffled samples: exact mode equals the textbook formula");
		dl_gittins_free(gm);
	}

	/*
	 * From 1024 distinct samples on a search goes to the bucket of its
	 * value (1/256 of a binade), then bisects it: the same bins as one
	 * binary search over them all. At every sample, a hair either side of it (a bucket's
	 * first sample shows where its bounds are) and between, the exact
	 * index equals the textbook formula (with zeros and repeats).
	 */
	{
		enum { NS = 3000 }; /* (some 2,000 distinct: bucketed) */
		static double many[NS], sorted[NS];
		uint64_t st = 777;
		for (size_t i = 0; i < NS; i++) {
			st = st * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(st >> 33);
			many[i] = r % 3 == 0 ? (double)(r % 50)
					     : (double)(r % 90000) + (r % 4) * 0.25;
			sorted[i] = many[i];
		}
		struct dl_gittins *gb = dl_gittins_new(many, NS, 3250, DL_GITTINS_EXACT, &err);
		qsort(sorted, NS, sizeof(*sorted), cmp_double);
		int agree = gb != NULL;
		size_t looked = 0;
		for (size_t k = 0; gb && k < NS; k++) {
			double at[] = {sorted[k], nextafter(sorted[k], -1),
				       nextafter(sorted[k], 1e300), sorted[k] + 0.125};
			for (size_t m = 0; m < sizeof(at) / sizeof(at[0]); m++, looked++) {
				double want = naive_exact(many, NS, 3250, at[m]),
				       got = dl_gittins_index(gb, at[m]);
				if (fabs(got - want) > 1e-9 * (want + 1) && agree) {
					agree = 0;
					printf("# a=%.17g got %.17g want %.17g\n", at[m], got,
					       want);
				}
			}
		}
		ok(agree, "%d samples: the bucketed search gives the textbook index (%zu points)",
		   NS, looked);
		dl_gittins_free(gb);
	}

	/*
	 * At a trace's scale: 100,000 durations like Philly's (a heavy tail,
	 * runs of thousands of equal values, zeros), the index at random points
	 * and a hair either side of random samples equals the textbook formula.
	 */
	{
		enum { NS = 100000, NQ = 600 };
		static double dur[NS];
		uint64_t st = 4242;
		for (size_t i = 0; i < NS; i++) {
			st = st * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(st >> 33);
			dur[i] = r % 10 < 3   ? (double)(60 * (r % 7))
				 : r % 10 < 9 ? (double)(r % 4000)
					      : ldexp((double)(r % 1000) + 0.5, (int)(r % 12));
		}
		struct dl_gittins *gt = dl_gittins_new(dur, NS, 3250, DL_GITTINS_EXACT, &err);
		int agree = gt != NULL;
		for (size_t q = 0; gt && q < NQ; q++) {
			st = st * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(st >> 33);
			double v = dur[r % NS], a = q % 3 == 0	 ? (double)(r % 2000000) / 3
						    : q % 3 == 1 ? nextafter(v, -1)
								 : nextafter(v, 1e300);
			double want = naive_exact(dur, NS, 3250, a), got = dl_gittins_index(gt, a);
			if (fabs(got - want) > 1e-9 * (want + 1) && agree) {
				agree = 0;
				printf("# a=%.17g got %.17g want %.17g\n", a, got, want);
			}
		}
		ok(agree, "%d Philly-like durations: the textbook index at %d points", NS, NQ);
		dl_gittins_free(gt);
	}

	/* errors */
	ok(dl_gittins_new(s, 0, 10, DL_GITTINS_TIRESIAS, &err) == NULL, "no samples: error");
	ok(dl_gittins_new(s, 4, 0, DL_GITTINS_TIRESIAS, &err) == NULL, "delta 0: error");
	double bad[] = {1, -2};
	ok(dl_gittins_new(bad, 2, 10, DL_GITTINS_EXACT, &err) == NULL &&
		   strstr(err.msg, "sample 2"),
	   "negative sample named: %s", err.msg);
	ok(dl_gittins_load("testdata/prioritize/nonexistent.csv", NULL, 10, DL_GITTINS_EXACT,
			   &err) == NULL,
	   "missing file: error");
	ok(dl_gittins_load(YARN, "gputime", 10, DL_GITTINS_EXACT, &err) == NULL &&
		   strstr(err.msg, "gputime"),
	   "missing column named: %s", err.msg);

	enum dl_gittins_arith ar;
	ok(dl_gittins_parse_arith("tiresias-py3", &ar) == 0 && ar == DL_GITTINS_TIRESIAS_PY3,
	   "parse arith name");
	ok(dl_gittins_parse_arith("py2", &ar) < 0, "reject unknown arith name");
	return done_testing();
}
