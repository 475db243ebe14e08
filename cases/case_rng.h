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
uint64_t q4c_mix64(uint64_t z);                       /* the splitmix64 finalizer */
uint64_t q4c_next(q4c_rng *g);                        /* splitmix64 */
q4c_rng q4c_at(q4c_rng g, int64_t i);                 /* g after i draws: a counter, O(1) */
uint64_t q4c_below(q4c_rng *g, uint64_t n);           /* next % n, n >= 1 */
int64_t q4c_range(q4c_rng *g, int64_t lo, int64_t hi); /* uniform integer in [lo, hi) */
/* i * 2^e exactly, for |i| < 2^24; a result below the smallest normal becomes 0
 * (the generator never emits a denormal). */
float q4c_exact(int64_t i, int e);
float q4c_signed_zero(int negative);                   /* +0 or -0, from bits */
float q4c_from_bits(uint32_t bits);                    /* any float, NaN included */

#endif
