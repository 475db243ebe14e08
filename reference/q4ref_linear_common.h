/* q4ref_linear_common.h: what the references of linear_q4gsw, linear_q4gsw_backward
 * and linear_dW share (q4ref_linear_common.c); private to reference/. */
#ifndef Q4REF_LINEAR_COMMON_H
#define Q4REF_LINEAR_COMMON_H

#include <stdint.h>

#include "q4ref_internal.h"

/* M, N and K each within the BLAS range (q4ref_check_blas_dim). */
q4_status q4ref_linear_check_blas(int64_t M, int64_t N, int64_t K, q4_error *err);
/* After the shape check, shared by forward and backward: BLAS range, buffers (the
 * activation of act_cols columns, w4x8, scales, the optional bias, and outs), scale
 * values. */
q4_status q4ref_linear_check_q4(const void *act, int64_t act_cols, const char *act_name,
                                const uint32_t *w, const float *scales, const float *bias,
                                int64_t M, int64_t N, int64_t K, int64_t gs,
                                const q4ref_buf *outs, int nout, q4_error *err);
/* The weight dequantized into a malloc'd [N, K] fp32 scratch; NULL with *st and err set. */
float *q4ref_linear_dequant_scratch(const uint32_t *w, const float *scales, int64_t N,
                                    int64_t K, int64_t gs, q4_status *st, q4_error *err);
/* a [rows, cols] as a malloc'd fp64 copy; NULL with *st and err set. */
double *q4ref_linear_to_f64(const float *a, int64_t rows, int64_t cols, const char *what,
                            q4_status *st, q4_error *err);
/* value = op(A) op(B) (m x n, inner k), then sum_abs = |op(A)| |op(B)|; A and B are
 * scratch and end up holding their absolute values. */
void q4ref_linear_gemm_with_abs(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m,
                                int64_t n, int64_t k, double *a, int64_t lda, int64_t a_count,
                                double *b, int64_t ldb, int64_t b_count, double *value,
                                double *sum_abs);
/* The truth of the quantized forward (fwd = 1, bias may be NULL) or backward (fwd = 0,
 * act = dout, no bias): value and bound as q4ref.h says for each. */
q4_status q4ref_linear_q4_truth(int fwd, const float *act, const uint32_t *w,
                                const float *scales, const float *bias, int64_t M, int64_t N,
                                int64_t K, int64_t gs, double *value, double *bound,
                                q4_error *err);

#endif
