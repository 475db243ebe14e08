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
#include "q4vk.h"

#define Q4H_WG_MAGIC 0x47573451u   /* "Q4WG" little-endian */
enum { Q4H_WG_HELLO = 1, Q4H_WG_RUN = 2, Q4H_WG_RESULT = 3, Q4H_WG_BYE = 4, Q4H_WG_CHECK = 5 };
#define Q4H_WG_MAX_BLOBS 16
#define Q4H_WG_MAX_JSON (1u << 20)
#define Q4H_WG_PROTOCOL 1           /* the hello's "protocol" this harness speaks */

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
 * malformed for Q4H_WG_BAD: a wrong magic, type or size, a header that is not a JSON
 * object (json_text.h: strictly), or a blob longer than max_blob bytes (the largest
 * buffer the exchange can return), refused before any memory is taken for it. */
q4h_wg_io q4h_wg_recv(q4h_wg_worker *w, q4h_wg_frame *f, uint64_t max_blob, double deadline,
                      char *why, size_t why_size);
/* Where webgpu_frame.c reads a frame from: read(src, data, n) fills data with n
 * bytes or says why not (Q4H_WG_GONE: the stream ended). */
typedef struct q4h_wg_source {
    q4h_wg_io (*read)(struct q4h_wg_source *src, void *data, size_t n);
    q4h_wg_worker *w;          /* the worker's pipe (q4h_wg_recv) ... */
    double deadline;
    const uint8_t *buf;        /* ... or a buffer (q4h_wg_frame_parse) */
    size_t size, at;
} q4h_wg_source;
/* One frame from src, as q4h_wg_recv describes. */
q4h_wg_io q4h_wg_frame_read(q4h_wg_source *src, q4h_wg_frame *f, uint64_t max_blob, char *why,
                            size_t why_size);
/* The same from buf[0..size) (for tests and the fuzzer): Q4H_WG_GONE, with why, when
 * the frame is cut short; *used (may be NULL) gets the bytes read. */
q4h_wg_io q4h_wg_frame_parse(const uint8_t *buf, size_t size, uint64_t max_blob,
                             q4h_wg_frame *f, size_t *used, char *why, size_t why_size);

/* What the hello says of the adapter: as the report sinks take it (api_version 0: not
 * Vulkan), and the limits the harness uses. */
typedef struct q4h_wg_hello {
    q4vk_device_info info;
    uint64_t max_binding, max_buffer;
    char features[1024];
} q4h_wg_hello;
/* Reads a hello frame's JSON: "protocol" must be Q4H_WG_PROTOCOL; unless it carries
 * "error" (Q4_OK, *a empty: the caller reports the error), adapter, limits (integers
 * in range: maxStorageBufferBindingSize and maxBufferSize 16 to 2^53, the others
 * within 32 bits), features (strings), timestamps, node and webgpu must be there.
 * Otherwise Q4_ERR_DEVICE with why. */
q4_status q4h_wg_hello_read(json_object *h, q4h_wg_hello *a, char *why, size_t why_size);

#endif
