/* op_table.c: the table of op descriptors, the only place that lists the ops. */
#include <stdbool.h>
#include <string.h>

#include "op.h"

extern const q4h_op q4h_op_dequantize, q4h_op_linear_q4gsw, q4h_op_linear_q4gsw_backward,
    q4h_op_linear_dW, q4h_op_fused_ce, q4h_op_adamw_step, q4h_op_q4gsw_requant;

static const q4h_op *const table[] = {
    &q4h_op_dequantize, &q4h_op_linear_q4gsw, &q4h_op_linear_q4gsw_backward, &q4h_op_linear_dW,
    &q4h_op_fused_ce,   &q4h_op_adamw_step,   &q4h_op_q4gsw_requant,
};

const q4h_op *const *q4h_ops(int *count)
{
    *count = (int)(sizeof table / sizeof table[0]);
    return table;
}

const q4h_op *q4h_op_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

const q4h_op *q4h_op_of(const q4_case *c)
{
    /* The parsed case carries its op (q4_case_op_index, no strings compared): the
     * harness's descriptor of each of q4cases' ops is found by name once, not once per
     * case. A case q4cases knows no op of is looked up by its name as given. */
    enum { MAX_OPS = 64 };
    static const q4h_op *of_index[MAX_OPS];
    static bool found[MAX_OPS];
    int i = q4_case_op_index(c);
    if (i < 0 || i >= MAX_OPS)
        return q4h_op_find(c->op);
    if (!found[i]) {
        of_index[i] = q4h_op_find(q4_case_op(i));
        found[i] = true;
    }
    return of_index[i];
}
