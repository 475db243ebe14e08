/* interface.h: interface files (docs/interface-format.md): how to run one op with the
 * SPIR-V of another runtime. Read and checked once (interface_file.c, against each
 * step's module in interface_module.c), then run per case (interface_run.c) through
 * gpu/'s described dispatches, with the op's tensors converted to and from the file's
 * layouts in one place (interface_layout.c). What each op offers a file (its tensors,
 * their roles and layouts, its parameters) is interface_ops.c. */
#ifndef Q4H_INTERFACE_H
#define Q4H_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "interface_expr.h"
#include "op.h"
#include "run_options.h"
#include "wg_images.h"

/* ---------------- what an op offers (interface_ops.c) ---------------- */

typedef enum q4h_layout {
    Q4H_LAYOUT_FP32, Q4H_LAYOUT_INT32, Q4H_LAYOUT_W4X8, Q4H_LAYOUT_FLAT, Q4H_LAYOUT_SCALES,
    Q4H_LAYOUT_COUNT
} q4h_layout;
const char *q4h_layout_name(q4h_layout l);

typedef enum q4h_role { Q4H_ROLE_IN, Q4H_ROLE_IN_OPTIONAL, Q4H_ROLE_OUT, Q4H_ROLE_INOUT } q4h_role;

typedef struct q4h_if_tensor {
    const char *name;          /* the file's name (SPEC §2) */
    q4h_role role;
    unsigned layouts;          /* bit per q4h_layout allowed */
    const char *input;         /* the op's input tensor (op->inputs) holding it, or NULL */
} q4h_if_tensor;

#define Q4H_IF_MAX_TENSORS 6
#define Q4H_IF_MAX_NAMES 12
/* A file's names: the op's, then the activation's leading dims (ops with M), then the
 * device limits (docs/interface-format.md, "Expressions"). */
#define Q4H_IF_MAX_ALL_NAMES 32

typedef struct q4h_if_op {
    const char *op;
    q4h_if_tensor tensors[Q4H_IF_MAX_TENSORS];
    int n_tensors;
    q4h_xname names[Q4H_IF_MAX_NAMES];
    int n_names;
} q4h_if_op;

const q4h_if_op *q4h_if_op_find(const char *op);
/* The ops an interface file may name, ", "-separated, into buf. */
void q4h_if_op_names(char *buf, size_t size);
/* The case's values of op->names, in that order. */
void q4h_if_values(const q4h_if_op *op, const q4_case *c, const q4_inputs *in,
                   q4h_xval values[Q4H_IF_MAX_NAMES]);
/* The name of the output (q4h_outputs) that tensor t in layout l fills. */
const char *q4h_if_output_name(const q4h_if_tensor *t, q4h_layout l);

/* ---------------- a read file ---------------- */

typedef enum q4h_access { Q4H_ACCESS_READ, Q4H_ACCESS_WRITE, Q4H_ACCESS_READ_WRITE } q4h_access;
typedef enum q4h_ftype { Q4H_F_INT, Q4H_F_UINT, Q4H_F_FLOAT, Q4H_F_IVEC4, Q4H_F_UVEC4,
                         Q4H_F_VEC4, Q4H_F_IVEC2, Q4H_F_UVEC2, Q4H_F_VEC2, Q4H_F_IVEC3,
                         Q4H_F_UVEC3, Q4H_F_VEC3 } q4h_ftype;
/* A field type's components (1 to 4), its component type (int, uint or float), and its
 * size and alignment in bytes under std430 and push-constant rules (std140 agrees for
 * these): a vec3 is 12 bytes aligned to 16, a vec2 8 aligned to 8. */
static inline int q4h_ftype_n(q4h_ftype t)
{
    return t <= Q4H_F_FLOAT ? 1 : t <= Q4H_F_VEC4 ? 4 : t <= Q4H_F_VEC2 ? 2 : 3;
}
static inline q4h_ftype q4h_ftype_base(q4h_ftype t)
{
    return t <= Q4H_F_FLOAT ? t : (q4h_ftype)((t - Q4H_F_IVEC4) % 3);
}
static inline uint32_t q4h_ftype_align(q4h_ftype t)
{
    return q4h_ftype_n(t) == 3 ? 16u : 4u * (uint32_t)q4h_ftype_n(t);
}

