/* q4ref_internal.h: helpers shared by the q4ref source files, not part of the API.
 *
 * - argument checks over lists of buffers (non-NULL, outputs disjoint from inputs
 *   and from each other), the BLAS index limit, and counted allocation with the
 *   fault-injection hook of q4ref_fault_alloc_at (q4ref_check.c);
 * - q4ref_ev, a value with a first-order running error bound, and the bound chains
 *   of the element-wise ops (q4ref_bounds.c, the one place for tolerances). */
#ifndef Q4REF_INTERNAL_H
#define Q4REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cblas.h>

#include "q4ref.h"

/* ---------------- arguments (q4ref_check.c) ---------------- */
typedef struct q4ref_buf {
    const void *p;
    size_t bytes;
    const char *name;
    int optional;   /* NULL allowed (e.g. bias) */
} q4ref_buf;

/* Every non-optional buffer non-NULL; every output disjoint from every input and
 * from every other output. */
q4_status q4ref_check_bufs(const q4ref_buf *ins, int nin, const q4ref_buf *outs, int nout,
                           q4_error *err);
/* OpenBLAS here uses 32-bit indices: a dimension above INT_MAX is Q4_ERR_UNSUPPORTED. */
q4_status q4ref_check_blas_dim(const char *name, int64_t v, q4_error *err);
/* a*b elements of elem bytes; NULL with Q4_ERR_ARG (overflow) or Q4_ERR_NOMEM in *st. */
void *q4ref_alloc(int64_t a, int64_t b, size_t elem, const char *what, q4_status *st,
                  q4_error *err);

/* The index of this thread of a parallel loop (q4ref_threads.c). */
int q4ref_thread(void);
/* Row-major C[m,n] = op(A) op(B) + beta C (alpha 1, ldc = n) on every core, bit-identical
 * for any thread count. */
void q4ref_dgemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                 int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb,
                 double beta, double *c);
void q4ref_sgemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                 int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                 float beta, float *c);

/* Fills wf [N,K] from W_4X8 words without checks (callers have checked); q4ref_dequantize.c. */
void q4ref_dequant_w4x8_unchecked(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                                  int64_t gs, float *wf);
/* The same in fp64 (exact: a 4-bit integer times an fp32 scale fits 53 bits). */
void q4ref_dequant_w4x8_f64(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                            int64_t gs, double *wd);

/* ---------------- running error analysis (q4ref_bounds.c) ---------------- */
/* A real number known as v with |exact fp32-evaluation result - v| <= e, where v is
 * the fp64 evaluation of the same formula; for the statistical envelope, the part of
 * that error that may be systematic (a) and the sub-Gaussian scale of the random rest
 * (q) (q4ref_bounds.c, docs/numerics.md). */
typedef struct q4ref_ev {
    double v;
    double e;
    double a, q;
} q4ref_ev;

/* One bound per output element of fused CE (SPEC §2, §3); see q4ref_bounds.c. */
typedef struct q4ref_ce_row {
    q4ref_ev loss;           /* loss_r = (lse - x_l) / n_valid */
    int valid;               /* 0: a masked row (loss_r = 0 exactly) */
} q4ref_ce_row;
/* Row r of [V] logits with label l >= 0: fills loss and per-column dlogits value and
 * bound, and the envelope (q4ref_envelope: alw, sd, shr). */
void q4ref_ce_row_bound(const float *x, int64_t V, int32_t l, float n_valid,
                        q4ref_ce_row *row, double *dv, double *db, float *alw, float *sd,
                        float *shr);
/* Value and bound of loss = the sum of the R row losses. */
q4ref_ev q4ref_ce_loss_sum(const q4ref_ce_row *rows, int64_t R);

/* One AdamW element: values and bounds of the new p, m, v (SPEC §2, §3), from the
 * hyper-parameters' ev's that every element shares (q4ref_adamw_consts_of, once a step). */
typedef struct q4ref_adamw_consts {
    q4ref_ev lr, b1, b2, lrwd, keep, c1, c2, bc1, bc2, eps;   /* keep: 1 - lr*wd */
} q4ref_adamw_consts;
void q4ref_adamw_consts_of(const q4ref_adamw_hyper *h, q4ref_adamw_consts *k);
void q4ref_adamw_elem_bound(float p, float g, float m, float v, const q4ref_adamw_consts *k,
                            q4ref_ev *p_out, q4ref_ev *m_out, q4ref_ev *v_out);

/* requant (SPEC §3): half-width, in fp32 ULPs at the quotient, of the window in which
 * a conformant division may land. */
double q4ref_requant_window_ulps(void);

#endif
