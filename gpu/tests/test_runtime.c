/* test_runtime.c: tests of the q4vk runtime (devices, buffers, pipelines, q4vk_run,
 * fault hooks, validation capture), on whatever Vulkan device is present (lavapipe
 * in CI). Exits 77 (skipped) only when there is no Vulkan device at all.
 *
 * Kernels come from gpu/tests/shaders/ (table q4vk_test_kernels): test_add adds a
 * specialisation constant (default 1) to each uint of binding 0; test_mul triples
 * them and serves as test_add's override; test_bad_push declares more push
 * constants than its annotation, which the validation layer must catch; test_spin
 * runs long enough to trip a short watchdog. */
#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "q4vk.h"
#include "q4vk_runtime.h"   /* Q4VK_STAGING_CHUNK, to size a multi-chunk transfer */

extern const q4vk_kernel q4vk_test_kernels[];
extern const int q4vk_test_kernels_count;

#define MAX_DEVICES 16

static const q4vk_kernel *test_kernel(const char *name)
{
    for (int i = 0; i < q4vk_test_kernels_count; i++)
        if (strcmp(q4vk_test_kernels[i].name, name) == 0)
            return &q4vk_test_kernels[i];
    ck_abort_msg("test kernel %s is not embedded", name);
    return NULL;
}

static q4vk_context *context(const q4vk_options *opt)
{
    q4vk_context *ctx = NULL;
    q4_error err = { 0 };
    q4_status st = q4vk_create(opt, &ctx, &err);
    ck_assert_msg(st == Q4_OK, "q4vk_create: %s", err.msg);
    ck_assert_ptr_nonnull(ctx);
    return ctx;
}

static q4vk_buffer *buffer(q4vk_context *ctx, size_t bytes)
{
    q4vk_buffer *b = NULL;
    q4_error err = { 0 };
    q4_status st = q4vk_buffer_create(ctx, bytes, &b, &err);
    ck_assert_msg(st == Q4_OK, "q4vk_buffer_create(%zu): %s", bytes, err.msg);
    ck_assert_uint_eq(q4vk_buffer_size(b), bytes);
    return b;
}

static void upload(q4vk_context *ctx, q4vk_buffer *b, size_t off, const void *src, size_t n)
{
    q4_error err = { 0 };
    q4_status st = q4vk_upload(ctx, b, off, src, n, &err);
    ck_assert_msg(st == Q4_OK, "q4vk_upload: %s", err.msg);
}

static void download(q4vk_context *ctx, const q4vk_buffer *b, size_t off, void *dst, size_t n)
{
    q4_error err = { 0 };
    q4_status st = q4vk_download(ctx, b, off, dst, n, &err);
    ck_assert_msg(st == Q4_OK, "q4vk_download: %s", err.msg);
}

