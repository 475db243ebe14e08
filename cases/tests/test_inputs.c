/* test_inputs.c: the seeded generator: determinism (two calls, pinned golden hashes
 * that any machine must reproduce), seed sensitivity, the value ranges README.md
 * promises, in-contract inputs for every generated case, W_4X8 packing, masked rows,
 * AdamW hyper-parameters, and the special values of the requant families. */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_free.h"
#include "q4case.h"

static q4_case parse(const char *name, uint64_t seed)
{
    q4_case c;
    q4_error err = {0};
    ck_assert_msg(q4_case_parse(name, seed, &c, &err) == Q4_OK, "%s", err.msg);
    return c;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Finite and zero or normal: the generator never emits NaN, Inf or a denormal. */
static int clean(float f)
{
    uint32_t e = (bits(f) >> 23) & 0xff;
    return e != 0xff && (e != 0 || (bits(f) & 0x7fffff) == 0);
}

/* The documented ranges hold for the default value class; other classes check
 * finite-normal only (their own tests check their values). */
static int ranged = 1;

static void check_clean(const float *a, int64_t n, float lo, float hi, const char *what)
{
    /* Plain ifs: Check's assertions cost a pipe write each, too slow per element. */
    for (int64_t i = 0; a && i < n; i++) {
        if (!clean(a[i]))
            ck_abort_msg("%s[%lld] = %g is not finite-normal", what, (long long)i, a[i]);
        if (ranged && !(a[i] >= lo && a[i] < hi))
            ck_abort_msg("%s[%lld] = %g outside [%g, %g)", what, (long long)i, a[i], lo, hi);
    }
}

/* The codes back out of W_4X8 by the closed form, and the padding words are 0x88888888. */
static void check_w4x8(const q4_case *c, const q4_inputs *in)
{
    int64_t words = q4_w4x8_words(c->n, c->k);
    unsigned char *used = calloc((size_t)words, 1);
    for (int64_t n = 0; n < c->n; n++)
        for (int64_t k = 0; k < c->k; k++) {
            int64_t w = q4_w4x8_word(c->n, n, k);
            if (((in->w4x8[w] >> q4_w4x8_shift(n, k)) & 0xF) != in->codes[n * c->k + k])
                ck_abort_msg("%s: W_4X8 element (%lld, %lld) differs from its code", c->name,
                             (long long)n, (long long)k);
            used[w] = 1;
        }
    for (int64_t w = 0; w < words; w++)
        if (!used[w] && in->w4x8[w] != Q4_W4X8_PAD)
            ck_abort_msg("%s: padding word %lld is 0x%08x", c->name, (long long)w, in->w4x8[w]);
    /* odd N4 has padding words, even N4 none */
    int64_t unused = 0;
    for (int64_t w = 0; w < words; w++) unused += !used[w];
    ck_assert_int_eq(unused, (c->n / 4) % 2 ? 2 * (c->k / 4) : 0);
    free(used);
}

/* A training case's inputs (docs/training.md): T batches of x in [-1, 1), labels in
 * range and not all one class (the teacher separates them), each layer's latent about
 * 1/sqrt(K) with power-of-two scales that leave every start code unclamped. */
static void check_train(const q4_case *c, const q4_inputs *in)
{
    int64_t w[5], at = 0, sat = 0;
    q4_error err = {0};
    const int L = q4_case_train_widths(c, w);
    ck_assert_int_eq(L, c->layers);
    ck_assert_int_eq(w[0], c->k);
    ck_assert_int_eq(w[L], c->v);
    check_clean(in->x, c->step * c->m * c->k, -1, 1, "x");
    ck_assert_int_eq(q4_check_labels(in->labels, c->step * c->m, c->v, &err), Q4_OK);
    int classes = 0, *seen = calloc((size_t)c->v, sizeof *seen);
    for (int64_t r = 0; r < c->step * c->m; r++) classes += !seen[in->labels[r]]++;
    free(seen);
    ck_assert_msg(classes >= 2, "%s: every label is one class", c->name);
    for (int l = 0; l < L; l++) {
        const int64_t N = w[l + 1], K = w[l];
        for (int64_t g = 0; g < K / c->gs; g++)
            for (int64_t n = 0; n < N; n++) {
                float s = in->scales[sat + g * N + n];
                int e;
                ck_assert_msg(frexpf(s, &e) == 0.5f, "%s: scale %g is no power of two", c->name, s);
                for (int64_t k = g * c->gs; k < (g + 1) * c->gs; k++)
                    ck_assert(fabsf(in->latent[at + n * K + k]) <= 7 * s);
            }
        check_clean(in->latent + at, N * K, -1, 1, "latent");
        at += N * K;
        sat += (K / c->gs) * N;
    }
    ck_assert(in->lr == (float)c->lr * 1e-4f);
    ck_assert(in->n_valid == (float)c->m);
}

/* Every generated case: inputs in contract and in the documented ranges. */
START_TEST(all_generated_inputs_in_contract)
{
    q4_case *all;
    size_t n;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    for (size_t i = 0; i < n; i++) {
        const q4_case *c = &all[i];
        q4_inputs in;
        ck_assert_msg(q4_case_inputs(c, &in, &err) == Q4_OK, "%s: %s", c->name, err.msg);
        ranged = c->values[0] == 0;
        if (q4_case_is_train(c)) {   /* a model's data, not one op's inputs */
            check_train(c, &in);
            q4_inputs_free(&in);
            continue;
        }
        check_clean(in.x, c->m * c->k, -1, 1, "x");
        check_clean(in.dout, c->m * c->n, -1, 1, "dout");
        check_clean(in.bias, c->n, -1, 1, "bias");
        if (in.scales) {
            int64_t ns = q4_scales_count(c->n, c->k, c->gs);
            ck_assert_int_eq(q4_check_scales(in.scales, ns, &err), Q4_OK);
            check_clean(in.scales, ns, -1, 1, "scales");
        }
        if (in.codes) {
            int seen[16] = {0}, kinds = 0;
            for (int64_t j = 0; j < c->n * c->k; j++) {
                if (in.codes[j] > 15) ck_abort_msg("%s: code %u", c->name, in.codes[j]);
                seen[in.codes[j]] = 1;
            }
            for (int j = 0; j < 16; j++) kinds += seen[j];
            if (c->n * c->k >= 1024) ck_assert_int_eq(kinds, 16);   /* uniform over 0..15 */
            check_w4x8(c, &in);
        }
        check_clean(in.latent, c->n * c->k, -3e38f, 3e38f, "latent");
        check_clean(in.logits, c->r * c->v, -10, 10, "logits");
        if (in.labels) {
            int64_t masked = 0;
            ck_assert_int_eq(q4_check_labels(in.labels, c->r, c->v, &err), Q4_OK);
            for (int64_t r = 0; r < c->r; r++) {
                if (ranged && in.labels[r] < 0 && in.labels[r] != Q4_CASE_IGNORE_INDEX)
                    ck_abort_msg("%s: label %d", c->name, in.labels[r]);
                masked += in.labels[r] < 0;
            }
            ck_assert_int_eq(masked, (c->r * c->mask_pct + 50) / 100);
            ck_assert(in.n_valid == (float)(masked == c->r ? 1 : c->r - masked));
        }
        check_clean(in.param, c->numel, -1, 1, "param");
        check_clean(in.grad, c->numel, -0.1f, 0.1f, "grad");
        check_clean(in.m, c->numel, -0.01f, 0.01f, "m");
        check_clean(in.v, c->numel, 0, 1e-4f, "v");
        if (in.param)
            ck_assert_int_eq(q4_check_adamw(c->numel, in.lr, in.beta1, in.beta2, in.eps, in.wd,
                                            in.bc1, in.bc2, &err), Q4_OK);
        q4_inputs_free(&in);
        q4_inputs_free(&in);   /* twice is safe */
    }
    free(all);
}
END_TEST

/* Which buffers each op gets (the rest stay NULL). */
START_TEST(buffers_per_op)
{
    q4_inputs in;
    q4_error err = {0};
    q4_case c = parse("q4cts.linear_q4gsw.bias.m5_n12_k64_g32_b1", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.x && in.bias && in.scales && in.codes && in.w4x8);
    ck_assert(!in.dout && !in.latent && !in.logits && !in.param && !in.labels);
    q4_inputs_free(&in);
    ck_assert_ptr_null(in.x);
    c = parse("q4cts.linear_q4gsw.tile_aligned.m8_n16_k32_g32", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.x && !in.bias);
    q4_inputs_free(&in);
    c = parse("q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.dout && in.scales && in.w4x8 && in.codes && !in.x && !in.bias);
    q4_inputs_free(&in);
    c = parse("q4cts.linear_dW.partial_m.m5_n16_k32", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.dout && in.x && !in.scales && !in.w4x8);
    q4_inputs_free(&in);
    c = parse("q4cts.q4gsw_requant.ties.n16_k64_g16", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.latent && in.scales && !in.codes && !in.w4x8);   /* codes are its output */
    q4_inputs_free(&in);
    c = parse("q4cts.dequantize.odd_n4.n12_k32_g32", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.w4x8 && in.scales && in.codes && !in.latent && !in.x);
    q4_inputs_free(&in);
}
END_TEST

static uint64_t inputs_hash(const char *name, uint64_t seed)
{
    q4_case c = parse(name, seed);
    q4_inputs in;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    uint64_t h = q4_inputs_hash(&c, &in);
    q4_inputs_free(&in);
    return h;
}

/* Pinned on x86-64; every IEEE machine must give the same values. A change here
 * means the generator changed: every recorded run's inputs changed with it. */
static const struct { const char *name; uint64_t seed, hash; } golden[] = {
    {"q4cts.linear_q4gsw.bias.m5_n12_k64_g32_b1", 0, 0xf5a773d163ad3312ull},
    {"q4cts.linear_q4gsw_backward.odd_n4_partial_m.m5_n12_k16_g16", 0, 0xa57de2f648c1bed0ull},
    {"q4cts.linear_dW.leading_dims.d2x3_n16_k32", 0, 0xdb3876960f151133ull},
    {"q4cts.dequantize.odd_n4.n12_k32_g32", 0, 0x2a360d0d3c1483c5ull},
    {"q4cts.q4gsw_requant.zero_scales.n12_k32_g32", 0, 0xd2f3e3c0788726bbull},
    {"q4cts.q4gsw_requant.ties.n16_k64_g16", 0, 0x1ce0992e8fd29bd2ull},
    {"q4cts.q4gsw_requant.clamp_edges.n16_k64_g16", 0, 0x29269cb4a3c56fd2ull},
    {"q4cts.fused_ce.masked.r8_v256_p25", 0, 0x8e21adfd2548df7full},
    {"q4cts.adamw_step.late_step.n1024_t10000_w1", 0, 0xe0b464682c0caa93ull},
    {"q4cts.adamw_step.wd_on.n1024_t1_w1", 12345, 0x03a3c7cd0672e48dull},
    /* the makers that run on every core: their values are those of one pass */
    {"q4cts.dequantize.custom.n44_k96_g8", 0, 0x49a1dc5f3f234d61ull},
    {"q4cts.q4gsw_requant.custom.n44_k96_g32", 0, 0x2d91522e42ab6fddull},
    {"q4cts.q4gsw_requant.grouped.n32_k128_g32.wide", 0, 0x2545e546110827a5ull},
    {"q4cts.q4gsw_requant.odd_n4.n20_k128_g32.overflow", 0, 0x6fba6e72476f509bull},
    {"q4cts.q4gsw_requant.custom.n44_k96_g32.signed_zeros", 0, 0x9426d8661545cb62ull},
    {"q4cts.q4gsw_requant.grouped.n48_k64_g4.all_zero_scales", 0, 0xbc3bdf4eba3bf89dull},
    {"q4cts.linear_q4gsw.custom.m3_n20_k64_g16.deep", 0, 0xe98433adb488d654ull},
    {"q4cts.linear_q4gsw.custom.m3_n20_k64_g16_b1.outlier", 0, 0x8db32207dd95803dull},
    {"q4cts.adamw_step.custom.n1023_t5_w1.tiny_grad", 0, 0x8c5489c4a7b4de29ull},
    {"q4cts.adamw_step.unaligned.n7_t3_w0.zero_grad", 0, 0xe89d232af91d9df7ull},
    {"q4cts.fused_ce.unaligned_v.r8_v1001_p25.far_logits", 0, 0x31afb174a73edf63ull},
    {"q4cts.fused_ce.unaligned_v.r3_v7_p0.big_logits", 0, 0x31350b83f71d0433ull},
};

START_TEST(golden_hashes)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        uint64_t h = inputs_hash(golden[i].name, golden[i].seed);
        if (h != golden[i].hash) {
            fprintf(stderr, "    {\"%s\", %llu, 0x%016llxull},\n", golden[i].name,
                    (unsigned long long)golden[i].seed, (unsigned long long)h);
            bad++;
        }
    }
    ck_assert_msg(bad == 0, "%d golden input hashes changed (new values above)", bad);
}
END_TEST

