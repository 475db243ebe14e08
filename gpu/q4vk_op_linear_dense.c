/* q4vk_op_linear_dense.c: the dense path of linear_q4gsw and linear_q4gsw_backward for
 * large M (declared in q4vk_op_linear_dense.h). The weight is dequantized once
 * into fp32 scratch and the GEMM runs on two fp32 operands that both lie depth-major,
 * staged into shared memory as linear_dW's are (linear_tn_tiled: plain vec4 stores,
 * no decode and no transpose in the GEMM, which is what makes dW the fastest of the
 * three on the H200):
 *   forward   y [M, N]  = P^T Q (+ bias)   P = x^T [K, Mp]     Q = W^T [K, N]
 *   backward  dx [M, K] = P^T Q            P = dout^T [N, Mp]  Q = W [N, K]
 * W^T comes from dequantize_t, W from dequantize; linear_transpose turns the
 * activation depth-major; Mp is M rounded up to 4. All passes go into the op's one
 * submission, so their time is the op's time. Each dequantized weight is the q4
 * kernels' own fp32 product (code - 8) * scale, and the GEMM sums each output's terms
 * in depth order with one fma each, so SPEC §3's bound holds as for the q4 kernels.
 * The scratch (N*K*4 bytes plus depth*Mp*4) is allocated per call; the launchers
 * choose this path only where it fits (q4vk_lin_dense_misfit) and M >= the device's
 * dense_min_m. */
#include <inttypes.h>

#include "q4vk_op_linear_dense.h"
#include "q4vk_op_dequantize.h"

/* What linear_transpose.comp reads as push constants. */
typedef struct transpose_push {
    uint32_t R, C, ld, tiles_c;
} transpose_push;

const char *q4vk_lin_dense_misfit(const q4vk_device_info *info, bool fwd, uint64_t M,
                                  uint64_t N, uint64_t K, uint64_t limit)
{
    const uint64_t depth = fwd ? K : N, cols = fwd ? N : K, mp = (M + 3) / 4 * 4;
    const uint64_t wf = N * K * 4, at = depth * mp * 4, scratch = wf + at;
    const uint64_t one = q4vk_lin_scratch_one(info, limit);
    if (M * depth * 4 > limit)
        return fwd ? "x" : "dout";
    if (M * cols * 4 > limit)
        return fwd ? "y" : "dx";
    if (wf > one)
        return "the dequantized weight";
    if (at > one)
        return "the transposed activation";
    if (!q4vk_lin_scratch_fits_heap(info, scratch))
        return "the scratch";
    return NULL;
}

/* Workgroups of linear_transpose for an [R, C] input: one per 32 x 32 tile. */
static uint64_t transpose_groups(uint64_t R, uint64_t C)
{
    return (R + 31) / 32 * ((C + 31) / 32);
}

bool q4vk_lin_dense_chosen(const q4vk_device_info *info, bool fwd, uint64_t M, uint64_t N,
                           uint64_t K, uint64_t limit)
{
    return M >= info->dense_min_m && !q4vk_lin_dense_misfit(info, fwd, M, N, K, limit);
}

/* The dispatch of linear_transpose: out [C, ld] = in [R, C] transposed. */
static q4_status transpose(q4vk_context *ctx, q4vk_pipeline *pipe, q4vk_buffer *in,
                           q4vk_buffer *out, uint64_t R, uint64_t C, uint64_t ld,
                           transpose_push *push, q4vk_dispatch *d, q4_error *err)
{
    *push = (transpose_push){(uint32_t)R, (uint32_t)C, (uint32_t)ld, (uint32_t)((C + 31) / 32)};
    d->pipe = pipe;
    d->bind[0] = (q4vk_binding){in, 0, R * C * 4};
    d->bind[1] = (q4vk_binding){out, 0, C * ld * 4};
    d->push = push;
    return q4vk_fold(ctx, Q4VK_K_TRANSPOSE, transpose_groups(R, C), d->groups, err);
}

