/* q4spv_lint.c: the static portability checks of q4spv_lint.h. Order: naming an
 * instruction (id, opcode, OpLine), the relaxed-precision data flow, the
 * instruction-pattern checks (round, fmod, fma), q4spv_lint. */
#include "q4spv_lint.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>

typedef struct lint {
    const q4spv_module *m;
    q4spv_lint_report *out;
} lint;

static void add(lint *l, const char *check, uint32_t id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(lint *l, const char *check, uint32_t id, const char *fmt, ...)
{
    q4spv_lint_report *r = l->out;
    r->total++;
    if (r->n == Q4SPV_LINT_MAX)
        return;
    q4spv_finding *f = &r->f[r->n++];
    f->check = check;
    f->id = id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
}

/* "%12 (OpFMul, acc.comp:14)": the source line is the OpLine in force, if any. */
static void describe(const q4spv_module *m, size_t k, char *buf, size_t size)
{
    const q4spv_inst *i = &m->insts[k];
    char line[160] = "";
    for (size_t j = k; j-- > 0;) {
        const q4spv_inst *p = &m->insts[j];
        if (p->opcode == SpvOpNoLine || p->opcode == SpvOpLabel || p->opcode == SpvOpFunction)
            break;
        if (p->opcode == SpvOpLine && p->count >= 4) {
            const uint32_t *w = q4spv_iwords(m, p);
            const q4spv_inst *file = q4spv_def(m, w[1]);
            char name[128] = "";
            if (file && file->opcode == SpvOpString)
                q4spv_string(m, (size_t)(file - m->insts), 2, name, sizeof name);
            const char *base = strrchr(name, '/');
            snprintf(line, sizeof line, ", %s:%u", base ? base + 1 : name, w[2]);
            break;
        }
    }
    const char *name = q4spv_name(m, i->result_id);
    snprintf(buf, size, "%%%u%s%s%s (Op%s%s)", i->result_id, name && *name ? " '" : "",
             name && *name ? name : "", name && *name ? "'" : "", q4spv_opcode_name(i->opcode),
             line);
}

/* ---------------- relaxed precision reaching an output ---------------- */

/* The blocks of every function, for the branches a relaxed value decides. */
typedef struct block {
    size_t first, term;   /* its OpLabel and its terminator (instruction indexes) */
    uint32_t merge;       /* its OpSelectionMerge / OpLoopMerge target, or 0 */
} block;

typedef struct cfg {
    block *b;
    size_t n;
    uint32_t *of_label;   /* [bound]: 1 + index in b of the block a label starts; 0 none */
    uint8_t *loop_merge;  /* [bound]: the label is some loop's merge block */
    uint8_t *mark;        /* [n]: scratch, the blocks of one region */
    size_t *stack;        /* [n]: scratch */
} cfg;

typedef struct flow {
    const q4spv_module *m;
    uint32_t *taint;      /* [bound]: 1 + index of the seed instruction; 0 untainted */
    uint8_t *relaxed;     /* [bound]: decorated RelaxedPrecision */
    cfg g;
} flow;

static bool is_f16(const q4spv_module *m, uint32_t type)
{
    const q4spv_inst *t = q4spv_def(m, type);
    if (t && (t->opcode == SpvOpTypeVector || t->opcode == SpvOpTypeMatrix) && t->count >= 3)
        t = q4spv_def(m, q4spv_iwords(m, t)[2]);
    return t && t->opcode == SpvOpTypeFloat && t->count >= 3 && q4spv_iwords(m, t)[2] == 16;
}

/* The variable (or function parameter) a pointer id points into. */
static uint32_t root_of(const q4spv_module *m, uint32_t id)
{
    for (int depth = 0; depth < 64; depth++) {
        const q4spv_inst *i = q4spv_def(m, id);
        if (!i)
            return 0;
        switch (i->opcode) {
        case SpvOpAccessChain:
        case SpvOpInBoundsAccessChain:
        case SpvOpPtrAccessChain:
        case SpvOpInBoundsPtrAccessChain:
        case SpvOpCopyObject:
            id = q4spv_ref(m, i, 0);
            break;
        default:
            return id;
        }
    }
    return 0;
}

/* Whether the root variable is memory other invocations or the host see. */
static bool is_output(const q4spv_module *m, uint32_t root)
{
    const q4spv_inst *v = q4spv_def(m, root);
    if (!v || v->opcode != SpvOpVariable || v->count < 4)
        return false;
    const uint32_t sc = q4spv_iwords(m, v)[3];
    return sc == SpvStorageClassStorageBuffer || sc == SpvStorageClassUniform ||
           sc == SpvStorageClassPhysicalStorageBuffer;
}

static bool set_taint(flow *f, uint32_t id, uint32_t from)
{
    if (!id || id >= f->m->bound || f->taint[id] || !from)
        return false;
    f->taint[id] = from;
    return true;
}

static bool is_atomic_write(uint16_t op)
{
    return (op >= SpvOpAtomicStore && op <= SpvOpAtomicXor && op != SpvOpAtomicLoad) ||
           op == SpvOpAtomicFMinEXT || op == SpvOpAtomicFMaxEXT || op == SpvOpAtomicFAddEXT;
}

static bool is_terminator(uint16_t op)
{
    return op == SpvOpBranch || op == SpvOpBranchConditional || op == SpvOpSwitch ||
           op == SpvOpReturn || op == SpvOpReturnValue || op == SpvOpKill ||
           op == SpvOpUnreachable || op == SpvOpTerminateInvocation;
}

static bool cfg_build(cfg *g, const q4spv_module *m)
{
    size_t labels = 0;
    for (size_t k = 0; k < m->n_insts; k++)
        labels += m->insts[k].opcode == SpvOpLabel;
    g->b = calloc(labels + 1, sizeof *g->b);
    g->of_label = calloc(m->bound, sizeof *g->of_label);
    g->loop_merge = calloc(m->bound, 1);
    g->mark = calloc(labels + 1, 1);
    g->stack = calloc(labels + 1, sizeof *g->stack);
    if (!g->b || !g->of_label || !g->loop_merge || !g->mark || !g->stack)
        return false;
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        if (i->opcode == SpvOpLabel && i->result_id < m->bound) {
            g->b[g->n] = (block){ .first = k, .term = k };
            g->of_label[i->result_id] = (uint32_t)++g->n;
        } else if (g->n && is_terminator(i->opcode) && g->b[g->n - 1].term == g->b[g->n - 1].first) {
            g->b[g->n - 1].term = k;
        } else if (g->n && (i->opcode == SpvOpSelectionMerge || i->opcode == SpvOpLoopMerge) &&
                   i->n_refs >= 1) {
            uint32_t merge = q4spv_ref(m, i, 0);
            g->b[g->n - 1].merge = merge;
            if (i->opcode == SpvOpLoopMerge && merge < m->bound)
                g->loop_merge[merge] = 1;
        }
    }
    return true;
}

