/* train_case.h: the training driver (train_case.c, docs/training.md): a training case
 * (q4cts.train.*) run step by step through the backend's per-op runs, every op judged
 * on the inputs the GPU had, and the loss trajectory judged against the fp64 run. */
#ifndef Q4H_TRAIN_CASE_H
#define Q4H_TRAIN_CASE_H

#include "backend.h"

/* Runs training case c on b into r (verdict, worst op, r->train's trajectory). */
void q4h_train_case(q4h_backend *b, const q4_case *c, q4_result *r);
/* perf: step 1 of c kept on the device (train_resident.h), recorded and submitted
 * again and again, unjudged: after the warm-up (ask's runs and ms), times[ask->reps]
 * the GPU time of each submission. A step that is not one submission (WebGPU, an
 * interface file, a planted host-side fault, an op that reads back mid-op) is
 * Q4_ERR_UNSUPPORTED. */
q4_status q4h_train_time(q4h_backend *b, const q4h_perf_ask *ask, const q4_case *c,
                         double *times, q4_error *err);

#endif
