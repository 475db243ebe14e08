/* q4ref_linear.c: linear_q4gsw forward, backward (d_x) and linear_dW (SPEC §2).
 *
 * fp32 path: dequantize W once per call into a scratch [N, K] fp32 buffer (what a
 * kernel computes per element), then one GEMM (q4ref_sgemm: OpenBLAS on every core),
 * so the GEMM dominates.
 * Truth path: the same GEMM in fp64 (q4ref_dgemm) on the exactly dequantized weight,
 * plus one more dgemm over absolute values for the sum_i |a_i b_i| of each output,
 * which q4ref_bound_dot turns into the SPEC §3 bound. */
#include <math.h>
#include <stdlib.h>

#include "q4ref_internal.h"

static q4_status check_blas(int64_t M, int64_t N, int64_t K, q4_error *err)
{
    q4_status st;
    if ((st = q4ref_check_blas_dim("M", M, err)) || (st = q4ref_check_blas_dim("N", N, err)))
        return st;
    return q4ref_check_blas_dim("K", K, err);
}

/* After the shape check, shared by forward and backward: BLAS range, buffers, scale
 * values. */
static q4_status check_q4_gemm(const void *act, int64_t act_cols, const char *act_name,
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
    if ((st = check_blas(M, N, K, err)) || (st = q4ref_check_bufs(in, 4, outs, nout, err)))
        return st;
    return q4_check_scales(scales, q4_scales_count(N, K, gs), err);
}

static float *dequant_scratch(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                              int64_t gs, q4_status *st, q4_error *err)
{
    float *wf = q4ref_alloc(N, K, sizeof(float), "the dequantized weight", st, err);
    if (wf)
        q4ref_dequant_w4x8_unchecked(w, scales, N, K, gs, wf);
    return wf;
}

q4_status q4ref_linear_fwd(const float *x, const uint32_t *w, const float *scales,
                           const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                           float *y, q4_error *err)
{
    q4_status st;
    float *wf;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{y, (size_t)(M * N) * sizeof(float), "y", 0}};
    if ((st = check_q4_gemm(x, K, "x", w, scales, bias, M, N, K, gs, out, 1, err)) ||
        !(wf = dequant_scratch(w, scales, N, K, gs, &st, err)))
        return st;
    /* The bias enters as C with beta = 1: one more addition after the dot product. */
    if (bias)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                y[i * N + j] = bias[j];
    q4ref_sgemm(CblasNoTrans, CblasTrans, M, N, K, x, K, wf, K, bias ? 1.0f : 0.0f, y);
    free(wf);
    return Q4_OK;
}

q4_status q4ref_linear_bwd(const float *dout, const uint32_t *w, const float *scales,
                           int64_t M, int64_t N, int64_t K, int64_t gs, float *dx, q4_error *err)
{
    q4_status st;
    float *wf;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{dx, (size_t)(M * K) * sizeof(float), "dx", 0}};
    if ((st = check_q4_gemm(dout, N, "dout", w, scales, NULL, M, N, K, gs, out, 1, err)) ||
        !(wf = dequant_scratch(w, scales, N, K, gs, &st, err)))
        return st;
    q4ref_sgemm(CblasNoTrans, CblasNoTrans, M, K, N, dout, N, wf, K, 0.0f, dx);
    free(wf);
    return Q4_OK;
}

/* After q4_check_dw: the BLAS range, then buffers. */
static q4_status check_dw(const float *dout, const float *x, int64_t M, int64_t N, int64_t K,
                          const q4ref_buf *outs, int nout, q4_error *err)
{
    q4_status st;
    q4ref_buf in[] = {{dout, (size_t)(M * N) * sizeof(float), "dout", 0},
                      {x, (size_t)(M * K) * sizeof(float), "x", 0}};
    if ((st = check_blas(M, N, K, err)))
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

/* ---------------- truth ---------------- */

static double *to_f64(const float *a, int64_t rows, int64_t cols, const char *what,
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
static void gemm_with_abs(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                          int64_t k, double *a, int64_t lda, int64_t a_count, double *b,
                          int64_t ldb, int64_t b_count, double *value, double *sum_abs)
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
static q4_status q4_gemm_truth(int fwd, const float *act, const uint32_t *w, const float *scales,
                               const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                               double *value, double *bound, q4_error *err)
{
    const int64_t cols = fwd ? N : K, inner = fwd ? K : N;
    q4_status st;
    double *ad = NULL, *wd = NULL;
    if ((st = q4_check_linear(M, N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{value, (size_t)(M * cols) * sizeof(double), "value", 0},
                       {bound, (size_t)(M * cols) * sizeof(double), "bound", 0}};
    if ((st = check_q4_gemm(act, inner, fwd ? "x" : "dout", w, scales, bias, M, N, K, gs, out, 2,
                            err)) ||
        !(ad = to_f64(act, M, inner, fwd ? "x in fp64" : "dout in fp64", &st, err)) ||
        !(wd = q4ref_alloc(N, K, sizeof(double), "the weight in fp64", &st, err))) {
        free(ad);
        return st;
    }
    q4ref_dequant_w4x8_f64(w, scales, N, K, gs, wd);
    gemm_with_abs(CblasNoTrans, fwd ? CblasTrans : CblasNoTrans, M, cols, inner, ad, inner,
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

q4_status q4ref_linear_fwd_truth(const float *x, const uint32_t *w, const float *scales,
                                 const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                                 double *value, double *bound, q4_error *err)
{
    return q4_gemm_truth(1, x, w, scales, bias, M, N, K, gs, value, bound, err);
}

q4_status q4ref_linear_bwd_truth(const float *dout, const uint32_t *w, const float *scales,
                                 int64_t M, int64_t N, int64_t K, int64_t gs,
                                 double *value, double *bound, q4_error *err)
{
    return q4_gemm_truth(0, dout, w, scales, NULL, M, N, K, gs, value, bound, err);
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
        !(dd = to_f64(dout, M, N, "dout in fp64", &st, err)) ||
        !(xd = to_f64(x, M, K, "x in fp64", &st, err))) {
        free(dd);
        return st;
    }
    gemm_with_abs(CblasTrans, CblasNoTrans, N, K, M, dd, N, M * N, xd, K, M * K, value, bound);
    /* factors 2: dout * x, one rounding per term, M terms. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N * K; i++)
        bound[i] = q4ref_bound_dot(M, 2, bound[i]);
    free(dd);
    free(xd);
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
    if (!(ad = to_f64(act, M, inner, "the activation in fp64", &st, err)) ||
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
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            int64_t i = n * K + k, j = fwd ? n : k;
            var_v[j] += u2 * (wd[i] * tv[i]) * (wd[i] * tv[i]);
            var_0[j] += u2 * (wd[i] * t0[i]) * (wd[i] * t0[i]);
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
