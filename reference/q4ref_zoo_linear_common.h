/* q4ref_zoo_linear_common.h: what the legal fp32 evaluations of linear_q4gsw,
 * linear_q4gsw_backward and linear_dW share (q4ref_zoo_linear_common.c); private to
 * reference/. */
#ifndef Q4REF_ZOO_LINEAR_COMMON_H
#define Q4REF_ZOO_LINEAR_COMMON_H

#include <stdint.h>

#include "q4ref_internal.h"
#include "q4ref_zoo.h"

/* Sum of n terms t in the given order (FMA sums like SEQ: its products were formed by
 * the caller); the last addition is exact in fp64 and rounded once with the planted
 * bias applied first. */
float q4ref_zoo_lin_reduce(const float *t, int64_t n, q4ref_zoo_order order, double bias);
/* sum_i a_i b_i with the products fused into the sum (s = fma(a, b, s)); the last
 * step exact in fp64 and rounded once. */
float q4ref_zoo_lin_fma_dot(const float *a, const float *b, int64_t n, double bias);
/* One output: sum over n terms of act[i] * w(i), where the weight of term i is code
 * q[i] (-8..7) times scale s[i]; `group` terms share a scale (hoisting only); t and u
 * are scratch. */
float q4ref_zoo_lin_q4_dot(const q4ref_zoo_dot *z, const float *act, const float *q,
                           const float *s, const float *wf, int64_t n, int64_t group, float *t,
                           float *u);

/* The weight as a kernel sees it, [N][K]: codes - 8, the scale of each element, and
 * the dequantized fp32 weight (one rounding each). */
typedef struct q4ref_zoo_weight_view {
    float *q, *s, *wf;
} q4ref_zoo_weight_view;
q4_status q4ref_zoo_lin_view(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                             int64_t gs, q4ref_zoo_weight_view *v, q4_error *err);
void q4ref_zoo_lin_free_view(q4ref_zoo_weight_view *v);
/* Per-thread scratch of 4 len + 4 floats: terms, group sums and scales, gathered
 * columns; NULL with *st and err set. */
float *q4ref_zoo_lin_scratch(int64_t len, q4_status *st, q4_error *err);

#endif
