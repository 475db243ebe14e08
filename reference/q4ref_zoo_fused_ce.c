/* q4ref_zoo_fused_ce.c: legal fp32 evaluations of fused CE (q4ref_zoo.h).
 *
 * Per valid row: the max, then S = sum exp(x_j - max) two-pass (sequential or
 * pairwise), online (one pass, S rescaled by exp(m_old - m_new) at each new running
 * max) or blocked (online per block of 256 values, the blocks merged as a workgroup
 * merges its invocations); lse = max + log S; p_j = e_j / S, e_j (1 / S) or
 * exp(x_j - lse); dlogits = (p - [j == l]) / n_valid or times 1 / n_valid; the loss
 * summed over rows in order. A planted bias scales every softmax value, carried out in
 * fp64, by (1 + bias) before its one rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "q4ref_internal.h"
#include "q4ref_zoo.h"

enum { BLOCK = 256 };

/* Online sum of exp(x_j - m) over n values: the running max in *m, the sum returned. */
static float online(const float *x, int64_t n, float *m)
{
    float mx = x[0], s = 1;   /* exp(x_0 - x_0) */
    for (int64_t j = 1; j < n; j++) {
        if (x[j] > mx) {
            s = s * expf(mx - x[j]) + 1;
            mx = x[j];
        } else {
            s += expf(x[j] - mx);
        }
    }
    *m = mx;
    return s;
}

/* S of one row (d holds scratch of V floats); *mx the row's max. */
static float row_sum(const q4ref_zoo_ce *z, const float *x, int64_t V, float *d, float *mx)
{
    float m = x[0], S = 0;
    if (z->sum == Q4REF_ZOO_CE_ONLINE)
        return online(x, V, mx);
    if (z->sum == Q4REF_ZOO_CE_BLOCKED) {
        int64_t blocks = (V + BLOCK - 1) / BLOCK;
        float *bm = d, *bs = d + blocks;   /* per block: max and sum (2 blocks <= V) */
        for (int64_t b = 0; b < blocks; b++) {
            int64_t lo = b * BLOCK, n = V - lo < BLOCK ? V - lo : BLOCK;
            bs[b] = online(x + lo, n, &bm[b]);
            m = fmaxf(m, bm[b]);
        }
        for (int64_t b = 0; b < blocks; b++)
            S += bs[b] * expf(bm[b] - m);
        *mx = m;
        return S;
    }
    for (int64_t j = 1; j < V; j++)
        m = fmaxf(m, x[j]);
    for (int64_t j = 0; j < V; j++)
        d[j] = expf(x[j] - m);
    if (z->sum == Q4REF_ZOO_CE_PAIRWISE) {
        S = q4ref_zoo_pairwise(d, V);
    } else {
        for (int64_t j = 0; j < V; j++)
            S += d[j];
    }
    *mx = m;
    return S;
}

static float scaled(const q4ref_zoo_ce *z, float a, float n_valid)
{
    return z->recip ? a * (1.0f / n_valid) : a / n_valid;
}

q4_status q4ref_zoo_fused_ce(const q4ref_zoo_ce *z, const float *logits, const int32_t *labels,
                             int64_t R, int64_t V, float n_valid, float *loss, float *dlogits,
                             q4_error *err)
{
    q4_status st = Q4_OK;
    float *row_loss = q4ref_alloc(R, 1, sizeof(float), "the per-row losses", &st, err);
    float total = 0;
    if (!row_loss)
        return st;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t r = 0; r < R; r++) {
        const float *x = logits + r * V;
        float *d = dlogits + r * V, mx, S, lse, rS;
        const int32_t l = labels[r];
        row_loss[r] = 0;
        if (l < 0) {
            memset(d, 0, (size_t)V * sizeof(float));
            continue;
        }
        S = row_sum(z, x, V, d, &mx);
        lse = mx + logf(S);
        rS = 1.0f / S;
        row_loss[r] = scaled(z, lse - x[l], n_valid);
        for (int64_t j = 0; j < V; j++) {
            float p;
            if (z->p_by_lse)
                p = z->bias != 0 ? (float)(exp((double)(x[j] - lse)) * (1 + z->bias))
                                 : expf(x[j] - lse);
            else if (z->bias != 0)
                p = (float)((double)expf(x[j] - mx) / (z->recip ? 1 / (double)rS : S) *
                            (1 + z->bias));
            else
                p = z->recip ? expf(x[j] - mx) * rS : expf(x[j] - mx) / S;
            d[j] = scaled(z, j == l ? p - 1.0f : p, n_valid);
        }
    }
    for (int64_t r = 0; r < R; r++)
        if (labels[r] >= 0)
            total += row_loss[r];
    *loss = total;
    free(row_loss);
    return Q4_OK;
}