static void cfg_free(cfg *g)
{
    free(g->b);
    free(g->of_label);
    free(g->loop_merge);
    free(g->mark);
    free(g->stack);
}

/* Marks in g->mark the blocks whose running depends on the way block bi's branch
 * goes: those reachable from its targets before its construct's merge block (which
 * runs either way). A branch with no merge instruction of its own is a loop's exit
 * test: its exits are the targets that are loop merge blocks. Break edges lead the
 * walk out of the construct, so the region may hold more than the construct (more
 * findings, never fewer). Returns the block where the ways meet again (0: none). */
static uint32_t region(const q4spv_module *m, cfg *g, size_t bi)
{
    const block *b = &g->b[bi];
    const q4spv_inst *t = &m->insts[b->term];
    uint32_t stop = b->merge;
    size_t top = 0;
    memset(g->mark, 0, g->n);
    for (uint32_t r = 0; r < t->n_refs; r++) {
        uint32_t target = q4spv_ref(m, t, r);
        if (target >= m->bound || !g->of_label[target])
            continue;
        if (!b->merge && g->loop_merge[target]) {
            stop = target;
            continue;
        }
        if (target != stop && !g->mark[g->of_label[target] - 1]) {
            g->mark[g->of_label[target] - 1] = 1;
            g->stack[top++] = g->of_label[target] - 1;
        }
    }
    while (top) {
        const q4spv_inst *u = &m->insts[g->b[g->stack[--top]].term];
        for (uint32_t r = 0; r < u->n_refs; r++) {
            uint32_t target = q4spv_ref(m, u, r);
            if (target >= m->bound || !g->of_label[target] || target == stop ||
                g->mark[g->of_label[target] - 1])
                continue;
            g->mark[g->of_label[target] - 1] = 1;
            g->stack[top++] = g->of_label[target] - 1;
        }
    }
    return stop;
}

