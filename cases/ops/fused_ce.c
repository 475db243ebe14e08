/* fused_ce.c: case descriptor of fused cross-entropy (loss and dlogits, masked rows):
 * names r v p, its families and value classes, and its inputs (logits, labels, n_valid). */
#include <stdlib.h>

#include "case_internal.h"

static const q4c_family families[] = {
    {"basic", Q4C_R_P_ZERO | Q4C_R_V_ALIGNED, NULL},
    {"masked", Q4C_R_P_SOME, NULL},
    {"all_masked", Q4C_R_P_ALL, NULL},
    {"unaligned_v", Q4C_R_V_UNALIGNED, NULL},
    {"large_vocab", Q4C_R_V_LARGE, NULL},
    {"many_rows", Q4C_R_R_MANY, NULL},
    {"custom", 0, NULL},
    {NULL, 0, NULL},
};

static const q4c_class classes[] = {
    {"ordinary", "logits in [-10, 10) with 20 fraction bits; labels uniform; masked rows -100", 0},
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
    q4c_fill_sym(q4c_stream(c, "logits"), in->logits, R * V, 10ll << 20, 20);   /* [-10, 10) */
    q4c_rng g = q4c_stream(c, "labels");
    for (int64_t r = 0; r < R; r++) in->labels[r] = (int32_t)q4c_below(&g, (uint64_t)V);
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
    }
    free(rows);
    in->n_valid = R - masked > 0 ? (float)(R - masked) : 1.0f;
    return Q4_OK;
}

static q4_status check_inputs(const q4_case *c, const q4_inputs *in, q4_error *err)
{
    q4_status st = q4_check_ce_shape(c->r, c->v, in->n_valid, err);
    return st ? st : q4_check_labels(in->labels, c->r, c->v, err);
}

const q4c_op q4c_op_fused_ce = {
    .name = "fused_ce", .keys = "r v p", .allowed = "rvp", .required = "rvp",
    .families = families, .classes = classes, .generated = generated, .fill = fill,
    .format = format, .check = check, .inputs = inputs, .check_inputs = check_inputs,
};
