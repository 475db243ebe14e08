/* test_fused_ce.c: fused cross-entropy: hand-worked answers, dlogits against central finite
 * differences of the fp64 loss, masked and all-masked rows, a 128256-word vocabulary,
 * and the bound covering other conformant fp32 evaluations (online softmax,
 * exp(x - lse), reciprocal multiply) while rejecting results just past it. */
#include <string.h>

#include "ref_test_util.h"

START_TEST(known_answer)
{
    /* R = 3, V = 4, n_valid = 2. Row 0: all logits 0, label 2: softmax 1/4 each,
     * lse = ln 4, loss_0 = ln 4 / 2; dlogits = [1/4, 1/4, 1/4 - 1, 1/4] / 2 =
     * [0.125, 0.125, -0.375, 0.125]. Row 1: all logits 1 (softmax is shift-invariant),
     * label 0: loss_1 = (1 + ln 4 - 1) / 2, dlogits [-0.375, 0.125, 0.125, 0.125].
     * Row 2: masked (label -1): zeros. loss = ln 4 = 1.3862943611198906. */
    const float logits[12] = {0, 0, 0, 0, 1, 1, 1, 1, 7, -3, 2, 5};
    const int32_t labels[3] = {2, 0, -1};
    const double want[12] = {0.125, 0.125, -0.375, 0.125, -0.375, 0.125, 0.125, 0.125, 0, 0, 0, 0};
    float loss, d[12];
    double lv, lb, dv[12], db[12];
    q4_error err;
    ck_assert_q4ok(q4ref_fused_ce_truth(logits, labels, 3, 4, 2.0f, &lv, &lb, dv, db, &err), err);
    ck_assert_double_eq_tol(lv, 1.3862943611198906, 1e-15);
    for (int i = 0; i < 12; i++)
        ck_assert_double_eq_tol(dv[i], want[i], 1e-16);
    ck_assert_q4ok(q4ref_fused_ce(logits, labels, 3, 4, 2.0f, &loss, d, &err), err);
    ck_assert(fabs(loss - lv) <= lb);
    check_within(d, dv, db, 12, "dlogits");
    for (int i = 8; i < 12; i++) {
        ck_assert_double_eq(db[i], 0);
        ck_assert(d[i] == 0);
    }
}
END_TEST

/* dlogits[r][j] = d loss / d logits[r][j]: central differences of the fp64 truth loss
 * with h = 2^-12 on logits that are multiples of 2^-12, so x +- h is exact in fp32;
 * the O(h^2) truncation error is below 1e-8. */
START_TEST(gradient_matches_finite_differences)
{
    enum { R = 3, V = 7 };
    const double h = 0x1p-12;
    const int32_t labels[R] = {1, -1, 6};
    float x[R * V];
    double lv, lb, dv[R * V], db[R * V], pv[R * V], pb[R * V];
    rng r = {42};
    q4_error err;
    for (int i = 0; i < R * V; i++)
        x[i] = (float)((double)rng_int(&r, -4 * 4096, 4 * 4096) * h);
    ck_assert_q4ok(q4ref_fused_ce_truth(x, labels, R, V, 2.0f, &lv, &lb, dv, db, &err), err);
    for (int i = 0; i < R * V; i++) {
        const float x0 = x[i];
        double lp, lm;
        x[i] = (float)(x0 + h);
        ck_assert_q4ok(q4ref_fused_ce_truth(x, labels, R, V, 2.0f, &lp, &lb, pv, pb, &err), err);
        x[i] = (float)(x0 - h);
        ck_assert_q4ok(q4ref_fused_ce_truth(x, labels, R, V, 2.0f, &lm, &lb, pv, pb, &err), err);
        x[i] = x0;
        ck_assert_msg(fabs((lp - lm) / (2 * h) - dv[i]) < 1e-8, "dlogits[%d] = %.12g, fd %.12g",
                      i, dv[i], (lp - lm) / (2 * h));
    }
}
END_TEST

START_TEST(all_masked)
{
    /* Every negative label is an ignore index: loss exactly 0, dlogits exactly 0,
     * bounds exactly 0 (exact zeros are required). */
    enum { R = 3, V = 8 };
    const int32_t labels[R] = {-1, -100, INT32_MIN};
    float x[R * V], d[R * V], loss = 1;
    double lv, lb, dv[R * V], db[R * V];
    rng r = {7};
    q4_error err;
    rand_floats(&r, x, R * V, -5, 5);
    memset(d, 0xFF, sizeof d);  /* NaN everywhere: the op must write every element */
    ck_assert_q4ok(q4ref_fused_ce(x, labels, R, V, 1.0f, &loss, d, &err), err);
    ck_assert_q4ok(q4ref_fused_ce_truth(x, labels, R, V, 1.0f, &lv, &lb, dv, db, &err), err);
    ck_assert(loss == 0 && lv == 0 && lb == 0);
    for (int i = 0; i < R * V; i++)
        ck_assert(d[i] == 0 && dv[i] == 0 && db[i] == 0);
}
END_TEST

/* The fp32 path on random rows, n_valid = the valid count; labels are `fixed` or else
 * random with a quarter of the rows masked. Returns the worst margin and checks that
 * results 3 ULP past the bound are rejected. */
