/* run_options.h: what a run asks of every layer below the commands: the options of
 * the run (q4h_run_options), the kernels that replace built-in ones (q4h_override),
 * and where the verdicts go (q4h_sink). The supervisor (runner.h), the case line
 * (run_case.h), the backends, dumps, plans, interface files and coverage all read
 * them; none of them needs the others' headers for that. */
#ifndef Q4H_RUN_OPTIONS_H
#define Q4H_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
struct q4h_backend_i;

/* --inject-fault train_<kind>@N: a planted bug of the stack around the kernels, fired
 * by the training driver at step N of every training case (docs/training.md): what an
 * integration gets wrong while each kernel is right. */
typedef enum q4h_train_fault_kind {
    Q4H_TRAIN_FAULT_NONE,
    Q4H_TRAIN_FAULT_MV_RESET,     /* AdamW's m and v handed to the kernel as zeros */
    Q4H_TRAIN_FAULT_DW_STALE,     /* dW accumulated onto the last step's: not cleared */
    Q4H_TRAIN_FAULT_STALE_W,      /* the forward reads the last step's W_4X8, not the
                                     requant's new one */
    Q4H_TRAIN_FAULT_BWD_STALE_W,  /* the backward reads the last step's W_4X8 while the
                                     forward reads the new one */
    Q4H_TRAIN_FAULT_NO_BARRIER,   /* no barrier before each dW of the step: it may read
                                     its gradient before the op that writes it ends (a
                                     device-resident step; the validation layer's
                                     synchronisation checks see it on any driver) */
    Q4H_TRAIN_FAULT_COUNT
} q4h_train_fault_kind;

typedef struct q4h_train_fault {
    q4h_train_fault_kind kind;
    int64_t step;                 /* 1-based; the fault fires at this step only */
} q4h_train_fault;

typedef struct q4h_run_options {
    const struct q4h_backend_i *backend;   /* the API the cases run on (backend.h) */
    q4vk_options vk;           /* device selection, validation, per-submit timeout, faults
                                  (faults: every backend's, each firing once per run) */
    int repeat;                /* runs per case; the worst verdict counts */
    int strict;                /* QualityWarning fails */
    const char *dump_dir;      /* NULL: no dumps */
    bool dump_all;             /* dump every case, not only those that are not ok */
    const q4h_override *overrides;   /* --kernel as SPIR-V (Vulkan) */
    int n_overrides;
    const char *const *kernel_args;  /* --kernel NAME=FILE as given (WebGPU: WGSL files) */
    size_t n_kernel_args;
    /* --interface: one per op described (a kernel set's file gives several), or none */
    const struct q4h_iface *const *interfaces;
    int n_interfaces;
    const char *repro_flags;   /* flags that a reproducing command line needs beside --filter */
    double watchdog_s;         /* the parent's limit for one case, all repeats included */
    double exchange_s;         /* WebGPU: the limit of one run message and its result */
    const char *api;           /* each result's API: "vulkan" (NULL) or "webgpu" */
    int jobs;                  /* worker processes at once (0 or 1: one) */
    const char *const *devices;   /* --devices: worker k opens devices[k % n_devices] */
    int n_devices;             /* 0: every worker opens vk.device */
    int flake_retries;         /* runs more of a case that is not ok */
    int flaky_every;           /* --inject-fault flaky@N: a worker's GPU runs not a multiple
                                  of N read back a wrong first element; 0 off */
    q4h_train_fault train_fault;   /* --inject-fault train_<kind>@N */
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

#endif