typedef struct q4h_if_field {
    char key[96];              /* its key path, for messages */
    char name[32];             /* a WGSL struct's member name (SPIR-V: for messages) */
    q4h_ftype type;
    q4h_expr *value[4];        /* 1 for scalars */
    uint32_t offset;
} q4h_if_field;

typedef struct q4h_if_fields {
    q4h_if_field *f;
    int n;
    uint32_t bytes;            /* end of the last field */
} q4h_if_fields;

/* A distinct (tensor, layout, row stride): one buffer per case. */
typedef struct q4h_if_buffer {
    int tensor;                /* index into the op's tensors */
    q4h_layout layout;
    q4h_expr *row_stride;      /* scales and flat; NULL = N floats, ceil(K/2) bytes */
    char stride_text[Q4H_EXPR_MAX_CHARS + 1];
    char key[96];              /* where it was first bound (or bound "optional": false) */
    bool written;
    bool has_padding;          /* "padding" given (else NaN for scales, 0xff for flat) */
    double padding;            /* what fills the padding of each row past its data */
    bool optional;             /* an optional tensor (bias): zeros when the case has none */
    bool required;             /* bound "optional": false: a case without it is NotSupported */
} q4h_if_buffer;

typedef enum q4h_bind_kind { Q4H_BIND_TENSOR, Q4H_BIND_SCRATCH, Q4H_BIND_UNIFORM } q4h_bind_kind;

typedef struct q4h_if_binding {
    q4h_bind_kind kind;
    uint32_t group, binding;   /* WGSL's @group/@binding (a SPIR-V step: 0, its index) */
    int index;                 /* buffer or scratch index */
    q4h_access access;
    q4h_if_fields uniform;
    char key[96];
} q4h_if_binding;

typedef struct q4h_if_spec {
    uint32_t id;
    q4h_ftype type;            /* int, uint or float */
    q4h_expr *value;
    char key[96];
} q4h_if_spec;

/* A WGSL step's pipeline-overridable constant (`override NAME`), set by name through
 * the pipeline's constants map. */
typedef struct q4h_if_override {
    char name[64];
    q4h_ftype type;            /* int, uint or float */
    q4h_expr *value;
    char key[96];
} q4h_if_override;

#define Q4H_IF_MAX_STEPS 8
#define Q4H_IF_MAX_OVERRIDES 8
#define Q4H_IF_MAX_WGSL_BYTES (256u * 1024u)

typedef struct q4h_if_step {
    char name[32];
    char kernel[64];           /* OP.NAME */
    char origin[200];          /* "interface kernel FILE:NAME" ("FILE:OP.NAME" for an op
                                * of a set: two ops may have steps of one name), for
                                * messages */
    char module[512];          /* the module's path as resolved */
    char entry[64];
    uint32_t *words;           /* a SPIR-V step's module */
    size_t n_words;
    char *wgsl;                /* a WGSL step's source (NUL-terminated), else NULL */
    q4h_if_override overrides[Q4H_IF_MAX_OVERRIDES];
    int n_overrides;
    q4h_expr *local[3];
    int n_local_ids;           /* dimensions whose size goes through a constant */
    int64_t local_id[3];       /* its id, or -1: the module's literal */
    q4h_if_spec spec[Q4VK_MAX_SPEC];
    int n_spec;
    q4h_if_fields push;
    /* SPIR-V: bind[b] is binding b; WGSL: in the file's order, each naming its own
     * group and binding */
    q4h_if_binding bind[Q4VK_MAX_BINDINGS];
    int n_bind;
    q4h_expr *groups[3];
    bool fold;
} q4h_if_step;

typedef struct q4h_if_scratch {
    char name[32];
    q4h_expr *bytes;
    char key[64];
} q4h_if_scratch;

#define Q4H_IF_MAX_BUFFERS 12
#define Q4H_IF_MAX_SCRATCH 8

/* A precondition (top-level "requires"): when cond is 0 for a case, the case is
 * NotSupported with `message`. */
