/* q4vk_op_plan.c: which built-in kernels each launcher dispatches for a call of a
 * given shape on a given device, without running anything (q4vk.h, "plans"). The
 * harness asks before a run: an override no selected case dispatches is a usage
 * error, and static-check findings apply to the cases that run the module.
 *
 * Each plan makes the launcher's own choices through the launcher's own helpers
 * (q4vk_op_linear_common.h, _dense.h, _mma.h: the gemv bound on M, the tensor-core
 * and dense paths' choices, the tile, the split-K count, the row split;
 * q4vk_op_q4gsw_requant.c: the flat kernel only where K % 8 != 0); gpu/tests checks a plan
 * against the pipelines a launcher really creates. */
#include "q4vk_op_args.h"
#include "q4vk_op_dequantize.h"
#include "q4vk_op_linear_common.h"
#include "q4vk_op_linear_dense.h"
#include "q4vk_op_linear_mma.h"

static void add(q4vk_plan *p, const char *kernel)
{
    if (p->n < Q4VK_PLAN_MAX)
        p->kernels[p->n++] = kernel;
}

/* A q4 tiled GEMM (A K-major) of [M, out_cols] over depth (inputs [M, in_cols]): the
 * tiled kernel, and the split-K reduce where the launcher splits the depth. */
static void tiled(const q4vk_device_info *info, const char *kernel, uint64_t M,
                  uint64_t in_cols, uint64_t out_cols, uint64_t depth, uint32_t bk,
                  q4vk_plan *p)
{
    add(p, kernel);
    const q4vk_gemm_tile tile =
        q4vk_gemm_pick_tile(info, M, out_cols, bk, Q4VK_GEMM_A_ROWS_DEPTH);
    const uint64_t lim = q4vk_op_limit_of(info, 0);
    const uint64_t rows = q4vk_lin_split_rows(M, in_cols, out_cols, lim, info->min_storage_align);
    if (q4vk_gemm_pick_splits(&tile, M, out_cols, depth) > 1 && rows == M)
        add(p, Q4VK_K_SPLITK_REDUCE);
}

/* The dense path (q4vk_op_linear_dense.c) of a forward (fwd) or backward call: the
 * weight's dequantize (transposed for the forward), the activation's transpose,
 * linear_tn_tiled, and the reduce where split. */
static void dense(const q4vk_device_info *info, bool fwd, uint64_t M, uint64_t N, uint64_t K,
                  q4vk_plan *p)
{
    const uint64_t depth = fwd ? K : N, cols = fwd ? N : K;
    add(p, fwd ? Q4VK_K_DEQUANT_T : Q4VK_K_DEQUANT);
    add(p, Q4VK_K_TRANSPOSE);
    add(p, Q4VK_K_TN_TILED);
    const q4vk_gemm_tile tile = q4vk_gemm_pick_tile(info, M, cols, Q4VK_TN_BIG_BK,
                                                    Q4VK_GEMM_A_DEPTH_ROWS);
    if (q4vk_gemm_pick_splits(&tile, M, cols, depth) > 1)
        add(p, Q4VK_K_SPLITK_REDUCE);
}

void q4vk_linear_q4gsw_plan(const q4vk_device_info *info, int64_t M, int64_t N, int64_t K,
                            int64_t gs, q4vk_plan *p)
{
    *p = (q4vk_plan){0};
    if (M <= Q4VK_GEMV_MAX_M)
        add(p, Q4VK_K_FWD_GEMV);
    else {
        /* The tensor-core path: its passes and GEMM, then the fp32 path it hands the
         * call to when x is too coarse for the digits (which the data decides). */
        if (q4vk_lin_mma_chosen(info, (uint64_t)M, (uint64_t)N, (uint64_t)K, (uint64_t)gs,
                                q4vk_op_limit_of(info, 0))) {
            add(p, Q4VK_K_UNPACK_I8);   /* dispatch order: it clears the slice's flag */
            add(p, Q4VK_K_SLICE);
            add(p, Q4VK_K_FWD_MMA);
            p->maybe_from = p->n;
        }
        if (q4vk_lin_dense_chosen(info, true, (uint64_t)M, (uint64_t)N, (uint64_t)K,
                                  q4vk_op_limit_of(info, 0)))
            dense(info, true, (uint64_t)M, (uint64_t)N, (uint64_t)K, p);
        else
            tiled(info, Q4VK_K_FWD_TILED, (uint64_t)M, (uint64_t)K, (uint64_t)N, (uint64_t)K,
                  Q4VK_FWD_BIG_BK, p);
    }
}

void q4vk_linear_q4gsw_backward_plan(const q4vk_device_info *info, int64_t M, int64_t N,
                                     int64_t K, q4vk_plan *p)
{
    *p = (q4vk_plan){0};
    if (M <= Q4VK_GEMV_MAX_M)
        add(p, Q4VK_K_BWD_GEMV);
    else if (q4vk_lin_dense_chosen(info, false, (uint64_t)M, (uint64_t)N, (uint64_t)K,
                                   q4vk_op_limit_of(info, 0)))
        dense(info, false, (uint64_t)M, (uint64_t)N, (uint64_t)K, p);
    else
        tiled(info, Q4VK_K_BWD_TILED, (uint64_t)M, (uint64_t)N, (uint64_t)K, (uint64_t)N,
              Q4VK_BWD_BIG_BK, p);
}

void q4vk_linear_dw_plan(const q4vk_device_info *info, int64_t M, int64_t N, int64_t K,
                         q4vk_plan *p)
{
    (void)info, (void)M, (void)N, (void)K;
    *p = (q4vk_plan){0};
    add(p, Q4VK_K_DW_TILED);
}

void q4vk_dequantize_plan(const q4vk_device_info *info, q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    add(p, "dequantize");
}

void q4vk_fused_ce_plan(const q4vk_device_info *info, q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    add(p, "fused_ce");
    add(p, "fused_ce_loss");
}

void q4vk_adamw_step_plan(const q4vk_device_info *info, q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    add(p, "adamw_step");
}

void q4vk_q4gsw_requant_plan(const q4vk_device_info *info, int64_t K, bool w, bool flat,
                             q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    /* the w4x8 kernel writes flat too where K % 8 == 0; else the flat kernel does */
    const bool fused_flat = flat && K % 8 == 0;
    if (w || fused_flat)
        add(p, "q4gsw_requant_w4x8");
    if (flat && !fused_flat)
        add(p, "q4gsw_requant_flat");
}
