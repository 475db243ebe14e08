/* q4vk_runtime_pipeline.h: the descriptor types of a pipeline's bindings and the
 * teardown of every pipeline (q4vk_runtime_pipeline.c); private to the runtime. */
#ifndef Q4VK_RUNTIME_PIPELINE_H
#define Q4VK_RUNTIME_PIPELINE_H

#include "q4vk_runtime.h"

/* The descriptor type of binding b of pipeline p. */
VkDescriptorType q4vk_binding_type(const q4vk_pipeline *p, uint32_t b);

/* Frees every pipeline and override (context teardown); destroys their Vulkan
 * objects only when `release` (false: a hung device keeps them). */
void q4vk_pipelines_destroy(q4vk_context *ctx, bool release);

#endif
