/* q4ref_check.c: argument checks over lists of buffers, the BLAS index limit, and
 * counted allocation with a fault-injection hook (q4ref_fault_alloc_at). */
#include <limits.h>
#include <stdlib.h>

#include "q4ref_internal.h"

/* Per thread, so that tests running in parallel threads cannot disturb each other. */
static _Thread_local int64_t fail_at;

void q4ref_fault_alloc_at(int64_t nth) { fail_at = nth; }

void *q4ref_alloc(int64_t a, int64_t b, size_t elem, const char *what, q4_status *st,
                  q4_error *err)
{
    size_t bytes;
    void *p;
    if ((*st = q4_size_bytes(a, b, 1, elem, what, &bytes, err)))
        return NULL;
    p = (fail_at > 0 && --fail_at == 0) ? NULL : malloc(bytes ? bytes : 1);
    if (!p)
        *st = q4_fail(err, Q4_ERR_NOMEM, "could not allocate %zu bytes for %s", bytes, what);
    return p;
}

q4_status q4ref_check_bufs(const q4ref_buf *ins, int nin, const q4ref_buf *outs, int nout,
                           q4_error *err)
{
    q4_status st;
    for (int i = 0; i < nin; i++)
        if (!ins[i].optional && (st = q4_check_ptr(ins[i].p, ins[i].name, err)))
            return st;
    for (int i = 0; i < nout; i++)
        if (!outs[i].optional && (st = q4_check_ptr(outs[i].p, outs[i].name, err)))
            return st;
    for (int i = 0; i < nout; i++) {
        for (int j = 0; j < nin; j++)
            if ((st = q4_check_disjoint(outs[i].p, outs[i].bytes, outs[i].name, ins[j].p,
                                        ins[j].bytes, ins[j].name, err)))
                return st;
        for (int j = i + 1; j < nout; j++)
            if ((st = q4_check_disjoint(outs[i].p, outs[i].bytes, outs[i].name, outs[j].p,
                                        outs[j].bytes, outs[j].name, err)))
                return st;
    }
    return Q4_OK;
}

q4_status q4ref_check_blas_dim(const char *name, int64_t v, q4_error *err)
{
    if (v > INT_MAX)
        return q4_fail(err, Q4_ERR_UNSUPPORTED,
                       "%s = %lld exceeds the BLAS index range; the reference supports at most %d",
                       name, (long long)v, INT_MAX);
    return Q4_OK;
}
