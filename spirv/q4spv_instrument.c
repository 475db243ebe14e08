/* q4spv_instrument.c: the probe pass over the SPIR-V word stream (q4spv_instrument.h).
 *
 * The module is rewritten in one walk: the preamble and annotations are copied with
 * the probe buffer's decorations appended, the global section gets the pass's types,
 * constants and variable, and every function is copied block by block with probes
 * inserted (block entry after its OpPhi/OpVariable/OpLine head; branch edge before
 * the merge instruction; bounds check before each load, store and atomic). The functions are written
 * into a buffer of their own first, because the constants they need are only known
 * once they are written, and constants must come before any function. */
#include "q4spv_instrument.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "q4spv_module.h"

typedef struct words {
    uint32_t *w;
    size_t n, cap;
    int nomem;
} words;

static void put(words *b, uint32_t w)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        uint32_t *grown = realloc(b->w, cap * sizeof *grown);
        if (!grown) {
            b->nomem = 1;
            return;
        }
        b->w = grown;
        b->cap = cap;
    }
    b->w[b->n++] = w;
}

/* One instruction: opcode and `n` operand words. */
static void inst(words *b, uint32_t opcode, int n, ...)
{
    va_list ap;
    put(b, ((uint32_t)(n + 1) << 16) | opcode);
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        put(b, va_arg(ap, uint32_t));
    va_end(ap);
}

static void copy_inst(words *b, const q4spv_module *m, size_t k)
{
    for (uint32_t i = 0; i < m->insts[k].count; i++)
        put(b, q4spv_word(m, k, i));
}

/* A growable array of T, for the map's tables. */
#define GROW(arr, n, cap, nomem)                                                      \
    do {                                                                              \
        if ((n) == (cap)) {                                                           \
            size_t c_ = (cap) ? 2 * (cap) : 64;                                       \
            void *g_ = realloc((arr), c_ * sizeof *(arr));                            \
            if (!g_) {                                                                \
                (nomem) = 1;                                                          \
                break;                                                                \
            }                                                                         \
            (arr) = g_;                                                               \
            (cap) = c_;                                                               \
        }                                                                             \
        (n)++;                                                                        \
    } while (0)

/* A count of shared-memory words: a constant, or the id of a specialisation
 * constant (a kernel's array sized by constant_id). */
typedef struct wsz {
    bool k;
    uint32_t v;        /* the value (k) or the id */
} wsz;

typedef struct pass {
    const q4spv_module *m;
    const q4spv_options *opt;
    q4spv_map *map;
    int nomem;
    uint32_t next_id;
    uint32_t storage;          /* StorageBuffer, or Uniform (+BufferBlock) before SPIR-V 1.3 */
    uint32_t scope;            /* of the bounds atomics: Device, or QueueFamily under the
                                  Vulkan memory model (Device would need a capability,
                                  VulkanMemoryModelDeviceScope, the module may not have) */
    /* ids: existing or new (new_* says which must be declared) */
    uint32_t t_uint, t_bool, t_void, t_fn;
    bool new_uint, new_bool, new_void, new_fn;
    uint32_t t_rtarr, t_struct, t_ptr_struct, t_ptr_uint, var, fn_check;
    /* uint constants the probes use: value -> id */
    uint32_t *const_val, *const_id;
    size_t n_const, cap_const;
    /* race checks (emitted only when the module has Workgroup variables) */
    bool race;
    uint32_t t_ptr_priv, t_ptr_wg, t_ptr_in, t_fn0, t_fn_race;
    bool new_fn0, new_fn_race, new_lii;
    uint32_t v_inv, v_ep1, v_pos, v_base, v_slot, v_wgslot, v_lii, lii_type;
    uint32_t fn_race, fn_enter, fn_leave;
    uint32_t *entry_fns;
    size_t n_entry_fns;
    uint32_t *shared_fns;      /* the functions that access shared memory, themselves
                                  or through a call (shared_functions) */
    size_t n_shared_fns, cap_shared_fns;
    uint32_t *wg_ids;          /* the Workgroup variables, map->race_vars order */
    struct wsz *wg_base;       /* each one's first word */
    uint32_t (*specops)[4];    /* OpSpecConstantOp: id, opcode, a, b */
    size_t n_specops, cap_specops;
    size_t cap_race_sites;
    uint32_t cur_fn;           /* the function being copied */
    /* map tables */
    size_t cap_pos, cap_files, cap_sites;
    uint32_t *file_ids;        /* the OpString id of each map->files entry */
} pass;

static uint32_t new_id(pass *p) { return p->next_id++; }

static uint32_t konst(pass *p, uint32_t value)
{
    for (size_t i = 0; i < p->n_const; i++)
        if (p->const_val[i] == value)
            return p->const_id[i];
    if (p->n_const == p->cap_const) {
        size_t cap = p->cap_const ? 2 * p->cap_const : 256;
        uint32_t *v = realloc(p->const_val, cap * sizeof *v);
        if (v)
            p->const_val = v;
        uint32_t *id = realloc(p->const_id, cap * sizeof *id);
        if (id)
            p->const_id = id;
        if (!v || !id) {
            p->nomem = 1;
            return 0;
        }
        p->cap_const = cap;
    }
    p->const_val[p->n_const] = value;
    p->const_id[p->n_const] = new_id(p);
    return p->const_id[p->n_const++];
}

/* The map->files index of OpString id `file`, added on first use. */
static uint32_t file_index(pass *p, uint32_t file)
{
    q4spv_map *map = p->map;
    for (uint32_t i = 0; i < map->n_files; i++)
        if (p->file_ids[i] == file)
            return i;
    char name[4096] = "";
    const q4spv_inst *s = q4spv_def(p->m, file);
    if (s && s->opcode == SpvOpString)
        q4spv_string(p->m, (size_t)(s - p->m->insts), 2, name, sizeof name);
    if (map->n_files == p->cap_files) {
        size_t cap = p->cap_files ? 2 * p->cap_files : 8;
        char **f = realloc(map->files, cap * sizeof *f);
        if (f)
            map->files = f;
        uint32_t *ids = realloc(p->file_ids, cap * sizeof *ids);
        if (ids)
            p->file_ids = ids;
        if (!f || !ids) {
            p->nomem = 1;
            return 0;
        }
        p->cap_files = cap;
    }
    map->files[map->n_files] = strdup(name);
    p->file_ids[map->n_files] = file;
    if (!map->files[map->n_files])
        p->nomem = 1;
    return map->n_files++;
}

static void add_pos(pass *p, q4spv_block *b, q4spv_pos at)
{
    q4spv_map *map = p->map;
    if (b->n_pos && map->pos[map->n_pos - 1].file == at.file &&
        map->pos[map->n_pos - 1].line == at.line)
        return;
    size_t n = map->n_pos;
    GROW(map->pos, n, p->cap_pos, p->nomem);
    if (p->nomem)
        return;
    map->pos[map->n_pos++] = at;
    b->n_pos++;
}

/* Finds the module's type with these words (opcode and operands after the result
 * id), or 0. For the types SPIR-V allows only once. */
static uint32_t find_type(const q4spv_module *m, uint32_t opcode, const uint32_t *ops, int n)
{
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *in = &m->insts[k];
        if (in->opcode == SpvOpFunction)
            break;
        if (in->opcode != opcode || in->count != (uint32_t)n + 2)
            continue;
        if (!n || !memcmp(m->words + in->offset + 2, ops, (size_t)n * sizeof *ops))
            return m->words[in->offset + 1];
    }
    return 0;
}

static uint32_t ptr_access(pass *p, words *b, uint32_t slot_id)
{
    uint32_t ptr = new_id(p);
    inst(b, SpvOpAccessChain, 5, p->t_ptr_uint, ptr, p->var, konst(p, 0), slot_id);
    return ptr;
}

/* ---- bounds checks ---- */

/* Bytes a load of type t reads (0: not known). */
static uint32_t type_bytes(const q4spv_module *m, uint32_t t, int depth)
{
    const q4spv_inst *in = q4spv_def(m, t);
    uint32_t v;
    if (!in || depth > 8)
        return 0;
    const uint32_t *w = m->words + in->offset;
    switch (in->opcode) {
    case SpvOpTypeInt:
    case SpvOpTypeFloat: return w[2] / 8;
    case SpvOpTypeVector: return w[3] * type_bytes(m, w[2], depth + 1);
    case SpvOpTypeArray:
        if (q4spv_decoration(m, t, Q4SPV_NO_ID, SpvDecorationArrayStride, &v) &&
            q4spv_const_u32(m, w[3], &t))
            return v * t;
        return 0;
    case SpvOpTypeStruct: {
        uint32_t end = 0;
        for (uint32_t i = 0; i + 2 < in->count; i++) {
            uint32_t off, sz = type_bytes(m, w[2 + i], depth + 1);
            if (!sz || !q4spv_decoration(m, t, i, SpvDecorationOffset, &off))
                return 0;
            if (off + sz > end)
                end = off + sz;
        }
        return end;
    }
    default: return 0;
    }
}

typedef struct term {
    uint32_t id, stride;
} term;

#define MAX_TERMS 16

/* The memory access instruction k makes: its pointer, the type of the value it
 * moves, and its kind. False for any other instruction. */
static bool access_of(const q4spv_module *m, size_t k, uint32_t *ptr, uint32_t *type,
                      q4spv_access *access)
{
    const q4spv_inst *value;
    switch (m->insts[k].opcode) {
    case SpvOpLoad:
        *access = Q4SPV_LOAD;
        break;
    case SpvOpStore:
        *access = Q4SPV_STORE;
        *ptr = q4spv_word(m, k, 1);
        value = q4spv_def(m, q4spv_word(m, k, 2));
        *type = value ? value->type_id : 0;
        return true;
    case SpvOpAtomicStore:
        *access = Q4SPV_ATOMIC;
        *ptr = q4spv_word(m, k, 1);
        value = q4spv_def(m, q4spv_word(m, k, 4));
        *type = value ? value->type_id : 0;
        return true;
    case SpvOpAtomicLoad: case SpvOpAtomicExchange: case SpvOpAtomicCompareExchange:
    case SpvOpAtomicCompareExchangeWeak: case SpvOpAtomicIIncrement:
    case SpvOpAtomicIDecrement: case SpvOpAtomicIAdd: case SpvOpAtomicISub:
    case SpvOpAtomicSMin: case SpvOpAtomicUMin: case SpvOpAtomicSMax: case SpvOpAtomicUMax:
    case SpvOpAtomicAnd: case SpvOpAtomicOr: case SpvOpAtomicXor: case SpvOpAtomicFAddEXT:
    case SpvOpAtomicFMinEXT: case SpvOpAtomicFMaxEXT:
        *access = Q4SPV_ATOMIC;
        break;
    default:
        return false;
    }
    *ptr = q4spv_word(m, k, 3);
    *type = q4spv_word(m, k, 1);
    return true;
}

