/* case_ops.c: the table of op descriptors (ops/<op>.c), the only place that lists
 * the ops, the lookups over it (by name, by index, a case's own op), and the public
 * listing of ops, families and value classes (q4case.h). */
#include <string.h>

#include "case_families.h"
#include "case_ops.h"

extern const q4c_op q4c_op_adamw_step, q4c_op_dequantize, q4c_op_fused_ce, q4c_op_linear_dW,
    q4c_op_linear_q4gsw, q4c_op_linear_q4gsw_backward, q4c_op_q4gsw_requant;
/* The training cases' descriptor (case_train.c): found by name like an op's, listed
 * by no op table (training is not an op). */
extern const q4c_op q4c_op_train;

/* Sorted by name: listings and "unknown op" messages show this order. */
static const q4c_op *const table[] = {
    &q4c_op_adamw_step,   &q4c_op_dequantize,          &q4c_op_fused_ce,
    &q4c_op_linear_dW,    &q4c_op_linear_q4gsw,        &q4c_op_linear_q4gsw_backward,
    &q4c_op_q4gsw_requant,
};
#define N_OPS ((int)(sizeof table / sizeof table[0]))

const q4c_op *q4c_op_at(int i) { return i >= 0 && i < N_OPS ? table[i] : NULL; }

const q4c_op *q4c_op_find(const char *name)
{
    for (int i = 0; name && i < N_OPS; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    if (name && strcmp(name, q4c_op_train.name) == 0)
        return &q4c_op_train;
    return NULL;
}

const q4c_op *q4c_train_desc(void) { return &q4c_op_train; }

const q4c_op *q4c_case_op(const q4_case *c)
{
    if (!c) return NULL;
    if (c->desc && c->desc->name == c->op)   /* the parser's own pointer: still c's op */
        return c->desc;
    return q4c_op_find(c->op);
}

int q4_case_op_index(const q4_case *c)
{
    const q4c_op *op = q4c_case_op(c);
    for (int i = 0; op && i < N_OPS; i++)
        if (table[i] == op)
            return i;
    return -1;
}

const char *q4_case_op(int i)
{
    const q4c_op *op = q4c_op_at(i);
    return op ? op->name : NULL;
}

const char *q4_case_family(const char *op, int i)
{
    const q4c_op *o = q4c_op_find(op);
    for (int j = 0; o && o->families[j].name; j++)
        if (j == i) return o->families[j].name;
    return NULL;
}

const char *q4_case_values(const char *op, int i)
{
    const q4c_op *o = q4c_op_find(op);
    for (int j = 0; o && o->classes[j].name; j++)
        if (j == i) return o->classes[j].name;
    return NULL;
}

const char *q4_case_family_doc(const char *op, const char *family)
{
    const q4c_op *o = q4c_op_find(op);
    return o && q4c_family_find(o, family) ? q4c_family_doc(family) : NULL;
}

const char *q4_case_values_doc(const char *op, const char *values)
{
    const q4c_op *o = q4c_op_find(op);
    const q4c_class *v = o ? q4c_class_find(o, values) : NULL;
    return v ? v->doc : NULL;
}
