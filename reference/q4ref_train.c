/* q4ref_train.c: the reference trajectories of a training case (q4ref_train.h): the
 * fp64 run that the GPU's losses and final codes are judged against, and the zoo's
 * fp32 runs whose spread calibrates the envelope (docs/training.md, "The envelope"). */
#include "q4ref_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "q4ref_internal.h"
#include "q4ref_zoo.h"

int64_t q4ref_train_weight_at(const q4ref_train_model *m, int l)
{
    int64_t at = 0;
    for (int i = 0; i < l; i++)
        at += m->width[i + 1] * m->width[i];
    return at;
}

int64_t q4ref_train_scale_at(const q4ref_train_model *m, int l)
{
    int64_t at = 0;
    for (int i = 0; i < l; i++)
        at += (m->width[i] / m->gs) * m->width[i + 1];
    return at;
}

int64_t q4ref_train_weights(const q4ref_train_model *m) { return q4ref_train_weight_at(m, m->layers); }
int64_t q4ref_train_scales(const q4ref_train_model *m) { return q4ref_train_scale_at(m, m->layers); }

void q4ref_train_bias_corrections(const q4ref_train_model *m, int64_t t, float *bc1, float *bc2)
{
    *bc1 = (float)(1.0 - pow((double)m->beta1, (double)t));
    *bc2 = (float)(1.0 - pow((double)m->beta2, (double)t));
}

static q4_status check_model(const q4ref_train_model *m, q4_error *err)
{
    if (!m || m->layers < 1 || m->layers > Q4REF_TRAIN_MAX_LAYERS || m->T < 1 || !m->x ||
        !m->labels || !m->latent || !m->scales)
        return q4_fail(err, Q4_ERR_ARG, "a training model needs 1..%d layers, T >= 1 and its "
                       "x, labels, latent and scales", Q4REF_TRAIN_MAX_LAYERS);
    for (int l = 0; l < m->layers; l++) {
        q4_status st = q4_check_linear(m->M, m->width[l + 1], m->width[l], m->gs, err);
        if (st) return st;
    }
    return q4_check_labels(m->labels, m->T * m->M, m->width[m->layers], err);
}

/* The distance of q = latent / s from the nearest rounding boundary across which the
 * clamped code changes: the boundaries j + 0.5, j in -8..6. */
static double tie_distance(double q)
{
    if (q <= -7.5) return -7.5 - q;
    if (q >= 6.5) return q - 6.5;
    return fabs(q - floor(q) - 0.5);
}

static uint8_t code_of(double q)
{
    double r = nearbyint(q);   /* the default rounding mode: to nearest, ties to even */
    if (r < -8) r = -8;
    if (r > 7) r = 7;
    return (uint8_t)(r + 8);
}

/* Codes of every layer from the double latent; *tie the least distance to a boundary. */
static void requant_d(const q4ref_train_model *m, const double *lat, uint8_t *codes, double *tie)
{
    double least = INFINITY;
    for (int l = 0; l < m->layers; l++) {
        const int64_t N = m->width[l + 1], K = m->width[l];
        const double *p = lat + q4ref_train_weight_at(m, l);
        const float *s = m->scales + q4ref_train_scale_at(m, l);
        uint8_t *c = codes + q4ref_train_weight_at(m, l);
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                double sc = s[(k / m->gs) * N + n];
                if (sc == 0) {
                    c[n * K + k] = 8;
                    continue;
                }
                double q = p[n * K + k] / sc;
                c[n * K + k] = code_of(q);
                double d = tie_distance(q);
                if (d < least) least = d;
            }
    }
    if (tie) *tie = least;
}

static void dequant_d(const q4ref_train_model *m, const uint8_t *codes, double *w)
{
    for (int l = 0; l < m->layers; l++) {
        const int64_t N = m->width[l + 1], K = m->width[l], at = q4ref_train_weight_at(m, l);
        const float *s = m->scales + q4ref_train_scale_at(m, l);
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++)
                w[at + n * K + k] = ((int)codes[at + n * K + k] - 8) * (double)s[(k / m->gs) * N + n];
    }
}

