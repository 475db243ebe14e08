/* q4null: the judges' null test (docs/numerics.md section 6).
 *
 * Every legal fp32 evaluation in the reference's zoo (q4ref_zoo.h) is a correct
 * kernel, so the judges must pass it: for each selected case and seed, each zoo
 * variant of the case's op computes the outputs on the CPU, and q4cts's own judge
 * (harness/core/judge.c) judges them against the op's truth exactly as it judges a GPU.
 * Any verdict but Pass fails the test. The worst margins per op and variant are
 * printed.
 *
 *   q4null [--caselist FILE] [--filter GLOB]... [--seeds N] [--variant NAME]
 *   q4null ... --outputs                     also each output's margins
 *   q4null --planted [--caselist FILE] ...   the planted bias bugs: each must Fail
 *   q4null --power [--filter GLOB]...        per case, statistic and planted bias,
 *                                            the smallest bias the judges detect
 * Exit status: 0 when every verdict is as expected, 1 otherwise, 2 usage errors. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "op.h"
#include "q4case.h"
#include "q4ref_zoo.h"

/* One named evaluation of one op. */
typedef struct variant {
    const char *op;
    char name[48];
    q4ref_zoo_dot dot;
    q4ref_zoo_ce ce;
    q4ref_zoo_adamw adamw;
} variant;

enum { MAX_VARIANTS = 64 };
static variant zoo[MAX_VARIANTS];
static int n_zoo;

static const char *const order_names[] = { "seq", "fma", "pairwise", "splitk" };
static const char *const weight_names[] = { "dequant_first", "per_term", "hoist_group" };
static const char *const ce_sum_names[] = { "two_pass", "pairwise", "online", "blocked" };

static variant *add(const char *op)
{
    variant *v = &zoo[n_zoo++];
    memset(v, 0, sizeof *v);
    v->op = op;
    return v;
}

/* The zoo: every combination of the knobs each op's kernels choose among. */
static void build_zoo(void)
{
    for (int w = 0; w < 3; w++)
        for (int o = 0; o < 4; o++) {
            variant *v = add("linear_q4gsw");
            v->dot = (q4ref_zoo_dot){ (q4ref_zoo_order)o, (q4ref_zoo_weight)w, 0 };
            snprintf(v->name, sizeof v->name, "%s.%s", weight_names[w], order_names[o]);
            if (w == Q4REF_ZOO_HOIST_GROUP)
                continue;   /* the backward's scale changes along its sum: no hoisting */
            v = add("linear_q4gsw_backward");
            v->dot = (q4ref_zoo_dot){ (q4ref_zoo_order)o, (q4ref_zoo_weight)w, 0 };
            snprintf(v->name, sizeof v->name, "%s.%s", weight_names[w], order_names[o]);
        }
    for (int o = 0; o < 4; o++) {
        variant *v = add("linear_dW");
        v->dot = (q4ref_zoo_dot){ (q4ref_zoo_order)o, Q4REF_ZOO_DEQUANT_FIRST, 0 };
        snprintf(v->name, sizeof v->name, "%s", order_names[o]);
    }
    for (int s = 0; s < 4; s++)
        for (int p = 0; p < 3; p++) {
            variant *v = add("fused_ce");
            v->ce = (q4ref_zoo_ce){ (q4ref_zoo_ce_sum)s, p == 2, p == 1, 0 };
            snprintf(v->name, sizeof v->name, "%s.%s", ce_sum_names[s],
                     p == 0 ? "div" : p == 1 ? "recip" : "exp_lse");
        }
    for (int f = 0; f < 2; f++)
        for (int d = 0; d < 2; d++)
            for (int l = 0; l < 2; l++) {
                variant *v = add("adamw_step");
                v->adamw = (q4ref_zoo_adamw){ f, d, l, 0 };
                snprintf(v->name, sizeof v->name, "%s.%s.%s", f ? "fma" : "plain",
                         d ? "torch_decay" : "spec_decay", l ? "lr_outside" : "lr_inside");
            }
}

/* The planted bias bugs of docs/numerics.md section 4, as zoo variants with a bias:
 * the GEMM scale bias, the softmax x (1 + b) and the param pulled toward zero. */
