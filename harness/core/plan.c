/* plan.c: which kernels a case runs, the check that every override is exercised (an
 * override no case runs would be accepted and test nothing), and static-check findings
 * as verdicts; see plan.h. */
#include "plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "q4spv_lint.h"

q4vk_test_limits q4h_case_limits(const q4_case *c)
{
    return (q4vk_test_limits){
        .max_groups = (uint32_t)c->limit[Q4_LIMIT_GROUPS],
        .max_binding = (uint64_t)c->limit[Q4_LIMIT_BINDING],
        .max_shared = (uint32_t)c->limit[Q4_LIMIT_SHARED],
        .max_invocations = (uint32_t)c->limit[Q4_LIMIT_INVOCATIONS],
    };
}

q4_status q4h_apply_case_limits(q4vk_context *ctx, const q4_case *c, q4_error *err)
{
    q4vk_test_limits lim = q4h_case_limits(c);
    return q4vk_set_case_limits(ctx, &lim, err);
}

void q4h_case_plan(const q4_case *c, const q4vk_device_info *info, q4vk_plan *p)
{
    const q4h_op *op = q4h_op_of(c);
    q4vk_test_limits lim = q4h_case_limits(c);
    q4vk_device_info lowered = *info;
    q4vk_lower_info(&lowered, &lim);
    *p = (q4vk_plan){0};
    if (op && op->plan) {
        op->plan(c, &lowered, p);
        return;
    }
    for (int i = 0; op && op->kernels[i] && p->n < Q4VK_PLAN_MAX; i++)
        p->kernels[p->n++] = op->kernels[i];
}

/* The op descriptors a training step runs (harness/core/ops/), by symbol: the ops'
 * names live in their own files (docs/ENGINEERING.md, "adding an op"). */
extern const q4h_op q4h_op_linear_q4gsw, q4h_op_fused_ce, q4h_op_linear_q4gsw_backward,
    q4h_op_linear_dW, q4h_op_adamw_step, q4h_op_q4gsw_requant;

const q4h_op *const q4h_train_step_ops[Q4H_STEP_OPS] = {
    [Q4H_STEP_FWD] = &q4h_op_linear_q4gsw,          [Q4H_STEP_CE] = &q4h_op_fused_ce,
    [Q4H_STEP_DW] = &q4h_op_linear_dW,              [Q4H_STEP_BWD] = &q4h_op_linear_q4gsw_backward,
    [Q4H_STEP_ADAMW] = &q4h_op_adamw_step,          [Q4H_STEP_REQUANT] = &q4h_op_q4gsw_requant,
};

q4_case q4h_train_op_case(const q4h_op *op, const q4_case *c)
{
    q4_case oc;
    memset(&oc, 0, sizeof oc);
    oc.op = op->name;
    snprintf(oc.family, sizeof oc.family, "custom");
    snprintf(oc.name, sizeof oc.name, "%s", c->name);   /* what the WebGPU worker logs */
    oc.seed = c->seed;
    return oc;
}

int q4h_train_op_cases(const q4_case *c, q4_case *oc, int max)
{
    int64_t w[5];
    int n = 0;
    const int L = q4_case_train_widths(c, w);
    static const int per_layer[] = { Q4H_STEP_FWD, Q4H_STEP_DW, Q4H_STEP_BWD, Q4H_STEP_ADAMW,
                                     Q4H_STEP_REQUANT };
    for (int l = 0; l < L; l++)
        for (size_t o = 0; o < sizeof per_layer / sizeof *per_layer && n < max; o++) {
            const int step = per_layer[o];
            if (l == 0 && step == Q4H_STEP_BWD)
                continue;   /* no d_x below the first layer */
            q4_case *x = &oc[n++];
            *x = q4h_train_op_case(q4h_train_step_ops[step], c);
            x->m = c->m, x->n = w[l + 1], x->k = w[l], x->gs = c->gs;
            if (step == Q4H_STEP_ADAMW)
                x->m = x->n = x->k = x->gs = 0, x->numel = w[l] * w[l + 1], x->step = 1,
                x->wd = 1;
            else if (step == Q4H_STEP_REQUANT)
                x->m = 0;
            else if (step == Q4H_STEP_DW)
                x->gs = 0;
        }
    if (n < max) {
        q4_case *x = &oc[n++];
        *x = q4h_train_op_case(q4h_train_step_ops[Q4H_STEP_CE], c);
        x->r = c->m, x->v = c->v;
    }
    return n;
}

bool q4h_case_runs_op(const q4_case *c, const char *op)
{
    if (!q4_case_is_train(c))
        return !strcmp(c->op, op);
    q4_case oc[Q4H_TRAIN_OP_CASES];
    int n = q4h_train_op_cases(c, oc, Q4H_TRAIN_OP_CASES);
    for (int i = 0; i < n; i++)
        if (!strcmp(oc[i].op, op))
            return true;
    return false;
}

/* Whether case c surely runs kernel on this device; *maybe is set where it runs it only
 * if its data sends the call to a fallback (q4vk_plan.maybe_from), which would leave
 * an override of it untested on other data. */
static bool runs(const q4_case *c, const q4vk_device_info *info, const char *kernel,
                 bool *maybe)
{
    if (q4_case_is_train(c)) {   /* every op of its steps */
        q4_case oc[Q4H_TRAIN_OP_CASES];
        int n = q4h_train_op_cases(c, oc, Q4H_TRAIN_OP_CASES);
        for (int i = 0; i < n; i++)
            if (runs(&oc[i], info, kernel, maybe))
                return true;
        return false;
    }
    q4vk_plan p;
    q4h_case_plan(c, info, &p);
    for (int i = 0; i < p.n; i++)
        if (!strcmp(p.kernels[i], kernel)) {
            if (p.maybe_from && i >= p.maybe_from) {
                *maybe = true;
                continue;
            }
            return true;
        }
    return false;
}

