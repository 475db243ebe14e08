/* webgpu_worker.h: the WebGPU worker process (Node.js with Dawn, gpu/webgpu/worker.mjs)
 * and the framed binary protocol the harness speaks with it (docs/webgpu.md).
 *
 * Every wait has a deadline and is cut short by SIGINT/SIGTERM (q4h_stop_poll), so a
 * worker that hangs or dies mid-frame is a verdict for its case, never a hang here. */
#ifndef Q4H_WEBGPU_WORKER_H
#define Q4H_WEBGPU_WORKER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "q4_contract.h"

#define Q4H_WG_MAGIC 0x47573451u   /* "Q4WG" little-endian */
enum { Q4H_WG_HELLO = 1, Q4H_WG_RUN = 2, Q4H_WG_RESULT = 3, Q4H_WG_BYE = 4, Q4H_WG_CHECK = 5 };
#define Q4H_WG_MAX_BLOBS 16
#define Q4H_WG_MAX_JSON (1u << 20)

/* How an exchange with the worker ended. */
typedef enum q4h_wg_io {
    Q4H_WG_OK,
    Q4H_WG_GONE,       /* the worker closed its end: it exited or was killed */
    Q4H_WG_LATE,       /* the deadline passed */
    Q4H_WG_STOPPED,    /* SIGINT or SIGTERM (q4h_stop_signal) */
    Q4H_WG_BAD,        /* a malformed frame, or no memory for it */
} q4h_wg_io;

typedef struct q4h_wg_worker {
    pid_t pid;           /* 0: none running */
    int to_fd;           /* the worker's fd 3: requests */
    int from_fd;         /* the worker's fd 4: replies */
    int log_fd;          /* its stderr: an unlinked temp file */
} q4h_wg_worker;

/* Where the worker and its kernels are: Q4CTS_NODE, Q4CTS_WEBGPU_DIR, Q4CTS_WGSL_DIR
 * or the source tree's (docs/webgpu.md). */
typedef struct q4h_wg_paths {
    const char *node, *worker, *wgsl;
} q4h_wg_paths;
void q4h_wg_paths_get(q4h_wg_paths *p, char *buf, size_t size);

typedef struct q4h_wg_frame {
    uint32_t type;
    json_object *json;
    uint32_t n_blobs;
    uint8_t *blob[Q4H_WG_MAX_BLOBS];
    uint64_t blob_len[Q4H_WG_MAX_BLOBS];
} q4h_wg_frame;
void q4h_wg_frame_free(q4h_wg_frame *f);

/* Starts `node worker.mjs --wgsl DIR [--kernel NAME=FILE]...`; kernels are the
 * --kernel arguments (NAME=FILE.wgsl). */
q4_status q4h_wg_start(const char *const *kernels, size_t n_kernels, q4h_wg_worker *w,
                       q4_error *err);
/* Kills (SIGKILL) and reaps the worker if one runs; *status gets its wait status
 * (NULL: not wanted). */
void q4h_wg_kill(q4h_wg_worker *w, int *status);
/* Waits for a worker that was asked to leave (bye) up to 5 s, then kills it. */
void q4h_wg_finish(q4h_wg_worker *w);
/* "exited with status 3" / "died of signal 11 (Segmentation fault)", and the last
 * line of its stderr, for a Crash message. */
void q4h_wg_describe_end(const q4h_wg_worker *w, int status, char *buf, size_t size);

/* One frame out; blobs may be NULL when n_blobs is 0. deadline in q4h_now_s seconds. */
q4h_wg_io q4h_wg_send(q4h_wg_worker *w, uint32_t type, const char *json,
                      const void *const *blobs, const uint64_t *lens, uint32_t n_blobs,
                      double deadline);
/* One frame in; on Q4H_WG_OK f holds it (q4h_wg_frame_free). why says what was
 * malformed for Q4H_WG_BAD. */
q4h_wg_io q4h_wg_recv(q4h_wg_worker *w, q4h_wg_frame *f, double deadline, char *why,
                      size_t why_size);

#endif
