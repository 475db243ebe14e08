/* q4ref_zoo.h: the zoo of legal fp32 evaluations (docs/numerics.md section 6).
 *
 * Each op has several CPU fp32 implementations that SPEC §3 allows and that real
 * kernels use: summation orders (sequential, pairwise, split-K), FMA contracted or
 * not, the weight dequantized first (each weight rounded to fp32 once and reused by
 * every row) or fused per term, the scale per term or hoisted per group, a two-pass or
 * an online softmax, division or a reciprocal, AdamW as SPEC writes it and in the
 * algebraically equal forms its bound covers. Every variant is a legal kernel: the
 * judges must pass all of them at every size (the null test, tests/null/).
 *
 * A variant may also carry a planted bias (`bias` != 0): the same evaluation with one
 * systematic error of relative size `bias`, which the judges must catch from some size
 * on; the null test's power table sweeps it. The sources are compiled with
 * -ffp-contract=off, so a variant without FMA really rounds every product. */
#ifndef Q4REF_ZOO_H
#define Q4REF_ZOO_H

#include <stdint.h>

#include "q4ref.h"

/* The dot-product ops: how one output's sum is formed. */
typedef enum q4ref_zoo_order {
    Q4REF_ZOO_SEQ,        /* s = s + t_k, k ascending */
    Q4REF_ZOO_FMA,        /* s = fma(a_k, b_k, s): the last product fused */
    Q4REF_ZOO_PAIRWISE,   /* a balanced tree of the terms */
    Q4REF_ZOO_SPLITK,     /* 16 sequential partial sums, then their sum */
} q4ref_zoo_order;

/* The q4 linears: how a weight (code - 8) * s enters a term. */
typedef enum q4ref_zoo_weight {
    Q4REF_ZOO_DEQUANT_FIRST,  /* w = fl((c - 8) s) once, shared by every row: a * w */
    Q4REF_ZOO_PER_TERM,       /* fl(fl(a (c - 8)) s) per term */
    Q4REF_ZOO_HOIST_GROUP,    /* forward: s fl(sum over the group of a (c - 8)), per group */
} q4ref_zoo_weight;

typedef struct q4ref_zoo_dot {
    q4ref_zoo_order order;
    q4ref_zoo_weight weight;
    double bias;              /* planted: every scale times (1 + bias) (dW: every product) */
} q4ref_zoo_dot;

/* fused CE: the row's sum, the softmax and the scaling by 1 / n_valid. */
typedef enum q4ref_zoo_ce_sum {
    Q4REF_ZOO_CE_TWO_PASS,    /* max, then sum of exp(x - max) in order */
    Q4REF_ZOO_CE_PAIRWISE,    /* max, then a pairwise sum */
    Q4REF_ZOO_CE_ONLINE,      /* one pass: running max, the sum rescaled at each new max */
    Q4REF_ZOO_CE_BLOCKED,     /* online per block of 256, blocks merged (a workgroup's way) */
} q4ref_zoo_ce_sum;

typedef struct q4ref_zoo_ce {
    q4ref_zoo_ce_sum sum;
    int p_by_lse;             /* p = exp(x - lse) instead of e / S */
    int recip;                /* e * (1 / S) and g * (1 / n_valid) instead of divisions */
    double bias;              /* planted: every softmax value times (1 + bias) */
} q4ref_zoo_ce;

/* AdamW: the forms of SPEC §2's update that its bound covers. */
typedef struct q4ref_zoo_adamw {
    int fma;                  /* every a*b + c contracted */
    int torch_decay;          /* p (1 - lr wd) instead of p - (lr wd) p */
    int lr_outside;           /* lr (m^ / den) instead of (lr m^) / den */
    double bias;              /* planted: the new param pulled toward zero by |p| bias */
} q4ref_zoo_adamw;

/* The sum of t[0..n) as a balanced tree of fp32 additions (n >= 1): the zoo's pairwise
 * order, for the linears' dot products and fused CE's row sums alike. */
float q4ref_zoo_pairwise(const float *t, int64_t n);

/* Outputs as the ops' fp32 paths write them; arguments as q4ref.h's (checked there:
 * these take what the truth accepted). */
q4_status q4ref_zoo_linear_fwd(const q4ref_zoo_dot *z, const float *x, const uint32_t *w,
                               const float *scales, const float *bias, int64_t M, int64_t N,
                               int64_t K, int64_t gs, float *y, q4_error *err);
q4_status q4ref_zoo_linear_bwd(const q4ref_zoo_dot *z, const float *dout, const uint32_t *w,
                               const float *scales, int64_t M, int64_t N, int64_t K, int64_t gs,
                               float *dx, q4_error *err);
q4_status q4ref_zoo_linear_dw(const q4ref_zoo_dot *z, const float *dout, const float *x,
                              int64_t M, int64_t N, int64_t K, float *dw, q4_error *err);
q4_status q4ref_zoo_fused_ce(const q4ref_zoo_ce *z, const float *logits, const int32_t *labels,
                             int64_t R, int64_t V, float n_valid, float *loss, float *dlogits,
                             q4_error *err);
q4_status q4ref_zoo_adamw_step(const q4ref_zoo_adamw *z, float *param, const float *grad,
                               float *m, float *v, int64_t numel, const q4ref_adamw_hyper *h,
                               q4_error *err);

#endif
