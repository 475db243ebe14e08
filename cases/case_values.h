/* case_values.h: the value makers the ops share (case_values.c): per-tensor
 * generator streams, the fills, the scales of each mode, the weight inputs and the
 * quantized linear ops' weight + activation, the allocation of an input buffer. */
#ifndef Q4C_CASE_VALUES_H
#define Q4C_CASE_VALUES_H

#include <stdint.h>

#include "case_desc.h"
#include "case_rng.h"

/* The generator stream of one tensor of c (README.md "Generator"). */
q4c_rng q4c_stream(const q4_case *c, const char *tensor);
/* Uniform in [-A, A) * 2^-e, i.e. about [-A/2^e, A/2^e); A <= 2^23. */
void q4c_fill_sym(q4c_rng g, float *a, int64_t n, int64_t A, int e);
/* Uniform in [lo, hi) * 2^e. */
void q4c_fill_range(q4c_rng g, float *a, int64_t n, int64_t lo, int64_t hi, int e);
/* Full 24-bit significands, sign random, exponent uniform in [emin, emax]: every
 * value normal (emin >= -126). */
void q4c_fill_wide(q4c_rng g, float *a, int64_t n, int emin, int emax);
/* The same with significands of `bits` bits (1..24). */
void q4c_fill_bits(q4c_rng g, float *a, int64_t n, int bits, int emin, int emax);

typedef enum q4c_scale_mode {
    Q4C_SCALES_NORMAL,   /* +-(1 + m/8) * 2^e, e in [-8, -3] */
    Q4C_SCALES_POW2,     /* the same with m = 0 */
    Q4C_SCALES_ZERO,     /* a quarter +0 or -0 (scales[0] = +0, scales[1] = -0) */
    Q4C_SCALES_TINY,     /* a quarter (1 + m/8) * 2^-126 (scales[0] always) */
    Q4C_SCALES_WIDE,     /* 24-bit significands, e in [-40, 20] */
    Q4C_SCALES_TINY_WIDE, /* 24-bit significands, e in [-126, -100] */
    Q4C_SCALES_HUGE,     /* 24-bit significands, e in [70, 100] */
    Q4C_SCALES_ALL_ZERO, /* every scale +0 or -0 */
} q4c_scale_mode;
void q4c_fill_scales(q4c_rng g, float *s, int64_t n, q4c_scale_mode mode);
/* q4_w4x8_pack on every core: the same words (K a multiple of 4). */
void q4c_pack_w4x8(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w);

/* malloc of count elements; NULL with *st and err set when the size overflows or the
 * allocation fails. */
void *q4c_alloc(int64_t count, size_t elem, const char *what, const q4_case *c, q4_status *st,
                q4_error *err);
/* in->field = count elements, or return st from the enclosing function (which has
 * c, st and err in scope; the caller frees what was made). */
#define Q4C_ALLOC(in, field, count, what) \
    do { \
        if (!((in)->field = q4c_alloc((count), sizeof *(in)->field, (what), c, &st, err))) \
            return st; \
    } while (0)

/* The value check of every op with a weight: its scales are finite normals or zero (SPEC §1). */
q4_status q4c_weight_check_scales(const q4_case *c, const q4_inputs *in, q4_error *err);
/* The weight inputs of dequantize and the linear ops: scales (by mode), codes, W_4X8. */
q4_status q4c_make_weight(const q4_case *c, q4_inputs *in, q4c_scale_mode mode, q4_error *err);
/* The inputs of a quantized linear op: the weight (scales by the class) and its
 * activation `tensor` (x or dout), M rows of `cols`, into *act. */
q4_status q4c_make_linear(const q4_case *c, q4_inputs *in, const char *tensor, float **act,
                          int64_t cols, q4_error *err);
/* The scale mode of the shared classes ("wide", "tiny", "all_zero_scales"), else NORMAL. */
q4c_scale_mode q4c_scale_mode_of(const q4_case *c);
/* The bad-scale classes: one scale (seeded position) made denormal, +-Inf or NaN. */
void q4c_spoil_scales(const q4_case *c, float *s, int64_t n);
/* An activation-like tensor (x, dout, bias) by class: ordinary [-1, 1) with 23
 * fraction bits; wide: 24-bit significands, 2^-30..2^30; tiny: 24-bit significands,
 * 2^-40..2^-20 (with tiny scales, products below 2^-126: the bounds' absolute term). */
void q4c_fill_act(const q4_case *c, const char *tensor, float *a, int64_t n);
/* The activation-like classes' rows of classes[]. */
#define Q4C_CLASSES_WIDE_TINY(what)                                                          \
    {"wide", "24-bit significands over wide exponents: scales 2^-40..2^20, " what " 2^-30..2^30", 0}, \
    {"tiny", "24-bit significands, tiny: scales 2^-126..2^-100, " what " 2^-40..2^-20; products " \
             "below 2^-126 stress the bounds' absolute term", 0},                                \
    {"deep", what " with 8-bit significands over 2^-110..2^-101 (normal, near the bottom), "   \
             "scales 2^70..2^100 (24-bit): products 2^-40..2^3, normal; a kernel that scales "  \
             "an activation down, or forms a power of two below 2^-126, loses them", 0},        \
    {"outlier", what " 24-bit over 2^-8..2^0 but for one element in each 64 (a seeded "       \
                "position) at 2^20..2^24: the activation outliers of large models; a kernel "   \
                "that gives a block one exponent keeps few bits of the rest", 0}

#endif
