/* ce_alloc.c (experiment, not part of the suite): does CE's slow mode follow the
 * process (context) or the allocation? One context; six rounds of: allocate CE's
 * buffers for R x V (and optionally keep the earlier rounds' alive), time 10 runs,
 * print the median. Also one dequantize 16384^2 round per allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "q4vk.h"
#include "q4case.h"

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int keep = argc > 1 && !strcmp(argv[1], "keep");
    int warm = argc > 1 && !strcmp(argv[1], "warm") ? 1500 : 3;   /* q4cts perf: >= 500 ms of warm-up */
    int idle = argc > 1 && !strcmp(argv[1], "idle");           /* 3 s idle GPU first, as input generation */
    int spin = argc > 1 && !strcmp(argv[1], "spin");           /* 3 s of CPU busy-wait instead */
    int recreate = argc > 1 && !strcmp(argv[1], "recreate");   /* 3 s idle, then a new context */
    int hdata = argc > 1 && !strcmp(argv[1], "harness");       /* q4cts perf's inputs (case generator) */
    size_t pad = argc > 1 && !strcmp(argv[1], "guard") ? 64 : 0;   /* the harness adds guard words */
    const int64_t R = 4096, V = 32000;
    q4_error err = {0};
    q4vk_options opt = {0};
    q4vk_context *ctx;
    if (q4vk_create(&opt, &ctx, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
    float *lg = malloc((size_t)(R * V) * 4);
    int32_t *lab = malloc((size_t)R * 4);
    for (int64_t i = 0; i < R * V; i++) lg[i] = (float)((i * 2654435761u) % 1000) * 0.01f - 5.0f;
    for (int64_t r = 0; r < R; r++) lab[r] = (int32_t)((r * 7919) % V);
    q4_case cs; q4_inputs in = {0};
    if (hdata) {
        if (q4_case_parse("q4cts.fused_ce.custom.r4096_v32000_p0", 0, &cs, &err) ||
            q4_case_inputs(&cs, &in, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
        memcpy(lg, in.logits, (size_t)(R * V) * 4);
        memcpy(lab, in.labels, (size_t)R * 4);
    }
    if (idle || recreate) sleep(3);
    if (spin) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        do clock_gettime(CLOCK_MONOTONIC, &b); while (b.tv_sec - a.tv_sec < 3);
    }
    if (recreate) {
        q4vk_destroy(ctx);
        if (q4vk_create(&opt, &ctx, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
    }
    q4vk_buffer *held[64]; int nh = 0;
    for (int round = 0; round < 6; round++) {
        q4vk_buffer *l, *b, *s, *d;
        if (q4vk_buffer_create(ctx, (size_t)(R * V) * 4 + pad, &l, &err) ||
            q4vk_buffer_create(ctx, (size_t)R * 4, &b, &err) ||
            q4vk_buffer_create(ctx, 4, &s, &err) ||
            q4vk_buffer_create(ctx, (size_t)(R * V) * 4 + pad, &d, &err) ||
            q4vk_upload(ctx, l, 0, lg, (size_t)(R * V) * 4, &err) ||
            q4vk_upload(ctx, b, 0, lab, (size_t)R * 4, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
        q4vk_ce_args a = {l, b, s, d, R, V, (float)R};
        double t[10];
        for (int i = 0; i < warm + 10; i++) {
            q4vk_timing tm;
            if (q4vk_fused_ce(ctx, &a, &tm, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
            if (i >= warm) t[i - warm] = tm.gpu_ms;
        }
        qsort(t, 10, sizeof *t, cmpd);
        printf("round %d (%s): ce r4096_v32000 median %.4f ms  p10 %.4f p90 %.4f\n", round,
               keep ? "earlier rounds kept" : spin ? "3 s CPU busy first" : recreate ? "3 s idle, then a new context" : idle ? "3 s idle first" : hdata ? "the harness's inputs" : warm > 3 ? "1500 warm-up calls" : pad ? "guard words, freed" : "earlier rounds freed", t[5], t[1], t[8]);
        fflush(stdout);
        if (keep && nh + 4 <= 64) { held[nh++] = l; held[nh++] = b; held[nh++] = s; held[nh++] = d; }
        else { q4vk_buffer_destroy(ctx, l); q4vk_buffer_destroy(ctx, b); q4vk_buffer_destroy(ctx, s); q4vk_buffer_destroy(ctx, d); }
    }
    for (int i = 0; i < nh; i++) q4vk_buffer_destroy(ctx, held[i]);
    q4vk_destroy(ctx);
    return 0;
}
