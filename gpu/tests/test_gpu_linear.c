/* test_gpu_linear.c: GPU tests of dequantize, linear_q4gsw, linear_q4gsw_backward and
 * linear_dW (Check, ctest name gpu.linear).
 *
 * Every kernel variant (gemv for M <= 8, tiled with several tile shapes, the dense
 * path: dequantize_t or dequantize, transpose, linear_tn_tiled), forced onto shapes of
 * any M through the launchers' _opts entry points, runs on small shapes that hit the
 * edges: odd N4 (N = 12, 20, 132), partial tiles in every dimension, M = 1,
 * several quantization groups, bias on and off, zero scales, shapes spanning many
 * workgroups, and the row split over several bindings (a small binding limit). Each
 * result is judged elementwise against the fp64 truth of q4ref with its bound (SPEC
 * §3); dequantize must match the fp32 reference bit for bit. Outputs are prefilled
 * with a NaN sentinel and followed by guard words, so a word left unwritten or written
 * out of range fails. The padding words of odd-N4 blocks are uploaded as garbage (the
 * truth sees 0x88888888): a kernel that reads them as values fails. Bad arguments
 * must fail with the reference's status and sentence. Exits 77 only when there is
 * no Vulkan device at all. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "q4ref.h"
#include "q4vk.h"
#include "q4vk_op_linear_dW.h"
#include "q4vk_op_linear_dense.h"
#include "q4vk_op_linear_mma.h"
#include "q4vk_op_linear_q4gsw.h"
#include "q4vk_op_linear_q4gsw_backward.h"

static q4vk_context *ctx;

#define PAD_GARBAGE 0xF3C5A917u /* what the GPU sees in odd-N4 padding words */

/* ---------------- helpers ---------------- */

static float *rand_floats(int64_t n, float amp)
{
    float *a = malloc((size_t)n * 4);
    ck_assert_ptr_nonnull(a);
    for (int64_t i = 0; i < n; i++)
        a[i] = rng_uniform(-amp, amp);
    return a;
}

/* A random q4gsw weight: w is what the truth sees (padding words 0x88888888), w_gpu
 * the same with garbage in the padding words; about one scale in 16 is zero. */
typedef struct weight {
    int64_t N, K, gs, words, n_scales;
    uint32_t *w, *w_gpu;
    float *scales;
} weight;

static weight make_weight(int64_t N, int64_t K, int64_t gs)
{
    weight W = {N, K, gs, q4_w4x8_words(N, K), q4_scales_count(N, K, gs), NULL, NULL, NULL};
    uint8_t *codes = malloc((size_t)(N * K));
    W.w = malloc((size_t)W.words * 4);
    W.w_gpu = malloc((size_t)W.words * 4);
    W.scales = malloc((size_t)W.n_scales * 4);
    ck_assert(codes && W.w && W.w_gpu && W.scales);
    for (int64_t i = 0; i < N * K; i++)
        codes[i] = (uint8_t)(rng_next() & 15);
    for (int64_t i = 0; i < W.n_scales; i++)
        W.scales[i] = (rng_next() & 15) == 0 ? 0.0f : rng_uniform(-0.2f, 0.2f);
    CK_OK(q4ref_pack_w4x8(codes, N, K, W.w, &err_));
    memcpy(W.w_gpu, W.w, (size_t)W.words * 4);
    if ((N / 4) % 2) {   /* odd N4: words 2 and 3 of each k4 row's last block */
        const int64_t N8 = q4_n8(N);
        for (int64_t k4 = 0; k4 < K / 4; k4++)
            for (int c = 2; c < 4; c++) {
                ck_assert_uint_eq(W.w[4 * (k4 * N8 + N8 - 1) + c], Q4_W4X8_PAD);
                W.w_gpu[4 * (k4 * N8 + N8 - 1) + c] = PAD_GARBAGE ^ (uint32_t)k4;
            }
    }
    free(codes);
    return W;
}

static void free_weight(weight *W)
{
    free(W->w);
    free(W->w_gpu);
    free(W->scales);
}

/* The options of one run: variant (NULL = the launcher's choice), tile (NULL = its
 * choice), binding limit (0 = the device's); split-K slices: the launcher's choice. */
static q4vk_linear_opts opts(const char *variant, const q4vk_gemm_tile *tile, uint64_t limit)
{
    return (q4vk_linear_opts){variant, tile, limit, 0};
}

static const q4vk_gemm_tile T64 = {64, 64, 16, 4, 4};
static const q4vk_gemm_tile T128 = {128, 128, 8, 8, 8};
static const q4vk_gemm_tile T64x128 = {64, 128, 16, 4, 8};
static const q4vk_gemm_tile T32x64 = {32, 64, 8, 4, 4};   /* 128 invocations */
/* The H200's step and per-invocation block (BK 16, 8x8) in a tile lavapipe's 32 KiB
 * of shared memory holds (its 128x128 at BK 16 needs 36.5 KiB). */
static const q4vk_gemm_tile T64x8 = {64, 64, 16, 8, 8};

