/* case_internal.h: what the files of q4cases share and users do not see: the op
 * descriptor (one per op, ops/<op>.c, listed in case_ops.c), the family rules, the
 * name-writing and parameter helpers, the value makers, and the integer PRNG. */
#ifndef Q4CASE_INTERNAL_H
#define Q4CASE_INTERNAL_H

#include <stdint.h>

#include "q4case.h"

/* Above any shape that fits in memory, and small enough that products of a few
 * parameters (R * 100, M * N * K in double) stay exact and never overflow. */
#define Q4C_NUM_MAX (1ll << 40)

/* ---------------- family rules (case_families.c) ----------------
 * A family row states the rules a name must meet; the same rule means the same
 * thing for every op (SPEC §4). */
enum {
    Q4C_R_M_ALIGNED = 1 << 0,     /* M % TILE_M == 0 */
    Q4C_R_N_ALIGNED = 1 << 1,     /* N % TILE_N == 0 */
    Q4C_R_K_ALIGNED = 1 << 2,     /* K % TILE_K == 0 */
    Q4C_R_M_PARTIAL = 1 << 3,     /* M % TILE_M != 0 */
    Q4C_R_N_ODD4 = 1 << 4,        /* N % 8 != 0 */
    Q4C_R_GROUPED = 1 << 5,       /* K / gs >= 2 */
    Q4C_R_LEAD = 1 << 6,          /* at least two leading dims */
    Q4C_R_BIAS = 1 << 7,          /* b1 */
    Q4C_R_LARGE_MNK = 1 << 8,     /* M*N*K >= 2^22 */
    Q4C_R_LARGE_NK = 1 << 9,      /* N*K >= 2^20 */
    Q4C_R_LARGE_NUMEL = 1 << 10,  /* numel >= 2^18 */
    Q4C_R_P_ZERO = 1 << 11,       /* p0 */
    Q4C_R_P_SOME = 1 << 12,       /* between 1 and R-1 rows masked */
    Q4C_R_P_ALL = 1 << 13,        /* p100 */
    Q4C_R_V_ALIGNED = 1 << 14,    /* V % 4 == 0 */
    Q4C_R_V_UNALIGNED = 1 << 15,  /* V % 4 != 0 */
    Q4C_R_V_LARGE = 1 << 16,      /* V >= 32768 */
    Q4C_R_R_MANY = 1 << 17,       /* R >= 256 */
    Q4C_R_W_ON = 1 << 18,         /* w1 */
    Q4C_R_W_OFF = 1 << 19,        /* w0 */
    Q4C_R_T_LATE = 1 << 20,       /* t >= 1000 */
    Q4C_R_NUMEL_UNALIGNED = 1 << 21, /* numel % 4 != 0 */
    Q4C_R_LIMITS = 1 << 22,       /* lowers a device limit (small_device); no other family may */
};

/* One family of one op: its shape rule and its effect on the inputs together. */
typedef struct q4c_family {
    const char *name;
    unsigned rules;               /* Q4C_R_* */
    const char *values;           /* the value class its inputs always use (NULL: the name's) */
} q4c_family;

/* The shape families of the quantized linear ops (forward, backward), listing order. */
#define Q4C_FAMILIES_LINEAR_Q4                                                   \
    {"tile_aligned", Q4C_R_M_ALIGNED | Q4C_R_N_ALIGNED | Q4C_R_K_ALIGNED, NULL}, \
    {"grouped", Q4C_R_GROUPED, NULL},                                            \
    {"odd_n4", Q4C_R_N_ODD4, NULL},                                              \
    {"partial_m", Q4C_R_M_PARTIAL, NULL},                                        \
    {"odd_n4_partial_m", Q4C_R_N_ODD4 | Q4C_R_M_PARTIAL, NULL},                  \
    {"grouped_odd_n4", Q4C_R_GROUPED | Q4C_R_N_ODD4, NULL},                      \
    {"leading_dims", Q4C_R_LEAD, NULL}
/* The families every op's list ends with (any shape; a small device's limits; a
 * random draw), and the end of the list. */
