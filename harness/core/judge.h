/* judge.h: turns a case's outputs into a verdict, its worst element and its margin. */
#ifndef Q4H_JUDGE_H
#define Q4H_JUDGE_H

#include "op.h"
#include "q4report.h"

/* Sets r->verdict to Pass, QualityWarning or Fail and fills the worst-element fields
 * (worst margin = max err/bound over every judged element; <= 1 passes). */
void q4h_judge(const q4h_outputs *out, q4_result *r);
/* The margin of element i of o, as the judge sees it: a real output's |got - value|
 * / bound (INFINITY for a result that is not finite, or for any error where the bound
 * is 0); a code output's 0 (exact), 1 (the conformant neighbour, a QualityWarning) or
 * INFINITY (wrong). *err gets |got - expected|. */
double q4h_element_margin(const q4h_output *o, int64_t i, double *err);
/* q4h_judge of outputs whose truth is made tile by tile (out->tiles, op.h): each tile
 * made and judged on every core, then the outputs that need every tile (the op's
 * end), then the join; verdict, margins and statistics are q4h_judge's on the whole
 * truth, bit for bit. *truth_ms gets the wall time of making the truth and judging
 * each element with it; the join is the rest. Fails only for want of memory. */
q4_status q4h_judge_tiled(q4h_outputs *out, q4_result *r, double *truth_ms, q4_error *err);
/* Element i of o by its coordinates, as results name it: "m=3, n=17", "i=5", "scalar". */
void q4h_element_where(const q4h_output *o, int64_t i, char *buf, size_t size);

#endif