/* The input makers run on every core (case_values.c, the ops' makers): the same bits with one
 * thread and with several, for every op's maker and every kind of fill (fixed point,
 * full and short significands, the AdamW range fill, scales of each mode, codes and
 * their W_4X8 packing, requant's latents, the classes' rewrites), on sizes that split
 * across threads with tails (odd counts, N/4 odd: W_4X8 padding). */
START_TEST(same_bits_on_any_thread_count)
{
    static const char *const names[] = {
        "q4cts.adamw_step.custom.n1000003_t7_w1", "q4cts.linear_q4gsw.custom.m1001_n8_k256_g32.wide",
        "q4cts.linear_q4gsw.custom.m1001_n8_k256_g32.deep", "q4cts.fused_ce.custom.r9_v100003_p0",
        "q4cts.adamw_step.custom.n1000003_t7_w1.huge_grad",
        "q4cts.adamw_step.custom.n1000003_t7_w1.tiny_grad",
        "q4cts.adamw_step.custom.n1000003_t7_w1.zero_grad",
        "q4cts.fused_ce.custom.r9_v100003_p0.far_logits",
        "q4cts.fused_ce.custom.r9_v100003_p34.big_logits",
        "q4cts.dequantize.custom.n1004_k264_g8",
        "q4cts.dequantize.custom.n1004_k264_g8.tiny",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8.wide",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8.clamp_edges",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8.signed_zeros",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8.ties",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8.overflow",
        "q4cts.q4gsw_requant.custom.n1004_k264_g8.all_zero_scales",
        "q4cts.linear_q4gsw.custom.m1001_n1004_k64_g16_b1.outlier",
        "q4cts.linear_q4gsw_backward.custom.m1001_n12_k64_g16.tiny",
        "q4cts.linear_dW.custom.m1001_n8_k260.tiny",
        "q4cts.linear_dW.custom.m1001_n8_k260",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        omp_set_num_threads(1);
        uint64_t one = inputs_hash(names[i], 5);
        omp_set_num_threads(3);
        uint64_t three = inputs_hash(names[i], 5);
        ck_assert_msg(one == three, "%s: 1 and 3 threads give other inputs", names[i]);
    }
}
END_TEST

