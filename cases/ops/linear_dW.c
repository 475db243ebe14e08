/* linear_dW.c: case descriptor of the weight gradient, dW = dout^T @ x (dense fp32, the
 * reduction over M): names m|d n k, its families and value classes, its inputs. */
#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_linear_dW;

static const q4c_family families[] = {
    {"tile_aligned", Q4C_R_M_ALIGNED | Q4C_R_N_ALIGNED | Q4C_R_K_ALIGNED, NULL},
    {"odd_n4", Q4C_R_N_ODD4, NULL},
    {"partial_m", Q4C_R_M_PARTIAL, NULL},
    {"odd_n4_partial_m", Q4C_R_N_ODD4 | Q4C_R_M_PARTIAL, NULL},
    {"leading_dims", Q4C_R_LEAD, NULL},
    {"large", Q4C_R_LARGE_MNK, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "dout and x in [-1, 1) with 23 fraction bits", 0},
    {"wide", "dout and x with 24-bit significands, 2^-30..2^30", 0},
    {"tiny", "dout and x with 24-bit significands, 2^-70..2^-56: products below 2^-126 "
             "stress the bounds' absolute term", 0},
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.linear_dW.tile_aligned.m8_n16_k32",
    "q4cts.linear_dW.tile_aligned.m64_n64_k64",
    "q4cts.linear_dW.tile_aligned.m16_n32_k128",
    "q4cts.linear_dW.odd_n4.m8_n12_k32",
    "q4cts.linear_dW.odd_n4.m16_n20_k64",
    "q4cts.linear_dW.odd_n4.m8_n4_k16",
    "q4cts.linear_dW.partial_m.m1_n16_k32",
    "q4cts.linear_dW.partial_m.m3_n32_k64",
    "q4cts.linear_dW.partial_m.m5_n16_k32",
    "q4cts.linear_dW.partial_m.m7_n64_k64",
    "q4cts.linear_dW.partial_m.m65_n32_k64",
    "q4cts.linear_dW.odd_n4_partial_m.m5_n12_k16",
    "q4cts.linear_dW.odd_n4_partial_m.m1_n4_k4",
    "q4cts.linear_dW.odd_n4_partial_m.m33_n28_k64",
    "q4cts.linear_dW.leading_dims.d2x3_n16_k32",
    "q4cts.linear_dW.leading_dims.d4x5x3_n12_k64",
    "q4cts.linear_dW.large.m300_n264_k512",
    "q4cts.linear_dW.large.m2048_n64_k64",
    "q4cts.linear_dW.large.m4000_n36_k32",
    "q4cts.linear_dW.custom.m3000_n44_k96",
    /* value classes */
    "q4cts.linear_dW.tile_aligned.m64_n64_k64.wide",
    "q4cts.linear_dW.partial_m.m65_n32_k64.wide",
    "q4cts.linear_dW.odd_n4.m16_n20_k64.tiny",
    "q4cts.linear_dW.partial_m.m7_n64_k64.tiny",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.linear_dW.random.s0",
    "q4cts.linear_dW.random.s1",
    "q4cts.linear_dW.random.s2",
    "q4cts.linear_dW.random.s3",
    "q4cts.linear_dW.small_device.m16_n192_k192_groups4",
    "q4cts.linear_dW.small_device.m16_n192_k128_groups2",   /* 6 tiles: 2 x 2 x 2 */
    NULL,
};

static q4_status fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    (void)err;
    q4c_fill_m(p, c);
    c->n = Q4C_P(p, 'n');
    c->k = Q4C_P(p, 'k');
    return Q4_OK;
}

static void format(const q4_case *c, q4c_text *t)
{
    q4c_format_m(c, t);
    q4c_put(t, "_n%lld_k%lld", (long long)c->n, (long long)c->k);
}

static q4_status check(const q4_case *c, q4_error *err)
{
    q4_status st = q4c_check_lead(c, err);
    return st ? st : q4_check_dw(c->m, c->n, c->k, err);
}

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    q4_status st;
    Q4C_ALLOC(in, dout, c->m * c->n, "dout");
    Q4C_ALLOC(in, x, c->m * c->k, "x");
    if (q4c_values_is(c, "tiny")) {
        q4c_fill_wide(q4c_stream(c, "dout"), in->dout, c->m * c->n, -70, -56);
        q4c_fill_wide(q4c_stream(c, "x"), in->x, c->m * c->k, -70, -56);
    } else {
        q4c_fill_act(c, "dout", in->dout, c->m * c->n);
        q4c_fill_act(c, "x", in->x, c->m * c->k);
    }
    return Q4_OK;
}

/* dout and x are any finite values: nothing more to check. */
static q4_status check_inputs(const q4_case *c, const q4_inputs *in, q4_error *err)
{
    (void)c, (void)in, (void)err;
    return Q4_OK;
}

static void random_case(q4_case *c)
{
    q4c_rng g = q4c_sweep_rng(c);
    int64_t gs;
    c->m = q4c_random_m(&g, 200);
    c->n = q4c_random_n(&g, 32);
    q4c_random_kg(&g, 32, &c->k, &gs);
    q4c_random_values(&q4c_op_linear_dW, &g, c);
}

const q4c_op q4c_op_linear_dW = {
    .name = "linear_dW", .keys = "m|d n k", .allowed = "mdnk", .required = "mnk",
    .families = families, .classes = classes, .generated = generated, .fill = fill,
    .format = format, .check = check, .inputs = inputs, .check_inputs = check_inputs,
    .random = random_case,
};
