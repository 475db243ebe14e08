/* q4vk_op_fused_ce.c: launcher of fused_ce (SPEC §2): kernels fused_ce + fused_ce_loss.
 *
 * fused_ce runs one workgroup per row (folded grid, so R > 65535 works) and writes
 * dlogits and one loss per row into a scratch buffer; fused_ce_loss then sums those
 * in a fixed order into the scalar loss, so the loss is deterministic. When R x V
 * logits exceed one binding, rows are split over several fused_ce dispatches, each
 * binding an aligned window of logits and dlogits.
 *
 * Labels live on the device: the launcher downloads them and runs q4_check_labels
 * (a label >= V is invalid input, SPEC §2) before any dispatch. The kernel still
 * treats such a label as masked and never indexes out of range. */
#include <stdlib.h>

#include "q4vk_op_fused_ce.h"

/* What fused_ce.comp reads as push constants. */
typedef struct ce_push {
    uint32_t rows, V, row0, elem_off;
    float n_valid;
} ce_push;

/* Workgroup size (a power of two, fused_ce.comp's specialisation constant 0): grows
 * with V while every invocation keeps at least 16 elements, up to 1024. Measured on
 * the H200 at R = 4096, V = 128256: 256 -> 2.90, 512 -> 3.01, 1024 -> 3.08 TB/s
 * (logits read once + dlogits written once, over the time); a bigger group has fewer
 * rows resident at once, so more of pass 2's re-read still hits L2. */
/* Binding slots of fused_ce.comp and of fused_ce_loss.comp. */
enum { B_LOGITS, B_LABELS, B_DLOGITS, B_ROW_LOSS };
enum { B_SUM_ROW_LOSS, B_SUM_LOSS };

#define CE_CACHE 8   /* fused_ce.comp's CACHE: vec4 of a row per invocation in registers */

static uint32_t ce_group_size(const q4vk_context *ctx, int64_t V)
{
    uint32_t wg = 64, cap = q4vk_info(ctx)->max_invocations;
    while (wg < 1024 && (int64_t)wg * 16 < V && wg * 2 <= cap)
        wg *= 2;
    return wg;
}

q4_status q4vk_fused_ce(q4vk_context *ctx, const q4vk_ce_args *a, q4vk_timing *t, q4_error *err)
{
    if (!ctx)
        return q4_fail(err, Q4_ERR_ARG, "ctx is NULL; expected a q4vk context");
    return q4vk_fused_ce_limit(ctx, a, q4vk_info(ctx)->max_storage_range, t, err);
}

