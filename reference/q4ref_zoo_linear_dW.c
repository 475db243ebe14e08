/* q4ref_zoo_linear_dW.c: legal fp32 evaluations of linear_dW (q4ref_zoo.h): each
 * output one dot product of fp32 terms formed and summed as a kernel would
 * (q4ref_zoo_linear_common.c). */
#include <stdlib.h>

#include "q4ref_zoo_linear_common.h"

q4_status q4ref_zoo_linear_dw(const q4ref_zoo_dot *z, const float *dout, const float *x,
                              int64_t M, int64_t N, int64_t K, float *dw, q4_error *err)
{
    q4_status st = Q4_OK;
    float *tmp = q4ref_zoo_lin_scratch(4 * M, &st, err);
    if (tmp) {
#pragma omp parallel for schedule(static)
        for (int64_t n = 0; n < N; n++) {
            float *t = tmp + (size_t)q4ref_thread() * (16 * (size_t)M + 4);
            float *a = t + 4 * M, *b = a + M;
            for (int64_t m = 0; m < M; m++)
                a[m] = dout[m * N + n];
            for (int64_t k = 0; k < K; k++) {
                for (int64_t m = 0; m < M; m++)
                    b[m] = x[m * K + k];
                if (z->order == Q4REF_ZOO_FMA) {
                    dw[n * K + k] = q4ref_zoo_lin_fma_dot(a, b, M, z->bias);
                } else {
                    for (int64_t m = 0; m < M; m++)
                        t[m] = a[m] * b[m];
                    dw[n * K + k] = q4ref_zoo_lin_reduce(t, M, z->order, z->bias);
                }
            }
        }
    }
    free(tmp);
    return st;
}