static double random_case(uint64_t seed, int64_t R, int64_t V, double spread,
                          const int32_t *fixed)
{
    rng r = {seed};
    float *x = xcalloc((size_t)(R * V), 4), *d = xcalloc((size_t)(R * V), 4), loss;
    double *dv = xcalloc((size_t)(R * V), 8), *db = xcalloc((size_t)(R * V), 8), lv, lb, worst;
    int32_t *labels = xcalloc((size_t)R, 4);
    int64_t valid = 0;
    q4_error err;
    rand_floats(&r, x, R * V, -spread, spread);
    for (int64_t i = 0; i < R; i++) {
        labels[i] = fixed ? fixed[i] : rng_unit(&r) < 0.25 ? -1 : (int32_t)rng_int(&r, 0, V - 1);
        valid += labels[i] >= 0;
    }
    const float nv = valid ? (float)valid : 1.0f;
    ck_assert_q4ok(q4ref_fused_ce(x, labels, R, V, nv, &loss, d, &err), err);
    ck_assert_q4ok(q4ref_fused_ce_truth(x, labels, R, V, nv, &lv, &lb, dv, db, &err), err);
    worst = check_within(d, dv, db, R * V, "dlogits");
    ck_assert_msg(fabs(loss - lv) <= lb, "loss %.9g truth %.17g bound %.3g", loss, lv, lb);
    if (lb > 0)
        worst = fmax(worst, fabs(loss - lv) / lb);
    ck_assert(fabs((double)beyond_bound(lv, lb) - lv) > lb);
    for (int64_t i = 0; i < R * V; i++)
        ck_assert(fabs((double)beyond_bound(dv[i], db[i]) - dv[i]) > db[i]);
    free(x);
    free(d);
    free(dv);
    free(db);
    free(labels);
    return worst;
}

START_TEST(random_within_bound)
{
    static const int64_t shapes[][2] = {{1, 1}, {16, 4}, {9, 33}, {5, 1000}, {1, 4096}};
    for (int i = 0; i < 5; i++) {
        double worst = random_case((uint64_t)i + 1, shapes[i][0], shapes[i][1], 30, NULL);
        if (shapes[i][1] > 1)
            ck_assert_msg(worst > 0, "shape %d: margin 0", i);
    }
    /* Large logits: only a max-shifted evaluation stays finite. */
    random_case(99, 4, 64, 1e4, NULL);
}
END_TEST

START_TEST(llama3_vocabulary)
{
    /* V = 128256 (Llama 3), a few rows only (CI has 2 cores): the first and last
     * classes, and a masked row. */
    const int32_t labels[3] = {0, -1, 128255};
    ck_assert(random_case(2024, 3, 128256, 20, labels) > 0);
}
END_TEST

/* Another conformant evaluation, as a kernel might do it: an online softmax in fp32
 * (running max, rescaling the running sum), p_j = exp(x_j - lse), and division by
 * n_valid as a multiplication by its fp32 reciprocal, with FMAs. */
static void online_ce_row(const float *x, int64_t V, int32_t l, float nv, float *loss, float *d)
{
    float m = -INFINITY, S = 0, inv = 1.0f / nv, lse;
    for (int64_t j = 0; j < V; j++) {
        if (x[j] > m) {
            S = S * expf(m - x[j]);
            m = x[j];
        }
        S += expf(x[j] - m);
    }
    lse = m + logf(S);
    *loss = (lse - x[l]) * inv;
    for (int64_t j = 0; j < V; j++)
        d[j] = fmaf(expf(x[j] - lse), inv, j == l ? -inv : 0.0f);
}

START_TEST(other_evaluations_within_bound)
{
    enum { V = 3000 };
    float *x = xcalloc(V, 4), *d = xcalloc(V, 4), loss;
    double *dv = xcalloc(V, 8), *db = xcalloc(V, 8), lv, lb;
    rng r = {5};
    q4_error err;
    for (int rep = 0; rep < 4; rep++) {
        const int32_t l = (int32_t)rng_int(&r, 0, V - 1);
        const float nv = (float)rng_int(&r, 1, 9);
        /* Ascending logits make the online max move at every step: the most rescales. */
        rand_floats(&r, x, V, -10, 10);
        if (rep == 0)
            for (int j = 0; j < V; j++)
                x[j] = -10 + (float)j * (20.0f / V);
        ck_assert_q4ok(q4ref_fused_ce_truth(x, &l, 1, V, nv, &lv, &lb, dv, db, &err), err);
        online_ce_row(x, V, l, nv, &loss, d);
        ck_assert_msg(fabs(loss - lv) <= lb, "loss %.9g truth %.17g bound %.3g", loss, lv, lb);
        check_within(d, dv, db, V, "online dlogits");
    }
    free(x);
    free(d);
    free(dv);
    free(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.fused_ce");
    TCase *tc = tcase_create("ce");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, known_answer);
    tcase_add_test(tc, gradient_matches_finite_differences);
    tcase_add_test(tc, all_masked);
    tcase_add_test(tc, random_within_bound);
    tcase_add_test(tc, llama3_vocabulary);
    tcase_add_test(tc, other_evaluations_within_bound);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
