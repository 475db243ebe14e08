/* q4vk_op_linear_common.h: what the launchers of linear_q4gsw, linear_q4gsw_backward
 * and linear_dW share, defined in q4vk_op_linear_common.c: the options that make a
 * launcher's choices explicit (q4vk_linear_opts: kernel variant, tile shape, largest
 * binding, split-K, so that tests can run every variant on every shape and drive the
 * row-split path on a small device limit; the public launchers pass everything
 * zero/NULL = "choose"), the kernel names and binding slots of the linear kernels (as
 * their layout(binding = n) says), the tile shape of the tiled GEMM kernels
 * (q4_gemm.glsl's specialisation constants) and how it is picked from the device
 * limits, the operand checks of the forward and backward, the split-K and row-split
 * runs of a tiled kernel, and the scratch limits of the dense and tensor-core paths.
 * The checks every launcher shares are in q4vk_op_args.h. */
#ifndef Q4VK_OP_LINEAR_COMMON_H
#define Q4VK_OP_LINEAR_COMMON_H

#include <stdint.h>

#include "q4vk_op_args.h"

/* Tile shape of the tiled GEMM kernels: BM x BN outputs per workgroup, BK depth per
 * step, TM x TN outputs per invocation; the workgroup is (BM/TM) * (BN/TN). */
typedef struct q4vk_gemm_tile {
    uint32_t bm, bn, bk, tm, tn;
} q4vk_gemm_tile;

/* How a tiled kernel keeps its A tile in shared memory (q4_gemm.glsl), which sets the
 * shared memory it needs: [depth][rows] (linear_dw_tiled, linear_tn_tiled) or
 * [rows][depth], K-major (Q4_GEMM_A_KMAJOR: linear_q4gsw_tiled and its backward). */
typedef enum q4vk_gemm_a {
    Q4VK_GEMM_A_DEPTH_ROWS,
    Q4VK_GEMM_A_ROWS_DEPTH,
} q4vk_gemm_a;

typedef struct q4vk_linear_opts {
    const char *variant;           /* kernel to run (e.g. "linear_q4gsw_gemv"); NULL = choose */
    const q4vk_gemm_tile *tile;    /* tiled kernels: tile shape; NULL = choose */
    uint64_t max_binding;          /* largest binding in bytes; 0 = maxStorageBufferRange */
    uint32_t splits;               /* tiled forward/backward: depth slices (split-K); 0 = choose */
} q4vk_linear_opts;

/* Kernel names (= variant names). gemv variants take M <= Q4VK_GEMV_MAX_M. */
#define Q4VK_K_FWD_TILED "linear_q4gsw_tiled"
#define Q4VK_K_FWD_GEMV "linear_q4gsw_gemv"
#define Q4VK_K_BWD_TILED "linear_q4gsw_backward_tiled"
#define Q4VK_K_BWD_GEMV "linear_q4gsw_backward_gemv"
#define Q4VK_K_DW_TILED "linear_dw_tiled"
#define Q4VK_K_SPLITK_REDUCE "linear_splitk_reduce"   /* second pass of a split-K GEMM */
#define Q4VK_K_TN_TILED "linear_tn_tiled"     /* the dense path's GEMM (variant name of the path) */
#define Q4VK_K_TRANSPOSE "linear_transpose"   /* the dense path's operand transposes */
#define Q4VK_K_FWD_MMA "linear_q4gsw_mma"     /* the tensor-core forward's GEMM (its variant name) */
#define Q4VK_K_SLICE "linear_slice_i8"        /* its activation pass: x as int8 digit planes */
#define Q4VK_K_UNPACK_I8 "unpack_w_i8"        /* its weight pass: codes - 8 as int8 */
#define Q4VK_GEMV_MAX_M 8

/* BK of the 128x128 tile per tiled kernel, shared by the launchers and their plans.
 * H200, M = 512 and 4096 (docs/perf.md, "the q4 GEMMs' staging", one session): with A
 * staged K-major the forward (16) and the backward (16, word-pair staging) gave 68-70%
 * of the FMA rate; the backward's transposed staging had run best at 8 (49-65%). dW
 * runs at 8. */
