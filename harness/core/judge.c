/* judge.c: one place that compares GPU results with the reference's truth and bounds.
 *
 * Real outputs: |got - value| <= bound elementwise, where value and bound come from
 * reference/ (fp64 truth, SPEC §3 bound); a NaN or Inf where the truth is finite
 * fails. Code outputs (requant): got == code passes, got == alt (the neighbour a
 * conformant 2.5-ULP division may give) is a QualityWarning, anything else fails.
 * Guard words, W_4X8 padding words and the row padding of a padded flat weight (an
 * interface file's, packed_io.c) must be intact.
 *
 * Beside the per-element bounds, the statistical check (docs/numerics.md): for every
 * real output with an envelope, as a whole and row by row, the signed sums of the
 * errors (plain and toward the value's sign) against q4ref_stat_bias_envelope, and the
 * norm of the errors, once each row's shared factor is taken out (least squares on
 * shr), against q4ref_stat_rms_envelope. The largest statistic / envelope is the
 * case's statistical margin; above 1 the case fails even if every element is within
 * its bound.
 *
 * Both loops run on every core (OpenMP) and give the same result with any thread
 * count: the elements are scanned in chunks (a row's statistical sums in blocks of
 * Q4H_JUDGE_CHUNK columns) whose bounds do not depend on the thread count, and the
 * chunks are joined in index order (judge_scan.h). The worst element is the first of
 * the largest margins, as one pass in index order finds it; a row of at most
 * Q4H_JUDGE_CHUNK columns is summed exactly as one pass sums it, a longer one block
 * by block (harness.judge compares 1 and several threads). A truth made tile by tile
 * is scanned as it is made (judge_tiled.c) and joined here the same way. */
#include "judge.h"
#include "judge_scan.h"

#include <omp.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = Q4H_JUDGE_CHUNK };

typedef q4h_stat_sums stat_sums;

static void consider(q4h_judging *j, const q4h_output *o, const q4h_chunk_worst *c)
{
    if (j->w.o == NULL || c->margin > j->w.margin) {
        j->w.margin = c->margin;
        j->w.err = c->err;
        j->w.got = c->got;
        j->w.expected = c->expected;
        j->w.bound = c->bound;
        j->w.o = o;
        j->w.index = c->index;
    }
}

/* One element, in units of its own statistical scale alw + sd, so that every element
 * weighs the same whatever its magnitude (the model scales with it). An element with
 * no scale must be exact, which the per-element check sees to. */
static void stat_add_elem(stat_sums *g, double err, double value, double alw, double sd,
                          double shr)
{
    double c = q4ref_stat_unit(alw, sd);
    if (!(c > 0))
        return;
    err /= c;
    alw /= c;
    sd /= c;
    shr /= c;
    g->se += value > 0 ? err : value < 0 ? -err : 0;
    g->s0 += err;
    g->ee += err * err;
    g->ew += err * shr;
    g->ww += shr * shr;
    g->shared += fabs(shr);
    g->a1 += alw;
    g->a2 += alw * alw;
    g->q2 += sd * sd;
    g->q4 += sd * sd * sd * sd;
    g->qmax = fmax(g->qmax, sd * sd);
}

/* Closes a row: its residual norm, then its sums added to the output's. */
static void stat_end_row(stat_sums *row, stat_sums *total)
{
    row->res2 = fmax(row->ee - (row->ww > 0 ? row->ew * row->ew / row->ww : 0), 0);
    total->se += row->se;
    total->s0 += row->s0;
    total->res2 += row->res2;
    total->shared += row->shared;
    total->a1 += row->a1;
    total->a2 += row->a2;
    total->q2 += row->q2;
    total->q4 += row->q4;
    total->qmax = fmax(total->qmax, row->qmax);
}

static double ratio(double stat, double env)
{
    if (stat == 0)
        return 0;
    return env > 0 ? stat / env : INFINITY;
}

static void set_stat_worst(q4h_judging *j, double margin, double stat, double env,
                           const q4h_output *o, int64_t row, const char *test)
{
    j->sw.margin = margin;
    j->sw.stat = stat;
    j->sw.env = env;
    j->sw.o = o;
    j->sw.row = row;
    j->sw.test = test;
}

