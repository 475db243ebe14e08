/* q4vk_runtime_submit.c: the recording and submission of q4vk_run, the grid folding.
 *
 * Every submission of the runtime (copies, fills, q4vk_run) uses the context's one
 * command buffer and one fence and is waited for before the call returns, so at
 * most one is in flight and descriptor sets can be reset per q4vk_run. The wait is
 * the watchdog: VK_TIMEOUT or VK_ERROR_DEVICE_LOST marks the context dead. The
 * fault hooks (q4vk_faults) act on q4vk_run's submissions only. A probed pipeline
 * (q4vk_runtime_probes.c) gets a second descriptor set, set 1, for its probe region. */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "q4vk_runtime_cmd.h"
#include "q4vk_runtime_errors.h"
#include "q4vk_runtime_pipeline.h"
#include "q4vk_runtime_probes.h"

/* The most groups a folded grid takes in dimension a on this device (info may be
 * NULL). 65535 is the limit Vulkan guarantees; more (NVIDIA allows 2^31-1 in x) would
 * make a kernel's behaviour differ between devices for no gain. */
static uint64_t fold_max(const q4vk_device_info *info, int a)
{
    if (info && info->max_group_count[a] && info->max_group_count[a] < 65535)
        return info->max_group_count[a];
    return 65535;
}

/* x as wide as allowed, then y, then z takes the rest: z > 1 only where x * y cannot
 * hold total. The counts may exceed the device's limits (q4vk_fold_fits says). */
static void fold(const q4vk_device_info *info, uint64_t total, uint64_t g[3])
{
    const uint64_t max_x = fold_max(info, 0), max_y = fold_max(info, 1);
    if (total == 0)
        total = 1;
    g[0] = total < max_x ? total : max_x;
    const uint64_t rows = (total + g[0] - 1) / g[0];
    g[1] = rows < max_y ? rows : max_y;
    g[2] = (rows + g[1] - 1) / g[1];
}

bool q4vk_fold_fits(const q4vk_device_info *info, uint64_t total)
{
    uint64_t g[3];
    fold(info, total, g);
    /* the kernels' flat index, (z * ny + y) * nx + x, is a uint32 for every group */
    return g[2] <= info->max_group_count[2] && g[0] * g[1] <= (UINT64_C(1) << 32) / g[2];
}

void q4vk_fold_groups(const q4vk_context *ctx, uint64_t total, uint32_t groups[3])
{
    uint64_t g[3];
    fold(ctx ? &ctx->info : NULL, total, g);
    for (int a = 0; a < 3; a++)
        groups[a] = g[a] > UINT32_MAX ? UINT32_MAX : (uint32_t)g[a];
}

q4_status q4vk_fold(const q4vk_context *ctx, const char *kernel, uint64_t total,
                    uint32_t groups[3], q4_error *err)
{
    const q4vk_device_info *info = &ctx->info;
    q4vk_fold_groups(ctx, total, groups);
    if (q4vk_fold_fits(info, total))
        return Q4_OK;
    return q4_fail(err, Q4_ERR_UNSUPPORTED,
                   "kernel %s: %" PRIu64 " workgroups do not fit the device's "
                   "maxComputeWorkGroupCount = (%u, %u, %u) even folded over x, y and z",
                   kernel, total, info->max_group_count[0], info->max_group_count[1],
                   info->max_group_count[2]);
}

