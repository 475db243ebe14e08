/* case_rng.h: the integer hashes and PRNG of q4cases and its exact float makers
 * (case_rng.c). */
#ifndef Q4C_CASE_RNG_H
#define Q4C_CASE_RNG_H

#include <stddef.h>
#include <stdint.h>

/* ---- case_rng.c ---- */
uint64_t q4c_fnv1a64(const void *data, size_t n, uint64_t h);   /* h = Q4C_FNV_OFFSET to start */
#define Q4C_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t q4c_fnv1a64_str(const char *s);

typedef struct q4c_rng { uint64_t state; } q4c_rng;
float q4c_signed_zero(int negative);                   /* +0 or -0, from bits */
float q4c_from_bits(uint32_t bits);                    /* any float, NaN included */

/* ---- inline: the fills call these once per element of inputs of up to 2^28 elements,
 * where a call each, and a 64-bit division for a power-of-two range, were most of
 * the time of making them ---- */

/* the splitmix64 finalizer (Steele, Lea, Flood 2014; Vigna's reference constants) */
static inline uint64_t q4c_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define Q4C_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64 */
static inline uint64_t q4c_next(q4c_rng *g)
{
    g->state += Q4C_GAMMA;
    return q4c_mix64(g->state);
}

/* g after i draws: a counter, O(1) */
static inline q4c_rng q4c_at(q4c_rng g, int64_t i)
{
    g.state += (uint64_t)i * Q4C_GAMMA;
    return g;
}

/* next % n, n >= 1 (a power of two by a mask, the same value). A modulo: its bias is
 * below n / 2^64, far under anything a test could see, and it needs no rejection
 * loop, so the number of draws per value is always one. */
static inline uint64_t q4c_below(q4c_rng *g, uint64_t n)
{
    const uint64_t r = q4c_next(g);
    return (n & (n - 1)) ? r % n : r & (n - 1);
}

/* uniform integer in [lo, hi) */
static inline int64_t q4c_range(q4c_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)q4c_below(g, (uint64_t)(hi - lo));
}

/* 2^e for e in [-126, 127], built from its bits: exact by construction. */
static inline float q4c_pow2f(int e)
{
    union { uint32_t bits; float f; } u = { (uint32_t)(e + 127) << 23 };
    return u.f;
}

/* i * 2^e exactly, for |i| < 2^24; a result below the smallest normal becomes 0
 * (the generator never emits a denormal). (float)i is exact for |i| < 2^24; each
 * power-of-two step is exact while the intermediate stays normal, which steps of
 * 2^100 from |i| >= 1 guarantee; only a result that should have been a denormal can
 * be inexact, and it is made 0. */
static inline float q4c_exact(int64_t i, int e)
{
    float x = (float)i;
    while (e > 100) { x *= q4c_pow2f(100); e -= 100; }
    while (e < -100) { x *= q4c_pow2f(-100); e += 100; }
    x *= q4c_pow2f(e);
    if (x != 0 && x < 1.17549435e-38f && x > -1.17549435e-38f)
        x = 0;
    return x;
}

#endif
