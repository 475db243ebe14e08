/* test_q4gsw_requant.c: q4gsw_requant: ties to even, zero scales, clamping, requant of a
 * dequantized weight giving the codes back, W_4X8 padding words in the output, and
 * the truth's alternative code near ties (SPEC §3 QualityWarning window). */
#include <string.h>

#include "ref_test_util.h"

/* N = 4, K = 4, gs = 4: one scale per row; returns the code at (n, k) for both paths
 * (truth code and fp32 path, which must agree for these power-of-two scales). */
static void requant_4x4(const float latent[16], const float scales[4], uint8_t code[16],
                        uint8_t alt[16])
{
    uint32_t w[4];
    uint8_t flat[8], fromw[16], fromflat[16];
    q4_error err;
    ck_assert_q4ok(q4ref_requant_truth(latent, scales, 4, 4, 4, code, alt, &err), err);
    ck_assert_q4ok(q4ref_requant(latent, scales, 4, 4, 4, w, flat, &err), err);
    ck_assert_q4ok(q4ref_unpack_w4x8(w, 4, 4, fromw, &err), err);
    ck_assert_q4ok(q4ref_unpack_flat(flat, 4, 4, fromflat, &err), err);
    ck_assert_mem_eq(fromw, code, 16);
    ck_assert_mem_eq(fromflat, code, 16);
    ck_assert_uint_eq(w[2], Q4_W4X8_PAD);  /* N4 = 1: the upper half is padding */
    ck_assert_uint_eq(w[3], Q4_W4X8_PAD);
}

START_TEST(ties_to_even)
{
    /* Rows scaled by 0.25, 1, 2, 0.5 (powers of two: the quotient is exact).
     * q = latent / s:  0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, -2.5 -> -2, 3.5 -> 4,
     * -3.5 -> -4, 6.5 -> 6; code = q + 8. round() away from zero would give
     * 1, 2, 3, -1, -3, 4, -4, 7. */
    static const double q[16] = {0.5, 1.5, 2.5, -0.5, -2.5, 3.5, -3.5, 6.5,
                                 -1.5, 4.5, -4.5, 5.5, -5.5, 0.5, -6.5, 2.5};
    static const uint8_t want[16] = {8, 10, 10, 8, 6, 12, 4, 14, 6, 12, 4, 14, 2, 8, 2, 10};
    const float scales[4] = {0.25f, 1, 2, 0.5f};
    float latent[16];
    uint8_t code[16], alt[16];
    for (int i = 0; i < 16; i++)
        latent[i] = (float)(q[i] * scales[i / 4]);
    requant_4x4(latent, scales, code, alt);
    ck_assert_mem_eq(code, want, 16);
    /* Exact ties: a division 2.5 ULP off may land on the other neighbour, the odd one:
     * 1, 1, 3, -1, -3, 3, -3, 7, -1, 5, -5, 5, -5, 1, -7, 3 (+ 8). */
    static const uint8_t want_alt[16] = {9, 9, 11, 7, 5, 11, 5, 15, 7, 13, 3, 13, 3, 9, 1, 11};
    ck_assert_mem_eq(alt, want_alt, 16);
}
END_TEST

START_TEST(zero_scales_and_clamps)
{
    /* Row 0: s = 0 -> code 8 whatever the latent (even infinite). Row 1: s = 1: 100 ->
     * 7 (15), -100 -> -8 (0), 7.5 -> roundEven 8 -> 7 (15), -8.5 -> -8 (0). Row 2: s = -1
     * flips the sign: 100 -> 0, -100 -> 15, +inf -> -inf -> 0, -inf -> 15. Row 3: s = 2^-126
     * (smallest normal): 1 -> 2^126 -> 15, -1e-38 -> about -0.85 -> -1 (7), 0 -> 8, -0 -> 8. */
    const float scales[4] = {0, 1, -1, 0x1p-126f};
    const float latent[16] = {5, -5, INFINITY, 0, 100, -100, 7.5f, -8.5f,
                              100, -100, INFINITY, -INFINITY, 1, -1e-38f, 0, -0.0f};
    static const uint8_t want[16] = {8, 8, 8, 8, 15, 0, 15, 0, 0, 15, 0, 15, 15, 7, 8, 8};
    uint8_t code[16], alt[16];
    requant_4x4(latent, scales, code, alt);
    ck_assert_mem_eq(code, want, 16);
    ck_assert_mem_eq(alt, want, 16);  /* clamp edges have no second neighbour */
}
END_TEST

/* (N, K, gs): odd N4 (12, 20) and not. */
static const int64_t shapes[][3] = {{12, 8, 4}, {20, 16, 8}, {16, 32, 32}, {8, 64, 16}};

