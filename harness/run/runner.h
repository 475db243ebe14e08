/* runner.h: runs a list of cases, each case isolated from the run, on any backend.
 *
 * The cases run in worker processes that hold the device (a Vulkan context, or the
 * WebGPU worker connection; one worker, or --jobs of them over --devices); the parent
 * only supervises and reports, in the order of the cases whatever the number of
 * workers. A case that crashes its worker (a signal in the driver, say) is reported as
 * Crash, one that outlives the watchdog as Timeout, and a fresh worker carries on with
 * the next case. A lost device is a Crash too: the worker reopens its device and goes
 * on. A case that is not ok is run again up to flake_retries times; one that passes on
 * a retry is a Flake. */
#ifndef Q4H_RUNNER_H
#define Q4H_RUNNER_H

#include <stddef.h>

#include "run_options.h"

/* Runs every case on opt's backend; Q4_OK once all have a result (or a stop signal
 * ended the run). A device that cannot be opened at the start is an error (the run
 * has no device); later failures are verdicts. */
q4_status q4h_run_cases(const q4h_run_options *opt, const q4_case *cases, size_t n,
                        const q4h_sink *sink, q4_error *err);

#endif
