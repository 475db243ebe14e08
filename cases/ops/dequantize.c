/* dequantize.c: case descriptor of dequantize, Wf = (code - 8) * scale: names n k g,
 * its families and value classes, and its inputs (W_4X8 from seeded codes, scales). */
#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_dequantize;

static const q4c_family families[] = {
    {"tile_aligned", Q4C_R_N_ALIGNED | Q4C_R_K_ALIGNED, NULL},
    {"grouped", Q4C_R_GROUPED, NULL},
    {"odd_n4", Q4C_R_N_ODD4, NULL},
    {"large", Q4C_R_LARGE_NK, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "4-bit-significand scales +-(1 + m/8) * 2^e, e in [-8, -3]", 0},
    {"wide", "24-bit-significand scales, 2^-40..2^20", 0},
    {"tiny", "24-bit-significand scales, 2^-126..2^-100 (still normal)", 0},
    Q4C_CLASSES_BAD_SCALES,
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.dequantize.tile_aligned.n16_k32_g32",
    "q4cts.dequantize.tile_aligned.n64_k256_g64",
    "q4cts.dequantize.grouped.n32_k128_g32",
    "q4cts.dequantize.grouped.n48_k64_g4",
    "q4cts.dequantize.grouped.n24_k64_g16",
    "q4cts.dequantize.grouped.n16_k96_g12",
    "q4cts.dequantize.odd_n4.n12_k32_g32",
    "q4cts.dequantize.odd_n4.n4_k16_g16",
    "q4cts.dequantize.odd_n4.n20_k128_g32",
    "q4cts.dequantize.large.n4096_k1024_g128",
    "q4cts.dequantize.large.n2052_k512_g32",
    "q4cts.dequantize.custom.n44_k96_g32",
    /* value classes */
    "q4cts.dequantize.grouped.n16_k96_g12.wide",
    "q4cts.dequantize.odd_n4.n20_k128_g32.wide",
    "q4cts.dequantize.custom.n44_k96_g32.tiny",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.dequantize.random.s0",
    "q4cts.dequantize.random.s1",
    "q4cts.dequantize.random.s2",
    "q4cts.dequantize.random.s3",
    "q4cts.dequantize.small_device.n64_k512_g32_groups3",
    "q4cts.dequantize.small_device.n96_k512_g32_groups2",   /* 6 groups: 2 x 2 x 2 */
    NULL,
};

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    return q4c_make_weight(c, in, q4c_scale_mode_of(c), err);
}

static void random_case(q4_case *c)
{
    q4c_rng g = q4c_sweep_rng(c);
    q4c_random_weight(&g, c);
    q4c_random_values(&q4c_op_dequantize, &g, c);
}

const q4c_op q4c_op_dequantize = {
    .name = "dequantize", .keys = "n k g", .allowed = "nkg", .required = "nkg",
    .families = families, .classes = classes, .generated = generated,
    .fill = q4c_weight_fill, .format = q4c_weight_format, .check = q4c_weight_check,
    .inputs = inputs, .check_inputs = q4c_weight_check_scales, .random = random_case,
};