static const char *tile_name(const q4vk_gemm_tile *t, char *buf, size_t n)
{
    if (!t)
        return "auto";
    snprintf(buf, n, "%ux%u/%u/%ux%u", t->bm, t->bn, t->bk, t->tm, t->tn);
    return buf;
}

/* ---------------- forward ---------------- */

static void fwd_case(int64_t M, int64_t N, int64_t K, int64_t gs, int bias,
                     const q4vk_linear_opts *o)
{
    weight W = make_weight(N, K, gs);
    float *x = rand_floats(M * K, 1.0f), *b = bias ? rand_floats(N, 0.5f) : NULL;
    float *y = malloc((size_t)(M * N) * 4);
    double *v = malloc((size_t)(M * N) * 8), *bd = malloc((size_t)(M * N) * 8);
    ck_assert(y && v && bd);
    CK_OK(q4ref_linear_fwd_truth(x, W.w, W.scales, b, M, N, K, gs, v, bd, &err_));

    q4vk_buffer *bx = dev_buf(ctx, x, (size_t)(M * K) * 4);
    q4vk_buffer *bw = dev_buf(ctx, W.w_gpu, (size_t)W.words * 4);
    q4vk_buffer *bs = dev_buf(ctx, W.scales, (size_t)W.n_scales * 4);
    q4vk_buffer *bb = b ? dev_buf(ctx, b, (size_t)N * 4) : NULL, *by = dev_buf(ctx, NULL, (size_t)(M * N) * 4);
    q4vk_linear_args a = {bx, bw, bs, bb, by, M, N, K, gs};
    CK_OK(q4vk_linear_q4gsw_opts(ctx, &a, o, NULL, &err_));
    dev_get(ctx, by, y, (size_t)(M * N) * 4, "y");
    double margin = judge_matrix("y", y, v, bd, M, N);
    char tn[48];
    printf("linear_q4gsw M=%lld N=%lld K=%lld gs=%lld bias=%d %s tile %s limit %llu splits %u: "
           "margin %.3g\n", (long long)M, (long long)N, (long long)K, (long long)gs, bias,
           o->variant ? o->variant : "auto", tile_name(o->tile, tn, sizeof tn),
           (unsigned long long)o->max_binding, o->splits, margin);

    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bw);
    q4vk_buffer_destroy(ctx, bs);
    q4vk_buffer_destroy(ctx, bb);
    q4vk_buffer_destroy(ctx, by);
    free_weight(&W);
    free(x);
    free(b);
    free(y);
    free(v);
    free(bd);
}

START_TEST(fwd_gemv)
{
    rng_seed(101);
    q4vk_linear_opts o = opts(Q4VK_K_FWD_GEMV, NULL, 0);
    fwd_case(1, 12, 32, 8, 1, &o);      /* odd N4, one block column */
    fwd_case(5, 20, 64, 16, 0, &o);     /* odd N4, partial M */
    fwd_case(3, 40, 520, 40, 1, &o);    /* gs/4 = 10: groups straddle the rounds of U blocks */
    fwd_case(8, 264, 256, 4, 0, &o);    /* gs = 4: a group per k4 row */
    fwd_case(2, 8, 4, 4, 1, &o);        /* the smallest shape */
    fwd_case(7, 1032, 1024, 256, 1, &o);/* many strips, long slices */
}
END_TEST

START_TEST(fwd_tiled)
{
    rng_seed(102);
    q4vk_linear_opts o = opts(Q4VK_K_FWD_TILED, &T64, 0);
    fwd_case(1, 12, 32, 8, 1, &o);      /* M = 1 in a 64-row tile */
    fwd_case(3, 20, 72, 24, 0, &o);     /* partial K step (72 = 4.5 steps of 16) */
    fwd_case(5, 132, 96, 32, 1, &o);    /* odd N4 across three column tiles */
    fwd_case(67, 72, 40, 8, 0, &o);     /* partial M tile, partial N tile */
    o.tile = &T128;
    fwd_case(130, 264, 200, 8, 1, &o);  /* 128x128, BK 8 */
    o.tile = &T64x128;
    fwd_case(70, 132, 48, 48, 0, &o);
    o.tile = &T64x8;
    fwd_case(130, 132, 200, 8, 1, &o);  /* partial K step and tiles, odd N4 */
    o.tile = &T32x64;
    fwd_case(33, 20, 36, 12, 1, &o);    /* 128 invocations */
    o.tile = NULL;
    fwd_case(9, 100, 64, 16, 1, &o);    /* the launcher's tile */
}
END_TEST

START_TEST(fwd_auto_and_many_groups)
{
    rng_seed(103);
    q4vk_linear_opts o = opts(NULL, NULL, 0);
    fwd_case(8, 4104, 64, 32, 1, &o);   /* gemv (M <= 8): 129 workgroups */
    fwd_case(9, 36, 64, 64, 0, &o);     /* tiled from M = 9 */
    fwd_case(300, 1000, 128, 32, 1, &o);/* 5 x 16 tiles */
}
END_TEST

