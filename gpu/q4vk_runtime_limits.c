/* q4vk_runtime_limits.c: test-only lowered device limits (q4vk_test_limits).
 *
 * The context keeps the limits as the device reports them (ctx->probed) and the
 * ones the launchers see (ctx->info, via q4vk_info): lowering copies the first into
 * the second and lowers the four fields; nothing else changes. The environment
 * variable Q4CTS_TEST_LIMITS lowers them for a whole process (q4vk_create), so a
 * test can drive any program, q4cts included, down the limit-driven paths. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "q4vk_runtime_errors.h"
#include "q4vk_runtime_limits.h"

q4_status q4vk_test_limits_parse(const char *text, const char *what, q4vk_test_limits *out,
                                 q4_error *err)
{
    static const struct {
        const char *key;
        uint64_t min;
    } keys[] = { { "groups", 1 }, { "binding", 16 }, { "shared", 16384 }, { "invocations", 128 } };
    q4vk_test_limits lim = { 0 };
    const char *p = text ? text : "";

    /* One key=value per turn; after a comma another must follow ("groups=4," fails). */
    while (*p || (p > text && p[-1] == ',')) {
        size_t klen = strcspn(p, "=,");
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (strlen(keys[i].key) == klen && strncmp(p, keys[i].key, klen) == 0)
                k = i;
        if (k < 0 || p[klen] != '=')
            return q4_fail(err, Q4_ERR_ARG,
                           "%s '%s': expected key=value pairs separated by commas with keys "
                           "groups, binding, shared, invocations (e.g. groups=16,binding=4096)",
                           what, text);
        const char *num = p + klen + 1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(num, &end, 10);
        if (end == num || !(*end == ',' || *end == '\0') || errno || *num == '-' ||
            v < keys[k].min || v > (k == 1 ? UINT64_MAX : UINT32_MAX))
            return q4_fail(err, Q4_ERR_ARG,
                           "%s '%s': %s needs a whole number of at least %llu", what, text,
                           keys[k].key, (unsigned long long)keys[k].min);
        switch (k) {
        case 0: lim.max_groups = (uint32_t)v; break;
        case 1: lim.max_binding = v; break;
        case 2: lim.max_shared = (uint32_t)v; break;
        default: lim.max_invocations = (uint32_t)v; break;
        }
        p = *end ? end + 1 : end;
    }
    *out = lim;
    return Q4_OK;
}

static uint64_t lower(uint64_t device, uint64_t test)
{
    return test && test < device ? test : device;
}

void q4vk_lower_info(q4vk_device_info *info, const q4vk_test_limits *lim)
{
    if (!lim)
        return;
    for (int i = 0; i < 3; i++)
        info->max_group_count[i] = (uint32_t)lower(info->max_group_count[i], lim->max_groups);
    info->max_storage_range = lower(info->max_storage_range, lim->max_binding);
    info->max_shared_bytes = (uint32_t)lower(info->max_shared_bytes, lim->max_shared);
    info->max_invocations = (uint32_t)lower(info->max_invocations, lim->max_invocations);
    for (int i = 0; i < 3; i++)
        info->max_group_size[i] = (uint32_t)lower(info->max_group_size[i], info->max_invocations);
}

q4_status q4vk_set_test_limits(q4vk_context *ctx, const q4vk_test_limits *lim, q4_error *err)
{
    q4_status st = q4vk_check_alive(ctx, err);

    if (st != Q4_OK)
        return st;
    if (lim && ((lim->max_shared && lim->max_shared < 16384) ||
                (lim->max_invocations && lim->max_invocations < 128) ||
                (lim->max_binding && lim->max_binding < 16)))
        return q4_fail(err, Q4_ERR_ARG,
                       "q4vk_set_test_limits: shared %u, invocations %u and binding %llu must "
                       "be 0 or at least 16384, 128 and 16", lim->max_shared,
                       lim->max_invocations, (unsigned long long)lim->max_binding);
    ctx->info = ctx->probed;
    q4vk_lower_info(&ctx->info, lim);
    ctx->limits_lowered = memcmp(&ctx->info, &ctx->probed, sizeof ctx->probed) != 0;
    return Q4_OK;
}

/* The smaller of two limits, 0 meaning none. */
static uint64_t lower_of(uint64_t a, uint64_t b)
{
    return a && (!b || a < b) ? a : b;
}

q4_status q4vk_set_case_limits(q4vk_context *ctx, const q4vk_test_limits *lim, q4_error *err)
{
    q4_status st = q4vk_check_alive(ctx, err);
    if (st != Q4_OK)
        return st;
    q4vk_test_limits both = ctx->created_limits;
    if (lim) {
        both.max_groups = (uint32_t)lower_of(both.max_groups, lim->max_groups);
        both.max_binding = lower_of(both.max_binding, lim->max_binding);
        both.max_shared = (uint32_t)lower_of(both.max_shared, lim->max_shared);
        both.max_invocations = (uint32_t)lower_of(both.max_invocations, lim->max_invocations);
    }
    return q4vk_set_test_limits(ctx, &both, err);
}

q4_status q4vk_apply_test_limits(q4vk_context *ctx, const q4vk_test_limits *opt, q4_error *err)
{
    q4vk_test_limits lim = opt ? *opt : (q4vk_test_limits){ 0 };
    const char *env = getenv("Q4CTS_TEST_LIMITS");
    q4_status st;

    ctx->probed = ctx->info;
    if (!lim.max_groups && !lim.max_binding && !lim.max_shared && !lim.max_invocations &&
        env && env[0] &&
        (st = q4vk_test_limits_parse(env, "Q4CTS_TEST_LIMITS", &lim, err)) != Q4_OK)
        return st;
    ctx->created_limits = lim;
    return q4vk_set_test_limits(ctx, &lim, err);
}
