/* q4vk_runtime_limits.h: the lowering of device limits for tests at context creation
 * (q4vk_runtime_limits.c); private to the runtime. */
#ifndef Q4VK_RUNTIME_LIMITS_H
#define Q4VK_RUNTIME_LIMITS_H

#include "q4vk_runtime.h"

/* At context creation: records ctx->info as the device's own (ctx->probed), then
 * lowers it by `opt` or, when that is all 0, by Q4CTS_TEST_LIMITS. */
q4_status q4vk_apply_test_limits(q4vk_context *ctx, const q4vk_test_limits *opt, q4_error *err);

#endif