#define Q4VK_FWD_BIG_BK 16u
#define Q4VK_BWD_BIG_BK 16u
#define Q4VK_DW_BIG_BK 8u
#define Q4VK_TN_BIG_BK 8u    /* linear_tn_tiled: dW's staging, dW's step */

/* Binding slots (layout(binding = n) of the kernels). The tiled kernels' partials
 * slot receives the split-K slices; unsplit it is bound to any buffer (never used). */
enum { Q4VK_FWD_X, Q4VK_FWD_W, Q4VK_FWD_SCALES, Q4VK_FWD_BIAS, Q4VK_FWD_Y,
       Q4VK_FWD_PARTIALS, Q4VK_FWD_BINDINGS };       /* linear_q4gsw_tiled, _gemv (no partials) */
enum { Q4VK_BWD_DOUT, Q4VK_BWD_W, Q4VK_BWD_SCALES, Q4VK_BWD_DX,
       Q4VK_BWD_PARTIALS, Q4VK_BWD_BINDINGS };       /* linear_q4gsw_backward_tiled, _gemv */
enum { Q4VK_DW_DOUT, Q4VK_DW_X, Q4VK_DW_DW };        /* linear_dw_tiled */
enum { Q4VK_RED_PARTIALS, Q4VK_RED_BIAS, Q4VK_RED_OUT };   /* linear_splitk_reduce */
enum { Q4VK_TN_P, Q4VK_TN_Q, Q4VK_TN_BIAS, Q4VK_TN_OUT, Q4VK_TN_PARTIALS,
       Q4VK_TN_BINDINGS };                           /* linear_tn_tiled */

/* The tile for a rows x cols output on this device, for a kernel that lays A out as
 * `a`: 128x128 with BK = big_bk (or 8 where shared memory is short) when that still
 * gives enough workgroups to fill a large GPU, else 64x64. The best BK differs per
 * kernel: Q4VK_*_BIG_BK above. */
q4vk_gemm_tile q4vk_gemm_pick_tile(const q4vk_device_info *info, uint64_t rows, uint64_t cols,
                                   uint32_t big_bk, q4vk_gemm_a a);
/* Q4_ERR_ARG unless the tile is well formed and fits the device (invocations,
 * shared memory with A laid out as `a`). */
q4_status q4vk_gemm_check_tile(const q4vk_device_info *info, const q4vk_gemm_tile *tile,
                               q4vk_gemm_a a, q4_error *err);
/* Depth slices (split-K) for a rows x cols output over `depth` with this tile: the
 * count that fills the rounds of workgroups of a large GPU best, net of the partial
 * outputs' traffic (1 for large outputs; q4vk_op_linear_common.c has the model). */
uint32_t q4vk_gemm_pick_splits(const q4vk_gemm_tile *tile, uint64_t rows, uint64_t cols,
                               uint64_t depth);
/* Specialisation constants 0..5 of q4_gemm.glsl: WG, BM, BN, BK, TM, TN. */
void q4vk_gemm_spec(const q4vk_gemm_tile *tile, q4vk_spec *spec);
uint32_t q4vk_gemm_shared_bytes(const q4vk_gemm_tile *tile, q4vk_gemm_a a);

/* The operands of linear_q4gsw (in = x [M, K], out = y [M, N]) and of its backward
 * (in = dout [M, N], out = dx [M, K], no bias). */
typedef struct q4vk_lin_operands {
    const q4vk_buffer *in, *w, *scales, *bias, *out;   /* bias: NULL = none */
    const char *in_name, *out_name;
    int64_t in_cols, out_cols;
} q4vk_lin_operands;
/* The checks both launchers make, in this order (the first failure is reported):
 * the shape; in, w, scales, bias and out hold their bytes; out is none of the
 * inputs; w, scales and bias each fit one binding of `limit` bytes (in and out may
 * be split by rows). */
q4_status q4vk_lin_check_args(int64_t M, int64_t N, int64_t K, int64_t gs,
                              const q4vk_lin_operands *p, uint64_t limit, q4_error *err);
/* Whether gemv variant `variant` can run on p: M <= Q4VK_GEMV_MAX_M (Q4_ERR_ARG), in
 * and out each in one binding of `limit` bytes (Q4_ERR_RESOURCE). The gemv kernels
 * need no optional device feature. */
q4_status q4vk_lin_gemv_check(const char *variant, uint64_t M, const q4vk_lin_operands *p,
                              uint64_t limit, q4_error *err);
