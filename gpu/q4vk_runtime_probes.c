/* q4vk_runtime_probes.c: shader coverage and load bounds checks on the device.
 *
 * With q4vk_options.probes on, every pipeline is made from code rewritten by
 * q4spv_instrument (spirv/), which writes into a probe buffer bound as set 1. The
 * context keeps one host-visible, coherent, persistently mapped buffer; each probed
 * dispatch of a q4vk_run gets a region of it, initialised on the host with the
 * bytes of real data each of its bindings holds (q4vk_buffer_set_data_bytes), and
 * read back on the host once the submission has finished: the coverage slots go to
 * the caller's hook, the first out-of-bounds access becomes a sentence that
 * q4vk_take_oob hands out with every binding's count of them, the first shared-memory race one that q4vk_take_race hands
 * out (docs/race-check.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4spv_module.h"
#include "q4vk_runtime_errors.h"
#include "q4vk_runtime_memory.h"
#include "q4vk_runtime_probes.h"

#define PROBE_SET 1u

bool q4vk_probing(const q4vk_context *ctx)
{
    return ctx->probes.coverage || ctx->probes.bounds || ctx->probes.race;
}

/* Whether the driver's loops run without a budget shared by all of a shader's loops:
 * llvmpipe before Mesa 25 ends every loop of a shader once they have run 65535
 * iterations in all (gallivm's loop limiter), and a loop inside the race probe spent
 * them (Debian 12's lavapipe computed a wrong linear_dW at M = 4000); Mesa 25's and
 * the H200's ran the same modules right. */
static bool loops_unbudgeted(const q4vk_device_info *d)
{
    int major = 0;
    const char *mesa = strstr(d->driver_info, "Mesa ");
    if (strcmp(d->driver_name, "llvmpipe"))
        return true;
    return mesa && sscanf(mesa + 5, "%d", &major) == 1 && major >= 25;
}

q4_status q4vk_probes_instrument(q4vk_context *ctx, const char *what, const uint32_t *words,
                                 size_t n, uint32_t **out, size_t *out_n, q4spv_map **map,
                                 q4_error *err)
{
    const int loop = ctx->probes.race_word_loop;
    q4spv_options o = { .set = PROBE_SET, .coverage = ctx->probes.coverage,
                        .bounds = ctx->probes.bounds, .race = ctx->probes.race,
                        .race_word_loop = loop ? loop > 0 : loops_unbudgeted(&ctx->info) };
    q4_error why = { 0 };
    q4_status st = q4spv_instrument(words, n, &o, out, out_n, map, &why);
    if (st == Q4_OK && (st = q4spv_validate(*out, *out_n, "the probed code", &why)) != Q4_OK) {
        free(*out);
        q4spv_map_free(*map);
        *out = NULL;
        *map = NULL;
    }
    if (st != Q4_OK)
        return q4_fail(err, st, "%s cannot be probed for coverage, bounds or races: %s", what,
                       why.msg);
    return Q4_OK;
}

q4_status q4vk_probes_set_layout(q4vk_context *ctx, VkDescriptorSetLayout *out, q4_error *err)
{
    if (!ctx->probe_set_layout) {
        VkDescriptorSetLayoutBinding b = {
            .binding = 0,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
        VkDescriptorSetLayoutCreateInfo ci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
            .bindingCount = 1,
            .pBindings = &b,
        };
        VkResult r = vkCreateDescriptorSetLayout(ctx->device, &ci, NULL, &ctx->probe_set_layout);
        if (r != VK_SUCCESS) {
            ctx->probe_set_layout = VK_NULL_HANDLE;
            return q4vk_vk_fail(ctx, err, "vkCreateDescriptorSetLayout", r, "probe set");
        }
    }
    *out = ctx->probe_set_layout;
    return Q4_OK;
}

