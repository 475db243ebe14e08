/* q4ref.h: the CPU reference of every op in ../shared/SPEC.md.
 *
 * Each op has an fp32 path backed by OpenBLAS (what a CPU user would run) and a
 * "truth" path evaluated in fp64 that also returns, per output element, the error
 * bound that SPEC §3 allows an fp32 implementation (GPU or CPU). All bounds are
 * computed in q4ref_bounds.c, the one place where tolerances live.
 *
 * Every entry point validates its arguments with the checks of q4_contract.h and
 * returns a q4_status; the library never aborts and never prints. Codes are one
 * per byte, row-major [N][K], values 0..15 (code = q + 8). */
#ifndef Q4REF_H
#define Q4REF_H

#include <stdint.h>

#include "q4_contract.h"

/* ---------------- format (q4ref_format.c) ---------------- */
static inline int q4ref_code_value(unsigned code) { return (int)code - 8; }

q4_status q4ref_pack_flat(const uint8_t *codes, int64_t N, int64_t K, uint8_t *flat, q4_error *err);
q4_status q4ref_unpack_flat(const uint8_t *flat, int64_t N, int64_t K, uint8_t *codes, q4_error *err);
/* Writes all q4_w4x8_words(N, K) words, padding words = Q4_W4X8_PAD. */
q4_status q4ref_pack_w4x8(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w, q4_error *err);
q4_status q4ref_unpack_w4x8(const uint32_t *w, int64_t N, int64_t K, uint8_t *codes, q4_error *err);

/* ---------------- dequantize (q4ref_dequantize.c) ---------------- */
/* Wf [N, K] = (code - 8) * scale, fp32 (exactly what a kernel computes per element). */
q4_status q4ref_dequant_w4x8(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                             int64_t gs, float *wf, q4_error *err);
q4_status q4ref_dequant_flat(const uint8_t *flat, const float *scales, int64_t N, int64_t K,
                             int64_t gs, float *wf, q4_error *err);

/* ---------------- ops, fp32 (BLAS-backed) ---------------- */
/* y [M,N] = x [M,K] @ dequant(W)^T (+ bias [N], may be NULL) */
q4_status q4ref_linear_fwd(const float *x, const uint32_t *w, const float *scales,
                           const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                           float *y, q4_error *err);
/* dx [M,K] = dout [M,N] @ dequant(W) */
q4_status q4ref_linear_bwd(const float *dout, const uint32_t *w, const float *scales,
                           int64_t M, int64_t N, int64_t K, int64_t gs, float *dx, q4_error *err);
/* dW [N,K] = dout[M,N]^T @ x[M,K] */
q4_status q4ref_linear_dw(const float *dout, const float *x, int64_t M, int64_t N, int64_t K,
                          float *dw, q4_error *err);
/* loss (scalar) and dlogits [R,V]; labels < 0 are masked rows. */
q4_status q4ref_fused_ce(const float *logits, const int32_t *labels, int64_t R, int64_t V,
                         float n_valid, float *loss, float *dlogits, q4_error *err);

typedef struct q4ref_adamw_hyper {
    float lr, beta1, beta2, eps, wd, bc1, bc2;
} q4ref_adamw_hyper;
/* In place on param, m, v. */
q4_status q4ref_adamw_step(float *param, const float *grad, float *m, float *v, int64_t numel,
                           const q4ref_adamw_hyper *h, q4_error *err);
/* codes [N,K] = clamp(roundEven(latent / s), -8, 7) + 8; 8 where s == 0. Either output may be NULL. */
q4_status q4ref_requant(const float *latent, const float *scales, int64_t N, int64_t K,
                        int64_t gs, uint32_t *w4x8, uint8_t *flat, q4_error *err);

/* ---------------- truth (fp64) with per-element bounds ----------------
 * value[i] is the exact result (to fp64 rounding) of the definition on the fp32
 * inputs; bound[i] is the largest |fp32 result - value| that SPEC §3 allows. */
q4_status q4ref_linear_fwd_truth(const float *x, const uint32_t *w, const float *scales,
                                 const float *bias, int64_t M, int64_t N, int64_t K, int64_t gs,
                                 double *value, double *bound, q4_error *err);
q4_status q4ref_linear_bwd_truth(const float *dout, const uint32_t *w, const float *scales,
                                 int64_t M, int64_t N, int64_t K, int64_t gs,
                                 double *value, double *bound, q4_error *err);
