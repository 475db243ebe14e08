/* test_linear.c: linear_q4gsw forward (with and without bias), backward and linear_dW:
 * hand-worked answers, the fp32 path within the SPEC §3 bound of the fp64 truth on
 * random shapes, and bounds that reject a result just past them or a wrong nibble. */
#include <string.h>

#include "ref_test_util.h"

START_TEST(known_answers)
{
    /* M = 1, N = 4, K = 4, gs = 4. Row 0 codes 9..12 (q = 1..4), row 1 codes 7 (q = -1),
     * rows 2, 3 code 8 (q = 0); scales [0.5, 2, 1, 1]; x = [1, 2, 3, 4]. */
    const uint8_t codes[16] = {9, 10, 11, 12, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8};
    const float scales[4] = {0.5f, 2, 1, 1}, x[4] = {1, 2, 3, 4}, bias[4] = {1, -1, 0.25f, 0};
    const float dout[4] = {1, 1, 0, 0};
    /* y0 = 0.5 (1 + 4 + 9 + 16) = 15;  y1 = 2 * -1 * (1 + 2 + 3 + 4) = -20;  y2 = y3 = 0;
     * with bias: [16, -21, 0.25, 0]. */
    const float want_y[4] = {15, -20, 0, 0}, want_yb[4] = {16, -21, 0.25f, 0};
    /* dx_k = W[0][k] + W[1][k] = 0.5 q0k - 2: [-1.5, -1, -0.5, 0]. */
    const float want_dx[4] = {-1.5f, -1, -0.5f, 0};
    uint32_t w[4];
    float y[4], dx[4];
    double v[4], b[4];
    q4_error err;
    ck_assert_q4ok(q4ref_pack_w4x8(codes, 4, 4, w, &err), err);
    ck_assert_q4ok(q4ref_linear_fwd(x, w, scales, NULL, 1, 4, 4, 4, y, &err), err);
    ck_assert_mem_eq(y, want_y, sizeof y);
    ck_assert_q4ok(q4ref_linear_fwd_truth(x, w, scales, NULL, 1, 4, 4, 4, v, b, &err), err);
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq(v[i], want_y[i]);
    /* y0: sum |x_k w_k| = 15, n = K = 4 terms of 3 factors. */
    ck_assert_double_eq(b[0], q4ref_bound_dot(4, 3, 15));
    ck_assert_q4ok(q4ref_linear_fwd(x, w, scales, bias, 1, 4, 4, 4, y, &err), err);
    ck_assert_mem_eq(y, want_yb, sizeof y);
    ck_assert_q4ok(q4ref_linear_fwd_truth(x, w, scales, bias, 1, 4, 4, 4, v, b, &err), err);
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq(v[i], want_yb[i]);
    /* y1 with bias: sum |.| = 20 + |-1| = 21 over K + 1 = 5 terms. */
    ck_assert_double_eq(b[1], q4ref_bound_dot(5, 3, 21));

    ck_assert_q4ok(q4ref_linear_bwd(dout, w, scales, 1, 4, 4, 4, dx, &err), err);
    ck_assert_mem_eq(dx, want_dx, sizeof dx);
    ck_assert_q4ok(q4ref_linear_bwd_truth(dout, w, scales, 1, 4, 4, 4, v, b, &err), err);
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq(v[i], want_dx[i]);
    /* dx0: |0.5 * 1| + |2 * -1| = 2.5 over N = 4 terms. */
    ck_assert_double_eq(b[0], q4ref_bound_dot(4, 3, 2.5));
}
END_TEST