START_TEST(fwd_split)
{
    rng_seed(104);
    /* x rows of 256 bytes and y rows of 160: a 4 KiB limit gives several dispatches,
     * each with its own aligned binding windows. */
    q4vk_linear_opts o = opts(NULL, &T64, 4096);
    fwd_case(100, 40, 64, 16, 1, &o);
    o.tile = &T32x64;
    fwd_case(150, 20, 96, 32, 0, &o);
}
END_TEST

/* Split-K: the depth in slices (a multiple of BK each, the last one short), partial
 * outputs added by linear_splitk_reduce. */
START_TEST(fwd_splitk)
{
    rng_seed(105);
    q4vk_linear_opts o = opts(Q4VK_K_FWD_TILED, &T64, 0);
    o.splits = 3;
    fwd_case(67, 132, 200, 8, 1, &o);   /* slices 80, 80, 40 (a half step); odd N4, bias */
    o.tile = &T128;
    o.splits = 2;
    fwd_case(130, 20, 72, 24, 0, &o);   /* slices 40, 32 at BK 8 */
    o.tile = &T32x64;
    o.splits = 8;
    fwd_case(33, 20, 36, 12, 1, &o);    /* 8 asked, 5 slices of one BK step (the last half) */
    o = opts(NULL, NULL, 0);
    fwd_case(70, 64, 2048, 128, 1, &o); /* the launcher's split of a deep, narrow GEMM */
    o = opts(NULL, &T64, 4096);         /* partials (4 x 1600 bytes) over the limit: unsplit */
    o.splits = 4;
    fwd_case(10, 40, 64, 16, 1, &o);
}
END_TEST

/* The dense path (q4vk_op_linear_dense.c) forced onto small shapes: M % 4 != 0 (the
 * transposed activation's padding), odd N4, partial tiles, many groups, bias, split-K,
 * every tile shape. */
START_TEST(fwd_dense)
{
    rng_seed(106);
    q4vk_linear_opts o = opts(Q4VK_K_TN_TILED, &T64, 0);
    fwd_case(1, 12, 32, 8, 1, &o);      /* one row, padded to 4 */
    fwd_case(67, 132, 200, 8, 0, &o);   /* odd N4, partial tiles, 25 groups */
    o.tile = &T128;
    fwd_case(130, 264, 200, 8, 1, &o);
    o.tile = &T64x128;
    fwd_case(70, 132, 48, 48, 0, &o);
    o.tile = &T32x64;
    fwd_case(33, 20, 36, 12, 1, &o);
    o.tile = &T64;
    o.splits = 3;
    fwd_case(67, 132, 200, 8, 1, &o);   /* split-K, bias added by the reduce */
    o = opts(Q4VK_K_TN_TILED, NULL, 0);
    fwd_case(70, 64, 2048, 128, 1, &o); /* the launcher's tile and split */
}
END_TEST

/* What the dense path needs, in the order checked (pure: no device work). */
START_TEST(dense_fits)
{
    q4vk_device_info info = *q4vk_info(ctx);
    info.max_alloc_bytes = 0;
    info.device_local_bytes = 0;
    ck_assert_ptr_null(q4vk_lin_dense_misfit(&info, true, 4, 16, 32, 2048));
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, true, 4, 16, 32, 256), "x");
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, false, 4, 32, 16, 256), "dout");
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, true, 4, 64, 16, 512), "y");
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, false, 4, 16, 64, 512), "dx");
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, true, 4, 16, 32, 1024),
                     "the dequantized weight");
    /* M = 5 is padded to 8 rows: x 640 bytes, W 512, x^T 1024 */
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, true, 5, 4, 32, 768),
                     "the transposed activation");
    info.max_alloc_bytes = 768;   /* one allocation smaller than a binding */
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, true, 5, 4, 32, 4096),
                     "the transposed activation");
    /* scratch: 512 (W^T) + 1024 (x^T) = 1536 bytes, a quarter of 6144 */
    info.max_alloc_bytes = 0;
    info.device_local_bytes = 6144;
    ck_assert_ptr_null(q4vk_lin_dense_misfit(&info, true, 5, 4, 32, 4096));
    info.device_local_bytes = 6140;
    ck_assert_str_eq(q4vk_lin_dense_misfit(&info, true, 5, 4, 32, 4096), "the scratch");
    /* the choice: from dense_min_m up, where it fits */
    info.device_local_bytes = 0;
    info.dense_min_m = 5;
    ck_assert(q4vk_lin_dense_chosen(&info, true, 5, 4, 32, 4096));
    ck_assert(!q4vk_lin_dense_chosen(&info, true, 4, 4, 32, 4096));
    ck_assert(!q4vk_lin_dense_chosen(&info, true, 5, 4, 32, 768));
}
END_TEST

/* The shared memory a tile needs follows the A layout of its kernel (q4_gemm.glsl),
 * and the picker and the check use it (pure: no device work). */