typedef struct q4h_if_require {
    q4h_expr *cond;
    char *text;                /* the condition as written (malloc'ed) */
    char message[256];         /* the file's sentence, or "requires TEXT" */
    char key[32];
    bool device;               /* it names a device limit: known only on the device */
} q4h_if_require;

#define Q4H_IF_MAX_REQUIRES 16
/* The ops of one kernel set ("q4cts-interface-set-1"): SPEC §2 has seven. */
#define Q4H_IF_MAX_SET_OPS 32

typedef struct q4h_iface {
    char path[512];
    /* Its place in its file: ops[set_i] of a kernel set of set_n ops (set_n 0: a file of
     * one op), and `at` the start of its key paths in messages: "ops[I]." or "". */
    int set_i, set_n;
    char at[16];
    const q4h_if_op *op;
    q4h_xname names[Q4H_IF_MAX_ALL_NAMES];   /* what its expressions may name */
    int n_names;
    int dims_at;               /* index of "rank" (then d0..d3), or -1: the op has no M */
    int limits_at;             /* index of the first device limit */
    q4h_if_require requires[Q4H_IF_MAX_REQUIRES];
    int n_requires;
    bool wgsl;                 /* its steps are WGSL (--api webgpu), else SPIR-V (vulkan) */
    q4h_if_step steps[Q4H_IF_MAX_STEPS];
    int n_steps;
    q4h_if_scratch scratch[Q4H_IF_MAX_SCRATCH];
    int n_scratch;
    q4h_if_buffer buffers[Q4H_IF_MAX_BUFFERS];
    int n_buffers;
} q4h_iface;

/* Reads and checks the file at path, and every step's module (interface_module.c):
 * one op's description ("q4cts-interface-1"), or a kernel set's ("q4cts-interface-set-1",
 * one description per op in "ops"); *out gets its ops (*n of them, in the file's order;
 * free with q4h_ifaces_free). Any problem is Q4_ERR_ARG "PATH: KEY: sentence", KEY
 * starting "ops[I]." in a set (Q4_ERR_NOMEM for memory). */
q4_status q4h_iface_load(const char *path, q4h_iface ***out, size_t *n, q4_error *err);
/* The same from text already read; `path` names it and anchors relative paths. */
q4_status q4h_iface_parse(const char *path, const char *text, size_t size, q4h_iface ***out,
                          size_t *n, q4_error *err);
void q4h_iface_free(q4h_iface *f);
/* Where f is described, for messages: "PATH", or "PATH (ops[I])" for an op of a set
 * (PATH echoed, q4_echo). */
const char *q4h_iface_where(const q4h_iface *f, char *buf, size_t size);

/* interface_module.c: checks step s against its module's reflection. */
q4_status q4h_iface_check_module(const q4h_iface *f, const q4h_if_step *s, q4_error *err);

/* ---------------- a run's files (interface_cli.c) ---------------- */

/* Loads each path, a one-op file or a kernel set, into the run's ops (*n_out of them,
 * the files' ops in the order given): two descriptions of one op, in one set or in two
 * files, are Q4_ERR_ARG naming both. */
q4_status q4h_ifaces_load(const char *const *paths, size_t n, q4h_iface ***out, size_t *n_out,
                          q4_error *err);
void q4h_ifaces_free(q4h_iface **f, size_t n);
/* For each op described, one line to out: its op, steps and preconditions, and how many of the
 * selected cases (cases, n) of its op they leave out (those naming a device limit are
 * decided on the device, case by case). */
void q4h_ifaces_describe(FILE *out, q4h_iface *const *f, size_t n_ops, const q4_case *cases,
                         size_t n);
/* Every op's steps are of the run's API (WGSL for webgpu, SPIR-V for vulkan);
 * Q4_ERR_ARG naming the file (and the op's place in a set) otherwise. */
q4_status q4h_ifaces_check_api(q4h_iface *const *f, size_t n, bool webgpu, q4_error *err);
/* ov followed by every step's module of f, as overrides (kernel = OP.STEP), for the
 * probes of --shader-coverage and --bounds-check; *out is malloc'ed (the words stay
 * f's). */