q4_status q4vk_lin_run_dense(q4vk_context *ctx, const q4vk_lin_dense *a,
                             const q4vk_linear_opts *o, uint64_t lim, q4vk_timing *t,
                             q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t depth = a->fwd ? K : N, cols = a->fwd ? N : K, mp = (M + 3) / 4 * 4;
    const char *misfit = q4vk_lin_dense_misfit(info, a->fwd, M, N, K, lim);
    if (misfit)
        return q4_fail(err, Q4_ERR_RESOURCE,
                       "variant %s cannot run M = %" PRIu64 ", N = %" PRIu64 ", K = %" PRIu64
                       " on this device: %s does not fit (bindings of %" PRIu64
                       " bytes, scratch in 1/%d of %" PRIu64 " bytes of device memory)",
                       Q4VK_K_TN_TILED, M, N, K, misfit, lim, Q4VK_SCRATCH_HEAP_SHARE,
                       info->device_local_bytes);
    q4_status st;
    q4vk_gemm_tile tile =
        o && o->tile ? *o->tile : q4vk_gemm_pick_tile(info, M, cols, Q4VK_TN_BIG_BK,
                                                      Q4VK_GEMM_A_DEPTH_ROWS);
    if ((st = q4vk_gemm_check_tile(info, &tile, Q4VK_GEMM_A_DEPTH_ROWS, err)))
        return st;
    q4vk_spec spec;
    q4vk_gemm_spec(&tile, &spec);
    q4vk_pipeline *p_tr;
    q4vk_lin_tiled job = {
        .kernel = Q4VK_K_TN_TILED,
        .n_bind = Q4VK_TN_BINDINGS,
        .in_slot = Q4VK_TN_P, .out_slot = Q4VK_TN_OUT, .part_slot = Q4VK_TN_PARTIALS,
        .in_cols = depth, .out_cols = cols,
        .push = {(uint32_t)M, (uint32_t)cols, (uint32_t)depth, (uint32_t)mp, 0,
                 a->bias != NULL, 0, 0, 1, (uint32_t)depth},
        .tile = tile, .bias = a->bias, .limit = lim,
    };
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_TN_TILED, &spec, &job.pipe, err)) ||
        (st = q4vk_op_pipeline(ctx, Q4VK_K_TRANSPOSE, NULL, &p_tr, err)))
        return st;

    /* wf: W^T [K, N] (forward) or W [N, K] (backward); at: the activation transposed. */
    q4vk_buffer *wf = NULL, *at = NULL;
    q4vk_dispatch d[3] = {{0}};
    q4vk_dequant_push dq;
    q4vk_dequant_t_push dqt;
    transpose_push tp;
    int n = 0;
    if ((st = q4vk_buffer_create(ctx, (size_t)(N * K * 4), &wf, err)) ||
        (st = q4vk_buffer_create(ctx, (size_t)(depth * mp * 4), &at, err)))
        goto out;
    const q4vk_dequant_args da = {a->w, a->scales, wf, a->N, a->K, a->gs};
    if ((st = a->fwd ? q4vk_dequant_t_dispatch(ctx, &da, &dqt, &d[n++], err)
                     : q4vk_dequant_dispatch(ctx, &da, N * K * 4, &dq, &d[n++], err)))
        goto out;
    if ((st = transpose(ctx, p_tr, a->act, at, M, depth, mp, &tp, &d[n++], err)))
        goto out;

    job.bind[Q4VK_TN_P] = (q4vk_binding){at, 0, depth * mp * 4};
    job.bind[Q4VK_TN_Q] = (q4vk_binding){wf, 0, depth * cols * 4};
    /* No bias: any buffer fills the binding (the kernel never reads it); the same for
     * the split-K partials when the GEMM is not split. */
    job.bind[Q4VK_TN_BIAS] = a->bias ? (q4vk_binding){a->bias, 0, cols * 4}
                                     : (q4vk_binding){at, 0, depth * mp * 4};
    job.bind[Q4VK_TN_OUT] = (q4vk_binding){a->out, 0, q4vk_op_to_end(a->out, 0, lim)};
    job.bind[Q4VK_TN_PARTIALS] = (q4vk_binding){at, 0, depth * mp * 4};

    /* Split-K over the depth when there are too few tiles to fill the device. */
    uint32_t splits = o && o->splits ? o->splits : q4vk_gemm_pick_splits(&tile, M, cols, depth);
    bool ran = false;
    if (splits > 1 && ((st = q4vk_lin_run_split(ctx, &job, splits, d, n, &ran, t, err)) || ran))
        goto out;
    q4vk_dispatch *g = &d[n++];
    g->pipe = job.pipe;
    for (uint32_t b = 0; b < job.n_bind; b++)
        g->bind[b] = job.bind[b];
    job.push.tiles_n = (uint32_t)((cols + tile.bn - 1) / tile.bn);
    job.push.tiles_total = (uint32_t)((M + tile.bm - 1) / tile.bm) * job.push.tiles_n;
    g->push = &job.push;
    if ((st = q4vk_fold(ctx, Q4VK_K_TN_TILED, job.push.tiles_total, g->groups, err)) == Q4_OK)
        st = q4vk_run(ctx, d, n, t, err);
out:
    q4vk_buffer_destroy(ctx, wf);
    q4vk_buffer_destroy(ctx, at);
    return st;
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

/* The plan of the dense path of a forward (fwd) or backward call: the
 * weight's dequantize (transposed for the forward), the activation's transpose,
 * linear_tn_tiled, and the reduce where split. */
void q4vk_lin_plan_dense(const q4vk_device_info *info, bool fwd, uint64_t M, uint64_t N,
                         uint64_t K, q4vk_plan *p)
{
    const uint64_t depth = fwd ? K : N, cols = fwd ? N : K;
    q4vk_plan_add(p, fwd ? Q4VK_K_DEQUANT_T : Q4VK_K_DEQUANT);
    q4vk_plan_add(p, Q4VK_K_TRANSPOSE);
    q4vk_plan_add(p, Q4VK_K_TN_TILED);
    const q4vk_gemm_tile tile = q4vk_gemm_pick_tile(info, M, cols, Q4VK_TN_BIG_BK,
                                                    Q4VK_GEMM_A_DEPTH_ROWS);
    if (q4vk_gemm_pick_splits(&tile, M, cols, depth) > 1)
        q4vk_plan_add(p, Q4VK_K_SPLITK_REDUCE);
}
