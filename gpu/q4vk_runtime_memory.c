/* q4vk_runtime_memory.c: device buffers and the staging path.
 *
 * Every q4vk_buffer is one VkBuffer (storage | transfer src | transfer dst) with its
 * own allocation, from a DEVICE_LOCAL memory type where the device has one. Host
 * data moves through one persistently mapped, host-coherent staging buffer that
 * grows on demand up to Q4VK_STAGING_CHUNK; larger transfers are copied chunk by
 * chunk (vkCmdCopyBuffer, submit, wait). The same path is used on every device,
 * lavapipe included, so that what is measured on one is what runs on the other. */
#include <stdlib.h>
#include <string.h>

#include "q4vk_runtime_cmd.h"
#include "q4vk_runtime_errors.h"
#include "q4vk_runtime_memory.h"

/* Memory type with all of `required` and, where possible, `preferred` too; -1 if none. */
static int memory_type(const q4vk_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags required,
                       VkMemoryPropertyFlags preferred)
{
    int fallback = -1;

    for (uint32_t i = 0; i < ctx->mem.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = ctx->mem.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (f & required) != required)
            continue;
        if ((f & preferred) == preferred)
            return (int)i;
        if (fallback < 0)
            fallback = (int)i;
    }
    return fallback;
}

q4_status q4vk_raw_buffer(q4vk_context *ctx, VkDeviceSize bytes, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                          const char *what, VkBuffer *buffer, VkDeviceMemory *memory,
                          q4_error *err)
{
    VkMemoryRequirements req;
    q4_status st;
    VkResult r;
    int type;

    *buffer = VK_NULL_HANDLE;
    *memory = VK_NULL_HANDLE;
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    r = vkCreateBuffer(ctx->device, &bci, NULL, buffer);
    if (r != VK_SUCCESS) {
        *buffer = VK_NULL_HANDLE;
        return q4vk_vk_fail(ctx, err, "vkCreateBuffer", r, "%s of %llu bytes", what,
                            (unsigned long long)bytes);
    }
    vkGetBufferMemoryRequirements(ctx->device, *buffer, &req);
    type = memory_type(ctx, req.memoryTypeBits, required, preferred);
    if (type < 0) {
        st = q4_fail(err, Q4_ERR_UNSUPPORTED,
                     "the device has no memory type for a %s (property flags 0x%x)", what,
                     (unsigned)required);
        goto fail;
    }
    /* Every buffer has an allocation of its own: saying so (a dedicated allocation,
     * core in Vulkan 1.1) lets the driver place it as it would a resource it alone
     * backs. Added while chasing fused_ce's spread of times across processes, whose cause
     * turned out to be a context left idle (harness/commands/perf.c); kept, as it costs nothing. */
    VkMemoryDedicatedAllocateInfo dedicated = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
        .buffer = *buffer,
    };
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &dedicated,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)type,
    };
    r = vkAllocateMemory(ctx->device, &mai, NULL, memory);
    if (r != VK_SUCCESS) {
        *memory = VK_NULL_HANDLE;
        st = q4vk_vk_fail(ctx, err, "vkAllocateMemory", r, "%s of %llu bytes", what,
                          (unsigned long long)bytes);
        goto fail;
    }
    r = vkBindBufferMemory(ctx->device, *buffer, *memory, 0);
    if (r != VK_SUCCESS) {
        st = q4vk_vk_fail(ctx, err, "vkBindBufferMemory", r, "%s of %llu bytes", what,
                          (unsigned long long)bytes);
        goto fail;
    }
    return Q4_OK;

fail:
    if (*memory)
        vkFreeMemory(ctx->device, *memory, NULL);
    vkDestroyBuffer(ctx->device, *buffer, NULL);
    *buffer = VK_NULL_HANDLE;
    *memory = VK_NULL_HANDLE;
    return st;
}

/* ---------------- buffers ---------------- */

