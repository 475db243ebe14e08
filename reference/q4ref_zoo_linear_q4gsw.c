/* q4ref_zoo_linear_q4gsw.c: legal fp32 evaluations of linear_q4gsw (q4ref_zoo.h): each
 * output one dot product of fp32 terms formed and summed as a kernel would
 * (q4ref_zoo_linear_common.c). */
#include <stdlib.h>

#include "q4ref_zoo_linear_common.h"

q4_status q4ref_zoo_linear_fwd(const q4ref_zoo_dot *z, const float *x, const uint32_t *w,
                               const float *scales, const float *bias, int64_t M, int64_t N,
                               int64_t K, int64_t gs, float *y, q4_error *err)
{
    q4ref_zoo_weight_view v = { 0 };
    q4_status st = q4ref_zoo_lin_view(w, scales, N, K, gs, &v, err);
    float *tmp = st ? NULL : q4ref_zoo_lin_scratch(K, &st, err);
    if (tmp) {
#pragma omp parallel for schedule(static)
        for (int64_t m = 0; m < M; m++) {
            float *t = tmp + (size_t)q4ref_thread() * (4 * (size_t)K + 4), *u = t + 2 * K + 2;
            for (int64_t n = 0; n < N; n++) {
                const int64_t o = n * K;
                float d = q4ref_zoo_lin_q4_dot(z, x + m * K, v.q + o, v.s + o, v.wf + o, K, gs,
                                               t, u);
                y[m * N + n] = bias ? d + bias[n] : d;
            }
        }
    }
    free(tmp);
    q4ref_zoo_lin_free_view(&v);
    return st;
}
