/* q4spv_module.h: a parsed SPIR-V module: the one reader of SPIR-V words that the
 * passes of spirv/ share (instrumentation, reflection, lint), and the validator.
 *
 * Parsing is SPIRV-Tools' (spvBinaryParse), so every opcode's result and type ids
 * come from the Khronos grammar, not from tables of our own. The module keeps a
 * pointer to the caller's words: they must outlive it. */
#ifndef Q4SPV_MODULE_H
#define Q4SPV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

#define Q4SPV_NO_ID UINT32_MAX

/* One instruction: words[offset .. offset + count). */
typedef struct q4spv_inst {
    uint32_t offset;
    uint16_t opcode;
    uint16_t count;
    uint32_t type_id;     /* 0 if none */
    uint32_t result_id;   /* 0 if none */
    uint32_t ext_set;     /* an OpExtInst's instruction set: Q4SPV_EXT_*; 0 otherwise */
    uint32_t first_ref;   /* its id operands (neither result nor type): word indexes */
    uint32_t n_refs;      /* within the instruction, refs[first_ref .. + n_refs) */
} q4spv_inst;

enum { Q4SPV_EXT_NONE, Q4SPV_EXT_GLSL_STD_450, Q4SPV_EXT_OTHER };

typedef struct q4spv_module {
    const uint32_t *words;
    size_t n_words;
    uint32_t version;     /* 0x00010300 is SPIR-V 1.3 */
    uint32_t bound;       /* every id is below this */
    q4spv_inst *insts;
    size_t n_insts;
    uint16_t *refs;       /* word index, within its instruction, of each id operand */
    size_t n_refs;
    uint32_t *def;        /* def[id]: index in insts of the instruction defining id, or
                             Q4SPV_NO_ID */
} q4spv_module;

/* Parses words[0 .. n); on failure Q4_ERR_ARG with SPIRV-Tools' diagnostic. */
q4_status q4spv_parse(const uint32_t *words, size_t n, q4spv_module *m, q4_error *err);
void q4spv_module_free(q4spv_module *m);

/* Word i (0 = the opcode word) of instruction k. */
static inline uint32_t q4spv_word(const q4spv_module *m, size_t k, uint32_t i)
{
    return m->words[m->insts[k].offset + i];
}

/* The words of instruction in (operands from [1]). */
static inline const uint32_t *q4spv_iwords(const q4spv_module *m, const q4spv_inst *in)
{
    return m->words + in->offset;
}

/* Id operand r (0 <= r < in->n_refs) of instruction in: an id it uses, as the grammar
 * says (data flow needs no guessing which words are ids). */
static inline uint32_t q4spv_ref(const q4spv_module *m, const q4spv_inst *in, uint32_t r)
{
    return m->words[in->offset + m->refs[in->first_ref + r]];
}

/* "FMul" for OpFMul (SPIRV-Tools' names). */
const char *q4spv_opcode_name(uint32_t opcode);

/* The OpName of id, or NULL; points into the module's words. */
const char *q4spv_name(const q4spv_module *m, uint32_t id);

/* The instruction that defines id, or NULL. */
const q4spv_inst *q4spv_def(const q4spv_module *m, uint32_t id);

/* Decoration `decoration` of id (OpDecorate, member == Q4SPV_NO_ID) or of member
 * `member` of struct id (OpMemberDecorate): true if present, its first literal (if
 * any) into *value (value may be NULL). */
bool q4spv_decoration(const q4spv_module *m, uint32_t id, uint32_t member, uint32_t decoration,
                      uint32_t *value);

/* The literal string that starts at word `first` of instruction k, copied into out
 * (truncated to size - 1 bytes). */
void q4spv_string(const q4spv_module *m, size_t k, uint32_t first, char *out, size_t size);

/* Whether the module declares OpExtension `name`. */
bool q4spv_has_extension(const q4spv_module *m, const char *name);

/* The value of an OpConstant of a 32-bit integer type: true and *value if id is one. */
bool q4spv_const_u32(const q4spv_module *m, uint32_t id, uint32_t *value);

/* SPIRV-Tools' validator (spirv-val) for the Vulkan environment that matches the
 * module's SPIR-V version: Q4_OK, or Q4_ERR_ARG "<what> is not valid SPIR-V for
 * Vulkan: <diagnostic>". */
q4_status q4spv_validate(const uint32_t *words, size_t n, const char *what, q4_error *err);

#endif