START_TEST(dw_known_answer)
{
    /* M = 2, N = 4, K = 4: dout = [[1,0,0,0],[0,2,0,0]], x = [[1,2,3,4],[5,6,7,8]];
     * dW[n][k] = sum_m dout[m][n] x[m][k]: row 0 = x0 = [1,2,3,4], row 1 = 2 x1 =
     * [10,12,14,16], rows 2 and 3 zero. */
    const float dout[8] = {1, 0, 0, 0, 0, 2, 0, 0}, x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float want[16] = {1, 2, 3, 4, 10, 12, 14, 16, 0, 0, 0, 0, 0, 0, 0, 0};
    float dw[16];
    double v[16], b[16];
    q4_error err;
    ck_assert_q4ok(q4ref_linear_dw(dout, x, 2, 4, 4, dw, &err), err);
    ck_assert_mem_eq(dw, want, sizeof dw);
    ck_assert_q4ok(q4ref_linear_dw_truth(dout, x, 2, 4, 4, v, b, &err), err);
    for (int i = 0; i < 16; i++) {
        ck_assert_double_eq(v[i], want[i]);
        /* every term is exact here: sum |.| = |value|, M = 2 terms of 2 factors. */
        ck_assert_double_eq(b[i], q4ref_bound_dot(2, 2, fabs(want[i])));
    }
}
END_TEST

/* (M, N, K, gs): partial M and M = 1, odd N4 (12, 20, 36, 44), one and many groups. */
static const int64_t shapes[][4] = {
    {1, 4, 4, 4},     {3, 12, 8, 4},     {7, 20, 64, 16},   {33, 36, 96, 32},
    {64, 64, 256, 64}, {5, 8, 512, 512}, {17, 44, 128, 128}, {1, 12, 1024, 32},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

typedef struct lin_case {
    int64_t M, N, K, gs;
    uint8_t *codes;
    uint32_t *w;
    float *s, *x, *bias, *dout;
} lin_case;

static lin_case make_case(int i)
{
    rng r = {(uint64_t)i * 7919 + 1};
    lin_case c = {shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], 0, 0, 0, 0, 0, 0};
    q4_error err;
    c.codes = xcalloc((size_t)(c.N * c.K), 1);
    c.w = xcalloc((size_t)q4_w4x8_words(c.N, c.K), 4);
    c.s = xcalloc((size_t)q4_scales_count(c.N, c.K, c.gs), 4);
    c.x = xcalloc((size_t)(c.M * c.K), 4);
    c.bias = xcalloc((size_t)c.N, 4);
    c.dout = xcalloc((size_t)(c.M * c.N), 4);
    rand_codes(&r, c.codes, c.N * c.K);
    rand_scales(&r, c.s, q4_scales_count(c.N, c.K, c.gs), 0.1);
    rand_floats(&r, c.x, c.M * c.K, -1, 1);
    rand_floats(&r, c.bias, c.N, -1, 1);
    rand_floats(&r, c.dout, c.M * c.N, -1, 1);
    ck_assert_q4ok(q4ref_pack_w4x8(c.codes, c.N, c.K, c.w, &err), err);
    return c;
}

static void free_case(lin_case *c)
{
    free(c->codes);
    free(c->w);
    free(c->s);
    free(c->x);
    free(c->bias);
    free(c->dout);
}

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* Worst err/bound over all shapes, per op; each must be > 0 somewhere (the fp32
 * path rounds) and every element within its bound. */
START_TEST(random_within_bound)
{
    double worst[3] = {0, 0, 0};
    for (int i = 0; i < NSHAPES; i++) {
        lin_case c = make_case(i);
        const int64_t M = c.M, N = c.N, K = c.K;
        const int64_t big = max3(M * N, M * K, N * K);
        float *out = xcalloc((size_t)big, 4);
        double *v = xcalloc((size_t)big, 8), *b = xcalloc((size_t)big, 8);
        q4_error err;
        for (int with_bias = 0; with_bias < 2; with_bias++) {
            const float *bias = with_bias ? c.bias : NULL;
            ck_assert_q4ok(q4ref_linear_fwd(c.x, c.w, c.s, bias, M, N, K, c.gs, out, &err), err);
            ck_assert_q4ok(q4ref_linear_fwd_truth(c.x, c.w, c.s, bias, M, N, K, c.gs, v, b, &err),
                           err);
            worst[0] = fmax(worst[0], check_within(out, v, b, M * N, "y"));
        }
        ck_assert_q4ok(q4ref_linear_bwd(c.dout, c.w, c.s, M, N, K, c.gs, out, &err), err);
        ck_assert_q4ok(q4ref_linear_bwd_truth(c.dout, c.w, c.s, M, N, K, c.gs, v, b, &err), err);
        worst[1] = fmax(worst[1], check_within(out, v, b, M * K, "dx"));
        ck_assert_q4ok(q4ref_linear_dw(c.dout, c.x, M, N, K, out, &err), err);
        ck_assert_q4ok(q4ref_linear_dw_truth(c.dout, c.x, M, N, K, v, b, &err), err);
        worst[2] = fmax(worst[2], check_within(out, v, b, N * K, "dW"));
        /* Not vacuous: a value three ULP past the bound is out. */
        for (int64_t j = 0; j < N * K; j++)
            ck_assert(fabs((double)beyond_bound(v[j], b[j]) - v[j]) > b[j]);
        free(out);
        free(v);
        free(b);
        free_case(&c);
    }
    for (int op = 0; op < 3; op++)
        ck_assert_msg(worst[op] > 0 && worst[op] <= 1, "op %d margin %g", op, worst[op]);
}
END_TEST

