/* q4ref_zoo_linear_q4gsw_backward.c: legal fp32 evaluations of linear_q4gsw_backward (q4ref_zoo.h): each
 * output one dot product of fp32 terms formed and summed as a kernel would
 * (q4ref_zoo_linear_common.c). */
#include <stdlib.h>

#include "q4ref_zoo_linear_common.h"

q4_status q4ref_zoo_linear_bwd(const q4ref_zoo_dot *z, const float *dout, const uint32_t *w,
                               const float *scales, int64_t M, int64_t N, int64_t K, int64_t gs,
                               float *dx, q4_error *err)
{
    /* The reduction runs over n, along which the scale changes: no hoisting. */
    q4ref_zoo_dot per = *z;
    q4ref_zoo_weight_view v = { 0 };
    q4_status st = q4ref_zoo_lin_view(w, scales, N, K, gs, &v, err);
    float *tmp = st ? NULL : q4ref_zoo_lin_scratch(4 * N, &st, err);
    if (per.weight == Q4REF_ZOO_HOIST_GROUP)
        per.weight = Q4REF_ZOO_PER_TERM;
    if (tmp) {
#pragma omp parallel for schedule(static)
        for (int64_t m = 0; m < M; m++) {
            float *t = tmp + (size_t)q4ref_thread() * (16 * (size_t)N + 4);
            float *q = t + 4 * N, *s = q + N, *wf = s + N, *u = wf + N;
            for (int64_t k = 0; k < K; k++) {
                for (int64_t n = 0; n < N; n++) {
                    q[n] = v.q[n * K + k];
                    s[n] = v.s[n * K + k];
                    wf[n] = v.wf[n * K + k];
                }
                dx[m * K + k] = q4ref_zoo_lin_q4_dot(&per, dout + m * N, q, s, wf, N, 1, t, u);
            }
        }
    }
    free(tmp);
    q4ref_zoo_lin_free_view(&v);
    return st;
}