/* The signed sums of group g against their envelopes: the worse of the two, into j. */
static void stat_consider_bias(q4h_judging *j, const q4h_output *o, int64_t row,
                               const char *what, const stat_sums *g)
{
    double env_v = q4ref_stat_bias_envelope(g->shared, g->a1, g->q2 + g->var_v);
    double env_0 = q4ref_stat_bias_envelope(g->shared, g->a1, g->q2 + g->var_0);
    double mv = ratio(fabs(g->se), env_v), m0 = ratio(fabs(g->s0), env_0);
    if (j->sw.o == NULL || fmax(mv, m0) > j->sw.margin) {
        if (mv >= m0)
            set_stat_worst(j, mv, fabs(g->se), env_v, o, row, what);
        else
            set_stat_worst(j, m0, fabs(g->s0), env_0, o, row, what);
    }
}

static void stat_consider(q4h_judging *j, const q4h_output *o, int64_t row, const stat_sums *g)
{
    double rms = sqrt(g->res2);
    double renv = q4ref_stat_rms_envelope(g->a2, g->q2, g->q4, g->qmax);
    double mr = ratio(rms, renv);
    stat_consider_bias(j, o, row, "signed error sum", g);
    if (mr > j->sw.margin)
        set_stat_worst(j, mr, rms, renv, o, row, "error norm");
}

/* Each column of an output whose columns share roundings (o->col_var): its signed
 * sums, with the shared part's variance; and that variance into the whole output's. */
static void stat_columns(q4h_judging *j, const q4h_output *o, stat_sums *col, stat_sums *total)
{
    for (int64_t c = 0; c < o->cols; c++) {
        col[c].var_v = o->col_var[0][c];
        col[c].var_0 = o->col_var[1][c];
        total->var_v += col[c].var_v;
        total->var_0 += col[c].var_0;
        if (o->cols > 1 && o->rows > 1)
            stat_consider_bias(j, o, -2 - c, "signed error sum", &col[c]);
    }
}

bool q4h_judge_has_stat(const q4h_output *o)
{
    return o->env.alw || (o->tiled && o->tiled_env) || o->dot_n > 0;
}

/* Element i's error and statistical scales; false when the error is not finite (the
 * per-element check fails it, the statistics leave it out). */
static bool stat_elem(const q4h_output *o, const q4h_truth_view *v, int64_t i, double *err,
                      double *alw, double *sd, double *shr)
{
    const int64_t t = i - v->at;
    *err = (double)o->got[i] - v->value[t];
    *shr = 0;
    if (!isfinite(*err))
        return false;
    if (v->alw) {
        *alw = v->alw[t];
        *sd = v->sd[t];
        *shr = v->shr ? v->shr[t] : 0;
    } else {
        q4ref_envelope_dot(o->dot_n, o->dot_factors, v->bound[t], alw, sd);
    }
    return true;
}

void q4h_scan_stat(const q4h_output *o, const q4h_truth_view *v, int64_t r, int64_t j0,
                   int64_t j1, stat_sums *g)
{
    for (int64_t i = r * o->cols + j0; i < r * o->cols + j1; i++) {
        double err, alw, sd, shr;
        if (stat_elem(o, v, i, &err, &alw, &sd, &shr))
            stat_add_elem(g, err, v->value[i - v->at], alw, sd, shr);
    }
}

/* b's element sums added to a's (a row's blocks, joined in order). */
static void stat_add_sums(stat_sums *a, const stat_sums *b)
{
    a->se += b->se;
    a->s0 += b->s0;
    a->ee += b->ee;
    a->ew += b->ew;
    a->ww += b->ww;
    a->shared += b->shared;
    a->a1 += b->a1;
    a->a2 += b->a2;
    a->q2 += b->q2;
    a->q4 += b->q4;
    a->qmax = fmax(a->qmax, b->qmax);
}

/* An output's own arrays as a view. */
static q4h_truth_view whole_view(const q4h_output *o)
{
    return (q4h_truth_view){ o->value, o->bound, o->env.alw, o->env.sd, o->env.shr, 0 };
}

