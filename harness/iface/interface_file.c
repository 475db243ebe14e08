/* interface_file.c: reading an interface file (docs/interface-format.md) with json-c
 * into a q4h_iface, with every rule of "What is checked" that needs no module: keys,
 * types, tensors, layouts, accesses, expressions, bindings and scratch buffers; then
 * each step's module is checked by interface_module.c. A kernel set's file holds one
 * such description per op ("ops"), each read the same way, its key paths starting
 * "ops[I].". Every message starts with "PATH: KEY-PATH:". Order: messages and JSON
 * helpers, expressions and fields, bindings, steps, the op's whole-op rules, one op,
 * a set, load and free. */
#include "interface.h"

#include <errno.h>
#include <float.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "json_text.h"

typedef struct reader {
    const char *path;
    char dir[512];             /* the file's folder, with its '/' ("" for none) */
    q4h_iface *f;
    bool wgsl;                 /* the step being read is a WGSL step */
    q4_error *err;
} reader;

static q4_status bad(reader *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static q4_status bad(reader *r, const char *key, const char *fmt, ...)
{
    char shown[Q4_ECHO_MAX], text[Q4_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return q4_fail(r->err, Q4_ERR_ARG, "%s: %s: %s", q4_echo(r->path, shown, sizeof shown), key,
                   text);
}

/* KEY as a key path of the file: "ops[I].KEY" for an op of a set. Every key of an op
 * is made from one of these roots, so its stored keys (fields, bindings, buffers)
 * name their place in a set too. */
static const char *at(const reader *r, char *buf, size_t size, const char *key)
{
    snprintf(buf, size, "%s%s", r->f->at, key);
    return buf;
}

/* Refuses keys of obj outside `allowed` and a missing one of `required` (both
 * NULL-terminated). */
static q4_status keys(reader *r, const char *key, json_object *obj, const char *const *allowed,
                      const char *const *required)
{
    json_object_object_foreach(obj, k, v) {
        (void)v;
        int i = 0;
        while (allowed[i] && strcmp(allowed[i], k))
            i++;
        if (!allowed[i]) {
            char list[256] = "", shown[Q4_ECHO_MAX];
            for (int j = 0; allowed[j]; j++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", allowed[j]);
            }
            return bad(r, key, "unknown key \"%s\" (expected: %s)", q4_echo(k, shown, sizeof shown),
                       list);
        }
    }
    for (int i = 0; required[i]; i++)
        if (!json_object_object_get_ex(obj, required[i], NULL))
            return bad(r, key, "missing key \"%s\"", required[i]);
    return Q4_OK;
}

static q4_status want_type(reader *r, const char *key, json_object *v, json_type t)
{
    if (json_object_get_type(v) == t)
        return Q4_OK;
    return bad(r, key, "expected %s %s, got %s", t == json_type_array || t == json_type_object
               ? "an" : "a", json_type_to_name(t), json_type_to_name(json_object_get_type(v)));
}

/* A string member into dst; `what` says what it must be. */
static q4_status get_string(reader *r, const char *key, json_object *v, char *dst, size_t size)
{
    q4_status st = want_type(r, key, v, json_type_string);
    if (st == Q4_OK && (json_object_get_string_len(v) == 0 ||
                        (size_t)json_object_get_string_len(v) >= size))
        return bad(r, key, "expected 1 to %zu characters, got %d", size - 1,
                   json_object_get_string_len(v));
    if (st == Q4_OK)
        snprintf(dst, size, "%s", json_object_get_string(v));
    return st;
}

/* An integer member in [lo, hi]. */
static q4_status get_int(reader *r, const char *key, json_object *v, int64_t lo, int64_t hi,
                         int64_t *out)
{
    q4_status st = want_type(r, key, v, json_type_int);
    if (st == Q4_OK) {
        errno = 0;
        *out = json_object_get_int64(v);
        if (errno || *out < lo || *out > hi)
            return bad(r, key, "expected an integer from %lld to %lld", (long long)lo,
                       (long long)hi);
    }
    return st;
}

/* A name of a step or scratch buffer: 1-31 of [a-z0-9_]. */
static q4_status get_name(reader *r, const char *key, json_object *v, char dst[32])
{
    q4_status st = get_string(r, key, v, dst, 32);
    for (const char *c = dst; st == Q4_OK && *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')
            continue;
        char one[2] = { *c, 0 }, shown[8];   /* a raw byte escaped, as every echo */
        return bad(r, key, "'%s' is not allowed in a name (use a-z, 0-9 and _)",
                   q4_echo(one, shown, sizeof shown));
    }
    return st;
}

/* Index of s in list (NULL-terminated), or -1 with an error naming the choices. */
static int choice(reader *r, const char *key, json_object *v, const char *const *list,
                  const char *what)
{
    char text[64];
    if (get_string(r, key, v, text, sizeof text) != Q4_OK)
        return -1;
    char all[256] = "";
    for (int i = 0; list[i]; i++) {
        if (!strcmp(list[i], text))
            return i;
        size_t len = strlen(all);
        snprintf(all + len, sizeof all - len, "%s\"%s\"", i ? ", " : "", list[i]);
    }
    char shown[Q4_ECHO_MAX];
    bad(r, key, "unknown %s \"%s\" (expected one of %s)", what,
        q4_echo(text, shown, sizeof shown), all);
    return -1;
}

/* ---------------- expressions and typed fields ---------------- */

/* An expression (a string) or a JSON number; `integer`: its value must be an integer. */
static q4_status get_expr(reader *r, const char *key, json_object *v, bool integer,
                          q4h_expr **out)
{
    char msg[Q4_MSG_MAX];
    *out = NULL;
    switch (json_object_get_type(v)) {
    case json_type_int:
        errno = 0;
        *out = q4h_expr_constant((q4h_xval){ Q4H_X_INT, json_object_get_int64(v), 0 });
        if (errno)
            return bad(r, key, "the integer does not fit in 64 bits");
        break;
    case json_type_double:
        *out = q4h_expr_constant((q4h_xval){ Q4H_X_REAL, 0, json_object_get_double(v) });
        break;
    case json_type_string:
        if (!q4h_expr_parse(json_object_get_string(v), r->f->names, r->f->n_names, out, msg,
                            sizeof msg))
            return bad(r, key, "bad expression: %s", msg);
        break;
    default:
        return bad(r, key, "expected a number or an expression string, got %s",
                   json_type_to_name(json_object_get_type(v)));
    }
    if (!*out)
        return q4_fail(r->err, Q4_ERR_NOMEM, "out of memory reading %s", key);
    if (integer && q4h_expr_type(*out) != Q4H_X_INT)
        return bad(r, key, "the value is real where an integer is needed");
    return Q4_OK;
}

static const char *const ftypes[] = { "int", "uint", "float", "ivec4", "uvec4", "vec4", "ivec2",
                                      "uvec2", "vec2", "ivec3", "uvec3", "vec3", NULL };

static q4_status get_fields(reader *r, const char *key, json_object *arr, q4h_if_fields *out)
{
    static const char *const allowed[] = { "name", "type", "value", NULL };
    q4_status st = want_type(r, key, arr, json_type_array);
    size_t n = st == Q4_OK ? json_object_array_length(arr) : 0;
    if (st == Q4_OK && n > 32)
        return bad(r, key, "%zu fields; at most 32 are allowed", n);
    if (n && !(out->f = calloc(n, sizeof *out->f)))
        return q4_fail(r->err, Q4_ERR_NOMEM, "out of memory reading %s", key);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *v;
        q4h_if_field *fd = &out->f[out->n++];
        char fkey[128];
        snprintf(fd->key, sizeof fd->key, "%.70s[%d]", key, (int)i);
        if ((st = want_type(r, fd->key, o, json_type_object)) ||
            (st = keys(r, fd->key, o, allowed, allowed)))
            break;
        snprintf(fkey, sizeof fkey, "%.80s.name", fd->key);
        json_object_object_get_ex(o, "name", &v);
        if ((st = get_string(r, fkey, v, fd->name, sizeof fd->name)))
            break;
        snprintf(fkey, sizeof fkey, "%.80s.type", fd->key);
        json_object_object_get_ex(o, "type", &v);
        int t = choice(r, fkey, v, ftypes, "field type");
        if (t < 0)
            return r->err->status;
        fd->type = (q4h_ftype)t;
        const int nc = q4h_ftype_n(fd->type);
        const bool integer = q4h_ftype_base(fd->type) != Q4H_F_FLOAT;
        const uint32_t align = q4h_ftype_align(fd->type);
        fd->offset = (out->bytes + align - 1) / align * align;
        out->bytes = fd->offset + 4u * (uint32_t)nc;
        snprintf(fkey, sizeof fkey, "%.80s.value", fd->key);
        json_object_object_get_ex(o, "value", &v);
        if (nc == 1) {
            st = get_expr(r, fkey, v, integer, &fd->value[0]);
        } else if (json_object_get_type(v) != json_type_array ||
                   json_object_array_length(v) != (size_t)nc) {
            st = bad(r, fkey, "a %s takes an array of %d values", ftypes[t], nc);
        } else {
            for (int c = 0; c < nc && st == Q4_OK; c++) {
                char ckey[144];
                snprintf(ckey, sizeof ckey, "%.80s[%d]", fkey, c);
                st = get_expr(r, ckey, json_object_array_get_idx(v, (size_t)c), integer,
                              &fd->value[c]);
            }
        }
    }
    return st;
}

/* ---------------- bindings ---------------- */

static const char *const layouts[] = { "fp32", "int32", "w4x8", "flat", "scales", NULL };
static const char *const accesses[] = { "read", "write", "read_write", NULL };

/* The buffer of (tensor t, layout l, stride text), added on first use. */
static q4_status buffer_of(reader *r, const char *key, int t, q4h_layout l, json_object *stride,
                           const char *text, int *index)
{
    q4h_iface *f = r->f;
    for (int i = 0; i < f->n_buffers; i++)
        if (f->buffers[i].tensor == t && f->buffers[i].layout == l &&
            !strcmp(f->buffers[i].stride_text, text)) {
            *index = i;
            return Q4_OK;
        }
    if (f->n_buffers == Q4H_IF_MAX_BUFFERS)
        return bad(r, key, "more than %d distinct tensor buffers", Q4H_IF_MAX_BUFFERS);
    q4h_if_buffer *b = &f->buffers[f->n_buffers];
    *b = (q4h_if_buffer){ .tensor = t, .layout = l };
    snprintf(b->stride_text, sizeof b->stride_text, "%s", text);
    snprintf(b->key, sizeof b->key, "%s", key);
    q4_status st = Q4_OK;
    if (stride) {
        char skey[96];
        snprintf(skey, sizeof skey, "%.80s.row_stride", key);
        st = get_expr(r, skey, stride, true, &b->row_stride);
    }
    *index = f->n_buffers++;   /* owned by f from here, even on error */
    return st;
}

static q4_status tensor_binding(reader *r, const char *key, json_object *o, q4h_if_binding *b)
{
    static const char *const allowed[] = { "binding", "set", "group", "tensor", "layout",
                                           "access", "row_stride", "padding", "optional",
                                           NULL };
    static const char *const required[] = { "binding", "tensor", "layout", "access", NULL };
    const q4h_if_op *op = r->f->op;
    json_object *v, *stride = NULL;
    char name[32], k[96];
    q4_status st = keys(r, key, o, allowed, required);
    snprintf(k, sizeof k, "%.80s.tensor", key);
    json_object_object_get_ex(o, "tensor", &v);
    if (st || (st = get_string(r, k, v, name, sizeof name)))
        return st;
    int t = 0;
    while (t < op->n_tensors && strcmp(op->tensors[t].name, name))
        t++;
    if (t == op->n_tensors) {
        char list[128] = "";
        for (int i = 0; i < op->n_tensors; i++) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", op->tensors[i].name);
        }
        char shown[Q4_ECHO_MAX];
        return bad(r, k, "op %s has no tensor \"%s\" (its tensors: %s)", op->op,
                   q4_echo(name, shown, sizeof shown), list);
    }
    const q4h_if_tensor *tn = &op->tensors[t];
    snprintf(k, sizeof k, "%.80s.layout", key);
    json_object_object_get_ex(o, "layout", &v);
    int l = choice(r, k, v, layouts, "layout");
    if (l < 0)
        return r->err->status;
    if (!(tn->layouts >> l & 1)) {
        char list[96] = "";
        for (int i = 0; i < Q4H_LAYOUT_COUNT; i++)
            if (tn->layouts >> i & 1) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s\"%s\"", len ? " or " : "", layouts[i]);
            }
        return bad(r, k, "tensor %s of op %s cannot have layout \"%s\" (expected %s)", name,
                   op->op, layouts[l], list);
    }
    snprintf(k, sizeof k, "%.80s.access", key);
    json_object_object_get_ex(o, "access", &v);
    int a = choice(r, k, v, accesses, "access");
    if (a < 0)
        return r->err->status;
    b->access = (q4h_access)a;
    if ((tn->role == Q4H_ROLE_IN || tn->role == Q4H_ROLE_IN_OPTIONAL) && a != Q4H_ACCESS_READ)
        return bad(r, k, "tensor %s is an input of op %s: its access must be \"read\"", name,
                   op->op);
    if (tn->role == Q4H_ROLE_INOUT && a != Q4H_ACCESS_READ_WRITE)
        return bad(r, k, "op %s updates tensor %s in place: its access must be \"read_write\"",
                   op->op, name);
    if (json_object_object_get_ex(o, "row_stride", &stride) && l != Q4H_LAYOUT_SCALES &&
        l != Q4H_LAYOUT_FLAT) {
        snprintf(k, sizeof k, "%.80s.row_stride", key);
        return bad(r, k, "only layouts \"scales\" and \"flat\" have a row stride");
    }
    /* "padding": what fills each row past its data; a JSON number (scales: a finite
     * float, default NaN; flat: a byte 0..255, default 0xff). A written flat weight's
     * padding holds it before the run and must still hold it after (interface_layout.c) */
    json_object *pad = NULL;
    double padding = 0;
    if (json_object_object_get_ex(o, "padding", &pad)) {
        snprintf(k, sizeof k, "%.80s.padding", key);
        if (!stride)
            return bad(r, k, "padding fills the rows of a row stride: give \"row_stride\" too");
        json_type jt = json_object_get_type(pad);
        if (jt != json_type_int && jt != json_type_double)
            return bad(r, k, "expected a number, got %s", json_type_to_name(jt));
        padding = json_object_get_double(pad);
        if (l == Q4H_LAYOUT_FLAT &&
            (jt != json_type_int || padding < 0 || padding > 255))
            return bad(r, k, "a flat weight's padding is a byte: an integer 0 to 255");
        if (l == Q4H_LAYOUT_SCALES && !(fabs(padding) <= FLT_MAX))
            return bad(r, k, "the padding of scales is a finite fp32 value (NaN is the default)");
    }
    char text[Q4H_EXPR_MAX_CHARS + 1];
    snprintf(text, sizeof text, "%s%s%s", stride ? json_object_to_json_string(stride) : "",
             pad ? " padding " : "", pad ? json_object_to_json_string(pad) : "");
    /* "optional": true (the default for an optional tensor): a case without the tensor
     * gets a buffer of zeros; false: the kernel needs it, a case without it is
     * NotSupported. Only an optional tensor of the op may say either. */
    bool optional = tn->role == Q4H_ROLE_IN_OPTIONAL;
    if (json_object_object_get_ex(o, "optional", &v)) {
        snprintf(k, sizeof k, "%.80s.optional", key);
        if ((st = want_type(r, k, v, json_type_boolean)))
            return st;
        if (tn->role != Q4H_ROLE_IN_OPTIONAL)
            return bad(r, k, "tensor %s of op %s is not optional: every case has it", name,
                       op->op);
        optional = json_object_get_boolean(v);
    }
    b->kind = Q4H_BIND_TENSOR;
    st = buffer_of(r, key, t, (q4h_layout)l, stride, text, &b->index);
    if (st == Q4_OK && pad) {
        r->f->buffers[b->index].has_padding = true;
        r->f->buffers[b->index].padding = padding;
    }
    if (st == Q4_OK && a != Q4H_ACCESS_READ)
        r->f->buffers[b->index].written = true;
    if (st == Q4_OK && tn->role == Q4H_ROLE_IN_OPTIONAL) {
        q4h_if_buffer *buf = &r->f->buffers[b->index];
        buf->optional = true;
        if (!optional && !buf->required) {
            buf->required = true;
            snprintf(buf->key, sizeof buf->key, "%s", key);
        }
    }
    return st;
}

