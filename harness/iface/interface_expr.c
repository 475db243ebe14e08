/* interface_expr.c: parser and evaluator of interface-file expressions
 * (interface_expr.h). A recursive-descent parser turns the text into a small tree
 * held in one array (children by index), typed as it is built; evaluation walks it
 * with overflow-checked 64-bit integers and doubles. Comparisons and logic give the
 * integers 0 and 1; &&, || and ?: evaluate only the operands they need, so a guarded
 * division (`K > 0 ? N / K : 0`) never divides by zero. */
#include "interface_expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4_contract.h"

#define Q4_MSG_MAX_EXPR 256

typedef enum kind { K_NUM, K_VAR, K_NEG, K_ADD, K_SUB, K_MUL, K_DIV, K_CEIL_DIV, K_ALIGN,
                    K_MIN, K_MAX, K_MOD, K_EQ, K_NE, K_LT, K_LE, K_GT, K_GE, K_AND, K_OR,
                    K_NOT, K_COND } kind;

typedef struct node {
    kind kind;
    q4h_xtype type;
    int a, b, c;               /* children (index into nodes); c: K_COND's else */
    int var;                   /* K_VAR: index into the names */
    q4h_xval num;              /* K_NUM */
} node;

struct q4h_expr {
    int n, root;
    node nodes[];
};

/* Parser state. Nodes go into a fixed array large enough for any expression of
 * Q4H_EXPR_MAX_CHARS characters (each node takes at least one character). */
typedef struct parser {
    const char *text, *at;
    const q4h_xname *names;
    int n_names, depth, n;
    node nodes[Q4H_EXPR_MAX_CHARS + 1];
    char *msg;
    size_t size;
    bool failed;
} parser;

static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *p, const char *fmt, ...)
{
    if (!p->failed) {
        int len = snprintf(p->msg, p->size, "at character %d: ", (int)(p->at - p->text) + 1);
        va_list ap;
        va_start(ap, fmt);
        if (len >= 0 && (size_t)len < p->size)
            vsnprintf(p->msg + len, p->size - (size_t)len, fmt, ap);
        va_end(ap);
    }
    p->failed = true;
    return -1;
}

static void skip_space(parser *p)
{
    while (*p->at == ' ' || *p->at == '\t')
        p->at++;
}

static int add(parser *p, node nd)
{
    p->nodes[p->n] = nd;
    return p->n++;
}

static int binary(parser *p, kind k, int a, int b)
{
    if (a < 0 || b < 0)
        return -1;
    q4h_xtype t = p->nodes[a].type == Q4H_X_INT && p->nodes[b].type == Q4H_X_INT ? Q4H_X_INT
                                                                                  : Q4H_X_REAL;
    return add(p, (node){ .kind = k, .type = t, .a = a, .b = b });
}

static int parse_expr(parser *p);

/* INTEGER or REAL (docs/interface-format.md's grammar: no sign, no leading '.'). */
static int parse_number(parser *p)
{
    const char *s = p->at;
    while (isdigit((unsigned char)*p->at))
        p->at++;
    bool real = false;
    if (*p->at == '.') {
        real = true;
        p->at++;
        if (!isdigit((unsigned char)*p->at))
            return fail(p, "expected a digit after '.'");
        while (isdigit((unsigned char)*p->at))
            p->at++;
    }
    if (*p->at == 'e' || *p->at == 'E') {
        real = true;
        p->at++;
        if (*p->at == '+' || *p->at == '-')
            p->at++;
        if (!isdigit((unsigned char)*p->at))
            return fail(p, "expected the exponent's digits");
        while (isdigit((unsigned char)*p->at))
            p->at++;
    }
    char buf[Q4H_EXPR_MAX_CHARS + 1];
    memcpy(buf, s, (size_t)(p->at - s));
    buf[p->at - s] = '\0';
    node nd = { .kind = K_NUM, .type = real ? Q4H_X_REAL : Q4H_X_INT };
    nd.num.type = nd.type;
    if (real) {
        nd.num.r = strtod(buf, NULL);
        if (!isfinite(nd.num.r))
            return fail(p, "the number %s is not a finite double", buf);
    } else {
        unsigned long long v = 0;
        for (const char *c = buf; *c; c++) {
            if (v > (unsigned long long)(INT64_MAX - (*c - '0')) / 10)
                return fail(p, "the integer %s does not fit in 64 bits", buf);
            v = v * 10 + (unsigned long long)(*c - '0');
        }
        nd.num.i = (int64_t)v;
    }
    return add(p, nd);
}

