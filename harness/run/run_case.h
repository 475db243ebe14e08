/* run_case.h: one case's straight line on any backend, in the worker process:
 *   begin -> inputs -> stage -> truth -> bind -> GPU run (repeat times; the worst
 *   verdict counts) -> judge -> dump -> lint. */
#ifndef Q4H_RUN_CASE_H
#define Q4H_RUN_CASE_H

#include "backend.h"

/* Runs case c on b (the worker's body; also used by tests). b's device may be closed
 * and reopened after a lost device or a timeout. */
void q4h_run_case(q4h_backend *b, const q4_case *c, q4_result *r);
/* The same on given inputs (NULL: generated from the case and its seed), as a
 * replay of a dump runs them. Returns Q4_OK, or the status with which preparing the
 * case failed (Q4_ERR_ARG: the inputs are outside the contract; r says why). */
q4_status q4h_run_case_on(q4h_backend *b, const q4_case *c, const q4_inputs *given,
                          q4_result *r);

#endif
