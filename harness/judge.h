/* judge.h: turns a case's outputs into a verdict, its worst element and its margin. */
#ifndef Q4H_JUDGE_H
#define Q4H_JUDGE_H

#include "op.h"
#include "q4report.h"

/* Sets r->verdict to Pass, QualityWarning or Fail and fills the worst-element fields
 * (worst margin = max err/bound over every judged element; <= 1 passes). */
void q4h_judge(const q4h_outputs *out, q4_result *r);

#endif