q4_status q4h_overrides_check_used(const q4h_run_options *opt, const q4_case *cases,
                                   size_t n, const q4vk_device_info *info, q4_error *err)
{
    for (int o = 0; o < opt->n_overrides; o++) {
        const char *kernel = opt->overrides[o].kernel;
        bool maybe = false;
        size_t i = 0;
        while (i < n && !runs(&cases[i], info, kernel, &maybe))
            i++;
        if (i < n)
            continue;
        if (maybe)
            return q4_fail(err, Q4_ERR_ARG, "--kernel %s=%.200s: the selected cases run kernel "
                           "%s on this device only where the tensor-core path hands a call "
                           "to its fp32 path, which their data decides, so the override "
                           "could go untested; add --mma-min-m off to run the fp32 path",
                           kernel, opt->overrides[o].path, kernel);
        /* A case of the whole generated set that would run it, as the example. */
        q4_case *all = NULL;
        size_t n_all = 0;
        q4_error ignored = { 0 };
        char example[200] = "";
        if (q4_case_select(NULL, 0, NULL, 0, 0, 1, 0, &all, &n_all, &ignored) == Q4_OK)
            for (size_t k = 0; k < n_all && !example[0]; k++)
                if (runs(&all[k], info, kernel, &maybe))
                    snprintf(example, sizeof example, "; a case that runs it: %.150s",
                             all[k].name);
        free(all);
        return q4_fail(err, Q4_ERR_ARG, "--kernel %s=%.200s: no selected case runs kernel %s "
                       "on this device, so the override would go untested%s", kernel,
                       opt->overrides[o].path, kernel,
                       example[0] ? example
                       : q4vk_kernel_tensor_core(kernel) && !info->coopmat_s8
                           ? " (it belongs to the tensor-core path, which needs int8 "
                             "cooperative matrices; this device has none)"
                           : " (no case of q4cts runs it here)");
    }
    return Q4_OK;
}

/* ---- static checks, once per kernel per process ---- */

typedef struct lint_entry {
    char kernel[64];
    char text[400];      /* "" when clean */
} lint_entry;

static lint_entry lint_cache[64];
static int lint_cached;

static const char *lint_text(const q4h_run_options *opt, const char *kernel)
{
    for (int i = 0; i < lint_cached; i++)
        if (!strcmp(lint_cache[i].kernel, kernel))
            return lint_cache[i].text;
    const uint32_t *words = NULL;
    size_t n_words = 0;
    for (int o = 0; o < opt->n_overrides; o++)
        if (!strcmp(opt->overrides[o].kernel, kernel)) {
            words = opt->overrides[o].words;
            n_words = opt->overrides[o].n_words;
        }
    const q4vk_kernel *k = q4vk_kernel_find(kernel);
    if (!words && k) {
        words = k->spirv;
        n_words = k->spirv_words;
    }
    static char none[1] = "";
    if (!words || lint_cached == (int)(sizeof lint_cache / sizeof lint_cache[0]))
        return none;
    lint_entry *e = &lint_cache[lint_cached++];
    snprintf(e->kernel, sizeof e->kernel, "%s", kernel);
    e->text[0] = '\0';
    q4spv_module m;
    q4spv_lint_report rep;
    q4_error err = { 0 };
    if (q4spv_parse(words, n_words, &m, &err) == Q4_OK) {
        if (q4spv_lint(&m, &rep, &err) == Q4_OK)
            q4spv_lint_text(&rep, e->text, sizeof e->text);
        q4spv_module_free(&m);
    }
    return e->text;
}

/* One kernel's findings into r (a Pass becomes QualityWarning). */
static void lint_kernel(const q4h_run_options *opt, const char *kernel, q4_result *r)
{
    const char *text = lint_text(opt, kernel);
    if (!text[0])
        return;
    if (r->verdict == Q4_PASS)
        r->verdict = Q4_QUALITY_WARNING;
    size_t len = strlen(r->message);
    snprintf(r->message + len, sizeof r->message - len,
             "%sstatic check of kernel %s (portable drivers may differ): %s",
             len ? "; " : "", kernel, text);
}

void q4h_lint_case(const q4h_run_options *opt, const q4_case *c, const q4vk_device_info *info,
                   q4_result *r)
{
    q4_case oc[Q4H_TRAIN_OP_CASES];
    int n = 1;
    if (q4_case_is_train(c))   /* the kernels of its ops, each once */
        n = q4h_train_op_cases(c, oc, Q4H_TRAIN_OP_CASES);
    else
        oc[0] = *c;
    const char *seen[Q4H_TRAIN_OP_CASES * Q4VK_PLAN_MAX];
    int n_seen = 0;
    for (int k = 0; k < n; k++) {
        q4vk_plan p;
        q4h_case_plan(&oc[k], info, &p);
        for (int i = 0; i < p.n; i++) {
            int j = 0;
            while (j < n_seen && strcmp(seen[j], p.kernels[i]))
                j++;
            if (j < n_seen)
                continue;
            seen[n_seen++] = p.kernels[i];
            lint_kernel(opt, p.kernels[i], r);
        }
    }
}