/* Checks one dispatch against the pipeline's interface and the device limits. */
static q4_status check_dispatch(const q4vk_context *ctx, const q4vk_dispatch *d, int i,
                                q4_error *err)
{
    static const char axis[3] = { 'x', 'y', 'z' };
    const q4vk_pipeline *p = d->pipe;
    const q4vk_device_info *info = &ctx->info;

    if (!p)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_run: dispatch %d has no pipeline", i);
    for (int a = 0; a < 3; a++) {
        if (d->groups[a] == 0)
            return q4_fail(err, Q4_ERR_ARG,
                           "kernel %s: the group count in %c is 0 (every dimension needs at "
                           "least 1; use 1 for an unused y or z)", p->name, axis[a]);
        if (d->groups[a] > info->max_group_count[a])
            return q4_fail(err, Q4_ERR_ARG,
                           "kernel %s: %u workgroups in %c exceed the device limit "
                           "maxComputeWorkGroupCount[%d] = %u (fold the grid with "
                           "q4vk_fold)", p->name, d->groups[a], axis[a], a,
                           info->max_group_count[a]);
    }
    if (p->push_bytes && !d->push)
        return q4_fail(err, Q4_ERR_ARG, "kernel %s needs %u bytes of push constants, got NULL",
                       p->name, p->push_bytes);
    for (uint32_t b = 0; b < p->n_bindings; b++) {
        const q4vk_binding *bd = &d->bind[b];
        if (!bd->buf)
            return q4_fail(err, Q4_ERR_ARG, "kernel %s: binding %u has no buffer", p->name, b);
        VkDeviceSize size = bd->buf->vk_bytes;
        if (info->min_storage_align && bd->offset % info->min_storage_align)
            return q4_fail(err, Q4_ERR_ARG,
                           "kernel %s: binding %u offset %llu is not a multiple of "
                           "minStorageBufferOffsetAlignment (%llu)", p->name, b,
                           (unsigned long long)bd->offset,
                           (unsigned long long)info->min_storage_align);
        if (bd->offset >= size || bd->range > size - bd->offset)
            return q4_fail(err, Q4_ERR_ARG,
                           "kernel %s: binding %u (offset %llu, range %llu bytes) does not fit "
                           "in its buffer of %zu bytes", p->name, b,
                           (unsigned long long)bd->offset, (unsigned long long)bd->range,
                           bd->buf->bytes);
        VkDeviceSize range = bd->range ? bd->range : size - bd->offset;
        if (range > info->max_storage_range)
            return q4_fail(err, Q4_ERR_RESOURCE,
                           "kernel %s: binding %u spans %llu bytes, above the device's "
                           "maxStorageBufferRange of %llu bytes", p->name, b,
                           (unsigned long long)range,
                           (unsigned long long)info->max_storage_range);
    }
    return Q4_OK;
}

/* Makes room for `n` descriptor sets and resets the pool (no set is in use: every
 * submission was waited for). */
static q4_status descriptors_reserve(q4vk_context *ctx, uint32_t n, q4_error *err)
{
    VkResult r;

    if (ctx->desc_pool && ctx->desc_pool_sets >= n) {
        r = vkResetDescriptorPool(ctx->device, ctx->desc_pool, 0);
        if (r != VK_SUCCESS)
            return q4vk_vk_fail(ctx, err, "vkResetDescriptorPool", r, NULL);
        return Q4_OK;
    }
    if (ctx->desc_pool)
        vkDestroyDescriptorPool(ctx->device, ctx->desc_pool, NULL);
    ctx->desc_pool = VK_NULL_HANDLE;
    ctx->desc_pool_sets = 0;
    uint32_t sets = n > 64 ? n : 64;
    VkDescriptorPoolSize size[2] = {
        { .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = sets * Q4VK_MAX_BINDINGS },
        { .type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .descriptorCount = sets * Q4VK_MAX_BINDINGS },
    };
    VkDescriptorPoolCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = sets,
        .poolSizeCount = 2,
        .pPoolSizes = size,
    };
    r = vkCreateDescriptorPool(ctx->device, &ci, NULL, &ctx->desc_pool);
    if (r != VK_SUCCESS) {
        ctx->desc_pool = VK_NULL_HANDLE;
        return q4vk_vk_fail(ctx, err, "vkCreateDescriptorPool", r, "%u sets", sets);
    }
    ctx->desc_pool_sets = sets;
    return Q4_OK;
}

