/* interface_webgpu.c: one case of an op through a WGSL interface file, on the WebGPU
 * worker (the WebGPU backend; docs/interface-format.md, "WGSL steps"): the file's buffers
 * made from the case's tensors (interface_case.c) as the run message's images, each
 * step's overrides, uniform structs and grid evaluated for the case, and the outputs
 * read back as on Vulkan. Also the check message sent before the first case. */
#include "interface.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_io.h"
#include "wg_images.h"

/* Step s's grid for this case (folded over y where the step allows it), or all zeros
 * when a count is 0 (the step is skipped). */
static q4_status grid(const q4h_if_case *k, int si, uint32_t max, int64_t g[3])
{
    static const char axis[3] = { 'x', 'y', 'z' };
    const q4h_if_step *s = &k->f->steps[si];
    q4_status st = Q4_OK;
    for (int d = 0; d < 3 && st == Q4_OK; d++) {
        char key[64];
        snprintf(key, sizeof key, "%ssteps[%d].workgroups[%d]", k->f->at, si, d);
        st = q4h_if_eval_int(k, s->groups[d], key, 0, INT64_MAX, &g[d]);
    }
    if (st != Q4_OK || !g[0] || !g[1] || !g[2])
        return st;
    if (s->fold && g[1] == 1 && g[2] == 1 && g[0] > max && (g[0] + max - 1) / max <= max) {
        g[1] = (g[0] + max - 1) / max;
        g[0] = max;
    }
    for (int d = 0; d < 3; d++)
        if (g[d] > max)
            return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "kernel %s: %lld workgroups in %c exceed "
                               "maxComputeWorkgroupsPerDimension = %u%s", s->kernel,
                               (long long)g[d], axis[d], max,
                               !s->fold ? " (the kernel does not accept a folded grid)"
                               : d == 0 ? " even folded over y" : "");
    return Q4_OK;
}

/* The step's overrides as the pipeline's constants map; `check`: a constant
 * expression's value, 1 for one that depends on the case (none is known yet). */
static q4_status constants(const q4h_if_case *k, const q4h_if_step *s, bool check,
                           json_object *map)
{
    q4_status st = Q4_OK;
    for (int i = 0; i < s->n_overrides && st == Q4_OK; i++) {
        const q4h_if_override *ov = &s->overrides[i];
        char key[112];
        q4h_xval v;
        json_object *value;
        if (check) {
            /* a value that is not finite is no JSON number: 1 for the check, and the
             * case says why (below) */
            value = !q4h_expr_constant_value(ov->value, &v) ? json_object_new_int(1)
                  : v.type == Q4H_X_INT ? json_object_new_int64(v.i)
                  : isfinite((float)v.r) ? json_object_new_double(v.r) : json_object_new_int(1);
        } else {
            uint32_t word;
            snprintf(key, sizeof key, "%s.value", ov->key);
            if ((st = q4h_if_eval_word(k, ov->value, key, ov->type, &word)))
                break;
            float f;
            memcpy(&f, &word, 4);
            if (ov->type == Q4H_F_FLOAT && !isfinite(f)) {   /* JSON has no NaN or Infinity */
                st = q4h_if_fail(k, Q4_ERR_ARG, "%s: the value %g is not a finite fp32 number",
                                 key, (double)f);
                break;
            }
            value = ov->type == Q4H_F_FLOAT ? json_object_new_double(f)
                  : ov->type == Q4H_F_INT   ? json_object_new_int((int32_t)word)
                                            : json_object_new_int64(word);
        }
        json_object_object_add(map, ov->name, value);
    }
    return st;
}

/* What the worker gets of step si of f besides its bindings (its key names it in the
 * worker's refusals). */
static json_object *step_json(const q4h_iface *f, int si)
{
    const q4h_if_step *s = &f->steps[si];
    json_object *o = json_object_new_object();
    char key[48];
    snprintf(key, sizeof key, "%ssteps[%d]", f->at, si);
    json_object_object_add(o, "key", json_object_new_string(key));
    json_object_object_add(o, "kernel", json_object_new_string(s->kernel));
    json_object_object_add(o, "source", json_object_new_string(s->wgsl));
    json_object_object_add(o, "entry", json_object_new_string(s->entry));
    return o;
}

static json_object *binding_json(const q4h_if_binding *b)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "group", json_object_new_int((int)b->group));
    json_object_object_add(o, "binding", json_object_new_int((int)b->binding));
    return o;
}

json_object *q4h_iface_wg_check(const q4h_iface *f)
{
    json_object *root = json_object_new_object(), *iface = json_object_new_object(),
                *steps = json_object_new_array();
    q4h_if_case k = { .f = f };
    for (int si = 0; si < f->n_steps; si++) {
        const q4h_if_step *s = &f->steps[si];
        json_object *o = step_json(f, si), *consts = json_object_new_object(),
                    *binds = json_object_new_array();
        constants(&k, s, true, consts);
        for (int b = 0; b < s->n_bind; b++) {
            const q4h_if_binding *bd = &s->bind[b];
            json_object *bj = binding_json(bd);
            json_object_object_add(bj, "key", json_object_new_string(bd->key));
            json_object_object_add(bj, "kind", json_object_new_string(
                bd->kind == Q4H_BIND_UNIFORM ? "uniform" : "storage"));
            json_object_object_add(bj, "write", json_object_new_boolean(
                bd->kind == Q4H_BIND_TENSOR && bd->access != Q4H_ACCESS_READ));
            json_object_object_add(bj, "bytes", json_object_new_int((int)bd->uniform.bytes));
            static const char *const types[] = { "int", "uint", "float", "ivec4", "uvec4", "vec4",
                                                 "ivec2", "uvec2", "vec2", "ivec3", "uvec3",
                                                 "vec3" };
            json_object *fields = json_object_new_array();
            for (int i = 0; i < bd->uniform.n; i++) {
                json_object *fj = json_object_new_object();
                json_object_object_add(fj, "name", json_object_new_string(bd->uniform.f[i].name));
                json_object_object_add(fj, "type",
                                       json_object_new_string(types[bd->uniform.f[i].type]));
                json_object_array_add(fields, fj);
            }
            json_object_object_add(bj, "fields", fields);
            json_object_array_add(binds, bj);
        }
        json_object_object_add(o, "constants", consts);
        json_object_object_add(o, "bindings", binds);
        json_object_array_add(steps, o);
    }
    json_object_object_add(iface, "steps", steps);
    json_object_object_add(root, "interface", iface);
    return root;
}