/* q4_free_big hands back only the block's own pages: with the allocator kept off mmap,
 * a big block lies between its neighbours in the heap, and they keep their bytes; a
 * small block, NULL and an odd size are freed too (the ASan build sees any stray
 * access). */
START_TEST(free_big_keeps_neighbours)
{
    const size_t big = (64u << 20) + 12345;
    mallopt(M_MMAP_MAX, 0);
    omp_set_num_threads(3);
    unsigned char *before = malloc(5000), *b = malloc(big), *after = malloc(5000);
    ck_assert(before && b && after);
    memset(before, 0xA5, 5000);
    memset(b, 0x3C, big);
    memset(after, 0x5A, 5000);
    q4_free_big(b);
    for (int i = 0; i < 5000; i++)
        ck_assert(before[i] == 0xA5 && after[i] == 0x5A);
    q4_free_big(before);
    q4_free_big(after);
    q4_free_big(NULL);
    mallopt(M_MMAP_MAX, 65536);
}
END_TEST

START_TEST(deterministic_and_seeded)
{
    q4_case *all;
    size_t n;
    q4_error err = {0};
    ck_assert_int_eq(q4_case_all(&all, &n, &err), Q4_OK);
    /* Small cases only: the point is two calls, not size. */
    for (size_t i = 0; i < n; i++) {
        if (all[i].m * all[i].k > 65536 || all[i].n * all[i].k > 65536 ||
            all[i].r * all[i].v > 65536 || all[i].numel > 65536)
            continue;
        uint64_t h0 = inputs_hash(all[i].name, 0), h0b = inputs_hash(all[i].name, 0);
        uint64_t h1 = inputs_hash(all[i].name, 1);
        ck_assert_msg(h0 == h0b, "%s: two calls differ", all[i].name);
        ck_assert_msg(h0 != h1, "%s: seeds 0 and 1 give the same inputs", all[i].name);
    }
    free(all);

    /* Bit-identical buffers, not only equal hashes. */
    q4_case c = parse("q4cts.linear_q4gsw.bias.m5_n12_k64_g32_b1", 3);
    q4_inputs a, b;
    ck_assert_int_eq(q4_case_inputs(&c, &a, &err), Q4_OK);
    ck_assert_int_eq(q4_case_inputs(&c, &b, &err), Q4_OK);
    ck_assert_int_eq(memcmp(a.x, b.x, 5 * 64 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a.w4x8, b.w4x8, (size_t)q4_w4x8_words(12, 64) * 4), 0);
    ck_assert_int_eq(memcmp(a.scales, b.scales, 2 * 12 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a.bias, b.bias, 12 * sizeof(float)), 0);
    /* Independent streams: x and bias do not share values. */
    ck_assert_int_ne(memcmp(a.x, a.bias, 12 * sizeof(float)), 0);
    q4_inputs_free(&a);
    q4_inputs_free(&b);

    /* The same shape in another family has other inputs (the name seeds them). */
    ck_assert(inputs_hash("q4cts.linear_q4gsw.tile_aligned.m8_n16_k32_g32", 0) !=
              inputs_hash("q4cts.linear_q4gsw.custom.m8_n16_k32_g32", 0));
    /* A non-canonical spelling is the same case. */
    ck_assert(inputs_hash("q4cts.linear_dW.custom.k4_n4_m1", 9) ==
              inputs_hash("q4cts.linear_dW.custom.m1_n4_k4", 9));
}
END_TEST

