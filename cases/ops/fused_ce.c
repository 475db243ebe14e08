/* fused_ce.c: case descriptor of fused cross-entropy (loss and dlogits, masked rows):
 * names r v p, its families and value classes, and its inputs (logits, labels, n_valid). */
#include <stdlib.h>

#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_fused_ce;

static const q4c_family families[] = {
    {"basic", Q4C_R_P_ZERO | Q4C_R_V_ALIGNED, NULL},
    {"masked", Q4C_R_P_SOME, NULL},
    {"all_masked", Q4C_R_P_ALL, NULL},
    {"unaligned_v", Q4C_R_V_UNALIGNED, NULL},
    {"large_vocab", Q4C_R_V_LARGE, NULL},
    {"many_rows", Q4C_R_R_MANY, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "logits in [-10, 10) with 20 fraction bits; labels uniform; masked rows -100", 0},
    {"big_logits", "logits in [-100, 100) with 24-bit significands: exp overflows without the "
                   "max shift", 0},
    {"far_logits", "every logit of a row far from 0: even rows in [80, 100), odd rows in "
                   "[-120, -100) (17 fraction bits): exp overflows or every term underflows "
                   "without the max shift", 0},
    {"edge_labels", "labels alternate 0 and V-1 (the first and last class)", 0},
    {"ignore_values", "masked rows cycle through the ignore values -1, -100 and INT32_MIN", 0},
    {"label_v", "out of contract: one label = V; the name is an error (exit 2)", 1},
    {"n_valid_zero", "out of contract: n_valid = 0; the name is an error (exit 2)", 1},
    {"n_valid_negative", "out of contract: n_valid = -1; the name is an error (exit 2)", 1},
    {"n_valid_nan", "out of contract: n_valid NaN; the name is an error (exit 2)", 1},
    {"n_valid_inf", "out of contract: n_valid +Inf; the name is an error (exit 2)", 1},
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.fused_ce.basic.r4_v128_p0",
    "q4cts.fused_ce.basic.r16_v1000_p0",
    "q4cts.fused_ce.basic.r1_v32_p0",
    "q4cts.fused_ce.masked.r8_v256_p25",
    "q4cts.fused_ce.masked.r16_v1000_p50",
    "q4cts.fused_ce.masked.r3_v64_p34",
    "q4cts.fused_ce.all_masked.r4_v128_p100",
    "q4cts.fused_ce.all_masked.r1_v64_p100",
    "q4cts.fused_ce.unaligned_v.r4_v1001_p0",
    "q4cts.fused_ce.unaligned_v.r3_v7_p0",
    "q4cts.fused_ce.unaligned_v.r8_v130_p25",
    "q4cts.fused_ce.unaligned_v.r8_v131_p50",
    "q4cts.fused_ce.large_vocab.r4_v128256_p0",
    "q4cts.fused_ce.large_vocab.r4_v128256_p25",
    "q4cts.fused_ce.large_vocab.r2_v50257_p0",
    "q4cts.fused_ce.many_rows.r1024_v256_p0",
    "q4cts.fused_ce.many_rows.r4096_v64_p10",
    "q4cts.fused_ce.many_rows.r65537_v12_p5",
    "q4cts.fused_ce.custom.r2_v32000_p0",
    /* value classes */
    "q4cts.fused_ce.basic.r16_v1000_p0.big_logits",
    "q4cts.fused_ce.unaligned_v.r3_v7_p0.big_logits",
    "q4cts.fused_ce.large_vocab.r2_v50257_p0.big_logits",
    "q4cts.fused_ce.masked.r8_v256_p25.big_logits",
    "q4cts.fused_ce.basic.r4_v128_p0.far_logits",
    "q4cts.fused_ce.unaligned_v.r8_v1001_p25.far_logits",
    "q4cts.fused_ce.large_vocab.r2_v50257_p0.far_logits",
    "q4cts.fused_ce.basic.r4_v128_p0.edge_labels",
    "q4cts.fused_ce.unaligned_v.r8_v130_p25.edge_labels",
    "q4cts.fused_ce.custom.r3_v1_p0.edge_labels",
    "q4cts.fused_ce.masked.r16_v1000_p50.ignore_values",
    "q4cts.fused_ce.unaligned_v.r9_v13_p50.ignore_values",
    "q4cts.fused_ce.all_masked.r5_v7_p100.ignore_values",
    "q4cts.fused_ce.all_masked.r3_v1_p100.ignore_values",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.fused_ce.random.s0",
    "q4cts.fused_ce.random.s1",
    "q4cts.fused_ce.random.s2",
    "q4cts.fused_ce.random.s3",
    "q4cts.fused_ce.small_device.r16_v1000_p0_groups8_binding8192_shared16384_invocations128",
    "q4cts.fused_ce.small_device.r4_v1001_p0_groups8_binding8192_shared16384_invocations128",
    "q4cts.fused_ce.small_device.r7_v1001_p37_groups2",   /* 7 rows: 2 x 2 x 2 */
    NULL,
};

static q4_status fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    c->r = Q4C_P(p, 'r');
    c->v = Q4C_P(p, 'v');
    if (Q4C_P(p, 'p') > 100)
        return q4_fail(err, Q4_ERR_ARG, "p = %lld must be a percentage in 0..100",
                       (long long)Q4C_P(p, 'p'));
    c->mask_pct = (int)Q4C_P(p, 'p');
    return Q4_OK;
}