/* A kernel that reads one wrong nibble (code c -> c ^ 1, i.e. one step of one scale)
 * must fail the bound somewhere: the bounds are far tighter than one quantization step. */
START_TEST(wrong_nibble_fails)
{
    lin_case c = make_case(4);
    const int64_t M = c.M, N = c.N, K = c.K;
    float *y = xcalloc((size_t)(M * N), 4);
    double *v = xcalloc((size_t)(M * N), 8), *b = xcalloc((size_t)(M * N), 8);
    int64_t outside = 0, j = 0;
    q4_error err;
    ck_assert_q4ok(q4ref_linear_fwd_truth(c.x, c.w, c.s, NULL, M, N, K, c.gs, v, b, &err), err);
    while (c.s[((j % K) / c.gs) * N + j / K] == 0)  /* a nonzero scale, so the flip matters */
        j++;
    c.codes[j] ^= 1;
    ck_assert_q4ok(q4ref_pack_w4x8(c.codes, N, K, c.w, &err), err);
    ck_assert_q4ok(q4ref_linear_fwd(c.x, c.w, c.s, NULL, M, N, K, c.gs, y, &err), err);
    for (int64_t i = 0; i < M * N; i++)
        if (fabs((double)y[i] - v[i]) > b[i]) {
            ck_assert_int_eq(i % N, j / K);  /* only the flipped row's output column */
            outside++;
        }
    /* x in [-1, 1]: all but the rare row with a tiny x[k] show it. */
    ck_assert_int_ge(outside, M - M / 8);
    free(y);
    free(v);
    free(b);
    free_case(&c);
}
END_TEST

START_TEST(fwd_matches_dequant_then_dot)
{
    /* The fp32 weight the forward uses is exactly q4ref_dequant_w4x8's: a bias-free
     * M = 1 forward with x = e_k picks column k of it. */
    lin_case c = make_case(2);
    const int64_t N = c.N, K = c.K;
    float *wf = xcalloc((size_t)(N * K), 4), *x = xcalloc((size_t)K, 4), *y = xcalloc((size_t)N, 4);
    q4_error err;
    ck_assert_q4ok(q4ref_dequant_w4x8(c.w, c.s, N, K, c.gs, wf, &err), err);
    for (int64_t k = 0; k < K; k += 7) {
        memset(x, 0, (size_t)K * 4);
        x[k] = 1;
        ck_assert_q4ok(q4ref_linear_fwd(x, c.w, c.s, NULL, 1, N, K, c.gs, y, &err), err);
        for (int64_t n = 0; n < N; n++)
            ck_assert_float_eq(y[n], wf[n * K + k]);
    }
    free(wf);
    free(x);
    free(y);
    free_case(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.linear");
    TCase *tc = tcase_create("linear");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, known_answers);
    tcase_add_test(tc, dw_known_answer);
    tcase_add_test(tc, random_within_bound);
    tcase_add_test(tc, wrong_nibble_fails);
    tcase_add_test(tc, fwd_matches_dequant_then_dot);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
