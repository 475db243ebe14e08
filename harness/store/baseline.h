/* baseline.h: `run --baseline FILE`, the expected results of a run (Mesa deqp-runner's
 * baseline): the cases known to fail, each with the verdict it is expected to have.
 *
 * The file is text, one case a line as deqp-runner writes them, CASE,VERDICT:
 *   # linear kernels of driver X round the tail wrongly (bug 123)
 *   q4cts.linear_q4gsw.tail.m3_n20_k96_g32,Fail
 *   q4cts.fused_ce.basic.r4_v128_p0,Flake
 * '#' starts a comment; blank lines are skipped; CASE is a full case name (as `q4cts
 * list` prints it), VERDICT a verdict name. A case the file does not list is expected
 * to pass (q4report.h: q4_result_surprise). (`perf --baseline` reads a perf report
 * instead: perf_baseline.h.) */
#ifndef Q4H_BASELINE_H
#define Q4H_BASELINE_H

#include <stddef.h>

#include "q4report.h"

typedef struct q4h_expectations q4h_expectations;

/* Reads the file; a malformed line (no comma, an unknown verdict, a name that is no
 * case name, a case listed twice, a NUL or control byte) is Q4_ERR_ARG naming
 * FILE:LINE and what was expected. */
q4_status q4h_expectations_load(const char *path, q4h_expectations **out, q4_error *err);
/* The same from a buffer; path only names it in messages. */
q4_status q4h_expectations_parse(const char *text, size_t size, const char *path,
                                 q4h_expectations **out, q4_error *err);
void q4h_expectations_free(q4h_expectations *e);
/* The verdict expected of the case named `name`: the listed one, else Pass. */
q4_verdict q4h_expected_verdict(const q4h_expectations *e, const char *name);
/* The number of cases listed. */
size_t q4h_expectations_count(const q4h_expectations *e);

#endif
