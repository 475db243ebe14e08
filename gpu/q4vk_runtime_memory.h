/* q4vk_runtime_memory.h: raw buffers and the staging buffer (q4vk_runtime_memory.c);
 * private to the runtime. */
#ifndef Q4VK_RUNTIME_MEMORY_H
#define Q4VK_RUNTIME_MEMORY_H

#include "q4vk_runtime.h"

/* A buffer with its own memory of a type with `required` (and if possible
 * `preferred`) properties; on failure nothing is left allocated. */
q4_status q4vk_raw_buffer(q4vk_context *ctx, VkDeviceSize bytes, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                          const char *what, VkBuffer *buffer, VkDeviceMemory *memory,
                          q4_error *err);

/* Destroys the staging buffer (context teardown). */
void q4vk_staging_destroy(q4vk_context *ctx);

#endif
