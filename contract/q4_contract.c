/* q4_contract.c: the argument checks of SPEC.md, with one-sentence messages. */
#include "q4_contract.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message cut at its buffer's end must not end inside a UTF-8 character: the
 * echoes in it are whole characters, and a torn one is invalid text on a terminal. */
static void drop_torn_utf8(char *msg)
{
    size_t n = strlen(msg), lead = n, cont = 0;
    while (lead > 0 && cont < 3 && ((unsigned char)msg[lead - 1] & 0xC0) == 0x80) {
        lead--;
        cont++;
    }
    if (lead == 0)
        return;
    unsigned char c = (unsigned char)msg[lead - 1];
    size_t want = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (c >= 0xC0 && cont < want)
        msg[lead - 1] = '\0';
}

q4_status q4_fail(q4_error *err, q4_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = st;
        int len = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (len >= (int)sizeof err->msg)
            drop_torn_utf8(err->msg);
    }
    return st;
}

const char *q4_status_name(q4_status st)
{
    switch (st) {
    case Q4_OK: return "ok";
    case Q4_ERR_ARG: return "invalid argument";
    case Q4_ERR_NOMEM: return "out of host memory";
    case Q4_ERR_RESOURCE: return "resource error";
    case Q4_ERR_UNSUPPORTED: return "not supported";
    case Q4_ERR_DEVICE: return "device error";
    case Q4_ERR_DEVICE_LOST: return "device lost";
    case Q4_ERR_TIMEOUT: return "timeout";
    case Q4_ERR_VALIDATION: return "validation error";
    case Q4_ERR_IO: return "I/O error";
    }
    return "unknown status";
}

static q4_status positive(const char *name, int64_t v, q4_error *err)
{
    if (v < 1)
        return q4_fail(err, Q4_ERR_ARG, "%s = %lld must be at least 1", name, (long long)v);
    return Q4_OK;
}

static q4_status multiple_of_4(const char *name, int64_t v, q4_error *err)
{
    q4_status st = positive(name, v, err);
    if (st == Q4_OK && v % 4 != 0)
        return q4_fail(err, Q4_ERR_ARG, "%s = %lld must be a multiple of 4", name, (long long)v);
    return st;
}

q4_status q4_size_bytes(int64_t a, int64_t b, int64_t c, size_t elem, const char *what,
                        size_t *bytes, q4_error *err)
{
    /* Every factor is positive here; divide before multiplying to detect overflow. */
    const uint64_t lim = (uint64_t)INT64_MAX;
    uint64_t n = (uint64_t)a;
    if (a < 0 || b < 0 || c < 0)
        return q4_fail(err, Q4_ERR_ARG, "%s has a negative dimension", what);
    if (b && n > lim / (uint64_t)b) goto overflow;
    n *= (uint64_t)b;
    if (c && n > lim / (uint64_t)c) goto overflow;
    n *= (uint64_t)c;
    if (elem && n > (uint64_t)SIZE_MAX / elem) goto overflow;
    if (bytes) *bytes = (size_t)(n * elem);
    return Q4_OK;
overflow:
    return q4_fail(err, Q4_ERR_ARG, "%s of %lld x %lld x %lld elements overflows the address space",
                   what, (long long)a, (long long)b, (long long)c);
}

q4_status q4_check_weight(int64_t N, int64_t K, int64_t gs, q4_error *err)
{
    q4_status st;
    if ((st = multiple_of_4("N", N, err)) || (st = multiple_of_4("K", K, err)) ||
        (st = multiple_of_4("gs", gs, err)))
        return st;
    if (K % gs != 0)
        return q4_fail(err, Q4_ERR_ARG, "K = %lld must be a multiple of the group size gs = %lld",
                       (long long)K, (long long)gs);
    return q4_size_bytes(N, K, 1, sizeof(float), "the weight [N, K]", NULL, err);
}

q4_status q4_check_linear(int64_t M, int64_t N, int64_t K, int64_t gs, q4_error *err)
{
    q4_status st;
    if ((st = positive("M", M, err)) || (st = q4_check_weight(N, K, gs, err)))
        return st;
    if ((st = q4_size_bytes(M, K, 1, sizeof(float), "the activation [M, K]", NULL, err)))
        return st;
    return q4_size_bytes(M, N, 1, sizeof(float), "the output [M, N]", NULL, err);
}

