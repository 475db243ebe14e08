/* test_gpu_mma_passes.c: the tensor-core forward's two passes (q4vk_lin_mma_passes:
 * unpack_w_i8, then linear_slice_i8), which need no cooperative matrices, on any
 * device against a model of their outputs in C:
 *  - the digits of every element, in the GEMM's staging order, give back x exactly
 *    under the block's exponent (2^(e-1) <= max |x| < 2^e), rows M..Mp-1 are zero, and
 *    the lossy flag stays 0 for data exact in four digits (x on the grid 2^-23);
 *  - the flag is raised by one element too coarse for its block (an outlier), by an
 *    element lost to underflow in a block 2^160 wide, by an infinity and by a NaN;
 *  - the codes - 8 come back as int8 in staging order, rows N..Np-1 zero (odd N4);
 *  - with at most 3 workgroups a dimension the grids fold, and the spare workgroups
 *    write nothing past the buffers (guard words intact); with at most 2 they fold
 *    over z too, and every workgroup past the first x * y does its own share.
 * The GEMM that reads them runs only on the H200 (docs/perf.md). */
#include <math.h>
#include <stdlib.h>

#include "gpu_test_util.h"
#include "q4ref.h"
#include "q4vk_op_linear_mma.h"

static q4vk_context *ctx;

/* One call's inputs and the passes' outputs on the host. */
typedef struct passes {
    int64_t M, N, K, gs;
    q4vk_lin_mma_scratch sz;
    int8_t *digits;
    int32_t *exps;
    int8_t *codes;
    uint32_t lossy;
} passes;

static void run_passes(const float *x, const uint8_t *codes, passes *p)
{
    q4_error err = {0};
    const int64_t M = p->M, N = p->N, K = p->K;
    q4vk_lin_mma_sizes((uint64_t)M, (uint64_t)N, (uint64_t)K, (uint64_t)p->gs, &p->sz);
    uint32_t *w = calloc((size_t)q4_w4x8_words(N, K), 4);
    ck_assert(w);
    ck_assert_int_eq(q4ref_pack_w4x8(codes, N, K, w, &err), Q4_OK);
    q4vk_buffer *xb = dev_buf(ctx, x, (size_t)(M * K * 4));
    q4vk_buffer *wb = dev_buf(ctx, w, (size_t)q4_w4x8_words(N, K) * 4);
    const uint32_t stale = 7;   /* the flag's old value: the passes must clear it */
    q4vk_lin_mma_bufs b = {dev_buf(ctx, NULL, p->sz.digit_bytes), dev_buf(ctx, NULL, p->sz.exp_bytes),
                           dev_buf(ctx, NULL, p->sz.code_bytes), dev_buf(ctx, &stale, 4)};
    q4vk_linear_args a = {xb, wb, NULL, NULL, NULL, M, N, K, p->gs};
    CK_OK(q4vk_lin_mma_passes(ctx, &a, &b, NULL, &err_));
    p->digits = malloc(p->sz.digit_bytes);
    p->exps = malloc(p->sz.exp_bytes);
    p->codes = malloc(p->sz.code_bytes);
    ck_assert(p->digits && p->exps && p->codes);
    dev_get(ctx, b.digits, p->digits, p->sz.digit_bytes, "digits");
    dev_get(ctx, b.exps, p->exps, p->sz.exp_bytes, "exponents");
    dev_get(ctx, b.codes, p->codes, p->sz.code_bytes, "codes");
    dev_get(ctx, b.lossy, &p->lossy, 4, "lossy");
    q4vk_buffer_destroy(ctx, xb);
    q4vk_buffer_destroy(ctx, wb);
    q4vk_buffer_destroy(ctx, b.digits);
    q4vk_buffer_destroy(ctx, b.exps);
    q4vk_buffer_destroy(ctx, b.codes);
    q4vk_buffer_destroy(ctx, b.lossy);
    free(w);
}