static void planted(const char *op, double bias, variant *v)
{
    memset(v, 0, sizeof *v);
    v->op = op;
    snprintf(v->name, sizeof v->name, "planted_bias_%.3g", bias);
    v->dot = (q4ref_zoo_dot){ Q4REF_ZOO_FMA, Q4REF_ZOO_DEQUANT_FIRST, bias };
    v->ce = (q4ref_zoo_ce){ Q4REF_ZOO_CE_BLOCKED, 0, 0, bias };
    v->adamw = (q4ref_zoo_adamw){ 1, 0, 0, bias };
}

/* The variant's outputs into out's got arrays (the op's truth made out). */
static q4_status evaluate(const variant *v, const q4_case *c, const q4_inputs *in,
                          q4h_outputs *out, q4_error *err)
{
    const char *op = c->op;
    if (!strcmp(op, "linear_q4gsw"))
        return q4ref_zoo_linear_fwd(&v->dot, in->x, in->w4x8, in->scales, c->bias ? in->bias : NULL,
                                    c->m, c->n, c->k, c->gs, out->o[0].got, err);
    if (!strcmp(op, "linear_q4gsw_backward"))
        return q4ref_zoo_linear_bwd(&v->dot, in->dout, in->w4x8, in->scales, c->m, c->n, c->k,
                                    c->gs, out->o[0].got, err);
    if (!strcmp(op, "linear_dW"))
        return q4ref_zoo_linear_dw(&v->dot, in->dout, in->x, c->m, c->n, c->k, out->o[0].got,
                                   err);
    if (!strcmp(op, "fused_ce"))
        return q4ref_zoo_fused_ce(&v->ce, in->logits, in->labels, c->r, c->v, in->n_valid,
                                  out->o[0].got, out->o[1].got, err);
    if (!strcmp(op, "adamw_step")) {
        size_t bytes = (size_t)c->numel * sizeof(float);
        q4ref_adamw_hyper h = { in->lr, in->beta1, in->beta2, in->eps, in->wd, in->bc1, in->bc2 };
        memcpy(out->o[0].got, in->param, bytes);
        memcpy(out->o[1].got, in->m, bytes);
        memcpy(out->o[2].got, in->v, bytes);
        return q4ref_zoo_adamw_step(&v->adamw, out->o[0].got, in->grad, out->o[1].got,
                                    out->o[2].got, c->numel, &h, err);
    }
    return q4_fail(err, Q4_ERR_ARG, "op %s has no zoo (its results are exact)", op);
}

static bool has_zoo(const char *op)
{
    for (int i = 0; i < n_zoo; i++)
        if (!strcmp(zoo[i].op, op))
            return true;
    return false;
}

/* Judges variant v on case c (inputs and truth made): r's verdict and margins. */
static q4_status judge_variant(const variant *v, const q4_case *c, const q4_inputs *in,
                               q4h_outputs *out, q4_result *r, q4_error *err)
{
    q4_status st = evaluate(v, c, in, out, err);
    q4_result_init(r);
    if (st == Q4_OK)
        q4h_judge(out, r);
    return st;
}

typedef struct options {
    const char *caselist;
    const char *filters[16];
    int n_filters;
    int seeds;
    const char *variant;
    int planted, power, outputs;
} options;

static int usage(const char *msg)
{
    fprintf(stderr, "q4null: %s\nusage: q4null [--caselist FILE] [--filter GLOB]... [--seeds N] "
                    "[--variant GLOB] [--planted | --power]\n", msg);
    return 2;
}

/* The smallest planted bias (a power of 2^(1/2) from 2^-40 up) whose judgement fails,
 * or 0 when none up to 2^-4 does; *stat the statistical margin it failed with. */
static double smallest_detected(const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                                double *stat)
{
    variant v;
    q4_error err = { 0 };
    for (double b = 0x1p-40; b <= 0x1p-4; b *= 1.4142135623730951) {
        q4_result r;
        planted(c->op, b, &v);
        if (judge_variant(&v, c, in, out, &r, &err) != Q4_OK)
            return -1;
        if (r.verdict == Q4_FAIL) {
            *stat = r.stat_margin;
            return b;
        }
    }
    return 0;
}

