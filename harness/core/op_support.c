/* op_support.c: support checks and sizes shared by the op descriptors. */
#include "op_support.h"

#include <stdio.h>

#include "device_io.h"

void q4h_support_memory(const q4_case *c, const q4vk_device_info *info, char *why, size_t size)
{
    const q4h_op *op = q4h_op_of(c);
    /* Inputs + outputs, with the guard words and some room for the driver's own use. */
    double need = op->bytes(c) + 16.0 * Q4H_GUARD_BYTES;
    why[0] = '\0';
    if (info->device_local_bytes && need > 0.9 * (double)info->device_local_bytes)
        snprintf(why, size, "the case needs %.0f MiB of device memory; the device's largest "
                 "device-local heap has %.0f MiB", need / 1048576.0,
                 (double)info->device_local_bytes / 1048576.0);
}

double q4h_weight_bytes(int64_t N, int64_t K, int64_t gs)
{
    return 4.0 * (double)q4_w4x8_words(N, K) + 4.0 * (double)q4_scales_count(N, K, gs);
}