static void passes_free(passes *p)
{
    free(p->digits);
    free(p->exps);
    free(p->codes);
}

/* Digit plane s of element (m, k): chunks of 64 rows x 32 K per (row tile, step, plane). */
static int digit(const passes *p, int64_t s, int64_t m, int64_t k)
{
    size_t at = (size_t)((((m / 64) * (p->K / 32) + k / 32) * 4 + s) * 2048 + (m % 64) * 32 + k % 32);
    return p->digits[at];
}

/* Code of (n, k): chunks of 128 rows x 32 K per (column tile, step). */
static int code(const passes *p, int64_t n, int64_t k)
{
    size_t at = (size_t)(((n / 128) * (p->K / 32) + k / 32) * 4096 + (n % 128) * 32 + k % 32);
    return p->codes[at];
}

/* The codes - 8 of every row, rows N..Np-1 zero. */
static void check_codes(const passes *p, const uint8_t *c)
{
    for (int64_t n = 0; n < (int64_t)p->sz.np; n++)
        for (int64_t k = 0; k < p->K; k++)
            ck_assert_int_eq(code(p, n, k), n < p->N ? (int)c[n * p->K + k] - 8 : 0);
}

static float *grid_x(int64_t n)
{
    float *x = malloc((size_t)n * 4);
    ck_assert(x);
    for (int64_t i = 0; i < n; i++)   /* k 2^-23, |x| < 1: exact in four digits */
        x[i] = (float)ldexp((double)((int64_t)(rng_next() % (1u << 24)) - (1 << 23)), -23);
    return x;
}

static uint8_t *random_codes(int64_t n)
{
    uint8_t *c = malloc((size_t)n);
    ck_assert(c);
    for (int64_t i = 0; i < n; i++)
        c[i] = (uint8_t)(rng_next() & 15);
    return c;
}

/* The digits give x back exactly under each block's exponent, padding rows are 0. */
static void check_digits(const passes *p, const float *x)
{
    const int64_t blk = (int64_t)p->sz.blk, nb = p->K / blk;
    for (int64_t m = 0; m < (int64_t)p->sz.mp; m++) {
        for (int64_t b = 0; b < nb; b++) {
            double amax = 0;
            for (int64_t k = b * blk; m < p->M && k < (b + 1) * blk; k++)
                amax = fmax(amax, fabs(x[m * p->K + k]));
            int e = 0;
            if (amax > 0)
                frexp(amax, &e);
            ck_assert_msg(p->exps[m * nb + b] == e, "exponent of row %lld block %lld: %d, "
                          "expected %d", (long long)m, (long long)b, p->exps[m * nb + b], e);
            for (int64_t k = b * blk; k < (b + 1) * blk; k++) {
                double v = 0;
                for (int s = 0; s < 4; s++) {
                    int d = digit(p, s, m, k);
                    ck_assert_int_le(abs(d), 64);
                    v += ldexp(d, e - 6 - 7 * s);
                }
                double want = m < p->M ? x[m * p->K + k] : 0.0;
                ck_assert_msg(v == want, "digits of x[%lld][%lld] give %.17g, x is %.17g",
                              (long long)m, (long long)k, v, want);
            }
        }
    }
}

START_TEST(digits_exact_and_in_order)
{
    rng_seed(1);
    passes p = {.M = 70, .N = 20, .K = 256, .gs = 128};   /* 2 row tiles, odd N4 */
    float *x = grid_x(p.M * p.K);
    for (int64_t k = 0; k < 128; k++)
        x[5 * p.K + k] = 0.0f;                           /* a zero block: exponent 0 */
    uint8_t *c = random_codes(p.N * p.K);
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.sz.blk, 128);
    ck_assert_uint_eq(p.lossy, 0);
    check_digits(&p, x);
    check_codes(&p, c);
    passes_free(&p);
    free(x);
    free(c);
}
END_TEST

