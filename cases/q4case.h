/* q4case.h: q4cases, the case names, families, seeded inputs and case lists of q4cts.
 *
 * A case is named q4cts.<op>.<family>.<params>[.<values>] (grammar in README.md). The
 * name is the whole description: parsing it gives the op, the family, the shape and
 * the value class of the inputs (default: ordinary), and the
 * name plus a user seed gives bit-identical inputs on any machine. The generated
 * set (every family of every op, README.md lists them) is the superset of
 * mustpass.txt; any other well-formed, in-contract name runs too (custom shapes).
 *
 * This library knows the op contract (q4_contract.h) only: no reference, no GPU.
 * Every failure a user can cause returns Q4_ERR_ARG (Q4_ERR_IO for an unreadable
 * list) with one sentence naming the bad thing; nothing aborts or prints. */
#ifndef Q4CASE_H
#define Q4CASE_H

#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

#define Q4_CASE_NAME_MAX 128
/* The most steps a training case takes: each step's results ride in its report. */
#define Q4_CASE_TRAIN_MAX_STEPS 200

/* The tiles the family rules are defined against (README.md "Tiles"): the upstream
 * tile_aligned case m8_n16_k32 is aligned to all three. A kernel with larger tiles
 * still meets partial tiles in the partial_m, odd_n4 and large families. */
#define Q4_CASE_TILE_M 8
#define Q4_CASE_TILE_N 16
#define Q4_CASE_TILE_K 32

/* Device limits a case of family small_device lowers for itself (README.md "Launcher
 * paths"): the launchers then take the paths of a device that small (grid folding,
 * buffer splitting, the fallback tiles, shared-memory passes) while the results must
 * stay those of the unlowered device. Tokens <key><number> in the params level, keys
 * in this order; 0 = the device's own. Minimums: Vulkan's least (shared 16384,
 * invocations 128), groups 1, binding 16 (the same as q4vk_set_test_limits). */
enum { Q4_LIMIT_GROUPS, Q4_LIMIT_BINDING, Q4_LIMIT_SHARED, Q4_LIMIT_INVOCATIONS, Q4_CASE_LIMITS };

/* The label every masked fused_ce row gets (any negative label is ignored, SPEC §2). */
#define Q4_CASE_IGNORE_INDEX (-100)

struct q4c_op;                     /* an op's descriptor, private to q4cases (cases/ops/<op>.c) */

typedef struct q4_case {
    char name[Q4_CASE_NAME_MAX];   /* canonical: q4cts.<op>.<family>.<params>[.<values>] */
    const char *op;                /* static string, one of q4_case_op(i) */
    /* The op's descriptor, found once by q4_case_parse (so every case of q4_case_all and
     * q4_case_select has it) and used by every step of q4cases after it; NULL in a
     * hand-built case, whose op q4cases then finds by name. q4_case_op_index gives its
     * row for a caller's own per-op table. */
    const struct q4c_op *desc;
    char family[40];
    int64_t m, n, k, gs;           /* linear ops (m = product of lead dims when nlead > 0), dW (no gs), dequantize/requant (n, k, gs) */
    int64_t lead[4]; int nlead;    /* leading dims of the activation (leading_dims family), product = m */
    int bias;                      /* linear_q4gsw only */
    int64_t r, v; int mask_pct;    /* fused_ce: rows, vocabulary, percent of rows masked (100 = all) */
    int64_t numel, step; int wd;   /* adamw_step: elements, step t (>= 1), weight decay on/off;
                                      train: step is the number of steps T */
    /* train (q4cts.train.<model>.<params>, docs/training.md): the model's layers (its
     * family linear<L>), hidden width h (m rows, k input width, v classes, gs as above)
     * and learning rate lr in units of 1e-4 */
    int layers;
    int64_t h, lr;
    char values[24];               /* value class of the inputs; "" = the op's default (ordinary) */
    int64_t sweep;                 /* family random: the s<N> its shape and values are drawn from */
    int64_t limit[Q4_CASE_LIMITS]; /* family small_device: lowered device limits; 0 = the device's */
    uint64_t seed;
} q4_case;

typedef struct q4_inputs {         /* host buffers, malloc'd; fields an op doesn't use stay NULL */
    float *x, *dout, *bias, *scales, *latent, *logits, *param, *grad, *m, *v;
    uint8_t *codes;                /* [N][K], one code 0..15 per byte */
    uint32_t *w4x8;                /* packed from codes, padding words 0x88888888 */
    int32_t *labels;
    float n_valid;                 /* fused_ce: number of unmasked rows, or 1 when all are masked */
    float lr, beta1, beta2, eps, wd, bc1, bc2;   /* adamw_step */
} q4_inputs;

/* ---------------- ops, families, value classes (case_ops.c) ---------------- */
/* The i-th op name (sorted), family or value class of an op, in listing order; NULL
 * past the end or for an unknown op. */
