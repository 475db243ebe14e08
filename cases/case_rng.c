/* case_rng.c: the integer-only randomness of the generator and its exact float makers.
 *
 * Everything here is integer arithmetic or an fp32 multiplication whose result is
 * exactly representable, so the generator is bit-identical on any IEEE machine,
 * whatever the compiler's rounding, contraction or denormal settings (README.md
 * "Generator"). No libm. */
#include <string.h>

#include "case_rng.h"

uint64_t q4c_fnv1a64(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t q4c_fnv1a64_str(const char *s)
{
    return q4c_fnv1a64(s, strlen(s), Q4C_FNV_OFFSET);
}

/* splitmix64 (Steele, Lea, Flood 2014; Vigna's reference constants). */
uint64_t q4c_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define Q4C_GAMMA 0x9e3779b97f4a7c15ull

uint64_t q4c_next(q4c_rng *g)
{
    g->state += Q4C_GAMMA;
    return q4c_mix64(g->state);
}

q4c_rng q4c_at(q4c_rng g, int64_t i)
{
    g.state += (uint64_t)i * Q4C_GAMMA;
    return g;
}

/* A modulo: its bias is below n / 2^64, far under anything a test could see, and it
 * needs no rejection loop, so the number of draws per value is always one. */
uint64_t q4c_below(q4c_rng *g, uint64_t n)
{
    return q4c_next(g) % n;
}

int64_t q4c_range(q4c_rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)q4c_below(g, (uint64_t)(hi - lo));
}

/* 2^e for e in [-126, 127], built from its bits: exact by construction. */
static float pow2f(int e)
{
    uint32_t bits = (uint32_t)(e + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float q4c_signed_zero(int negative)
{
    /* From bits: -0.0f is folded to +0 by compilers told to ignore signed zeros. */
    uint32_t b = negative ? 0x80000000u : 0;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

float q4c_exact(int64_t i, int e)
{
    /* (float)i is exact for |i| < 2^24; each power-of-two step is exact while the
     * intermediate stays normal, which steps of 2^100 from |i| >= 1 guarantee. */
    float x = (float)i;
    while (e > 100) { x *= pow2f(100); e -= 100; }
    while (e < -100) { x *= pow2f(-100); e += 100; }
    x *= pow2f(e);
    /* Only a result that should have been a denormal can be inexact; make it 0. */
    if (x != 0 && x < 1.17549435e-38f && x > -1.17549435e-38f)
        x = 0;
    return x;
}

float q4c_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