/* Each column's sums over the rows, in row order (a column's sum does not depend on
 * how the columns are shared out). */
static void stat_column_sums(const q4h_output *o, stat_sums *col)
{
    const q4h_truth_view v = whole_view(o);
#pragma omp parallel for schedule(static) if (o->count > CHUNK)
    for (int64_t j0 = 0; j0 < o->cols; j0 += 64) {
        int64_t j1 = j0 + 64 < o->cols ? j0 + 64 : o->cols;
        for (int64_t r = 0; r < o->rows; r++)
            for (int64_t j = j0; j < j1; j++) {
                double err, alw, sd, shr;
                int64_t i = r * o->cols + j;
                if (stat_elem(o, &v, i, &err, &alw, &sd, &shr))
                    stat_add_elem(&col[j], err, o->value[i], alw, sd, shr);
            }
    }
}

/* Row blocks of a real output with a statistic: per row, or NULL (out of memory: no
 * statistic, as for the columns). */
static stat_sums *scan_blocks(const q4h_output *o, int64_t *per_row)
{
    *per_row = o->cols > 0 ? (o->cols + CHUNK - 1) / CHUNK : 0;
    const int64_t n_blocks = o->rows * *per_row;
    stat_sums *blocks = calloc((size_t)(n_blocks > 0 ? n_blocks : 1), sizeof *blocks);
    if (!blocks)
        return NULL;
    const int64_t pr = *per_row;
    const q4h_truth_view v = whole_view(o);
#pragma omp parallel for schedule(dynamic, 1) if (o->count > CHUNK)
    for (int64_t b = 0; b < n_blocks; b++) {
        int64_t r = b / pr, j0 = b % pr * CHUNK;
        stat_sums mine = { 0 };   /* summed in a copy of this thread's own */
        q4h_scan_stat(o, &v, r, j0, j0 + CHUNK < o->cols ? j0 + CHUNK : o->cols, &mine);
        blocks[b] = mine;
    }
    return blocks;
}

/* The statistical check of one real output from its row blocks (whole outputs: and
 * its columns, from its arrays). */
static void judge_stat(q4h_judging *j, const q4h_output *o, const stat_sums *blocks,
                       int64_t per_row)
{
    stat_sums total = { 0 };
    stat_sums *col = NULL;
    if (o->col_var[0] && !(col = calloc((size_t)o->cols, sizeof *col)))
        return;   /* out of memory for the column groups: whole and rows judged */
    for (int64_t r = 0; r < o->rows; r++) {
        stat_sums row = { 0 };
        if (per_row > 0)
            row = blocks[r * per_row];   /* one block: the row exactly as one pass sums it */
        for (int64_t b = 1; b < per_row; b++)
            stat_add_sums(&row, &blocks[r * per_row + b]);
        stat_end_row(&row, &total);
        if (o->rows > 1)
            stat_consider(j, o, r, &row);
    }
    if (col) {
        stat_column_sums(o, col);
        stat_columns(j, o, col, &total);
    }
    stat_consider(j, o, -1, &total);
    free(col);
}

/* Element i's margin, its error into *err, and what it got and expected. */
static double margin_of(const q4h_output *o, const q4h_truth_view *v, int64_t i, double *err,
                        double *got, double *expected, double *bound)
{
    if (!o->got) {
        int g = o->got_code[i], e = o->code[i];
        *got = g, *expected = e, *bound = 0.5;
        *err = fabs((double)(g - e));
        /* the other neighbour is at the edge the division's 2.5 ULP allows */
        return g == e ? 0 : g == o->alt[i] ? 1 : INFINITY;
    }
    double e = v->value[i - v->at], b = v->bound[i - v->at], g = o->got[i];
    *got = g, *expected = e, *bound = b;
    *err = fabs(g - e);
    if (!isfinite(g))
        return *err = INFINITY;
    if (b > 0)
        return *err / b;
    return *err == 0 ? 0 : INFINITY;
}

double q4h_element_margin(const q4h_output *o, int64_t i, double *err)
{
    double got, expected, bound;
    const q4h_truth_view v = whole_view(o);
    return margin_of(o, &v, i, err, &got, &expected, &bound);
}

