/* case_shape.c: the parts of a name and the shape checks several ops share
 * (case_shape.h): M or the leading dims, the params level of the quantized linear ops
 * (m|d n k g [b]) and of the one-weight ops (n k g). */
#include <string.h>

#include "case_shape.h"

void q4c_format_m(const q4_case *c, q4c_text *t)
{
    if (c->nlead > 0) {
        q4c_put(t, "d%lld", (long long)c->lead[0]);
        for (int i = 1; i < c->nlead && i < 4; i++) q4c_put(t, "x%lld", (long long)c->lead[i]);
    } else {
        q4c_put(t, "m%lld", (long long)c->m);
    }
}

q4_status q4c_check_lead(const q4_case *c, q4_error *err)
{
    int64_t prod = 1;
    if (c->nlead < 0 || c->nlead > 4)
        return q4_fail(err, Q4_ERR_ARG, "%d leading dims given; at most 4", c->nlead);
    for (int i = 0; i < c->nlead; i++) {
        if (c->lead[i] < 1 || c->lead[i] > Q4C_NUM_MAX)
            return q4_fail(err, Q4_ERR_ARG, "leading dim %lld must be in 1..2^40",
                           (long long)c->lead[i]);
        if (prod > Q4C_NUM_MAX / c->lead[i])
            return q4_fail(err, Q4_ERR_ARG, "the leading dims give M above 2^40");
        prod *= c->lead[i];
    }
    if (c->nlead > 0 && prod != c->m)
        return q4_fail(err, Q4_ERR_ARG, "M = %lld must equal the product of the leading dims (%lld)",
                       (long long)c->m, (long long)prod);
    return Q4_OK;
}

q4_status q4c_linear_check(const q4_case *c, int max_bias, q4_error *err)
{
    q4_status st = q4c_check_lead(c, err);
    if (st == Q4_OK && (c->bias < 0 || c->bias > max_bias))
        return max_bias ? q4_fail(err, Q4_ERR_ARG, "b = %d must be 0 or 1", c->bias)
                        : q4_fail(err, Q4_ERR_ARG, "b = %d must be 0: this op takes no bias",
                                  c->bias);
    return st ? st : q4_check_linear(c->m, c->n, c->k, c->gs, err);
}

void q4c_fill_m(const q4c_params *p, q4_case *c)
{
    memcpy(c->lead, p->lead, sizeof c->lead);
    c->nlead = p->nlead;
    if (Q4C_HAVE(p, 'm')) {
        c->m = Q4C_P(p, 'm');   /* with d as well: q4c_check_lead checks that they agree */
        return;
    }
    /* Saturates above 2^40 (q4c_check_lead then names the overflow); no signed overflow. */
    c->m = 1;
    for (int i = 0; i < c->nlead; i++) {
        if (c->lead[i] > 0 && c->m > Q4C_NUM_MAX / c->lead[i]) { c->m = Q4C_NUM_MAX + 1; break; }
        c->m *= c->lead[i];
    }
}

q4_status q4c_linear_fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    q4c_fill_m(p, c);
    c->n = Q4C_P(p, 'n');
    c->k = Q4C_P(p, 'k');
    c->gs = Q4C_P(p, 'g');
    if (Q4C_HAVE(p, 'b') && Q4C_P(p, 'b') > 1)
        return q4_fail(err, Q4_ERR_ARG, "b%lld: expected b0 or b1", (long long)Q4C_P(p, 'b'));
    c->bias = Q4C_HAVE(p, 'b') ? (int)Q4C_P(p, 'b') : 0;
    return Q4_OK;
}

void q4c_linear_format(const q4_case *c, q4c_text *t)
{
    q4c_format_m(c, t);
    q4c_put(t, "_n%lld_k%lld_g%lld", (long long)c->n, (long long)c->k, (long long)c->gs);
    if (c->bias) q4c_put(t, "_b1");
}

q4_status q4c_weight_fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    (void)err;
    c->n = Q4C_P(p, 'n');
    c->k = Q4C_P(p, 'k');
    c->gs = Q4C_P(p, 'g');
    return Q4_OK;
}

void q4c_weight_format(const q4_case *c, q4c_text *t)
{
    q4c_put(t, "n%lld_k%lld_g%lld", (long long)c->n, (long long)c->k, (long long)c->gs);
}

q4_status q4c_weight_check(const q4_case *c, q4_error *err)
{
    return q4_check_weight(c->n, c->k, c->gs, err);
}
