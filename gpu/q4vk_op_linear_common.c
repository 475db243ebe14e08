/* q4vk_op_linear_common.c: what the launchers of linear_q4gsw, linear_q4gsw_backward
 * and linear_dW share (declared in q4vk_op_linear_common.h): the tile shape of the tiled
 * GEMM kernels and how it is picked from the device limits, the split-K and row-split
 * runs of a tiled kernel, then the operand checks of the forward and backward. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4vk_op_linear_common.h"

/* ---------------- tiles ---------------- */

/* Below this many 128x128 tiles, 64x64 ones fill a large GPU better. Measured on an
 * H200 (132 SMs): 128x128 still wins at 128 tiles (M = 512, N = 4096). */
#define BIG_TILES_MIN 64

/* Split-K (q4_gemm.glsl). Measured on an H200 (132 SMs; M = 512, tiles 128x128):
 * one 128x128 workgroup per SM runs as fast as two, so the time goes with the number
 * of rounds of GPU_SLOTS workgroups: 64 tiles use half the SMs (33% of the FMA rate
 * unsplit, 61% in 2 slices), 128 tiles fill them once (67% unsplit, 56% in 2 slices),
 * 344 tiles take 3 rounds of which the last is partly idle (55% unsplit, 62% in 3
 * slices = 8 full rounds). Each slice also costs 8 bytes of partial output traffic
 * per output element against 2 * depth / s flops: at 14 flops per byte (H200 FMA rate
 * over copy bandwidth) that is SPLIT_COST / depth of the time per slice. The picker
 * takes the slice count with the least modelled time, slices no shallower than
 * SPLIT_DEPTH_MIN. */
#define GPU_SLOTS 132
#define SPLITS_MAX 8
#define SPLIT_DEPTH_MIN 512
#define SPLIT_COST 56.0

uint32_t q4vk_gemm_shared_bytes(const q4vk_gemm_tile *tile, q4vk_gemm_a a)
{
    /* q4_gemm.glsl: two buffers each of A (BK rows of BM/4 + 1 vec4, or K-major BM
     * rows of BK/4 + 1) and of B (BK rows of BN/4 + 1 vec4). */
    const uint32_t a_vec4 = a == Q4VK_GEMM_A_ROWS_DEPTH ? tile->bm * (tile->bk / 4 + 1)
                                                        : tile->bk * (tile->bm / 4 + 1);
    return 2u * (a_vec4 + tile->bk * (tile->bn / 4 + 1)) * 16u;
}

static uint32_t tile_invocations(const q4vk_gemm_tile *tile)
{
    return (tile->bm / tile->tm) * (tile->bn / tile->tn);
}

q4_status q4vk_gemm_check_tile(const q4vk_device_info *info, const q4vk_gemm_tile *tile,
                               q4vk_gemm_a a, q4_error *err)
{
    const q4vk_gemm_tile *t = tile;
    /* BM, BN, BK multiples of 8: the weight loaders stage whole 8-row blocks. */
    if (!t->tm || !t->tn || t->tm % 4 || t->tn % 4 || !t->bm || !t->bn || t->bm % 8 ||
        t->bn % 8 || t->bm % t->tm || t->bn % t->tn || !t->bk || t->bk % 8)
        return q4_fail(err, Q4_ERR_ARG,
                       "tile %ux%u (BK %u, %ux%u per invocation) is malformed: BM, BN and BK "
                       "must be multiples of 8, and TM, TN multiples of 4 dividing BM, BN",
                       t->bm, t->bn, t->bk, t->tm, t->tn);
    uint32_t inv = tile_invocations(t), shared = q4vk_gemm_shared_bytes(t, a);
    if (inv > info->max_invocations || inv > info->max_group_size[0])
        return q4_fail(err, Q4_ERR_ARG,
                       "tile %ux%u needs %u invocations per workgroup; this device allows %u",
                       t->bm, t->bn, inv, info->max_invocations);
    if (shared > info->max_shared_bytes)
        return q4_fail(err, Q4_ERR_ARG,
                       "tile %ux%u (BK %u) needs %u bytes of shared memory; this device allows %u",
                       t->bm, t->bn, t->bk, shared, info->max_shared_bytes);
    return Q4_OK;
}

