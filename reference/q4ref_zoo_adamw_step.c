/* q4ref_zoo_adamw_step.c: legal fp32 evaluations of one AdamW step (q4ref_zoo.h).
 *
 * SPEC §2's update, one rounding per operation or with every a*b + c contracted into
 * an FMA (as NVIDIA's compiler does), the decay as p - (lr wd) p or torch's
 * p (1 - lr wd), and the step as (lr m^) / den or lr (m^ / den): the forms the bound
 * (q4ref_adamw_elem_bound) covers. A planted bias pulls the new param toward zero by
 * |p'| bias, carried out in fp64 before its one rounding. */
#include <math.h>

#include "q4ref_internal.h"
#include "q4ref_zoo.h"

/* a * b + c, fused or not. */
static float mad(int fused, float a, float b, float c) { return fused ? fmaf(a, b, c) : a * b + c; }

q4_status q4ref_zoo_adamw_step(const q4ref_zoo_adamw *z, float *param, const float *grad,
                               float *m, float *v, int64_t numel, const q4ref_adamw_hyper *h,
                               q4_error *err)
{
    (void)err;
    const float lrwd = h->lr * h->wd, ob1 = 1 - h->beta1, ob2 = 1 - h->beta2;
    const float keep = z->fma ? fmaf(-h->lr, h->wd, 1.0f) : 1 - lrwd;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < numel; i++) {
        const float g = grad[i];
        float p = param[i], mh, den, step;
        p = z->torch_decay ? p * keep : mad(z->fma, -lrwd, p, p);
        m[i] = mad(z->fma, h->beta1, m[i], ob1 * g);
        v[i] = mad(z->fma, h->beta2, v[i], (ob2 * g) * g);
        mh = m[i] / h->bc1;
        den = sqrtf(v[i] / h->bc2) + h->eps;
        if (z->bias != 0) {
            double s = z->lr_outside ? (double)h->lr * (mh / den) : (double)(h->lr * mh) / den;
            double exact = (double)p - s;
            param[i] = (float)(exact * (1 - z->bias));
            continue;
        }
        step = z->lr_outside ? h->lr * (mh / den) : (h->lr * mh) / den;
        if (z->fma && z->lr_outside)
            param[i] = fmaf(-h->lr, mh / den, p);
        else
            param[i] = p - step;
    }
    return Q4_OK;
}