static void probe_buffer_free(q4vk_context *ctx)
{
    if (ctx->probe_mem) {
        if (ctx->probe_ptr)
            vkUnmapMemory(ctx->device, ctx->probe_mem);
        vkFreeMemory(ctx->device, ctx->probe_mem, NULL);
    }
    if (ctx->probe_buf)
        vkDestroyBuffer(ctx->device, ctx->probe_buf, NULL);
    ctx->probe_buf = VK_NULL_HANDLE;
    ctx->probe_mem = VK_NULL_HANDLE;
    ctx->probe_ptr = NULL;
    ctx->probe_bytes = 0;
}

void q4vk_probes_destroy(q4vk_context *ctx)
{
    probe_buffer_free(ctx);
    if (ctx->probe_set_layout)
        vkDestroyDescriptorSetLayout(ctx->device, ctx->probe_set_layout, NULL);
    ctx->probe_set_layout = VK_NULL_HANDLE;
}

static q4_status probe_buffer_reserve(q4vk_context *ctx, VkDeviceSize bytes, q4_error *err)
{
    if (ctx->probe_bytes >= bytes)
        return Q4_OK;
    VkDeviceSize want = ctx->probe_bytes * 2 > bytes ? ctx->probe_bytes * 2 : bytes;
    probe_buffer_free(ctx);
    q4_status st = q4vk_raw_buffer(ctx, want, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                   VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "probe buffer",
                                   &ctx->probe_buf, &ctx->probe_mem, err);
    if (st != Q4_OK)
        return st;
    void *p;
    VkResult r = vkMapMemory(ctx->device, ctx->probe_mem, 0, VK_WHOLE_SIZE, 0, &p);
    if (r != VK_SUCCESS) {
        probe_buffer_free(ctx);
        return q4vk_vk_fail(ctx, err, "vkMapMemory", r, "probe buffer of %llu bytes",
                            (unsigned long long)want);
    }
    ctx->probe_ptr = p;
    ctx->probe_bytes = want;
    return Q4_OK;
}

/* Race checks: workgroups in flight at once, each with a shadow of the shared words
 * (the module's, or the device's whole shared memory when they depend on
 * specialisation constants). More workgroups than slots wait for one at entry. */
#define RACE_WG_SLOTS 32u

static uint32_t race_words(const q4vk_context *ctx, const q4spv_map *map)
{
    return map->race_words ? map->race_words : ctx->info.max_shared_bytes / 4;
}

static VkDeviceSize region_bytes(const q4vk_context *ctx, const q4spv_map *map)
{
    VkDeviceSize a = ctx->info.min_storage_align ? ctx->info.min_storage_align : 4;
    VkDeviceSize b = (VkDeviceSize)q4spv_race_buffer_words(map, RACE_WG_SLOTS,
                                                            race_words(ctx, map)) * 4;
    return (b + a - 1) / a * a;
}

q4_status q4vk_probes_prepare(q4vk_context *ctx, const q4vk_dispatch *d, int n, uint64_t *at,
                              q4_error *err)
{
    VkDeviceSize total = 0;
    for (int i = 0; i < n; i++) {
        at[i] = UINT64_MAX;
        if (d[i].pipe->probe_map) {
            at[i] = total;
            total += region_bytes(ctx, d[i].pipe->probe_map);
        }
    }
    if (!total)
        return Q4_OK;
    q4_status st = probe_buffer_reserve(ctx, total, err);
    if (st != Q4_OK)
        return st;
    for (int i = 0; i < n; i++) {
        if (at[i] == UINT64_MAX)
            continue;
        uint32_t limits[Q4SPV_MAX_BINDINGS];
        for (uint32_t b = 0; b < Q4SPV_MAX_BINDINGS; b++) {
            const q4vk_binding *bd = &d[i].bind[b];
            limits[b] = Q4SPV_NONE;
            if (b >= d[i].pipe->n_bindings || !bd->buf)
                continue;
            uint64_t range = bd->range ? bd->range : bd->buf->vk_bytes - bd->offset;
            uint64_t data = bd->buf->data_bytes > bd->offset ? bd->buf->data_bytes - bd->offset
                                                              : 0;
            uint64_t lim = range < data ? range : data;
            limits[b] = lim < Q4SPV_NONE ? (uint32_t)lim : Q4SPV_NONE - 1;
        }
        q4spv_probe_init(d[i].pipe->probe_map, limits, ctx->probe_ptr + at[i] / 4);
        q4spv_race_init(d[i].pipe->probe_map, RACE_WG_SLOTS, race_words(ctx, d[i].pipe->probe_map),
                        ctx->probe_ptr + at[i] / 4);
    }
    return Q4_OK;
}

