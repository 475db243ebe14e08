/* q4vk_runtime_cmd.c: one-shot command submission and the watchdog (q4vk_runtime_cmd.h).
 *
 * Every submission of the runtime (copies, fills, q4vk_run) uses the context's one
 * command buffer and one fence and is waited for before the call returns, so at
 * most one is in flight. The wait is the watchdog: VK_TIMEOUT or
 * VK_ERROR_DEVICE_LOST marks the context dead. */
#include <stdio.h>

#include "q4vk_runtime_cmd.h"
#include "q4vk_runtime_errors.h"

q4_status q4vk_cmd_begin(q4vk_context *ctx, q4_error *err)
{
    VkResult r = vkResetCommandBuffer(ctx->cmd, 0);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkResetCommandBuffer", r, NULL);
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    r = vkBeginCommandBuffer(ctx->cmd, &bi);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkBeginCommandBuffer", r, NULL);
    return Q4_OK;
}

q4_status q4vk_cmd_submit_wait(q4vk_context *ctx, const char *what, q4_error *err)
{
    VkResult r = vkEndCommandBuffer(ctx->cmd);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkEndCommandBuffer", r, "%s", what);
    r = vkResetFences(ctx->device, 1, &ctx->fence);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkResetFences", r, "%s", what);
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &ctx->cmd,
    };
    r = vkQueueSubmit(ctx->queue, 1, &si, ctx->fence);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkQueueSubmit", r, "%s", what);
    ctx->in_flight = true;
    r = vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, ctx->timeout_ns);
    if (r == VK_TIMEOUT) {
        char msg[Q4_MSG_MAX];
        snprintf(msg, sizeof msg, "%s did not finish within the watchdog of %llu ms", what,
                 (unsigned long long)(ctx->timeout_ns / 1000000));
        q4vk_mark_dead(ctx, Q4_ERR_TIMEOUT, msg);
        return q4_fail(err, Q4_ERR_TIMEOUT, "%s", msg);
    }
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkWaitForFences", r, "%s", what);
    ctx->in_flight = false;
    return Q4_OK;
}

bool q4vk_quiesce(q4vk_context *ctx)
{
    if (!ctx->in_flight || !ctx->device)
        return true;
    if (ctx->dead == Q4_OK) {
        /* Only a failed wait leaves in_flight with a live context: wait once more. */
        VkResult r = vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, ctx->timeout_ns);
        ctx->in_flight = r != VK_SUCCESS;
        return r != VK_TIMEOUT;
    }
    VkResult r = vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, Q4VK_GRACE_NS);
    if (r == VK_SUCCESS)
        ctx->in_flight = false;
    return r != VK_TIMEOUT;
}
