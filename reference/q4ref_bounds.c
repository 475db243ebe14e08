/* q4ref_bounds.c: every tolerance of q4cts, in one place (SPEC §3).
 *
 * Dot-product ops use Higham's classical bound (Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., §3.1, Lemma 3.1 and eq. (3.5)). Element-wise ops (fused CE,
 * AdamW) use a running error analysis (Higham §3.3): q4ref_ev carries the fp64 value
 * of each intermediate and a bound on how far an fp32 evaluation of the same formula
 * may be from it; each operation adds the error that SPEC §3 (the SPIR-V precision
 * rules) allows it, plus 2^-126 for a denormal flushed to zero, and propagates the
 * errors of its operands. Propagation is written as exact worst cases (not only first
 * order) wherever that is as cheap.
 *
 * Beside each bound, the statistical envelope (docs/numerics.md): what a correct fp32
 * kernel's error looks like over many elements under the random-rounding model of
 * Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019: each rounding error is mean-zero
 * given the earlier ones, and at most u relative). q4ref_ev carries it as two more
 * numbers: a, an allowance for error that may have one sign over many elements (the
 * extra ULPs SPEC §3 allows exp, log, division and sqrt beyond a correct rounding,
 * constants rounded once for every element, flushes, quantities shared by a row), and
 * q, the sub-Gaussian scale of the rest (the correct roundings of data-dependent
 * results). The judge (harness/core/judge.c) turns them into the bias and RMS envelopes of
 * q4ref_stat_bias_envelope and q4ref_stat_rms_envelope. */
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

/* Envelope confidence (docs/numerics.md). A group's signed error sum passes while it is
 * within its allowance plus LAMBDA sub-Gaussian scales: the random part exceeds that
 * with probability <= 2 exp(-LAMBDA^2 / 2) = 4.6e-11 (Hoeffding-Azuma). A group's
 * error norm passes while within its allowance's norm plus the Laurent-Massart bound
 * with x = RMS_X: probability <= exp(-25) = 1.4e-11. A 20-seed mustpass run judges
 * about 10^7 groups, so a correct kernel fails it with probability < 10^-3 under
 * the model; the model itself is checked against real summation orders in
 * harness/tests/test_judge.c. */
#define LAMBDA 7.0
#define RMS_X 25.0

/* Round-to-nearest is unbiased on data with random low-order bits, but real inputs
 * are structured (fixed-point values, products with one constant): measured on the
 * generator's AdamW data, correct roundings of b1*m, (1 - b1)*g and their sum lean
 * toward zero by 0.3-0.5% of their mean error, about 0.002 u |r|, which a signed sum over
 * 2^26 elements shows (docs/numerics.md section 3). So each rounding's mean may be up
 * to RN_BIAS u |r|, systematic: 8 times the largest bias measured on any value class of
 * the zoo, and 1/64 of a rounding, far below any planted bug's bias. */
#define RN_BIAS 0x1p-6

/* The running-error helpers are inlined into the element loops: called, they cost the
 * AdamW truth half its time in argument and result traffic (a 4-double struct each). */
#define EV inline __attribute__((always_inline))

static double gamma64(int64_t n)
{
    double nu = (double)n * U64;
    return n <= 0 ? 0 : nu / (1 - nu);
}

/* Truth values are fp64 evaluations of the same formulas, each fp64 operation at most
 * 1 ULP (glibc's exp/log/sqrt and IEEE + - * /) where the fp32 bound allows at least
 * 0.5 ULP of fp32: so the truth's own error is at most U64/U of the fp32 bound, and
 * widening the bound by that factor keeps it honest. */
static EV double with_truth_error(double b) { return b * (1 + U64 / U); }

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

/* Beyond first order, for the envelope: Higham and Mary's Theorem 2.4 bounds
 * |prod_{k<=n} (1 + d_k) - 1| by exp(LAMBDA sqrt(n) u + n u^2 / (1 - u)) - 1 with the
 * same confidence as the first-order part, LAMBDA sqrt(n) u; the rest is second order
 * (about n u^2 + (LAMBDA sqrt(n) u)^2 / 2, not the worst case's (n u)^2), systematic. */
static double second_order(int64_t n)
{
    double first = LAMBDA * sqrt((double)n) * U;
    return n <= 0 ? 0 : expm1(first + (double)n * U * U / (1 - U)) - first;
}

