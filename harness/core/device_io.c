/* device_io.c: guarded device buffers for one case (see device_io.h). */
#include "device_io.h"

#include "case_free.h"
#include "op.h"

#include <stdlib.h>
#include <string.h>

/* Word i of the guard: varied so that a shifted or partial copy cannot match. */
static uint32_t guard_word(size_t i) { return 0xA5C30000u ^ (uint32_t)(i * 0x9E37u); }

void q4h_host_image(void *image, const void *init, size_t bytes, size_t guard_bytes)
{
    uint32_t *host = image;
    if (init) {
        memcpy(host, init, bytes);
    } else {
        /* on every core: an output of a big case is gigabytes of sentinel */
#pragma omp parallel for schedule(static) if (bytes > ((size_t)1 << 20))
        for (int64_t i = 0; i < (int64_t)(bytes / 4); i++)
            host[i] = Q4H_SENTINEL;
        memset((char *)host + bytes / 4 * 4, 0xFF, bytes % 4);
    }
    uint32_t *guard = (uint32_t *)((char *)host + bytes);
    for (size_t i = 0; i < guard_bytes / 4; i++) {
        uint32_t w = guard_word(i);
        memcpy(guard + i, &w, 4); /* bytes may not be 4-aligned: no direct store */
    }
}

q4_status q4h_buffer(q4vk_context *ctx, const void *init, size_t bytes, size_t guard_bytes,
                     q4vk_buffer **out, q4_error *err)
{
    size_t total = bytes + guard_bytes;
    /* Given data goes up from the caller's array and the guard words after it: no host
     * image of the whole (a copy of gigabytes, on one core, for a big case). Without
     * data, the sentinel image is made and sent whole. */
    size_t image = init ? guard_bytes : total;
    uint32_t *host = malloc(image ? image : 1);
    q4_status st;
    *out = NULL;
    if (!host)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes of host memory", image);
    q4h_host_image(host, NULL, init ? 0 : bytes, guard_bytes);
    st = q4vk_buffer_create(ctx, total, out, err);
    if (st == Q4_OK) /* the guard words are not data: --bounds-check flags a load of them */
        q4vk_buffer_set_data_bytes(*out, bytes);
    if (st == Q4_OK && init && bytes)
        st = q4vk_upload(ctx, *out, 0, init, bytes, err);
    if (st == Q4_OK && image)
        st = q4vk_upload(ctx, *out, init ? bytes : 0, host, image, err);
    if (st != Q4_OK && *out) {
        q4vk_buffer_destroy(ctx, *out);
        *out = NULL;
    }
    q4_free_big(host);   /* an output's sentinel image: gigabytes for a big case */
    return st;
}

q4_status q4h_read(q4vk_context *ctx, q4vk_buffer *buf, void *host, size_t bytes,
                   bool *guard_ok, int64_t *guard_bad_at, q4_error *err)
{
    uint32_t guard[Q4H_GUARD_BYTES / 4];
    q4_status st = q4vk_download(ctx, buf, 0, host, bytes, err);
    if (st == Q4_OK)
        st = q4vk_download(ctx, buf, bytes, guard, Q4H_GUARD_BYTES, err);
    if (st == Q4_OK)
        q4h_guard_check(guard, guard_ok, guard_bad_at);
    return st;
}

void q4h_guard_check(const void *guard, bool *guard_ok, int64_t *guard_bad_at)
{
    *guard_ok = true;
    *guard_bad_at = -1;
    for (size_t i = 0; i < Q4H_GUARD_BYTES / 4; i++) {
        uint32_t w;
        memcpy(&w, (const char *)guard + 4 * i, 4); /* may follow a byte tensor: unaligned */
        if (w != guard_word(i)) {
            *guard_ok = false;
            *guard_bad_at = (int64_t)i;
            break;
        }
    }
}

void q4h_read_host(const q4h_host_buffer *b, void *host, size_t bytes, bool *guard_ok,
                   int64_t *guard_bad_at)
{
    memcpy(host, b->data, bytes);
    q4h_guard_check((const char *)b->data + b->bytes, guard_ok, guard_bad_at);
}

void q4h_read_host_output(const q4h_host_buffer *b, q4h_output *o)
{
    q4h_read_host(b, o->got, (size_t)o->count * sizeof(float), &o->guard_ok, &o->guard_bad_at);
}

void q4h_buffers_free(q4vk_context *ctx, q4vk_buffer **bufs, int n)
{
    for (int i = 0; i < n; i++)
        if (bufs[i]) {
            q4vk_buffer_destroy(ctx, bufs[i]);
            bufs[i] = NULL;
        }
}

size_t q4h_tensor_bytes(const q4h_tensor *t)
{
    return (size_t)(t->rows * t->cols) * (t->dtype == 'b' ? 1u : 4u);
}

q4_status q4h_upload_inputs(q4vk_context *ctx, const q4h_tensor *t, int n, size_t guard_bytes,
                            q4vk_buffer **bufs, q4_error *err)
{
    q4_status st = Q4_OK;
    for (int i = 0; i < n; i++)
        bufs[i] = NULL;
    for (int i = 0; i < n && st == Q4_OK; i++)
        st = q4h_buffer(ctx, t[i].data, q4h_tensor_bytes(&t[i]), guard_bytes, &bufs[i], err);
    if (st != Q4_OK)
        q4h_buffers_free(ctx, bufs, n);
    return st;
}

q4_status q4h_read_output(q4vk_context *ctx, q4vk_buffer *buf, q4h_output *o, q4_error *err)
{
    return q4h_read(ctx, buf, o->got, (size_t)o->count * sizeof(float), &o->guard_ok,
                    &o->guard_bad_at, err);
}