q4_status q4ref_train_start_codes(const q4ref_train_model *m, uint8_t *codes, q4_error *err)
{
    q4_status st = check_model(m, err);
    for (int l = 0; l < m->layers && st == Q4_OK; l++) {
        const int64_t N = m->width[l + 1], K = m->width[l], at = q4ref_train_weight_at(m, l);
        uint8_t *flat = malloc((size_t)q4_flat_bytes(N, K));
        if (!flat)
            return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate a layer's codes");
        st = q4ref_requant(m->latent + at, m->scales + q4ref_train_scale_at(m, l), N, K, m->gs,
                           NULL, flat, err);
        if (st == Q4_OK)
            st = q4ref_unpack_flat(flat, N, K, codes + at, err);
        free(flat);
    }
    return st;
}

/* The widest activation of the model: M rows of its widest layer side. */
static int64_t widest(const q4ref_train_model *m)
{
    int64_t w = 0;
    for (int l = 0; l <= m->layers; l++)
        if (m->width[l] > w) w = m->width[l];
    return w;
}

q4_status q4ref_train_fp64(const q4ref_train_model *m, q4ref_train_trace *tr, q4_error *err)
{
    q4_status st = check_model(m, err);
    if (st) return st;
    const int L = m->layers;
    const int64_t n = q4ref_train_weights(m), M = m->M, W = widest(m), V = m->width[L];
    double *lat = calloc((size_t)n, sizeof *lat), *mom = calloc((size_t)n, sizeof *mom);
    double *vel = calloc((size_t)n, sizeof *vel), *wd = calloc((size_t)n, sizeof *wd);
    double *grad = calloc((size_t)n, sizeof *grad);
    double *act = calloc((size_t)((L + 1) * M * W), sizeof *act);
    double *g = calloc((size_t)(2 * M * W), sizeof *g);
    uint8_t *codes = calloc((size_t)n, 1);
    if (!lat || !mom || !vel || !wd || !grad || !act || !g || !codes) {
        st = q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the fp64 training run");
        goto out;
    }
    for (int64_t i = 0; i < n; i++)
        lat[i] = m->latent[i];
    if ((st = q4ref_train_start_codes(m, codes, err)))
        goto out;
    dequant_d(m, codes, wd);
    for (int64_t t = 1; t <= m->T; t++) {
        const float *x = m->x + (t - 1) * M * m->width[0];
        const int32_t *lab = m->labels + (t - 1) * M;
        for (int64_t i = 0; i < M * m->width[0]; i++)
            act[i] = x[i];
        for (int l = 0; l < L; l++) {   /* forward: a[l+1] = a[l] W_l^T */
            const int64_t N = m->width[l + 1], K = m->width[l];
            const double *a = act + l * M * W, *w = wd + q4ref_train_weight_at(m, l);
            q4ref_dgemm(CblasNoTrans, CblasTrans, M, N, K, a, K, w, K, 0.0,
                        act + (l + 1) * M * W);
        }
        /* fused CE over the logits a[L], every row valid: n_valid = M */
        const double *lg = act + L * M * W;
        double loss = 0;
        for (int64_t r = 0; r < M; r++) {
            double mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < V; j++)
                if (lg[r * V + j] > mx) mx = lg[r * V + j];
            for (int64_t j = 0; j < V; j++)
                sum += exp(lg[r * V + j] - mx);
            double lse = mx + log(sum);
            loss += (lse - lg[r * V + lab[r]]) / (double)M;
            for (int64_t j = 0; j < V; j++)
                g[r * V + j] = (exp(lg[r * V + j] - lse) - (j == lab[r])) / (double)M;
        }
        if (tr->loss) tr->loss[t - 1] = loss;
        double *gcur = g, *gnext = g + M * W;
        for (int l = L - 1; l >= 0; l--) {   /* backward: dW_l = g^T a[l]; g = g W_l */
            const int64_t N = m->width[l + 1], K = m->width[l];
            const double *a = act + l * M * W, *w = wd + q4ref_train_weight_at(m, l);
            q4ref_dgemm(CblasTrans, CblasNoTrans, N, K, M, gcur, N, a, K, 0.0,
                        grad + q4ref_train_weight_at(m, l));
            if (l > 0) {
                q4ref_dgemm(CblasNoTrans, CblasNoTrans, M, K, N, gcur, N, w, K, 0.0, gnext);
                double *tmp = gcur; gcur = gnext; gnext = tmp;
            }
        }
        float bc1, bc2;   /* AdamW in SPEC §2's order, in double */
        q4ref_train_bias_corrections(m, t, &bc1, &bc2);
        const double lr = m->lr, b1 = m->beta1, b2 = m->beta2, eps = m->eps, dec = m->wd;
        for (int64_t i = 0; i < n; i++) {
            double p = lat[i] - lr * dec * lat[i];
            mom[i] = b1 * mom[i] + (1 - b1) * grad[i];
            vel[i] = b2 * vel[i] + (1 - b2) * grad[i] * grad[i];
            lat[i] = p - lr * (mom[i] / bc1) / (sqrt(vel[i] / bc2) + eps);
        }
        if (tr->latent) memcpy(tr->latent + (t - 1) * n, lat, (size_t)n * sizeof *lat);
        requant_d(m, lat, codes, tr->tie ? &tr->tie[t - 1] : NULL);
        dequant_d(m, codes, wd);
    }
    if (tr->codes) memcpy(tr->codes, codes, (size_t)n);