static q4_status scratch_binding(reader *r, const char *key, json_object *o, q4h_if_binding *b)
{
    static const char *const allowed[] = { "binding", "set", "group", "scratch", NULL };
    static const char *const required[] = { "binding", "scratch", NULL };
    json_object *v;
    char name[32], k[96];
    q4_status st = keys(r, key, o, allowed, required);
    snprintf(k, sizeof k, "%.80s.scratch", key);
    json_object_object_get_ex(o, "scratch", &v);
    if (st || (st = get_string(r, k, v, name, sizeof name)))
        return st;
    for (int i = 0; i < r->f->n_scratch; i++)
        if (!strcmp(r->f->scratch[i].name, name)) {
            b->kind = Q4H_BIND_SCRATCH;
            b->index = i;
            b->access = Q4H_ACCESS_READ_WRITE;
            return Q4_OK;
        }
    char shown[Q4_ECHO_MAX];
    return bad(r, k, "no scratch buffer \"%s\" is declared (top-level \"scratch\")",
               q4_echo(name, shown, sizeof shown));
}

static q4_status uniform_binding(reader *r, const char *key, json_object *o, q4h_if_binding *b)
{
    static const char *const allowed[] = { "binding", "set", "group", "uniform", NULL };
    static const char *const required[] = { "binding", "uniform", NULL };
    json_object *v;
    char k[96];
    q4_status st = keys(r, key, o, allowed, required);
    snprintf(k, sizeof k, "%.80s.uniform", key);
    json_object_object_get_ex(o, "uniform", &v);
    b->kind = Q4H_BIND_UNIFORM;
    b->access = Q4H_ACCESS_READ;
    if (st == Q4_OK && (st = get_fields(r, k, v, &b->uniform)) == Q4_OK && b->uniform.n == 0)
        st = bad(r, k, "a uniform buffer needs at least one field");
    /* WGSL: a struct's size is its end rounded up to its largest member alignment */
    uint32_t align = 4;
    for (int i = 0; st == Q4_OK && r->wgsl && i < b->uniform.n; i++)
        if (q4h_ftype_align(b->uniform.f[i].type) > align)
            align = q4h_ftype_align(b->uniform.f[i].type);
    b->uniform.bytes = (b->uniform.bytes + align - 1) / align * align;
    return st;
}

