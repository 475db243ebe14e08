/* report_map.h: the error maps of one dumped case, as data for `q4cts report`'s page. */
#ifndef Q4H_REPORT_MAP_H
#define Q4H_REPORT_MAP_H

#include <json-c/json.h>

#include "op.h"

/* The largest map drawn: bigger outputs are pooled into blocks of elements. */
#define Q4H_MAP_ROWS 128
#define Q4H_MAP_COLS 256
/* A vector longer than this is folded into rows of Q4H_MAP_FOLD elements. */
#define Q4H_MAP_FOLD 128
/* The worst elements listed per case. */
#define Q4H_MAP_WORST 12

/* {"outputs": [map, ...], "worst": [element, ...]} for the judged outputs of a case
 * (docs/reports.md has the layout); NULL when out of memory. Each map lays the
 * output out as the judge names it, rows (every dimension but the last) x columns,
 * and gives per cell (one element, or the block of elements a pooled cell covers)
 * the largest margin (the judge's q4h_element_margin; null where it is infinite, -1
 * where a folded vector has no element) and, for real outputs, the mean signed
 * error / bound, which shows a bias that stays within every bound. */
json_object *q4h_report_maps(const q4h_outputs *out);
/* A number for the page: null when it is not finite, else at most `digits`
 * significant digits (the page shows three; the maps need no more). */
json_object *q4h_report_num(double v, int digits);

#endif
