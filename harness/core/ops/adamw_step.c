/* adamw_step.c: op descriptor of one AdamW step, in place on param, m and v. */
#include "device_io.h"
#include "op_support.h"
#include "outputs.h"
#include "q4ref.h"

#include <stdlib.h>

static const char *const kernels[] = { "adamw_step", NULL };

static int inputs(const q4_case *c, const q4_inputs *in, q4h_tensor t[Q4H_MAX_TENSORS])
{
    t[0] = (q4h_tensor){ "param", 'f', in->param, 1, c->numel, Q4H_VECTOR };
    t[1] = (q4h_tensor){ "grad", 'f', in->grad, 1, c->numel, Q4H_VECTOR };
    t[2] = (q4h_tensor){ "m", 'f', in->m, 1, c->numel, Q4H_VECTOR };
    t[3] = (q4h_tensor){ "v", 'f', in->v, 1, c->numel, Q4H_VECTOR };
    return 4;
}

static q4ref_adamw_hyper hyper_of(const q4_inputs *in)
{
    return (q4ref_adamw_hyper){ in->lr, in->beta1, in->beta2, in->eps, in->wd, in->bc1, in->bc2 };
}

/* param, m and v, each with its envelope: whole, or made by tiles. */
static q4_status make_outputs(const q4_case *c, bool tiled, q4h_outputs *out, q4_error *err)
{
    static const char *const names[3] = { "param", "m", "v" };
    q4_status st = Q4_OK;
    for (int i = 0; i < 3 && st == Q4_OK; i++) {
        q4h_output *o;
        st = tiled ? q4h_tiled_output(out, names[i], 1, c->numel, "-", "i", &o, err)
                   : q4h_real_output(out, names[i], 1, c->numel, "-", "i", &o, err);
        if (st == Q4_OK)
            st = q4h_output_envelope(o, false, err);
    }
    return st;
}

static q4_status truth(const q4_case *c, const q4_inputs *in, q4h_outputs *out, q4_error *err)
{
    q4ref_adamw_hyper h = hyper_of(in);
    q4_status st = make_outputs(c, false, out, err);
    if (st == Q4_OK) {
        q4h_output *p = &out->o[0], *m = &out->o[1], *v = &out->o[2];
        q4ref_envelope env[3] = { p->env, m->env, v->env };
        st = q4ref_adamw_truth_env(in->param, in->grad, in->m, in->v, c->numel, &h, p->value,
                                   p->bound, m->value, m->bound, v->value, v->bound, env, err);
    }
    return st;
}

/* The tiled truth: every element alone, so a tile is any range of them. */
typedef struct tiles {
    const q4_inputs *in;
    q4ref_adamw_hyper h;
} tiles;

static q4_status tiles_plan(const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                            void **state, q4_error *err)
{
    tiles *t;
    q4ref_adamw_hyper h = hyper_of(in);
    q4_status st = q4ref_adamw_truth_check(in->param, in->grad, in->m, in->v, c->numel, &h, err);
    if (st == Q4_OK)
        st = make_outputs(c, true, out, err);
    if (st == Q4_OK && !(t = malloc(sizeof *t)))
        st = q4_fail(err, Q4_ERR_NOMEM, "%s", "cannot allocate the tiled truth");
    if (st == Q4_OK) {
        *t = (tiles){ in, h };
        *state = t;
    }
    return st;
}

static void tile(void *state, const q4h_truth_tile *t)
{
    const tiles *s = state;
    const q4h_truth_tile *x = t;
    q4ref_adamw_truth_range(s->in->param, s->in->grad, s->in->m, s->in->v, x->j0, x->j1, &s->h,
                            x->value[0], x->bound[0], x->value[1], x->bound[1], x->value[2],
                            x->bound[2], x->env);
}

static void tiles_end(void *state, q4h_outputs *out) { (void)state, (void)out; }

static const q4h_tiled_truth tiled = {
    .plan = tiles_plan, .tile = tile, .end = tiles_end, .free = free,
};

/* Every output is an input updated in place. */
static int output_buffers(const q4_case *c, size_t bytes[Q4H_MAX_OUTPUTS])
{
    (void)c;
    (void)bytes;
    return 0;
}

/* Buffers: param, grad, m, v. */
static q4_status launch(q4vk_context *ctx, const q4_case *c, const q4_inputs *in,
                        q4vk_buffer *const *b, q4vk_timing *t, q4_error *err)
{
    q4vk_adamw_args a = { .param = b[0], .grad = b[1], .m = b[2], .v = b[3], .numel = c->numel,
                          .lr = in->lr, .beta1 = in->beta1, .beta2 = in->beta2, .eps = in->eps,
                          .wd = in->wd, .bc1 = in->bc1, .bc2 = in->bc2 };
    return q4vk_adamw_step(ctx, &a, t, err);
}

static q4_status read_back(q4vk_context *ctx, const q4_case *c, q4vk_buffer *const *b,
                      q4h_outputs *out, q4_error *err)
{
    (void)c;
    q4_status st = q4h_read_output(ctx, b[0], &out->o[0], err);
    if (st == Q4_OK)
        st = q4h_read_output(ctx, b[2], &out->o[1], err);
    return st ? st : q4h_read_output(ctx, b[3], &out->o[2], err);
}

/* param, m, v read and written, grad read. */
static q4_status read_host(const q4_case *c, const q4h_host_buffer *b, q4h_outputs *out,
                           q4_error *err)
{
    (void)c, (void)err;
    q4h_read_host_output(&b[0], &out->o[0]);
    q4h_read_host_output(&b[2], &out->o[1]);
    q4h_read_host_output(&b[3], &out->o[2]);
    return Q4_OK;
}

static double bytes(const q4_case *c) { return 28.0 * (double)c->numel; }
static double flops(const q4_case *c) { return 16.0 * (double)c->numel; }

/* case.json's params (harness/store/dump.c). */
static const q4h_param params[] = {
    Q4H_CASE_PARAM(numel), Q4H_CASE_PARAM(step), Q4H_INPUT_PARAM(lr), Q4H_INPUT_PARAM(beta1),
    Q4H_INPUT_PARAM(beta2), Q4H_INPUT_PARAM(eps), Q4H_INPUT_PARAM(wd), Q4H_INPUT_PARAM(bc1),
    Q4H_INPUT_PARAM(bc2), { NULL, 0, 0 }
};

const q4h_op q4h_op_adamw_step = {
    .name = "adamw_step", .kernels = kernels, .support = q4h_support_memory,
    .inputs = inputs, .truth = truth, .output_buffers = output_buffers, .launch = launch,
    .read = read_back, .read_host = read_host, .bytes = bytes, .flops = flops, .params = params,
    .tiled = &tiled,
};
