/* dequantize.c: op descriptor of dequantization, Wf [N, K] = (code - 8) * scale. */
#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "q4ref.h"

static const char *const kernels[] = { "dequantize", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    t[0] = (q4h_tensor){ "w4x8", 'u', in->w4x8, 1, q4_w4x8_words(c->n, c->k), Q4H_VECTOR };
    t[1] = (q4h_tensor){ "scales", 'f', in->scales, c->k / c->gs, c->n, Q4H_MATRIX };
    return 2;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4h_output *wf;
    q4_status st = q4h_real_output(out, "wf", c->n, c->k, "n", "k", &wf, err);
    if (st == Q4_OK)
        st = q4ref_dequant_truth(in->w4x8, in->scales, c->n, c->k, c->gs, wf->value, wf->bound,
                                 err);
    return st;
}

static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    bytes[0] = (size_t)(c->n * c->k) * sizeof(float);
    return 1;
}

/* Buffers: w4x8, scales, wf. */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    (void)in;
    q4vk_dequant_args a = { .w = b[0], .scales = b[1], .out = b[2],
                            .N = c->n, .K = c->k, .gs = c->gs };
    return q4vk_dequantize(ctx, &a, t, err);
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
    return q4h_weight_bytes(c->n, c->k, c->gs) + 4.0 * (double)(c->n * c->k);
}

static double flops(const q4_case *c) { return (double)(c->n * c->k); }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(n), Q4H_CASE_PARAM(k), Q4H_CASE_PARAM(gs), { NULL, 0, 0 }
};

const q4h_op q4h_op_dequantize = {
    .name = "dequantize", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
};