/* The taint of block bi's branch condition (OpBranchConditional, OpSwitch), or 0. */
static uint32_t branch_taint(const flow *f, size_t bi)
{
    const q4spv_inst *t = &f->m->insts[f->g.b[bi].term];
    if ((t->opcode != SpvOpBranchConditional && t->opcode != SpvOpSwitch) || t->n_refs < 1)
        return 0;
    uint32_t cond = q4spv_ref(f->m, t, 0);
    return cond < f->m->bound ? f->taint[cond] : 0;
}

/* Implicit flow: what a branch decided by a relaxed value writes to memory of the
 * invocation's own (locals, shared) and the values its ways merge (OpPhi) carry its
 * taint. Whether anything changed. */
static bool control_pass(flow *f)
{
    const q4spv_module *m = f->m;
    bool changed = false;
    for (size_t bi = 0; bi < f->g.n; bi++) {
        uint32_t from = branch_taint(f, bi);
        if (!from)
            continue;
        uint32_t stop = region(m, &f->g, bi);
        for (size_t ri = 0; ri < f->g.n; ri++) {
            bool in = f->g.mark[ri];
            if (!in && !(stop < m->bound && f->g.of_label[stop] == ri + 1))
                continue;
            for (size_t k = f->g.b[ri].first; k <= f->g.b[ri].term; k++) {
                const q4spv_inst *i = &m->insts[k];
                if (i->opcode == SpvOpPhi)
                    changed |= set_taint(f, i->result_id, from);
                else if (in && i->opcode == SpvOpStore && i->n_refs >= 2)
                    changed |= set_taint(f, root_of(m, q4spv_ref(m, i, 0)), from);
            }
        }
    }
    return changed;
}

/* One pass of the forward data flow; whether anything changed. */
static bool flow_pass(flow *f, uint32_t *ret_taint)
{
    const q4spv_module *m = f->m;
    bool changed = false;
    uint32_t fn = 0;
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        uint32_t from = 0;
        switch (i->opcode) {
        case SpvOpFunction:
            fn = i->result_id;
            break;
        case SpvOpStore:
            if (i->n_refs >= 2)
                changed |= set_taint(f, root_of(m, q4spv_ref(m, i, 0)), f->taint[q4spv_ref(m, i, 1)]);
            break;
        case SpvOpLoad:   /* as its memory (naming the mediump variable), else a seed */
            if (i->n_refs >= 1)
                changed |= set_taint(f, i->result_id, f->taint[root_of(m, q4spv_ref(m, i, 0))]
                                                   ? f->taint[root_of(m, q4spv_ref(m, i, 0))]
                                                   : f->relaxed[i->result_id] ? (uint32_t)k + 1 : 0);
            break;
        case SpvOpAccessChain:
        case SpvOpInBoundsAccessChain:
        case SpvOpPtrAccessChain:
        case SpvOpInBoundsPtrAccessChain:
            break;   /* pointers: their memory is tracked through root_of */
        case SpvOpReturnValue:
            if (i->n_refs >= 1 && fn && !ret_taint[fn] && f->taint[q4spv_ref(m, i, 0)]) {
                ret_taint[fn] = f->taint[q4spv_ref(m, i, 0)];
                changed = true;
            }
            break;
        case SpvOpFunctionCall: {
            const uint32_t callee = q4spv_ref(m, i, 0);
            const q4spv_inst *def = q4spv_def(m, callee);
            size_t p = def ? (size_t)(def - m->insts) + 1 : m->n_insts;
            for (uint32_t a = 1; a < i->n_refs && p < m->n_insts &&
                                 m->insts[p].opcode == SpvOpFunctionParameter; a++, p++) {
                const uint32_t arg = q4spv_ref(m, i, a), param = m->insts[p].result_id;
                const uint32_t arg_root = root_of(m, arg);
                /* values in; memory behind pointer parameters both ways */
                changed |= set_taint(f, param, f->taint[arg] ? f->taint[arg] : f->taint[arg_root]);
                changed |= set_taint(f, arg_root, f->taint[param]);
            }
            changed |= set_taint(f, i->result_id, callee < m->bound ? ret_taint[callee] : 0);
            break;
        }
        default:
            if (is_atomic_write(i->opcode)) {
                for (uint32_t r = 1; r < i->n_refs && !from; r++)
                    from = f->taint[q4spv_ref(m, i, r)];
                changed |= set_taint(f, root_of(m, q4spv_ref(m, i, 0)), from);
                break;
            }
            if (!i->result_id || !fn)
                break;
            if (f->relaxed[i->result_id] || is_f16(m, i->type_id))
                from = (uint32_t)k + 1;   /* a seed */
            for (uint32_t r = 0; r < i->n_refs && !from; r++)
                from = f->taint[q4spv_ref(m, i, r)];
            changed |= set_taint(f, i->result_id, from);
        }
    }
    return changed;
}

