/* interface_run.c: one case of an op through an interface file (interface.h): the
 * file's buffers made from the case's tensors (interface_layout.c), its expressions
 * evaluated with the case's parameters into uniform buffers, push constants,
 * specialisation constants and group counts, the steps run as described dispatches
 * (gpu/q4vk_described.c), and the outputs read back for the judge exactly as the
 * op's own read would. Any error names the file (and the key, for an expression). */
#include "interface.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "device_io.h"

const q4h_iface *q4h_iface_for(const q4h_run_options *opt, const char *op)
{
    for (int i = 0; i < opt->n_interfaces; i++)
        if (!strcmp(opt->interfaces[i]->op->op, op))
            return opt->interfaces[i];
    return NULL;
}

typedef struct run {
    const q4h_iface *f;
    q4h_xval values[Q4H_IF_MAX_NAMES];
    q4vk_buffer *buffers[Q4H_IF_MAX_BUFFERS];
    size_t bytes[Q4H_IF_MAX_BUFFERS];
    q4vk_buffer *scratch[Q4H_IF_MAX_SCRATCH];
    q4vk_buffer *uniforms[Q4H_IF_MAX_STEPS][Q4VK_MAX_BINDINGS];
    uint8_t push[Q4H_IF_MAX_STEPS][128];
    q4_error *err;
} run;

