/* perf.c: `q4cts perf`. For each selected case: inputs uploaded once, warm-up runs,
 * then the median and spread of N runs timed with GPU timestamps around the
 * dispatches only. Each op is reported against the ceiling that binds it: the
 * measured copy bandwidth for memory-bound cases, the measured fp32 FMA rate for
 * compute-bound ones (arithmetic intensity above the ridge point). */
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "q4report.h"
#include "runner.h"
#include "select.h"

#ifndef Q4CTS_CASES_DIR
#define Q4CTS_CASES_DIR "cases"
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times one case; fills row. */
static q4_status time_case(q4vk_context *ctx, const q4h_cli *cli, const q4vk_ceilings *ceil,
                           const q4_case *c, q4_perf_result *row, q4_error *err)
{
    const q4h_op *op = q4h_op_find(c->op);
    q4_inputs in = { 0 };
    q4h_gpu_buffers bufs = { 0 };
    double *t = calloc((size_t)cli->perf_reps, sizeof *t);
    q4vk_timing tm;
    q4_status st = t ? q4_case_inputs(c, &in, err) : q4_fail(err, Q4_ERR_NOMEM, "out of memory");
    if (st == Q4_OK)
        st = q4h_gpu_prepare(ctx, op, c, &in, 0, &bufs, err);
    /* Warm-up: at least perf_warmup runs and perf_warmup_ms of wall time. Generating a
     * large case's inputs on the CPU takes seconds, in which the GPU drops its clocks
     * (the H200 to 345 MHz of 1980); a few runs do not bring them back, and timing a
     * cold GPU measured AdamW at 2^28 2.4x slower than a warm one. */
    const double t0 = q4h_now_s();
    for (int i = 0; st == Q4_OK && (i < cli->perf_warmup ||
                                    (q4h_now_s() - t0) * 1e3 < cli->perf_warmup_ms); i++)
        st = op->launch(ctx, c, &in, bufs.b, &tm, err);
    for (int i = 0; i < cli->perf_reps && st == Q4_OK; i++) {
        st = op->launch(ctx, c, &in, bufs.b, &tm, err);
        t[i] = tm.gpu_ms;
    }
    if (st == Q4_OK && t[0] < 0)
        st = q4_fail(err, Q4_ERR_UNSUPPORTED, "the device has no compute-queue timestamps");
    if (st == Q4_OK) {
        int n = cli->perf_reps;
        qsort(t, (size_t)n, sizeof *t, cmp_double);
        row->median_ms = t[n / 2];
        row->p10_ms = t[n / 10];
        row->p90_ms = t[n - 1 - n / 10];
        row->gbs = op->bytes(c) / (row->median_ms * 1e6);
        row->tflops = op->flops(c) / (row->median_ms * 1e9);
        /* Ridge point: flops per byte at which the FMA rate, not bandwidth, binds. */
        double ridge = ceil->fma_tflops * 1e3 / ceil->copy_gbs;
        int compute = op->flops(c) / op->bytes(c) > ridge;
        snprintf(row->bound_by, sizeof row->bound_by, "%s", compute ? "fma" : "bandwidth");
        row->pct = compute ? 100.0 * row->tflops / ceil->fma_tflops
                           : 100.0 * row->gbs / ceil->copy_gbs;
    }
    q4h_gpu_release(ctx, &bufs);
    q4_inputs_free(&in);
    free(t);
    return st;
}

/* The median of `name` in a saved --json of perf mode (one result per line), or < 0. */
static double baseline_ms(const char *text, const char *name)
{
    char key[Q4_CASE_NAME_MAX + 16];
    snprintf(key, sizeof key, "\"name\": \"%s\"", name);
    const char *p = strstr(text, key), *m;
    if (!p || !(m = strstr(p, "\"median_ms\": ")))
        return -1;
    const char *eol = strchr(p, '\n');
    if (eol && m > eol)
        return -1;
    return atof(m + 13);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1))) {
        size_t got = fread(buf, 1, (size_t)size, f);
        buf[got] = '\0';
    }
    fclose(f);
    return buf;
}