static q4_status get_bindings(reader *r, const char *key, json_object *arr, q4h_if_step *s)
{
    q4_status st = want_type(r, key, arr, json_type_array);
    size_t n = st == Q4_OK ? json_object_array_length(arr) : 0;
    uint32_t seen = 0;
    if (r->wgsl && n > Q4VK_MAX_BINDINGS)
        return bad(r, key, "%zu bindings; at most %d are allowed", n, Q4VK_MAX_BINDINGS);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *v;
        char k[96], kk[128];
        int64_t num, group = 0;
        snprintf(k, sizeof k, "%.60s[%zu]", key, i);
        if ((st = want_type(r, k, o, json_type_object)))
            break;
        snprintf(kk, sizeof kk, "%.80s.%s", k, r->wgsl ? "set" : "group");
        if (json_object_object_get_ex(o, r->wgsl ? "set" : "group", NULL))
            return bad(r, kk, r->wgsl ? "\"set\" is a SPIR-V step's key; a WGSL binding names its "
                       "\"group\"" : "\"group\" is a WGSL step's key; a SPIR-V binding is in "
                       "descriptor set 0");
        snprintf(kk, sizeof kk, "%.80s.set", k);
        if (json_object_object_get_ex(o, "set", &v) && (st = get_int(r, kk, v, 0, 0, &num)))
            return bad(r, kk, "only descriptor set 0 is allowed (q4cts's probes use set 1)");
        /* WebGPU's guaranteed maxBindGroups and maxBindingsPerBindGroup */
        snprintf(kk, sizeof kk, "%.80s.group", k);
        if (json_object_object_get_ex(o, "group", &v) && (st = get_int(r, kk, v, 0, 3, &group)))
            break;
        snprintf(kk, sizeof kk, "%.80s.binding", k);
        if (!json_object_object_get_ex(o, "binding", &v))
            return bad(r, k, "missing key \"binding\"");
        if ((st = get_int(r, kk, v, 0, r->wgsl ? 999 : Q4VK_MAX_BINDINGS - 1, &num)))
            break;
        for (size_t j = 0; r->wgsl && j < i; j++)
            if (s->bind[j].group == group && s->bind[j].binding == num)
                return bad(r, kk, "@group(%lld) @binding(%lld) is described twice",
                           (long long)group, (long long)num);
        if (!r->wgsl && seen >> num & 1)
            return bad(r, kk, "binding %lld is described twice", (long long)num);
        if (!r->wgsl)
            seen |= 1u << num;
        q4h_if_binding *b = &s->bind[r->wgsl ? (int64_t)i : num];
        b->group = (uint32_t)group;
        b->binding = (uint32_t)num;
        snprintf(b->key, sizeof b->key, "%s", k);
        int kinds = json_object_object_get_ex(o, "tensor", NULL) +
                    json_object_object_get_ex(o, "scratch", NULL) +
                    json_object_object_get_ex(o, "uniform", NULL);
        if (kinds != 1)
            return bad(r, k, "a binding is exactly one of \"tensor\", \"scratch\" or \"uniform\"");
        st = json_object_object_get_ex(o, "tensor", NULL)    ? tensor_binding(r, k, o, b)
             : json_object_object_get_ex(o, "scratch", NULL) ? scratch_binding(r, k, o, b)
                                                             : uniform_binding(r, k, o, b);
        s->n_bind = r->wgsl ? (int)i + 1 : s->n_bind > (int)num + 1 ? s->n_bind : (int)num + 1;
    }
    if (st == Q4_OK && !r->wgsl && seen != (1u << s->n_bind) - 1) {
        int gap = 0;
        while (seen >> gap & 1)
            gap++;
        return bad(r, key, "bindings must be numbered 0 to n-1; binding %d is missing", gap);
    }
    if (st == Q4_OK && n == 0)
        return bad(r, key, "a step needs at least one binding");
    return st;
}