q4_status q4vk_fused_ce_limit(q4vk_context *ctx, const q4vk_ce_args *a, uint64_t max_binding,
                              q4vk_timing *t, q4_error *err)
{
    q4_status st;
    if ((st = q4vk_op_check_call(ctx, a, "fused_ce", err)))
        return st;
    if ((st = q4_check_ce_shape(a->R, a->V, a->n_valid, err)))
        return st;

    const uint64_t R = (uint64_t)a->R, V = (uint64_t)a->V;
    const uint64_t lim = q4vk_op_limit(ctx, max_binding), align = q4vk_op_align(ctx);
    const uint64_t row_bytes = V * 4, all_bytes = R * V * 4;
    if ((st = q4vk_op_buffer(a->logits, "logits", all_bytes, err)) ||
        (st = q4vk_op_buffer(a->labels, "labels", R * 4, err)) ||
        (st = q4vk_op_buffer(a->loss, "loss", 4, err)) ||
        (st = q4vk_op_buffer(a->dlogits, "dlogits", all_bytes, err)) ||
        (st = q4vk_op_distinct(a->dlogits, "dlogits", a->logits, "logits", err)) ||
        (st = q4vk_op_distinct(a->dlogits, "dlogits", a->labels, "labels", err)) ||
        (st = q4vk_op_distinct(a->loss, "loss", a->logits, "logits", err)) ||
        (st = q4vk_op_distinct(a->loss, "loss", a->labels, "labels", err)) ||
        (st = q4vk_op_distinct(a->loss, "loss", a->dlogits, "dlogits", err)))
        return st;
    /* labels and the per-row losses are bound whole; logits rows may be split, but one
     * row (plus the alignment slack of its window) must fit a binding. */
    if ((st = q4vk_op_fits("labels", R * 4, lim, err)) ||
        (st = q4vk_op_fits("row losses (scratch)", R * 4, lim, err)))
        return st;
    if (row_bytes + align > lim)
        return q4_fail(err, Q4_ERR_RESOURCE,
                       "buffer logits: one row of V = %" PRIu64 " floats (%" PRIu64 " bytes) "
                       "does not fit the device's maxStorageBufferRange of %" PRIu64 " bytes",
                       V, row_bytes, lim);
    /* Last of the checks: the only one that reads the device. */
    if ((st = q4vk_op_check_labels(ctx, a->labels, a->R, a->V, err)))
        return st;

    const uint64_t rows_per = (lim - align) / row_bytes < R ? (lim - align) / row_bytes : R;
    const uint64_t n_chunks = (R + rows_per - 1) / rows_per;
    /* The cached path (fused_ce.comp) when each invocation's share of a row fits
     * CE_CACHE vec4 of registers: V <= 32768 at 1024 invocations. */
    const uint32_t wg = ce_group_size(ctx, a->V);
    const uint32_t cached = V / 4 <= (uint64_t)CE_CACHE * wg;
    q4vk_spec spec = {.count = 3, .ids = {0, 1, 2}, .values = {wg, cached, CE_CACHE}};
    q4vk_pipeline *p_rows = NULL, *p_sum = NULL;
    q4vk_buffer *row_loss = NULL;
    q4vk_dispatch *d = NULL;
    ce_push *push = NULL;
    uint32_t sum_push = (uint32_t)R;

    if ((st = q4vk_op_pipeline(ctx, "fused_ce", &spec, &p_rows, err)) ||
        (st = q4vk_op_pipeline(ctx, "fused_ce_loss", NULL, &p_sum, err)))
        return st;
    d = calloc(n_chunks + 1, sizeof *d);
    push = calloc(n_chunks, sizeof *push);
    if (!d || !push) {
        st = q4_fail(err, Q4_ERR_NOMEM, "fused_ce: out of host memory for %" PRIu64
                     " dispatches", n_chunks + 1);
        goto out;
    }
    if ((st = q4vk_buffer_create(ctx, (size_t)(R * 4), &row_loss, err)))
        goto out;

    for (uint64_t c = 0; c < n_chunks; c++) {
        const uint64_t row0 = c * rows_per;
        const uint64_t rows = R - row0 < rows_per ? R - row0 : rows_per;
        const uint64_t start = row0 * row_bytes, off = start / align * align;
        const uint64_t range = start - off + rows * row_bytes;
        push[c] = (ce_push){(uint32_t)rows, (uint32_t)V, (uint32_t)row0,
                            (uint32_t)((start - off) / 4), a->n_valid};
        d[c].pipe = p_rows;
        d[c].bind[B_LOGITS] = (q4vk_binding){a->logits, off, range};
        d[c].bind[B_LABELS] = (q4vk_binding){a->labels, 0, R * 4};
        d[c].bind[B_DLOGITS] = (q4vk_binding){a->dlogits, off, q4vk_op_to_end(a->dlogits, off, lim)};
        d[c].bind[B_ROW_LOSS] = (q4vk_binding){row_loss, 0, R * 4};
        d[c].push = &push[c];
        if ((st = q4vk_fold(ctx, "fused_ce", rows, d[c].groups, err)))
            goto out;
    }
    d[n_chunks].pipe = p_sum;
    d[n_chunks].bind[B_SUM_ROW_LOSS] = (q4vk_binding){row_loss, 0, R * 4};
    d[n_chunks].bind[B_SUM_LOSS] = (q4vk_binding){a->loss, 0, q4vk_op_to_end(a->loss, 0, lim)};
    d[n_chunks].push = &sum_push;
    d[n_chunks].groups[0] = d[n_chunks].groups[1] = d[n_chunks].groups[2] = 1;
    st = q4vk_run(ctx, d, (int)(n_chunks + 1), t, err);
out:
    q4vk_buffer_destroy(ctx, row_loss);
    free(push);
    free(d);
    return st;
}

/* ---------------- plan (q4vk.h "plans"): the kernels this file dispatches ---------------- */

void q4vk_fused_ce_plan(const q4vk_device_info *info, q4vk_plan *p)
{
    (void)info;
    *p = (q4vk_plan){0};
    q4vk_plan_add(p, "fused_ce");
    q4vk_plan_add(p, "fused_ce_loss");
}
