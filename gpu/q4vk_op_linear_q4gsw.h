/* q4vk_op_linear_q4gsw.h: the launcher of linear_q4gsw (q4vk_op_linear_q4gsw.c) with its
 * choices made explicit (q4vk_linear_opts), for tests and the public launcher. */
#ifndef Q4VK_OP_LINEAR_Q4GSW_H
#define Q4VK_OP_LINEAR_Q4GSW_H

#include "q4vk_op_linear_common.h"

q4_status q4vk_linear_q4gsw_opts(q4vk_context *ctx, const q4vk_linear_args *a,
                                 const q4vk_linear_opts *o, q4vk_timing *t, q4_error *err);

#endif
