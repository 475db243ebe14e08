/* q4ref_format.c: the q4gsw weight format (SPEC §1): code <-> value, the flat
 * interchange layout (§1a), the W_4X8 layout the kernels read (§1b, through the
 * closed form q4_w4x8_word/q4_w4x8_shift), and dequantization from either layout. */
#include "q4ref_internal.h"

/* Pack/unpack have no groups; gs = 4 divides every K the contract allows, so this
 * checks exactly N and K with the contract's own messages. */
static q4_status check_nk(int64_t N, int64_t K, q4_error *err)
{
    return q4_check_weight(N, K, 4, err);
}

static q4_status check_codes(const uint8_t *codes, int64_t count, q4_error *err)
{
    for (int64_t i = 0; i < count; i++)
        if (codes[i] > 15)
            return q4_fail(err, Q4_ERR_ARG,
                           "codes[%lld] = %u is out of range: expected a 4-bit code 0..15",
                           (long long)i, codes[i]);
    return Q4_OK;
}

q4_status q4ref_pack_flat(const uint8_t *codes, int64_t N, int64_t K, uint8_t *flat,
                          q4_error *err)
{
    q4_status st;
    if ((st = check_nk(N, K, err)))
        return st;
    q4ref_buf in[] = {{codes, (size_t)(N * K), "codes", 0}};
    q4ref_buf out[] = {{flat, (size_t)q4_flat_bytes(N, K), "flat", 0}};
    if ((st = q4ref_check_bufs(in, 1, out, 1, err)) || (st = check_codes(codes, N * K, err)))
        return st;
    /* K is even (a multiple of 4): every byte holds two whole codes. */
    for (int64_t i = 0; i < N * K / 2; i++)
        flat[i] = (uint8_t)(codes[2 * i] | codes[2 * i + 1] << 4);
    return Q4_OK;
}

q4_status q4ref_unpack_flat(const uint8_t *flat, int64_t N, int64_t K, uint8_t *codes,
                            q4_error *err)
{
    q4_status st;
    if ((st = check_nk(N, K, err)))
        return st;
    q4ref_buf in[] = {{flat, (size_t)q4_flat_bytes(N, K), "flat", 0}};
    q4ref_buf out[] = {{codes, (size_t)(N * K), "codes", 0}};
    if ((st = q4ref_check_bufs(in, 1, out, 1, err)))
        return st;
    for (int64_t i = 0; i < N * K / 2; i++) {
        codes[2 * i] = flat[i] & 0xF;
        codes[2 * i + 1] = flat[i] >> 4;
    }
    return Q4_OK;
}

q4_status q4ref_pack_w4x8(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w, q4_error *err)
{
    q4_status st;
    if ((st = check_nk(N, K, err)))
        return st;
    int64_t words = q4_w4x8_words(N, K);
    q4ref_buf in[] = {{codes, (size_t)(N * K), "codes", 0}};
    q4ref_buf out[] = {{w, (size_t)words * 4, "w4x8", 0}};
    if ((st = q4ref_check_bufs(in, 1, out, 1, err)) || (st = check_codes(codes, N * K, err)))
        return st;
    /* Start from the padding word everywhere: the words of an odd-N4 block's missing
     * upper half are never written below and so stay exactly Q4_W4X8_PAD. */
    for (int64_t i = 0; i < words; i++)
        w[i] = Q4_W4X8_PAD;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            uint32_t *word = &w[q4_w4x8_word(N, n, k)];
            unsigned sh = q4_w4x8_shift(n, k);
            *word = (*word & ~(0xFu << sh)) | (uint32_t)codes[n * K + k] << sh;
        }
    return Q4_OK;
}

q4_status q4ref_unpack_w4x8(const uint32_t *w, int64_t N, int64_t K, uint8_t *codes,
                            q4_error *err)
{
    q4_status st;
    if ((st = check_nk(N, K, err)))
        return st;
    q4ref_buf in[] = {{w, (size_t)q4_w4x8_words(N, K) * 4, "w4x8", 0}};
    q4ref_buf out[] = {{codes, (size_t)(N * K), "codes", 0}};
    if ((st = q4ref_check_bufs(in, 1, out, 1, err)))
        return st;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            codes[n * K + k] = (w[q4_w4x8_word(N, n, k)] >> q4_w4x8_shift(n, k)) & 0xF;
    return Q4_OK;
}

/* The hot loop of the BLAS-backed ops: row n of W lives in one 32-bit component of
 * each block (fixed n8 and comp), one nibble per byte; a word gives 4 consecutive k. */
void q4ref_dequant_w4x8_unchecked(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                                  int64_t gs, float *wf)
{
    const int64_t stride = 4 * q4_n8(N);  /* words between consecutive k4 of one row */
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
    for (int64_t i = 0; i < N * K; i++)
        bound[i] = q4ref_bound_dequant(value[i]);
    return Q4_OK;
}