/* Allocates and writes the descriptor sets of every dispatch into sets[]: set 0 of
 * dispatch i at sets[i], and its probe set (where probe_at[i] is a region) at
 * sets[n + i]. */
static q4_status descriptors_write(q4vk_context *ctx, const q4vk_dispatch *d, int n,
                                   const uint64_t *probe_at, VkDescriptorSet *sets,
                                   q4_error *err)
{
    size_t per = Q4VK_MAX_BINDINGS + 1;
    VkDescriptorSetLayout *layouts = malloc(2 * (size_t)n * sizeof *layouts);
    VkDescriptorBufferInfo *infos = malloc((size_t)n * per * sizeof *infos);
    VkWriteDescriptorSet *writes = malloc((size_t)n * per * sizeof *writes);
    VkDescriptorSet *all = malloc(2 * (size_t)n * sizeof *all);
    q4_status st = Q4_OK;
    uint32_t n_writes = 0, n_sets = 0;
    VkResult r;

    if (!layouts || !infos || !writes || !all) {
        st = q4_fail(err, Q4_ERR_NOMEM, "out of host memory writing %d descriptor sets", n);
        goto done;
    }
    if ((st = descriptors_reserve(ctx, 2 * (uint32_t)n, err)) != Q4_OK)
        goto done;
    for (int i = 0; i < n; i++)
        layouts[n_sets++] = d[i].pipe->set_layout;
    for (int i = 0; i < n; i++)
        if (probe_at[i] != UINT64_MAX)
            layouts[n_sets++] = ctx->probe_set_layout;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = ctx->desc_pool,
        .descriptorSetCount = n_sets,
        .pSetLayouts = layouts,
    };
    r = vkAllocateDescriptorSets(ctx->device, &ai, all);
    if (r != VK_SUCCESS) {
        st = q4vk_vk_fail(ctx, err, "vkAllocateDescriptorSets", r, "%u sets", n_sets);
        goto done;
    }
    n_sets = (uint32_t)n;
    for (int i = 0; i < n; i++) {
        sets[i] = all[i];
        sets[n + i] = probe_at[i] != UINT64_MAX ? all[n_sets++] : VK_NULL_HANDLE;
        if (probe_at[i] == UINT64_MAX)
            continue;
        q4vk_probes_descriptor(ctx, &d[i], probe_at[i], &infos[n_writes]);
        writes[n_writes] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = sets[n + i],
            .dstBinding = 0,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &infos[n_writes],
        };
        n_writes++;
    }
    for (int i = 0; i < n; i++) {
        for (uint32_t b = 0; b < d[i].pipe->n_bindings; b++) {
            const q4vk_binding *bd = &d[i].bind[b];
            infos[n_writes] = (VkDescriptorBufferInfo){
                .buffer = bd->buf->buffer,
                .offset = bd->offset,
                .range = bd->range ? bd->range : bd->buf->vk_bytes - bd->offset,
            };
            writes[n_writes] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstSet = sets[i],
                .dstBinding = b,
                .descriptorCount = 1,
                .descriptorType = q4vk_binding_type(d[i].pipe, b),
                .pBufferInfo = &infos[n_writes],
            };
            n_writes++;
        }
    }
    if (n_writes)
        vkUpdateDescriptorSets(ctx->device, n_writes, writes, 0, NULL);
done:
    free(layouts);
    free(infos);
    free(writes);
    free(all);
    return st;
}

static void compute_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                            VkAccessFlags src, VkPipelineStageFlags dst_stage, VkAccessFlags dst)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = src,
        .dstAccessMask = dst,
    };
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Records the dispatches into ctx->cmd; no_barrier[i] (NULL: none) leaves out the
 * barrier between dispatches i - 1 and i. */
