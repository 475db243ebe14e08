/* packed_io.c: packed weight outputs decoded and read back (packed_io.h). */
#include "packed_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_io.h"
#include "q4ref.h"

/* SPEC §1b: for odd N4 the upper half (words 2 and 3) of each last block is padding. */
static void check_padding(int64_t N, int64_t K, const uint32_t *words, q4h_output *o)
{
    int64_t n8 = q4_n8(N);
    o->padding_ok = true;
    o->padding_bad_at = -1;
    if ((N / 4) % 2 == 0)
        return;
    for (int64_t k4 = 0; k4 < K / 4 && o->padding_ok; k4++)
        for (int comp = 2; comp < 4; comp++) {
            int64_t i = 4 * (k4 * n8 + n8 - 1) + comp;
            if (words[i] != Q4_W4X8_PAD) {
                o->padding_ok = false;
                o->padding_bad_at = i;
                break;
            }
        }
}

/* raw becomes o->raw (replacing a previous run's), kept as the GPU wrote it for dumps. */
static void keep_raw(void *raw, size_t bytes, char dtype, q4h_output *o)
{
    free(o->raw);
    o->raw = raw, o->raw_bytes = bytes, o->raw_dtype = dtype;
}

q4_status q4h_decode_w4x8(int64_t N, int64_t K, uint32_t *words, size_t bytes, q4h_output *o,
                          q4_error *err)
{
    keep_raw(words, bytes, 'u', o);
    check_padding(N, K, words, o);
    return q4ref_unpack_w4x8(words, N, K, o->got_code, err);
}

q4_status q4h_decode_flat(int64_t N, int64_t K, uint8_t *packed, size_t bytes, q4h_output *o,
                          q4_error *err)
{
    keep_raw(packed, bytes, 'b', o);
    return q4ref_unpack_flat(packed, N, K, o->got_code, err);
}

q4_status q4h_decode_flat_rows(int64_t N, int64_t K, int64_t stride, uint8_t pad,
                               const char *what, uint8_t *rows, size_t bytes, q4h_output *o,
                               q4_error *err)
{
    const int64_t row = (K + 1) / 2;
    keep_raw(rows, bytes, 'b', o);
    o->padding_ok = true;
    o->padding_bad_at = -1;
    o->padding_problem[0] = '\0';
    if (stride < row || (uint64_t)N * (uint64_t)stride != bytes)
        return q4_fail(err, Q4_ERR_ARG, "%s: %zu bytes are not %lld rows of %lld bytes with "
                       "at least %lld of data each", what, bytes, (long long)N,
                       (long long)stride, (long long)row);
    for (int64_t n = 0; n < N && o->padding_ok; n++)
        for (int64_t j = row; j < stride; j++)
            if (rows[n * stride + j] != pad) {
                o->padding_ok = false;
                o->padding_bad_at = n * stride + j;
                snprintf(o->padding_problem, sizeof o->padding_problem,
                         "the padding of %s was written: row n=%lld, byte %lld of its %lld "
                         "(data: bytes 0 to %lld) is 0x%02x, not the padding 0x%02x it held "
                         "before the run", what, (long long)n, (long long)j, (long long)stride,
                         (long long)row - 1, rows[n * stride + j], pad);
                break;
            }
    uint8_t *packed = malloc(N > 0 && row > 0 ? (size_t)(N * row) : 1);
    if (!packed)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %lld bytes for output %s",
                       (long long)(N * row), o->name);
    for (int64_t n = 0; n < N; n++)   /* from the pitch to SPEC §1a's packed rows */
        memcpy(packed + n * row, rows + n * stride, (size_t)row);
    q4_status st = q4ref_unpack_flat(packed, N, K, o->got_code, err);
    free(packed);
    return st;
}

/* Downloads `bytes` of buf into *raw (malloc'ed), checking the guard words. */
static q4_status read_raw(q4vk_context *ctx, q4vk_buffer *buf, size_t bytes, q4h_output *o,
                          void **raw, q4_error *err)
{
    if (!(*raw = malloc(bytes)))
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for output %s", bytes,
                       o->name);
    q4_status st = q4h_read(ctx, buf, *raw, bytes, &o->guard_ok, &o->guard_bad_at, err);
    if (st != Q4_OK) {
        free(*raw);
        *raw = NULL;
    }
    return st;
}

q4_status q4h_read_w4x8_output(q4vk_context *ctx, q4vk_buffer *buf, int64_t N, int64_t K,
                               q4h_output *o, q4_error *err)
{
    const size_t bytes = (size_t)q4_w4x8_words(N, K) * sizeof(uint32_t);
    void *raw;
    q4_status st = read_raw(ctx, buf, bytes, o, &raw, err);
    return st ? st : q4h_decode_w4x8(N, K, raw, bytes, o, err);
}

q4_status q4h_read_flat_output(q4vk_context *ctx, q4vk_buffer *buf, int64_t N, int64_t K,
                               q4h_output *o, q4_error *err)
{
    const size_t bytes = (size_t)q4_flat_bytes(N, K);
    void *raw;
    q4_status st = read_raw(ctx, buf, bytes, o, &raw, err);
    return st ? st : q4h_decode_flat(N, K, raw, bytes, o, err);
}
