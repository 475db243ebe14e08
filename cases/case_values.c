/* case_values.c: the value makers the ops' input makers share: per-tensor streams,
 * uniform fixed-point values, scales of each mode, full-significand wide values,
 * allocation and freeing (q4_inputs_free), and the weight inputs (scales, codes,
 * W_4X8) of dequantize and the linear ops.
 *
 * Every value is made from integers and exact fp32 products (case_rng.c), so the
 * inputs are bit-identical on any IEEE machine (README.md "Generator"). */
#include <stdlib.h>
#include <string.h>

#include "case_free.h"
#include "case_values.h"

uint64_t q4_case_stream_seed(const q4_case *c, const char *tensor)
{
    char name[Q4_CASE_NAME_MAX];
    q4_case_format(c, name, sizeof name);
    return q4c_mix64(q4c_fnv1a64_str(name) ^ c->seed ^ q4c_fnv1a64_str(tensor));
}

q4c_rng q4c_stream(const q4_case *c, const char *tensor)
{
    q4c_rng g = {q4_case_stream_seed(c, tensor)};
    return g;
}

/* The fills below draw exactly one value per element, so element i's generator is the
 * stream advanced by i draws (splitmix64 is a counter: q4c_at): they run on every core
 * and give the same bits as one sequential pass, whatever the number of threads. */
void q4c_fill_sym(q4c_rng g, float *a, int64_t n, int64_t A, int e)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        q4c_rng gi = q4c_at(g, i);
        a[i] = q4c_exact(q4c_range(&gi, -A, A), -e);
    }
}

void q4c_fill_range(q4c_rng g, float *a, int64_t n, int64_t lo, int64_t hi, int e)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        q4c_rng gi = q4c_at(g, i);
        a[i] = q4c_exact(q4c_range(&gi, lo, hi), e);
    }
}

void q4c_fill_bits(q4c_rng g, float *a, int64_t n, int bits, int emin, int emax)
{
    /* (2^(bits-1) + m) * 2^(e - bits + 1): a significand of `bits` bits, leading bit set. */
    const uint64_t top = 1u << (bits - 1);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        q4c_rng gi = q4c_at(g, i);
        uint64_t r = q4c_next(&gi);
        int64_t sig = (int64_t)(top | (r & (top - 1)));
        int e = emin + (int)((r >> 24) % (uint64_t)(emax - emin + 1));
        a[i] = q4c_exact((r >> 40) & 1 ? -sig : sig, e - bits + 1);
    }
}

void q4c_pack_w4x8(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w)
{
    /* The words of the four k of one group of four (k / 4) are a run of their own
     * (q4_w4x8_word): each run is packed alone, on every core, into the same words
     * q4_w4x8_pack writes, padding included. K is a multiple of 4 (q4_check_weight). */
    const int64_t run = 4 * q4_n8(N);   /* q4_w4x8_words(N, K) = K / 4 runs */
#pragma omp parallel for schedule(static)
    for (int64_t k4 = 0; k4 < K / 4; k4++) {
        for (int64_t i = k4 * run; i < (k4 + 1) * run; i++)
            w[i] = Q4_W4X8_PAD;
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 4 * k4; k < 4 * k4 + 4; k++) {
                uint32_t *word = &w[q4_w4x8_word(N, n, k)];
                const unsigned sh = q4_w4x8_shift(n, k);
                *word = (*word & ~(0xFu << sh)) | (uint32_t)codes[n * K + k] << sh;
            }
    }
}

void q4c_fill_wide(q4c_rng g, float *a, int64_t n, int emin, int emax)
{
    q4c_fill_bits(g, a, n, 24, emin, emax);
}

/* A normal scale +-(1 + m/8) * 2^e, m in 0..7 (4 significant bits), e in [emin, emin+5]. */
static float scale_value(uint64_t r, int pow2_only, int emin)
{
    int64_t sign = (r & 1) ? -1 : 1;
    int64_t m = pow2_only ? 0 : (int64_t)((r >> 1) & 7);
    int e = emin + (int)((r >> 4) % 6);
    return q4c_exact(sign * (8 + m), e - 3);
}

void q4c_fill_scales(q4c_rng g, float *s, int64_t n, q4c_scale_mode mode)
{
    if (mode == Q4C_SCALES_WIDE || mode == Q4C_SCALES_TINY_WIDE || mode == Q4C_SCALES_HUGE) {
        q4c_fill_wide(g, s, n, mode == Q4C_SCALES_WIDE ? -40 : mode == Q4C_SCALES_HUGE ? 70 : -126,
                      mode == Q4C_SCALES_WIDE ? 20 : mode == Q4C_SCALES_HUGE ? 100 : -100);
        return;
    }
    /* One draw per scale, whatever the mode: on every core, as the fills above. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        q4c_rng gi = q4c_at(g, i);
        uint64_t r = q4c_next(&gi);
        int special = ((r >> 8) & 3) == 0;   /* one in four */
        if (mode == Q4C_SCALES_ALL_ZERO)
            s[i] = q4c_signed_zero((r >> 10) & 1);
        else if (mode == Q4C_SCALES_ZERO && (special || i < 2)) {
            /* Both zeros, and at least one of each: q = 0 must hold for -0 too. */
            int negative = i == 1 || (i > 1 && ((r >> 10) & 1));
            s[i] = q4c_signed_zero(negative);
        }
        else if (mode == Q4C_SCALES_TINY && (special || i == 0))
            s[i] = scale_value(r, 0, -126);   /* (1 + m/8) * 2^-126: normal, tiny */
        else
            s[i] = scale_value(r, mode == Q4C_SCALES_POW2, -8);
    }
}

