/* interface_case.c: what one case of an interface file needs on either API
 * (interface_run.c on Vulkan, interface_webgpu.c on WebGPU): the case's values of the
 * file's names, its expressions evaluated into integers, 32-bit words and typed fields,
 * the contents of the file's tensor buffers made from the case's tensors
 * (interface_layout.c), scratch sizes, and which outputs the file writes. Every error
 * names the file and the key of the expression. */
#include "interface.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

q4_status q4h_if_fail(const q4h_if_case *k, q4_status st, const char *fmt, ...)
{
    char shown[Q4_ECHO_MAX], text[Q4_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return q4_fail(k->err, st, "%s: %s", q4_echo(k->f->path, shown, sizeof shown), text);
}

q4_status q4h_if_eval_int(const q4h_if_case *k, const q4h_expr *e, const char *key, int64_t lo,
                          int64_t hi, int64_t *out)
{
    char msg[Q4_MSG_MAX];
    q4h_xval v;
    if (!q4h_expr_eval(e, k->values, &v, msg, sizeof msg))
        return q4h_if_fail(k, Q4_ERR_ARG, "%s: %s", key, msg);
    if (v.i < lo || v.i > hi)
        return q4h_if_fail(k, Q4_ERR_ARG, "%s: the value %lld is outside [%lld, %lld] for this "
                           "case", key, (long long)v.i, (long long)lo, (long long)hi);
    *out = v.i;
    return Q4_OK;
}

q4_status q4h_if_eval_word(const q4h_if_case *k, const q4h_expr *e, const char *key,
                           q4h_ftype t, void *dst)
{
    int64_t i;
    q4_status st = Q4_OK;
    t = q4h_ftype_base(t);
    if (t == Q4H_F_FLOAT) {
        char msg[Q4_MSG_MAX];
        q4h_xval v;
        if (!q4h_expr_eval(e, k->values, &v, msg, sizeof msg))
            return q4h_if_fail(k, Q4_ERR_ARG, "%s: %s", key, msg);
        if (fabs(q4h_xval_real(v)) > FLT_MAX)   /* (float) would make it inf */
            return q4h_if_fail(k, Q4_ERR_ARG, "%s: the value %g is beyond the range of fp32",
                               key, q4h_xval_real(v));
        float x = (float)q4h_xval_real(v);
        memcpy(dst, &x, 4);
    } else if (t == Q4H_F_INT) {
        if ((st = q4h_if_eval_int(k, e, key, INT32_MIN, INT32_MAX, &i)) == Q4_OK) {
            int32_t x = (int32_t)i;
            memcpy(dst, &x, 4);
        }
    } else if ((st = q4h_if_eval_int(k, e, key, 0, UINT32_MAX, &i)) == Q4_OK) {
        uint32_t x = (uint32_t)i;
        memcpy(dst, &x, 4);
    }
    return st;
}

q4_status q4h_if_eval_fields(const q4h_if_case *k, const q4h_if_fields *fs, uint8_t *dst)
{
    q4_status st = Q4_OK;
    for (int i = 0; i < fs->n && st == Q4_OK; i++) {
        const q4h_if_field *fd = &fs->f[i];
        const int n = q4h_ftype_n(fd->type);
        for (int c = 0; c < n && st == Q4_OK; c++) {
            char key[112];
            snprintf(key, sizeof key, n == 1 ? "%s.value" : "%s.value[%d]", fd->key, c);
            st = q4h_if_eval_word(k, fd->value[c], key, fd->type, dst + fd->offset + 4 * c);
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

q4h_output *q4h_if_output_of(const q4h_iface *f, int buffer, q4h_outputs *out)
{
    const q4h_if_buffer *b = &f->buffers[buffer];
    const char *name = q4h_if_output_name(&f->op->tensors[b->tensor], b->layout);
    for (int i = 0; name && i < out->n; i++)
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
            q4h_outputs one = { .n = 1, .o = { out->o[i] } };
            q4h_outputs_free(&one);
        }
    }
    out->n = kept;
}

void q4h_if_all_values(const q4h_iface *f, const q4_case *c, const q4_inputs *in,
                       const q4vk_device_info *info, uint64_t max_bytes,
                       q4h_xval values[Q4H_IF_MAX_ALL_NAMES])
{
    static const q4_inputs none;
    q4h_if_values(f->op, c, in ? in : &none, values);
    if (f->dims_at >= 0) {   /* rank, d0..d3: the activation's leading dims, 1 past rank */
        const int rank = c->nlead > 0 ? c->nlead : 1;
        values[f->dims_at] = (q4h_xval){ Q4H_X_INT, rank, 0 };
        for (int d = 0; d < 4; d++)
            values[f->dims_at + 1 + d] = (q4h_xval){
                Q4H_X_INT, d >= rank ? 1 : c->nlead > 0 ? c->lead[d] : c->m, 0 };
    }
    /* the device's limits, lowered by the case's own (family small_device) */
    uint64_t lim[6] = { 0 };
    if (info) {
        for (int d = 0; d < 3; d++)   /* WebGPU: one limit for every dimension */
            lim[d] = info->max_group_count[d] ? info->max_group_count[d]
                                              : info->max_group_count[0];
        lim[3] = info->max_invocations;
        lim[4] = info->max_shared_bytes;
        lim[5] = max_bytes;
    }
    const int64_t lower[6] = { c->limit[Q4_LIMIT_GROUPS], c->limit[Q4_LIMIT_GROUPS],
                               c->limit[Q4_LIMIT_GROUPS], c->limit[Q4_LIMIT_INVOCATIONS],
                               c->limit[Q4_LIMIT_SHARED], c->limit[Q4_LIMIT_BINDING] };
    for (int i = 0; i < 6; i++) {
        if (lower[i] > 0 && (!info || (uint64_t)lower[i] < lim[i]))
            lim[i] = (uint64_t)lower[i];
        values[f->limits_at + i] = (q4h_xval){ Q4H_X_INT, (int64_t)(lim[i] > INT64_MAX ?
                                                                    INT64_MAX : lim[i]), 0 };
    }
}

bool q4h_if_precluded(const q4h_iface *f, const q4_case *c, int *which)
{
    q4h_xval values[Q4H_IF_MAX_ALL_NAMES], v;
    char msg[Q4_MSG_MAX];
    q4h_if_all_values(f, c, NULL, NULL, 0, values);
    *which = -1;
    for (int i = 0; i < f->n_requires; i++)
        if (!f->requires[i].device && q4h_expr_eval(f->requires[i].cond, values, &v, msg,
                                                    sizeof msg) && v.i == 0) {
            *which = i;
            return true;
        }
    return false;
}

q4_status q4h_if_case_start(q4h_if_case *k, const q4h_iface *f, const q4h_op *op,
                            const q4_case *c, const q4_inputs *in, q4h_outputs *out,
                            const q4vk_device_info *info, uint64_t max_bytes, q4_error *err)
{
    *k = (q4h_if_case){ .f = f, .op = op, .c = c, .in = in, .max_bytes = max_bytes, .err = err };
    q4h_if_all_values(f, c, in, info, max_bytes, k->values);
    /* the kernel's own contract first: nothing is made for a case outside it */
    for (int i = 0; i < f->n_requires; i++) {
        char key[64];
        int64_t holds;
        snprintf(key, sizeof key, "%s.condition", f->requires[i].key);
        q4_status st = q4h_if_eval_int(k, f->requires[i].cond, key, INT64_MIN, INT64_MAX, &holds);
        if (st != Q4_OK)
            return st;
        if (!holds)
            return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "%s: %s", f->requires[i].key,
                               f->requires[i].message);
    }
    keep_written(f, out);
    bool bias_bound = false;
    for (int b = 0; b < f->n_buffers; b++) {
        const bool bias = !strcmp(f->op->tensors[f->buffers[b].tensor].name, "bias");
        bias_bound |= bias;
        if (bias && !c->bias && f->buffers[b].required)
            return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "%s.optional: the kernel needs a bias "
                               "(the file binds it \"optional\": false), and this case has none",
                               f->buffers[b].key);
    }
    if (c->bias && !bias_bound)
        return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "%.*s%sthe file binds no bias, and this case "
                           "has one", f->at[0] ? (int)strlen(f->at) - 1 : 0, f->at,
                           f->at[0] ? ": " : "");   /* in a set, "ops[I]: " */
    return Q4_OK;
}

