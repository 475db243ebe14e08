/* q4vk_op_linear_mma.c: the tensor-core path of linear_q4gsw (declared in
 * q4vk_op_linear_mma.h). Three kernels in two submissions:
 *   unpack_w_i8       W_4X8 -> the codes - 8 as int8, rows N..Np-1 zero
 *   linear_slice_i8   x [M, K] -> 4 int8 digits per element under one exponent per row
 *                     and block of blk K (blk = 128 or 64, the larger that divides gs;
 *                     other gs take the fp32 path), rows M..Mp-1 zero
 *   linear_q4gsw_mma  y = sum over blocks of v * scale * 2^(e - 27), v the block's
 *                     exact int32 products of digits and codes (cooperative matrices)
 * Digits and codes lie in the GEMM's staging order (the kernels' headers say how), so
 * that each workgroup's step of 32 K is one contiguous read.
 * Mp and Np round M and N up to the GEMM's 64 x 128 tile; the padding rows are zeros.
 * The passes run first, in a submission of their own: where an element of x is too
 * coarse for four digits (linear_slice_i8's `lossy`: its dropped residual above a
 * quarter of its own rounding unit), the launcher runs its fp32 path instead, so the
 * result meets SPEC §3 whatever the data; the op's time then includes the passes.
 * docs/numerics.md ("The sliced int8 path") derives why four digits of 7 bits meet
 * SPEC §3's bound. The path needs q4vk_device_info.coopmat_s8; elsewhere a request
 * for it is Q4_ERR_UNSUPPORTED, and the launcher's choice never makes one. */
#include <inttypes.h>
#include <string.h>

#include "q4vk_op_linear_mma.h"
#include "q4vk_op_linear_common.h"

#define TILE_M 64u
#define TILE_N 128u
#define PLANES 4u
#define MMA_SHARED_BYTES 40960u   /* linear_q4gsw_mma.comp's s_a, s_b, s_iota and the block factors */

typedef struct slice_push {
    uint32_t M, K, blk, Mp, total;
} slice_push;

typedef struct unpack_push {
    uint32_t N, K, N8, Np, total;
} unpack_push;

typedef struct mma_push {
    uint32_t M, N, K, gs, blk, Mp, has_bias, tiles_n;
} mma_push;

static uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

/* The exponent block: 128 or 64, whichever divides gs (0: neither). Each block ends in
 * an fp32 epilogue over the whole tile; at 32 K a block (gs = 32) it outweighed the
 * tensor cores' gain: H200, M = 4096, N = K = 4096, 3.51 ms against the fp32 path's
 * 3.15 (M = 512: 0.494 against 0.452), where gs = 128 took 2.01 against 3.15. */
static uint32_t block_k(uint64_t gs)
{
    return gs % 128 == 0 ? 128u : gs % 64 == 0 ? 64u : 0u;
}

const char *q4vk_lin_mma_misfit(const q4vk_device_info *info, uint64_t M, uint64_t N,
                                uint64_t K, uint64_t gs, uint64_t limit)
{
    if (!info->coopmat_s8)
        return "the device has no int8 cooperative matrices (VK_NV_cooperative_matrix with "
               "s8 x s8 -> s32 16x16x32 in subgroups of 32, shaderInt8 and the Vulkan memory "
               "model with device scope)";
    if (!block_k(gs))
        return "gs is not a multiple of 64";
    if (info->max_shared_bytes < MMA_SHARED_BYTES || info->max_invocations < 256)
        return "its workgroup (256 invocations, 40960 bytes of shared memory) does not fit";
    q4vk_lin_mma_scratch sz;
    q4vk_lin_mma_sizes(M, N, K, gs, &sz);
    const uint64_t mp = sz.mp, np = sz.np;
    const uint64_t digits = sz.digit_bytes, codes = sz.code_bytes, exps = sz.exp_bytes;
    const uint64_t one = q4vk_lin_scratch_one(info, limit);
    if (M * K * 4 > limit)
        return "x does not fit one binding";
    if (M * N * 4 > limit)
        return "y does not fit one binding";
    if (digits > one || codes > one)
        return "the int8 operands do not fit one buffer";
    if (!q4vk_lin_scratch_fits_heap(info, digits + codes + exps))
        return "the int8 operands do not fit a quarter of device memory";
    if (mp * K > UINT32_MAX || np * K > UINT32_MAX || (PLANES - 1) * mp * K > UINT32_MAX - mp * K)
        return "the int8 operands exceed 32-bit indexing";
    if (!q4vk_fold_fits(info, mp * K / 1024) || !q4vk_fold_fits(info, np * K / 2048) ||
        !q4vk_fold_fits(info, mp / TILE_M * (np / TILE_N)))
        return "its grids do not fit the device's workgroup counts";
    return NULL;
}