q4vk_gemm_tile q4vk_gemm_pick_tile(const q4vk_device_info *info, uint64_t rows, uint64_t cols,
                                   uint32_t big_bk, q4vk_gemm_a a)
{
    const q4vk_gemm_tile big = {128, 128, big_bk, 8, 8};
    static const q4vk_gemm_tile big8 = {128, 128, 8, 8, 8};
    static const q4vk_gemm_tile small = {64, 64, 16, 4, 4};
    uint64_t big_tiles = ((rows + 127) / 128) * ((cols + 127) / 128);
    if (big_tiles >= BIG_TILES_MIN) {
        if (q4vk_gemm_check_tile(info, &big, a, NULL) == Q4_OK)
            return big;
        if (q4vk_gemm_check_tile(info, &big8, a, NULL) == Q4_OK)
            return big8;
    }
    if (q4vk_gemm_check_tile(info, &small, a, NULL) == Q4_OK)
        return small;
    /* Vulkan guarantees 128 invocations and 16 KiB of shared memory, no more. */
    return (q4vk_gemm_tile){64, 64, 8, 8, 4};
}

uint32_t q4vk_gemm_pick_splits(const q4vk_gemm_tile *tile, uint64_t rows, uint64_t cols,
                               uint64_t depth)
{
    const uint64_t tiles =
        ((rows + tile->bm - 1) / tile->bm) * ((cols + tile->bn - 1) / tile->bn);
    uint32_t best = 1;
    double best_t = 0;
    for (uint32_t s = 1; s <= SPLITS_MAX && (s == 1 || depth / s >= SPLIT_DEPTH_MIN); s++) {
        /* Rounds of full-depth work: rounds of slices, each 1/s deep; plus the partials. */
        const uint64_t rounds = (tiles * s + GPU_SLOTS - 1) / GPU_SLOTS;
        const double t = (double)rounds / s * (1.0 + (s > 1 ? SPLIT_COST * s / (double)depth : 0));
        if (s == 1 || t < best_t * 0.98) {   /* a slice more must gain at least 2% */
            best = s;
            best_t = t;
        }
    }
    return best;
}

void q4vk_gemm_spec(const q4vk_gemm_tile *tile, q4vk_spec *spec)
{
    *spec = (q4vk_spec){
        .count = 6,
        .ids = {0, 1, 2, 3, 4, 5},
        .values = {tile_invocations(tile), tile->bm, tile->bn, tile->bk, tile->tm, tile->tn},
    };
}

/* ---------------- arguments ---------------- */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

uint64_t q4vk_lin_split_rows(uint64_t rows, uint64_t c1, uint64_t c2, uint64_t limit,
                             uint64_t align)
{
    uint64_t wide = c1 > c2 ? c1 : c2;
    if (rows * wide * 4 <= limit)
        return rows;   /* one dispatch */
    if (align == 0)
        align = 1;
    /* The smallest row count whose byte length is a multiple of align for both. */
    uint64_t s1 = align / gcd64(align, 4 * c1), s2 = align / gcd64(align, 4 * c2);
    uint64_t step = s1 / gcd64(s1, s2) * s2;
    uint64_t fit = limit / (4 * wide) / step * step;
    return fit < rows ? fit : rows;
}

/* What linear_splitk_reduce.comp reads as push constants. */
typedef struct reduce_push {
    uint32_t count4, cols4, splits, has_bias;
} reduce_push;

/* Workgroups of linear_splitk_reduce for a [M, out_cols] output. */
static uint64_t reduce_groups(uint64_t M, uint64_t out_cols)
{
    return (M * out_cols / 4 + 255) / 256;
}

