/* packed_io.h: a packed weight output (SPEC §1a flat, §1b W_4X8) turned into its codes,
 * with, for W_4X8, the check of an odd N4's padding words, and for a flat weight
 * written with padded rows (an interface file's row_stride), the check of each row's
 * padding and the rows compacted; the bytes are kept in o->raw for dumps. Decoded from host bytes (the requant op, on either API) or read from a
 * device buffer with its guard check (the requant op's and the interface files'
 * layouts). */
#ifndef Q4H_PACKED_IO_H
#define Q4H_PACKED_IO_H

#include "op.h"

/* Decode words / packed as the GPU wrote them (guards checked by the caller); they
 * become o->raw, success or not. */
q4_status q4h_decode_w4x8(int64_t N, int64_t K, uint32_t *words, size_t bytes, q4h_output *o,
                          q4_error *err);
q4_status q4h_decode_flat(int64_t N, int64_t K, uint8_t *packed, size_t bytes, q4h_output *o,
                          q4_error *err);
/* The same for a flat weight whose rows lie `stride` bytes apart (stride >= ceil(K/2),
 * bytes = N * stride): the bytes of each row past its data must still hold `pad`,
 * the value they were given before the run; the first that does not makes
 * o->padding_ok false, padding_bad_at its offset in the buffer and padding_problem a
 * sentence naming `what` (the buffer, e.g. an interface file's binding and layout),
 * the row and the byte. The rows are compacted to [N][ceil(K/2)] for the codes;
 * o->raw keeps them as written, padding included. */
q4_status q4h_decode_flat_rows(int64_t N, int64_t K, int64_t stride, uint8_t pad,
                               const char *what, uint8_t *rows, size_t bytes, q4h_output *o,
                               q4_error *err);
/* Read from buf (guard words checked), then decode. */
q4_status q4h_read_w4x8_output(q4vk_context *ctx, q4vk_buffer *buf, int64_t N, int64_t K,
                               q4h_output *o, q4_error *err);
q4_status q4h_read_flat_output(q4vk_context *ctx, q4vk_buffer *buf, int64_t N, int64_t K,
                               q4h_output *o, q4_error *err);

#endif
