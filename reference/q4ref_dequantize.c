/* q4ref_dequantize.c: the dequantize op (SPEC §1, §2): Wf = (code - 8) * scale from
 * either layout, in fp32 (what a kernel computes per element) and in fp64 with the
 * one-rounding bound; the fp32 and fp64 unpackers are shared with the linear ops. */
#include "q4ref_internal.h"

/* The hot loop of the BLAS-backed ops: row n of W lives in one 32-bit component of
 * each block (fixed n8 and comp), one nibble per byte; a word gives 4 consecutive k. */
void q4ref_dequant_w4x8_unchecked(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                                  int64_t gs, float *wf)
{
    const int64_t stride = 4 * q4_n8(N);  /* words between consecutive k4 of one row */
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < N; n++) {
        const uint32_t *col = w + q4_w4x8_word(N, n, 0);
        const unsigned sh = q4_w4x8_shift(n, 0);
        float *row = wf + n * K;
        for (int64_t g = 0; g < K / gs; g++) {
            const float s = scales[g * N + n];
            for (int64_t k = g * gs; k < (g + 1) * gs; k += 4) {
                uint32_t word = col[(k >> 2) * stride] >> sh;
                row[k + 0] = (float)((int)(word & 0xF) - 8) * s;
                row[k + 1] = (float)((int)((word >> 8) & 0xF) - 8) * s;
                row[k + 2] = (float)((int)((word >> 16) & 0xF) - 8) * s;
                row[k + 3] = (float)((int)((word >> 24) & 0xF) - 8) * s;
            }
        }
    }
}

void q4ref_dequant_w4x8_f64(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                            int64_t gs, double *wd)
{
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            unsigned c = (w[q4_w4x8_word(N, n, k)] >> q4_w4x8_shift(n, k)) & 0xF;
            wd[n * K + k] = (double)q4ref_code_value(c) * (double)scales[(k / gs) * N + n];
        }
}

/* After the shape check: buffers (w or flat in, scales in, one or two outputs), then
 * scale values. */
static q4_status check_dequant(const void *wq, size_t wq_bytes, const char *wq_name,
                               const float *scales, int64_t N, int64_t K, int64_t gs,
                               const q4ref_buf *outs, int nout, q4_error *err)
{
    q4_status st;
    q4ref_buf in[] = {{wq, wq_bytes, wq_name, 0},
                      {scales, (size_t)q4_scales_count(N, K, gs) * sizeof(float), "scales", 0}};
    if ((st = q4ref_check_bufs(in, 2, outs, nout, err)))
        return st;
    return q4_check_scales(scales, q4_scales_count(N, K, gs), err);
}

q4_status q4ref_dequant_w4x8(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                             int64_t gs, float *wf, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_weight(N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{wf, (size_t)(N * K) * sizeof(float), "wf", 0}};
    if ((st = check_dequant(w, (size_t)q4_w4x8_words(N, K) * 4, "w4x8", scales, N, K, gs, out, 1,
                            err)))
        return st;
    q4ref_dequant_w4x8_unchecked(w, scales, N, K, gs, wf);
    return Q4_OK;
}

q4_status q4ref_dequant_flat(const uint8_t *flat, const float *scales, int64_t N, int64_t K,
                             int64_t gs, float *wf, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_weight(N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{wf, (size_t)(N * K) * sizeof(float), "wf", 0}};
    if ((st = check_dequant(flat, (size_t)q4_flat_bytes(N, K), "flat", scales, N, K, gs, out, 1,
                            err)))
        return st;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            unsigned c = (flat[(n * K + k) / 2] >> (4 * (k & 1))) & 0xF;
            wf[n * K + k] = (float)q4ref_code_value(c) * scales[(k / gs) * N + n];
        }
    return Q4_OK;
}

q4_status q4ref_dequant_truth(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                              int64_t gs, double *value, double *bound, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_weight(N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{value, (size_t)(N * K) * sizeof(double), "value", 0},
                       {bound, (size_t)(N * K) * sizeof(double), "bound", 0}};
    if ((st = check_dequant(w, (size_t)q4_w4x8_words(N, K) * 4, "w4x8", scales, N, K, gs, out, 2,
                            err)))
        return st;
    q4ref_dequant_w4x8_f64(w, scales, N, K, gs, value);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N * K; i++)
        bound[i] = q4ref_bound_dequant(value[i]);
    return Q4_OK;
}