START_TEST(tile_shared)
{
    const q4vk_gemm_tile big = {128, 128, 16, 8, 8};
    /* A K-major: 2 x (128 rows x 5 vec4 + 16 x 33 vec4 of B); A [depth][rows]: 2 x 2 x 16 x 33 */
    ck_assert_uint_eq(q4vk_gemm_shared_bytes(&big, Q4VK_GEMM_A_ROWS_DEPTH), 37376);
    ck_assert_uint_eq(q4vk_gemm_shared_bytes(&big, Q4VK_GEMM_A_DEPTH_ROWS), 33792);
    q4vk_device_info info = *q4vk_info(ctx);
    info.max_invocations = info.max_group_size[0] = 256;
    info.max_shared_bytes = 36000;   /* between the two */
    ck_assert_uint_eq(q4vk_gemm_pick_tile(&info, 4096, 4096, 16, Q4VK_GEMM_A_DEPTH_ROWS).bk, 16);
    ck_assert_uint_eq(q4vk_gemm_pick_tile(&info, 4096, 4096, 16, Q4VK_GEMM_A_ROWS_DEPTH).bk, 8);
    q4_error e;
    ck_assert_int_eq(q4vk_gemm_check_tile(&info, &big, Q4VK_GEMM_A_DEPTH_ROWS, &e), Q4_OK);
    ck_assert_int_eq(q4vk_gemm_check_tile(&info, &big, Q4VK_GEMM_A_ROWS_DEPTH, &e), Q4_ERR_ARG);
    ck_assert_str_eq(e.msg, "tile 128x128 (BK 16) needs 37376 bytes of shared memory; "
                                "this device allows 36000");
}
END_TEST

/* ---------------- backward ---------------- */

static void bwd_case(int64_t M, int64_t N, int64_t K, int64_t gs, const q4vk_linear_opts *o)
{
    weight W = make_weight(N, K, gs);
    float *d = rand_floats(M * N, 1.0f), *dx = malloc((size_t)(M * K) * 4);
    double *v = malloc((size_t)(M * K) * 8), *bd = malloc((size_t)(M * K) * 8);
    ck_assert(dx && v && bd);
    CK_OK(q4ref_linear_bwd_truth(d, W.w, W.scales, M, N, K, gs, v, bd, &err_));

    q4vk_buffer *bdo = dev_buf(ctx, d, (size_t)(M * N) * 4);
    q4vk_buffer *bw = dev_buf(ctx, W.w_gpu, (size_t)W.words * 4);
    q4vk_buffer *bs = dev_buf(ctx, W.scales, (size_t)W.n_scales * 4);
    q4vk_buffer *bdx = dev_buf(ctx, NULL, (size_t)(M * K) * 4);
    q4vk_linear_bwd_args a = {bdo, bw, bs, bdx, M, N, K, gs};
    CK_OK(q4vk_linear_q4gsw_backward_opts(ctx, &a, o, NULL, &err_));
    dev_get(ctx, bdx, dx, (size_t)(M * K) * 4, "dx");
    double margin = judge_matrix("dx", dx, v, bd, M, K);
    char tn[48];
    printf("linear_q4gsw_backward M=%lld N=%lld K=%lld gs=%lld %s tile %s limit %llu splits %u: "
           "margin %.3g\n", (long long)M, (long long)N, (long long)K, (long long)gs,
           o->variant ? o->variant : "auto", tile_name(o->tile, tn, sizeof tn),
           (unsigned long long)o->max_binding, o->splits, margin);

    q4vk_buffer_destroy(ctx, bdo);
    q4vk_buffer_destroy(ctx, bw);
    q4vk_buffer_destroy(ctx, bs);
    q4vk_buffer_destroy(ctx, bdx);
    free_weight(&W);
    free(d);
    free(dx);
    free(v);
    free(bd);
}

START_TEST(bwd_gemv)
{
    rng_seed(201);
    q4vk_linear_opts o = opts(Q4VK_K_BWD_GEMV, NULL, 0);
    bwd_case(1, 12, 32, 8, &o);         /* odd N4 */
    bwd_case(5, 20, 64, 16, &o);        /* R = 2 (M >= 4), odd N4 */
    bwd_case(3, 1032, 520, 40, &o);     /* many lanes' worth of N, odd N4 */
    bwd_case(8, 264, 4, 4, &o);         /* one k4 row: R = 2 with its second row out */
    bwd_case(4, 40, 44, 4, &o);         /* K4 = 11, odd under R = 2 */
    bwd_case(2, 8, 4100, 20, &o);       /* many workgroups along K */
}
END_TEST

