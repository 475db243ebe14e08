/* q4ref_bench.c: GFLOP/s of the reference linear ops against a bare cblas_sgemm of the
 * same shape, and their ratio (the reference must keep >= 80% at M, N, K >= 512).
 * Not a test: run by hand (build target q4ref_bench). Median of REPS wall-clock runs. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "q4ref.h"

#define REPS 9

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum op { FWD, BWD, DW };

typedef struct bufs {
    int64_t M, N, K, gs;
    float *x, *dout, *y, *dx, *dw, *wf, *scales;
    uint32_t *w;
} bufs;

/* One timed run of `op`, through q4ref (ref = 1) or bare sgemm on an fp32 weight. */
static double run_once(const bufs *b, enum op op, int ref)
{
    const int M = (int)b->M, N = (int)b->N, K = (int)b->K;
    q4_error err;
    q4_status st = Q4_OK;
    double t0 = now_s();
    switch (op) {
    case FWD:
        if (ref)
            st = q4ref_linear_fwd(b->x, b->w, b->scales, NULL, M, N, K, b->gs, b->y, &err);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, b->x, K, b->wf, K, 0,
                        b->y, N);
        break;
    case BWD:
        if (ref)
            st = q4ref_linear_bwd(b->dout, b->w, b->scales, M, N, K, b->gs, b->dx, &err);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, K, N, 1, b->dout, N, b->wf,
                        K, 0, b->dx, K);
        break;
    case DW:
        if (ref)
            st = q4ref_linear_dw(b->dout, b->x, M, N, K, b->dw, &err);
        else
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, N, K, M, 1, b->dout, N, b->x, K,
                        0, b->dw, K);
        break;
    }
    if (st != Q4_OK) {
        fprintf(stderr, "q4ref_bench: %s\n", err.msg);
        exit(1);
    }
    return now_s() - t0;
}

/* Median times of the reference and of bare sgemm, their runs interleaved so that
 * clock or thermal drift affects both alike. */
static void median_s(const bufs *b, enum op op, double *ref_s, double *bare_s)
{
    double tr[REPS], tb[REPS];
    run_once(b, op, 1);  /* warm-up: scratch allocation, page faults */
    run_once(b, op, 0);
    for (int i = 0; i < REPS; i++) {
        tr[i] = run_once(b, op, 1);
        tb[i] = run_once(b, op, 0);
    }
    qsort(tr, REPS, sizeof tr[0], cmp_double);
    qsort(tb, REPS, sizeof tb[0], cmp_double);
    *ref_s = tr[REPS / 2];
    *bare_s = tb[REPS / 2];
}

int main(void)
{
    static const int64_t sizes[] = {512, 1024, 2048};
    static const char *names[] = {"linear_fwd", "linear_bwd", "linear_dw"};
    printf("%-10s %5s %5s %5s %10s %10s %7s\n", "op", "M", "N", "K", "ref GF/s", "sgemm GF/s",
           "ratio");
    for (int si = 0; si < 3; si++) {
        const int64_t n = sizes[si];
        bufs b = {.M = n, .N = n, .K = n, .gs = 128};
        uint8_t *codes = malloc((size_t)(n * n));
        q4_error err;
        b.x = malloc(sizeof(float) * (size_t)(n * n));
        b.dout = malloc(sizeof(float) * (size_t)(n * n));
        b.y = malloc(sizeof(float) * (size_t)(n * n));
        b.dx = malloc(sizeof(float) * (size_t)(n * n));
        b.dw = malloc(sizeof(float) * (size_t)(n * n));
        b.wf = malloc(sizeof(float) * (size_t)(n * n));
        b.scales = malloc(sizeof(float) * (size_t)q4_scales_count(n, n, b.gs));
        b.w = malloc(4 * (size_t)q4_w4x8_words(n, n));
        if (!codes || !b.x || !b.dout || !b.y || !b.dx || !b.dw || !b.wf || !b.scales || !b.w) {
            fprintf(stderr, "q4ref_bench: out of memory\n");
            return 1;
        }
        srand(1);
        for (int64_t i = 0; i < n * n; i++) {
            codes[i] = (uint8_t)(rand() & 15);
            b.x[i] = (float)rand() / RAND_MAX - 0.5f;
            b.dout[i] = (float)rand() / RAND_MAX - 0.5f;
        }
        for (int64_t i = 0; i < q4_scales_count(n, n, b.gs); i++)
            b.scales[i] = 0.01f + 0.001f * (float)(i % 7);
        if (q4ref_pack_w4x8(codes, n, n, b.w, &err) ||
            q4ref_dequant_w4x8(b.w, b.scales, n, n, b.gs, b.wf, &err)) {
            fprintf(stderr, "q4ref_bench: %s\n", err.msg);
            return 1;
        }
        for (int op = FWD; op <= DW; op++) {
            const double flops = 2.0 * (double)n * (double)n * (double)n;
            double tr, tb;
            if (si == 0 && op == FWD)  /* start OpenBLAS's threads before the first timing */
                for (int i = 0; i < 20; i++)
                    run_once(&b, FWD, 0);
            median_s(&b, (enum op)op, &tr, &tb);
            printf("%-10s %5lld %5lld %5lld %10.1f %10.1f %6.1f%%\n", names[op], (long long)n,
                   (long long)n, (long long)n, flops / tr * 1e-9, flops / tb * 1e-9,
                   100.0 * tb / tr);
        }
        free(codes);
        free(b.x);
        free(b.dout);
        free(b.y);
        free(b.dx);
        free(b.dw);
        free(b.wf);
        free(b.scales);
        free(b.w);
    }
    return 0;
}
