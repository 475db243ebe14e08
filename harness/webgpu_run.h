/* webgpu_run.h: `q4cts run|devices --api webgpu`: the cases judged against the WGSL
 * kernels that the WebGPU worker runs (docs/webgpu.md).
 *
 * Selection, inputs, the reference truth, judging and reports stay here, in C, and
 * are the Vulkan path's; the worker process only runs kernels. It is watched as the
 * Vulkan runner watches its child: a worker that dies during a case gives Crash, one
 * that does not answer in time is killed and gives Timeout, a lost device or out of
 * memory gives ResourceError; a new worker takes the next case and the run goes on. */
#ifndef Q4H_WEBGPU_RUN_H
#define Q4H_WEBGPU_RUN_H

#include <json-c/json.h>

#include "device_io.h"
#include "op.h"
#include "runner.h"

/* A case's buffers as the worker gets them (docs/webgpu.md, the run message): each
 * image is `data` bytes and then the guard words (`total` in all); `out`: returned
 * after the run; `uniform`: a uniform buffer (an interface file's). */
#define Q4H_WG_MAX_IMAGES 32
typedef struct q4h_wg_images {
    int n;
    size_t data[Q4H_WG_MAX_IMAGES];
    uint64_t total[Q4H_WG_MAX_IMAGES];
    void *image[Q4H_WG_MAX_IMAGES];
    char name[Q4H_WG_MAX_IMAGES][48];
    bool out[Q4H_WG_MAX_IMAGES], uniform[Q4H_WG_MAX_IMAGES];
} q4h_wg_images;
void q4h_wg_images_free(q4h_wg_images *im);
/* Adds an image of `bytes` + `guard` bytes, filled as q4h_host_image fills it (init
 * NULL: the sentinel), or zeros when `zero`; Q4_ERR_NOMEM or too many images. */
q4_status q4h_wg_image_add(q4h_wg_images *im, const char *name, const void *init, size_t bytes,
                           size_t guard, bool zero, q4_error *err);

/* interface_webgpu.c: case c of WGSL interface file f as the worker runs it: im gets
 * the file's tensor buffers (outputs returned), scratch and uniform buffers, *iface the
 * run message's "interface" member. max_groups: the adapter's
 * maxComputeWorkgroupsPerDimension (a grid beyond it, folded where the step allows, is
 * Q4_ERR_UNSUPPORTED naming the step); max_bytes: the longest buffer it binds (a
 * buffer the file makes longer is Q4_ERR_UNSUPPORTED before it is allocated). out: the
 * truth, from which the outputs the file does not write are dropped. info: the
 * adapter's limits, for the file's preconditions and device-limit names. */
struct q4h_iface;
q4_status q4h_iface_wg_case(const struct q4h_iface *f, const q4h_op *op, const q4_case *c,
                            const q4_inputs *in, q4h_outputs *out,
                            const q4vk_device_info *info, uint32_t max_groups,
                            uint64_t max_bytes, q4h_wg_images *im, json_object **iface,
                            q4_error *err);
/* The outputs read back from b (the returned images, in im's order; those not
 * returned hold NULL), with guard and padding checks. */
q4_status q4h_iface_wg_read(const struct q4h_iface *f, const q4_case *c,
                            const q4h_host_buffer *b, q4h_outputs *out, q4_error *err);
/* The check message of f (docs/interface-format.md, "What is checked"), or NULL
 * without memory. */
json_object *q4h_iface_wg_check(const struct q4h_iface *f);

typedef struct q4h_wg_options {
    const q4h_run_options *run;      /* repeat, strict, repro_flags */
    const char *const *kernels;      /* --kernel NAME=FILE.wgsl */
    size_t n_kernels;
    q4vk_faults faults;              /* the N-th run message (1-based) carries the fault */
    double exchange_s;               /* the watchdog of one run message and its result */
} q4h_wg_options;

/* Runs every case; Q4_OK once all have a result (or a stop signal ended the run). No
 * worker or adapter at the start is an error (exit 2); later failures are verdicts. */
q4_status q4h_webgpu_run_cases(const q4h_wg_options *opt, const q4_case *cases, size_t n,
                               const q4h_sink *sink, q4_error *err);
/* --kernel NAME=FILE.wgsl with --api webgpu: NAME one of gpu/wgsl's kernels, FILE
 * readable; Q4_ERR_ARG naming the argument otherwise. (The worker compiles FILE and a
 * WGSL error stops the run before the first case, exit 2.) */
q4_status q4h_webgpu_check_kernels(const char *const *args, size_t n, q4_error *err);
/* perf --api webgpu: one task in a worker of its own: the ceilings (c NULL: ceil) or
 * case c's `reps` GPU times in ms (times[reps]), after warm-up; info gets the adapter. */
typedef struct q4h_wg_perf {
    int reps, warmup, warmup_ms;
    double exchange_s;
} q4h_wg_perf;
q4_status q4h_webgpu_perf_task(const q4h_wg_perf *p, const q4_case *c, q4vk_device_info *info,
                               q4vk_ceilings *ceil, double *times, q4_error *err);
/* `q4cts devices --api webgpu`: the adapter Dawn finds, its features and limits. */
q4_status q4h_webgpu_devices(q4_error *err);

#endif