START_TEST(adamw_hyper)
{
    q4_inputs in;
    q4_error err = {0};
    q4_case c = parse("q4cts.adamw_step.wd_on.n1024_t1_w1", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.lr == 1e-3f && in.beta1 == 0.9f && in.beta2 == 0.999f && in.eps == 1e-8f);
    ck_assert(in.wd == 0.01f);
    ck_assert(in.bc1 == (float)(1.0 - 0.9) && in.bc2 == (float)(1.0 - 0.999));
    q4_inputs_free(&in);
    c = parse("q4cts.adamw_step.wd_off.n1024_t1_w0", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.wd == 0.0f);
    q4_inputs_free(&in);
    c = parse("q4cts.adamw_step.wd_on.n4_t3_w1", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.bc1 == (float)(1.0 - 0.9 * 0.9 * 0.9));
    ck_assert(in.bc2 == (float)(1.0 - 0.999 * 0.999 * 0.999));
    q4_inputs_free(&in);
    c = parse("q4cts.adamw_step.late_step.n1024_t10000_w1", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.bc1 == 1.0f);                          /* 0.9^10000 underflows */
    ck_assert(in.bc2 > 0.99995f && in.bc2 < 1.0f);      /* 1 - e^-10.005 */
    q4_inputs_free(&in);
}
END_TEST

