/* q4vk_op_ew.h: private to the element-wise launchers (fused_ce, adamw_step, requant).
 *
 * Small argument helpers with the messages every launcher shares, and the
 * "_limit" entry points: the same launchers with the largest binding they may use
 * given explicitly instead of the device's maxStorageBufferRange, so that tests can
 * drive the split paths (several dispatches over aligned sub-ranges) on a device
 * whose real limit is too large to reach cheaply. The public launchers call them
 * with q4vk_info(ctx)->max_storage_range. */
#ifndef Q4VK_OP_EW_H
#define Q4VK_OP_EW_H

#include <inttypes.h>
#include <stdint.h>

#include "q4vk.h"

q4_status q4vk_fused_ce_limit(q4vk_context *ctx, const q4vk_ce_args *a, uint64_t max_binding,
                              q4vk_timing *t, q4_error *err);
q4_status q4vk_adamw_step_limit(q4vk_context *ctx, const q4vk_adamw_args *a,
                                uint64_t max_binding, q4vk_timing *t, q4_error *err);
q4_status q4vk_q4gsw_requant_limit(q4vk_context *ctx, const q4vk_requant_args *a,
                                   uint64_t max_binding, q4vk_timing *t, q4_error *err);

/* Largest binding to use: the caller's limit, and never more than the 32-bit element
 * indices of the kernels can address (2^32 bytes). */
static inline uint64_t q4vk_ew_limit(uint64_t max_binding)
{
    const uint64_t idx_max = (uint64_t)UINT32_MAX + 1 - 16;
    return max_binding < idx_max ? max_binding : idx_max;
}

/* A buffer argument: non-NULL and holding at least `need` bytes. */
static inline q4_status q4vk_ew_buffer(const q4vk_buffer *b, const char *name, uint64_t need,
                                       q4_error *err)
{
    q4_status st = q4_check_ptr(b, name, err);
    if (st == Q4_OK && (uint64_t)q4vk_buffer_size(b) < need)
        return q4_fail(err, Q4_ERR_ARG, "buffer %s holds %zu bytes; the shape needs %" PRIu64,
                       name, q4vk_buffer_size(b), need);
    return st;
}

/* Two arguments that must be different buffers (an output never aliases anything). */
static inline q4_status q4vk_ew_distinct(const q4vk_buffer *a, const char *aname,
                                         const q4vk_buffer *b, const char *bname, q4_error *err)
{
    if (a && a == b)
        return q4_fail(err, Q4_ERR_ARG, "%s and %s overlap; they must be separate buffers",
                       aname, bname);
    return Q4_OK;
}

/* A binding of `bytes` that cannot be split: within the limit or Q4_ERR_RESOURCE. */
static inline q4_status q4vk_ew_fits(const char *name, uint64_t bytes, uint64_t limit,
                                     q4_error *err)
{
    if (bytes > limit)
        return q4_fail(err, Q4_ERR_RESOURCE,
                       "buffer %s needs a binding of %" PRIu64 " bytes, above the device's "
                       "maxStorageBufferRange of %" PRIu64 " bytes",
                       name, bytes, limit);
    return Q4_OK;
}

/* Range for an output binding at `offset`: to the end of the buffer (a multiple of 4,
 * at most `limit`), not the tensor's exact size, so that an out-of-bounds write of a
 * kernel lands in the caller's guard words, where a test sees it, instead of being
 * dropped by the driver's bounds checks (as q4vk_range_to_end, with the launcher's
 * own limit so the _limit entry points stay honest). */
static inline uint64_t q4vk_ew_to_end(const q4vk_buffer *b, uint64_t offset, uint64_t limit)
{
    uint64_t size = q4vk_buffer_size(b), rest = size > offset ? size - offset : 0;
    return (rest < limit ? rest : limit) & ~(uint64_t)3;
}

/* The binding alignment used for sub-range offsets: minStorageBufferOffsetAlignment,
 * at least 16 so that a vec4 view stays 16-byte aligned. */
static inline uint64_t q4vk_ew_align(const q4vk_context *ctx)
{
    uint64_t al = q4vk_info(ctx)->min_storage_align;
    return al < 16 ? 16 : al;
}

/* Looks up a built-in kernel and its pipeline. */
static inline q4_status q4vk_ew_pipeline(q4vk_context *ctx, const char *name,
                                         const q4vk_spec *spec, q4vk_pipeline **out,
                                         q4_error *err)
{
    const q4vk_kernel *k = q4vk_kernel_find(name);
    if (!k)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "kernel %s is not built into this q4vk", name);
    return q4vk_pipeline_get(ctx, k, spec, out, err);
}

#endif
