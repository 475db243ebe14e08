/* q4ref_adamw_step.c: one AdamW step with decoupled weight decay (SPEC §2).
 *
 * fp32 path: a plain loop of the SPEC formula, in place on param, m and v.
 * Truth path: per element, the fp64 evaluation and bounds of q4ref_adamw_elem_bound,
 * for every element at once or for a range of them (the same body). */
#include <math.h>

#include "q4ref_internal.h"

static q4_status check_hyper(const q4ref_adamw_hyper *h, int64_t numel, q4_error *err)
{
    q4_status st = q4_check_ptr(h, "h", err);
    if (st)
        return st;
    return q4_check_adamw(numel, h->lr, h->beta1, h->beta2, h->eps, h->wd, h->bc1, h->bc2, err);
}

q4_status q4ref_adamw_step(float *param, const float *grad, float *m, float *v, int64_t numel,
                           const q4ref_adamw_hyper *h, q4_error *err)
{
    q4_status st;
    if ((st = check_hyper(h, numel, err)))
        return st;
    const size_t bytes = (size_t)numel * sizeof(float);
    /* Updated in place: each of param, m, v is its own input, but the three must be
     * separate from each other and from grad. */
    q4ref_buf in[] = {{grad, bytes, "grad", 0}};
    q4ref_buf out[] = {{param, bytes, "param", 0}, {m, bytes, "m", 0}, {v, bytes, "v", 0}};
    if ((st = q4ref_check_bufs(in, 1, out, 3, err)))
        return st;
    const float lrwd = h->lr * h->wd, ob1 = 1 - h->beta1, ob2 = 1 - h->beta2;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < numel; i++) {
        const float g = grad[i];
        float p = param[i];
        p = p - lrwd * p;
        m[i] = h->beta1 * m[i] + ob1 * g;
        v[i] = h->beta2 * v[i] + ob2 * g * g;
        param[i] = p - h->lr * (m[i] / h->bc1) / (sqrtf(v[i] / h->bc2) + h->eps);
    }
    return Q4_OK;
}

q4_status q4ref_adamw_truth(const float *param, const float *grad, const float *m, const float *v,
                            int64_t numel, const q4ref_adamw_hyper *h,
                            double *param_value, double *param_bound,
                            double *m_value, double *m_bound,
                            double *v_value, double *v_bound, q4_error *err)
{
    return q4ref_adamw_truth_env(param, grad, m, v, numel, h, param_value, param_bound, m_value,
                                 m_bound, v_value, v_bound, NULL, err);
}

static void put_env(const q4ref_envelope *env, int64_t i, q4ref_ev x)
{
    env->alw[i] = (float)x.a;
    env->sd[i] = (float)x.q;
    if (env->shr)
        env->shr[i] = 0;
}

/* Element i of the inputs into element o of the outputs: the one body of the whole
 * truth and of a range's, so that both are the same bits. */
static inline void truth_elem(const float *param, const float *grad, const float *m,
                              const float *v, int64_t i, int64_t o, const q4ref_adamw_consts *k,
                              double *param_value, double *param_bound, double *m_value,
                              double *m_bound, double *v_value, double *v_bound,
                              const q4ref_envelope *env)
{
    q4ref_ev p1, m1, v1;
    q4ref_adamw_elem_bound(param[i], grad[i], m[i], v[i], k, &p1, &m1, &v1);
    param_value[o] = p1.v;
    param_bound[o] = p1.e;
    m_value[o] = m1.v;
    m_bound[o] = m1.e;
    v_value[o] = v1.v;
    v_bound[o] = v1.e;
    if (env) {
        put_env(&env[0], o, p1);
        put_env(&env[1], o, m1);
        put_env(&env[2], o, v1);
    }
}

q4_status q4ref_adamw_truth_env(const float *param, const float *grad, const float *m,
                                const float *v, int64_t numel, const q4ref_adamw_hyper *h,
                                double *param_value, double *param_bound, double *m_value,
                                double *m_bound, double *v_value, double *v_bound,
                                const q4ref_envelope *env, q4_error *err)
{
    q4_status st;
    if ((st = check_hyper(h, numel, err)))
        return st;
    const size_t fb = (size_t)numel * sizeof(float), db = (size_t)numel * sizeof(double);
    q4ref_buf in[] = {{param, fb, "param", 0}, {grad, fb, "grad", 0}, {m, fb, "m", 0},
                      {v, fb, "v", 0}};
    q4ref_buf out[] = {{param_value, db, "param_value", 0}, {param_bound, db, "param_bound", 0},
                       {m_value, db, "m_value", 0},         {m_bound, db, "m_bound", 0},
                       {v_value, db, "v_value", 0},         {v_bound, db, "v_bound", 0}};
    if ((st = q4ref_check_bufs(in, 4, out, 6, err)))
        return st;
    q4ref_adamw_consts k;
    q4ref_adamw_consts_of(h, &k);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < numel; i++)
        truth_elem(param, grad, m, v, i, i, &k, param_value, param_bound, m_value, m_bound,
                   v_value, v_bound, env);
    return Q4_OK;
}

q4_status q4ref_adamw_truth_check(const float *param, const float *grad, const float *m,
                                  const float *v, int64_t numel, const q4ref_adamw_hyper *h,
                                  q4_error *err)
{
    q4_status st;
    if ((st = check_hyper(h, numel, err)))
        return st;
    const size_t fb = (size_t)numel * sizeof(float);
    q4ref_buf in[] = {{param, fb, "param", 0}, {grad, fb, "grad", 0}, {m, fb, "m", 0},
                      {v, fb, "v", 0}};
    return q4ref_check_bufs(in, 4, NULL, 0, err);
}

void q4ref_adamw_truth_range(const float *param, const float *grad, const float *m,
                             const float *v, int64_t i0, int64_t i1, const q4ref_adamw_hyper *h,
                             double *param_value, double *param_bound, double *m_value,
                             double *m_bound, double *v_value, double *v_bound,
                             const q4ref_envelope *env)
{
    q4ref_adamw_consts k;   /* a few fp64 operations: nothing beside a range's elements */
    q4ref_adamw_consts_of(h, &k);
    for (int64_t i = i0; i < i1; i++)
        truth_elem(param, grad, m, v, i, i - i0, &k, param_value, param_bound, m_value, m_bound,
                   v_value, v_bound, env);
}
