/*
 * test_rsort.c: dl_rsort against dl_stable_sort (stable, by comparisons) on
 * random records with many equal keys and many constant key bytes, for
 * every record size it moves by a special path and one it does not, keys
 * at an unaligned offset, sorts of the upper bytes only, and several words
 * sorted in turn.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rsort.h"
#include "core/sort.h"
#include "tap.h"

/* splitmix64: the test's fixed sequence of random words */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

struct ctx {
	size_t key_off;
	unsigned first_byte;
};

static uint64_t key_of(const void *rec, const struct ctx *c)
{
	uint64_t k;
	memcpy(&k, (const unsigned char *)rec + c->key_off, sizeof(k));
	return c->first_byte ? k >> (8 * c->first_byte) : k;
}

static int by_key(const void *a, const void *b, void *ctx)
{
	uint64_t x = key_of(a, ctx), y = key_of(b, ctx);
	return (x > y) - (x < y);
}

/* a key of the shape of `round`: few values, some bytes constant, or all random */
static uint64_t gen_key(uint64_t r, int round)
{
	switch (round % 5) {
	case 0:
		return r % 7; /* many ties, seven high bytes constant */
	case 1:
		return r & UINT64_C(0xff000000ff00ff00); /* three varying bytes */
	case 2:
		return r; /* all bytes vary */
	case 3:
		return UINT64_C(0x4000000000000000) |
		       (r & 0xffff); /* a double's sign and exponent */
	default:
		return 42; /* every key equal: nothing moves */
	}
}

/*
 * Sort n records of `size` bytes both ways; 1 if the results match. The
 * bytes beside the key are random, so matching records are the same ones.
 */
static int check(size_t n, size_t size, size_t key_off, unsigned first_byte, int round, uint64_t *x)
{
	unsigned char *a = malloc(n * size + 1), *b = malloc(n * size + 1),
		      *tmp = malloc(n * size + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char *r = a + i * size;
		for (size_t j = 0; j < size; j++)
			r[j] = (unsigned char)next(x); /* (tells tied records apart) */
		uint64_t k = gen_key(next(x), round);
		memcpy(r + key_off, &k, sizeof(k));
	}
	memcpy(b, a, n * size);
	struct ctx c = {key_off, first_byte};
	dl_stable_sort(b, n, size, by_key, &c, NULL);
	const unsigned char *s = dl_rsort(a, tmp, n, size, key_off, first_byte);
	int same = (s == a || s == tmp) && (!n || !memcmp(s, b, n * size));
	free(a);
	free(b);
	free(tmp);
	return same;
}

int main(void)
{
	uint64_t x = 33;
	static const size_t sizes[] = {8, 16, 32, 24, 13};
	int bad = 0, cases = 0;
	for (int round = 0; round < 200; round++) {
		size_t n = round < 40 ? (size_t)round : 1 + (size_t)(round * 911) % 5000;
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			size_t size = sizes[si];
			size_t key_off = size == 8 ? 0 : size - 8 - (size_t)(round % 3 == 0);
			unsigned first = round % 4 == 1 ? 4 : round % 4 == 2 ? 7 : 0;
			bad += !check(n, size, key_off, first, round, &x);
			cases++;
		}
	}
	ok(!bad,
	   "dl_rsort == dl_stable_sort on %d arrays: sizes 8-32, unaligned keys, "
	   "upper bytes only (%d mismatches)",
	   cases, bad);

	/* three words, least significant first: the order of the triples */
	size_t n = 3000;
	uint64_t(*r)[4] = malloc(n * sizeof(*r)), (*t)[4] = malloc(n * sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		for (int w = 0; w < 3; w++)
			r[i][w] = next(&x) % 3;
		r[i][3] = i;
	}
	uint64_t(*s)[4] = r, (*o)[4] = t;
	for (int w = 0; w < 3; w++) {
		uint64_t(*u)[4] = dl_rsort(s, o, n, sizeof(*s), (size_t)w * 8, 0);
		if (u != s) {
			o = s;
			s = u;
		}
	}
	int sorted = 1;
	for (size_t i = 1; i < n; i++) {
		int cmp = 0;
		for (int w = 2; w >= 0 && !cmp; w--)
			cmp = (s[i - 1][w] > s[i][w]) - (s[i - 1][w] < s[i][w]);
		sorted &= cmp < 0 || (cmp == 0 && s[i - 1][3] < s[i][3]);
	}
	ok(sorted, "sorting word by word, least significant first, orders by all three, stably");
	free(r);
	free(t);

	uint64_t one = 5, scratch;
	ok(dl_rsort(&one, &scratch, 1, sizeof(one), 0, 0) == &one && one == 5,
	   "one record stays where it is");
	return done_testing();
}
