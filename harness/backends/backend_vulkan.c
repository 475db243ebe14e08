/* backend_vulkan.c: the Vulkan backend (backend_vulkan.h): the state is one q4vk
 * context, NULL once the device is lost and could not be reopened. */
#include "backend_vulkan.h"

#include <stdio.h>

#include "clock.h"
#include "interface.h"
#include "overrides.h"
#include "plan.h"
#include "shown.h"

void q4h_vk_api_string(uint32_t v, char *buf, size_t size)
{
    snprintf(buf, size, "%u.%u.%u", (v >> 22) & 0x7F, (v >> 12) & 0x3FF, v & 0xFFF);
}

static q4_status vk_devices(q4_error *err)
{
    q4vk_device_info infos[16];
    int count = 0;
    if (q4vk_enumerate(infos, 16, &count, err) != Q4_OK)
        return err->status;
    for (int i = 0; i < count && i < 16; i++) {
        char api[32];
        q4h_device_shown d;
        q4h_device_shown_of(&infos[i], &d);
        q4h_vk_api_string(infos[i].api_version, api, sizeof api);
        printf("%d: %s (%s, vendor 0x%04x)\n   driver %s %s (%s), Vulkan %s\n   uuid %s\n"
               "   int8 cooperative matrices (linear_q4gsw's tensor-core path): %s\n",
               infos[i].index, d.name, d.type, infos[i].vendor_id, d.driver, d.version, d.info,
               api, infos[i].uuid, infos[i].coopmat_s8 ? "yes" : "no");
    }
    return Q4_OK;
}

static void vk_describe(const q4vk_device_info *info, char *buf, size_t size)
{
    char api[32];
    q4h_device_shown d;   /* the driver's words, escaped */
    q4h_device_shown_of(info, &d);
    q4h_vk_api_string(info->api_version, api, sizeof api);
    snprintf(buf, size, "%s (%s), driver %s %s, Vulkan %s", d.name, d.type, d.driver, d.info, api);
}

static q4_status vk_kernels(const char *const *args, size_t n, q4h_override **out,
                            q4_error *err)
{
    return q4h_overrides_load(args, n, out, err);
}