/* ---------------- steps ---------------- */

static q4_status get_three(reader *r, const char *key, json_object *v, q4h_expr *out[3])
{
    if (json_object_get_type(v) != json_type_array || json_object_array_length(v) != 3)
        return bad(r, key, "expected an array of 3 values (x, y, z)");
    q4_status st = Q4_OK;
    for (size_t d = 0; d < 3 && st == Q4_OK; d++) {
        char k[96];
        snprintf(k, sizeof k, "%.80s[%zu]", key, d);
        st = get_expr(r, k, json_object_array_get_idx(v, d), true, &out[d]);
    }
    return st;
}

static q4_status get_spec(reader *r, const char *key, json_object *arr, q4h_if_step *s)
{
    static const char *const allowed[] = { "id", "type", "value", NULL };
    static const char *const spec_types[] = { "int", "uint", "float", NULL };
    q4_status st = want_type(r, key, arr, json_type_array);
    size_t n = st == Q4_OK ? json_object_array_length(arr) : 0;
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *v;
        char k[96], kk[112];
        int64_t id;
        snprintf(k, sizeof k, "%.80s[%u]", key, (unsigned)i);   /* json-c: int lengths */
        if ((st = want_type(r, k, o, json_type_object)) || (st = keys(r, k, o, allowed, allowed)))
            break;
        if (s->n_spec + s->n_local_ids == Q4VK_MAX_SPEC)
            return bad(r, k, "more than %d specialisation constants in one step (local size ids "
                       "included)", Q4VK_MAX_SPEC);
        q4h_if_spec *sp = &s->spec[s->n_spec++];
        snprintf(sp->key, sizeof sp->key, "%s", k);
        snprintf(kk, sizeof kk, "%.80s.id", k);
        json_object_object_get_ex(o, "id", &v);
        if ((st = get_int(r, kk, v, 0, UINT32_MAX, &id)))
            break;
        sp->id = (uint32_t)id;
        for (int j = 0; j < s->n_spec - 1; j++)
            if (s->spec[j].id == sp->id)
                return bad(r, kk, "specialisation constant %u is given twice", sp->id);
        for (int d = 0; d < 3; d++)
            if (s->local_id[d] == (int64_t)sp->id)
                return bad(r, kk, "specialisation constant %u is already a local_size_ids entry",
                           sp->id);
        snprintf(kk, sizeof kk, "%.80s.type", k);
        json_object_object_get_ex(o, "type", &v);
        int t = choice(r, kk, v, spec_types, "specialisation constant type");
        if (t < 0)
            return r->err->status;
        sp->type = (q4h_ftype)t;
        snprintf(kk, sizeof kk, "%.80s.value", k);
        json_object_object_get_ex(o, "value", &v);
        st = get_expr(r, kk, v, t != Q4H_F_FLOAT, &sp->value);
    }
    return st;
}

/* A WGSL step's "overrides": constants set by name at pipeline creation. */
static q4_status get_overrides(reader *r, const char *key, json_object *arr, q4h_if_step *s)
{
    static const char *const allowed[] = { "name", "type", "value", NULL };
    static const char *const types[] = { "int", "uint", "float", NULL };
    q4_status st = want_type(r, key, arr, json_type_array);
    size_t n = st == Q4_OK ? json_object_array_length(arr) : 0;
    if (n > Q4H_IF_MAX_OVERRIDES)
        return bad(r, key, "%zu overrides; at most %d are allowed", n, Q4H_IF_MAX_OVERRIDES);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *v;
        q4h_if_override *ov = &s->overrides[s->n_overrides++];
        char kk[112];
        snprintf(ov->key, sizeof ov->key, "%.80s[%zu]", key, i);
        if ((st = want_type(r, ov->key, o, json_type_object)) ||
            (st = keys(r, ov->key, o, allowed, allowed)))
            break;
        snprintf(kk, sizeof kk, "%.80s.name", ov->key);
        json_object_object_get_ex(o, "name", &v);
        if ((st = get_string(r, kk, v, ov->name, sizeof ov->name)))
            break;
        /* a WGSL identifier, or the decimal @id of the override */
        const bool digits = strspn(ov->name, "0123456789") == strlen(ov->name);
        const size_t word = strspn(ov->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "_0123456789");
        if (!digits && (word != strlen(ov->name) || (ov->name[0] >= '0' && ov->name[0] <= '9')))
            return bad(r, kk, "expected the name of a WGSL override (letters, digits and _, not "
                       "starting with a digit) or its numeric @id");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s->overrides[j].name, ov->name))
                return bad(r, kk, "override \"%s\" is given twice", ov->name);
        snprintf(kk, sizeof kk, "%.80s.type", ov->key);
        json_object_object_get_ex(o, "type", &v);
        int t = choice(r, kk, v, types, "override type");
        if (t < 0)
            return r->err->status;
        ov->type = (q4h_ftype)t;
        snprintf(kk, sizeof kk, "%.80s.value", ov->key);
        json_object_object_get_ex(o, "value", &v);
        st = get_expr(r, kk, v, t != Q4H_F_FLOAT, &ov->value);
    }
    return st;
}