static q4vk_pipeline *pipeline(q4vk_context *ctx, const char *name, const q4vk_spec *spec)
{
    q4vk_pipeline *p = NULL;
    q4_error err = { 0 };
    q4_status st = q4vk_pipeline_get(ctx, test_kernel(name), spec, &p, &err);
    ck_assert_msg(st == Q4_OK, "q4vk_pipeline_get(%s): %s", name, err.msg);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* One dispatch of a test kernel (bindings=1 push=4: uint n) over n uints of b. */
static q4_status run_n(q4vk_context *ctx, q4vk_pipeline *p, q4vk_buffer *b, uint32_t n,
                       q4vk_timing *t, q4_error *err)
{
    q4vk_dispatch d = { .pipe = p, .push = &n };
    d.bind[0].buf = b;
    q4vk_fold_groups(ctx, (n + 63) / 64, d.groups);
    return q4vk_run(ctx, &d, 1, t, err);
}

static bool contains_nocase(const char *hay, const char *needle)
{
    for (; *hay; hay++) {
        size_t i = 0;
        while (needle[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (!needle[i])
            return true;
    }
    return !*needle;
}

static uint32_t *iota(size_t n, uint32_t start)
{
    uint32_t *v = malloc(n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < n; i++)
        v[i] = start + (uint32_t)i;
    return v;
}

/* A buffer of n uints holding start, start + 1, ...; *host gets them too (caller frees). */
static q4vk_buffer *iota_buffer(q4vk_context *ctx, uint32_t n, uint32_t start, uint32_t **host)
{
    uint32_t *v = iota(n, start);
    q4vk_buffer *b = buffer(ctx, n * sizeof *v);
    upload(ctx, b, 0, v, n * sizeof *v);
    *host = v;
    return b;
}

/* The first line a context wrote to log (opened with tmpfile), read after closing it. */
static void first_log_line(FILE *log, char *line, size_t size)
{
    rewind(log);
    ck_assert_ptr_nonnull(fgets(line, (int)size, log));
    fclose(log);
}

/* ---------------- devices ---------------- */

static q4vk_device_info infos[MAX_DEVICES];
static int n_devices;

static void load_devices(void)
{
    q4_error err = { 0 };
    q4_status st = q4vk_enumerate(infos, MAX_DEVICES, &n_devices, &err);
    ck_assert_msg(st == Q4_OK, "q4vk_enumerate: %s", err.msg);
    ck_assert_int_ge(n_devices, 1);
    if (n_devices > MAX_DEVICES)
        n_devices = MAX_DEVICES;
}

START_TEST(enumerate_info)
{
    int count = -1;
    q4_error err = { 0 };

    load_devices();
    ck_assert_int_eq(q4vk_enumerate(NULL, 0, &count, &err), Q4_OK);
    ck_assert_int_ge(count, n_devices);
    ck_assert_int_eq(q4vk_enumerate(NULL, 0, NULL, &err), Q4_ERR_ARG);
    for (int i = 0; i < n_devices; i++) {
        const q4vk_device_info *d = &infos[i];
        ck_assert_int_eq(d->index, i);
        ck_assert_int_gt(strlen(d->name), 0);
        ck_assert_int_eq(strlen(d->uuid), 36);
        ck_assert_ptr_nonnull(d->type);
        ck_assert_int_gt(strlen(d->driver_version_str), 0);
        ck_assert_uint_gt(d->subgroup_size, 0);
        ck_assert_uint_eq(d->subgroup_size & (d->subgroup_size - 1), 0);
        ck_assert_uint_gt(d->max_storage_range, 0);
        ck_assert_uint_gt(d->min_storage_align, 0);
        ck_assert_uint_ge(d->max_group_count[0], 65535);
        ck_assert_uint_ge(d->max_push_bytes, 128);
        ck_assert_uint_ge(d->max_invocations, 128);
        ck_assert_uint_ge(d->max_shared_bytes, 16384);
        ck_assert_uint_ge(d->api_version, VK_API_VERSION_1_1);
        ck_assert_uint_gt(d->device_local_bytes, 0);
        ck_assert_uint_ge(d->max_alloc_bytes, (uint64_t)1 << 30);   /* Vulkan's minimum */
        ck_assert(!d->timestamps || d->timestamp_period_ns > 0);
    }
}
END_TEST

START_TEST(driver_version_decoding)
{
    load_devices();
    for (int i = 0; i < n_devices; i++) {
        const q4vk_device_info *d = &infos[i];
        char want[64];
        uint32_t v = d->driver_version;
        if (d->vendor_id == 0x10DE)
            snprintf(want, sizeof want, "%u.%u.%02u", (v >> 22) & 0x3ff, (v >> 14) & 0xff,
                     (v >> 6) & 0xff);
        else
            snprintf(want, sizeof want, "%u.%u.%u", v >> 22, (v >> 12) & 0x3ff, v & 0xfff);
        ck_assert_msg(strncmp(d->driver_version_str, want, strlen(want)) == 0,
                      "device %d: driver version %s, expected %s", i, d->driver_version_str, want);
    }
}
END_TEST

START_TEST(select_default_and_log)
{
    char line[1024] = "";
    FILE *log = tmpfile();
    ck_assert_ptr_nonnull(log);
    load_devices();
    q4vk_options opt = { .log = log };
    q4vk_context *ctx = context(&opt);
    const q4vk_device_info *d = q4vk_info(ctx);
    /* The default prefers discrete, then integrated, then CPU devices. */
    static const char *order[] = { "discrete", "integrated", "cpu" };
    for (int r = 0; r < 3; r++) {
        int first = -1;
        for (int i = 0; i < n_devices && first < 0; i++)
            if (strcmp(infos[i].type, order[r]) == 0)
                first = i;
        if (first >= 0) {
            ck_assert_int_eq(d->index, first);
            break;
        }
    }
    first_log_line(log, line, sizeof line);
    ck_assert_msg(strncmp(line, "q4vk: device ", 13) == 0, "log line: %s", line);
    ck_assert_ptr_nonnull(strstr(line, d->name));
    ck_assert_ptr_nonnull(strstr(line, d->driver_version_str));
    ck_assert_ptr_null(strstr(line, "validation on"));
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(select_by_index_name_uuid)
{
    load_devices();
    for (int i = 0; i < n_devices; i++) {
        char sel[64];
        snprintf(sel, sizeof sel, "%d", i);
        q4vk_options opt = { .device = sel };
        q4vk_context *ctx = context(&opt);
        ck_assert_int_eq(q4vk_info(ctx)->index, i);
        ck_assert_str_eq(q4vk_info(ctx)->uuid, infos[i].uuid);
        q4vk_destroy(ctx);

        /* UUID, upper-cased: matching ignores case. */
        snprintf(sel, sizeof sel, "%s", infos[i].uuid);
        for (char *c = sel; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        opt.device = sel;
        ctx = context(&opt);
        ck_assert_str_eq(q4vk_info(ctx)->uuid, infos[i].uuid);
        q4vk_destroy(ctx);

        /* Name substring in another case: the first device whose name has it. */
        size_t len = strlen(infos[i].name);
        snprintf(sel, sizeof sel, "%.*s", (int)(len < 6 ? len : 6), infos[i].name + len / 3);
        for (char *c = sel; *c; c++)
            *c = (char)(islower((unsigned char)*c) ? toupper((unsigned char)*c)
                                                   : tolower((unsigned char)*c));
        int first = -1;
        for (int j = 0; j < n_devices && first < 0; j++)
            if (contains_nocase(infos[j].name, sel))
                first = j;
        ck_assert_int_ge(first, 0);
        opt.device = sel;
        ctx = context(&opt);
        ck_assert_msg(q4vk_info(ctx)->index == first, "\"%s\" chose %d, expected %d", sel,
                      q4vk_info(ctx)->index, first);
        q4vk_destroy(ctx);
    }
}
END_TEST

START_TEST(select_bad)
{
    static const char *bad[] = { "no-such-device-q4cts", "999", "00000000-0000-0000-0000-000000000000" };
    load_devices();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        q4vk_context *ctx = (q4vk_context *)1;
        q4_error err = { 0 };
        q4vk_options opt = { .device = bad[i] };
        ck_assert_int_eq(q4vk_create(&opt, &ctx, &err), Q4_ERR_ARG);
        ck_assert_ptr_null(ctx);
        ck_assert_int_eq(err.status, Q4_ERR_ARG);
        ck_assert_msg(strstr(err.msg, "no Vulkan device matches") && strstr(err.msg, bad[i]) &&
                      strstr(err.msg, infos[0].name), "message: %s", err.msg);
    }
}
END_TEST

/* ---------------- buffers ---------------- */

START_TEST(buffer_args)
{
    q4vk_context *ctx = context(NULL);
    q4vk_buffer *b = NULL;
    q4_error err = { 0 };
    char host[64] = { 0 };

    ck_assert_int_eq(q4vk_buffer_create(ctx, 0, &b, &err), Q4_ERR_ARG);
    ck_assert_ptr_null(b);
    ck_assert_ptr_nonnull(strstr(err.msg, "0 bytes"));
    b = buffer(ctx, 10);
    ck_assert_int_eq(q4vk_upload(ctx, b, 0, host, 11, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "q4vk_upload"));
    ck_assert_int_eq(q4vk_upload(ctx, b, 8, host, 3, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_upload(ctx, b, 11, host, 0, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_upload(ctx, b, SIZE_MAX, host, 2, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_download(ctx, b, 4, host, 7, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "q4vk_download"));
    ck_assert_int_eq(q4vk_upload(ctx, NULL, 0, host, 1, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_download(ctx, b, 0, NULL, 1, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_upload(ctx, b, 10, host, 0, &err), Q4_OK);
    ck_assert_int_eq(q4vk_fill(ctx, b, 2, 4, 0, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_fill(ctx, b, 0, 6, 0, &err), Q4_ERR_ARG);
    q4vk_buffer_destroy(ctx, b);
    q4vk_buffer_destroy(ctx, NULL);
    q4vk_destroy(ctx);
    q4vk_destroy(NULL);
}
END_TEST

START_TEST(roundtrip_offsets)
{
    q4vk_context *ctx = context(NULL);
    uint8_t src[1001], dst[1001];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7 + 3);
    q4vk_buffer *b = buffer(ctx, sizeof src);
    upload(ctx, b, 0, src, sizeof src);
    download(ctx, b, 0, dst, sizeof dst);
    ck_assert_mem_eq(src, dst, sizeof src);

    /* A sub-range at odd offsets changes exactly those bytes. */
    uint8_t patch[13];
    memset(patch, 0xA5, sizeof patch);
    upload(ctx, b, 997 - sizeof patch, patch, sizeof patch);
    memcpy(src + 997 - sizeof patch, patch, sizeof patch);
    download(ctx, b, 0, dst, sizeof dst);
    ck_assert_mem_eq(src, dst, sizeof src);
    memset(dst, 0, sizeof dst);
    download(ctx, b, 333, dst, 501);
    ck_assert_mem_eq(src + 333, dst, 501);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(roundtrip_multi_chunk)
{
    /* Two and a half staging chunks plus an odd tail, at an odd offset. */
    const size_t words = (5 * Q4VK_STAGING_CHUNK / 2) / 4 + 13;
    const size_t bytes = words * 4;
    q4vk_context *ctx = context(NULL);
    uint32_t *src = iota(words, 0x9e3779b9u);
    uint32_t *dst = calloc(words, 4);
    ck_assert_ptr_nonnull(dst);
    for (size_t i = 0; i < words; i++)
        src[i] *= 2654435761u;
    q4vk_buffer *b = buffer(ctx, bytes + 8);
    upload(ctx, b, 5, src, bytes);
    download(ctx, b, 5, dst, bytes);
    ck_assert_msg(memcmp(src, dst, bytes) == 0, "multi-chunk round trip differs");
    /* A range that straddles a chunk boundary, read on its own. */
    memset(dst, 0, bytes);
    download(ctx, b, 5 + Q4VK_STAGING_CHUNK - 100, dst, 200);
    ck_assert_mem_eq((const char *)src + Q4VK_STAGING_CHUNK - 100, dst, 200);
    free(src);
    free(dst);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

/* The staging copies run on every core (copy_wide): a round trip with 1 thread and
 * with 3 and 7 (pieces landing on threads in other ways) is the same bytes, on a size
 * that crosses chunk and piece boundaries with an odd tail at an odd offset. */
START_TEST(roundtrip_threads)
{
    const size_t bytes = Q4VK_STAGING_CHUNK + (3u << 20) / 2 + 7;
    const int threads[] = { 1, 3, 7 };
    q4vk_context *ctx = context(NULL);
    unsigned char *src = malloc(bytes), *dst[3];
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < bytes; i++)
        src[i] = (unsigned char)((i * 2654435761u) >> 13);
    q4vk_buffer *b = buffer(ctx, bytes + 3);
    for (int t = 0; t < 3; t++) {
        omp_set_num_threads(threads[t]);
        ck_assert_ptr_nonnull(dst[t] = calloc(bytes, 1));
        upload(ctx, b, 3, src, bytes);
        download(ctx, b, 3, dst[t], bytes);
        ck_assert_msg(memcmp(src, dst[t], bytes) == 0, "round trip on %d threads differs",
                      threads[t]);
        ck_assert(memcmp(dst[0], dst[t], bytes) == 0);
    }
    for (int t = 0; t < 3; t++)
        free(dst[t]);
    free(src);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(fill)
{
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    uint32_t v[9];
    q4vk_buffer *b = buffer(ctx, sizeof v - 2);   /* 34 bytes: a partial last word */
    ck_assert_int_eq(q4vk_fill(ctx, b, 0, 0, 0x7fc00000u, &err), Q4_OK);
    ck_assert_int_eq(q4vk_fill(ctx, b, 8, 8, 0x11223344u, &err), Q4_OK);
    download(ctx, b, 0, v, sizeof v - 2);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(v[i], i == 2 || i == 3 ? 0x11223344u : 0x7fc00000u);
    ck_assert_uint_eq(v[8] & 0xffffu, 0x0000u);
    ck_assert_int_eq(q4vk_fill(ctx, b, 32, 2, 0xabcdabcdu, &err), Q4_OK);
    download(ctx, b, 32, v, 2);
    ck_assert_uint_eq(v[0] & 0xffffu, 0xabcdu);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

/* ---------------- pipelines and runs ---------------- */

START_TEST(kernel_tables)
{
    int count = -1;
    const q4vk_kernel *all = q4vk_kernels(&count);
    ck_assert_int_ge(count, 0);
    for (int i = 0; i < count; i++) {
        ck_assert_ptr_eq(q4vk_kernel_find(all[i].name), &all[i]);
        ck_assert_uint_eq(all[i].spirv[0], 0x07230203u);
        ck_assert_uint_le(all[i].n_bindings, Q4VK_MAX_BINDINGS);
    }
    ck_assert_ptr_null(all[count].name);
    ck_assert_ptr_null(q4vk_kernel_find("no_such_kernel"));
    ck_assert_ptr_null(q4vk_kernel_find(NULL));
    const q4vk_kernel *k = test_kernel("test_add");
    ck_assert_uint_eq(k->n_bindings, 1);
    ck_assert_uint_eq(k->push_bytes, 4);
    ck_assert_uint_gt(k->spirv_words, 5);
}
END_TEST

START_TEST(fold_groups)
{
    q4vk_context *ctx = context(NULL);
    uint32_t g[3];
    uint32_t lim = q4vk_info(ctx)->max_group_count[0] < 65535 ? q4vk_info(ctx)->max_group_count[0]
                                                               : 65535;
    q4vk_fold_groups(ctx, 1, g);
    ck_assert(g[0] == 1 && g[1] == 1 && g[2] == 1);
    q4vk_fold_groups(ctx, lim, g);
    ck_assert(g[0] == lim && g[1] == 1 && g[2] == 1);
    q4vk_fold_groups(ctx, (uint64_t)lim + 1, g);
    ck_assert(g[0] == lim && g[1] == 2 && g[2] == 1);
    q4vk_fold_groups(ctx, (uint64_t)lim * 1000 + 7, g);
    ck_assert(g[0] == lim && g[1] == 1001 && g[2] == 1);
    /* The flat index (z * ny + y) * nx + x stays a uint32 for every group. */
    const q4vk_device_info *info = q4vk_info(ctx);
    if (info->max_group_count[0] >= 65535 && info->max_group_count[1] >= 65535 &&
        info->max_group_count[2] >= 2) {
        ck_assert(q4vk_fold_fits(info, 65535ull * 65535));
        ck_assert(!q4vk_fold_fits(info, 65535ull * 65535 + 1));   /* 65535^2 x 2 groups */
    }

    /* Lowered to 2 a dimension: 5..8 groups fold over z too, 9 do not fit. */
    q4_error err = { 0 };
    const q4vk_test_limits two = { .max_groups = 2 };
    ck_assert_int_eq(q4vk_set_test_limits(ctx, &two, &err), Q4_OK);
    q4vk_fold_groups(ctx, 4, g);
    ck_assert(g[0] == 2 && g[1] == 2 && g[2] == 1);
    ck_assert_int_eq(q4vk_fold(ctx, "test_add", 5, g, &err), Q4_OK);
    ck_assert(g[0] == 2 && g[1] == 2 && g[2] == 2);
    ck_assert(q4vk_fold_fits(info, 8) && !q4vk_fold_fits(info, 9));
    ck_assert_int_eq(q4vk_fold(ctx, "test_add", 9, g, &err), Q4_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.msg, "kernel test_add: 9 workgroups do not fit the device's "
                         "maxComputeWorkGroupCount = (2, 2, 2) even folded over x, y and z"),
                  "%s", err.msg);

    /* 7 groups of 64 as 2 x 2 x 2: each group past the first four does its own share,
     * the eighth none. */
    const uint32_t n = 7 * 64 - 5, all = 8 * 64 + 16;
    uint32_t *v;
    q4vk_buffer *b = iota_buffer(ctx, all, 3, &v);
    ck_assert_msg(run_n(ctx, pipeline(ctx, "test_add", NULL), b, n, NULL, &err) == Q4_OK, "%s",
                  err.msg);
    download(ctx, b, 0, v, all * sizeof *v);
    for (uint32_t i = 0; i < all; i++)
        ck_assert_msg(v[i] == 3 + i + (i < n ? 1 : 0), "v[%u] = %u", i, v[i]);
    free(v);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(run_folded)
{
    /* 65539 groups of 64: more than lavapipe's 65535 in x. */
    const uint32_t n = 65538u * 64 + 5;
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    q4vk_timing t = { 0 };
    uint32_t *v;
    q4vk_buffer *b = iota_buffer(ctx, n + 16, 100, &v);

    q4vk_pipeline *p = pipeline(ctx, "test_add", NULL);
    ck_assert_ptr_eq(pipeline(ctx, "test_add", NULL), p);   /* cached */
    ck_assert_msg(run_n(ctx, p, b, n, &t, &err) == Q4_OK, "q4vk_run: %s", err.msg);
    if (q4vk_info(ctx)->timestamps)
        ck_assert_msg(t.gpu_ms >= 0, "gpu_ms = %g with timestamps", t.gpu_ms);
    else
        ck_assert(t.gpu_ms < 0);

    /* A specialisation constant makes another pipeline: += 5. */
    q4vk_spec spec = { .count = 1, .ids = { 0 }, .values = { 5 } };
    q4vk_pipeline *p5 = pipeline(ctx, "test_add", &spec);
    ck_assert_ptr_ne(p5, p);
    ck_assert_ptr_eq(pipeline(ctx, "test_add", &spec), p5);
    ck_assert_int_eq(run_n(ctx, p5, b, n, NULL, &err), Q4_OK);

    download(ctx, b, 0, v, (n + 16) * sizeof *v);
    for (uint32_t i = 0; i < n + 16; i++)
        ck_assert_msg(v[i] == 100 + i + (i < n ? 6 : 0), "v[%u] = %u", i, v[i]);
    free(v);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(test_limits)
{
    q4vk_test_limits lim = { 0 };
    q4_error err = { 0 };

    /* The parser: any subset in any order; a clear error for the rest. */
    ck_assert_int_eq(q4vk_test_limits_parse("binding=4096,groups=3", "X", &lim, &err), Q4_OK);
    ck_assert(lim.max_groups == 3 && lim.max_binding == 4096 && !lim.max_shared &&
              !lim.max_invocations);
    ck_assert_int_eq(q4vk_test_limits_parse("shared=16384,invocations=128", "X", &lim, &err),
                     Q4_OK);
    ck_assert(!lim.max_groups && lim.max_shared == 16384 && lim.max_invocations == 128);
    ck_assert_int_eq(q4vk_test_limits_parse("", "X", &lim, &err), Q4_OK);
    static const char *bad[] = { "groups", "groups=", "groups=0", "groups=-1", "group=4",
                                 "groups=4,", "groups=4x", "shared=1024", "invocations=64",
                                 "binding=8", "groups=99999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(q4vk_test_limits_parse(bad[i], "Q4CTS_TEST_LIMITS", &lim, &err) ==
                          Q4_ERR_ARG, "'%s' was accepted", bad[i]);
        ck_assert_msg(strstr(err.msg, "Q4CTS_TEST_LIMITS '") == err.msg, "%s", err.msg);
    }

    /* Lowered at creation from the environment, shown by q4vk_info, and restored. */
    q4vk_context *plain = context(NULL);
    const q4vk_device_info dev = *q4vk_info(plain);
    q4vk_destroy(plain);
    setenv("Q4CTS_TEST_LIMITS", "groups=2,binding=1024", 1);
    char line[1024] = "";
    FILE *log = tmpfile();
    ck_assert_ptr_nonnull(log);
    q4vk_options opt = { .log = log };
    q4vk_context *ctx = context(&opt);
    unsetenv("Q4CTS_TEST_LIMITS");
    first_log_line(log, line, sizeof line);
    ck_assert_msg(strstr(line, "limits lowered for tests"), "log line: %s", line);
    const q4vk_device_info *info = q4vk_info(ctx);
    ck_assert(info->max_group_count[0] == 2 && info->max_group_count[1] == 2 &&
              info->max_group_count[2] == 2);
    ck_assert_uint_eq(info->max_storage_range, 1024);
    ck_assert_uint_eq(info->max_shared_bytes, dev.max_shared_bytes);

    /* A folded grid within the lowered limit runs: 3 groups of 64 fold to 2 x 2,
     * and the kernel's folded index leaves the 4th group idle. */
    const uint32_t n = 3 * 64 - 5, all = 300;   /* all * 4 bytes: above the 1024 */
    uint32_t *v;
    q4vk_buffer *b = iota_buffer(ctx, all, 7, &v);
    q4vk_binding whole = { b, 0, 1024 };
    q4vk_dispatch d = { .pipe = pipeline(ctx, "test_add", NULL), .push = &n, .bind = { whole } };
    q4vk_fold_groups(ctx, 3, d.groups);
    ck_assert(d.groups[0] == 2 && d.groups[1] == 2 && d.groups[2] == 1);
    ck_assert_msg(q4vk_run(ctx, &d, 1, NULL, &err) == Q4_OK, "%s", err.msg);
    download(ctx, b, 0, v, all * sizeof *v);
    for (uint32_t i = 0; i < all; i++)
        ck_assert_msg(v[i] == 7 + i + (i < n ? 1 : 0), "v[%u] = %u", i, v[i]);
    /* Past the lowered limits: refused as on a device that small. */
    d.groups[0] = 3;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "maxComputeWorkGroupCount[0] = 2"), "%s", err.msg);
    d.groups[0] = 1;
    d.bind[0].range = 0;   /* the whole buffer: above 1024 bytes */
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_RESOURCE);
    ck_assert_msg(strstr(err.msg, "maxStorageBufferRange of 1024"), "%s", err.msg);

    /* A case's limits lower the creation's further, each the smaller; NULL, all 0
     * or a limit above the creation's give the creation's back. */
    const q4vk_device_info created = *info;
    lim = (q4vk_test_limits){ .max_groups = 8, .max_shared = 16384, .max_binding = 512 };
    ck_assert_int_eq(q4vk_set_case_limits(ctx, &lim, &err), Q4_OK);
    ck_assert_uint_eq(info->max_group_count[1], 2);
    ck_assert_uint_eq(info->max_storage_range, 512);
    ck_assert_uint_eq(info->max_shared_bytes, 16384);
    q4vk_device_info planned = created;
    q4vk_lower_info(&planned, &lim);   /* what a planner computes without the context */
    ck_assert(memcmp(&planned, info, sizeof planned) == 0);
    q4vk_lower_info(&planned, NULL);
    ck_assert(memcmp(&planned, info, sizeof planned) == 0);
    lim = (q4vk_test_limits){ .max_binding = 4096 };
    ck_assert_int_eq(q4vk_set_case_limits(ctx, &lim, &err), Q4_OK);
    ck_assert(memcmp(info, &created, sizeof created) == 0);
    lim.max_invocations = 64;
    ck_assert_int_eq(q4vk_set_case_limits(ctx, &lim, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_set_case_limits(ctx, NULL, &err), Q4_OK);
    ck_assert(memcmp(info, &created, sizeof created) == 0);

    /* Replaced, then restored to the device's own. */
    lim = (q4vk_test_limits){ .max_shared = 16384, .max_invocations = 128 };
    ck_assert_int_eq(q4vk_set_test_limits(ctx, &lim, &err), Q4_OK);
    ck_assert_uint_eq(info->max_group_count[0], dev.max_group_count[0]);
    ck_assert_uint_eq(info->max_shared_bytes, 16384);
    ck_assert_uint_eq(info->max_invocations, 128);
    ck_assert_uint_le(info->max_group_size[0], 128);
    lim.max_shared = 100;
    ck_assert_int_eq(q4vk_set_test_limits(ctx, &lim, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_set_test_limits(ctx, NULL, &err), Q4_OK);
    ck_assert(memcmp(info, &dev, sizeof dev) == 0);

    /* A malformed variable fails creation with its sentence. */
    setenv("Q4CTS_TEST_LIMITS", "groups=two", 1);
    q4vk_context *none = NULL;
    ck_assert_int_eq(q4vk_create(NULL, &none, &err), Q4_ERR_ARG);
    unsetenv("Q4CTS_TEST_LIMITS");
    ck_assert_ptr_null(none);
    ck_assert_msg(strstr(err.msg, "groups needs a whole number"), "%s", err.msg);
    free(v);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(run_sequence_and_offsets)
{
    /* Three dispatches in one submission, each reading what the previous wrote
     * (the compute->compute barrier), the last on an offset sub-range. */
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    const uint32_t n = 1000;
    uint64_t align = q4vk_info(ctx)->min_storage_align;
    uint32_t off_words = (uint32_t)((align + 3) / 4);
    uint32_t n_tail = n - off_words;
    uint32_t *v;
    q4vk_buffer *b = iota_buffer(ctx, n, 0, &v);
    q4vk_pipeline *add = pipeline(ctx, "test_add", NULL);
    q4vk_pipeline *mul = pipeline(ctx, "test_mul", NULL);
    q4vk_dispatch d[3] = {
        { .pipe = add, .push = &n },
        { .pipe = mul, .push = &n },
        { .pipe = add, .push = &n_tail },
    };
    for (int i = 0; i < 3; i++) {
        d[i].bind[0].buf = b;
        q4vk_fold_groups(ctx, (n + 63) / 64, d[i].groups);
    }
    d[2].bind[0].offset = (uint64_t)off_words * 4;
    d[2].bind[0].range = (uint64_t)n_tail * 4;
    ck_assert_msg(q4vk_run(ctx, d, 3, NULL, &err) == Q4_OK, "q4vk_run: %s", err.msg);
    download(ctx, b, 0, v, n * 4);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_uint_eq(v[i], (i + 1) * 3 + (i >= off_words ? 1 : 0));
    free(v);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(sequence_records_then_submits)
{
    /* Two launches recorded into one submission: nothing runs until the end, the second
     * reads what the first wrote (the barrier between them), push constants are the
     * ones given at record time, and a buffer destroyed meanwhile lives until the end. */
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    uint32_t n = 256, *v, got[256];
    q4vk_buffer *b = iota_buffer(ctx, n, 0, &v);
    q4vk_buffer *doomed = buffer(ctx, n * 4);
    upload(ctx, doomed, 0, v, n * 4);
    q4vk_pipeline *add = pipeline(ctx, "test_add", NULL), *mul = pipeline(ctx, "test_mul", NULL);
    ck_assert_int_eq(q4vk_sequence_end(ctx, NULL, &err), Q4_ERR_ARG);   /* none begun */
    ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_OK);
    ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_ERR_ARG);      /* no nesting */
    uint32_t count = n;
    ck_assert_int_eq(run_n(ctx, add, b, count, NULL, &err), Q4_OK);    /* (i + 1) */
    count = 0;   /* the launcher's push constants change after its call: kept as given */
    q4vk_sequence_op(ctx, true);
    ck_assert_int_eq(run_n(ctx, mul, b, n, NULL, &err), Q4_OK);        /* * 3 */
    ck_assert_int_eq(run_n(ctx, add, doomed, n, NULL, &err), Q4_OK);
    q4vk_buffer_destroy(ctx, doomed);
    download(ctx, b, 0, got, n * 4);          /* nothing has run yet: the old contents */
    ck_assert_uint_eq(got[5], 5);
    /* a write to a bound buffer would run before the dispatches: refused */
    ck_assert_int_eq(q4vk_upload(ctx, b, 0, v, 4, &err), Q4_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.msg, "has not run yet"), "message: %s", err.msg);
    ck_assert_int_eq(q4vk_fill(ctx, b, 0, 4, 0, &err), Q4_ERR_UNSUPPORTED);
    /* a buffer made while recording and bound by it has nothing to read yet */
    q4vk_buffer *flag = buffer(ctx, 4);
    ck_assert_int_eq(run_n(ctx, add, flag, 1, NULL, &err), Q4_OK);
    ck_assert_int_eq(q4vk_download(ctx, flag, 0, got, 4, &err), Q4_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.msg, "nothing to read yet"), "message: %s", err.msg);
    q4vk_timing t = { 0 };
    ck_assert_msg(q4vk_sequence_end(ctx, &t, &err) == Q4_OK, "q4vk_sequence_end: %s", err.msg);
    download(ctx, b, 0, got, n * 4);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_uint_eq(got[i], (i + 1) * 3);
    download(ctx, flag, 0, got, 4);           /* after the end: readable */
    /* after the end q4vk_run submits at once again */
    ck_assert_int_eq(run_n(ctx, add, b, n, NULL, &err), Q4_OK);
    download(ctx, b, 0, got, n * 4);
    ck_assert_uint_eq(got[7], 8 * 3 + 1);
    /* an aborted recording runs nothing; an empty one is Q4_OK */
    ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_OK);
    ck_assert_int_eq(run_n(ctx, mul, b, n, NULL, &err), Q4_OK);
    q4vk_sequence_abort(ctx);
    download(ctx, b, 0, got, n * 4);
    ck_assert_uint_eq(got[7], 8 * 3 + 1);
    ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_OK);
    ck_assert_int_eq(q4vk_sequence_end(ctx, NULL, &err), Q4_OK);
    free(v);
    q4vk_buffer_destroy(ctx, flag);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(run_args)
{
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    uint32_t n = 64;
    q4vk_buffer *b = buffer(ctx, 256);
    q4vk_pipeline *p = pipeline(ctx, "test_add", NULL);
    const q4vk_device_info *info = q4vk_info(ctx);
    q4vk_dispatch d = { .pipe = p, .push = &n, .groups = { 1, 1, 1 } };
    d.bind[0].buf = b;

    ck_assert_int_eq(q4vk_run(ctx, &d, 0, NULL, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_run(ctx, NULL, 1, NULL, &err), Q4_ERR_ARG);
    d.groups[2] = 0;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "test_add"));
    d.groups[2] = 1;
    d.groups[1] = info->max_group_count[1] + 1;
    if (d.groups[1] != 0) {
        ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
        ck_assert_ptr_nonnull(strstr(err.msg, "maxComputeWorkGroupCount"));
    }
    d.groups[1] = 1;
    d.push = NULL;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
    d.push = &n;
    d.bind[0].buf = NULL;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "binding 0"));
    d.bind[0].buf = b;
    d.bind[0].range = 260;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
    d.bind[0].range = 0;
    if (info->min_storage_align > 1) {
        d.bind[0].offset = info->min_storage_align / 2;
        ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
        ck_assert_ptr_nonnull(strstr(err.msg, "minStorageBufferOffsetAlignment"));
    }
    d.bind[0].offset = 256;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_ARG);
    d.bind[0].offset = 0;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_OK);

    q4vk_spec spec = { .count = 2, .ids = { 0, 0 }, .values = { 1, 2 } };
    q4vk_pipeline *pp = (q4vk_pipeline *)1;
    ck_assert_int_eq(q4vk_pipeline_get(ctx, test_kernel("test_add"), &spec, &pp, &err),
                     Q4_ERR_ARG);
    ck_assert_ptr_null(pp);
    ck_assert_int_eq(q4vk_pipeline_get(ctx, NULL, NULL, &pp, &err), Q4_ERR_ARG);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(storage_range_limit)
{
    q4vk_context *ctx = context(NULL);
    const q4vk_device_info *info = q4vk_info(ctx);
    q4_error err = { 0 };
    uint32_t n = 64;
    uint64_t bytes = (info->max_storage_range & ~(uint64_t)3) + 8;
    if (bytes > info->device_local_bytes / 2 || bytes > ((uint64_t)8 << 30)) {
        /* Nowhere to put such a buffer; the limit cannot be reached on this device. */
        q4vk_destroy(ctx);
        return;
    }
    if (bytes > info->max_alloc_bytes) {
        /* One buffer cannot exceed the binding limit here (the H200: 4 GiB - 2 MiB of
         * allocation, 4 GiB - 1 of range); asking for one is a resource error. */
        q4vk_buffer *b = (q4vk_buffer *)1;
        ck_assert_int_eq(q4vk_buffer_create(ctx, (size_t)bytes, &b, &err), Q4_ERR_RESOURCE);
        ck_assert_ptr_null(b);
        ck_assert_msg(strstr(err.msg, "maxMemoryAllocationSize"), "message: %s", err.msg);
        q4vk_destroy(ctx);
        return;
    }
    q4vk_buffer *b = buffer(ctx, (size_t)bytes);
    q4vk_dispatch d = { .pipe = pipeline(ctx, "test_add", NULL), .push = &n,
                        .groups = { 1, 1, 1 } };
    d.bind[0].buf = b;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_ERR_RESOURCE);
    ck_assert_msg(strstr(err.msg, "test_add") && strstr(err.msg, "maxStorageBufferRange"),
                  "message: %s", err.msg);
    char size[32];
    snprintf(size, sizeof size, "%" PRIu64, bytes);
    ck_assert_msg(strstr(err.msg, size), "message lacks the size %s: %s", size, err.msg);
    /* Within the limit it runs. */
    d.bind[0].range = 4096;
    ck_assert_int_eq(q4vk_run(ctx, &d, 1, NULL, &err), Q4_OK);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(override_replaces_kernel)
{
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    const uint32_t n = 300;
    uint32_t *v;
    q4vk_buffer *b = iota_buffer(ctx, n, 1, &v);
    q4vk_pipeline *before = pipeline(ctx, "test_add", NULL);

    const q4vk_kernel *mul = test_kernel("test_mul");
    uint32_t junk[8] = { 0x12345678u };
    ck_assert_int_eq(q4vk_set_override(ctx, "test_add", junk, 8, &err), Q4_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err.msg, "test_add"));
    ck_assert_int_eq(q4vk_set_override(ctx, "test_add", mul->spirv, 3, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_set_override(ctx, NULL, mul->spirv, mul->spirv_words, &err),
                     Q4_ERR_ARG);
    ck_assert_int_eq(q4vk_set_override(ctx, "test_add", mul->spirv, mul->spirv_words, &err),
                     Q4_OK);
    q4vk_pipeline *after = pipeline(ctx, "test_add", NULL);
    ck_assert_ptr_ne(after, before);
    ck_assert_ptr_eq(pipeline(ctx, "test_add", NULL), after);
    ck_assert_int_eq(run_n(ctx, after, b, n, NULL, &err), Q4_OK);   /* *3 */
    ck_assert_int_eq(run_n(ctx, before, b, n, NULL, &err), Q4_OK);  /* old code: +1 */
    download(ctx, b, 0, v, n * 4);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_uint_eq(v[i], (i + 1) * 3 + 1);
    free(v);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

/* ---------------- fault injection ---------------- */

START_TEST(fault_alloc)
{
    q4vk_options opt = { .faults = { .fail_alloc_at = 2 } };
    q4vk_context *ctx = context(&opt);
    q4_error err = { 0 };
    q4vk_buffer *a = buffer(ctx, 64), *b = (q4vk_buffer *)1;
    ck_assert_int_eq(q4vk_buffer_create(ctx, 12345, &b, &err), Q4_ERR_RESOURCE);
    ck_assert_ptr_null(b);
    ck_assert_msg(strstr(err.msg, "12345 bytes") && strstr(err.msg, "OUT_OF_DEVICE_MEMORY"),
                  "message: %s", err.msg);
    b = buffer(ctx, 64);   /* only the 2nd fails; the context lives on */
    uint32_t x = 7, y = 0;
    upload(ctx, b, 0, &x, 4);
    download(ctx, b, 0, &y, 4);
    ck_assert_uint_eq(y, 7);
    q4vk_buffer_destroy(ctx, a);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

static void roundtrip_works(q4vk_context *ctx)
{
    uint32_t n = 64, v[64];
    q4_error err = { 0 };
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    q4vk_buffer *b = buffer(ctx, sizeof v);
    upload(ctx, b, 0, v, sizeof v);
    ck_assert_int_eq(run_n(ctx, pipeline(ctx, "test_add", NULL), b, n, NULL, &err), Q4_OK);
    download(ctx, b, 0, v, sizeof v);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_uint_eq(v[i], i + 1);
    q4vk_buffer_destroy(ctx, b);
}

START_TEST(fault_device_lost)
{
    /* Uploads and downloads do not count: the 2nd q4vk_run is lost. */
    q4vk_options opt = { .faults = { .device_lost_at = 2 } };
    q4vk_context *ctx = context(&opt);
    q4_error err = { 0 };
    uint32_t n = 64, v[64] = { 0 };
    q4vk_buffer *b = buffer(ctx, sizeof v);
    q4vk_pipeline *p = pipeline(ctx, "test_add", NULL);
    for (int i = 0; i < 3; i++) {
        upload(ctx, b, 0, v, sizeof v);
        download(ctx, b, 0, v, sizeof v);
    }
    ck_assert_int_eq(run_n(ctx, p, b, n, NULL, &err), Q4_OK);
    ck_assert_int_eq(run_n(ctx, p, b, n, NULL, &err), Q4_ERR_DEVICE_LOST);
    ck_assert_msg(strstr(err.msg, "VK_ERROR_DEVICE_LOST") && strstr(err.msg, "test_add"),
                  "message: %s", err.msg);
    /* Dead now: every call fails the same way, quickly. */
    ck_assert_int_eq(run_n(ctx, p, b, n, NULL, &err), Q4_ERR_DEVICE_LOST);
    ck_assert_int_eq(q4vk_upload(ctx, b, 0, v, 4, &err), Q4_ERR_DEVICE_LOST);
    ck_assert_int_eq(q4vk_download(ctx, b, 0, v, 4, &err), Q4_ERR_DEVICE_LOST);
    q4vk_buffer *c = (q4vk_buffer *)1;
    ck_assert_int_eq(q4vk_buffer_create(ctx, 4, &c, &err), Q4_ERR_DEVICE_LOST);
    ck_assert_ptr_null(c);
    ck_assert_int_eq(q4vk_pipeline_get(ctx, test_kernel("test_mul"), NULL, &p, &err),
                     Q4_ERR_DEVICE_LOST);
    ck_assert_ptr_nonnull(strstr(err.msg, "create a new one"));
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);

    /* A fresh context works. */
    ctx = context(NULL);
    roundtrip_works(ctx);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(fault_timeout)
{
    q4vk_options opt = { .timeout_ms = 1234, .faults = { .timeout_at = 1 } };
    q4vk_context *ctx = context(&opt);
    q4_error err = { 0 };
    uint32_t n = 64;
    q4vk_buffer *b = buffer(ctx, 256);
    q4vk_pipeline *p = pipeline(ctx, "test_add", NULL);
    ck_assert_int_eq(run_n(ctx, p, b, n, NULL, &err), Q4_ERR_TIMEOUT);
    ck_assert_msg(strstr(err.msg, "1234 ms") && strstr(err.msg, "test_add"), "message: %s",
                  err.msg);
    ck_assert_int_eq(run_n(ctx, p, b, n, NULL, &err), Q4_ERR_TIMEOUT);
    ck_assert_int_eq(q4vk_upload(ctx, b, 0, &n, 4, &err), Q4_ERR_TIMEOUT);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);

    ctx = context(NULL);
    roundtrip_works(ctx);
    q4vk_destroy(ctx);
}
END_TEST

/* One workgroup of test_spin: 64 elements, `iters` dependent steps each. */
static q4_status spin(q4vk_context *ctx, q4vk_buffer *b, uint32_t iters, q4vk_timing *t,
                      q4_error *err)
{
    struct { uint32_t n, iters; } pc = { 64, iters };
    q4vk_dispatch d = { .pipe = pipeline(ctx, "test_spin", NULL), .push = &pc,
                        .groups = { 1, 1, 1 } };
    d.bind[0].buf = b;
    return q4vk_run(ctx, &d, 1, t, err);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

START_TEST(watchdog_real_timeout)
{
    /* A kernel of about 600 ms against a 60 ms watchdog: the real VK_TIMEOUT path.
     * The kernel then finishes within q4vk_destroy's grace, so nothing leaks.
     * Calibrated on this device: the second of two probes (lavapipe compiles on
     * the first dispatch); gpu_ms where there are timestamps, else the wall clock. */
    const uint32_t probe = 256;
    q4vk_context *ctx = context(NULL);
    q4_error err = { 0 };
    q4vk_timing t = { 0 };
    q4vk_buffer *b = buffer(ctx, 256);
    ck_assert_int_eq(q4vk_fill(ctx, b, 0, 0, 1, &err), Q4_OK);
    ck_assert_msg(spin(ctx, b, probe, &t, &err) == Q4_OK, "%s", err.msg);
    double t0 = now_ms();
    ck_assert_msg(spin(ctx, b, probe, &t, &err) == Q4_OK, "%s", err.msg);
    double ms = t.gpu_ms > 0 ? t.gpu_ms : now_ms() - t0;
    double iters = probe * (600.0 / (ms > 1e-3 ? ms : 1e-3));
    uint32_t n_iters = iters > 4e9 ? 4000000000u : iters < probe ? probe : (uint32_t)iters;
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);

    q4vk_options opt = { .timeout_ms = 60 };
    ctx = context(&opt);
    b = buffer(ctx, 256);
    ck_assert_int_eq(spin(ctx, b, n_iters, NULL, &err), Q4_ERR_TIMEOUT);
    ck_assert_msg(strstr(err.msg, "test_spin") && strstr(err.msg, "60 ms") &&
                  !strstr(err.msg, "injected"), "message: %s", err.msg);
    ck_assert_int_eq(q4vk_upload(ctx, b, 0, &n_iters, 4, &err), Q4_ERR_TIMEOUT);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);

    ctx = context(NULL);
    roundtrip_works(ctx);
    q4vk_destroy(ctx);
}
END_TEST

/* ---------------- validation ---------------- */

/* A context asked for validation (by opt or the environment), or NULL when the layer
 * is not installed (the only case in which these tests pass without checking
 * anything: they say so). */
static q4vk_context *validation_context(const q4vk_options *opt)
{
    q4vk_context *ctx = NULL;
    q4_error err = { 0 };
    q4_status st = q4vk_create(opt, &ctx, &err);
    if (st == Q4_ERR_UNSUPPORTED && strstr(err.msg, "VK_LAYER_KHRONOS_validation")) {
        fprintf(stderr, "validation tests skipped: %s\n", err.msg);
        return NULL;
    }
    ck_assert_msg(st == Q4_OK, "q4vk_create with validation: %s", err.msg);
    return ctx;
}

static const q4vk_options with_validation = { .validation = true };

START_TEST(validation_clean_run)
{
    q4vk_context *ctx = validation_context(&with_validation);
    if (!ctx)
        return;
    roundtrip_works(ctx);
    uint64_t warnings = 0;
    char first[Q4_MSG_MAX];
    ck_assert_msg(q4vk_validation_messages(ctx, &warnings, first, sizeof first) == 0,
                  "validation errors on a correct run");
    (void)warnings;
    q4vk_destroy(ctx);
}
END_TEST

/* Dispatches recorded under a flag's condition run or not by what an earlier dispatch
 * of the same submission wrote into it; with the validation layer's synchronisation
 * checks on (ctx_opt), the barrier before each orders the flag's write before the
 * condition reads it. */
static void sequence_when_on(const q4vk_options *ctx_opt)
{
    q4vk_context *ctx = ctx_opt ? validation_context(ctx_opt) : context(NULL);
    if (!ctx)
        return;
    q4_error err = { 0 };
    uint32_t n = 64, *v, got[64], zero = 0;
    q4vk_buffer *b = iota_buffer(ctx, n, 0, &v);
    q4vk_buffer *flag = buffer(ctx, 4);
    upload(ctx, flag, 0, &zero, 4);
    q4vk_pipeline *add = pipeline(ctx, "test_add", NULL), *mul = pipeline(ctx, "test_mul", NULL);
    ck_assert_int_eq(q4vk_sequence_when(ctx, NULL, true, &err), Q4_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.msg, "no sequence"), "message: %s", err.msg);
    ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_OK);
    if (!q4vk_info(ctx)->conditional) {   /* refused, naming what is missing */
        ck_assert_int_eq(q4vk_sequence_when(ctx, flag, true, &err), Q4_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(err.msg, "VK_EXT_conditional_rendering"), "message: %s", err.msg);
        q4vk_sequence_abort(ctx);
    } else {
        ck_assert_int_eq(run_n(ctx, add, flag, 1, NULL, &err), Q4_OK);   /* flag = 1 */
        ck_assert_int_eq(q4vk_sequence_when(ctx, flag, true, &err), Q4_OK);
        ck_assert_int_eq(run_n(ctx, mul, b, n, NULL, &err), Q4_OK);      /* runs: * 3 */
        ck_assert_int_eq(q4vk_sequence_when(ctx, flag, false, &err), Q4_OK);
        ck_assert_int_eq(run_n(ctx, add, b, n, NULL, &err), Q4_OK);      /* skipped */
        ck_assert_int_eq(q4vk_sequence_when(ctx, NULL, false, &err), Q4_OK);
        ck_assert_int_eq(run_n(ctx, add, b, n, NULL, &err), Q4_OK);      /* runs: + 1 */
        ck_assert_int_eq(q4vk_sequence_when(ctx, flag, false, &err), Q4_OK);
        ck_assert_msg(q4vk_sequence_end(ctx, NULL, &err) == Q4_OK, "end: %s", err.msg);
        download(ctx, b, 0, got, n * 4);
        for (uint32_t i = 0; i < n; i++)
            ck_assert_uint_eq(got[i], i * 3 + 1);
        /* a sequence's condition ends with it: the next one runs everything */
        ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_OK);
        ck_assert_int_eq(run_n(ctx, add, b, n, NULL, &err), Q4_OK);
        ck_assert_msg(q4vk_sequence_end(ctx, NULL, &err) == Q4_OK, "end: %s", err.msg);
        download(ctx, b, 0, got, n * 4);
        ck_assert_uint_eq(got[5], 5 * 3 + 2);
        /* a first dispatch's condition reads what an earlier submission left (1) */
        ck_assert_int_eq(q4vk_sequence_begin(ctx, &err), Q4_OK);
        ck_assert_int_eq(q4vk_sequence_when(ctx, flag, false, &err), Q4_OK);
        ck_assert_int_eq(run_n(ctx, mul, b, n, NULL, &err), Q4_OK);      /* skipped */
        ck_assert_int_eq(q4vk_sequence_when(ctx, flag, true, &err), Q4_OK);
        ck_assert_int_eq(run_n(ctx, add, b, n, NULL, &err), Q4_OK);      /* runs: + 1 */
        ck_assert_msg(q4vk_sequence_end(ctx, NULL, &err) == Q4_OK, "end: %s", err.msg);
        download(ctx, b, 0, got, n * 4);
        ck_assert_uint_eq(got[5], 5 * 3 + 3);
    }
    if (ctx_opt) {
        uint64_t warnings = 0;
        char first[Q4_MSG_MAX] = "";
        ck_assert_msg(q4vk_validation_messages(ctx, &warnings, first, sizeof first) == 0,
                      "validation errors on a correct conditional sequence: %s", first);
    }
    free(v);
    q4vk_buffer_destroy(ctx, flag);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}

START_TEST(sequence_when_picks_dispatches)
{
    sequence_when_on(NULL);
}
END_TEST

START_TEST(sequence_when_validated)
{
    sequence_when_on(&with_validation);
}
END_TEST

START_TEST(validation_env)
{
    char line[1024] = "";
    FILE *log = tmpfile();
    ck_assert_ptr_nonnull(log);
    setenv("Q4CTS_VALIDATION", "1", 1);
    q4vk_options opt = { .log = log };
    q4vk_context *ctx = validation_context(&opt);
    if (!ctx) {
        fclose(log);
        return;
    }
    first_log_line(log, line, sizeof line);
    ck_assert_msg(strstr(line, "validation on"), "log line: %s", line);
    q4vk_destroy(ctx);
}
END_TEST

START_TEST(validation_catches_bad_pipeline)
{
    q4vk_context *ctx = validation_context(&with_validation);
    q4_error err = { 0 };
    q4vk_pipeline *p = (q4vk_pipeline *)1;
    if (!ctx)
        return;
    /* test_bad_push reads 16 bytes of push constants; its annotation says 4. */
    ck_assert_int_eq(q4vk_pipeline_get(ctx, test_kernel("test_bad_push"), NULL, &p, &err),
                     Q4_ERR_VALIDATION);
    ck_assert_ptr_null(p);
    ck_assert_msg(strncmp(err.msg, "validation layer, pipeline of kernel test_bad_push: ", 52) == 0,
                  "message: %s", err.msg);
    ck_assert_uint_ge(q4vk_validation_messages(ctx, NULL, NULL, 0), 1);

    /* The same code as an override of a good kernel: the message names the override. */
    const q4vk_kernel *bad = test_kernel("test_bad_push");
    ck_assert_int_eq(q4vk_set_override(ctx, "test_add", bad->spirv, bad->spirv_words, &err),
                     Q4_OK);
    ck_assert_int_eq(q4vk_pipeline_get(ctx, test_kernel("test_add"), NULL, &p, &err),
                     Q4_ERR_VALIDATION);
    ck_assert_msg(strstr(err.msg, "test_add from its override"), "message: %s", err.msg);

    /* The context lives on: a correct kernel still runs cleanly. */
    q4_error ok = { 0 };
    uint32_t n = 64, v[64] = { 0 };
    q4vk_buffer *b = buffer(ctx, sizeof v);
    upload(ctx, b, 0, v, sizeof v);
    ck_assert_msg(run_n(ctx, pipeline(ctx, "test_mul", NULL), b, n, NULL, &ok) == Q4_OK, "%s",
                  ok.msg);
    q4vk_buffer_destroy(ctx, b);
    q4vk_destroy(ctx);
}
END_TEST

static TCase *tcase(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return tc;
}

static Suite *runtime_suite(void)
{
    Suite *s = suite_create("q4vk runtime");
    TCase *tc = tcase(s, "devices");
    tcase_add_test(tc, enumerate_info);
    tcase_add_test(tc, driver_version_decoding);
    tcase_add_test(tc, select_default_and_log);
    tcase_add_test(tc, select_by_index_name_uuid);
    tcase_add_test(tc, select_bad);
    tc = tcase(s, "buffers");
    tcase_add_test(tc, buffer_args);
    tcase_add_test(tc, roundtrip_offsets);
    tcase_add_test(tc, roundtrip_multi_chunk);
    tcase_add_test(tc, roundtrip_threads);
    tcase_add_test(tc, fill);
    tc = tcase(s, "runs");
    tcase_add_test(tc, kernel_tables);
    tcase_add_test(tc, fold_groups);
    tcase_add_test(tc, run_folded);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, run_sequence_and_offsets);
    tcase_add_test(tc, sequence_records_then_submits);
    tcase_add_test(tc, sequence_when_picks_dispatches);
    tcase_add_test(tc, run_args);
    tcase_add_test(tc, storage_range_limit);
    tcase_add_test(tc, override_replaces_kernel);
    tc = tcase(s, "faults");
    tcase_add_test(tc, fault_alloc);
    tcase_add_test(tc, fault_device_lost);
    tcase_add_test(tc, fault_timeout);
    tcase_add_test(tc, watchdog_real_timeout);
    tc = tcase(s, "validation");
    tcase_add_test(tc, validation_clean_run);
    tcase_add_test(tc, sequence_when_validated);
    tcase_add_test(tc, validation_env);
    tcase_add_test(tc, validation_catches_bad_pipeline);
    return s;
}

int main(void)
{
    int count = 0;
    q4_error err = { 0 };
    q4_status st = q4vk_enumerate(NULL, 0, &count, &err);
    if (st == Q4_ERR_UNSUPPORTED) {
        printf("gpu.runtime skipped: %s\n", err.msg);
        return 77;
    }
    if (st != Q4_OK) {
        fprintf(stderr, "q4vk_enumerate: %s\n", err.msg);
        return 1;
    }
    SRunner *sr = srunner_create(runtime_suite());
    srunner_run_all(sr, CK_ENV);   /* CK_VERBOSE=verbose lists every test */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
