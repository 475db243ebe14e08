/* overrides.h: --kernel OP=FILE.spv, resolved to a built-in kernel and loaded. */
#ifndef Q4H_OVERRIDES_H
#define Q4H_OVERRIDES_H

#include "run_options.h"

/* Resolves each "NAME=FILE" (NAME a kernel, or an op that runs exactly one kernel)
 * and reads FILE as SPIR-V. *out holds n entries; free with q4h_overrides_free. */
q4_status q4h_overrides_load(const char *const *args, size_t n, q4h_override **out,
                             q4_error *err);
void q4h_overrides_free(q4h_override *o, size_t n);

#endif
