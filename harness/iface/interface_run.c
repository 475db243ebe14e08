/* interface_run.c: one case of an op through a SPIR-V interface file on Vulkan
 * (interface.h): the file's buffers made from the case's tensors (interface_case.c),
 * its expressions evaluated with the case's parameters into uniform buffers, push constants,
 * specialisation constants and group counts, the steps run as described dispatches
 * (gpu/q4vk_described.c), and the outputs read back for the judge exactly as the
 * op's own read would. Any error names the file (and the key, for an expression). */
#include "interface.h"

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
    q4h_if_case k;
    q4vk_buffer *buffers[Q4H_IF_MAX_BUFFERS];
    size_t bytes[Q4H_IF_MAX_BUFFERS];
    q4vk_buffer *scratch[Q4H_IF_MAX_SCRATCH];
    q4vk_buffer *uniforms[Q4H_IF_MAX_STEPS][Q4VK_MAX_BINDINGS];
    uint8_t push[Q4H_IF_MAX_STEPS][128];
} run;

/* The tensor buffers of the case, with the inputs' contents, and the scratch buffers. */
static q4_status make_buffers(run *r, q4vk_context *ctx, q4h_outputs *out)
{
    const q4h_iface *f = r->k.f;
    q4_status st = Q4_OK;
    for (int i = 0; i < f->n_buffers && st == Q4_OK; i++) {
        void *data = NULL;
        if ((st = q4h_if_buffer_data(&r->k, i, out, &data, &r->bytes[i])) == Q4_OK)
            st = q4h_buffer(ctx, data, r->bytes[i], Q4H_GUARD_BYTES, &r->buffers[i], r->k.err);
        free(data);
    }
    for (int i = 0; i < f->n_scratch && st == Q4_OK; i++) {
        size_t bytes;
        if ((st = q4h_if_scratch_bytes(&r->k, i, &bytes)))
            break;
        void *zero = calloc(1, bytes);
        st = zero ? q4h_buffer(ctx, zero, bytes, 0, &r->scratch[i], r->k.err)
                  : q4_fail(r->k.err, Q4_ERR_NOMEM, "cannot allocate scratch %s",
                            f->scratch[i].name);
        free(zero);
    }
    return st;
}

/* Step s of the file as a described dispatch for this case. */
static q4_status make_step(run *r, q4vk_context *ctx, int si, q4vk_described_step *d)
{
    const q4h_if_step *s = &r->k.f->steps[si];
    q4_status st = Q4_OK;
    char key[96];
    *d = (q4vk_described_step){ .kernel = { .name = s->kernel, .spirv = s->words,
                                            .spirv_words = s->n_words,
                                            .n_bindings = (uint32_t)s->n_bind,
                                            .push_bytes = s->push.bytes, .entry = s->entry },
                                .push = r->push[si], .fold = s->fold, .origin = s->origin };
    for (int dim = 0; dim < 3 && st == Q4_OK; dim++) {
        int64_t v;
        snprintf(key, sizeof key, "%ssteps[%d].local_size[%d]", r->k.f->at, si, dim);
        if ((st = q4h_if_eval_int(&r->k, s->local[dim], key, 1, UINT32_MAX, &v)) || s->local_id[dim] < 0)
            continue;
        d->spec.ids[d->spec.count] = (uint32_t)s->local_id[dim];
        d->spec.values[d->spec.count++] = (uint32_t)v;
    }
    for (int i = 0; i < s->n_spec && st == Q4_OK; i++) {
        snprintf(key, sizeof key, "%.89s.value", s->spec[i].key);
        d->spec.ids[d->spec.count] = s->spec[i].id;
        st = q4h_if_eval_word(&r->k, s->spec[i].value, key, s->spec[i].type,
                       &d->spec.values[d->spec.count++]);
    }
    if (st == Q4_OK)
        st = q4h_if_eval_fields(&r->k, &s->push, r->push[si]);
    for (int dim = 0; dim < 3 && st == Q4_OK; dim++) {
        int64_t v;
        snprintf(key, sizeof key, "%ssteps[%d].workgroups[%d]", r->k.f->at, si, dim);
        st = q4h_if_eval_int(&r->k, s->groups[dim], key, 0, INT64_MAX, &v);
        d->groups[dim] = (uint64_t)v;
    }
    for (int b = 0; b < s->n_bind && st == Q4_OK; b++) {
        const q4h_if_binding *bd = &s->bind[b];
        if (bd->kind == Q4H_BIND_UNIFORM) {
            uint8_t data[32 * 16] = { 0 };
            if ((st = q4h_if_eval_fields(&r->k, &bd->uniform, data)) == Q4_OK)
                st = q4h_buffer(ctx, data, (bd->uniform.bytes + 15) / 16 * 16, 0,
                                &r->uniforms[si][b], r->k.err);
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
    const q4vk_device_info *info = q4vk_info(ctx);   /* a case's lowered limits too */
    uint64_t max_bytes = info->max_storage_range;
    if (info->max_alloc_bytes && info->max_alloc_bytes < max_bytes)
        max_bytes = info->max_alloc_bytes;
    q4_status st = q4h_if_case_start(&r->k, f, op, c, in, out, info, max_bytes, err);
    q4vk_described_step steps[Q4H_IF_MAX_STEPS];
    if (st == Q4_OK)
        st = make_buffers(r, ctx, out);
    for (int s = 0; s < f->n_steps && st == Q4_OK; s++)
        st = make_step(r, ctx, s, &steps[s]);
    if (st == Q4_OK && (st = q4vk_run_described(ctx, steps, f->n_steps, t, err)) != Q4_OK) {
        char why[Q4_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        q4h_if_fail(&r->k, st, "%.480s", why);
    }
    for (int b = 0; b < f->n_buffers && st == Q4_OK; b++) {
        q4h_output *o = q4h_if_output_of(f, b, out);
        if (f->buffers[b].written && o)
            st = q4h_layout_read(ctx, r->buffers[b], f, b, r->bytes[b], c, o, err);
    }
    q4h_buffers_free(ctx, r->buffers, f->n_buffers);
    q4h_buffers_free(ctx, r->scratch, f->n_scratch);
    for (int s = 0; s < f->n_steps; s++)
        q4h_buffers_free(ctx, r->uniforms[s], Q4VK_MAX_BINDINGS);
    free(r);
    return st;
}