out:
    free(lat); free(mom); free(vel); free(wd); free(grad); free(act); free(g); free(codes);
    return st;
}

/* The zoo's legal fp32 evaluations of the ops, one row per run: different summation
 * orders, FMA or not, the weight dequantized first or per term or the scale hoisted,
 * two-pass, online or blocked softmax, AdamW's equal forms (q4ref_zoo.h). */
static const struct {
    q4ref_zoo_dot fwd, bwd, dw;
    q4ref_zoo_ce ce;
    q4ref_zoo_adamw adamw;
} zoo[Q4REF_TRAIN_ZOO_RUNS] = {
    { {Q4REF_ZOO_SEQ, Q4REF_ZOO_DEQUANT_FIRST, 0}, {Q4REF_ZOO_SEQ, Q4REF_ZOO_DEQUANT_FIRST, 0},
      {Q4REF_ZOO_SEQ, Q4REF_ZOO_DEQUANT_FIRST, 0}, {Q4REF_ZOO_CE_TWO_PASS, 0, 0, 0}, {0, 0, 0, 0} },
    { {Q4REF_ZOO_FMA, Q4REF_ZOO_PER_TERM, 0}, {Q4REF_ZOO_FMA, Q4REF_ZOO_PER_TERM, 0},
      {Q4REF_ZOO_FMA, Q4REF_ZOO_DEQUANT_FIRST, 0}, {Q4REF_ZOO_CE_ONLINE, 1, 0, 0}, {1, 1, 0, 0} },
    { {Q4REF_ZOO_PAIRWISE, Q4REF_ZOO_HOIST_GROUP, 0}, {Q4REF_ZOO_PAIRWISE, Q4REF_ZOO_DEQUANT_FIRST, 0},
      {Q4REF_ZOO_PAIRWISE, Q4REF_ZOO_DEQUANT_FIRST, 0}, {Q4REF_ZOO_CE_BLOCKED, 0, 1, 0}, {0, 0, 1, 0} },
    { {Q4REF_ZOO_SPLITK, Q4REF_ZOO_DEQUANT_FIRST, 0}, {Q4REF_ZOO_SPLITK, Q4REF_ZOO_PER_TERM, 0},
      {Q4REF_ZOO_SPLITK, Q4REF_ZOO_DEQUANT_FIRST, 0}, {Q4REF_ZOO_CE_PAIRWISE, 0, 1, 0}, {1, 0, 1, 0} },
};

