/* case_check.c: the validation of a filled case (case_check.h): the op's own checks
 * (values and the op contract of q4_contract.h), the device limits, the family's
 * rules, and an out-of-contract value class, found by making its inputs. The parser
 * runs it on every name and q4_case_inputs on every case, so a hand-built or edited
 * case is held to the same rules. Every message is "case name '<name>': <one
 * sentence>". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "case_check.h"
#include "case_families.h"
#include "case_limits.h"

q4_status q4c_bad(q4_error *err, const char *name, const char *fmt, ...)
{
    /* The name and the tokens the detail quotes are user text (a --filter, a line
     * of case.json): escaped, so no raw byte of theirs reaches a terminal. */
    char detail[Q4_MSG_MAX], shown_name[Q4_ECHO_MAX], shown_detail[Q4_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return q4_fail(err, Q4_ERR_ARG, "case name '%s': %s",
                   q4_echo(name, shown_name, sizeof shown_name),
                   q4_echo(detail, shown_detail, sizeof shown_detail));
}

/* An out-of-contract class is an error with the contract's sentence for the value
 * its inputs break (q4_check_scales, q4_check_labels, ...), found by making them. */
static q4_status check_class(const q4c_op *op, const q4_case *c, q4_error *err)
{
    const q4c_class *v = q4c_class_find(op, q4c_values_of(op, c));
    q4_inputs in;
    q4_status st;
    if (!v)
        return q4_fail(err, Q4_ERR_ARG, "unknown value class '%s' for op %s", c->values, op->name);
    if (!v->out_of_contract)
        return Q4_OK;
    memset(&in, 0, sizeof in);
    st = op->inputs(c, &in, err);
    if (st == Q4_OK) {
        st = op->check_inputs(c, &in, err);
        if (st == Q4_OK)   /* a class that fails to break the contract is a bug of ours */
            st = q4_fail(err, Q4_ERR_ARG, "value class %s made in-contract inputs", v->name);
    }
    q4_inputs_free(&in);
    return st;
}

q4_status q4c_validate_as(const q4c_op *op, const q4_case *c, const char *shown,
                          q4_error *err)
{
    const q4c_family *f;
    q4_error e = {0};
    q4_case r;
    if (!op)
        return q4c_bad(err, shown, "unknown op '%s'", c->op ? c->op : "(null)");
    if (!(f = q4c_family_find(op, c->family)))
        return q4c_bad(err, shown, "unknown family '%s' for op %s", c->family, op->name);
    r = *c;
    r.desc = op;   /* the input makers below read the value class through it */
    if (op->check(&r, &e) || q4c_check_limits(&r, &e) || q4c_family_check(f, &r, &e) ||
        check_class(op, &r, &e))
        return q4c_bad(err, shown, "%s", e.msg);
    return Q4_OK;
}

q4_status q4c_validate(const q4c_op *op, const q4_case *c, q4_error *err)
{
    char name[Q4_CASE_NAME_MAX];
    q4_case_format(c, name, sizeof name);
    return q4c_validate_as(op, c, name, err);
}
