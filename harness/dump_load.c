/* dump_load.c: a dumped case's files read back, each checked against case.json and
 * the op (dtype and shape), for `q4cts replay` and `q4cts report`. */
#include "dump_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "outputs.h"

/* More elements than any case has, and few enough that sizes in bytes never overflow. */
#define MAX_ELEMENTS (INT64_C(1) << 40)

static void shape_text(int ndim, const int64_t *shape, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < ndim && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
                                (long long)shape[i]);
    if (len < size)
        snprintf(buf + len, size - len, "%s)", ndim == 1 ? "," : "");
}

q4_status q4h_dump_load_array(const char *dir, const char *name, const char *part,
                              const char *descr, int ndim, const int64_t *shape, void *dst,
                              q4_error *err)
{
    char path[1200], got[96], want[96];
    size_t size;
    snprintf(path, sizeof path, "%s/%s%s%s.npy", dir, name, part[0] ? "." : "", part);
    char *buf = q4h_read_file(path, &size);
    if (!buf)
        return q4_fail(err, Q4_ERR_IO, "cannot read %s: %s", path, q4_file_strerror(errno));
    q4h_npy a;
    q4_status st = q4h_npy_parse(buf, size, path, &a, err);
    bool same = st == Q4_OK && a.ndim == ndim;
    for (int i = 0; same && i < ndim; i++)
        same = a.shape[i] == shape[i];
    if (st == Q4_OK && strcmp(a.descr, descr)) {
        st = q4_fail(err, Q4_ERR_ARG, "%s holds dtype %s; expected %s", path, a.descr, descr);
    } else if (st == Q4_OK && !same) {
        shape_text(a.ndim, a.shape, got, sizeof got);
        shape_text(ndim, shape, want, sizeof want);
        st = q4_fail(err, Q4_ERR_ARG, "%s has shape %s; expected %s", path, got, want);
    } else if (st == Q4_OK) {
        memcpy(dst, a.data, (size_t)a.count * a.elem);
    }
    free(buf);
    return st;
}

q4_status q4h_dump_load_outputs(const char *dir, const q4h_dump_meta *m, q4h_outputs *out,
                                q4_error *err)
{
    q4_status st = Q4_OK;
    for (int k = 0; k < m->n_outputs && st == Q4_OK; k++) {
        const q4h_dump_output *d = &m->outputs[k];
        /* rows: every dimension but the last (leading dims of an activation too) */
        int64_t rows = 1, cols = d->ndim ? d->shape[d->ndim - 1] : 1;
        for (int i = 0; i + 1 < d->ndim && rows <= MAX_ELEMENTS; i++)
            rows *= d->shape[i] <= MAX_ELEMENTS ? d->shape[i] : MAX_ELEMENTS + 1;
        if (rows > MAX_ELEMENTS || cols > MAX_ELEMENTS || rows * cols > MAX_ELEMENTS)
            return q4_fail(err, Q4_ERR_ARG, "%s: output %s has more than 2^40 elements", dir,
                           d->name);
        q4h_output *o;
        if (!d->has_got)
            return q4_fail(err, Q4_ERR_ARG, "%s holds no GPU result for output %s (the case "
                           "ended in %s before it was read back); replay --rerun runs it again",
                           dir, d->name, q4_verdict_name(m->result.verdict));
        st = d->code ? q4h_code_output(out, d->name, rows, cols, d->dims[0], d->dims[1], &o, err)
                     : q4h_real_output(out, d->name, rows, cols, d->dims[0], d->dims[1], &o, err);
        if (st != Q4_OK)
            break;
        o->guard_ok = d->guard_ok;
        o->guard_bad_at = d->guard_bad_at;
        o->padding_ok = d->padding_ok;
        o->padding_bad_at = d->padding_bad_at;
        if (d->code) {
            st = q4h_dump_load_array(dir, d->name, "code", "|u1", d->ndim, d->shape, o->code, err);
            if (st == Q4_OK)
                st = q4h_dump_load_array(dir, d->name, "alt", "|u1", d->ndim, d->shape, o->alt, err);
            if (st == Q4_OK)
                st = q4h_dump_load_array(dir, d->name, "got", "|u1", d->ndim, d->shape, o->got_code, err);
        } else {
            st = q4h_dump_load_array(dir, d->name, "value", "<f8", d->ndim, d->shape, o->value, err);
            if (st == Q4_OK)
                st = q4h_dump_load_array(dir, d->name, "bound", "<f8", d->ndim, d->shape, o->bound, err);
            if (st == Q4_OK)
                st = q4h_dump_load_array(dir, d->name, "got", "<f4", d->ndim, d->shape, o->got, err);
            o->dot_n = d->dot_n;
            o->dot_factors = d->dot_factors;
            if (st == Q4_OK && d->env)
                st = q4h_output_envelope(o, d->env_shared, err);
            if (st == Q4_OK && d->env)
                st = q4h_dump_load_array(dir, d->name, "env_alw", "<f4", d->ndim, d->shape, o->env.alw, err);
            if (st == Q4_OK && d->env)
                st = q4h_dump_load_array(dir, d->name, "env_sd", "<f4", d->ndim, d->shape, o->env.sd, err);
            if (st == Q4_OK && d->env_shared)
                st = q4h_dump_load_array(dir, d->name, "env_shr", "<f4", d->ndim, d->shape, o->env.shr, err);
        }
    }
    return st;
}


q4_status q4h_dump_read_meta(const char *dir, q4h_dump_meta *m, q4_error *err)
{
    char path[1100];
    size_t size = 0;
    snprintf(path, sizeof path, "%s/case.json", dir);
    char *text = q4h_read_file(path, &size);
    if (!text)
        return q4_fail(err, Q4_ERR_IO, "cannot read %s: %s (replay takes the folder of one "
                       "case, DIR/<case name> of --dump-dir, or DIR itself)", path,
                       q4_file_strerror(errno));
    q4_status st = q4h_case_json_parse(text, size, path, m, err);
    free(text);
    return st;
}
