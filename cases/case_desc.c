/* case_desc.c: the lookups within one op descriptor (case_desc.h): a family row, a
 * value-class row, the value class a case's inputs use; and the writer of a name. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "case_desc.h"

void q4c_put(q4c_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->len, t->len < t->size ? t->size - t->len : 0, fmt, ap);
    va_end(ap);
    if (w > 0) t->len = t->len + (size_t)w < t->size ? t->len + (size_t)w : t->size;
}

const q4c_family *q4c_family_find(const q4c_op *op, const char *family)
{
    for (const q4c_family *f = op->families; family && f->name; f++)
        if (strcmp(f->name, family) == 0)
            return f;
    return NULL;
}

const q4c_class *q4c_class_find(const q4c_op *op, const char *cls)
{
    for (const q4c_class *v = op->classes; cls && v->name; v++)
        if (strcmp(v->name, cls) == 0)
            return v;
    return NULL;
}

const char *q4c_values_of(const q4c_op *op, const q4_case *c)
{
    const q4c_family *f = q4c_family_find(op, c->family);
    if (f && f->values) return f->values;
    return c->values[0] ? c->values : op->classes[0].name;
}

int q4c_values_is(const q4_case *c, const char *cls)
{
    const q4c_op *op = c->desc;
    return op && strcmp(q4c_values_of(op, c), cls) == 0;
}