q4_status q4vk_lin_run_split(q4vk_context *ctx, const q4vk_lin_tiled *job, uint32_t splits,
                             const q4vk_dispatch *pre, int n_pre, bool *ran, q4vk_timing *t,
                             q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const q4vk_gemm_tile *tile = &job->tile;
    const uint64_t M = job->push.M, out_cols = job->out_cols, count = M * out_cols;
    const uint64_t depth = job->push.split_depth;
    q4vk_lin_push push = job->push;
    const uint64_t slice = (depth + splits - 1) / splits;
    push.split_depth = (uint32_t)((slice + tile->bk - 1) / tile->bk * tile->bk);
    push.splits = (uint32_t)((depth + push.split_depth - 1) / push.split_depth);
    const uint64_t p_bytes = (uint64_t)push.splits * count * 4;
    const q4vk_binding out = job->bind[job->out_slot];
    q4vk_pipeline *p_red;
    q4vk_buffer *part = NULL;
    q4vk_dispatch *d = NULL;
    uint32_t g_groups[3], r_groups[3];
    q4_status st;
    *ran = false;
    if (p_bytes > job->limit || (info->max_alloc_bytes && p_bytes > info->max_alloc_bytes))
        return Q4_OK;
    push.tiles_n = (uint32_t)((out_cols + tile->bn - 1) / tile->bn);
    push.tiles_total = (uint32_t)((M + tile->bm - 1) / tile->bm) * push.tiles_n;
    if ((st = q4vk_fold(ctx, job->kernel, (uint64_t)push.tiles_total * push.splits, g_groups,
                        err)) ||
        (st = q4vk_fold(ctx, Q4VK_K_SPLITK_REDUCE, reduce_groups(M, out_cols), r_groups, err)))
        return st;
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_SPLITK_REDUCE, NULL, &p_red, err)))
        return st;
    if (!(d = calloc((size_t)n_pre + 2, sizeof *d)))
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory for %d dispatches", n_pre + 2);
    if ((st = q4vk_buffer_create(ctx, (size_t)p_bytes, &part, err))) {
        free(d);
        return st;
    }

    reduce_push rp = {(uint32_t)(count / 4), (uint32_t)(out_cols / 4), push.splits,
                      job->bias != NULL};
    for (int i = 0; i < n_pre; i++)
        d[i] = pre[i];
    q4vk_dispatch *g = &d[n_pre], *r = &d[n_pre + 1];
    g->pipe = job->pipe;
    for (uint32_t b = 0; b < job->n_bind; b++)
        g->bind[b] = job->bind[b];
    if (!g->bind[job->in_slot].range)
        g->bind[job->in_slot].range = M * depth * 4;
    g->bind[job->part_slot] = (q4vk_binding){part, 0, p_bytes};
    /* Bound but not written by the GEMM pass; the reduce writes it (to the end of its
     * buffer, so an out-of-bounds write reaches the guard words). */
    g->bind[job->out_slot] = (q4vk_binding){out.buf, 0, q4vk_op_to_end(out.buf, 0, job->limit)};
    g->push = &push;
    memcpy(g->groups, g_groups, sizeof g_groups);
    r->pipe = p_red;
    r->bind[Q4VK_RED_PARTIALS] = (q4vk_binding){part, 0, p_bytes};
    /* No bias: any buffer fills the binding (the kernel never reads it). */
    r->bind[Q4VK_RED_BIAS] = job->bias ? (q4vk_binding){job->bias, 0, out_cols * 4}
                                       : (q4vk_binding){part, 0, p_bytes};
    r->bind[Q4VK_RED_OUT] = g->bind[job->out_slot];
    r->push = &rp;
    memcpy(r->groups, r_groups, sizeof r_groups);
    st = q4vk_run(ctx, d, n_pre + 2, t, err);
    q4vk_buffer_destroy(ctx, part);
    free(d);
    if (st == Q4_OK)
        *ran = true;
    return st;
}

q4_status q4vk_lin_check_args(int64_t M, int64_t N, int64_t K, int64_t gs,
                              const q4vk_lin_operands *p, uint64_t limit, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    const uint64_t in_bytes = (uint64_t)M * (uint64_t)p->in_cols * 4;
    const uint64_t out_bytes = (uint64_t)M * (uint64_t)p->out_cols * 4;
    const uint64_t w_bytes = (uint64_t)q4_w4x8_words(N, K) * 4;
    const uint64_t s_bytes = (uint64_t)q4_scales_count(N, K, gs) * 4;
    const uint64_t b_bytes = (uint64_t)N * 4;
    if ((st = q4vk_op_buffer(p->in, p->in_name, in_bytes, err)) ||
        (st = q4vk_op_buffer(p->w, "w", w_bytes, err)) ||
        (st = q4vk_op_buffer(p->scales, "scales", s_bytes, err)) ||
        (p->bias && (st = q4vk_op_buffer(p->bias, "bias", b_bytes, err))) ||
        (st = q4vk_op_buffer(p->out, p->out_name, out_bytes, err)) ||
        (st = q4vk_op_distinct(p->out, p->out_name, p->in, p->in_name, err)) ||
        (st = q4vk_op_distinct(p->out, p->out_name, p->w, "w", err)) ||
        (st = q4vk_op_distinct(p->out, p->out_name, p->scales, "scales", err)) ||
        (st = q4vk_op_distinct(p->out, p->out_name, p->bias, "bias", err)))
        return st;
    if ((st = q4vk_op_fits("w", w_bytes, limit, err)) ||
        (st = q4vk_op_fits("scales", s_bytes, limit, err)) ||
        (p->bias && (st = q4vk_op_fits("bias", b_bytes, limit, err))))
        return st;
    return Q4_OK;
}