q4_status q4h_ifaces_modules(const q4h_override *ov, int n_ov, q4h_iface *const *f, size_t n,
                             q4h_override **out, int *n_out, q4_error *err);

/* ---------------- a case's values, on either API (interface_case.c) ---------------- */

typedef struct q4h_if_case {
    const q4h_iface *f;
    const q4h_op *op;
    const q4_case *c;
    const q4_inputs *in;
    q4h_xval values[Q4H_IF_MAX_ALL_NAMES];
    uint64_t max_bytes;        /* the longest buffer the device can bind */
    q4_error *err;
} q4h_if_case;

/* The case's values (info: the device's limits, lowered by the case's own; NULL: none
 * known, each 0); a case outside the file's preconditions is Q4_ERR_UNSUPPORTED with
 * "FILE: requires[I]: SENTENCE" (an expression that fails: Q4_ERR_ARG naming it);
 * drops from out the outputs the file does not write; a case with
 * a bias and a file without one is Q4_ERR_UNSUPPORTED. max_bytes: the longest buffer
 * the device binds (maxStorageBufferRange, at most maxMemoryAllocationSize; WebGPU's
 * maxStorageBufferBindingSize and maxBufferSize): a buffer whose size the file makes
 * longer (row_stride, a scratch buffer's bytes) is Q4_ERR_UNSUPPORTED before any
 * memory is taken for it. */
q4_status q4h_if_case_start(q4h_if_case *k, const q4h_iface *f, const q4h_op *op,
                            const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                            const q4vk_device_info *info, uint64_t max_bytes, q4_error *err);
/* The values of f's names for case c (in may be NULL: reals 0) on a device with these
 * limits (NULL: 0 each). */
void q4h_if_all_values(const q4h_iface *f, const q4_case *c, const q4_inputs *in,
                       const q4vk_device_info *info, uint64_t max_bytes,
                       q4h_xval values[Q4H_IF_MAX_ALL_NAMES]);
/* Whether case c is outside f's preconditions that name no device limit (*which: the
 * first such, else -1); false also when one cannot be evaluated. */