/* "'Out' at set 0 binding 1" for a buffer variable, "an image" for root 0. */
static void target_name(const q4spv_module *m, uint32_t root, char *buf, size_t size)
{
    uint32_t set = 0, binding = 0;
    if (!root) {
        snprintf(buf, size, "an image");
        return;
    }
    const char *name = q4spv_name(m, root);
    const q4spv_inst *v = q4spv_def(m, root), *ptr_type = v ? q4spv_def(m, v->type_id) : NULL;
    if ((!name || !*name) && ptr_type && ptr_type->count >= 4)
        name = q4spv_name(m, q4spv_iwords(m, ptr_type)[3]);   /* the block's name */
    q4spv_decoration(m, root, Q4SPV_NO_ID, SpvDecorationDescriptorSet, &set);
    q4spv_decoration(m, root, Q4SPV_NO_ID, SpvDecorationBinding, &binding);
    snprintf(buf, size, "%s%s%sset %u binding %u", name && *name ? "'" : "",
             name && *name ? name : "", name && *name ? "' at " : "", set, binding);
}

/* Whether instruction i writes memory the host or other invocations see: a store or
 * an atomic into a buffer (*root: its variable), or an image write (*root 0). */
static bool writes_output(const q4spv_module *m, const q4spv_inst *i, uint32_t *root)
{
    *root = 0;
    if (i->opcode == SpvOpImageWrite)
        return true;
    if ((i->opcode != SpvOpStore && !is_atomic_write(i->opcode)) || i->n_refs < 1)
        return false;
    *root = root_of(m, q4spv_ref(m, i, 0));
    return is_output(m, *root);
}

static const char *seed_kind(const flow *f, const q4spv_inst *seed)
{
    return f->relaxed[seed->result_id] ? "RelaxedPrecision (mediump)" : "16-bit float";
}

/* Where a tainted value is written to an output: one finding per seed. */
static void relaxed_outputs(lint *l, flow *f, uint8_t *seen)
{
    const q4spv_module *m = f->m;
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        uint32_t from = 0, root;
        if (!writes_output(m, i, &root))
            continue;
        if (i->opcode == SpvOpImageWrite && i->n_refs >= 3)
            from = f->taint[q4spv_ref(m, i, 2)];
        for (uint32_t r = 1; i->opcode != SpvOpImageWrite && r < i->n_refs && !from; r++)
            from = f->taint[q4spv_ref(m, i, r)];
        if (!from || seen[from])
            continue;
        seen[from] = 1;
        const q4spv_inst *seed = &m->insts[from - 1];
        char what[200], target[120];
        describe(m, from - 1, what, sizeof what);
        target_name(m, root, target, sizeof target);
        add(l, "relaxed", seed->result_id,
            "%s value %s reaches the store to %s: a driver may evaluate it in fp16",
            seed_kind(f, seed), what, target);
    }
}

/* The first output write of function fn (its OpFunction's result id), or NULL. */
static const q4spv_inst *function_output_write(const q4spv_module *m, uint32_t fn,
                                               uint32_t *root)
{
    const q4spv_inst *def = q4spv_def(m, fn);
    for (size_t k = def ? (size_t)(def - m->insts) : m->n_insts;
         k < m->n_insts && m->insts[k].opcode != SpvOpFunctionEnd; k++)
        if (writes_output(m, &m->insts[k], root))
            return &m->insts[k];
    return NULL;
}

