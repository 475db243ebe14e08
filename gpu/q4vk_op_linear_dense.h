/* q4vk_op_linear_dense.h: the dense path of linear_q4gsw and linear_q4gsw_backward for
 * large M (q4vk_op_linear_dense.c): the weight dequantized once into fp32 scratch and
 * a GEMM of two fp32 operands. */
#ifndef Q4VK_OP_LINEAR_DENSE_H
#define Q4VK_OP_LINEAR_DENSE_H

#include <stdbool.h>
#include <stdint.h>

#include "q4vk_op_linear_common.h"

/* A forward (fwd) or backward call as the dense path sees it: the activation act
 * [M, depth] (x, depth K; or dout, depth N), the output out [M, cols] (y or dx), the
 * weight and its scales, the forward's bias (NULL = none). Checked by the launcher. */
typedef struct q4vk_lin_dense {
    bool fwd;
    q4vk_buffer *act, *w, *scales, *bias, *out;
    int64_t M, N, K, gs;
} q4vk_lin_dense;
/* NULL when the dense path can run this call on this device: the activation and the
 * output each in one binding of `limit` bytes, each scratch buffer (the dequantized
 * weight, the transposed activation) in one binding and one allocation, both together
 * in 1/4 of the largest device-local heap; else
 * what does not fit ("x", "dout", "y", "dx", "the dequantized weight", "the
 * transposed activation", "the scratch"). */
const char *q4vk_lin_dense_misfit(const q4vk_device_info *info, bool fwd, uint64_t M,
                                  uint64_t N, uint64_t K, uint64_t limit);
/* The launchers' choice: the dense path where M >= info->dense_min_m and it fits. */
bool q4vk_lin_dense_chosen(const q4vk_device_info *info, bool fwd, uint64_t M, uint64_t N,
                           uint64_t K, uint64_t limit);
/* Runs the dense path: dequantize_t (forward) or dequantize (backward), the activation's
 * transpose, linear_tn_tiled (split-K and the reduce
 * where few tiles) in one submission. o: tile and splits as for the tiled path.
 * Q4_ERR_RESOURCE naming what does not fit (q4vk_lin_dense_misfit). */
q4_status q4vk_lin_run_dense(q4vk_context *ctx, const q4vk_lin_dense *a,
                             const q4vk_linear_opts *o, uint64_t limit, q4vk_timing *t,
                             q4_error *err);

/* The plan of the dense path of a forward (fwd) or backward call: the weight's
 * dequantize (transposed for the forward), the activation's transpose,
 * linear_tn_tiled, and the reduce where split. */
void q4vk_lin_plan_dense(const q4vk_device_info *info, bool fwd, uint64_t M, uint64_t N,
                         uint64_t K, q4vk_plan *p);

#endif