static const struct { const char *name; kind kind; bool ints; } funcs[] = {
    { "ceil_div", K_CEIL_DIV, true }, { "align", K_ALIGN, true },
    { "min", K_MIN, false }, { "max", K_MAX, false },
};

/* A name: a case parameter, or a function followed by its two arguments. */
static int parse_name(parser *p)
{
    const char *s = p->at;
    while (isalnum((unsigned char)*p->at) || *p->at == '_')
        p->at++;
    size_t len = (size_t)(p->at - s);
    for (size_t f = 0; f < sizeof funcs / sizeof funcs[0]; f++) {
        if (strlen(funcs[f].name) != len || strncmp(funcs[f].name, s, len))
            continue;
        skip_space(p);
        if (*p->at != '(')
            return fail(p, "expected '(' after %s", funcs[f].name);
        p->at++;
        int a = parse_expr(p);
        skip_space(p);
        if (a >= 0 && *p->at != ',')
            return fail(p, "expected ',' between the arguments of %s", funcs[f].name);
        p->at += a >= 0;
        int b = a >= 0 ? parse_expr(p) : -1;
        skip_space(p);
        if (b >= 0 && *p->at != ')')
            return fail(p, "expected ')' after the arguments of %s", funcs[f].name);
        p->at += b >= 0;
        if (b >= 0 && funcs[f].ints &&
            (p->nodes[a].type != Q4H_X_INT || p->nodes[b].type != Q4H_X_INT))
            return fail(p, "%s takes integers, not reals", funcs[f].name);
        return binary(p, funcs[f].kind, a, b);
    }
    for (int k = 0; k < p->n_names; k++)
        if (strlen(p->names[k].name) == len && !strncmp(p->names[k].name, s, len))
            return add(p, (node){ .kind = K_VAR, .type = p->names[k].type, .var = k });
    char list[1024] = "";
    for (int k = 0; k < p->n_names; k++) {
        size_t at = strlen(list);
        const char *g = p->names[k].group, *prev = k ? p->names[k - 1].group : NULL;
        if (k && g != prev)
            snprintf(list + at, sizeof list - at, "; %s: %s", g ? g : "this op has",
                     p->names[k].name);
        else
            snprintf(list + at, sizeof list - at, "%s%s", k ? " " : "", p->names[k].name);
    }
    p->at = s;
    return fail(p, "unknown name '%.*s' (%s%s; functions: ceil_div align min max)", (int)len,
                s, p->n_names && p->names[0].group ? "" : "this op has: ", list);
}

/* The character at p->at, quoted for a message (a raw byte escaped, q4_echo). */
static const char *char_here(const parser *p, char buf[8])
{
    char one[2] = { *p->at, 0 };
    return q4_echo(one, buf, 8);
}

