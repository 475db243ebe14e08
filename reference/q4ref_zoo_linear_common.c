/* q4ref_zoo_linear_common.c: what the legal fp32 evaluations of the three linears
 * share (q4ref_zoo_linear_common.h; the evaluations themselves: q4ref_zoo_<op>.c).
 *
 * Every output is one dot product of fp32 terms, formed as a kernel would: the weight
 * dequantized first (rounded once, shared by every row), per term, or (forward) with
 * the scale hoisted out of each group; summed sequentially, with FMA, pairwise or in
 * 16 split-K parts. A planted bias scales the output's last operation, carried out
 * in fp64, by (1 + bias) before its one rounding: a kernel whose final scaling or sum
 * is biased, at any size of bias, even far below one ULP. */
#include <math.h>
#include <stdlib.h>

#include "q4ref_zoo_linear_common.h"

enum { SPLITS = 16 };

/* One rounding, with the planted bias applied to the exact result first. */
static float biased(double exact, double bias)
{
    return (float)(bias != 0 ? exact * (1 + bias) : exact);
}

/* Sum of n terms t in the given order (FMA sums like SEQ: its products were formed by
 * the caller); the last addition is exact in fp64 and rounded once through biased(). */
float q4ref_zoo_pairwise(const float *t, int64_t n)
{
    if (n == 1)
        return t[0];
    return q4ref_zoo_pairwise(t, n / 2) + q4ref_zoo_pairwise(t + n / 2, n - n / 2);
}

float q4ref_zoo_lin_reduce(const float *t, int64_t n, q4ref_zoo_order order, double bias)
{
    float s = 0;
    if (n == 0)
        return biased(0, bias);
    switch (order) {
    case Q4REF_ZOO_PAIRWISE:
        if (n == 1)
            return biased(t[0], bias);
        return biased((double)q4ref_zoo_pairwise(t, n / 2) + q4ref_zoo_pairwise(t + n / 2, n - n / 2),
                      bias);
    case Q4REF_ZOO_SPLITK: {
        float part[SPLITS] = { 0 };
        for (int64_t i = 0; i < n; i++)
            part[i * SPLITS / n] += t[i];
        for (int j = 0; j < SPLITS - 1; j++)
            s += part[j];
        return biased((double)s + part[SPLITS - 1], bias);
    }
    default:
        for (int64_t i = 0; i < n - 1; i++)
            s += t[i];
        return biased((double)s + t[n - 1], bias);
    }
}

/* sum_i a_i b_i with the products fused into the sum (s = fma(a, b, s)); the last
 * step exact in fp64 and rounded once. */
float q4ref_zoo_lin_fma_dot(const float *a, const float *b, int64_t n, double bias)
{
    float s = 0;
    for (int64_t i = 0; i < n - 1; i++)
        s = fmaf(a[i], b[i], s);
    return biased(n > 0 ? (double)a[n - 1] * b[n - 1] + s : 0, bias);
}

/* One output: sum over n terms of act[i] * w(i), where the weight of term i is code
 * q[i] (-8..7) times scale s[i]; `group` terms share a scale (hoisting only). */
float q4ref_zoo_lin_q4_dot(const q4ref_zoo_dot *z, const float *act, const float *q,
                           const float *s, const float *wf, int64_t n, int64_t group, float *t,
                           float *u)
{
    switch (z->weight) {
    case Q4REF_ZOO_DEQUANT_FIRST:
        if (z->order == Q4REF_ZOO_FMA)
            return q4ref_zoo_lin_fma_dot(act, wf, n, z->bias);
        for (int64_t i = 0; i < n; i++)
            t[i] = act[i] * wf[i];
        return q4ref_zoo_lin_reduce(t, n, z->order, z->bias);
    case Q4REF_ZOO_PER_TERM:
        for (int64_t i = 0; i < n; i++)
            t[i] = act[i] * q[i];
        if (z->order == Q4REF_ZOO_FMA)
            return q4ref_zoo_lin_fma_dot(t, s, n, z->bias);
        for (int64_t i = 0; i < n; i++)
            t[i] = t[i] * s[i];
        return q4ref_zoo_lin_reduce(t, n, z->order, z->bias);
    default: { /* hoisted: per group P = sum act q in order, then s P, summed in order */
        const int64_t groups = n / group;
        float *sc = u + groups;   /* the groups' scales */
        for (int64_t g = 0; g < groups; g++) {
            const float *a = act + g * group, *qq = q + g * group;
            if (z->order == Q4REF_ZOO_FMA) {
                u[g] = q4ref_zoo_lin_fma_dot(a, qq, group, 0);
            } else {
                for (int64_t i = 0; i < group; i++)
                    t[i] = a[i] * qq[i];
                u[g] = q4ref_zoo_lin_reduce(t, group, z->order, 0);
            }
            sc[g] = s[g * group];
        }
        if (z->order == Q4REF_ZOO_FMA)
            return q4ref_zoo_lin_fma_dot(u, sc, groups, z->bias);
        for (int64_t g = 0; g < groups; g++)
            u[g] = u[g] * sc[g];
        return q4ref_zoo_lin_reduce(u, groups, z->order, z->bias);
    }
    }
}

/* The weight as a kernel sees it (q4ref_zoo_weight_view): one rounding each. */
q4_status q4ref_zoo_lin_view(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                             int64_t gs, q4ref_zoo_weight_view *v, q4_error *err)
{
    q4_status st = Q4_OK;
    uint8_t *codes = q4ref_alloc(N, K, 1, "the codes", &st, err);
    v->q = codes ? q4ref_alloc(N, K, sizeof(float), "the codes as floats", &st, err) : NULL;
    v->s = v->q ? q4ref_alloc(N, K, sizeof(float), "the scale per weight", &st, err) : NULL;
    v->wf = v->s ? q4ref_alloc(N, K, sizeof(float), "the dequantized weight", &st, err) : NULL;
    if (v->wf && (st = q4ref_unpack_w4x8(w, N, K, codes, err)) == Q4_OK) {
#pragma omp parallel for schedule(static)
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                int64_t i = n * K + k;
                v->q[i] = (float)q4ref_code_value(codes[i]);
                v->s[i] = scales[(k / gs) * N + n];
                v->wf[i] = v->q[i] * v->s[i];
            }
    }
    free(codes);
    return st;
}

void q4ref_zoo_lin_free_view(q4ref_zoo_weight_view *v)
{
    free(v->q);
    free(v->s);
    free(v->wf);
}

/* Per-thread scratch of 4 len + 4 floats: terms, group sums and scales, gathered columns. */
float *q4ref_zoo_lin_scratch(int64_t len, q4_status *st, q4_error *err)
{
    return q4ref_alloc((int64_t)q4ref_threads(), 4 * len + 4, sizeof(float), "zoo scratch", st,
                       err);
}

