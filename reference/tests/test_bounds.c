/* test_bounds.c: the dot-product tolerances of q4ref_bounds.c: gamma and
 * q4ref_bound_dot by value, and the bound holding for fp32 dot products summed in
 * adversarial orders, with and without FMA, for products of 2 and 3 factors. */
#include <stdlib.h>

#include "ref_test_util.h"

#define U Q4REF_U
#define TINY Q4_FLT_MIN_NORMAL

START_TEST(gamma_values)
{
    ck_assert_double_eq(q4ref_gamma(0), 0);
    ck_assert_double_eq(q4ref_gamma(1), U / (1 - U));
    ck_assert_double_eq(q4ref_gamma(1000), 1000 * U / (1 - 1000 * U));
    /* n u = 1/2: gamma = (1/2) / (1/2) = 1. */
    ck_assert_double_eq(q4ref_gamma((int64_t)1 << 23), 1);
    /* n u >= 1: no bound. */
    ck_assert(isinf(q4ref_gamma((int64_t)1 << 24)));
}
END_TEST

START_TEST(bound_dot_values)
{
    /* n = 4 terms of 3 factors: gamma(4 + 3 - 1) = gamma(6) relative, (2*4 + 3) flushes;
     * the fp64 truth's own error (gamma64(4) ~ 4.4e-16 relative) is all that remains. */
    const double b = q4ref_bound_dot(4, 3, 15);
    ck_assert(b >= q4ref_gamma(6) * 15 + 11 * TINY);
    ck_assert_double_eq_tol(b, q4ref_gamma(6) * 15, 15 * 5e-16);
    /* Nothing to sum: only the flush terms, (2*1 + 2) 2^-126. */
    ck_assert_double_eq(q4ref_bound_dot(1, 2, 0), 4 * TINY);
    ck_assert_double_eq(q4ref_bound_dequant(-3.5), U * 3.5 + TINY);
}
END_TEST

static int by_abs_asc(const void *a, const void *b)
{
    float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
    return (x > y) - (x < y);
}

/* sum_i x_i * (q_i * s_i) (factors 3) or sum_i x_i * w_i (factors 2), evaluated
 * several ways in fp32; each must be within q4ref_bound_dot of the fp64 value. */
START_TEST(dot_bound_holds_in_any_order)
{
    enum { N = 4096 };
    static float x[N], w[N], prod[N];
    rng r = {(uint64_t)_i + 9};
    const int factors = 2 + _i;
    double exact = 0, sum_abs = 0, worst = 0;
    for (int i = 0; i < N; i++) {
        /* same-sign terms of mixed magnitude: the worst case for accumulation */
        x[i] = rng_float(&r, 0.5, 1) * (float)ldexp(1, (int)rng_int(&r, -6, 6));
        if (factors == 3) {  /* w = q * s rounded in fp32; the exact term uses q * s */
            const double q = (double)rng_int(&r, 1, 7), s = 0.0137f;
            w[i] = (float)q * (float)s;
            exact += (double)x[i] * (q * s);
            sum_abs += fabs((double)x[i] * (q * s));
        } else {
            w[i] = rng_float(&r, 0.1, 1);
            exact += (double)x[i] * w[i];
            sum_abs += fabs((double)x[i] * w[i]);
        }
    }
    const double bound = q4ref_bound_dot(N, factors, sum_abs);
    for (int i = 0; i < N; i++)
        prod[i] = x[i] * w[i];
    float fwd = 0, fma_sum = 0, blocked = 0, sorted = 0;
    for (int i = 0; i < N; i++) {
        fwd += prod[i];
        fma_sum = fmaf(x[i], w[i], fma_sum);
    }
    for (int b = 0; b < N; b += 64) {  /* per-thread partial sums, then combined */
        float part = 0;
        for (int i = b; i < b + 64; i++)
            part += prod[i];
        blocked += part;
    }
    qsort(prod, N, sizeof prod[0], by_abs_asc);
    for (int i = N - 1; i >= 0; i--)  /* largest first: the worst order */
        sorted += prod[i];
    const float got[4] = {fwd, fma_sum, blocked, sorted};
    for (int k = 0; k < 4; k++) {
        double e = fabs((double)got[k] - exact);
        ck_assert_msg(e <= bound, "way %d: err %.3g > bound %.3g", k, e, bound);
        worst = fmax(worst, e / bound);
    }
    ck_assert(worst > 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.bounds");
    TCase *tc = tcase_create("bounds");
    tcase_add_test(tc, gamma_values);
    tcase_add_test(tc, bound_dot_values);
    tcase_add_loop_test(tc, dot_bound_holds_in_any_order, 0, 2);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
