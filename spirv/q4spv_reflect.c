/* q4spv_reflect.c: a compute module's interface from its instruction index, and the
 * differences between two interfaces (q4spv_reflect.h). Order: types and sizes,
 * descriptors, local size, q4spv_reflect, q4spv_interface_diff. */
#include "q4spv_reflect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

const char *q4spv_desc_name(q4spv_desc d)
{
    switch (d) {
    case Q4SPV_DESC_STORAGE_BUFFER: return "storage buffer";
    case Q4SPV_DESC_UNIFORM_BUFFER: return "uniform buffer";
    case Q4SPV_DESC_STORAGE_IMAGE: return "storage image";
    case Q4SPV_DESC_SAMPLED_IMAGE: return "sampled image";
    case Q4SPV_DESC_SAMPLER: return "sampler";
    case Q4SPV_DESC_COMBINED_IMAGE_SAMPLER: return "combined image sampler";
    case Q4SPV_DESC_UNIFORM_TEXEL_BUFFER: return "uniform texel buffer";
    case Q4SPV_DESC_STORAGE_TEXEL_BUFFER: return "storage texel buffer";
    default: return "descriptor of another type";
    }
}

/* ---------------- types and sizes ---------------- */

/* The value of an OpConstant (32-bit part), or `otherwise`. */
static uint32_t constant_value(const q4spv_module *m, uint32_t id, uint32_t otherwise)
{
    const q4spv_inst *i = q4spv_def(m, id);
    if (i && (i->opcode == SpvOpConstant || i->opcode == SpvOpSpecConstant) && i->count >= 4)
        return q4spv_iwords(m, i)[3];
    return otherwise;
}

/* OpMemberDecorate struct_id member decoration -> its literal, or -1. */
static int64_t member_decoration(const q4spv_module *m, uint32_t struct_id, uint32_t member,
                                 uint32_t decoration)
{
    uint32_t v = 0;
    return q4spv_decoration(m, struct_id, member, decoration, &v) ? (int64_t)v : -1;
}

/* Bytes a value of type id occupies in an explicitly laid-out block (0: unsized or
 * unknown). depth bounds the recursion of a malformed module. */
static uint64_t type_size(const q4spv_module *m, uint32_t id, int depth)
{
    const q4spv_inst *t = q4spv_def(m, id);
    if (!t || depth > 16)
        return 0;
    const uint32_t *w = q4spv_iwords(m, t);
    uint32_t stride;
    switch (t->opcode) {
    case SpvOpTypeBool: return 4;
    case SpvOpTypeInt:
    case SpvOpTypeFloat: return t->count >= 3 ? w[2] / 8 : 0;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix: return t->count >= 4 ? w[3] * type_size(m, w[2], depth + 1) : 0;
    case SpvOpTypeArray:
        if (t->count < 4)
            return 0;
        if (!q4spv_decoration(m, t->result_id, Q4SPV_NO_ID, SpvDecorationArrayStride, &stride))
            stride = (uint32_t)type_size(m, w[2], depth + 1);
        return (uint64_t)constant_value(m, w[3], 0) * stride;
    case SpvOpTypeStruct: {
        uint64_t end = 0;
        for (uint32_t k = 2; k < t->count; k++) {
            int64_t off = member_decoration(m, t->result_id, k - 2, SpvDecorationOffset);
            uint64_t e = (off < 0 ? end : (uint64_t)off) + type_size(m, w[k], depth + 1);
            if (e > end)
                end = e;
        }
        return end;
    }
    default: return 0;
    }
}

/* The type a pointer type points to, with arrays of it unwrapped; *count gets the
 * array length (1 when not an array, 0 for a runtime array). */
