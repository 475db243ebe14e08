/* q4vk_op_args.c: the argument checks, binding helpers and plan helper every launcher
 * shares (q4vk_op_args.h), and q4vk_range_to_end of q4vk.h. */
#include <stdio.h>
#include <stdlib.h>

#include "q4vk_op_args.h"

q4_status q4vk_op_check_call(const q4vk_context *ctx, const void *args, const char *op,
                             q4_error *err)
{
    if (!ctx)
        return q4_fail(err, Q4_ERR_ARG, "ctx is NULL; expected a q4vk context");
    if (!args)
        return q4_fail(err, Q4_ERR_ARG, "args is NULL; expected %s arguments", op);
    return Q4_OK;
}

/* count 4-byte values of buf into a host copy (free()d by the caller). */
static void *download(q4vk_context *ctx, const q4vk_buffer *buf, int64_t count, const char *name,
                      q4_status *st, q4_error *err)
{
    size_t bytes = (size_t)count * 4;
    void *host = malloc(bytes ? bytes : 1);
    if (!host)
        *st = q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes to check %s", bytes, name);
    else if ((*st = q4vk_download(ctx, buf, 0, host, bytes, err))) {
        free(host);
        host = NULL;
    }
    return host;
}

q4_status q4vk_op_check_scales(q4vk_context *ctx, const q4vk_buffer *scales, int64_t count,
                               q4_error *err)
{
    q4_status st;
    float *s = download(ctx, scales, count, "scales", &st, err);
    if (s) {
        st = q4_check_scales(s, count, err);
        free(s);
    }
    return st;
}

q4_status q4vk_op_check_labels(q4vk_context *ctx, const q4vk_buffer *labels, int64_t R,
                               int64_t V, q4_error *err)
{
    q4_status st;
    int32_t *l = download(ctx, labels, R, "labels", &st, err);
    if (l) {
        st = q4_check_labels(l, R, V, err);
        free(l);
    }
    return st;
}

q4_status q4vk_op_buffer(const q4vk_buffer *b, const char *name, uint64_t need, q4_error *err)
{
    q4_status st = q4_check_ptr(b, name, err);
    if (st == Q4_OK && (uint64_t)q4vk_buffer_size(b) < need)
        return q4_fail(err, Q4_ERR_ARG, "buffer %s holds %zu bytes; the shape needs %" PRIu64,
                       name, q4vk_buffer_size(b), need);
    return st;
}

q4_status q4vk_op_distinct(const q4vk_buffer *out, const char *oname, const q4vk_buffer *in,
                           const char *iname, q4_error *err)
{
    if (out && out == in)
        return q4_fail(err, Q4_ERR_ARG, "%s and %s overlap; they must be separate buffers",
                       oname, iname);
    return Q4_OK;
}

uint64_t q4vk_op_limit(const q4vk_context *ctx, uint64_t max_binding)
{
    return q4vk_op_limit_of(q4vk_info(ctx), max_binding);
}

uint64_t q4vk_op_limit_of(const q4vk_device_info *info, uint64_t max_binding)
{
    const uint64_t idx_max = (uint64_t)UINT32_MAX + 1 - 16;
    uint64_t lim = info->max_storage_range;
    if (max_binding && max_binding < lim)
        lim = max_binding;
    return lim < idx_max ? lim : idx_max;
}

/* "6 GiB", "128 MiB", "1.5 KiB", "12 bytes". */
static const char *human(uint64_t bytes, char *buf, size_t n)
{
    static const char *unit[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buf, n, "%" PRIu64 " bytes", bytes);
        return buf;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%.4g %s", v, unit[u]);
    return buf;
}

q4_status q4vk_op_fits(const char *name, uint64_t bytes, uint64_t limit, q4_error *err)
{
    char a[32], b[32], exact[40] = "";
    if (bytes <= limit)
        return Q4_OK;
    if (bytes >= 1024)   /* the rounded size, then the exact one */
        snprintf(exact, sizeof exact, " (%" PRIu64 " bytes)", bytes);
    return q4_fail(err, Q4_ERR_RESOURCE,
                   "%s needs %s%s in one binding; this device allows %s (maxStorageBufferRange)",
                   name, human(bytes, a, sizeof a), exact, human(limit, b, sizeof b));
}

uint64_t q4vk_op_to_end(const q4vk_buffer *b, uint64_t offset, uint64_t limit)
{
    uint64_t size = q4vk_buffer_size(b), rest = size > offset ? size - offset : 0;
    return (rest < limit ? rest : limit) & ~(uint64_t)3;
}

uint64_t q4vk_range_to_end(const q4vk_context *ctx, const q4vk_buffer *buf, uint64_t offset)
{
    return q4vk_op_to_end(buf, offset, q4vk_info(ctx)->max_storage_range);
}

uint64_t q4vk_op_align(const q4vk_context *ctx)
{
    uint64_t al = q4vk_info(ctx)->min_storage_align;
    return al < 16 ? 16 : al;
}

q4_status q4vk_op_pipeline(q4vk_context *ctx, const char *name, const q4vk_spec *spec,
                           q4vk_pipeline **out, q4_error *err)
{
    const q4vk_kernel *k = q4vk_kernel_find(name);
    if (!k)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "kernel %s is not built into this q4vk", name);
    return q4vk_pipeline_get(ctx, k, spec, out, err);
}

void q4vk_plan_add(q4vk_plan *p, const char *kernel)
{
    if (p->n < Q4VK_PLAN_MAX)
        p->kernels[p->n++] = kernel;
}
