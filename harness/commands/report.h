/* report.h: `q4cts report FILE.json... [--dumps DIR] -o PAGE.html`: one self-contained
 * HTML page of a run (docs/reports.md). */
#ifndef Q4H_REPORT_H
#define Q4H_REPORT_H

#include "cli.h"

/* Returns the exit status: 0 the page is written, 2 an input is unreadable or
 * malformed, --dumps names no folder, a chart library is missing, or the page cannot
 * be written. */
int q4h_report(const q4h_cli *cli);

#include <json-c/json.h>

/* The inputs a page takes, each known by its top-level key (q4h_report_keys): a run's
 * report ("q4cts", run or replay --json), a perf run's ("q4cts_perf") and PyTorch's
 * timings ("torch_perf", scripts/bench-torch.py). */
typedef enum q4h_report_kind {
    Q4H_REPORT_RUN, Q4H_REPORT_PERF, Q4H_REPORT_TORCH, Q4H_REPORT_KINDS
} q4h_report_kind;
extern const char *const q4h_report_keys[Q4H_REPORT_KINDS];

/* report_input.c: one input of the page from text[0..len) (shown names it in
 * messages): *kind gets its kind and *body a reference to its object (caller puts).
 * Q4_ERR_ARG with one sentence when it is not JSON (strictly, json_text.h) or not of
 * the shape the page's script expects. For the page and for the fuzzer. */
q4_status q4h_report_input_parse(const char *text, size_t len, const char *shown,
                                 q4h_report_kind *kind, json_object **body, q4_error *err);

#endif
