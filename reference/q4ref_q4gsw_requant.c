/* q4ref_q4gsw_requant.c: q4gsw_requant, fp32 master weights back to 4-bit codes (SPEC §2).
 *
 * fp32 path: fp32 division and nearbyintf (round to nearest even in the default
 * rounding mode), clamped; written straight into W_4X8 and/or flat, no scratch.
 * Truth path: the quotient in fp64, which decides every tie exactly (a quotient of
 * two 24-bit significands is either a tie or at least 2^-25 relative away from one),
 * and the neighbouring code that a conformant fp32 division may give (SPEC §3). */
#include <math.h>

#include "q4ref_internal.h"

/* After the shape check: buffers, then scale values and latent values (NaN is
 * outside the contract). */
static q4_status check_requant(const float *latent, const float *scales, int64_t N, int64_t K,
                               int64_t gs, const q4ref_buf *outs, int nout, q4_error *err)
{
    q4_status st;
    q4ref_buf in[] = {{latent, (size_t)(N * K) * sizeof(float), "latent", 0},
                      {scales, (size_t)q4_scales_count(N, K, gs) * sizeof(float), "scales", 0}};
    if ((st = q4ref_check_bufs(in, 2, outs, nout, err)) ||
        (st = q4_check_scales(scales, q4_scales_count(N, K, gs), err)))
        return st;
    for (int64_t i = 0; i < N * K; i++)
        if (isnan(latent[i]))
            return q4_fail(err, Q4_ERR_ARG,
                           "latent[%lld] = nan; expected a number (NaN is outside the contract)",
                           (long long)i);
    return Q4_OK;
}

static uint8_t code_f32(float latent, float s)
{
    if (s == 0)
        return 8;
    float q = nearbyintf(latent / s);
    return (uint8_t)(fminf(fmaxf(q, -8.0f), 7.0f) + 8.0f);
}

q4_status q4ref_requant(const float *latent, const float *scales, int64_t N, int64_t K,
                        int64_t gs, uint32_t *w4x8, uint8_t *flat, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_weight(N, K, gs, err)))
        return st;
    if (!w4x8 && !flat)
        return q4_fail(err, Q4_ERR_ARG, "w4x8 and flat are both NULL; expected at least one output");
    q4ref_buf out[] = {{w4x8, (size_t)q4_w4x8_words(N, K) * 4, "w4x8", 1},
                       {flat, (size_t)q4_flat_bytes(N, K), "flat", 1}};
    if ((st = check_requant(latent, scales, N, K, gs, out, 2, err)))
        return st;
    /* Padding words of odd-N4 blocks are never written below. */
    for (int64_t i = 0; w4x8 && i < q4_w4x8_words(N, K); i++)
        w4x8[i] = Q4_W4X8_PAD;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            uint32_t c = code_f32(latent[n * K + k], scales[(k / gs) * N + n]);
            if (w4x8) {
                uint32_t *word = &w4x8[q4_w4x8_word(N, n, k)];
                unsigned sh = q4_w4x8_shift(n, k);
                *word = (*word & ~(0xFu << sh)) | c << sh;
            }
            if (flat) {
                uint8_t *b = &flat[(n * K + k) / 2];
                *b = (k & 1) ? (uint8_t)(*b | c << 4) : (uint8_t)c;
            }
        }
    return Q4_OK;
}

/* clamp(roundEven(q), -8, 7) + 8; an infinite q clamps. */
static uint8_t code_f64(double q)
{
    return (uint8_t)(fmin(fmax(nearbyint(q), -8.0), 7.0) + 8.0);
}

/* One fp32 ULP at q: 2^(exponent - 23), or the denormal spacing below 2^-126. */
static double ulp32(double q)
{
    int e;
    frexp(q, &e);
    return ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
}

q4_status q4ref_requant_truth(const float *latent, const float *scales, int64_t N, int64_t K,
                              int64_t gs, uint8_t *code, uint8_t *alt, q4_error *err)
{
    q4_status st;
    if ((st = q4_check_weight(N, K, gs, err)))
        return st;
    q4ref_buf out[] = {{code, (size_t)(N * K), "code", 0}, {alt, (size_t)(N * K), "alt", 0}};
    if ((st = check_requant(latent, scales, N, K, gs, out, 2, err)))
        return st;
    const double window = q4ref_requant_window_ulps();
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            const int64_t i = n * K + k;
            const double s = scales[(k / gs) * N + n];
            if (s == 0) {
                code[i] = alt[i] = 8;
                continue;
            }
            const double q = (double)latent[i] / s;
            code[i] = alt[i] = code_f64(q);
            if (isinf(q))
                continue;
            const double w = window * ulp32(q);
            const uint8_t lo = code_f64(q - w), hi = code_f64(q + w);
            if (lo != code[i])
                alt[i] = lo;
            else if (hi != code[i])
                alt[i] = hi;
        }
    return Q4_OK;
}