static int parse_unary(parser *p)
{
    skip_space(p);
    if (++p->depth > Q4H_EXPR_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels", Q4H_EXPR_MAX_DEPTH);
    int r;
    if (*p->at == '-') {
        p->at++;
        int a = parse_unary(p);
        r = a < 0 ? -1 : add(p, (node){ .kind = K_NEG, .type = p->nodes[a].type, .a = a });
    } else if (*p->at == '!' && p->at[1] != '=') {
        p->at++;
        int a = parse_unary(p);
        r = a < 0 ? -1 : add(p, (node){ .kind = K_NOT, .type = Q4H_X_INT, .a = a });
    } else if (*p->at == '(') {
        p->at++;
        r = parse_expr(p);
        skip_space(p);
        if (r >= 0 && *p->at != ')')
            r = fail(p, "expected ')'");
        p->at += r >= 0;
    } else if (isdigit((unsigned char)*p->at)) {
        r = parse_number(p);
    } else if (isalpha((unsigned char)*p->at) || *p->at == '_') {
        r = parse_name(p);
    } else if (*p->at) {
        char c[8];
        r = fail(p, "unexpected '%s'; expected a number, a name or '('", char_here(p, c));
    } else {
        r = fail(p, "the expression ends where a value was expected");
    }
    p->depth--;
    return r;
}

static int parse_product(parser *p)
{
    int a = parse_unary(p);
    for (skip_space(p); a >= 0 && (*p->at == '*' || *p->at == '/' || *p->at == '%');
         skip_space(p)) {
        const char *at = p->at;
        kind k = *p->at == '*' ? K_MUL : *p->at == '/' ? K_DIV : K_MOD;
        p->at++;
        a = binary(p, k, a, parse_unary(p));
        if (a >= 0 && k == K_MOD && p->nodes[a].type != Q4H_X_INT) {
            p->at = at;
            return fail(p, "%% takes integers, not reals");
        }
    }
    return a;
}

static int parse_sum(parser *p)
{
    int a = parse_product(p);
    for (skip_space(p); a >= 0 && (*p->at == '+' || *p->at == '-'); skip_space(p)) {
        kind k = *p->at++ == '+' ? K_ADD : K_SUB;
        a = binary(p, k, a, parse_product(p));
    }
    return a;
}

/* sum [ ("==" | "!=" | "<" | "<=" | ">" | ">=") sum ]: 1 or 0. One comparison: a
 * chain such as a < b < c is refused (C would compare the 0/1 of a < b with c). */
static int parse_compare(parser *p)
{
    int a = parse_sum(p);
    static const struct { const char *op; kind kind; } ops[] = {
        { "==", K_EQ }, { "!=", K_NE }, { "<=", K_LE }, { ">=", K_GE }, { "<", K_LT },
        { ">", K_GT },
    };
    for (size_t i = 0; a >= 0 && i < sizeof ops / sizeof ops[0]; i++) {
        size_t len = strlen(ops[i].op);
        if (strncmp(p->at, ops[i].op, len))
            continue;
        p->at += len;
        a = binary(p, ops[i].kind, a, parse_sum(p));
        if (a >= 0)
            p->nodes[a].type = Q4H_X_INT;
        skip_space(p);
        if (a >= 0 && (*p->at == '<' || *p->at == '>' || (*p->at == '=' && p->at[1] == '=') ||
                       (*p->at == '!' && p->at[1] == '=')))
            return fail(p, "comparisons do not chain: use && (a < b && b < c)");
        break;
    }
    if (a >= 0 && *p->at == '=')
        return fail(p, "'=' is not an operator: compare with ==");
    return a;
}

/* compare { "&&" compare } and that { "||" that }: 1 or 0, the right side only when
 * the left does not decide. */
static int parse_logic(parser *p, bool or)
{
    int a = or ? parse_logic(p, false) : parse_compare(p);
    const char *op = or ? "||" : "&&";
    for (skip_space(p); a >= 0 && !strncmp(p->at, op, 2); skip_space(p)) {
        p->at += 2;
        a = binary(p, or ? K_OR : K_AND, a, or ? parse_logic(p, false) : parse_compare(p));
        if (a >= 0)
            p->nodes[a].type = Q4H_X_INT;
    }
    if (a >= 0 && (*p->at == '&' || *p->at == '|') && strncmp(p->at, "&&", 2) &&
        strncmp(p->at, "||", 2))
        return fail(p, "'%c' is not an operator: logic is && and ||", *p->at);
    return a;
}

/* or [ "?" expr ":" expr ]: the condition's branch only (right-associative). */
static int parse_expr(parser *p)
{
    int c = parse_logic(p, true), r = c;
    skip_space(p);
    if (c >= 0 && *p->at == '?') {
        if (++p->depth > Q4H_EXPR_MAX_DEPTH)
            return fail(p, "nested deeper than %d levels", Q4H_EXPR_MAX_DEPTH);
        p->at++;
        int a = parse_expr(p);
        skip_space(p);
        if (a >= 0 && *p->at != ':')
            r = fail(p, "expected ':' after the value of a true condition (c ? a : b)");
        else if (a < 0)
            r = -1;
        else {
            p->at++;
            int b = parse_expr(p);
            r = b < 0 ? -1 : add(p, (node){ .kind = K_COND, .a = a, .b = b, .c = c,
                                             .type = p->nodes[a].type == Q4H_X_INT &&
                                                     p->nodes[b].type == Q4H_X_INT
                                                     ? Q4H_X_INT : Q4H_X_REAL });
        }
        p->depth--;
    }
    return r;
}

static q4h_expr *pack(const node *nodes, int n, int root)
{
    q4h_expr *e = malloc(sizeof *e + (size_t)n * sizeof(node));
    if (e) {
        e->n = n;
        e->root = root;
        memcpy(e->nodes, nodes, (size_t)n * sizeof(node));
    }
    return e;
}

bool q4h_expr_parse(const char *text, const q4h_xname *names, int n_names, q4h_expr **out,
                    char *msg, size_t size)
{
    *out = NULL;
    parser *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(msg, size, "out of memory");
        return false;
    }
    *p = (parser){ .text = text, .at = text, .names = names, .n_names = n_names, .msg = msg,
                   .size = size };
    int root = -1;
    if (strlen(text) > Q4H_EXPR_MAX_CHARS) {
        snprintf(msg, size, "the expression has %zu characters; at most %d are allowed",
                 strlen(text), Q4H_EXPR_MAX_CHARS);
    } else {
        char c[8];
        root = parse_expr(p);
        if (root >= 0 && *p->at)
            root = fail(p, "unexpected '%s' after a complete expression", char_here(p, c));
        if (root >= 0 && !(*out = pack(p->nodes, p->n, root)))
            snprintf(msg, size, "out of memory");
    }
    free(p);
    return *out != NULL;
}

