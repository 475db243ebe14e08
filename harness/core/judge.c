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
 * count: the elements are cut into chunks of CHUNK (a row's statistical sums into
 * blocks of CHUNK columns) whose bounds do not depend on the thread count; each
 * chunk is scanned in index order and the chunks are joined in index order. The
 * worst element is the first of the largest margins, as one pass in index order
 * finds it; a row of at most CHUNK columns is summed exactly as one pass sums it,
 * a longer one block by block (harness.judge compares 1 and several threads). */
#include "judge.h"

#include <omp.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct worst {
    double margin, err, got, expected, bound;
    const q4h_output *o;
    int64_t index;
} worst;

static void consider(worst *w, const q4h_output *o, int64_t i, double margin, double err,
                     double got, double expected, double bound)
{
    if (w->o == NULL || margin > w->margin) {
        *w = (worst){ margin, err, got, expected, bound, o, i };
    }
}

/* Elements per chunk of the per-element check, and columns per block of a row's
 * statistical sums: fixed, so that the work is cut the same way on any thread count. */
enum { CHUNK = 1 << 16 };

/* Sums over one group of elements (a row, or a whole output). */
typedef struct stat_sums {
    double se, s0;            /* sum sgn(value) err, sum err */
    double ee, ew, ww;        /* sum err^2, err shr, shr^2: the row's residual norm */
    double res2;              /* squared norm of the errors with the shared factor out */
    double shared, a1, a2;    /* sum |shr|, alw, alw^2 */
    double q2, q4, qmax;      /* sum sd^2, sd^4, max sd^2 */
    double var_v, var_0;      /* shared roundings' variance in se and s0 (o->col_var) */
} stat_sums;

/* The worst statistic of a case: which output, row (-1: the whole output), which test. */
typedef struct stat_worst {
    double margin, stat, env;
    const q4h_output *o;
    int64_t row;              /* -1 the whole output, -2 - j column j */
    const char *test;
} stat_worst;

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

/* The signed sums of group g against their envelopes: the worse of the two, into w. */
static void stat_consider_bias(stat_worst *w, const q4h_output *o, int64_t row, const char *what,
                               const stat_sums *g)
{
    double env_v = q4ref_stat_bias_envelope(g->shared, g->a1, g->q2 + g->var_v);
    double env_0 = q4ref_stat_bias_envelope(g->shared, g->a1, g->q2 + g->var_0);
    double mv = ratio(fabs(g->se), env_v), m0 = ratio(fabs(g->s0), env_0);
    if (w->o == NULL || fmax(mv, m0) > w->margin) {
        if (mv >= m0)
            *w = (stat_worst){ mv, fabs(g->se), env_v, o, row, what };
        else
            *w = (stat_worst){ m0, fabs(g->s0), env_0, o, row, what };
    }
}

static void stat_consider(stat_worst *w, const q4h_output *o, int64_t row, const stat_sums *g)
{
    double rms = sqrt(g->res2);
    double renv = q4ref_stat_rms_envelope(g->a2, g->q2, g->q4, g->qmax);
    double mr = ratio(rms, renv);
    stat_consider_bias(w, o, row, "signed error sum", g);
    if (mr > w->margin)
        *w = (stat_worst){ mr, rms, renv, o, row, "error norm" };
}

/* Each column of an output whose columns share roundings (o->col_var): its signed
 * sums, with the shared part's variance; and that variance into the whole output's. */
static void stat_columns(stat_worst *w, const q4h_output *o, stat_sums *col, stat_sums *total)
{
    for (int64_t j = 0; j < o->cols; j++) {
        col[j].var_v = o->col_var[0][j];
        col[j].var_0 = o->col_var[1][j];
        total->var_v += col[j].var_v;
        total->var_0 += col[j].var_0;
        if (o->cols > 1 && o->rows > 1)
            stat_consider_bias(w, o, -2 - j, "signed error sum", &col[j]);
    }
}

/* Element i's error and statistical scales; false when the error is not finite (the
 * per-element check fails it, the statistics leave it out). */
static bool stat_elem(const q4h_output *o, int64_t i, double *err, double *alw, double *sd,
                      double *shr)
{
    *err = (double)o->got[i] - o->value[i];
    *shr = 0;
    if (!isfinite(*err))
        return false;
    if (o->env.alw) {
        *alw = o->env.alw[i];
        *sd = o->env.sd[i];
        *shr = o->env.shr ? o->env.shr[i] : 0;
    } else {
        q4ref_envelope_dot(o->dot_n, o->dot_factors, o->bound[i], alw, sd);
    }
    return true;
}

