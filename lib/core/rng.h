/*
 * rng.h: a small seeded pseudo-random generator (xoshiro256**, seeded by
 * splitmix64) with the few distributions dlsched needs.
 *
 * All state lives in a struct dl_rng that the caller owns (on the stack or
 * inside another struct); nothing is global, so the same seed gives the same
 * sequence on every platform with IEEE doubles. Nothing here allocates.
 * Streams that must not disturb each other (e.g. arrivals and durations) can
 * use separate generators seeded with dl_rng_seed_stream(seed, stream).
 *
 * The continuous draws use libm (log, exp, sqrt, cos); results are identical
 * for a given libm, which is what "same seed, same output" promises.
 */
#ifndef DL_RNG_H
#define DL_RNG_H

#include <stdint.h>

struct dl_rng {
	uint64_t s[4];
};

/* splitmix64: advance *state and return its next 64 bits (the seeder; also a
 * one-word generator where a test wants a fixed stream) */
uint64_t dl_splitmix64(uint64_t *state);
/* seed the generator (any 64-bit value, 0 included) */
void dl_rng_seed(struct dl_rng *r, uint64_t seed);
/* an independent generator for substream `stream` of `seed` */
void dl_rng_seed_stream(struct dl_rng *r, uint64_t seed, uint64_t stream);
/* next 64 random bits */
uint64_t dl_rng_u64(struct dl_rng *r);
/* uniform in [0, 1) with 53 random bits */
double dl_rng_uniform(struct dl_rng *r);
/* uniform in (0, 1]: safe to take the log of */
double dl_rng_uniform_pos(struct dl_rng *r);
/* uniform integer in [0, n), unbiased (Lemire's method); n == 0 returns 0 */
uint64_t dl_rng_below(struct dl_rng *r, uint64_t n);
/* exponential with the given mean (> 0) */
double dl_rng_exp(struct dl_rng *r, double mean);
/* standard normal (Box-Muller; one normal per two uniforms, no cached state) */
double dl_rng_normal(struct dl_rng *r);
/* lognormal: exp(mu + sigma * N(0,1)) */
double dl_rng_lognormal(struct dl_rng *r, double mu, double sigma);

#endif
