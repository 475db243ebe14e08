/* q4vk_op_q4gsw_requant.c: launcher of q4gsw_requant (SPEC §2): kernels q4gsw_requant_w4x8
 * (W_4X8 output, SPEC §1b, padding words included, and the flat layout §1a in the same
 * pass when K % 8 == 0) and q4gsw_requant_flat (§1a alone, for K % 8 == 4, where a
 * flat word may span two rows).
 *
 * q4gsw_requant_w4x8 reads the latent once for both outputs: one workgroup per tile
 * of 8*NB rows x 4*TK4 K, each output word written exactly once. Either output may be
 * NULL (not both). When the latent [N, K] exceeds one binding, N is split into ranges
 * of whole 8-row blocks (one W_4X8 block column, a whole number of flat words), each
 * binding an aligned window of latent (and flat); scales and W_4X8 (1/4 and 1/8 of
 * the latent at most) are bound whole.
 *
 * Scales live on the device: the launcher downloads them and runs q4_check_scales
 * (finite, zero or normal, SPEC §1) before any dispatch. */
#include <stdlib.h>

#include "q4vk_op_q4gsw_requant.h"

/* What the kernels read as push constants. */
typedef struct w4x8_push {
    uint32_t N, K, gs, n8_0, n8_count, lat_off, flat_off, tiles_k, tiles, outputs;
} w4x8_push;
typedef struct flat_push {
    uint32_t N, K, gs, n0, lat_off, words, out_off;
} flat_push;

/* Binding slots of both kernels (q4gsw_requant_flat has no B_FLAT_FUSED; its B_W is
 * flat). */
enum { B_LATENT, B_SCALES, B_W, B_FLAT_FUSED };

#define FLAT_WG 256      /* q4gsw_requant_flat.comp's local_size_x */
/* q4gsw_requant_w4x8.comp's tile: 2 block columns (16 rows: a 32-byte sector of each
 * W_4X8 k4 row) x 64 k4 (1 KiB of each latent row), 256 invocations (128 where that
 * is the device's most). */
#define TILE_NB 2
#define TILE_K4 64

q4_status q4vk_q4gsw_requant(q4vk_context *ctx, const q4vk_requant_args *a, q4vk_timing *t,
                             q4_error *err)
{
    if (!ctx)
        return q4_fail(err, Q4_ERR_ARG, "ctx is NULL; expected a q4vk context");
    return q4vk_q4gsw_requant_limit(ctx, a, q4vk_info(ctx)->max_storage_range, t, err);
}

