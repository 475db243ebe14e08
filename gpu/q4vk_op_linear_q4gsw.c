/* q4vk_op_linear_q4gsw.c: launcher of linear_q4gsw, y = x @ dequant(W)^T (+ bias) (SPEC §2).
 *
 * Four variants, named by their (main) kernels:
 *  - linear_q4gsw_gemv (M <= 8): a stream over the packed weights; a workgroup owns 4
 *    block columns (32 rows of W, 64 contiguous bytes per k4 row) and all of K in KT
 *    slices with U blocks in flight each, summed in shared memory; M is a specialisation
 *    constant so the accumulators are exactly M x 8, and at M <= 2 the scale is applied
 *    once per chunk of rows.
 *  - linear_q4gsw_tiled (any M; the choice above 8 where the dense path is not): the
 *    tiled GEMM of q4_gemm.glsl with a tile picked from the device limits; x and y
 *    are split by rows into several dispatches when they exceed one binding.
 *  - linear_tn_tiled (the choice from M = dense_min_m up, where its scratch fits): the
 *    dense path of q4vk_op_linear_dense.c, W dequantized into fp32 scratch first.
 *  - linear_q4gsw_mma (the choice above 8 from M = mma_min_m up, where the device has
 *    int8 cooperative matrices and gs % 64 == 0): the tensor-core path of
 *    q4vk_op_linear_mma.c, exact int8 products of x's digits and the codes.
 * The order below: public entry, the operands (checked in q4vk_op_linear_common.c),
 * the gemv and tiled variants, the dispatcher. */
#include <string.h>

#include "q4vk_op_linear_q4gsw.h"
#include "q4vk_op_linear_dense.h"
#include "q4vk_op_linear_mma.h"

/* What linear_q4gsw_gemv.comp reads as push constants. */
typedef struct gemv_push {
    uint32_t N, K, gs, N8, has_bias, strips;
} gemv_push;

q4_status q4vk_linear_q4gsw(q4vk_context *ctx, const q4vk_linear_args *a, q4vk_timing *t,
                            q4_error *err)
{
    return q4vk_linear_q4gsw_opts(ctx, a, NULL, t, err);
}

/* x, w, scales, bias and y as q4vk_lin_check_args and q4vk_lin_gemv_check see them. */
static q4vk_lin_operands operands(const q4vk_linear_args *a)
{
    return (q4vk_lin_operands){a->x, a->w, a->scales, a->bias, a->y, "x", "y", a->K, a->N};
}

static q4_status run_gemv(q4vk_context *ctx, const q4vk_linear_args *a, uint64_t lim,
                          q4vk_timing *t, q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t N8 = (uint64_t)q4_n8(a->N), K4 = K / 4;
    const q4vk_lin_operands p = operands(a);
    q4_status st;
    if ((st = q4vk_lin_gemv_check(Q4VK_K_FWD_GEMV, M, &p, lim, err)))
        return st;
    /* 256 invocations (128 where that is the device's most): NS = 4 lanes along N8 (a
     * k4 row of the strip is 64 contiguous bytes, two sectors) x KT slices along K,
     * each with U blocks in flight (fewer as M's accumulators grow; H200, M = 1,
     * N = K = 16384: U = 4 took 0.415 ms where U = 8 took 0.586); KT shrinks on short
     * K so that slices are not left idle. H200, NS = 4 against 2 / 8: M = 1 11008x4096
     * 16.3 / 19.6 / 19.9 us, M = 8 43.0 / 62.4 / 56.1 us, and better or equal on every
     * perf shape but M = 1 2048^2 (7.8 / 7.1 / 10.1 us). */
    const uint32_t ns = 4;
    const uint32_t u = M <= 4 ? 4 : 2;
    uint32_t kt = (info->max_invocations >= 256 ? 256 : 128) / ns;
    while (kt > 16 && (uint64_t)(kt / 2) * u >= K4)
        kt /= 2;
    /* Chunks of ug rows share one scale load and group index: the largest power of
     * two dividing both u and gs/4. At M <= 2 the scale multiplies a chunk's sum
     * (once per ug*4 weights of a row) instead of every weight: M = 1 then spends 3
     * operations a weight (decode 2, FMA 1) instead of 4. Above, the per-weight
     * multiply is shared by M FMAs and a chunk's sums would cost 8*M registers. */
    const uint64_t g4 = (uint64_t)a->gs / 4;
    uint32_t ug = 1;
    while (ug < u && g4 % (ug * 2) == 0)
        ug *= 2;
    const uint32_t cs = M <= 2;
    /* Rows of x per pass of the shared-memory sum: as many as fit (floats: 8 sums x
     * (invocations + ns) per row, plus the partials), at least 1 (2.3 K floats at 256
     * invocations, under the 16 KiB every device has). */
    const uint32_t wgi = ns * kt;
    uint32_t mp = (uint32_t)M;
    while (mp > 1 && ((uint64_t)mp * 8 * (wgi + ns) + (wgi > mp * 8 * ns ? wgi : mp * 8 * ns)) * 4 >
                         info->max_shared_bytes)
        mp--;

    const uint64_t strips = (N8 + ns - 1) / ns;
    gemv_push push = {(uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)N8,
                      a->bias != NULL, (uint32_t)strips};
    q4vk_spec spec = {.count = 8, .ids = {0, 1, 2, 3, 4, 5, 6, 7},
                      .values = {wgi, ns, kt, (uint32_t)M, u, ug, cs, mp}};
    q4vk_dispatch d = {0};
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_FWD_GEMV, &spec, &d.pipe, err)))
        return st;
    const uint64_t s_bytes = (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4;
    d.bind[Q4VK_FWD_X] = (q4vk_binding){a->x, 0, M * K * 4};
    d.bind[Q4VK_FWD_W] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    d.bind[Q4VK_FWD_SCALES] = (q4vk_binding){a->scales, 0, s_bytes};
    /* No bias: any buffer fills the binding (the kernel never reads it). */
    d.bind[Q4VK_FWD_BIAS] = a->bias ? (q4vk_binding){a->bias, 0, N * 4}
                                    : (q4vk_binding){a->scales, 0, s_bytes};
    d.bind[Q4VK_FWD_Y] = (q4vk_binding){a->y, 0, q4vk_op_to_end(a->y, 0, lim)};
    d.push = &push;
    if ((st = q4vk_fold(ctx, Q4VK_K_FWD_GEMV, strips, d.groups, err)))
        return st;
    return q4vk_run(ctx, &d, 1, t, err);
}

