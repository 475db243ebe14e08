/* q4vk_op_ew.h: private to the element-wise launchers (fused_ce, adamw_step, requant).
 *
 * The "_limit" entry points: the same launchers with the largest binding they may use
 * given explicitly instead of the device's maxStorageBufferRange, so that tests can
 * drive the split paths (several dispatches over aligned sub-ranges) on a device
 * whose real limit is too large to reach cheaply. The public launchers call them
 * with q4vk_info(ctx)->max_storage_range. */
#ifndef Q4VK_OP_EW_H
#define Q4VK_OP_EW_H

#include <stdint.h>

#include "q4vk_op_args.h"

q4_status q4vk_fused_ce_limit(q4vk_context *ctx, const q4vk_ce_args *a, uint64_t max_binding,
                              q4vk_timing *t, q4_error *err);
q4_status q4vk_adamw_step_limit(q4vk_context *ctx, const q4vk_adamw_args *a,
                                uint64_t max_binding, q4vk_timing *t, q4_error *err);
q4_status q4vk_q4gsw_requant_limit(q4vk_context *ctx, const q4vk_requant_args *a,
                                   uint64_t max_binding, q4vk_timing *t, q4_error *err);

#endif