static void record(q4vk_context *ctx, const q4vk_dispatch *d, int n, const bool *no_barrier,
                   const q4vk_when *cond, const VkDescriptorSet *sets)
{
    VkCommandBuffer cmd = ctx->cmd;

    /* Earlier copies and dispatches (previous submissions) before these, a first
     * dispatch's condition included. */
    const bool cond0 = cond && n > 0 && cond[0].flag;
    compute_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                        (cond0 ? VK_PIPELINE_STAGE_CONDITIONAL_RENDERING_BIT_EXT : 0),
                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                        (cond0 ? VK_ACCESS_CONDITIONAL_RENDERING_READ_BIT_EXT : 0));
    if (ctx->queries) {
        vkCmdResetQueryPool(cmd, ctx->queries, 0, 2);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->queries, 0);
    }
    for (int i = 0; i < n; i++) {
        const q4vk_pipeline *p = d[i].pipe;
        q4vk_msgs_rename(ctx, "kernel %s", p->name);
        const q4vk_buffer *flag = cond ? cond[i].flag : NULL;
        /* a condition reads its flag at its own stage, which the barrier must reach too */
        if (i > 0 && !(no_barrier && no_barrier[i]))
            compute_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                (flag ? VK_PIPELINE_STAGE_CONDITIONAL_RENDERING_BIT_EXT : 0),
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                (flag ? VK_ACCESS_CONDITIONAL_RENDERING_READ_BIT_EXT : 0));
        if (flag) {
            const VkConditionalRenderingBeginInfoEXT when = {
                .sType = VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT,
                .buffer = flag->buffer,
                .offset = 0,
                .flags = cond[i].zero ? VK_CONDITIONAL_RENDERING_INVERTED_BIT_EXT : 0,
            };
            ctx->begin_conditional(cmd, &when);
        }
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &sets[i],
                                0, NULL);
        if (sets[n + i])
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 1, 1,
                                    &sets[n + i], 0, NULL);
        if (p->push_bytes)
            vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_bytes,
                               d[i].push);
        vkCmdDispatch(cmd, d[i].groups[0], d[i].groups[1], d[i].groups[2]);
        if (flag)
            ctx->end_conditional(cmd);
    }
    if (ctx->queries)
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->queries, 1);
    /* The results, for copies back and for the host. */
    compute_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                    VK_ACCESS_HOST_READ_BIT);
}

static q4_status read_timestamps(q4vk_context *ctx, const char *what, double *ms, q4_error *err)
{
    uint64_t ts[2];
    VkResult r = vkGetQueryPoolResults(ctx->device, ctx->queries, 0, 2, sizeof ts, ts,
                                       sizeof ts[0],
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS)
        return q4vk_vk_fail(ctx, err, "vkGetQueryPoolResults", r, "%s", what);
    uint64_t mask = ctx->timestamp_bits >= 64 ? UINT64_MAX : (1ull << ctx->timestamp_bits) - 1;
    uint64_t ticks = (ts[1] - ts[0]) & mask;
    *ms = (double)ticks * ctx->info.timestamp_period_ns * 1e-6;
    return Q4_OK;
}

/* Submits the dispatches (checked) in one command buffer and waits: q4vk_run's work,
 * and q4vk_sequence_end's. */
