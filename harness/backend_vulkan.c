/* backend_vulkan.c: the Vulkan backend (backend_vulkan.h): the state is one q4vk
 * context, NULL once the device is lost and could not be reopened. */
#include "backend_vulkan.h"

#include <stdio.h>

#include "interface.h"
#include "plan.h"

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
                         : q4h_gpu_run(ctx, op, c, in, out, &t, &e);
    obs->out_of_bounds = q4vk_take_oob(ctx, obs->oob, sizeof obs->oob);     /* --bounds-check */
    obs->raced = q4vk_take_race(ctx, obs->race, sizeof obs->race);         /* --race-check */
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

const q4h_backend_i q4h_backend_vulkan = {
    .api = "vulkan",
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
};