#define Q4C_FAMILIES_ANY_SHAPE                                                  \
    {"custom", 0, NULL}, {"small_device", Q4C_R_LIMITS, NULL}, {"random", 0, NULL}, \
    {NULL, 0, NULL}

/* The rules of family f for c: Q4_OK, or Q4_ERR_ARG with "family F needs ... (X = v)"
 * written to err (without the case-name prefix). */
q4_status q4c_family_check(const q4c_family *f, const q4_case *c, q4_error *err);
/* The line q4_case_family_doc returns: one per family name, the same for every op. */
const char *q4c_family_doc(const char *family);

/* One value class of one op: what its inputs hold (README.md "Value classes"). */
typedef struct q4c_class {
    const char *name;
    const char *doc;
    int out_of_contract;          /* its inputs break the contract: the name is an error */
} q4c_class;

/* fused_ce: rows masked for R rows at p percent, rounded half up: (R*p + 50) / 100. */
static inline int64_t q4c_ce_masked_rows(int64_t r, int p) { return (r * p + 50) / 100; }

/* The value classes every op with scales has: one scale out of contract (SPEC §1). */
#define Q4C_CLASSES_BAD_SCALES                                                              \
    {"scale_denormal", "out of contract: one scale denormal; the name is an error (exit 2)", 1}, \
    {"scale_inf", "out of contract: one scale +-Inf; the name is an error (exit 2)", 1},         \
    {"scale_nan", "out of contract: one scale NaN; the name is an error (exit 2)", 1}

/* ---------------- the op descriptor ---------------- */

/* The parameter tokens of a name, by key letter (case_name.c). */
typedef struct q4c_params {
    int have[26];
    int64_t val[26];
    int64_t lead[4];
    int nlead;
    int have_limit[Q4_CASE_LIMITS];   /* the device-limit tokens (groups8, ...) */
    int64_t limit[Q4_CASE_LIMITS];
} q4c_params;
#define Q4C_P(p, key) ((p)->val[(key) - 'a'])
#define Q4C_HAVE(p, key) ((p)->have[(key) - 'a'])

