/* case_limits.c: the device-limit tokens of a case name (family small_device): their
 * keys, the same as Q4CTS_TEST_LIMITS's, and the range of each (case_limits.h). */
#include <stdint.h>
#include <string.h>

#include "case_desc.h"
#include "case_limits.h"

static const struct {
    const char *key;
    int64_t min, max;
} limits[Q4_CASE_LIMITS] = {
    [Q4_LIMIT_GROUPS] = {"groups", 1, UINT32_MAX},
    [Q4_LIMIT_BINDING] = {"binding", 16, Q4C_NUM_MAX},
    [Q4_LIMIT_SHARED] = {"shared", 16384, UINT32_MAX},
    [Q4_LIMIT_INVOCATIONS] = {"invocations", 128, UINT32_MAX},
};

const char *q4_case_limit_key(int i)
{
    return i >= 0 && i < Q4_CASE_LIMITS ? limits[i].key : NULL;
}

int q4_case_has_limits(const q4_case *c)
{
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (c->limit[i])
            return 1;
    return 0;
}

int q4c_limit_index(const char *s, size_t n)
{
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (strlen(limits[i].key) == n && strncmp(s, limits[i].key, n) == 0)
            return i;
    return -1;
}

q4_status q4c_check_limits(const q4_case *c, q4_error *err)
{
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (c->limit[i] && (c->limit[i] < limits[i].min || c->limit[i] > limits[i].max))
            return q4_fail(err, Q4_ERR_ARG, "device limit %s%lld must be in %lld..%lld",
                           limits[i].key, (long long)c->limit[i], (long long)limits[i].min,
                           (long long)limits[i].max);
    return Q4_OK;
}
