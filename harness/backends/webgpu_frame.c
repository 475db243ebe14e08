/* webgpu_frame.c: the frames of the WebGPU worker's protocol read from any source
 * (the worker's pipe, webgpu_worker.c, or a buffer), and its hello read
 * (webgpu_worker.h, docs/webgpu.md). Nothing here waits or forks, so tests and the
 * fuzzer (tests/fuzz/fuzz_worker_frame.c) feed it bytes. */
#include "webgpu_worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

void q4h_wg_frame_free(q4h_wg_frame *f)
{
    if (f->json)
        json_object_put(f->json);
    for (uint32_t i = 0; i < f->n_blobs; i++)
        free(f->blob[i]);
    memset(f, 0, sizeof *f);
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static q4h_wg_io read_buf(q4h_wg_source *src, void *data, size_t n)
{
    if (n > src->size - src->at)
        return Q4H_WG_GONE;   /* the frame is cut short */
    memcpy(data, src->buf + src->at, n);
    src->at += n;
    return Q4H_WG_OK;
}

/* Every size is checked before memory is taken for it: the JSON header at most
 * Q4H_WG_MAX_JSON bytes, each blob at most max_blob, the blobs' lengths read one at a
 * time. */
q4h_wg_io q4h_wg_frame_read(q4h_wg_source *src, q4h_wg_frame *f, uint64_t max_blob, char *why,
                            size_t why_size)
{
    uint8_t head[16];
    memset(f, 0, sizeof *f);
    q4h_wg_io io = src->read(src, head, sizeof head);
    if (io != Q4H_WG_OK)
        return io;
    uint32_t magic = (uint32_t)get_le(head, 4), json_len = (uint32_t)get_le(head + 8, 4);
    f->type = (uint32_t)get_le(head + 4, 4);
    uint32_t n_blobs = (uint32_t)get_le(head + 12, 4);
    if (magic != Q4H_WG_MAGIC || f->type < Q4H_WG_HELLO || f->type > Q4H_WG_BYE ||
        json_len > Q4H_WG_MAX_JSON || n_blobs > Q4H_WG_MAX_BLOBS) {
        snprintf(why, why_size, "a malformed frame from the WebGPU worker (magic 0x%08x, "
                 "type %u, %u JSON bytes, %u blobs)", magic, f->type, json_len, n_blobs);
        return Q4H_WG_BAD;
    }
    char *text = malloc((size_t)json_len + 1);
    if (!text) {
        snprintf(why, why_size, "no memory for a %u-byte frame header", json_len);
        return Q4H_WG_BAD;
    }
    io = src->read(src, text, json_len);
    text[json_len] = '\0';
    q4_error jerr = { 0 };
    if (io == Q4H_WG_OK &&
        !(f->json = q4h_json_parse_object(text, json_len, "the WebGPU worker's frame header",
                                          &jerr))) {
        snprintf(why, why_size, "%s", jerr.msg);
        io = Q4H_WG_BAD;
    }
    free(text);
    for (uint32_t i = 0; i < n_blobs && io == Q4H_WG_OK; i++) {
        uint8_t len[8];
        io = src->read(src, len, sizeof len);
        if (io != Q4H_WG_OK)
            break;
        f->blob_len[i] = get_le(len, 8);
        if (f->blob_len[i] > max_blob || f->blob_len[i] > SIZE_MAX / 2) {
            snprintf(why, why_size, "the WebGPU worker sent a %llu-byte blob; no buffer of the "
                     "exchange is larger than %llu bytes", (unsigned long long)f->blob_len[i],
                     (unsigned long long)max_blob);
            io = Q4H_WG_BAD;
            break;
        }
        f->blob[i] = malloc(f->blob_len[i] ? (size_t)f->blob_len[i] : 1);
        f->n_blobs = i + 1;
        if (!f->blob[i]) {
            snprintf(why, why_size, "no memory for a %llu-byte result from the WebGPU worker",
                     (unsigned long long)f->blob_len[i]);
            io = Q4H_WG_BAD;
            break;
        }
        io = src->read(src, f->blob[i], (size_t)f->blob_len[i]);
    }
    if (io != Q4H_WG_OK)
        q4h_wg_frame_free(f);
    return io;
}

q4h_wg_io q4h_wg_frame_parse(const uint8_t *buf, size_t size, uint64_t max_blob,
                             q4h_wg_frame *f, size_t *used, char *why, size_t why_size)
{
    q4h_wg_source src = { .read = read_buf, .buf = buf, .size = size };
    q4h_wg_io io = q4h_wg_frame_read(&src, f, max_blob, why, why_size);
    if (used)
        *used = src.at;
    if (io == Q4H_WG_GONE)
        snprintf(why, why_size, "the frame is cut short after %zu bytes", src.at);
    return io;
}

/* ---- the hello ---- */

/* Member key of o as a string (NULL: missing or another type). */
static const char *hello_str(json_object *o, const char *key)
{
    json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v) : NULL;
}

