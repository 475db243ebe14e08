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
         konst(p, map->site_base + site), konst(p, map->limit_base + binding), end, off);
    return;
unchecked:
    p->map->unchecked++;
}

/* The check function: if end > limit (or the sum wrapped), atomic-min off into the site. */
static void emit_check_fn(pass *p, words *b)
{
    uint32_t site = new_id(p), lim_slot = new_id(p), end = new_id(p), off = new_id(p);
    uint32_t l0 = new_id(p), l1 = new_id(p), l2 = new_id(p);
    uint32_t lim = new_id(p), past = new_id(p), wrap = new_id(p), bad = new_id(p);
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
    inst(b, SpvOpBranch, 1, l2);
    inst(b, SpvOpLabel, 1, l2);
    inst(b, SpvOpReturn, 0);
    inst(b, SpvOpFunctionEnd, 0);
}

/* ---- coverage and the walk over functions ---- */

static bool is_line(uint32_t op) { return op == SpvOpLine || op == SpvOpNoLine; }

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

    for (size_t k = k0; k < k1 && !p->nomem; k++) {
        uint32_t op = m->insts[k].opcode;
        if (k == head && blk)
            inst(b, SpvOpStore, 2, ptr_access(p, b, konst(p, map->n_blocks)), konst(p, 1));
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
        } else if (p->opt->bounds) {
            uint32_t ptr, type;
            q4spv_access access;
            if (access_of(m, k, &ptr, &type, &access))
                check_access(p, b, ptr, type, access, at);
        }
        copy_inst(b, m, k);
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
            if (op == SpvOpFunction)
                first_block = true;
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

    emit_functions(&p, &body, first_fn);
    if (opt->bounds && !p.nomem)
        emit_check_fn(&p, &body);
    map->n_slots = map->site_base + map->n_sites;

    /* Header, preamble (entry points gain the variable from SPIR-V 1.4 on), then the
     * probe buffer's decorations after the module's own annotations. */
    for (int i = 0; i < 5; i++)
        put(&head, i == 3 ? 0 : in[i]);
    for (size_t k = 0; k < first_global; k++) {
        const q4spv_inst *ik = &mod.insts[k];
        if (ik->opcode == SpvOpEntryPoint && mod.version >= 0x10400) {
            put(&head, ((uint32_t)(ik->count + 1) << 16) | SpvOpEntryPoint);
            for (uint32_t i = 1; i < ik->count; i++)
                put(&head, q4spv_word(&mod, k, i));
            put(&head, p.var);
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
        slots[map->site_base + i] = Q4SPV_NONE;
}

int q4spv_probe_first_oob(const q4spv_map *map, const uint32_t *slots, uint32_t *offset)
{
    for (uint32_t i = 0; i < map->n_sites; i++)
        if (slots[map->site_base + i] != Q4SPV_NONE) {
            if (offset)
                *offset = slots[map->site_base + i];
            return (int)i;
        }
    return -1;
}
