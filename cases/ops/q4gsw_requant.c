/* q4gsw_requant.c: case descriptor of STE re-quantization, codes = clamp(roundEven(latent
 * / s)) + 8: names n k g, its families (three of which fix the values: zero_scales,
 * ties, clamp_edges) and value classes, and its inputs (latent, scales; the codes and
 * W_4X8 are its outputs). */
#include <string.h>

#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_q4gsw_requant;

static const q4c_family families[] = {
    {"tile_aligned", Q4C_R_N_ALIGNED | Q4C_R_K_ALIGNED, NULL},
    {"grouped", Q4C_R_GROUPED, NULL},
    {"odd_n4", Q4C_R_N_ODD4, NULL},
    {"zero_scales", 0, "zero_scales"},
    {"ties", 0, "ties"},
    {"clamp_edges", 0, "clamp_edges"},
    {"large", Q4C_R_LARGE_NK, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "quotients latent / s in [-9.5, 8.5) with 16 fraction bits: every code, some clamps", 0},
    {"zero_scales", "about a quarter of the scales +0 or -0 (scales[0] = +0, scales[1] = -0)", 0},
    {"ties", "power-of-two scales; half the latents exactly (j + 0.5) * s, j in [-10, 9]", 0},
    {"clamp_edges",
     "quotients beyond +-8, exactly at the edges, huge latents, tiny (2^-126) scales whose "
     "quotients overflow to +-Inf", 0},
    {"wide", "24-bit-significand scales 2^-40..2^20; latents s * u rounded once, u at least "
             "2^-17 away from a rounding tie", 0},
    {"overflow", "scales 2^-110..2^-90 (about 1e-30), half the latents 2^90..2^110 (about "
                 "1e30): fp32 quotients overflow to +-Inf and clamp", 0},
    {"signed_zeros", "a quarter of the scales +0 or -0, half the latents +0 or -0", 0},
    {"all_zero_scales", "every scale +0 or -0: every code 8", 0},
    Q4C_CLASSES_BAD_SCALES,
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.q4gsw_requant.tile_aligned.n16_k32_g32",
    "q4cts.q4gsw_requant.tile_aligned.n64_k256_g64",
    "q4cts.q4gsw_requant.grouped.n32_k128_g32",
    "q4cts.q4gsw_requant.grouped.n48_k64_g4",
    "q4cts.q4gsw_requant.grouped.n16_k96_g12",
    "q4cts.q4gsw_requant.odd_n4.n12_k32_g32",
    "q4cts.q4gsw_requant.odd_n4.n4_k16_g16",
    "q4cts.q4gsw_requant.odd_n4.n12_k36_g12",
    "q4cts.q4gsw_requant.odd_n4.n20_k128_g32",
    "q4cts.q4gsw_requant.zero_scales.n16_k64_g16",
    "q4cts.q4gsw_requant.zero_scales.n12_k32_g32",
    "q4cts.q4gsw_requant.ties.n16_k64_g16",
    "q4cts.q4gsw_requant.ties.n20_k128_g32",
    "q4cts.q4gsw_requant.ties.n256_k256_g64",
    "q4cts.q4gsw_requant.clamp_edges.n16_k64_g16",
    "q4cts.q4gsw_requant.clamp_edges.n12_k128_g32",
    "q4cts.q4gsw_requant.clamp_edges.n256_k256_g32",
    "q4cts.q4gsw_requant.large.n4096_k1024_g128",
    "q4cts.q4gsw_requant.large.n2052_k512_g32",
    "q4cts.q4gsw_requant.custom.n44_k96_g32",
    /* value classes */
    "q4cts.q4gsw_requant.grouped.n32_k128_g32.wide",
    "q4cts.q4gsw_requant.odd_n4.n20_k128_g32.overflow",
    "q4cts.q4gsw_requant.custom.n44_k96_g32.signed_zeros",
    "q4cts.q4gsw_requant.grouped.n48_k64_g4.all_zero_scales",
    "q4cts.q4gsw_requant.odd_n4.n12_k32_g32.ties",
    "q4cts.q4gsw_requant.custom.n44_k96_g32.clamp_edges",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.q4gsw_requant.random.s0",
    "q4cts.q4gsw_requant.random.s1",
    "q4cts.q4gsw_requant.random.s2",
    "q4cts.q4gsw_requant.random.s3",
    "q4cts.q4gsw_requant.small_device.n20_k128_g32_groups8_binding8192_shared16384_invocations128",
    "q4cts.q4gsw_requant.small_device.n12_k36_g12_groups8_binding8192_shared16384_invocations128",
    "q4cts.q4gsw_requant.small_device.n48_k512_g64_groups4",
    "q4cts.q4gsw_requant.small_device.n64_k100_g20_groups3",
    /* folded over z too: fused 6 tiles / flat 5 groups and fused 6 tiles (2 x 2 x 2) */
    "q4cts.q4gsw_requant.small_device.n48_k512_g64_groups2",
    "q4cts.q4gsw_requant.small_device.n96_k100_g20_groups2",
    NULL,
};

typedef enum latent_mode {
    LATENT_ORDINARY, LATENT_TIES, LATENT_CLAMP, LATENT_WIDE, LATENT_OVERFLOW, LATENT_ZEROS
} latent_mode;

/* s * u where both are exact and their significands fit 24 bits together: the IEEE
 * product is exact, hence the same everywhere. */
static float exact_mul(float s, float u) { return s * u; }

static int is_tiny(float s) { return s != 0 && s < 1e-30f && s > -1e-30f; }