/* Limit key of lim: an integer in [lo, hi], else why says so and 0 is returned. */
static uint64_t hello_limit(json_object *lim, const char *key, uint64_t lo, uint64_t hi,
                            char *why, size_t why_size)
{
    json_object *v = NULL;
    if (why[0])
        return 0;
    errno = 0;
    int64_t x = lim && json_object_object_get_ex(lim, key, &v) &&
                json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
    if (x < 0 || errno || (uint64_t)x < lo || (uint64_t)x > hi) {
        snprintf(why, why_size, "the WebGPU worker's hello has no limits.%s from %llu to %llu",
                 key, (unsigned long long)lo, (unsigned long long)hi);
        return 0;
    }
    return (uint64_t)x;
}

q4_status q4h_wg_hello_read(json_object *h, q4h_wg_hello *a, char *why, size_t why_size)
{
    json_object *ad = NULL, *lim = NULL, *feat = NULL, *ts = NULL, *proto = NULL;
    memset(a, 0, sizeof *a);
    why[0] = '\0';
    errno = 0;
    if (!json_object_object_get_ex(h, "protocol", &proto) ||
        !json_object_is_type(proto, json_type_int) ||
        json_object_get_int64(proto) != Q4H_WG_PROTOCOL || errno) {
        snprintf(why, why_size, "the WebGPU worker speaks protocol %s, not %d: its worker.mjs "
                 "is of another q4cts (Q4CTS_WEBGPU_DIR)",
                 proto ? json_object_to_json_string_ext(proto, JSON_C_TO_STRING_PLAIN) : "none",
                 Q4H_WG_PROTOCOL);
        return Q4_ERR_DEVICE;
    }
    if (hello_str(h, "error"))
        return Q4_OK;   /* the caller says why the worker has no device */
    if (!json_object_object_get_ex(h, "adapter", &ad) || !json_object_is_type(ad, json_type_object) ||
        !json_object_object_get_ex(h, "limits", &lim) || !json_object_is_type(lim, json_type_object) ||
        !json_object_object_get_ex(h, "features", &feat) ||
        !json_object_is_type(feat, json_type_array) ||
        !json_object_object_get_ex(h, "timestamps", &ts) ||
        !json_object_is_type(ts, json_type_boolean) || !hello_str(h, "node") ||
        !hello_str(h, "webgpu")) {
        snprintf(why, why_size, "the WebGPU worker's hello lacks one of adapter, limits, "
                 "features (an array), timestamps (true or false), node and webgpu");
        return Q4_ERR_DEVICE;
    }
    /* WebGPU's defaults are the least an adapter gives; sizes beyond 2^53 are no
     * JavaScript integer */
    const uint64_t big = (uint64_t)1 << 53;
    a->max_binding = hello_limit(lim, "maxStorageBufferBindingSize", 16, big, why, why_size);
    a->max_buffer = hello_limit(lim, "maxBufferSize", 16, big, why, why_size);
    uint64_t groups = hello_limit(lim, "maxComputeWorkgroupsPerDimension", 1, UINT32_MAX, why,
                                  why_size);
    uint64_t shared = hello_limit(lim, "maxComputeWorkgroupStorageSize", 0, UINT32_MAX, why,
                                  why_size);
    uint64_t inv = hello_limit(lim, "maxComputeInvocationsPerWorkgroup", 1, UINT32_MAX, why,
                               why_size);
    if (why[0])
        return Q4_ERR_DEVICE;
    q4vk_device_info *i = &a->info;
    const char *desc = hello_str(ad, "description"), *dev = hello_str(ad, "device");
    const char *vendor = hello_str(ad, "vendor"), *arch = hello_str(ad, "architecture");
    snprintf(i->name, sizeof i->name, "%s", desc && desc[0] ? desc : dev && dev[0] ? dev
                                                             : vendor ? vendor : "");
    snprintf(i->driver_name, sizeof i->driver_name, "Dawn");
    snprintf(i->driver_version_str, sizeof i->driver_version_str, "npm webgpu %s",
             hello_str(h, "webgpu"));
    snprintf(i->driver_info, sizeof i->driver_info, "%s %s on Node.js %s", vendor ? vendor : "",
             arch ? arch : "", hello_str(h, "node"));
    i->type = "webgpu";
    i->timestamps = json_object_get_boolean(ts);
    i->max_storage_range = a->max_binding;
    i->max_group_count[0] = (uint32_t)groups;
    i->max_shared_bytes = (uint32_t)shared;
    i->max_invocations = (uint32_t)inv;
    size_t len = 0;
    for (size_t k = 0; k < json_object_array_length(feat); k++) {
        json_object *name = json_object_array_get_idx(feat, k);
        if (!json_object_is_type(name, json_type_string)) {
            snprintf(why, why_size, "the WebGPU worker's hello has a feature that is not a "
                     "string");
            return Q4_ERR_DEVICE;
        }
        if (len < sizeof a->features)
            len += (size_t)snprintf(a->features + len, sizeof a->features - len, "%s%s",
                                    k ? " " : "", json_object_get_string(name));
    }
    return Q4_OK;
}