/* Rows per dispatch when a row-major pair [rows, c1] / [rows, c2] (4-byte elements)
 * is split across bindings of at most `limit` bytes whose offsets are multiples of
 * `align`: every row offset of the split is aligned. 0 when no split fits. */
uint64_t q4vk_lin_split_rows(uint64_t rows, uint64_t c1, uint64_t c2, uint64_t limit,
                             uint64_t align);
/* Push constants of linear_q4gsw_tiled and linear_q4gsw_backward_tiled (same layout;
 * flag = has_bias for the forward, unused by the backward; tiles_total per slice;
 * splits = 1 and split_depth = the depth when the GEMM is not split). */
typedef struct q4vk_lin_push {
    uint32_t M, N, K, gs, N8, flag, tiles_n, tiles_total, splits, split_depth;
} q4vk_lin_push;
/* One launch of a tiled kernel (forward or backward): its pipeline and bindings,
 * which slots hold the input [M, in_cols] (split by rows), the output [M, out_cols]
 * and the split-K partials, and the push constants of the whole GEMM (splits = 1,
 * split_depth = the depth; M, tiles_n and tiles_total are set per dispatch). */
typedef struct q4vk_lin_tiled {
    const char *kernel;            /* pipe's kernel, for messages */
    q4vk_pipeline *pipe;
    q4vk_binding bind[Q4VK_MAX_BINDINGS];
    uint32_t n_bind;
    uint32_t in_slot, out_slot, part_slot;
    uint64_t in_cols, out_cols;
    q4vk_lin_push push;
    q4vk_gemm_tile tile;
    q4vk_buffer *bias;             /* split-K: the reduce adds it; NULL = none */
    uint64_t limit;                /* largest binding (q4vk_op_limit) */
} q4vk_lin_tiled;
/* Runs job over its M rows in dispatches of at most rows_per rows: the input and
 * output bindings are narrowed to each dispatch's rows, the others bound as given. */
q4_status q4vk_lin_run_rows(q4vk_context *ctx, const q4vk_lin_tiled *job, uint64_t rows_per,
                            q4vk_timing *t, q4_error *err);
/* Runs job split over its depth in one dispatch of all M rows, then
 * linear_splitk_reduce: about `splits` slices, each a whole number of tile.bk deep,
 * write their partial [M, out_cols] outputs to a scratch buffer bound at part_slot,
 * and the reduce adds them in slice order (plus job->bias) into the output. The
 * input is bound whole ([M, depth]; or as job binds it, where that gives a range).
 * The n_pre dispatches `pre` (NULL: none) run first, in the same submission. Q4_OK
 * with *ran = false, running nothing, when the scratch does not fit one binding of
 * job->limit bytes or one allocation; Q4_ERR_UNSUPPORTED, running nothing, when a
 * grid does not fit the device folded (q4vk_fold). */
q4_status q4vk_lin_run_split(q4vk_context *ctx, const q4vk_lin_tiled *job, uint32_t splits,
                             const q4vk_dispatch *pre, int n_pre, bool *ran, q4vk_timing *t,
                             q4_error *err);

/* One scratch buffer may hold at most q4vk_lin_scratch_one bytes (the binding limit,
 * or maxMemoryAllocationSize where smaller); all of a call's scratch together at most
 * 1/Q4VK_SCRATCH_HEAP_SHARE of the largest device-local heap, so that the op's own
 * tensors and the caller's still fit beside it (q4vk_lin_scratch_fits_heap). */
#define Q4VK_SCRATCH_HEAP_SHARE 4
uint64_t q4vk_lin_scratch_one(const q4vk_device_info *info, uint64_t limit);
bool q4vk_lin_scratch_fits_heap(const q4vk_device_info *info, uint64_t bytes);

/* The plan of a q4 tiled GEMM (A K-major) of [M, out_cols] over depth (inputs
 * [M, in_cols]): the tiled kernel, and the split-K reduce where the launcher splits
 * the depth. */
void q4vk_lin_plan_tiled(const q4vk_device_info *info, const char *kernel, uint64_t M,
                         uint64_t in_cols, uint64_t out_cols, uint64_t depth, uint32_t bk,
                         q4vk_plan *p);

#endif
