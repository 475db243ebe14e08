/* op_support.h: support checks and sizes shared by the op descriptors. */
#ifndef Q4H_OP_SUPPORT_H
#define Q4H_OP_SUPPORT_H

#include "op.h"

/* The case's inputs and outputs must fit in the device's largest device-local heap. */
void q4h_support_memory(const q4_case *c, const q4vk_device_info *info, char *why, size_t size);
/* Packed weight and scale bytes of an [N, K] q4gsw weight. */
double q4h_weight_bytes(int64_t N, int64_t K, int64_t gs);

#endif
