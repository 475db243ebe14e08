/* q4vk.h: the q4cts Vulkan runtime and the launcher of every op.
 *
 * Plain C over the Vulkan loader. A q4vk_context owns one instance, one device,
 * one compute queue, a pipeline cache and the command/descriptor pools; buffers
 * are device-local and filled through staging copies. Every failure is returned
 * as a q4_status with a sentence in q4_error (a failed Vulkan call is named);
 * nothing aborts or prints, except q4vk_create's optional choice line on `log`.
 *
 * Launchers (bottom of this file) take device buffers, check the shape contract
 * and the values SPEC §1/§2 constrain (scales, labels, n_valid; they download
 * scales and labels to check them) with the same checks and messages as the
 * reference, pick a kernel variant and run it. All their kernels are embedded SPIR-V, compiled from gpu/shaders/. */
#ifndef Q4VK_H
#define Q4VK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "q4_contract.h"
#include "q4spv_instrument.h"

typedef struct q4vk_context q4vk_context;
typedef struct q4vk_buffer q4vk_buffer;
typedef struct q4vk_pipeline q4vk_pipeline;

/* ---------------- devices ---------------- */

typedef struct q4vk_device_info {
    int index;                    /* position in vkEnumeratePhysicalDevices */
    char name[256];
    char driver_name[256];        /* VkPhysicalDeviceDriverProperties */
    char driver_info[256];
    char uuid[37];                /* pipelineCacheUUID-independent deviceUUID, 8-4-4-4-12 hex */
    uint32_t vendor_id, device_id;
    uint32_t api_version;         /* VK_MAKE_API_VERSION */
    uint32_t driver_version;      /* raw, vendor-encoded */
    char driver_version_str[64];  /* decoded per vendor (NVIDIA 10.8.8.6, Mesa major.minor.patch) */
    const char *type;             /* "discrete", "integrated", "virtual", "cpu", "other" */
    /* limits and features the kernels depend on */
    uint32_t subgroup_size;
    bool subgroup_arithmetic;     /* VK_SUBGROUP_FEATURE_ARITHMETIC_BIT in compute */
    uint32_t max_shared_bytes;    /* maxComputeSharedMemorySize */
    uint32_t max_invocations;     /* maxComputeWorkGroupInvocations */
    uint32_t max_group_size[3];
    uint32_t max_group_count[3];
    uint64_t max_storage_range;   /* maxStorageBufferRange */
    uint64_t min_storage_align;   /* minStorageBufferOffsetAlignment */
    uint32_t max_push_bytes;
    bool timestamps;              /* compute queue has timestampValidBits > 0 */
    double timestamp_period_ns;
    bool storage16, storage8;     /* storageBuffer16BitAccess, storageBuffer8BitAccess */
    uint64_t device_local_bytes;  /* largest device-local heap */
    uint64_t max_alloc_bytes;     /* maxMemoryAllocationSize: the largest one buffer can be
                                     (4 GiB - 2 MiB on the H200, below maxStorageBufferRange) */
    /* launcher policy, not a device limit: linear_q4gsw and its backward take their dense
     * path (W dequantized into fp32 scratch, then a GEMM of fp32 operands; docs/perf.md)
     * from this M up, where its scratch fits. Q4VK_DENSE_MIN_M unless
     * q4vk_options.dense_min_m says otherwise. */
    uint64_t dense_min_m;
    /* linear_q4gsw's tensor-core path (linear_q4gsw_mma: VK_NV_cooperative_matrix, s8 x s8
     * -> s32 16x16x32 in subgroups of 32, int8 arithmetic, the Vulkan memory model with device
     * scope): whether the
     * device has it, and the launcher's policy: from this M up where gs % 64 == 0 and its
     * scratch fits (Q4VK_MMA_MIN_M unless q4vk_options.mma_min_m says otherwise). */
    bool coopmat_s8;
    uint64_t mma_min_m;
    /* VK_EXT_conditional_rendering with its feature: a recorded sequence can choose
     * between dispatches by a flag a kernel wrote (q4vk_sequence_when), so an op that
     * picks its path from its data still records (the tensor-core forward's fallback). */
    bool conditional;
} q4vk_device_info;