START_TEST(bwd_tiled)
{
    rng_seed(202);
    q4vk_linear_opts o = opts(Q4VK_K_BWD_TILED, &T64, 0);
    bwd_case(1, 12, 32, 8, &o);
    bwd_case(3, 20, 72, 24, &o);        /* depth N = 20: a partial step with padding rows */
    bwd_case(5, 132, 96, 32, &o);
    bwd_case(67, 72, 40, 8, &o);
    o.tile = &T128;
    bwd_case(130, 264, 200, 8, &o);
    o.tile = &T64x128;
    bwd_case(70, 52, 136, 68, &o);
    o.tile = &T64x8;
    bwd_case(130, 132, 200, 8, &o);    /* partial N step (132 = 8.25 x 16), odd N4 */
    o.tile = &T32x64;
    bwd_case(33, 20, 36, 12, &o);
}
END_TEST

START_TEST(bwd_auto_and_split)
{
    rng_seed(203);
    q4vk_linear_opts o = opts(NULL, NULL, 0);
    bwd_case(6, 100, 2048, 64, &o);     /* gemv */
    bwd_case(200, 260, 520, 52, &o);    /* tiled, 4 x 9 tiles */
    o = opts(NULL, &T64, 4096);         /* dout rows 160 bytes, dx rows 256: split */
    bwd_case(100, 40, 64, 16, &o);
}
END_TEST

START_TEST(bwd_splitk)
{
    rng_seed(204);
    q4vk_linear_opts o = opts(Q4VK_K_BWD_TILED, &T64, 0);
    o.splits = 3;
    bwd_case(67, 132, 96, 32, &o);      /* slices 48, 48, 36: the last one ends in padding rows */
    o.tile = &T128;
    o.splits = 2;
    bwd_case(130, 264, 200, 8, &o);
    o.tile = &T32x64;
    o.splits = 5;
    bwd_case(33, 20, 36, 12, &o);       /* 5 asked, 3 slices of one BK step */
    o = opts(NULL, NULL, 0);
    bwd_case(70, 2048, 64, 64, &o);     /* the launcher's split */
}
END_TEST

START_TEST(bwd_dense)
{
    rng_seed(205);
    q4vk_linear_opts o = opts(Q4VK_K_TN_TILED, &T64, 0);
    bwd_case(1, 12, 32, 8, &o);
    bwd_case(3, 20, 72, 24, &o);        /* depth N = 20: a partial step */
    bwd_case(67, 132, 96, 32, &o);      /* odd N4 as depth, partial tiles */
    o.tile = &T128;
    bwd_case(130, 264, 200, 8, &o);
    o.tile = &T32x64;
    bwd_case(33, 20, 36, 12, &o);
    o.tile = &T64;
    o.splits = 3;
    bwd_case(67, 132, 96, 32, &o);      /* split over N */
    o = opts(Q4VK_K_TN_TILED, NULL, 0);
    bwd_case(70, 2048, 64, 64, &o);     /* the launcher's split */
}
END_TEST

/* ---------------- dW ---------------- */

static void dw_case(int64_t M, int64_t N, int64_t K, const q4vk_linear_opts *o)
{
    float *d = rand_floats(M * N, 1.0f), *x = rand_floats(M * K, 1.0f);
    float *dw = malloc((size_t)(N * K) * 4);
    double *v = malloc((size_t)(N * K) * 8), *bd = malloc((size_t)(N * K) * 8);
    ck_assert(dw && v && bd);
    CK_OK(q4ref_linear_dw_truth(d, x, M, N, K, v, bd, &err_));

    q4vk_buffer *bdo = dev_buf(ctx, d, (size_t)(M * N) * 4);
    q4vk_buffer *bx = dev_buf(ctx, x, (size_t)(M * K) * 4);
    q4vk_buffer *bdw = dev_buf(ctx, NULL, (size_t)(N * K) * 4);
    q4vk_dw_args a = {bdo, bx, bdw, M, N, K};
    CK_OK(q4vk_linear_dw_opts(ctx, &a, o, NULL, &err_));
    dev_get(ctx, bdw, dw, (size_t)(N * K) * 4, "dW");
    double margin = judge_matrix("dW", dw, v, bd, N, K);
    char tn[48];
    printf("linear_dW M=%lld N=%lld K=%lld tile %s: margin %.3g\n", (long long)M, (long long)N,
           (long long)K, tile_name(o->tile, tn, sizeof tn), margin);

    q4vk_buffer_destroy(ctx, bdo);
    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bdw);
    free(d);
    free(x);
    free(dw);
    free(v);
    free(bd);
}

START_TEST(dw_shapes)
{
    rng_seed(301);
    q4vk_linear_opts o = opts(NULL, &T64, 0);
    dw_case(1, 12, 32, &o);             /* depth 1 */
    dw_case(3, 20, 72, &o);             /* depth below one step */
    dw_case(77, 132, 96, &o);           /* partial depth step, partial tiles */
    o.tile = &T128;
    dw_case(37, 136, 260, &o);
    o.tile = &T64x128;
    dw_case(50, 68, 132, &o);
    o.tile = &T32x64;
    dw_case(17, 36, 20, &o);
    o.tile = NULL;
    dw_case(300, 520, 264, &o);         /* the launcher's tile, 9 x 5 tiles */
}
END_TEST

/* ---------------- dequantize ---------------- */