static q4_status run_tiled(q4vk_context *ctx, const q4vk_linear_args *a,
                           const q4vk_linear_opts *o, uint64_t lim, q4vk_timing *t,
                           q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    q4_status st;
    q4vk_gemm_tile tile =
        o && o->tile ? *o->tile : q4vk_gemm_pick_tile(info, M, N, Q4VK_FWD_BIG_BK,
                                                      Q4VK_GEMM_A_ROWS_DEPTH);
    if ((st = q4vk_gemm_check_tile(info, &tile, Q4VK_GEMM_A_ROWS_DEPTH, err)))
        return st;

    /* x [M, K] and y [M, N] split by rows when one binding cannot hold them. */
    uint64_t rows = q4vk_lin_split_rows(M, K, N, lim, info->min_storage_align);
    if (rows == 0)
        return K >= N ? q4vk_op_fits("x", M * K * 4, lim, err)
                      : q4vk_op_fits("y", M * N * 4, lim, err);

    q4vk_spec spec;
    q4vk_gemm_spec(&tile, &spec);
    q4vk_lin_tiled job = {
        .kernel = Q4VK_K_FWD_TILED,
        .n_bind = Q4VK_FWD_BINDINGS,
        .in_slot = Q4VK_FWD_X, .out_slot = Q4VK_FWD_Y, .part_slot = Q4VK_FWD_PARTIALS,
        .in_cols = K, .out_cols = N,
        .push = {(uint32_t)M, (uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)q4_n8(a->N),
                 a->bias != NULL, 0, 0, 1, (uint32_t)K},
        .tile = tile, .bias = a->bias, .limit = lim,
    };
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_FWD_TILED, &spec, &job.pipe, err)))
        return st;
    const uint64_t s_bytes = (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4;
    job.bind[Q4VK_FWD_X] = (q4vk_binding){a->x, 0, 0};
    job.bind[Q4VK_FWD_W] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    job.bind[Q4VK_FWD_SCALES] = (q4vk_binding){a->scales, 0, s_bytes};
    job.bind[Q4VK_FWD_BIAS] = a->bias ? (q4vk_binding){a->bias, 0, N * 4}
                                      : (q4vk_binding){a->scales, 0, s_bytes};
    job.bind[Q4VK_FWD_Y] = (q4vk_binding){a->y, 0, 0};
    /* The split-K partials take the scales when the GEMM is not split: the kernel
     * never touches them then. */
    job.bind[Q4VK_FWD_PARTIALS] = (q4vk_binding){a->scales, 0, s_bytes};

    /* Split-K over K when there are too few tiles to fill the device (M = 512). */
    uint32_t splits = o && o->splits ? o->splits : q4vk_gemm_pick_splits(&tile, M, N, K);
    bool ran = false;
    if (splits > 1 && rows == M &&
        ((st = q4vk_lin_run_split(ctx, &job, splits, NULL, 0, &ran, t, err)) || ran))
        return st;
    return q4vk_lin_run_rows(ctx, &job, rows, t, err);
}

static q4_status run_dense(q4vk_context *ctx, const q4vk_linear_args *a,
                           const q4vk_linear_opts *o, uint64_t lim, q4vk_timing *t,
                           q4_error *err)
{
    const q4vk_lin_dense d = {true, a->x, a->w, a->scales, a->bias, a->y,
                              a->M, a->N, a->K, a->gs};
    return q4vk_lin_run_dense(ctx, &d, o, lim, t, err);
}