/* If `ptr` of the access at k points into a set-0 storage buffer through access
 * chains this pass understands, emits its check into b and records the site; else
 * counts it unchecked. `type` is the type of the value moved. */
static void check_access(pass *p, words *b, uint32_t ptr, uint32_t type, q4spv_access access,
                         q4spv_pos at)
{
    const q4spv_module *m = p->m;
    uint32_t idx[MAX_TERMS * 2];
    int n_idx = 0;
    const q4spv_inst *d = q4spv_def(m, ptr);

    /* Root variable and the full index list, outermost chain first. */
    uint32_t stack[8];
    int depth = 0;
    while (d && (d->opcode == SpvOpAccessChain || d->opcode == SpvOpInBoundsAccessChain)) {
        if (depth == 8)
            return;
        stack[depth++] = (uint32_t)(d - m->insts);
        d = q4spv_def(m, m->words[d->offset + 3]);
    }
    if (!d || d->opcode != SpvOpVariable)
        return; /* not a buffer access (or one through a pointer we do not follow) */
    uint32_t sc = m->words[d->offset + 3], var = d->result_id;
    if (sc != SpvStorageClassStorageBuffer && sc != SpvStorageClassUniform)
        return;
    uint32_t set, binding;
    if (!q4spv_decoration(m, var, Q4SPV_NO_ID, SpvDecorationDescriptorSet, &set) || set != 0 ||
        !q4spv_decoration(m, var, Q4SPV_NO_ID, SpvDecorationBinding, &binding))
        return;
    const q4spv_inst *pt = q4spv_def(m, d->type_id);
    uint32_t t = pt ? m->words[pt->offset + 3] : 0;
    if (sc == SpvStorageClassUniform &&
        !q4spv_decoration(m, t, Q4SPV_NO_ID, SpvDecorationBufferBlock, NULL))
        return; /* a uniform buffer, not a storage buffer */
    for (int i = depth - 1; i >= 0; i--) {
        const q4spv_inst *c = &m->insts[stack[i]];
        for (uint32_t j = 4; j < c->count; j++) {
            if (n_idx == MAX_TERMS * 2) {
                p->map->unchecked++;
                return;
            }
            idx[n_idx++] = m->words[c->offset + j];
        }
    }

    uint32_t offset = 0, v;
    term terms[MAX_TERMS];
    int n_terms = 0;
    for (int i = 0; i < n_idx; i++) {
        const q4spv_inst *ti = q4spv_def(m, t);
        uint32_t stride;
        if (!ti)
            goto unchecked;
        const uint32_t *tw = m->words + ti->offset;
        if (ti->opcode == SpvOpTypeStruct) {
            if (!q4spv_const_u32(m, idx[i], &v) || v + 2 >= ti->count ||
                !q4spv_decoration(m, t, v, SpvDecorationOffset, &stride))
                goto unchecked;
            offset += stride;
            t = tw[2 + v];
            continue;
        }
        if (ti->opcode == SpvOpTypeArray || ti->opcode == SpvOpTypeRuntimeArray) {
            if (!q4spv_decoration(m, t, Q4SPV_NO_ID, SpvDecorationArrayStride, &stride))
                goto unchecked;
        } else if (ti->opcode == SpvOpTypeVector) {
            stride = type_bytes(m, tw[2], 0);
        } else {
            goto unchecked; /* matrices (row/column major) are not followed */
        }
        t = tw[2];
        if (q4spv_const_u32(m, idx[i], &v)) {
            offset += v * stride;
            continue;
        }
        const q4spv_inst *di = q4spv_def(m, idx[i]);
        const q4spv_inst *it = di ? q4spv_def(m, di->type_id) : NULL;
        if (!it || it->opcode != SpvOpTypeInt || m->words[it->offset + 2] != 32 ||
            n_terms == MAX_TERMS || !stride)
            goto unchecked;
        terms[n_terms++] = (term){ idx[i], stride };
    }
    uint32_t bytes = type_bytes(m, type, 0);
    if (!bytes || binding >= Q4SPV_MAX_BINDINGS)
        goto unchecked;

    /* off = offset + sum(id * stride); end = off + bytes. */
    uint32_t off = konst(p, offset);
    for (int i = 0; i < n_terms; i++) {
        uint32_t prod = terms[i].id;
        if (terms[i].stride != 1) {
            prod = new_id(p);
            inst(b, SpvOpIMul, 4, p->t_uint, prod, terms[i].id, konst(p, terms[i].stride));
        }
        uint32_t sum = new_id(p);
        inst(b, SpvOpIAdd, 4, p->t_uint, sum, off, prod);
        off = sum;
    }
    uint32_t end = new_id(p);
    inst(b, SpvOpIAdd, 4, p->t_uint, end, off, konst(p, bytes));
    q4spv_map *map = p->map;
    uint32_t site = map->n_sites;
    size_t n = map->n_sites;
    GROW(map->sites, n, p->cap_sites, p->nomem);
    if (p->nomem)
        return;
    map->sites[map->n_sites++] = (q4spv_site){ binding, bytes, access, at };
    inst(b, SpvOpFunctionCall, 7, p->t_void, new_id(p), p->fn_check,
         konst(p, q4spv_site_slot(map, site)), konst(p, map->limit_base + binding), end, off);
    return;
unchecked:
    p->map->unchecked++;
}

/* The check function: if end > limit (or the sum wrapped), atomic-min off into the
 * site's first word and count the access in its second. */
static void emit_check_fn(pass *p, words *b)
{
    uint32_t site = new_id(p), lim_slot = new_id(p), end = new_id(p), off = new_id(p);
    uint32_t l0 = new_id(p), l1 = new_id(p), l2 = new_id(p);
    uint32_t lim = new_id(p), past = new_id(p), wrap = new_id(p), bad = new_id(p);
    uint32_t count = new_id(p);
    inst(b, SpvOpFunction, 4, p->t_void, p->fn_check, SpvFunctionControlMaskNone, p->t_fn);
    inst(b, SpvOpFunctionParameter, 2, p->t_uint, site);
    inst(b, SpvOpFunctionParameter, 2, p->t_uint, lim_slot);
    inst(b, SpvOpFunctionParameter, 2, p->t_uint, end);
    inst(b, SpvOpFunctionParameter, 2, p->t_uint, off);
    inst(b, SpvOpLabel, 1, l0);
    inst(b, SpvOpLoad, 3, p->t_uint, lim, ptr_access(p, b, lim_slot));
    inst(b, SpvOpUGreaterThan, 4, p->t_bool, past, end, lim);
    inst(b, SpvOpULessThan, 4, p->t_bool, wrap, end, off);
    inst(b, SpvOpLogicalOr, 4, p->t_bool, bad, past, wrap);
    inst(b, SpvOpSelectionMerge, 2, l2, SpvSelectionControlMaskNone);
    inst(b, SpvOpBranchConditional, 3, bad, l1, l2);
    inst(b, SpvOpLabel, 1, l1);
    inst(b, SpvOpAtomicUMin, 6, p->t_uint, new_id(p), ptr_access(p, b, site),
         konst(p, p->scope), konst(p, SpvMemorySemanticsMaskNone), off);
    inst(b, SpvOpIAdd, 4, p->t_uint, count, site, konst(p, 1));
    inst(b, SpvOpAtomicIAdd, 6, p->t_uint, new_id(p), ptr_access(p, b, count),
         konst(p, p->scope), konst(p, SpvMemorySemanticsMaskNone), konst(p, 1));
    inst(b, SpvOpBranch, 1, l2);
    inst(b, SpvOpLabel, 1, l2);
    inst(b, SpvOpReturn, 0);
    inst(b, SpvOpFunctionEnd, 0);
}


/* ---- race checks (docs/race-check.md) ----
 *
 * Every Workgroup variable gets a shadow: Q4SPV_RACE_RECORD uint32 words per shared
 * word in a region of the probe buffer that the workgroup claims at entry (fn_enter:
 * invocation 0 takes a free slot, every invocation clears part of it, two barriers)
 * and frees when its last invocation returns (fn_leave). Each invocation keeps in
 * Private variables its gl_LocalInvocationIndex, its barrier epoch + 1 (bumped after
 * every OpControlBarrier of Workgroup execution scope with WorkgroupMemory semantics)
 * and its position (shared accesses since that barrier). A shadow record holds, per
 * class of access (read, write, atomic write, atomic read), the largest
 * (epoch+1) << 11 | invocation and (epoch+1) << 11 | (2047 - invocation) seen: since
 * every access of epoch e precedes, through a barrier, every access of epoch e+1, the
 * record holds the current epoch's largest and smallest invocation of the class. An
 * access records its own class and then reads the classes it conflicts with, all by
 * read-modify-writes on the one record, so of two conflicting accesses the later one
 * sees the earlier: the finding does not depend on the interleaving, only on which
 * accesses share an epoch. Every probe is branch-free (an access outside the shadow
 * works on a scratch record) and loop-free (one call per word). Words 8 and 9 hold the
 * site and position of the last write and read. */

/* The race part of the probe buffer: 4 header words, a scratch record and a scratch
 * report (what an access outside the shadow or without a finding works on), then one
 * report per site. */
#define RACE_HEAD (4u + Q4SPV_RACE_RECORD + Q4SPV_RACE_REPORT)
/* Relaxed atomics: Mesa 22.3's lavapipe breaks a kernel whose divergent code (a probe
 * under an if or in a loop of varying trips) holds an acquire-release atomic (results
 * change; docs/race-check.md). A workgroup there runs on one thread, so its probes are
 * ordered anyway; on a GPU, relaxed read-modify-writes of one record word are still
 * totally ordered (coherence). */
#define RACE_SEM 0x0u
#define RACE_SEM_FAIL 0x0u

static wsz wk(uint32_t v) { return (wsz){ true, v }; }

static uint32_t wsz_id(pass *p, wsz a) { return a.k ? konst(p, a.v) : a.v; }

