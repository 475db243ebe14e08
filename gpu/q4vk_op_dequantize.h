/* q4vk_op_dequantize.h: the dispatches of the dequantize and dequantize_t kernels
 * (q4vk_op_dequantize.c), which the dense path of the linears reuses for its weight
 * pass. */
#ifndef Q4VK_OP_DEQUANTIZE_H
#define Q4VK_OP_DEQUANTIZE_H

#include <stdint.h>

#include "q4vk_op_args.h"

/* Kernel names (= variant names). */
#define Q4VK_K_DEQUANT "dequantize"           /* the dense backward's weight pass */
#define Q4VK_K_DEQUANT_T "dequantize_t"       /* the dense forward's: W^T */

/* Workgroups of dequantize and of dequantize_t for a weight [N, K] (before folding). */
uint64_t q4vk_dequant_groups(int64_t N, int64_t K);
uint64_t q4vk_dequant_t_groups(int64_t N, int64_t K);
/* What dequantize.comp reads as push constants. */
typedef struct q4vk_dequant_push {
    uint32_t N, K, gs, N8, KT, chunks;
} q4vk_dequant_push;
/* The dispatch of the dequantize kernel for a (checked) call, its output bound from
 * offset 0 for out_range bytes; push holds its push constants and must outlive the
 * run. */
q4_status q4vk_dequant_dispatch(q4vk_context *ctx, const q4vk_dequant_args *a,
                                uint64_t out_range, q4vk_dequant_push *push, q4vk_dispatch *d,
                                q4_error *err);

/* What dequantize_t.comp reads as push constants. */
typedef struct q4vk_dequant_t_push {
    uint32_t N, K, gs, N8;
} q4vk_dequant_t_push;
/* The dispatch of dequantize_t (W^T [K, N] into out, the dense forward's weight pass)
 * for a checked call. */
q4_status q4vk_dequant_t_dispatch(q4vk_context *ctx, const q4vk_dequant_args *a,
                                  q4vk_dequant_t_push *push, q4vk_dispatch *d, q4_error *err);

#endif