static const q4spv_inst *pointee(const q4spv_module *m, uint32_t ptr_type, uint32_t *count)
{
    const q4spv_inst *p = q4spv_def(m, ptr_type);
    *count = 1;
    if (!p || p->opcode != SpvOpTypePointer || p->count < 4)
        return NULL;
    const q4spv_inst *t = q4spv_def(m, q4spv_iwords(m, p)[3]);
    for (int depth = 0; t && depth < 8; depth++) {
        if (t->opcode == SpvOpTypeArray && t->count >= 4)
            *count *= constant_value(m, q4spv_iwords(m, t)[3], 0);
        else if (t->opcode == SpvOpTypeRuntimeArray)
            *count = 0;
        else
            break;
        t = q4spv_def(m, q4spv_iwords(m, t)[2]);
    }
    return t;
}

/* ---------------- descriptors ---------------- */

static q4spv_desc descriptor_type(const q4spv_module *m, uint32_t storage,
                                  const q4spv_inst *t)
{
    if (storage == SpvStorageClassStorageBuffer)
        return Q4SPV_DESC_STORAGE_BUFFER;
    if (!t)
        return Q4SPV_DESC_OTHER;
    if (storage == SpvStorageClassUniform && t->opcode == SpvOpTypeStruct)
        return q4spv_decoration(m, t->result_id, Q4SPV_NO_ID, SpvDecorationBufferBlock, NULL)
                   ? Q4SPV_DESC_STORAGE_BUFFER : Q4SPV_DESC_UNIFORM_BUFFER;
    if (storage != SpvStorageClassUniformConstant)
        return Q4SPV_DESC_OTHER;
    if (t->opcode == SpvOpTypeSampler)
        return Q4SPV_DESC_SAMPLER;
    if (t->opcode == SpvOpTypeSampledImage)
        return Q4SPV_DESC_COMBINED_IMAGE_SAMPLER;
    if (t->opcode == SpvOpTypeImage && t->count >= 8) {
        const uint32_t *w = q4spv_iwords(m, t);
        const int storage_image = w[7] == 2, buffer = w[3] == SpvDimBuffer;
        if (buffer)
            return storage_image ? Q4SPV_DESC_STORAGE_TEXEL_BUFFER : Q4SPV_DESC_UNIFORM_TEXEL_BUFFER;
        return storage_image ? Q4SPV_DESC_STORAGE_IMAGE : Q4SPV_DESC_SAMPLED_IMAGE;
    }
    return Q4SPV_DESC_OTHER;
}

/* GLSL's readonly: glslang decorates every member of the block NonWritable. */
static bool non_writable(const q4spv_module *m, const q4spv_inst *t)
{
    if (!t || t->opcode != SpvOpTypeStruct || t->count < 3)
        return false;
    for (uint32_t k = 0; k + 2 < t->count; k++)
        if (!q4spv_decoration(m, t->result_id, k, SpvDecorationNonWritable, NULL))
            return false;
    return true;
}

static int by_set_binding(const void *a, const void *b)
{
    const q4spv_binding *x = a, *y = b;
    if (x->set != y->set)
        return x->set < y->set ? -1 : 1;
    return x->binding < y->binding ? -1 : x->binding > y->binding;
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* ---------------- local size ---------------- */

/* Dimension d of the local size from constant id c: a literal, or a spec constant. */
static void local_dim(const q4spv_module *m, uint32_t c, int d, q4spv_interface *out)
{
    uint32_t spec;
    out->local_size[d] = constant_value(m, c, 0);
    out->local_size_spec[d] = q4spv_decoration(m, c, Q4SPV_NO_ID, SpvDecorationSpecId, &spec) ? (int64_t)spec : -1;
}

/* LocalSize / LocalSizeId of the main entry, overridden by a WorkgroupSize built-in
 * (as SPIR-V specifies). */
void q4spv_reflect_local_size(const q4spv_module *m, uint32_t entry, q4spv_interface *out)
{
    for (int d = 0; d < 3; d++)
        out->local_size_spec[d] = -1;
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        const uint32_t *w = q4spv_iwords(m, i);
        if (i->count < 6 || w[1] != entry)
            continue;
        if (i->opcode == SpvOpExecutionMode && w[2] == SpvExecutionModeLocalSize)
            for (int d = 0; d < 3; d++)
                out->local_size[d] = w[3 + d];
        if (i->opcode == SpvOpExecutionModeId && w[2] == SpvExecutionModeLocalSizeId)
            for (int d = 0; d < 3; d++)
                local_dim(m, w[3 + d], d, out);
    }
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        const uint32_t *w = q4spv_iwords(m, i);
        if (i->opcode != SpvOpDecorate || i->count < 4 || w[2] != SpvDecorationBuiltIn ||
            w[3] != SpvBuiltInWorkgroupSize)
            continue;
        const q4spv_inst *c = q4spv_def(m, w[1]);
        if (c && (c->opcode == SpvOpConstantComposite || c->opcode == SpvOpSpecConstantComposite) &&
            c->count >= 6)
            for (int d = 0; d < 3; d++)
                local_dim(m, q4spv_iwords(m, c)[3 + d], d, out);
    }
}

