/* linear_dW.c: op descriptor of the weight gradient, d_W = d_out^T @ x (dense fp32). */
#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "q4ref.h"

static const char *const kernels[] = { "linear_dw_tiled", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    t[0] = (q4h_tensor){ "dout", 'f', in->dout, c->m, c->n, Q4H_ACTIVATION };
    t[1] = (q4h_tensor){ "x", 'f', in->x, c->m, c->k, Q4H_ACTIVATION };
    return 2;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4h_output *dw;
    q4_status st = q4h_real_output(out, "dw", c->n, c->k, "n", "k", &dw, err);
    if (st == Q4_OK)
        st = q4ref_linear_dw_truth(in->dout, in->x, c->m, c->n, c->k, dw->value, dw->bound, err);
    /* envelope from the bound: M terms of dout * x */
    dw->dot_n = c->m;
    dw->dot_factors = 2;
    return st;
}

static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    bytes[0] = (size_t)(c->n * c->k) * sizeof(float);
    return 1;
}

/* Buffers: dout, x, dw. */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    (void)in;
    q4vk_dw_args a = { .dout = b[0], .x = b[1], .dw = b[2], .M = c->m, .N = c->n, .K = c->k };
    return q4vk_linear_dw(ctx, &a, t, err);
}

static q4_status read_back(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                      q4h_outputs *out, q4_error *err)
{
    (void)c;
    return q4h_read_output(ctx, b[2], &out->o[0], err);
}

static q4_status read_host(const q4_case *c, const q4h_host_buffer *b, q4h_outputs *out,
                           q4_error *err)
{
    (void)c, (void)err;
    q4h_read_host_output(&b[2], &out->o[0]);
    return Q4_OK;
}

static double bytes(const q4_case *c)
{
    return 4.0 * (double)(c->m * c->n + c->m * c->k + c->n * c->k);
}

static double flops(const q4_case *c) { return 2.0 * (double)c->m * (double)c->n * (double)c->k; }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(m), Q4H_CASE_PARAM(n), Q4H_CASE_PARAM(k), { NULL, 0, 0 }
};

const q4h_op q4h_op_linear_dW = {
    .name = "linear_dW", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
};
