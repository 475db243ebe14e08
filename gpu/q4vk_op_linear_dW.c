/* q4vk_op_linear_dW.c: launcher of linear_dW, dW = dout^T @ x, dense fp32 (SPEC §2).
 *
 * One kernel, linear_dw_tiled: the tiled GEMM of q4_gemm.glsl with rows = N,
 * cols = K and depth = M, a tile picked from the device limits. The depth M cannot
 * be split across dispatches without writing dW more than once, and dout's columns
 * are not contiguous, so a binding above the device's limit is refused. */
#include <string.h>

#include "q4vk_op_linear_dW.h"

/* What linear_dw_tiled.comp reads as push constants. */
typedef struct dw_push {
    uint32_t M, N, K, tiles_n, tiles_total;
} dw_push;

q4_status q4vk_linear_dw(q4vk_context *ctx, const q4vk_dw_args *a, q4vk_timing *t,
                         q4_error *err)
{
    return q4vk_linear_dw_opts(ctx, a, NULL, t, err);
}

q4_status q4vk_linear_dw_opts(q4vk_context *ctx, const q4vk_dw_args *a,
                              const q4vk_linear_opts *o, q4vk_timing *t, q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "linear_dW", err)))
        return st;
    if ((st = q4_check_dw(a->M, a->N, a->K, err)))
        return st;
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t lim = q4vk_op_limit(ctx, o ? o->max_binding : 0);
    if ((st = q4vk_op_buffer(a->dout, "dout", M * N * 4, err)) ||
        (st = q4vk_op_buffer(a->x, "x", M * K * 4, err)) ||
        (st = q4vk_op_buffer(a->dw, "dw", N * K * 4, err)) ||
        (st = q4vk_op_distinct(a->dw, "dw", a->dout, "dout", err)) ||
        (st = q4vk_op_distinct(a->dw, "dw", a->x, "x", err)) ||
        (st = q4vk_op_fits("dout", M * N * 4, lim, err)) ||
        (st = q4vk_op_fits("x", M * K * 4, lim, err)) ||
        (st = q4vk_op_fits("dw", N * K * 4, lim, err)))
        return st;
    if (o && o->variant && strcmp(o->variant, Q4VK_K_DW_TILED))
        return q4_fail(err, Q4_ERR_ARG, "linear_dW has no variant %s; expected %s", o->variant,
                       Q4VK_K_DW_TILED);

    q4vk_gemm_tile tile =
        o && o->tile ? *o->tile : q4vk_gemm_pick_tile(info, N, K, Q4VK_DW_BIG_BK,
                                                      Q4VK_GEMM_A_DEPTH_ROWS);
    if ((st = q4vk_gemm_check_tile(info, &tile, Q4VK_GEMM_A_DEPTH_ROWS, err)))
        return st;
    q4vk_spec spec;
    q4vk_gemm_spec(&tile, &spec);
    q4vk_dispatch d = {0};
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_DW_TILED, &spec, &d.pipe, err)))
        return st;
    const uint64_t tiles_n = (K + tile.bn - 1) / tile.bn;
    const uint64_t tiles = (N + tile.bm - 1) / tile.bm * tiles_n;
    dw_push push = {(uint32_t)M, (uint32_t)N, (uint32_t)K, (uint32_t)tiles_n, (uint32_t)tiles};
    d.bind[Q4VK_DW_DOUT] = (q4vk_binding){a->dout, 0, M * N * 4};
    d.bind[Q4VK_DW_X] = (q4vk_binding){a->x, 0, M * K * 4};
    d.bind[Q4VK_DW_DW] = (q4vk_binding){a->dw, 0, q4vk_op_to_end(a->dw, 0, lim)};
    d.push = &push;
    if ((st = q4vk_fold(ctx, Q4VK_K_DW_TILED, tiles, d.groups, err)))
        return st;
    return q4vk_run(ctx, &d, 1, t, err);
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_linear_dw_plan(const q4vk_device_info *info, int64_t M, int64_t N, int64_t K,
                         q4vk_plan *p)
{
    (void)info, (void)M, (void)N, (void)K;
    *p = (q4vk_plan){0};
    q4vk_plan_add(p, Q4VK_K_DW_TILED);
}