q4_status q4ref_linear_dw_truth(const float *dout, const float *x, int64_t M, int64_t N,
                                int64_t K, double *value, double *bound, q4_error *err);
/* loss_value/loss_bound are scalars; dlogits arrays are [R,V]. */
q4_status q4ref_fused_ce_truth(const float *logits, const int32_t *labels, int64_t R, int64_t V,
                               float n_valid, double *loss_value, double *loss_bound,
                               double *dlogits_value, double *dlogits_bound, q4_error *err);
/* Truth of one AdamW step from the given (unmodified) inputs; each output [numel]. */
q4_status q4ref_adamw_truth(const float *param, const float *grad, const float *m, const float *v,
                            int64_t numel, const q4ref_adamw_hyper *h,
                            double *param_value, double *param_bound,
                            double *m_value, double *m_bound,
                            double *v_value, double *v_bound, q4_error *err);
/* code[i] = the exact roundEven code; alt[i] = the other neighbour a conformant
 * division may give (SPEC §3: the exact quotient within 2.5 ULP, plus the fp32
 * quotient's own 0.5 ULP rounding, of a tie), else alt[i] = code[i].
 * Both [N,K], one code per byte. */
q4_status q4ref_requant_truth(const float *latent, const float *scales, int64_t N, int64_t K,
                              int64_t gs, uint8_t *code, uint8_t *alt, q4_error *err);
/* ---------------- statistical envelope (docs/numerics.md) ----------------
 * Beside each bound, what a correct fp32 kernel's error looks like over many elements
 * under the random-rounding model. Per element: alw, an allowance for error that may
 * have one sign over many elements; sd, the sub-Gaussian scale of the independent,
 * mean-zero rest; shr (may be NULL), the coefficient of a factor shared by a row: the
 * row's elements may all move by t * shr_j with one |t| <= 1 (fused CE's softmax sum).
 * Arrays of the output's shape; float, as an envelope needs no more. */
typedef struct q4ref_envelope {
    float *alw, *sd, *shr;
} q4ref_envelope;
/* The truths above, with their envelopes: loss_env has one element; env[3] is for
 * param, m, v. A NULL envelope is not filled. */
q4_status q4ref_fused_ce_truth_env(const float *logits, const int32_t *labels, int64_t R,
                                   int64_t V, float n_valid, double *loss_value,
                                   double *loss_bound, double *dlogits_value,
                                   double *dlogits_bound, const q4ref_envelope *loss_env,
                                   const q4ref_envelope *dlogits_env, q4_error *err);
q4_status q4ref_adamw_truth_env(const float *param, const float *grad, const float *m,
                                const float *v, int64_t numel, const q4ref_adamw_hyper *h,
                                double *param_value, double *param_bound, double *m_value,
                                double *m_bound, double *v_value, double *v_bound,
                                const q4ref_envelope *env, q4_error *err);

/* The same truths piece by piece, for a judge that never holds one whole: each piece
 * is the whole truth's, bit for bit (the same body), on any thread, in any order.
 * AdamW: _check makes q4ref_adamw_truth_env's checks of the inputs; _range fills
 * elements [i0, i1) into arrays (and env, or NULL) that hold element i0 at 0.
 * Fused CE: _rows checks the inputs and keeps them and each row's loss; _row fills row
 * r's dlogits (V values, bounds, and the envelope: alw, sd and shr all given); after
 * every row, _loss fills the loss (one element; loss_env or NULL). */
q4_status q4ref_adamw_truth_check(const float *param, const float *grad, const float *m,
                                  const float *v, int64_t numel, const q4ref_adamw_hyper *h,
                                  q4_error *err);
void q4ref_adamw_truth_range(const float *param, const float *grad, const float *m,
                             const float *v, int64_t i0, int64_t i1, const q4ref_adamw_hyper *h,
                             double *param_value, double *param_bound, double *m_value,
                             double *m_bound, double *v_value, double *v_bound,
                             const q4ref_envelope *env);
typedef struct q4ref_ce_rows q4ref_ce_rows;
q4_status q4ref_fused_ce_truth_rows(const float *logits, const int32_t *labels, int64_t R,
                                    int64_t V, float n_valid, q4ref_ce_rows **rows,
                                    q4_error *err);
