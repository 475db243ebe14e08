/* runner.h: runs a list of cases, each case isolated from the run.
 *
 * The cases run in worker processes that hold the Vulkan context (one worker, or
 * --jobs of them over --devices); the parent only supervises and reports, in the
 * order of the cases whatever the number of workers. A case that crashes its worker
 * (a signal in the driver, say) is reported as Crash, one that outlives the watchdog
 * as Timeout, and a fresh worker carries on with the next case. A lost device is a
 * Crash too: the worker recreates its context and goes on. A case that is not ok is
 * run again up to flake_retries times; one that passes on a retry is a Flake. */
#ifndef Q4H_RUNNER_H
#define Q4H_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "q4case.h"
#include "q4report.h"
#include "q4vk.h"

typedef struct q4h_override {
    const char *kernel;        /* built-in kernel name it replaces */
    const char *path;
    uint32_t *words;
    size_t n_words;
    const char *origin;        /* an --interface step: "interface kernel FILE:STEP"; NULL:
                                  --kernel */
} q4h_override;

struct q4h_iface;

typedef struct q4h_run_options {
    q4vk_options vk;           /* device selection, validation, per-submit timeout, faults */
    int repeat;                /* runs per case; the worst verdict counts */
    int strict;                /* QualityWarning fails */
    const char *dump_dir;      /* NULL: no dumps */
    bool dump_all;             /* dump every case, not only those that are not ok */
    const q4h_override *overrides;
    int n_overrides;
    const struct q4h_iface *const *interfaces;   /* --interface: one per op, or none */
    int n_interfaces;
    const char *repro_flags;   /* flags that a reproducing command line needs beside --filter */
    double watchdog_s;         /* the parent's limit for one case, all repeats included */
    const char *api;           /* each result's API: "vulkan" (NULL) or "webgpu" */
    int jobs;                  /* worker processes at once (0 or 1: one) */
    const char *const *devices;   /* --devices: worker k opens devices[k % n_devices] */
    int n_devices;             /* 0: every worker opens vk.device */
    int flake_retries;         /* runs more of a case that is not ok */
    int flaky_every;           /* --inject-fault flaky@N: a worker's GPU runs not a multiple
                                  of N read back a wrong first element; 0 off */
} q4h_run_options;

typedef struct q4h_sink {
    void *user;
    /* Once per worker lane (0 .. jobs-1), with the device its first worker opened; the
     * first call comes before any result. */
    q4_status (*device)(void *user, int worker, const q4vk_device_info *info, q4_error *err);
    void (*begin)(void *user, const q4_case *c);
    /* A case's verdict, as soon as it has one, in any order (with --jobs a case can
     * finish before one handed out earlier): index is its place in the run's cases.
     * The file reports take it here, so a run killed at any moment has every case that
     * finished in them. */
    void (*finished)(void *user, size_t index, const q4_result *r);
    /* The same verdicts again in the order of the cases (the console's). */
    void (*result)(void *user, const q4_result *r);
    /* A worker that ended badly outside any case (between cases, or releasing the
     * device after the last): why, as one sentence. Every case still has its result. */
    void (*problem)(void *user, const char *why);
} q4h_sink;

/* Runs every case; Q4_OK once all have a result. A device that cannot be opened
 * at the start is an error (the run has no device); later failures are verdicts. */
q4_status q4h_run_cases(const q4h_run_options *opt, const q4_case *cases, size_t n,
                        const q4h_sink *sink, q4_error *err);

/* Runs one case in this process (the worker's body; also used by tests).
 * *ctx may be destroyed and recreated after a lost device or a timeout. */
void q4h_run_case(const q4h_run_options *opt, q4vk_context **ctx, const q4_case *c,
                  q4_result *r);
/* The same on given inputs (NULL: generated from the case and its seed), as a
 * replay of a dump runs them. Returns Q4_OK, or the status with which preparing the
 * case failed (Q4_ERR_ARG: the inputs are outside the contract; r says why). */
q4_status q4h_run_case_on(const q4h_run_options *opt, q4vk_context **ctx, const q4_case *c,
                          const q4_inputs *given, q4_result *r);

/* A result for case c that is not yet judged (q4_result_init) with its name, op,
 * family and repro line filled in: where every verdict of a case starts. */
void q4h_result_start(const q4h_run_options *opt, const q4_case *c, q4_result *r);
/* Lower is better: the order in which a repeat's verdict replaces an earlier one. */
int q4h_verdict_badness(q4_verdict v);
/* Monotonic seconds, for case times and the watchdog. */
double q4h_now_s(void);

/* Creates a context with the overrides installed; a reopened one (after a lost
 * device or a dead worker) gets no injected faults. */
q4_status q4h_open_device(const q4h_run_options *opt, bool reopen, q4vk_context **ctx,
                          q4_error *err);

#endif
