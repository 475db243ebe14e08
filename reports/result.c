/* result.c: helpers on one case's q4_result: a safe empty value, how it stands
 * against a baseline, and the one-line description of its worst element that the
 * console and JUnit both print. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "q4report.h"

void q4_result_init(q4_result *r)
{
    memset(r, 0, sizeof *r);
    r->verdict = Q4_INTERNAL_ERROR;  /* a result never given a verdict must not pass */
    r->gpu_ms = -1.0;
    r->truth_ms = -1.0;
    r->input_ms = -1.0;
    r->upload_ms = -1.0;
    r->readback_ms = -1.0;
    r->judge_ms = -1.0;
    r->worst_err = NAN;
    r->worst_margin = NAN;
    r->stat_margin = NAN;
    r->got = NAN;
    r->expected = NAN;
    r->bound = NAN;
    r->index = -1;
    r->tries = 1;
    r->baseline = Q4_VERDICT_COUNT;
}

q4_surprise q4_result_surprise(const q4_result *r, int strict)
{
    int ok = q4_verdict_ok(r->verdict, strict);
    if ((unsigned)r->baseline >= (unsigned)Q4_VERDICT_COUNT)
        return ok ? Q4_AS_EXPECTED : Q4_UNEXPECTED_FAIL;
    if (r->verdict == r->baseline || (ok && q4_verdict_ok(r->baseline, strict)) ||
        (r->baseline == Q4_FLAKE && r->verdict == Q4_PASS))
        return Q4_AS_EXPECTED;
    return ok ? Q4_UNEXPECTED_PASS : Q4_UNEXPECTED_FAIL;
}

int q4_result_ok(const q4_result *r, int strict)
{
    return q4_result_surprise(r, strict) == Q4_AS_EXPECTED;
}

char *q4_result_worst(const q4_result *r, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (isnan(r->worst_margin)) {
        snprintf(buf, n, "not judged");
        return buf;
    }
    /* Fixed fields may fill their arrays with no NUL: print at most their size. */
    char at[160];
    int k = snprintf(at, sizeof at, "%.*s", (int)strnlen(r->output, sizeof r->output),
                     r->output[0] ? r->output : "?");
    if (r->index >= 0 && k >= 0 && (size_t)k < sizeof at)
        k += snprintf(at + k, sizeof at - (size_t)k, "[%lld]", (long long)r->index);
    if (r->where[0] && k >= 0 && (size_t)k < sizeof at)
        snprintf(at + k, sizeof at - (size_t)k, " (%.*s)",
                 (int)strnlen(r->where, sizeof r->where), r->where);
    snprintf(buf, n, "%s: got %.9g, expected %.9g, |err| %.3g, bound %.3g, margin %.4g",
             at, r->got, r->expected, r->worst_err, r->bound, r->worst_margin);
    return buf;
}
