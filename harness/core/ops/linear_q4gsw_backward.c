/* linear_q4gsw_backward.c: op descriptor of the input gradient, d_x = d_out @ dequant(W). */
#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "q4ref.h"

static const char *const kernels[] = { "linear_q4gsw_backward_tiled",
                                       "linear_q4gsw_backward_gemv",
                                       "linear_splitk_reduce", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    t[0] = (q4h_tensor){ "dout", 'f', in->dout, c->m, c->n, Q4H_ACTIVATION };
    t[1] = (q4h_tensor){ "w4x8", 'u', in->w4x8, 1, q4_w4x8_words(c->n, c->k), Q4H_VECTOR };
    t[2] = (q4h_tensor){ "scales", 'f', in->scales, c->k / c->gs, c->n, Q4H_MATRIX };
    return 3;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4h_output *dx;
    q4_status st = q4h_real_output(out, "dx", c->m, c->k, "m", "k", &dx, err);
    if (st == Q4_OK)
        st = q4ref_linear_bwd_truth(in->dout, in->w4x8, in->scales, c->m, c->n, c->k, c->gs,
                                    dx->value, dx->bound, err);
    /* envelope from the bound: N terms of dout * ((code - 8) * s) */
    dx->dot_n = c->n;
    dx->dot_factors = 3;
    dx->shape = Q4H_ACTIVATION; /* [*lead, K] */
    /* each column k reads weights W[:][k], which a kernel may round once for all rows */
    if (st == Q4_OK && (st = q4h_output_col_var(dx, err)) == Q4_OK)
        st = q4ref_linear_shared_var(0, in->dout, in->w4x8, in->scales, c->m, c->n, c->k, c->gs,
                                     dx->value, dx->bound, dx->dot_n, dx->col_var[0],
                                     dx->col_var[1], err);
    return st;
}

static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    bytes[0] = (size_t)(c->m * c->k) * sizeof(float);
    return 1;
}

/* Buffers: dout, w4x8, scales, dx. */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    (void)in;
    q4vk_linear_bwd_args a = { .dout = b[0], .w = b[1], .scales = b[2], .dx = b[3],
                               .M = c->m, .N = c->n, .K = c->k, .gs = c->gs };
    return q4vk_linear_q4gsw_backward(ctx, &a, t, err);
}

static q4_status read_back(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                      q4h_outputs *out, q4_error *err)
{
    (void)c;
    return q4h_read_output(ctx, b[3], &out->o[0], err);
}

static q4_status read_host(const q4_case *c, const q4h_host_buffer *b, q4h_outputs *out,
                           q4_error *err)
{
    (void)c, (void)err;
    q4h_read_host_output(&b[3], &out->o[0]);
    return Q4_OK;
}

static double bytes(const q4_case *c)
{
    return 4.0 * (double)(c->m * c->n + c->m * c->k) + q4h_weight_bytes(c->n, c->k, c->gs);
}

static double flops(const q4_case *c) { return 2.0 * (double)c->m * (double)c->n * (double)c->k; }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(m), Q4H_CASE_PARAM(n), Q4H_CASE_PARAM(k), Q4H_CASE_PARAM(gs), { NULL, 0, 0 }
};

static void plan(const q4_case *c, const q4vk_device_info *info, q4vk_plan *p)
{
    q4vk_linear_q4gsw_backward_plan(info, c->m, c->n, c->k, p);
}

const q4h_op q4h_op_linear_q4gsw_backward = {
    .name = "linear_q4gsw_backward", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .plan = plan, .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
};
