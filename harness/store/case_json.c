/* case_json.c: case.json of a dump, written and parsed with json-c.
 *
 * Numbers that are not finite (a margin of a NaN result is infinite) are written
 * as null, as in the JSON report, and read back as NAN; doubles are written with
 * 17 significant digits, so every fp32 parameter and fp64 margin reads back
 * exactly. The parser checks the type of every key it reads and names the key in
 * its message; keys it does not know are ignored (a newer minor addition). */
#include "case_json.h"
#include "json_text.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "files.h"
#include "q4case.h"

#ifndef Q4CTS_VERSION
#define Q4CTS_VERSION "0"
#endif

/* ---- writing ---- */

static json_object *num(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *index_or_null(int64_t i)
{
    return i >= 0 ? json_object_new_int64(i) : NULL;
}

static json_object *shape_array(int ndim, const int64_t *shape)
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < ndim; i++)
        json_object_array_add(a, json_object_new_int64(shape[i]));
    return a;
}

static void add(json_object *o, const char *key, json_object *v)
{
    json_object_object_add(o, key, v);
}

static void add_str(json_object *o, const char *key, const char *s, size_t max)
{
    add(o, key, json_object_new_string_len(s, (int)strnlen(s, max)));
}

static json_object *file_name(const char *name, const char *part)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s%s%s.npy", name, part[0] ? "." : "", part);
    return json_object_new_string(buf);
}

/* How many coordinates the judge names an element of an ndim array by: rows (every
 * dimension but the last) and columns. */
static int coords(int ndim)
{
    return ndim < 2 ? ndim : 2;
}

static json_object *output_json(const q4h_dump_output *o)
{
    json_object *j = json_object_new_object(), *files = json_object_new_object();
    add_str(j, "name", o->name, sizeof o->name);
    add(j, "kind", json_object_new_string(o->code ? "code" : "real"));
    add(j, "shape", shape_array(o->ndim, o->shape));
    json_object *dims = json_object_new_array();
    for (int i = 2 - coords(o->ndim); i < 2; i++)
        json_object_array_add(dims, json_object_new_string(o->dims[i]));
    add(j, "dims", dims);
    add(files, o->code ? "code" : "value", file_name(o->name, o->code ? "code" : "value"));
    add(files, o->code ? "alt" : "bound", file_name(o->name, o->code ? "alt" : "bound"));
    if (o->has_got)
        add(files, "got", file_name(o->name, "got"));
    add(j, "files", files);
    add(j, "got", json_object_new_boolean(o->has_got));
    if (o->raw_descr[0]) {
        json_object *raw = json_object_new_object();
        add(raw, "file", file_name(o->name, "raw"));
        add(raw, "dtype", json_object_new_string(o->raw_descr));
        add(raw, "shape", shape_array(1, &o->raw_count));
        add(j, "raw", raw);
    }
    add(j, "guard_ok", json_object_new_boolean(o->guard_ok));
    add(j, "guard_bad_at", index_or_null(o->guard_bad_at));
    add(j, "padding_ok", json_object_new_boolean(o->padding_ok));
    add(j, "padding_bad_at", index_or_null(o->padding_bad_at));
    add(j, "margin", num(o->margin));
    if (o->env) {
        json_object *env = json_object_new_object();
        add(env, "alw", file_name(o->name, "env_alw"));
        add(env, "sd", file_name(o->name, "env_sd"));
        if (o->env_shared)
            add(env, "shr", file_name(o->name, "env_shr"));
        add(j, "envelope", env);
    }
    add(j, "dot_n", json_object_new_int64(o->dot_n));
    add(j, "dot_factors", json_object_new_int(o->dot_factors));
    add(j, "stat_margin", num(o->stat_margin));
    return j;
}

static json_object *result_json(const q4_result *r, bool strict)
{
    json_object *j = json_object_new_object();
    add(j, "verdict", json_object_new_string(q4_verdict_name(r->verdict)));
    add(j, "ok", json_object_new_boolean(q4_verdict_ok(r->verdict, strict)));
    add(j, "worst_margin", num(r->worst_margin));
    add(j, "stat_margin", num(r->stat_margin));
    add(j, "worst_err", num(r->worst_err));
    add(j, "got", num(r->got));
    add(j, "expected", num(r->expected));
    add(j, "bound", num(r->bound));
    add_str(j, "output", r->output, sizeof r->output);
    add(j, "index", index_or_null(r->index));
    add_str(j, "where", r->where, sizeof r->where);
    add(j, "elements", json_object_new_int64(r->elements));
    add(j, "gpu_ms", num(r->gpu_ms >= 0 ? r->gpu_ms : NAN));
    add_str(j, "message", r->message, sizeof r->message);
    add_str(j, "repro", r->repro, sizeof r->repro);
    return j;
}