static q4_status fail(run *r, q4_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static q4_status fail(run *r, q4_status st, const char *fmt, ...)
{
    char shown[Q4_ECHO_MAX], text[Q4_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return q4_fail(r->err, st, "%s: %s", q4_echo(r->f->path, shown, sizeof shown), text);
}

/* e's value for this case as an integer in [lo, hi]. */
static q4_status eval_int(run *r, const q4h_expr *e, const char *key, int64_t lo, int64_t hi,
                          int64_t *out)
{
    char msg[Q4_MSG_MAX];
    q4h_xval v;
    if (!q4h_expr_eval(e, r->values, &v, msg, sizeof msg))
        return fail(r, Q4_ERR_ARG, "%s: %s", key, msg);
    if (v.i < lo || v.i > hi)
        return fail(r, Q4_ERR_ARG, "%s: the value %lld is outside [%lld, %lld] for this case", key,
                    (long long)v.i, (long long)lo, (long long)hi);
    *out = v.i;
    return Q4_OK;
}

/* One 32-bit value of type t (a scalar type or a vector's component type) into dst. */
static q4_status eval_word(run *r, const q4h_expr *e, const char *key, q4h_ftype t, void *dst)
{
    int64_t i;
    q4_status st = Q4_OK;
    if (t == Q4H_F_FLOAT || t == Q4H_F_VEC4) {
        char msg[Q4_MSG_MAX];
        q4h_xval v;
        if (!q4h_expr_eval(e, r->values, &v, msg, sizeof msg))
            return fail(r, Q4_ERR_ARG, "%s: %s", key, msg);
        float x = (float)q4h_xval_real(v);
        memcpy(dst, &x, 4);
    } else if (t == Q4H_F_INT || t == Q4H_F_IVEC4) {
        if ((st = eval_int(r, e, key, INT32_MIN, INT32_MAX, &i)) == Q4_OK) {
            int32_t x = (int32_t)i;
            memcpy(dst, &x, 4);
        }
    } else if ((st = eval_int(r, e, key, 0, UINT32_MAX, &i)) == Q4_OK) {
        uint32_t x = (uint32_t)i;
        memcpy(dst, &x, 4);
    }
    return st;
}

static q4_status eval_fields(run *r, const q4h_if_fields *fs, uint8_t *dst)
{
    q4_status st = Q4_OK;
    for (int i = 0; i < fs->n && st == Q4_OK; i++) {
        const q4h_if_field *fd = &fs->f[i];
        const int n = fd->type >= Q4H_F_IVEC4 ? 4 : 1;
        for (int c = 0; c < n && st == Q4_OK; c++) {
            char key[112];
            snprintf(key, sizeof key, n == 1 ? "%s.value" : "%s.value[%d]", fd->key, c);
            st = eval_word(r, fd->value[c], key, fd->type, dst + fd->offset + 4 * c);
        }
    }
    return st;
}

/* The op's input tensor named `name` of this case, or NULL (a case without a bias). */
static const q4h_tensor *input_of(const q4h_tensor *t, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i];
    return NULL;
}

static q4h_output *output_of(q4h_outputs *out, const char *name)
{
    for (int i = 0; i < out->n; i++)
        if (!strcmp(out->o[i].name, name))
            return &out->o[i];
    return NULL;
}

/* Drops the outputs the file does not write (requant's other packed layout): only
 * what the kernel produced is judged. */
static void keep_written(const q4h_iface *f, q4h_outputs *out)
{
    int kept = 0;
    for (int i = 0; i < out->n; i++) {
        bool written = false;
        for (int b = 0; b < f->n_buffers; b++)
            written |= f->buffers[b].written &&
                       !strcmp(q4h_if_output_name(&f->op->tensors[f->buffers[b].tensor],
                                                  f->buffers[b].layout), out->o[i].name);
        if (written) {
            out->o[kept++] = out->o[i];
        } else {
            q4h_outputs one = { 1, { out->o[i] } };
            q4h_outputs_free(&one);
        }
    }
    out->n = kept;
}

/* The tensor buffers of the case, with the inputs' contents. */
static q4_status make_buffers(run *r, q4vk_context *ctx, const q4h_op *op, const q4_case *c,
                              const q4_inputs *in, q4h_outputs *out)
{
    const q4h_iface *f = r->f;
    q4h_tensor t[Q4H_MAX_TENSORS];
    const int n_in = op->inputs(c, in, t);
    q4_status st = Q4_OK;
    for (int i = 0; i < f->n_buffers && st == Q4_OK; i++) {
        const q4h_if_buffer *b = &f->buffers[i];
        const q4h_if_tensor *tn = &f->op->tensors[b->tensor];
        int64_t stride = c->n, count = 0;
        char key[112];
        snprintf(key, sizeof key, "%s.row_stride", b->key);
        if (b->row_stride && (st = eval_int(r, b->row_stride, key, c->n, INT32_MAX, &stride)))
            break;
        const q4h_tensor *src = input_of(t, n_in, tn->input);
        const q4h_output *o = output_of(out, q4h_if_output_name(tn, b->layout));
        count = src ? src->rows * src->cols : o ? o->count : c->n;   /* no bias: N zeros */
        r->bytes[i] = q4h_layout_bytes(b->layout, c, count, stride);
        void *data = NULL;
        if (src)
            st = q4h_layout_from(b->layout, src, c, stride, r->bytes[i], &data, r->err);
        else if (tn->input && !(data = calloc(1, r->bytes[i])))
            st = q4_fail(r->err, Q4_ERR_NOMEM, "cannot allocate the zero %s", tn->name);
        if (st == Q4_OK)
            st = q4h_buffer(ctx, data, r->bytes[i], Q4H_GUARD_BYTES, &r->buffers[i], r->err);
        free(data);
    }
    for (int i = 0; i < f->n_scratch && st == Q4_OK; i++) {
        int64_t bytes;
        char key[80];
        snprintf(key, sizeof key, "%s.bytes", f->scratch[i].key);
        if ((st = eval_int(r, f->scratch[i].bytes, key, 1, INT64_MAX - 3, &bytes)))
            break;
        void *zero = calloc(1, (size_t)(bytes + 3) / 4 * 4);
        st = zero ? q4h_buffer(ctx, zero, (size_t)(bytes + 3) / 4 * 4, 0, &r->scratch[i], r->err)
                  : q4_fail(r->err, Q4_ERR_NOMEM, "cannot allocate scratch %s",
                            f->scratch[i].name);
        free(zero);
    }
    return st;
}

/* Step s of the file as a described dispatch for this case. */
static q4_status make_step(run *r, q4vk_context *ctx, int si, q4vk_described_step *d)
{
    const q4h_if_step *s = &r->f->steps[si];
    q4_status st = Q4_OK;
    char key[96];
    *d = (q4vk_described_step){ .kernel = { .name = s->kernel, .spirv = s->words,
                                            .spirv_words = s->n_words,
                                            .n_bindings = (uint32_t)s->n_bind,
                                            .push_bytes = s->push.bytes, .entry = s->entry },
                                .push = r->push[si], .fold = s->fold };
    for (int dim = 0; dim < 3 && st == Q4_OK; dim++) {
        int64_t v;
        snprintf(key, sizeof key, "steps[%d].local_size[%d]", si, dim);
        if ((st = eval_int(r, s->local[dim], key, 1, UINT32_MAX, &v)) || s->local_id[dim] < 0)
            continue;
        d->spec.ids[d->spec.count] = (uint32_t)s->local_id[dim];
        d->spec.values[d->spec.count++] = (uint32_t)v;
    }
    for (int i = 0; i < s->n_spec && st == Q4_OK; i++) {
        snprintf(key, sizeof key, "%s.value", s->spec[i].key);
        d->spec.ids[d->spec.count] = s->spec[i].id;
        st = eval_word(r, s->spec[i].value, key, s->spec[i].type,
                       &d->spec.values[d->spec.count++]);
    }
    if (st == Q4_OK)
        st = eval_fields(r, &s->push, r->push[si]);
    for (int dim = 0; dim < 3 && st == Q4_OK; dim++) {
        int64_t v;
        snprintf(key, sizeof key, "steps[%d].workgroups[%d]", si, dim);
        st = eval_int(r, s->groups[dim], key, 0, INT64_MAX, &v);
        d->groups[dim] = (uint64_t)v;
    }
    for (int b = 0; b < s->n_bind && st == Q4_OK; b++) {
        const q4h_if_binding *bd = &s->bind[b];
        if (bd->kind == Q4H_BIND_UNIFORM) {
            uint8_t data[32 * 16] = { 0 };
            if ((st = eval_fields(r, &bd->uniform, data)) == Q4_OK)
                st = q4h_buffer(ctx, data, (bd->uniform.bytes + 15) / 16 * 16, 0,
                                &r->uniforms[si][b], r->err);
            d->bind[b] = (q4vk_binding){ r->uniforms[si][b], 0, 0 };
            d->kernel.uniform_mask |= 1u << b;
        } else if (bd->kind == Q4H_BIND_SCRATCH) {
            d->bind[b] = (q4vk_binding){ r->scratch[bd->index], 0, 0 };
        } else {
            /* written tensors to the end of their buffer: a stray write lands in the
             * guard words; read ones to exactly their bytes */
            q4vk_buffer *buf = r->buffers[bd->index];
            d->bind[b] = (q4vk_binding){ buf, 0,
                                         bd->access != Q4H_ACCESS_READ
                                             ? q4vk_range_to_end(ctx, buf, 0)
                                             : (r->bytes[bd->index] + 3) / 4 * 4 };
        }
    }
    return st;
}

q4_status q4h_iface_gpu_run(q4vk_context *ctx, const q4h_iface *f, const q4h_op *op,
                            const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                            q4vk_timing *t, q4_error *err)
{
    run *r = calloc(1, sizeof *r);
    if (!r)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory for an interface run");
    r->f = f;
    r->err = err;
    q4h_if_values(f->op, c, in, r->values);
    keep_written(f, out);
    q4_status st = Q4_OK;
    bool bias_bound = false;
    for (int b = 0; b < f->n_buffers; b++)
        bias_bound |= !strcmp(f->op->tensors[f->buffers[b].tensor].name, "bias");
    if (c->bias && !bias_bound)
        st = fail(r, Q4_ERR_UNSUPPORTED, "the file binds no bias, and this case has one");
    q4vk_described_step steps[Q4H_IF_MAX_STEPS];
    if (st == Q4_OK)
        st = make_buffers(r, ctx, op, c, in, out);
    for (int s = 0; s < f->n_steps && st == Q4_OK; s++)
        st = make_step(r, ctx, s, &steps[s]);
    if (st == Q4_OK && (st = q4vk_run_described(ctx, steps, f->n_steps, t, err)) != Q4_OK) {
        char why[Q4_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        fail(r, st, "%.480s", why);
    }
    for (int b = 0; b < f->n_buffers && st == Q4_OK; b++) {
        const q4h_if_buffer *bf = &f->buffers[b];
        q4h_output *o = output_of(out, q4h_if_output_name(&f->op->tensors[bf->tensor],
                                                          bf->layout));
        if (bf->written && o)
            st = q4h_layout_read(ctx, r->buffers[b], bf->layout, c, o, err);
    }
    q4h_buffers_free(ctx, r->buffers, f->n_buffers);
    q4h_buffers_free(ctx, r->scratch, f->n_scratch);
    for (int s = 0; s < f->n_steps; s++)
        q4h_buffers_free(ctx, r->uniforms[s], Q4VK_MAX_BINDINGS);
    free(r);
    return st;
}
