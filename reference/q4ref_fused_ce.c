/* q4ref_fused_ce.c: fused cross-entropy, loss and dlogits in one op (SPEC §2).
 *
 * fp32 path: computed in fp32 throughout, max-shifted (stable), two passes per row:
 * e_j = expf(x_j - max) parked in dlogits while S accumulates, then
 * dlogits_j = (e_j / S - [j == l]) / n_valid in place; no scratch memory.
 * Truth path: the fp64 evaluation and per-element bound of q4ref_ce_row_bound, for
 * every row at once or row by row (q4ref_ce_rows: the same body).
 * Both run their rows on every core (OpenMP), bit-identical to one thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "q4ref_internal.h"

/* After the shape check: buffers (logits and labels in; outs), then label values. */
static q4_status check_ce(const float *logits, const int32_t *labels, int64_t R, int64_t V,
                          const q4ref_buf *outs, int nout, q4_error *err)
{
    q4_status st;
    q4ref_buf in[] = {{logits, (size_t)(R * V) * sizeof(float), "logits", 0},
                      {labels, (size_t)R * sizeof(int32_t), "labels", 0}};
    if ((st = q4ref_check_bufs(in, 2, outs, nout, err)))
        return st;
    return q4_check_labels(labels, R, V, err);
}

q4_status q4ref_fused_ce(const float *logits, const int32_t *labels, int64_t R, int64_t V,
                         float n_valid, float *loss, float *dlogits, q4_error *err)
{
    q4_status st;
    float total = 0, *row_loss;
    if ((st = q4_check_ce_shape(R, V, n_valid, err)))
        return st;
    q4ref_buf out[] = {{loss, sizeof(float), "loss", 0},
                       {dlogits, (size_t)(R * V) * sizeof(float), "dlogits", 0}};
    if ((st = check_ce(logits, labels, R, V, out, 2, err)) ||
        !(row_loss = q4ref_alloc(R, 1, sizeof(float), "the per-row losses", &st, err)))
        return st;
    /* Rows in parallel (each row's arithmetic is the same on any thread), then the
     * loss summed in row order: bit-identical to one thread. */
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t r = 0; r < R; r++) {
        const float *x = logits + r * V;
        float *d = dlogits + r * V, mx = x[0], S = 0;
        const int32_t l = labels[r];
        row_loss[r] = 0;
        if (l < 0) {
            memset(d, 0, (size_t)V * sizeof(float));
            continue;
        }
        for (int64_t j = 1; j < V; j++)
            mx = fmaxf(mx, x[j]);
        for (int64_t j = 0; j < V; j++) {
            d[j] = expf(x[j] - mx);
            S += d[j];
        }
        row_loss[r] = (mx + logf(S) - x[l]) / n_valid;
        for (int64_t j = 0; j < V; j++)
            d[j] = (d[j] / S - (j == l ? 1.0f : 0.0f)) / n_valid;
    }
    for (int64_t r = 0; r < R; r++)
        if (labels[r] >= 0)
            total += row_loss[r];
    *loss = total;
    free(row_loss);
    return Q4_OK;
}

q4_status q4ref_fused_ce_truth(const float *logits, const int32_t *labels, int64_t R, int64_t V,
                               float n_valid, double *loss_value, double *loss_bound,
                               double *dlogits_value, double *dlogits_bound, q4_error *err)
{
    return q4ref_fused_ce_truth_env(logits, labels, R, V, n_valid, loss_value, loss_bound,
                                    dlogits_value, dlogits_bound, NULL, NULL, err);
}

/* Row r of the truth: its dlogits' values, bounds and envelope (V each), and its loss
 * into *row; the one body of the whole truth and of a row's alone. */
static void truth_row(const float *logits, const int32_t *labels, int64_t V, float n_valid,
                      int64_t r, q4ref_ce_row *row, double *dv, double *db, float *alw,
                      float *sd, float *shr)
{
    if (labels[r] < 0) {
        /* Masked: exact zeros are required, so the bound is 0. */
        for (int64_t j = 0; j < V; j++) {
            dv[j] = db[j] = 0;
            alw[j] = sd[j] = shr[j] = 0;
        }
        *row = (q4ref_ce_row){{0, 0, 0, 0}, 0};
        return;
    }
    q4ref_ce_row_bound(logits + r * V, V, labels[r], n_valid, row, dv, db, alw, sd, shr);
}

