/* test_adamw_step.c: one AdamW step (SPEC §2): a hand-worked step, several steps against a
 * plain scalar loop of the formula with and without weight decay, late steps, and
 * the bound covering other conformant evaluations while rejecting results past it. */
#include <string.h>

#include "ref_test_util.h"

START_TEST(known_answer)
{
    /* Hyper-parameters exact in binary: lr = 1/8, beta1 = 7/8, beta2 = 1 - 2^-10,
     * eps = 2^-20, wd = 1/16; step t = 1: bc1 = 1/8, bc2 = 2^-10. p = 1, g = 1/2, m = v = 0:
     *   p1 = 1 - (1/8)(1/16) 1 = 0.9921875
     *   m  = (7/8) 0 + (1/8)(1/2) = 0.0625;   v = 0 + 2^-10 (1/4) = 2^-12
     *   m/bc1 = 0.5;  sqrt(v/bc2) = sqrt(1/4) = 0.5
     *   p  = 0.9921875 - (1/8)(0.5) / (0.5 + 2^-20) = 0.9921875 - 0.125 / (1 + 2^-19). */
    const q4ref_adamw_hyper h = {0.125f, 0.875f, 1 - 0x1p-10f, 0x1p-20f, 0.0625f, 0.125f, 0x1p-10f};
    float p = 1, g = 0.5f, m = 0, v = 0;
    double pv, pb, mv, mb, vv, vb;
    q4_error err;
    ck_assert_q4ok(q4ref_adamw_truth(&p, &g, &m, &v, 1, &h, &pv, &pb, &mv, &mb, &vv, &vb, &err),
                   err);
    ck_assert_double_eq_tol(pv, 0.9921875 - 0.125 / (1 + 0x1p-19), 1e-16);
    ck_assert_double_eq(mv, 0.0625);
    ck_assert_double_eq(vv, 0x1p-12);
    ck_assert_q4ok(q4ref_adamw_step(&p, &g, &m, &v, 1, &h, &err), err);
    ck_assert(fabs(p - pv) <= pb && fabs(m - mv) <= mb && fabs(v - vv) <= vb);
    ck_assert_float_eq(m, 0.0625f);
    ck_assert_float_eq(v, 0x1p-12f);
}
END_TEST

/* The SPEC formula, element by element, as a user would write it. */
static void scalar_adamw(float *p, const float *g, float *m, float *v, int64_t n,
                         const q4ref_adamw_hyper *h)
{
    for (int64_t i = 0; i < n; i++) {
        p[i] = p[i] - h->lr * h->wd * p[i];
        m[i] = h->beta1 * m[i] + (1 - h->beta1) * g[i];
        v[i] = h->beta2 * v[i] + (1 - h->beta2) * g[i] * g[i];
        p[i] = p[i] - h->lr * (m[i] / h->bc1) / (sqrtf(v[i] / h->bc2) + h->eps);
    }
}

enum { NUMEL = 257 };

/* Gradients over many magnitudes, zeros and a denormal included. */
static void rand_grad(rng *r, float *g)
{
    for (int i = 0; i < NUMEL; i++)
        g[i] = (float)ldexp(rng_unit(r) - 0.5, (int)rng_int(r, -20, 6));
    g[0] = 0;
    g[1] = 1e-40f;
}

/* One step checked against the truth; returns the worst margin over p, m, v. */
static double checked_step(float *p, const float *g, float *m, float *v,
                           const q4ref_adamw_hyper *h)
{
    double pv[NUMEL], pb[NUMEL], mv[NUMEL], mb[NUMEL], vv[NUMEL], vb[NUMEL], worst;
    q4_error err;
    ck_assert_q4ok(q4ref_adamw_truth(p, g, m, v, NUMEL, h, pv, pb, mv, mb, vv, vb, &err), err);
    ck_assert_q4ok(q4ref_adamw_step(p, g, m, v, NUMEL, h, &err), err);
    worst = check_within(p, pv, pb, NUMEL, "param");
    worst = fmax(worst, check_within(m, mv, mb, NUMEL, "m"));
    worst = fmax(worst, check_within(v, vv, vb, NUMEL, "v"));
    for (int i = 0; i < NUMEL; i++)
        ck_assert(fabs((double)beyond_bound(pv[i], pb[i]) - pv[i]) > pb[i]);
    return worst;
}

START_TEST(steps_match_scalar_loop)
{
    /* _i = 0: no weight decay; _i = 1: wd = 0.1. Ten steps; each matches the scalar
     * loop exactly (the same fp32 expression in the same order; ISO C, no contraction)
     * and lies within the truth's bound. */
    q4ref_adamw_hyper h = {1e-3f, 0.9f, 0.999f, 1e-8f, _i ? 0.1f : 0.0f, 0, 0};
    float p[NUMEL], g[NUMEL], m[NUMEL], v[NUMEL], p2[NUMEL], m2[NUMEL], v2[NUMEL];
    double worst = 0;
    rng r = {(uint64_t)_i + 11};
    rand_floats(&r, p, NUMEL, -1, 1);
    memset(m, 0, sizeof m);
    memset(v, 0, sizeof v);
    memcpy(p2, p, sizeof p);
    memcpy(m2, m, sizeof m);
    memcpy(v2, v, sizeof v);
    for (int t = 1; t <= 10; t++) {
        h.bc1 = (float)(1 - pow(h.beta1, t));
        h.bc2 = (float)(1 - pow(h.beta2, t));
        rand_grad(&r, g);
        worst = fmax(worst, checked_step(p, g, m, v, &h));
        scalar_adamw(p2, g, m2, v2, NUMEL, &h);
        for (int i = 0; i < NUMEL; i++) {
            ck_assert_float_eq(p[i], p2[i]);
            ck_assert_float_eq(m[i], m2[i]);
            ck_assert_float_eq(v[i], v2[i]);
        }
    }
    ck_assert(worst > 0 && worst <= 1);
}
END_TEST

