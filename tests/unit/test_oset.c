/* test_oset.c: the ordered sets against a sorted reference, under random operations */
#include <stdlib.h>
#include <string.h>

#include "sim/oset.h"
#include "tap.h"
#include "xorshift.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(unsigned n)
{
	return xorshift_below(&rng, n);
}

#define NSETS 3
#define NJOBS 4000

struct ref {
	double k0, k1;
	uint64_t k2;
	size_t slot;
};

static int set_of[NJOBS]; /* the reference: which set a job is in, -1 for none */
static struct ref key_of[NJOBS];

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->k0 != y->k0)
		return x->k0 < y->k0 ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

/* every set walks forwards and backwards in the reference's order; counts and has agree */
static int check(const struct dl_opool *pool, const struct dl_oset *sets, size_t njobs)
{
	static struct ref want[NJOBS];
	int bad = 0;
	for (int s = 0; s < NSETS; s++) {
		size_t n = 0;
		for (size_t i = 0; i < njobs; i++)
			if (set_of[i] == s)
				want[n++] = key_of[i];
		qsort(want, n, sizeof(want[0]), cmp_ref);
		bad += sets[s].count != n;
		size_t k = 0;
		for (size_t i = dl_oset_first(pool, &sets[s]); i != DL_ONIL && k <= n;
		     i = dl_oset_next(pool, i))
			bad += k >= n || want[k++].slot != i;
		bad += k != n;
		for (size_t i = dl_oset_last(pool, &sets[s]); i != DL_ONIL && k > 0;
		     i = dl_oset_prev(pool, i))
			bad += want[--k].slot != i;
		bad += k != 0;
		bad += !n && (sets[s].first != DL_ONIL || sets[s].last != DL_ONIL ||
			      sets[s].root != DL_ONIL);
	}
	for (size_t i = 0; i < njobs; i++) {
		bad += dl_oset_has(pool, i) != (set_of[i] >= 0);
		if (set_of[i] < 0)
			bad += dl_oset_next(pool, i) != DL_ONIL || dl_oset_prev(pool, i) != DL_ONIL;
	}
	return bad;
}

int main(void)
{
	struct dl_opool pool;
	struct dl_oset sets[NSETS];
	size_t njobs = NJOBS / 2; /* grown halfway */
	uint64_t seq = 0;
	dl_opool_init(&pool, njobs);
	for (int s = 0; s < NSETS; s++)
		sets[s] = (struct dl_oset)DL_OSET_INIT;
	for (size_t i = 0; i < NJOBS; i++)
		set_of[i] = -1;
	int bad = 0, checks = 0, inserts = 0, erases = 0;
	for (int step = 0; step < 200000; step++) {
		if (step == 100000) {
			njobs = NJOBS;
			dl_opool_grow(&pool, njobs);
		}
		/* phases: growing sets, shrinking ones (down to empty), mixed */
		unsigned phase = (unsigned)(step / 5000) % 3, op = rnd(10);
		int grow = phase == 0 ? op < 8 : phase == 1 ? op < 2 : op < 5;
		size_t i = rnd((unsigned)njobs);
		if (grow && set_of[i] < 0) {
			int s = (int)rnd(NSETS);
			/* keys: ties on k0 (and k1), runs of rising and falling keys, random */
			double k0, k1 = (double)rnd(4);
			switch (rnd(4)) {
			case 0:
				k0 = (double)rnd(3);
				break;
			case 1:
				k0 = 1e6 + (double)step; /* a new last */
				break;
			case 2:
				k0 = -(double)step; /* a new first */
				break;
			default:
				k0 = (double)rnd(100000) / 7;
			}
			key_of[i] = (struct ref){k0, k1, seq, i};
			dl_oset_insert(&pool, &sets[s], i, k0, k1, seq++);
			set_of[i] = s;
			inserts++;
		} else if (!grow && set_of[i] >= 0) {
			dl_oset_erase(&pool, &sets[set_of[i]], i);
			set_of[i] = -1;
			erases++;
		} else if (!grow) {
			dl_oset_erase(&pool, &sets[0], i); /* in no set: nothing happens */
		}
		if (step % 997 == 0) {
			bad += check(&pool, sets, njobs);
			checks++;
		}
	}
	bad += check(&pool, sets, njobs);
	ok(!bad, "%d checks after %d inserts and %d erases: %d mismatches", checks + 1, inserts,
	   erases, bad);
	/* empty every set: the trees go, and the sets work again afterwards */
	for (size_t i = 0; i < njobs; i++)
		if (set_of[i] >= 0) {
			dl_oset_erase(&pool, &sets[set_of[i]], i);
			set_of[i] = -1;
		}
	ok(!check(&pool, sets, njobs), "every set emptied");
	for (size_t i = 0; i < 100; i++) {
		key_of[i] = (struct ref){(double)(i % 7), 0, seq, i};
		dl_oset_insert(&pool, &sets[1], i, (double)(i % 7), 0, seq++);
		set_of[i] = 1;
	}
	ok(!check(&pool, sets, njobs), "refilled after emptying");
	dl_opool_release(&pool);
	return done_testing();
}
