/* backend_vulkan.h: the Vulkan backend (backend.h): the cases' kernels in a q4vk
 * context of this process, the built-in ones, --kernel SPIR-V or an --interface
 * file's, with --bounds-check, --race-check and --shader-coverage through the
 * context's probes. */
#ifndef Q4H_BACKEND_VULKAN_H
#define Q4H_BACKEND_VULKAN_H

#include "backend.h"

extern const q4h_backend_i q4h_backend_vulkan;

/* Creates a context with opt's device options and overrides installed; a reopened
 * one (after a lost device or a dead worker) gets no injected faults. (perf times its
 * cases on such a context directly.) */
q4_status q4h_vk_open(const q4h_run_options *opt, bool reopen, q4vk_context **ctx,
                      q4_error *err);

/* A Vulkan API version as "1.3.255". */
void q4h_vk_api_string(uint32_t v, char *buf, size_t size);
/* The context of a Vulkan backend b (NULL: the device was lost and could not be
 * reopened), for tests that look at what a case left on it and for device-resident
 * training steps. */
q4vk_context *q4h_vk_context(q4h_backend *b);
/* What the probes found since the last call (--bounds-check, --race-check) into obs. */
void q4h_vk_take_probes(q4vk_context *ctx, q4h_observations *obs);

#endif