static int run_case(const options *o, const q4_case *c, int *failures)
{
    const q4h_op *op = q4h_op_find(c->op);
    q4_inputs in = { 0 };
    q4h_outputs out = { 0 };
    q4_error err = { 0 };
    if (!op || !has_zoo(c->op))
        return 0;
    if (q4_case_inputs(c, &in, &err) != Q4_OK || op->truth(c, &in, &out, &err) != Q4_OK) {
        printf("ERROR %s seed %llu: %s\n", c->name, (unsigned long long)c->seed, err.msg);
        (*failures)++;
        goto done;
    }
    if (o->power) {
        double stat = 0, b = smallest_detected(c, &in, &out, &stat);
        if (b > 0)
            printf("power %-60s smallest bias caught %.3g (%.2f u, stat %.2f)\n", c->name, b,
                   b / 0x1p-24, stat);
        else
            printf("power %-60s no bias up to 2^-4 caught\n", c->name);
        goto done;
    }
    for (int i = 0; i < (o->planted ? 1 : n_zoo); i++) {
        variant pv;
        const variant *v = &zoo[i];
        q4_result r;
        if (o->planted) {
            /* the size of the bugs of tests/mutations: 0.4%, 2^-16 and about 1 ULP */
            planted(c->op, !strcmp(c->op, "fused_ce") ? 0.004 : !strcmp(c->op, "adamw_step")
                                                              ? 0x1p-24 : 0x1p-16, &pv);
            v = &pv;
        } else if (strcmp(v->op, c->op) || (o->variant && fnmatch(o->variant, v->name, 0))) {
            continue;
        }
        if (judge_variant(v, c, &in, &out, &r, &err) != Q4_OK) {
            printf("ERROR %s seed %llu %s: %s\n", c->name, (unsigned long long)c->seed, v->name,
                   err.msg);
            (*failures)++;
            continue;
        }
        bool ok = o->planted ? r.verdict == Q4_FAIL : r.verdict == Q4_PASS;
        printf("%-4s %-60s seed %llu %-34s %-14s margin %.3g stat %.3g%s%s\n", ok ? "ok" : "BAD",
               c->name, (unsigned long long)c->seed, v->name, q4_verdict_name(r.verdict),
               r.worst_margin, r.stat_margin, ok ? "" : "\n     ", ok ? "" : r.message);
        if (!ok)
            (*failures)++;
        for (int k = 0; o->outputs && out.n > 1 && k < out.n; k++) {
            q4h_outputs one = { .n = 1, .o = { out.o[k] } };
            q4h_judge(&one, &r);
            printf("     output %-10s margin %.3g stat %.3g\n", out.o[k].name, r.worst_margin,
                   r.stat_margin);
        }
    }
done:
    q4h_outputs_free(&out);
    q4_inputs_free(&in);
    return 0;
}

int main(int argc, char **argv)
{
    options o = { .seeds = 1 };
    char **patterns = NULL;
    size_t n_patterns = 0;
    q4_error err = { 0 };
    int failures = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--planted")) { o.planted = 1; continue; }
        if (!strcmp(a, "--power")) { o.power = 1; continue; }
        if (!strcmp(a, "--outputs")) { o.outputs = 1; continue; }
        if (!val)
            return usage("every option but --planted and --power takes a value");
        i++;
        if (!strcmp(a, "--caselist")) o.caselist = val;
        else if (!strcmp(a, "--filter") && o.n_filters < 16) o.filters[o.n_filters++] = val;
        else if (!strcmp(a, "--variant")) o.variant = val;
        else if (!strcmp(a, "--seeds") && atoi(val) > 0) o.seeds = atoi(val);
        else return usage("unknown option or bad value");
    }
    build_zoo();
    if (o.caselist && q4_caselist_load(o.caselist, &patterns, &n_patterns, &err) != Q4_OK)
        return usage(err.msg);
    const char *inc[256];
    size_t n_inc = 0;
    for (size_t i = 0; i < n_patterns && n_inc < 240; i++)
        inc[n_inc++] = patterns[i];
    for (int i = 0; i < o.n_filters; i++)
        inc[n_inc++] = o.filters[i];
    for (int s = 0; s < o.seeds; s++) {
        q4_case *cases = NULL;
        size_t count = 0;
        if (q4_case_select(inc, n_inc, NULL, 0, 0, 1, (uint64_t)s, &cases, &count, &err) != Q4_OK)
            return usage(err.msg);
        for (size_t i = 0; i < count; i++)
            run_case(&o, &cases[i], &failures);
        free(cases);
    }
    q4_caselist_free(patterns, n_patterns);
    printf("q4null: %s, %d unexpected\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