static void format(const q4_case *c, q4c_text *t)
{
    q4c_put(t, "r%lld_v%lld_p%d", (long long)c->r, (long long)c->v, c->mask_pct);
}

static q4_status check(const q4_case *c, q4_error *err)
{
    if (c->v > INT32_MAX)
        return q4_fail(err, Q4_ERR_ARG, "V = %lld must fit an int32 label (at most %d)",
                       (long long)c->v, INT32_MAX);
    if (c->mask_pct < 0 || c->mask_pct > 100)
        return q4_fail(err, Q4_ERR_ARG, "p = %d must be a percentage in 0..100", c->mask_pct);
    int64_t valid = c->r - q4c_ce_masked_rows(c->r, c->mask_pct);
    return q4_check_ce_shape(c->r, c->v, valid > 0 ? (double)valid : 1.0, err);
}

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    const int64_t R = c->r, V = c->v, masked = q4c_ce_masked_rows(R, c->mask_pct);
    int64_t *rows = NULL;
    q4_status st;
    Q4C_ALLOC(in, logits, R * V, "logits");
    Q4C_ALLOC(in, labels, R, "labels");
    if (q4c_values_is(c, "big_logits"))   /* [-100, 100), 17 fraction bits: 24-bit values */
        q4c_fill_sym(q4c_stream(c, "logits"), in->logits, R * V, 100ll << 17, 17);
    else if (q4c_values_is(c, "far_logits")) {   /* 90 or -110, +-10: exact, |x| < 128 */
        q4c_fill_sym(q4c_stream(c, "logits"), in->logits, R * V, 10ll << 17, 17);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < R * V; i++)
            in->logits[i] += (i / V) % 2 ? -110.0f : 90.0f;
    } else                                /* [-10, 10) */
        q4c_fill_sym(q4c_stream(c, "logits"), in->logits, R * V, 10ll << 20, 20);
    q4c_rng g = q4c_stream(c, "labels");
    for (int64_t r = 0; r < R; r++) in->labels[r] = (int32_t)q4c_below(&g, (uint64_t)V);
    if (q4c_values_is(c, "edge_labels"))
        for (int64_t r = 0; r < R; r++) in->labels[r] = r % 2 ? (int32_t)(V - 1) : 0;
    /* The masked rows: the first `masked` of a partial Fisher-Yates shuffle. */
    if (!(rows = q4c_alloc(R, sizeof *rows, "row indices", c, &st, err)))
        return st;
    g = q4c_stream(c, "mask");
    for (int64_t r = 0; r < R; r++) rows[r] = r;
    for (int64_t i = 0; i < masked; i++) {
        int64_t j = i + (int64_t)q4c_below(&g, (uint64_t)(R - i)), t = rows[i];
        rows[i] = rows[j];
        rows[j] = t;
        in->labels[rows[i]] = Q4_CASE_IGNORE_INDEX;
        if (q4c_values_is(c, "ignore_values"))   /* every negative label is an ignore index */
            in->labels[rows[i]] = i % 3 == 0 ? -1 : i % 3 == 1 ? INT32_MIN : -100;
    }
    free(rows);
    in->n_valid = R - masked > 0 ? (float)(R - masked) : 1.0f;
    if (q4c_values_is(c, "label_v")) {
        g = q4c_stream(c, "bad");
        in->labels[q4c_below(&g, (uint64_t)R)] = (int32_t)V;
    }
    if (q4c_values_is(c, "n_valid_zero")) in->n_valid = 0.0f;
    if (q4c_values_is(c, "n_valid_negative")) in->n_valid = -1.0f;
    if (q4c_values_is(c, "n_valid_nan")) in->n_valid = q4c_from_bits(0x7fc00000u);
    if (q4c_values_is(c, "n_valid_inf")) in->n_valid = q4c_from_bits(0x7f800000u);
    return Q4_OK;
}

static q4_status check_inputs(const q4_case *c, const q4_inputs *in, q4_error *err)
{
    q4_status st = q4_check_ce_shape(c->r, c->v, in->n_valid, err);
    return st ? st : q4_check_labels(in->labels, c->r, c->v, err);
}

static void random_case(q4_case *c)
{
    static const int64_t primes[] = {2, 3, 5, 7, 13, 31, 127, 257, 1009, 4099, 8191, 32003};
    q4c_rng g = q4c_sweep_rng(c);
    c->r = q4c_below(&g, 4) == 0 ? 1 : q4c_range(&g, 1, 41);
    switch (q4c_below(&g, 4)) {
    case 0: c->v = 1; break;
    case 1: c->v = primes[q4c_below(&g, sizeof primes / sizeof primes[0])]; break;
    case 2: c->v = 4 * q4c_range(&g, 0, 500) + q4c_range(&g, 1, 4); break;   /* V % 4 != 0 */
    default: c->v = q4c_range(&g, 1, 5001); break;
    }
    switch (q4c_below(&g, 8)) {
    case 0: case 1: c->mask_pct = 0; break;
    case 2: c->mask_pct = 100; break;
    default: c->mask_pct = (int)q4c_range(&g, 0, 101); break;
    }
    q4c_random_values(&q4c_op_fused_ce, &g, c);
}

const q4c_op q4c_op_fused_ce = {
    .name = "fused_ce", .keys = "r v p", .allowed = "rvp", .required = "rvp",
    .families = families, .classes = classes, .generated = generated, .fill = fill,
    .format = format, .check = check, .inputs = inputs, .check_inputs = check_inputs,
    .random = random_case,
};
