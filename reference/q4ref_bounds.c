/* q4ref_bounds.c: every tolerance of q4cts, in one place (SPEC §3).
 *
 * Dot-product ops use Higham's classical bound (Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., §3.1, Lemma 3.1 and eq. (3.5)). Element-wise ops (fused CE,
 * AdamW) use a running error analysis (Higham §3.3): q4ref_ev carries the fp64 value
 * of each intermediate and a bound on how far an fp32 evaluation of the same formula
 * may be from it; each operation adds the error that SPEC §3 (the SPIR-V precision
 * rules) allows it, plus 2^-126 for a denormal flushed to zero, and propagates the
 * errors of its operands. Propagation is written as exact worst cases (not only first
 * order) wherever that is as cheap. */
#include <math.h>

#include "q4ref_internal.h"

#define U Q4REF_U                                 /* fp32 unit roundoff, 2^-24 */
#define U64 1.1102230246251565404e-16             /* fp64 unit roundoff, 2^-53 */
#define TINY Q4_FLT_MIN_NORMAL                    /* what one flush to zero can lose */
#define LOG_ABS_ERR 4.76837158203125e-07          /* 2^-21: log's absolute error in [0.5, 2] */

/* Higham Lemma 3.1: prod (1 + d_i)^(+-1), |d_i| <= u, n of them, is 1 + t with
 * |t| <= gamma(n) = n u / (1 - n u), as long as n u < 1. */
double q4ref_gamma(int64_t n)
{
    double nu = (double)n * U;
    if (n <= 0)
        return 0;
    return nu >= 1 ? INFINITY : nu / (1 - nu);
}

static double gamma64(int64_t n)
{
    double nu = (double)n * U64;
    return n <= 0 ? 0 : nu / (1 - nu);
}

/* Truth values are fp64 evaluations of the same formulas, each fp64 operation at most
 * 1 ULP (glibc's exp/log/sqrt and IEEE + - * /) where the fp32 bound allows at least
 * 0.5 ULP of fp32: so the truth's own error is at most U64/U of the fp32 bound, and
 * widening the bound by that factor keeps it honest. */
static double with_truth_error(double b) { return b * (1 + U64 / U); }

/* Dot products (SPEC §3, Higham eq. (3.5)): term i is a product of `factors` fp32
 * values rounded factors-1 times, then n-1 additions in any order; an FMA only removes
 * roundings, so the bound holds fused or not: gamma(n + factors - 1) * sum_i |a_i b_i|.
 * Each flushed product or partial sum loses at most 2^-126: (2n + factors) * 2^-126.
 * The fp64 truth forms each product exactly (24 + 28 bits < 53) and adds n terms:
 * gamma64(n) * sum_abs more; sum_abs is itself a dgemm, low by at most gamma64(n). */
double q4ref_bound_dot(int64_t n, int factors, double sum_abs)
{
    double s = sum_abs * (1 + gamma64(n));
    return (q4ref_gamma(n + factors - 1) + gamma64(n)) * s + (double)(2 * n + factors) * TINY;
}

/* (code - 8) * s: exact in fp64; fp32 rounds the product once (u |value|) or flushes it. */
double q4ref_bound_dequant(double value) { return U * fabs(value) + TINY; }

/* requant (SPEC §3): the division may be off by 2.5 ULP, and the fp32 quotient is
 * itself a rounding of the exact one (0.5 ULP). */
double q4ref_requant_window_ulps(void) { return 2.5 + 0.5; }

/* ---------------- running error analysis ---------------- */

/* An fp32 input, exact unless a driver flushes it (a denormal) to zero. */
static q4ref_ev ev_in(float x)
{
    double a = fabs((double)x);
    return (q4ref_ev){x, (a != 0 && a < TINY) ? a : 0};
}

static q4ref_ev ev_const(double x) { return (q4ref_ev){x, 0}; }

/* Result r with propagated error ep, then an operation error of rel * |r'| where r'
 * (within ep of r) is what the fp32 operation really saw, then a possible flush. */
static q4ref_ev ev_round(double r, double ep, double rel)
{
    return (q4ref_ev){r, ep + rel * (fabs(r) + ep) + TINY};
}

/* +, -, *: correctly rounded (u). An FMA rounds once where a*b + c rounds twice; the
 * chains below round both, covering either. */
static q4ref_ev ev_add(q4ref_ev a, q4ref_ev b) { return ev_round(a.v + b.v, a.e + b.e, U); }
static q4ref_ev ev_sub(q4ref_ev a, q4ref_ev b) { return ev_round(a.v - b.v, a.e + b.e, U); }
static q4ref_ev ev_mul(q4ref_ev a, q4ref_ev b)
{
    return ev_round(a.v * b.v, fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e, U);
}

