/* case_limits.h: the device-limit tokens of a case name (family small_device:
 * groups<G>, binding<B>, shared<S>, invocations<I>) and their ranges (case_limits.c);
 * q4_case_limit_key and q4_case_has_limits of q4case.h are defined there too. */
#ifndef Q4C_CASE_LIMITS_H
#define Q4C_CASE_LIMITS_H

#include <stddef.h>

#include "q4case.h"

/* The index (Q4_LIMIT_*) of the limit whose key is s[0..n), or -1. */
int q4c_limit_index(const char *s, size_t n);
/* Every lowered limit of c within its range: Q4_OK, or Q4_ERR_ARG with "device limit
 * <key><v> must be in <min>..<max>" (without the case-name prefix). */
q4_status q4c_check_limits(const q4_case *c, q4_error *err);

#endif
