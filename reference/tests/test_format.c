/* test_format.c: the q4gsw weight format (SPEC §1): code values, the flat layout, the
 * W_4X8 layout element by element (odd N4 and padding words included), and
 * dequantization from both layouts with its truth bound. */
#include <string.h>

#include "ref_test_util.h"

/* SPEC §1b written out again, independently of q4_w4x8_word/q4_w4x8_shift. */
static uint32_t spec_code(const uint32_t *buf, int64_t N, int64_t n, int64_t k)
{
    int64_t k4 = k >> 2, b = k & 3, n4 = n >> 2, ni = n & 3, n8 = n4 >> 1;
    int64_t N8 = (N / 4 + 1) / 2, comp = (n4 & 1) * 2 + (ni >> 1);
    uint32_t word = buf[4 * (k4 * N8 + n8) + comp];
    return (word >> (8 * b + 4 * (ni & 1))) & 0xF;
}

START_TEST(code_values)
{
    ck_assert_int_eq(q4ref_code_value(0), -8);
    ck_assert_int_eq(q4ref_code_value(8), 0);
    ck_assert_int_eq(q4ref_code_value(15), 7);
}
END_TEST

START_TEST(flat_known_answer)
{
    /* N = 4, K = 4, code(n, k) = 4n + k: byte (n, j) = code(n, 2j) | code(n, 2j+1) << 4. */
    uint8_t codes[16], flat[8], back[16];
    static const uint8_t want[8] = {
        0x10, 0x32,  /* n=0: 0|1<<4, 2|3<<4 */
        0x54, 0x76,  /* n=1: 4|5<<4, 6|7<<4 */
        0x98, 0xBA,  /* n=2: 8|9<<4, 10|11<<4 */
        0xDC, 0xFE,  /* n=3: 12|13<<4, 14|15<<4 */
    };
    q4_error err;
    for (int i = 0; i < 16; i++)
        codes[i] = (uint8_t)i;
    ck_assert_q4ok(q4ref_pack_flat(codes, 4, 4, flat, &err), err);
    ck_assert_mem_eq(flat, want, 8);
    ck_assert_q4ok(q4ref_unpack_flat(flat, 4, 4, back, &err), err);
    ck_assert_mem_eq(back, codes, 16);
}
END_TEST

START_TEST(w4x8_known_answer)
{
    /* N = 8, K = 4: one block, N8 = 1. code(n, k) = n: word comp holds rows 2comp
     * (low nibbles) and 2comp+1 (high nibbles), the same byte for every k. */
    uint8_t codes[32];
    uint32_t w[4];
    static const uint32_t want[4] = {0x10101010u, 0x32323232u, 0x54545454u, 0x76767676u};
    /* code(n, k) = k: byte b of every word is b | b << 4. */
    static const uint32_t want_k[4] = {0x33221100u, 0x33221100u, 0x33221100u, 0x33221100u};
    q4_error err;
    for (int n = 0; n < 8; n++)
        for (int k = 0; k < 4; k++)
            codes[n * 4 + k] = (uint8_t)n;
    ck_assert_q4ok(q4ref_pack_w4x8(codes, 8, 4, w, &err), err);
    ck_assert_mem_eq(w, want, sizeof want);
    for (int n = 0; n < 8; n++)
        for (int k = 0; k < 4; k++)
            codes[n * 4 + k] = (uint8_t)k;
    ck_assert_q4ok(q4ref_pack_w4x8(codes, 8, 4, w, &err), err);
    ck_assert_mem_eq(w, want_k, sizeof want_k);
}
END_TEST

START_TEST(w4x8_odd_n4_known_answer)
{
    /* N = 4, K = 4: N4 = 1 (odd), N8 = 1; comps 2 and 3 (n4 = 1) do not exist and are
     * padding: 0x88888888. code(n, k) = n: comp 0 rows 0|1, comp 1 rows 2|3. */
    uint8_t codes[16];
    uint32_t w[4];
    static const uint32_t want[4] = {0x10101010u, 0x32323232u, Q4_W4X8_PAD, Q4_W4X8_PAD};
    q4_error err;
    for (int n = 0; n < 4; n++)
        for (int k = 0; k < 4; k++)
            codes[n * 4 + k] = (uint8_t)n;
    ck_assert_q4ok(q4ref_pack_w4x8(codes, 4, 4, w, &err), err);
    ck_assert_mem_eq(w, want, sizeof want);
}
END_TEST

