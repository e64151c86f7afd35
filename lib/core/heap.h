/*
 * heap.h: a binary heap kept in an array, for any element type, as a macro
 * that defines its operations (typed, with no callback on the hot path, like
 * slab.h's per-job arrays):
 *
 *   static int later_first(const struct rk *a, const struct rk *b) { ... }
 *   DL_HEAP_DEFINE(victims, struct rk, later_first)
 *   victims_heapify(h, n);      // make h[0..n) a heap
 *   struct rk top = victims_pop(h, &n);   // take h[0] out (n > 0); n falls by 1
 *   victims_down(h, n, i);      // restore the heap order of h[0..n) below i
 *
 * before(a, b) is true when *a must come out of the heap before *b; h[0] is
 * then the first. The caller owns the array (and grows it to push). A user
 * that needs only some of the three does not get a warning for the others.
 */
#ifndef DL_CORE_HEAP_H
#define DL_CORE_HEAP_H

#include <stddef.h>

#include "core/common.h"

#define DL_HEAP_DEFINE(name, type, before)                                    \
	DL_UNUSED static inline void name##_down(type *h, size_t n, size_t i) \
	{                                                                     \
		type e_ = h[i];                                               \
		for (;;) {                                                    \
			size_t c_ = 2 * i + 1;                                \
			if (c_ >= n)                                          \
				break;                                        \
			if (c_ + 1 < n && before(&h[c_ + 1], &h[c_]))         \
				c_++;                                         \
			if (!before(&h[c_], &e_))                             \
				break;                                        \
			h[i] = h[c_];                                         \
			i = c_;                                               \
		}                                                             \
		h[i] = e_;                                                    \
	}                                                                     \
	DL_UNUSED static inline void name##_heapify(type *h, size_t n)        \
	{                                                                     \
		for (size_t i_ = n / 2; i_-- > 0;)                            \
			name##_down(h, n, i_);                                \
	}                                                                     \
	DL_UNUSED static inline type name##_pop(type *h, size_t *n)           \
	{                                                                     \
		type top_ = h[0];                                             \
		h[0] = h[--*n];                                               \
		name##_down(h, *n, 0);                                        \
		return top_;                                                  \
	}

#endif