/* The envelope of a dot product, from its bound (a monotone function of sum_abs, so
 * sum_abs is recovered exactly enough). Its first-order error is sum_k d_k t_k over
 * its n - 1 additions and n (factors - 1) product roundings, |d_k| <= u, each t_k a
 * partial sum or a product, so |t_k| <= sum_abs (1 + gamma) in any order: under the
 * Higham-Mary model a martingale with sub-Gaussian scale u sqrt(n + factors - 1)
 * sum_abs (Azuma). The rest is systematic: the second-order terms, the flushes and
 * the fp64 truth's own error. */
void q4ref_envelope_dot(int64_t n, int factors, double bound, double *alw, double *sd)
{
    const int64_t nr = n + factors - 1;
    double absb = (double)(2 * n + factors) * TINY;
    double s = fmax(bound - absb, 0) / (q4ref_gamma(nr) + gamma64(n));   /* sum_abs (1 + g64) */
    *sd = U * sqrt((double)nr) * s * (1 + q4ref_gamma(nr));
    /* the final rounding and each term's product roundings may lean one way */
    *alw = absb + (gamma64(n) + second_order(nr) + RN_BIAS * U * factors) * s;
}

/* Signed sums (docs/numerics.md): the systematic parts add up to at most alw + shared;
 * the random part is a martingale with scale sqrt(sd2), beyond LAMBDA scales with
 * probability <= 2 exp(-LAMBDA^2 / 2) (Azuma). */
double q4ref_stat_bias_envelope(double shared, double alw, double sd2)
{
    return shared + alw + LAMBDA * sqrt(sd2);
}

/* Each element's error is measured in units of alw + sd, so that every element weighs
 * the same in a group's statistics whatever its magnitude. */
double q4ref_stat_unit(double alw, double sd) { return alw + sd; }

/* Norm of a group's errors: |err| <= |systematic| + |random| (triangle inequality), the
 * first at most sqrt(alw2); for the second, sum rho_i^2 with rho_i sub-Gaussian of
 * scale sd_i has the moment generating function of a weighted chi-square, so Laurent
 * and Massart's bound (Ann. Statist. 28(5), 2000, Lemma 1) applies: beyond
 * sd2 + 2 sqrt(RMS_X sd4) + 2 RMS_X sd2_max with probability <= exp(-RMS_X). Taking a
 * shared factor out (a projection) only shortens the vector. */
double q4ref_stat_rms_envelope(double alw2, double sd2, double sd4, double sd2_max)
{
    return sqrt(alw2) + sqrt(sd2 + 2 * sqrt(RMS_X * sd4) + 2 * RMS_X * sd2_max);
}

/* (code - 8) * s: exact in fp64; fp32 rounds the product once (u |value|) or flushes it. */
double q4ref_bound_dequant(double value) { return U * fabs(value) + TINY; }

/* requant (SPEC §3): the division may be off by 2.5 ULP, and the fp32 quotient is
 * itself a rounding of the exact one (0.5 ULP). */
double q4ref_requant_window_ulps(void) { return 2.5 + 0.5; }

/* ---------------- running error analysis ---------------- */

/* An fp32 input, exact unless a driver flushes it (a denormal) to zero: always toward
 * zero, so the loss is systematic. */
static EV q4ref_ev ev_in(float x)
{
    double a = fabs((double)x), f = (a != 0 && a < TINY) ? a : 0;
    return (q4ref_ev){x, f, f, 0};
}

static EV q4ref_ev ev_const(double x) { return (q4ref_ev){x, 0, 0, 0}; }

/* sqrt(a^2 + b^2) for the random scales (hypot's care for overflow is not needed). */
static EV double qadd(double a, double b) { return sqrt(a * a + b * b); }

/* Result r with propagated error ep (worst case), ap (systematic) and qp (random
 * scale), then an operation error of rel * |r'| where r' (within ep of r) is what the
 * fp32 operation really saw, then a possible flush. Of rel, one correct rounding (u)
 * is random; the rest (extra ULPs a function may have on every argument) and the
 * flush are systematic. The statistical parts are first order (u^2 terms dropped). */
static EV q4ref_ev ev_op(double r, double ep, double ap, double qp, double rel)
{
    return (q4ref_ev){r, ep + rel * (fabs(r) + ep) + TINY,
                      ap + (rel - U + RN_BIAS * U) * fabs(r) + TINY, qadd(qp, U * fabs(r))};
}

/* Propagated random scales add linearly (safe whatever the correlation of the
 * operands); the operation's own rounding is new and adds in quadrature (ev_op). */
