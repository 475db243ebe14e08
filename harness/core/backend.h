/* backend.h: the seam between the case line and an API, in the manner of ggml's
 * backend interface: a table of functions (q4h_backend_i) and the state one instance
 * keeps (q4h_backend). The case line (run_case.c) and the supervisor (runner.c) are
 * the same for every API; what differs (a Vulkan context, or the WebGPU worker
 * process and its messages) lives behind these functions (backend_vulkan.c,
 * backend_webgpu.c).
 *
 * One case goes: begin (before the inputs: the device's own NotSupported) -> the
 * inputs -> stage (the inputs as the API takes them) -> the truth -> bind (what
 * follows from the truth) -> run, repeat times (the outputs and what was observed;
 * after a lost device or a timeout, reopen) -> lint -> end. A step that leaves `why`
 * non-empty makes the case NotSupported with it; a failed step's status gives the
 * verdict by the rules of verdict.h, and its message is the case's message as it
 * stands. */
#ifndef Q4H_BACKEND_H
#define Q4H_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "op.h"
#include "run_options.h"

/* What one GPU run showed besides its outputs. */
typedef struct q4h_observations {
    double gpu_ms;                 /* the kernels' time; -1 when not measured */
    q4h_transfer_ms io;            /* uploads' and read-backs' host time; -1 when not measured */
    bool out_of_bounds;            /* --bounds-check found an access past the data */
    char oob[1000];                /* the first access, then every binding's count (q4vk_take_oob) */
    bool raced;                    /* --race-check found a shared-memory race */
    char race[Q4_MSG_MAX];
} q4h_observations;

typedef struct q4h_backend q4h_backend;

/* What perf asks of one timed task: its repetitions and warm-up (runs and ms). */
typedef struct q4h_perf_ask {
    int reps, warmup, warmup_ms;
} q4h_perf_ask;

typedef struct q4h_backend_i {
    const char *api;               /* "vulkan", "webgpu": the results' API, --api's value */
    const char *suite;             /* the JUnit suite: one nightly can hold both APIs' runs */
    bool wgsl;                     /* its kernels (--kernel, --interface steps) are WGSL, not
                                      SPIR-V */
    /* Why its training cases (q4cts.train.*) are NotSupported; NULL: the training
     * driver runs them through run (docs/training.md). */
    const char *no_training;
    bool vulkan;                   /* its devices are this process's Vulkan devices: their API
                                      version is reported, Q4CTS_VALIDATION's layer applies */
    /* `q4cts devices`: every device the API offers, to stdout. */
    q4_status (*devices)(q4_error *err);
    /* The words of a device for the console's "device:" line, into buf. */
    void (*describe)(const q4vk_device_info *info, char *buf, size_t size);
    /* --kernel NAME=FILE as the API takes it: *out gets the SPIR-V overrides (n of
     * them; NULL where the backend's worker reads the files itself), or Q4_ERR_ARG
     * naming the argument. */
    q4_status (*kernels)(const char *const *args, size_t n, q4h_override **out,
                         q4_error *err);
    /* Opens the device (a Vulkan context, or a WebGPU worker and its adapter) with the
     * run's options. reopen: after a lost device or a dead worker; the injected faults
     * of the run do not fire again. */
    q4_status (*open)(q4h_backend *b, bool reopen, q4_error *err);
    /* What a run checks once, on its first device, before any case: the --kernel
     * overrides run by some case (Vulkan), the interface files' WGSL (WebGPU). */
    q4_status (*check)(q4h_backend *b, const q4_case *cases, size_t n, q4_error *err);
    /* The device for reports and plans; NULL when none is open. */
    const q4vk_device_info *(*info)(q4h_backend *b);
    /* Before the inputs are made: why the device cannot run c (NotSupported), or a
     * failure (InternalError, err says why). */
    q4_status (*begin)(q4h_backend *b, const q4h_op *op, const q4_case *c, char *why,
                       size_t size, q4_error *err);
    /* The inputs made: takes them as the API needs them; a failure is one of
     * preparing the case, why a NotSupported. NULL: nothing to do. */
    q4_status (*stage)(q4h_backend *b, const q4h_op *op, const q4_case *c,
                       const q4_inputs *in, char *why, size_t size, q4_error *err);
    /* The truth made (out holds it): what follows from it (an interface file's
     * buffers); a failure's status gives the verdict (verdict.h), why a NotSupported.
     * NULL: nothing to do. */
    q4_status (*bind)(q4h_backend *b, const q4h_op *op, const q4_case *c,
                      const q4_inputs *in, q4h_outputs *out, char *why, size_t size,
                      q4_error *err);
    /* One GPU run: Q4_OK with the results in out (to be judged) and obs filled, or the
     * status of the failure with err's message as the case's. */
    q4_status (*run)(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                     q4h_outputs *out, q4h_observations *obs, q4_error *err);
    /* After a run that lost the device or timed out: a device for the runs and cases
     * left (with c's own limits), or why there is none. */
    q4_status (*reopen)(q4h_backend *b, const q4_case *c, q4_error *err);
    /* After the runs: the static checks of what c ran, into r (NULL: none). */
    void (*lint)(q4h_backend *b, const q4_case *c, q4_result *r);
    /* Ends the case: what stage and bind kept is released (NULL: nothing). */
    void (*end)(q4h_backend *b);
    /* Releases the device. */
    void (*close)(q4h_backend *b);
    /* perf: one task in this process (perf gives each a child of its own, opening the
     * device after the inputs): the ceilings (c NULL: into ceil, and the device is
     * printed) or case c's ask->reps GPU times in ms (times[reps]) after the warm-up;
     * info gets the device. */
    q4_status (*time)(const q4h_run_options *opt, const q4h_perf_ask *ask, const q4_case *c,
                      q4vk_device_info *info, q4vk_ceilings *ceil, double *times,
                      q4_error *err);
} q4h_backend_i;

struct q4h_backend {
    const q4h_backend_i *i;
    const q4h_run_options *opt;
    void *state;                   /* the backend's own */
};

/* b for opt's backend, opened (q4h_backend_i.open): Q4_OK, or b holds no device. */
q4_status q4h_backend_open(q4h_backend *b, const q4h_run_options *opt, bool reopen,
                           q4_error *err);
void q4h_backend_close(q4h_backend *b);

#endif