static void dequant_case(int64_t N, int64_t K, int64_t gs)
{
    weight W = make_weight(N, K, gs);
    float *got = malloc((size_t)(N * K) * 4), *ref = malloc((size_t)(N * K) * 4);
    double *v = malloc((size_t)(N * K) * 8), *bd = malloc((size_t)(N * K) * 8);
    ck_assert(got && ref && v && bd);
    CK_OK(q4ref_dequant_truth(W.w, W.scales, N, K, gs, v, bd, &err_));
    CK_OK(q4ref_dequant_w4x8(W.w, W.scales, N, K, gs, ref, &err_));

    q4vk_buffer *bw = dev_buf(ctx, W.w_gpu, (size_t)W.words * 4);
    q4vk_buffer *bs = dev_buf(ctx, W.scales, (size_t)W.n_scales * 4);
    q4vk_buffer *bo = dev_buf(ctx, NULL, (size_t)(N * K) * 4);
    q4vk_dequant_args a = {bw, bs, bo, N, K, gs};
    CK_OK(q4vk_dequantize(ctx, &a, NULL, &err_));
    dev_get(ctx, bo, got, (size_t)(N * K) * 4, "Wf");
    double margin = judge_matrix("Wf", got, v, bd, N, K);
    /* One rounding of an exact product: the fp32 reference's value, bit for bit. */
    for (int64_t i = 0; i < N * K; i++)
        if (memcmp(&got[i], &ref[i], 4))
            ck_abort_msg("Wf[%lld][%lld] = %.9g, the fp32 reference has %.9g",
                         (long long)(i / K), (long long)(i % K), got[i], ref[i]);
    printf("dequantize N=%lld K=%lld gs=%lld: margin %.3g\n", (long long)N, (long long)K,
           (long long)gs, margin);

    q4vk_buffer_destroy(ctx, bw);
    q4vk_buffer_destroy(ctx, bs);
    q4vk_buffer_destroy(ctx, bo);
    free_weight(&W);
    free(got);
    free(ref);
    free(v);
    free(bd);
}

START_TEST(dequant_shapes)
{
    rng_seed(401);
    dequant_case(12, 40, 8);
    dequant_case(20, 64, 64);
    dequant_case(8, 4, 4);
    dequant_case(1000, 520, 40);        /* 254 workgroups */
}
END_TEST

/* ---------------- bad arguments ---------------- */

