/* case_ops.h: the table of op descriptors, the only place that lists the ops
 * (case_ops.c), and resolving a case's op. */
#ifndef Q4C_CASE_OPS_H
#define Q4C_CASE_OPS_H

#include "case_desc.h"

/* The descriptor of op `name`; NULL when no op has that name. */
const q4c_op *q4c_op_find(const char *name);
const q4c_op *q4c_op_at(int i);   /* NULL past the end */
/* The training cases' descriptor (case_train.c); q4c_op_find("train") finds it too. */
const q4c_op *q4c_train_desc(void);
/* The descriptor of c's op: c->desc when it is set and still names c->op (the
 * parser's case, or a copy of it), else looked up by c->op (a hand-built or edited
 * case); NULL when c->op names no op. */
const q4c_op *q4c_case_op(const q4_case *c);

#endif
