/* case_internal.h: what the files of q4cases share and users do not see: the op
 * table, the family rules, the generated name list, the integer PRNG and the exact
 * float makers. */
#ifndef Q4CASE_INTERNAL_H
#define Q4CASE_INTERNAL_H

#include <stdint.h>

#include "q4case.h"

/* Which parameters an op's names take (README.md "Name grammar"). */
typedef enum q4c_kind {
    Q4C_LINEAR,   /* m|d n k g [b]: linear_q4gsw (b allowed), linear_q4gsw_backward */
    Q4C_DW,       /* m|d n k:       linear_dW */
    Q4C_WEIGHT,   /* n k g:         dequantize, q4gsw_requant */
    Q4C_CE,       /* r v p:         fused_ce */
    Q4C_ADAMW,    /* n t w:         adamw_step */
} q4c_kind;

typedef struct q4c_op {
    const char *name;
    q4c_kind kind;
    int has_bias;                    /* the b key is allowed (forward only) */
    const char *keys;                /* the parameter keys, for messages: "m|d n k g [b]" */
    const char *const *families;     /* NULL-terminated */
} q4c_op;

/* ---- case_families.c ---- */
const q4c_op *q4c_op_find(const char *name);
int q4c_op_has_family(const q4c_op *op, const char *family);
/* The rules of `family` for c: Q4_OK, or Q4_ERR_ARG with "family F needs ... (X = v)"
 * written to err (without the case-name prefix). */
q4_status q4c_family_check(const q4c_op *op, const q4_case *c, q4_error *err);
/* The generated set as canonical names (seed 0). */
extern const char *const q4c_generated[];
extern const size_t q4c_generated_count;

/* fused_ce: rows masked for R rows at p percent, rounded half up: (R*p + 50) / 100. */
static inline int64_t q4c_ce_masked_rows(int64_t r, int p) { return (r * p + 50) / 100; }

/* ---- case_name.c ---- */
/* The contract checks and family rules of a filled case, each message prefixed with
 * "case name '<canonical name>': ". Used by the parser and by q4_case_inputs. */
q4_status q4c_validate(const q4_case *c, q4_error *err);

/* ---- case_inputs.c ---- */
/* The adamw_step hyper-parameters of step t (README.md "AdamW"). */
void q4c_adamw_hyper(int64_t step, int wd, float *lr, float *beta1, float *beta2, float *eps,
                     float *wdv, float *bc1, float *bc2);

/* ---- case_rng.c ---- */
uint64_t q4c_fnv1a64(const void *data, size_t n, uint64_t h);   /* h = Q4C_FNV_OFFSET to start */
#define Q4C_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t q4c_fnv1a64_str(const char *s);

typedef struct q4c_rng { uint64_t state; } q4c_rng;
uint64_t q4c_mix64(uint64_t z);                       /* the splitmix64 finalizer */
uint64_t q4c_next(q4c_rng *g);                        /* splitmix64 */
uint64_t q4c_below(q4c_rng *g, uint64_t n);           /* next % n, n >= 1 */
int64_t q4c_range(q4c_rng *g, int64_t lo, int64_t hi); /* uniform integer in [lo, hi) */
/* i * 2^e exactly, for |i| < 2^24; a result below the smallest normal becomes 0
 * (the generator never emits a denormal). */
float q4c_exact(int64_t i, int e);
float q4c_signed_zero(int negative);                   /* +0 or -0, from bits */

#endif
