/* q4ref_linear_dW.c: the reference of linear_dW, dW = dout^T @ x, dense fp32
 * (SPEC §2): one OpenBLAS GEMM, and the fp64 truth with the SPEC §3 bound of each
 * dot product over M (q4ref_linear_common.c's GEMM with absolute values). */
#include <stdlib.h>

#include "q4ref_linear_common.h"

/* After q4_check_dw: the BLAS range, then buffers. */
static q4_status check_dw(const float *dout, const float *x, int64_t M, int64_t N, int64_t K,
                          const q4ref_buf *outs, int nout, q4_error *err)
{
    q4_status st;
    q4ref_buf in[] = {{dout, (size_t)(M * N) * sizeof(float), "dout", 0},
                      {x, (size_t)(M * K) * sizeof(float), "x", 0}};
    if ((st = q4ref_linear_check_blas(M, N, K, err)))
        return st;
    return q4ref_check_bufs(in, 2, outs, nout, err);
}

q4_status q4ref_linear_dw(const float *dout, const float *x, int64_t M, int64_t N, int64_t K,
                          float *dw, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_dw(M, N, K, err)))
        return st;
    q4ref_buf out[] = {{dw, (size_t)(N * K) * sizeof(float), "dw", 0}};
    if ((st = check_dw(dout, x, M, N, K, out, 1, err)))
        return st;
    q4ref_sgemm(CblasTrans, CblasNoTrans, N, K, M, dout, N, x, K, 0.0f, dw);
    return Q4_OK;
}

q4_status q4ref_linear_dw_truth(const float *dout, const float *x, int64_t M, int64_t N,
                                int64_t K, double *value, double *bound, q4_error *err)
{
    q4_status st;
    double *dd = NULL, *xd = NULL;
    if ((st = q4_check_dw(M, N, K, err)))
        return st;
    q4ref_buf out[] = {{value, (size_t)(N * K) * sizeof(double), "value", 0},
                       {bound, (size_t)(N * K) * sizeof(double), "bound", 0}};
    if ((st = check_dw(dout, x, M, N, K, out, 2, err)) ||
        !(dd = q4ref_linear_to_f64(dout, M, N, "dout in fp64", &st, err)) ||
        !(xd = q4ref_linear_to_f64(x, M, K, "x in fp64", &st, err))) {
        free(dd);
        return st;
    }
    q4ref_linear_gemm_with_abs(CblasTrans, CblasNoTrans, N, K, M, dd, N, M * N, xd, K, M * K, value, bound);
    /* factors 2: dout * x, one rounding per term, M terms. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N * K; i++)
        bound[i] = q4ref_bound_dot(M, 2, bound[i]);
    free(dd);
    free(xd);
    return Q4_OK;
}