q4_status q4vk_buffer_create(q4vk_context *ctx, size_t bytes, q4vk_buffer **out, q4_error *err)
{
    q4_status st;

    if (out)
        *out = NULL;
    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK)
        return st;
    if (!out)
        return q4_fail(err, Q4_ERR_ARG, "q4vk_buffer_create needs a place for the buffer");
    if (bytes == 0)
        return q4_fail(err, Q4_ERR_ARG, "a device buffer of 0 bytes was asked for; "
                                        "the size must be at least 1 byte");
    ctx->n_allocs++;
    if (ctx->faults.fail_alloc_at == ctx->n_allocs)
        return q4_fail(err, Q4_ERR_RESOURCE,
                       "vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY (device buffer "
                       "of %zu bytes; injected fault at allocation %lld)",
                       bytes, (long long)ctx->n_allocs);
    /* Round up to whole 32-bit words: shaders address uint words. */
    VkDeviceSize vk_bytes = ((VkDeviceSize)bytes + 3) & ~(VkDeviceSize)3;
    if (vk_bytes < bytes || (ctx->max_alloc_bytes && vk_bytes > ctx->max_alloc_bytes))
        return q4_fail(err, Q4_ERR_RESOURCE,
                       "a device buffer of %zu bytes exceeds maxMemoryAllocationSize "
                       "(%llu bytes) of this device", bytes,
                       (unsigned long long)ctx->max_alloc_bytes);

    q4vk_buffer *buf = calloc(1, sizeof *buf);
    if (!buf)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory creating a device buffer");
    q4vk_msgs_begin(ctx, "buffer creation (%zu bytes)", bytes);
    st = q4vk_raw_buffer(ctx, vk_bytes,
                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                    VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                    /* any buffer may hold a recorded dispatch's flag (q4vk_sequence_when) */
                    (ctx->info.conditional ? VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT : 0),
                    0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device buffer", &buf->buffer,
                    &buf->memory, err);
    q4_status vst = q4vk_msgs_end(ctx, st == Q4_OK ? err : NULL);
    if (st == Q4_OK)
        st = vst;
    if (st != Q4_OK) {
        if (buf->buffer) {
            vkDestroyBuffer(ctx->device, buf->buffer, NULL);
            vkFreeMemory(ctx->device, buf->memory, NULL);
        }
        free(buf);
        return st;
    }
    buf->bytes = bytes;
    buf->vk_bytes = vk_bytes;
    buf->data_bytes = bytes;
    buf->seq_born = ctx->seq.recording ? ctx->seq.id : 0;
    *out = buf;
    return Q4_OK;
}

/* While a sequence is recorded its dispatches may still use buf: kept until its end
 * (q4vk_sequence_end), or freed now if there is no room to keep it. */
static bool doom(q4vk_context *ctx, q4vk_buffer *buf)
{
    struct q4vk_sequence *s = &ctx->seq;
    if (s->n_doomed == s->cap_doomed) {
        int cap = s->cap_doomed ? 2 * s->cap_doomed : 16;
        q4vk_buffer **d = realloc(s->doomed, (size_t)cap * sizeof *d);
        if (!d)
            return false;
        s->doomed = d, s->cap_doomed = cap;
    }
    s->doomed[s->n_doomed++] = buf;
    return true;
}

void q4vk_buffer_destroy(q4vk_context *ctx, q4vk_buffer *buf)
{
    if (!buf)
        return;
    if (ctx && ctx->seq.recording && buf->seq_bound == ctx->seq.id && doom(ctx, buf))
        return;
    if (ctx && ctx->device && q4vk_quiesce(ctx)) {
        vkDestroyBuffer(ctx->device, buf->buffer, NULL);
        vkFreeMemory(ctx->device, buf->memory, NULL);
    }
    free(buf);
}

size_t q4vk_buffer_size(const q4vk_buffer *buf)
{
    return buf ? buf->bytes : 0;
}

void q4vk_buffer_set_data_bytes(q4vk_buffer *buf, size_t bytes)
{
    if (buf)
        buf->data_bytes = bytes < buf->bytes ? bytes : buf->bytes;
}

/* ---------------- staging ---------------- */

void q4vk_staging_destroy(q4vk_context *ctx)
{
    if (ctx->staging_mem) {
        if (ctx->staging_map)
            vkUnmapMemory(ctx->device, ctx->staging_mem);
        vkFreeMemory(ctx->device, ctx->staging_mem, NULL);
    }
    if (ctx->staging)
        vkDestroyBuffer(ctx->device, ctx->staging, NULL);
    ctx->staging = VK_NULL_HANDLE;
    ctx->staging_mem = VK_NULL_HANDLE;
    ctx->staging_map = NULL;
    ctx->staging_bytes = 0;
}