/* u in [-9.5, 8.5) with 16 fraction bits (20 significant bits): codes span -8..7,
 * a few clamp. For a tiny scale |u| >= 1 keeps s*u normal. */
static float ordinary_u(q4c_rng *g, int tiny)
{
    int64_t i = q4c_range(g, -622592, 557056);
    if (tiny && i > -65536 && i < 65536) i += i < 0 ? -65536 : 65536;
    return q4c_exact(i, -16);
}

static float latent_value(q4c_rng *g, float s, latent_mode mode)
{
    static const int64_t edges2[] = {-17, 15, -15, 13, 17, -19, 16, -16};   /* 2u: -8.5, 7.5, ... */
    if (s == 0)
        return q4c_exact(q4c_range(g, -(1 << 23), 1 << 23), -23);   /* any value: q = 0 */
    if (mode == LATENT_ZEROS && (q4c_next(g) & 1))
        return q4c_signed_zero(q4c_next(g) & 1);
    if (mode == LATENT_OVERFLOW && (q4c_next(g) & 1)) {
        float huge;
        q4c_fill_wide(*g, &huge, 1, 90, 110);
        q4c_next(g);
        return huge;   /* |latent / s| >= 2^180: +-Inf in fp32 */
    }
    if (mode == LATENT_WIDE || mode == LATENT_OVERFLOW) {
        /* s * u rounds once (deterministic); u keeps 2^-16 steps off the ties (j + 0.5)
         * and clamp edges, so the rounded quotient stays 2^-17 away from them */
        int64_t i = q4c_range(g, -622592, 557056);
        if ((i & 0xffff) == 0x8000) i++;
        return s * q4c_exact(i, -16);
    }
    if (mode == LATENT_TIES && (q4c_next(g) & 1))
        return exact_mul(s, q4c_exact(2 * q4c_range(g, -10, 10) + 1, -1));   /* (j + 0.5) s */
    if (mode == LATENT_CLAMP) {
        int64_t sign = (q4c_next(g) & 1) ? -1 : 1;
        switch (q4c_below(g, 8)) {
        case 3:   /* beyond the clamp: |u| in [8, 4096) */
            return exact_mul(s, q4c_exact(sign * q4c_range(g, 1 << 11, 1 << 20), -8));
        case 4:   /* exactly at the edges */
            return exact_mul(s, q4c_exact(edges2[q4c_below(g, 8)], -1));
        case 5:   /* huge: 1.5 * 2^127, the quotient overflows to +-Inf */
            return q4c_exact(sign * 3, 126);
        case 6:
            return q4c_signed_zero(sign < 0);
        case 7:   /* |latent| in [8, 2^21): +-Inf over a tiny scale, a clamp otherwise */
            return q4c_exact(sign * (8 + q4c_range(g, 0, 8)), (int)q4c_range(g, 0, 18));
        default:
            break;
        }
    }
    return exact_mul(s, ordinary_u(g, is_tiny(s)));
}

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    const int64_t N = c->n, K = c->k, ns = q4_scales_count(N, K, c->gs);
    q4c_scale_mode sm = q4c_scale_mode_of(c);
    latent_mode lm = LATENT_ORDINARY;
    q4_status st;
    if (q4c_values_is(c, "zero_scales")) sm = Q4C_SCALES_ZERO;
    if (q4c_values_is(c, "ties")) sm = Q4C_SCALES_POW2, lm = LATENT_TIES;
    if (q4c_values_is(c, "clamp_edges")) sm = Q4C_SCALES_TINY, lm = LATENT_CLAMP;
    if (q4c_values_is(c, "wide")) lm = LATENT_WIDE;
    if (q4c_values_is(c, "signed_zeros")) sm = Q4C_SCALES_ZERO, lm = LATENT_ZEROS;
    if (q4c_values_is(c, "overflow")) sm = Q4C_SCALES_WIDE, lm = LATENT_OVERFLOW;
    Q4C_ALLOC(in, scales, ns, "scales");
    if (lm == LATENT_OVERFLOW)
        q4c_fill_wide(q4c_stream(c, "scales"), in->scales, ns, -110, -90);
    else
        q4c_fill_scales(q4c_stream(c, "scales"), in->scales, ns, sm);
    q4c_spoil_scales(c, in->scales, ns);
    q4c_rng g = q4c_stream(c, "latent");
    Q4C_ALLOC(in, latent, N * K, "latent");
    if (lm == LATENT_ORDINARY || lm == LATENT_WIDE) {
        /* One draw per element in these modes (latent_value): element n*K + k's
         * generator is the stream after n*K + k draws, so they run on every core with
         * the bits of one pass. The other modes draw one to four times per element;
         * they are the small value-class cases, made in one pass. */
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < N * K; i++) {
            q4c_rng gi = q4c_at(g, i);
            in->latent[i] = latent_value(&gi, in->scales[(i % K / c->gs) * N + i / K], lm);
        }
        return Q4_OK;
    }
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            in->latent[n * K + k] = latent_value(&g, in->scales[(k / c->gs) * N + n], lm);
    return Q4_OK;
}

static void random_case(q4_case *c)
{
    q4c_rng g = q4c_sweep_rng(c);
    q4c_random_weight(&g, c);
    q4c_random_values(&q4c_op_q4gsw_requant, &g, c);
}

const q4c_op q4c_op_q4gsw_requant = {
    .name = "q4gsw_requant", .keys = "n k g", .allowed = "nkg", .required = "nkg",
    .families = families, .classes = classes, .generated = generated,
    .fill = q4c_weight_fill, .format = q4c_weight_format, .check = q4c_weight_check,
    .inputs = inputs, .check_inputs = q4c_weight_check_scales, .random = random_case,
};