void q4ref_fused_ce_truth_row(q4ref_ce_rows *rows, int64_t r, double *dlogits_value,
                              double *dlogits_bound, const q4ref_envelope *dlogits_env);
void q4ref_fused_ce_truth_loss(const q4ref_ce_rows *rows, double *loss_value, double *loss_bound,
                               const q4ref_envelope *loss_env);
void q4ref_fused_ce_rows_free(q4ref_ce_rows *rows);

/* Dequantize truth: exact in fp64, and the fp32 product (code-8)*s rounds once. */
q4_status q4ref_dequant_truth(const uint32_t *w, const float *scales, int64_t N, int64_t K,
                              int64_t gs, double *value, double *bound, q4_error *err);

/* ---------------- bounds (q4ref_bounds.c: the one place for tolerances) ---------------- */
#define Q4REF_U 5.9604644775390625e-08  /* unit roundoff of fp32, 2^-24 */
/* gamma(n) = n u / (1 - n u) (Higham, Accuracy and Stability, Lemma 3.1). */
double q4ref_gamma(int64_t n);
/* Bound for an fp32 dot product of n terms, each a product of `factors` fp32 values
 * (2 for x*w, 3 for x*(q*s)) in any order, FMA or not, denormals flushed or not;
 * sum_abs = sum_i |prod_i| in exact arithmetic. */
double q4ref_bound_dot(int64_t n, int factors, double sum_abs);
/* Bound for one fp32 dequantized element (code-8)*s whose exact value is `value`. */
double q4ref_bound_dequant(double value);
/* The envelope (alw, sd) of a dot-product output whose bound from q4ref_bound_dot(n,
 * factors, sum_abs) is `bound`: sd = u sqrt(n + factors - 1) sum_abs (Higham-Mary). */
void q4ref_envelope_dot(int64_t n, int factors, double bound, double *alw, double *sd);
/* A group's envelopes (docs/numerics.md), from sums over its elements: its signed
 * error sums pass while within shared + alw + LAMBDA sqrt(sd2) (shared = sum |shr|,
 * alw = sum alw, sd2 = sum sd^2); the norm of its errors (after a shared factor is
 * taken out) passes while within rms_envelope(sum alw^2, sum sd^2, sum sd^4, max sd^2). */
double q4ref_stat_bias_envelope(double shared, double alw, double sd2);
/* The unit an element's error is measured in by the group statistics: alw + sd. */
double q4ref_stat_unit(double alw, double sd);
/* Roundings shared by a column of a linear's output: a kernel may dequantize each
 * weight once (one fp32 rounding, |d| <= u) and reuse it in every row, so the errors
 * of one output column are correlated through the weights it reads. For the signed
 * error sums of each column j (weights sgn(value) / unit and 1 / unit, the judge's),
 * var[0][j] and var[1][j] are the variance scales of that shared part:
 * u^2 sum_i (w_i T_i)^2 over the column's weights w_i, T_i the sum over rows of the
 * coefficient times the activation that meets w_i (docs/numerics.md section 3).
 * Forward (fwd = 1): act = x [M,K], columns n of y; backward: act = dout [M,N],
 * columns k of d_x. value/bound: the truth just computed; var arrays [N] or [K]. */
q4_status q4ref_linear_shared_var(int fwd, const float *act, const uint32_t *w,
                                  const float *scales, int64_t M, int64_t N, int64_t K,
                                  int64_t gs, const double *value, const double *bound,
                                  int64_t dot_n, double *var_v, double *var_0, q4_error *err);
double q4ref_stat_rms_envelope(double alw2, double sd2, double sd4, double sd2_max);

/* ---------------- threads ----------------
 * The reference runs on every core by default (OpenMP, and OpenBLAS for the GEMMs);
 * results are bit-identical for any count. n threads from now on; n <= 0: every core. */
void q4ref_set_threads(int n);
/* The threads it uses now (OMP_NUM_THREADS, else every core, until set). */
int q4ref_threads(void);

/* ---------------- fault injection (SQLite's habit: test the error paths) ----------------
 * The nth host allocation q4ref makes from now on (1-based) fails as if malloc had
 * returned NULL, so that Q4_ERR_NOMEM paths can be tested; 0 turns it off. Per thread. */
void q4ref_fault_alloc_at(int64_t nth);

#endif
