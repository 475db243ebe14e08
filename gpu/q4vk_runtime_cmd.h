/* q4vk_runtime_cmd.h: one-shot command submission on the context's command buffer
 * and fence, and the watchdog (q4vk_runtime_cmd.c); private to the runtime. */
#ifndef Q4VK_RUNTIME_CMD_H
#define Q4VK_RUNTIME_CMD_H

#include "q4vk_runtime.h"

/* Begins ctx->cmd for a one-shot submission. */
q4_status q4vk_cmd_begin(q4vk_context *ctx, q4_error *err);
/* Ends ctx->cmd, submits it with ctx->fence and waits (watchdog). `what` names the
 * work in a timeout message. */
q4_status q4vk_cmd_submit_wait(q4vk_context *ctx, const char *what, q4_error *err);

/* After a watchdog timeout the submission may still run and use every object it
 * names: waits up to Q4VK_GRACE_NS for it. True when device objects may be freed
 * (always, unless a timed-out submission is still running). */
#define Q4VK_GRACE_NS 2000000000ull
bool q4vk_quiesce(q4vk_context *ctx);

#endif
