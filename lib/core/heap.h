/*
 * heap.h: the sift-down of a binary heap kept in an array, for any element
 * type, as a macro that defines it (typed, with no callback on the hot path,
 * like slab.h's per-job arrays):
 *
 *   static int later_first(const struct rk *a, const struct rk *b) { ... }
 *   DL_HEAP_DEFINE(victims, struct rk, later_first)   // victims_down()
 *   victims_down(h, n, i);   // restore the heap order of h[0..n) below i
 *
 * before(a, b) is true when *a must come out of the heap before *b; h[0] is
 * then the first. Build a heap with _down from n / 2 - 1 down to 0; pop by
 * moving h[n - 1] to h[0] and calling _down on n - 1 entries. The caller owns
 * the array.
 */
#ifndef DL_CORE_HEAP_H
#define DL_CORE_HEAP_H

#include <stddef.h>

#define DL_HEAP_DEFINE(name, type, before)                            \
	static inline void name##_down(type *h, size_t n, size_t i)   \
	{                                                             \
		type e_ = h[i];                                       \
		for (;;) {                                            \
			size_t c_ = 2 * i + 1;                        \
			if (c_ >= n)                                  \
				break;                                \
			if (c_ + 1 < n && before(&h[c_ + 1], &h[c_])) \
				c_++;                                 \
			if (!before(&h[c_], &e_))                     \
				break;                                \
			h[i] = h[c_];                                 \
			i = c_;                                       \
		}                                                     \
		h[i] = e_;                                            \
	}

#endif