/* ---------------- reflection ---------------- */

q4_status q4spv_reflect(const q4spv_module *m, q4spv_interface *out, q4_error *err)
{
    memset(out, 0, sizeof *out);
    out->main_entry = -1;
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *i = &m->insts[k];
        const uint32_t *w = q4spv_iwords(m, i);
        uint32_t set, binding, spec, count;
        if (i->opcode == SpvOpEntryPoint && i->count >= 4) {
            if (out->n_entries == Q4SPV_REFLECT_MAX_ENTRIES)
                return q4_fail(err, Q4_ERR_ARG, "the module has more than %d entry points",
                               Q4SPV_REFLECT_MAX_ENTRIES);
            q4spv_entry *e = &out->entries[out->n_entries];
            e->model = w[1];
            e->id = w[2];
            q4spv_string(m, (size_t)(i - m->insts), 3, e->name, sizeof e->name);
            if (e->model == SpvExecutionModelGLCompute && !strcmp(e->name, "main") &&
                out->main_entry < 0)
                out->main_entry = out->n_entries;
            out->n_entries++;
        } else if (i->opcode == SpvOpDecorate && i->count >= 4 &&
                   w[2] == SpvDecorationSpecId) {
            spec = w[3];
            int seen = 0;
            for (int s = 0; s < out->n_spec; s++)
                seen |= out->spec_ids[s] == spec;
            if (!seen && out->n_spec == Q4SPV_REFLECT_MAX_SPEC)
                return q4_fail(err, Q4_ERR_ARG, "the module has more than %d specialisation "
                               "constants", Q4SPV_REFLECT_MAX_SPEC);
            if (!seen)
                out->spec_ids[out->n_spec++] = spec;
        } else if (i->opcode == SpvOpVariable && i->count >= 4) {
            const uint32_t storage = w[3];
            if (storage == SpvStorageClassPushConstant) {
                const q4spv_inst *t = pointee(m, i->type_id, &count);
                uint64_t bytes = t ? type_size(m, t->result_id, 0) : 0;
                out->push_bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
            } else if (q4spv_decoration(m, i->result_id, Q4SPV_NO_ID, SpvDecorationDescriptorSet, &set) &&
                       q4spv_decoration(m, i->result_id, Q4SPV_NO_ID, SpvDecorationBinding, &binding)) {
                if (out->n_bindings == Q4SPV_REFLECT_MAX_BINDINGS)
                    return q4_fail(err, Q4_ERR_ARG, "the module has more than %d descriptor "
                                   "bindings", Q4SPV_REFLECT_MAX_BINDINGS);
                const q4spv_inst *t = pointee(m, i->type_id, &count);
                out->bindings[out->n_bindings++] = (q4spv_binding){
                    set, binding, descriptor_type(m, storage, t), storage, count, i->result_id,
                    non_writable(m, t), t ? type_size(m, t->result_id, 0) : 0 };
            }
        }
    }
    qsort(out->bindings, (size_t)out->n_bindings, sizeof out->bindings[0], by_set_binding);
    qsort(out->spec_ids, (size_t)out->n_spec, sizeof out->spec_ids[0], by_value);
    if (out->main_entry >= 0)
        q4spv_reflect_local_size(m, out->entries[out->main_entry].id, out);
    return Q4_OK;
}

