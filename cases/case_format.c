/* case_format.c: the canonical name of a case, q4cts.<op>.<family>.<params>[.<values>]
 * (q4_case_format; README.md "Name grammar"): the op's descriptor prints the params
 * level, then the device limits, then a value class the name must show. */
#include <string.h>

#include "case_format.h"
#include "case_ops.h"

/* The family whose shape and values come from a seed instead of the name. */
#define RANDOM "random"

int q4c_shows_values(const q4c_op *op, const q4_case *c)
{
    const q4c_family *f = q4c_family_find(op, c->family);
    return c->values[0] && strcmp(c->values, op->classes[0].name) != 0 &&
           strcmp(c->family, RANDOM) != 0 && !(f && f->values);
}

void q4_case_format(const q4_case *c, char *buf, size_t size)
{
    const q4c_op *op = q4c_case_op(c);
    q4c_text t = {buf, size, 0};
    if (!buf || size == 0) return;
    buf[0] = 0;
    q4c_put(&t, "q4cts.%s.%s.", c->op ? c->op : "?", c->family);
    if (!op) return;
    if (strcmp(c->family, RANDOM) == 0)
        q4c_put(&t, "s%lld", (long long)c->sweep);
    else
        op->format(c, &t);
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (c->limit[i])
            q4c_put(&t, "_%s%lld", q4_case_limit_key(i), (long long)c->limit[i]);
    if (q4c_shows_values(op, c))
        q4c_put(&t, ".%s", c->values);
}