static wsz wsz_op(pass *p, uint32_t op, wsz a, wsz b)
{
    if (a.k && b.k)
        return wk(op == SpvOpIAdd ? a.v + b.v : a.v * b.v);
    if (op == SpvOpIMul && ((a.k && a.v == 1) || (b.k && b.v == 1)))
        return a.k ? b : a;
    if (op == SpvOpIAdd && ((a.k && a.v == 0) || (b.k && b.v == 0)))
        return a.k ? b : a;
    uint32_t ia = wsz_id(p, a), ib = wsz_id(p, b);
    if (p->n_specops == p->cap_specops) {
        size_t cap = p->cap_specops ? 2 * p->cap_specops : 16;
        void *g = realloc(p->specops, cap * sizeof *p->specops);
        if (!g) {
            p->nomem = 1;
            return wk(0);
        }
        p->specops = g;
        p->cap_specops = cap;
    }
    uint32_t id = new_id(p);
    p->specops[p->n_specops][0] = id;
    p->specops[p->n_specops][1] = op;
    p->specops[p->n_specops][2] = ia;
    p->specops[p->n_specops][3] = ib;
    p->n_specops++;
    return (wsz){ false, id };
}

/* Shared words of a value of type t (32-bit words; smaller scalars take one). */
static bool type_words(pass *p, uint32_t t, wsz *out, int depth)
{
    const q4spv_module *m = p->m;
    const q4spv_inst *in = q4spv_def(m, t);
    if (!in || depth > 8)
        return false;
    const uint32_t *w = m->words + in->offset;
    wsz e;
    uint32_t v;
    switch (in->opcode) {
    case SpvOpTypeInt: case SpvOpTypeFloat:
        *out = wk(w[2] > 32 ? (w[2] + 31) / 32 : 1);
        return true;
    case SpvOpTypeBool:
        *out = wk(1);
        return true;
    case SpvOpTypeVector: case SpvOpTypeMatrix:
        if (!type_words(p, w[2], &e, depth + 1))
            return false;
        *out = wsz_op(p, SpvOpIMul, e, wk(w[3]));
        return true;
    case SpvOpTypeArray: {
        if (!type_words(p, w[2], &e, depth + 1))
            return false;
        if (q4spv_const_u32(m, w[3], &v)) {
            *out = wsz_op(p, SpvOpIMul, e, wk(v));
            return true;
        }
        const q4spv_inst *len = q4spv_def(m, w[3]);
        const q4spv_inst *lt = len ? q4spv_def(m, len->type_id) : NULL;
        if (!len || !lt || lt->opcode != SpvOpTypeInt || m->words[lt->offset + 2] != 32 ||
            (len->opcode != SpvOpSpecConstant && len->opcode != SpvOpSpecConstantOp))
            return false;
        *out = wsz_op(p, SpvOpIMul, e, (wsz){ false, w[3] });
        return true;
    }
    case SpvOpTypeStruct: {
        wsz sum = wk(0);
        for (uint32_t i = 0; i + 2 < in->count; i++) {
            if (!type_words(p, w[2 + i], &e, depth + 1))
                return false;
            sum = wsz_op(p, SpvOpIAdd, sum, e);
        }
        *out = sum;
        return true;
    }
    default:
        return false;
    }
}

/* The Workgroup variables, their names and first words; whether any can be shadowed. */
static bool race_plan(pass *p)
{
    const q4spv_module *m = p->m;
    q4spv_map *map = p->map;
    size_t n = 0;
    for (size_t k = 0; k < m->n_insts; k++)
        if (m->insts[k].opcode == SpvOpVariable && q4spv_word(m, k, 3) == SpvStorageClassWorkgroup)
            n++;
    if (!n)
        return false;
    /* A module with cooperative matrices is left whole: on the H200 the probed
     * tensor-core forward computed NaN (docs/race-check.md), and its fragments through
     * shared memory are not followed anyway. Every shared access counts unchecked. */
    for (size_t k = 0; k < m->n_insts; k++)
        if (m->insts[k].opcode == SpvOpCapability &&
            (q4spv_word(m, k, 1) == SpvCapabilityCooperativeMatrixNV ||
             q4spv_word(m, k, 1) == 6022u /* CooperativeMatrixKHR */)) {
            map->race_unchecked += n;
            return false;
        }
    p->wg_ids = calloc(n, sizeof *p->wg_ids);
    p->wg_base = calloc(n, sizeof *p->wg_base);
    map->race_vars = calloc(n, sizeof *map->race_vars);
    if (!p->wg_ids || !p->wg_base || !map->race_vars) {
        p->nomem = 1;
        return false;
    }
    wsz at = wk(0);
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *in = &m->insts[k];
        if (in->opcode != SpvOpVariable || q4spv_word(m, k, 3) != SpvStorageClassWorkgroup)
            continue;
        const q4spv_inst *pt = q4spv_def(m, in->type_id);
        wsz words;
        if (!pt || !type_words(p, m->words[pt->offset + 3], &words, 0))
            continue;   /* its accesses are counted unchecked */
        const char *name = q4spv_name(m, in->result_id);
        uint32_t i = map->n_race_vars++;
        map->race_vars[i] = strdup(name ? name : "");
        if (!map->race_vars[i])
            p->nomem = 1;
        p->wg_ids[i] = in->result_id;
        p->wg_base[i] = at;
        at = wsz_op(p, SpvOpIAdd, at, words);
    }
    map->race_words = at.k ? at.v : 0;
    if (!map->n_race_vars)
        return false;
    /* gl_LocalInvocationIndex: the module's own, else one added */
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *in = &m->insts[k];
        if (in->opcode == SpvOpDecorate && q4spv_word(m, k, 2) == SpvDecorationBuiltIn &&
            q4spv_word(m, k, 3) == SpvBuiltInLocalInvocationIndex) {
            uint32_t var = q4spv_word(m, k, 1);
            const q4spv_inst *d = q4spv_def(m, var);
            const q4spv_inst *pt = d ? q4spv_def(m, d->type_id) : NULL;
            if (d && d->opcode == SpvOpVariable && pt) {
                p->v_lii = var;
                p->lii_type = m->words[pt->offset + 3];
            }
        }
        if (in->opcode == SpvOpEntryPoint && q4spv_word(m, k, 1) == SpvExecutionModelGLCompute) {
            void *g = realloc(p->entry_fns, (p->n_entry_fns + 1) * sizeof *p->entry_fns);
            if (!g) {
                p->nomem = 1;
                return false;
            }
            p->entry_fns = g;
            p->entry_fns[p->n_entry_fns++] = q4spv_word(m, k, 2);
        }
    }
    return true;
}

static void race_ids(pass *p)
{
    if ((p->new_lii = !p->v_lii)) {
        p->v_lii = new_id(p);
        p->t_ptr_in = new_id(p);
        p->lii_type = p->t_uint;
    }
    p->t_ptr_priv = new_id(p);
    p->t_ptr_wg = new_id(p);
    p->v_inv = new_id(p);
    p->v_ep1 = new_id(p);
    p->v_pos = new_id(p);
    p->v_base = new_id(p);
    p->v_slot = new_id(p);
    p->v_wgslot = new_id(p);
    p->fn_race = new_id(p);
    p->fn_enter = new_id(p);
    p->fn_leave = new_id(p);
    uint32_t ops0[1] = { p->t_void };
    p->t_fn0 = find_type(p->m, SpvOpTypeFunction, ops0, 1);
    if ((p->new_fn0 = !p->t_fn0))
        p->t_fn0 = new_id(p);
    uint32_t ops7[8] = { p->t_void, p->t_uint, p->t_uint, p->t_uint, p->t_uint, p->t_uint,
                         p->t_uint, p->t_uint };
    p->t_fn_race = find_type(p->m, SpvOpTypeFunction, ops7, 8);
    if ((p->new_fn_race = !p->t_fn_race))
        p->t_fn_race = new_id(p);
}

static bool is_entry_fn(const pass *p, uint32_t fn)
{
    for (size_t i = 0; i < p->n_entry_fns; i++)
        if (p->entry_fns[i] == fn)
            return true;
    return false;
}

/* Emission helpers: one result of type t_uint or t_bool. */
static uint32_t op2(pass *p, words *b, uint32_t opcode, uint32_t type, uint32_t a, uint32_t c)
{
    uint32_t r = new_id(p);
    inst(b, opcode, 4, type, r, a, c);
    return r;
}

static uint32_t sel(pass *p, words *b, uint32_t type, uint32_t cond, uint32_t a, uint32_t c)
{
    uint32_t r = new_id(p);
    inst(b, SpvOpSelect, 5, type, r, cond, a, c);
    return r;
}

static uint32_t ld(pass *p, words *b, uint32_t type, uint32_t ptr)
{
    uint32_t r = new_id(p);
    inst(b, SpvOpLoad, 3, type, r, ptr);
    return r;
}

/* A read-modify-write on probe word `slot` (an id), acquire-release. */
static uint32_t rmw(pass *p, words *b, uint32_t opcode, uint32_t slot, uint32_t value)
{
    uint32_t r = new_id(p);
    inst(b, opcode, 6, p->t_uint, r, ptr_access(p, b, slot), konst(p, p->scope),
         konst(p, RACE_SEM), value);
    return r;
}

static uint32_t cas(pass *p, words *b, uint32_t slot, uint32_t value, uint32_t comparator)
{
    uint32_t r = new_id(p);
    inst(b, SpvOpAtomicCompareExchange, 8, p->t_uint, r, ptr_access(p, b, slot),
         konst(p, p->scope), konst(p, RACE_SEM), konst(p, RACE_SEM_FAIL), value, comparator);
    return r;
}

static uint32_t hdr(pass *p, words *b, uint32_t i)
{
    return ld(p, b, p->t_uint, ptr_access(p, b, konst(p, p->map->race_base + i)));
}

static void barrier_wg(pass *p, words *b, uint32_t semantics)
{
    inst(b, SpvOpControlBarrier, 3, konst(p, SpvScopeWorkgroup), konst(p, SpvScopeWorkgroup),
         konst(p, semantics));
}

/* Whether pointer id `ptr` points into Workgroup (shared) memory. */
static bool points_to_shared(const q4spv_module *m, uint32_t ptr)
{
    const q4spv_inst *d = q4spv_def(m, ptr);
    const q4spv_inst *pt = d ? q4spv_def(m, d->type_id) : NULL;
    return pt && pt->opcode == SpvOpTypePointer &&
           m->words[pt->offset + 2] == SpvStorageClassWorkgroup;
}

