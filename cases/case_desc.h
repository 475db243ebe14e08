/* case_desc.h: the op descriptor of q4cases (one per op, ops/<op>.c, listed in
 * case_ops.c) and what its rows are made of: the family rows and their rule bits,
 * the value-class rows, the parsed parameter tokens and the name being written; and
 * the lookups within one descriptor (case_desc.c). A case resolved by the parser
 * carries its descriptor (q4_case.desc): the lookups below use it and never search
 * the table of ops. */
#ifndef Q4C_CASE_DESC_H
#define Q4C_CASE_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "q4case.h"

/* Above any shape that fits in memory, and small enough that products of a few
 * parameters (R * 100, M * N * K in double) stay exact and never overflow. */
#define Q4C_NUM_MAX (1ll << 40)

/* ---------------- family rules ----------------
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

/* ---- case_desc.c: lookups within one descriptor ---- */
const q4c_family *q4c_family_find(const q4c_op *op, const char *family);
const q4c_class *q4c_class_find(const q4c_op *op, const char *cls);
/* The value class a case's inputs use: its family's, else its name's, else the default. */
const char *q4c_values_of(const q4c_op *op, const q4_case *c);
/* Whether the case's inputs use value class cls; c->desc must be set (q4_case_parse
 * sets it; q4_case_inputs and the validation resolve a hand-built case first). */
int q4c_values_is(const q4_case *c, const char *cls);

#endif
