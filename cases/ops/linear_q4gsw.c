/* linear_q4gsw.c: case descriptor of the forward linear op, y = x @ dequant(W)^T (+ bias):
 * names m|d n k g [b], its families and value classes, and its inputs (x, W, scales,
 * bias with b1). */
#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_linear_q4gsw;

static const q4c_family families[] = {
    Q4C_FAMILIES_LINEAR_Q4,
    {"bias", Q4C_R_BIAS, NULL},
    {"large", Q4C_R_LARGE_MNK, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "x, bias in [-1, 1) with 23 fraction bits; 4-bit-significand scales", 0},
    Q4C_CLASSES_WIDE_TINY("x and bias"),
    Q4C_CLASSES_BAD_SCALES,
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.linear_q4gsw.tile_aligned.m8_n16_k32_g32",
    "q4cts.linear_q4gsw.tile_aligned.m16_n32_k64_g64",
    "q4cts.linear_q4gsw.tile_aligned.m64_n64_k128_g128",
    "q4cts.linear_q4gsw.tile_aligned.m32_n128_k256_g64",
    "q4cts.linear_q4gsw.grouped.m8_n32_k64_g32",
    "q4cts.linear_q4gsw.grouped.m16_n64_k256_g32",
    "q4cts.linear_q4gsw.grouped.m4_n16_k128_g16",
    "q4cts.linear_q4gsw.grouped.m8_n16_k64_g4",
    "q4cts.linear_q4gsw.grouped.m24_n32_k96_g12",
    "q4cts.linear_q4gsw.grouped.m24_n32_k36_g12",
    "q4cts.linear_q4gsw.odd_n4.m8_n12_k32_g32",
    "q4cts.linear_q4gsw.odd_n4.m16_n20_k64_g64",
    "q4cts.linear_q4gsw.odd_n4.m32_n44_k128_g128",
    "q4cts.linear_q4gsw.odd_n4.m8_n4_k16_g16",
    "q4cts.linear_q4gsw.partial_m.m1_n16_k32_g32",
    "q4cts.linear_q4gsw.partial_m.m1_n256_k256_g64",
    "q4cts.linear_q4gsw.partial_m.m2_n32_k64_g64",
    "q4cts.linear_q4gsw.partial_m.m3_n32_k64_g32",
    "q4cts.linear_q4gsw.partial_m.m4_n64_k128_g64",
    "q4cts.linear_q4gsw.partial_m.m5_n32_k64_g64",
    "q4cts.linear_q4gsw.partial_m.m6_n16_k64_g16",
    "q4cts.linear_q4gsw.partial_m.m7_n32_k32_g32",
    "q4cts.linear_q4gsw.partial_m.m9_n32_k64_g64",
    "q4cts.linear_q4gsw.partial_m.m7_n32_k1024_g32",
    "q4cts.linear_q4gsw.partial_m.m63_n64_k128_g64",
    "q4cts.linear_q4gsw.partial_m.m65_n32_k64_g32",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m5_n12_k16_g16",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m1_n12_k32_g32",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m1_n4_k4_g4",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m3_n20_k64_g32",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m13_n36_k64_g64",
    "q4cts.linear_q4gsw.odd_n4_partial_m.m70_n28_k96_g32",
    "q4cts.linear_q4gsw.grouped_odd_n4.m8_n12_k64_g16",
    "q4cts.linear_q4gsw.grouped_odd_n4.m16_n20_k128_g32",
    "q4cts.linear_q4gsw.grouped_odd_n4.m5_n36_k96_g32",
    "q4cts.linear_q4gsw.leading_dims.d2x3_n16_k32_g32",
    "q4cts.linear_q4gsw.leading_dims.d2x4_n32_k64_g32",
    "q4cts.linear_q4gsw.leading_dims.d3x5x2_n12_k32_g16",
    "q4cts.linear_q4gsw.leading_dims.d1x1_n8_k16_g16",
    "q4cts.linear_q4gsw.leading_dims.d2x2x2x2_n16_k64_g64",
    "q4cts.linear_q4gsw.bias.m8_n16_k32_g32_b1",
    "q4cts.linear_q4gsw.bias.m5_n12_k64_g32_b1",
    "q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1",
    "q4cts.linear_q4gsw.bias.d2x3_n20_k64_g64_b1",
    "q4cts.linear_q4gsw.bias.m16_n64_k1040_g16_b1",
    "q4cts.linear_q4gsw.large.m300_n264_k512_g128",
    "q4cts.linear_q4gsw.large.m257_n520_k256_g64_b1",
    "q4cts.linear_q4gsw.large.m128_n1028_k128_g32",
    "q4cts.linear_q4gsw.large.m1_n4096_k1024_g128",
    /* gs above 128: the tensor-core path's exponent blocks (128 K) are finer than a group */
    "q4cts.linear_q4gsw.grouped.m40_n64_k512_g256",
    "q4cts.linear_q4gsw.large.m2_n2048_k2048_g64",
    /* M >= 2048: the dense path (dequantize, transposes, linear_tn_tiled) */
    "q4cts.linear_q4gsw.large.m2050_n36_k64_g32_b1",
    "q4cts.linear_q4gsw.large.m2048_n68_k1040_g16_b1",
    "q4cts.linear_q4gsw.custom.m3_n44_k96_g32",
    /* value classes */
    "q4cts.linear_q4gsw.custom.m3_n44_k96_g32.wide",
    "q4cts.linear_q4gsw.grouped.m8_n32_k64_g32.wide",
    "q4cts.linear_q4gsw.partial_m.m1_n256_k256_g64.wide",
    "q4cts.linear_q4gsw.tile_aligned.m64_n64_k128_g128.wide",
    "q4cts.linear_q4gsw.bias.m5_n12_k64_g32_b1.wide",
    "q4cts.linear_q4gsw.grouped.m24_n32_k96_g12.tiny",
    "q4cts.linear_q4gsw.partial_m.m1_n16_k32_g32.tiny",
    "q4cts.linear_q4gsw.bias.m8_n16_k32_g32_b1.tiny",
    "q4cts.linear_q4gsw.tile_aligned.m64_n64_k128_g128.tiny",
    "q4cts.linear_q4gsw.tile_aligned.m64_n64_k128_g128.deep",
    "q4cts.linear_q4gsw.partial_m.m3_n32_k64_g32.deep",
    "q4cts.linear_q4gsw.bias.m40_n64_k512_g256_b1.deep",
    /* activation outliers: too coarse for the tensor-core path's four digits, which then
     * hands the call to the fp32 path */
    "q4cts.linear_q4gsw.partial_m.m41_n64_k64_g64.outlier",
    "q4cts.linear_q4gsw.grouped.m16_n32_k256_g128.outlier",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.linear_q4gsw.random.s0",
    "q4cts.linear_q4gsw.random.s1",
    "q4cts.linear_q4gsw.random.s2",
    "q4cts.linear_q4gsw.random.s3",
    "q4cts.linear_q4gsw.small_device.m65_n32_k64_g32_groups8_binding8192_shared16384_invocations128",
    "q4cts.linear_q4gsw.small_device.m130_n192_k64_g32_groups4",
    "q4cts.linear_q4gsw.small_device.m24_n128_k1040_g16_b1_groups2",
    "q4cts.linear_q4gsw.small_device.m24_n128_k1040_g16_b1_binding98304",
    "q4cts.linear_q4gsw.small_device.m4_n96_k128_g64_groups2_invocations128",
    "q4cts.linear_q4gsw.small_device.m5_n32_k256_g32_shared16384",
    "q4cts.linear_q4gsw.small_device.m2050_n344_k96_g32_groups16",
    "q4cts.linear_q4gsw.small_device.m2048_n16_k64_g32_binding262144",
    /* at most 5 workgroups a dimension: the tensor-core path's three kernels get
     * folded grids with spare workgroups (9 tiles, 12 and 12 workgroups as 5 x 2, 5 x 3
     * and 5 x 3; 6, 36 and 24 as 5 x 2, 5 x 5 x 2 and 5 x 5); at 3 a dimension 36
     * workgroups no longer fit and the fp32 path runs */
    "q4cts.linear_q4gsw.small_device.m130_n384_k64_g64_groups5",
    "q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups5",
    "q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups3",
    /* grids folded over z too: gemv 7 strips (2 x 2 x 2); tiled 36 tiles (4 x 4 x 3; the
     * tensor-core path's 24, 48 and 18 as 4 x 4 x 2, 4 x 4 x 3 and 4 x 4 x 2); split-K
     * 8 workgroups and its reduce 6 (2 x 2 x 2); the dense path's dequantize_t 37,
     * transpose 195 and GEMM 119 (6 x 6 x 2, 6 x 6 x 6 and 6 x 6 x 4) */
    "q4cts.linear_q4gsw.small_device.m3_n200_k64_g32_groups2",
    "q4cts.linear_q4gsw.small_device.m130_n768_k128_g64_groups4",
    "q4cts.linear_q4gsw.small_device.m24_n256_k1040_g16_b1_groups2",
    "q4cts.linear_q4gsw.small_device.m2050_n776_k96_g32_groups6",
    NULL,
};

static q4_status check(const q4_case *c, q4_error *err) { return q4c_linear_check(c, 1, err); }

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    q4_status st = q4c_make_linear(c, in, "x", &in->x, c->k, err);
    if (st || !c->bias)
        return st;
    Q4C_ALLOC(in, bias, c->n, "bias");
    q4c_fill_act(c, "bias", in->bias, c->n);
    return Q4_OK;
}

static void random_case(q4_case *c)
{
    q4c_rng g = q4c_sweep_rng(c);
    q4c_random_linear(&g, c);
    c->bias = (int)(q4c_next(&g) & 1);
    q4c_random_values(&q4c_op_linear_q4gsw, &g, c);
}

const q4c_op q4c_op_linear_q4gsw = {
    .name = "linear_q4gsw", .keys = "m|d n k g [b]", .allowed = "mdnkgb", .required = "mnkg",
    .families = families, .classes = classes, .generated = generated,
    .fill = q4c_linear_fill, .format = q4c_linear_format, .check = check, .inputs = inputs,
    .check_inputs = q4c_weight_check_scales, .random = random_case,
};