int q4h_perf(const q4h_cli *cli)
{
    q4h_cli sel = *cli;
    q4_case *cases = NULL;
    size_t n = 0;
    q4_error err = { 0 };
    q4vk_context *ctx = NULL;
    q4vk_ceilings ceil;
    char *baseline = NULL;
    int rc = 0, regressions = 0;

    if (sel.n_caselists == 0 && sel.n_filters == 0)
        sel.caselists[sel.n_caselists++] = Q4CTS_CASES_DIR "/perf.txt";
    if (cli->baseline && !(baseline = read_text(cli->baseline))) {
        fprintf(stderr, "q4cts: cannot read the baseline %s\n", cli->baseline);
        return 2;
    }
    q4vk_options vo = { .device = cli->device, .validation = cli->validation != 0,
                        .timeout_ms = (uint64_t)(cli->timeout_s * 1000), .log = stdout };
    if (q4h_select(&sel, &cases, &n, &err) != Q4_OK || q4vk_create(&vo, &ctx, &err) != Q4_OK ||
        q4vk_measure_ceilings(ctx, 9, &ceil, &err) != Q4_OK) {
        fprintf(stderr, "q4cts: %s\n", err.msg);
        q4vk_destroy(ctx);
        free(cases);
        free(baseline);
        return 2;
    }
    printf("ceilings: copy %.1f GB/s, fp32 FMA %.2f TFLOP/s, one dispatch %.1f us (%d reps, "
           "warm-up %d runs and %d ms)\n", ceil.copy_gbs, ceil.fma_tflops, ceil.dispatch_us,
           cli->perf_reps, cli->perf_warmup, cli->perf_warmup_ms);
    printf("%-58s %10s %10s %9s %9s %7s %s\n", "case", "median ms", "p10-p90 %", "GB/s",
           "TFLOP/s", "% ceil", "bound");
    const q4vk_device_info *info = q4vk_info(ctx);
    char driver[sizeof info->driver_name + sizeof info->driver_version_str + 2];
    snprintf(driver, sizeof driver, "%s %s", info->driver_name, info->driver_version_str);
    const q4_prop props[] = { { "device", info->name }, { "driver", driver } };
    q4_perf_json *json = NULL;
    if (cli->json && q4_perf_json_open(cli->json, props, 2, ceil.copy_gbs, ceil.fma_tflops,
                                       ceil.dispatch_us, &json, &err) != Q4_OK) {
        fprintf(stderr, "q4cts: %s\n", err.msg);
        rc = 2;
        n = 0;   /* no report, no run: the user asked for one */
    }
    for (size_t i = 0; i < n; i++) {
        q4_perf_result r = { 0 };
        snprintf(r.name, sizeof r.name, "%s", cases[i].name);
        snprintf(r.op, sizeof r.op, "%s", cases[i].op);
        if (time_case(ctx, cli, &ceil, &cases[i], &r, &err) != Q4_OK) {
            snprintf(r.error, sizeof r.error, "%.190s", err.msg);
            printf("%-58s error: %s\n", r.name, r.error);
            rc = rc ? rc : 1;
        } else {
            printf("%-58s %10.4f %10.1f %9.1f %9.3f %7.1f %s", r.name, r.median_ms,
                   100.0 * (r.p90_ms - r.p10_ms) / r.median_ms, r.gbs, r.tflops, r.pct,
                   r.bound_by);
            double base = baseline ? baseline_ms(baseline, r.name) : -1;
            if (base > 0 && r.median_ms > 1.10 * base) {
                printf("  REGRESSION: %.4f ms vs baseline %.4f ms (+%.0f%%)", r.median_ms, base,
                       100.0 * (r.median_ms / base - 1));
                regressions++;
            }
            printf("\n");
        }
        if (json && q4_perf_json_add(json, &r, &err) != Q4_OK) {
            fprintf(stderr, "q4cts: %s\n", err.msg);
            rc = 2;
        }
    }
    if (q4_perf_json_close(json, &err) != Q4_OK) {
        fprintf(stderr, "q4cts: %s\n", err.msg);
        rc = 2;
    }
    if (regressions) {
        printf("%d case(s) more than 10%% slower than %s\n", regressions, cli->baseline);
        rc = rc ? rc : 1;
    }
    q4vk_destroy(ctx);
    free(cases);
    free(baseline);
    return rc;
}
