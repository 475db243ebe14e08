/* test_gpu_elementwise.c: GPU tests of fused_ce, adamw_step and q4gsw_requant (Check).
 *
 * One program, one suite per op; `test_gpu_elementwise fused_ce|adamw|requant` runs
 * one suite (ctest registers each as its own test). Every result is judged against
 * the fp64 truth of q4ref with its per-element bounds (SPEC §3); requant codes must
 * be exact (strict mode: our kernels correct the division's rounding). Each output
 * buffer is prefilled with a sentinel and followed by guard words, so a word not
 * written or written out of range is caught. The split paths (several dispatches over
 * aligned binding windows) are driven through the launchers' _limit entry points
 * with a small binding limit. Exits 77 only when there is no Vulkan device at all. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "q4ref.h"
#include "q4vk.h"
#include "q4vk_op_adamw_step.h"
#include "q4vk_op_fused_ce.h"
#include "q4vk_op_q4gsw_requant.h"

static q4vk_context *ctx;

/* ---------------- fused_ce ---------------- */

/* Runs fused_ce on R x V logits (uniform in [-amp, amp)) with the given labels through
 * a binding limit (0 = the device's), and judges loss and dlogits against the truth. */
static void ce_case(int64_t R, int64_t V, const int32_t *labels, float amp, uint64_t limit)
{
    const size_t n = (size_t)(R * V);
    float *x = malloc(n * 4), *dl = malloc(n * 4), loss = 0;
    double *dv = malloc(n * 8), *db = malloc(n * 8), lv, lb;
    int64_t valid = 0;
    ck_assert(x && dl && dv && db);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_uniform(-amp, amp);
    for (int64_t r = 0; r < R; r++)
        valid += labels[r] >= 0;
    const float nv = valid ? (float)valid : 1.0f;

    q4vk_buffer *bx = dev_buf(ctx, x, n * 4), *bl = dev_buf(ctx, labels, (size_t)R * 4);
    q4vk_buffer *bloss = dev_buf(ctx, NULL, 4), *bd = dev_buf(ctx, NULL, n * 4);
    q4vk_ce_args a = {bx, bl, bloss, bd, R, V, nv};
    CK_OK(limit ? q4vk_fused_ce_limit(ctx, &a, limit, NULL, &err_)
                : q4vk_fused_ce(ctx, &a, NULL, &err_));
    dev_get(ctx, bd, dl, n * 4, "dlogits");
    dev_get(ctx, bloss, &loss, 4, "loss");

    CK_OK(q4ref_fused_ce_truth(x, labels, R, V, nv, &lv, &lb, dv, db, &err_));
    judge("dlogits", dl, dv, db, (int64_t)n);
    judge("loss", &loss, &lv, &lb, 1);
    for (int64_t r = 0; r < R; r++)   /* masked rows: exact zeros */
        for (int64_t j = 0; labels[r] < 0 && j < V; j++)
            if (dl[r * V + j] != 0.0f || signbit(dl[r * V + j]))
                ck_abort_msg("masked row %lld: dlogits[%lld] = %g", (long long)r, (long long)j,
                             dl[r * V + j]);
    if (!valid)
        ck_assert_msg(loss == 0.0f, "all rows masked: loss = %g", loss);

    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bloss);
    q4vk_buffer_destroy(ctx, bd);
    free(x), free(dl), free(dv), free(db);
}

static int32_t *labels_mixed(int64_t R, int64_t V)
{
    int32_t *l = malloc((size_t)R * 4);
    ck_assert_ptr_nonnull(l);
    for (int64_t r = 0; r < R; r++) {
        switch (r % 5) {
        case 0: l[r] = -100; break;          /* ignore index */
        case 1: l[r] = (int32_t)(V - 1); break;
        case 2: l[r] = 0; break;
        default: l[r] = (int32_t)(rng_next() % (uint64_t)V);
        }
    }
    return l;
}

START_TEST(ce_masked_and_unaligned)
{
    /* V % 4 != 0: rows start at every alignment, so head, vec4 body and tail all run */
    rng_seed(1);
    int32_t *l = labels_mixed(23, 37);
    ce_case(23, 37, l, 8.0f, 0);
    free(l);
    int32_t l1[3] = {-1, 1, 2};
    ce_case(3, 1, (int32_t[]){-1, 0, 0}, 3.0f, 0);   /* V = 1: softmax is 1, gradient 0 */
    ce_case(3, 3, l1, 3.0f, 0);
    l = labels_mixed(6, 3001);         /* mid-size rows: workgroups of 256 and 512 */
    ce_case(6, 3001, l, 10.0f, 0);
    ce_case(6, 5000, l, 10.0f, 0);
    free(l);
}
END_TEST

