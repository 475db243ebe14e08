/* interface_ops.c: what each op offers an interface file (docs/interface-format.md,
 * "Tensors of each op" and "Expressions"): its tensors with their roles and allowed
 * layouts, the op's input tensor each comes from, and the parameters expressions may
 * name with their values for a case. */
#include "interface.h"

#include <string.h>

#define L(x) (1u << Q4H_LAYOUT_##x)
#define WEIGHT { "w", Q4H_ROLE_IN, L(W4X8) | L(FLAT), "w4x8" }
#define SCALES { "scales", Q4H_ROLE_IN, L(SCALES), "scales" }
#define I(n) { #n, Q4H_X_INT, NULL }
#define R(n) { #n, Q4H_X_REAL, NULL }
#define WEIGHT_NAMES I(N), I(K), I(gs), I(N4), I(N8)

static const q4h_if_op ops[] = {
    { "dequantize", { WEIGHT, SCALES, { "wf", Q4H_ROLE_OUT, L(FP32), NULL } }, 3,
      { WEIGHT_NAMES }, 5 },
    { "linear_q4gsw",
      { { "x", Q4H_ROLE_IN, L(FP32), "x" }, WEIGHT, SCALES,
        { "bias", Q4H_ROLE_IN_OPTIONAL, L(FP32), "bias" }, { "y", Q4H_ROLE_OUT, L(FP32), NULL } },
      5, { I(M), WEIGHT_NAMES, I(has_bias) }, 7 },
    { "linear_q4gsw_backward",
      { { "dout", Q4H_ROLE_IN, L(FP32), "dout" }, WEIGHT, SCALES,
        { "dx", Q4H_ROLE_OUT, L(FP32), NULL } },
      4, { I(M), WEIGHT_NAMES }, 6 },
    { "linear_dW",
      { { "dout", Q4H_ROLE_IN, L(FP32), "dout" }, { "x", Q4H_ROLE_IN, L(FP32), "x" },
        { "dw", Q4H_ROLE_OUT, L(FP32), NULL } },
      3, { I(M), I(N), I(K) }, 3 },
    { "fused_ce",
      { { "logits", Q4H_ROLE_IN, L(FP32), "logits" }, { "labels", Q4H_ROLE_IN, L(INT32), "labels" },
        { "loss", Q4H_ROLE_OUT, L(FP32), NULL }, { "dlogits", Q4H_ROLE_OUT, L(FP32), NULL } },
      4, { I(R), I(V), R(n_valid) }, 3 },
    { "adamw_step",
      { { "param", Q4H_ROLE_INOUT, L(FP32), "param" }, { "grad", Q4H_ROLE_IN, L(FP32), "grad" },
        { "m", Q4H_ROLE_INOUT, L(FP32), "m" }, { "v", Q4H_ROLE_INOUT, L(FP32), "v" } },
      4, { I(numel), I(step), R(lr), R(beta1), R(beta2), R(eps), R(wd), R(bc1), R(bc2) }, 9 },
    { "q4gsw_requant",
      { { "latent", Q4H_ROLE_IN, L(FP32), "latent" }, SCALES,
        { "w", Q4H_ROLE_OUT, L(W4X8) | L(FLAT), NULL } },
      3, { WEIGHT_NAMES }, 5 },
};

const q4h_if_op *q4h_if_op_find(const char *op)
{
    for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].op, op))
            return &ops[i];
    return NULL;
}

void q4h_if_op_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof ops / sizeof ops[0] && len < size; i++) {
        int k = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", ops[i].op);
        len += k > 0 ? (size_t)k : 0;
    }
}

const char *q4h_layout_name(q4h_layout l)
{
    static const char *const names[] = { "fp32", "int32", "w4x8", "flat", "scales" };
    return l < Q4H_LAYOUT_COUNT ? names[l] : "?";
}

const char *q4h_if_output_name(const q4h_if_tensor *t, q4h_layout l)
{
    if (!strcmp(t->name, "w"))   /* requant's packed outputs are named by layout */
        return q4h_layout_name(l);
    return t->name;
}

/* The value of parameter `name` of case c. */
static q4h_xval value(const char *name, const q4_case *c, const q4_inputs *in)
{
    static const struct { const char *name; size_t at; } ints[] = {
        { "M", offsetof(q4_case, m) }, { "N", offsetof(q4_case, n) },
        { "K", offsetof(q4_case, k) }, { "gs", offsetof(q4_case, gs) },
        { "R", offsetof(q4_case, r) }, { "V", offsetof(q4_case, v) },
        { "numel", offsetof(q4_case, numel) }, { "step", offsetof(q4_case, step) },
    };
    static const struct { const char *name; size_t at; } reals[] = {
        { "n_valid", offsetof(q4_inputs, n_valid) }, { "lr", offsetof(q4_inputs, lr) },
        { "beta1", offsetof(q4_inputs, beta1) }, { "beta2", offsetof(q4_inputs, beta2) },
        { "eps", offsetof(q4_inputs, eps) }, { "wd", offsetof(q4_inputs, wd) },
        { "bc1", offsetof(q4_inputs, bc1) }, { "bc2", offsetof(q4_inputs, bc2) },
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (!strcmp(ints[i].name, name))
            return (q4h_xval){ Q4H_X_INT, *(const int64_t *)((const char *)c + ints[i].at), 0 };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        if (!strcmp(reals[i].name, name))
            return (q4h_xval){ Q4H_X_REAL, 0, *(const float *)((const char *)in + reals[i].at) };
    if (!strcmp(name, "N4"))
        return (q4h_xval){ Q4H_X_INT, c->n / 4, 0 };
    if (!strcmp(name, "N8"))
        return (q4h_xval){ Q4H_X_INT, q4_n8(c->n), 0 };
    return (q4h_xval){ Q4H_X_INT, c->bias != 0, 0 };   /* has_bias, the last name */
}

void q4h_if_values(const q4h_if_op *op, const q4_case *c, const q4_inputs *in,
                   q4h_xval values[Q4H_IF_MAX_NAMES])
{
    for (int i = 0; i < op->n_names; i++)
        values[i] = value(op->names[i].name, c, in);
}