/* The default of q4vk_device_info.dense_min_m. */
#define Q4VK_DENSE_MIN_M 2048
/* The default of q4vk_device_info.mma_min_m. */
#define Q4VK_MMA_MIN_M 512

/* Fills up to `max` entries; *count gets the number of devices. No device is Q4_ERR_UNSUPPORTED. */
q4_status q4vk_enumerate(q4vk_device_info *infos, int max, int *count, q4_error *err);

/* ---------------- fault injection (SQLite's habit: test the error paths) ---------------- */
typedef struct q4vk_faults {
    int64_t fail_alloc_at;        /* the Nth buffer allocation (1-based) fails as out-of-device-memory; 0 = off */
    int64_t device_lost_at;       /* the Nth submit reports VK_ERROR_DEVICE_LOST; 0 = off */
    int64_t timeout_at;           /* the Nth submit is treated as never finishing; 0 = off */
    int64_t crash_at;             /* the Nth submit kills the process with SIGSEGV, as a
                                     crashing driver would; 0 = off */
    int64_t crash_at_destroy;     /* destroying a context that made at least N submits
                                     kills the process with SIGSEGV, as a driver crashing
                                     in vkDestroyDevice would; 0 = off */
} q4vk_faults;

/* ---------------- test-only lowered limits ----------------
 * Device limits lowered below the device's own, so that the launchers' limit-driven
 * choices (grid folding, buffer splitting, tiles and shared-memory passes) run on
 * small shapes: lavapipe's 128 MiB binding limit keeps grids from ever folding and
 * buffers from ever splitting there otherwise. Only the limits the launchers read
 * (q4vk_info) are lowered, and q4vk_run checks dispatches against them; the device
 * itself is unchanged, so results must be exactly what the unlowered device gives
 * (that is what the cases that use them test). 0 = the device's value; a value
 * above it is ignored. A conformance run lowers them only for the cases of family
 * small_device (q4vk_set_case_limits), whose results must equal the unlowered ones. */
typedef struct q4vk_test_limits {
    uint32_t max_groups;          /* maxComputeWorkGroupCount, every dimension (>= 1) */
    uint64_t max_binding;         /* maxStorageBufferRange, bytes (>= 16) */
    uint32_t max_shared;          /* maxComputeSharedMemorySize, bytes (>= 16384, Vulkan's least) */
    uint32_t max_invocations;     /* maxComputeWorkGroupInvocations (>= 128, Vulkan's least) */
} q4vk_test_limits;

/* Parses "groups=16,binding=65536,shared=16384,invocations=128" (any subset, any
 * order; the form of Q4CTS_TEST_LIMITS). Q4_ERR_ARG with a sentence naming `what`
 * when malformed or below a minimum above. */
q4_status q4vk_test_limits_parse(const char *text, const char *what, q4vk_test_limits *out,
                                 q4_error *err);

/* ---------------- probes: shader coverage and load bounds checks ----------------
 * With either on, every pipeline's code (built-in or override) is rewritten by
 * q4spv_instrument (spirv/) with a probe buffer in descriptor set 1, which the
 * runtime binds, fills and reads back around each dispatch. Results stay
 * bit-identical; dispatches get slower. */
typedef struct q4vk_probes {
    bool coverage;                /* record the blocks and branch edges each kernel runs */
    bool bounds;                  /* check every load, store and atomic on a binding
                                     against its data */
    bool race;                    /* check shared memory for accesses of different
                                     invocations with no barrier between them
                                     (docs/race-check.md) */
    int race_word_loop;           /* a wide access's race probe as one loop over its words
                                     (q4spv_options.race_word_loop): 0 where the driver's
                                     loops allow it (q4vk_runtime_probes.c), > 0 always,
                                     < 0 never */
    /* After each dispatch of a probed pipeline: its kernel's name, whether the code
     * is an override, the probe map and the slots the dispatch left (map->n_slots
     * words). May be NULL. */
    void (*dispatched)(void *user, const char *kernel, bool overridden, const q4spv_map *map,
                       const uint32_t *slots);
    void *user;
} q4vk_probes;

