/* q4vk_op_ceilings.c: measures the device's copy bandwidth and fp32 FMA rate, the
 * ceilings against which perf mode reports every op as a ratio. */
#include <stdlib.h>
#include <time.h>

#include "q4vk.h"

/* GPUs drop their clocks when idle (the H200 idles at 345 MHz of 1980) and raise them
 * only after a sustained load of some tens of ms: a ceiling measured on a cold GPU
 * reads low, so each kernel first runs for at least this long, untimed. */
#define CEILING_WARMUP_S 0.3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median GPU time of `reps` runs of one dispatch (after CEILING_WARMUP_S of warm-up). */
static q4_status time_dispatch(q4vk_context *ctx, const q4vk_dispatch *d, int reps, double *ms,
                               q4_error *err)
{
    double t[64];
    q4vk_timing tm;
    if (reps > 64)
        reps = 64;
    q4_status st = Q4_OK;
    for (double t0 = now_s(); st == Q4_OK && now_s() - t0 < CEILING_WARMUP_S;)
        st = q4vk_run(ctx, d, 1, &tm, err);
    for (int i = 0; i < reps && st == Q4_OK; i++) {
        st = q4vk_run(ctx, d, 1, &tm, err);
        t[i] = tm.gpu_ms;
    }
    if (st != Q4_OK)
        return st;
    if (t[0] < 0)
        return q4_fail(err, Q4_ERR_UNSUPPORTED, "the device has no compute-queue timestamps; "
                       "perf mode needs them");
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    *ms = t[reps / 2];
    return Q4_OK;
}

q4_status q4vk_measure_ceilings(q4vk_context *ctx, int reps, q4vk_ceilings *out, q4_error *err)
{
    const q4vk_device_info *info = q4vk_info(ctx);
    const q4vk_kernel *copy_k = q4vk_kernel_find("ceiling_copy");
    const q4vk_kernel *fma_k = q4vk_kernel_find("ceiling_fma");
    q4vk_pipeline *copy_p, *fma_p;
    q4vk_buffer *src = NULL, *dst = NULL;
    int cpu = info->type[0] == 'c';
    /* 1 GiB each way on a GPU (16x the H200's 60 MB L2), capped by the binding limit
     * and a quarter of device memory; 32 MiB on a CPU device. */
    uint64_t bytes = cpu ? (32u << 20) : (1ull << 30);
    if (bytes > info->max_storage_range)
        bytes = info->max_storage_range & ~(uint64_t)15;
    if (info->device_local_bytes && bytes > info->device_local_bytes / 4)
        bytes = (info->device_local_bytes / 4) & ~(uint64_t)15;
    uint32_t groups_total = cpu ? 64 : 8192, per;
    uint64_t n4 = bytes / 16;
    per = (uint32_t)((n4 + (uint64_t)groups_total * 256 - 1) / ((uint64_t)groups_total * 256));
    double ms = 0;

    q4_status st = q4vk_pipeline_get(ctx, copy_k, NULL, &copy_p, err);
    if (st == Q4_OK)
        st = q4vk_pipeline_get(ctx, fma_k, NULL, &fma_p, err);
    if (st == Q4_OK)
        st = q4vk_buffer_create(ctx, bytes, &src, err);
    if (st == Q4_OK)
        st = q4vk_buffer_create(ctx, bytes, &dst, err);
    if (st == Q4_OK) {
        struct { uint32_t n4, per; } push = { (uint32_t)n4, per };
        q4vk_dispatch d = { .pipe = copy_p, .bind = { { src, 0, 0 }, { dst, 0, 0 } },
                            .push = &push };
        st = q4vk_fold(ctx, copy_k->name, groups_total, d.groups, err);
        if (st == Q4_OK)
            st = time_dispatch(ctx, &d, reps, &ms, err);
        out->copy_bytes = 2.0 * (double)bytes;
        out->copy_gbs = out->copy_bytes / (ms * 1e6);
    }
    if (st == Q4_OK) {
        struct { uint32_t n4, per; } push = { 256, 1 };   /* 4 KiB: one workgroup */
        q4vk_dispatch d = { .pipe = copy_p, .bind = { { src, 0, 0 }, { dst, 0, 0 } },
                            .push = &push, .groups = { 1, 1, 1 } };
        st = time_dispatch(ctx, &d, reps, &ms, err);
        out->dispatch_us = ms * 1e3;
    }
    if (st == Q4_OK) {
        uint32_t fma_groups = cpu ? 16 : 16384, iters = cpu ? 256 : 4096;
        struct { uint32_t iters; float seed; } push = { iters, 0.5f };
        q4vk_dispatch d = { .pipe = fma_p, .bind = { { dst, 0, (uint64_t)fma_groups * 256 * 4 } },
                            .push = &push };
        st = q4vk_fold(ctx, fma_k->name, fma_groups, d.groups, err);
        if (st == Q4_OK)
            st = time_dispatch(ctx, &d, reps, &ms, err);
        out->fma_tflops = (double)fma_groups * 256 * iters * 64 / (ms * 1e9);
    }
    if (src)
        q4vk_buffer_destroy(ctx, src);
    if (dst)
        q4vk_buffer_destroy(ctx, dst);
    return st;
}
