/* case_families.h: what each family name means and the checker of the family rules
 * an op's family rows state (case_families.c). */
#ifndef Q4C_CASE_FAMILIES_H
#define Q4C_CASE_FAMILIES_H

#include "case_desc.h"

/* The rules of family f for c: Q4_OK, or Q4_ERR_ARG with "family F needs ... (X = v)"
 * written to err (without the case-name prefix). */
q4_status q4c_family_check(const q4c_family *f, const q4_case *c, q4_error *err);
/* The line q4_case_family_doc returns: one per family name, the same for every op. */
const char *q4c_family_doc(const char *family);

#endif