/* Shapes for the exhaustive checks: odd N4 (4, 12, 20, 36) and even, one and several
 * k4 blocks. */
static const int64_t shapes[][2] = {{4, 4}, {8, 8}, {12, 8}, {20, 12}, {16, 32}, {36, 20}, {24, 4}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

START_TEST(w4x8_every_element)
{
    rng r = {(uint64_t)_i + 1};
    const int64_t N = shapes[_i][0], K = shapes[_i][1], words = q4_w4x8_words(N, K);
    uint8_t *codes = xcalloc((size_t)(N * K), 1), *back = xcalloc((size_t)(N * K), 1);
    uint8_t *seen = xcalloc((size_t)words * 8, 1);  /* one flag per nibble */
    uint32_t *w = xcalloc((size_t)words, 4);
    q4_error err;
    ck_assert_int_eq(words, (K / 4) * ((N / 4 + 1) / 2) * 4);
    rand_codes(&r, codes, N * K);
    ck_assert_q4ok(q4ref_pack_w4x8(codes, N, K, w, &err), err);
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            int64_t wi = q4_w4x8_word(N, n, k), nib = wi * 8 + q4_w4x8_shift(n, k) / 4;
            ck_assert_uint_eq(spec_code(w, N, n, k), codes[n * K + k]);
            ck_assert_msg(!seen[nib], "(n %lld, k %lld) shares a nibble", (long long)n,
                          (long long)k);
            seen[nib] = 1;
        }
    /* Every nibble is an element's, or belongs to a padding word of an odd-N4 block. */
    for (int64_t wi = 0; wi < words; wi++) {
        int64_t used = 0;
        for (int j = 0; j < 8; j++)
            used += seen[wi * 8 + j];
        ck_assert(used == 0 || used == 8);
        if (used == 0) {
            ck_assert_msg(N % 8 != 0, "N = %lld has no padding words", (long long)N);
            ck_assert_int_ge(wi % 4, 2);                               /* upper half */
            ck_assert_int_eq((wi / 4) % ((N / 4 + 1) / 2), (N / 4) / 2);  /* last n8 */
            ck_assert_uint_eq(w[wi], Q4_W4X8_PAD);
        }
    }
    ck_assert_q4ok(q4ref_unpack_w4x8(w, N, K, back, &err), err);
    ck_assert_mem_eq(back, codes, (size_t)(N * K));
    free(codes);
    free(back);
    free(seen);
    free(w);
}
END_TEST

START_TEST(flat_round_trip)
{
    rng r = {(uint64_t)_i + 100};
    const int64_t N = shapes[_i][0], K = shapes[_i][1];
    uint8_t *codes = xcalloc((size_t)(N * K), 1), *back = xcalloc((size_t)(N * K), 1);
    uint8_t *flat = xcalloc((size_t)q4_flat_bytes(N, K), 1);
    q4_error err;
    rand_codes(&r, codes, N * K);
    ck_assert_q4ok(q4ref_pack_flat(codes, N, K, flat, &err), err);
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            ck_assert_uint_eq((flat[n * (K / 2) + k / 2] >> (4 * (k & 1))) & 0xF, codes[n * K + k]);
    ck_assert_q4ok(q4ref_unpack_flat(flat, N, K, back, &err), err);
    ck_assert_mem_eq(back, codes, (size_t)(N * K));
    free(codes);
    free(back);
    free(flat);
}
END_TEST