/* A shape the contract rejects: each launcher gives the reference's status and sentence. */
static void bad_shape(int64_t M, int64_t N, int64_t K, int64_t gs, q4vk_buffer *any)
{
    q4_error want = {0}, got = {0};
    float f = 0;
    uint32_t w = 0;
    q4_status st_ref = q4ref_linear_fwd(&f, &w, &f, NULL, M, N, K, gs, &f, &want);
    ck_assert_int_eq(st_ref, Q4_ERR_ARG);

    q4vk_linear_args fa = {any, any, any, NULL, any, M, N, K, gs};
    ck_assert_int_eq(q4vk_linear_q4gsw(ctx, &fa, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    q4vk_linear_bwd_args ba = {any, any, any, any, M, N, K, gs};
    ck_assert_int_eq(q4vk_linear_q4gsw_backward(ctx, &ba, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    if (M >= 1) {
        q4vk_dequant_args da = {any, any, any, N, K, gs};
        ck_assert_int_eq(q4ref_dequant_w4x8(&w, &f, N, K, gs, &f, &want), Q4_ERR_ARG);
        ck_assert_int_eq(q4vk_dequantize(ctx, &da, NULL, &got), Q4_ERR_ARG);
        ck_assert_str_eq(got.msg, want.msg);
    }
}

/* A scale out of contract (SPEC §1): forward, backward and dequantize each give the
 * reference's status and sentence, though the scales live on the device. */
static void bad_scale(uint32_t bits, const char *needle)
{
    enum { M = 4, N = 16, K = 32, GS = 8, NS = (K / GS) * N };
    float s[NS], wf[N * K];
    uint32_t w[(K / 4) * (N / 8) * 4] = {0};
    q4_error want = {0}, got = {0};
    for (int i = 0; i < NS; i++)
        s[i] = 0.5f;
    memcpy(&s[37], &bits, 4);
    ck_assert_int_eq(q4ref_dequant_w4x8(w, s, N, K, GS, wf, &want), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(want.msg, needle));
    q4vk_buffer *any = raw_buf(ctx, 1 << 12), *bs = dev_buf(ctx, s, sizeof s);
    q4vk_buffer *out = raw_buf(ctx, 1 << 12);
    q4vk_linear_args fa = {any, any, bs, NULL, out, M, N, K, GS};
    ck_assert_int_eq(q4vk_linear_q4gsw(ctx, &fa, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    q4vk_linear_bwd_args ba = {any, any, bs, out, M, N, K, GS};
    ck_assert_int_eq(q4vk_linear_q4gsw_backward(ctx, &ba, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    q4vk_dequant_args da = {any, bs, out, N, K, GS};
    ck_assert_int_eq(q4vk_dequantize(ctx, &da, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    q4vk_buffer_destroy(ctx, any);
    q4vk_buffer_destroy(ctx, bs);
    q4vk_buffer_destroy(ctx, out);
}

START_TEST(bad_scales)
{
    bad_scale(0x00000001u, "scales[37] = 1.4013e-45 is denormal");   /* smallest denormal */
    bad_scale(0x807fffffu, "is denormal; a scale must be 0 or at least 2^-126");
    bad_scale(0x7f800000u, "scales[37] = inf must be finite");
    bad_scale(0xff800000u, "scales[37] = -inf must be finite");
    bad_scale(0x7fc00000u, "scales[37] = nan must be finite");
}
END_TEST

START_TEST(bad_args)
{
    q4vk_buffer *one = raw_buf(ctx, 64), *big = raw_buf(ctx, 1 << 16);
    bad_shape(4, 10, 32, 8, one);       /* N % 4 != 0 */
    bad_shape(4, 12, 40, 16, one);      /* K % gs != 0 */
    bad_shape(0, 12, 32, 8, one);       /* M = 0 */
    bad_shape(4, 12, 30, 6, one);       /* K, gs not multiples of 4 */
    bad_shape(4, 12, 32, 0, one);       /* gs = 0 */

    /* dW: the reference's sentence too */
    {
        q4_error want = {0}, got = {0};
        float f = 0;
        ck_assert_int_eq(q4ref_linear_dw(&f, &f, 3, 6, 8, &f, &want), Q4_ERR_ARG);
        q4vk_dw_args a = {one, one, big, 3, 6, 8};
        ck_assert_int_eq(q4vk_linear_dw(ctx, &a, NULL, &got), Q4_ERR_ARG);
        ck_assert_str_eq(got.msg, want.msg);
        a.N = 8;
        a.M = 0;
        ck_assert_int_eq(q4ref_linear_dw(&f, &f, 0, 8, 8, &f, &want), Q4_ERR_ARG);
        ck_assert_int_eq(q4vk_linear_dw(ctx, &a, NULL, &got), Q4_ERR_ARG);
        ck_assert_str_eq(got.msg, want.msg);
    }

    /* NULL buffers, named */
    q4vk_linear_args fa = {big, big, big, NULL, NULL, 4, 16, 32, 8};
    CK_FAILS(Q4_ERR_ARG, "y is NULL", q4vk_linear_q4gsw(ctx, &fa, NULL, &err_));
    fa.y = raw_buf(ctx, 4 * 16 * 4);
    fa.x = NULL;
    CK_FAILS(Q4_ERR_ARG, "x is NULL", q4vk_linear_q4gsw(ctx, &fa, NULL, &err_));
    fa.x = big;
    /* too small: x needs 4*32*4 = 512 bytes, one holds 64 */
    fa.x = one;
    CK_FAILS(Q4_ERR_ARG, "buffer x holds 64 bytes; the shape needs 512",
             q4vk_linear_q4gsw(ctx, &fa, NULL, &err_));
    fa.x = big;
    fa.bias = one;   /* 64 bytes = 16 floats: enough */
    CK_OK(q4vk_linear_q4gsw(ctx, &fa, NULL, &err_));
    fa.N = 20;       /* bias now needs 80 bytes, y 320 */
    CK_FAILS(Q4_ERR_ARG, "buffer bias holds 64 bytes; the shape needs 80",
             q4vk_linear_q4gsw(ctx, &fa, NULL, &err_));
    fa.N = 16;
    q4vk_buffer *y_small = fa.y;
    fa.y = fa.x;
    CK_FAILS(Q4_ERR_ARG, "y and x overlap", q4vk_linear_q4gsw(ctx, &fa, NULL, &err_));
    fa.y = y_small;

    /* the dense variant where its operands do not fit: named */
    {
        q4vk_linear_opts od = opts(Q4VK_K_TN_TILED, NULL, 256);
        q4vk_linear_args a4 = fa;
        a4.M = 4;
        a4.K = 32;
        a4.gs = 8;
        CK_FAILS(Q4_ERR_RESOURCE, "variant linear_tn_tiled cannot run M = 4, N = 16, K = 32 on "
                                  "this device: x does not fit",
                 q4vk_linear_q4gsw_opts(ctx, &a4, &od, NULL, &err_));
    }

    /* the tensor-core variant: Q4_ERR_UNSUPPORTED naming why on a device without int8
     * cooperative matrices (lavapipe); where the device has them, a gs that is not a
     * multiple of 64 is named instead */
    {
        q4vk_linear_opts om = opts(Q4VK_K_FWD_MMA, NULL, 0);
        q4vk_linear_args a16 = fa;
        a16.M = 4;
        a16.K = 32;
        a16.gs = 8;
        if (q4vk_info(ctx)->coopmat_s8)
            CK_FAILS(Q4_ERR_RESOURCE, "variant linear_q4gsw_mma cannot run M = 4, N = 16, "
                                      "K = 32, gs = 8 on this device: gs is not a multiple of 64",
                     q4vk_linear_q4gsw_opts(ctx, &a16, &om, NULL, &err_));
        else
            CK_FAILS(Q4_ERR_UNSUPPORTED, "variant linear_q4gsw_mma cannot run M = 4, N = 16, "
                                         "K = 32, gs = 8 on this device: the device has no "
                                         "int8 cooperative matrices",
                     q4vk_linear_q4gsw_opts(ctx, &a16, &om, NULL, &err_));
    }

    /* variants: unknown, and gemv beyond M = 8 */
    q4vk_linear_opts o = opts("linear_q4gsw_bogus", NULL, 0);
    CK_FAILS(Q4_ERR_ARG, "has no variant linear_q4gsw_bogus",
             q4vk_linear_q4gsw_opts(ctx, &fa, &o, NULL, &err_));
    fa.M = 9;
    q4vk_buffer_destroy(ctx, fa.y);
    fa.y = raw_buf(ctx, 9 * 16 * 4);
    o.variant = Q4VK_K_FWD_GEMV;
    CK_FAILS(Q4_ERR_ARG, "handles M <= 8, got M = 9",
             q4vk_linear_q4gsw_opts(ctx, &fa, &o, NULL, &err_));
    /* a malformed tile */
    static const q4vk_gemm_tile bad_tile = {64, 64, 12, 4, 4};
    o = opts(Q4VK_K_FWD_TILED, &bad_tile, 0);
    CK_FAILS(Q4_ERR_ARG, "is malformed", q4vk_linear_q4gsw_opts(ctx, &fa, &o, NULL, &err_));

    /* backward: NULL and too small */
    q4vk_linear_bwd_args ba = {big, big, big, NULL, 4, 16, 32, 8};
    CK_FAILS(Q4_ERR_ARG, "dx is NULL", q4vk_linear_q4gsw_backward(ctx, &ba, NULL, &err_));
    ba.dx = one;
    CK_FAILS(Q4_ERR_ARG, "buffer dx holds 64 bytes; the shape needs 512",
             q4vk_linear_q4gsw_backward(ctx, &ba, NULL, &err_));
    ba.dx = NULL;
    ba.scales = NULL;
    CK_FAILS(Q4_ERR_ARG, "scales is NULL", q4vk_linear_q4gsw_backward(ctx, &ba, NULL, &err_));

    /* dW: too small, and a binding above the limit */
    q4vk_dw_args da = {big, big, one, 4, 16, 32};
    CK_FAILS(Q4_ERR_ARG, "buffer dw holds 64 bytes; the shape needs 2048",
             q4vk_linear_dw(ctx, &da, NULL, &err_));
    da.dw = fa.y;    /* 576 bytes */
    da.M = 1;        /* dout 16 bytes, x 144, dw 576 */
    da.N = 4;
    da.K = 36;
    o = opts(NULL, NULL, 512);
    CK_FAILS(Q4_ERR_RESOURCE, "dw needs 576 bytes in one binding; this device "
             "allows 512 bytes (maxStorageBufferRange)",
             q4vk_linear_dw_opts(ctx, &da, &o, NULL, &err_));
    /* forward weight above the limit: never split */
    fa.M = 4;
    o = opts(NULL, NULL, 128);
    CK_FAILS(Q4_ERR_RESOURCE, "w needs 256 bytes", q4vk_linear_q4gsw_opts(ctx, &fa, &o, NULL, &err_));

    /* dequantize: NULL and too small */
    q4vk_dequant_args qa = {big, big, NULL, 16, 32, 8};
    CK_FAILS(Q4_ERR_ARG, "out is NULL", q4vk_dequantize(ctx, &qa, NULL, &err_));
    qa.out = one;
    CK_FAILS(Q4_ERR_ARG, "buffer out holds 64 bytes; the shape needs 2048",
             q4vk_dequantize(ctx, &qa, NULL, &err_));

    q4vk_buffer_destroy(ctx, fa.y);
    q4vk_buffer_destroy(ctx, one);
    q4vk_buffer_destroy(ctx, big);
}
END_TEST

/* ---------------- main ---------------- */

int main(void)
{
    const int rc = gpu_test_open(&ctx);
    if (rc)
        return rc;
    Suite *s = suite_create("linear");
    ADD(s, fwd_gemv);
    ADD(s, fwd_tiled);
    ADD(s, fwd_auto_and_many_groups);
    ADD(s, fwd_split);
    ADD(s, fwd_splitk);
    ADD(s, fwd_dense);
    ADD(s, dense_fits);
    ADD(s, tile_shared);
    ADD(s, bwd_gemv);
    ADD(s, bwd_tiled);
    ADD(s, bwd_auto_and_split);
    ADD(s, bwd_splitk);
    ADD(s, bwd_dense);
    ADD(s, dw_shapes);
    ADD(s, dequant_shapes);
    ADD(s, bad_args);
    ADD(s, bad_scales);
    return gpu_test_run(srunner_create(s), ctx);
}