START_TEST(ce_all_masked)
{
    rng_seed(2);
    int32_t l[6] = {-1, -100, -7, -1, INT32_MIN, -2};
    ce_case(6, 64, l, 5.0f, 0);
    ce_case(6, 9, l, 5.0f, 0);
}
END_TEST

START_TEST(ce_large_vocab)
{
    rng_seed(3);
    int32_t l[3] = {128255, 5, -1};
    ce_case(3, 128256, l, 20.0f, 0);
}
END_TEST

START_TEST(ce_extremes)
{
    /* large logits (exp would overflow without the max shift) and a constant row */
    rng_seed(4);
    const int64_t R = 3, V = 1000;
    float *x = malloc(R * V * 4), *dl = malloc(R * V * 4), loss;
    double *dv = malloc(R * V * 8), *db = malloc(R * V * 8), lv, lb;
    int32_t l[3] = {17, 999, 0};
    ck_assert(x && dl && dv && db);
    for (int64_t j = 0; j < V; j++) {
        x[j] = rng_uniform(-1.0f, 1.0f) * 3000.0f;
        x[V + j] = 1.5f;
        x[2 * V + j] = rng_uniform(80.0f, 100.0f);
    }
    q4vk_buffer *bx = dev_buf(ctx, x, R * V * 4), *bl = dev_buf(ctx, l, R * 4);
    q4vk_buffer *bloss = dev_buf(ctx, NULL, 4), *bd = dev_buf(ctx, NULL, R * V * 4);
    q4vk_ce_args a = {bx, bl, bloss, bd, R, V, 3.0f};
    CK_OK(q4vk_fused_ce(ctx, &a, NULL, &err_));
    dev_get(ctx, bd, dl, R * V * 4, "dlogits");
    dev_get(ctx, bloss, &loss, 4, "loss");
    CK_OK(q4ref_fused_ce_truth(x, l, R, V, 3.0f, &lv, &lb, dv, db, &err_));
    judge("dlogits", dl, dv, db, R * V);
    judge("loss", &loss, &lv, &lb, 1);
    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bloss);
    q4vk_buffer_destroy(ctx, bd);
    free(x), free(dl), free(dv), free(db);
}
END_TEST

START_TEST(ce_many_rows)
{
    /* more rows than 65535 workgroups: the grid is folded over x and y */
    rng_seed(5);
    int32_t *l = labels_mixed(70001, 6);
    ce_case(70001, 6, l, 4.0f, 0);
    free(l);
}
END_TEST

START_TEST(ce_split_rows)
{
    /* a 2 KiB binding limit: rows go in several dispatches, windows at every alignment */
    rng_seed(6);
    int32_t *l = labels_mixed(41, 37);
    ce_case(41, 37, l, 6.0f, 2048);
    free(l);
    l = labels_mixed(9, 120);
    ce_case(9, 120, l, 6.0f, 512);   /* one row per dispatch */
    free(l);
}
END_TEST

