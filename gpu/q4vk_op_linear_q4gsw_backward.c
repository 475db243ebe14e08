/* q4vk_op_linear_q4gsw_backward.c: launcher of linear_q4gsw_backward, dx = dout @ dequant(W)
 * (SPEC §2).
 *
 * Three variants, named by their (main) kernels:
 *  - linear_q4gsw_backward_gemv (M <= 8): a stream over the packed weights; a workgroup
 *    owns S*R k4 rows (4*S*R columns of dx), its L lanes walk the block columns with R*U
 *    blocks in flight each and are summed in shared memory at the end; M, R and U are
 *    specialisation constants, and at M <= 4 dout is scaled once per block column
 *    instead of every weight.
 *  - linear_q4gsw_backward_tiled (any M; the choice above 8 where the dense path is
 *    not): the tiled GEMM of q4_gemm.glsl over depth N; dout and dx are split by
 *    rows into several dispatches when they exceed one binding.
 *  - linear_tn_tiled (the choice from M = dense_min_m up, where its scratch fits): the
 *    dense path of q4vk_op_linear_dense.c, W dequantized into fp32 scratch first.
 * The order below: public entry, the operands (checked in q4vk_op_linear_common.c),
 * the gemv and tiled variants, the dispatcher. */
#include <string.h>

#include "q4vk_op_linear_q4gsw_backward.h"
#include "q4vk_op_linear_dense.h"

/* What linear_q4gsw_backward_gemv.comp reads as push constants. */
typedef struct gemv_push {
    uint32_t N, K, gs, N8, strips;
} gemv_push;

/* Workgroups below which the gemv gives each fewer k4 rows and more lanes. */
#define GEMV_GROUPS_MIN 512

q4_status q4vk_linear_q4gsw_backward(q4vk_context *ctx, const q4vk_linear_bwd_args *a,
                                     q4vk_timing *t, q4_error *err)
{
    return q4vk_linear_q4gsw_backward_opts(ctx, a, NULL, t, err);
}

/* dout, w, scales and dx as q4vk_lin_check_args and q4vk_lin_gemv_check see them. */
static q4vk_lin_operands operands(const q4vk_linear_bwd_args *a)
{
    return (q4vk_lin_operands){a->dout, a->w, a->scales, NULL, a->dx, "dout", "dx", a->N, a->K};
}

static q4_status run_gemv(q4vk_context *ctx, const q4vk_linear_bwd_args *a, uint64_t lim,
                          q4vk_timing *t, q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t N8 = (uint64_t)q4_n8(a->N), K4 = K / 4;
    const q4vk_lin_operands p = operands(a);
    q4_status st;
    if ((st = q4vk_lin_gemv_check(Q4VK_K_BWD_GEMV, M, &p, lim, err)))
        return st;
    /* R k4 rows x U block columns in flight per invocation; R > 1 shares the dout
     * loads. Fewer as M's accumulators and dout registers grow. H200, M = 1,
     * N = K = 16384: R = 8, U = 1 took 0.383 ms where R = 4, U = 2 took 0.397. */
    const uint32_t r = M == 1 ? 8 : M <= 4 ? 2 : 1;
    const uint32_t u = M == 2 ? 2 : 1;
    const uint32_t sg = info->subgroup_size;
    /* M <= 4: dout * scale once per block column and group (8*M multiplies shared by
     * R rows) instead of (code - 8) * scale per weight (32 per block); at M = 1 that
     * is 3 operations a weight instead of 4. Above, R = 1 and 8*M > 32. */
    const uint32_t ds = M <= 4;
    /* 256 invocations (128 where that is the device's most): L lanes along N8 (a
     * multiple of the subgroup, at least 32: a subgroup reads 512 contiguous bytes)
     * x S rows; S shrinks (L grows) until there are enough workgroups. */
    const uint32_t wg = info->max_invocations >= 256 ? 256 : 128;
    uint32_t l = sg > 32 ? (sg < wg ? sg : wg) : 32;
    while (l < wg && (K4 + (uint64_t)(wg / l) * r - 1) / ((uint64_t)(wg / l) * r) < GEMV_GROUPS_MIN)
        l *= 2;
    const uint32_t s = wg / l;
    /* Sums per pass of the shared-memory sum: as many of the 4*M*R as fit (floats:
     * (wg + 1) per sum plus the partials), at least 1 (under the 16 KiB every device
     * has). */
    const uint32_t nv = 4 * (uint32_t)M * r;
    uint32_t vp = nv;
    while (vp > 1 && ((uint64_t)vp * (wg + 1) + (wg > s * vp ? wg : s * vp)) * 4 >
                         info->max_shared_bytes)
        vp--;

    const uint64_t strips = (K4 + (uint64_t)s * r - 1) / ((uint64_t)s * r);
    gemv_push push = {(uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)N8,
                      (uint32_t)strips};
    q4vk_spec spec = {.count = 8, .ids = {0, 1, 2, 3, 4, 5, 6, 7},
                      .values = {wg, l, s, (uint32_t)M, r, u, ds, vp}};
    q4vk_dispatch d = {0};
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_BWD_GEMV, &spec, &d.pipe, err)))
        return st;
    d.bind[Q4VK_BWD_DOUT] = (q4vk_binding){a->dout, 0, M * N * 4};
    d.bind[Q4VK_BWD_W] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    d.bind[Q4VK_BWD_SCALES] = (q4vk_binding){a->scales, 0,
                                             (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4};
    d.bind[Q4VK_BWD_DX] = (q4vk_binding){a->dx, 0, q4vk_op_to_end(a->dx, 0, lim)};
    d.push = &push;
    if ((st = q4vk_fold(ctx, Q4VK_K_BWD_GEMV, strips, d.groups, err)))
        return st;
    return q4vk_run(ctx, &d, 1, t, err);
}