/* Row r's elements in columns [j0, j1), in order, into g (zero on entry). */
static void stat_block(const q4h_output *o, int64_t r, int64_t j0, int64_t j1, stat_sums *g)
{
    for (int64_t i = r * o->cols + j0; i < r * o->cols + j1; i++) {
        double err, alw, sd, shr;
        if (stat_elem(o, i, &err, &alw, &sd, &shr))
            stat_add_elem(g, err, o->value[i], alw, sd, shr);
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

/* Each column's sums over the rows, in row order (a column's sum does not depend on
 * how the columns are shared out). */
static void stat_column_sums(const q4h_output *o, stat_sums *col)
{
#pragma omp parallel for schedule(static) if (o->count > CHUNK)
    for (int64_t j0 = 0; j0 < o->cols; j0 += 64) {
        int64_t j1 = j0 + 64 < o->cols ? j0 + 64 : o->cols;
        for (int64_t r = 0; r < o->rows; r++)
            for (int64_t j = j0; j < j1; j++) {
                double err, alw, sd, shr;
                int64_t i = r * o->cols + j;
                if (stat_elem(o, i, &err, &alw, &sd, &shr))
                    stat_add_elem(&col[j], err, o->value[i], alw, sd, shr);
            }
    }
}

/* The statistical check of one real output (nothing without an envelope). */
static void judge_stat(const q4h_output *o, stat_worst *w)
{
    stat_sums total = { 0 };
    stat_sums *col = NULL, *blocks;
    if (!o->env.alw && o->dot_n <= 0)
        return;
    if (o->col_var[0] && !(col = calloc((size_t)o->cols, sizeof *col)))
        return;   /* out of memory for the column groups: whole and rows judged */
    const int64_t per_row = o->cols > 0 ? (o->cols + CHUNK - 1) / CHUNK : 0;
    const int64_t n_blocks = o->rows * per_row;
    if (!(blocks = calloc((size_t)(n_blocks > 0 ? n_blocks : 1), sizeof *blocks))) {
        free(col);
        return;   /* out of memory: no statistic, as for the columns */
    }
#pragma omp parallel for schedule(dynamic, 1) if (o->count > CHUNK)
    for (int64_t b = 0; b < n_blocks; b++) {
        int64_t r = b / per_row, j0 = b % per_row * CHUNK;
        stat_block(o, r, j0, j0 + CHUNK < o->cols ? j0 + CHUNK : o->cols, &blocks[b]);
    }
    for (int64_t r = 0; r < o->rows; r++) {
        stat_sums row = { 0 };
        if (per_row > 0)
            row = blocks[r * per_row];   /* one block: the row exactly as one pass sums it */
        for (int64_t b = 1; b < per_row; b++)
            stat_add_sums(&row, &blocks[r * per_row + b]);
        stat_end_row(&row, &total);
        if (o->rows > 1)
            stat_consider(w, o, r, &row);
    }
    free(blocks);
    if (col) {
        stat_column_sums(o, col);
        stat_columns(w, o, col, &total);
    }
    stat_consider(w, o, -1, &total);
    free(col);
}

double q4h_element_margin(const q4h_output *o, int64_t i, double *err)
{
    if (!o->got) {
        int g = o->got_code[i], e = o->code[i];
        *err = fabs((double)(g - e));
        /* the other neighbour is at the edge the division's 2.5 ULP allows */
        return g == e ? 0 : g == o->alt[i] ? 1 : INFINITY;
    }
    double e = o->value[i], b = o->bound[i], g = o->got[i];
    *err = fabs(g - e);
    if (!isfinite(g))
        return *err = INFINITY;
    if (b > 0)
        return *err / b;
    return *err == 0 ? 0 : INFINITY;
}

/* One chunk's counts and its worst element: the first of its largest margins, NaN
 * margins left out (a NaN is the worst only as the very first element judged, which
 * judge_elements takes alone). index -1: none. */
typedef struct chunk_worst {
    int64_t index, over, warned;
    double margin, err;
} chunk_worst;

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

static void scan_chunk(const q4h_output *o, int64_t a, int64_t b, chunk_worst *c)
{
    *c = (chunk_worst){ -1, 0, 0, 0, 0 };
    for (int64_t i = a; i < b; i++) {
        double err, margin = q4h_element_margin(o, i, &err);
        count_margin(o, margin, &c->over, &c->warned);
        if (margin == margin && (c->index < 0 || margin > c->margin)) {
            c->index = i;
            c->margin = margin;
            c->err = err;
        }
    }
}

static void consider_element(worst *w, const q4h_output *o, int64_t i, double margin, double err)
{
    if (o->got)
        consider(w, o, i, margin, err, o->got[i], o->value[i], o->bound[i]);
    else
        consider(w, o, i, margin, err, o->got_code[i], o->code[i], 0.5);
}

/* Every element of o against its bound (real) or its code: the counts into *over and
 * *warned, the worst into w, as one pass of consider() in index order would leave them. */
static void judge_elements(const q4h_output *o, worst *w, int64_t *over, int64_t *warned)
{
    int64_t first = 0;
    if (o->count <= 0)
        return;
    if (!w->o) {   /* the first element judged is the worst so far, whatever its margin */
        double err, margin = q4h_element_margin(o, 0, &err);
        count_margin(o, margin, over, warned);
        consider_element(w, o, 0, margin, err);
        first = 1;
    }
    const int64_t n_chunks = (o->count - first + CHUNK - 1) / CHUNK;
    chunk_worst *chunks = malloc((size_t)(n_chunks > 0 ? n_chunks : 1) * sizeof *chunks);
    if (chunks) {
#pragma omp parallel for schedule(dynamic, 1) if (n_chunks > 1)
        for (int64_t c = 0; c < n_chunks; c++) {
            int64_t a = first + c * CHUNK;
            scan_chunk(o, a, a + CHUNK < o->count ? a + CHUNK : o->count, &chunks[c]);
        }
    }
    for (int64_t c = 0; c < n_chunks; c++) {
        chunk_worst one, *at = chunks ? &chunks[c] : &one;
        if (!chunks) {   /* no memory for every chunk's result: the same chunks, one by one */
            int64_t a = first + c * CHUNK;
            scan_chunk(o, a, a + CHUNK < o->count ? a + CHUNK : o->count, &one);
        }
        *over += at->over;
        *warned += at->warned;
        if (at->index >= 0)
            consider_element(w, o, at->index, at->margin, at->err);
    }
    free(chunks);
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

void q4h_judge(const q4h_outputs *out, q4_result *r)
{
    worst w = { 0 };
    stat_worst sw = { 0 };
    int64_t over = 0, warned = 0, elements = 0;
    char problem[512] = "";

    for (int k = 0; k < out->n; k++) {
        const q4h_output *o = &out->o[k];
        elements += o->count;
        judge_elements(o, &w, &over, &warned);
        if (o->got)
            judge_stat(o, &sw);
        if (!o->guard_ok && !problem[0])
            snprintf(problem, sizeof problem,
                     "out-of-bounds write: guard word %lld after output %s was overwritten",
                     (long long)o->guard_bad_at, o->name);
        if (!o->padding_ok && !problem[0] && o->padding_problem[0])
            snprintf(problem, sizeof problem, "%s", o->padding_problem);
        else if (!o->padding_ok && !problem[0])
            snprintf(problem, sizeof problem,
                     "W_4X8 padding word %lld of output %s is not 0x88888888",
                     (long long)o->padding_bad_at, o->name);
    }

    r->elements = elements;
    r->worst_margin = w.o ? w.margin : 0;
    r->worst_err = w.o ? w.err : 0;
    r->got = w.got;
    r->expected = w.expected;
    r->bound = w.bound;
    r->index = w.o ? w.index : -1;
    snprintf(r->output, sizeof r->output, "%s", w.o ? w.o->name : "");
    if (w.o)
        q4h_element_where(w.o, w.index, r->where, sizeof r->where);
    r->stat_margin = sw.o ? sw.margin : NAN;

    if (over > 0 || problem[0]) {
        r->verdict = Q4_FAIL;
        if (over > 0)
            snprintf(r->message, sizeof r->message,
                     "%lld of %lld elements outside their bound%s%s; worst %s[%s]: got %.9g, "
                     "expected %.9g, |err| %.3g, bound %.3g (margin %.3g)",
                     (long long)over, (long long)elements, problem[0] ? "; " : "", problem,
                     r->output, r->where, r->got, r->expected, r->worst_err, r->bound,
                     r->worst_margin);
        else
            snprintf(r->message, sizeof r->message, "%s", problem);
    } else if (sw.o && !(sw.margin <= 1)) {
        char row[64] = "";
        r->verdict = Q4_FAIL;
        if (sw.row >= 0)
            snprintf(row, sizeof row, " row %s=%lld", sw.o->row_name, (long long)sw.row);
        else if (sw.row < -1)
            snprintf(row, sizeof row, " column %s=%lld", sw.o->col_name, (long long)(-2 - sw.row));
        snprintf(r->message, sizeof r->message,
                 "systematic error: every element is within its bound (worst margin %.3g), but "
                 "output %s%s has %s %.3g, above what a correct fp32 kernel can produce, %.3g "
                 "(statistical margin %.3g; docs/numerics.md)", r->worst_margin, sw.o->name, row,
                 sw.test, sw.stat, sw.env, sw.margin);
    } else if (warned > 0) {
        r->verdict = Q4_QUALITY_WARNING;
        snprintf(r->message, sizeof r->message,
                 "%lld of %lld codes are the other neighbour of a quotient within 2.5 ULP of a "
                 "rounding tie or clamp edge (conformant, not exact); first %s[%s]: got %g, "
                 "exact %g", (long long)warned, (long long)elements, r->output, r->where, r->got,
                 r->expected);
    } else {
        r->verdict = Q4_PASS;
    }
}