const char *q4_case_op(int i);
const char *q4_case_family(const char *op, int i);
const char *q4_case_values(const char *op, int i);
/* One line saying what a family tests and which rule its names must meet
 * (e.g. "N % 8 != 0: the last W_4X8 block is half padding"); NULL if unknown. */
const char *q4_case_family_doc(const char *op, const char *family);
/* One line saying what a value class puts in the inputs; NULL if unknown. */
const char *q4_case_values_doc(const char *op, const char *values);
/* The index i of c's op (q4_case_op(i) names it), from the op the parser resolved
 * without comparing strings; -1 when c->op names no op. */
int q4_case_op_index(const q4_case *c);

/* ---------------- names (case_name.c) ---------------- */
/* The token key of device limit i (Q4_LIMIT_*): "groups", "binding", "shared",
 * "invocations" (the keys of Q4CTS_TEST_LIMITS); NULL past the end. */
const char *q4_case_limit_key(int i);
/* Whether c lowers any device limit (family small_device). */
int q4_case_has_limits(const q4_case *c);

/* Whether c is a training case (q4cts.train.*, docs/training.md): a small model
 * trained for several steps, not one op; its op is "train", which no op table lists. */
int q4_case_is_train(const q4_case *c);
/* The widths of a training case's layers: w[0] = k (input), w[layers] = v (classes),
 * the hidden ones h; layer l is a linear of N = w[l+1], K = w[l]. Returns layers. */
int q4_case_train_widths(const q4_case *c, int64_t w[5]);
/* Whether a training case's loss trajectory and final codes are judged (value class
 * ordinary); random_labels has nothing to learn, and only its ops are judged. */
int q4_case_train_judges_trajectory(const q4_case *c);

/* Parses a full name; out->name is the canonical form, out->seed = seed. */
q4_status q4_case_parse(const char *name, uint64_t seed, q4_case *out, q4_error *err);
void q4_case_format(const q4_case *c, char *buf, size_t size);   /* canonical name */

/* ---------------- the generated set and selection (caselist.c) ---------------- */
/* Every generated case of every op and family, sorted by name, seed 0; free() the array. */
q4_status q4_case_all(q4_case **out, size_t *count, q4_error *err);

/* Case lists: plain text, one name or glob (fnmatch) per line, '#' comments, blank lines ignored.
   Selects from q4_case_all() every case matching any line; a line that is a full well-formed name
   that matches no generated case is parsed and added (custom shapes). A line that matches nothing
   and is not a well-formed name is an error naming file:line. Lines are printable ASCII of at
   most Q4_CASE_GLOB_MAX bytes (a leading UTF-8 byte-order mark is skipped). */
#define Q4_CASE_GLOB_MAX (2 * Q4_CASE_NAME_MAX)   /* so a message quoting one keeps its reason */
/* A case list is a regular file (a FIFO or a device is refused, never waited on) of at
 * most this size, checked before it is read. */
#define Q4_CASELIST_MAX_BYTES ((size_t)64 << 20)
q4_status q4_caselist_load(const char *path, char ***patterns, size_t *count, q4_error *err);
void q4_caselist_free(char **patterns, size_t count);

/* Selection: includes (globs; none = all), excludes (globs), shard i of n (0-based i; deterministic:
   case index % n == i over the sorted selection, so the shards' union is the whole list). A pattern
   that is a well-formed full name not in the generated set is parsed and run (custom shapes).
   A pattern that matches nothing and is not a well-formed name → Q4_ERR_ARG naming it.
   Every selected case gets `seed`. An exclude that matches nothing is not an error. */
q4_status q4_case_select(const char *const *includes, size_t n_inc, const char *const *excludes,
                         size_t n_exc, int shard_i, int shard_n, uint64_t seed,
                         q4_case **out, size_t *count, q4_error *err);

/* ---------------- inputs (case_inputs.c) ---------------- */
/* Fills *in (zeroed first) with the inputs of c from the seeded generator (README.md
 * "Generator"). On failure every buffer is freed. */
q4_status q4_case_inputs(const q4_case *c, q4_inputs *in, q4_error *err);
void q4_inputs_free(q4_inputs *in);   /* frees every buffer; NULL and double calls are safe */

/* FNV-1a-64 of every buffer of in (in the order of q4_inputs, each element as
 * little-endian bytes) and the scalars: a fingerprint of the inputs that is equal on
 * every machine, for reports and for detecting a change of the generator. */
uint64_t q4_inputs_hash(const q4_case *c, const q4_inputs *in);

/* The generator's stream seed of one tensor of c ("x", "scales", ...), exposed so a
 * test or a user can reproduce a single tensor: splitmix64-mixed
 * FNV-1a-64(c->name) ^ c->seed ^ FNV-1a-64(tensor). */
uint64_t q4_case_stream_seed(const q4_case *c, const char *tensor);

#endif