static q4_status run_tiled(q4vk_context *ctx, const q4vk_linear_bwd_args *a,
                           const q4vk_linear_opts *o, uint64_t lim, q4vk_timing *t,
                           q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    q4_status st;
    q4vk_gemm_tile tile =
        o && o->tile ? *o->tile : q4vk_gemm_pick_tile(info, M, K, Q4VK_BWD_BIG_BK,
                                                      Q4VK_GEMM_A_ROWS_DEPTH);
    if ((st = q4vk_gemm_check_tile(info, &tile, Q4VK_GEMM_A_ROWS_DEPTH, err)))
        return st;

    /* dout [M, N] and dx [M, K] split by rows when one binding cannot hold them. */
    uint64_t rows = q4vk_lin_split_rows(M, N, K, lim, info->min_storage_align);
    if (rows == 0)
        return N >= K ? q4vk_op_fits("dout", M * N * 4, lim, err)
                      : q4vk_op_fits("dx", M * K * 4, lim, err);

    q4vk_spec spec;
    q4vk_gemm_spec(&tile, &spec);
    q4vk_lin_tiled job = {
        .kernel = Q4VK_K_BWD_TILED,
        .n_bind = Q4VK_BWD_BINDINGS,
        .in_slot = Q4VK_BWD_DOUT, .out_slot = Q4VK_BWD_DX, .part_slot = Q4VK_BWD_PARTIALS,
        .in_cols = N, .out_cols = K,
        .push = {(uint32_t)M, (uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)q4_n8(a->N),
                 0, 0, 0, 1, (uint32_t)N},
        .tile = tile, .bias = NULL, .limit = lim,
    };
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_BWD_TILED, &spec, &job.pipe, err)))
        return st;
    const uint64_t s_bytes = (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4;
    job.bind[Q4VK_BWD_DOUT] = (q4vk_binding){a->dout, 0, 0};
    job.bind[Q4VK_BWD_W] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    job.bind[Q4VK_BWD_SCALES] = (q4vk_binding){a->scales, 0, s_bytes};
    job.bind[Q4VK_BWD_DX] = (q4vk_binding){a->dx, 0, 0};
    /* The split-K partials take the scales when the GEMM is not split: the kernel
     * never touches them then. */
    job.bind[Q4VK_BWD_PARTIALS] = (q4vk_binding){a->scales, 0, s_bytes};

    /* Split-K over N when there are too few tiles to fill the device (M = 512). */
    uint32_t splits = o && o->splits ? o->splits : q4vk_gemm_pick_splits(&tile, M, K, N);
    bool ran = false;
    if (splits > 1 && rows == M &&
        ((st = q4vk_lin_run_split(ctx, &job, splits, NULL, 0, &ran, t, err)) || ran))
        return st;
    return q4vk_lin_run_rows(ctx, &job, rows, t, err);
}

q4_status q4vk_linear_q4gsw_backward_opts(q4vk_context *ctx, const q4vk_linear_bwd_args *a,
                                          const q4vk_linear_opts *o, q4vk_timing *t,
                                          q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "linear_q4gsw_backward", err)))
        return st;
    const uint64_t lim = q4vk_op_limit(ctx, o ? o->max_binding : 0);
    const q4vk_lin_operands p = operands(a);
    if ((st = q4vk_lin_check_args(a->M, a->N, a->K, a->gs, &p, lim, err)) ||
        (st = q4vk_op_check_scales(ctx, a->scales, q4_scales_count(a->N, a->K, a->gs), err)))
        return st;
    const char *v = o && o->variant ? o->variant
                  : a->M <= Q4VK_GEMV_MAX_M ? Q4VK_K_BWD_GEMV
                  : q4vk_lin_dense_chosen(q4vk_info(ctx), false, (uint64_t)a->M, (uint64_t)a->N,
                                          (uint64_t)a->K, lim) ? Q4VK_K_TN_TILED
                  : Q4VK_K_BWD_TILED;
    if (!strcmp(v, Q4VK_K_BWD_GEMV))
        return run_gemv(ctx, a, lim, t, err);
    if (!strcmp(v, Q4VK_K_BWD_TILED))
        return run_tiled(ctx, a, o, lim, t, err);
    if (!strcmp(v, Q4VK_K_TN_TILED)) {
        const q4vk_lin_dense d = {false, a->dout, a->w, a->scales, NULL, a->dx,
                                  a->M, a->N, a->K, a->gs};
        return q4vk_lin_run_dense(ctx, &d, o, lim, t, err);
    }
    return q4_fail(err, Q4_ERR_ARG,
                   "linear_q4gsw_backward has no variant %s; expected %s, %s or %s", v,
                   Q4VK_K_BWD_TILED, Q4VK_K_BWD_GEMV, Q4VK_K_TN_TILED);
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_linear_q4gsw_backward_plan(const q4vk_device_info *info, int64_t M, int64_t N,
                                     int64_t K, q4vk_plan *p)
{
    *p = (q4vk_plan){0};
    if (M <= Q4VK_GEMV_MAX_M)
        q4vk_plan_add(p, Q4VK_K_BWD_GEMV);
    else if (q4vk_lin_dense_chosen(info, false, (uint64_t)M, (uint64_t)N, (uint64_t)K,
                                   q4vk_op_limit_of(info, 0)))
        q4vk_lin_plan_dense(info, false, (uint64_t)M, (uint64_t)N, (uint64_t)K, p);
    else
        q4vk_lin_plan_tiled(info, Q4VK_K_BWD_TILED, (uint64_t)M, (uint64_t)N, (uint64_t)K,
                            (uint64_t)N, Q4VK_BWD_BIG_BK, p);
}