/* The race probe before a shared-memory access (emit_block). */
static void race_access(pass *p, words *b, size_t k, q4spv_pos at)
{
    const q4spv_module *m = p->m;
    uint32_t ptr, type;
    q4spv_access access;
    if (!access_of(m, k, &ptr, &type, &access)) {
        /* cooperative-matrix fragments through shared memory: not followed */
        uint32_t op = m->insts[k].opcode, at_ptr = 0;
        if (op == SpvOpCooperativeMatrixLoadNV || op == 4457u /* CooperativeMatrixLoadKHR */)
            at_ptr = q4spv_word(m, k, 3);
        else if (op == SpvOpCooperativeMatrixStoreNV || op == 4458u /* CooperativeMatrixStoreKHR */)
            at_ptr = q4spv_word(m, k, 1);
        if (at_ptr && points_to_shared(m, at_ptr))
            p->map->race_unchecked++;
        return;
    }
    if (!points_to_shared(m, ptr))
        return;
    const q4spv_inst *d = q4spv_def(m, ptr);
    uint32_t stack[8];
    int depth = 0;
    while (d && (d->opcode == SpvOpAccessChain || d->opcode == SpvOpInBoundsAccessChain)) {
        if (depth == 8)
            goto unchecked;
        stack[depth++] = (uint32_t)(d - m->insts);
        d = q4spv_def(m, m->words[d->offset + 3]);
    }
    if (!d || d->opcode != SpvOpVariable)
        goto unchecked;
    uint32_t var = UINT32_MAX;
    for (uint32_t i = 0; i < p->map->n_race_vars; i++)
        if (p->wg_ids[i] == d->result_id)
            var = i;
    if (var == UINT32_MAX)
        goto unchecked;
    const q4spv_inst *pt = q4spv_def(m, d->type_id);
    uint32_t t = m->words[pt->offset + 3];
    wsz off = wk(0);
    uint32_t terms[MAX_TERMS];
    wsz strides[MAX_TERMS];
    int n_terms = 0;
    for (int s = depth - 1; s >= 0; s--) {
        const q4spv_inst *c = &m->insts[stack[s]];
        for (uint32_t j = 4; j < c->count; j++) {
            uint32_t idx = m->words[c->offset + j], v;
            const q4spv_inst *ti = q4spv_def(m, t);
            if (!ti)
                goto unchecked;
            const uint32_t *tw = m->words + ti->offset;
            if (ti->opcode == SpvOpTypeStruct) {
                if (!q4spv_const_u32(m, idx, &v) || v + 2 >= ti->count)
                    goto unchecked;
                for (uint32_t mb = 0; mb < v; mb++) {
                    wsz e;
                    if (!type_words(p, tw[2 + mb], &e, 0))
                        goto unchecked;
                    off = wsz_op(p, SpvOpIAdd, off, e);
                }
                t = tw[2 + v];
                continue;
            }
            if (ti->opcode != SpvOpTypeArray && ti->opcode != SpvOpTypeVector &&
                ti->opcode != SpvOpTypeMatrix)
                goto unchecked;
            wsz e;
            t = tw[2];
            if (!type_words(p, t, &e, 0))
                goto unchecked;
            if (q4spv_const_u32(m, idx, &v)) {
                off = wsz_op(p, SpvOpIAdd, off, wsz_op(p, SpvOpIMul, e, wk(v)));
                continue;
            }
            const q4spv_inst *di = q4spv_def(m, idx);
            const q4spv_inst *it = di ? q4spv_def(m, di->type_id) : NULL;
            if (!it || it->opcode != SpvOpTypeInt || m->words[it->offset + 2] != 32 ||
                n_terms == MAX_TERMS)
                goto unchecked;
            terms[n_terms] = idx;
            strides[n_terms++] = e;
        }
    }
    wsz n;
    if (!type_words(p, type, &n, 0) || !n.k || n.v > 16)
        goto unchecked;   /* whole arrays or structs moved at once */

    q4spv_race_class cls;
    uint32_t opcode = m->insts[k].opcode, flags;
    switch (access) {
    case Q4SPV_LOAD: cls = Q4SPV_RACE_READ; flags = 1; break;
    case Q4SPV_STORE: cls = Q4SPV_RACE_WRITE; flags = 4; break;
    default:
        if (opcode == SpvOpAtomicLoad) {
            cls = Q4SPV_RACE_ATOMIC_READ;
            flags = 1;
        } else {
            cls = Q4SPV_RACE_ATOMIC_WRITE;
            flags = opcode == SpvOpAtomicStore ? 4 : 1 | 2 | 4;
        }
    }
    static const uint32_t conflicts[4] = {
        [Q4SPV_RACE_READ] = 1u << Q4SPV_RACE_WRITE | 1u << Q4SPV_RACE_ATOMIC_WRITE,
        [Q4SPV_RACE_WRITE] = 15u,
        [Q4SPV_RACE_ATOMIC_WRITE] = 1u << Q4SPV_RACE_READ | 1u << Q4SPV_RACE_WRITE,
        [Q4SPV_RACE_ATOMIC_READ] = 1u << Q4SPV_RACE_WRITE,
    };
    uint32_t off_id = wsz_id(p, off);
    for (int i = 0; i < n_terms; i++) {
        uint32_t prod = terms[i];
        if (!strides[i].k || strides[i].v != 1)
            prod = op2(p, b, SpvOpIMul, p->t_uint, terms[i], wsz_id(p, strides[i]));
        off_id = op2(p, b, SpvOpIAdd, p->t_uint, off_id, prod);
    }
    q4spv_map *map = p->map;
    uint32_t site = map->n_race_sites;
    size_t ns = map->n_race_sites;
    GROW(map->race_sites, ns, p->cap_race_sites, p->nomem);
    if (p->nomem)
        return;
    map->race_sites[map->n_race_sites++] = (q4spv_race_site){ var, cls, at };
    if (p->opt->race_word_loop) {   /* one call; fn_race loops over the n words */
        inst(b, SpvOpFunctionCall, 10, p->t_void, new_id(p), p->fn_race, konst(p, site),
             off_id, wsz_id(p, p->wg_base[var]), konst(p, n.v), konst(p, cls),
             konst(p, conflicts[cls]), konst(p, flags));
        return;
    }
    /* else one call per word, with no loop: llvmpipe before Mesa 25 gives all the loops
     * of a shader 65535 iterations in all, and a loop over the words inside the probe
     * spent them (Debian 12's lavapipe computed a wrong linear_dW at M = 4000) */
    for (uint32_t j = 0; j < n.v; j++) {
        uint32_t wj = j ? op2(p, b, SpvOpIAdd, p->t_uint, off_id, konst(p, j)) : off_id;
        inst(b, SpvOpFunctionCall, 10, p->t_void, new_id(p), p->fn_race, konst(p, site), wj,
             wsz_id(p, p->wg_base[var]), konst(p, 1), konst(p, cls), konst(p, conflicts[cls]),
             konst(p, flags));
    }
    return;
unchecked:
    p->map->race_unchecked++;
}

/* After an OpControlBarrier at k: a new barrier interval if it orders shared memory
 * between the workgroup's invocations. */
static void race_barrier(pass *p, words *b, size_t k)
{
    const q4spv_module *m = p->m;
    uint32_t exec, sem;
    if (m->insts[k].opcode != SpvOpControlBarrier ||
        !q4spv_const_u32(m, q4spv_word(m, k, 1), &exec) ||
        !q4spv_const_u32(m, q4spv_word(m, k, 3), &sem) || exec != SpvScopeWorkgroup ||
        !(sem & SpvMemorySemanticsWorkgroupMemoryMask))
        return;
    uint32_t e = ld(p, b, p->t_uint, p->v_ep1);
    inst(b, SpvOpStore, 2, p->v_ep1, op2(p, b, SpvOpIAdd, p->t_uint, e, konst(p, 1)));
    inst(b, SpvOpStore, 2, p->v_pos, konst(p, 0));
}

