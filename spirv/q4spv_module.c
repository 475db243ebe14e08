/* q4spv_module.c: parsing a SPIR-V module into an instruction index, and validating
 * one (q4spv_module.h). The only file of q4cts that includes libspirv.h: in C, its
 * `const uint32_t kDefaultMaxIdBound` is a definition, so two includers clash at link. */
#include "q4spv_module.h"

#include <stdlib.h>
#include <string.h>

#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>

typedef struct parse_state {
    q4spv_module *m;
    size_t cap, refs_cap;
    int nomem;
} parse_state;

static spv_result_t on_header(void *user, spv_endianness_t endian, uint32_t magic,
                              uint32_t version, uint32_t generator, uint32_t id_bound,
                              uint32_t reserved)
{
    parse_state *s = user;
    (void)endian, (void)magic, (void)generator, (void)reserved;
    s->m->version = version;
    s->m->bound = id_bound;
    return SPV_SUCCESS;
}

static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *pi)
{
    parse_state *s = user;
    q4spv_module *m = s->m;
    if (m->n_insts == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        q4spv_inst *grown = realloc(m->insts, cap * sizeof *grown);
        if (!grown) {
            s->nomem = 1;
            return SPV_ERROR_OUT_OF_MEMORY;
        }
        m->insts = grown;
        s->cap = cap;
    }
    const uint32_t first_ref = (uint32_t)m->n_refs;
    for (uint16_t k = 0; k < pi->num_operands; k++) {
        const spv_operand_type_t t = pi->operands[k].type;
        if (t != SPV_OPERAND_TYPE_ID && t != SPV_OPERAND_TYPE_SCOPE_ID &&
            t != SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID)
            continue;
        if (m->n_refs == s->refs_cap) {
            size_t cap = s->refs_cap ? 2 * s->refs_cap : 4096;
            uint16_t *grown = realloc(m->refs, cap * sizeof *grown);
            if (!grown) {
                s->nomem = 1;
                return SPV_ERROR_OUT_OF_MEMORY;
            }
            m->refs = grown;
            s->refs_cap = cap;
        }
        m->refs[m->n_refs++] = pi->operands[k].offset;
    }
    m->insts[m->n_insts++] = (q4spv_inst){
        .offset = (uint32_t)(pi->words - m->words),
        .opcode = pi->opcode,
        .count = pi->num_words,
        .type_id = pi->type_id,
        .result_id = pi->result_id,
        .ext_set = pi->opcode != SpvOpExtInst ? Q4SPV_EXT_NONE
                   : pi->ext_inst_type == SPV_EXT_INST_TYPE_GLSL_STD_450 ? Q4SPV_EXT_GLSL_STD_450
                   : Q4SPV_EXT_OTHER,
        .first_ref = first_ref,
        .n_refs = (uint32_t)m->n_refs - first_ref,
    };
    return SPV_SUCCESS;
}

q4_status q4spv_parse(const uint32_t *words, size_t n, q4spv_module *m, q4_error *err)
{
    parse_state s = { .m = m };
    spv_diagnostic diag = NULL;
    q4_status st = Q4_OK;

    *m = (q4spv_module){ .words = words, .n_words = n };
    if (!words || n < 5 || words[0] != SpvMagicNumber)
        return q4_fail(err, Q4_ERR_ARG, "not a SPIR-V module (%zu words, first word 0x%08x; "
                       "expected at least 5 words starting with 0x%08x)", n,
                       words && n ? words[0] : 0u, SpvMagicNumber);
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    if (!ctx)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory creating a SPIRV-Tools context");
    spv_result_t r = spvBinaryParse(ctx, &s, words, n, on_header, on_inst, &diag);
    if (s.nomem)
        st = q4_fail(err, Q4_ERR_NOMEM, "out of host memory indexing a SPIR-V module of %zu "
                     "words", n);
    else if (r != SPV_SUCCESS)
        st = q4_fail(err, Q4_ERR_ARG, "the SPIR-V module cannot be parsed: %s",
                     diag && diag->error ? diag->error : "(no diagnostic)");
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    if (st == Q4_OK) {
        m->def = malloc((m->bound ? m->bound : 1) * sizeof *m->def);
        if (!m->def)
            st = q4_fail(err, Q4_ERR_NOMEM, "out of host memory indexing %u SPIR-V ids",
                         m->bound);
    }
    if (st != Q4_OK) {
        q4spv_module_free(m);
        return st;
    }
    for (uint32_t id = 0; id < m->bound; id++)
        m->def[id] = Q4SPV_NO_ID;
    for (size_t k = 0; k < m->n_insts; k++)
        if (m->insts[k].result_id && m->insts[k].result_id < m->bound)
            m->def[m->insts[k].result_id] = (uint32_t)k;
    return Q4_OK;
}