static q4_status submit(q4vk_context *ctx, const q4vk_dispatch *d, int n, const bool *no_barrier,
                        const q4vk_when *cond, q4vk_timing *t, q4_error *err)
{
    char what[192];
    VkDescriptorSet *sets = NULL;
    uint64_t *probe_at = NULL;
    double ms = -1.0;
    q4_status st;

    if (t)
        t->gpu_ms = -1.0;
    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK)
        return st;
    if (n == 1)
        snprintf(what, sizeof what, "kernel %s", d[0].pipe->name);
    else
        snprintf(what, sizeof what, "kernels %s .. %s (%d dispatches)", d[0].pipe->name,
                 d[n - 1].pipe->name, n);

    sets = malloc(2 * (size_t)n * sizeof *sets);
    probe_at = malloc((size_t)n * sizeof *probe_at);
    if (!sets || !probe_at) {
        free(sets);
        free(probe_at);
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory for %d descriptor sets", n);
    }
    q4vk_msgs_begin(ctx, "kernel %s", d[0].pipe->name);
    if ((st = q4vk_probes_prepare(ctx, d, n, probe_at, err)) != Q4_OK ||
        (st = descriptors_write(ctx, d, n, probe_at, sets, err)) != Q4_OK ||
        (st = q4vk_cmd_begin(ctx, err)) != Q4_OK)
        goto done;
    record(ctx, d, n, no_barrier, cond, sets);
    ctx->n_submits++;
    if ((st = q4vk_cmd_submit_wait(ctx, what, err)) != Q4_OK)
        goto done;
    q4vk_probes_collect(ctx, d, n, probe_at);

    /* Fault hooks: the work really ran; report it as lost or hung, or crash. */
    if (ctx->faults.crash_at == ctx->n_submits)
        raise(SIGSEGV);
    if (ctx->faults.device_lost_at == ctx->n_submits) {
        st = q4vk_vk_fail(ctx, err, "vkWaitForFences", VK_ERROR_DEVICE_LOST,
                          "%s; injected fault at submit %lld", what,
                          (long long)ctx->n_submits);
        goto done;
    }
    if (ctx->faults.timeout_at == ctx->n_submits) {
        char msg[Q4_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "%s did not finish within the watchdog of %llu ms (injected fault at "
                 "submit %lld)", what, (unsigned long long)(ctx->timeout_ns / 1000000),
                 (long long)ctx->n_submits);
        q4vk_mark_dead(ctx, Q4_ERR_TIMEOUT, msg);
        st = q4_fail(err, Q4_ERR_TIMEOUT, "%s", msg);
        goto done;
    }
    if (ctx->queries)
        st = read_timestamps(ctx, what, &ms, err);

done:
    free(sets);
    free(probe_at);
    {
        q4_status vst = q4vk_msgs_end(ctx, st == Q4_OK ? err : NULL);
        if (st == Q4_OK)
            st = vst;
    }
    if (st == Q4_OK && t)
        t->gpu_ms = ms;
    return st;
}

/* Keeps dispatches d[0..n) (checked) at the end of the sequence being recorded, their
 * push constants copied. */
static q4_status keep(q4vk_context *ctx, const q4vk_dispatch *d, int n, q4_error *err)
{
    struct q4vk_sequence *s = &ctx->seq;
    if (s->n + n > s->cap) {
        int cap = s->cap ? s->cap : 32;
        while (cap < s->n + n) cap *= 2;
        q4vk_dispatch *nd = realloc(s->d, (size_t)cap * sizeof *nd);
        if (nd) s->d = nd;
        size_t *np = nd ? realloc(s->push_at, (size_t)cap * sizeof *np) : NULL;
        if (np) s->push_at = np;
        bool *nb = np ? realloc(s->no_barrier, (size_t)cap * sizeof *nb) : NULL;
        if (nb) s->no_barrier = nb;
        q4vk_when *nc = nb ? realloc(s->cond, (size_t)cap * sizeof *nc) : NULL;
        if (nc) s->cond = nc;
        if (!nc)
            return q4_fail(err, Q4_ERR_NOMEM, "out of host memory recording %d dispatches",
                           s->n + n);
        s->cap = cap;
    }
    for (int i = 0; i < n; i++) {
        const uint32_t bytes = d[i].pipe->push_bytes;
        if (s->push_used + bytes > s->push_cap) {
            size_t cap = s->push_cap ? 2 * s->push_cap : 1024;
            while (cap < s->push_used + bytes) cap *= 2;
            unsigned char *np = realloc(s->push, cap);
            if (!np)
                return q4_fail(err, Q4_ERR_NOMEM, "out of host memory recording push constants");
            s->push = np, s->push_cap = cap;
        }
        s->d[s->n] = d[i];
        s->d[s->n].push = NULL;
        s->push_at[s->n] = s->push_used;
        if (bytes)
            memcpy(s->push + s->push_used, d[i].push, bytes);
        s->push_used += bytes;
        s->no_barrier[s->n] = i == 0 && s->next_no_barrier;
        s->cond[s->n] = s->when;
        for (uint32_t b = 0; b < d[i].pipe->n_bindings; b++)
            d[i].bind[b].buf->seq_bound = s->id;
        s->n++;
    }
    s->next_no_barrier = false;
    return Q4_OK;
}

