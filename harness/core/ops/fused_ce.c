/* fused_ce.c: op descriptor of fused cross-entropy (loss and dlogits, masked rows). */
#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "q4ref.h"

static const char *const kernels[] = { "fused_ce", "fused_ce_loss", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    t[0] = (q4h_tensor){ "logits", 'f', in->logits, c->r, c->v, Q4H_MATRIX };
    t[1] = (q4h_tensor){ "labels", 'i', in->labels, 1, c->r, Q4H_VECTOR };
    return 2;
}

/* loss and dlogits with their envelopes; dlogits whole or made by tiles. */
static q4_status make_outputs(const q4_case *c, bool tiled, q4h_outputs *out, q4_error *err)
{
    q4h_output *loss, *dl;
    q4_status st = q4h_real_output(out, "loss", 1, 1, "-", "-", &loss, err);
    if (st == Q4_OK)
        st = tiled ? q4h_tiled_output(out, "dlogits", c->r, c->v, "r", "v", &dl, err)
                   : q4h_real_output(out, "dlogits", c->r, c->v, "r", "v", &dl, err);
    if (st == Q4_OK)
        st = q4h_output_envelope(loss, false, err);
    if (st == Q4_OK)
        st = q4h_output_envelope(dl, true, err);
    return st;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4_status st = make_outputs(c, false, out, err);
    if (st == Q4_OK) {
        q4h_output *loss = &out->o[0], *dl = &out->o[1];
        st = q4ref_fused_ce_truth_env(in->logits, in->labels, c->r, c->v, in->n_valid,
                                      loss->value, loss->bound, dl->value, dl->bound, &loss->env,
                                      &dl->env, err);
    }
    return st;
}

/* The tiled truth: dlogits row by row, the loss from every row's after them. */
static q4_status tiles_plan(const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                            void **state, q4_error *err)
{
    q4ref_ce_rows *rows = NULL;
    q4_status st = q4ref_fused_ce_truth_rows(in->logits, in->labels, c->r, c->v, in->n_valid,
                                             &rows, err);
    if (st == Q4_OK)
        st = make_outputs(c, true, out, err);
    if (st != Q4_OK)
        q4ref_fused_ce_rows_free(rows);
    else
        *state = rows;
    return st;
}

static void tile(void *state, const q4h_truth_tile *t)
{
    q4ref_fused_ce_truth_row(state, t->row, t->value[1], t->bound[1], &t->env[1]);
}

static void tiles_end(void *state, q4h_outputs *out)
{
    q4h_output *loss = &out->o[0];
    q4ref_fused_ce_truth_loss(state, loss->value, loss->bound, &loss->env);
}

static void tiles_free(void *state) { q4ref_fused_ce_rows_free(state); }

static const q4h_tiled_truth tiled = {
    .plan = tiles_plan, .tile = tile, .end = tiles_end, .free = tiles_free, .whole_rows = true,
};

static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    bytes[0] = sizeof(float);
    bytes[1] = (size_t)(c->r * c->v) * sizeof(float);
    return 2;
}

/* Buffers: logits, labels, loss, dlogits. The launcher rejects labels >= V (SPEC §2). */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    q4vk_ce_args a = { .logits = b[0], .labels = b[1], .loss = b[2], .dlogits = b[3],
                       .R = c->r, .V = c->v, .n_valid = in->n_valid };
    return q4vk_fused_ce(ctx, &a, t, err);
}

static q4_status read_back(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                      q4h_outputs *out, q4_error *err)
{
    (void)c;
    q4_status st = q4h_read_output(ctx, b[2], &out->o[0], err);
    return st ? st : q4h_read_output(ctx, b[3], &out->o[1], err);
}

static q4_status read_host(const q4_case *c, const q4h_host_buffer *b, q4h_outputs *out,
                           q4_error *err)
{
    (void)c, (void)err;
    q4h_read_host_output(&b[2], &out->o[0]);
    q4h_read_host_output(&b[3], &out->o[1]);
    return Q4_OK;
}

/* Logits read once, dlogits written once, labels read once: the minimal DRAM traffic
 * perf rates the case against. */
static double bytes(const q4_case *c) { return 8.0 * (double)(c->r * c->v) + 4.0 * (double)c->r; }

/* max, subtract, exp, add, divide per element; a row's log is negligible. */
static double flops(const q4_case *c) { return 5.0 * (double)(c->r * c->v); }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(r), Q4H_CASE_PARAM(v), Q4H_CASE_INT_PARAM(mask_pct), Q4H_INPUT_PARAM(n_valid),
    { NULL, 0, 0 }
};

const q4h_op q4h_op_fused_ce = {
    .name = "fused_ce", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
    .tiled = &tiled,
};