/* ---------------- context ---------------- */
typedef struct q4vk_options {
    const char *device;           /* NULL: first discrete or integrated GPU, else the CPU device;
                                     else an index ("1"), a UUID, or a name substring */
    bool validation;              /* enable VK_LAYER_KHRONOS_validation; also Q4CTS_VALIDATION=1 */
    uint64_t timeout_ms;          /* per-submit watchdog; 0 = 60000 */
    FILE *log;                    /* where to print the device chosen; NULL = silent */
    q4vk_faults faults;
    q4vk_test_limits test_limits; /* tests only; all 0 = none, else also Q4CTS_TEST_LIMITS */
    q4vk_probes probes;           /* all off = none */
    uint64_t dense_min_m;         /* q4vk_device_info.dense_min_m of the context; 0 = the
                                     default, Q4VK_DENSE_MIN_M (q4cts perf --dense-min-m) */
    uint64_t mma_min_m;           /* q4vk_device_info.mma_min_m; 0 = Q4VK_MMA_MIN_M, UINT64_MAX =
                                     never (q4cts run/perf --mma-min-m N|off) */
} q4vk_options;

q4_status q4vk_create(const q4vk_options *opt, q4vk_context **out, q4_error *err);
/* Safe after a device loss or timeout; NULL is a no-op. */
void q4vk_destroy(q4vk_context *ctx);
const q4vk_device_info *q4vk_info(const q4vk_context *ctx);
/* Tests only: lowers the context's limits (q4vk_test_limits) from the device's own
 * values, replacing any earlier lowering; NULL or all 0 restores them. */
q4_status q4vk_set_test_limits(q4vk_context *ctx, const q4vk_test_limits *lim, q4_error *err);
/* Tests only: the limits the context was created with (q4vk_options.test_limits or
 * Q4CTS_TEST_LIMITS), lowered further by lim (each limit the smaller of the two),
 * replacing any earlier call's; NULL or all 0 restores the creation's. For one test
 * case that names its own limits (q4cts's family small_device). */
q4_status q4vk_set_case_limits(q4vk_context *ctx, const q4vk_test_limits *lim, q4_error *err);
/* info as a device with limits lowered by lim shows it (what q4vk_set_test_limits
 * does to the context's), e.g. to plan the kernels of a case with lowered limits. */
void q4vk_lower_info(q4vk_device_info *info, const q4vk_test_limits *lim);
/* Whether the context enabled device extension `name` (e.g. VK_KHR_8bit_storage on
 * a 1.1 device); core features are reported in q4vk_device_info instead. */
bool q4vk_device_extension(const q4vk_context *ctx, const char *name);
/* Validation-layer errors seen since q4vk_create (0 without validation); *warnings
 * gets the warnings, and first_warning (if not NULL) the first warning's text. */
uint64_t q4vk_validation_messages(q4vk_context *ctx, uint64_t *warnings, char *first_warning,
                                  size_t first_warning_bytes);

/* ---------------- buffers (device-local; staging copies inside) ---------------- */
q4_status q4vk_buffer_create(q4vk_context *ctx, size_t bytes, q4vk_buffer **out, q4_error *err);
void q4vk_buffer_destroy(q4vk_context *ctx, q4vk_buffer *buf);
size_t q4vk_buffer_size(const q4vk_buffer *buf);
/* The bytes of real data at the start of buf (the rest is guard words or padding):
 * bounds probes report an access past them. Default: the whole buffer. */
void q4vk_buffer_set_data_bytes(q4vk_buffer *buf, size_t bytes);
/* The out-of-bounds accesses the bounds probes saw since the last call: the first as
 * one sentence naming the kernel, the binding, the first offending index and the
 * source line, then how many there were in all and, per kernel and binding, their
 * count, their sites and the first few sites' smallest offsets ("...; 96
 * out-of-bounds accesses in all: kernel K binding 1: 64 at 2 sites (load at byte 512
 * (k.comp:88), ...); ..."; as much as fits in size): true with msg filled (and the
 * record cleared), or false. */
