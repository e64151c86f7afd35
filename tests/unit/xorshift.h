/*
 * xorshift.h: Marsaglia's xorshift64, the small generator the randomised
 * unit tests (test_oset, test_cluster_state) draw their operations from.
 * Each test keeps its own state word and seed, so its sequence is fixed.
 */
#ifndef DL_TEST_XORSHIFT_H
#define DL_TEST_XORSHIFT_H

/* a draw in [0, n) from *state (not 0), which advances */
static inline unsigned xorshift_below(unsigned long long *state, unsigned n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (unsigned)(*state % n);
}

#endif