/* A real element counts as over its bound when its margin is above 1 or NaN; a code
 * is over when wrong (margin above 1) and warned when the conformant neighbour (1). */
static void count_margin(const q4h_output *o, double margin, int64_t *over, int64_t *warned)
{
    if (o->got) {
        if (margin > 1 || margin != margin)
            (*over)++;
    } else if (margin == 1) {
        (*warned)++;
    } else if (margin > 1) {
        (*over)++;
    }
}

void q4h_scan_elements(const q4h_output *o, const q4h_truth_view *v, int64_t a, int64_t b,
                       q4h_chunk_worst *c, q4h_chunk_worst *first)
{
    double err, got, expected, bound, margin;
    if (a == 0 && b > 0) {
        margin = margin_of(o, v, 0, &err, &got, &expected, &bound);
        *first = (q4h_chunk_worst){ 0, 0, 0, margin, err, got, expected, bound };
        count_margin(o, margin, &first->over, &first->warned);
        a = 1;
    }
    for (int64_t i = a; i < b; i++) {
        margin = margin_of(o, v, i, &err, &got, &expected, &bound);
        count_margin(o, margin, &c->over, &c->warned);
        if (margin == margin && (c->index < 0 || margin > c->margin))
            *c = (q4h_chunk_worst){ i, c->over, c->warned, margin, err, got, expected, bound };
    }
}

/* The whole judge's scan of o's elements: chunks of CHUNK on every core (NULL chunks:
 * no memory for them, the join scans each in turn). */
static void scan_whole(const q4h_output *o, q4h_output_scan *s)
{
    const q4h_truth_view v = whole_view(o);
    *s = (q4h_output_scan){ .first = Q4H_NO_WORST };
    s->n_chunks = (o->count + CHUNK - 1) / CHUNK;
    s->chunks = malloc((size_t)(s->n_chunks > 0 ? s->n_chunks : 1) * sizeof *s->chunks);
    if (s->chunks) {
        const int64_t n = s->n_chunks;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
        for (int64_t c = 0; c < n; c++) {
            /* in copies of this thread's own: the neighbours are other threads' */
            int64_t a = c * CHUNK;
            q4h_chunk_worst mine = Q4H_NO_WORST, first = Q4H_NO_WORST;
            q4h_scan_elements(o, &v, a, a + CHUNK < o->count ? a + CHUNK : o->count, &mine,
                              &first);
            s->chunks[c] = mine;
            if (a == 0)
                s->first = first;
        }
    }
    if (o->got && q4h_judge_has_stat(o))
        s->blocks = scan_blocks(o, &s->per_row);
}

/* Chunk c of o's elements, scanned alone (no memory for every chunk's result). */
static void scan_one_chunk(const q4h_output *o, int64_t c, q4h_chunk_worst *one,
                           q4h_chunk_worst *first)
{
    const q4h_truth_view v = whole_view(o);
    int64_t a = c * CHUNK;
    *one = Q4H_NO_WORST;
    q4h_scan_elements(o, &v, a, a + CHUNK < o->count ? a + CHUNK : o->count, one, first);
}

void q4h_judging_output(q4h_judging *j, const q4h_output *o, const q4h_output_scan *scan)
{
    q4h_output_scan own;
    if (!scan) {
        scan_whole(o, &own);
        scan = &own;
    }
    j->elements += o->count;
    if (o->count > 0) {
        q4h_chunk_worst first = scan->first;
        for (int64_t c = 0; c < scan->n_chunks; c++) {
            q4h_chunk_worst one;
            const q4h_chunk_worst *at = &one;
            if (scan->chunks)
                at = &scan->chunks[c];
            else
                scan_one_chunk(o, c, &one, &first);
            if (c == 0) {   /* element 0 first: the worst so far if nothing is yet */
                j->over += first.over;
                j->warned += first.warned;
                consider(j, o, &first);
            }
            j->over += at->over;
            j->warned += at->warned;
            if (at->index >= 0)
                consider(j, o, at);
        }
    }
    if (o->got && scan->blocks)
        judge_stat(j, o, scan->blocks, scan->per_row);
    if (!o->guard_ok && !j->problem[0])
        snprintf(j->problem, sizeof j->problem,
                 "out-of-bounds write: guard word %lld after output %s was overwritten",
                 (long long)o->guard_bad_at, o->name);
    if (!o->padding_ok && !j->problem[0] && o->padding_problem[0])
        snprintf(j->problem, sizeof j->problem, "%s", o->padding_problem);
    else if (!o->padding_ok && !j->problem[0])
        snprintf(j->problem, sizeof j->problem,
                 "W_4X8 padding word %lld of output %s is not 0x88888888",
                 (long long)o->padding_bad_at, o->name);
    if (scan == &own) {
        free(own.chunks);
        free(own.blocks);
    }
}