START_TEST(fused_ce_masks)
{
    q4_inputs in;
    q4_error err = {0};
    q4_case c = parse("q4cts.fused_ce.all_masked.r4_v128_p100", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int r = 0; r < 4; r++) ck_assert_int_eq(in.labels[r], -100);
    ck_assert(in.n_valid == 1.0f);
    q4_inputs_free(&in);
    c = parse("q4cts.fused_ce.masked.r8_v256_p25", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.n_valid == 6.0f);
    q4_inputs_free(&in);
    /* The labels of unmasked rows do not depend on p. */
    q4_case c0 = parse("q4cts.fused_ce.custom.r64_v100_p0", 0);
    q4_case c5 = parse("q4cts.fused_ce.custom.r64_v100_p50", 0);
    q4_inputs a, b;
    ck_assert_int_eq(q4_case_inputs(&c0, &a, &err), Q4_OK);
    ck_assert_int_eq(q4_case_inputs(&c5, &b, &err), Q4_OK);
    int masked = 0, v_hi = 0;
    for (int r = 0; r < 64; r++) {
        if (b.labels[r] < 0) { masked++; continue; }
        v_hi |= a.labels[r] >= 50;
    }
    ck_assert_int_eq(masked, 32);
    ck_assert(v_hi);   /* labels span the vocabulary */
    q4_inputs_free(&a);
    q4_inputs_free(&b);
}
END_TEST