q4h_expr *q4h_expr_constant(q4h_xval v)
{
    node nd = { .kind = K_NUM, .type = v.type, .num = v };
    return pack(&nd, 1, 0);
}

q4h_xtype q4h_expr_type(const q4h_expr *e)
{
    return e->nodes[e->root].type;
}

double q4h_xval_real(q4h_xval v)
{
    return v.type == Q4H_X_INT ? (double)v.i : v.r;
}

static const char *const op_names[] = {
    [K_ADD] = "+", [K_SUB] = "-", [K_MUL] = "*", [K_DIV] = "/", [K_CEIL_DIV] = "ceil_div",
    [K_ALIGN] = "align", [K_MIN] = "min", [K_MAX] = "max", [K_NEG] = "-", [K_MOD] = "%",
    [K_EQ] = "==", [K_NE] = "!=", [K_LT] = "<", [K_LE] = "<=", [K_GT] = ">", [K_GE] = ">=",
    [K_AND] = "&&", [K_OR] = "||", [K_NOT] = "!", [K_COND] = "?:",
};

/* Integer a OP b, overflow-checked; false with a sentence on any error. */
static bool int_op(kind k, int64_t a, int64_t b, int64_t *r, char *msg, size_t size)
{
    bool over = false;
    switch (k) {
    case K_ADD: over = __builtin_add_overflow(a, b, r); break;
    case K_SUB: over = __builtin_sub_overflow(a, b, r); break;
    case K_MUL: over = __builtin_mul_overflow(a, b, r); break;
    case K_MIN: *r = a < b ? a : b; break;
    case K_MAX: *r = a > b ? a : b; break;
    case K_DIV:
        if (b == 0) {
            snprintf(msg, size, "division by zero (%lld / 0)", (long long)a);
            return false;
        }
        over = a == INT64_MIN && b == -1;
        if (!over)
            *r = a / b;
        break;
    case K_MOD:   /* C's: the sign of a */
        if (b == 0) {
            snprintf(msg, size, "division by zero (%lld %% 0)", (long long)a);
            return false;
        }
        *r = b == -1 ? 0 : a % b;
        break;
    default: { /* ceil_div, align */
        if (b <= 0) {
            snprintf(msg, size, "%s(%lld, %lld): the divisor must be > 0", op_names[k],
                     (long long)a, (long long)b);
            return false;
        }
        int64_t q = a / b + (a % b > 0);
        if (k == K_CEIL_DIV)
            *r = q;
        else
            over = __builtin_mul_overflow(q, b, r);
    }
    }
    if (over)
        snprintf(msg, size, "%lld %s %lld overflows 64-bit integers", (long long)a, op_names[k],
                 (long long)b);
    return !over;
}