/* Where a tainted value decides a branch whose ways differ in what they write to an
 * output (a store, or a call to a function that stores, in the region the branch
 * decides): one finding per seed not already named. */
static void relaxed_branches(lint *l, flow *f, uint8_t *seen)
{
    const q4spv_module *m = f->m;
    for (size_t bi = 0; bi < f->g.n; bi++) {
        uint32_t from = branch_taint(f, bi), root = 0;
        if (!from || seen[from])
            continue;
        region(m, &f->g, bi);
        bool guards = false;
        for (size_t ri = 0; ri < f->g.n && !guards; ri++)
            for (size_t k = f->g.b[ri].first; f->g.mark[ri] && k <= f->g.b[ri].term && !guards; k++) {
                const q4spv_inst *i = &m->insts[k];
                guards = writes_output(m, i, &root) ||
                         (i->opcode == SpvOpFunctionCall && i->n_refs >= 1 &&
                          function_output_write(m, q4spv_ref(m, i, 0), &root));
            }
        if (!guards)
            continue;
        seen[from] = 1;
        const q4spv_inst *seed = &m->insts[from - 1];
        const q4spv_inst *t = &m->insts[f->g.b[bi].term];
        uint32_t cond = q4spv_ref(m, t, 0);
        const q4spv_inst *c = q4spv_def(m, cond);
        char what[200], how[200] = "", target[120];
        describe(m, from - 1, what, sizeof what);
        if (c)
            describe(m, (size_t)(c - m->insts), how, sizeof how);
        target_name(m, root, target, sizeof target);
        add(l, "relaxed", seed->result_id,
            "%s value %s decides the %s on %s, which guards a store to %s: a driver may "
            "evaluate it in fp16 and go the other way",
            seed_kind(f, seed), what, t->opcode == SpvOpSwitch ? "switch" : "branch", how,
            target);
    }
}

static q4_status check_relaxed(lint *l, q4_error *err)
{
    const q4spv_module *m = l->m;
    flow f = { m, calloc(m->bound, sizeof *f.taint), calloc(m->bound, 1), { 0 } };
    uint32_t *ret_taint = calloc(m->bound, sizeof *ret_taint);
    uint8_t *seen = calloc(m->n_insts + 1, 1);
    q4_status st = Q4_OK;
    if (!f.taint || !f.relaxed || !ret_taint || !seen || !cfg_build(&f.g, m)) {
        st = q4_fail(err, Q4_ERR_NOMEM, "out of memory checking a SPIR-V module");
        goto out;
    }
    bool any = false;
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        const uint32_t *w = q4spv_iwords(m, i);
        if (i->opcode == SpvOpDecorate && i->count >= 3 &&
            w[2] == SpvDecorationRelaxedPrecision && w[1] < m->bound)
            f.relaxed[w[1]] = 1, any = true;
        if (i->opcode == SpvOpTypeFloat && i->count >= 3 && w[2] == 16)
            any = true;
    }
    /* A mediump variable may be 16-bit storage: whatever is loaded from it is relaxed. */
    for (size_t k = 0; k < m->n_insts; k++)
        if (m->insts[k].opcode == SpvOpVariable && m->insts[k].result_id < m->bound &&
            f.relaxed[m->insts[k].result_id])
            f.taint[m->insts[k].result_id] = (uint32_t)k + 1;
    /* Loops, calls and branches need a fixed point; each pass only adds taint, so it
     * ends. Control flow is followed too: a relaxed comparison that decides a branch
     * taints what the branch writes and merges (implicit flow). */
    for (int pass = 0; any && pass < 1000; pass++) {
        bool data = flow_pass(&f, ret_taint), control = control_pass(&f);
        if (!data && !control)
            break;
    }
    if (any) {
        relaxed_outputs(l, &f, seen);
        relaxed_branches(l, &f, seen);
    }
out:
    cfg_free(&f.g);
    free(seen);
    free(f.taint);
    free(f.relaxed);
    free(ret_taint);
    return st;
}