q4_status q4h_vk_open(const q4h_run_options *opt, bool reopen, q4vk_context **ctx,
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

static q4vk_context *ctx_of(q4h_backend *b)
{
    return b->state;
}

q4vk_context *q4h_vk_context(q4h_backend *b)
{
    return ctx_of(b);
}

void q4h_vk_take_probes(q4vk_context *ctx, q4h_observations *obs)
{
    obs->out_of_bounds = q4vk_take_oob(ctx, obs->oob, sizeof obs->oob);     /* --bounds-check */
    obs->raced = q4vk_take_race(ctx, obs->race, sizeof obs->race);         /* --race-check */
}

static q4_status vk_open(q4h_backend *b, bool reopen, q4_error *err)
{
    q4vk_context *ctx = NULL;
    q4_status st = q4h_vk_open(b->opt, reopen, &ctx, err);
    b->state = ctx;
    return st;
}

/* Every --kernel override is run by some selected case on this device. */
static q4_status vk_check(q4h_backend *b, const q4_case *cases, size_t n, q4_error *err)
{
    return q4h_overrides_check_used(b->opt, cases, n, q4vk_info(ctx_of(b)), err);
}

static const q4vk_device_info *vk_info(q4h_backend *b)
{
    return ctx_of(b) ? q4vk_info(ctx_of(b)) : NULL;
}

/* The case's own lowered limits set on the context, then the op's support check on
 * what the launchers see. */
static q4_status vk_begin(q4h_backend *b, const q4h_op *op, const q4_case *c, char *why,
                          size_t size, q4_error *err)
{
    q4_error e = { 0 };
    if (!ctx_of(b))
        return q4_fail(err, Q4_ERR_DEVICE, "no device: it was lost and could not be reopened");
    if (q4h_apply_case_limits(ctx_of(b), c, &e) != Q4_OK)
        return q4_fail(err, Q4_ERR_DEVICE, "lowering the device limits: %.450s", e.msg);
    op->support(c, q4vk_info(ctx_of(b)), why, size < 256 ? size : 256);
    return Q4_OK;
}

static q4_status vk_run(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                        q4h_outputs *out, q4h_observations *obs, q4_error *err)
{
    q4_error e = { 0 };
    q4vk_timing t = { -1 };
    q4vk_context *ctx = ctx_of(b);
    const q4h_iface *iface = q4h_iface_for(b->opt, c->op);   /* --interface */
    q4_status st = iface ? q4h_iface_gpu_run(ctx, iface, op, c, in, out, &t, &e)
                         : q4h_gpu_run(ctx, op, c, in, out, &t, &obs->io, &e);
    q4h_vk_take_probes(ctx, obs);
    obs->gpu_ms = t.gpu_ms;
    if (st != Q4_OK)
        return q4_fail(err, st, "%s: %.480s", q4_status_name(st), e.msg);
    return Q4_OK;
}

/* A new context, with the case's limits too for the repeats left. */
static q4_status vk_reopen(q4h_backend *b, const q4_case *c, q4_error *err)
{
    q4vk_destroy(ctx_of(b));
    b->state = NULL;
    q4_status st = vk_open(b, true, err);
    if (st == Q4_OK)
        st = q4h_apply_case_limits(ctx_of(b), c, err);
    return st;
}

static void vk_lint(q4h_backend *b, const q4_case *c, q4_result *r)
{
    if (ctx_of(b))
        q4h_lint_case(b->opt, c, q4vk_info(ctx_of(b)), r);
}

static void vk_close(q4h_backend *b)
{
    q4vk_destroy(ctx_of(b));
    b->state = NULL;
}

/* Times case c on inputs made before the context (vk_time): ask->reps GPU times. */
static q4_status time_case(q4vk_context *ctx, const q4h_perf_ask *ask, const q4_case *c,
                           const q4_inputs *inputs, double *t, q4_error *err)
{
    const q4h_op *op = q4h_op_of(c);
    const q4_inputs in = *inputs;
    q4h_gpu_buffers bufs = { 0 };
    q4vk_timing tm;
    /* a small_device case times the paths of its lowered limits */
    q4_status st = q4h_apply_case_limits(ctx, c, err);
    if (st == Q4_OK)
        st = q4h_gpu_prepare(ctx, op, c, &in, 0, &bufs, err);
    /* Warm-up: at least ask->warmup runs and ask->warmup_ms of wall time. Generating a
     * large case's inputs on the CPU takes seconds, in which the GPU drops its clocks
     * (the H200 to 345 MHz of 1980); a few runs do not bring them back, and timing a
     * cold GPU measured AdamW at 2^28 2.4x slower than a warm one. */
    const double t0 = q4h_now_s();
    for (int i = 0; st == Q4_OK && (i < ask->warmup ||
                                    (q4h_now_s() - t0) * 1e3 < ask->warmup_ms); i++)
        st = op->launch(ctx, c, &in, bufs.b, &tm, err);
    for (int i = 0; i < ask->reps && st == Q4_OK; i++) {
        st = op->launch(ctx, c, &in, bufs.b, &tm, err);
        t[i] = tm.gpu_ms;
    }
    if (st == Q4_OK && t[0] < 0)
        st = q4_fail(err, Q4_ERR_UNSUPPORTED, "the device has no compute-queue timestamps");
    q4h_gpu_release(ctx, &bufs);
    return st;
}

static q4_status vk_time(const q4h_run_options *task_opt, const q4h_perf_ask *ask,
                         const q4_case *c, q4vk_device_info *info, q4vk_ceilings *ceil,
                         double *times, q4_error *err)
{
    /* Only the ceilings' task prints the device chosen; faults and overrides go to the
     * cases (the ceilings time built-in kernels of their own). */
    q4h_run_options opt = *task_opt;
    q4vk_context *ctx = NULL;
    opt.vk.log = c ? NULL : stdout;
    if (!c) {
        opt.vk.faults = (q4vk_faults){ 0 };
        opt.n_overrides = 0;
    }
    /* The inputs first, then the context. On the H200 a context whose GPU sat idle for
     * a few seconds (the time a large case's inputs take on the CPU) often ran CE at
     * R = 4096, V = 32000 at 0.35-1.3 ms instead of 0.29 for the rest of its life; a
     * context made after the same idle never did (docs/perf.md, session 5). */
    q4_inputs in = { 0 };
    q4_status st = c ? q4_case_inputs(c, &in, err) : Q4_OK;
    if (st == Q4_OK)
        st = q4h_vk_open(&opt, false, &ctx, err);
    if (st == Q4_OK) {
        *info = *q4vk_info(ctx);
        st = c ? time_case(ctx, ask, c, &in, times, err)
               : q4vk_measure_ceilings(ctx, 9, ceil, err);
    }
    q4vk_destroy(ctx);
    q4_inputs_free(&in);
    return st;
}

const q4h_backend_i q4h_backend_vulkan = {
    .api = "vulkan",
    .suite = "q4cts",
    .wgsl = false,
    .vulkan = true,
    .devices = vk_devices,
    .describe = vk_describe,
    .kernels = vk_kernels,
    .open = vk_open,
    .check = vk_check,
    .info = vk_info,
    .begin = vk_begin,
    .stage = NULL,
    .bind = NULL,
    .run = vk_run,
    .reopen = vk_reopen,
    .lint = vk_lint,
    .end = NULL,
    .close = vk_close,
    .time = vk_time,
};