q4_status q4vk_lin_gemv_check(const char *variant, uint64_t M, const q4vk_lin_operands *p,
                              uint64_t limit, q4_error *err)
{
    q4_status st;
    if (M > Q4VK_GEMV_MAX_M)
        return q4_fail(err, Q4_ERR_ARG, "variant %s handles M <= %d, got M = %" PRIu64,
                       variant, Q4VK_GEMV_MAX_M, M);
    if ((st = q4vk_op_fits(p->in_name, M * (uint64_t)p->in_cols * 4, limit, err)) ||
        (st = q4vk_op_fits(p->out_name, M * (uint64_t)p->out_cols * 4, limit, err)))
        return st;
    return Q4_OK;
}

q4_status q4vk_lin_run_rows(q4vk_context *ctx, const q4vk_lin_tiled *job, uint64_t rows_per,
                            q4vk_timing *t, q4_error *err)
{
    const q4vk_gemm_tile *tile = &job->tile;
    const uint64_t M = job->push.M, in_cols = job->in_cols, out_cols = job->out_cols;
    const uint64_t n_disp = (M + rows_per - 1) / rows_per;
    q4vk_dispatch *d = calloc(n_disp, sizeof *d);
    q4vk_lin_push *push = calloc(n_disp, sizeof *push);
    q4_status st;
    if (!d || !push) {
        st = q4_fail(err, Q4_ERR_NOMEM, "out of host memory for %" PRIu64 " dispatches",
                     n_disp);
        goto out;
    }
    for (uint64_t c = 0; c < n_disp; c++) {
        const uint64_t m0 = c * rows_per, mc = M - m0 < rows_per ? M - m0 : rows_per;
        q4vk_binding *in = &d[c].bind[job->in_slot], *out = &d[c].bind[job->out_slot];
        push[c] = job->push;
        push[c].M = (uint32_t)mc;
        push[c].tiles_n = (uint32_t)((out_cols + tile->bn - 1) / tile->bn);
        push[c].tiles_total = (uint32_t)((mc + tile->bm - 1) / tile->bm) * push[c].tiles_n;
        d[c].pipe = job->pipe;
        for (uint32_t b = 0; b < job->n_bind; b++)
            d[c].bind[b] = job->bind[b];
        in->offset = m0 * in_cols * 4;
        in->range = mc * in_cols * 4;
        out->offset = m0 * out_cols * 4;
        /* The last rows' output binding runs to the end of the buffer, so an
         * out-of-bounds write is visible after the tensor (q4vk_op_to_end). */
        out->range = c + 1 == n_disp ? q4vk_op_to_end(out->buf, out->offset, job->limit)
                                     : mc * out_cols * 4;
        d[c].push = &push[c];
        if ((st = q4vk_fold(ctx, job->kernel, push[c].tiles_total, d[c].groups, err)))
            goto out;
    }
    st = q4vk_run(ctx, d, (int)n_disp, t, err);
out:
    free(push);
    free(d);
    return st;
}

uint64_t q4vk_lin_scratch_one(const q4vk_device_info *info, uint64_t limit)
{
    return info->max_alloc_bytes && info->max_alloc_bytes < limit ? info->max_alloc_bytes
                                                                  : limit;
}

bool q4vk_lin_scratch_fits_heap(const q4vk_device_info *info, uint64_t bytes)
{
    return !info->device_local_bytes ||
           bytes <= info->device_local_bytes / Q4VK_SCRATCH_HEAP_SHARE;
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

/* A q4 tiled GEMM (A K-major) of [M, out_cols] over depth (inputs [M, in_cols]): the
 * tiled kernel, and the split-K reduce where the launcher splits the depth. */
void q4vk_lin_plan_tiled(const q4vk_device_info *info, const char *kernel, uint64_t M,
                         uint64_t in_cols, uint64_t out_cols, uint64_t depth, uint32_t bk,
                         q4vk_plan *p)
{
    q4vk_plan_add(p, kernel);
    const q4vk_gemm_tile tile =
        q4vk_gemm_pick_tile(info, M, out_cols, bk, Q4VK_GEMM_A_ROWS_DEPTH);
    const uint64_t lim = q4vk_op_limit_of(info, 0);
    const uint64_t rows = q4vk_lin_split_rows(M, in_cols, out_cols, lim, info->min_storage_align);
    if (q4vk_gemm_pick_splits(&tile, M, out_cols, depth) > 1 && rows == M)
        q4vk_plan_add(p, Q4VK_K_SPLITK_REDUCE);
}
