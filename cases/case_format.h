/* case_format.h: the canonical name of a case (q4_case_format of q4case.h,
 * case_format.c) and what it shows. */
#ifndef Q4C_CASE_FORMAT_H
#define Q4C_CASE_FORMAT_H

#include "case_desc.h"

/* Whether the name shows c->values: not for the default, nor where the family (or
 * the random draw) decides the values. */
int q4c_shows_values(const q4c_op *op, const q4_case *c);

#endif