q4_status q4h_iface_wg_case(const q4h_iface *f, const q4h_op *op, const q4_case *c,
                            const q4_inputs *in, q4h_outputs *out,
                            const q4vk_device_info *info, uint32_t max_groups,
                            uint64_t max_bytes, q4h_wg_images *im, json_object **iface,
                            q4_error *err)
{
    q4h_if_case k;
    int scratch = 0;   /* the tensor images come first, then the scratch ones */
    json_object *steps = json_object_new_array();
    q4_status st = q4h_if_case_start(&k, f, op, c, in, out, info, max_bytes, err);
    im->n = 0;
    *iface = NULL;
    for (int i = 0; i < f->n_buffers && st == Q4_OK; i++) {
        void *data = NULL;
        size_t bytes = 0;
        char name[48];
        snprintf(name, sizeof name, "%s.%s", f->op->tensors[f->buffers[i].tensor].name,
                 q4h_layout_name(f->buffers[i].layout));
        if ((st = q4h_if_buffer_data(&k, i, out, &data, &bytes)) == Q4_OK &&
            (st = q4h_wg_image_add(im, name, data, bytes, Q4H_GUARD_BYTES, false, err)) == Q4_OK)
            im->out[im->n - 1] = f->buffers[i].written;
        free(data);
    }
    scratch = im->n;
    for (int i = 0; i < f->n_scratch && st == Q4_OK; i++) {
        size_t bytes = 0;
        if ((st = q4h_if_scratch_bytes(&k, i, &bytes)) == Q4_OK &&
            (st = q4h_wg_image_add(im, f->scratch[i].name, NULL, bytes, 0, true, err)) == Q4_OK)
            im->out[im->n - 1] = false;   /* not judged */
    }
    for (int si = 0; si < f->n_steps && st == Q4_OK; si++) {
        const q4h_if_step *s = &f->steps[si];
        int64_t g[3];
        json_object *o = step_json(f, si), *consts = json_object_new_object(),
                    *binds = json_object_new_array(), *groups = json_object_new_array();
        json_object_object_add(o, "constants", consts);
        json_object_object_add(o, "bindings", binds);
        json_object_object_add(o, "groups", groups);
        if ((st = constants(&k, s, false, consts)) || (st = grid(&k, si, max_groups, g)) ||
            !g[0] || !g[1] || !g[2]) {
            json_object_put(o);   /* a failure, or a step with no work: skipped */
            continue;
        }
        json_object_array_add(steps, o);
        for (int d = 0; d < 3; d++)
            json_object_array_add(groups, json_object_new_int64(g[d]));
        for (int b = 0; b < s->n_bind && st == Q4_OK; b++) {
            const q4h_if_binding *bd = &s->bind[b];
            json_object *bj = binding_json(bd);
            const int image = bd->kind == Q4H_BIND_TENSOR ? bd->index
                      : bd->kind == Q4H_BIND_SCRATCH ? scratch + bd->index : im->n;
            if (bd->kind == Q4H_BIND_UNIFORM) {
                uint8_t data[32 * 16] = { 0 };
                char name[48];
                snprintf(name, sizeof name, "steps[%d] uniform %u:%u", si, bd->group, bd->binding);
                if ((st = q4h_if_eval_fields(&k, &bd->uniform, data)) == Q4_OK &&
                    (st = q4h_wg_image_add(im, name, data, bd->uniform.bytes, 0, false, err)) == Q4_OK)
                    im->uniform[image] = true, im->out[image] = false;
            }
            if (st != Q4_OK) {
                json_object_put(bj);
                break;
            }
            /* written tensors to the end of their buffer: a stray write lands in the
             * guard words; read ones to exactly their bytes */
            const uint64_t size = bd->kind == Q4H_BIND_TENSOR && bd->access == Q4H_ACCESS_READ
                                      ? (im->data[image] + 3) / 4 * 4 : im->total[image];
            json_object_object_add(bj, "buffer", json_object_new_int(image));
            json_object_object_add(bj, "size", json_object_new_int64((int64_t)size));
            json_object_array_add(binds, bj);
        }
    }
    if (st == Q4_OK) {
        *iface = json_object_new_object();
        json_object_object_add(*iface, "steps", steps);
    } else {
        json_object_put(steps);
        q4h_wg_images_free(im);
    }
    return st;
}

q4_status q4h_iface_wg_read(const q4h_iface *f, const q4_case *c, const q4h_host_buffer *b,
                            q4h_outputs *out, q4_error *err)
{
    q4_status st = Q4_OK;
    for (int i = 0; i < f->n_buffers && st == Q4_OK; i++) {
        q4h_output *o = q4h_if_output_of(f, i, out);
        if (f->buffers[i].written && o)
            st = q4h_layout_read_host(&b[i], f, i, c, o, err);
    }
    return st;
}
