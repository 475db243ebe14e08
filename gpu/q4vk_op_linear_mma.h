/* q4vk_op_linear_mma.h: the tensor-core path of linear_q4gsw (q4vk_op_linear_mma.c):
 * when it can run, its scratch, its two int8 passes and the whole path. */
#ifndef Q4VK_OP_LINEAR_MMA_H
#define Q4VK_OP_LINEAR_MMA_H

#include <stdbool.h>
#include <stdint.h>

#include "q4vk_op_args.h"

/* NULL when the tensor-core forward can run this call on this device (coopmat_s8, gs a
 * multiple of 64, its workgroup's shared memory, x and y each in one binding of
 * `limit` bytes, the int8 operands in one allocation each and together in 1/4 of
 * device memory, 32-bit indices, its three grids within the workgroup counts); else
 * why not, as a phrase. */
const char *q4vk_lin_mma_misfit(const q4vk_device_info *info, uint64_t M, uint64_t N,
                                uint64_t K, uint64_t gs, uint64_t limit);
/* The launcher's choice: the tensor-core path where M >= info->mma_min_m and it can run. */
bool q4vk_lin_mma_chosen(const q4vk_device_info *info, uint64_t M, uint64_t N, uint64_t K,
                         uint64_t gs, uint64_t limit);
/* The scratch of the tensor-core path for one call: M and N rounded up to its tile
 * (64 x 128), the exponent block (128 or 64; 0 where gs allows neither), and the bytes
 * of the digit planes, the int8 codes and the exponents. */
typedef struct q4vk_lin_mma_scratch {
    uint64_t mp, np, blk, digit_bytes, code_bytes, exp_bytes;
} q4vk_lin_mma_scratch;
void q4vk_lin_mma_sizes(uint64_t M, uint64_t N, uint64_t K, uint64_t gs,
                        q4vk_lin_mma_scratch *sz);
/* Where the passes write: digit planes and codes in the GEMM's staging order
 * (gpu/shaders/linear_slice_i8.comp, unpack_w_i8.comp), exponents [Mp][K/blk], and
 * the lossy flag (one uint32, nonzero when some element of x is too coarse). */
typedef struct q4vk_lin_mma_bufs {
    q4vk_buffer *digits, *exps, *codes, *lossy;
} q4vk_lin_mma_bufs;
/* unpack_w_i8, then linear_slice_i8, in one submission; they need no cooperative
 * matrices (gpu.mma_passes runs them on any device). Q4_ERR_ARG where gs % 64 != 0. */
q4_status q4vk_lin_mma_passes(q4vk_context *ctx, const q4vk_linear_args *a,
                              const q4vk_lin_mma_bufs *b, q4vk_timing *t, q4_error *err);
/* Runs unpack_w_i8 and linear_slice_i8 (one submission), then linear_q4gsw_mma (a
 * second) unless some element of x is too coarse for the digits: then *lossy is set,
 * y is untouched, t holds the passes' time, and the caller runs its fp32 path.
 * Q4_ERR_UNSUPPORTED on a device without coopmat_s8, Q4_ERR_RESOURCE where it does not
 * fit, each naming why (q4vk_lin_mma_misfit). */
q4_status q4vk_lin_run_mma(q4vk_context *ctx, const q4vk_linear_args *a, uint64_t limit,
                           bool *lossy, q4vk_timing *t, q4_error *err);

#endif