static EV q4ref_ev ev_add(q4ref_ev a, q4ref_ev b)
{
    return ev_op(a.v + b.v, a.e + b.e, a.a + b.a, a.q + b.q, U);
}
static EV q4ref_ev ev_sub(q4ref_ev a, q4ref_ev b)
{
    return ev_op(a.v - b.v, a.e + b.e, a.a + b.a, a.q + b.q, U);
}
static EV q4ref_ev ev_mul(q4ref_ev a, q4ref_ev b)
{
    double x = fabs(a.v), y = fabs(b.v);
    return ev_op(a.v * b.v, x * b.e + y * a.e + a.e * b.e, x * b.a + y * a.a, x * b.q + y * a.q,
                 U);
}

/* a / b: 2.5 ULP, and 1 ULP <= 2u |r| for a normal r: 5u. Propagation is exact:
 * |a'/b' - a/b| <= (e_a + |r| e_b) / (|b| - e_b). */
static EV q4ref_ev ev_div(q4ref_ev a, q4ref_ev b)
{
    double r = a.v / b.v, d = fabs(b.v);
    if (b.e >= fabs(b.v))
        return (q4ref_ev){r, INFINITY, INFINITY, INFINITY};
    return ev_op(r, (a.e + fabs(r) * b.e) / (d - b.e), (a.a + fabs(r) * b.a) / d,
                 (a.q + fabs(r) * b.q) / d, 5 * U);
}

/* A quantity computed once and used by many elements (a constant of the hyper-
 * parameters, a row's sum): its error is the same in all of them, so for the
 * envelope it is systematic, bounded by its worst case or, for a random part, by
 * LAMBDA scales (one draw, confidence as above), whichever is smaller. */
static EV q4ref_ev ev_shared(q4ref_ev x)
{
    return (q4ref_ev){x.v, x.e, fmin(x.e, x.a + LAMBDA * x.q), 0};
}

/* A shared constant whose fp32 rounding is known: its error err (at most the worst
 * case, and exact where SPEC §3 makes the operations correctly rounded; 1 - 0.9 is
 * exact by Sterbenz's lemma, for one) is its whole allowance. A flush adds TINY. */
static EV q4ref_ev ev_known(q4ref_ev x, double err)
{
    return (q4ref_ev){x.v, x.e, fmin(x.e, err + TINY), 0};
}

/* The larger error of two evaluations of one quantity (a kernel may use either). */
static EV q4ref_ev ev_either(q4ref_ev a, q4ref_ev b)
{
    return (q4ref_ev){a.v, fmax(a.e, b.e), fmax(a.a, b.a), fmax(a.q, b.q)};
}

/* a / b, or a * (1/b) with an fp32 reciprocal (2.5 + 0.5 ULP): the larger bound. The
 * reciprocal is computed once for every element. */
static EV q4ref_ev ev_div_or_recip(q4ref_ev a, q4ref_ev b)
{
    return ev_either(ev_div(a, b), ev_mul(a, ev_shared(ev_div(ev_const(1), b))));
}

/* exp(x): 3 + 2|x| ULP at the argument actually seen; exact propagation
 * exp(x + e) - exp(x) = exp(x) (e^e - 1). */
static EV q4ref_ev ev_exp(q4ref_ev x)
{
    double r = exp(x.v);
    return ev_op(r, r * expm1(x.e), r * expm1(x.a), r * x.q,
                 2 * U * (3 + 2 * (fabs(x.v) + x.e)));
}

/* log(x): absolute 2^-21 for an argument in [0.5, 2], 3 ULP (6u |r|) outside; the
 * argument may be anywhere in [x - e, x + e], so both apply if that straddles an edge.
 * Propagation: |log x' - log x| <= e / (x - e). For the envelope the whole allowance
 * is systematic. */
static EV q4ref_ev ev_log(q4ref_ev x)
{
    double lo = x.v - x.e, hi = x.v + x.e, r = log(x.v), ep, op;
    if (lo <= 0)
        return (q4ref_ev){r, INFINITY, INFINITY, INFINITY};
    ep = x.e / lo;
    op = (lo <= 2 && hi >= 0.5 ? LOG_ABS_ERR : 0) + (lo < 0.5 || hi > 2 ? 6 * U * (fabs(r) + ep) : 0);
    return (q4ref_ev){r, ep + op + TINY, x.a / x.v + op + TINY, qadd(x.q / x.v, U * fabs(r))};
}