void q4spv_module_free(q4spv_module *m)
{
    if (!m)
        return;
    free(m->insts);
    free(m->refs);
    free(m->def);
    *m = (q4spv_module){ 0 };
}

const char *q4spv_opcode_name(uint32_t opcode)
{
    return spvOpcodeString(opcode);
}

const char *q4spv_name(const q4spv_module *m, uint32_t id)
{
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *in = &m->insts[k];
        if (in->opcode == SpvOpFunction)
            break; /* debug names come before any function */
        if (in->opcode == SpvOpName && in->count >= 3 && m->words[in->offset + 1] == id) {
            const char *s = (const char *)(m->words + in->offset + 2);
            return memchr(s, '\0', (size_t)(in->count - 2) * 4) ? s : NULL;
        }
    }
    return NULL;
}

const q4spv_inst *q4spv_def(const q4spv_module *m, uint32_t id)
{
    if (id >= m->bound || m->def[id] == Q4SPV_NO_ID)
        return NULL;
    return &m->insts[m->def[id]];
}

bool q4spv_decoration(const q4spv_module *m, uint32_t id, uint32_t member, uint32_t decoration,
                      uint32_t *value)
{
    for (size_t k = 0; k < m->n_insts; k++) {
        const q4spv_inst *in = &m->insts[k];
        const uint32_t *w = m->words + in->offset;
        if (in->opcode == SpvOpFunction)
            break; /* annotations come before any function */
        if (member == Q4SPV_NO_ID && in->opcode == SpvOpDecorate && in->count >= 3 &&
            w[1] == id && w[2] == decoration) {
            if (value && in->count >= 4)
                *value = w[3];
            return true;
        }
        if (member != Q4SPV_NO_ID && in->opcode == SpvOpMemberDecorate && in->count >= 4 &&
            w[1] == id && w[2] == member && w[3] == decoration) {
            if (value && in->count >= 5)
                *value = w[4];
            return true;
        }
    }
    return false;
}

void q4spv_string(const q4spv_module *m, size_t k, uint32_t first, char *out, size_t size)
{
    const q4spv_inst *in = &m->insts[k];
    size_t len = 0;
    if (!size)
        return;
    for (uint32_t i = first; i < in->count; i++) {
        uint32_t w = m->words[in->offset + i];
        for (int b = 0; b < 4; b++) {
            char c = (char)((w >> (8 * b)) & 0xFF);
            if (!c || len + 1 >= size) {
                out[len] = '\0';
                return;
            }
            out[len++] = c;
        }
    }
    out[len] = '\0';
}

bool q4spv_has_extension(const q4spv_module *m, const char *name)
{
    char buf[128];
    for (size_t k = 0; k < m->n_insts; k++) {
        if (m->insts[k].opcode == SpvOpFunction)
            break;
        if (m->insts[k].opcode != SpvOpExtension)
            continue;
        q4spv_string(m, k, 1, buf, sizeof buf);
        if (!strcmp(buf, name))
            return true;
    }
    return false;
}

bool q4spv_const_u32(const q4spv_module *m, uint32_t id, uint32_t *value)
{
    const q4spv_inst *c = q4spv_def(m, id);
    if (!c || c->opcode != SpvOpConstant || c->count != 4)
        return false;
    const q4spv_inst *t = q4spv_def(m, c->type_id);
    if (!t || t->opcode != SpvOpTypeInt || m->words[t->offset + 2] != 32)
        return false;
    *value = m->words[c->offset + 3];
    return true;
}

q4_status q4spv_validate(const uint32_t *words, size_t n, const char *what, q4_error *err)
{
    if (!words || n < 5)
        return q4_fail(err, Q4_ERR_ARG, "%s is not a SPIR-V module (%zu words)", what, n);
    /* The oldest Vulkan environment that accepts the module's version: Vulkan 1.1
     * takes SPIR-V 1.0 to 1.3, then 1.4, 1.5 (Vulkan 1.2) and 1.6 (Vulkan 1.3). */
    uint32_t version = words[1];
    spv_target_env env = version >= 0x10600   ? SPV_ENV_VULKAN_1_3
                         : version >= 0x10500 ? SPV_ENV_VULKAN_1_2
                         : version >= 0x10400 ? SPV_ENV_VULKAN_1_1_SPIRV_1_4
                                              : SPV_ENV_VULKAN_1_1;
    spv_context ctx = spvContextCreate(env);
    if (!ctx)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory creating a SPIRV-Tools context");
    spv_const_binary_t bin = { words, n };
    spv_diagnostic diag = NULL;
    spv_result_t r = spvValidate(ctx, &bin, &diag);
    q4_status st = Q4_OK;
    if (r != SPV_SUCCESS)
        st = q4_fail(err, Q4_ERR_ARG, "%s is not valid SPIR-V for Vulkan: %s", what,
                     diag && diag->error ? diag->error : "(no diagnostic)");
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return st;
}
