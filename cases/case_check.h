/* case_check.h: the validation of a filled case (case_check.c): its values and the
 * op contract, its device limits, its family's rules and an out-of-contract value
 * class, each message "case name '<name>': <one sentence>". The parser runs it on
 * every name and q4_case_inputs on every case, so a hand-built or edited case is held
 * to the same rules as a name. */
#ifndef Q4C_CASE_CHECK_H
#define Q4C_CASE_CHECK_H

#include "case_desc.h"

/* Q4_ERR_ARG with "case name '<name>': <the detail>"; name and detail are escaped
 * (q4_echo), so no raw byte of user text reaches a terminal. */
q4_status q4c_bad(q4_error *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Validates c, whose op is op (resolved by the caller; NULL: "unknown op"), naming
 * it `shown` in messages. */
q4_status q4c_validate_as(const q4c_op *op, const q4_case *c, const char *shown,
                          q4_error *err);
/* The same, the case named by its canonical name (q4_case_format). */
q4_status q4c_validate(const q4c_op *op, const q4_case *c, q4_error *err);

#endif