q4_status q4h_case_json_write(const char *path, const q4h_dump_meta *m, q4_error *err)
{
    return q4h_case_json_write_at(AT_FDCWD, path, m, err);
}

q4_status q4h_case_json_write_at(int dirfd, const char *path, const q4h_dump_meta *m,
                                 q4_error *err)
{
    json_object *root = json_object_new_object();
    add(root, "format", json_object_new_int(Q4H_DUMP_FORMAT));
    add(root, "q4cts_version", json_object_new_string(Q4CTS_VERSION));
    add_str(root, "name", m->name, sizeof m->name);
    add_str(root, "op", m->op, sizeof m->op);
    add_str(root, "family", m->family, sizeof m->family);
    add_str(root, "values", m->values, sizeof m->values);
    add_str(root, "api", m->api[0] ? m->api : "vulkan", sizeof m->api);
    add(root, "seed", json_object_new_uint64(m->seed));
    json_object *params = json_object_new_object();
    for (int i = 0; i < m->n_params; i++) {
        const q4h_dump_param *p = &m->params[i];
        add(params, p->key, p->integer ? json_object_new_int64((int64_t)p->value) : num(p->value));
    }
    add(root, "params", params);
    json_object *inputs = json_object_new_array();
    for (int i = 0; i < m->n_inputs; i++) {
        const q4h_dump_array *a = &m->inputs[i];
        json_object *j = json_object_new_object();
        add_str(j, "name", a->name, sizeof a->name);
        add(j, "file", file_name(a->name, ""));
        add(j, "dtype", json_object_new_string(a->descr));
        add(j, "shape", shape_array(a->ndim, a->shape));
        json_object_array_add(inputs, j);
    }
    add(root, "inputs", inputs);
    json_object *outputs = json_object_new_array();
    for (int i = 0; i < m->n_outputs; i++)
        json_object_array_add(outputs, output_json(&m->outputs[i]));
    add(root, "outputs", outputs);
    json_object *dev = json_object_new_object();
    add_str(dev, "name", m->device, sizeof m->device);
    add_str(dev, "type", m->device_type, sizeof m->device_type);
    add_str(dev, "uuid", m->uuid, sizeof m->uuid);
    add_str(dev, "driver", m->driver, sizeof m->driver);
    add_str(dev, "driver_version", m->driver_version, sizeof m->driver_version);
    add_str(dev, "driver_info", m->driver_info, sizeof m->driver_info);
    add_str(dev, "vulkan", m->vulkan, sizeof m->vulkan);
    add(root, "device", dev);
    json_object *kernels = json_object_new_array();
    for (int i = 0; i < m->n_kernels; i++) {
        json_object *k = json_object_new_object();
        add_str(k, "kernel", m->kernels[i][0], sizeof m->kernels[i][0]);
        add_str(k, "file", m->kernels[i][1], sizeof m->kernels[i][1]);
        json_object_array_add(kernels, k);
    }
    add(root, "kernels", kernels);
    add(root, "strict", json_object_new_boolean(m->strict));
    add(root, "result", result_json(&m->result, m->strict));

    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    q4_status st = Q4_OK;
    FILE *f = text ? q4h_fcreate_at(dirfd, path) : NULL;   /* never through a link */
    if (!text)
        st = q4_fail(err, Q4_ERR_NOMEM, "out of memory writing %s", path);
    else if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0)
        st = q4_fail(err, Q4_ERR_IO, "cannot write %s", path);
    else
        f = NULL;
    if (f)
        fclose(f);
    json_object_put(root);
    return st;
}

/* ---- parsing ---- */

/* A tensor name is a file name part: letters, digits and '_' only, so that no name
 * reaches outside the dump's folder. */
static void check_name(q4h_jparser *p, const char *where, const char *name)
{
    if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789_") != strlen(name))
        q4h_jp_bad(p, where, "name", "letters, digits and '_' (it names a file)");
}