q4_status q4ref_train_zoo(const q4ref_train_model *m, int variant, q4ref_train_trace *tr,
                          q4_error *err)
{
    q4_status st = check_model(m, err);
    if (st) return st;
    if (variant < 0 || variant >= Q4REF_TRAIN_ZOO_RUNS)
        return q4_fail(err, Q4_ERR_ARG, "zoo run %d: there are %d", variant, Q4REF_TRAIN_ZOO_RUNS);
    const int L = m->layers;
    const int64_t n = q4ref_train_weights(m), M = m->M, W = widest(m), V = m->width[L];
    int64_t words = 0;
    for (int l = 0; l < L; l++)
        words += q4_w4x8_words(m->width[l + 1], m->width[l]);
    float *lat = malloc((size_t)n * sizeof *lat), *mom = calloc((size_t)n, sizeof *mom);
    float *vel = calloc((size_t)n, sizeof *vel), *grad = calloc((size_t)n, sizeof *grad);
    float *act = calloc((size_t)((L + 1) * M * W), sizeof *act);
    float *g = calloc((size_t)(2 * M * W), sizeof *g), *dl = calloc((size_t)(M * V), sizeof *dl);
    uint32_t *w = calloc((size_t)words, sizeof *w);
    uint8_t *codes = calloc((size_t)n, 1);
    if (!lat || !mom || !vel || !grad || !act || !g || !dl || !w || !codes) {
        st = q4_fail(err, Q4_ERR_NOMEM, "cannot allocate a zoo training run");
        goto out;
    }
    memcpy(lat, m->latent, (size_t)n * sizeof *lat);
    for (int64_t t = 0; t <= m->T && st == Q4_OK; t++) {
        if (t > 0) {   /* step t: forward, CE, backward, AdamW */
            const int64_t K0 = m->width[0];
            memcpy(act, m->x + (t - 1) * M * K0, (size_t)(M * K0) * sizeof *act);
            int64_t wat = 0;
            for (int l = 0; l < L && st == Q4_OK; l++) {
                const int64_t N = m->width[l + 1], K = m->width[l];
                st = q4ref_zoo_linear_fwd(&zoo[variant].fwd, act + l * M * W, w + wat,
                                          m->scales + q4ref_train_scale_at(m, l), NULL, M, N, K,
                                          m->gs, act + (l + 1) * M * W, err);
                wat += q4_w4x8_words(N, K);
            }
            float loss = 0;
            if (st == Q4_OK)
                st = q4ref_zoo_fused_ce(&zoo[variant].ce, act + L * M * W,
                                        m->labels + (t - 1) * M, M, V, (float)M, &loss, dl, err);
            if (tr->loss) tr->loss[t - 1] = loss;
            float *gcur = dl, *gnext = g;
            for (int l = L - 1; l >= 0 && st == Q4_OK; l--) {
                const int64_t N = m->width[l + 1], K = m->width[l];
                wat -= q4_w4x8_words(N, K);
                st = q4ref_zoo_linear_dw(&zoo[variant].dw, gcur, act + l * M * W, M, N, K,
                                         grad + q4ref_train_weight_at(m, l), err);
                if (st == Q4_OK && l > 0) {
                    st = q4ref_zoo_linear_bwd(&zoo[variant].bwd, gcur, w + wat,
                                              m->scales + q4ref_train_scale_at(m, l), M, N, K,
                                              m->gs, gnext, err);
                    gcur = gnext;
                    gnext = gnext == g ? g + M * W : g;
                }
            }
            q4ref_adamw_hyper h = { m->lr, m->beta1, m->beta2, m->eps, m->wd, 1, 1 };
            q4ref_train_bias_corrections(m, t, &h.bc1, &h.bc2);
            if (st == Q4_OK)
                st = q4ref_zoo_adamw_step(&zoo[variant].adamw, lat, grad, mom, vel, n, &h, err);
            for (int64_t i = 0; tr->latent && i < n; i++)
                tr->latent[(t - 1) * n + i] = lat[i];
        }
        int64_t wat = 0;   /* requant: the weights step t+1 reads */
        for (int l = 0; l < L && st == Q4_OK; l++) {
            const int64_t N = m->width[l + 1], K = m->width[l];
            st = q4ref_requant(lat + q4ref_train_weight_at(m, l),
                               m->scales + q4ref_train_scale_at(m, l), N, K, m->gs, w + wat,
                               NULL, err);
            if (st == Q4_OK)
                st = q4ref_unpack_w4x8(w + wat, N, K, codes + q4ref_train_weight_at(m, l), err);
            wat += q4_w4x8_words(N, K);
        }
    }
    if (st == Q4_OK && tr->codes) memcpy(tr->codes, codes, (size_t)n);
out:
    free(lat); free(mom); free(vel); free(grad); free(act); free(g); free(dl); free(w); free(codes);
    return st;
}
