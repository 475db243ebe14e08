/* linear_q4gsw_backward.c: case descriptor of the input gradient, dx = dout @ dequant(W):
 * names m|d n k g, its families and value classes, and its inputs (dout, W, scales). */
#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_linear_q4gsw_backward;

static const q4c_family families[] = {
    Q4C_FAMILIES_LINEAR_Q4,
    {"large", Q4C_R_LARGE_MNK, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "dout in [-1, 1) with 23 fraction bits; 4-bit-significand scales", 0},
    Q4C_CLASSES_WIDE_TINY("dout"),
    Q4C_CLASSES_BAD_SCALES,
    {NULL, NULL, 0},
};

/* The upstream change's three cases come first. */
static const char *const generated[] = {
    "q4cts.linear_q4gsw_backward.tile_aligned.m8_n16_k32_g32",
    "q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m5_n12_k16_g16",
    "q4cts.linear_q4gsw_backward.tile_aligned.m16_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.tile_aligned.m64_n64_k128_g128",
    "q4cts.linear_q4gsw_backward.grouped.m16_n64_k256_g32",
    "q4cts.linear_q4gsw_backward.grouped.m8_n16_k64_g4",
    "q4cts.linear_q4gsw_backward.grouped.m24_n32_k96_g12",
    "q4cts.linear_q4gsw_backward.grouped.m1_n16_k64_g8",
    "q4cts.linear_q4gsw_backward.grouped.m3_n16_k48_g12",
    "q4cts.linear_q4gsw_backward.odd_n4.m8_n12_k32_g32",
    "q4cts.linear_q4gsw_backward.odd_n4.m16_n20_k64_g64",
    "q4cts.linear_q4gsw_backward.odd_n4.m8_n4_k16_g16",
    "q4cts.linear_q4gsw_backward.partial_m.m1_n16_k32_g32",
    "q4cts.linear_q4gsw_backward.partial_m.m1_n256_k256_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m2_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m3_n32_k64_g32",
    "q4cts.linear_q4gsw_backward.partial_m.m4_n64_k128_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m5_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m6_n16_k64_g16",
    "q4cts.linear_q4gsw_backward.partial_m.m7_n32_k32_g32",
    "q4cts.linear_q4gsw_backward.partial_m.m9_n32_k64_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m5_n8_k8192_g64",
    "q4cts.linear_q4gsw_backward.partial_m.m65_n32_k64_g32",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m1_n12_k32_g32",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m1_n4_k4_g4",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m13_n36_k64_g64",
    "q4cts.linear_q4gsw_backward.odd_n4_partial_m.m70_n28_k96_g32",
    "q4cts.linear_q4gsw_backward.grouped_odd_n4.m8_n12_k64_g16",
    "q4cts.linear_q4gsw_backward.grouped_odd_n4.m5_n36_k96_g32",
    "q4cts.linear_q4gsw_backward.leading_dims.d2x3_n16_k32_g32",
    "q4cts.linear_q4gsw_backward.leading_dims.d3x5x2_n12_k32_g16",
    "q4cts.linear_q4gsw_backward.leading_dims.d2x2x2x2_n16_k64_g64",
    "q4cts.linear_q4gsw_backward.large.m300_n264_k512_g128",
    "q4cts.linear_q4gsw_backward.large.m128_n1028_k128_g32",
    "q4cts.linear_q4gsw_backward.large.m1_n1024_k4096_g128",
    /* M >= 2048: the dense path (dequantize, transpose, linear_tn_tiled) */
    "q4cts.linear_q4gsw_backward.large.m2050_n44_k96_g32",
    "q4cts.linear_q4gsw_backward.large.m2049_n1036_k64_g32",
    "q4cts.linear_q4gsw_backward.custom.m3_n44_k96_g32",
    /* value classes */
    "q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32.wide",
    "q4cts.linear_q4gsw_backward.partial_m.m1_n256_k256_g64.wide",
    "q4cts.linear_q4gsw_backward.tile_aligned.m64_n64_k128_g128.wide",
    "q4cts.linear_q4gsw_backward.partial_m.m3_n32_k64_g32.tiny",
    "q4cts.linear_q4gsw_backward.odd_n4.m16_n20_k64_g64.tiny",
    "q4cts.linear_q4gsw_backward.tile_aligned.m64_n64_k128_g128.deep",
    "q4cts.linear_q4gsw_backward.partial_m.m3_n32_k64_g32.deep",
    "q4cts.linear_q4gsw_backward.partial_m.m41_n64_k64_g64.outlier",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.linear_q4gsw_backward.random.s0",
    "q4cts.linear_q4gsw_backward.random.s1",
    "q4cts.linear_q4gsw_backward.random.s2",
    "q4cts.linear_q4gsw_backward.random.s3",
    "q4cts.linear_q4gsw_backward.small_device.m65_n32_k64_g32_groups8_binding8192_shared16384_invocations128",
    "q4cts.linear_q4gsw_backward.small_device.m4_n64_k128_g64_groups8_binding8192_shared16384_invocations128",
    "q4cts.linear_q4gsw_backward.small_device.m130_n64_k192_g32_groups4",
    "q4cts.linear_q4gsw_backward.small_device.m3_n32_k72_g24_groups4",
    "q4cts.linear_q4gsw_backward.small_device.m2050_n64_k16_g16_groups16",
    "q4cts.linear_q4gsw_backward.small_device.m2048_n64_k16_g16_binding262144",
    /* grids folded over z too: gemv 8 strips (2 x 2 x 2), tiled 10 tiles (3 x 3 x 2) */
    "q4cts.linear_q4gsw_backward.small_device.m3_n32_k64_g32_groups2",
    "q4cts.linear_q4gsw_backward.small_device.m257_n44_k96_g32_groups3",
    NULL,
};

static q4_status check(const q4_case *c, q4_error *err) { return q4c_linear_check(c, 0, err); }

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    return q4c_make_linear(c, in, "dout", &in->dout, c->n, err);
}

static void random_case(q4_case *c)
{
    q4c_rng g = q4c_sweep_rng(c);
    q4c_random_linear(&g, c);
    q4c_random_values(&q4c_op_linear_q4gsw_backward, &g, c);
}

const q4c_op q4c_op_linear_q4gsw_backward = {
    .name = "linear_q4gsw_backward", .keys = "m|d n k g", .allowed = "mdnkg", .required = "mnkg",
    .families = families, .classes = classes, .generated = generated,
    .fill = q4c_linear_fill, .format = q4c_linear_format, .check = check, .inputs = inputs,
    .check_inputs = q4c_weight_check_scales, .random = random_case,
};