/* Makes the staging buffer hold at least `bytes` (<= Q4VK_STAGING_CHUNK). */
static q4_status staging_reserve(q4vk_context *ctx, size_t bytes, q4_error *err)
{
    size_t want;
    q4_status st;

    if (ctx->staging_bytes >= bytes)
        return Q4_OK;
    want = ctx->staging_bytes * 2 > bytes ? ctx->staging_bytes * 2 : bytes;
    if (want > Q4VK_STAGING_CHUNK)
        want = Q4VK_STAGING_CHUNK;
    want = (want + 255) & ~(size_t)255;
    q4vk_staging_destroy(ctx);
    st = q4vk_raw_buffer(ctx, want, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "staging buffer", &ctx->staging,
                    &ctx->staging_mem, err);
    if (st != Q4_OK)
        return st;
    VkResult r = vkMapMemory(ctx->device, ctx->staging_mem, 0, VK_WHOLE_SIZE, 0, &ctx->staging_map);
    if (r != VK_SUCCESS) {
        ctx->staging_map = NULL;
        q4vk_staging_destroy(ctx);
        return q4vk_vk_fail(ctx, err, "vkMapMemory", r, "staging buffer of %zu bytes", want);
    }
    ctx->staging_bytes = want;
    return Q4_OK;
}

/* A staging chunk's copy to or from the host, on every core in pieces of a fixed size
 * (the bytes are the same whoever copies them): one core's memcpy of a big case's
 * gigabytes was, beside the transfers themselves, most of its uploads and read-backs. */
enum { COPY_PIECE = 1 << 20 };

static void copy_wide(void *dst, const void *src, size_t bytes)
{
#pragma omp parallel for schedule(static) if (bytes > COPY_PIECE)
    for (size_t at = 0; at < bytes; at += COPY_PIECE)
        memcpy((char *)dst + at, (const char *)src + at,
               bytes - at < COPY_PIECE ? bytes - at : COPY_PIECE);
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = src,
        .dstAccessMask = dst,
    };
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Earlier dispatches and copies (writes and reads) before a transfer. */
#define PRIOR_STAGES (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)
#define PRIOR_WRITES (VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)

static q4_status check_range(const char *fn, const q4vk_buffer *buf, size_t offset,
                             size_t bytes, const void *host, q4_error *err)
{
    if (!buf)
        return q4_fail(err, Q4_ERR_ARG, "%s: the device buffer is NULL", fn);
    if (!host && bytes)
        return q4_fail(err, Q4_ERR_ARG, "%s: the host pointer is NULL", fn);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return q4_fail(err, Q4_ERR_ARG,
                       "%s: %zu bytes at offset %zu do not fit in the buffer of %zu bytes", fn,
                       bytes, offset, buf->bytes);
    return Q4_OK;
}

/* A transfer runs at once, before the sequence being recorded (q4vk_sequence_begin)
 * is submitted. So a write to a buffer a recorded dispatch binds would land out of
 * order, and a read of a buffer made during the sequence, never uploaded to and bound
 * by it (a launcher's flag) would see nothing the sequence wrote: both are refused. A
 * read of any other buffer sees what it held before the sequence (the launchers'
 * checks of scales and labels). */
static q4_status check_unrecorded(const q4vk_context *ctx, const char *what,
                                  const q4vk_buffer *buf, bool read, q4_error *err)
{
    const struct q4vk_sequence *s = &ctx->seq;
    if (!s->recording || !buf || buf->seq_bound != s->id || (read && buf->seq_born != s->id))
        return Q4_OK;
    if (read)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "%s: the buffer was made while a sequence is "
                       "recorded and a dispatch of it, which has not run yet, binds it: "
                       "there is nothing to read yet (q4vk_sequence_begin)", what);
    return q4_fail(err, Q4_ERR_UNSUPPORTED, "%s: a dispatch of the sequence being recorded "
                   "binds the buffer and has not run yet; this transfer would run before it "
                   "(q4vk_sequence_begin)", what);
}

