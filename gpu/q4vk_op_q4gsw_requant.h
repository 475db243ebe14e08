/* q4vk_op_q4gsw_requant.h: the launcher of q4gsw_requant (q4vk_op_q4gsw_requant.c) with the largest binding it
 * may use given explicitly instead of the device's maxStorageBufferRange, so that tests
 * can drive the split paths (several dispatches over aligned sub-ranges) on a device
 * whose real limit is too large to reach cheaply. The public launcher calls it with
 * q4vk_info(ctx)->max_storage_range. */
#ifndef Q4VK_OP_Q4GSW_REQUANT_H
#define Q4VK_OP_Q4GSW_REQUANT_H

#include <stdint.h>

#include "q4vk_op_args.h"

q4_status q4vk_q4gsw_requant_limit(q4vk_context *ctx, const q4vk_requant_args *a,
                                   uint64_t max_binding, q4vk_timing *t, q4_error *err);

#endif