/* Requant families: the quotients latent / s the names promise, in fp64 (exact for
 * the power-of-two scales of ties, and a safe sign/magnitude test otherwise). */
START_TEST(requant_special_values)
{
    q4_inputs in;
    q4_error err = {0};
    q4_case c = parse("q4cts.q4gsw_requant.ties.n20_k128_g32", 0);
    int ties = 0, halves[2] = {0, 0};
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t g = 0; g < q4_scales_count(c.n, c.k, c.gs); g++)
        ck_assert_uint_eq(bits(in.scales[g]) & 0x7fffff, 0);   /* powers of two */
    for (int64_t n = 0; n < c.n; n++)
        for (int64_t k = 0; k < c.k; k++) {
            double q = (double)in.latent[n * c.k + k] / in.scales[(k / c.gs) * c.n + n];
            double twice = 2 * q;
            if (twice == (double)(int64_t)twice && ((int64_t)twice & 1)) {
                ties++;
                halves[q > 0]++;
                ck_assert(q >= -9.5 && q <= 9.5);
            }
        }
    ck_assert_int_gt(ties, c.n * c.k / 3);   /* about half */
    ck_assert(halves[0] > 0 && halves[1] > 0);
    q4_inputs_free(&in);

    c = parse("q4cts.q4gsw_requant.zero_scales.n16_k64_g16", 0);
    int pos0 = 0, neg0 = 0, normal = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t g = 0; g < q4_scales_count(c.n, c.k, c.gs); g++) {
        pos0 += bits(in.scales[g]) == 0;
        neg0 += bits(in.scales[g]) == 0x80000000u;
        normal += in.scales[g] != 0;
    }
    ck_assert(pos0 > 0 && neg0 > 0 && normal > pos0 + neg0);
    q4_inputs_free(&in);

    c = parse("q4cts.q4gsw_requant.clamp_edges.n256_k256_g32", 0);
    int inf_q = 0, beyond = 0, edge_lo = 0, edge_hi = 0, tiny = 0, inrange = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t n = 0; n < c.n; n++)
        for (int64_t k = 0; k < c.k; k++) {
            float s = in.scales[(k / c.gs) * c.n + n];
            double q = (double)in.latent[n * c.k + k] / s;
            tiny += s != 0 && s < 1e-37f && s > -1e-37f;
            inf_q += q > 3.4028234663852886e38 || q < -3.4028234663852886e38;
            beyond += (q > 8.5 || q < -9) && q < 1e38 && q > -1e38;
            edge_lo += q == -8.5;
            edge_hi += q == 7.5;
            inrange += q > -8 && q < 7;
        }
    ck_assert(tiny > 0 && inf_q > 0 && beyond > 0 && edge_lo > 0 && edge_hi > 0 && inrange > 0);
    q4_inputs_free(&in);

    /* Ordinary families: every code value occurs, and some latents clamp. */
    c = parse("q4cts.q4gsw_requant.grouped.n32_k128_g32", 0);
    int codes[16] = {0}, clamps = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t n = 0; n < c.n; n++)
        for (int64_t k = 0; k < c.k; k++) {
            double q = (double)in.latent[n * c.k + k] / in.scales[(k / c.gs) * c.n + n];
            int64_t r = (int64_t)(q + 100.5) - 100;   /* nearest, ties aside */
            clamps += r < -8 || r > 7;
            r = r < -8 ? -8 : r > 7 ? 7 : r;
            codes[r + 8]++;
        }
    for (int j = 0; j < 16; j++) ck_assert_int_gt(codes[j], 0);
    ck_assert_int_gt(clamps, 0);
    q4_inputs_free(&in);
}
END_TEST