static void emit_race_fns(pass *p, words *b)
{
    uint32_t u = p->t_uint, bo = p->t_bool;
    uint32_t NONE = konst(p, Q4SPV_NONE);
    /* ---- fn_race(site, off, vbase, n, cls, conf, flags) ---- */
    uint32_t site = new_id(p), off = new_id(p), vb = new_id(p), n = new_id(p), cls = new_id(p),
             conf = new_id(p), flags = new_id(p);
    uint32_t L0 = new_id(p), Lh = new_id(p), Lb = new_id(p), Lc = new_id(p), Lx = new_id(p);
    uint32_t j = new_id(p), j1 = new_id(p);
    const bool word_loop = p->opt->race_word_loop;
    inst(b, SpvOpFunction, 4, p->t_void, p->fn_race, SpvFunctionControlMaskNone, p->t_fn_race);
    uint32_t params[7] = { site, off, vb, n, cls, conf, flags };
    for (int i = 0; i < 7; i++)
        inst(b, SpvOpFunctionParameter, 2, u, params[i]);
    inst(b, SpvOpLabel, 1, L0);
    uint32_t limit = hdr(p, b, 0), rep = hdr(p, b, 2);
    uint32_t base = ld(p, b, u, p->v_base), inv = ld(p, b, u, p->v_inv),
             ep1 = ld(p, b, u, p->v_ep1);
    uint32_t E = op2(p, b, SpvOpShiftLeftLogical, u, ep1, konst(p, 11));
    uint32_t meMax = op2(p, b, SpvOpBitwiseOr, u, E, inv);
    uint32_t meMin = op2(p, b, SpvOpBitwiseOr, u, E, op2(p, b, SpvOpISub, u, konst(p, 2047), inv));
    uint32_t isw = op2(p, b, SpvOpINotEqual, bo, op2(p, b, SpvOpBitwiseAnd, u, flags, konst(p, 4)),
                       konst(p, 0));
    uint32_t mysw = sel(p, b, u, isw, konst(p, 8), konst(p, 9));
    uint32_t isread = op2(p, b, SpvOpINotEqual, bo,
                          op2(p, b, SpvOpBitwiseAnd, u, flags, konst(p, 1)), konst(p, 0));
    uint32_t isrmw = op2(p, b, SpvOpINotEqual, bo,
                         op2(p, b, SpvOpBitwiseAnd, u, flags, konst(p, 2)), konst(p, 0));
    uint32_t hasbase = op2(p, b, SpvOpINotEqual, bo, base, NONE);
    uint32_t cls2 = op2(p, b, SpvOpIMul, u, cls, konst(p, 2));
    if (word_loop) {
        /* word j of the access's n, in a loop kept rolled: n is a constant of the call,
         * the same in every invocation, and no barrier is inside */
        inst(b, SpvOpBranch, 1, Lh);
        inst(b, SpvOpLabel, 1, Lh);
        inst(b, SpvOpPhi, 6, u, j, konst(p, 0), L0, j1, Lc);
        uint32_t next_word = op2(p, b, SpvOpULessThan, bo, j, n);
        inst(b, SpvOpLoopMerge, 3, Lx, Lc, SpvLoopControlDontUnrollMask);
        inst(b, SpvOpBranchConditional, 3, next_word, Lb, Lx);
        inst(b, SpvOpLabel, 1, Lb);
    }
    uint32_t pos = ld(p, b, u, p->v_pos);
    inst(b, SpvOpStore, 2, p->v_pos, op2(p, b, SpvOpIAdd, u, pos, konst(p, 1)));
    uint32_t posc = sel(p, b, u, op2(p, b, SpvOpULessThan, bo, pos, konst(p, 65535)), pos,
                        konst(p, 65535));
    uint32_t posv = op2(p, b, SpvOpBitwiseOr, u, op2(p, b, SpvOpShiftLeftLogical, u, posc,
                                                     konst(p, 16)),
                        op2(p, b, SpvOpIAdd, u, site, konst(p, 1)));

    uint32_t w = word_loop ? op2(p, b, SpvOpIAdd, u, off, j) : off;   /* else n is 1 */
    uint32_t wa = op2(p, b, SpvOpIAdd, u, vb, w);
    uint32_t ok = op2(p, b, SpvOpLogicalAnd, bo, op2(p, b, SpvOpULessThan, bo, wa, limit), hasbase);
    /* Branch-free: an access the shadow does not cover works on a scratch record,
     * and only a finding writes a report (else the scratch one). */
    uint32_t scratch = konst(p, p->map->race_base + 4);
    uint32_t rec = sel(p, b, u, ok, op2(p, b, SpvOpIAdd, u, base,
                                        op2(p, b, SpvOpIMul, u, wa, konst(p, Q4SPV_RACE_RECORD))),
                       scratch);
    /* the site first: whoever sees this access's class record sees its site too */
    uint32_t oldSite = rmw(p, b, SpvOpAtomicExchange, op2(p, b, SpvOpIAdd, u, rec, mysw), posv);
    uint32_t own = op2(p, b, SpvOpIAdd, u, rec, cls2);
    uint32_t oldMax = rmw(p, b, SpvOpAtomicUMax, own, meMax);
    rmw(p, b, SpvOpAtomicUMax, op2(p, b, SpvOpIAdd, u, own, konst(p, 1)), meMin);
    uint32_t found = 0, fcls = 0, fother = 0, vmax[4];
    for (uint32_t c = 0; c < 4; c++) {
        vmax[c] = rmw(p, b, SpvOpAtomicUMax, op2(p, b, SpvOpIAdd, u, rec, konst(p, 2 * c)),
                      konst(p, 0));
        uint32_t vmin = rmw(p, b, SpvOpAtomicUMax,
                            op2(p, b, SpvOpIAdd, u, rec, konst(p, 2 * c + 1)), konst(p, 0));
        uint32_t se = op2(p, b, SpvOpIEqual, bo,
                          op2(p, b, SpvOpShiftRightLogical, u, vmax[c], konst(p, 11)), ep1);
        uint32_t o1 = op2(p, b, SpvOpBitwiseAnd, u, vmax[c], konst(p, 2047));
        uint32_t o2 = op2(p, b, SpvOpISub, u, konst(p, 2047),
                          op2(p, b, SpvOpBitwiseAnd, u, vmin, konst(p, 2047)));
        uint32_t other = sel(p, b, u, op2(p, b, SpvOpINotEqual, bo, o1, inv), o1, o2);
        uint32_t want = op2(p, b, SpvOpINotEqual, bo,
                            op2(p, b, SpvOpBitwiseAnd, u, conf, konst(p, 1u << c)), konst(p, 0));
        uint32_t hit = op2(p, b, SpvOpLogicalAnd, bo, op2(p, b, SpvOpLogicalAnd, bo, want, se),
                           op2(p, b, SpvOpINotEqual, bo, other, inv));
        if (c == 0) {
            found = hit;
            fcls = konst(p, 0);
            fother = other;
        } else {
            uint32_t nf = new_id(p);
            inst(b, SpvOpLogicalNot, 3, bo, nf, found);
            uint32_t take = op2(p, b, SpvOpLogicalAnd, bo, nf, hit);
            fcls = sel(p, b, u, take, konst(p, c), fcls);
            fother = sel(p, b, u, take, other, fother);
            found = op2(p, b, SpvOpLogicalOr, bo, found, hit);
        }
    }
    uint32_t awOld = sel(p, b, u, isrmw, oldMax, vmax[Q4SPV_RACE_ATOMIC_WRITE]);
    uint32_t un = op2(p, b, SpvOpLogicalAnd, bo, isread,
                      op2(p, b, SpvOpLogicalAnd, bo,
                          op2(p, b, SpvOpIEqual, bo, vmax[Q4SPV_RACE_WRITE], konst(p, 0)),
                          op2(p, b, SpvOpIEqual, bo, awOld, konst(p, 0))));
    uint32_t any = op2(p, b, SpvOpLogicalAnd, bo, ok, op2(p, b, SpvOpLogicalOr, bo, found, un));
    uint32_t kind = sel(p, b, u, found, op2(p, b, SpvOpIAdd, u, fcls, konst(p, 1)), konst(p, 5));
    uint32_t fw = op2(p, b, SpvOpLogicalOr, bo,
                      op2(p, b, SpvOpIEqual, bo, fcls, konst(p, Q4SPV_RACE_WRITE)),
                      op2(p, b, SpvOpIEqual, bo, fcls, konst(p, Q4SPV_RACE_ATOMIC_WRITE)));
    uint32_t osw = sel(p, b, u, fw, konst(p, 8), konst(p, 9));
    uint32_t osl = rmw(p, b, SpvOpAtomicOr, op2(p, b, SpvOpIAdd, u, rec, osw), konst(p, 0));
    uint32_t mine = op2(p, b, SpvOpLogicalAnd, bo, op2(p, b, SpvOpIEqual, bo, osw, mysw),
                        op2(p, b, SpvOpINotEqual, bo, oldSite, konst(p, 0)));
    uint32_t osv = sel(p, b, u, mine, oldSite, osl);
    osv = sel(p, b, u, found, osv, konst(p, 0));
    uint32_t rs = op2(p, b, SpvOpIAdd, u, rep, op2(p, b, SpvOpIMul, u, site,
                                                   konst(p, Q4SPV_RACE_REPORT)));
    uint32_t scratch_rep = konst(p, p->map->race_base + 4 + Q4SPV_RACE_RECORD);
    uint32_t prev = cas(p, b, sel(p, b, u, any, rs, scratch_rep), kind, konst(p, 0));
    uint32_t won = op2(p, b, SpvOpLogicalAnd, bo, any, op2(p, b, SpvOpIEqual, bo, prev, konst(p, 0)));
    rs = sel(p, b, u, won, rs, scratch_rep);
    uint32_t vals[4] = { w, op2(p, b, SpvOpBitwiseOr, u, inv,
                                op2(p, b, SpvOpShiftLeftLogical, u, fother, konst(p, 16))),
                         posv, osv };
    for (uint32_t i = 0; i < 4; i++)
        inst(b, SpvOpStore, 2, ptr_access(p, b, op2(p, b, SpvOpIAdd, u, rs, konst(p, 1 + i))),
             vals[i]);
    if (word_loop) {
        inst(b, SpvOpBranch, 1, Lc);
        inst(b, SpvOpLabel, 1, Lc);
        inst(b, SpvOpIAdd, 4, u, j1, j, konst(p, 1));
        inst(b, SpvOpBranch, 1, Lh);
        inst(b, SpvOpLabel, 1, Lx);
    }
    inst(b, SpvOpReturn, 0);
    inst(b, SpvOpFunctionEnd, 0);

    /* ---- fn_enter: claim a slot, clear its shadow ----
     * Every loop here runs the same number of times in every invocation (its exit is
     * read from shared memory after a barrier, or counted), and invocation 0's claim
     * is one compare-exchange in a branch with no loop inside. */
    uint32_t E0 = new_id(p), Eh = new_id(p), Et = new_id(p), Ei = new_id(p), Ej = new_id(p),
             Ec = new_id(p), Ex = new_id(p), Ch = new_id(p), Ct = new_id(p), Cb = new_id(p),
             Cc = new_id(p), Cx = new_id(p);
    uint32_t s = new_id(p), s2 = new_id(p), ci_ = new_id(p), ci1 = new_id(p);
    uint32_t WG = SpvMemorySemanticsAcquireReleaseMask | SpvMemorySemanticsWorkgroupMemoryMask;
    uint32_t WGU = WG | SpvMemorySemanticsUniformMemoryMask;
    inst(b, SpvOpFunction, 4, p->t_void, p->fn_enter, SpvFunctionControlMaskNone, p->t_fn0);
    inst(b, SpvOpLabel, 1, E0);
    uint32_t lii = ld(p, b, p->lii_type, p->v_lii);
    if (p->lii_type != u) {
        uint32_t c = new_id(p);
        inst(b, SpvOpBitcast, 3, u, c, lii);
        lii = c;
    }
    inst(b, SpvOpStore, 2, p->v_inv, lii);
    inst(b, SpvOpStore, 2, p->v_ep1, konst(p, 1));
    inst(b, SpvOpStore, 2, p->v_pos, konst(p, 0));
    inst(b, SpvOpStore, 2, p->v_base, NONE);
    uint32_t lim = hdr(p, b, 0), S = hdr(p, b, 1), dyn = hdr(p, b, 3);
    uint32_t go = op2(p, b, SpvOpIEqual, bo, lii, konst(p, 0));
    inst(b, SpvOpBranch, 1, Eh);
    inst(b, SpvOpLabel, 1, Eh);
    inst(b, SpvOpPhi, 6, u, s, konst(p, 0), E0, s2, Ec);
    inst(b, SpvOpLoopMerge, 3, Ex, Ec, SpvLoopControlMaskNone);
    inst(b, SpvOpBranch, 1, Et);
    inst(b, SpvOpLabel, 1, Et);
    inst(b, SpvOpSelectionMerge, 2, Ej, SpvSelectionControlMaskNone);
    inst(b, SpvOpBranchConditional, 3, go, Ei, Ej);
    inst(b, SpvOpLabel, 1, Ei);
    uint32_t claimed = op2(p, b, SpvOpIEqual, bo,
                           cas(p, b, op2(p, b, SpvOpIAdd, u, dyn, s), konst(p, 1), konst(p, 0)),
                           konst(p, 0));
    inst(b, SpvOpStore, 2, p->v_wgslot, sel(p, b, u, claimed, konst(p, 1), konst(p, 0)));
    inst(b, SpvOpBranch, 1, Ej);
    inst(b, SpvOpLabel, 1, Ej);
    barrier_wg(p, b, WG);
    uint32_t flag = ld(p, b, u, p->v_wgslot);
    barrier_wg(p, b, WG);
    uint32_t got = op2(p, b, SpvOpINotEqual, bo, flag, konst(p, 0));
    inst(b, SpvOpBranchConditional, 3, got, Ex, Ec);
    inst(b, SpvOpLabel, 1, Ec);
    uint32_t s1 = op2(p, b, SpvOpIAdd, u, s, konst(p, 1));
    inst(b, SpvOpSelect, 5, u, s2, op2(p, b, SpvOpUGreaterThanEqual, bo, s1, S), konst(p, 0), s1);
    inst(b, SpvOpBranch, 1, Eh);
    inst(b, SpvOpLabel, 1, Ex);
    inst(b, SpvOpStore, 2, p->v_slot, s);
    uint32_t ci = op2(p, b, SpvOpIAdd, u, op2(p, b, SpvOpIAdd, u, dyn, S), s);
    uint32_t k0 = rmw(p, b, SpvOpAtomicIAdd, ci, konst(p, 1));
    barrier_wg(p, b, WGU);
    uint32_t L = rmw(p, b, SpvOpAtomicOr, ci, konst(p, 0));
    uint32_t total = op2(p, b, SpvOpIMul, u, lim, konst(p, Q4SPV_RACE_RECORD));
    uint32_t region = op2(p, b, SpvOpIAdd, u,
                          op2(p, b, SpvOpIAdd, u, dyn, op2(p, b, SpvOpIMul, u, S, konst(p, 2))),
                          op2(p, b, SpvOpIMul, u, s, total));
    inst(b, SpvOpStore, 2, p->v_base, region);
    uint32_t trips = op2(p, b, SpvOpUDiv, u,
                         op2(p, b, SpvOpISub, u, op2(p, b, SpvOpIAdd, u, total, L), konst(p, 1)), L);
    uint32_t last_word = op2(p, b, SpvOpISub, u, total, konst(p, 1));
    inst(b, SpvOpBranch, 1, Ch);
    inst(b, SpvOpLabel, 1, Ch);
    inst(b, SpvOpPhi, 6, u, ci_, konst(p, 0), Ex, ci1, Cc);
    inst(b, SpvOpLoopMerge, 3, Cx, Cc, SpvLoopControlMaskNone);
    inst(b, SpvOpBranch, 1, Ct);
    inst(b, SpvOpLabel, 1, Ct);
    uint32_t more = op2(p, b, SpvOpULessThan, bo, ci_, trips);
    inst(b, SpvOpBranchConditional, 3, more, Cb, Cx);
    inst(b, SpvOpLabel, 1, Cb);
    uint32_t idx = op2(p, b, SpvOpIAdd, u, k0, op2(p, b, SpvOpIMul, u, ci_, L));
    idx = sel(p, b, u, op2(p, b, SpvOpULessThan, bo, idx, total), idx, last_word);
    inst(b, SpvOpStore, 2, ptr_access(p, b, op2(p, b, SpvOpIAdd, u, region, idx)), konst(p, 0));
    inst(b, SpvOpBranch, 1, Cc);
    inst(b, SpvOpLabel, 1, Cc);
    inst(b, SpvOpIAdd, 4, u, ci1, ci_, konst(p, 1));
    inst(b, SpvOpBranch, 1, Ch);
    inst(b, SpvOpLabel, 1, Cx);
    barrier_wg(p, b, WGU);
    inst(b, SpvOpReturn, 0);
    inst(b, SpvOpFunctionEnd, 0);

    /* ---- fn_leave: the last invocation out frees the slot ---- */
    uint32_t F0 = new_id(p), F1 = new_id(p), F2 = new_id(p);
    inst(b, SpvOpFunction, 4, p->t_void, p->fn_leave, SpvFunctionControlMaskNone, p->t_fn0);
    inst(b, SpvOpLabel, 1, F0);
    uint32_t S_ = hdr(p, b, 1), dyn_ = hdr(p, b, 3), slot_ = ld(p, b, u, p->v_slot);
    uint32_t old = rmw(p, b, SpvOpAtomicISub,
                       op2(p, b, SpvOpIAdd, u, op2(p, b, SpvOpIAdd, u, dyn_, S_), slot_),
                       konst(p, 1));
    uint32_t last = op2(p, b, SpvOpIEqual, bo, old, konst(p, 1));
    inst(b, SpvOpSelectionMerge, 2, F2, SpvSelectionControlMaskNone);
    inst(b, SpvOpBranchConditional, 3, last, F1, F2);
    inst(b, SpvOpLabel, 1, F1);
    rmw(p, b, SpvOpAtomicExchange, op2(p, b, SpvOpIAdd, u, dyn_, slot_), konst(p, 0));
    inst(b, SpvOpBranch, 1, F2);
    inst(b, SpvOpLabel, 1, F2);
    inst(b, SpvOpReturn, 0);
    inst(b, SpvOpFunctionEnd, 0);
}

