/* q4ref_linear_q4gsw_backward.c: the reference of linear_q4gsw_backward,
 * dx = dout @ dequant(W) (SPEC §2): fp32 through OpenBLAS on the dequantized weight,
 * and the fp64 truth with its bounds (the quantized GEMM of q4ref_linear_common.c). */
#include <stdlib.h>

#include "q4ref_linear_common.h"

q4_status q4ref_linear_bwd(const float *dout, const uint32_t *w, const float *scales,
                           int64_t M, int64_t N, int64_t K, int64_t gs, float *dx, q4_error *err)
{
    q4_status st;
    float *wf;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{dx, (size_t)(M * K) * sizeof(float), "dx", 0}};
    if ((st = q4ref_linear_check_q4(dout, N, "dout", w, scales, NULL, M, N, K, gs, out, 1, err)) ||
        !(wf = q4ref_linear_dequant_scratch(w, scales, N, K, gs, &st, err)))
        return st;
    q4ref_sgemm(CblasNoTrans, CblasNoTrans, M, K, N, dout, N, wf, K, 0.0f, dx);
    free(wf);
    return Q4_OK;
}

q4_status q4ref_linear_bwd_truth(const float *dout, const uint32_t *w, const float *scales,
                                 int64_t M, int64_t N, int64_t K, int64_t gs,
                                 double *value, double *bound, q4_error *err)
{
    return q4ref_linear_q4_truth(0, dout, w, scales, NULL, M, N, K, gs, value, bound, err);
}
