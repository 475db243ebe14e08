/* truth.h: a case's truth, whole (the op's truth) or tile by tile as it is judged (the
 * op's tiled truth, judge_tiled.c), and the whole of a tiled one where it is needed. */
#ifndef Q4H_TRUTH_H
#define Q4H_TRUTH_H

#include "op.h"

/* The truth of case c into out: tile by tile when `tiled` and the op has a tiled
 * truth (out->tiles set; the truth is made by q4h_judge_tiled), else whole. */
q4_status q4h_truth_make(const q4h_op *op, const q4_case *c, const q4_inputs *in, bool tiled,
                         q4h_outputs *out, q4_error *err);
/* A tiled truth made whole, for what reads it whole (a dump): the op's truth made
 * again into out's outputs, their results kept. Nothing to do for a whole truth. */
q4_status q4h_truth_complete(const q4h_op *op, const q4_case *c, const q4_inputs *in,
                             q4h_outputs *out, q4_error *err);

#endif