/* The keys of the other API refused, naming what to use instead. */
static q4_status foreign_keys(reader *r, const char *key, json_object *o)
{
    static const char *const spirv_only[] = { "local_size", "local_size_ids", "spec_constants",
                                              "push_constants", NULL };
    char k[112];
    for (int i = 0; r->wgsl && spirv_only[i]; i++)
        if (json_object_object_get_ex(o, spirv_only[i], NULL)) {
            snprintf(k, sizeof k, "%.80s.%s", key, spirv_only[i]);
            return bad(r, k, "\"%s\" is a SPIR-V step's key; a WGSL module declares its own "
                       "@workgroup_size, takes constants through \"overrides\" and has no push "
                       "constants", spirv_only[i]);
        }
    snprintf(k, sizeof k, "%.80s.overrides", key);
    if (!r->wgsl && json_object_object_get_ex(o, "overrides", NULL))
        return bad(r, k, "\"overrides\" is a WGSL step's key; a SPIR-V step takes "
                   "\"spec_constants\"");
    return Q4_OK;
}

/* The step's module: SPIR-V words, or WGSL source (compiled by the WebGPU worker). */
static q4_status get_module(reader *r, const char *key, json_object *o, q4h_if_step *s)
{
    json_object *v;
    char k[112], path[512], what[640];
    snprintf(k, sizeof k, "%.80s.%s", key, r->wgsl ? "wgsl" : "spirv");
    json_object_object_get_ex(o, r->wgsl ? "wgsl" : "spirv", &v);
    q4_status st = get_string(r, k, v, path, sizeof path);
    if (st)
        return st;
    if (strlen(r->dir) + strlen(path) >= sizeof s->module)
        return bad(r, k, "the path is longer than %zu characters", sizeof s->module - 1);
    snprintf(s->module, sizeof s->module, "%s", path[0] == '/' ? "" : r->dir);
    strcat(s->module, path);
    snprintf(what, sizeof what, "%s: %s", r->path, k);
    if (!r->wgsl)
        return q4h_read_spirv(s->module, what, &s->words, &s->n_words, r->err);
    size_t size;
    char shown[Q4_ECHO_MAX];
    if (!(s->wgsl = q4h_read_file(s->module, &size)))
        return bad(r, k, "cannot read %s: %s", q4_echo(s->module, shown, sizeof shown),
                   q4_file_strerror(errno));
    if (size > Q4H_IF_MAX_WGSL_BYTES || strlen(s->wgsl) != size)
        return bad(r, k, "%s is not WGSL source: %s", q4_echo(s->module, shown, sizeof shown),
                   size > Q4H_IF_MAX_WGSL_BYTES ? "larger than 256 KiB" : "it holds a NUL byte");
    return Q4_OK;
}

static q4_status get_step(reader *r, const char *key, json_object *o, q4h_if_step *s)
{
    static const char *const allowed[] = { "name", "spirv", "wgsl", "entry", "local_size",
                                           "local_size_ids", "spec_constants", "overrides",
                                           "bindings", "push_constants", "workgroups", "fold",
                                           NULL };
    static const char *const required[] = { "name", "bindings", "workgroups", NULL };
    static const char *const required_spirv[] = { "local_size", NULL };
    json_object *v;
    char k[112];   /* "%.80s" and the longest ".spec_constants" */
    q4_status st = want_type(r, key, o, json_type_object);
    if (st || (st = keys(r, key, o, allowed, required)))
        return st;
    const bool has_spirv = json_object_object_get_ex(o, "spirv", NULL),
               has_wgsl = json_object_object_get_ex(o, "wgsl", NULL);
    if (has_spirv == has_wgsl)
        return bad(r, key, has_spirv ? "a step has one module: \"spirv\" or \"wgsl\", not both"
                                     : "missing key \"spirv\" (or \"wgsl\" for a WGSL module)");
    r->wgsl = has_wgsl;
    if (s > r->f->steps && r->f->wgsl != r->wgsl)
        return bad(r, key, "a %s step in a file of %s steps: one file runs on one API",
                   r->wgsl ? "WGSL" : "SPIR-V", r->f->wgsl ? "WGSL" : "SPIR-V");
    r->f->wgsl = r->wgsl;
    if ((st = foreign_keys(r, key, o)) || (!r->wgsl && (st = keys(r, key, o, allowed,
                                                                   required_spirv))))
        return st;
    snprintf(k, sizeof k, "%.80s.name", key);
    json_object_object_get_ex(o, "name", &v);
    if ((st = get_name(r, k, v, s->name)))
        return st;
    for (const q4h_if_step *p = r->f->steps; p < s; p++)
        if (!strcmp(p->name, s->name))
            return bad(r, k, "two steps are named \"%s\"", s->name);
    char kernel[sizeof s->kernel + 32] = "";
    snprintf(kernel, sizeof kernel, "%s.%s", r->f->op->op, s->name);
    memcpy(s->kernel, kernel, sizeof s->kernel - 1);
    {
        char shown[Q4_ECHO_MAX];
        const char *base = strrchr(r->path, '/');
        char origin[sizeof s->origin];
        /* in a set, OP.NAME: two of its ops may name a step alike */
        snprintf(origin, sizeof origin, "interface kernel %.110s:%.63s",
                 q4_echo(base ? base + 1 : r->path, shown, sizeof shown),
                 r->f->set_n ? kernel : kernel + strlen(r->f->op->op) + 1);
        memcpy(s->origin, origin, sizeof origin);
    }
    snprintf(k, sizeof k, "%.80s.entry", key);
    snprintf(s->entry, sizeof s->entry, "main");
    if (json_object_object_get_ex(o, "entry", &v) && (st = get_string(r, k, v, s->entry,
                                                                      sizeof s->entry)))
        return st;
    for (int d = 0; d < 3; d++)
        s->local_id[d] = -1;
    snprintf(k, sizeof k, "%.80s.local_size_ids", key);
    if (json_object_object_get_ex(o, "local_size_ids", &v)) {
        if (json_object_get_type(v) != json_type_array || json_object_array_length(v) != 3)
            return bad(r, k, "expected an array of 3 specialisation ids (null: a literal size)");
        for (size_t d = 0; d < 3; d++) {
            char kk[96];
            json_object *id = json_object_array_get_idx(v, d);
            snprintf(kk, sizeof kk, "%.80s[%zu]", k, d);
            if (!id)   /* null */
                continue;
            if ((st = get_int(r, kk, id, 0, UINT32_MAX, &s->local_id[d])))
                return st;
            s->n_local_ids++;
            for (size_t e = 0; e < d; e++)
                if (s->local_id[e] == s->local_id[d])
                    return bad(r, kk, "id %lld is given twice", (long long)s->local_id[d]);
        }
    }
    snprintf(k, sizeof k, "%.80s.local_size", key);
    if (json_object_object_get_ex(o, "local_size", &v) && (st = get_three(r, k, v, s->local)))
        return st;
    snprintf(k, sizeof k, "%.80s.spec_constants", key);
    if (json_object_object_get_ex(o, "spec_constants", &v) && (st = get_spec(r, k, v, s)))
        return st;
    snprintf(k, sizeof k, "%.80s.overrides", key);
    if (json_object_object_get_ex(o, "overrides", &v) && (st = get_overrides(r, k, v, s)))
        return st;
    snprintf(k, sizeof k, "%.80s.push_constants", key);
    if (json_object_object_get_ex(o, "push_constants", &v) &&
        (st = get_fields(r, k, v, &s->push)))
        return st;
    if (s->push.bytes > 128)
        return bad(r, k, "the push constants fill %u bytes; at most 128 are allowed (Vulkan's "
                   "guaranteed maxPushConstantsSize)", s->push.bytes);
    snprintf(k, sizeof k, "%.80s.bindings", key);
    json_object_object_get_ex(o, "bindings", &v);
    if ((st = get_bindings(r, k, v, s)))
        return st;
    snprintf(k, sizeof k, "%.80s.workgroups", key);
    json_object_object_get_ex(o, "workgroups", &v);
    if ((st = get_three(r, k, v, s->groups)))
        return st;
    snprintf(k, sizeof k, "%.80s.fold", key);
    if (json_object_object_get_ex(o, "fold", &v)) {
        if ((st = want_type(r, k, v, json_type_boolean)))
            return st;
        s->fold = json_object_get_boolean(v);
    }
    return get_module(r, key, o, s);
}

