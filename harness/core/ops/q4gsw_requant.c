/* q4gsw_requant.c: op descriptor of STE re-quantization into W_4X8 and the flat layout. */
#include <stdlib.h>
#include <string.h>

#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "packed_io.h"
#include "q4ref.h"

static const char *const kernels[] = { "q4gsw_requant_w4x8", "q4gsw_requant_flat", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    t[0] = (q4h_tensor){ "latent", 'f', in->latent, c->n, c->k, Q4H_MATRIX };
    t[1] = (q4h_tensor){ "scales", 'f', in->scales, c->k / c->gs, c->n, Q4H_MATRIX };
    return 2;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4h_output *w, *flat;
    q4_status st = q4h_code_output(out, "w4x8", c->n, c->k, "n", "k", &w, err);
    if (st == Q4_OK)
        st = q4h_code_output(out, "flat", c->n, c->k, "n", "k", &flat, err);
    if (st == Q4_OK)
        st = q4ref_requant_truth(in->latent, in->scales, c->n, c->k, c->gs, w->code, w->alt, err);
    if (st == Q4_OK) {
        memcpy(flat->code, w->code, (size_t)w->count);
        memcpy(flat->alt, w->alt, (size_t)w->count);
    }
    return st;
}

static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    bytes[0] = (size_t)q4_w4x8_words(c->n, c->k) * sizeof(uint32_t);
    bytes[1] = (size_t)q4_flat_bytes(c->n, c->k);
    return 2;
}

/* Buffers: latent, scales, w4x8, flat. */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    (void)in;
    q4vk_requant_args a = { .latent = b[0], .scales = b[1], .w = b[2], .flat = b[3],
                            .N = c->n, .K = c->k, .gs = c->gs };
    return q4vk_q4gsw_requant(ctx, &a, t, err);
}

/* The codes of both layouts from the words and bytes the GPU wrote (guards already
 * checked; packed_io.c); keeps them, as written, for dumps (a repeat replaces the
 * previous run's). Takes words and packed. */
static q4_status decode(const q4_case *c, uint32_t *words, uint8_t *packed, const size_t *sizes,
                        q4h_outputs *out, q4_error *err)
{
    q4_status st = q4h_decode_w4x8(c->n, c->k, words, sizes[0], &out->o[0], err);
    q4_status flat = q4h_decode_flat(c->n, c->k, packed, sizes[1], &out->o[1], err);
    return st ? st : flat;
}

static q4_status read_back(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                           q4h_outputs *out, q4_error *err)
{
    q4_status st = q4h_read_w4x8_output(ctx, b[2], c->n, c->k, &out->o[0], err);
    return st ? st : q4h_read_flat_output(ctx, b[3], c->n, c->k, &out->o[1], err);
}

static q4_status read_host(const q4_case *c, const q4h_host_buffer *b, q4h_outputs *out,
                           q4_error *err)
{
    q4h_output *w = &out->o[0], *flat = &out->o[1];
    size_t sizes[Q4H_MAX_OUTPUTS];
    output_buffers(c, sizes);
    uint32_t *words = malloc(sizes[0]);
    uint8_t *packed = malloc(sizes[1]);
    if (!words || !packed) {
        free(words);
        free(packed);
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate %zu bytes", sizes[0] + sizes[1]);
    }
    q4h_read_host(&b[2], words, sizes[0], &w->guard_ok, &w->guard_bad_at);
    q4h_read_host(&b[3], packed, sizes[1], &flat->guard_ok, &flat->guard_bad_at);
    return decode(c, words, packed, sizes, out, err);
}

/* Latent and scales read once, both packed layouts written once. */
static double bytes(const q4_case *c)
{
    return 4.0 * (double)(c->n * c->k) + q4h_weight_bytes(c->n, c->k, c->gs) +
           (double)q4_flat_bytes(c->n, c->k);
}

static double flops(const q4_case *c) { return 3.0 * (double)(c->n * c->k); }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(n), Q4H_CASE_PARAM(k), Q4H_CASE_PARAM(gs), { NULL, 0, 0 }
};

static void plan(const q4_case *c, const q4vk_device_info *info, q4vk_plan *p)
{
    q4vk_q4gsw_requant_plan(info, c->k, true, true, p);   /* launch asks for both */
}

const q4h_op q4h_op_q4gsw_requant = {
    .name = "q4gsw_requant", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .plan = plan, .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
};
