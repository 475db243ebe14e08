/* dump_load.c: a dumped case's files read back, each checked against case.json and
 * the op (dtype and shape), for `q4cts replay` and `q4cts report`. */
#include "dump_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "files.h"
#include "interface.h"
#include "outputs.h"

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

/* The outputs case c of op has, as its truth makes them: names, kinds, shapes and
 * statistical envelopes, with their arrays allocated at the case's sizes (which the
 * case's name bounds, not case.json). The truth is computed from the case's generated
 * inputs; its values are then replaced by the dump's. */
static q4_status case_outputs(const q4h_op *op, const q4_case *c, q4h_outputs *out,
                              q4_error *err)
{
    q4_inputs in = { 0 };
    q4_status st = q4_case_inputs(c, &in, err);
    if (st == Q4_OK)
        st = op->truth(c, &in, out, err);
    q4_inputs_free(&in);
    return st;
}

/* The dumped output d is the case's output o: name, kind, shape, envelope, dot. */
static q4_status same_output(const char *dir, const q4_case *c, const q4h_dump_output *d,
                             const q4h_output *o, q4_error *err)
{
    int64_t shape[Q4H_NPY_MAX_DIMS];
    int ndim = q4h_dump_shape(c, o->shape, o->rows, o->cols, shape);
    bool same = ndim == d->ndim;
    for (int i = 0; same && i < ndim; i++)
        same = shape[i] == d->shape[i];
    char got[96], want[96];
    if (strcmp(d->name, o->name) || d->code != (o->got == NULL))
        return q4_fail(err, Q4_ERR_ARG, "%s/case.json: output %s (%s) is not the case's: case "
                       "%s has output %s (%s) there", dir, d->name, d->code ? "code" : "real",
                       c->name, o->name, o->got ? "real" : "code");
    if (!same) {
        shape_text(d->ndim, d->shape, got, sizeof got);
        shape_text(ndim, shape, want, sizeof want);
        return q4_fail(err, Q4_ERR_ARG, "%s/case.json: output %s has shape %s; case %s's is %s",
                       dir, d->name, got, c->name, want);
    }
    if (d->env != (o->env.alw != NULL) || d->env_shared != (o->env.shr != NULL))
        return q4_fail(err, Q4_ERR_ARG, "%s/case.json: output %s %s an envelope; case %s's "
                       "output %s", dir, d->name, d->env ? "has" : "has no", c->name,
                       o->env.alw ? "has one" : "has none");
    if (!d->code && !d->env && (d->dot_n != o->dot_n || d->dot_factors != o->dot_factors))
        return q4_fail(err, Q4_ERR_ARG, "%s/case.json: output %s is a dot product of %lld terms "
                       "of %d factors; case %s's is of %lld of %d", dir, d->name,
                       (long long)d->dot_n, d->dot_factors, c->name, (long long)o->dot_n,
                       o->dot_factors);
    return Q4_OK;
}

/* The op's output tensor that output `name` is a layout of (requant's w is written as
 * w4x8 and flat), or -1. */
static int tensor_of(const q4h_if_op *iop, const char *name)
{
    for (int t = 0; iop && t < iop->n_tensors; t++)
        for (int l = 0; l < Q4H_LAYOUT_COUNT; l++)
            if ((iop->tensors[t].layouts >> l & 1) &&
                !strcmp(q4h_if_output_name(&iop->tensors[t], (q4h_layout)l), name))
                return t;
    return -1;
}

/* Whether m lists the case's outputs (out, the truth's): all of them, in order, but
 * for an output tensor written in several layouts, of which one is enough (an
 * --interface file that writes requant's w as flat only dumps that). out keeps the
 * listed ones. */
static bool dumped_outputs(const q4h_dump_meta *m, const q4h_op *op, q4h_outputs *out)
{
    const q4h_if_op *iop = q4h_if_op_find(op->name);
    bool listed[Q4H_MAX_OUTPUTS] = { false };
    int at = 0;
    for (int k = 0; k < m->n_outputs; k++) {
        while (at < out->n && strcmp(out->o[at].name, m->outputs[k].name))
            at++;
        if (at == out->n)
            return false;   /* not the case's, twice, or out of order */
        listed[at++] = true;
    }
    for (int i = 0; i < out->n; i++) {
        bool tensor_listed = listed[i];
        int t = tensor_of(iop, out->o[i].name);
        for (int j = 0; j < out->n && !tensor_listed && t >= 0; j++)
            tensor_listed = listed[j] && tensor_of(iop, out->o[j].name) == t;
        if (!tensor_listed)
            return false;
    }
    int kept = 0;
    for (int i = 0; i < out->n; i++) {
        if (listed[i]) {
            out->o[kept++] = out->o[i];
        } else {
            q4h_outputs one = { .n = 1, .o = { out->o[i] } };
            q4h_outputs_free(&one);
        }
    }
    out->n = kept;
    return true;
}

q4_status q4h_dump_load_outputs(const char *dir, const q4h_dump_meta *m, q4h_outputs *out,
                                q4_error *err)
{
    q4_case c;
    q4_error why = { 0 };
    if (q4_case_parse(m->name, m->seed, &c, &why) != Q4_OK)
        return q4_fail(err, Q4_ERR_ARG, "%s/case.json: name: %s", dir, why.msg);
    const q4h_op *op = q4h_op_of(&c);
    if (!op || strcmp(m->op, c.op))
        return q4_fail(err, Q4_ERR_ARG, "%s/case.json: op is '%s' but the case %s is of op %s",
                       dir, m->op, m->name, c.op);
    /* The outputs judged are the case's, not whichever case.json lists: each must be
     * there, as the case has it, before any file is read into it. */
    for (int k = 0; k < m->n_outputs; k++)
        if (!m->outputs[k].has_got)
            return q4_fail(err, Q4_ERR_ARG, "%s holds no GPU result for output %s (the case "
                           "ended in %s before it was read back); replay --rerun runs it again",
                           dir, m->outputs[k].name, q4_verdict_name(m->result.verdict));
    q4_status st = case_outputs(op, &c, out, err);
    if (st == Q4_OK && !dumped_outputs(m, op, out)) {
        char names[160] = "";
        for (int k = 0; k < out->n; k++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", out->o[k].name);
        }
        st = q4_fail(err, Q4_ERR_ARG, "%s/case.json lists %d outputs; case %s has %d (%s), each "
                     "tensor once at least, in that order", dir, m->n_outputs, m->name, out->n,
                     names);
    }
    for (int k = 0; k < m->n_outputs && st == Q4_OK; k++) {
        const q4h_dump_output *d = &m->outputs[k];
        q4h_output *o = &out->o[k];
        if ((st = same_output(dir, &c, d, o, err)) != Q4_OK)
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
