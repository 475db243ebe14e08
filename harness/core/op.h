/* op.h: the descriptor through which the harness runs one op, and the outputs it judges.
 *
 * An op is one descriptor (ops/<op>.c): its kernels, the support check, the
 * reference truth, the GPU run and the bytes/flops of a case. The harness looks a
 * descriptor up by the case's op name and knows no op by name itself. One case's
 * path is a straight line (run_case.c):
 *   parsed case -> support -> inputs (cases/) -> truth (reference/) -> GPU (gpu/)
 *   -> judge (judge.c) -> reports (reports/);
 * or, for an op with a tiled truth, the truth made while judging (judge_tiled.c). */
#ifndef Q4H_OP_H
#define Q4H_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "q4case.h"
#include "q4ref.h"
#include "q4vk.h"

/* The shape SPEC gives a tensor of rows x cols elements; dumps keep it. */
typedef enum q4h_shape {
    Q4H_SCALAR,                /* one element (rows = cols = 1) */
    Q4H_VECTOR,                /* cols elements (rows is 1) */
    Q4H_MATRIX,                /* rows x cols, a one-row matrix too */
    Q4H_ACTIVATION,            /* rows x cols where rows are the case's leading dims:
                                * [*lead, cols] (SPEC's x [*, K]) */
} q4h_shape;

/* One output tensor of a case: the reference's truth and the GPU's result. A real
 * output has value/bound (fp64 truth and its SPEC §3 bound) and got (fp32 GPU);
 * a code output (requant) has code/alt and got_code instead. */
typedef struct q4h_output {
    const char *name;          /* "y", "dlogits", "loss", "w4x8", ... */
    int64_t count;             /* elements judged */
    int64_t rows, cols;        /* for coordinates: index = row * cols + col */
    const char *row_name, *col_name;   /* "-": no such dimension */
    q4h_shape shape;           /* scalar (both names "-"), vector (row_name "-") or matrix
                                * from q4h_real_output; an op may make it an activation */
    double *value, *bound;     /* real outputs */
    float *got;
    uint8_t *code, *alt;       /* code outputs: exact code and the conformant alternative */
    uint8_t *got_code;
    /* Statistical envelope (docs/numerics.md), for real outputs that have one: either
     * per-element arrays from the reference (env.alw and env.sd non-NULL; env.shr may
     * be NULL), or, for a dot product of dot_n terms of dot_factors factors, derived
     * from each element's bound (q4ref_envelope_dot). Neither: no statistical check. */
    q4ref_envelope env;
    int64_t dot_n;
    int dot_factors;
    /* Roundings shared by each column's elements (a weight dequantized once and used
     * by every row; q4ref_linear_shared_var): per column, the variance scales of the
     * sgn-weighted and the plain signed error sum, in the statistics' units. NULL: the
     * elements' errors are independent. With them the judge also tests each column. */
    double *col_var[2];
    bool guard_ok;             /* the guard words after the GPU buffer were untouched */
    int64_t guard_bad_at;      /* first changed guard word, when !guard_ok */
    bool padding_ok;           /* W_4X8 padding words exactly 0x88888888, a padded flat
                                * weight's row padding unchanged (code outputs) */
    int64_t padding_bad_at;
    char padding_problem[320]; /* why !padding_ok, where the padding is not W_4X8's words
                                * (q4h_decode_flat_rows), else "" */
    void *raw;                 /* packed outputs: the buffer as the GPU wrote it (W_4X8
                                * words with their padding, flat bytes), or NULL */
    size_t raw_bytes;
    char raw_dtype;            /* 'u' uint32 words, 'b' bytes */
    /* A real output whose truth is made tile by tile while it is judged (op's tiled,
     * judge_tiled.c): value, bound and env stay NULL until q4h_truth_complete;
     * tiled_env and tiled_shr say which envelope arrays its tiles have. */
    bool tiled, tiled_env, tiled_shr;
} q4h_output;

#define Q4H_MAX_OUTPUTS 4

struct q4h_tiled_truth;

typedef struct q4h_outputs {
    int n;
    q4h_output o[Q4H_MAX_OUTPUTS];
    /* A truth made tile by tile: how (the op's) and what its tiles read (the op's
     * state); NULL when the truth is whole. */
    const struct q4h_tiled_truth *tiled;
    void *tiles;
} q4h_outputs;

/* One tile of a tiled truth: row `row`, columns [j0, j1) of every tiled output, into
 * arrays of j1 - j0 elements (value[k], bound[k], env[k] for output k; NULL for an
 * output that is not tiled, and env's where it has no such array). */
typedef struct q4h_truth_tile {
    int64_t row, j0, j1;
    double *value[Q4H_MAX_OUTPUTS], *bound[Q4H_MAX_OUTPUTS];
    q4ref_envelope env[Q4H_MAX_OUTPUTS];
} q4h_truth_tile;

/* An op's truth made tile by tile as the judge takes it, so that the big outputs'
 * truth, bounds and envelopes are never held whole (judge_tiled.c): their pages are
 * most of a big case's time. Each tile is the whole truth's, bit for bit, and the
 * verdict, margins and statistics are the whole judge's (harness.judge_tiled).
 *   plan: what truth checks and makes, except that the outputs it marks tiled (all
 *     of one shape, without col_var) get no value, bound or envelope arrays; *state
 *     is what tile reads.
 *   tile: the truth of one tile, on any thread, in any order; whole rows only
 *     (j0 = 0, j1 = cols) when whole_rows.
 *   end: after every tile, the truth of the outputs that are not tiled (fused CE's
 *     loss, which needs every row's).
 *   free: the state. */
