/* judge.c: one place that compares GPU results with the reference's truth and bounds.
 *
 * Real outputs: |got - value| <= bound elementwise, where value and bound come from
 * reference/ (fp64 truth, SPEC §3 bound); a NaN or Inf where the truth is finite
 * fails. Code outputs (requant): got == code passes, got == alt (the neighbour a
 * conformant 2.5-ULP division may give) is a QualityWarning, anything else fails.
 * Guard words and W_4X8 padding words must be intact. */
#include "judge.h"

#include <math.h>
#include <stdio.h>
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

/* Returns the number of elements over their bound. */
static int64_t judge_real(const q4h_output *o, worst *w)
{
    int64_t over = 0;
    for (int64_t i = 0; i < o->count; i++) {
        double e = o->value[i], b = o->bound[i], g = o->got[i];
        double err = fabs(g - e), margin;
        if (!isfinite(g))
            margin = INFINITY, err = INFINITY;
        else if (b > 0)
            margin = err / b;
        else
            margin = err == 0 ? 0 : INFINITY;
        if (margin > 1 || margin != margin)
            over++;
        consider(w, o, i, margin, err, g, e, b);
    }
    return over;
}

/* Counts wrong codes (*over) and conformant-but-inexact ones (*warned). */
static void judge_codes(const q4h_output *o, worst *w, int64_t *over, int64_t *warned)
{
    for (int64_t i = 0; i < o->count; i++) {
        int g = o->got_code[i], e = o->code[i];
        double margin = 0;
        if (g != e) {
            if (g == o->alt[i]) {
                margin = 1; /* at the edge the division's 2.5 ULP allows */
                (*warned)++;
            } else {
                margin = INFINITY;
                (*over)++;
            }
        }
        consider(w, o, i, margin, fabs((double)(g - e)), g, e, 0.5);
    }
}

static void where(const q4h_output *o, int64_t i, char *buf, size_t size)
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
    int64_t over = 0, warned = 0, elements = 0;
    char problem[256] = "";

    for (int k = 0; k < out->n; k++) {
        const q4h_output *o = &out->o[k];
        elements += o->count;
        if (o->got)
            over += judge_real(o, &w);
        else
            judge_codes(o, &w, &over, &warned);
        if (!o->guard_ok && !problem[0])
            snprintf(problem, sizeof problem,
                     "out-of-bounds write: guard word %lld after output %s was overwritten",
                     (long long)o->guard_bad_at, o->name);
        if (!o->padding_ok && !problem[0])
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
        where(w.o, w.index, r->where, sizeof r->where);

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
