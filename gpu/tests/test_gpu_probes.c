/* test_gpu_probes.c: the probes on a device (q4vk_options.probes, spirv/ pass).
 * - A kernel that reads one vec4 past its input (test_oob_read, shift 1), or writes
 *   one past its output (test_oob_write), or adds atomically one past its counts
 *   (test_oob_atomic), is reported by q4vk_take_oob, naming the
 *   binding, the first offending index and the line; the same kernels in bounds
 *   (shift 0), and adamw_step, are not.
 * - Every out-of-bounds access is counted, per kernel and binding, over the dispatches
 *   until the record is taken.
 * - adamw_step gives bit-identical results with and without probes, and coverage
 *   sees the tail block run only when numel is not a multiple of 4. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "q4vk.h"

extern const q4vk_kernel q4vk_test_kernels[];
extern const int q4vk_test_kernels_count;

static q4vk_context *plain, *probed;

/* What the coverage hook saw: blocks hit in the last adamw_step dispatch. */
static int adamw_dispatches;
static uint32_t adamw_blocks_hit, adamw_blocks;

static void on_dispatch(void *user, const char *kernel, bool overridden, const q4spv_map *map,
                        const uint32_t *slots)
{
    (void)user;
    ck_assert(!overridden);
    if (strcmp(kernel, "adamw_step"))
        return;
    adamw_dispatches++;
    adamw_blocks = map->n_blocks;
    adamw_blocks_hit = 0;
    for (uint32_t b = 0; b < map->n_blocks; b++)
        adamw_blocks_hit += slots[b] != 0;
}

static const q4vk_kernel *test_kernel(const char *name)
{
    for (int i = 0; i < q4vk_test_kernels_count; i++)
        if (!strcmp(q4vk_test_kernels[i].name, name))
            return &q4vk_test_kernels[i];
    ck_abort_msg("no test kernel %s", name);
    return NULL;
}

/* Runs `kernel` (test_oob_read: dst[i] = src[i + shift]; test_oob_write: dst[i + shift]
 * = src[i]) over n vec4s; returns whether an out-of-bounds access was taken (msg
 * NULL: the record is left for a later take). */
static bool oob_run(const char *kernel, uint32_t n, uint32_t shift, char *msg, size_t size)
{
    bool write = !strcmp(kernel, "test_oob_write");
    float *src = calloc(4 * (n + shift), sizeof *src);
    for (uint32_t i = 0; i < 4 * n; i++)
        src[i] = (float)i;
    /* shift guard vec4s after the data, so every access stays inside the buffer */
    q4vk_buffer *in = dev_buf(probed, src, 16 * (size_t)(n + shift));
    q4vk_buffer *out = dev_buf(probed, NULL, 16 * (size_t)(n + shift + 1));
    /* The guard words after the data are in the binding (range 0 = to the end), as
     * after a tensor in the harness: only the data size tells them apart. */
    q4vk_buffer_set_data_bytes(in, 16 * (size_t)n);
    q4vk_buffer_set_data_bytes(out, 16 * (size_t)n);
    q4vk_pipeline *p;
    CK_OK(q4vk_pipeline_get(probed, test_kernel(kernel), NULL, &p, &err_));
    uint32_t push[2] = { n, shift };
    q4vk_dispatch d = { .pipe = p, .push = push, .groups = { (n + 63) / 64, 1, 1 } };
    d.bind[0] = (q4vk_binding){ in, 0, 0 };
    d.bind[1] = (q4vk_binding){ out, 0, 0 };
    CK_OK(q4vk_run(probed, &d, 1, NULL, &err_));
    float *got = malloc(16 * (size_t)n);
    CK_OK(q4vk_download(probed, out, 0, got, 16 * (size_t)n, &err_));
    /* Every in-bounds element arrived (the probes change nothing else). */
    for (uint32_t i = 0; i + shift < n; i++)
        ck_assert_float_eq(got[4 * (write ? i + shift : i)], (float)(4 * (write ? i : i + shift)));
    bool oob = msg && q4vk_take_oob(probed, msg, size);
    q4vk_buffer_destroy(probed, in);
    q4vk_buffer_destroy(probed, out);
    free(got);
    free(src);
    return oob;
}