void q4vk_probes_descriptor(const q4vk_context *ctx, const q4vk_dispatch *d, uint64_t at,
                            VkDescriptorBufferInfo *info)
{
    *info = (VkDescriptorBufferInfo){
        .buffer = ctx->probe_buf,
        .offset = at,
        .range = region_bytes(ctx, d->pipe->probe_map),
    };
}

/* What dispatch d runs, for messages: "interface kernel FILE:STEP" (an --interface
 * step), "kernel NAME (override)" (--kernel) or "kernel NAME". */
static const char *who(const q4vk_pipeline *p, char *buf, size_t size)
{
    if (p->origin[0])
        snprintf(buf, size, "%s", p->origin);
    else
        snprintf(buf, size, "kernel %s%s", p->name, p->overridden ? " (override)" : "");
    return buf;
}

/* The sentence for access site `site` of dispatch d that touched `offset`. */
static void oob_message(q4vk_context *ctx, const q4vk_dispatch *d, const uint32_t *slots,
                        int site, uint32_t offset)
{
    const q4spv_map *map = d->pipe->probe_map;
    const q4spv_site *s = &map->sites[site];
    uint32_t limit = slots[map->limit_base + s->binding];
    char where[320] = "";
    if (s->at.line && s->at.file < map->n_files) {
        const char *file = map->files[s->at.file], *slash = strrchr(file, '/');
        snprintf(where, sizeof where, " at %.256s:%u", slash ? slash + 1 : file, s->at.line);
    }
    static const char *const verb[] = { "read", "wrote", "accessed" };
    static const char *const what[] = { "load", "store", "atomic" };
    unsigned a = s->access <= Q4SPV_ATOMIC ? (unsigned)s->access : Q4SPV_ATOMIC;
    char name[256];
    snprintf(ctx->oob, sizeof ctx->oob,
             "%s %s past the data of binding %u: a %u-byte %s at byte offset %u "
             "(index %u of %u-byte elements)%s, where the binding holds %u bytes of data",
             who(d->pipe, name, sizeof name), verb[a], s->binding,
             s->bytes, what[a], offset, offset / s->bytes, s->bytes, where, limit);
}

/* Site `site` of dispatch d made `count` out-of-bounds accesses, the first at
 * `offset`: counted under its kernel and binding. */
static void oob_count(q4vk_context *ctx, const q4vk_dispatch *d, uint32_t site, uint32_t count,
                      uint32_t offset)
{
    const q4spv_map *map = d->pipe->probe_map;
    const q4spv_site *s = &map->sites[site];
    char name[256];
    who(d->pipe, name, sizeof name);
    q4vk_oob_binding *b = NULL;
    for (int i = 0; i < ctx->n_oob_by && !b; i++)
        if (ctx->oob_by[i].binding == s->binding && !strncmp(ctx->oob_by[i].who, name,
                                                             sizeof ctx->oob_by[i].who - 1))
            b = &ctx->oob_by[i];
    if (!b && ctx->n_oob_by == Q4VK_OOB_BINDINGS) {
        ctx->oob_unlisted += count;
        return;
    }
    if (!b) {
        b = &ctx->oob_by[ctx->n_oob_by++];
        *b = (q4vk_oob_binding){ .binding = s->binding };
        snprintf(b->who, sizeof b->who, "%.159s", name);
    }
    b->accesses += count;
    if (b->sites < Q4VK_OOB_SITES) {
        static const char *const what[] = { "load", "store", "atomic" };
        const char *file = s->at.line && s->at.file < map->n_files ? map->files[s->at.file] : NULL;
        const char *slash = file ? strrchr(file, '/') : NULL;
        char line[80] = "";
        if (file)
            snprintf(line, sizeof line, " (%.60s:%u)", slash ? slash + 1 : file, s->at.line);
        snprintf(b->first[b->sites], sizeof b->first[0], "%s at byte %u%s",
                 what[s->access <= Q4SPV_ATOMIC ? s->access : Q4SPV_ATOMIC], offset, line);
    }
    b->sites++;
}