bool q4vk_kernel_tensor_core(const char *kernel)
{
    return kernel && (!strcmp(kernel, Q4VK_K_FWD_MMA) || !strcmp(kernel, Q4VK_K_SLICE) ||
                      !strcmp(kernel, Q4VK_K_UNPACK_I8));
}

bool q4vk_lin_mma_chosen(const q4vk_device_info *info, uint64_t M, uint64_t N, uint64_t K,
                         uint64_t gs, uint64_t limit)
{
    return M >= info->mma_min_m && !q4vk_lin_mma_misfit(info, M, N, K, gs, limit);
}

void q4vk_lin_mma_sizes(uint64_t M, uint64_t N, uint64_t K, uint64_t gs,
                        q4vk_lin_mma_scratch *sz)
{
    const uint64_t mp = round_up(M, TILE_M), np = round_up(N, TILE_N), blk = block_k(gs);
    sz->mp = mp;
    sz->np = np;
    sz->blk = blk;
    sz->digit_bytes = PLANES * mp * K;
    sz->code_bytes = np * K;
    sz->exp_bytes = blk ? mp * (K / blk) * 4 : 0;
}

q4_status q4vk_lin_mma_passes(q4vk_context *ctx, const q4vk_linear_args *a,
                              const q4vk_lin_mma_bufs *b, q4vk_timing *t, q4_error *err)
{
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    q4vk_lin_mma_scratch sz;
    q4vk_lin_mma_sizes(M, N, K, (uint64_t)a->gs, &sz);
    if (!sz.blk)
        return q4_fail(err, Q4_ERR_ARG, "the tensor-core passes need gs a multiple of 64, got %"
                       PRId64, a->gs);
    q4vk_pipeline *p_slice, *p_unpack;
    q4_status st;
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_SLICE, NULL, &p_slice, err)) ||
        (st = q4vk_op_pipeline(ctx, Q4VK_K_UNPACK_I8, NULL, &p_unpack, err)))
        return st;
    /* unpack_w_i8 first: it also clears the flag linear_slice_i8 sets. */
    q4vk_dispatch d[2] = {{0}};
    unpack_push up = {(uint32_t)N, (uint32_t)K, (uint32_t)q4_n8(a->N), (uint32_t)sz.np,
                      (uint32_t)(sz.np / 2 * K / 4)};
    d[0].pipe = p_unpack;
    d[0].bind[0] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    d[0].bind[1] = (q4vk_binding){b->codes, 0, sz.code_bytes};
    d[0].bind[2] = (q4vk_binding){b->lossy, 0, 4};
    d[0].push = &up;
    if ((st = q4vk_fold(ctx, Q4VK_K_UNPACK_I8, (up.total + 255) / 256, d[0].groups, err)))
        return st;

    slice_push sp = {(uint32_t)M, (uint32_t)K, (uint32_t)sz.blk, (uint32_t)sz.mp,
                     (uint32_t)(sz.mp * K / 4)};
    d[1].pipe = p_slice;
    d[1].bind[0] = (q4vk_binding){a->x, 0, M * K * 4};
    d[1].bind[1] = (q4vk_binding){b->digits, 0, sz.digit_bytes};
    d[1].bind[2] = (q4vk_binding){b->exps, 0, sz.exp_bytes};
    d[1].bind[3] = (q4vk_binding){b->lossy, 0, 4};
    d[1].push = &sp;
    if ((st = q4vk_fold(ctx, Q4VK_K_SLICE, (sp.total + 255) / 256, d[1].groups, err)))
        return st;
    return q4vk_run(ctx, d, 2, t, err);
}

/* The two passes, then (when no element of x was too coarse for the digits) the GEMM:
 * two submissions, the lossy flag read back between them. Recorded into a sequence
 * (q4vk_sequence_recording) on a device with conditional rendering, nothing is read
 * back: the GEMM is recorded to run when the flag is clear, and the call returns with
 * *lossy set and the sequence's condition "the flag is set" in force, for the caller's
 * fallback, which must clear it (q4vk_sequence_when(ctx, NULL, ...)) after. */