START_TEST(oob_read_is_reported)
{
    char msg[Q4_MSG_MAX];
    ck_assert(oob_run("test_oob_read", 100, 1, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "kernel test_oob_read read past the data of binding 0"), "%s",
                  msg);
    ck_assert_msg(strstr(msg, "byte offset 1600 (index 100 of 16-byte elements)"), "%s", msg);
    ck_assert_msg(strstr(msg, "at test_oob_read.comp:17"), "%s", msg);
    ck_assert_msg(strstr(msg, "holds 1600 bytes"), "%s", msg);
    /* Taken: the record is cleared. */
    ck_assert(!q4vk_take_oob(probed, msg, sizeof msg));
}
END_TEST

/* A store one vec4 past dst's data (into the guard vec4 the binding still covers) is
 * named as a store, with its binding, first offending index and line. */
START_TEST(oob_write_is_reported)
{
    char msg[Q4_MSG_MAX];
    ck_assert(oob_run("test_oob_write", 100, 1, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "kernel test_oob_write wrote past the data of binding 1: "
                              "a 16-byte store"), "%s", msg);
    ck_assert_msg(strstr(msg, "byte offset 1600 (index 100 of 16-byte elements)"), "%s", msg);
    ck_assert_msg(strstr(msg, "at test_oob_write.comp:17"), "%s", msg);
    ck_assert_msg(strstr(msg, "holds 1600 bytes"), "%s", msg);
    ck_assert(!q4vk_take_oob(probed, msg, sizeof msg));
}
END_TEST

/* An atomic one uint past count's data is named as an atomic; in bounds, none is. */
START_TEST(oob_atomic_is_reported)
{
    char msg[Q4_MSG_MAX] = "";
    const uint32_t n = 100;
    q4vk_buffer *count = dev_buf(probed, NULL, 4 * (size_t)(n + 1));   /* + guard word */
    q4vk_buffer_set_data_bytes(count, 4 * (size_t)n);
    q4vk_pipeline *p;
    CK_OK(q4vk_pipeline_get(probed, test_kernel("test_oob_atomic"), NULL, &p, &err_));
    for (uint32_t shift = 0; shift < 2; shift++) {
        uint32_t push[2] = { n, shift };
        q4vk_dispatch d = { .pipe = p, .push = push, .groups = { (n + 63) / 64, 1, 1 } };
        d.bind[0] = (q4vk_binding){ count, 0, 0 };
        CK_OK(q4vk_run(probed, &d, 1, NULL, &err_));
        bool oob = q4vk_take_oob(probed, msg, sizeof msg);
        ck_assert_msg(oob == (shift == 1), "shift %u: %s", shift, msg);
    }
    ck_assert_msg(strstr(msg, "kernel test_oob_atomic accessed past the data of binding 0: "
                              "a 4-byte atomic at byte offset 400 (index 100 of 4-byte "
                              "elements) at test_oob_atomic.comp:16"), "%s", msg);
    q4vk_buffer_destroy(probed, count);
}
END_TEST

/* Two stores one past binding 1's data in one dispatch, then three loads past binding
 * 0's in another: the first stays the sentence, and each binding has its count, site
 * and smallest offset. */