START_TEST(dequant_known_answer)
{
    /* N = 4, K = 8, gs = 4: two groups. Row n has code 15 (q = 7) at k even and 0
     * (q = -8) at k odd; scales[g][n] = 0.5 for g = 0 and -0.25 for g = 1:
     * k < 4: 7 * 0.5 = 3.5, -8 * 0.5 = -4; k >= 4: 7 * -0.25 = -1.75, -8 * -0.25 = 2. */
    uint8_t codes[32], flat[16];
    uint32_t w[8];
    float scales[8] = {0.5f, 0.5f, 0.5f, 0.5f, -0.25f, -0.25f, -0.25f, -0.25f};
    float wf[32], wf2[32];
    double v[32], b[32];
    static const float want_row[8] = {3.5f, -4, 3.5f, -4, -1.75f, 2, -1.75f, 2};
    q4_error err;
    for (int i = 0; i < 32; i++)
        codes[i] = (i % 2) ? 0 : 15;
    ck_assert_q4ok(q4ref_pack_w4x8(codes, 4, 8, w, &err), err);
    ck_assert_q4ok(q4ref_pack_flat(codes, 4, 8, flat, &err), err);
    ck_assert_q4ok(q4ref_dequant_w4x8(w, scales, 4, 8, 4, wf, &err), err);
    ck_assert_q4ok(q4ref_dequant_flat(flat, scales, 4, 8, 4, wf2, &err), err);
    ck_assert_q4ok(q4ref_dequant_truth(w, scales, 4, 8, 4, v, b, &err), err);
    for (int i = 0; i < 32; i++) {
        ck_assert_float_eq(wf[i], want_row[i % 8]);
        ck_assert_float_eq(wf2[i], want_row[i % 8]);
        ck_assert_double_eq(v[i], want_row[i % 8]);
        /* one rounding of the product: u |value|, plus a flushed denormal. */
        ck_assert_double_eq(b[i], Q4REF_U * fabs(v[i]) + Q4_FLT_MIN_NORMAL);
    }
}
END_TEST

START_TEST(dequant_random_layouts_agree)
{
    /* Every shape with one group per K (gs = K) and with gs = 4; zero scales included. */
    rng r = {(uint64_t)_i + 200};
    const int64_t N = shapes[_i][0], K = shapes[_i][1];
    for (int pass = 0; pass < 2; pass++) {
        const int64_t gs = pass ? 4 : K;
        uint8_t *codes = xcalloc((size_t)(N * K), 1), *flat = xcalloc((size_t)(N * K), 1);
        uint32_t *w = xcalloc((size_t)q4_w4x8_words(N, K), 4);
        float *s = xcalloc((size_t)q4_scales_count(N, K, gs), 4);
        float *a = xcalloc((size_t)(N * K), 4), *b = xcalloc((size_t)(N * K), 4);
        double *v = xcalloc((size_t)(N * K), 8), *bd = xcalloc((size_t)(N * K), 8);
        q4_error err;
        rand_codes(&r, codes, N * K);
        rand_scales(&r, s, q4_scales_count(N, K, gs), 0.1);
        ck_assert_q4ok(q4ref_pack_w4x8(codes, N, K, w, &err), err);
        ck_assert_q4ok(q4ref_pack_flat(codes, N, K, flat, &err), err);
        ck_assert_q4ok(q4ref_dequant_w4x8(w, s, N, K, gs, a, &err), err);
        ck_assert_q4ok(q4ref_dequant_flat(flat, s, N, K, gs, b, &err), err);
        ck_assert_q4ok(q4ref_dequant_truth(w, s, N, K, gs, v, bd, &err), err);
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                const int64_t i = n * K + k;
                float want = (float)(codes[i] - 8) * s[(k / gs) * N + n];
                ck_assert_float_eq(a[i], want);
                ck_assert_float_eq(b[i], want);
                ck_assert_double_eq(v[i], (double)(codes[i] - 8) * s[(k / gs) * N + n]);
            }
        check_within(a, v, bd, N * K, "dequant");
        free(codes);
        free(flat);
        free(w);
        free(s);
        free(a);
        free(b);
        free(v);
        free(bd);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref.format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, code_values);
    tcase_add_test(tc, flat_known_answer);
    tcase_add_test(tc, w4x8_known_answer);
    tcase_add_test(tc, w4x8_odd_n4_known_answer);
    tcase_add_loop_test(tc, w4x8_every_element, 0, NSHAPES);
    tcase_add_loop_test(tc, flat_round_trip, 0, NSHAPES);
    tcase_add_test(tc, dequant_known_answer);
    tcase_add_loop_test(tc, dequant_random_layouts_agree, 0, NSHAPES);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
