/* perf.h: `q4cts perf`: GPU-timestamp timings of ops on benchmark shapes, reported
 * against the device ceilings measured at the start of the run. */
#ifndef Q4H_PERF_H
#define Q4H_PERF_H

#include "cli.h"

/* Returns the exit status: 0, 1 (a baseline regression), 2 (usage or set-up). */
int q4h_perf(const q4h_cli *cli);

#endif