q4_status q4vk_run(q4vk_context *ctx, const q4vk_dispatch *d, int n, q4vk_timing *t,
                   q4_error *err)
{
    q4_status st;
    if (t)
        t->gpu_ms = -1.0;
    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK)
        return st;
    if (n < 1 || !d)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_run needs at least one dispatch (got %d)", n);
    for (int i = 0; i < n; i++)
        if ((st = check_dispatch(ctx, &d[i], i, err)) != Q4_OK)
            return st;
    /* recorded: its time is the sequence's (q4vk_sequence_end) */
    return ctx->seq.recording ? keep(ctx, d, n, err) : submit(ctx, d, n, NULL, NULL, t, err);
}

/* ---------------- sequences ---------------- */

q4_status q4vk_sequence_begin(q4vk_context *ctx, q4_error *err)
{
    q4_status st = q4vk_check_alive(ctx, err);
    if (st != Q4_OK)
        return st;
    if (ctx->seq.recording)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_sequence_begin: a sequence is already being "
                       "recorded (sequences do not nest)");
    ctx->seq.recording = true;
    ctx->seq.id++;
    ctx->seq.n = 0;
    ctx->seq.push_used = 0;
    ctx->seq.next_no_barrier = false;
    ctx->seq.when = (q4vk_when){ NULL, false };
    return Q4_OK;
}

void q4vk_sequence_op(q4vk_context *ctx, bool barrier)
{
    if (ctx->seq.recording)
        ctx->seq.next_no_barrier = !barrier;
}

bool q4vk_sequence_recording(const q4vk_context *ctx)
{
    return ctx && ctx->seq.recording;
}

q4_status q4vk_sequence_when(q4vk_context *ctx, q4vk_buffer *flag, bool nonzero,
                             q4_error *err)
{
    if (!ctx->seq.recording)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "q4vk_sequence_when: no sequence is being "
                       "recorded (a dispatch submitted at once has no condition)");
    if (flag && !ctx->info.conditional)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "q4vk_sequence_when: the device has no "
                       "conditional rendering (VK_EXT_conditional_rendering)");
    ctx->seq.when = (q4vk_when){ flag, flag && !nonzero };
    return Q4_OK;
}

/* Stops recording and frees the buffers destroyed during it. */
static void sequence_close(q4vk_context *ctx)
{
    struct q4vk_sequence *s = &ctx->seq;
    s->recording = false;
    s->when = (q4vk_when){ NULL, false };
    for (int i = 0; i < s->n_doomed; i++)
        q4vk_buffer_destroy(ctx, s->doomed[i]);
    s->n_doomed = 0;
    s->n = 0;
}

q4_status q4vk_sequence_end(q4vk_context *ctx, q4vk_timing *t, q4_error *err)
{
    struct q4vk_sequence *s = &ctx->seq;
    q4_status st = Q4_OK;
    if (t)
        t->gpu_ms = -1.0;
    if (!s->recording)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_sequence_end: no sequence is being recorded");
    for (int i = 0; i < s->n; i++)
        s->d[i].push = s->d[i].pipe->push_bytes ? s->push + s->push_at[i] : NULL;
    if (s->n > 0)
        st = submit(ctx, s->d, s->n, s->no_barrier, s->cond, t, err);
    sequence_close(ctx);
    return st;
}

void q4vk_sequence_abort(q4vk_context *ctx)
{
    if (ctx && ctx->seq.recording)
        sequence_close(ctx);
}
