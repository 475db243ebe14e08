/* q4vk_op_dequantize.c: launcher of dequantize, Wf[N,K] = (code - 8) * scale from
 * W_4X8 (SPEC §1). One kernel, dequantize: one invocation per W_4X8 block (8 rows x
 * 4 K), in chunks of 32 (16 k4 x 2 block columns) over a folded grid; every binding is
 * whole (the output is the largest and is refused above the device's binding limit). */
#include "q4vk_op_dequantize.h"

/* dequantize.comp's binding slots. */
enum { B_W, B_SCALES, B_OUT };

#define DEQUANT_CHUNKS 8   /* chunks of 32 invocations per workgroup (local_size_x 256) */
#define DEQUANT_T_WG 64    /* dequantize_t.comp: one W_4X8 block per invocation */

q4_status q4vk_dequantize(q4vk_context *ctx, const q4vk_dequant_args *a, q4vk_timing *t,
                          q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "dequantize", err)))
        return st;
    if ((st = q4_check_weight(a->N, a->K, a->gs, err)))
        return st;
    const uint64_t N = (uint64_t)a->N, K = (uint64_t)a->K;
    const uint64_t w_bytes = (uint64_t)q4_w4x8_words(a->N, a->K) * 4;
    const uint64_t s_bytes = (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4;
    const uint64_t lim = q4vk_op_limit(ctx, 0);
    if ((st = q4vk_op_buffer(a->w, "w", w_bytes, err)) ||
        (st = q4vk_op_buffer(a->scales, "scales", s_bytes, err)) ||
        (st = q4vk_op_buffer(a->out, "out", N * K * 4, err)) ||
        (st = q4vk_op_distinct(a->out, "out", a->w, "w", err)) ||
        (st = q4vk_op_distinct(a->out, "out", a->scales, "scales", err)) ||
        (st = q4vk_op_fits("w", w_bytes, lim, err)) ||
        (st = q4vk_op_fits("scales", s_bytes, lim, err)) ||
        (st = q4vk_op_fits("out", N * K * 4, lim, err)) ||
        (st = q4vk_op_check_scales(ctx, a->scales, q4_scales_count(a->N, a->K, a->gs), err)))
        return st;

    q4vk_dispatch d = {0};
    q4vk_dequant_push push;
    if ((st = q4vk_dequant_dispatch(ctx, a, q4vk_op_to_end(a->out, 0, lim), &push, &d, err)))
        return st;
    return q4vk_run(ctx, &d, 1, t, err);
}

uint64_t q4vk_dequant_groups(int64_t N, int64_t K)
{
    const uint64_t KT = ((uint64_t)K / 4 + 15) / 16, chunks = KT * (((uint64_t)q4_n8(N) + 1) / 2);
    return (chunks + DEQUANT_CHUNKS - 1) / DEQUANT_CHUNKS;
}

uint64_t q4vk_dequant_t_groups(int64_t N, int64_t K)
{
    return ((uint64_t)K / 4 * (uint64_t)q4_n8(N) + DEQUANT_T_WG - 1) / DEQUANT_T_WG;
}

q4_status q4vk_dequant_dispatch(q4vk_context *ctx, const q4vk_dequant_args *a,
                                uint64_t out_range, q4vk_dequant_push *push, q4vk_dispatch *d,
                                q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_pipeline(ctx, "dequantize", NULL, &d->pipe, err)))
        return st;
    /* chunks of 16 k4 x 2 block columns: (K/64 + 1) * (N/16 + 1) < 2^26 at most, as out
     * (N*K*4 bytes) fits one binding */
    const uint64_t K = (uint64_t)a->K;
    const uint64_t N8 = (uint64_t)q4_n8(a->N), KT = (K / 4 + 15) / 16;
    const uint64_t chunks = KT * ((N8 + 1) / 2);
    *push = (q4vk_dequant_push){(uint32_t)a->N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)N8,
                                (uint32_t)KT, (uint32_t)chunks};
    d->bind[B_W] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    d->bind[B_SCALES] =
        (q4vk_binding){a->scales, 0, (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4};
    d->bind[B_OUT] = (q4vk_binding){a->out, 0, out_range};
    d->push = push;
    return q4vk_fold(ctx, Q4VK_K_DEQUANT, q4vk_dequant_groups(a->N, a->K), d->groups, err);
}

q4_status q4vk_dequant_t_dispatch(q4vk_context *ctx, const q4vk_dequant_args *a,
                                  q4vk_dequant_t_push *push, q4vk_dispatch *d, q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_pipeline(ctx, Q4VK_K_DEQUANT_T, NULL, &d->pipe, err)))
        return st;
    const uint64_t N = (uint64_t)a->N, K = (uint64_t)a->K, N8 = (uint64_t)q4_n8(a->N);
    *push = (q4vk_dequant_t_push){(uint32_t)N, (uint32_t)K, (uint32_t)a->gs, (uint32_t)N8};
    d->bind[B_W] = (q4vk_binding){a->w, 0, (uint64_t)q4_w4x8_words(a->N, a->K) * 4};
    d->bind[B_SCALES] =
        (q4vk_binding){a->scales, 0, (uint64_t)q4_scales_count(a->N, a->K, a->gs) * 4};
    d->bind[B_OUT] = (q4vk_binding){a->out, 0, N * K * 4};
    d->push = push;
    return q4vk_fold(ctx, Q4VK_K_DEQUANT_T, q4vk_dequant_t_groups(a->N, a->K), d->groups, err);
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_dequantize_plan(const q4vk_device_info *info, q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    q4vk_plan_add(p, "dequantize");
}
