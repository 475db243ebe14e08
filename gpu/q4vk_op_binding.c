/* q4vk_op_binding.c: binding ranges shared by the launchers. */
#include "q4vk.h"

uint64_t q4vk_range_to_end(const q4vk_context *ctx, const q4vk_buffer *buf, uint64_t offset)
{
    uint64_t size = q4vk_buffer_size(buf), limit = q4vk_info(ctx)->max_storage_range;
    uint64_t rest = size > offset ? size - offset : 0;
    return (rest < limit ? rest : limit) & ~(uint64_t)3;
}