void q4h_element_where(const q4h_output *o, int64_t i, char *buf, size_t size)
{
    if (o->count == 1)
        snprintf(buf, size, "scalar");
    else if (o->rows == 1)
        snprintf(buf, size, "%s=%lld", o->col_name, (long long)i);
    else
        snprintf(buf, size, "%s=%lld, %s=%lld", o->row_name, (long long)(i / o->cols),
                 o->col_name, (long long)(i % o->cols));
}

void q4h_judging_end(const q4h_judging *j, q4_result *r)
{
    const char *problem = j->problem;
    r->elements = j->elements;
    r->worst_margin = j->w.o ? j->w.margin : 0;
    r->worst_err = j->w.o ? j->w.err : 0;
    r->got = j->w.got;
    r->expected = j->w.expected;
    r->bound = j->w.bound;
    r->index = j->w.o ? j->w.index : -1;
    snprintf(r->output, sizeof r->output, "%s", j->w.o ? j->w.o->name : "");
    if (j->w.o)
        q4h_element_where(j->w.o, j->w.index, r->where, sizeof r->where);
    r->stat_margin = j->sw.o ? j->sw.margin : NAN;

    if (j->over > 0 || problem[0]) {
        r->verdict = Q4_FAIL;
        if (j->over > 0)
            snprintf(r->message, sizeof r->message,
                     "%lld of %lld elements outside their bound%s%s; worst %s[%s]: got %.9g, "
                     "expected %.9g, |err| %.3g, bound %.3g (margin %.3g)",
                     (long long)j->over, (long long)j->elements, problem[0] ? "; " : "",
                     problem, r->output, r->where, r->got, r->expected, r->worst_err, r->bound,
                     r->worst_margin);
        else
            snprintf(r->message, sizeof r->message, "%s", problem);
    } else if (j->sw.o && !(j->sw.margin <= 1)) {
        char row[64] = "";
        r->verdict = Q4_FAIL;
        if (j->sw.row >= 0)
            snprintf(row, sizeof row, " row %s=%lld", j->sw.o->row_name, (long long)j->sw.row);
        else if (j->sw.row < -1)
            snprintf(row, sizeof row, " column %s=%lld", j->sw.o->col_name,
                     (long long)(-2 - j->sw.row));
        snprintf(r->message, sizeof r->message,
                 "systematic error: every element is within its bound (worst margin %.3g), but "
                 "output %s%s has %s %.3g, above what a correct fp32 kernel can produce, %.3g "
                 "(statistical margin %.3g; docs/numerics.md)", r->worst_margin, j->sw.o->name,
                 row, j->sw.test, j->sw.stat, j->sw.env, j->sw.margin);
    } else if (j->warned > 0) {
        r->verdict = Q4_QUALITY_WARNING;
        snprintf(r->message, sizeof r->message,
                 "%lld of %lld codes are the other neighbour of a quotient within 2.5 ULP of a "
                 "rounding tie or clamp edge (conformant, not exact); first %s[%s]: got %g, "
                 "exact %g", (long long)j->warned, (long long)j->elements, r->output, r->where,
                 r->got, r->expected);
    } else {
        r->verdict = Q4_PASS;
    }
}

void q4h_judge(const q4h_outputs *out, q4_result *r)
{
    q4h_judging j = { 0 };
    for (int k = 0; k < out->n; k++)
        q4h_judging_output(&j, &out->o[k], NULL);
    q4h_judging_end(&j, r);
}