/* gs = 64: blocks of 64 K; one outlier raises the flag, as do a block 2^160 wide (its
 * small element underflows in z_0), an infinity and a NaN. The last three sit among
 * zeros, which never raise it, so that each is caught by its own test in the kernel. */
START_TEST(lossy_flag)
{
    rng_seed(2);
    passes p = {.M = 9, .N = 8, .K = 128, .gs = 64};
    float *x = grid_x(p.M * p.K);
    uint8_t *c = random_codes(p.N * p.K);
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.sz.blk, 64);
    ck_assert_uint_eq(p.lossy, 0);
    check_digits(&p, x);
    passes_free(&p);

    float keep = x[3 * p.K + 70];
    x[3 * p.K + 70] = 0x1.234568p20f;        /* an outlier: the block's rest is too coarse */
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.lossy, 1);
    passes_free(&p);

    for (int64_t k = 64; k < 128; k++)
        x[3 * p.K + k] = 0.0f;
    x[3 * p.K + 64] = 0x1p100f;               /* exact alone ... */
    x[3 * p.K + 65] = 0x1p-60f;               /* ... but 2^-60 scaled by 2^-95 is below the
                                                 least subnormal: 0, flushing or not */
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.lossy, 1);
    passes_free(&p);

    x[3 * p.K + 65] = 0.0f;
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.lossy, 0);          /* the same block without it: exact again */
    passes_free(&p);

    x[3 * p.K + 64] = keep;
    for (int64_t k = 64; k < 128; k++)
        x[8 * p.K + k] = 0.0f;
    x[8 * p.K + 127] = INFINITY;
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.lossy, 1);
    passes_free(&p);

    x[8 * p.K + 127] = NAN;
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.lossy, 1);
    passes_free(&p);
    free(x);
    free(c);
}
END_TEST

/* The passes of one call with at most max_groups workgroups a dimension. */
static void folded(uint32_t max_groups, int64_t M, int64_t N, int64_t K)
{
    const q4vk_test_limits lim = {.max_groups = max_groups};
    CK_OK(q4vk_set_test_limits(ctx, &lim, &err_));
    passes p = {.M = M, .N = N, .K = K, .gs = 64};
    float *x = grid_x(p.M * p.K);
    uint8_t *c = random_codes(p.N * p.K);
    run_passes(x, c, &p);
    ck_assert_uint_eq(p.lossy, 0);
    check_digits(&p, x);
    check_codes(&p, c);
    passes_free(&p);
    CK_OK(q4vk_set_test_limits(ctx, NULL, &err_));
    free(x);
    free(c);
}

/* Folded grids: at most 3 workgroups a dimension (slice 8, unpack 4 workgroups as 3 x 3
 * and 3 x 2); the spare ones write nothing (dev_get checks the guard words). At most 2
 * (slice and unpack 8 workgroups each, K = 128): both as 2 x 2 x 2, so a kernel that
 * ignored z would leave half its output unwritten. */
START_TEST(folded_grids)
{
    rng_seed(3);
    folded(3, 100, 36, 64);
    folded(2, 50, 36, 128);
}
END_TEST

START_TEST(bad_group_size)
{
    q4vk_buffer *big = raw_buf(ctx, 4096);
    q4vk_linear_args a = {big, big, NULL, NULL, NULL, 4, 8, 64, 32};
    q4vk_lin_mma_bufs b = {big, big, big, big};
    CK_FAILS(Q4_ERR_ARG, "need gs a multiple of 64, got 32",
             q4vk_lin_mma_passes(ctx, &a, &b, NULL, &err_));
    q4vk_buffer_destroy(ctx, big);
}
END_TEST

int main(void)
{
    int rc = gpu_test_open(&ctx);
    if (rc)
        return rc;
    Suite *s = suite_create("gpu.mma_passes");
    ADD(s, digits_exact_and_in_order);
    ADD(s, lossy_flag);
    ADD(s, folded_grids);
    ADD(s, bad_group_size);
    SRunner *sr = srunner_create(s);
    return gpu_test_run(sr, ctx);
}
