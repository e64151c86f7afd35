/*
 * rsort.c: the stable radix sort of records by a 64-bit key (rsort.h).
 */
#include "core/rsort.h"

#include <stdint.h>
#include <string.h>

static inline uint64_t key_at(const unsigned char *rec, size_t key_off)
{
	uint64_t k;
	memcpy(&k, rec + key_off, sizeof(k));
	return k;
}

/*
 * One pass: every record of src to its place in dst by the byte at shift,
 * c holding each byte value's first place. Inline, so that the callers
 * below give it a constant size and each record moves as one copy.
 */
static inline void scatter(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
			   size_t size, size_t key_off, int shift, size_t *c)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char *r = src + i * size;
		memcpy(dst + c[(key_at(r, key_off) >> shift) & 255]++ * size, r, size);
	}
}

static void scatter_8(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
		      size_t key_off, int shift, size_t *c)
{
	scatter(dst, src, n, 8, key_off, shift, c);
}

static void scatter_16(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
		       size_t key_off, int shift, size_t *c)
{
	scatter(dst, src, n, 16, key_off, shift, c);
}

static void scatter_32(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
		       size_t key_off, int shift, size_t *c)
{
	scatter(dst, src, n, 32, key_off, shift, c);
}

void *dl_rsort(void *recs, void *tmp, size_t n, size_t size, size_t key_off, unsigned first_byte)
{
	unsigned char *src = recs, *dst = tmp;
	if (n < 2 || first_byte >= 8)
		return recs;
	size_t count[8][256];
	memset(count[first_byte], 0, (8 - first_byte) * sizeof(count[0]));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(src + i * size, key_off);
		for (unsigned b = first_byte; b < 8; b++)
			count[b][(k >> (8 * b)) & 255]++;
	}
	uint64_t k0 = key_at(src, key_off);
	for (unsigned b = first_byte; b < 8; b++) {
		size_t *c = count[b];
		int shift = 8 * (int)b;
		if (c[(k0 >> shift) & 255] == n)
			continue; /* every key has this byte: the pass would move nothing */
		size_t at = 0;
		for (int x = 0; x < 256; x++) {
			size_t m = c[x];
			c[x] = at;
			at += m;
		}
		switch (size) {
		case 8:
			scatter_8(dst, src, n, key_off, shift, c);
			break;
		case 16:
			scatter_16(dst, src, n, key_off, shift, c);
			break;
		case 32:
			scatter_32(dst, src, n, key_off, shift, c);
			break;
		default:
			scatter(dst, src, n, size, key_off, shift, c);
		}
		unsigned char *t = src;
		src = dst;
		dst = t;
	}
	return src;
}
