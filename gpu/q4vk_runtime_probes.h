/* q4vk_runtime_probes.h: the coverage, bounds and race probes: their code, buffer
 * and read-back (q4vk_runtime_probes.c); private to the runtime. */
#ifndef Q4VK_RUNTIME_PROBES_H
#define Q4VK_RUNTIME_PROBES_H

#include "q4vk_runtime.h"

/* Whether the context probes its kernels (q4vk_options.probes). */
bool q4vk_probing(const q4vk_context *ctx);
/* The probed code of `words` into *out (*out_n words, malloc'ed) and *map, checked
 * with spirv-val; `what` names the code in errors. */
q4_status q4vk_probes_instrument(q4vk_context *ctx, const char *what, const uint32_t *words,
                                 size_t n, uint32_t **out, size_t *out_n, q4spv_map **map,
                                 q4_error *err);
/* The layout of set 1 (the probe buffer at binding 0), made on first use. */
q4_status q4vk_probes_set_layout(q4vk_context *ctx, VkDescriptorSetLayout *out, q4_error *err);
/* Before a submission: at[i] gets the byte offset of dispatch i's region of the probe
 * buffer (UINT64_MAX for an unprobed pipeline), each region initialised with its
 * bindings' data limits. */
q4_status q4vk_probes_prepare(q4vk_context *ctx, const q4vk_dispatch *d, int n, uint64_t *at,
                              q4_error *err);
/* The probe buffer's range for dispatch i, for its descriptor. */
void q4vk_probes_descriptor(const q4vk_context *ctx, const q4vk_dispatch *d, uint64_t at,
                            VkDescriptorBufferInfo *info);
/* After the submission finished: hands each region to the hook and keeps the first
 * out-of-bounds load for q4vk_take_oob. */
void q4vk_probes_collect(q4vk_context *ctx, const q4vk_dispatch *d, int n, const uint64_t *at);
/* Context teardown. */
void q4vk_probes_destroy(q4vk_context *ctx);

#endif
