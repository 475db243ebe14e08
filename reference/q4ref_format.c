/* q4ref_format.c: the q4gsw weight format (SPEC §1): code <-> value, the flat
 * interchange layout (§1a) and the W_4X8 layout the kernels read (§1b, through the
 * closed form q4_w4x8_word/q4_w4x8_shift). Dequantization is q4ref_dequantize.c. */
#include "q4ref_internal.h"

/* The three layouts a converter reads or writes: one code per byte, the flat
 * interchange layout, and W_4X8 words. */
typedef enum layout { CODES, FLAT, W4X8 } layout;

static size_t layout_bytes(layout l, int64_t N, int64_t K)
{
    return l == CODES ? (size_t)(N * K)
           : l == FLAT ? (size_t)q4_flat_bytes(N, K)
                       : (size_t)q4_w4x8_words(N, K) * 4;
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

/* What every converter checks, in this order: N and K (pack/unpack have no groups;
 * gs = 4 divides every K the contract allows, so this checks exactly N and K with the
 * contract's own messages), then both buffers, then that codes read in are 4-bit. */
static q4_status check_convert(const void *src, layout from, void *dst, layout to, int64_t N,
                               int64_t K, q4_error *err)
{
    static const char *const names[] = { "codes", "flat", "w4x8" };
    q4_status st;
    if ((st = q4_check_weight(N, K, 4, err)))
        return st;
    q4ref_buf in[] = {{src, layout_bytes(from, N, K), names[from], 0}};
    q4ref_buf out[] = {{dst, layout_bytes(to, N, K), names[to], 0}};
    if ((st = q4ref_check_bufs(in, 1, out, 1, err)))
        return st;
    return from == CODES ? check_codes(src, N * K, err) : Q4_OK;
}

q4_status q4ref_pack_flat(const uint8_t *codes, int64_t N, int64_t K, uint8_t *flat,
                          q4_error *err)
{
    q4_status st = check_convert(codes, CODES, flat, FLAT, N, K, err);
    if (st)
        return st;
    /* K is even (a multiple of 4): every byte holds two whole codes. */
    for (int64_t i = 0; i < N * K / 2; i++)
        flat[i] = (uint8_t)(codes[2 * i] | codes[2 * i + 1] << 4);
    return Q4_OK;
}

q4_status q4ref_unpack_flat(const uint8_t *flat, int64_t N, int64_t K, uint8_t *codes,
                            q4_error *err)
{
    q4_status st = check_convert(flat, FLAT, codes, CODES, N, K, err);
    if (st)
        return st;
    for (int64_t i = 0; i < N * K / 2; i++) {
        codes[2 * i] = flat[i] & 0xF;
        codes[2 * i + 1] = flat[i] >> 4;
    }
    return Q4_OK;
}

q4_status q4ref_pack_w4x8(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w, q4_error *err)
{
    q4_status st = check_convert(codes, CODES, w, W4X8, N, K, err);
    if (st)
        return st;
    q4_w4x8_pack(codes, N, K, w);
    return Q4_OK;
}

q4_status q4ref_unpack_w4x8(const uint32_t *w, int64_t N, int64_t K, uint8_t *codes,
                            q4_error *err)
{
    q4_status st = check_convert(w, W4X8, codes, CODES, N, K, err);
    if (st)
        return st;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            codes[n * K + k] = (w[q4_w4x8_word(N, n, k)] >> q4_w4x8_shift(n, k)) & 0xF;
    return Q4_OK;
}