START_TEST(ce_label_out_of_range_is_rejected)
{
    /* SPEC §2: a label >= V is rejected by every host entry point, the launcher too
     * (it downloads the labels), with the reference's sentence; nothing runs */
    int32_t l[3] = {-1, 39, 40};
    float x[3 * 40] = {0}, dl[3 * 40], loss;
    q4_error want = {0}, got = {0};
    ck_assert_int_eq(q4ref_fused_ce(x, l, 3, 40, 1.0f, &loss, dl, &want), Q4_ERR_ARG);
    ck_assert_str_eq(want.msg, "labels[2] = 40 is out of range: expected a class below V = 40 "
                               "or a negative ignore index");
    q4vk_buffer *bx = dev_buf(ctx, x, sizeof x), *bl = dev_buf(ctx, l, sizeof l);
    q4vk_buffer *bloss = dev_buf(ctx, NULL, 4), *bd = dev_buf(ctx, NULL, sizeof dl);
    q4vk_ce_args a = {bx, bl, bloss, bd, 3, 40, 1.0f};
    ck_assert_int_eq(q4vk_fused_ce(ctx, &a, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    a.V = 41;   /* now every label is in range */
    q4vk_buffer_destroy(ctx, bx);
    bx = dev_buf(ctx, NULL, 3 * 41 * 4);
    q4vk_buffer_destroy(ctx, bd);
    bd = dev_buf(ctx, NULL, 3 * 41 * 4);
    a.logits = bx, a.dlogits = bd;
    CK_OK(q4vk_fused_ce(ctx, &a, NULL, &err_));
    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bloss);
    q4vk_buffer_destroy(ctx, bd);
}
END_TEST

START_TEST(ce_scratch_alloc_fails)
{
    /* the launcher's scratch buffer (per-row losses) is the 5th allocation of a fresh
     * context: its failure comes back as the runtime's error, and the context and
     * the launcher still work afterwards */
    q4vk_context *main_ctx = ctx;
    q4vk_options opt = {0};
    q4_error err = {0};
    opt.faults.fail_alloc_at = 5;
    ck_assert_msg(q4vk_create(&opt, &ctx, &err) == Q4_OK, "%s", err.msg);
    float x[2 * 8] = {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, -8}, dl[16], loss;
    int32_t l[2] = {3, 0};
    double dv[16], db[16], lv, lb;
    q4vk_buffer *bx = raw_buf(ctx, sizeof x), *bl = raw_buf(ctx, sizeof l), *bloss = raw_buf(ctx, 4);
    q4vk_buffer *bd = raw_buf(ctx, sizeof dl);
    CK_OK(q4vk_upload(ctx, bx, 0, x, sizeof x, &err_));
    CK_OK(q4vk_upload(ctx, bl, 0, l, sizeof l, &err_));
    q4vk_ce_args a = {bx, bl, bloss, bd, 2, 8, 2.0f};
    CK_FAILS(Q4_ERR_RESOURCE, "injected fault at allocation 5", q4vk_fused_ce(ctx, &a, NULL, &err_));
    CK_OK(q4vk_fused_ce(ctx, &a, NULL, &err_));
    CK_OK(q4vk_download(ctx, bd, 0, dl, sizeof dl, &err_));
    CK_OK(q4vk_download(ctx, bloss, 0, &loss, 4, &err_));
    CK_OK(q4ref_fused_ce_truth(x, l, 2, 8, 2.0f, &lv, &lb, dv, db, &err_));
    judge("dlogits", dl, dv, db, 16);
    judge("loss", &loss, &lv, &lb, 1);
    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bloss);
    q4vk_buffer_destroy(ctx, bd);
    q4vk_destroy(ctx);
    ctx = main_ctx;
}
END_TEST

