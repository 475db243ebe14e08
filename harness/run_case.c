/* run_case.c: one case's straight line, in the worker process:
 *   support -> inputs -> truth -> GPU (repeat times) -> judge -> dump. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dump.h"
#include "interface.h"
#include "judge.h"
#include "op.h"
#include "plan.h"
#include "runner.h"

double q4h_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

q4_status q4h_open_device(const q4h_run_options *opt, bool reopen, q4vk_context **ctx,
                          q4_error *err)
{
    q4vk_options vk = opt->vk;
    if (reopen) /* injected faults fire once per run, not again on every new context */
        vk.faults = (q4vk_faults){ 0 };
    q4_status st = q4vk_create(&vk, ctx, err);
    for (int i = 0; st == Q4_OK && i < opt->n_overrides; i++)
        st = q4vk_set_override(*ctx, opt->overrides[i].kernel, opt->overrides[i].words,
                               opt->overrides[i].n_words, err);
    if (st != Q4_OK && *ctx) {
        q4vk_destroy(*ctx);
        *ctx = NULL;
    }
    return st;
}

/* A failed GPU run's status as a verdict (STYLE.md: VK-GL-CTS's result codes). */
static q4_verdict verdict_of(q4_status st)
{
    switch (st) {
    case Q4_ERR_RESOURCE:
    case Q4_ERR_NOMEM: return Q4_RESOURCE_ERROR;
    case Q4_ERR_UNSUPPORTED: return Q4_NOT_SUPPORTED;
    case Q4_ERR_DEVICE_LOST: return Q4_CRASH;
    case Q4_ERR_TIMEOUT: return Q4_TIMEOUT;
    default: return Q4_INTERNAL_ERROR;
    }
}

int q4h_verdict_badness(q4_verdict v)
{
    switch (v) {
    case Q4_PASS: return 0;
    case Q4_NOT_SUPPORTED: return 1;
    case Q4_QUALITY_WARNING: return 2;
    default: return 3;
    }
}

void q4h_result_start(const q4h_run_options *opt, const q4_case *c, q4_result *r)
{
    q4_result_init(r); /* InternalError until judged; gpu_ms -1, figures NAN, index -1 */
    snprintf(r->name, sizeof r->name, "%s", c->name);
    snprintf(r->op, sizeof r->op, "%s", c->op);
    snprintf(r->family, sizeof r->family, "%s", c->family);
    snprintf(r->api, sizeof r->api, "%s", opt->api ? opt->api : "vulkan");
    snprintf(r->repro, sizeof r->repro, "q4cts run --filter %s --seed %llu%s", c->name,
             (unsigned long long)c->seed, opt->repro_flags ? opt->repro_flags : "");
}

/* --inject-fault flaky@N: the harness's stand-in for a kernel that is right only
 * sometimes. Of this worker's GPU runs, those whose number is not a multiple of N get
 * their first output element read back wrong, so flaky@2 fails every other run:
 * deterministic, unlike a real race, so that --flake-retries can be tested. */
static void inject_flaky(const q4h_run_options *opt, q4h_outputs *out)
{
    static long runs;
    if (opt->flaky_every <= 0 || ++runs % opt->flaky_every == 0 || out->n == 0)
        return;
    q4h_output *o = &out->o[0];
    if (o->got && o->count > 0)
        o->got[0] = (float)(o->value[0] + 1e3 * (o->bound[0] + 1));
    else if (o->got_code && o->count > 0)
        o->got_code[0] = (uint8_t)(o->code[0] ^ (o->alt && o->alt[0] == (o->code[0] ^ 0x11)
                                                 ? 0x22 : 0x11));
}

/* One GPU run and its judgement into r; recreates the context after a loss.
 * True when the outputs hold this run's results (it was judged). */
static bool gpu_once(const q4h_run_options *opt, q4vk_context **ctx, const q4h_op *op,
                     const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_result *r)
{
    q4_error err = { 0 };
    q4vk_timing t = { -1 };
    const q4h_iface *iface = q4h_iface_for(opt, c->op);   /* --interface */
    q4_status st = iface ? q4h_iface_gpu_run(*ctx, iface, op, c, in, out, &t, &err)
                         : q4h_gpu_run(*ctx, op, c, in, out, &t, &err);
    char oob[Q4_MSG_MAX];
    bool outside = q4vk_take_oob(*ctx, oob, sizeof oob); /* --bounds-check */
    char race[Q4_MSG_MAX];
    bool raced = q4vk_take_race(*ctx, race, sizeof race); /* --race-check */
    r->gpu_ms = t.gpu_ms;
    if (st == Q4_OK) {
        inject_flaky(opt, out);
        q4h_judge(out, r);
        if (outside) { /* whatever the values: an access past the data is a defect */
            r->verdict = Q4_FAIL;
            snprintf(r->message, sizeof r->message, "out-of-bounds access: %.480s", oob);
        } else if (raced) { /* a race is a defect even when this interleaving was lucky */
            r->verdict = Q4_FAIL;
            snprintf(r->message, sizeof r->message, "shared-memory race: %.480s", race);
        }
        return true;
    }
    r->verdict = verdict_of(st);
    snprintf(r->message, sizeof r->message, "%s: %.480s", q4_status_name(st), err.msg);
    if (st == Q4_ERR_DEVICE_LOST || st == Q4_ERR_TIMEOUT) {
        q4_error again = { 0 };
        q4vk_destroy(*ctx);
        *ctx = NULL;
        /* The new context gets the case's limits too, for the repeats left. */
        if (q4h_open_device(opt, true, ctx, &again) != Q4_OK ||
            q4h_apply_case_limits(*ctx, c, &again) != Q4_OK) {
            size_t len = strlen(r->message);
            snprintf(r->message + len, sizeof r->message - len,
                     "; the device could not be reopened: %s", again.msg);
        }
    }
    return false;
}

