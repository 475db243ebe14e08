/* q4ref_linear_common.c: what the references of the three linears share (declared in
 * q4ref_linear_common.h): the shape, BLAS-range and buffer checks, the dequantized
 * scratch weight, the fp64 copies and the GEMM with its sum of absolute values, the
 * truth of the quantized forward and backward (one function, chosen by `fwd`), and
 * the shared weight roundings of a column (q4ref_linear_shared_var, q4ref.h).
 *
 * fp32 path: dequantize W once per call into a scratch [N, K] fp32 buffer (what a
 * kernel computes per element), then one GEMM (q4ref_sgemm: OpenBLAS on every core),
 * so the GEMM dominates.
 * Truth path: the same GEMM in fp64 (q4ref_dgemm) on the exactly dequantized weight,
 * plus one more dgemm over absolute values for the sum_i |a_i b_i| of each output,
 * which q4ref_bound_dot turns into the SPEC §3 bound. */
#include <math.h>
#include <stdlib.h>

#include "q4ref_linear_common.h"

q4_status q4ref_linear_check_blas(int64_t M, int64_t N, int64_t K, q4_error *err)
{
    q4_status st;
    if ((st = q4ref_check_blas_dim("M", M, err)) || (st = q4ref_check_blas_dim("N", N, err)))
        return st;
    return q4ref_check_blas_dim("K", K, err);
}

/* After the shape check, shared by forward and backward: BLAS range, buffers, scale
 * values. */
q4_status q4ref_linear_check_q4(const void *act, int64_t act_cols, const char *act_name,
                                 const uint32_t *w, const float *scales, const float *bias,
                                 int64_t M, int64_t N, int64_t K, int64_t gs,
                                 const q4ref_buf *outs, int nout, q4_error *err)
{
    q4_status st;
    q4ref_buf in[] = {
        {act, (size_t)(M * act_cols) * sizeof(float), act_name, 0},
        {w, (size_t)q4_w4x8_words(N, K) * 4, "w4x8", 0},
        {scales, (size_t)q4_scales_count(N, K, gs) * sizeof(float), "scales", 0},
        {bias, (size_t)N * sizeof(float), "bias", 1},
    };
    if ((st = q4ref_linear_check_blas(M, N, K, err)) || (st = q4ref_check_bufs(in, 4, outs, nout, err)))
        return st;
    return q4_check_scales(scales, q4_scales_count(N, K, gs), err);
}

float *q4ref_linear_dequant_scratch(const uint32_t *w, const float *scales, int64_t N,
                                    int64_t K, int64_t gs, q4_status *st, q4_error *err)
{
    float *wf = q4ref_alloc(N, K, sizeof(float), "the dequantized weight", st, err);
    if (wf)
        q4ref_dequant_w4x8_unchecked(w, scales, N, K, gs, wf);
    return wf;
}

double *q4ref_linear_to_f64(const float *a, int64_t rows, int64_t cols, const char *what,
                            q4_status *st, q4_error *err)
{
    double *d = q4ref_alloc(rows, cols, sizeof(double), what, st, err);
    if (d) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < rows * cols; i++)
            d[i] = a[i];
    }
    return d;
}

/* value = op(A) op(B) (m x n, inner k), then sum_abs = |op(A)| |op(B)|; A and B are
 * scratch and end up holding their absolute values. */
void q4ref_linear_gemm_with_abs(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m,
                                int64_t n, int64_t k, double *a, int64_t lda, int64_t a_count,
                                double *b, int64_t ldb, int64_t b_count, double *value,
                                double *sum_abs)
{
    q4ref_dgemm(ta, tb, m, n, k, a, lda, b, ldb, 0.0, value);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < a_count; i++)
        a[i] = fabs(a[i]);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < b_count; i++)
        b[i] = fabs(b[i]);
    q4ref_dgemm(ta, tb, m, n, k, a, lda, b, ldb, 0.0, sum_abs);
}

/* Forward (bias may be NULL) or backward, chosen by `fwd`; see q4ref.h. */
q4_status q4ref_linear_q4_truth(int fwd, const float *act, const uint32_t *w,
                                const float *scales, const float *bias, int64_t M, int64_t N,
                                int64_t K, int64_t gs, double *value, double *bound,
                                q4_error *err)
{
    const int64_t cols = fwd ? N : K, inner = fwd ? K : N;
    q4_status st;
    double *ad = NULL, *wd = NULL;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{value, (size_t)(M * cols) * sizeof(double), "value", 0},
                       {bound, (size_t)(M * cols) * sizeof(double), "bound", 0}};
    if ((st = q4ref_linear_check_q4(act, inner, fwd ? "x" : "dout", w, scales, bias, M, N, K, gs, out, 2,
                            err)) ||
        !(ad = q4ref_linear_to_f64(act, M, inner, fwd ? "x in fp64" : "dout in fp64", &st, err)) ||
        !(wd = q4ref_alloc(N, K, sizeof(double), "the weight in fp64", &st, err))) {
        free(ad);
        return st;
    }
    q4ref_dequant_w4x8_f64(w, scales, N, K, gs, wd);
    q4ref_linear_gemm_with_abs(CblasNoTrans, fwd ? CblasTrans : CblasNoTrans, M, cols, inner, ad, inner,
                  M * inner, wd, K, N * K, value, bound);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < cols; j++) {
            double *v = &value[i * cols + j], *b = &bound[i * cols + j];
            if (bias) {
                *v += bias[j];
                *b += fabs((double)bias[j]);
            }
            /* factors 3: x * ((c - 8) * s), two roundings per term; the bias is one
             * more term of the sum. */
            *b = q4ref_bound_dot(inner + (bias ? 1 : 0), 3, *b);
        }
    free(ad);
    free(wd);
    return Q4_OK;
}

