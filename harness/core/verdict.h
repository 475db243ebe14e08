/* verdict.h: the rules that turn what happened to a case into its verdict, in one
 * place for every API: where a result starts, which of two runs' verdicts counts, and
 * which verdict a failed step's status gives (STYLE.md: VK-GL-CTS's result codes). */
#ifndef Q4H_VERDICT_H
#define Q4H_VERDICT_H

#include <stdbool.h>

#include "q4report.h"
#include "run_options.h"

/* A result for case c that is not yet judged (q4_result_init) with its name, op,
 * family, API and repro line filled in: where every verdict of a case starts. */
void q4h_result_start(const q4h_run_options *opt, const q4_case *c, q4_result *r);
/* Lower is better: the order in which a repeat's verdict replaces an earlier one. */
int q4h_verdict_badness(q4_verdict v);
/* Whether run `now` replaces the verdict `so_far` of the runs before it: a worse
 * verdict, or as bad a one with a larger worst margin. */
bool q4h_result_worse(const q4_result *now, const q4_result *so_far);
/* The verdict of a GPU run that failed with st: out of memory or resources
 * ResourceError, a limit NotSupported, a lost device Crash, a timeout Timeout, and
 * anything else InternalError (a bug of ours or of the driver). */
q4_verdict q4h_verdict_of_run(q4_status st);
/* The verdict of preparing a case that failed with st (its inputs, its truth, its
 * buffers): out of memory ResourceError, anything else InternalError. */
q4_verdict q4h_verdict_of_preparing(q4_status st);

#endif
