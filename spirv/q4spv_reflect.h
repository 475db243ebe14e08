/* q4spv_reflect.h: the interface of a SPIR-V compute module, read from its parsed
 * instructions (q4spv_module.h): entry points, descriptor bindings, the push-constant
 * block's size, specialisation-constant ids and the local size; and how two
 * interfaces differ, as a sentence. */
#ifndef Q4SPV_REFLECT_H
#define Q4SPV_REFLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "q4spv_module.h"

/* Descriptor types, as VkDescriptorType would name them. */
typedef enum q4spv_desc {
    Q4SPV_DESC_STORAGE_BUFFER,
    Q4SPV_DESC_UNIFORM_BUFFER,
    Q4SPV_DESC_STORAGE_IMAGE,
    Q4SPV_DESC_SAMPLED_IMAGE,
    Q4SPV_DESC_SAMPLER,
    Q4SPV_DESC_COMBINED_IMAGE_SAMPLER,
    Q4SPV_DESC_UNIFORM_TEXEL_BUFFER,
    Q4SPV_DESC_STORAGE_TEXEL_BUFFER,
    Q4SPV_DESC_OTHER,
} q4spv_desc;

const char *q4spv_desc_name(q4spv_desc d);

typedef struct q4spv_binding {
    uint32_t set, binding;
    q4spv_desc type;
    uint32_t storage_class;    /* SpvStorageClass of the variable */
    uint32_t count;            /* array elements; 1 for a single descriptor, 0 unsized */
    uint32_t var;              /* the OpVariable's id */
    bool non_writable;         /* every member NonWritable (GLSL readonly) */
    uint64_t block_bytes;      /* size of the block's explicit layout (0: none or unknown) */
} q4spv_binding;

#define Q4SPV_REFLECT_MAX_ENTRIES 8
#define Q4SPV_REFLECT_MAX_BINDINGS 32
#define Q4SPV_REFLECT_MAX_SPEC 64

typedef struct q4spv_entry {
    char name[64];
    uint32_t model;            /* SpvExecutionModel */
    uint32_t id;
} q4spv_entry;

typedef struct q4spv_interface {
    int n_entries;
    q4spv_entry entries[Q4SPV_REFLECT_MAX_ENTRIES];
    int main_entry;            /* index of the GLCompute entry point "main"; -1: none */
    int n_bindings;            /* sorted by (set, binding) */
    q4spv_binding bindings[Q4SPV_REFLECT_MAX_BINDINGS];
    uint32_t push_bytes;       /* size of the push-constant block; 0 without one */
    int n_spec;                /* sorted, distinct */
    uint32_t spec_ids[Q4SPV_REFLECT_MAX_SPEC];
    /* Local size of the main entry: each dimension a literal, or taken from a
     * specialisation constant (local_size_spec[d] = its id, local_size[d] = its default);
     * local_size_spec[d] = -1 for a literal. local_size 0: none declared. */
    uint32_t local_size[3];
    int64_t local_size_spec[3];
} q4spv_interface;

/* Reflects m (parsed, ideally validated). Q4_ERR_ARG when the module declares more
 * entry points, bindings or specialisation constants than the limits above. */
q4_status q4spv_reflect(const q4spv_module *m, q4spv_interface *out, q4_error *err);

/* The local size of entry point entry_id (an OpEntryPoint's function id) into
 * out->local_size and out->local_size_spec, as q4spv_reflect does for "main". */
void q4spv_reflect_local_size(const q4spv_module *m, uint32_t entry_id, q4spv_interface *out);

/* How `got` (a replacement) differs from `want` (the module it replaces), in the
 * things a dispatch of `want` fixes: the GLCompute entry point "main", every
 * descriptor (set, binding, type), the push-constant block's size, specialisation
 * ids that `want` does not have (the launcher never sets them), and the local size
 * (the same literal, or the same specialisation id). Writes the differences, joined
 * by "; ", into msg (empty when none) and returns how many there are. */
int q4spv_interface_diff(const q4spv_interface *want, const q4spv_interface *got, char *msg,
                         size_t size);

#endif
