/* interface_expr.h: the expressions of an interface file (docs/interface-format.md,
 * "Expressions"): integer and real arithmetic over a case's parameters with
 * + - * / %, unary -, parentheses, ceil_div, align, min and max; comparisons
 * (== != < <= > >=), ! && || and c ? a : b.
 *
 * An expression is parsed once, against the names its op has (each with a type), and
 * its type is known from then on; it is evaluated once per case with that case's
 * values. Parse errors and evaluation errors are sentences for the caller to prefix
 * with the file and key. */
#ifndef Q4H_INTERFACE_EXPR_H
#define Q4H_INTERFACE_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define Q4H_EXPR_MAX_CHARS 4096
#define Q4H_EXPR_MAX_DEPTH 64

typedef enum q4h_xtype { Q4H_X_INT, Q4H_X_REAL } q4h_xtype;

typedef struct q4h_xval {
    q4h_xtype type;
    int64_t i;                 /* Q4H_X_INT */
    double r;                  /* Q4H_X_REAL */
} q4h_xval;

/* A name an expression may use; values[k] of q4h_expr_eval is names[k]'s value. */
typedef struct q4h_xname {
    const char *name;
    q4h_xtype type;
    const char *group;         /* for the message listing names: NULL "this op has" */
} q4h_xname;

typedef struct q4h_expr q4h_expr;

/* Parses text. On success *out (free with q4h_expr_free) and true; else false with a
 * sentence in msg ("at character 7: ..."). */
bool q4h_expr_parse(const char *text, const q4h_xname *names, int n_names, q4h_expr **out,
                    char *msg, size_t size);
/* An expression that is the constant v (a JSON number in the file). */
q4h_expr *q4h_expr_constant(q4h_xval v);
q4h_xtype q4h_expr_type(const q4h_expr *e);
/* Evaluates e with values[k] for names[k] of its parse. False with a sentence in msg
 * on division by zero, a non-positive ceil_div/align divisor, integer overflow or a
 * real result that is not finite. */
bool q4h_expr_eval(const q4h_expr *e, const q4h_xval *values, q4h_xval *out, char *msg,
                   size_t size);
/* Whether e names any of names[first .. first + count - 1] of its parse. */
bool q4h_expr_uses(const q4h_expr *e, int first, int count);
/* Whether e names no parameter; then *out gets its value (false also when it
 * cannot be evaluated, e.g. 1 / 0). */
bool q4h_expr_constant_value(const q4h_expr *e, q4h_xval *out);
/* The value as a double (an integer converted). */
double q4h_xval_real(q4h_xval v);
void q4h_expr_free(q4h_expr *e);

#endif
