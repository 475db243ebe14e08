/* q4vk_runtime_errors.h: VkResult names and errors, the dead-context check and
 * validation-message scopes (q4vk_runtime_errors.c); private to the runtime. */
#ifndef Q4VK_RUNTIME_ERRORS_H
#define Q4VK_RUNTIME_ERRORS_H

#include "q4vk_runtime.h"

/* "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.; never NULL. */
const char *q4vk_result_name(VkResult r);

/* Turns a failed call into a status: DEVICE_LOST marks the context dead; out of
 * memory is Q4_ERR_RESOURCE; the rest Q4_ERR_DEVICE. The message is
 * "<call> failed: <VK_...>" with an optional " (<context>)". */
q4_status q4vk_vk_fail(q4vk_context *ctx, q4_error *err, const char *call, VkResult r,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Q4_OK if the context is usable, else its dead status with a sentence. */
q4_status q4vk_check_alive(const q4vk_context *ctx, q4_error *err);
void q4vk_mark_dead(q4vk_context *ctx, q4_status st, const char *msg);

/* Validation messages: begin a scope (clears the first error), and end it: if an
 * error arrived, Q4_ERR_VALIDATION "validation layer, <scope>: <message>". */
void q4vk_msgs_begin(q4vk_context *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
q4_status q4vk_msgs_end(q4vk_context *ctx, q4_error *err);
/* Changes only the scope's name (e.g. the kernel now recorded), keeping its errors. */
void q4vk_msgs_rename(q4vk_context *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The messenger that routes VK_EXT_debug_utils messages into ctx->msgs (for the
 * instance's own creation messages and for the context's messenger). */
void q4vk_messenger_info(q4vk_context *ctx, VkDebugUtilsMessengerCreateInfoEXT *ci);

#endif