/* The value classes put in the inputs what cases/README.md says. */
START_TEST(value_classes)
{
    q4_inputs in;
    q4_error err = {0};
    q4_case c = parse("q4cts.fused_ce.basic.r16_v1000_p0.big_logits", 0);
    float hi = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t i = 0; i < c.r * c.v; i++) {
        ck_assert(in.logits[i] >= -100 && in.logits[i] < 100);
        hi = in.logits[i] > hi ? in.logits[i] : hi;
    }
    ck_assert(hi > 90);   /* exp(90) overflows fp32 without the max shift */
    q4_inputs_free(&in);

    c = parse("q4cts.fused_ce.unaligned_v.r8_v130_p25.edge_labels", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t r = 0; r < c.r; r++)
        ck_assert(in.labels[r] < 0 || in.labels[r] == (r % 2 ? 129 : 0));
    q4_inputs_free(&in);

    c = parse("q4cts.fused_ce.all_masked.r5_v7_p100.ignore_values", 0);
    int kinds[3] = {0, 0, 0};
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t r = 0; r < c.r; r++) {
        kinds[0] += in.labels[r] == -1;
        kinds[1] += in.labels[r] == -100;
        kinds[2] += in.labels[r] == INT32_MIN;
    }
    ck_assert(kinds[0] && kinds[1] && kinds[2] && in.n_valid == 1.0f);
    q4_inputs_free(&in);

    c = parse("q4cts.adamw_step.unaligned.n1023_t5_w1.lr0", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    ck_assert(in.lr == 0.0f && in.wd == 0.01f);
    q4_inputs_free(&in);
    c = parse("q4cts.adamw_step.unaligned.n7_t3_w0.zero_grad", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int i = 0; i < 7; i++) ck_assert(in.grad[i] == 0 && in.v[i] == 0);
    q4_inputs_free(&in);

    /* wide: 24-bit significands (the low bits are used), many exponents */
    c = parse("q4cts.linear_q4gsw.grouped.m8_n32_k64_g32.wide", 0);
    int low_bits = 0, big = 0, small = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t i = 0; i < c.m * c.k; i++) {
        low_bits += (bits(in.x[i]) & 0xff) != 0;
        big += in.x[i] > 1e6f || in.x[i] < -1e6f;
        small += in.x[i] != 0 && in.x[i] < 1e-6f && in.x[i] > -1e-6f;
    }
    ck_assert(low_bits > c.m * c.k / 2 && big > 0 && small > 0);
    q4_inputs_free(&in);

    c = parse("q4cts.q4gsw_requant.odd_n4.n20_k128_g32.overflow", 0);
    int inf_q = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t n = 0; n < c.n; n++)
        for (int64_t k = 0; k < c.k; k++) {
            double q = (double)in.latent[n * c.k + k] / in.scales[(k / c.gs) * c.n + n];
            inf_q += q > 3.5e38 || q < -3.5e38;
        }
    ck_assert_int_gt(inf_q, c.n * c.k / 4);
    q4_inputs_free(&in);

    c = parse("q4cts.q4gsw_requant.grouped.n48_k64_g4.all_zero_scales", 0);
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t g = 0; g < q4_scales_count(c.n, c.k, c.gs); g++) ck_assert(in.scales[g] == 0);
    q4_inputs_free(&in);

    c = parse("q4cts.q4gsw_requant.custom.n44_k96_g32.signed_zeros", 0);
    int neg0_s = 0, neg0_l = 0;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_OK);
    for (int64_t g = 0; g < q4_scales_count(c.n, c.k, c.gs); g++) neg0_s += bits(in.scales[g]) == 0x80000000u;
    for (int64_t i = 0; i < c.n * c.k; i++) neg0_l += bits(in.latent[i]) == 0x80000000u;
    ck_assert(neg0_s > 0 && neg0_l > 0);
    q4_inputs_free(&in);
}
END_TEST