q4_status q4vk_q4gsw_requant_limit(q4vk_context *ctx, const q4vk_requant_args *a,
                                   uint64_t max_binding, q4vk_timing *t, q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "q4gsw_requant", err)))
        return st;
    if ((st = q4_check_weight(a->N, a->K, a->gs, err)))
        return st;

    const uint64_t N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t scale_bytes = (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4;
    const uint64_t w_bytes = (uint64_t)q4_w4x8_words(a->N, a->K) * 4;
    const uint64_t flat_bytes = (uint64_t)q4_flat_bytes(a->N, a->K);
    if (!a->w && !a->flat)
        return q4_fail(err, Q4_ERR_ARG,
                       "w and flat are both NULL; expected at least one output buffer");
    if ((st = q4vk_op_buffer(a->latent, "latent", N * K * 4, err)) ||
        (st = q4vk_op_buffer(a->scales, "scales", scale_bytes, err)) ||
        (a->w && (st = q4vk_op_buffer(a->w, "w", w_bytes, err))) ||
        (a->flat && (st = q4vk_op_buffer(a->flat, "flat", flat_bytes, err))) ||
        (st = q4vk_op_distinct(a->w, "w", a->latent, "latent", err)) ||
        (st = q4vk_op_distinct(a->w, "w", a->scales, "scales", err)) ||
        (st = q4vk_op_distinct(a->w, "w", a->flat, "flat", err)) ||
        (st = q4vk_op_distinct(a->flat, "flat", a->latent, "latent", err)) ||
        (st = q4vk_op_distinct(a->flat, "flat", a->scales, "scales", err)))
        return st;

    const uint64_t lim = q4vk_op_limit(ctx, max_binding), align = q4vk_op_align(ctx);
    if ((st = q4vk_op_fits("scales", scale_bytes, lim, err)) ||
        (a->w && (st = q4vk_op_fits("w", w_bytes, lim, err))))
        return st;
    /* rows per range: a multiple of 8 whose latent window (plus alignment slack) fits */
    const uint64_t rows_fit = lim > align ? (lim - align) / (K * 4) / 8 * 8 : 0;
    if (rows_fit == 0)
        return q4_fail(err, Q4_ERR_RESOURCE,
                       "buffer latent: 8 rows of K = %" PRIu64 " floats (%" PRIu64 " bytes) do "
                       "not fit the device's maxStorageBufferRange of %" PRIu64 " bytes",
                       K, 8 * K * 4, lim);
    /* Last of the checks: the only one that reads the device. */
    if ((st = q4vk_op_check_scales(ctx, a->scales, q4_scales_count(a->N, a->K, a->gs), err)))
        return st;
    const uint64_t rows_per = rows_fit < N ? rows_fit : N;
    const uint64_t n_chunks = (N + rows_per - 1) / rows_per;
    /* the fused kernel writes flat too where K % 8 == 0; else the flat kernel does */
    const int fused_flat = a->flat && K % 8 == 0;
    const int use_w = a->w || fused_flat, use_flat = a->flat && !fused_flat;
    const int per_chunk = use_w + use_flat;
    const uint64_t N8 = (uint64_t)q4_n8(a->N);
    q4vk_pipeline *p_w = NULL, *p_flat = NULL;
    q4vk_dispatch *d = NULL;
    w4x8_push *pw = NULL;
    flat_push *pf = NULL;
    int nd = 0;

    const uint32_t wg = q4vk_info(ctx)->max_invocations >= 256 ? 256 : 128;
    q4vk_spec spec = {.count = 4, .ids = {0, 1, 2, 3}, .values = {wg, TILE_NB, TILE_K4, wg}};
    if ((use_w && (st = q4vk_op_pipeline(ctx, "q4gsw_requant_w4x8", &spec, &p_w, err))) ||
        (use_flat && (st = q4vk_op_pipeline(ctx, "q4gsw_requant_flat", NULL, &p_flat, err))))
        return st;
    d = calloc(n_chunks * per_chunk, sizeof *d);
    pw = calloc(n_chunks, sizeof *pw);
    pf = calloc(n_chunks, sizeof *pf);
    if (!d || !pw || !pf) {
        st = q4_fail(err, Q4_ERR_NOMEM, "q4gsw_requant: out of host memory for %" PRIu64
                     " dispatches", n_chunks * per_chunk);
        goto out;
    }
    for (uint64_t c = 0; c < n_chunks; c++) {
        const uint64_t n0 = c * rows_per, rows = N - n0 < rows_per ? N - n0 : rows_per;
        const uint64_t lstart = n0 * K * 4, loff = lstart / align * align;
        const q4vk_binding latent = {a->latent, loff, lstart - loff + rows * K * 4};
        const q4vk_binding scales = {a->scales, 0, scale_bytes};
        /* rows is a multiple of 4 and K of 4: rows*K/2 bytes are whole words */
        const uint64_t fstart = n0 * K / 2, foff = fstart / align * align;
        const q4vk_binding flat = a->flat ? (q4vk_binding){a->flat, foff,
                                                           q4vk_op_to_end(a->flat, foff, lim)}
                                          : (q4vk_binding){0};
        if (use_w) {
            /* block columns n8 of rows n0 .. n0+rows-1; the last may be half padding */
            const uint64_t n8_0 = n0 / 8, n8_count = c + 1 < n_chunks ? rows / 8 : N8 - n8_0;
            const uint64_t tiles_k = (K / 4 + TILE_K4 - 1) / TILE_K4;
            const uint64_t tiles = tiles_k * ((n8_count + TILE_NB - 1) / TILE_NB);
            pw[c] = (w4x8_push){(uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)n8_0,
                                (uint32_t)n8_count, (uint32_t)((lstart - loff) / 4),
                                (uint32_t)((fstart - foff) / 4), (uint32_t)tiles_k,
                                (uint32_t)tiles, (a->w ? 1u : 0u) | (fused_flat ? 2u : 0u)};
            d[nd].pipe = p_w;
            d[nd].bind[B_LATENT] = latent;
            d[nd].bind[B_SCALES] = scales;
            /* an output not written is bound to the other one's buffer (never written) */
            d[nd].bind[B_W] = a->w ? (q4vk_binding){a->w, 0, q4vk_op_to_end(a->w, 0, lim)} : flat;
            d[nd].bind[B_FLAT_FUSED] = fused_flat ? flat : d[nd].bind[B_W];
            d[nd].push = &pw[c];
            if ((st = q4vk_fold(ctx, "q4gsw_requant_w4x8", tiles, d[nd].groups, err)))
                goto out;
            nd++;
        }
        if (use_flat) {
            const uint64_t words = rows * K / 8;
            pf[c] = (flat_push){(uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)n0,
                                (uint32_t)((lstart - loff) / 4), (uint32_t)words,
                                (uint32_t)((fstart - foff) / 4)};
            d[nd].pipe = p_flat;
            d[nd].bind[B_LATENT] = latent;
            d[nd].bind[B_SCALES] = scales;
            d[nd].bind[B_W] = flat;
            d[nd].push = &pf[c];
            if ((st = q4vk_fold(ctx, "q4gsw_requant_flat", (words + FLAT_WG - 1) / FLAT_WG,
                                d[nd].groups, err)))
                goto out;
            nd++;
        }
    }
    st = q4vk_run(ctx, d, nd, t, err);
out:
    free(pf);
    free(pw);
    free(d);
    return st;
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_q4gsw_requant_plan(const q4vk_device_info *info, int64_t K, bool w, bool flat,
                             q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    /* the w4x8 kernel writes flat too where K % 8 == 0; else the flat kernel does */
    const bool fused_flat = flat && K % 8 == 0;
    if (w || fused_flat)
        q4vk_plan_add(p, "q4gsw_requant_w4x8");
    if (flat && !fused_flat)
        q4vk_plan_add(p, "q4gsw_requant_flat");
}
