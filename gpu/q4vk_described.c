/* q4vk_described.c: dispatch steps described in full by the caller (q4vk.h, "described
 * dispatches"), for kernels of other runtimes: the pipelines of each step's kernel, the
 * grid checked against the device (folded over y where the kernel allows it), and one
 * q4vk_run of the steps that have work. */
#include <stdlib.h>

#include "q4vk_runtime.h"

/* The group counts of step s on this device into g; Q4_ERR_UNSUPPORTED when the device
 * cannot dispatch them. */
static q4_status grid(const q4vk_context *ctx, const q4vk_described_step *s, uint32_t g[3],
                 q4_error *err)
{
    static const char axis[3] = { 'x', 'y', 'z' };
    const q4vk_device_info *info = q4vk_info(ctx);
    if (s->fold && s->groups[1] == 1 && s->groups[2] == 1 &&
        s->groups[0] > info->max_group_count[0]) {
        /* over y only: the kernels of other runtimes rebuild y * nx + x, never z */
        q4vk_fold_groups(ctx, s->groups[0], g);
        if (g[2] == 1 && g[1] <= info->max_group_count[1])
            return Q4_OK;
    }
    for (int a = 0; a < 3; a++) {
        if (s->groups[a] > info->max_group_count[a]) {
            return q4_fail(err, Q4_ERR_UNSUPPORTED, "kernel %s: %llu workgroups in %c exceed the "
                    "device's maxComputeWorkGroupCount[%d] = %u%s", s->kernel.name,
                    (unsigned long long)s->groups[a], axis[a], a, info->max_group_count[a],
                    !s->fold ? " (the kernel does not accept a folded grid)"
                    : a == 0 ? " even folded over y" : "");
        }
        g[a] = (uint32_t)s->groups[a];
    }
    return Q4_OK;
}

/* A storage binding longer than the device allows: the kernel cannot be split as our
 * launchers split theirs, so the device cannot run it (Q4_ERR_UNSUPPORTED). */
static q4_status ranges(const q4vk_context *ctx, const q4vk_described_step *s, q4_error *err)
{
    const uint64_t max = q4vk_info(ctx)->max_storage_range;
    for (uint32_t b = 0; b < s->kernel.n_bindings; b++) {
        const q4vk_binding *bd = &s->bind[b];
        if (s->kernel.uniform_mask >> b & 1 || !bd->buf)
            continue;
        const uint64_t range = bd->range ? bd->range : q4vk_buffer_size(bd->buf) - bd->offset;
        if (range > max)
            return q4_fail(err, Q4_ERR_UNSUPPORTED, "kernel %s: binding %u spans %llu bytes, "
                           "above the device's maxStorageBufferRange of %llu bytes",
                           s->kernel.name, b, (unsigned long long)range,
                           (unsigned long long)max);
    }
    return Q4_OK;
}

q4_status q4vk_run_described(q4vk_context *ctx, const q4vk_described_step *s, int n,
                             q4vk_timing *t, q4_error *err)
{
    q4vk_dispatch *d = calloc(n > 0 ? (size_t)n : 1, sizeof *d);
    q4_status st = d ? Q4_OK : q4_fail(err, Q4_ERR_NOMEM, "out of host memory for %d steps", n);
    int n_run = 0;
    for (int i = 0; i < n && st == Q4_OK; i++) {
        if (!s[i].groups[0] || !s[i].groups[1] || !s[i].groups[2])
            continue;
        q4vk_dispatch *di = &d[n_run];
        if ((st = grid(ctx, &s[i], di->groups, err)) != Q4_OK ||
            (st = ranges(ctx, &s[i], err)) != Q4_OK)
            break;
        st = q4vk_pipeline_get(ctx, &s[i].kernel, &s[i].spec, &di->pipe, err);
        if (st == Q4_OK) {   /* the user's code, as an override's: so the probes report it */
            di->pipe->overridden = true;
            snprintf(di->pipe->origin, sizeof di->pipe->origin, "%s",
                     s[i].origin ? s[i].origin : "");
        }
        for (int b = 0; b < Q4VK_MAX_BINDINGS; b++)
            di->bind[b] = s[i].bind[b];
        di->push = s[i].push;
        n_run++;
    }
    if (st == Q4_OK && n_run > 0)
        st = q4vk_run(ctx, d, n_run, t, err);
    free(d);
    return st;
}
