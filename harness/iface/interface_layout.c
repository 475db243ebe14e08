/* interface_layout.c: the one place where a case's tensors are converted into an
 * interface file's layouts and back (docs/interface-format.md, "The layout
 * vocabulary"): fp32 and int32 as they are, W from our W_4X8 words to W_4X8 or
 * flat bytes (rows at a padded pitch, padding 0xff or the file's), scales into rows of a
 * padded stride (padding NaN or the file's); outputs start as the sentinel (a flat
 * weight's padded rows with their padding) and are read back as our own kernels' are
 * (packed_io.c for the packed weights: a flat weight's padded rows compacted, their
 * padding checked unchanged), from a device buffer or from the bytes the WebGPU worker
 * returned. */
#include "interface.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_io.h"
#include "packed_io.h"
#include "q4ref.h"

size_t q4h_layout_bytes(q4h_layout l, const q4_case *c, int64_t count, int64_t stride)
{
    switch (l) {
    case Q4H_LAYOUT_W4X8: return (size_t)q4_w4x8_words(c->n, c->k) * sizeof(uint32_t);
    case Q4H_LAYOUT_FLAT: return (size_t)(c->n * stride);
    case Q4H_LAYOUT_SCALES: return (size_t)(c->k / c->gs * stride) * sizeof(float);
    default: return (size_t)count * 4;   /* fp32, int32 */
    }
}

q4_status q4h_layout_from(q4h_layout l, const q4h_tensor *t, const q4_case *c, int64_t stride,
                          double padding, size_t bytes, void **data, q4_error *err)
{
    uint8_t *out = malloc(bytes ? bytes : 1), *codes = NULL;
    q4_status st = Q4_OK;
    if (!out)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for tensor %s", bytes,
                       t->name);
    switch (l) {
    case Q4H_LAYOUT_FLAT:   /* t holds W_4X8 words: through the codes */
        codes = malloc((size_t)(c->n * c->k));
        st = codes ? q4ref_unpack_w4x8(t->data, c->n, c->k, codes, err)
                   : q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the codes of tensor %s", t->name);
        if (st == Q4_OK)
            st = q4ref_pack_flat(codes, c->n, c->k, out, err);
        free(codes);
        /* rows of `stride` bytes: spread the packed rows out, last first (in place) */
        const int64_t row = (c->k + 1) / 2;
        for (int64_t n = c->n - 1; st == Q4_OK && stride > row && n >= 0; n--) {
            memmove(out + n * stride, out + n * row, (size_t)row);
            memset(out + n * stride + row, (int)padding, (size_t)(stride - row));
        }
        break;
    case Q4H_LAYOUT_SCALES: {
        const int64_t rows = c->k / c->gs;
        float *f = (float *)out;
        for (int64_t g = 0; g < rows; g++) {
            memcpy(f + g * stride, (const float *)t->data + g * c->n, (size_t)c->n * sizeof(float));
            for (int64_t n = c->n; n < stride; n++)
                f[g * stride + n] = (float)padding;   /* NaN by default: a kernel that
                                                         reads the padding fails */
        }
        break;
    }
    default:   /* fp32, int32, W_4X8: our own layout already */
        memcpy(out, t->data, bytes);
    }
    if (st != Q4_OK) {
        free(out);
        return st;
    }
    *data = out;
    return Q4_OK;
}

double q4h_if_buffer_padding(const q4h_if_buffer *b)
{
    return b->has_padding ? b->padding : b->layout == Q4H_LAYOUT_FLAT ? 0xff : NAN;
}

q4_status q4h_layout_blank(const q4h_if_buffer *b, const q4_case *c, int64_t stride,
                           size_t bytes, void **data, q4_error *err)
{
    const int64_t row = (c->k + 1) / 2;
    *data = NULL;
    if (b->layout != Q4H_LAYOUT_FLAT || stride <= row)
        return Q4_OK;   /* no padding: the sentinel everywhere, as for any output */
    uint8_t *out = malloc(bytes ? bytes : 1);
    if (!out)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for the written flat "
                       "weight", bytes);
    q4h_host_image(out, NULL, bytes, 0);
    for (int64_t n = 0; n < c->n; n++)
        memset(out + n * stride + row, (int)q4h_if_buffer_padding(b), (size_t)(stride - row));
    *data = out;
    return Q4_OK;
}

/* Decodes output o from raw, the `bytes` of file f's buffer i as the kernel left them
 * (raw becomes o->raw). */
static q4_status decode(const q4h_iface *f, int i, const q4_case *c, void *raw, size_t bytes,
                        q4h_output *o, q4_error *err)
{
    const q4h_if_buffer *b = &f->buffers[i];
    if (b->layout == Q4H_LAYOUT_W4X8)
        return q4h_decode_w4x8(c->n, c->k, raw, bytes, o, err);
    /* a flat weight: its rows at the pitch the buffer was made with (bytes / N) */
    const int64_t stride = c->n ? (int64_t)(bytes / (size_t)c->n) : 0;
    if (!b->row_stride || c->n == 0 || stride == (c->k + 1) / 2)
        return q4h_decode_flat(c->n, c->k, raw, bytes, o, err);
    char what[200];
    snprintf(what, sizeof what, "%.96s (tensor %s, layout flat, rows of %lld bytes)", b->key,
             f->op->tensors[b->tensor].name, (long long)stride);
    return q4h_decode_flat_rows(c->n, c->k, stride, (uint8_t)q4h_if_buffer_padding(b), what,
                                raw, bytes, o, err);
}

q4_status q4h_layout_read(q4vk_context *ctx, q4vk_buffer *buf, const q4h_iface *f, int buffer,
                          size_t bytes, const q4_case *c, q4h_output *o, q4_error *err)
{
    const q4h_layout l = f->buffers[buffer].layout;
    if (l != Q4H_LAYOUT_W4X8 && l != Q4H_LAYOUT_FLAT)
        return q4h_read_output(ctx, buf, o, err);
    void *raw = malloc(bytes ? bytes : 1);
    if (!raw)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for output %s", bytes,
                       o->name);
    q4_status st = q4h_read(ctx, buf, raw, bytes, &o->guard_ok, &o->guard_bad_at, err);
    if (st != Q4_OK) {
        free(raw);
        return st;
    }
    return decode(f, buffer, c, raw, bytes, o, err);
}

q4_status q4h_layout_read_host(const q4h_host_buffer *b, const q4h_iface *f, int buffer,
                               const q4_case *c, q4h_output *o, q4_error *err)
{
    const q4h_layout l = f->buffers[buffer].layout;
    if (l != Q4H_LAYOUT_W4X8 && l != Q4H_LAYOUT_FLAT) {
        q4h_read_host_output(b, o);
        return Q4_OK;
    }
    void *raw = malloc(b->bytes ? b->bytes : 1);
    if (!raw)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for output %s", b->bytes,
                       o->name);
    q4h_read_host(b, raw, b->bytes, &o->guard_ok, &o->guard_bad_at);
    return decode(f, buffer, c, raw, b->bytes, o, err);
}
