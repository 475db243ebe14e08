/* device_io.h: device buffers for one case, with guard words after every output.
 *
 * Every buffer the harness hands a launcher is exactly the bytes the shape needs
 * plus Q4H_GUARD_BYTES of a known pattern; after the run the pattern must be
 * intact (an out-of-bounds write is a Fail even when every value is right).
 * Output regions start as a NaN sentinel so an element never written shows up. */
#ifndef Q4H_DEVICE_IO_H
#define Q4H_DEVICE_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "q4vk.h"

#define Q4H_GUARD_BYTES 256u
#define Q4H_SENTINEL 0x7FC0DEADu /* a quiet NaN: an unwritten float reads as NaN */

/* A buffer of `bytes` + `guard_bytes` (Q4H_GUARD_BYTES, or 0 where nothing is judged:
 * perf mode), initialised from `init`, or with the sentinel when NULL. */
q4_status q4h_buffer(q4vk_context *ctx, const void *init, size_t bytes, size_t guard_bytes,
                     q4vk_buffer **out, q4_error *err);
/* Fills image (bytes + guard_bytes) as q4h_buffer uploads it: init's bytes, or the
 * sentinel when init is NULL, then the guard pattern. The WebGPU worker gets these. */
void q4h_host_image(void *image, const void *init, size_t bytes, size_t guard_bytes);
/* Whether the Q4H_GUARD_BYTES at guard are the pattern; the first changed word. */
void q4h_guard_check(const void *guard, bool *guard_ok, int64_t *guard_bad_at);
/* A buffer's contents on the host after a run (the WebGPU worker returns them):
 * `bytes` of data, then Q4H_GUARD_BYTES of guard words. */
typedef struct q4h_host_buffer {
    const void *data;
    size_t bytes;
} q4h_host_buffer;
/* The host counterparts of q4h_read and q4h_read_output. */
void q4h_read_host(const q4h_host_buffer *b, void *host, size_t bytes, bool *guard_ok,
                   int64_t *guard_bad_at);
struct q4h_output;
void q4h_read_host_output(const q4h_host_buffer *b, struct q4h_output *o);
/* Reads the first `bytes` into host and checks the guard after them. */
q4_status q4h_read(q4vk_context *ctx, q4vk_buffer *buf, void *host, size_t bytes,
                   bool *guard_ok, int64_t *guard_bad_at, q4_error *err);
/* Uploads each tensor into its own guarded buffer, bufs[i] for t[i]. */
struct q4h_tensor;
q4_status q4h_upload_inputs(q4vk_context *ctx, const struct q4h_tensor *t, int n,
                            size_t guard_bytes, q4vk_buffer **bufs, q4_error *err);
/* Bytes of one tensor. */
size_t q4h_tensor_bytes(const struct q4h_tensor *t);
/* Reads a real output's o->count floats into o->got and checks its guard. */
struct q4h_output;
q4_status q4h_read_output(q4vk_context *ctx, q4vk_buffer *buf, struct q4h_output *o,
                          q4_error *err);
/* Destroys every non-NULL buffer of the array. */
void q4h_buffers_free(q4vk_context *ctx, q4vk_buffer **bufs, int n);

#endif
