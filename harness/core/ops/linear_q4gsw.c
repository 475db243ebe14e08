/* linear_q4gsw.c: op descriptor of the forward linear, y = x @ dequant(W)^T (+ bias). */
#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "q4ref.h"

static const char *const kernels[] = { "linear_q4gsw_tiled", "linear_q4gsw_gemv",
                                       "linear_splitk_reduce", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    int n = 0;
    t[n++] = (q4h_tensor){ "x", 'f', in->x, c->m, c->k, Q4H_ACTIVATION };
    t[n++] = (q4h_tensor){ "w4x8", 'u', in->w4x8, 1, q4_w4x8_words(c->n, c->k), Q4H_VECTOR };
    t[n++] = (q4h_tensor){ "scales", 'f', in->scales, c->k / c->gs, c->n, Q4H_MATRIX };
    if (c->bias)
        t[n++] = (q4h_tensor){ "bias", 'f', in->bias, 1, c->n, Q4H_VECTOR };
    return n;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4h_output *y;
    q4_status st = q4h_real_output(out, "y", c->m, c->n, "m", "n", &y, err);
    if (st == Q4_OK)
        st = q4ref_linear_fwd_truth(in->x, in->w4x8, in->scales, c->bias ? in->bias : NULL, c->m,
                                    c->n, c->k, c->gs, y->value, y->bound, err);
    /* envelope from the bound: K terms (and the bias) of x * ((code - 8) * s) */
    y->dot_n = c->k + (c->bias ? 1 : 0);
    y->dot_factors = 3;
    y->shape = Q4H_ACTIVATION; /* [*lead, N] */
    /* each column n reads weights W[n][:], which a kernel may round once for all rows */
    if (st == Q4_OK && (st = q4h_output_col_var(y, err)) == Q4_OK)
        st = q4ref_linear_shared_var(1, in->x, in->w4x8, in->scales, c->m, c->n, c->k, c->gs,
                                     y->value, y->bound, y->dot_n, y->col_var[0], y->col_var[1],
                                     err);
    return st;
}

static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    bytes[0] = (size_t)(c->m * c->n) * sizeof(float);
    return 1;
}

/* Buffers: x, w4x8, scales, [bias], y. */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    (void)in;
    q4vk_linear_args a = { .x = b[0], .w = b[1], .scales = b[2], .bias = c->bias ? b[3] : NULL,
                           .y = b[c->bias ? 4 : 3], .M = c->m, .N = c->n, .K = c->k,
                           .gs = c->gs };
    return q4vk_linear_q4gsw(ctx, &a, t, err);
}

static q4_status read_back(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                      q4h_outputs *out, q4_error *err)
{
    return q4h_read_output(ctx, b[c->bias ? 4 : 3], &out->o[0], err);
}

static q4_status read_host(const q4_case *c, const q4h_host_buffer *b, q4h_outputs *out,
                           q4_error *err)
{
    (void)err;
    q4h_read_host_output(&b[c->bias ? 4 : 3], &out->o[0]);
    return Q4_OK;
}

static double bytes(const q4_case *c)
{
    return 4.0 * (double)(c->m * c->k + c->m * c->n + (c->bias ? c->n : 0)) +
           q4h_weight_bytes(c->n, c->k, c->gs);
}

static double flops(const q4_case *c) { return 2.0 * (double)c->m * (double)c->n * (double)c->k; }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(m), Q4H_CASE_PARAM(n), Q4H_CASE_PARAM(k), Q4H_CASE_PARAM(gs),
    Q4H_CASE_INT_PARAM(bias), { NULL, 0, 0 }
};

static void plan(const q4_case *c, const q4vk_device_info *info, q4vk_plan *p)
{
    q4vk_linear_q4gsw_plan(info, c->m, c->n, c->k, c->gs, p);
}

const q4h_op q4h_op_linear_q4gsw = {
    .name = "linear_q4gsw", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .plan = plan, .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
};