/* ---- coverage and the walk over functions ---- */

static bool is_line(uint32_t op) { return op == SpvOpLine || op == SpvOpNoLine; }

/* Whether function fn is one of p->shared_fns. */
static bool is_shared_fn(const pass *p, uint32_t fn)
{
    for (size_t i = 0; i < p->n_shared_fns; i++)
        if (p->shared_fns[i] == fn)
            return true;
    return false;
}

/* Whether instruction k accesses shared memory, or calls a function that does. */
static bool touches_shared(const pass *p, size_t k)
{
    const q4spv_module *m = p->m;
    uint32_t ptr, type;
    q4spv_access access;
    if (m->insts[k].opcode == SpvOpFunctionCall)
        return is_shared_fn(p, q4spv_word(m, k, 3));
    return access_of(m, k, &ptr, &type, &access) && points_to_shared(m, ptr);
}

/* p->shared_fns: every function with a shared-memory access in its body or a call of
 * such a function (a GEMM's tile stores are often helper functions called in its
 * loops), found by repeating the scan until no function is added. */
static void shared_functions(pass *p)
{
    const q4spv_module *m = p->m;
    for (bool added = true; added && !p->nomem;) {
        added = false;
        uint32_t fn = 0;
        for (size_t k = 0; k < m->n_insts; k++) {
            uint32_t op = m->insts[k].opcode;
            if (op == SpvOpFunction)
                fn = m->insts[k].result_id;
            else if (op == SpvOpFunctionEnd)
                fn = 0;
            else if (fn && !is_shared_fn(p, fn) && touches_shared(p, k)) {
                GROW(p->shared_fns, p->n_shared_fns, p->cap_shared_fns, p->nomem);
                if (p->nomem)
                    return;
                p->shared_fns[p->n_shared_fns++] = fn;
                added = true;
            }
        }
    }
}

/* Whether the loop whose OpLoopMerge is instruction k accesses shared memory in its
 * own blocks (those between its header and its merge block, which structured SPIR-V,
 * glslang's at least, emits in that order), directly or through a call. */
static bool loop_touches_shared(const pass *p, size_t k)
{
    const q4spv_module *m = p->m;
    uint32_t merge = q4spv_word(m, k, 1);
    for (size_t i = k + 1; i < m->n_insts; i++) {
        uint32_t op = m->insts[i].opcode;
        if (op == SpvOpFunctionEnd || (op == SpvOpLabel && q4spv_word(m, i, 1) == merge))
            return false;
        if (touches_shared(p, i))
            return true;
    }
    return false;
}

/* A probed loop that accesses shared memory (itself or through a function it calls:
 * loop_touches_shared) stays a loop: unrolled, a GEMM's inner
 * loop repeats every probe body per iteration (hundreds of inlined sequences of
 * atomics), and lavapipe's LLVM (its coroutine pass) took 80-300 s to compile one such
 * kernel, against 5-10 s rolled. Loops without shared accesses (a GEMM's FMAs over its
 * register tile) still unroll, so register arrays keep constant indexes. DontUnroll
 * changes no operation's order, so no result. A loop whose control carries PeelCount
 * or PartialCount (operands DontUnroll may not join) is left as it is. */
static void keep_loop_rolled(words *b, size_t merge_at)
{
    const uint32_t counted = SpvLoopControlPeelCountMask | SpvLoopControlPartialCountMask;
    uint32_t *control = &b->w[merge_at + 3];
    if ((b->w[merge_at] >> 16) < 4 || (*control & counted))
        return;
    *control = (*control & ~(uint32_t)SpvLoopControlUnrollMask) | SpvLoopControlDontUnrollMask;
}

/* Copies block [k0, k1) (k0 is its OpLabel) with its probes into b. */
static void emit_block(pass *p, words *b, size_t k0, size_t k1, bool first_block,
                       uint32_t *branch_no)
{
    const q4spv_module *m = p->m;
    q4spv_map *map = p->map;
    q4spv_block *blk = NULL;
    q4spv_pos at = { 0, 0 };

    if (p->opt->coverage) {
        blk = &map->blocks[map->n_blocks];
        *blk = (q4spv_block){ .label = q4spv_word(m, k0, 1), .first_pos = map->n_pos };
    }
    /* Where the block probe goes: after the head that must stay first. */
    size_t head = k0 + 1;
    if (first_block) {
        for (size_t k = k0 + 1; k < k1; k++)
            if (m->insts[k].opcode == SpvOpVariable)
                head = k + 1;
    } else {
        while (head < k1 && (m->insts[head].opcode == SpvOpPhi || is_line(m->insts[head].opcode)))
            head++;
    }
    /* Where a branch probe goes: before the merge instruction, if any, else the branch. */
    size_t term = k1 - 1;
    while (term > k0 && is_line(m->insts[term].opcode))
        term--;
    size_t bpoint = SIZE_MAX;
    if (p->opt->coverage && m->insts[term].opcode == SpvOpBranchConditional) {
        bpoint = term;
        if (term > k0 + 1 && (m->insts[term - 1].opcode == SpvOpSelectionMerge ||
                              m->insts[term - 1].opcode == SpvOpLoopMerge))
            bpoint = term - 1;
    }

    bool entry = p->race && is_entry_fn(p, p->cur_fn);
    for (size_t k = k0; k < k1 && !p->nomem; k++) {
        uint32_t op = m->insts[k].opcode;
        if (k == head && first_block && entry)
            inst(b, SpvOpFunctionCall, 3, p->t_void, new_id(p), p->fn_enter);
        if (k == head && blk)
            inst(b, SpvOpStore, 2, ptr_access(p, b, konst(p, map->n_blocks)), konst(p, 1));
        if (entry && op == SpvOpReturn)
            inst(b, SpvOpFunctionCall, 3, p->t_void, new_id(p), p->fn_leave);
        if (k == bpoint) {
            uint32_t slot = new_id(p), t = map->branch_base + 2 * *branch_no;
            inst(b, SpvOpSelect, 5, p->t_uint, slot, q4spv_word(m, term, 1), konst(p, t),
                 konst(p, t + 1));
            inst(b, SpvOpStore, 2, ptr_access(p, b, slot), konst(p, 1));
            map->branches[*branch_no] = (q4spv_branch){ map->n_blocks, at };
            ++*branch_no;
        }
        if (op == SpvOpLine) {
            at = (q4spv_pos){ file_index(p, q4spv_word(m, k, 1)), q4spv_word(m, k, 2) };
            if (blk)
                add_pos(p, blk, at);
        } else if (op == SpvOpNoLine) {
            at = (q4spv_pos){ 0, 0 };
        } else {
            uint32_t ptr, type;
            q4spv_access access;
            if (p->opt->bounds && access_of(m, k, &ptr, &type, &access))
                check_access(p, b, ptr, type, access, at);
            if (p->race)
                race_access(p, b, k, at);
        }
        size_t copied_at = b->n;
        copy_inst(b, m, k);
        if (p->race && op == SpvOpLoopMerge && !b->nomem && loop_touches_shared(p, k))
            keep_loop_rolled(b, copied_at);
        if (p->race && op == SpvOpControlBarrier)
            race_barrier(p, b, k);
    }
    if (blk)
        map->n_blocks++;
}

