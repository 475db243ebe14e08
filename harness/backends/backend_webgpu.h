/* backend_webgpu.h: the WebGPU backend (backend.h): the cases' WGSL kernels run by
 * the WebGPU worker process (Node.js with Dawn, docs/webgpu.md).
 *
 * Selection, inputs, the reference truth, judging and reports are the common case
 * line's, in C; the worker process only runs kernels. Its failures are statuses: a
 * worker that dies during a case gives Crash, one that does not answer within the
 * run's exchange limit is killed and gives Timeout, a lost device or out of memory
 * gives ResourceError; a new worker takes the next run. */
#ifndef Q4H_BACKEND_WEBGPU_H
#define Q4H_BACKEND_WEBGPU_H

#include "backend.h"

extern const q4h_backend_i q4h_backend_webgpu;

/* --kernel NAME=FILE.wgsl with --api webgpu: NAME one of gpu/wgsl's kernels, FILE
 * readable; Q4_ERR_ARG naming the argument otherwise. (The worker compiles FILE and a
 * WGSL error stops the run before the first case, exit 2.) */
q4_status q4h_webgpu_check_kernels(const char *const *args, size_t n, q4_error *err);
#endif
