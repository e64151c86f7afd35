/* rng.c: xoshiro256** (Blackman & Vigna, public domain reference) and draws */
#include "core/rng.h"

#include <math.h>

uint64_t dl_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void dl_rng_seed(struct dl_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	/* splitmix64 never yields four zero words, so the state is valid */
	for (int i = 0; i < 4; i++)
		r->s[i] = dl_splitmix64(&x);
}

void dl_rng_seed_stream(struct dl_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = stream;
	dl_rng_seed(r, seed ^ dl_splitmix64(&x));
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t dl_rng_u64(struct dl_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double dl_rng_uniform(struct dl_rng *r)
{
	return (double)(dl_rng_u64(r) >> 11) * 0x1.0p-53;
}

double dl_rng_uniform_pos(struct dl_rng *r)
{
	return (double)((dl_rng_u64(r) >> 11) + 1) * 0x1.0p-53;
}

uint64_t dl_rng_below(struct dl_rng *r, uint64_t n)
{
	if (!n)
		return 0;
	unsigned __int128 m = (unsigned __int128)dl_rng_u64(r) * n;
	uint64_t lo = (uint64_t)m;
	if (lo < n) {
		uint64_t t = -n % n;
		while (lo < t) {
			m = (unsigned __int128)dl_rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double dl_rng_exp(struct dl_rng *r, double mean)
{
	return -mean * log(dl_rng_uniform_pos(r));
}

double dl_rng_normal(struct dl_rng *r)
{
	double u1 = dl_rng_uniform_pos(r), u2 = dl_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double dl_rng_lognormal(struct dl_rng *r, double mu, double sigma)
{
	return exp(mu + sigma * dl_rng_normal(r));
}