typedef struct q4h_tiled_truth {
    q4_status (*plan)(const q4_case *c, const q4_inputs *in, q4h_outputs *out, void **state,
                      q4_error *err);
    void (*tile)(void *state, const q4h_truth_tile *t);
    void (*end)(void *state, q4h_outputs *out);
    void (*free)(void *state);
    bool whole_rows;
} q4h_tiled_truth;

/* One input tensor of a case, as the GPU run uploads it and --dump-dir saves it. */
typedef struct q4h_tensor {
    const char *name;
    char dtype;                /* 'f' fp32, 'i' int32, 'u' uint32, 'b' uint8 */
    const void *data;
    int64_t rows, cols;
    q4h_shape shape;
} q4h_tensor;

#define Q4H_MAX_TENSORS 8

/* One parameter of an op as a dump's case.json records it: a field of the case (the
 * shape) or a scalar input the generator chose, which replay --rerun sets back. */
typedef struct q4h_param {
    const char *key;           /* NULL ends a list */
    char from;                 /* 'c' int64_t or 'i' int of q4_case, 'f' float of q4_inputs */
    size_t offset;
} q4h_param;
#define Q4H_CASE_PARAM(field) { #field, 'c', offsetof(q4_case, field) }
#define Q4H_CASE_INT_PARAM(field) { #field, 'i', offsetof(q4_case, field) }
#define Q4H_INPUT_PARAM(field) { #field, 'f', offsetof(q4_inputs, field) }

struct q4h_host_buffer;   /* device_io.h */

typedef struct q4h_op {
    const char *name;
    const char *const *kernels;  /* NULL-terminated: the built-in kernels this op may run */
    /* Empty string when the device can run the case; else why not (NotSupported). */
    void (*support)(const q4_case *c, const q4vk_device_info *info, char *why, size_t size);
    /* The case's input tensors in upload order; returns how many. */
    int (*inputs)(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS]);
    /* Allocates and fills the outputs' truth (value/bound or code/alt) and shape. */
    q4_status (*truth)(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err);
    /* Bytes of each output buffer the launcher writes besides in-place inputs;
     * returns how many. The GPU run's buffers are the inputs, then these. */
    int (*output_buffers)(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS]);
    /* Runs the launcher on device buffers b (inputs, then output buffers). */
    q4_status (*launch)(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err);
    /* The built-in kernels launch dispatches for c on a device with `info` (the
     * launcher's plan, q4vk.h); NULL: every kernel of `kernels`. */
    void (*plan)(const q4_case *c, const q4vk_device_info *info, q4vk_plan *p);
    /* Downloads the results into out->o[i].got / got_code, checking guard (and
     * padding) words. */
    q4_status (*read)(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                      q4h_outputs *out, q4_error *err);
    /* The same from the buffers' contents on the host (b as launch's buffers: inputs,
     * then output buffers), as the WebGPU worker returns them (backend_webgpu.c). */
    q4_status (*read_host)(const q4_case *c, const struct q4h_host_buffer *b,
                           q4h_outputs *out, q4_error *err);
    /* Minimal DRAM bytes moved and flops of the case (perf mode). */
    double (*bytes)(const q4_case *c);
    double (*flops)(const q4_case *c);
    const q4h_param *params;   /* what case.json's params hold for a case of the op */
    const q4h_tiled_truth *tiled;   /* the truth tile by tile; NULL: whole only */
} q4h_op;

/* The descriptor of the op named `name` (a user's argument: --kernel, a dump's
 * case.json), or NULL. */
const q4h_op *q4h_op_find(const char *name);
/* The descriptor of case c's op, or NULL: the one way the harness finds a case's op,
 * from the op the parsed case carries (q4_case_op_index). */
const q4h_op *q4h_op_of(const q4_case *c);
/* Input, then output, buffers of one GPU run of a case (gpu_run.c). */
typedef struct q4h_gpu_buffers {
    q4vk_buffer *b[Q4H_MAX_TENSORS + Q4H_MAX_OUTPUTS];
    int n;
} q4h_gpu_buffers;
/* guard_bytes: Q4H_GUARD_BYTES after every buffer when results are judged; 0 in perf
 * mode, so that every binding is exactly its tensor, as in a user's program. */
q4_status q4h_gpu_prepare(q4vk_context *ctx, const q4h_op *op, const q4_case *c,
                          const q4_inputs *in, size_t guard_bytes, q4h_gpu_buffers *bufs,
                          q4_error *err);
void q4h_gpu_release(q4vk_context *ctx, q4h_gpu_buffers *bufs);
/* Host wall time of a GPU run's uploads (prepare) and read-backs (read), ms; -1 where
 * that part did not run. */
typedef struct q4h_transfer_ms {
    double upload, readback;
} q4h_transfer_ms;
/* prepare, launch, read, release: one judged GPU run (io: its transfers' times, or NULL). */
q4_status q4h_gpu_run(q4vk_context *ctx, const q4h_op *op, const q4_case *c,
                      const q4_inputs *in, q4h_outputs *out, q4vk_timing *t,
                      q4h_transfer_ms *io, q4_error *err);
const q4h_op *const *q4h_ops(int *count);
void q4h_outputs_free(q4h_outputs *out);

#endif