static int get_shape(q4h_jparser *p, json_object *o, const char *where, const char *key,
                     int64_t *shape, int max_dims)
{
    json_object *a = q4h_jp_member(p, o, where, key, json_type_array, false, "an array of sizes");
    if (!a)
        return 0;
    size_t n = json_object_array_length(a);
    if (n > (size_t)max_dims) {
        char expected[64];
        snprintf(expected, sizeof expected, "at most %d sizes", max_dims);
        q4h_jp_bad(p, where, key, expected);
        return 0;
    }
    int64_t count = 1;
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(a, i);
        errno = 0;
        if (!v || !json_object_is_type(v, json_type_int) ||
            (shape[i] = json_object_get_int64(v)) < 0 || errno) {
            q4h_jp_bad(p, where, key, "an array of non-negative integers");
            return 0;
        }
        /* the product, without overflow: a shape no case has is refused here, before
         * anything is sized from it */
        if (shape[i] > Q4H_DUMP_MAX_ELEMENTS || (shape[i] && count > Q4H_DUMP_MAX_ELEMENTS / shape[i])) {
            q4h_jp_bad(p, where, key, "a shape of at most 2^40 elements");
            return 0;
        }
        count *= shape[i];
    }
    return (int)n;
}

static void get_descr(q4h_jparser *p, json_object *o, const char *where, const char *key, char *descr)
{
    char buf[8] = "";
    q4h_jp_str(p, o, where, key, buf, sizeof buf, false);
    if (p->st == Q4_OK && !q4h_npy_elem(buf))
        q4h_jp_bad(p, where, key, "one of <f4, <f8, <i4, <u4, |u1");
    else
        memcpy(descr, buf, 4);
}

/* The array root[key] of at most max objects; NULL when absent (a problem unless
 * optional) or malformed. */
static json_object *objects(q4h_jparser *p, json_object *root, const char *key, size_t max,
                            bool optional)
{
    char expected[64];
    snprintf(expected, sizeof expected, "an array of at most %zu objects", max);
    json_object *a = q4h_jp_member(p, root, "", key, json_type_array, optional, expected);
    size_t n = a ? json_object_array_length(a) : 0;
    for (size_t i = 0; i < n && n <= max; i++)
        if (!json_object_is_type(json_object_array_get_idx(a, i), json_type_object))
            n = max + 1;
    if (n > max) {
        q4h_jp_bad(p, "", key, expected);
        return NULL;
    }
    return a;
}

static void parse_output(q4h_jparser *p, json_object *j, const char *where, q4h_dump_output *o)
{
    char kind[8] = "";
    q4h_jp_str(p, j, where, "name", o->name, sizeof o->name, false);
    check_name(p, where, o->name);
    q4h_jp_str(p, j, where, "kind", kind, sizeof kind, false);
    if (p->st == Q4_OK && strcmp(kind, "real") && strcmp(kind, "code"))
        q4h_jp_bad(p, where, "kind", "\"real\" or \"code\"");
    o->code = !strcmp(kind, "code");
    o->ndim = get_shape(p, j, where, "shape", o->shape, Q4H_NPY_MAX_DIMS);
    int n = coords(o->ndim);
    json_object *dims = q4h_jp_member(p, j, where, "dims", json_type_array, false, "an array of names");
    if (dims && json_object_array_length(dims) != (size_t)n)
        q4h_jp_bad(p, where, "dims", "the names of the rows and the columns the shape has");
    snprintf(o->dims[0], sizeof o->dims[0], "-");
    snprintf(o->dims[1], sizeof o->dims[1], "-");
    for (int i = 0; p->st == Q4_OK && i < n; i++) {
        json_object *v = json_object_array_get_idx(dims, (size_t)i);
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        if (!s || !s[0] || strlen(s) >= sizeof o->dims[0])
            q4h_jp_bad(p, where, "dims", "an array of short names");
        else
            snprintf(o->dims[2 - n + i], sizeof o->dims[0], "%s", s);
    }
    o->has_got = q4h_jp_bool(p, j, where, "got");
    o->guard_ok = q4h_jp_bool(p, j, where, "guard_ok");
    o->padding_ok = q4h_jp_bool(p, j, where, "padding_ok");
    o->guard_bad_at = q4h_jp_int(p, j, where, "guard_bad_at", 0, INT64_MAX, true);
    o->padding_bad_at = q4h_jp_int(p, j, where, "padding_bad_at", 0, INT64_MAX, true);
    o->margin = q4h_jp_num(p, j, where, "margin");
    o->stat_margin = q4h_jp_num(p, j, where, "stat_margin");
    json_object *env = q4h_jp_member(p, j, where, "envelope", json_type_object, true, "an object");
    o->env = env != NULL;
    o->env_shared = env && json_object_object_get_ex(env, "shr", NULL);
    /* a sum of more terms than any case's: its envelope's arithmetic would overflow */
    o->dot_n = q4h_jp_int(p, j, where, "dot_n", 0, Q4H_DUMP_MAX_ELEMENTS, true);
    o->dot_factors = (int)q4h_jp_int(p, j, where, "dot_factors", 0, 64, true);
    if (o->dot_n < 0)
        o->dot_n = 0;
    if (o->dot_factors < 0)
        o->dot_factors = 0;
    json_object *raw = q4h_jp_member(p, j, where, "raw", json_type_object, true, "an object");
    if (raw) {
        char raw_where[64];
        snprintf(raw_where, sizeof raw_where, "%s.raw", where);
        get_descr(p, raw, raw_where, "dtype", o->raw_descr);
        if (get_shape(p, raw, raw_where, "shape", &o->raw_count, 1) != 1)
            q4h_jp_bad(p, raw_where, "shape", "one size");
    }
}