bool q4h_if_precluded(const q4h_iface *f, const q4_case *c, int *which);
/* k->err gets "FILE: message". */
q4_status q4h_if_fail(const q4h_if_case *k, q4_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* e's value for this case as an integer in [lo, hi]; key names it in errors. */
q4_status q4h_if_eval_int(const q4h_if_case *k, const q4h_expr *e, const char *key, int64_t lo,
                          int64_t hi, int64_t *out);
/* One 32-bit value of type t (a scalar type or a vector's component type) into dst. */
q4_status q4h_if_eval_word(const q4h_if_case *k, const q4h_expr *e, const char *key,
                           q4h_ftype t, void *dst);
/* Every field of fs at its offset in dst (fs->bytes of them). */
q4_status q4h_if_eval_fields(const q4h_if_case *k, const q4h_if_fields *fs, uint8_t *dst);
/* The contents of the file's buffer i for this case (*bytes of them, malloc'ed), or
 * *data NULL for an output that the caller fills with the sentinel (an output with
 * padded rows gets its contents: q4h_layout_blank). */
q4_status q4h_if_buffer_data(const q4h_if_case *k, int i, q4h_outputs *out, void **data,
                             size_t *bytes);
/* Bytes of scratch buffer i (rounded up to 4). */
q4_status q4h_if_scratch_bytes(const q4h_if_case *k, int i, size_t *bytes);
/* The output (of out) that the file's buffer i fills, or NULL. */
q4h_output *q4h_if_output_of(const q4h_iface *f, int buffer, q4h_outputs *out);

/* ---------------- running a case on Vulkan (interface_run.c) ---------------- */

/* The file of run options for op, or NULL. */
const q4h_iface *q4h_iface_for(const q4h_run_options *opt, const char *op);
/* One judged GPU run of case c through f, filling out's results as op->read would. */
q4_status q4h_iface_gpu_run(q4vk_context *ctx, const q4h_iface *f, const q4h_op *op,
                            const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                            q4vk_timing *t, q4_error *err);

/* ---------------- running a case on WebGPU (interface_webgpu.c) ---------------- */

/* Case c of WGSL interface file f as the worker runs it: im gets the file's tensor
 * buffers (outputs returned), scratch and uniform buffers, *iface the run message's
 * "interface" member. max_groups: the adapter's maxComputeWorkgroupsPerDimension (a
 * grid beyond it, folded where the step allows, is Q4_ERR_UNSUPPORTED naming the
 * step); max_bytes: the longest buffer it binds (a buffer the file makes longer is
 * Q4_ERR_UNSUPPORTED before it is allocated). out: the truth, from which the outputs
 * the file does not write are dropped. info: the adapter's limits, for the file's
 * preconditions and device-limit names. */
q4_status q4h_iface_wg_case(const q4h_iface *f, const q4h_op *op, const q4_case *c,
                            const q4_inputs *in, q4h_outputs *out,
                            const q4vk_device_info *info, uint32_t max_groups,
                            uint64_t max_bytes, q4h_wg_images *im, json_object **iface,
                            q4_error *err);
/* The outputs read back from b (the returned images, in im's order; those not
 * returned hold NULL), with guard and padding checks. */
q4_status q4h_iface_wg_read(const q4h_iface *f, const q4_case *c,
                            const struct q4h_host_buffer *b, q4h_outputs *out, q4_error *err);
/* The check message of f (docs/interface-format.md, "What is checked"), or NULL
 * without memory. */
json_object *q4h_iface_wg_check(const q4h_iface *f);

/* ---------------- layouts (interface_layout.c) ---------------- */

/* Bytes of a buffer in layout l for case c: `count` elements for fp32 and int32,
 * `stride` floats per row of scales (>= N), `stride` bytes per row of flat (>=
 * ceil(K/2)). */
size_t q4h_layout_bytes(q4h_layout l, const q4_case *c, int64_t count, int64_t stride);
/* The contents of a buffer in layout l (`bytes` of them) made from the op's input
 * tensor t: malloc'ed into *data. The padding of each row past its data (scales:
 * floats N .. stride-1; flat: bytes ceil(K/2) .. stride-1) holds `padding` (a float;
 * a byte value for flat). */
q4_status q4h_layout_from(q4h_layout l, const q4h_tensor *t, const q4_case *c, int64_t stride,
                          double padding, size_t bytes, void **data, q4_error *err);
/* What fills the padding of file buffer b's rows: its "padding", else 0xff (flat) or
 * NaN (scales). */
double q4h_if_buffer_padding(const q4h_if_buffer *b);
/* The contents of file buffer b, an output, before the run (`bytes` of them, rows of
 * `stride`): *data NULL where the sentinel fills it all (the caller's q4h_buffer or
 * image does), else malloc'ed: the sentinel with each row's padding (a flat weight
 * with padded rows) holding q4h_if_buffer_padding, so that a kernel that writes the
 * padding shows in its readback. */
q4_status q4h_layout_blank(const q4h_if_buffer *b, const q4_case *c, int64_t stride,
                           size_t bytes, void **data, q4_error *err);
/* Reads output o from buf, file f's buffer `buffer` of `bytes` bytes (values, guard
 * and padding checks; a flat weight's padded rows compacted, their padding unchanged). */
q4_status q4h_layout_read(q4vk_context *ctx, q4vk_buffer *buf, const q4h_iface *f, int buffer,
                          size_t bytes, const q4_case *c, q4h_output *o, q4_error *err);
/* The same from a buffer's bytes on the host (the WebGPU worker returns them). */
struct q4h_host_buffer;
q4_status q4h_layout_read_host(const struct q4h_host_buffer *b, const q4h_iface *f, int buffer,
                               const q4_case *c, q4h_output *o, q4_error *err);

/* ---------------- `q4cts kernels --interface NAME` (interface_builtin.c) ---------------- */

/* Writes the interface file of built-in kernel `name` to f; Q4_ERR_ARG naming the
 * kernels that have one when it has none. */
q4_status q4h_iface_print_builtin(const char *name, FILE *f, q4_error *err);

#endif