/* Saves the case as it stands (r and the outputs of the run that gave r) when the
 * options ask for it; a failed dump is noted in r's message. */
static void dump(const q4h_run_options *opt, q4vk_context *ctx, const q4h_op *op,
                 const q4_case *c, const q4_inputs *in, const q4h_outputs *out, bool have_got,
                 q4_result *r)
{
    q4h_tensor tensors[Q4H_MAX_TENSORS];
    q4_error err = { 0 };
    if (!opt->dump_dir || (!opt->dump_all && q4_verdict_ok(r->verdict, opt->strict)))
        return;
    int n = op->inputs(c, in, tensors);
    q4h_dump_source src = { opt, ctx ? q4vk_info(ctx) : NULL, r, have_got };
    if (q4h_dump_case(opt->dump_dir, c, in, tensors, n, out, &src, &err) != Q4_OK) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len, " (dump failed: %s)", err.msg);
    }
}

void q4h_run_case(const q4h_run_options *opt, q4vk_context **ctx, const q4_case *c,
                  q4_result *r)
{
    q4h_run_case_on(opt, ctx, c, NULL, r);
}

q4_status q4h_run_case_on(const q4h_run_options *opt, q4vk_context **ctx, const q4_case *c,
                          const q4_inputs *given, q4_result *r)
{
    const q4h_op *op = q4h_op_find(c->op);
    q4_inputs own = { 0 };
    const q4_inputs *in = given ? given : &own;
    q4h_outputs out = { 0 };
    q4_error err = { 0 };
    q4_status prepared = Q4_OK;
    double t0 = q4h_now_s();
    char why[256] = "";

    q4h_result_start(opt, c, r);
    if (!op) {
        snprintf(r->message, sizeof r->message, "no descriptor for op %s", c->op);
        goto done;
    }
    if (!*ctx) {
        snprintf(r->message, sizeof r->message, "no device: it was lost and could not be reopened");
        goto done;
    }
    if (q4h_apply_case_limits(*ctx, c, &err) != Q4_OK) {
        snprintf(r->message, sizeof r->message, "lowering the device limits: %.450s",
                 err.msg);
        goto done;
    }
    op->support(c, q4vk_info(*ctx), why, sizeof why);
    if (why[0]) {
        r->verdict = Q4_NOT_SUPPORTED;
        snprintf(r->message, sizeof r->message, "%s", why);
        goto done;
    }
    double t_truth = 0;
    if ((!given && q4_case_inputs(c, &own, &err) != Q4_OK) ||
        (t_truth = q4h_now_s(), op->truth(c, in, &out, &err)) != Q4_OK) {
        prepared = err.status;
        r->verdict = err.status == Q4_ERR_NOMEM ? Q4_RESOURCE_ERROR : Q4_INTERNAL_ERROR;
        snprintf(r->message, sizeof r->message, "preparing the case failed: %.480s", err.msg);
        goto done;
    }
    r->truth_ms = 1e3 * (q4h_now_s() - t_truth);
    for (int rep = 0; rep < (opt->repeat > 0 ? opt->repeat : 1); rep++) {
        q4_result this_run = *r;
        bool have_got = gpu_once(opt, ctx, op, c, in, &out, &this_run);
        if (rep == 0 || q4h_verdict_badness(this_run.verdict) > q4h_verdict_badness(r->verdict) ||
            (q4h_verdict_badness(this_run.verdict) == q4h_verdict_badness(r->verdict) &&
             this_run.worst_margin > r->worst_margin)) {
            *r = this_run;
            /* Now, while the outputs are this run's: the dump holds the repeat whose
             * verdict counts (a later, worse one overwrites it). */
            dump(opt, *ctx, op, c, in, &out, have_got, r);
        }
        if (!*ctx)
            break;
    }
    if (*ctx)   /* static checks of the modules the case ran (issue 10 §3) */
        q4h_lint_case(opt, c, q4vk_info(*ctx), r);
done:
    q4h_outputs_free(&out);
    q4_inputs_free(&own);
    r->seconds = q4h_now_s() - t0;
    return prepared;
}
