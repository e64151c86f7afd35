/*
 * test_idset.c: the one unique-id check of the jobs readers (struct dl_idset,
 * trace/jobs.h): every repeat is found with both lines, through index growth,
 * among ids that share hash bits and prefixes; handles read back the ids
 * after the pool moved; the index can be dropped while the ids stay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "trace/jobs.h"

int main(void)
{
	enum { N = 200000 };
	struct dl_idset s = DL_IDSET_INIT;
	struct dl_err err = DL_ERR_INIT;
	size_t *ref = calloc(N, sizeof(*ref));
	char id[64];
	int bad = 0;
	for (int i = 0; i < N; i++) {
		/* prefixes of each other, empty-looking digits, long ones */
		snprintf(id, sizeof(id), i % 3 ? "%d" : "job-%d-xxxxxxxxxxxxxxxxxxxxxxxx", i);
		bad += dl_idset_add(&s, id, "t.csv", i + 2, &ref[i], &err) != 0;
	}
	ok(!bad, "%d distinct ids are accepted", N);
	is_int(s.n, N, "all indexed");
	bad = 0;
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof(id), i % 3 ? "%d" : "job-%d-xxxxxxxxxxxxxxxxxxxxxxxx", i);
		bad += strcmp(dl_idset_str(&s, ref[i]), id) != 0;
	}
	ok(!bad, "handles give the ids back after the pool grew");
	bad = 0;
	for (int i = 0; i < N; i += 997) {
		snprintf(id, sizeof(id), i % 3 ? "%d" : "job-%d-xxxxxxxxxxxxxxxxxxxxxxxx", i);
		char want[160];
		snprintf(want, sizeof(want), "t.csv:%d: duplicate id '%s' (first on line %d)",
			 N + 10, id, i + 2);
		struct dl_err e = DL_ERR_INIT;
		if (dl_idset_add(&s, id, "t.csv", N + 10, NULL, &e) == 0 || strcmp(e.msg, want)) {
			if (bad++ < 3)
				printf("# got '%s', want '%s'\n", e.msg, want);
		}
	}
	ok(!bad, "every repeat is refused, naming both lines");
	is_int(s.n, N, "refused ids are not added");
	struct dl_err e = DL_ERR_INIT;
	ok(dl_idset_add(&s, "", "t.csv", 1, NULL, &e) == 0, "the empty string is an id like any");
	ok(dl_idset_add(&s, "", "t.csv", 9, NULL, &e) < 0 && strstr(e.msg, "first on line 1"),
	   "and only once");
	/* checked 64 at a time: the same first repeat, in input order, as one at a time */
	int same = 1;
	for (int round = 0; round < 50; round++) {
		struct dl_idset a = DL_IDSET_INIT, b = DL_IDSET_INIT;
		struct dl_err ea = DL_ERR_INIT, eb = DL_ERR_INIT;
		int ra = 0, rb = 0;
		unsigned x = 777u + (unsigned)round;
		for (int i = 0; i < 3000 && !ra; i++) {
			x = x * 1103515245u + 12345u;
			snprintf(id, sizeof(id), "k%u", (x >> 8) % (2000 + 400 * (unsigned)round));
			ra = dl_idset_add(&a, id, "r.csv", i + 2, NULL, &ea);
		}
		x = 777u + (unsigned)round;
		for (int i = 0; i < 3000 && !rb; i++) {
			x = x * 1103515245u + 12345u;
			snprintf(id, sizeof(id), "k%u", (x >> 8) % (2000 + 400 * (unsigned)round));
			size_t r;
			rb = dl_idset_add_later(&b, id, "r.csv", i + 2, &r, &eb);
		}
		if (!rb)
			rb = dl_idset_flush(&b, &eb);
		same &= ra == rb && !strcmp(ea.msg, eb.msg);
		dl_idset_free(&a);
		dl_idset_free(&b);
	}
	ok(same, "batched checks report the same first repeat");
	/* rising integer ids are not indexed until one breaks the run; repeats are still found */
	for (int later = 0; later < 2; later++) {
		struct dl_idset r = DL_IDSET_INIT;
		struct dl_err er = DL_ERR_INIT;
		int rc = 0;
		size_t h;
		for (int i = 0; i < 10000 && !rc; i++) {
			snprintf(id, sizeof(id), "%d", i * 3);
			rc = later ? dl_idset_add_later(&r, id, "n.csv", i + 2, &h, &er)
				   : dl_idset_add(&r, id, "n.csv", i + 2, NULL, &er);
		}
		rc |= r.cap != 0; /* nothing indexed yet */
		rc |= dl_idset_add(&r, "007", "n.csv", 10002, NULL,
				   &er); /* not canonical: indexes */
		rc |= r.n != 10001;
		int dup = dl_idset_add(&r, "300", "n.csv", 10003, NULL, &er) < 0 &&
			  !strcmp(er.msg, "n.csv:10003: duplicate id '300' (first on line 102)");
		ok(!rc && dup, "rising integer ids: %s", later ? "batched" : "one at a time");
		dl_idset_free(&r);
	}
	dl_idset_drop_index(&s);
	ok(!strcmp(dl_idset_str(&s, ref[N - 1]), "199999"), "ids stay after the index is dropped");
	dl_idset_free(&s);
	free(ref);
	return done_testing();
}