q4_status q4vk_lin_run_mma(q4vk_context *ctx, const q4vk_linear_args *a, uint64_t lim,
                           bool *lossy, q4vk_timing *t, q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const uint64_t M = (uint64_t)a->M, N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t gs = (uint64_t)a->gs;
    *lossy = false;
    const char *misfit = q4vk_lin_mma_misfit(info, M, N, K, gs, lim);
    if (misfit)
        return q4_fail(err, info->coopmat_s8 ? Q4_ERR_RESOURCE : Q4_ERR_UNSUPPORTED,
                       "variant %s cannot run M = %" PRIu64 ", N = %" PRIu64 ", K = %" PRIu64
                       ", gs = %" PRIu64 " on this device: %s", Q4VK_K_FWD_MMA, M, N, K, gs,
                       misfit);
    q4vk_lin_mma_scratch sz;
    q4vk_lin_mma_sizes(M, N, K, gs, &sz);
    q4vk_pipeline *p_mma;
    q4_status st;
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_FWD_MMA, NULL, &p_mma, err)))
        return st;
    q4vk_lin_mma_bufs b = {NULL, NULL, NULL, NULL};
    if ((st = q4vk_buffer_create(ctx, (size_t)sz.digit_bytes, &b.digits, err)) ||
        (st = q4vk_buffer_create(ctx, (size_t)sz.exp_bytes, &b.exps, err)) ||
        (st = q4vk_buffer_create(ctx, (size_t)sz.code_bytes, &b.codes, err)) ||
        (st = q4vk_buffer_create(ctx, 4, &b.lossy, err)))
        goto out;
    q4vk_timing t_pass = {-1.0}, t_gemm = {-1.0};
    uint32_t coarse = 0;
    const bool recorded = q4vk_sequence_recording(ctx) && info->conditional;
    if ((st = q4vk_lin_mma_passes(ctx, a, &b, &t_pass, err)) ||
        (!recorded && (st = q4vk_download(ctx, b.lossy, 0, &coarse, 4, err))) ||
        (recorded && (st = q4vk_sequence_when(ctx, b.lossy, false, err))))
        goto out;
    if (t)
        t->gpu_ms = t_pass.gpu_ms;
    if (coarse) {
        *lossy = true;
        goto out;
    }

    const uint64_t s_bytes = (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4;
    mma_push mp_ = {(uint32_t)M, (uint32_t)N, (uint32_t)K, (uint32_t)gs, (uint32_t)sz.blk,
                    (uint32_t)sz.mp, a->bias != NULL, (uint32_t)(sz.np / TILE_N)};
    q4vk_dispatch g = {0};
    g.pipe = p_mma;
    g.bind[0] = (q4vk_binding){b.digits, 0, sz.digit_bytes};
    g.bind[1] = (q4vk_binding){b.exps, 0, sz.exp_bytes};
    g.bind[2] = (q4vk_binding){b.codes, 0, sz.code_bytes};
    g.bind[3] = (q4vk_binding){a->scales, 0, s_bytes};
    /* No bias: any buffer fills the binding (the kernel never reads it). */
    g.bind[4] = a->bias ? (q4vk_binding){a->bias, 0, N * 4}
                        : (q4vk_binding){a->scales, 0, s_bytes};
    g.bind[5] = (q4vk_binding){a->y, 0, q4vk_op_to_end(a->y, 0, lim)};
    g.push = &mp_;
    if ((st = q4vk_fold(ctx, Q4VK_K_FWD_MMA, sz.mp / TILE_M * mp_.tiles_n, g.groups, err)))
        goto out;
    st = q4vk_run(ctx, &g, 1, &t_gemm, err);
    if (recorded && st == Q4_OK && (st = q4vk_sequence_when(ctx, b.lossy, true, err)) == Q4_OK)
        *lossy = true;   /* the fallback, recorded next, runs when the flag is set */
    if (t)
        t->gpu_ms = t_pass.gpu_ms >= 0 && t_gemm.gpu_ms >= 0 ? t_pass.gpu_ms + t_gemm.gpu_ms
                                                            : -1.0;
out:
    q4vk_buffer_destroy(ctx, b.digits);
    q4vk_buffer_destroy(ctx, b.exps);
    q4vk_buffer_destroy(ctx, b.codes);
    q4vk_buffer_destroy(ctx, b.lossy);
    return st;
}
