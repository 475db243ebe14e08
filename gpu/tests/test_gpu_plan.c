/* test_gpu_plan.c: each launcher's plan (q4vk_*_plan, in the launcher's file) names exactly the kernels
 * whose pipelines the launcher creates when it runs the same call on this device,
 * for every variant: gemv, tiled and dense, with and without split-K, requant with
 * and without the flat kernel. Reads the context's pipeline list (q4vk_runtime.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "q4vk_runtime_pipeline.h"

static q4vk_context *ctx;

/* Scales in the contract (the launchers check them): all 1. */
static q4vk_buffer *ones(size_t n)
{
    float *v = malloc(n * sizeof *v);
    ck_assert(v != NULL);
    for (size_t i = 0; i < n; i++)
        v[i] = 1.0f;
    q4vk_buffer *b = dev_buf(ctx, v, n * sizeof *v);
    free(v);
    return b;
}

/* The plan's kernels and the pipelines created since the list was emptied agree as sets. */
static void agree(const char *what, const q4vk_plan *p)
{
    int created = 0;
    for (const q4vk_pipeline *q = ctx->pipelines; q; q = q->next) {
        int found = 0;
        for (int i = 0; i < p->n; i++)
            found |= !strcmp(p->kernels[i], q->name);
        ck_assert_msg(found, "%s: the launcher ran %s, which its plan does not name", what, q->name);
        created++;
    }
    /* Kernels from maybe_from on run only when the data calls for the fallback. */
    for (int i = 0; i < (p->maybe_from ? p->maybe_from : p->n); i++) {
        int found = 0;
        for (const q4vk_pipeline *q = ctx->pipelines; q; q = q->next)
            found |= !strcmp(p->kernels[i], q->name);
        ck_assert_msg(found, "%s: the plan names %s, which the launcher did not run", what,
                      p->kernels[i]);
    }
    ck_assert_int_ge(created, 1);
    q4vk_pipelines_destroy(ctx, true);
}

/* The plan and the pipelines of one linear call agree; the plan holds kernel `must`
 * (NULL: any) and n kernels (0: any number). */
static void linear_must(int64_t M, int64_t N, int64_t K, int backward, const char *must, int n)
{
    const int64_t gs = 32;
    q4vk_buffer *a = ones((size_t)(M * (backward ? N : K)));
    q4vk_buffer *w = dev_buf(ctx, NULL, (size_t)q4_w4x8_words(N, K) * 4);
    q4vk_buffer *s = ones((size_t)q4_scales_count(N, K, gs));
    q4vk_buffer *y = dev_buf(ctx, NULL, (size_t)(M * (backward ? K : N)) * 4);
    q4vk_plan p;
    char what[96];
    snprintf(what, sizeof what, "%s M=%lld N=%lld K=%lld", backward ? "backward" : "forward",
             (long long)M, (long long)N, (long long)K);
    q4vk_pipelines_destroy(ctx, true);
    if (backward) {
        q4vk_linear_bwd_args args = {a, w, s, y, M, N, K, gs};
        CK_OK(q4vk_linear_q4gsw_backward(ctx, &args, NULL, &err_));
        q4vk_linear_q4gsw_backward_plan(q4vk_info(ctx), M, N, K, &p);
    } else {
        q4vk_linear_args args = {a, w, s, NULL, y, M, N, K, gs};
        CK_OK(q4vk_linear_q4gsw(ctx, &args, NULL, &err_));
        q4vk_linear_q4gsw_plan(q4vk_info(ctx), M, N, K, gs, &p);
    }
    int found = must == NULL;
    for (int i = 0; i < p.n; i++)
        found |= must && !strcmp(p.kernels[i], must);
    ck_assert_msg(found, "%s: the plan does not name %s", what, must);
    ck_assert_msg(n == 0 || p.n == n, "%s: the plan names %d kernels, expected %d", what, p.n, n);
    agree(what, &p);
    q4vk_buffer_destroy(ctx, a);
    q4vk_buffer_destroy(ctx, w);
    q4vk_buffer_destroy(ctx, s);
    q4vk_buffer_destroy(ctx, y);
}

static void linear(int64_t M, int64_t N, int64_t K, int backward)
{
    linear_must(M, N, K, backward, NULL, 0);
}

START_TEST(linear_plans)
{
    linear(1, 64, 64, 0);      /* gemv */
    linear(16, 64, 64, 0);     /* tiled, one slice */
    linear(16, 64, 4096, 0);   /* tiled, split-K: one tile, deep K */
    linear(1, 64, 64, 1);
    linear(16, 64, 64, 1);
    linear(16, 4096, 64, 1);   /* split over N */
}
END_TEST

/* From M = dense_min_m up: the dense path, with and without split-K; and the tiled
 * path where the dense path's operands do not fit one binding. */
START_TEST(dense_plans)
{
    const int64_t m = (int64_t)q4vk_info(ctx)->dense_min_m;
    const char *tn = "linear_tn_tiled";
    linear_must(m, 64, 64, 0, tn, 3);      /* dequantize_t, transpose, GEMM */
    linear_must(m, 64, 2048, 0, tn, 4);    /* and the reduce: few tiles, deep K */
    linear_must(m, 64, 64, 1, tn, 3);
    linear_must(m, 2048, 64, 1, tn, 4);    /* split over N */
    const q4vk_test_limits small = {.max_binding = (uint64_t)m * 64 * 4 / 2};
    CK_OK(q4vk_set_test_limits(ctx, &small, &err_));
    linear_must(m, 64, 64, 0, "linear_q4gsw_tiled", 1);   /* x needs two bindings */
    linear_must(m, 64, 64, 1, "linear_q4gsw_backward_tiled", 1);
    CK_OK(q4vk_set_test_limits(ctx, NULL, &err_));
}
END_TEST

static void requant(int64_t N, int64_t K)
{
    const int64_t gs = 4;
    q4vk_buffer *lat = ones((size_t)(N * K));
    q4vk_buffer *s = ones((size_t)q4_scales_count(N, K, gs));
    q4vk_buffer *w = dev_buf(ctx, NULL, (size_t)q4_w4x8_words(N, K) * 4);
    q4vk_buffer *flat = dev_buf(ctx, NULL, (size_t)q4_flat_bytes(N, K));
    q4vk_plan p;
    char what[64];
    snprintf(what, sizeof what, "requant N=%lld K=%lld", (long long)N, (long long)K);
    q4vk_pipelines_destroy(ctx, true);
    q4vk_requant_args args = {lat, s, w, flat, N, K, gs};
    CK_OK(q4vk_q4gsw_requant(ctx, &args, NULL, &err_));
    q4vk_q4gsw_requant_plan(q4vk_info(ctx), K, true, true, &p);
    agree(what, &p);
    q4vk_buffer_destroy(ctx, lat);
    q4vk_buffer_destroy(ctx, s);
    q4vk_buffer_destroy(ctx, w);
    q4vk_buffer_destroy(ctx, flat);
}

START_TEST(requant_plans)
{
    requant(16, 64);   /* the w4x8 kernel writes both layouts */
    requant(16, 36);   /* K % 8 == 4: the flat kernel too */
}
END_TEST

int main(void)
{
    int rc = gpu_test_open(&ctx);
    if (rc)
        return rc;
    Suite *s = suite_create("gpu.plan");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, linear_plans);
    tcase_add_test(tc, dense_plans);
    tcase_add_test(tc, requant_plans);
    suite_add_tcase(s, tc);
    return gpu_test_run(srunner_create(s), ctx);
}
