/* compare.c: `q4cts compare` (compare.h). Reads both reports whole first (a malformed
 * one is exit 2 before anything is printed), then walks A's cases in A's order. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run_json.h"

/* Lower is better. A change to a higher rank is a regression: Pass -> QualityWarning
 * or Flake is, and so is losing a case to NotSupported (the run covers less);
 * Fail -> Crash is not (it failed before). */
static int rank(q4_verdict v)
{
    switch (v) {
    case Q4_PASS: return 0;
    case Q4_QUALITY_WARNING: return 1;
    case Q4_FLAKE: return 2;
    case Q4_NOT_SUPPORTED: return 3;
    default: return 4;
    }
}

static double floored(double m)
{
    return m > Q4H_COMPARE_MARGIN_FLOOR ? m : Q4H_COMPARE_MARGIN_FLOOR;
}

/* The ratio new/old of a margin that both runs measured, or NAN. */
static double moved(double a, double b)
{
    if (!isfinite(a) || !isfinite(b))
        return NAN;
    return floored(b) / floored(a);
}

static void describe(const char *label, const q4h_run_doc *d)
{
    const char *dev = q4h_run_doc_prop(d, "device"), *drv = q4h_run_doc_prop(d, "driver.info");
    char dev_shown[Q4_ECHO_MAX], drv_shown[Q4_ECHO_MAX];
    printf("%s: %s: %zu cases%s, %s%s%s%s\n", label, d->shown, d->n,
           !d->complete_known ? " (a report from before runs said whether they completed)"
           : d->complete ? "" : " (incomplete run)", dev ? q4_echo(dev, dev_shown, sizeof dev_shown)
           : "device unknown", drv ? " (" : "", drv ? q4_echo(drv, drv_shown, sizeof drv_shown) : "",
           drv ? ")" : "");
}

/* One margin line when it moved past the factor; returns 1 when printed. */
static int margin_line(const char *name, const char *what, double a, double b, double factor)
{
    double ratio = moved(a, b);
    if (!(ratio > factor || ratio < 1 / factor))
        return 0;
    char shown[Q4_ECHO_MAX];
    printf("  %-6s %-10.4g -> %-10.4g (x%.3g)  %s\n", what, a, b, ratio,
           q4_echo(name, shown, sizeof shown));
    return 1;
}

int q4h_compare(const q4h_cli *cli)
{
    q4h_run_doc a, b;
    q4_error err = { 0 };
    if (q4h_run_doc_load(cli->operands[0], &a, &err) != Q4_OK) {
        fprintf(stderr, "q4cts: %s\n", err.msg);
        return 2;
    }
    if (q4h_run_doc_load(cli->operands[1], &b, &err) != Q4_OK) {
        fprintf(stderr, "q4cts: %s\n", err.msg);
        q4h_run_doc_free(&a);
        return 2;
    }
    describe("A", &a);
    describe("B", &b);
    char shown[Q4_ECHO_MAX];
    size_t changed = 0, regressions = 0, only_a = 0, only_b = 0, margins = 0;
    printf("\nverdict changes (A -> B):\n");
    for (size_t i = 0; i < a.n; i++) {
        const q4_result *ra = &a.results[i], *rb = q4h_run_doc_find(&b, ra->name);
        if (!rb || rb->verdict == ra->verdict)
            continue;
        int worse = rank(rb->verdict) > rank(ra->verdict);
        changed++;
        regressions += worse;
        printf("  %-10s %s -> %s  %s\n", worse ? "REGRESSION" : rank(rb->verdict) <
               rank(ra->verdict) ? "better" : "changed", q4_verdict_name(ra->verdict),
               q4_verdict_name(rb->verdict), q4_echo(ra->name, shown, sizeof shown));
    }
    if (!changed)
        printf("  none\n");
    printf("\nmargins moved by more than x%g (A -> B; below %g counts as %g):\n", cli->factor,
           Q4H_COMPARE_MARGIN_FLOOR, Q4H_COMPARE_MARGIN_FLOOR);
    for (size_t i = 0; i < a.n; i++) {
        const q4_result *ra = &a.results[i], *rb = q4h_run_doc_find(&b, ra->name);
        if (!rb) {
            only_a++;
            continue;
        }
        margins += margin_line(ra->name, "margin", ra->worst_margin, rb->worst_margin, cli->factor);
        margins += margin_line(ra->name, "stat", ra->stat_margin, rb->stat_margin, cli->factor);
    }
    if (!margins)
        printf("  none\n");
    for (size_t i = 0; i < b.n; i++)
        only_b += !q4h_run_doc_find(&a, b.results[i].name);
    printf("\ncases only in A: %zu, only in B: %zu\n", only_a, only_b);
    for (size_t i = 0; i < a.n && only_a; i++)
        if (!q4h_run_doc_find(&b, a.results[i].name))
            printf("  only in A: %s\n", q4_echo(a.results[i].name, shown, sizeof shown));
    for (size_t i = 0; i < b.n && only_b; i++)
        if (!q4h_run_doc_find(&a, b.results[i].name))
            printf("  only in B: %s\n", q4_echo(b.results[i].name, shown, sizeof shown));
    /* B covers less than A: cases it lost, or a run that did not finish, are not "no
     * regression" (a killed run's report holds only the cases before the kill). */
    const bool b_cut = b.complete_known && !b.complete;
    if (regressions || only_a)
        printf("result: REGRESSION, %zu of %zu changed verdicts got worse, %zu of A's cases "
               "missing from B%s\n", regressions, changed, only_a,
               b_cut ? "; B is incomplete" : "");
    else if (b_cut)
        printf("result: INCOMPLETE, B's run did not complete%s%s; %zu changed verdicts, "
               "%zu margins moved\n", b.stopped[0] ? ": " : "",
               q4_echo(b.stopped, shown, sizeof shown), changed, margins);
    else
        printf("result: no regression, %zu changed verdicts, %zu margins moved\n", changed,
               margins);
    q4h_run_doc_free(&a);
    q4h_run_doc_free(&b);
    return regressions || only_a || b_cut ? 1 : 0;
}
