/* train_case.h: the training driver (train_case.c, docs/training.md): a training case
 * (q4cts.train.*) run step by step through the backend's per-op runs, every op judged
 * on the inputs the GPU had, and the loss trajectory judged against the fp64 run. */
#ifndef Q4H_TRAIN_CASE_H
#define Q4H_TRAIN_CASE_H

#include "backend.h"

/* Runs training case c on b into r (verdict, worst op, r->train's trajectory). */
void q4h_train_case(q4h_backend *b, const q4_case *c, q4_result *r);

#endif
