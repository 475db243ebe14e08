/* compare.h: `q4cts compare A.json B.json [--factor F]`: what changed between two runs
 * (two drivers, two builds): the cases whose verdict changed and the margins that
 * moved by more than a factor. */
#ifndef Q4H_COMPARE_H
#define Q4H_COMPARE_H

#include "cli.h"

/* Margins below this count as it: an exact result (margin 0) that moves to a few
 * ulps of a loose bound is not news, and a ratio to 0 is not a number. */
#define Q4H_COMPARE_MARGIN_FLOOR 1e-3

/* Exit status: 1 when a case got worse (a regression: Pass -> anything else, or any
 * verdict -> a worse class), when B lost cases that A has (it covers less), or when B
 * says its run is incomplete (killed or stopped: it cannot pass for a whole run); 0
 * otherwise; 2 when a report cannot be read. */
int q4h_compare(const q4h_cli *cli);

#endif