START_TEST(late_steps)
{
    /* t = 1000 and 10000: bc1 rounds to 1 in fp32, bc2 does not; moments non-zero. */
    static const int ts[2] = {1000, 10000};
    q4ref_adamw_hyper h = {3e-4f, 0.9f, 0.999f, 1e-8f, 0.01f, 0, 0};
    float p[NUMEL], g[NUMEL], m[NUMEL], v[NUMEL];
    rng r = {77};
    h.bc1 = (float)(1 - pow(h.beta1, ts[_i]));
    h.bc2 = (float)(1 - pow(h.beta2, ts[_i]));
    rand_floats(&r, p, NUMEL, -2, 2);
    rand_floats(&r, m, NUMEL, -0.01, 0.01);
    rand_floats(&r, v, NUMEL, 0, 1e-4);
    rand_grad(&r, g);
    ck_assert(checked_step(p, g, m, v, &h) > 0);
}
END_TEST

/* Random p in [-1, 1), m, v, g from seed, and their truth (values and bounds) under h. */
static void random_truth(uint64_t seed, const q4ref_adamw_hyper *h, float *p, float *g, float *m,
                         float *v, double *pv, double *pb, double *mv, double *mb, double *vv,
                         double *vb)
{
    rng r = {seed};
    q4_error err;
    rand_floats(&r, p, NUMEL, -1, 1);
    rand_floats(&r, m, NUMEL, -0.1, 0.1);
    rand_floats(&r, v, NUMEL, 0, 0.01);
    rand_grad(&r, g);
    ck_assert_q4ok(q4ref_adamw_truth(p, g, m, v, NUMEL, h, pv, pb, mv, mb, vv, vb, &err), err);
}

START_TEST(other_evaluations_within_bound)
{
    /* torch's p * (1 - lr wd), FMAs, sqrt as 1 / (1 / sqrt), lr * (m / den): all
     * conformant, all inside the bound. */
    const q4ref_adamw_hyper h = {1e-2f, 0.9f, 0.99f, 1e-6f, 0.05f, 0.19f, 0.0199f};
    float p[NUMEL], g[NUMEL], m[NUMEL], v[NUMEL];
    double pv[NUMEL], pb[NUMEL], mv[NUMEL], mb[NUMEL], vv[NUMEL], vb[NUMEL];
    random_truth(3, &h, p, g, m, v, pv, pb, mv, mb, vv, vb);
    for (int i = 0; i < NUMEL; i++) {
        float p1 = p[i] * (1 - h.lr * h.wd);
        float m1 = fmaf(h.beta1, m[i], (1 - h.beta1) * g[i]);
        float v1 = fmaf(h.beta2, v[i], (1 - h.beta2) * g[i] * g[i]);
        float den = 1.0f / (1.0f / sqrtf(v1 / h.bc2)) + h.eps;
        float p2 = p1 - h.lr * ((m1 / h.bc1) / den);
        ck_assert_msg(fabs(p2 - pv[i]) <= pb[i], "p[%d] %.9g truth %.17g bound %.3g", i, p2, pv[i],
                      pb[i]);
        ck_assert(fabs(m1 - mv[i]) <= mb[i] && fabs(v1 - vv[i]) <= vb[i]);
    }
}
END_TEST

START_TEST(lr_zero_leaves_param_exact)
{
    /* lr = 0: the param's truth is the param and its bound 0, in both orders of the
     * decay and whatever m, v and wd are; m and v still move with their own bounds. */
    const q4ref_adamw_hyper h = {0.0f, 0.9f, 0.999f, 1e-8f, 0.01f, 0.19f, 0.0199f};
    float p[NUMEL], g[NUMEL], m[NUMEL], v[NUMEL];
    double pv[NUMEL], pb[NUMEL], mv[NUMEL], mb[NUMEL], vv[NUMEL], vb[NUMEL];
    random_truth(5, &h, p, g, m, v, pv, pb, mv, mb, vv, vb);
    for (int i = 0; i < NUMEL; i++) {
        ck_assert_msg(pv[i] == p[i] && pb[i] == 0, "p[%d] %.9g truth %.17g bound %.3g", i, p[i],
                      pv[i], pb[i]);
        ck_assert(mb[i] > 0 && vb[i] > 0);
        float spec = p[i] - (h.lr * h.wd) * p[i];
        spec = spec - h.lr * (m[i] / h.bc1) / (sqrtf(v[i] / h.bc2) + h.eps);
        ck_assert(spec == p[i] && p[i] * (1 - h.lr * h.wd) == p[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.adamw_step");
    TCase *tc = tcase_create("adamw");
    tcase_add_test(tc, known_answer);
    tcase_add_loop_test(tc, steps_match_scalar_loop, 0, 2);
    tcase_add_loop_test(tc, late_steps, 0, 2);
    tcase_add_test(tc, other_evaluations_within_bound);
    tcase_add_test(tc, lr_zero_leaves_param_exact);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