q4_status q4_check_dw(int64_t M, int64_t N, int64_t K, q4_error *err)
{
    q4_status st;
    if ((st = positive("M", M, err)) || (st = multiple_of_4("N", N, err)) ||
        (st = multiple_of_4("K", K, err)))
        return st;
    if ((st = q4_size_bytes(M, K, 1, sizeof(float), "the activation [M, K]", NULL, err)) ||
        (st = q4_size_bytes(M, N, 1, sizeof(float), "the output gradient [M, N]", NULL, err)))
        return st;
    return q4_size_bytes(N, K, 1, sizeof(float), "the weight gradient [N, K]", NULL, err);
}

q4_status q4_check_ce_shape(int64_t R, int64_t V, double n_valid, q4_error *err)
{
    q4_status st;
    if ((st = positive("R", R, err)) || (st = positive("V", V, err)))
        return st;
    if (!isfinite(n_valid) || n_valid <= 0)
        return q4_fail(err, Q4_ERR_ARG, "n_valid = %g must be a finite number greater than 0",
                       n_valid);
    return q4_size_bytes(R, V, 1, sizeof(float), "the logits [R, V]", NULL, err);
}

static q4_status finite_arg(const char *name, double v, q4_error *err)
{
    if (!isfinite(v))
        return q4_fail(err, Q4_ERR_ARG, "%s = %g must be finite", name, v);
    return Q4_OK;
}

q4_status q4_check_adamw(int64_t numel, double lr, double beta1, double beta2,
                         double eps, double wd, double bc1, double bc2, q4_error *err)
{
    q4_status st;
    if ((st = positive("numel", numel, err)) || (st = finite_arg("lr", lr, err)) ||
        (st = finite_arg("beta1", beta1, err)) || (st = finite_arg("beta2", beta2, err)) ||
        (st = finite_arg("eps", eps, err)) || (st = finite_arg("wd", wd, err)) ||
        (st = finite_arg("bc1", bc1, err)) || (st = finite_arg("bc2", bc2, err)))
        return st;
    if (bc1 == 0)
        return q4_fail(err, Q4_ERR_ARG, "bc1 = 1 - beta1^t must be non-zero, got 0");
    if (bc2 == 0)
        return q4_fail(err, Q4_ERR_ARG, "bc2 = 1 - beta2^t must be non-zero, got 0");
    return q4_size_bytes(numel, 1, 1, sizeof(float), "the parameter vector", NULL, err);
}

q4_status q4_check_scales(const float *scales, int64_t count, q4_error *err)
{
    q4_status st = q4_check_ptr(scales, "scales", err);
    for (int64_t i = 0; st == Q4_OK && i < count; i++) {
        float s = scales[i];
        if (!isfinite(s))
            return q4_fail(err, Q4_ERR_ARG, "scales[%lld] = %g must be finite", (long long)i, s);
        if (s != 0 && fabsf(s) < (float)Q4_FLT_MIN_NORMAL)
            return q4_fail(err, Q4_ERR_ARG,
                           "scales[%lld] = %g is denormal; a scale must be 0 or at least 2^-126",
                           (long long)i, s);
    }
    return st;
}

q4_status q4_check_labels(const int32_t *labels, int64_t R, int64_t V, q4_error *err)
{
    q4_status st = q4_check_ptr(labels, "labels", err);
    for (int64_t r = 0; st == Q4_OK && r < R; r++)
        if (labels[r] >= V)
            return q4_fail(err, Q4_ERR_ARG,
                           "labels[%lld] = %d is out of range: expected a class below V = %lld "
                           "or a negative ignore index",
                           (long long)r, labels[r], (long long)V);
    return st;
}

q4_status q4_check_ptr(const void *p, const char *name, q4_error *err)
{
    if (!p)
        return q4_fail(err, Q4_ERR_ARG, "%s is NULL; expected a buffer", name);
    return Q4_OK;
}

q4_status q4_check_disjoint(const void *a, size_t abytes, const char *aname,
                            const void *b, size_t bbytes, const char *bname, q4_error *err)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    if (a && b && a0 < b0 + bbytes && b0 < a0 + abytes)
        return q4_fail(err, Q4_ERR_ARG, "%s and %s overlap; they must be separate buffers",
                       aname, bname);
    return Q4_OK;
}