/* ---------------- the op as a whole ---------------- */

static q4_status get_scratch(reader *r, json_object *arr)
{
    static const char *const allowed[] = { "name", "bytes", NULL };
    char root[32];
    q4_status st = want_type(r, at(r, root, sizeof root, "scratch"), arr, json_type_array);
    size_t n = st == Q4_OK ? json_object_array_length(arr) : 0;
    if (n > Q4H_IF_MAX_SCRATCH)
        return bad(r, root, "%zu scratch buffers; at most %d are allowed", n,
                   Q4H_IF_MAX_SCRATCH);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *v;
        q4h_if_scratch *sc = &r->f->scratch[r->f->n_scratch++];
        char k[96];
        snprintf(sc->key, sizeof sc->key, "%s[%zu]", root, i);
        if ((st = want_type(r, sc->key, o, json_type_object)) ||
            (st = keys(r, sc->key, o, allowed, allowed)))
            break;
        snprintf(k, sizeof k, "%.80s.name", sc->key);
        json_object_object_get_ex(o, "name", &v);
        if ((st = get_name(r, k, v, sc->name)))
            break;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(r->f->scratch[j].name, sc->name))
                return bad(r, k, "two scratch buffers are named \"%s\"", sc->name);
        snprintf(k, sizeof k, "%.80s.bytes", sc->key);
        json_object_object_get_ex(o, "bytes", &v);
        st = get_expr(r, k, v, true, &sc->bytes);
    }
    return st;
}

/* The names expressions may use: the op's parameters, the activation's leading dims
 * (ops with M: "rank" and d0..d3, outermost first, 1 past the rank), the device's
 * limits (docs/interface-format.md, "Expressions"). */
static const char *const dim_names[] = { "rank", "d0", "d1", "d2", "d3" };
static const char *const limit_names[] = { "max_workgroups_x", "max_workgroups_y",
                                           "max_workgroups_z", "max_invocations",
                                           "max_shared_bytes", "max_storage_bytes" };

static void make_names(q4h_iface *f)
{
    const q4h_if_op *op = f->op;
    f->n_names = 0;
    f->dims_at = -1;
    bool has_m = false;
    for (int i = 0; i < op->n_names; i++) {
        f->names[f->n_names++] = op->names[i];
        has_m |= !strcmp(op->names[i].name, "M");
    }
    if (has_m) {
        f->dims_at = f->n_names;
        for (size_t i = 0; i < sizeof dim_names / sizeof dim_names[0]; i++)
            f->names[f->n_names++] = (q4h_xname){ dim_names[i], Q4H_X_INT, "the case's dims" };
    }
    f->limits_at = f->n_names;
    for (size_t i = 0; i < sizeof limit_names / sizeof limit_names[0]; i++)
        f->names[f->n_names++] = (q4h_xname){ limit_names[i], Q4H_X_INT, "device limits" };
}

/* "requires": [ { "condition": EXPR, "message": SENTENCE } ]: the kernel's contract,
 * narrower than SPEC's; a case outside it is NotSupported with the sentence. */