/* The fp32 choice above M = 8: the dense path where chosen, else the tiled kernel (also
 * what the tensor-core path hands a call to). */
static const char *fp32_variant(q4vk_context *ctx, const q4vk_linear_args *a, uint64_t lim)
{
    return q4vk_lin_dense_chosen(q4vk_info(ctx), true, (uint64_t)a->M, (uint64_t)a->N,
                                 (uint64_t)a->K, lim) ? Q4VK_K_TN_TILED : Q4VK_K_FWD_TILED;
}

q4_status q4vk_linear_q4gsw_opts(q4vk_context *ctx, const q4vk_linear_args *a,
                                 const q4vk_linear_opts *o, q4vk_timing *t, q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "linear_q4gsw", err)))
        return st;
    const uint64_t lim = q4vk_op_limit(ctx, o ? o->max_binding : 0);
    const q4vk_lin_operands p = operands(a);
    if ((st = q4vk_lin_check_args(a->M, a->N, a->K, a->gs, &p, lim, err)) ||
        (st = q4vk_op_check_scales(ctx, a->scales, q4_scales_count(a->N, a->K, a->gs), err)))
        return st;
    const char *v = o && o->variant ? o->variant
                  : a->M <= Q4VK_GEMV_MAX_M ? Q4VK_K_FWD_GEMV
                  : q4vk_lin_mma_chosen(q4vk_info(ctx), (uint64_t)a->M, (uint64_t)a->N,
                                        (uint64_t)a->K, (uint64_t)a->gs, lim) ? Q4VK_K_FWD_MMA
                  : fp32_variant(ctx, a, lim);
    if (!strcmp(v, Q4VK_K_FWD_GEMV))
        return run_gemv(ctx, a, lim, t, err);
    if (!strcmp(v, Q4VK_K_FWD_TILED))
        return run_tiled(ctx, a, o, lim, t, err);
    if (!strcmp(v, Q4VK_K_FWD_MMA)) {
        /* Data too coarse for the digits: the fp32 path the device would take without
         * the tensor cores, its time added to the passes'. */
        bool lossy;
        q4vk_timing t_pass = {-1.0};
        if ((st = q4vk_lin_run_mma(ctx, a, lim, &lossy, t ? &t_pass : NULL, err)) || !lossy) {
            if (t)
                *t = t_pass;
            return st;
        }
        st = strcmp(fp32_variant(ctx, a, lim), Q4VK_K_TN_TILED)
                 ? run_tiled(ctx, a, o, lim, t, err) : run_dense(ctx, a, o, lim, t, err);
        if (q4vk_sequence_recording(ctx)) {   /* recorded under the flag: back to always */
            q4_error ignored = {0};
            q4vk_sequence_when(ctx, NULL, false, &ignored);
        }
        if (t && t->gpu_ms >= 0)
            t->gpu_ms = t_pass.gpu_ms >= 0 ? t->gpu_ms + t_pass.gpu_ms : -1.0;
        return st;
    }
    if (!strcmp(v, Q4VK_K_TN_TILED))
        return run_dense(ctx, a, o, lim, t, err);
    return q4_fail(err, Q4_ERR_ARG, "linear_q4gsw has no variant %s; expected %s, %s, %s or %s",
                   v, Q4VK_K_FWD_TILED, Q4VK_K_FWD_GEMV, Q4VK_K_TN_TILED, Q4VK_K_FWD_MMA);
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_linear_q4gsw_plan(const q4vk_device_info *info, int64_t M, int64_t N, int64_t K,
                            int64_t gs, q4vk_plan *p)
{
    *p = (q4vk_plan){0};
    if (M <= Q4VK_GEMV_MAX_M)
        q4vk_plan_add(p, Q4VK_K_FWD_GEMV);
    else {
        /* The tensor-core path: its passes and GEMM, then the fp32 path it hands the
         * call to when x is too coarse for the digits (which the data decides). */
        if (q4vk_lin_mma_chosen(info, (uint64_t)M, (uint64_t)N, (uint64_t)K, (uint64_t)gs,
                                q4vk_op_limit_of(info, 0))) {
            q4vk_plan_add(p, Q4VK_K_UNPACK_I8);   /* dispatch order: it clears the slice's flag */
            q4vk_plan_add(p, Q4VK_K_SLICE);
            q4vk_plan_add(p, Q4VK_K_FWD_MMA);
            p->maybe_from = p->n;
        }
        if (q4vk_lin_dense_chosen(info, true, (uint64_t)M, (uint64_t)N, (uint64_t)K,
                                  q4vk_op_limit_of(info, 0)))
            q4vk_lin_plan_dense(info, true, (uint64_t)M, (uint64_t)N, (uint64_t)K, p);
        else
            q4vk_lin_plan_tiled(info, Q4VK_K_FWD_TILED, (uint64_t)M, (uint64_t)K, (uint64_t)N,
                                (uint64_t)K, Q4VK_FWD_BIG_BK, p);
    }
}
