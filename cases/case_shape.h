/* case_shape.h: the parts of a name and the shape checks that several ops share
 * (case_shape.c): the M or leading dims of the linear ops and their whole params
 * level, and the one weight [N, K] of dequantize and requant. */
#ifndef Q4C_CASE_SHAPE_H
#define Q4C_CASE_SHAPE_H

#include "case_desc.h"

/* ---- the quantized linear ops: keys m|d n k g [b] ---- */
void q4c_format_m(const q4_case *c, q4c_text *t);      /* m<M> or d<A>x<B>.. */
void q4c_fill_m(const q4c_params *p, q4_case *c);      /* m, nlead, lead from m or d */
q4_status q4c_check_lead(const q4_case *c, q4_error *err);
/* The name part of the quantized linear ops, keys m|d n k g [b] (b only where the op's
 * `allowed` has it), printed m<M>_n<N>_k<K>_g<gs>[_b1]; and its checks: the leading
 * dims, b in 0..max_bias, q4_check_linear. */
q4_status q4c_linear_fill(const q4c_params *p, q4_case *c, q4_error *err);
void q4c_linear_format(const q4_case *c, q4c_text *t);
q4_status q4c_linear_check(const q4_case *c, int max_bias, q4_error *err);

/* The name part and contract check of an op whose case is one weight [N, K] with
 * group size gs (dequantize, requant): keys n k g, printed n<N>_k<K>_g<gs>. */
q4_status q4c_weight_fill(const q4c_params *p, q4_case *c, q4_error *err);
void q4c_weight_format(const q4_case *c, q4c_text *t);
q4_status q4c_weight_check(const q4_case *c, q4_error *err);

#endif