/* The loss's value, bound and envelope (one element) from every row's. */
static void put_loss(const q4ref_ce_row *rows, int64_t R, double *loss_value, double *loss_bound,
                     const q4ref_envelope *loss_env)
{
    q4ref_ev loss = q4ref_ce_loss_sum(rows, R);
    *loss_value = loss.v;
    *loss_bound = loss.e;
    if (loss_env) {
        loss_env->alw[0] = (float)loss.a;
        loss_env->sd[0] = (float)loss.q;
        if (loss_env->shr)
            loss_env->shr[0] = 0;
    }
}

q4_status q4ref_fused_ce_truth_env(const float *logits, const int32_t *labels, int64_t R,
                                   int64_t V, float n_valid, double *loss_value,
                                   double *loss_bound, double *dlogits_value,
                                   double *dlogits_bound, const q4ref_envelope *loss_env,
                                   const q4ref_envelope *dlogits_env, q4_error *err)
{
    q4_status st;
    q4ref_ce_row *rows;
    float *scratch = NULL;
    if ((st = q4_check_ce_shape(R, V, n_valid, err)))
        return st;
    q4ref_buf out[] = {{loss_value, sizeof(double), "loss_value", 0},
                       {loss_bound, sizeof(double), "loss_bound", 0},
                       {dlogits_value, (size_t)(R * V) * sizeof(double), "dlogits_value", 0},
                       {dlogits_bound, (size_t)(R * V) * sizeof(double), "dlogits_bound", 0}};
    if ((st = check_ce(logits, labels, R, V, out, 4, err)) ||
        !(rows = q4ref_alloc(R, 1, sizeof *rows, "the per-row losses", &st, err)))
        return st;
    /* Without a dlogits envelope from the caller, one row's worth of scratch per
     * thread holds it. */
    if (!dlogits_env && !(scratch = q4ref_alloc(3 * q4ref_threads(), V, sizeof(float),
                                                "the envelope", &st, err))) {
        free(rows);
        return st;
    }
    /* Rows in parallel, each computed alone; the loss is summed in row order after:
     * bit-identical to one thread. */
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t r = 0; r < R; r++) {
        float *mine = scratch + 3 * V * q4ref_thread();
        float *alw = dlogits_env ? dlogits_env->alw + r * V : mine;
        float *sd = dlogits_env ? dlogits_env->sd + r * V : mine + V;
        float *shr = dlogits_env ? dlogits_env->shr + r * V : mine + 2 * V;
        truth_row(logits, labels, V, n_valid, r, &rows[r], dlogits_value + r * V,
                  dlogits_bound + r * V, alw, sd, shr);
    }
    put_loss(rows, R, loss_value, loss_bound, loss_env);
    free(scratch);
    free(rows);
    return Q4_OK;
}

/* The truth row by row: the inputs and each row's loss, until the loss is made. */
struct q4ref_ce_rows {
    const float *logits;
    const int32_t *labels;
    int64_t R, V;
    float n_valid;
    q4ref_ce_row row[];
};

q4_status q4ref_fused_ce_truth_rows(const float *logits, const int32_t *labels, int64_t R,
                                    int64_t V, float n_valid, q4ref_ce_rows **rows,
                                    q4_error *err)
{
    q4_status st;
    *rows = NULL;
    if ((st = q4_check_ce_shape(R, V, n_valid, err)) ||
        (st = check_ce(logits, labels, R, V, NULL, 0, err)))
        return st;
    q4ref_ce_rows *t = q4ref_alloc(1, (int64_t)(sizeof *t + (size_t)R * sizeof t->row[0]), 1,
                                   "the per-row losses", &st, err);
    if (!t)
        return st;
    t->logits = logits;
    t->labels = labels;
    t->R = R;
    t->V = V;
    t->n_valid = n_valid;
    *rows = t;
    return Q4_OK;
}

void q4ref_fused_ce_truth_row(q4ref_ce_rows *rows, int64_t r, double *dlogits_value,
                              double *dlogits_bound, const q4ref_envelope *dlogits_env)
{
    truth_row(rows->logits, rows->labels, rows->V, rows->n_valid, r, &rows->row[r],
              dlogits_value, dlogits_bound, dlogits_env->alw, dlogits_env->sd, dlogits_env->shr);
}

void q4ref_fused_ce_truth_loss(const q4ref_ce_rows *rows, double *loss_value, double *loss_bound,
                               const q4ref_envelope *loss_env)
{
    put_loss(rows->row, rows->R, loss_value, loss_bound, loss_env);
}

void q4ref_fused_ce_rows_free(q4ref_ce_rows *rows) { free(rows); }