q4_status q4vk_upload(q4vk_context *ctx, q4vk_buffer *dst, size_t offset, const void *src,
                      size_t bytes, q4_error *err)
{
    q4_status st;

    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK ||
        (st = check_range("q4vk_upload", dst, offset, bytes, src, err)) != Q4_OK ||
        (st = check_unrecorded(ctx, "q4vk_upload", dst, false, err)) != Q4_OK)
        return st;
    q4vk_msgs_begin(ctx, "upload (%zu bytes)", bytes);
    for (size_t done = 0; done < bytes && st == Q4_OK;) {
        size_t n = bytes - done < Q4VK_STAGING_CHUNK ? bytes - done : Q4VK_STAGING_CHUNK;
        if ((st = staging_reserve(ctx, n, err)) != Q4_OK ||
            (st = q4vk_cmd_begin(ctx, err)) != Q4_OK)
            break;
        copy_wide(ctx->staging_map, (const char *)src + done, n);
        barrier(ctx->cmd, PRIOR_STAGES, PRIOR_WRITES, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT);
        VkBufferCopy region = { .srcOffset = 0, .dstOffset = offset + done, .size = n };
        vkCmdCopyBuffer(ctx->cmd, ctx->staging, dst->buffer, 1, &region);
        st = q4vk_cmd_submit_wait(ctx, "an upload", err);
        done += n;
    }
    if (st == Q4_OK)
        dst->seq_born = 0;   /* what it holds is known before the sequence */
    q4_status vst = q4vk_msgs_end(ctx, st == Q4_OK ? err : NULL);
    return st != Q4_OK ? st : vst;
}

q4_status q4vk_download(q4vk_context *ctx, const q4vk_buffer *src, size_t offset, void *dst,
                        size_t bytes, q4_error *err)
{
    q4_status st;

    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK ||
        (st = check_range("q4vk_download", src, offset, bytes, dst, err)) != Q4_OK ||
        (st = check_unrecorded(ctx, "q4vk_download", src, true, err)) != Q4_OK)
        return st;
    q4vk_msgs_begin(ctx, "download (%zu bytes)", bytes);
    for (size_t done = 0; done < bytes && st == Q4_OK;) {
        size_t n = bytes - done < Q4VK_STAGING_CHUNK ? bytes - done : Q4VK_STAGING_CHUNK;
        if ((st = staging_reserve(ctx, n, err)) != Q4_OK ||
            (st = q4vk_cmd_begin(ctx, err)) != Q4_OK)
            break;
        barrier(ctx->cmd, PRIOR_STAGES, PRIOR_WRITES, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        VkBufferCopy region = { .srcOffset = offset + done, .dstOffset = 0, .size = n };
        vkCmdCopyBuffer(ctx->cmd, src->buffer, ctx->staging, 1, &region);
        barrier(ctx->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
        st = q4vk_cmd_submit_wait(ctx, "a download", err);
        if (st == Q4_OK)
            copy_wide((char *)dst + done, ctx->staging_map, n);
        done += n;
    }
    q4_status vst = q4vk_msgs_end(ctx, st == Q4_OK ? err : NULL);
    return st != Q4_OK ? st : vst;
}

q4_status q4vk_fill(q4vk_context *ctx, q4vk_buffer *dst, size_t offset, size_t bytes,
                    uint32_t word, q4_error *err)
{
    q4_status st;

    if ((st = q4vk_check_alive(ctx, err)) != Q4_OK)
        return st;
    if (dst && bytes == 0 && offset <= dst->bytes)
        bytes = dst->bytes - offset;
    if ((st = check_range("q4vk_fill", dst, offset, bytes, &word, err)) != Q4_OK ||
        (st = check_unrecorded(ctx, "q4vk_fill", dst, false, err)) != Q4_OK)
        return st;
    if (offset % 4 || (bytes % 4 && offset + bytes != dst->bytes))
        return q4_fail(err, Q4_ERR_ARG, "q4vk_fill: offset %zu and size %zu must be multiples "
                                        "of 4 (the size may end at the buffer's end)",
                       offset, bytes);
    if (bytes == 0)
        return Q4_OK;
    /* vkCmdFillBuffer writes whole words: fill the buffer's last partial word too. */
    VkDeviceSize n = ((VkDeviceSize)bytes + 3) & ~(VkDeviceSize)3;
    q4vk_msgs_begin(ctx, "fill (%zu bytes)", bytes);
    if ((st = q4vk_cmd_begin(ctx, err)) == Q4_OK) {
        barrier(ctx->cmd, PRIOR_STAGES, PRIOR_WRITES, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT);
        vkCmdFillBuffer(ctx->cmd, dst->buffer, offset, n, word);
        st = q4vk_cmd_submit_wait(ctx, "a fill", err);
    }
    q4_status vst = q4vk_msgs_end(ctx, st == Q4_OK ? err : NULL);
    return st != Q4_OK ? st : vst;
}