/* ---------------- shared weight roundings (the envelope's column term) ---------------- */

/* coef[2][M x cols] from the truth: sgn(value) / unit and 1 / unit, 0 where the unit is
 * 0 or the truth is not finite (the judge leaves those elements out too). */
static void stat_coefs(const double *value, const double *bound, int64_t count, int64_t dot_n,
                       double *cv, double *c0)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++) {
        double alw, sd, c;
        q4ref_envelope_dot(dot_n, 3, bound[i], &alw, &sd);
        c = q4ref_stat_unit(alw, sd);
        c0[i] = c > 0 && isfinite(value[i]) ? 1 / c : 0;
        cv[i] = value[i] > 0 ? c0[i] : value[i] < 0 ? -c0[i] : 0;
    }
}

q4_status q4ref_linear_shared_var(int fwd, const float *act, const uint32_t *w,
                                  const float *scales, int64_t M, int64_t N, int64_t K,
                                  int64_t gs, const double *value, const double *bound,
                                  int64_t dot_n, double *var_v, double *var_0, q4_error *err)
{
    const int64_t cols = fwd ? N : K, inner = fwd ? K : N;
    const double u2 = Q4REF_U * Q4REF_U;
    q4_status st = Q4_OK;
    double *ad = NULL, *wd = NULL, *cv = NULL, *c0 = NULL, *tv = NULL, *t0 = NULL;
    if (!(ad = q4ref_linear_to_f64(act, M, inner, "the activation in fp64", &st, err)) ||
        !(wd = q4ref_alloc(N, K, sizeof(double), "the weight in fp64", &st, err)) ||
        !(cv = q4ref_alloc(M, cols, sizeof(double), "the statistic's weights", &st, err)) ||
        !(c0 = q4ref_alloc(M, cols, sizeof(double), "the statistic's weights", &st, err)) ||
        !(tv = q4ref_alloc(N, K, sizeof(double), "the shared sums", &st, err)) ||
        !(t0 = q4ref_alloc(N, K, sizeof(double), "the shared sums", &st, err)))
        goto done;
    q4ref_dequant_w4x8_f64(w, scales, N, K, gs, wd);
    stat_coefs(value, bound, M * cols, dot_n, cv, c0);
    /* T [N,K]: forward T = C^T x (C [M,N]); backward T = dout^T C (C [M,K]). The
     * rounding of w[n][k] moves column j's statistic by d w T[n][k]. */
    if (fwd) {
        q4ref_dgemm(CblasTrans, CblasNoTrans, N, K, M, cv, N, ad, K, 0.0, tv);
        q4ref_dgemm(CblasTrans, CblasNoTrans, N, K, M, c0, N, ad, K, 0.0, t0);
    } else {
        q4ref_dgemm(CblasTrans, CblasNoTrans, N, K, M, ad, N, cv, K, 0.0, tv);
        q4ref_dgemm(CblasTrans, CblasNoTrans, N, K, M, ad, N, c0, K, 0.0, t0);
    }
    for (int64_t j = 0; j < cols; j++)
        var_v[j] = var_0[j] = 0;
    /* Column j's sum runs over n, then k, in order, as one pass takes it; the columns
     * are shared out over the cores (forward: j = n, a row of [N,K] each; backward:
     * j = k, a run of 64 columns each, down every row). */
#pragma omp parallel for schedule(static)
    for (int64_t j0 = 0; j0 < cols; j0 += 64) {
        const int64_t j1 = j0 + 64 < cols ? j0 + 64 : cols;
        for (int64_t n = fwd ? j0 : 0; n < (fwd ? j1 : N); n++)
            for (int64_t k = fwd ? 0 : j0; k < (fwd ? K : j1); k++) {
                int64_t i = n * K + k, j = fwd ? n : k;
                var_v[j] += u2 * (wd[i] * tv[i]) * (wd[i] * tv[i]);
                var_0[j] += u2 * (wd[i] * t0[i]) * (wd[i] * t0[i]);
            }
    }
done:
    free(ad);
    free(wd);
    free(cv);
    free(c0);
    free(tv);
    free(t0);
    return st;
}
