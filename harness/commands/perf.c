/* perf.c: `q4cts perf`. For each selected case: inputs uploaded once, warm-up runs,
 * then the median and spread of N runs timed with GPU timestamps around the
 * dispatches only. Each op is reported against the ceiling that binds it: the
 * measured copy bandwidth for memory-bound cases, the measured fp32 FMA rate for
 * compute-bound ones (arithmetic intensity above the ridge point).
 *
 * The ceilings and every case run in a child process of their own, with a fresh
 * Vulkan context made after the case's inputs (perf_child says why): a case that
 * crashes or hangs becomes an error row, and no case inherits another's
 * allocations. In one process, a case late in the H200 list ran
 * 2.6x slower (p10-p90 spread 64%) than the same case alone, in three fresh
 * processes, or after the list's largest allocations.
 *
 * --kernel NAME=FILE times a module in place of a built-in kernel, loaded and checked
 * as `run` does (overrides.c, plan.c), so that two versions of a kernel can be
 * compared in one session on one device. */
#include "perf.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "child.h"
#include "op.h"
#include "overrides.h"
#include "perf_baseline.h"
#include "plan.h"
#include "q4report.h"
#include "clock.h"
#include "select.h"
#include "shown.h"
#include "stop.h"
#include "train_case.h"

#ifndef Q4CTS_CASES_DIR
#define Q4CTS_CASES_DIR "cases"
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* What case c must move and compute at least: a training case's, the sum of its step's
 * ops (plan.h, q4h_train_op_cases). */
static void cost(const q4_case *c, double *bytes, double *flops)
{
    if (!q4_case_is_train(c)) {
        *bytes = q4h_op_of(c)->bytes(c);
        *flops = q4h_op_of(c)->flops(c);
        return;
    }
    q4_case oc[Q4H_TRAIN_OP_CASES];
    const int n = q4h_train_op_cases(c, oc, Q4H_TRAIN_OP_CASES);
    *bytes = *flops = 0;
    for (int i = 0; i < n; i++) {
        *bytes += q4h_op_of(&oc[i])->bytes(&oc[i]);
        *flops += q4h_op_of(&oc[i])->flops(&oc[i]);
    }
}

/* Rates n GPU times (sorted here) of case c against the ceiling that binds it. */
static void rate(const q4_case *c, const q4vk_ceilings *ceil, double *t, int n,
                 q4_perf_result *row)
{
    double bytes, flops;
    cost(c, &bytes, &flops);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    row->median_ms = t[n / 2];
    row->p10_ms = t[n / 10];
    row->p90_ms = t[n - 1 - n / 10];
    row->gbs = bytes / (row->median_ms * 1e6);
    row->tflops = flops / (row->median_ms * 1e9);
    /* Ridge point: flops per byte at which the FMA rate, not bandwidth, binds. */
    double ridge = ceil->fma_tflops * 1e3 / ceil->copy_gbs;
    int compute = flops / bytes > ridge;
    snprintf(row->bound_by, sizeof row->bound_by, "%s", compute ? "fma" : "bandwidth");
    row->pct = compute ? 100.0 * row->tflops / ceil->fma_tflops
                       : 100.0 * row->gbs / ceil->copy_gbs;
}

/* One child's task: the ceilings (c == NULL) or one case; and what it sends back. */
typedef struct perf_task {
    const q4h_cli *cli;
    const q4h_run_options *opt;   /* device options and the --kernel overrides */
    const q4_case *c;
    q4vk_ceilings ceil;   /* the case's ceilings, to rate it against */
} perf_task;

typedef struct perf_reply {
    q4_status st;
    q4_error err;
    q4vk_device_info info;
    q4vk_ceilings ceil;
    q4_perf_result r;
} perf_reply;

/* A training case's step, timed as one submission (train_case.h) on a device opened
 * after nothing else: the step makes its inputs itself. */
static q4_status time_train(const q4h_run_options *opt, const q4h_perf_ask *ask,
                            const q4_case *c, q4vk_device_info *info, double *t, q4_error *err)
{
    q4h_backend b = { 0 };
    q4_status st = q4h_backend_open(&b, opt, false, err);
    if (st == Q4_OK && b.i->info(&b))
        *info = *b.i->info(&b);
    if (st == Q4_OK)
        st = q4h_train_time(&b, ask, c, t, err);
    q4h_backend_close(&b);
    return st;
}

static void perf_child(void *user, void *out)
{
    const perf_task *task = user;
    const q4h_cli *cli = task->cli;
    perf_reply *reply = out;
    const q4h_perf_ask ask = { cli->perf_reps, cli->perf_warmup, cli->perf_warmup_ms };
    double *t = task->c ? calloc((size_t)cli->perf_reps, sizeof *t) : NULL;
    memset(reply, 0, sizeof *reply);
    reply->st = task->c && !t ? q4_fail(&reply->err, Q4_ERR_NOMEM, "out of memory")
              : task->c && q4_case_is_train(task->c)
                  ? time_train(task->opt, &ask, task->c, &reply->info, t, &reply->err)
                  : task->opt->backend->time(task->opt, &ask, task->c, &reply->info,
                                             &reply->ceil, t, &reply->err);
    if (reply->st == Q4_OK && task->c)
        rate(task->c, &task->ceil, t, cli->perf_reps, &reply->r);
    free(t);
}

