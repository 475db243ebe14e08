/* gpu_test_util.c: helpers for the GPU op tests (see gpu_test_util.h): generator,
 * guarded device buffers, the judge, device setup and the suite runner. Loops test
 * with `if` and abort on failure: every ck_assert that passes costs Check a write()
 * in no-fork mode. */
#include "gpu_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state;

void rng_seed(uint64_t seed) { rng_state = seed; }

uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);   /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float rng_uniform(float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rng_next() >> 40) / (double)(1ull << 24));
}

q4vk_buffer *dev_buf(q4vk_context *ctx, const void *src, size_t bytes)
{
    const size_t words = (bytes + 3) / 4 + GUARD_WORDS;
    uint32_t *init = malloc(words * 4);
    q4vk_buffer *b = NULL;
    q4_error err = {0};
    ck_assert_ptr_nonnull(init);
    for (size_t i = 0; i < words; i++)
        init[i] = i < (bytes + 3) / 4 ? SENTINEL : GUARD;
    if (src)
        memcpy(init, src, bytes);
    ck_assert_msg(q4vk_buffer_create(ctx, words * 4, &b, &err) == Q4_OK, "%s", err.msg);
    ck_assert_msg(q4vk_upload(ctx, b, 0, init, words * 4, &err) == Q4_OK, "%s", err.msg);
    free(init);
    return b;
}

q4vk_buffer *raw_buf(q4vk_context *ctx, size_t bytes)
{
    q4vk_buffer *b = NULL;
    q4_error err = {0};
    ck_assert_msg(q4vk_buffer_create(ctx, bytes, &b, &err) == Q4_OK, "%s", err.msg);
    /* zeros: valid scales and labels, so the launchers' value checks pass and a test
     * sees the argument check it is about */
    ck_assert_msg(q4vk_fill(ctx, b, 0, 0, 0, &err) == Q4_OK, "%s", err.msg);
    return b;
}

void dev_get(q4vk_context *ctx, q4vk_buffer *b, void *dst, size_t bytes, const char *what)
{
    const size_t words = (bytes + 3) / 4 + GUARD_WORDS;
    uint32_t *all = malloc(words * 4);
    q4_error err = {0};
    ck_assert_ptr_nonnull(all);
    ck_assert_msg(q4vk_download(ctx, b, 0, all, words * 4, &err) == Q4_OK, "%s", err.msg);
    for (size_t i = (bytes + 3) / 4; i < words; i++)
        if (all[i] != GUARD)
            ck_abort_msg("%s: guard word %zu after the output is 0x%08x", what,
                         i - (bytes + 3) / 4, all[i]);
    memcpy(dst, all, bytes);
    free(all);
    char race[Q4_MSG_MAX];
    if (q4vk_take_race(ctx, race, sizeof race))   /* Q4_TEST_RACE_CHECK=1 */
        ck_abort_msg("%s: shared-memory race: %s", what, race);
}

/* The judge of n elements; cols > 0 names a failing element by row and column. */
static double judge_elements(const char *what, const float *got, const double *value,
                             const double *bound, int64_t n, int64_t cols)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        const double e = fabs((double)got[i] - value[i]);
        if (!(e <= bound[i])) {
            if (cols > 0)
                ck_abort_msg("%s[%lld][%lld] = %.9g, truth %.17g, error %.3g > bound %.3g",
                             what, (long long)(i / cols), (long long)(i % cols), got[i],
                             value[i], e, bound[i]);
            ck_abort_msg("%s[%lld] = %.9g, truth %.17g, error %.3g > bound %.3g", what,
                         (long long)i, got[i], value[i], e, bound[i]);
        }
        if (bound[i] > 0 && e / bound[i] > worst)
            worst = e / bound[i];
    }
    return worst;
}

double judge(const char *what, const float *got, const double *value, const double *bound,
             int64_t n)
{
    return judge_elements(what, got, value, bound, n, 0);
}

double judge_matrix(const char *what, const float *got, const double *value,
                    const double *bound, int64_t rows, int64_t cols)
{
    return judge_elements(what, got, value, bound, rows * cols, cols);
}

/* Q4_TEST_KERNEL=NAME=FILE.spv runs FILE in place of built-in kernel NAME, so that a
 * mutant of a kernel (tests/mutations, "test:" line) can be run through the op tests
 * that check what q4cts cannot see, such as a flag that only chooses a path. */
static int set_test_kernel(q4vk_context *ctx)
{
    const char *spec = getenv("Q4_TEST_KERNEL");
    if (!spec || !*spec)
        return 0;
    const char *eq = strchr(spec, '=');
    FILE *f = eq ? fopen(eq + 1, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "Q4_TEST_KERNEL: need NAME=FILE.spv with a readable FILE, got '%s'\n",
                spec);
        return 1;
    }
    uint32_t *words = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap && !(words = realloc(words, (cap = cap ? 2 * cap : 4096) * 4)))
            break;
        size_t got = fread(words + n, 4, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    q4_error err = {0};
    if (!words || q4vk_set_override(ctx, name, words, n, &err) != Q4_OK) {
        fprintf(stderr, "Q4_TEST_KERNEL: %s\n", words ? err.msg : "out of memory");
        free(words);
        return 1;
    }
    free(words);
    printf("kernel %s: %s (Q4_TEST_KERNEL)\n", name, eq + 1);
    return 0;
}

int gpu_test_open(q4vk_context **ctx)
{
    q4vk_device_info info;
    q4_error err = {0};
    int count = 0;

    if (q4vk_enumerate(&info, 1, &count, &err) == Q4_ERR_UNSUPPORTED || count == 0) {
        printf("skipped: no Vulkan device (%s)\n", err.msg);
        return 77;
    }
    q4vk_options opt = {0};
    opt.log = stdout;
    /* Q4_TEST_RACE_CHECK=1: the race probes (docs/race-check.md); dev_get fails on a race */
    const char *race = getenv("Q4_TEST_RACE_CHECK");
    opt.probes.race = race && !strcmp(race, "1");
    if (q4vk_create(&opt, ctx, &err) != Q4_OK) {
        fprintf(stderr, "q4vk_create failed: %s\n", err.msg);
        return 1;
    }
    return set_test_kernel(*ctx);
}

int gpu_test_run(SRunner *sr, q4vk_context *ctx)
{
    int failed;
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    q4vk_destroy(ctx);
    return failed ? 1 : 0;
}