void *q4c_alloc(int64_t count, size_t elem, const char *what, const q4_case *c, q4_status *st,
                q4_error *err)
{
    size_t bytes;
    void *p;
    if ((*st = q4_size_bytes(count, 1, 1, elem, what, &bytes, err)))
        return NULL;
    if (!(p = malloc(bytes ? bytes : 1)))
        *st = q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes for %s of case %s", bytes,
                      what, c->name);
    return p;
}

q4_status q4c_weight_check_scales(const q4_case *c, const q4_inputs *in, q4_error *err)
{
    return q4_check_scales(in->scales, q4_scales_count(c->n, c->k, c->gs), err);
}

q4_status q4c_make_weight(const q4_case *c, q4_inputs *in, q4c_scale_mode mode, q4_error *err)
{
    const int64_t N = c->n, K = c->k, ns = q4_scales_count(N, K, c->gs);
    q4_status st;
    Q4C_ALLOC(in, scales, ns, "scales");
    q4c_fill_scales(q4c_stream(c, "scales"), in->scales, ns, mode);
    q4c_rng g = q4c_stream(c, "codes");
    Q4C_ALLOC(in, codes, N * K, "codes");
    Q4C_ALLOC(in, w4x8, q4_w4x8_words(N, K), "W_4X8 weights");
    /* One draw per code: on every core, as the fills above. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N * K; i++) {
        q4c_rng gi = q4c_at(g, i);
        in->codes[i] = (uint8_t)(q4c_next(&gi) >> 60);
    }
    q4c_pack_w4x8(in->codes, N, K, in->w4x8);
    q4c_spoil_scales(c, in->scales, ns);
    return Q4_OK;
}

q4_status q4c_make_linear(const q4_case *c, q4_inputs *in, const char *tensor, float **act,
                          int64_t cols, q4_error *err)
{
    q4_status st = q4c_make_weight(c, in, q4c_scale_mode_of(c), err);
    if (st == Q4_OK && (*act = q4c_alloc(c->m * cols, sizeof **act, tensor, c, &st, err)))
        q4c_fill_act(c, tensor, *act, c->m * cols);
    return st;
}

void q4c_spoil_scales(const q4_case *c, float *s, int64_t n)
{
    uint32_t bits;
    if (q4c_values_is(c, "scale_denormal")) bits = 0x00400000u;       /* 2^-127 */
    else if (q4c_values_is(c, "scale_inf")) bits = 0xff800000u;       /* -Inf */
    else if (q4c_values_is(c, "scale_nan")) bits = 0x7fc00000u;
    else return;
    q4c_rng g = q4c_stream(c, "bad");
    s[q4c_below(&g, (uint64_t)n)] = q4c_from_bits(bits);
}

void q4c_fill_act(const q4_case *c, const char *tensor, float *a, int64_t n)
{
    if (q4c_values_is(c, "wide"))
        q4c_fill_wide(q4c_stream(c, tensor), a, n, -30, 30);
    else if (q4c_values_is(c, "tiny"))
        q4c_fill_wide(q4c_stream(c, tensor), a, n, -40, -20);
    else if (q4c_values_is(c, "deep"))
        q4c_fill_bits(q4c_stream(c, tensor), a, n, 8, -110, -101);
    else if (q4c_values_is(c, "outlier")) {
        q4c_rng g = q4c_stream(c, tensor);
        q4c_fill_wide(g, a, n, -8, 0);
        q4c_rng o = q4c_stream(c, "outliers");
        for (int64_t i = 0; i < n; i += 64) {
            int64_t at = i + (int64_t)q4c_below(&o, (uint64_t)(n - i < 64 ? n - i : 64));
            q4c_fill_wide(o, &a[at], 1, 20, 24);
            q4c_next(&o);
        }
    }
    else
        q4c_fill_sym(q4c_stream(c, tensor), a, n, 1 << 23, 23);
}

q4c_scale_mode q4c_scale_mode_of(const q4_case *c)
{
    if (q4c_values_is(c, "wide")) return Q4C_SCALES_WIDE;
    if (q4c_values_is(c, "tiny")) return Q4C_SCALES_TINY_WIDE;
    if (q4c_values_is(c, "deep")) return Q4C_SCALES_HUGE;
    if (q4c_values_is(c, "all_zero_scales")) return Q4C_SCALES_ALL_ZERO;
    return Q4C_SCALES_NORMAL;
}

void q4_inputs_free(q4_inputs *in)
{
    if (!in) return;
    q4_free_big(in->x); q4_free_big(in->dout); q4_free_big(in->bias);
    q4_free_big(in->scales); q4_free_big(in->latent); q4_free_big(in->logits);
    q4_free_big(in->param); q4_free_big(in->grad); q4_free_big(in->m); q4_free_big(in->v);
    q4_free_big(in->codes); q4_free_big(in->w4x8); q4_free_big(in->labels);
    memset(in, 0, sizeof *in);
}