static q4_status get_requires(reader *r, json_object *arr)
{
    static const char *const allowed[] = { "condition", "message", NULL };
    static const char *const required[] = { "condition", NULL };
    char root[32];
    q4_status st = want_type(r, at(r, root, sizeof root, "requires"), arr, json_type_array);
    size_t n = st == Q4_OK ? json_object_array_length(arr) : 0;
    if (n > Q4H_IF_MAX_REQUIRES)
        return bad(r, root, "%zu preconditions; at most %d are allowed", n,
                   Q4H_IF_MAX_REQUIRES);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *v;
        q4h_if_require *q = &r->f->requires[r->f->n_requires++];
        char k[64];
        snprintf(q->key, sizeof q->key, "%.20s[%zu]", root, i);
        if ((st = want_type(r, q->key, o, json_type_object)) ||
            (st = keys(r, q->key, o, allowed, required)))
            break;
        snprintf(k, sizeof k, "%s.condition", q->key);
        json_object_object_get_ex(o, "condition", &v);
        if ((st = want_type(r, k, v, json_type_string)))
            break;
        if (!(q->text = strdup(json_object_get_string(v))))
            return q4_fail(r->err, Q4_ERR_NOMEM, "out of memory reading %s", k);
        if ((st = get_expr(r, k, v, false, &q->cond)))
            break;
        if (q4h_expr_type(q->cond) != Q4H_X_INT)
            return bad(r, k, "a condition is an integer (0: false), such as a comparison; "
                       "this one is real");
        q->device = q4h_expr_uses(q->cond, r->f->limits_at, r->f->n_names - r->f->limits_at);
        snprintf(k, sizeof k, "%s.message", q->key);
        if (json_object_object_get_ex(o, "message", &v)) {
            if ((st = get_string(r, k, v, q->message, sizeof q->message)))
                break;
            for (const char *c = q->message; *c; c++)
                if ((unsigned char)*c < 0x20)
                    return bad(r, k, "a message is one line of printable text");
        } else {
            snprintf(q->message, sizeof q->message, "requires %.240s%s", q->text,
                     strlen(q->text) > 240 ? "..." : "");
        }
    }
    return st;
}

/* Inputs bound, outputs written, every buffer of an output written, scratch used. */
static q4_status whole_op(reader *r)
{
    const q4h_iface *f = r->f;
    const q4h_if_op *op = f->op;
    for (int t = 0; t < op->n_tensors; t++) {
        const q4h_if_tensor *tn = &op->tensors[t];
        bool bound = false;
        for (int b = 0; b < f->n_buffers; b++) {
            if (f->buffers[b].tensor != t)
                continue;
            bound = true;
            if (tn->role >= Q4H_ROLE_OUT && !f->buffers[b].written)
                return bad(r, f->buffers[b].key, "output %s (layout %s) is bound but never "
                           "written: give one of its bindings access \"write\"", tn->name,
                           layouts[f->buffers[b].layout]);
        }
        char k[32];
        if (!bound && tn->role != Q4H_ROLE_IN_OPTIONAL)
            return bad(r, at(r, k, sizeof k, "steps"), "no step binds tensor %s of op %s (its %s)", tn->name, op->op,
                       tn->role == Q4H_ROLE_IN ? "input" : "output");
    }
    /* one buffer judged per output: a tensor written in one layout at two row
     * strides (or paddings) would be two buffers for one output */
    for (int b = 0; b < f->n_buffers; b++)
        for (int e = 0; e < b; e++)
            if (f->buffers[b].written && f->buffers[e].written &&
                f->buffers[b].tensor == f->buffers[e].tensor &&
                f->buffers[b].layout == f->buffers[e].layout)
                return bad(r, f->buffers[b].key, "tensor %s is written in layout %s here and at "
                           "%s with another row stride or padding; q4cts judges one buffer of "
                           "each layout: write it at one row stride",
                           op->tensors[f->buffers[b].tensor].name,
                           layouts[f->buffers[b].layout], f->buffers[e].key);
    for (int i = 0; i < f->n_scratch; i++) {
        bool used = false;
        for (int s = 0; s < f->n_steps; s++)
            for (int b = 0; b < f->steps[s].n_bind; b++)
                used |= f->steps[s].bind[b].kind == Q4H_BIND_SCRATCH &&
                        f->steps[s].bind[b].index == i;
        if (!used)
            return bad(r, f->scratch[i].key, "scratch buffer \"%s\" is never bound",
                       f->scratch[i].name);
    }
    return Q4_OK;
}

#define FORMAT_OP "q4cts-interface-1"
#define FORMAT_SET "q4cts-interface-set-1"

/* One op's description: a one-op file's top level, or an element of a set's "ops"
 * (r->f->at says which). Its modules are checked later (check_modules). */
static q4_status read_op(reader *r, json_object *root)
{
    static const char *const allowed[] = { "format", "op", "requires", "scratch", "steps",
                                           NULL };
    static const char *const required[] = { "format", "op", "steps", NULL };
    json_object *v;
    char text[64], top[32], k[32];
    if (r->f->at[0])   /* an element of a set is named by its index: "ops[2]" */
        snprintf(top, sizeof top, "%.*s", (int)strlen(r->f->at) - 1, r->f->at);
    else
        snprintf(top, sizeof top, "(top level)");
    q4_status st = want_type(r, top, root, json_type_object);
    if (st == Q4_OK && r->f->at[0] && json_object_object_get_ex(root, "format", &v) &&
        json_object_get_type(v) == json_type_string &&
        !strcmp(json_object_get_string(v), FORMAT_SET))
        return bad(r, at(r, k, sizeof k, "format"), "a kernel set holds descriptions of ops "
                   "(\"" FORMAT_OP "\"), not another set");
    if (st || (st = keys(r, top, root, allowed, required)))
        return st;
    json_object_object_get_ex(root, "format", &v);
    if ((st = get_string(r, at(r, k, sizeof k, "format"), v, text, sizeof text)))
        return st;
    if (strcmp(text, FORMAT_OP))
        return bad(r, k, r->f->at[0] ? "expected \"" FORMAT_OP "\""
                   : "expected \"" FORMAT_OP "\" (or \"" FORMAT_SET "\" for a kernel set)");
    json_object_object_get_ex(root, "op", &v);
    if ((st = get_string(r, at(r, k, sizeof k, "op"), v, text, sizeof text)))
        return st;
    if (!(r->f->op = q4h_if_op_find(text))) {
        char shown[Q4_ECHO_MAX], ops[256];
        q4h_if_op_names(ops, sizeof ops);
        return bad(r, k, "unknown op \"%s\" (see SPEC §2: %s)",
                   q4_echo(text, shown, sizeof shown), ops);
    }
    make_names(r->f);
    if (json_object_object_get_ex(root, "requires", &v) && (st = get_requires(r, v)))
        return st;
    if (json_object_object_get_ex(root, "scratch", &v) && (st = get_scratch(r, v)))
        return st;
    json_object_object_get_ex(root, "steps", &v);
    if ((st = want_type(r, at(r, k, sizeof k, "steps"), v, json_type_array)))
        return st;
    size_t n = json_object_array_length(v);
    if (n < 1 || n > Q4H_IF_MAX_STEPS)
        return bad(r, k, "%zu steps; expected 1 to %d", n, Q4H_IF_MAX_STEPS);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        char sk[32];
        snprintf(sk, sizeof sk, "%ssteps[%zu]", r->f->at, i);
        st = get_step(r, sk, json_object_array_get_idx(v, i), &r->f->steps[r->f->n_steps++]);
    }
    if (st == Q4_OK)
        st = whole_op(r);
    return st;
}

/* ---------------- a kernel set ---------------- */

