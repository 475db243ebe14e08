/* q4vk_op_linear_q4gsw_backward.h: the launcher of linear_q4gsw_backward (q4vk_op_linear_q4gsw_backward.c) with its
 * choices made explicit (q4vk_linear_opts), for tests and the public launcher. */
#ifndef Q4VK_OP_LINEAR_Q4GSW_BACKWARD_H
#define Q4VK_OP_LINEAR_Q4GSW_BACKWARD_H

#include "q4vk_op_linear_common.h"

q4_status q4vk_linear_q4gsw_backward_opts(q4vk_context *ctx, const q4vk_linear_bwd_args *a,
                                          const q4vk_linear_opts *o, q4vk_timing *t,
                                          q4_error *err);

#endif