START_TEST(stream_seeds)
{
    q4_case c = parse("q4cts.linear_dW.custom.m1_n4_k4", 0);
    ck_assert(q4_case_stream_seed(&c, "x") != q4_case_stream_seed(&c, "dout"));
    c.seed = 1;
    uint64_t s1 = q4_case_stream_seed(&c, "x");
    c.seed = 0;
    ck_assert(q4_case_stream_seed(&c, "x") != s1);
}
END_TEST

START_TEST(invalid_case_struct)
{
    q4_inputs in;
    q4_error err = {0};
    q4_case c = parse("q4cts.linear_dW.custom.m1_n4_k4", 0);
    c.n = 6;   /* hand-edited out of contract: held to the same checks as a name */
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_ERR_ARG);
    ck_assert_str_eq(err.msg, "case name 'q4cts.linear_dW.custom.m1_n6_k4': N = 6 must be a multiple of 4");
    ck_assert_ptr_null(in.x);
    c = parse("q4cts.linear_dW.custom.m1_n4_k4", 0);
    c.op = "nope";
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown op 'nope'"));
    ck_assert_int_eq(q4_case_inputs(NULL, &in, &err), Q4_ERR_ARG);
    /* a bias where the op has none or takes only b0/b1; a limit below its minimum */
    c = parse("q4cts.linear_q4gsw.custom.m1_n4_k4_g4", 0);
    c.bias = 2;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, ": b = 2 must be 0 or 1"));
    c = parse("q4cts.linear_q4gsw_backward.custom.m1_n4_k4_g4", 0);
    c.bias = 1;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, ": b = 1 must be 0: this op takes no bias"));
    c = parse("q4cts.adamw_step.small_device.n4_t1_w1_groups2", 0);
    c.limit[Q4_LIMIT_INVOCATIONS] = 64;
    ck_assert_int_eq(q4_case_inputs(&c, &in, &err), Q4_ERR_ARG);
    ck_assert_str_eq(err.msg, "case name 'q4cts.adamw_step.small_device.n4_t1_w1_groups2_"
                              "invocations64': device limit invocations64 must be in 128..4294967295");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cases.inputs");
    TCase *tc = tcase_create("inputs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, all_generated_inputs_in_contract);
    tcase_add_test(tc, buffers_per_op);
    tcase_add_test(tc, golden_hashes);
    tcase_add_test(tc, deterministic_and_seeded);
    tcase_add_test(tc, same_bits_on_any_thread_count);
    tcase_add_test(tc, free_big_keeps_neighbours);
    tcase_add_test(tc, adamw_hyper);
    tcase_add_test(tc, fused_ce_masks);
    tcase_add_test(tc, requant_special_values);
    tcase_add_test(tc, value_classes);
    tcase_add_test(tc, stream_seeds);
    tcase_add_test(tc, invalid_case_struct);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