/* A new op of the file into ops[*n]: r->f; set_n 0 for a file of one op. */
static q4_status new_op(reader *r, q4h_iface **ops, size_t *n, int set_i, int set_n)
{
    if (!(r->f = calloc(1, sizeof *r->f)))
        return q4_fail(r->err, Q4_ERR_NOMEM, "out of memory reading %s", r->path);
    ops[(*n)++] = r->f;
    snprintf(r->f->path, sizeof r->f->path, "%s", r->path);
    r->f->set_i = set_i;
    r->f->set_n = set_n;
    if (set_n)
        snprintf(r->f->at, sizeof r->f->at, "ops[%d].", set_i);
    return Q4_OK;
}

/* { "format": FORMAT_SET, "ops": [ DESCRIPTION, ... ] }: a runtime's kernel set, each
 * DESCRIPTION what a one-op file holds, each op described once. */
static q4_status read_set(reader *r, json_object *root, q4h_iface **ops, size_t *n)
{
    static const char *const allowed[] = { "format", "ops", NULL };
    json_object *v;
    q4_status st = keys(r, "(top level)", root, allowed, allowed);
    if (st)
        return st;
    json_object_object_get_ex(root, "ops", &v);
    if ((st = want_type(r, "ops", v, json_type_array)))
        return st;
    const size_t len = json_object_array_length(v);
    if (len == 0)
        return bad(r, "ops", "an empty kernel set: describe at least one op");
    if (len > Q4H_IF_MAX_SET_OPS)
        return bad(r, "ops", "%zu ops; a kernel set describes at most %d", len,
                   Q4H_IF_MAX_SET_OPS);
    for (size_t i = 0; i < len && st == Q4_OK; i++) {
        if ((st = new_op(r, ops, n, (int)i, (int)len)) ||
            (st = read_op(r, json_object_array_get_idx(v, i))))
            break;
        for (size_t j = 0; j < i; j++)
            if (ops[j]->op == r->f->op) {
                char k[32];
                return bad(r, at(r, k, sizeof k, "op"), "op %s is described at ops[%zu] too; a "
                           "kernel set describes each op once", r->f->op->op, j);
            }
    }
    return st;
}

/* Every step's module against the step, after the whole file's own mistakes. */
static q4_status check_modules(q4h_iface *const *ops, size_t n, q4_error *err)
{
    q4_status st = Q4_OK;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < ops[i]->n_steps && st == Q4_OK && !ops[i]->wgsl; s++)
            st = q4h_iface_check_module(ops[i], &ops[i]->steps[s], err);   /* WGSL: the worker's */
    return st;
}

/* ---------------- load and free ---------------- */

q4_status q4h_iface_parse(const char *path, const char *text, size_t size, q4h_iface ***out,
                          size_t *n, q4_error *err)
{
    reader r = { .path = path, .err = err };
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) + 1 < sizeof r.dir)
        snprintf(r.dir, sizeof r.dir, "%.*s", (int)(slash - path) + 1, path);
    *out = NULL;
    *n = 0;
    q4h_iface **ops = calloc(Q4H_IF_MAX_SET_OPS, sizeof *ops);
    size_t n_ops = 0;
    if (!ops)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory reading %s", path);
    char what[Q4_ECHO_MAX + 32], shown[Q4_ECHO_MAX];
    snprintf(what, sizeof what, "%s: (top level): the file", q4_echo(path, shown, sizeof shown));
    json_object *root = q4h_json_parse_object(text, size, what, err);   /* RFC 8259, strictly */
    json_object *format;
    q4_status st;
    if (!root)
        st = err ? err->status : Q4_ERR_ARG;
    else if (json_object_get_type(root) == json_type_object &&
             json_object_object_get_ex(root, "format", &format) &&
             json_object_get_type(format) == json_type_string &&
             !strcmp(json_object_get_string(format), FORMAT_SET))
        st = read_set(&r, root, ops, &n_ops);
    else if ((st = new_op(&r, ops, &n_ops, 0, 0)) == Q4_OK)
        st = read_op(&r, root);
    if (st == Q4_OK)
        st = check_modules(ops, n_ops, err);
    json_object_put(root);
    if (st != Q4_OK) {
        q4h_ifaces_free(ops, n_ops);
        return st;
    }
    *out = ops;
    *n = n_ops;
    return Q4_OK;
}

q4_status q4h_iface_load(const char *path, q4h_iface ***out, size_t *n, q4_error *err)
{
    size_t size;
    char *text = q4h_read_file(path, &size);
    if (!text) {
        char shown[Q4_ECHO_MAX];
        *out = NULL;
        *n = 0;
        return q4_fail(err, errno == ENOMEM ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                       "--interface: cannot read %s: %s", q4_echo(path, shown, sizeof shown),
                       q4_file_strerror(errno));
    }
    q4_status st = q4h_iface_parse(path, text, size, out, n, err);
    free(text);
    return st;
}

const char *q4h_iface_where(const q4h_iface *f, char *buf, size_t size)
{
    char shown[Q4_ECHO_MAX];
    snprintf(buf, size, "%s", q4_echo(f->path, shown, sizeof shown));
    if (f->set_n)
        snprintf(buf + strlen(buf), size - strlen(buf), " (ops[%d])", f->set_i);
    return buf;
}

static void fields_free(q4h_if_fields *fs)
{
    for (int i = 0; i < fs->n; i++)
        for (int c = 0; c < 4; c++)
            q4h_expr_free(fs->f[i].value[c]);
    free(fs->f);
}

void q4h_iface_free(q4h_iface *f)
{
    if (!f)
        return;
    for (int s = 0; s < f->n_steps; s++) {
        q4h_if_step *st = &f->steps[s];
        free(st->words);
        free(st->wgsl);
        for (int i = 0; i < st->n_overrides; i++)
            q4h_expr_free(st->overrides[i].value);
        for (int d = 0; d < 3; d++) {
            q4h_expr_free(st->local[d]);
            q4h_expr_free(st->groups[d]);
        }
        for (int i = 0; i < st->n_spec; i++)
            q4h_expr_free(st->spec[i].value);
        fields_free(&st->push);
        for (int b = 0; b < Q4VK_MAX_BINDINGS; b++)
            fields_free(&st->bind[b].uniform);
    }
    for (int i = 0; i < f->n_scratch; i++)
        q4h_expr_free(f->scratch[i].bytes);
    for (int i = 0; i < f->n_requires; i++) {
        q4h_expr_free(f->requires[i].cond);
        free(f->requires[i].text);
    }
    for (int i = 0; i < f->n_buffers; i++)
        q4h_expr_free(f->buffers[i].row_stride);
    free(f);
}

void q4h_ifaces_free(q4h_iface **f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        q4h_iface_free(f[i]);
    free(f);
}
