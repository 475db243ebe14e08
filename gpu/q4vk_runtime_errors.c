/* q4vk_runtime_errors.c: the runtime's error helpers and validation messages.
 *
 * The bottom of the runtime: every other q4vk_runtime_*.c file reports through
 * these, and they call none of them. VkResult names and the failure, dead-context
 * and liveness helpers; then the VK_EXT_debug_utils callback and the scopes that
 * attribute its messages to the call that made them. */
#include <stdarg.h>
#include <stdio.h>

#include "q4vk_runtime_errors.h"

/* ---------------- VkResult names and errors ---------------- */

const char *q4vk_result_name(VkResult r)
{
    switch (r) {
#define NAME(x) case x: return #x
    NAME(VK_SUCCESS);
    NAME(VK_NOT_READY);
    NAME(VK_TIMEOUT);
    NAME(VK_EVENT_SET);
    NAME(VK_EVENT_RESET);
    NAME(VK_INCOMPLETE);
    NAME(VK_ERROR_OUT_OF_HOST_MEMORY);
    NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    NAME(VK_ERROR_INITIALIZATION_FAILED);
    NAME(VK_ERROR_DEVICE_LOST);
    NAME(VK_ERROR_MEMORY_MAP_FAILED);
    NAME(VK_ERROR_LAYER_NOT_PRESENT);
    NAME(VK_ERROR_EXTENSION_NOT_PRESENT);
    NAME(VK_ERROR_FEATURE_NOT_PRESENT);
    NAME(VK_ERROR_INCOMPATIBLE_DRIVER);
    NAME(VK_ERROR_TOO_MANY_OBJECTS);
    NAME(VK_ERROR_FORMAT_NOT_SUPPORTED);
    NAME(VK_ERROR_FRAGMENTED_POOL);
    NAME(VK_ERROR_UNKNOWN);
    NAME(VK_ERROR_OUT_OF_POOL_MEMORY);
    NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE);
    NAME(VK_ERROR_FRAGMENTATION);
    NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS);
    NAME(VK_PIPELINE_COMPILE_REQUIRED);
    NAME(VK_ERROR_SURFACE_LOST_KHR);
    NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR);
    NAME(VK_SUBOPTIMAL_KHR);
    NAME(VK_ERROR_OUT_OF_DATE_KHR);
    NAME(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR);
    NAME(VK_ERROR_VALIDATION_FAILED_EXT);
    NAME(VK_ERROR_INVALID_SHADER_NV);
#undef NAME
    default: return "VK_RESULT_UNKNOWN";
    }
}

void q4vk_mark_dead(q4vk_context *ctx, q4_status st, const char *msg)
{
    if (ctx->dead != Q4_OK)
        return;
    ctx->dead = st;
    snprintf(ctx->dead_msg, sizeof ctx->dead_msg, "%s", msg);
}

q4_status q4vk_vk_fail(q4vk_context *ctx, q4_error *err, const char *call, VkResult r,
                       const char *fmt, ...)
{
    char detail[256] = "";
    char msg[Q4_MSG_MAX];
    q4_status st = Q4_ERR_DEVICE;

    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
    }
    snprintf(msg, sizeof msg, "%s failed: %s%s%s%s", call, q4vk_result_name(r),
             detail[0] ? " (" : "", detail, detail[0] ? ")" : "");
    if (r == VK_ERROR_DEVICE_LOST) {
        st = Q4_ERR_DEVICE_LOST;
        if (ctx)
            q4vk_mark_dead(ctx, st, msg);
    } else if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
        st = Q4_ERR_RESOURCE;
    } else if (r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        st = Q4_ERR_NOMEM;
    }
    return q4_fail(err, st, "%s", msg);
}

q4_status q4vk_check_alive(const q4vk_context *ctx, q4_error *err)
{
    if (!ctx)
        return q4_fail(err, Q4_ERR_ARG, "the q4vk context is NULL");
    if (ctx->dead == Q4_OK)
        return Q4_OK;
    return q4_fail(err, ctx->dead,
                   "the Vulkan context is unusable after an earlier failure (%s); "
                   "destroy it and create a new one", ctx->dead_msg);
}

/* ---------------- validation messages ---------------- */

static VKAPI_ATTR VkBool32 VKAPI_CALL
debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
               VkDebugUtilsMessageTypeFlagsEXT types,
               const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    q4vk_messages *m = user;
    const char *text = data && data->pMessage ? data->pMessage : "(no message)";

    (void)types;
    pthread_mutex_lock(&m->lock);
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        if (m->errors++ == 0 || !m->first_error[0]) {
            snprintf(m->first_error, sizeof m->first_error, "%s", text);
            snprintf(m->first_scope, sizeof m->first_scope, "%s",
                     m->scope[0] ? m->scope : "outside any call");
        }
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        if (m->warnings++ == 0)
            snprintf(m->first_warning, sizeof m->first_warning, "%s", text);
    }
    pthread_mutex_unlock(&m->lock);
    return VK_FALSE;
}

/* Names the calls that follow in validation messages; clear_error forgets the first
 * error seen so far (a new call starts), a rename keeps it (the same call goes on). */
static void msgs_scope(q4vk_context *ctx, bool clear_error, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&ctx->msgs.lock);
    vsnprintf(ctx->msgs.scope, sizeof ctx->msgs.scope, fmt, ap);
    if (clear_error)
        ctx->msgs.first_error[0] = '\0';
    pthread_mutex_unlock(&ctx->msgs.lock);
}

void q4vk_msgs_begin(q4vk_context *ctx, const char *fmt, ...)
{
    va_list ap;

    if (!ctx->validation)
        return;
    va_start(ap, fmt);
    msgs_scope(ctx, true, fmt, ap);
    va_end(ap);
}

void q4vk_msgs_rename(q4vk_context *ctx, const char *fmt, ...)
{
    va_list ap;

    if (!ctx->validation)
        return;
    va_start(ap, fmt);
    msgs_scope(ctx, false, fmt, ap);
    va_end(ap);
}

q4_status q4vk_msgs_end(q4vk_context *ctx, q4_error *err)
{
    q4_status st = Q4_OK;

    if (!ctx->validation)
        return Q4_OK;
    pthread_mutex_lock(&ctx->msgs.lock);
    if (ctx->msgs.first_error[0])
        st = q4_fail(err, Q4_ERR_VALIDATION, "validation layer, %s: %s", ctx->msgs.first_scope,
                     ctx->msgs.first_error);
    ctx->msgs.first_error[0] = '\0';
    ctx->msgs.scope[0] = '\0';
    pthread_mutex_unlock(&ctx->msgs.lock);
    return st;
}

uint64_t q4vk_validation_messages(q4vk_context *ctx, uint64_t *warnings, char *first_warning,
                                  size_t first_warning_bytes)
{
    uint64_t errors;

    if (!ctx) {
        if (warnings)
            *warnings = 0;
        return 0;
    }
    pthread_mutex_lock(&ctx->msgs.lock);
    errors = ctx->msgs.errors;
    if (warnings)
        *warnings = ctx->msgs.warnings;
    if (first_warning && first_warning_bytes)
        snprintf(first_warning, first_warning_bytes, "%s", ctx->msgs.first_warning);
    pthread_mutex_unlock(&ctx->msgs.lock);
    return errors;
}

void q4vk_messenger_info(q4vk_context *ctx, VkDebugUtilsMessengerCreateInfoEXT *ci)
{
    *ci = (VkDebugUtilsMessengerCreateInfoEXT){
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = debug_callback,
        .pUserData = &ctx->msgs,
    };
}
