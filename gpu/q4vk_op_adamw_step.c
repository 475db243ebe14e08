/* q4vk_op_adamw_step.c: launcher of adamw_step (SPEC §2), in place on param, m, v.
 *
 * One kernel, adamw_step, one vec4 per invocation over a folded grid. A vector
 * larger than one binding allows (maxStorageBufferRange: 128 MiB = 2^25 floats on
 * lavapipe) is split into several dispatches over sub-ranges whose offsets are
 * multiples of the device's binding alignment; the element-wise update makes the
 * split free of any coupling between ranges. */
#include <stdlib.h>

#include "q4vk_op_adamw_step.h"

/* What adamw_step.comp reads as push constants. */
typedef struct adamw_push {
    uint32_t n;
    float lr, beta1, beta2, eps, wd, bc1, bc2;
} adamw_push;

#define ADAMW_WG 256   /* adamw_step.comp's local_size_x */

/* adamw_step.comp's binding slots. */
enum { B_PARAM, B_GRAD, B_M, B_V };

q4_status q4vk_adamw_step(q4vk_context *ctx, const q4vk_adamw_args *a, q4vk_timing *t,
                          q4_error *err)
{
    if (!ctx)
        return q4_fail(err, Q4_ERR_ARG, "ctx is NULL; expected a q4vk context");
    return q4vk_adamw_step_limit(ctx, a, q4vk_info(ctx)->max_storage_range, t, err);
}

q4_status q4vk_adamw_step_limit(q4vk_context *ctx, const q4vk_adamw_args *a,
                                uint64_t max_binding, q4vk_timing *t, q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "adamw_step", err)))
        return st;
    if ((st = q4_check_adamw(a->numel, a->lr, a->beta1, a->beta2, a->eps, a->wd, a->bc1,
                             a->bc2, err)))
        return st;

    const uint64_t numel = (uint64_t)a->numel, bytes = numel * 4;
    if ((st = q4vk_op_buffer(a->param, "param", bytes, err)) ||
        (st = q4vk_op_buffer(a->grad, "grad", bytes, err)) ||
        (st = q4vk_op_buffer(a->m, "m", bytes, err)) ||
        (st = q4vk_op_buffer(a->v, "v", bytes, err)) ||
        (st = q4vk_op_distinct(a->param, "param", a->grad, "grad", err)) ||
        (st = q4vk_op_distinct(a->param, "param", a->m, "m", err)) ||
        (st = q4vk_op_distinct(a->param, "param", a->v, "v", err)) ||
        (st = q4vk_op_distinct(a->m, "m", a->grad, "grad", err)) ||
        (st = q4vk_op_distinct(a->m, "m", a->v, "v", err)) ||
        (st = q4vk_op_distinct(a->v, "v", a->grad, "grad", err)))
        return st;

    /* Sub-range length: a multiple of the alignment (so every offset is aligned and a
     * multiple of 4 floats, keeping the vec4 view whole) that fits one binding. */
    const uint64_t align = q4vk_op_align(ctx), lim = q4vk_op_limit(ctx, max_binding);
    const uint64_t chunk = lim / align * align / 4;
    if (chunk == 0)
        return q4vk_op_fits("param", align, lim, err);
    const uint64_t n_chunks = (numel + chunk - 1) / chunk;
    q4vk_pipeline *pipe = NULL;
    q4vk_dispatch *d = NULL;
    adamw_push *push = NULL;

    if ((st = q4vk_op_pipeline(ctx, "adamw_step", NULL, &pipe, err)))
        return st;
    d = calloc(n_chunks, sizeof *d);
    push = calloc(n_chunks, sizeof *push);
    if (!d || !push) {
        st = q4_fail(err, Q4_ERR_NOMEM, "adamw_step: out of host memory for %" PRIu64
                     " dispatches", n_chunks);
        goto out;
    }
    for (uint64_t c = 0; c < n_chunks; c++) {
        const uint64_t e0 = c * chunk, n = numel - e0 < chunk ? numel - e0 : chunk;
        /* n/4 whole vec4, plus one invocation for the 1-3 trailing scalars */
        const uint64_t inv = n / 4 + (n % 4 != 0);
        push[c] = (adamw_push){(uint32_t)n, a->lr, a->beta1, a->beta2, a->eps,
                               a->wd, a->bc1, a->bc2};
        d[c].pipe = pipe;
        /* the updated tensors are bound to the end of their buffers (q4vk_op_to_end) */
        d[c].bind[B_PARAM] = (q4vk_binding){a->param, e0 * 4, q4vk_op_to_end(a->param, e0 * 4, lim)};
        d[c].bind[B_GRAD] = (q4vk_binding){a->grad, e0 * 4, n * 4};
        d[c].bind[B_M] = (q4vk_binding){a->m, e0 * 4, q4vk_op_to_end(a->m, e0 * 4, lim)};
        d[c].bind[B_V] = (q4vk_binding){a->v, e0 * 4, q4vk_op_to_end(a->v, e0 * 4, lim)};
        d[c].push = &push[c];
        if ((st = q4vk_fold(ctx, "adamw_step", (inv + ADAMW_WG - 1) / ADAMW_WG, d[c].groups,
                            err)))
            goto out;
    }
    st = q4vk_run(ctx, d, (int)n_chunks, t, err);
out:
    free(push);
    free(d);
    return st;
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_adamw_step_plan(const q4vk_device_info *info, q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    q4vk_plan_add(p, "adamw_step");
}