bool q4vk_take_oob(q4vk_context *ctx, char *msg, size_t size);
/* The first shared-memory race (or read of uninitialized shared memory) the race
 * probes saw since the last call, as one sentence naming the kernel, the variable and
 * word, the kind, both source lines and both invocations: true with msg filled (and
 * the record cleared), or false. */
bool q4vk_take_race(q4vk_context *ctx, char *msg, size_t size);
q4_status q4vk_upload(q4vk_context *ctx, q4vk_buffer *dst, size_t offset, const void *src,
                      size_t bytes, q4_error *err);
q4_status q4vk_download(q4vk_context *ctx, const q4vk_buffer *src, size_t offset, void *dst,
                        size_t bytes, q4_error *err);
/* Sets `bytes` from `offset` to copies of `word` (vkCmdFillBuffer), e.g. to poison an
 * output with NaN (0x7fc00000) before a run. offset and bytes are multiples of 4, except
 * that the range may end at the buffer's end; bytes == 0 means to the end. */
q4_status q4vk_fill(q4vk_context *ctx, q4vk_buffer *dst, size_t offset, size_t bytes,
                    uint32_t word, q4_error *err);

/* ---------------- kernels ---------------- */
#define Q4VK_MAX_BINDINGS 8
#define Q4VK_MAX_SPEC 8

/* A kernel: embedded SPIR-V plus its interface. `name` is also the key by which a
 * user's module replaces it (q4vk_set_override). Bindings 0..n_bindings-1 of set 0 are
 * storage buffers, except those in uniform_mask; push constants start at offset 0.
 * entry and uniform_mask are for kernels of other runtimes (--interface): the
 * built-in ones leave them 0 ("main", storage buffers only). */
typedef struct q4vk_kernel {
    const char *name;
    const uint32_t *spirv;
    size_t spirv_words;
    uint32_t n_bindings;
    uint32_t push_bytes;
    const char *entry;            /* the GLCompute entry point; NULL = "main" */
    uint32_t uniform_mask;        /* bit b set: binding b is a uniform buffer */
} q4vk_kernel;

/* Looks up a built-in kernel by name (generated table of gpu/shaders/ *.comp). */
const q4vk_kernel *q4vk_kernel_find(const char *name);
/* All built-in kernels, for listing; *count gets their number. */
const q4vk_kernel *q4vk_kernels(int *count);

/* Runs `spirv` wherever the built-in kernel `name` would run (same bindings, push
 * constants, specialisation constants and grid). Copies the words. */
q4_status q4vk_set_override(q4vk_context *ctx, const char *name, const uint32_t *spirv,
                            size_t words, q4_error *err);

/* Specialisation constants: ids[i] gets values[i] (32-bit each). Pipelines are
 * cached per (kernel, constants) for the context's lifetime. */
typedef struct q4vk_spec {
    uint32_t count;
    uint32_t ids[Q4VK_MAX_SPEC];
    uint32_t values[Q4VK_MAX_SPEC];
} q4vk_spec;

/* The pipeline of kernel k with `spec` (NULL = none), made on first use and owned by
 * the context until q4vk_destroy. */
q4_status q4vk_pipeline_get(q4vk_context *ctx, const q4vk_kernel *k, const q4vk_spec *spec,
                            q4vk_pipeline **out, q4_error *err);

typedef struct q4vk_binding {
    q4vk_buffer *buf;
    uint64_t offset;              /* multiple of min_storage_align */
    uint64_t range;               /* bytes; 0 = to the end of the buffer */
} q4vk_binding;

typedef struct q4vk_dispatch {
    q4vk_pipeline *pipe;
    q4vk_binding bind[Q4VK_MAX_BINDINGS];
    const void *push;
    uint32_t groups[3];
} q4vk_dispatch;

typedef struct q4vk_timing {
    double gpu_ms;                /* timestamps around the dispatches; < 0 where unsupported */
} q4vk_timing;

/* Records the dispatches into one command buffer with a compute->compute barrier
 * between consecutive ones, submits, and waits (watchdog: timeout_ms). A binding
 * range above maxStorageBufferRange is Q4_ERR_RESOURCE; a group count above the
 * device limit is Q4_ERR_ARG. Validation-layer errors raised by this submission
 * come back as Q4_ERR_VALIDATION naming the kernel. */