START_TEST(oob_every_access_is_counted)
{
    char msg[1024];
    ck_assert(!oob_run("test_oob_write", 100, 2, NULL, 0));
    ck_assert(oob_run("test_oob_read", 100, 3, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "kernel test_oob_write wrote past the data of binding 1: a "
                              "16-byte store at byte offset 1600"), "%s", msg);
    ck_assert_msg(strstr(msg, "; 5 out-of-bounds accesses in all: kernel test_oob_write "
                              "binding 1: 2 at 1 site (store at byte 1600 (test_oob_write.comp:17)); "
                              "kernel test_oob_read binding 0: 3 at 1 site (load at byte 1600 "
                              "(test_oob_read.comp:17))"), "%s", msg);
    ck_assert(!q4vk_take_oob(probed, msg, sizeof msg));
    /* Cut to the caller's buffer, always terminated. */
    char small[40];
    ck_assert(oob_run("test_oob_read", 100, 1, small, sizeof small));
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

START_TEST(in_bounds_read_is_not_reported)
{
    char msg[Q4_MSG_MAX] = "";
    ck_assert_msg(!oob_run("test_oob_read", 100, 0, msg, sizeof msg), "%s", msg);
    ck_assert_msg(!oob_run("test_oob_read", 1, 0, msg, sizeof msg), "%s", msg);
    ck_assert_msg(!oob_run("test_oob_write", 100, 0, msg, sizeof msg), "%s", msg);
    ck_assert_msg(!oob_run("test_oob_write", 1, 0, msg, sizeof msg), "%s", msg);
}
END_TEST

/* adamw_step on ctx over numel elements; param, m, v come back in out[0..2]. */
static void adamw_run(q4vk_context *ctx, int64_t numel, float *out[3])
{
    size_t bytes = (size_t)numel * 4;
    float *host = malloc(bytes);
    q4vk_buffer *b[4];
    rng_seed(7);
    for (int t = 0; t < 4; t++) {
        for (int64_t i = 0; i < numel; i++)
            host[i] = t == 3 ? rng_uniform(0.0f, 1e-3f) : rng_uniform(-1.0f, 1.0f);
        b[t] = dev_buf(ctx, host, bytes);
        q4vk_buffer_set_data_bytes(b[t], bytes);
    }
    q4vk_adamw_args a = { .param = b[0], .grad = b[1], .m = b[2], .v = b[3], .numel = numel,
                          .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
                          .wd = 0.01f, .bc1 = 0.1f, .bc2 = 0.001f };
    CK_OK(q4vk_adamw_step(ctx, &a, NULL, &err_));
    int k = 0;
    for (int t = 0; t < 4; t++) {
        if (t != 1) {
            out[k] = malloc(bytes);
            dev_get(ctx, b[t], out[k++], bytes, "adamw output");
        }
        q4vk_buffer_destroy(ctx, b[t]);
    }
    free(host);
}

START_TEST(bit_identical_and_tail_coverage)
{
    uint32_t hit_tail = 0, hit_whole = 0;
    static const int64_t sizes[2] = { 1001, 1000 };
    for (int s = 0; s < 2; s++) {
        float *want[3], *got[3];
        adamw_run(plain, sizes[s], want);
        adamw_dispatches = 0;
        adamw_run(probed, sizes[s], got);
        ck_assert_int_eq(adamw_dispatches, 1);
        for (int t = 0; t < 3; t++) {
            ck_assert_msg(!memcmp(want[t], got[t], (size_t)sizes[s] * 4),
                          "numel %lld: output %d differs with probes", (long long)sizes[s], t);
            free(want[t]);
            free(got[t]);
        }
        char msg[Q4_MSG_MAX] = "";
        ck_assert_msg(!q4vk_take_oob(probed, msg, sizeof msg), "%s", msg);
        *(s == 0 ? &hit_tail : &hit_whole) = adamw_blocks_hit;
    }
    /* numel 1000 has no tail: the blocks of the scalar loop do not run. */
    ck_assert_uint_gt(hit_whole, 2);
    ck_assert_uint_gt(hit_tail, hit_whole);
    ck_assert_uint_le(hit_tail, adamw_blocks);
}
END_TEST

int main(void)
{
    int rc = gpu_test_open(&plain);
    if (rc)
        return rc;
    q4vk_options opt = { .probes = { .coverage = true, .bounds = true,
                                     .dispatched = on_dispatch } };
    q4_error err = { 0 };
    if (q4vk_create(&opt, &probed, &err) != Q4_OK) {
        fprintf(stderr, "q4vk_create with probes failed: %s\n", err.msg);
        q4vk_destroy(plain);
        return 1;
    }
    Suite *s = suite_create("probes");
    ADD(s, oob_read_is_reported);
    ADD(s, oob_write_is_reported);
    ADD(s, oob_atomic_is_reported);
    ADD(s, oob_every_access_is_counted);
    ADD(s, in_bounds_read_is_not_reported);
    ADD(s, bit_identical_and_tail_coverage);
    SRunner *sr = srunner_create(s);
    rc = gpu_test_run(sr, plain);
    q4vk_destroy(probed);
    return rc;
}