/* ---------------- instruction patterns ---------------- */

static bool glsl_inst(const q4spv_module *m, const q4spv_inst *i, uint32_t which)
{
    return i->opcode == SpvOpExtInst && i->ext_set == Q4SPV_EXT_GLSL_STD_450 &&
           i->count >= 5 && q4spv_iwords(m, i)[4] == which;
}

/* The value behind id, seeing through loads of a function variable stored once (as
 * unoptimised compilers leave every local): equal values compare equal. */
static uint32_t value_of(const q4spv_module *m, uint32_t id)
{
    for (int depth = 0; depth < 16; depth++) {
        const q4spv_inst *ld = q4spv_def(m, id);
        if (!ld || ld->opcode != SpvOpLoad || ld->n_refs < 1)
            return id;
        const uint32_t var = q4spv_ref(m, ld, 0);
        const q4spv_inst *v = q4spv_def(m, var);
        if (!v || v->opcode != SpvOpVariable || q4spv_iwords(m, v)[3] != SpvStorageClassFunction)
            return id;
        uint32_t stored = 0;
        int stores = 0;
        for (size_t k = 0; k < m->n_insts; k++)
            if (m->insts[k].opcode == SpvOpStore && m->insts[k].n_refs >= 2 &&
                q4spv_ref(m, &m->insts[k], 0) == var) {
                stored = q4spv_ref(m, &m->insts[k], 1);
                stores++;
            }
        if (stores != 1)
            return id;
        id = stored;
    }
    return id;
}

/* c == -(a * b) or c == -(b * a). */
static bool negated_product(const q4spv_module *m, uint32_t a, uint32_t b, uint32_t c)
{
    a = value_of(m, a);
    b = value_of(m, b);
    const q4spv_inst *neg = q4spv_def(m, value_of(m, c));
    if (!neg || neg->opcode != SpvOpFNegate || neg->n_refs < 1)
        return false;
    const q4spv_inst *mul = q4spv_def(m, value_of(m, q4spv_ref(m, neg, 0)));
    if (!mul || mul->opcode != SpvOpFMul || mul->n_refs < 2)
        return false;
    const uint32_t x = value_of(m, q4spv_ref(m, mul, 0)), y = value_of(m, q4spv_ref(m, mul, 1));
    return (x == a && y == b) || (x == b && y == a);
}

static void check_patterns(lint *l)
{
    const q4spv_module *m = l->m;
    char what[200];
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        const uint32_t *w = q4spv_iwords(m, i);
        if (glsl_inst(m, i, GLSLstd450Round)) {
            describe(m, k, what, sizeof what);
            add(l, "round", i->result_id, "GLSL round() %s leaves the direction of a .5 tie to "
                "the driver; SPEC requires roundEven()", what);
        } else if (i->opcode == SpvOpFMod || i->opcode == SpvOpFRem) {
            describe(m, k, what, sizeof what);
            add(l, "fmod", i->result_id, "%s has no precision of its own in Vulkan (inherited "
                "from x - y*floor(x/y) with a 2.5-ULP division): near a multiple of y drivers "
                "may differ by a whole y", what);
        } else if (glsl_inst(m, i, GLSLstd450Fma) && i->count >= 8 &&
                   negated_product(m, w[5], w[6], w[7])) {
            describe(m, k, what, sizeof what);
            add(l, "fma", i->result_id, "fma(a, b, -(a*b)) %s computes a product's rounding error "
                "only where fma is fused, which Vulkan does not promise (its precision is that "
                "of a multiply and an add): elsewhere it is 0", what);
        }
    }
}

q4_status q4spv_lint(const q4spv_module *m, q4spv_lint_report *out, q4_error *err)
{
    lint l = { m, out };
    memset(out, 0, sizeof *out);
    q4_status st = check_relaxed(&l, err);
    if (st == Q4_OK)
        check_patterns(&l);
    return st;
}

void q4spv_lint_text(const q4spv_lint_report *r, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (int k = 0; k < r->n && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s: %s", k ? "; " : "", r->f[k].check,
                                r->f[k].msg);
    if (r->total > r->n && len < size)
        snprintf(buf + len, size - len, " (and %d more)", r->total - r->n);
}
