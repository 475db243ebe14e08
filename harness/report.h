/* report.h: `q4cts report FILE.json... [--dumps DIR] -o PAGE.html`: one self-contained
 * HTML page of a run (docs/reports.md). */
#ifndef Q4H_REPORT_H
#define Q4H_REPORT_H

#include "cli.h"

/* Returns the exit status: 0 the page is written, 2 an input is unreadable or
 * malformed, a chart library is missing, or the page cannot be written. */
int q4h_report(const q4h_cli *cli);

#endif
