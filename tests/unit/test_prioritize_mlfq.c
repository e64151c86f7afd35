/* test_prioritize_mlfq.c: MLFQ queues and Tiresias' starvation promotion */
#include <math.h>
#include <stdlib.h>

#include "policy/mlfq.h"
#include "tap.h"

int main(void)
{
	struct dl_err err = DL_ERR_INIT;
	struct dl_mlfq m;
	ok(dl_mlfq_init(&m, 3, dl_mlfq_tiresias_limits, 2, 0, &err) == 0, "tiresias queues");
	is_int(dl_mlfq_queue(&m, 0), 0, "0 -> Q0");
	is_int(dl_mlfq_queue(&m, 3249.9), 0, "3249.9 -> Q0");
	is_int(dl_mlfq_queue(&m, 3250), 1, "3250 -> Q1 (limit is inclusive below)");
	is_int(dl_mlfq_queue(&m, 7199), 1, "7199 -> Q1");
	is_int(dl_mlfq_queue(&m, 7200), 2, "7200 -> Q2");
	is_int(dl_mlfq_queue(&m, 1e12), 2, "huge -> last queue");
	is_double(dl_mlfq_limit(&m, 0), 3250, 0, "limit of Q0");
	ok(isinf(dl_mlfq_limit(&m, 2)), "last queue unbounded");
	ok(!dl_mlfq_starving(&m, 2, 100, 1e9), "no promotion when starvation is off");
	dl_mlfq_release(&m);

	ok(dl_mlfq_init(&m, 1, NULL, 0, 0, &err) == 0, "one queue");
	is_int(dl_mlfq_queue(&m, 1e9), 0, "everything in Q0");
	dl_mlfq_release(&m);

	double lim[] = {10, 20, 40, 80};
	ok(dl_mlfq_init(&m, 5, lim, 4, 2, &err) == 0, "5 queues, N = 2");
	for (int s = 0; s < 100; s++) {
		size_t want = s < 10 ? 0 : s < 20 ? 1 : s < 40 ? 2 : s < 80 ? 3 : 4;
		if (dl_mlfq_queue(&m, s) != want)
			ok(0, "queue of %d", s);
	}
	ok(1, "queues of 0..99 by linear scan");
	ok(dl_mlfq_starving(&m, 1, 10, 20), "waited 2x its run: promoted");
	ok(!dl_mlfq_starving(&m, 1, 10, 19.9), "waited less: not promoted");
	ok(!dl_mlfq_starving(&m, 0, 10, 1000), "Q0 is never promoted");
	ok(!dl_mlfq_starving(&m, 2, 0, 1000), "a job that never ran is not promoted");
	dl_mlfq_release(&m);

	/* the reference's int(executed * N) with N = 0.5 */
	ok(dl_mlfq_init(&m, 2, lim, 1, 0.5, &err) == 0, "N = 0.5");
	ok(!dl_mlfq_starving(&m, 1, 7, 3), "untruncated: 3 < 3.5");
	m.trunc = 1;
	ok(dl_mlfq_starving(&m, 1, 7, 3), "truncated as int(3.5) = 3");
	dl_mlfq_release(&m);

	ok(dl_mlfq_init(&m, 3, lim, 1, 0, &err) < 0 && strstr(err.msg, "3 queues need 2"),
	   "count mismatch: %s", err.msg);
	double bad[] = {20, 10};
	ok(dl_mlfq_init(&m, 3, bad, 2, 0, &err) < 0 && strstr(err.msg, "ascending"),
	   "not ascending: %s", err.msg);
	ok(dl_mlfq_init(&m, 0, NULL, 0, 0, &err) < 0, "zero queues");

	double *v = NULL;
	size_t n = 0;
	ok(dl_mlfq_parse_limits("3250,7200", "--thresholds", &v, &n, &err) == 0 && n == 2 &&
		   v[0] == 3250 && v[1] == 7200,
	   "parse 3250,7200");
	free(v);
	ok(dl_mlfq_parse_limits("3250,x", "--thresholds", &v, &n, &err) < 0 &&
		   strstr(err.msg, "'x'"),
	   "bad item named: %s", err.msg);
	ok(dl_mlfq_parse_limits("5,5", "--thresholds", &v, &n, &err) < 0, "equal limits");
	ok(dl_mlfq_parse_limits("", "--thresholds", &v, &n, &err) < 0, "empty list");
	ok(dl_mlfq_parse_limits("-1", "--thresholds", &v, &n, &err) < 0, "negative limit");
	return done_testing();
}
