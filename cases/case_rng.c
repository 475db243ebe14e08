/* case_rng.c: the integer-only randomness of the generator and its exact float makers.
 *
 * Everything here is integer arithmetic or an fp32 multiplication whose result is
 * exactly representable, so the generator is bit-identical on any IEEE machine,
 * whatever the compiler's rounding, contraction or denormal settings (README.md
 * "Generator"). No libm. The per-element makers are inline, in case_rng.h. */
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

float q4c_signed_zero(int negative)
{
    /* From bits: -0.0f is folded to +0 by compilers told to ignore signed zeros. */
    uint32_t b = negative ? 0x80000000u : 0;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

float q4c_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