/* a / b: 2.5 ULP, and 1 ULP <= 2u |r| for a normal r: 5u. Propagation is exact:
 * |a'/b' - a/b| <= (e_a + |r| e_b) / (|b| - e_b). */
static q4ref_ev ev_div(q4ref_ev a, q4ref_ev b)
{
    double r = a.v / b.v;
    if (b.e >= fabs(b.v))
        return (q4ref_ev){r, INFINITY};
    return ev_round(r, (a.e + fabs(r) * b.e) / (fabs(b.v) - b.e), 5 * U);
}

/* a / b, or a * (1/b) with an fp32 reciprocal (2.5 + 0.5 ULP): the larger bound. */
static q4ref_ev ev_div_or_recip(q4ref_ev a, q4ref_ev b)
{
    q4ref_ev d = ev_div(a, b), r = ev_mul(a, ev_div(ev_const(1), b));
    d.e = fmax(d.e, r.e);
    return d;
}

/* exp(x): 3 + 2|x| ULP at the argument actually seen; exact propagation
 * exp(x + e) - exp(x) = exp(x) (e^e - 1). */
static q4ref_ev ev_exp(q4ref_ev x)
{
    double r = exp(x.v);
    return ev_round(r, r * expm1(x.e), 2 * U * (3 + 2 * (fabs(x.v) + x.e)));
}

/* log(x): absolute 2^-21 for an argument in [0.5, 2], 3 ULP (6u |r|) outside; the
 * argument may be anywhere in [x - e, x + e], so both apply if that straddles an edge.
 * Propagation: |log x' - log x| <= e / (x - e). */
static q4ref_ev ev_log(q4ref_ev x)
{
    double lo = x.v - x.e, hi = x.v + x.e, r = log(x.v), ep;
    if (lo <= 0)
        return (q4ref_ev){r, INFINITY};
    ep = x.e / lo;
    return (q4ref_ev){r, ep + (lo <= 2 && hi >= 0.5 ? LOG_ABS_ERR : 0) +
                             (lo < 0.5 || hi > 2 ? 6 * U * (fabs(r) + ep) : 0) + TINY};
}

/* sqrt(x) = 1 / inversesqrt(x): inversesqrt 2 ULP (4u), the division 2.5 ULP (5u), so
 * (1 + 5u) / (1 - 4u) - 1 relative; a native sqrt or x * inversesqrt(x) is within it.
 * Propagation is exact and stays finite at x = 0 (sqrt is not Lipschitz there):
 * |sqrt(x') - sqrt(x)| <= e / (sqrt(x) + sqrt(x - e)) if e <= x, else sqrt(x + e). */
static q4ref_ev ev_sqrt(q4ref_ev x)
{
    double xv = fmax(x.v, 0), r = sqrt(xv);
    double ep = x.e <= xv ? x.e / (r + sqrt(xv - x.e)) : sqrt(xv + x.e);
    if (x.e == 0 && xv == 0)
        ep = 0;
    return ev_round(r, ep, (1 + 5 * U) / (1 - 4 * U) - 1);
}

/* The larger error of two evaluations of one quantity (a kernel may use either). */
static q4ref_ev ev_either(q4ref_ev a, q4ref_ev b)
{
    a.e = fmax(a.e, b.e);
    return a;
}

/* ---------------- fused CE (SPEC §2) ----------------
 * The fp32 evaluations covered, per valid row (label l):
 *   m = max_j x_j (exact);  d_j = x_j - m;  e_j = exp(d_j);  S = sum_j e_j in any order;
 *   an online (single-pass) softmax instead passes each e_j through a chain of up to
 *   c rescale factors exp(m_old - m_new) whose arguments sum to |d_j|: relative error
 *   2u (3c + 2|d_j|) + c u (c exps of 3 + 2|arg| ULP, c multiplications). c = V is the
 *   worst case of any per-thread split; it makes the bound loose for large V;
 *   lse = m + log(S);  loss_r = (lse - x_l) / n_valid or (log(S) - d_l) / n_valid;
 *   p_j = e_j / S, exp(x_j - lse) or exp(d_j - log(S));
 *   dlogits_j = (p_j - [j == l]) / n_valid, by a division or an fp32 reciprocal.
 * Where there are alternatives the bound is the largest. */
