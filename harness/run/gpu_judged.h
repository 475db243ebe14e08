/* gpu_judged.h: one GPU run of an op and its judgement, for a case's runs (run_case.c)
 * and a training step's ops (train_case.c). */
#ifndef Q4H_GPU_JUDGED_H
#define Q4H_GPU_JUDGED_H

#include "backend.h"

/* Changes the outputs between the run and the judgement: a planted bug of the harness
 * (--inject-fault), NULL for none. */
typedef void (*q4h_tamper)(q4h_outputs *out, const void *ctx);

/* Runs op on in and judges the outputs into r (an access past the data or a race
 * fails it, whatever the values; r->gpu_ms gets the kernels' time). A truth made tile
 * by tile (out->tiles) is made here: its time is added to r->truth_ms, the rest of
 * judging is r->judge_ms. On a failed run, r
 * gets its verdict and message, and the device is reopened after a loss or a timeout
 * (c gives the limits). True when out holds this run's judged results. */
bool q4h_gpu_judged(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                    q4h_outputs *out, q4_result *r, q4h_tamper tamper, const void *ctx);

/* What the probes found, a Fail whatever the values: an access past the data, or a race
 * (even when this interleaving was lucky); r's message is prefix and the finding. False,
 * r untouched, where they found nothing. */
bool q4h_fail_on_probes(const q4h_observations *obs, const char *prefix, q4_result *r);
/* After a run that failed with st: a lost device or a timeout reopens b's device (c
 * gives the limits), and a reopening that fails is added to r's message. */
void q4h_reopen_after(q4h_backend *b, const q4_case *c, q4_status st, q4_result *r);

#endif