/* A name being written: appends are truncated, never overflowed. */
typedef struct q4c_text {
    char *buf;
    size_t size, len;
} q4c_text;
void q4c_put(q4c_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct q4c_op {
    const char *name;
    const char *keys;             /* for messages, canonical order: "m|d n k g [b]" */
    const char *allowed;          /* the key letters its names take */
    const char *required;         /* required keys in canonical order; 'm' stands for m or d */
    const q4c_family *families;   /* name == NULL ends the list */
    const q4c_class *classes;     /* name == NULL ends the list; [0] is the default */
    const char *const *generated; /* the shipped cases, canonical names; NULL ends the list */
    /* Fields of c from the parsed tokens (required ones present); a value the name's
     * syntax allows but the op forbids may be left for check. Message without prefix. */
    q4_status (*fill)(const q4c_params *p, q4_case *c, q4_error *err);
    void (*format)(const q4_case *c, q4c_text *t);   /* the params level, canonical */
    /* Values and the op contract (q4_contract.h) of a filled case; no prefix. */
    q4_status (*check)(const q4_case *c, q4_error *err);
    /* A random legal shape and value class from the sweep seed s (c->sweep). */
    void (*random)(q4_case *c);
    /* Fills the buffers and scalars of in (zeroed; freed by the caller on failure). */
    q4_status (*inputs)(const q4_case *c, q4_inputs *in, q4_error *err);
    /* The value checks of the contract on made inputs (scales, labels, n_valid, ...). */
    q4_status (*check_inputs)(const q4_case *c, const q4_inputs *in, q4_error *err);
} q4c_op;

/* ---- case_ops.c: the table, the only place that lists the ops ---- */
const q4c_op *q4c_op_find(const char *name);
const q4c_op *q4c_op_at(int i);   /* NULL past the end */
const q4c_family *q4c_family_find(const q4c_op *op, const char *family);
const q4c_class *q4c_class_find(const q4c_op *op, const char *cls);
/* The value class a case's inputs use: its family's, else its name's, else the default. */
const char *q4c_values_of(const q4c_op *op, const q4_case *c);
int q4c_values_is(const q4_case *c, const char *cls);

/* ---- case_name.c: helpers the linear ops share ---- */
void q4c_format_m(const q4_case *c, q4c_text *t);      /* m<M> or d<A>x<B>.. */
void q4c_fill_m(const q4c_params *p, q4_case *c);      /* m, nlead, lead from m or d */
q4_status q4c_check_lead(const q4_case *c, q4_error *err);
/* The name part of the quantized linear ops, keys m|d n k g [b] (b only where the op's
 * `allowed` has it), printed m<M>_n<N>_k<K>_g<gs>[_b1]; and its checks: the leading
 * dims, b in 0..max_bias, q4_check_linear. */
q4_status q4c_linear_fill(const q4c_params *p, q4_case *c, q4_error *err);
void q4c_linear_format(const q4_case *c, q4c_text *t);
q4_status q4c_linear_check(const q4_case *c, int max_bias, q4_error *err);
/* The contract checks and family rules of a filled case, each message prefixed with
 * "case name '<canonical name>': ". Used by the parser and by q4_case_inputs. */
q4_status q4c_validate(const q4_case *c, q4_error *err);

/* ---- case_rng.c ---- */
uint64_t q4c_fnv1a64(const void *data, size_t n, uint64_t h);   /* h = Q4C_FNV_OFFSET to start */
#define Q4C_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t q4c_fnv1a64_str(const char *s);

typedef struct q4c_rng { uint64_t state; } q4c_rng;
uint64_t q4c_mix64(uint64_t z);                       /* the splitmix64 finalizer */
uint64_t q4c_next(q4c_rng *g);                        /* splitmix64 */
q4c_rng q4c_at(q4c_rng g, int64_t i);                 /* g after i draws: a counter, O(1) */
uint64_t q4c_below(q4c_rng *g, uint64_t n);           /* next % n, n >= 1 */
int64_t q4c_range(q4c_rng *g, int64_t lo, int64_t hi); /* uniform integer in [lo, hi) */
/* i * 2^e exactly, for |i| < 2^24; a result below the smallest normal becomes 0
 * (the generator never emits a denormal). */
float q4c_exact(int64_t i, int e);
float q4c_signed_zero(int negative);                   /* +0 or -0, from bits */
float q4c_from_bits(uint32_t bits);                    /* any float, NaN included */

/* ---- case_random.c: the draws of the random family (q4cts.<op>.random.s<N>) ---- */
/* The generator of sweep N of c's op: splitmix64 from N and the op name only, so a
 * sweep's shape never depends on the user seed (the inputs do). */
q4c_rng q4c_sweep_rng(const q4_case *c);
/* One of the op's in-contract value classes into c->values: ordinary half the time. */
void q4c_random_values(const q4c_op *op, q4c_rng *g, q4_case *c);
/* Weighted towards the edges: M = 1 a quarter of the time, else small or up to max. */
int64_t q4c_random_m(q4c_rng *g, int64_t max);
/* N a multiple of 4 up to max4 * 4, with N % 8 == 4 (an odd N4) half the time. */
int64_t q4c_random_n(q4c_rng *g, int64_t max4);
/* K a multiple of 4 up to max4 * 4 (K = 4 a quarter of the time), and a group size
 * dividing it (gs = 4 a third, gs = K a third, else any multiple of 4 dividing K). */
void q4c_random_kg(q4c_rng *g, int64_t max4, int64_t *k, int64_t *gs);
/* The shape of a quantized linear op: M up to 70, N and K up to 192, gs of K. */
void q4c_random_linear(q4c_rng *g, q4_case *c);
/* The shape of a weight op (dequantize, requant): N up to 256, K up to 384, gs of K. */
void q4c_random_weight(q4c_rng *g, q4_case *c);

/* ---- case_values.c: the value makers the ops share ---- */
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

/* The name part and contract check of an op whose case is one weight [N, K] with
 * group size gs (dequantize, requant): keys n k g, printed n<N>_k<K>_g<gs>. */
q4_status q4c_weight_fill(const q4c_params *p, q4_case *c, q4_error *err);
void q4c_weight_format(const q4_case *c, q4c_text *t);
q4_status q4c_weight_check(const q4_case *c, q4_error *err);
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
