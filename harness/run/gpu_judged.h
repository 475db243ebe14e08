/* gpu_judged.h: one GPU run of an op and its judgement, for a case's runs (run_case.c)
 * and a training step's ops (train_case.c). */
#ifndef Q4H_GPU_JUDGED_H
#define Q4H_GPU_JUDGED_H

#include "backend.h"

/* Changes the outputs between the run and the judgement: a planted bug of the harness
 * (--inject-fault), NULL for none. */
typedef void (*q4h_tamper)(q4h_outputs *out, const void *ctx);

/* Runs op on in and judges the outputs into r (an access past the data or a race
 * fails it, whatever the values; r->gpu_ms gets the kernels' time). On a failed run, r
 * gets its verdict and message, and the device is reopened after a loss or a timeout
 * (c gives the limits). True when out holds this run's judged results. */
bool q4h_gpu_judged(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                    q4h_outputs *out, q4_result *r, q4h_tamper tamper, const void *ctx);

#endif