static bool eval(const q4h_expr *e, int at, const q4h_xval *values, q4h_xval *out, char *msg,
                 size_t size)
{
    const node *nd = &e->nodes[at];
    q4h_xval a, b;
    switch (nd->kind) {
    case K_NUM: *out = nd->num; return true;
    case K_VAR:
        *out = values[nd->var];   /* of the type its name declared */
        return true;
    case K_NEG:
        if (!eval(e, nd->a, values, &a, msg, size))
            return false;
        if (a.type == Q4H_X_INT && a.i == INT64_MIN) {
            snprintf(msg, size, "-(%lld) overflows 64-bit integers", (long long)a.i);
            return false;
        }
        *out = a.type == Q4H_X_INT ? (q4h_xval){ Q4H_X_INT, -a.i, 0 }
                                   : (q4h_xval){ Q4H_X_REAL, 0, -a.r };
        return true;
    case K_NOT:
        if (!eval(e, nd->a, values, &a, msg, size))
            return false;
        *out = (q4h_xval){ Q4H_X_INT, q4h_xval_real(a) == 0, 0 };
        return true;
    case K_AND:
    case K_OR:   /* the right side only when the left does not decide */
        if (!eval(e, nd->a, values, &a, msg, size))
            return false;
        if ((q4h_xval_real(a) != 0) == (nd->kind == K_OR)) {
            *out = (q4h_xval){ Q4H_X_INT, nd->kind == K_OR, 0 };
            return true;
        }
        if (!eval(e, nd->b, values, &b, msg, size))
            return false;
        *out = (q4h_xval){ Q4H_X_INT, q4h_xval_real(b) != 0, 0 };
        return true;
    case K_COND:
        if (!eval(e, nd->c, values, &a, msg, size) ||
            !eval(e, q4h_xval_real(a) != 0 ? nd->a : nd->b, values, out, msg, size))
            return false;
        if (nd->type == Q4H_X_REAL && out->type == Q4H_X_INT)
            *out = (q4h_xval){ Q4H_X_REAL, 0, (double)out->i };
        return true;
    default: break;
    }
    if (!eval(e, nd->a, values, &a, msg, size) || !eval(e, nd->b, values, &b, msg, size))
        return false;
    if (nd->kind >= K_EQ && nd->kind <= K_GE) {   /* integers exactly; a real: as doubles */
        const bool ints = a.type == Q4H_X_INT && b.type == Q4H_X_INT;
        const double x = q4h_xval_real(a), y = q4h_xval_real(b);
        const int cmp = ints ? (a.i > b.i) - (a.i < b.i) : (x > y) - (x < y);
        bool t = nd->kind == K_EQ ? cmp == 0 : nd->kind == K_NE ? cmp != 0
               : nd->kind == K_LT ? cmp < 0  : nd->kind == K_LE ? cmp <= 0
               : nd->kind == K_GT ? cmp > 0  : cmp >= 0;
        *out = (q4h_xval){ Q4H_X_INT, t, 0 };
        return true;
    }
    if (nd->type == Q4H_X_INT) {
        out->type = Q4H_X_INT;
        return int_op(nd->kind, a.i, b.i, &out->i, msg, size);
    }
    double x = q4h_xval_real(a), y = q4h_xval_real(b), r;
    switch (nd->kind) {
    case K_ADD: r = x + y; break;
    case K_SUB: r = x - y; break;
    case K_MUL: r = x * y; break;
    case K_MIN: r = x < y ? x : y; break;
    case K_MAX: r = x > y ? x : y; break;
    default: /* K_DIV: ceil_div and align are integer-only (checked when parsed) */
        if (y == 0) {
            snprintf(msg, size, "division by zero (%g / 0)", x);
            return false;
        }
        r = x / y;
    }
    if (!isfinite(r)) {
        snprintf(msg, size, "%g %s %g is not finite", x, op_names[nd->kind], y);
        return false;
    }
    *out = (q4h_xval){ Q4H_X_REAL, 0, r };
    return true;
}

bool q4h_expr_eval(const q4h_expr *e, const q4h_xval *values, q4h_xval *out, char *msg,
                   size_t size)
{
    return eval(e, e->root, values, out, msg, size);
}

bool q4h_expr_constant_value(const q4h_expr *e, q4h_xval *out)
{
    char msg[Q4_MSG_MAX_EXPR];
    for (int i = 0; i < e->n; i++)
        if (e->nodes[i].kind == K_VAR)
            return false;
    return q4h_expr_eval(e, NULL, out, msg, sizeof msg);
}

void q4h_expr_free(q4h_expr *e)
{
    free(e);
}

bool q4h_expr_uses(const q4h_expr *e, int first, int count)
{
    for (int i = 0; e && i < e->n; i++)
        if (e->nodes[i].kind == K_VAR && e->nodes[i].var >= first &&
            e->nodes[i].var < first + count)
            return true;
    return false;
}