static void emit_functions(pass *p, words *b, size_t first)
{
    const q4spv_module *m = p->m;
    uint32_t branch_no = 0;
    bool first_block = false;
    for (size_t k = first; k < m->n_insts && !p->nomem;) {
        uint32_t op = m->insts[k].opcode;
        if (op != SpvOpLabel) {
            if (op == SpvOpFunction) {
                first_block = true;
                p->cur_fn = q4spv_word(m, k, 2);
            }
            copy_inst(b, m, k++);
            continue;
        }
        size_t end = k + 1;
        while (end < m->n_insts && m->insts[end].opcode != SpvOpLabel &&
               m->insts[end].opcode != SpvOpFunctionEnd)
            end++;
        emit_block(p, b, k, end, first_block, &branch_no);
        first_block = false;
        k = end;
    }
}

static bool in_preamble(uint32_t op)
{
    switch (op) {
    case SpvOpCapability: case SpvOpExtension: case SpvOpExtInstImport: case SpvOpMemoryModel:
    case SpvOpEntryPoint: case SpvOpExecutionMode: case SpvOpExecutionModeId:
    case SpvOpString: case SpvOpSourceExtension: case SpvOpSource: case SpvOpSourceContinued:
    case SpvOpName: case SpvOpMemberName: case SpvOpModuleProcessed:
    case SpvOpDecorate: case SpvOpMemberDecorate: case SpvOpDecorationGroup:
    case SpvOpGroupDecorate: case SpvOpGroupMemberDecorate: case SpvOpDecorateId:
    case SpvOpDecorateString: case SpvOpMemberDecorateString:
        return true;
    default:
        return false;
    }
}

void q4spv_map_free(q4spv_map *map)
{
    if (!map)
        return;
    for (uint32_t i = 0; i < map->n_files; i++)
        free(map->files[i]);
    free(map->files);
    free(map->pos);
    free(map->blocks);
    free(map->branches);
    free(map->sites);
    free(map->race_sites);
    for (uint32_t i = 0; i < map->n_race_vars; i++)
        free(map->race_vars[i]);
    free(map->race_vars);
    free(map);
}

/* Finds or allocates the scalar types and allocates the pass's own ids. */
static void plan_ids(pass *p)
{
    const q4spv_module *m = p->m;
    static const uint32_t uint_ops[2] = { 32, 0 };
    p->t_uint = find_type(m, SpvOpTypeInt, uint_ops, 2);
    p->t_bool = find_type(m, SpvOpTypeBool, NULL, 0);
    p->t_void = find_type(m, SpvOpTypeVoid, NULL, 0);
    if ((p->new_uint = !p->t_uint))
        p->t_uint = new_id(p);
    if ((p->new_bool = !p->t_bool))
        p->t_bool = new_id(p);
    if ((p->new_void = !p->t_void))
        p->t_void = new_id(p);
    uint32_t fn_ops[5] = { p->t_void, p->t_uint, p->t_uint, p->t_uint, p->t_uint };
    p->t_fn = find_type(m, SpvOpTypeFunction, fn_ops, 5);
    if ((p->new_fn = !p->t_fn))
        p->t_fn = new_id(p);
    p->t_rtarr = new_id(p);
    p->t_struct = new_id(p);
    p->t_ptr_struct = new_id(p);
    p->t_ptr_uint = new_id(p);
    p->var = new_id(p);
    p->fn_check = new_id(p);
}

q4_status q4spv_instrument(const uint32_t *in, size_t n, const q4spv_options *opt,
                           uint32_t **out, size_t *out_n, q4spv_map **map_out, q4_error *err)
{
    q4spv_module mod;
    q4_status st;
    pass p = { .opt = opt };
    words head = { 0 }, body = { 0 };

    *out = NULL;
    *out_n = 0;
    *map_out = NULL;
    if ((st = q4spv_parse(in, n, &mod, err)) != Q4_OK)
        return st;
    p.m = &mod;
    p.next_id = mod.bound;
    p.map = calloc(1, sizeof *p.map);
    if (!p.map) {
        q4spv_module_free(&mod);
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory instrumenting SPIR-V");
    }

    size_t first_fn = mod.n_insts, first_global = mod.n_insts;
    uint32_t n_labels = 0, n_cond = 0;
    for (size_t k = 0; k < mod.n_insts; k++) {
        uint32_t op = mod.insts[k].opcode;
        if (first_global == mod.n_insts && !in_preamble(op))
            first_global = k;
        if (op == SpvOpFunction && first_fn == mod.n_insts)
            first_fn = k;
        n_labels += op == SpvOpLabel;
        n_cond += op == SpvOpBranchConditional;
        uint32_t v;
        if (op == SpvOpDecorate && q4spv_word(&mod, k, 2) == SpvDecorationDescriptorSet &&
            (v = q4spv_word(&mod, k, 3)) == opt->set) {
            st = q4_fail(err, Q4_ERR_ARG, "the module already uses descriptor set %u, which "
                         "the probes need (the kernel interface is set 0 only)", v);
            goto done;
        }
    }
    /* Globals go in before any OpLine that leads into the first function. */
    size_t globals_end = first_fn;
    while (globals_end > first_global && is_line(mod.insts[globals_end - 1].opcode))
        globals_end--;

    q4spv_map *map = p.map;
    if (opt->coverage) {
        map->blocks = calloc(n_labels ? n_labels : 1, sizeof *map->blocks);
        map->branches = calloc(n_cond ? n_cond : 1, sizeof *map->branches);
        if (!map->blocks || !map->branches)
            p.nomem = 1;
        map->branch_base = n_labels;
        map->n_branches = n_cond;
    }
    map->limit_base = map->branch_base + 2 * map->n_branches;
    map->site_base = map->limit_base + Q4SPV_MAX_BINDINGS;
    p.storage = mod.version >= 0x10300 ||
                        q4spv_has_extension(&mod, "SPV_KHR_storage_buffer_storage_class")
                    ? SpvStorageClassStorageBuffer
                    : SpvStorageClassUniform;
    p.scope = SpvScopeDevice;
    for (size_t k = 0; k < mod.n_insts; k++)
        if (mod.insts[k].opcode == SpvOpMemoryModel && q4spv_word(&mod, k, 2) == SpvMemoryModelVulkan)
            p.scope = SpvScopeQueueFamily;
    plan_ids(&p);
    if (opt->race && race_plan(&p) && !p.nomem) {
        p.race = true;
        race_ids(&p);
        shared_functions(&p);
    }

    emit_functions(&p, &body, first_fn);
    if (opt->bounds && !p.nomem)
        emit_check_fn(&p, &body);
    map->n_slots = map->site_base + Q4SPV_SITE_WORDS * map->n_sites;
    if (p.race && !p.nomem) {
        map->race_base = map->n_slots;
        map->n_slots += RACE_HEAD + Q4SPV_RACE_REPORT * map->n_race_sites;
        emit_race_fns(&p, &body);
    }

    /* Header, preamble (entry points gain the variable from SPIR-V 1.4 on), then the
     * probe buffer's decorations after the module's own annotations. */
    for (int i = 0; i < 5; i++)
        put(&head, i == 3 ? 0 : in[i]);
    for (size_t k = 0; k < first_global; k++) {
        const q4spv_inst *ik = &mod.insts[k];
        if (ik->opcode == SpvOpEntryPoint && (mod.version >= 0x10400 || (p.race && p.new_lii))) {
            uint32_t extra[8], n_extra = 0;
            if (mod.version >= 0x10400) {
                extra[n_extra++] = p.var;
                if (p.race) {
                    uint32_t v[6] = { p.v_inv, p.v_ep1, p.v_pos, p.v_base, p.v_slot, p.v_wgslot };
                    for (int i = 0; i < 6; i++)
                        extra[n_extra++] = v[i];
                }
            }
            if (p.race && p.new_lii)
                extra[n_extra++] = p.v_lii;
            put(&head, ((uint32_t)(ik->count + n_extra) << 16) | SpvOpEntryPoint);
            for (uint32_t i = 1; i < ik->count; i++)
                put(&head, q4spv_word(&mod, k, i));
            for (uint32_t i = 0; i < n_extra; i++)
                put(&head, extra[i]);
        } else {
            copy_inst(&head, &mod, k);
        }
    }
    inst(&head, SpvOpDecorate, 3, p.t_rtarr, SpvDecorationArrayStride, 4);
    inst(&head, SpvOpMemberDecorate, 4, p.t_struct, 0, SpvDecorationOffset, 0);
    inst(&head, SpvOpDecorate, 2, p.t_struct,
         p.storage == SpvStorageClassUniform ? SpvDecorationBufferBlock : SpvDecorationBlock);
    inst(&head, SpvOpDecorate, 3, p.var, SpvDecorationDescriptorSet, opt->set);
    inst(&head, SpvOpDecorate, 3, p.var, SpvDecorationBinding, 0);
    if (p.race && p.new_lii)
        inst(&head, SpvOpDecorate, 3, p.v_lii, SpvDecorationBuiltIn, SpvBuiltInLocalInvocationIndex);
    for (size_t k = first_global; k < globals_end; k++)
        copy_inst(&head, &mod, k);
    if (p.new_uint)
        inst(&head, SpvOpTypeInt, 3, p.t_uint, 32, 0);
    if (p.new_bool)
        inst(&head, SpvOpTypeBool, 1, p.t_bool);
    if (p.new_void)
        inst(&head, SpvOpTypeVoid, 1, p.t_void);
    if (p.new_fn)
        inst(&head, SpvOpTypeFunction, 6, p.t_fn, p.t_void, p.t_uint, p.t_uint, p.t_uint,
             p.t_uint);
    inst(&head, SpvOpTypeRuntimeArray, 2, p.t_rtarr, p.t_uint);
    inst(&head, SpvOpTypeStruct, 2, p.t_struct, p.t_rtarr);
    inst(&head, SpvOpTypePointer, 3, p.t_ptr_struct, p.storage, p.t_struct);
    inst(&head, SpvOpTypePointer, 3, p.t_ptr_uint, p.storage, p.t_uint);
    for (size_t i = 0; i < p.n_const; i++)
        inst(&head, SpvOpConstant, 3, p.t_uint, p.const_id[i], p.const_val[i]);
    inst(&head, SpvOpVariable, 3, p.t_ptr_struct, p.var, p.storage);
    if (p.race) {
        for (size_t i = 0; i < p.n_specops; i++)
            inst(&head, SpvOpSpecConstantOp, 5, p.t_uint, p.specops[i][0], p.specops[i][1],
                 p.specops[i][2], p.specops[i][3]);
        if (p.new_fn0)
            inst(&head, SpvOpTypeFunction, 2, p.t_fn0, p.t_void);
        if (p.new_fn_race)
            inst(&head, SpvOpTypeFunction, 9, p.t_fn_race, p.t_void, p.t_uint, p.t_uint, p.t_uint,
                 p.t_uint, p.t_uint, p.t_uint, p.t_uint);
        inst(&head, SpvOpTypePointer, 3, p.t_ptr_priv, SpvStorageClassPrivate, p.t_uint);
        inst(&head, SpvOpTypePointer, 3, p.t_ptr_wg, SpvStorageClassWorkgroup, p.t_uint);
        if (p.new_lii) {
            inst(&head, SpvOpTypePointer, 3, p.t_ptr_in, SpvStorageClassInput, p.t_uint);
            inst(&head, SpvOpVariable, 3, p.t_ptr_in, p.v_lii, SpvStorageClassInput);
        }
        uint32_t v[5] = { p.v_inv, p.v_ep1, p.v_pos, p.v_base, p.v_slot };
        for (int i = 0; i < 5; i++)
            inst(&head, SpvOpVariable, 3, p.t_ptr_priv, v[i], SpvStorageClassPrivate);
        inst(&head, SpvOpVariable, 3, p.t_ptr_wg, p.v_wgslot, SpvStorageClassWorkgroup);
    }
    for (size_t k = globals_end; k < first_fn; k++)
        copy_inst(&head, &mod, k);
    for (size_t i = 0; i < body.n; i++)
        put(&head, body.w[i]);
    if (p.nomem || head.nomem || body.nomem) {
        st = q4_fail(err, Q4_ERR_NOMEM, "out of host memory instrumenting SPIR-V");
        goto done;
    }
    head.w[3] = p.next_id;
    *out = head.w;
    *out_n = head.n;
    head.w = NULL;
    *map_out = p.map;
    p.map = NULL;
    st = Q4_OK;
done:
    free(head.w);
    free(body.w);
    free(p.const_val);
    free(p.const_id);
    free(p.file_ids);
    free(p.entry_fns);
    free(p.shared_fns);
    free(p.wg_ids);
    free(p.wg_base);
    free(p.specops);
    q4spv_map_free(p.map);
    q4spv_module_free(&mod);
    return st;
}