static void parse_result(q4h_jparser *p, json_object *j, q4_result *r)
{
    char verdict[32] = "";
    q4_result_init(r);
    q4h_jp_str(p, j, "result", "verdict", verdict, sizeof verdict, false);
    if (p->st == Q4_OK && !q4_verdict_parse(verdict, &r->verdict))
        q4h_jp_bad(p, "result", "verdict", "a verdict name (Pass, Fail, QualityWarning, ...)");
    r->worst_margin = q4h_jp_num(p, j, "result", "worst_margin");
    r->stat_margin = q4h_jp_num(p, j, "result", "stat_margin");
    r->worst_err = q4h_jp_num(p, j, "result", "worst_err");
    r->got = q4h_jp_num(p, j, "result", "got");
    r->expected = q4h_jp_num(p, j, "result", "expected");
    r->bound = q4h_jp_num(p, j, "result", "bound");
    q4h_jp_str(p, j, "result", "output", r->output, sizeof r->output, true);
    q4h_jp_str(p, j, "result", "where", r->where, sizeof r->where, true);
    q4h_jp_str(p, j, "result", "message", r->message, sizeof r->message, true);
    q4h_jp_str(p, j, "result", "repro", r->repro, sizeof r->repro, true);
}

static void parse_root(q4h_jparser *p, json_object *root, q4h_dump_meta *m)
{
    m->format = (int)q4h_jp_int(p, root, "", "format", 1, Q4H_DUMP_FORMAT, false);
    q4h_jp_str(p, root, "", "name", m->name, sizeof m->name, false);
    q4h_jp_str(p, root, "", "op", m->op, sizeof m->op, false);
    q4h_jp_str(p, root, "", "family", m->family, sizeof m->family, true);
    q4h_jp_str(p, root, "", "values", m->values, sizeof m->values, true);
    q4h_jp_str(p, root, "", "api", m->api, sizeof m->api, true);
    if (!m->api[0])
        snprintf(m->api, sizeof m->api, "vulkan");
    else if (strcmp(m->api, "vulkan") && strcmp(m->api, "webgpu"))
        q4h_jp_bad(p, "", "api", "\"vulkan\" or \"webgpu\"");
    json_object *seed = q4h_jp_member(p, root, "", "seed", json_type_int, false,
                               "an integer from 0 to 2^64-1");
    if (seed) {
        /* json-c keeps integers above INT64_MAX as unsigned; negative ones are refused. */
        if (json_object_get_int64(seed) < 0)
            q4h_jp_bad(p, "", "seed", "an integer from 0 to 2^64-1");
        m->seed = json_object_get_uint64(seed);
    }
    json_object *params = q4h_jp_member(p, root, "", "params", json_type_object, false, "an object");
    if (params) {
        json_object_object_foreach(params, key, v) {
            if (p->st != Q4_OK)
                break;
            if (m->n_params == Q4H_DUMP_MAX_PARAMS || strlen(key) >= sizeof m->params[0].key) {
                q4h_jp_bad(p, "", "params", "at most 24 numbers with short names");
                break;
            }
            q4h_dump_param *d = &m->params[m->n_params++];
            snprintf(d->key, sizeof d->key, "%s", key);
            d->integer = v && json_object_is_type(v, json_type_int);
            d->value = q4h_jp_num(p, params, "params", key);
            /* an integer a double holds exactly, so that it converts back (report's page) */
            if (d->integer && !(fabs(d->value) <= 9007199254740992.0))
                q4h_jp_bad(p, "params", key, "an integer from -2^53 to 2^53");
        }
    }
    json_object *inputs = objects(p, root, "inputs", Q4H_MAX_TENSORS, false);
    size_t n = inputs ? json_object_array_length(inputs) : 0;
    for (size_t i = 0; p->st == Q4_OK && i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "inputs[%zu]", i);
        json_object *j = json_object_array_get_idx(inputs, i);
        q4h_dump_array *a = &m->inputs[m->n_inputs++];
        q4h_jp_str(p, j, where, "name", a->name, sizeof a->name, false);
        check_name(p, where, a->name);
        get_descr(p, j, where, "dtype", a->descr);
        a->ndim = get_shape(p, j, where, "shape", a->shape, Q4H_NPY_MAX_DIMS);
    }
    json_object *outputs = objects(p, root, "outputs", Q4H_MAX_OUTPUTS, false);
    n = outputs ? json_object_array_length(outputs) : 0;
    for (size_t i = 0; p->st == Q4_OK && i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "outputs[%zu]", i);
        parse_output(p, json_object_array_get_idx(outputs, i), where, &m->outputs[m->n_outputs++]);
    }
    json_object *dev = q4h_jp_member(p, root, "", "device", json_type_object, true, "an object");
    if (dev) {
        q4h_jp_str(p, dev, "device", "name", m->device, sizeof m->device, true);
        q4h_jp_str(p, dev, "device", "type", m->device_type, sizeof m->device_type, true);
        q4h_jp_str(p, dev, "device", "uuid", m->uuid, sizeof m->uuid, true);
        q4h_jp_str(p, dev, "device", "driver", m->driver, sizeof m->driver, true);
        q4h_jp_str(p, dev, "device", "driver_version", m->driver_version, sizeof m->driver_version,
                true);
        q4h_jp_str(p, dev, "device", "driver_info", m->driver_info, sizeof m->driver_info, true);
        q4h_jp_str(p, dev, "device", "vulkan", m->vulkan, sizeof m->vulkan, true);
    }
    json_object *kernels = objects(p, root, "kernels", Q4H_DUMP_MAX_KERNELS, true);
    n = kernels ? json_object_array_length(kernels) : 0;
    for (size_t i = 0; p->st == Q4_OK && i < n; i++) {
        json_object *k = json_object_array_get_idx(kernels, i);
        q4h_jp_str(p, k, "kernels", "kernel", m->kernels[i][0], sizeof m->kernels[i][0], false);
        q4h_jp_str(p, k, "kernels", "file", m->kernels[i][1], sizeof m->kernels[i][1], false);
        m->n_kernels++;
    }
    json_object *strict = q4h_jp_member(p, root, "", "strict", json_type_boolean, true, "true or false");
    m->strict = strict && json_object_get_boolean(strict);
    json_object *result = q4h_jp_member(p, root, "", "result", json_type_object, false, "an object");
    if (result)
        parse_result(p, result, &m->result);
}

q4_status q4h_case_json_parse(const char *buf, size_t size, const char *what, q4h_dump_meta *m,
                              q4_error *err)
{
    *m = (q4h_dump_meta){ 0 };
    json_object *root = q4h_json_parse_object(buf, size, what, err);
    if (!root)
        return err ? err->status : Q4_ERR_ARG;
    q4h_jparser p = { what, err, Q4_OK };
    parse_root(&p, root, m);
    q4_status st = p.st;
    json_object_put(root);
    return st;
}

const q4h_dump_param *q4h_dump_param_find(const q4h_dump_meta *m, const char *key)
{
    for (int i = 0; i < m->n_params; i++)
        if (!strcmp(m->params[i].key, key))
            return &m->params[i];
    return NULL;
}
