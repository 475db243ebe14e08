/* adamw_step.c: case descriptor of one AdamW step: names n t w, its families and
 * value classes, its inputs (param, grad, m, v) and hyper-parameters (step t). */
#include <math.h>

#include "case_desc.h"
#include "case_random.h"
#include "case_shape.h"
#include "case_values.h"

extern const q4c_op q4c_op_adamw_step;

static const q4c_family families[] = {
    {"wd_on", Q4C_R_W_ON, NULL},
    {"wd_off", Q4C_R_W_OFF, NULL},
    {"late_step", Q4C_R_T_LATE, NULL},
    {"unaligned", Q4C_R_NUMEL_UNALIGNED, NULL},
    {"large", Q4C_R_LARGE_NUMEL, NULL},
    Q4C_FAMILIES_ANY_SHAPE,
};

static const q4c_class classes[] = {
    {"ordinary", "torch defaults (lr 1e-3); param [-1, 1), grad [-0.1, 0.1), m [-0.01, 0.01), v [0, 1e-4)", 0},
    {"lr0", "lr = 0: params must come back bit for bit", 0},
    {"zero_grad", "every gradient 0 and every v 0 (v stays 0: sqrt(0) + eps), half the m 0", 0},
    {"llm_hyper", "lr 1e-2, beta2 0.95, eps 1e-6 (and wd 0.1 with w1): a large model's settings", 0},
    {"huge_grad", "gradients with 24-bit significands up to the largest binade whose update "
                  "stays finite in SPEC's order (2^62..2^66: g*g overflows late in training)", 0},
    {"tiny_grad", "gradients with 24-bit significands in 2^-126..2^-100 (g*g and (1-beta2)*g "
                  "underflow), half the v 0", 0},
    {NULL, NULL, 0},
};

static const char *const generated[] = {
    "q4cts.adamw_step.wd_on.n1024_t1_w1",
    "q4cts.adamw_step.wd_on.n4096_t10_w1",
    "q4cts.adamw_step.wd_off.n1024_t1_w0",
    "q4cts.adamw_step.wd_off.n4096_t100_w0",
    "q4cts.adamw_step.late_step.n1024_t10000_w1",
    "q4cts.adamw_step.late_step.n1000_t1000000_w0",
    "q4cts.adamw_step.unaligned.n1023_t5_w1",
    "q4cts.adamw_step.unaligned.n1_t1_w1",
    "q4cts.adamw_step.unaligned.n7_t3_w0",
    "q4cts.adamw_step.large.n1048576_t50_w1",
    "q4cts.adamw_step.large.n1048573_t7_w0",
    "q4cts.adamw_step.custom.n4100_t2_w1",
    "q4cts.adamw_step.late_step.n1000_t1099511627776_w1",   /* t = 2^40, the largest */
    /* value classes */
    "q4cts.adamw_step.custom.n4100_t2_w1.lr0",
    "q4cts.adamw_step.unaligned.n1023_t5_w1.lr0",
    "q4cts.adamw_step.late_step.n1024_t10000_w0.lr0",
    "q4cts.adamw_step.wd_on.n1024_t1_w1.zero_grad",
    "q4cts.adamw_step.unaligned.n7_t3_w0.zero_grad",
    "q4cts.adamw_step.late_step.n1000_t1000000_w1.zero_grad",
    "q4cts.adamw_step.wd_on.n4096_t10_w1.llm_hyper",
    "q4cts.adamw_step.custom.n1023_t1_w0.llm_hyper",
    "q4cts.adamw_step.wd_on.n1024_t1_w1.huge_grad",
    "q4cts.adamw_step.late_step.n1024_t10000_w1.huge_grad",
    "q4cts.adamw_step.custom.n1023_t5_w1.tiny_grad",
    "q4cts.adamw_step.late_step.n1000_t1000000_w0.tiny_grad",
    /* random sweeps (cases/sweep.txt has 10,000 more) */
    "q4cts.adamw_step.random.s0",
    "q4cts.adamw_step.random.s1",
    "q4cts.adamw_step.random.s2",
    "q4cts.adamw_step.random.s3",
    "q4cts.adamw_step.small_device.n4096_t10_w1_groups8_binding8192_shared16384_invocations128",
    "q4cts.adamw_step.small_device.n5003_t10_w1_groups3",
    "q4cts.adamw_step.small_device.n5003_t10_w1_groups2",   /* 5 groups: 2 x 2 x 2 */
    NULL,
};

static q4_status fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    c->numel = Q4C_P(p, 'n');
    c->step = Q4C_P(p, 't');
    if (Q4C_P(p, 'w') > 1)
        return q4_fail(err, Q4_ERR_ARG, "w%lld: expected w0 or w1", (long long)Q4C_P(p, 'w'));
    c->wd = (int)Q4C_P(p, 'w');
    return Q4_OK;
}

static void format(const q4_case *c, q4c_text *t)
{
    q4c_put(t, "n%lld_t%lld_w%d", (long long)c->numel, (long long)c->step, c->wd);
}

/* ---------------- AdamW hyper-parameters ---------------- */

/* b^t by binary powering in double: each product is one IEEE rounding, so the result
 * is the same on every machine with IEEE double arithmetic (FLT_EVAL_METHOD 0). */
