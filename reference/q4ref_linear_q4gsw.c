/* q4ref_linear_q4gsw.c: the reference of linear_q4gsw, y = x @ dequant(W)^T (+ bias)
 * (SPEC §2): fp32 through OpenBLAS on the dequantized weight, and the fp64 truth with
 * its bounds (the quantized GEMM of q4ref_linear_common.c). */
#include <stdlib.h>

#include "q4ref_linear_common.h"

q4_status q4ref_linear_fwd(const float *x, const uint32_t *w, const float *scales,
                           const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                           float *y, q4_error *err)
{
    q4_status st;
    float *wf;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{y, (size_t)(M * N) * sizeof(float), "y", 0}};
    if ((st = q4ref_linear_check_q4(x, K, "x", w, scales, bias, M, N, K, gs, out, 1, err)) ||
        !(wf = q4ref_linear_dequant_scratch(w, scales, N, K, gs, &st, err)))
        return st;
    /* The bias enters as C with beta = 1: one more addition after the dot product. */
    if (bias)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                y[i * N + j] = bias[j];
    q4ref_sgemm(CblasNoTrans, CblasTrans, M, N, K, x, K, wf, K, bias ? 1.0f : 0.0f, y);
    free(wf);
    return Q4_OK;
}

q4_status q4ref_linear_fwd_truth(const float *x, const uint32_t *w, const float *scales,
                                 const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                                 double *value, double *bound, q4_error *err)
{
    return q4ref_linear_q4_truth(1, x, w, scales, bias, M, N, K, gs, value, bound, err);
}