q4_status q4h_if_buffer_data(const q4h_if_case *k, int i, q4h_outputs *out, void **data,
                             size_t *bytes)
{
    const q4h_iface *f = k->f;
    const q4h_if_buffer *b = &f->buffers[i];
    const q4h_if_tensor *tn = &f->op->tensors[b->tensor];
    q4h_tensor t[Q4H_MAX_TENSORS];
    const int n_in = k->op->inputs(k->c, k->in, t);
    const bool flat = b->layout == Q4H_LAYOUT_FLAT;
    const int64_t least = flat ? (k->c->k + 1) / 2 : k->c->n;   /* bytes or floats per row */
    int64_t stride = least;
    char key[112];
    *data = NULL;
    snprintf(key, sizeof key, "%s.row_stride", b->key);
    q4_status st = b->row_stride ? q4h_if_eval_int(k, b->row_stride, key, least, INT32_MAX,
                                                   &stride) : Q4_OK;
    if (st != Q4_OK)
        return st;
    /* The file's row_stride sizes the scales buffer: checked against the device, without
     * overflow, before any memory is taken (the case's own sizes are the op's). */
    uint64_t need;
    if (b->layout == Q4H_LAYOUT_SCALES &&
        (__builtin_mul_overflow((uint64_t)(k->c->k / k->c->gs), (uint64_t)stride, &need) ||
         __builtin_mul_overflow(need, (uint64_t)sizeof(float), &need) || need > k->max_bytes))
        return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "%s: a row stride of %lld makes the scales "
                           "buffer longer than the %llu bytes the device binds", key,
                           (long long)stride, (unsigned long long)k->max_bytes);
    if (flat && b->row_stride &&
        (__builtin_mul_overflow((uint64_t)k->c->n, (uint64_t)stride, &need) ||
         need > k->max_bytes))
        return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "%s: a row stride of %lld makes the flat "
                           "weight longer than the %llu bytes the device binds", key,
                           (long long)stride, (unsigned long long)k->max_bytes);
    const q4h_tensor *src = input_of(t, n_in, tn->input);
    const q4h_output *o = q4h_if_output_of(f, i, out);
    const int64_t count = src ? src->rows * src->cols : o ? o->count : k->c->n;   /* no bias: N zeros */
    *bytes = q4h_layout_bytes(b->layout, k->c, count, stride);
    if (src)
        return q4h_layout_from(b->layout, src, k->c, stride, q4h_if_buffer_padding(b), *bytes,
                               data, k->err);
    if (tn->input && !(*data = calloc(1, *bytes ? *bytes : 1)))
        return q4_fail(k->err, Q4_ERR_NOMEM, "cannot allocate the zero %s", tn->name);
    /* an output: the sentinel, and the padding of padded rows, checked after the run */
    return tn->input ? Q4_OK : q4h_layout_blank(b, k->c, stride, *bytes, data, k->err);
}

q4_status q4h_if_scratch_bytes(const q4h_if_case *k, int i, size_t *bytes)
{
    int64_t v;
    char key[80];
    snprintf(key, sizeof key, "%s.bytes", k->f->scratch[i].key);
    q4_status st = q4h_if_eval_int(k, k->f->scratch[i].bytes, key, 1, INT64_MAX - 3, &v);
    *bytes = 0;
    if (st == Q4_OK && (uint64_t)(v + 3) / 4 * 4 > k->max_bytes)   /* before it is allocated */
        return q4h_if_fail(k, Q4_ERR_UNSUPPORTED, "%s: %lld bytes of scratch are more than the "
                           "%llu bytes the device binds", key, (long long)v,
                           (unsigned long long)k->max_bytes);
    *bytes = st == Q4_OK ? (size_t)(v + 3) / 4 * 4 : 0;
    return st;
}