void q4vk_probes_collect(q4vk_context *ctx, const q4vk_dispatch *d, int n, const uint64_t *at)
{
    for (int i = 0; i < n; i++) {
        const q4spv_map *map = d[i].pipe->probe_map;
        if (!map || at[i] == UINT64_MAX)
            continue;
        const uint32_t *slots = ctx->probe_ptr + at[i] / 4;
        if (ctx->probes.dispatched)
            ctx->probes.dispatched(ctx->probes.user, d[i].pipe->name, d[i].pipe->overridden, map,
                                   slots);
        uint32_t offset;
        int site = q4spv_probe_first_oob(map, slots, &offset);
        if (site >= 0 && !ctx->oob[0])
            oob_message(ctx, &d[i], slots, site, offset);
        for (uint32_t k = 0; site >= 0 && k < map->n_sites; k++) {
            uint32_t count = q4spv_probe_oob(map, slots, k, &offset);
            if (count)
                oob_count(ctx, &d[i], k, count, offset);
        }
        q4spv_race_finding f;
        if (!ctx->race[0] && q4spv_race_first(map, slots, &f) >= 0) {
            char what[Q4_MSG_MAX - 64], name[256];
            q4spv_race_message(map, &f, what, sizeof what);
            snprintf(ctx->race, sizeof ctx->race, "%.60s: %.420s",
                     who(d[i].pipe, name, sizeof name), what);
        }
    }
}

/* Appends to msg (of size bytes, holding len) as far as it fits. */
static size_t put(char *msg, size_t size, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t put(char *msg, size_t size, size_t len, const char *fmt, ...)
{
    if (len + 1 >= size)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(msg + len, size - len, fmt, ap);
    va_end(ap);
    return k < 0 ? len : len + (size_t)k < size ? len + (size_t)k : size - 1;
}

bool q4vk_take_oob(q4vk_context *ctx, char *msg, size_t size)
{
    if (!ctx || !ctx->oob[0])
        return false;
    if (msg && size) {
        uint64_t all = ctx->oob_unlisted;
        for (int i = 0; i < ctx->n_oob_by; i++)
            all += ctx->oob_by[i].accesses;
        size_t len = put(msg, size, 0, "%s; %llu out-of-bounds access%s in all:", ctx->oob,
                         (unsigned long long)all, all == 1 ? "" : "es");
        for (int i = 0; i < ctx->n_oob_by; i++) {
            const q4vk_oob_binding *b = &ctx->oob_by[i];
            len = put(msg, size, len, "%s %s binding %u: %llu at %u site%s (", i ? ";" : "",
                      b->who, b->binding, (unsigned long long)b->accesses, b->sites,
                      b->sites == 1 ? "" : "s");
            for (uint32_t k = 0; k < b->sites && k < Q4VK_OOB_SITES; k++)
                len = put(msg, size, len, "%s%s", k ? ", " : "", b->first[k]);
            len = put(msg, size, len, "%s)", b->sites > Q4VK_OOB_SITES ? ", ..." : "");
        }
        if (ctx->oob_unlisted)
            put(msg, size, len, "; %llu more in bindings past the first %d",
                (unsigned long long)ctx->oob_unlisted, Q4VK_OOB_BINDINGS);
    }
    ctx->oob[0] = '\0';
    ctx->n_oob_by = 0;
    ctx->oob_unlisted = 0;
    return true;
}

bool q4vk_take_race(q4vk_context *ctx, char *msg, size_t size)
{
    if (!ctx || !ctx->race[0])
        return false;
    if (msg && size)
        snprintf(msg, size, "%s", ctx->race);
    ctx->race[0] = '\0';
    return true;
}