void q4spv_probe_init(const q4spv_map *map, const uint32_t limits[Q4SPV_MAX_BINDINGS],
                      uint32_t *slots)
{
    memset(slots, 0, (size_t)map->n_slots * sizeof *slots);
    for (int b = 0; b < Q4SPV_MAX_BINDINGS; b++)
        slots[map->limit_base + b] = limits ? limits[b] : Q4SPV_NONE;
    for (uint32_t i = 0; i < map->n_sites; i++)
        slots[q4spv_site_slot(map, i)] = Q4SPV_NONE;   /* and a count of 0 */
}

uint32_t q4spv_site_slot(const q4spv_map *map, uint32_t site)
{
    return map->site_base + Q4SPV_SITE_WORDS * site;
}

uint32_t q4spv_probe_oob(const q4spv_map *map, const uint32_t *slots, uint32_t site,
                         uint32_t *offset)
{
    const uint32_t *w = slots + q4spv_site_slot(map, site);
    if (offset)
        *offset = w[0];
    /* An access that was counted also lowered the offset; a count that wrapped to 0
     * past 2^32 accesses still shows as one. */
    return w[0] == Q4SPV_NONE ? 0 : w[1] ? w[1] : 1;
}

int q4spv_probe_first_oob(const q4spv_map *map, const uint32_t *slots, uint32_t *offset)
{
    uint32_t at;
    for (uint32_t i = 0; i < map->n_sites; i++)
        if (q4spv_probe_oob(map, slots, i, &at)) {
            if (offset)
                *offset = at;
            return (int)i;
        }
    return -1;
}

/* ---- race checks on the host ---- */

size_t q4spv_race_buffer_words(const q4spv_map *map, uint32_t wg_slots, uint32_t words)
{
    if (!map->n_race_vars || !map->race_base)
        return map->n_slots;
    return (size_t)map->n_slots + 2 * (size_t)wg_slots +
           (size_t)wg_slots * words * Q4SPV_RACE_RECORD;
}

void q4spv_race_init(const q4spv_map *map, uint32_t wg_slots, uint32_t words, uint32_t *slots)
{
    if (!map->n_race_vars || !map->race_base)
        return;
    slots[map->race_base + 0] = words;
    slots[map->race_base + 1] = wg_slots;
    slots[map->race_base + 2] = map->race_base + RACE_HEAD;
    slots[map->race_base + 3] = map->n_slots;
    memset(slots + map->race_base + 4, 0,
           (q4spv_race_buffer_words(map, wg_slots, words) - map->race_base - 4) * sizeof *slots);
}

int q4spv_race_first(const q4spv_map *map, const uint32_t *slots, q4spv_race_finding *f)
{
    int first = -1;
    if (!map->n_race_vars || !map->race_base)
        return -1;
    memset(f, 0, sizeof *f);
    for (uint32_t i = 0; i < map->n_race_sites; i++) {
        const uint32_t *r = slots + map->race_base + RACE_HEAD + Q4SPV_RACE_REPORT * i;
        if (!r[0] || r[0] > 5)
            continue;
        f->n_sites++;
        if (first >= 0)
            continue;
        first = (int)i;
        f->site = i;
        f->uninitialized = r[0] == 5;
        f->other_cls = r[0] == 5 ? Q4SPV_RACE_WRITE : (q4spv_race_class)(r[0] - 1);
        f->word = r[1];
        f->inv = r[2] & 0xFFFF;
        f->other_inv = r[2] >> 16;
        f->pos = r[3] >> 16;
        f->other_pos = r[4] >> 16;
        f->other_site = (r[4] & 0xFFFF) && (r[4] & 0xFFFF) <= map->n_race_sites
                            ? (int)(r[4] & 0xFFFF) - 1
                            : -1;
    }
    return first;
}

static void pos_text(const q4spv_map *map, q4spv_pos at, char *out, size_t size)
{
    if (!at.line || at.file >= map->n_files) {
        snprintf(out, size, "(no line)");
        return;
    }
    const char *file = map->files[at.file], *slash = strrchr(file, '/');
    snprintf(out, size, "%s:%u", slash ? slash + 1 : file, at.line);
}

static bool writes(q4spv_race_class c)
{
    return c == Q4SPV_RACE_WRITE || c == Q4SPV_RACE_ATOMIC_WRITE;
}

void q4spv_race_message(const q4spv_map *map, const q4spv_race_finding *f, char *out,
                        size_t size)
{
    static const char *const what[] = { "read", "write", "atomic write", "atomic read" };
    const q4spv_race_site *s = &map->race_sites[f->site];
    const char *var = s->var < map->n_race_vars && map->race_vars[s->var][0]
                          ? map->race_vars[s->var] : "(unnamed)";
    char here[300], there[300] = "";
    pos_text(map, s->at, here, sizeof here);
    if (f->uninitialized) {
        snprintf(out, size, "uninitialized shared memory: invocation %u reads %s word %u at %s, "
                 "which no invocation of its workgroup wrote before (its value is whatever the "
                 "driver left there)%s", f->inv, var, f->word, here,
                 f->n_sites > 1 ? "; other sites also reported" : "");
        return;
    }
    const q4spv_race_site *o = f->other_site >= 0 ? &map->race_sites[f->other_site] : NULL;
    if (o)
        pos_text(map, o->at, there, sizeof there);
    const char *kind;
    if (writes(s->cls) && writes(f->other_cls)) {
        kind = "write-after-write";
    } else {
        /* Which came first in the interval: the access with fewer shared accesses since
         * the invocation's last barrier (ties: the earlier site). */
        uint32_t wpos = writes(s->cls) ? f->pos : f->other_pos;
        uint32_t rpos = writes(s->cls) ? f->other_pos : f->pos;
        bool known = o != NULL;
        if (!known)
            kind = "read-write";
        else if (wpos != rpos)
            kind = wpos < rpos ? "read-after-write" : "write-after-read";
        else
            kind = (writes(s->cls) ? f->site : (uint32_t)f->other_site) <
                           (writes(s->cls) ? (uint32_t)f->other_site : f->site)
                       ? "read-after-write" : "write-after-read";
    }
    snprintf(out, size, "%s race on shared %s word %u: invocation %u's %s at %s and invocation "
             "%u's %s%s%s in the same barrier interval, no barrier() between them%s",
             kind, var, f->word, f->inv, what[s->cls], here, f->other_inv, what[f->other_cls],
             o ? " at " : "", o ? there : "",
             f->n_sites > 1 ? "; other sites also reported" : "");
}