q4_status q4vk_run(q4vk_context *ctx, const q4vk_dispatch *d, int n, q4vk_timing *t,
                   q4_error *err);

/* ---------------- sequences: the launches of several ops in one submission ----------------
 * Between q4vk_sequence_begin and q4vk_sequence_end, q4vk_run keeps its dispatches
 * instead of submitting them, so launchers run unchanged; end submits them all, in
 * order, in one command buffer, with a barrier between consecutive dispatches, and
 * waits (q4vk_run's watchdog, validation messages and probes; t times the whole). A
 * training step runs so (harness/run/train_resident.c): its ops hand tensors on
 * through device buffers and only the runtime's barriers order them. While recording,
 * a buffer destroyed is kept until end; an upload or fill of a buffer a recorded
 * dispatch binds, or a download of one made during the recording and bound by it, is
 * Q4_ERR_UNSUPPORTED (it would run before the dispatch); a download of an older
 * buffer reads what it held before the sequence. */
q4_status q4vk_sequence_begin(q4vk_context *ctx, q4_error *err);
/* The next dispatch recorded begins an op. barrier false leaves out the barrier
 * between it and the dispatch before: a planted synchronisation bug (--inject-fault
 * train_no_barrier), which the validation layer's synchronisation checks report. */
void q4vk_sequence_op(q4vk_context *ctx, bool barrier);
/* Whether a sequence is being recorded on ctx. */
bool q4vk_sequence_recording(const q4vk_context *ctx);
/* The dispatches recorded from now on run only when the 32-bit word at the start of
 * `flag` is nonzero (zero: false), as a kernel before them left it; flag NULL: always
 * again. Needs q4vk_device_info.conditional and a sequence being recorded, else
 * Q4_ERR_UNSUPPORTED. The barrier before each such dispatch also orders the flag's
 * write before its read by the condition. */
q4_status q4vk_sequence_when(q4vk_context *ctx, q4vk_buffer *flag, bool nonzero,
                             q4_error *err);
/* Submits what was recorded (nothing: Q4_OK) and stops recording, whatever the status. */
q4_status q4vk_sequence_end(q4vk_context *ctx, q4vk_timing *t, q4_error *err);
/* Stops recording and drops what was recorded; NULL or not recording: a no-op. */
void q4vk_sequence_abort(q4vk_context *ctx);

/* Splits `total` workgroups over x, y and z so that none exceeds the device limit
 * (lavapipe allows 65535 in x): x = min(total, 65535, maxComputeWorkGroupCount[0]),
 * y = min(ceil(total / x), 65535, [1]), z = ceil(total / (x * y)), so z > 1 only
 * where x * y cannot hold total. Kernels rebuild the flat index as
 * (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x +
 * gl_WorkGroupID.x (gpu/shaders/q4_fold.glsl) and skip the excess. The counts may
 * exceed the device's limits where even z cannot take the rest: q4vk_fold says so. */
void q4vk_fold_groups(const q4vk_context *ctx, uint64_t total, uint32_t groups[3]);
/* Whether `total` workgroups, folded so, fit the device's maxComputeWorkGroupCount
 * in all three dimensions, with a flat index below 2^32 for every group. */
bool q4vk_fold_fits(const q4vk_device_info *info, uint64_t total);
/* q4vk_fold_groups for kernel `kernel`, checked: Q4_ERR_UNSUPPORTED naming the
 * kernel and maxComputeWorkGroupCount where the grid does not fit (q4vk_fold_fits),
 * so that a launcher says so before it dispatches anything. */
q4_status q4vk_fold(const q4vk_context *ctx, const char *kernel, uint64_t total,
                    uint32_t groups[3], q4_error *err);

/* ---------------- described dispatches (kernels of other runtimes) ----------------
 * Steps given in full by the caller (harness/interface_*.c reads them from an
 * interface file): each its own kernel (code, entry point, binding types), constants,
 * buffers, push constants and group count. Nothing here knows an op. */