/* ---------------- differences ---------------- */

typedef struct diff_text {
    char *msg;
    size_t size, len;
    int n;
} diff_text;

static void add(diff_text *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(diff_text *d, const char *fmt, ...)
{
    va_list ap;
    if (d->n++ && d->len < d->size)
        d->len += (size_t)snprintf(d->msg + d->len, d->size - d->len, "; ");
    if (d->len >= d->size)
        return;
    va_start(ap, fmt);
    d->len += (size_t)vsnprintf(d->msg + d->len, d->size - d->len, fmt, ap);
    va_end(ap);
}

static const q4spv_binding *find_binding(const q4spv_interface *f, uint32_t set, uint32_t b)
{
    for (int i = 0; i < f->n_bindings; i++)
        if (f->bindings[i].set == set && f->bindings[i].binding == b)
            return &f->bindings[i];
    return NULL;
}

static int has_spec(const q4spv_interface *f, uint32_t id)
{
    for (int i = 0; i < f->n_spec; i++)
        if (f->spec_ids[i] == id)
            return 1;
    return 0;
}

int q4spv_interface_diff(const q4spv_interface *want, const q4spv_interface *got, char *msg,
                         size_t size)
{
    diff_text d = { msg, size, 0, 0 };
    static const char dim[3] = { 'x', 'y', 'z' };
    if (size)
        msg[0] = '\0';
    if (got->main_entry < 0) {
        char names[160] = "";
        size_t len = 0;
        for (int i = 0; i < got->n_entries && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", i ? ", " : "",
                                    got->entries[i].name);
        add(&d, "no GLCompute entry point named 'main' (it has %s)",
            got->n_entries ? names : "no entry point");
    }
    for (int i = 0; i < want->n_bindings; i++) {
        const q4spv_binding *w = &want->bindings[i];
        if (!find_binding(got, w->set, w->binding) &&
            (i == 0 || by_set_binding(w, w - 1) != 0))
            add(&d, "set %u binding %u (a %s) is missing", w->set, w->binding,
                q4spv_desc_name(w->type));
    }
    /* Every variable counts: a binding may be declared several times (aliases). */
    for (int i = 0; i < got->n_bindings; i++) {
        const q4spv_binding *g = &got->bindings[i];
        const q4spv_binding *w = find_binding(want, g->set, g->binding);
        if (i > 0 && by_set_binding(g, g - 1) == 0 && g->type == g[-1].type)
            continue;   /* an alias already judged */
        if (!w)
            add(&d, "set %u binding %u (a %s) is not in the interface", g->set, g->binding,
                q4spv_desc_name(g->type));
        else if (g->type != w->type)
            add(&d, "set %u binding %u is a %s, expected a %s", g->set, g->binding,
                q4spv_desc_name(g->type), q4spv_desc_name(w->type));
    }
    if (got->push_bytes != want->push_bytes)
        add(&d, "the push-constant block is %u bytes, expected %u", got->push_bytes,
            want->push_bytes);
    for (int i = 0; i < got->n_spec; i++)
        if (!has_spec(want, got->spec_ids[i]))
            add(&d, "specialisation constant id %u is never set by the launcher",
                got->spec_ids[i]);
    for (int k = 0; got->main_entry >= 0 && k < 3; k++) {
        if (want->local_size_spec[k] >= 0 && got->local_size_spec[k] != want->local_size_spec[k])
            add(&d, "local size %c must come from specialisation constant id %lld, as the "
                "launcher sets it", dim[k], (long long)want->local_size_spec[k]);
        else if (want->local_size_spec[k] < 0 && got->local_size_spec[k] >= 0)
            add(&d, "local size %c comes from specialisation constant id %lld, expected the "
                "literal %u", dim[k], (long long)got->local_size_spec[k], want->local_size[k]);
        else if (want->local_size_spec[k] < 0 && got->local_size[k] != want->local_size[k])
            add(&d, "local size %c is %u, expected %u", dim[k], got->local_size[k],
                want->local_size[k]);
    }
    return d.n;
}