void q4ref_ce_row_bound(const float *x, int64_t V, int32_t l, float n_valid,
                        q4ref_ce_row *row, double *dv, double *db)
{
    const double c = (double)V;
    const q4ref_ev nv = ev_in(n_valid);
    q4ref_ev mx = ev_in(x[0]), S = {0, 0}, logS, lse, loss;
    double sum_abs;

    for (int64_t j = 1; j < V; j++)
        if (x[j] > mx.v)
            mx = ev_in(x[j]);
    /* S: the sum of the e_j (their errors in S.e), then gamma(V-1) over the perturbed
     * terms and one flush per addition. The e_j are parked in dv/db. */
    for (int64_t j = 0; j < V; j++) {
        q4ref_ev d = ev_sub(ev_in(x[j]), mx), e = ev_exp(d);
        double ep = e.v * expm1(d.e);
        double online = ep + (2 * U * (3 * c + 2 * (fabs(d.v) + d.e)) + c * U) * (e.v + ep) +
                        (c + 1) * TINY;
        dv[j] = e.v;
        db[j] = fmax(e.e, online);
        S.v += dv[j];
        S.e += db[j];
    }
    sum_abs = S.v + S.e;
    S.e += q4ref_gamma(V - 1) * sum_abs + (double)V * TINY;

    logS = ev_log(S);
    lse = ev_add(mx, logS);
    {
        q4ref_ev dl = ev_sub(ev_in(x[l]), mx);
        q4ref_ev viaLse = ev_sub(lse, ev_in(x[l])), viaLog = ev_sub(logS, dl);
        loss = ev_div_or_recip(ev_either(viaLse, viaLog), nv);
    }
    row->loss_v = loss.v;
    row->loss_e = loss.e;
    row->valid = 1;

    for (int64_t j = 0; j < V; j++) {
        q4ref_ev ej = {dv[j], db[j]}, xj = ev_in(x[j]);
        q4ref_ev p = ev_div(ej, S);
        p = ev_either(p, ev_exp(ev_sub(xj, lse)));
        p = ev_either(p, ev_exp(ev_sub(ev_sub(xj, mx), logS)));
        /* p - 0 is exact; p - 1 rounds. */
        q4ref_ev g = ev_div_or_recip(j == l ? ev_sub(p, ev_const(1)) : p, nv);
        dv[j] = g.v;
        db[j] = with_truth_error(g.e);
    }
    row->loss_e = with_truth_error(row->loss_e);
}

/* loss = sum of the valid rows' loss_r in any order: their own errors, gamma(n-1)
 * over the perturbed terms, one flush per addition. Masked rows add exact zeros. */
q4ref_ev q4ref_ce_loss_sum(const q4ref_ce_row *rows, int64_t R)
{
    q4ref_ev s = {0, 0};
    double sum_abs = 0;
    int64_t n = 0;
    for (int64_t r = 0; r < R; r++) {
        if (!rows[r].valid)
            continue;
        s.v += rows[r].loss_v;
        s.e += rows[r].loss_e;
        sum_abs += fabs(rows[r].loss_v) + rows[r].loss_e;
        n++;
    }
    if (n > 0)
        s.e += with_truth_error(q4ref_gamma(n - 1) * sum_abs + (double)n * TINY);
    return s;
}

/* ---------------- AdamW (SPEC §2) ----------------
 *   p1 = p - (lr*wd)*p   (or torch's p * (1 - lr*wd): the larger bound)
 *   m' = b1*m + (1-b1)*g;  v' = b2*v + ((1-b2)*g)*g
 *   p' = p1 - lr*(m'/bc1) / (sqrt(v'/bc2) + eps)   ((lr*a)/b or lr*(a/b))
 * The constants lr*wd, 1-b1, 1-b2 are fp32 roundings of their own; the errors of the
 * new m and v flow into the p update. */
void q4ref_adamw_elem_bound(float p, float g, float m, float v, const q4ref_adamw_hyper *h,
                            q4ref_ev *p_out, q4ref_ev *m_out, q4ref_ev *v_out)
{
    const q4ref_ev one = ev_const(1), P = ev_in(p), G = ev_in(g);
    const q4ref_ev lr = ev_in(h->lr), b1 = ev_in(h->beta1), b2 = ev_in(h->beta2);
    const q4ref_ev lrwd = ev_mul(lr, ev_in(h->wd));
    q4ref_ev p1 = ev_either(ev_sub(P, ev_mul(lrwd, P)), ev_mul(P, ev_sub(one, lrwd)));
    q4ref_ev m1 = ev_add(ev_mul(b1, ev_in(m)), ev_mul(ev_sub(one, b1), G));
    q4ref_ev v1 = ev_add(ev_mul(b2, ev_in(v)), ev_mul(ev_mul(ev_sub(one, b2), G), G));
    q4ref_ev mh = ev_div(m1, ev_in(h->bc1));
    q4ref_ev den = ev_add(ev_sqrt(ev_div(v1, ev_in(h->bc2))), ev_in(h->eps));
    q4ref_ev step = ev_either(ev_div(ev_mul(lr, mh), den), ev_mul(lr, ev_div(mh, den)));
    q4ref_ev p2 = ev_sub(p1, step);

    *p_out = (q4ref_ev){p2.v, with_truth_error(p2.e)};
    *m_out = (q4ref_ev){m1.v, with_truth_error(m1.e)};
    *v_out = (q4ref_ev){v1.v, with_truth_error(v1.e)};
}
