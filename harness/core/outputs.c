/* outputs.c: allocation of the outputs a case judges (see op.h). */
#include "outputs.h"

#include <stdlib.h>

#include "case_free.h"

/* Writes a byte of every page of p: the read-back fills got on one core (a copy from
 * the staging buffer), and a first write faults each page in; faulted here on every
 * core, gigabytes of a big case's outputs are not paged in one by one there. For
 * speed alone (got is written whole before it is read): on adamw_step n4194319, 2
 * threads, the read-back's page faults were 6% of the worker thread's samples (perf). */
static void fault_in(void *p, size_t bytes)
{
    char *b = p;
    if (!b)
        return;
#pragma omp parallel for schedule(static)
    for (int64_t page = 0; page < (int64_t)((bytes + 4095) / 4096); page++)
        b[page * 4096] = 0;
}

/* Appends output `name` to out with its arrays: truth value, bound and got for a real
 * output; expected code, accepted alternative and got for a code output. */
static q4_status add(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                     const char *row_name, const char *col_name, bool code, bool tiled,
                     q4h_output **o, q4_error *err)
{
    if (out->n == Q4H_MAX_OUTPUTS)
        return q4_fail(err, Q4_ERR_ARG, "too many outputs for one case (at most %d)",
                       Q4H_MAX_OUTPUTS);
    *o = &out->o[out->n++];
    q4h_shape shape = row_name[0] != '-'   ? Q4H_MATRIX
                      : col_name[0] != '-' ? Q4H_VECTOR
                                           : Q4H_SCALAR;
    **o = (q4h_output){ .name = name, .count = rows * cols, .rows = rows, .cols = cols,
                        .row_name = row_name, .col_name = col_name, .shape = shape,
                        .guard_ok = true, .guard_bad_at = -1, .padding_ok = true,
                        .padding_bad_at = -1, .tiled = tiled };
    size_t n = (size_t)(rows * cols);
    bool ok;
    if (code) {
        (*o)->code = malloc(n);
        (*o)->alt = malloc(n);
        (*o)->got_code = malloc(n);
        ok = (*o)->code && (*o)->alt && (*o)->got_code;
        fault_in((*o)->got_code, n);
    } else {
        if (!tiled) {
            (*o)->value = malloc(n * sizeof(double));
            (*o)->bound = malloc(n * sizeof(double));
        }
        (*o)->got = malloc(n * sizeof(float));
        ok = (tiled || ((*o)->value && (*o)->bound)) && (*o)->got;
        fault_in((*o)->got, n * sizeof(float));
    }
    if (!ok)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the %s output (%zu %s)", name, n,
                       code ? "codes" : "elements");
    return Q4_OK;
}

q4_status q4h_real_output(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                          const char *row_name, const char *col_name, q4h_output **o,
                          q4_error *err)
{
    return add(out, name, rows, cols, row_name, col_name, false, false, o, err);
}

q4_status q4h_tiled_output(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                           const char *row_name, const char *col_name, q4h_output **o,
                           q4_error *err)
{
    return add(out, name, rows, cols, row_name, col_name, false, true, o, err);
}

q4_status q4h_output_envelope(q4h_output *o, bool shared, q4_error *err)
{
    size_t n = (size_t)o->count;
    if (o->tiled) {   /* its tiles have the arrays */
        o->tiled_env = true;
        o->tiled_shr = shared;
        return Q4_OK;
    }
    o->env.alw = malloc(n * sizeof(float));
    o->env.sd = malloc(n * sizeof(float));
    o->env.shr = shared ? malloc(n * sizeof(float)) : NULL;
    if (!o->env.alw || !o->env.sd || (shared && !o->env.shr))
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the envelope of output %s (%zu "
                       "elements)", o->name, n);
    return Q4_OK;
}

q4_status q4h_output_col_var(q4h_output *o, q4_error *err)
{
    o->col_var[0] = malloc((size_t)o->cols * sizeof(double));
    o->col_var[1] = malloc((size_t)o->cols * sizeof(double));
    if (!o->col_var[0] || !o->col_var[1])
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the column variances of output %s "
                       "(%lld columns)", o->name, (long long)o->cols);
    return Q4_OK;
}

q4_status q4h_code_output(q4h_outputs *out, const char *name, int64_t rows, int64_t cols,
                          const char *row_name, const char *col_name, q4h_output **o,
                          q4_error *err)
{
    return add(out, name, rows, cols, row_name, col_name, true, false, o, err);
}

void q4h_outputs_free(q4h_outputs *out)
{
    for (int i = 0; i < out->n; i++) {
        q4h_output *o = &out->o[i];
        q4_free_big(o->value);
        q4_free_big(o->bound);
        q4_free_big(o->got);
        q4_free_big(o->code);
        q4_free_big(o->alt);
        q4_free_big(o->got_code);
        q4_free_big(o->raw);
        free(o->col_var[0]);
        free(o->col_var[1]);
        q4_free_big(o->env.alw);
        q4_free_big(o->env.sd);
        q4_free_big(o->env.shr);
    }
    out->n = 0;
    if (out->tiles)
        out->tiled->free(out->tiles);
    out->tiled = NULL;
    out->tiles = NULL;
}