START_TEST(ce_bad_args)
{
    q4vk_buffer *bx = raw_buf(ctx, 40 * 4), *bl = raw_buf(ctx, 4 * 4);
    q4vk_buffer *bloss = raw_buf(ctx, 4), *bd = raw_buf(ctx, 40 * 4);
    q4vk_buffer *small = raw_buf(ctx, 4);
    q4vk_ce_args a = {bx, bl, bloss, bd, 4, 10, 2.0f}, b;
    b = a, b.logits = NULL;
    CK_FAILS(Q4_ERR_ARG, "logits is NULL; expected a buffer", q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.loss = NULL;
    CK_FAILS(Q4_ERR_ARG, "loss is NULL", q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.R = 5;   /* every buffer is now short by a row; the first named is logits */
    CK_FAILS(Q4_ERR_ARG, "buffer logits holds", q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.dlogits = small;
    CK_FAILS(Q4_ERR_ARG, "buffer dlogits holds 4 bytes; the shape needs 160",
             q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.V = 0;
    CK_FAILS(Q4_ERR_ARG, "V = 0 must be at least 1", q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.R = -1;
    CK_FAILS(Q4_ERR_ARG, "R = -1 must be at least 1", q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.n_valid = 0;
    CK_FAILS(Q4_ERR_ARG, "n_valid = 0 must be a finite number greater than 0",
             q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.n_valid = NAN;
    CK_FAILS(Q4_ERR_ARG, "n_valid", q4vk_fused_ce(ctx, &b, NULL, &err_));
    b = a, b.dlogits = bx;
    CK_FAILS(Q4_ERR_ARG, "dlogits and logits overlap", q4vk_fused_ce(ctx, &b, NULL, &err_));
    CK_FAILS(Q4_ERR_ARG, "args is NULL", q4vk_fused_ce(ctx, NULL, NULL, &err_));
    CK_FAILS(Q4_ERR_ARG, "ctx is NULL", q4vk_fused_ce(NULL, &a, NULL, &err_));
    /* one row above the binding limit cannot be split */
    CK_FAILS(Q4_ERR_RESOURCE, "maxStorageBufferRange", q4vk_fused_ce_limit(ctx, &a, 32, NULL, &err_));
    q4vk_buffer_destroy(ctx, bx);
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bloss);
    q4vk_buffer_destroy(ctx, bd);
    q4vk_buffer_destroy(ctx, small);
}
END_TEST

/* ---------------- adamw_step ---------------- */

/* `steps` AdamW steps on numel elements; each step's GPU result is judged against the
 * truth of that step from the GPU's previous state. limit 0: the device's binding limit. */
static void adamw_case(int64_t numel, float wd, int steps, uint64_t limit)
{
    const size_t n = (size_t)numel;
    float *p = malloc(n * 4), *g = malloc(n * 4), *m = malloc(n * 4), *v = malloc(n * 4);
    double *tv[6];
    ck_assert(p && g && m && v);
    for (int i = 0; i < 6; i++)
        ck_assert_ptr_nonnull(tv[i] = malloc(n * 8));
    for (size_t i = 0; i < n; i++) {
        p[i] = rng_uniform(-1, 1);
        m[i] = 0;
        v[i] = 0;
    }
    q4vk_buffer *bp = dev_buf(ctx, p, n * 4), *bg = dev_buf(ctx, NULL, n * 4);
    q4vk_buffer *bm = dev_buf(ctx, m, n * 4), *bv = dev_buf(ctx, v, n * 4);
    const float b1 = 0.9f, b2 = 0.999f;
    for (int t = 1; t <= steps; t++) {
        /* gradients over many magnitudes, some exactly zero */
        for (size_t i = 0; i < n; i++)
            g[i] = i % 17 == 3 ? 0.0f : rng_uniform(-1, 1) * ldexpf(1.0f, (int)(rng_next() % 20) - 10);
        CK_OK(q4vk_upload(ctx, bg, 0, g, n * 4, &err_));
        q4ref_adamw_hyper h = {1e-3f, b1, b2, 1e-8f, wd, 1.0f - powf(b1, (float)t),
                               1.0f - powf(b2, (float)t)};
        CK_OK(q4ref_adamw_truth(p, g, m, v, numel, &h, tv[0], tv[1], tv[2], tv[3], tv[4], tv[5],
                                &err_));
        q4vk_adamw_args a = {bp, bg, bm, bv, numel, h.lr, h.beta1, h.beta2, h.eps, h.wd,
                             h.bc1, h.bc2};
        CK_OK(limit ? q4vk_adamw_step_limit(ctx, &a, limit, NULL, &err_)
                    : q4vk_adamw_step(ctx, &a, NULL, &err_));
        dev_get(ctx, bp, p, n * 4, "param");
        dev_get(ctx, bm, m, n * 4, "m");
        dev_get(ctx, bv, v, n * 4, "v");
        judge("param", p, tv[0], tv[1], numel);
        judge("m", m, tv[2], tv[3], numel);
        judge("v", v, tv[4], tv[5], numel);
    }
    q4vk_buffer_destroy(ctx, bp);
    q4vk_buffer_destroy(ctx, bg);
    q4vk_buffer_destroy(ctx, bm);
    q4vk_buffer_destroy(ctx, bv);
    for (int i = 0; i < 6; i++)
        free(tv[i]);
    free(p), free(g), free(m), free(v);
}

START_TEST(adamw_steps)
{
    rng_seed(11);
    adamw_case(1003, 0.01f, 4, 0);   /* weight decay on, numel % 4 == 3 */
    adamw_case(1000, 0.0f, 4, 0);    /* off, whole vec4 only */
    adamw_case(1, 0.1f, 2, 0);       /* the scalar tail alone */
    adamw_case(6, 0.1f, 2, 0);
}
END_TEST

START_TEST(adamw_many_groups)
{
    rng_seed(12);
    adamw_case((int64_t)65536 * 4 * 4 + 5, 0.01f, 1, 0);   /* 1M+ elements, > 1000 groups */
}
END_TEST

START_TEST(adamw_split)
{
    rng_seed(13);
    adamw_case(10007, 0.01f, 2, 4096);   /* 10 dispatches of 1024 floats, then a tail */
    adamw_case(999, 0.0f, 2, 1000);      /* limit not a multiple of the alignment */
}
END_TEST

START_TEST(adamw_bad_args)
{
    q4vk_buffer *b[4], *small = raw_buf(ctx, 8);
    for (int i = 0; i < 4; i++)
        b[i] = raw_buf(ctx, 40);
    q4vk_adamw_args a = {b[0], b[1], b[2], b[3], 10, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 0.1f, 0.001f};
    q4vk_adamw_args c;
    c = a, c.bc1 = 0;
    CK_FAILS(Q4_ERR_ARG, "bc1 = 1 - beta1^t must be non-zero", q4vk_adamw_step(ctx, &c, NULL, &err_));
    c = a, c.numel = 0;
    CK_FAILS(Q4_ERR_ARG, "numel = 0 must be at least 1", q4vk_adamw_step(ctx, &c, NULL, &err_));
    c = a, c.lr = INFINITY;
    CK_FAILS(Q4_ERR_ARG, "lr = inf must be finite", q4vk_adamw_step(ctx, &c, NULL, &err_));
    c = a, c.grad = NULL;
    CK_FAILS(Q4_ERR_ARG, "grad is NULL; expected a buffer", q4vk_adamw_step(ctx, &c, NULL, &err_));
    c = a, c.v = small;
    CK_FAILS(Q4_ERR_ARG, "buffer v holds 8 bytes; the shape needs 40",
             q4vk_adamw_step(ctx, &c, NULL, &err_));
    c = a, c.m = c.param;
    CK_FAILS(Q4_ERR_ARG, "param and m overlap", q4vk_adamw_step(ctx, &c, NULL, &err_));
    CK_FAILS(Q4_ERR_ARG, "args is NULL", q4vk_adamw_step(ctx, NULL, NULL, &err_));
    for (int i = 0; i < 4; i++)
        q4vk_buffer_destroy(ctx, b[i]);
    q4vk_buffer_destroy(ctx, small);
}
END_TEST

/* ---------------- q4gsw_requant ---------------- */

/* Runs requant into both layouts (limit 0: the device's binding limit) and checks the
 * codes exactly against the truth's exact code (strict) or, when !strict, against
 * code or alt; W_4X8 must equal the reference packing word for word, padding words
 * included, and flat byte for byte. Returns the number of non-exact (alt) codes. */
static int64_t requant_case(const float *lat, const float *sc, int64_t N, int64_t K, int64_t gs,
                            int strict, uint64_t limit)
{
    const int64_t nw = q4_w4x8_words(N, K), nf = q4_flat_bytes(N, K), ns = q4_scales_count(N, K, gs);
    uint8_t *code = malloc((size_t)(N * K)), *alt = malloc((size_t)(N * K));
    uint8_t *got = malloc((size_t)(N * K)), *gotf = malloc((size_t)(N * K)), *flat = malloc((size_t)nf);
    uint8_t *want_flat = malloc((size_t)nf);
    uint32_t *w = malloc((size_t)nw * 4), *want_w = malloc((size_t)nw * 4);
    int64_t n_alt = 0;
    ck_assert(code && alt && got && gotf && flat && want_flat && w && want_w);
    CK_OK(q4_check_scales(sc, ns, &err_));   /* what a caller must do before upload */
    CK_OK(q4ref_requant_truth(lat, sc, N, K, gs, code, alt, &err_));

    q4vk_buffer *bl = dev_buf(ctx, lat, (size_t)(N * K) * 4), *bs = dev_buf(ctx, sc, (size_t)ns * 4);
    q4vk_buffer *bw = dev_buf(ctx, NULL, (size_t)nw * 4), *bf = dev_buf(ctx, NULL, (size_t)nf);
    q4vk_requant_args a = {bl, bs, bw, bf, N, K, gs};
    CK_OK(limit ? q4vk_q4gsw_requant_limit(ctx, &a, limit, NULL, &err_)
                : q4vk_q4gsw_requant(ctx, &a, NULL, &err_));
    dev_get(ctx, bw, w, (size_t)nw * 4, "w");
    dev_get(ctx, bf, flat, (size_t)nf, "flat");
    CK_OK(q4ref_unpack_w4x8(w, N, K, got, &err_));
    CK_OK(q4ref_unpack_flat(flat, N, K, gotf, &err_));
    for (int64_t i = 0; i < N * K; i++) {
        const float s = sc[(i % K / gs) * N + i / K];
        if (got[i] != gotf[i])
            ck_abort_msg("(%lld, %lld): W_4X8 code %u, flat code %u", (long long)(i / K),
                         (long long)(i % K), got[i], gotf[i]);
        if (got[i] != code[i] && (strict || got[i] != alt[i]))
            ck_abort_msg("(%lld, %lld): latent %.9g / scale %.9g gave code %u, expected %u%s",
                         (long long)(i / K), (long long)(i % K), lat[i], s, got[i], code[i],
                         strict ? " (strict)" : "");
        n_alt += got[i] != code[i];
    }
    if (n_alt == 0) {   /* then both layouts must equal the reference packing exactly */
        CK_OK(q4ref_pack_w4x8(code, N, K, want_w, &err_));
        CK_OK(q4ref_pack_flat(code, N, K, want_flat, &err_));
        for (int64_t i = 0; i < nw; i++)
            if (w[i] != want_w[i])
                ck_abort_msg("W_4X8 word %lld = 0x%08x, expected 0x%08x", (long long)i, w[i],
                             want_w[i]);
        ck_assert(memcmp(flat, want_flat, (size_t)nf) == 0);
    }
    /* W only, then flat only: the other output stays untouched */
    for (int only = 0; only < 2; only++) {
        q4vk_buffer *o = dev_buf(ctx, NULL, (size_t)(only ? nf : nw * 4));
        q4vk_requant_args b = {bl, bs, only ? NULL : o, only ? o : NULL, N, K, gs};
        uint8_t *again = malloc((size_t)(only ? nf : nw * 4));
        ck_assert_ptr_nonnull(again);
        CK_OK(q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
        dev_get(ctx, o, again, (size_t)(only ? nf : nw * 4), only ? "flat alone" : "w alone");
        ck_assert(memcmp(again, only ? (void *)flat : (void *)w, (size_t)(only ? nf : nw * 4)) == 0);
        free(again);
        q4vk_buffer_destroy(ctx, o);
    }
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bs);
    q4vk_buffer_destroy(ctx, bw);
    q4vk_buffer_destroy(ctx, bf);
    free(code), free(alt), free(got), free(gotf), free(flat), free(want_flat), free(w), free(want_w);
    return n_alt;
}

START_TEST(requant_ties_and_clamps)
{
    /* quotients placed exactly on ties and clamp edges, with power-of-two scales of
     * both signs: exact roundEven is required (round() would fail 0.5, 2.5, -2.5) */
    static const float t[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, -1.5f, 3.5f, -3.5f,
                              6.5f, 7.5f, -8.5f, -7.5f, 7.49f, -8.49f, 100.0f, -100.0f,
                              0.0f, -0.0f, 0.49999997f, 2.5000002f, 1e-30f, -6.5f, 4.5f, 5.5f};
    static const float pw[] = {1.0f, 0.5f, 2.0f, 0.0078125f, -1.0f, -0.25f, 1024.0f, 0x1p-120f};
    const int64_t N = 8, K = 24, gs = 4;   /* 6 groups x 8 rows = 48 scales */
    float lat[8 * 24], sc[6 * 8];
    for (int64_t g = 0; g < K / gs; g++)
        for (int64_t n = 0; n < N; n++)
            sc[g * N + n] = pw[(n + g) % 8];
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            lat[n * K + k] = t[k] * sc[(k / gs) * N + n];
    ck_assert_int_eq(requant_case(lat, sc, N, K, gs, 1, 0), 0);

    /* hand-checked: scale 1 (row 0, group 0): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0 */
    uint8_t codes[8 * 24], alt[8 * 24];
    q4_error err = {0};
    ck_assert_int_eq(q4ref_requant_truth(lat, sc, N, K, gs, codes, alt, &err), Q4_OK);
    ck_assert_int_eq(codes[0], 8);
    ck_assert_int_eq(codes[1], 10);
    ck_assert_int_eq(codes[2], 10);
    ck_assert_int_eq(codes[3], 8);
    ck_assert_int_eq(codes[4], 6);    /* -2.5 -> -2 */
}
END_TEST

START_TEST(requant_zero_scales_and_infinities)
{
    const int64_t N = 4, K = 8, gs = 4;
    float lat[32], sc[8] = {0, 1, 0, 0x1p-126f, 2, 0, -0.0f, 4};
    for (int i = 0; i < 32; i++)
        lat[i] = (float)(i - 16) * 0.75f;
    lat[5] = INFINITY;          /* inf / s: clamps */
    lat[9] = -INFINITY;
    lat[15] = 3e38f;            /* over the smallest normal scale: the quotient overflows */
    lat[13] = -3e38f;
    /* row 3, group 0 has the scale 2^-126: denormal latents, which a driver may flush
     * in arithmetic, still give their exact codes (the kernel rescales from the bits) */
    lat[24] = 0x1.8p-127f;      /* 0.75 -> 1 */
    lat[25] = -0x1p-127f;       /* -0.5 -> 0, a tie */
    lat[26] = 0x1.8p-126f;      /* 1.5 -> 2, a tie, normal */
    lat[27] = 0x1p-149f;        /* 2^-23 -> 0 */
    ck_assert_int_eq(requant_case(lat, sc, N, K, gs, 1, 0), 0);
    /* every element of a zero-scale (row, group) is code 8: row 0, group 0 */
    uint8_t code[32], alt[32];
    q4_error err = {0};
    ck_assert_int_eq(q4ref_requant_truth(lat, sc, N, K, gs, code, alt, &err), Q4_OK);
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(code[k], 8);
    ck_assert_int_eq(code[24], 9);
    ck_assert_int_eq(code[25], 8);
    ck_assert_int_eq(code[26], 10);
    ck_assert_int_eq(code[27], 8);
}
END_TEST

/* Random latents in [-10 s, 10 s] (clamps included) with random scales, some zero. */
static int64_t requant_random(int64_t N, int64_t K, int64_t gs, int pow2, uint64_t limit)
{
    const int64_t ns = q4_scales_count(N, K, gs);
    float *lat = malloc((size_t)(N * K) * 4), *sc = malloc((size_t)ns * 4);
    ck_assert(lat && sc);
    for (int64_t i = 0; i < ns; i++) {
        const float mag = pow2 ? ldexpf(1.0f, (int)(rng_next() % 16) - 8) : rng_uniform(0.01f, 2.0f);
        sc[i] = i % 13 == 5 ? 0.0f : (rng_next() & 1 ? mag : -mag);
    }
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            const float s = sc[(k / gs) * N + n] == 0 ? 1.0f : sc[(k / gs) * N + n];
            /* a third on exact multiples of s/2 (ties), the rest anywhere */
            lat[n * K + k] = rng_next() % 3 == 0 ? (float)((int)(rng_next() % 41) - 20) * 0.5f * s
                                                 : rng_uniform(-10, 10) * s;
        }
    int64_t n_alt = requant_case(lat, sc, N, K, gs, pow2, limit);
    free(lat), free(sc);
    return n_alt;
}

START_TEST(requant_odd_n4)
{
    rng_seed(21);
    requant_random(12, 16, 8, 1, 0);    /* N4 = 3: last block half padding */
    requant_random(20, 8, 4, 1, 0);     /* N4 = 5 */
    requant_random(4, 4, 4, 1, 0);      /* a single half block */
}
END_TEST

START_TEST(requant_random_shapes)
{
    rng_seed(22);
    requant_random(64, 96, 32, 1, 0);   /* power-of-two scales: strict */
    requant_random(28, 12, 4, 1, 0);    /* K % 8 == 4: flat words span two rows */
    requant_random(16, 72, 24, 1, 0);   /* K/4 = 18: two whole k4 tiles and a partial one */
    /* arbitrary scales: code or its conformant neighbour (SPEC §3) */
    /* any scale: the exact remainder makes every code exact (strict), though SPEC §3
     * would accept the neighbour near a tie */
    requant_random(96, 128, 64, 0, 0);
}
END_TEST

START_TEST(requant_near_ties_any_scale)
{
    /* latents 0, 1 and 2 ULP either side of fp32(k/2 * s) with arbitrary scales: the
     * quotients within the division's error of a tie, where an uncorrected x / s
     * lands on either neighbour (the H200 gave 368 alternatives in requant_random_shapes
     * without the correction); all must be the exact roundEven code */
    rng_seed(24);
    const int64_t N = 32, K = 160, gs = 32, ns = q4_scales_count(N, K, gs);
    float *lat = malloc((size_t)(N * K) * 4), *sc = malloc((size_t)ns * 4);
    ck_assert(lat && sc);
    for (int64_t i = 0; i < ns; i++)
        sc[i] = (rng_next() & 1 ? 1 : -1) * rng_uniform(1e-3f, 3.0f) * ldexpf(1, (int)(rng_next() % 40) - 20);
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            const float s = sc[(k / gs) * N + n];
            const float tie = (float)((int)(rng_next() % 35) - 17) * 0.5f * s;   /* up to +-8.5 s */
            const int ulps = (int)(k % 5) - 2;
            uint32_t bits;
            memcpy(&bits, &tie, 4);
            bits = tie == 0 ? bits : bits + (uint32_t)ulps;   /* same sign: +-ulps in magnitude */
            memcpy(&lat[n * K + k], &bits, 4);
        }
    ck_assert_int_eq(requant_case(lat, sc, N, K, gs, 1, 0), 0);
    free(lat), free(sc);
}
END_TEST

START_TEST(requant_split)
{
    rng_seed(23);
    /* 8-row ranges (limit just over 8 rows of K floats plus the alignment slack) */
    requant_random(44, 20, 4, 1, 8 * 20 * 4 + 256);
    requant_random(36, 12, 12, 1, 16 * 12 * 4 + 300);   /* 16-row ranges, odd N4 at the end */
}
END_TEST

START_TEST(requant_bad_args)
{
    q4vk_buffer *bl = raw_buf(ctx, 8 * 8 * 4), *bs = raw_buf(ctx, 2 * 8 * 4);
    q4vk_buffer *bw = raw_buf(ctx, (size_t)q4_w4x8_words(8, 8) * 4), *bf = raw_buf(ctx, 32);
    q4vk_buffer *small = raw_buf(ctx, 4);
    q4vk_requant_args a = {bl, bs, bw, bf, 8, 8, 4}, b;
    b = a, b.w = NULL, b.flat = NULL;
    CK_FAILS(Q4_ERR_ARG, "w and flat are both NULL", q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.latent = NULL;
    CK_FAILS(Q4_ERR_ARG, "latent is NULL; expected a buffer", q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.scales = NULL;
    CK_FAILS(Q4_ERR_ARG, "scales is NULL", q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.N = 10;
    CK_FAILS(Q4_ERR_ARG, "N = 10 must be a multiple of 4", q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.gs = 6;
    CK_FAILS(Q4_ERR_ARG, "gs = 6 must be a multiple of 4", q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.K = 12;
    CK_FAILS(Q4_ERR_ARG, "K = 12 must be a multiple of the group size gs = 8",
             (b.gs = 8, q4vk_q4gsw_requant(ctx, &b, NULL, &err_)));
    b = a, b.flat = bs;
    CK_FAILS(Q4_ERR_ARG, "flat and scales overlap", q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.K = 16;
    CK_FAILS(Q4_ERR_ARG, "buffer latent holds 256 bytes; the shape needs 512",
             q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    b = a, b.w = small;
    CK_FAILS(Q4_ERR_ARG, "buffer w holds 4 bytes; the shape needs 32",
             q4vk_q4gsw_requant(ctx, &b, NULL, &err_));
    CK_FAILS(Q4_ERR_RESOURCE, "maxStorageBufferRange",
             q4vk_q4gsw_requant_limit(ctx, &a, 64, NULL, &err_));
    /* SPEC §1: a scale out of contract, with the reference's sentence */
    float sv[16], lat[64] = {0};
    uint32_t inf = 0x7f800000u;
    uint8_t flat[32];
    q4_error want = {0}, got = {0};
    for (int i = 0; i < 16; i++)
        sv[i] = 1.0f;
    sv[5] = 1e-40f;   /* denormal */
    ck_assert_int_eq(q4ref_requant(lat, sv, 8, 8, 4, NULL, flat, &want), Q4_ERR_ARG);
    CK_OK(q4vk_upload(ctx, bs, 0, sv, sizeof sv, &err_));
    ck_assert_int_eq(q4vk_q4gsw_requant(ctx, &a, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    ck_assert_msg(strstr(got.msg, "scales[5] = ") && strstr(got.msg, "is denormal"), "%s", got.msg);
    memcpy(&sv[5], &inf, 4);
    ck_assert_int_eq(q4ref_requant(lat, sv, 8, 8, 4, NULL, flat, &want), Q4_ERR_ARG);
    CK_OK(q4vk_upload(ctx, bs, 0, sv, sizeof sv, &err_));
    ck_assert_int_eq(q4vk_q4gsw_requant(ctx, &a, NULL, &got), Q4_ERR_ARG);
    ck_assert_str_eq(got.msg, want.msg);
    q4vk_buffer_destroy(ctx, bl);
    q4vk_buffer_destroy(ctx, bs);
    q4vk_buffer_destroy(ctx, bw);
    q4vk_buffer_destroy(ctx, bf);
    q4vk_buffer_destroy(ctx, small);
}
END_TEST

/* ---------------- main ---------------- */

static Suite *make_suite(const char *name)
{
    Suite *s = suite_create(name);
    if (!strcmp(name, "fused_ce")) {
        ADD(s, ce_masked_and_unaligned);
        ADD(s, ce_all_masked);
        ADD(s, ce_large_vocab);
        ADD(s, ce_extremes);
        ADD(s, ce_many_rows);
        ADD(s, ce_split_rows);
        ADD(s, ce_label_out_of_range_is_rejected);
        ADD(s, ce_scratch_alloc_fails);
        ADD(s, ce_bad_args);
    } else if (!strcmp(name, "adamw")) {
        ADD(s, adamw_steps);
        ADD(s, adamw_many_groups);
        ADD(s, adamw_split);
        ADD(s, adamw_bad_args);
    } else {
        ADD(s, requant_ties_and_clamps);
        ADD(s, requant_zero_scales_and_infinities);
        ADD(s, requant_odd_n4);
        ADD(s, requant_random_shapes);
        ADD(s, requant_near_ties_any_scale);
        ADD(s, requant_split);
        ADD(s, requant_bad_args);
    }
    return s;
}

int main(int argc, char **argv)
{
    static const char *all[] = {"fused_ce", "adamw", "requant"};

    if (argc > 2 || (argc == 2 && strcmp(argv[1], "fused_ce") && strcmp(argv[1], "adamw") &&
                     strcmp(argv[1], "requant"))) {
        fprintf(stderr, "usage: %s [fused_ce|adamw|requant]\n", argv[0]);
        return 2;
    }
    const int rc = gpu_test_open(&ctx);
    if (rc)
        return rc;
    SRunner *sr = srunner_create(NULL);
    for (int i = 0; i < 3; i++)
        if (argc < 2 || !strcmp(argv[1], all[i]))
            srunner_add_suite(sr, make_suite(all[i]));
    return gpu_test_run(sr, ctx);
}