typedef struct q4vk_described_step {
    q4vk_kernel kernel;           /* name: unique per module, e.g. "fused_ce.rows" */
    q4vk_spec spec;
    q4vk_binding bind[Q4VK_MAX_BINDINGS];
    const void *push;             /* kernel.push_bytes bytes */
    uint64_t groups[3];           /* a 0 anywhere: the step is skipped */
    bool fold;                    /* the kernel accepts x folded over y (never z) */
    const char *origin;           /* what the code is, for the probes' messages (e.g.
                                     "interface kernel f.json:rows"); NULL: "kernel NAME" */
} q4vk_described_step;

/* Runs the steps in order in one submission (q4vk_run: a barrier between steps). A
 * group count the device cannot dispatch, even folded where allowed, or a storage
 * binding above maxStorageBufferRange is Q4_ERR_UNSUPPORTED naming the step; a
 * pipeline that cannot be made is the pipeline's error (q4vk_pipeline_get). */
q4_status q4vk_run_described(q4vk_context *ctx, const q4vk_described_step *s, int n,
                             q4vk_timing *t, q4_error *err);

/* ---------------- op launchers ----------------
 * All tensors live in device buffers that hold at least the bytes the shape
 * needs (larger is fine: the harness puts guard words after each output). */

typedef struct q4vk_dequant_args {
    q4vk_buffer *w;       /* W_4X8, q4_w4x8_words(N, K) uint32 */
    q4vk_buffer *scales;  /* [K/gs, N] */
    q4vk_buffer *out;     /* [N, K] fp32 */
    int64_t N, K, gs;
} q4vk_dequant_args;
q4_status q4vk_dequantize(q4vk_context *ctx, const q4vk_dequant_args *a, q4vk_timing *t,
                          q4_error *err);

typedef struct q4vk_linear_args {
    q4vk_buffer *x;       /* [M, K] */
    q4vk_buffer *w;       /* W_4X8 */
    q4vk_buffer *scales;  /* [K/gs, N] */
    q4vk_buffer *bias;    /* [N] or NULL */
    q4vk_buffer *y;       /* [M, N] */
    int64_t M, N, K, gs;
} q4vk_linear_args;
q4_status q4vk_linear_q4gsw(q4vk_context *ctx, const q4vk_linear_args *a, q4vk_timing *t,
                            q4_error *err);

typedef struct q4vk_linear_bwd_args {
    q4vk_buffer *dout;    /* [M, N] */
    q4vk_buffer *w;       /* W_4X8 */
    q4vk_buffer *scales;  /* [K/gs, N] */
    q4vk_buffer *dx;      /* [M, K] */
    int64_t M, N, K, gs;
} q4vk_linear_bwd_args;
q4_status q4vk_linear_q4gsw_backward(q4vk_context *ctx, const q4vk_linear_bwd_args *a,
                                     q4vk_timing *t, q4_error *err);

typedef struct q4vk_dw_args {
    q4vk_buffer *dout;    /* [M, N] */
    q4vk_buffer *x;       /* [M, K] */
    q4vk_buffer *dw;      /* [N, K] */
    int64_t M, N, K;
} q4vk_dw_args;
q4_status q4vk_linear_dw(q4vk_context *ctx, const q4vk_dw_args *a, q4vk_timing *t,
                         q4_error *err);

typedef struct q4vk_ce_args {
    q4vk_buffer *logits;  /* [R, V] */
    q4vk_buffer *labels;  /* [R] int32; negative = masked; a label >= V is Q4_ERR_ARG
                             (the launcher downloads and checks them, q4_check_labels) */
    q4vk_buffer *loss;    /* 1 float */
    q4vk_buffer *dlogits; /* [R, V] */
    int64_t R, V;
    float n_valid;
} q4vk_ce_args;
q4_status q4vk_fused_ce(q4vk_context *ctx, const q4vk_ce_args *a, q4vk_timing *t, q4_error *err);