/* Runs a task in a child; the child's own failure becomes the reply's. */
static void run_task(const perf_task *task, perf_reply *reply)
{
    /* As `run`'s watchdog for one case: four GPU timeouts and a minute for the host. */
    const double limit = 4.0 * task->cli->timeout_s + 60.0;
    q4_error err = { 0 };
    if (q4h_in_child(perf_child, (void *)task, reply, sizeof *reply, limit, &err) != Q4_OK) {
        memset(reply, 0, sizeof *reply);
        reply->st = err.status ? err.status : Q4_ERR_DEVICE;
        reply->err = err;
    }
}

int q4h_perf(const q4h_cli *cli)
{
    q4h_cli sel = *cli;
    q4_case *cases = NULL;
    size_t n = 0;
    q4_error err = { 0 };
    q4h_baseline *baseline = NULL;
    q4h_override *overrides = NULL;
    int rc = 0, regressions = 0;

    if (sel.n_caselists == 0 && sel.n_filters == 0)
        sel.caselists[sel.n_caselists++] = Q4CTS_CASES_DIR "/perf.txt";
    if ((cli->baseline && q4h_baseline_load(cli->baseline, &baseline, &err) != Q4_OK) ||
        q4h_overrides_load(cli->kernel_args, cli->n_kernels, &overrides, &err) != Q4_OK) {
        q4h_say(err.msg);
        q4h_baseline_free(baseline);
        return 2;
    }
    const q4h_run_options opt = {
        .backend = q4h_cli_backend(cli),
        /* WebGPU: a worker of its own per task, 4 x --timeout and half a minute a task */
        .exchange_s = 4.0 * cli->timeout_s + 30.0,
        .vk = { .device = cli->device, .validation = cli->validation != 0,
                .timeout_ms = (uint64_t)(cli->timeout_s * 1000), .faults = cli->faults,
                .dense_min_m = cli->dense_min_m, .mma_min_m = cli->mma_min_m },
        .overrides = overrides, .n_overrides = (int)cli->n_kernels,
        /* a training step's planted bug: a host-side one leaves no step to time */
        .train_fault = cli->train_fault,
    };
    perf_task task = { .cli = cli, .opt = &opt };
    perf_reply *reply = calloc(1, sizeof *reply);
    q4_status st = reply ? q4h_select(&sel, &cases, &n, &err)
                         : q4_fail(&err, Q4_ERR_NOMEM, "out of memory");
    size_t compared = 0;
    for (size_t i = 0; st == Q4_OK && baseline && i < n; i++)
        compared += q4h_baseline_ms(baseline, cases[i].name) > 0;
    if (st == Q4_OK && baseline && compared == 0) {
        char shown[Q4_ECHO_MAX];
        st = q4_fail(&err, Q4_ERR_ARG, "the baseline %s times none of the %zu selected cases; "
                     "expected a perf run of the same cases", q4_echo(cli->baseline, shown,
                                                                      sizeof shown), n);
    }
    if (st == Q4_OK) {
        q4h_stop_install();
        run_task(&task, reply);   /* the ceilings */
        st = reply->st;
        err = reply->err;
    }
    /* An override no selected case runs on this device would time nothing new. */
    if (st == Q4_OK)
        st = q4h_overrides_check_used(&opt, cases, n, &reply->info, &err);
    if (st != Q4_OK) {
        q4h_say(err.msg);
        if (q4h_stop_signal())   /* stopped while measuring the ceilings */
            printf("result: INCOMPLETE (%s), 0 of %zu cases timed\n", q4h_stop_reason(), n);
        free(reply);
        free(cases);
        q4h_baseline_free(baseline);
        q4h_overrides_free(overrides, cli->n_kernels);
        return q4h_stop_signal() ? 128 + q4h_stop_signal() : 2;
    }
    const q4vk_ceilings ceil = task.ceil = reply->ceil;
    const q4vk_device_info dev = reply->info;
    printf("ceilings: copy %.1f GB/s, fp32 FMA %.2f TFLOP/s, one dispatch %.1f us (%d reps, "
           "warm-up %d runs and %d ms)\n", ceil.copy_gbs, ceil.fma_tflops, ceil.dispatch_us,
           cli->perf_reps, cli->perf_warmup, cli->perf_warmup_ms);
    /* Which kernels were replaced, in the report: a timing of someone's module is
     * not a timing of ours. */
    char replaced[1024] = "";
    for (size_t k = 0; k < cli->n_kernels; k++) {
        size_t len = strlen(replaced);
        snprintf(replaced + len, sizeof replaced - len, "%s%s=%s", k ? " " : "",
                 overrides[k].kernel, overrides[k].path);
    }
    if (replaced[0]) {
        char shown[Q4_ECHO_MAX];
        printf("kernels replaced: %s\n", q4_echo(replaced, shown, sizeof shown));
    }
    /* The linears' dense path threshold, where the run moved it: it changes what runs. */
    char dense_m[24] = "", mma_m[24] = "";
    if (cli->dense_min_m) {
        snprintf(dense_m, sizeof dense_m, "%" PRIu64, dev.dense_min_m);
        printf("linear dense path from M = %s\n", dense_m);
    }
    if (dev.coopmat_s8) {
        if (dev.mma_min_m == UINT64_MAX)
            snprintf(mma_m, sizeof mma_m, "off");
        else
            snprintf(mma_m, sizeof mma_m, "%" PRIu64, dev.mma_min_m);
        printf("linear tensor-core path from M = %s\n", mma_m);
    }
    printf("%-58s %10s %10s %9s %9s %7s %s\n", "case", "median ms", "p10-p90 %", "GB/s",
           "TFLOP/s", "% ceil", "bound");
    char driver[sizeof dev.driver_name + sizeof dev.driver_version_str + 2];
    snprintf(driver, sizeof driver, "%s %s", dev.driver_name, dev.driver_version_str);
    q4_prop props[6] = { { "device", dev.name }, { "driver", driver },
                         { "api", opt.backend->api } };
    int n_props = 3;
    if (replaced[0])
        props[n_props++] = (q4_prop){ "kernel_overrides", replaced };
    if (dense_m[0])
        props[n_props++] = (q4_prop){ "linear_dense_min_m", dense_m };
    if (mma_m[0])
        props[n_props++] = (q4_prop){ "linear_mma_min_m", mma_m };
    q4_perf_json *json = NULL;
    if (cli->json && q4_perf_json_open(cli->json, props, n_props, ceil.copy_gbs,
                                       ceil.fma_tflops,
                                       ceil.dispatch_us, &json, &err) != Q4_OK) {
        q4h_say(err.msg);
        rc = 2;
        n = 0;   /* no report, no run: the user asked for one */
    }
    q4_perf_json_set_planned(json, n);
    size_t timed = 0, errors = 0;
    for (size_t i = 0; i < n && !q4h_stop_signal(); i++) {
        task.c = &cases[i];
        run_task(&task, reply);
        if (q4h_stop_signal())
            break;   /* the case was cut short: no row for it */
        q4_perf_result r = reply->r;
        snprintf(r.name, sizeof r.name, "%s", cases[i].name);
        snprintf(r.op, sizeof r.op, "%s", cases[i].op);
        if (reply->st != Q4_OK) {
            char shown[Q4_CLEAN_MAX];   /* a worker's message: escaped */
            snprintf(r.error, sizeof r.error, "%.190s", reply->err.msg);
            printf("%-58s error: %s\n", r.name, q4_echo(r.error, shown, sizeof shown));
            rc = rc ? rc : 1;
            errors++;
        } else {
            timed++;
            printf("%-58s %10.4f %10.1f %9.1f %9.3f %7.1f %s", r.name, r.median_ms,
                   100.0 * (r.p90_ms - r.p10_ms) / r.median_ms, r.gbs, r.tflops, r.pct,
                   r.bound_by);
            double base = q4h_baseline_ms(baseline, r.name);
            if (base > 0 && r.median_ms > 1.10 * base) {
                printf("  REGRESSION: %.4f ms vs baseline %.4f ms (+%.0f%%)", r.median_ms, base,
                       100.0 * (r.median_ms / base - 1));
                regressions++;
            }
            printf("\n");
        }
        if (json && q4_perf_json_add(json, &r, &err) != Q4_OK) {
            q4h_say(err.msg);
            rc = 2;
        }
    }
    if (q4h_stop_signal())
        q4_perf_json_set_stopped(json, q4h_stop_reason());
    if (q4_perf_json_close(json, &err) != Q4_OK) {
        q4h_say(err.msg);
        rc = 2;
    }
    if (regressions) {
        printf("%d case(s) more than 10%% slower than %s\n", regressions, cli->baseline);
        rc = rc ? rc : 1;
    }
    /* The summary line, as `run` ends: INCOMPLETE when a signal stopped it. */
    if (q4h_stop_signal())
        printf("result: INCOMPLETE (%s), %zu of %zu cases timed\n", q4h_stop_reason(), timed, n);
    else
        printf("result: %s, %zu of %zu cases timed, %zu errors, %d regressions\n",
               rc == 2 ? "ERROR" : rc ? "FAIL" : "PASS", timed, n, errors, regressions);
    free(reply);
    free(cases);
    q4h_baseline_free(baseline);
    q4h_overrides_free(overrides, cli->n_kernels);
    return q4h_stop_signal() ? 128 + q4h_stop_signal() : rc;
}
