/* q4vk_op_args.h: private to the launchers (q4vk_op_*.c): the argument checks and
 * binding helpers every launcher shares, with one message each (q4vk_op_args.c). */
#ifndef Q4VK_OP_ARGS_H
#define Q4VK_OP_ARGS_H

#include <inttypes.h>
#include <stdint.h>

#include "q4vk.h"

/* The context and the argument struct of launcher `op` are not NULL (Q4_ERR_ARG). */
q4_status q4vk_op_check_call(const q4vk_context *ctx, const void *args, const char *op,
                             q4_error *err);
/* A buffer argument: non-NULL and holding at least `need` bytes (Q4_ERR_ARG). */
/* The contract's value checks (SPEC §1, §2) on a device buffer: downloads it and runs
 * q4_check_scales / q4_check_labels, so a program that calls a launcher directly gets
 * the reference's error for a denormal, infinite or NaN scale or a label >= V. Call
 * after q4vk_op_buffer has checked the buffer's size. */
q4_status q4vk_op_check_scales(q4vk_context *ctx, const q4vk_buffer *scales, int64_t count,
                               q4_error *err);
q4_status q4vk_op_check_labels(q4vk_context *ctx, const q4vk_buffer *labels, int64_t R,
                               int64_t V, q4_error *err);
q4_status q4vk_op_buffer(const q4vk_buffer *b, const char *name, uint64_t need, q4_error *err);
/* An output that must not be the same buffer as another argument (Q4_ERR_ARG). */
q4_status q4vk_op_distinct(const q4vk_buffer *out, const char *oname, const q4vk_buffer *in,
                           const char *iname, q4_error *err);
/* The largest binding a launcher may use: max_binding (0 = no smaller limit) and the
 * device's maxStorageBufferRange, capped so that the kernels' 32-bit element indices
 * (of at most 16 bytes) cannot overflow. */
uint64_t q4vk_op_limit(const q4vk_context *ctx, uint64_t max_binding);
/* The same from a device's limits alone (for the launchers' plans). */
uint64_t q4vk_op_limit_of(const q4vk_device_info *info, uint64_t max_binding);
/* Q4_ERR_RESOURCE with a sentence when `bytes` does not fit in one binding. */
q4_status q4vk_op_fits(const char *name, uint64_t bytes, uint64_t limit, q4_error *err);
/* Range for an output binding at `offset`: to the end of the buffer (a multiple of 4,
 * at most `limit`), not the tensor's exact size, so that an out-of-bounds write of a
 * kernel lands in the caller's guard words, where a test sees it, instead of being
 * dropped by the driver's bounds checks. */
uint64_t q4vk_op_to_end(const q4vk_buffer *b, uint64_t offset, uint64_t limit);
/* The binding alignment used for sub-range offsets: minStorageBufferOffsetAlignment,
 * at least 16 so that a vec4 view stays 16-byte aligned. */
uint64_t q4vk_op_align(const q4vk_context *ctx);
/* A built-in kernel's pipeline (the user's override runs in its place). */
q4_status q4vk_op_pipeline(q4vk_context *ctx, const char *name, const q4vk_spec *spec,
                           q4vk_pipeline **out, q4_error *err);

/* Appends kernel to plan p (each launcher's q4vk_*_plan, q4vk.h "plans"), at most
 * Q4VK_PLAN_MAX. */
void q4vk_plan_add(q4vk_plan *p, const char *kernel);

#endif