/* sqrt(x) = 1 / inversesqrt(x): inversesqrt 2 ULP (4u), the division 2.5 ULP (5u), so
 * (1 + 5u) / (1 - 4u) - 1 relative; a native sqrt or x * inversesqrt(x) is within it.
 * Propagation is exact and stays finite at x = 0 (sqrt is not Lipschitz there):
 * |sqrt(x') - sqrt(x)| <= e / (sqrt(x) + sqrt(x - e)) if e <= x, else sqrt(x + e). */
static EV double sqrt_shift(double xv, double r, double e)
{
    if (e == 0)
        return 0;
    return e <= xv ? e / (r + sqrt(xv - e)) : sqrt(xv + e);
}

static EV q4ref_ev ev_sqrt(q4ref_ev x)
{
    double xv = fmax(x.v, 0), r = sqrt(xv);
    /* the random scale is first order, e / (2 sqrt x), capped by the exact shift */
    double q = r > 0 ? fmin(x.q / (2 * r), sqrt_shift(xv, r, x.q)) : sqrt(x.q);
    return ev_op(r, sqrt_shift(xv, r, x.e), sqrt_shift(xv, r, x.a), q,
                 (1 + 5 * U) / (1 - 4 * U) - 1);
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
 * Where there are alternatives the bound is the largest.
 *
 * Envelope: the rescale chain is systematic with c = ce_rescales(V) (below) in S; a
 * dlogits element is one exp per element, rescaled at most twice (a value kept by an
 * invocation, then by its workgroup: rescaling kept values at every new maximum would
 * cost V work per record, and no kernel we know does it), and the sum
 * of V terms is random with scale u sqrt(V - 1) S (Higham-Mary: every partial sum of
 * positive terms is at most S, in any order), and S, log S, lse are shared by the row:
 * their error moves every p_j of the row by one relative factor. That factor is kept
 * apart, as the per-element coefficient shr_j = (its allowance) * p_j / n_valid, so
 * that the judge can take the row's common factor out before it looks at the rest. */

/* A bound, for the envelope, on the rescales an element's partial sum goes through:
 * once per new running maximum after it joined a sequential scan (a record of the
 * scanned sequence), once per level of a merge tree (<= ceil(log2 V)). For the
 * generator's i.i.d. logits the records of n <= V values are a sum of independent
 * Bernoulli(1/k), mean H_n <= ln V + 1; by Chernoff's bound more than
 * 3 ceil(log2 V) + 8 of them has probability below 1e-13 for every V. It assumes that
 * exp(0) = 1 exactly (true of every driver we know), so that a kernel that rescales
 * by exp(m - m) when the maximum did not move pays nothing for it. */
static double ce_rescales(int64_t V)
{
    double lg = ceil(log2((double)V));
    return fmin((double)V, 4 * lg + 8);
}

/* The envelope's allowance for e_j = exp(d_j) (systematic part ea) after c rescales:
 * c exps of 3 + 2|arg| ULP (the arguments sum to |d_j|), c multiplications, flushes. */
static double online_a(double e, double ea, double d, double c)
{
    return ea + (2 * U * (3 * c + 2 * d) + c * U) * e + (c + 1) * TINY;
}

void q4ref_ce_row_bound(const float *x, int64_t V, int32_t l, float n_valid,
                        q4ref_ce_row *row, double *dv, double *db, float *alw, float *sd,
                        float *shr)
{
    const double c = (double)V, cs = ce_rescales(V), cp = fmin(cs, 2);
    const q4ref_ev nv = ev_in(n_valid);
    q4ref_ev mx = ev_in(x[0]), S = {0, 0, 0, 0}, logS, lse, loss, Sn, logSn, lsen;
    double sum_abs, q2 = 0, shared;

    for (int64_t j = 1; j < V; j++)
        if (x[j] > mx.v)
            mx = ev_in(x[j]);
    /* S: the sum of the e_j (their errors in S.e), then gamma(V-1) over the perturbed
     * terms and one flush per addition. The e_j are parked in dv/db (their envelope
     * parts in alw/sd). */
    for (int64_t j = 0; j < V; j++) {
        q4ref_ev d = ev_sub(ev_in(x[j]), mx), e = ev_exp(d);
        double ep = e.v * expm1(d.e), ea = e.v * expm1(d.a);
        double online = ep + (2 * U * (3 * c + 2 * (fabs(d.v) + d.e)) + c * U) * (e.v + ep) +
                        (c + 1) * TINY;
        dv[j] = e.v;
        db[j] = fmax(e.e, online);
        alw[j] = (float)fmax(e.a, online_a(e.v, ea, fabs(d.v), cp));
        sd[j] = (float)e.q;
        S.v += dv[j];
        S.e += db[j];
        S.a += fmax(e.a, online_a(e.v, ea, fabs(d.v), cs));
        q2 += e.q * e.q;
    }
    sum_abs = S.v + S.e;
    S.e += q4ref_gamma(V - 1) * sum_abs + (double)V * TINY;
    /* the envelope's sum: random u sqrt(V-1) S, second order and flushes systematic.
     * And a term below the ULP of the partial sum it joins (<= 2u S) is not rounded at
     * random: it is lost or doubled, and exps, dense near 0, are lost more often than
     * doubled - a sequential fp32 sum of V = 128256 of them is biased by about
     * u sqrt(V) 4 - so such terms count whole, as systematic. */
    S.a += (second_order(V - 1) + RN_BIAS * U * (double)(V - 1)) * sum_abs + (double)V * TINY;
    for (int64_t j = 0; j < V; j++)
        if (dv[j] < 2 * U * sum_abs)
            S.a += dv[j];
    S.q = qadd(sqrt(q2), U * sqrt((double)(V - 1)) * (S.v + S.a));

    logS = ev_log(S);
    lse = ev_add(mx, logS);
    {
        q4ref_ev dl = ev_sub(ev_in(x[l]), mx);
        q4ref_ev viaLse = ev_sub(lse, ev_in(x[l])), viaLog = ev_sub(logS, dl);
        loss = ev_div_or_recip(ev_either(viaLse, viaLog), nv);
    }
    row->loss = loss;
    row->valid = 1;

    /* The row's shared quantities, for the envelope: their own parts taken out of the
     * element chains (Sn, logSn, lsen) and kept as one relative factor of p. */
    logS = ev_shared(logS);
    lse = ev_shared(lse);
    S = ev_shared(S);
    shared = fmax(S.a < S.v ? S.a / (S.v - S.a) : INFINITY, expm1(fmax(logS.a, lse.a)));
    Sn = (q4ref_ev){S.v, S.e, 0, 0};
    logSn = (q4ref_ev){logS.v, logS.e, 0, 0};
    lsen = (q4ref_ev){lse.v, lse.e, 0, 0};
    for (int64_t j = 0; j < V; j++) {
        q4ref_ev ej = {dv[j], db[j], alw[j], sd[j]}, xj = ev_in(x[j]);
        q4ref_ev p = ev_div(ej, Sn);
        p = ev_either(p, ev_exp(ev_sub(xj, lsen)));
        p = ev_either(p, ev_exp(ev_sub(ev_sub(xj, mx), logSn)));
        /* p - 0 is exact; p - 1 rounds. */
        q4ref_ev g = ev_div_or_recip(j == l ? ev_sub(p, ev_const(1)) : p, nv);
        dv[j] = g.v;
        db[j] = with_truth_error(g.e);
        alw[j] = (float)(g.a + (db[j] - g.e));   /* the truth's own error is systematic */
        sd[j] = (float)g.q;
        shr[j] = (float)(shared * p.v / n_valid * (1 + 8 * U));
    }
    row->loss.a += with_truth_error(row->loss.e) - row->loss.e;
    row->loss.e = with_truth_error(row->loss.e);
}

/* loss = sum of the valid rows' loss_r in any order: their own errors, gamma(n-1)
 * over the perturbed terms, one flush per addition. Masked rows add exact zeros.
 * Envelope: the rows' random parts are independent; the sum's roundings random with
 * scale u sqrt(n-1) sum|loss_r| (Higham-Mary). */
q4ref_ev q4ref_ce_loss_sum(const q4ref_ce_row *rows, int64_t R)
{
    q4ref_ev s = {0, 0, 0, 0};
    double sum_abs = 0, q2 = 0;
    int64_t n = 0;
    for (int64_t r = 0; r < R; r++) {
        if (!rows[r].valid)
            continue;
        s.v += rows[r].loss.v;
        s.e += rows[r].loss.e;
        s.a += rows[r].loss.a;
        q2 += rows[r].loss.q * rows[r].loss.q;
        sum_abs += fabs(rows[r].loss.v) + rows[r].loss.e;
        n++;
    }
    if (n > 0) {
        double add = with_truth_error(q4ref_gamma(n - 1) * sum_abs + (double)n * TINY);
        s.e += add;
        s.a += with_truth_error((second_order(n - 1) + RN_BIAS * U * (double)(n - 1)) * sum_abs +
                                (double)n * TINY);
        s.q = qadd(sqrt(q2), U * sqrt((double)(n - 1)) * sum_abs);
    }
    return s;
}

/* ---------------- AdamW (SPEC §2) ----------------
 *   p1 = p - (lr*wd)*p   (or torch's p * (1 - lr*wd): the larger bound)
 *   m' = b1*m + (1-b1)*g;  v' = b2*v + ((1-b2)*g)*g
 *   p' = p1 - lr*(m'/bc1) / (sqrt(v'/bc2) + eps)   ((lr*a)/b or lr*(a/b))
 * The constants lr*wd, 1-b1, 1-b2 are fp32 roundings of their own; the errors of the
 * new m and v flow into the p update. For the envelope those constants are shared by
 * every element (systematic), and as + - * are correctly rounded their errors are
 * known exactly: the fp32 evaluations (with the product fused or not) minus the exact
 * values; everything else rounds data-dependent values. */
static EV q4ref_ev with_truth(q4ref_ev x)
{
    double e = with_truth_error(x.e);
    return (q4ref_ev){x.v, e, x.a + (e - x.e), x.q};
}

/* The ev's of the hyper-parameters, shared by every element: made once per step. */
void q4ref_adamw_consts_of(const q4ref_adamw_hyper *h, q4ref_adamw_consts *k)
{
    const q4ref_ev one = ev_const(1);
    const q4ref_ev lr = ev_in(h->lr), b1 = ev_in(h->beta1), b2 = ev_in(h->beta2);
    const float f_lrwd = h->lr * h->wd;   /* fp32, correctly rounded (FLT_EVAL_METHOD 0) */
    const double x_lrwd = (double)h->lr * h->wd;
    const q4ref_ev lrwd = ev_known(ev_mul(lr, ev_in(h->wd)), fabs(f_lrwd - x_lrwd));
    /* 1 - lr*wd from the rounded product, or fused into one rounding */
    const double e_1lrwd = fmax(fabs((1.0f - f_lrwd) - (1.0 - x_lrwd)),
                                fabs(fmaf(-h->lr, h->wd, 1.0f) - (1.0 - x_lrwd)));
    k->lr = lr;
    k->b1 = b1;
    k->b2 = b2;
    k->lrwd = lrwd;
    k->keep = ev_known(ev_sub(one, lrwd), e_1lrwd);
    k->c1 = ev_known(ev_sub(one, b1), fabs((1.0f - h->beta1) - (1.0 - h->beta1)));
    k->c2 = ev_known(ev_sub(one, b2), fabs((1.0f - h->beta2) - (1.0 - h->beta2)));
    k->bc1 = ev_in(h->bc1);
    k->bc2 = ev_in(h->bc2);
    k->eps = ev_in(h->eps);
}

void q4ref_adamw_elem_bound(float p, float g, float m, float v, const q4ref_adamw_consts *k,
                            q4ref_ev *p_out, q4ref_ev *m_out, q4ref_ev *v_out)
{
    const q4ref_ev P = ev_in(p), G = ev_in(g);
    q4ref_ev p1 = ev_either(ev_sub(P, ev_mul(k->lrwd, P)), ev_mul(P, k->keep));
    q4ref_ev m1 = ev_add(ev_mul(k->b1, ev_in(m)), ev_mul(k->c1, G));
    q4ref_ev v1 = ev_add(ev_mul(k->b2, ev_in(v)), ev_mul(ev_mul(k->c2, G), G));
    q4ref_ev mh = ev_div(m1, k->bc1);
    q4ref_ev den = ev_add(ev_sqrt(ev_div(v1, k->bc2)), k->eps);
    q4ref_ev step = ev_either(ev_div(ev_mul(k->lr, mh), den), ev_mul(k->lr, ev_div(mh, den)));
    q4ref_ev p2 = ev_sub(p1, step);

    /* lr = 0: both terms taken from p are lr times a finite number, an exact zero, and
     * p - 0 is p: the param comes back bit for bit (in either order of the decay), so
     * its bound is 0 (a denormal p's flush aside), not the roundings of a general lr. */
    if (k->lr.v == 0)
        p2 = ev_in(p);
    *p_out = with_truth(p2);
    *m_out = with_truth(m1);
    *v_out = with_truth(v1);
}
