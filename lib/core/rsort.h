/*
 * rsort.h: a stable sort of fixed-size records by an unsigned 64-bit key
 * stored in each record, for arrays sorted often or large enough that a
 * comparison sort's calls dominate (a million jobs by priority, a
 * thousand bids in every auction round).
 *
 * An LSD radix sort, a byte a pass, least significant first: O(n) per pass,
 * no comparisons. It is stable: records with equal keys (over the bytes
 * sorted) keep their input order, so sorting by the least significant key
 * first and the most significant last orders by a key of several words.
 * One read of the records counts every byte at once; a pass whose byte is
 * the same in every record would move nothing and is skipped (the sign and
 * exponent of similar doubles, the high bytes of small integers), so
 * already-constant bytes cost only that read.
 *
 * To order doubles, store a key whose unsigned order is theirs (flip the
 * sign bit of a non-negative value, every bit of a negative one); NaN has
 * no place and is the caller's to exclude.
 */
#ifndef DL_RSORT_H
#define DL_RSORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Sort the n records of `size` bytes at recs by the uint64_t at byte
 * key_off of each (any alignment), ascending, over the key's bytes from
 * first_byte to 7 only: 0 sorts by the whole key; 4 by its upper half, for
 * a caller that orders the rest itself (records equal in the bytes sorted
 * keep their input order).
 *
 * Memory: none allocated. tmp is the caller's scratch of n records, not
 * overlapping recs; the result ends in recs or in tmp, and the return value
 * says which (the other then holds no useful order). Both stay the
 * caller's to free. The counts (16 KiB) are on the stack.
 */
void *dl_rsort(void *recs, void *tmp, size_t n, size_t size, size_t key_off, unsigned first_byte);

/*
 * The key of a double whose unsigned order is its numeric order (d not NaN;
 * -0 before 0: a caller that takes them for one passes 0 for both), and
 * the double back from its key. ~key orders highest first.
 */
static inline uint64_t dl_rsort_key(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static inline double dl_rsort_key_value(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

#endif
