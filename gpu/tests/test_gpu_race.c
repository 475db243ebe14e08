/* test_gpu_race.c: the race probes on a device (q4vk_probes.race, the spirv/ pass,
 * docs/race-check.md). For each kind of finding a small kernel (shaders/test_race_*)
 * runs racy (push constant fixed_ = 0: a barrier() left out, or a word never written)
 * and race-free (fixed_ = 1), ten times each, over 100 workgroups (more than the 32
 * shadow slots, so slots are freed and claimed again):
 * - read-after-write, write-after-read and write-after-write between invocations of a
 *   workgroup are reported every time, naming the kind, the variable, both lines and
 *   both invocations; the race-free kernels never are;
 * - atomics on one word in one barrier interval are not a race; a plain read of it in
 *   the same interval is;
 * - a read of a shared word no invocation wrote is reported (uninitialized);
 * - a race through vec4 accesses (the GEMMs' tiles) is reported too;
 * - the race-free kernels' results are what they compute without probes.
 * Every test runs under both forms of the probe (q4vk_probes.race_word_loop). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "q4vk.h"

extern const q4vk_kernel q4vk_test_kernels[];
extern const int q4vk_test_kernels_count;

static q4vk_context *probed;

#define GROUPS 100u
#define N (64u * GROUPS)

static const q4vk_kernel *test_kernel(const char *name)
{
    for (int i = 0; i < q4vk_test_kernels_count; i++)
        if (!strcmp(q4vk_test_kernels[i].name, name))
            return &q4vk_test_kernels[i];
    ck_abort_msg("no test kernel %s", name);
    return NULL;
}

/* Runs `kernel` with fixed_ = fixed; returns whether a race was reported (msg), and
 * the output in got (N words). */
static bool race_run(const char *kernel, uint32_t fixed, uint32_t *got, char *msg, size_t size)
{
    q4vk_buffer *out = dev_buf(probed, NULL, 4 * (size_t)N);
    q4vk_pipeline *p;
    CK_OK(q4vk_pipeline_get(probed, test_kernel(kernel), NULL, &p, &err_));
    uint32_t push[2] = { fixed, 0 };
    q4vk_dispatch d = { .pipe = p, .push = push, .groups = { GROUPS, 1, 1 } };
    d.bind[0] = (q4vk_binding){ out, 0, 0 };
    CK_OK(q4vk_run(probed, &d, 1, NULL, &err_));
    CK_OK(q4vk_download(probed, out, 0, got, 4 * (size_t)N, &err_));
    q4vk_buffer_destroy(probed, out);
    msg[0] = '\0';
    return q4vk_take_race(probed, msg, size);
}

/* Ten racy runs each report a finding with every needle; ten fixed runs none, and
 * their results are want(i). */
static void check_kernel(const char *kernel, const char *const *needles,
                         uint32_t (*want)(uint32_t i))
{
    uint32_t *got = malloc(4 * (size_t)N);
    char msg[Q4_MSG_MAX];
    ck_assert(got);
    for (int run = 0; run < 10; run++) {
        ck_assert_msg(race_run(kernel, 0, got, msg, sizeof msg),
                      "%s: run %d of the racy kernel reported nothing", kernel, run);
        printf("%s racy, run %d: %s\n", kernel, run, msg);
        for (const char *const *n = needles; *n; n++)
            ck_assert_msg(strstr(msg, *n), "%s: \"%s\" lacks \"%s\"", kernel, msg, *n);
        ck_assert_msg(!race_run(kernel, 1, got, msg, sizeof msg),
                      "%s: run %d of the race-free kernel reported: %s", kernel, run, msg);
        for (uint32_t i = 0; i < N; i++)
            ck_assert_msg(got[i] == want(i), "%s: dst[%u] = %u, expected %u", kernel, i,
                          got[i], want(i));
    }
    free(got);
}

static uint32_t want_raw(uint32_t i) { return (i + 1u) % 64u + 1u; }
static uint32_t want_war(uint32_t i) { return 2u * ((i + 1u) % 64u + 1u); }
static uint32_t want_waw(uint32_t i) { return (i % 64u) / 2u * 2u; }
static uint32_t want_atomic(uint32_t i) { return i % 64u == 0u ? 128u : 64u; }
static uint32_t want_uninit(uint32_t i) { return i % 64u; }
/* s[j] = (j + 1, .., j + 4), invocation l reads s[(l / 4 + 1) % 16] */
static uint32_t want_vec4(uint32_t i) { return 4u * (((i % 64u) / 4u + 1u) % 16u) + 10u; }

START_TEST(read_after_write)
{
    static const char *const n[] = { "read-after-write race on shared s word",
                                      "test_race_raw.comp:17", "test_race_raw.comp:20",
                                      NULL };
    check_kernel("test_race_raw", n, want_raw);
}
END_TEST

START_TEST(vec4_read_after_write)
{
    static const char *const n[] = { "read-after-write race on shared s word",
                                      "test_race_vec4.comp:20", "test_race_vec4.comp:23",
                                      NULL };
    check_kernel("test_race_vec4", n, want_vec4);
}
END_TEST

START_TEST(write_after_read)
{
    static const char *const n[] = { "write-after-read race on shared s word",
                                      "test_race_war.comp:20", "test_race_war.comp:23",
                                      NULL };
    check_kernel("test_race_war", n, want_war);
}
END_TEST

START_TEST(write_after_write)
{
    static const char *const n[] = { "write-after-write race on shared s word",
                                     "test_race_waw.comp:18", NULL };
    check_kernel("test_race_waw", n, want_waw);
}
END_TEST

START_TEST(atomics_and_a_plain_read)
{
    static const char *const n[] = { "race on shared s word 0", "atomic write",
                                     "test_race_atomic.comp:21", "test_race_atomic.comp:24",
                                     NULL };
    check_kernel("test_race_atomic", n, want_atomic);
}
END_TEST

START_TEST(uninitialized_read)
{
    static const char *const n[] = { "uninitialized shared memory", "reads s word",
                                     "test_race_uninit.comp:20", NULL };
    check_kernel("test_race_uninit", n, want_uninit);
}
END_TEST

int main(void)
{
    q4vk_device_info info;
    q4_error err = {0};
    int count = 0;
    if (q4vk_enumerate(&info, 1, &count, &err) == Q4_ERR_UNSUPPORTED || count == 0) {
        printf("skipped: no Vulkan device (%s)\n", err.msg);
        return 77;
    }
    /* both forms of the probe (q4vk_probes.race_word_loop): one loop over a wide
     * access's words, and one call per word */
    int failed = 0;
    for (int loop = 1; loop >= -1; loop -= 2) {
        q4vk_options opt = {0};
        opt.log = stdout;
        opt.probes.race = true;
        opt.probes.race_word_loop = loop;
        if (q4vk_create(&opt, &probed, &err) != Q4_OK) {
            fprintf(stderr, "q4vk_create failed: %s\n", err.msg);
            return 1;
        }
        printf("race probes with %s\n", loop > 0 ? "a loop over the words" : "a call per word");
        Suite *s = suite_create("gpu_race");
        ADD(s, read_after_write);
        ADD(s, vec4_read_after_write);
        ADD(s, write_after_read);
        ADD(s, write_after_write);
        ADD(s, atomics_and_a_plain_read);
        ADD(s, uninitialized_read);
        failed |= gpu_test_run(srunner_create(s), probed);
    }
    return failed;
}