START_TEST(dequant_then_requant_is_identity)
{
    /* Every code, non-power-of-two scales of both signs: (c-8)*s rounds once, and
     * dividing by s lands within a few ULP of the integer, far from any tie. */
    const int64_t N = shapes[_i][0], K = shapes[_i][1], gs = shapes[_i][2];
    const int64_t words = q4_w4x8_words(N, K);
    rng r = {(uint64_t)_i + 31};
    uint8_t *codes = xcalloc((size_t)(N * K), 1), *code = xcalloc((size_t)(N * K), 1);
    uint8_t *alt = xcalloc((size_t)(N * K), 1), *flat = xcalloc((size_t)(N * K), 1);
    uint8_t *flat2 = xcalloc((size_t)(N * K), 1);
    uint32_t *w = xcalloc((size_t)words, 4), *w2 = xcalloc((size_t)words, 4);
    float *s = xcalloc((size_t)q4_scales_count(N, K, gs), 4), *wf = xcalloc((size_t)(N * K), 4);
    q4_error err;
    for (int64_t i = 0; i < N * K; i++)
        codes[i] = (uint8_t)(i % 16);
    rand_scales(&r, s, q4_scales_count(N, K, gs), 0);
    ck_assert_q4ok(q4ref_pack_w4x8(codes, N, K, w, &err), err);
    ck_assert_q4ok(q4ref_pack_flat(codes, N, K, flat, &err), err);
    ck_assert_q4ok(q4ref_dequant_w4x8(w, s, N, K, gs, wf, &err), err);
    memset(w2, 0, (size_t)words * 4);
    ck_assert_q4ok(q4ref_requant(wf, s, N, K, gs, w2, flat2, &err), err);
    ck_assert_mem_eq(w2, w, (size_t)words * 4);  /* padding words included */
    ck_assert_mem_eq(flat2, flat, (size_t)q4_flat_bytes(N, K));
    ck_assert_q4ok(q4ref_requant_truth(wf, s, N, K, gs, code, alt, &err), err);
    ck_assert_mem_eq(code, codes, (size_t)(N * K));
    ck_assert_mem_eq(alt, codes, (size_t)(N * K));
    /* One output alone is fine too. */
    ck_assert_q4ok(q4ref_requant(wf, s, N, K, gs, NULL, flat2, &err), err);
    ck_assert_mem_eq(flat2, flat, (size_t)q4_flat_bytes(N, K));
    ck_assert_q4ok(q4ref_requant(wf, s, N, K, gs, w2, NULL, &err), err);
    ck_assert_mem_eq(w2, w, (size_t)words * 4);
    free(codes);
    free(code);
    free(alt);
    free(flat);
    free(flat2);
    free(w);
    free(w2);
    free(s);
    free(wf);
}
END_TEST

START_TEST(alternative_near_ties)
{
    /* s = 3 (not a power of two). latent 7.5 -> q = 2.5 exactly: code 10, alt 11.
     * latent = next float above 7.5 (7.5 + 2^-21) -> q = 2.5 + 2^-21/3, within 3 ULP
     * (3 * 2^-22) of the tie: code 11, alt 10. latent 7.53 -> q = 2.51: no alternative.
     * latent -1.5 -> q = -0.5: code 8, alt 7. */
    const float scales[4] = {3, 3, 3, 3};
    float latent[16];
    uint8_t code[16], alt[16];
    q4_error err;
    for (int i = 0; i < 16; i++)
        latent[i] = 0;
    latent[0] = 7.5f;
    latent[1] = nextafterf(7.5f, 8);
    latent[2] = 7.53f;
    latent[3] = -1.5f;
    ck_assert_q4ok(q4ref_requant_truth(latent, scales, 4, 4, 4, code, alt, &err), err);
    ck_assert_uint_eq(code[0], 10);
    ck_assert_uint_eq(alt[0], 11);
    ck_assert_uint_eq(code[1], 11);
    ck_assert_uint_eq(alt[1], 10);
    ck_assert_uint_eq(code[2], 11);
    ck_assert_uint_eq(alt[2], 11);
    ck_assert_uint_eq(code[3], 8);
    ck_assert_uint_eq(alt[3], 7);
}
END_TEST

START_TEST(random_fp32_is_code_or_alt)
{
    /* Random latents over the whole code range: the fp32 path gives the truth code or
     * its alternative; with power-of-two scales exactly the code. */
    enum { N = 20, K = 64, GS = 16 };
    rng r = {1234};
    float latent[N * K], s[(K / GS) * N], s2[(K / GS) * N];
    uint8_t code[N * K], alt[N * K], got[N * K];
    uint32_t w[(K / 4) * 3 * 4];
    int64_t ties = 0;
    q4_error err;
    rand_scales(&r, s, (K / GS) * N, 0.05);
    for (int i = 0; i < (K / GS) * N; i++)
        s2[i] = s[i] == 0 ? 0 : (float)ldexp(1, (int)rng_int(&r, -8, 2));
    for (int pass = 0; pass < 2; pass++) {
        const float *sc = pass ? s2 : s;
        for (int n = 0; n < N; n++)
            for (int k = 0; k < K; k++) {
                /* half the latents are exact ties q + 0.5 (for the power-of-two pass) */
                double q = rng_unit(&r) < 0.5 ? (double)rng_int(&r, -10, 9) + 0.5
                                              : 20 * rng_unit(&r) - 10;
                latent[n * K + k] = (float)(q * sc[(k / GS) * N + n]);
            }
        ck_assert_q4ok(q4ref_requant_truth(latent, sc, N, K, GS, code, alt, &err), err);
        ck_assert_q4ok(q4ref_requant(latent, sc, N, K, GS, w, NULL, &err), err);
        ck_assert_q4ok(q4ref_unpack_w4x8(w, N, K, got, &err), err);
        for (int i = 0; i < N * K; i++) {
            ck_assert(got[i] == code[i] || got[i] == alt[i]);
            if (pass)
                ck_assert_uint_eq(got[i], code[i]);
            ties += alt[i] != code[i];
        }
        for (int i = 0; i < (K / 4) * 3 * 4; i++)  /* N = 20: odd N4, last n8's upper half */
            if (i % 12 >= 10)
                ck_assert_uint_eq(w[i], Q4_W4X8_PAD);
    }
    ck_assert_int_gt(ties, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.q4gsw_requant");
    TCase *tc = tcase_create("requant");
    tcase_add_test(tc, ties_to_even);
    tcase_add_test(tc, zero_scales_and_clamps);
    tcase_add_loop_test(tc, dequant_then_requant_is_identity, 0, 4);
    tcase_add_test(tc, alternative_near_ties);
    tcase_add_test(tc, random_fp32_is_code_or_alt);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