static double pow_int(double b, int64_t t)
{
    double r = 1.0;
    while (t > 0) {
        if (t & 1) r *= b;
        b *= b;
        t >>= 1;
    }
    return r;
}

static void adamw_hyper(const q4_case *c, float *lr, float *beta1, float *beta2, float *eps,
                        float *wdv, float *bc1, float *bc2)
{
    /* torch.optim.AdamW's defaults except wd (0.01, its default, or 0), or a large
     * model's; bias corrections from the double betas, as torch computes them in Python
     * floats. */
    const int llm = q4c_values_is(c, "llm_hyper");
    const double b2 = llm ? 0.95 : 0.999;
    *lr = llm ? 1e-2f : 1e-3f;
    *beta1 = 0.9f;
    *beta2 = (float)b2;
    *eps = llm ? 1e-6f : 1e-8f;
    *wdv = c->wd ? (llm ? 0.1f : 0.01f) : 0.0f;
    *bc1 = (float)(1.0 - pow_int(0.9, c->step));
    *bc2 = (float)(1.0 - pow_int(b2, c->step));
}

/* huge_grad: the top binade of |g| for which v / bc2 = ((1 - beta2) g) g / bc2 stays
 * below 2^126 (so SPEC's order never overflows), at most 2^66. */
static int huge_grad_emax(float beta2, float bc2)
{
    int e = (int)floor((126.0 + log2((double)bc2) - log2(1.0 - (double)beta2)) / 2) - 1;
    return e < 66 ? e : 66;
}

static q4_status check(const q4_case *c, q4_error *err)
{
    float lr, b1, b2, eps, wd, bc1, bc2;
    if (c->step < 1 || c->step > Q4C_NUM_MAX)
        return q4_fail(err, Q4_ERR_ARG, "t = %lld must be a step in 1..2^40", (long long)c->step);
    if (c->wd < 0 || c->wd > 1)
        return q4_fail(err, Q4_ERR_ARG, "w = %d must be 0 or 1", c->wd);
    adamw_hyper(c, &lr, &b1, &b2, &eps, &wd, &bc1, &bc2);
    return q4_check_adamw(c->numel, lr, b1, b2, eps, wd, bc1, bc2, err);
}

static q4_status inputs(const q4_case *c, q4_inputs *in, q4_error *err)
{
    const int64_t n = c->numel;
    q4_status st;
    Q4C_ALLOC(in, param, n, "param");
    Q4C_ALLOC(in, grad, n, "grad");
    Q4C_ALLOC(in, m, n, "m");
    Q4C_ALLOC(in, v, n, "v");
    q4c_fill_sym(q4c_stream(c, "param"), in->param, n, 1 << 23, 23);         /* [-1, 1) */
    q4c_fill_sym(q4c_stream(c, "grad"), in->grad, n, 13421772, 27);          /* [-0.1, 0.1) */
    q4c_fill_sym(q4c_stream(c, "m"), in->m, n, 10737418, 30);                /* [-0.01, 0.01) */
    q4c_fill_range(q4c_stream(c, "v"), in->v, n, 0, 13743895, -37);         /* [0, 1e-4) */
    adamw_hyper(c, &in->lr, &in->beta1, &in->beta2, &in->eps, &in->wd, &in->bc1, &in->bc2);
    if (q4c_values_is(c, "huge_grad")) {
        int emax = huge_grad_emax(in->beta2, in->bc2);
        q4c_fill_wide(q4c_stream(c, "grad"), in->grad, n, emax - 4, emax);
    }
    if (q4c_values_is(c, "tiny_grad")) {
        q4c_fill_wide(q4c_stream(c, "grad"), in->grad, n, -126, -100);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i += 2)
            in->v[i] = 0.0f;
    }
    if (q4c_values_is(c, "lr0"))
        in->lr = 0.0f;
    if (q4c_values_is(c, "zero_grad"))
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            in->grad[i] = 0.0f;
            in->v[i] = 0.0f;
            if (i % 2) in->m[i] = 0.0f;
        }
    return Q4_OK;
}

static q4_status check_inputs(const q4_case *c, const q4_inputs *in, q4_error *err)
{
    return q4_check_adamw(c->numel, in->lr, in->beta1, in->beta2, in->eps, in->wd, in->bc1,
                          in->bc2, err);
}

static void random_case(q4_case *c)
{
    q4c_rng g = q4c_sweep_rng(c);
    c->numel = q4c_below(&g, 4) == 0 ? q4c_range(&g, 1, 9) : q4c_range(&g, 1, 5001);
    switch (q4c_below(&g, 8)) {
    case 0: case 1: c->step = 1; break;
    case 2: c->step = q4c_range(&g, 1000, 1000001); break;
    default: c->step = q4c_range(&g, 1, 101); break;
    }
    c->wd = (int)(q4c_next(&g) & 1);
    q4c_random_values(&q4c_op_adamw_step, &g, c);
}

const q4c_op q4c_op_adamw_step = {
    .name = "adamw_step", .keys = "n t w", .allowed = "ntw", .required = "ntw",
    .families = families, .classes = classes, .generated = generated, .fill = fill,
    .format = format, .check = check, .inputs = inputs, .check_inputs = check_inputs,
    .random = random_case,
};
