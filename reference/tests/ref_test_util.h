/* ref_test_util.h: what the q4ref unit tests share: a fixed-seed generator (so every
 * run is the same run), random inputs in the contract, the err/bound margin, and
 * Check boilerplate. Header-only; each test program includes it once. */
#ifndef REF_TEST_UTIL_H
#define REF_TEST_UTIL_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "q4ref.h"

/* splitmix64: tiny, good enough for test inputs, and identical everywhere. */
typedef struct rng {
    uint64_t s;
} rng;

static inline uint64_t rng_u64(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double rng_unit(rng *r) { return (double)(rng_u64(r) >> 11) * 0x1p-53; }

static inline float rng_float(rng *r, double lo, double hi)
{
    return (float)(lo + (hi - lo) * rng_unit(r));
}

/* Uniform integer in [lo, hi]. */
static inline int64_t rng_int(rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_u64(r) % (uint64_t)(hi - lo + 1));
}

static inline void rand_codes(rng *r, uint8_t *c, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        c[i] = (uint8_t)rng_int(r, 0, 15);
}

/* Normal scales of either sign, magnitude in [0.01, 0.1); zero with probability pzero. */
static inline void rand_scales(rng *r, float *s, int64_t n, double pzero)
{
    for (int64_t i = 0; i < n; i++) {
        float m = rng_float(r, 0.01, 0.1);
        s[i] = rng_unit(r) < pzero ? 0.0f : (rng_u64(r) & 1 ? m : -m);
    }
}

static inline void rand_floats(rng *r, float *x, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = rng_float(r, lo, hi);
}

/* Largest |got - value| / bound; asserts every element is within its bound. */
static inline double check_within(const float *got, const double *value, const double *bound,
                                  int64_t n, const char *what)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - value[i]);
        ck_assert_msg(e <= bound[i], "%s[%lld] = %.9g, truth %.17g, err %.3g > bound %.3g", what,
                      (long long)i, got[i], value[i], e, bound[i]);
        if (bound[i] > 0)
            worst = fmax(worst, e / bound[i]);
    }
    return worst;
}

/* The fp32 value a few ULP beyond value + bound: a result that must be judged out. */
static inline float beyond_bound(double value, double bound)
{
    float f = (float)(value + bound);
    for (int i = 0; i < 3; i++)
        f = nextafterf(f, INFINITY);
    return f;
}

#define ck_assert_q4ok(st, err) ck_assert_msg((st) == Q4_OK, "status %d: %s", (int)(st), (err).msg)

static inline void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    ck_assert_ptr_nonnull(p);
    return p;
}

static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
