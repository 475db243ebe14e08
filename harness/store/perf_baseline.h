/* perf_baseline.h: the saved `q4cts perf --json` that --baseline compares against. */
#ifndef Q4H_PERF_BASELINE_H
#define Q4H_PERF_BASELINE_H

#include <stddef.h>

#include "q4_contract.h"

typedef struct q4h_baseline q4h_baseline;

/* Reads and checks the file at path: a perf report (q4report.h's q4_perf_json layout,
 * format 1) that times at least one case. Anything else (unreadable, empty, not JSON,
 * a `run` report, another format, a result without a name or a number) is Q4_ERR_ARG
 * with one sentence saying what the file is and what was expected. */
q4_status q4h_baseline_load(const char *path, q4h_baseline **out, q4_error *err);
/* The baseline's median in ms for the case `name`, or -1 when it has no timing of it. */
double q4h_baseline_ms(const q4h_baseline *b, const char *name);
void q4h_baseline_free(q4h_baseline *b);

#endif