typedef struct q4vk_adamw_args {
    q4vk_buffer *param, *grad, *m, *v;  /* [numel] each; param, m, v updated in place */
    int64_t numel;
    float lr, beta1, beta2, eps, wd, bc1, bc2;
} q4vk_adamw_args;
q4_status q4vk_adamw_step(q4vk_context *ctx, const q4vk_adamw_args *a, q4vk_timing *t,
                          q4_error *err);

typedef struct q4vk_requant_args {
    q4vk_buffer *latent;  /* [N, K] fp32 */
    q4vk_buffer *scales;  /* [K/gs, N] */
    q4vk_buffer *w;       /* W_4X8 out, padding words included; may be NULL */
    q4vk_buffer *flat;    /* flat layout out (q4_flat_bytes); may be NULL; not both NULL */
    int64_t N, K, gs;
} q4vk_requant_args;
q4_status q4vk_q4gsw_requant(q4vk_context *ctx, const q4vk_requant_args *a, q4vk_timing *t,
                             q4_error *err);

/* Bytes from offset to the end of buf (a multiple of 4, at most maxStorageBufferRange).
 * Launchers bind outputs this way, not to the tensor's exact size: a kernel's
 * out-of-bounds write then lands in whatever follows the tensor in the buffer (the
 * harness's guard words, where a conformance run sees it) instead of being dropped
 * by the driver's bounds checks on the binding. */
uint64_t q4vk_range_to_end(const q4vk_context *ctx, const q4vk_buffer *buf, uint64_t offset);

/* ---------------- plans: the kernels a launcher would dispatch ----------------
 * For a call of this shape on a device with these limits, without running anything
 * (each launcher's own file makes its own choices). The harness asks before a run:
 * which cases exercise a --kernel override, and which modules a case runs. */
#define Q4VK_PLAN_MAX 8
typedef struct q4vk_plan {
    int n;
    const char *kernels[Q4VK_PLAN_MAX];   /* built-in kernel names, in dispatch order */
    int maybe_from;                       /* kernels from this index on run only when the
                                             data sends the call to a fallback (the
                                             tensor-core forward's fp32 path); 0: none */
} q4vk_plan;
void q4vk_dequantize_plan(const q4vk_device_info *info, q4vk_plan *p);
/* Whether a built-in kernel belongs to linear_q4gsw's tensor-core path, which only a
 * device with q4vk_device_info.coopmat_s8 runs. */
bool q4vk_kernel_tensor_core(const char *kernel);
void q4vk_linear_q4gsw_plan(const q4vk_device_info *info, int64_t M, int64_t N, int64_t K,
                            int64_t gs, q4vk_plan *p);
void q4vk_linear_q4gsw_backward_plan(const q4vk_device_info *info, int64_t M, int64_t N,
                                     int64_t K, q4vk_plan *p);
void q4vk_linear_dw_plan(const q4vk_device_info *info, int64_t M, int64_t N, int64_t K,
                         q4vk_plan *p);
void q4vk_fused_ce_plan(const q4vk_device_info *info, q4vk_plan *p);
void q4vk_adamw_step_plan(const q4vk_device_info *info, q4vk_plan *p);
/* w, flat: which outputs the call asks for (q4vk_requant_args' non-NULL ones). */
void q4vk_q4gsw_requant_plan(const q4vk_device_info *info, int64_t K, bool w, bool flat,
                             q4vk_plan *p);

/* ---------------- device ceilings (perf mode) ---------------- */
typedef struct q4vk_ceilings {
    double copy_gbs;      /* device-local copy: (read + written bytes) / time, GB/s */
    double fma_tflops;    /* fp32 FMA loop: 2 flops per FMA, TFLOP/s */
    double copy_bytes;    /* bytes moved per copy measurement */
    double dispatch_us;   /* the floor of one timed dispatch: one workgroup copying 4 KiB */
} q4vk_ceilings;
/* Measures them with GPU timestamps (median of `reps`); buffers sized from the
 * device's limits, well past the last-level cache on a real GPU. dispatch_us is what
 * any timed op costs however small, so a small case's share of a ceiling is bounded
 * by bytes / (bytes / copy rate + dispatch_us). */
q4_status q4vk_measure_ceilings(q4vk_context *ctx, int reps, q4vk_ceilings *out, q4_error *err);

#endif
