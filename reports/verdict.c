/* verdict.c: the VK-GL-CTS verdicts of q4cts: names, parsing, which are "ok", and the
 * class (passed / failed / errored / skipped) that JUnit and the counts use. */
#include <string.h>

#include "q4report_internal.h"

static const char *const names[Q4_VERDICT_COUNT] = {
    [Q4_PASS] = "Pass",
    [Q4_FAIL] = "Fail",
    [Q4_QUALITY_WARNING] = "QualityWarning",
    [Q4_NOT_SUPPORTED] = "NotSupported",
    [Q4_RESOURCE_ERROR] = "ResourceError",
    [Q4_CRASH] = "Crash",
    [Q4_TIMEOUT] = "Timeout",
    [Q4_INTERNAL_ERROR] = "InternalError",
    [Q4_FLAKE] = "Flake",
};

/* Compared as unsigned so that a negative value read from a corrupt result is
 * caught too (the enum's underlying type may be signed). */
static int valid(q4_verdict v) { return (unsigned)v < (unsigned)Q4_VERDICT_COUNT; }

const char *q4_verdict_name(q4_verdict v)
{
    return valid(v) ? names[v] : "Unknown";
}

int q4_verdict_parse(const char *name, q4_verdict *out)
{
    if (!name)
        return 0;
    for (int v = 0; v < Q4_VERDICT_COUNT; v++)
        if (strcmp(name, names[v]) == 0) {
            if (out)
                *out = (q4_verdict)v;
            return 1;
        }
    return 0;
}

int q4_verdict_ok(q4_verdict v, int strict)
{
    switch (v) {
    case Q4_PASS:
    case Q4_NOT_SUPPORTED:          /* the device lacks a feature: not the kernel's fault */
        return 1;
    case Q4_QUALITY_WARNING:        /* within the contract but worse than expected */
    case Q4_FLAKE:                  /* passed when run again: listed, not failed, unless strict */
        return !strict;
    default:
        return 0;
    }
}

q4rep_class q4rep_classify(q4_verdict v, int strict)
{
    switch (v) {
    case Q4_PASS: return Q4REP_PASSED;
    case Q4_QUALITY_WARNING:
    case Q4_FLAKE: return strict ? Q4REP_FAILED : Q4REP_PASSED;
    case Q4_FAIL: return Q4REP_FAILED;
    case Q4_NOT_SUPPORTED: return Q4REP_SKIPPED;
    default: return Q4REP_ERRORED;  /* errors, and any value outside the enum */
    }
}
