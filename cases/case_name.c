/* case_name.c: the case-name grammar: q4cts.<op>.<family>.<params> parsed into a
 * q4_case and printed back in canonical form (README.md "Name grammar").
 *
 * Parsing is in three steps, each with its own messages: the levels (prefix, op,
 * family), the parameter tokens (syntax, known keys, duplicates, missing keys),
 * then q4c_validate (values, the op contract of q4_contract.h, the family rules),
 * which q4_case_inputs runs too, so a hand-built case is held to the same rules.
 * Every message is "case name '<name>': <one sentence>". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "case_internal.h"

/* Above any shape that fits in memory, and small enough that products of a few
 * parameters (R * 100, M * N * K in double) stay exact and never overflow. */
#define NUM_MAX (1ll << 40)

static q4_status bad(q4_error *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static q4_status bad(q4_error *err, const char *name, const char *fmt, ...)
{
    char detail[Q4_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return q4_fail(err, Q4_ERR_ARG, "case name '%s': %s", name, detail);
}

/* ---------------- format ---------------- */

/* Appends to buf at *len; the output is truncated, never overflowed. */
static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, *len < size ? size - *len : 0, fmt, ap);
    va_end(ap);
    if (w > 0) *len = *len + (size_t)w < size ? *len + (size_t)w : size;
}

static void format_m(char *buf, size_t size, size_t *len, const q4_case *c)
{
    if (c->nlead > 0) {
        put(buf, size, len, "d%lld", (long long)c->lead[0]);
        for (int i = 1; i < c->nlead && i < 4; i++) put(buf, size, len, "x%lld", (long long)c->lead[i]);
    } else {
        put(buf, size, len, "m%lld", (long long)c->m);
    }
}

void q4_case_format(const q4_case *c, char *buf, size_t size)
{
    const q4c_op *op = q4c_op_find(c->op);
    size_t len = 0;
    if (!buf || size == 0) return;
    buf[0] = 0;
    put(buf, size, &len, "q4cts.%s.%s.", c->op ? c->op : "?", c->family);
    if (!op) return;
    switch (op->kind) {
    case Q4C_LINEAR:
        format_m(buf, size, &len, c);
        put(buf, size, &len, "_n%lld_k%lld_g%lld", (long long)c->n, (long long)c->k, (long long)c->gs);
        if (c->bias) put(buf, size, &len, "_b1");
        break;
    case Q4C_DW:
        format_m(buf, size, &len, c);
        put(buf, size, &len, "_n%lld_k%lld", (long long)c->n, (long long)c->k);
        break;
    case Q4C_WEIGHT:
        put(buf, size, &len, "n%lld_k%lld_g%lld", (long long)c->n, (long long)c->k, (long long)c->gs);
        break;
    case Q4C_CE:
        put(buf, size, &len, "r%lld_v%lld_p%d", (long long)c->r, (long long)c->v, c->mask_pct);
        break;
    case Q4C_ADAMW:
        put(buf, size, &len, "n%lld_t%lld_w%d", (long long)c->numel, (long long)c->step, c->wd);
        break;
    }
}

/* ---------------- validation (values, contract, family) ---------------- */

static q4_status contract(const q4c_op *op, const q4_case *c, q4_error *err)
{
    switch (op->kind) {
    case Q4C_LINEAR: return q4_check_linear(c->m, c->n, c->k, c->gs, err);
    case Q4C_DW: return q4_check_dw(c->m, c->n, c->k, err);
    case Q4C_WEIGHT: return q4_check_weight(c->n, c->k, c->gs, err);
    case Q4C_CE: {
        int64_t valid = c->r - q4c_ce_masked_rows(c->r, c->mask_pct);
        return q4_check_ce_shape(c->r, c->v, valid > 0 ? (double)valid : 1.0, err);
    }
    case Q4C_ADAMW: {
        float lr, b1, b2, eps, wd, bc1, bc2;
        q4c_adamw_hyper(c->step, c->wd, &lr, &b1, &b2, &eps, &wd, &bc1, &bc2);
        return q4_check_adamw(c->numel, lr, b1, b2, eps, wd, bc1, bc2, err);
    }
    }
    return Q4_OK;
}

/* The values a name's syntax cannot rule out but the op forbids. */
static q4_status values(const q4c_op *op, const q4_case *c, q4_error *err)
{
    if (op->kind == Q4C_LINEAR || op->kind == Q4C_DW) {
        int64_t prod = 1;
        if (c->nlead < 0 || c->nlead > 4)
            return q4_fail(err, Q4_ERR_ARG, "%d leading dims given; at most 4", c->nlead);
        for (int i = 0; i < c->nlead; i++) {
            if (c->lead[i] < 1 || c->lead[i] > NUM_MAX)
                return q4_fail(err, Q4_ERR_ARG, "leading dim %lld must be in 1..2^40",
                               (long long)c->lead[i]);
            if (prod > NUM_MAX / c->lead[i])
                return q4_fail(err, Q4_ERR_ARG, "the leading dims give M above 2^40");
            prod *= c->lead[i];
        }
        if (c->nlead > 0 && prod != c->m)
            return q4_fail(err, Q4_ERR_ARG, "M = %lld must equal the product of the leading dims (%lld)",
                           (long long)c->m, (long long)prod);
    }
    if (op->kind == Q4C_LINEAR && (c->bias < 0 || c->bias > 1 || (c->bias && !op->has_bias)))
        return q4_fail(err, Q4_ERR_ARG, "b = %d must be %s", c->bias,
                       op->has_bias ? "0 or 1" : "0: this op takes no bias");
    if (op->kind == Q4C_CE && c->v > INT32_MAX)
        return q4_fail(err, Q4_ERR_ARG, "V = %lld must fit an int32 label (at most %d)",
                       (long long)c->v, INT32_MAX);
    if (op->kind == Q4C_CE && (c->mask_pct < 0 || c->mask_pct > 100))
        return q4_fail(err, Q4_ERR_ARG, "p = %d must be a percentage in 0..100", c->mask_pct);
    if (op->kind == Q4C_ADAMW) {
        if (c->step < 1 || c->step > NUM_MAX)
            return q4_fail(err, Q4_ERR_ARG, "t = %lld must be a step in 1..2^40", (long long)c->step);
        if (c->wd < 0 || c->wd > 1)
            return q4_fail(err, Q4_ERR_ARG, "w = %d must be 0 or 1", c->wd);
    }
    return Q4_OK;
}

static q4_status validate_as(const q4_case *c, const char *shown, q4_error *err)
{
    const q4c_op *op = q4c_op_find(c->op);
    q4_error e = {0};
    if (!op)
        return bad(err, shown, "unknown op '%s'", c->op ? c->op : "(null)");
    if (!q4c_op_has_family(op, c->family))
        return bad(err, shown, "unknown family '%s' for op %s", c->family, op->name);
    if (values(op, c, &e) || contract(op, c, &e) || q4c_family_check(op, c, &e))
        return bad(err, shown, "%s", e.msg);
    return Q4_OK;
}

q4_status q4c_validate(const q4_case *c, q4_error *err)
{
    char name[Q4_CASE_NAME_MAX];
    q4_case_format(c, name, sizeof name);
    return validate_as(c, name, err);
}

/* ---------------- parse ---------------- */

typedef struct params {
    int have[26];              /* by key letter */
    int64_t val[26];
    int64_t lead[4];
    int nlead;
} params;

static void list_names(char *buf, size_t size, const char *const *names, int count)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < count && len < size; i++) {
        int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
        if (w > 0) len += (size_t)w;
    }
}

static int key_allowed(const q4c_op *op, char key)
{
    switch (op->kind) {
    case Q4C_LINEAR: return strchr(op->has_bias ? "mdnkgb" : "mdnkg", key) != NULL;
    case Q4C_DW: return strchr("mdnk", key) != NULL;
    case Q4C_WEIGHT: return strchr("nkg", key) != NULL;
    case Q4C_CE: return strchr("rvp", key) != NULL;
    case Q4C_ADAMW: return strchr("ntw", key) != NULL;
    }
    return 0;
}

/* One token [a-z]+[0-9]+(x[0-9]+)*; tok is NUL-terminated. */
static q4_status parse_token(const q4c_op *op, const char *tok, params *p, const char *name,
                             q4_error *err)
{
    const char *s = tok;
    int64_t vals[5];
    int nvals = 0;
    size_t nkey = 0;
    while (s[nkey] >= 'a' && s[nkey] <= 'z') nkey++;
    if (nkey == 0 || !(s[nkey] >= '0' && s[nkey] <= '9'))
        return bad(err, name, "bad parameter '%s': expected a lowercase key and a number, "
                   "e.g. m8 or d2x3", tok);
    if (nkey > 1 || !key_allowed(op, s[0]))
        return bad(err, name, "unknown parameter '%.*s' in '%s' for op %s (parameters: %s)",
                   (int)nkey, s, tok, op->name, op->keys);
    char key = s[0];
    s += nkey;
    for (;;) {
        const char *d = s;
        int64_t v = 0;
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s - '0');
            if (v > NUM_MAX)
                return bad(err, name, "the number in parameter '%s' is above 2^40", tok);
            s++;
        }
        if (s == d)
            return bad(err, name, "bad parameter '%s': expected a number after 'x'", tok);
        if (s - d > 1 && *d == '0')
            return bad(err, name, "the number '%.*s' in parameter '%s' has a leading zero",
                       (int)(s - d), d, tok);
        if (nvals == 5)
            return bad(err, name, "parameter '%s' lists more than 4 leading dims", tok);
        vals[nvals++] = v;
        if (*s == 0) break;
        if (*s != 'x')
            return bad(err, name, "bad parameter '%s': unexpected '%c'; expected digits or "
                       "'x' between leading dims", tok, *s);
        s++;
    }
    if (nvals > 1 && key != 'd')
        return bad(err, name, "parameter '%s': only d takes a list (d<A>x<B>..)", tok);
    if (nvals > 4)
        return bad(err, name, "parameter '%s' lists more than 4 leading dims", tok);
    if (p->have[key - 'a'])
        return bad(err, name, "parameter %c is given twice", key);
    p->have[key - 'a'] = 1;
    p->val[key - 'a'] = vals[0];
    if (key == 'd') {
        memcpy(p->lead, vals, sizeof(int64_t) * (size_t)nvals);
        p->nlead = nvals;
    }
    return Q4_OK;
}

static q4_status parse_params(const q4c_op *op, const char *text, params *p, const char *name,
                              q4_error *err)
{
    char tok[Q4_CASE_NAME_MAX];
    const char *s = text;
    for (;;) {
        size_t len = strcspn(s, "_");
        if (len == 0)
            return bad(err, name, "empty parameter; parameters are separated by a single '_'");
        memcpy(tok, s, len);   /* len < Q4_CASE_NAME_MAX: the whole name is shorter */
        tok[len] = 0;
        q4_status st = parse_token(op, tok, p, name, err);
        if (st) return st;
        if (s[len] == 0) return Q4_OK;
        s += len + 1;
    }
}

/* The required keys of the op, in canonical order; "m" stands for m or d. */
static const char *required_keys(const q4c_op *op)
{
    switch (op->kind) {
    case Q4C_LINEAR: return "mnkg";
    case Q4C_DW: return "mnk";
    case Q4C_WEIGHT: return "nkg";
    case Q4C_CE: return "rvp";
    case Q4C_ADAMW: return "ntw";
    }
    return "";
}

static q4_status fill(const q4c_op *op, const params *p, q4_case *c, const char *name,
                      q4_error *err)
{
#define V(k) (p->val[(k) - 'a'])
    for (const char *k = required_keys(op); *k; k++) {
        int have = p->have[*k - 'a'] || (*k == 'm' && p->have['d' - 'a']);
        if (!have)
            return bad(err, name, "missing parameter %s; op %s takes %s",
                       *k == 'm' ? "m (or d<A>x<B>..)" : (char[2]){*k, 0}, op->name, op->keys);
    }
    switch (op->kind) {
    case Q4C_LINEAR:
    case Q4C_DW:
        memcpy(c->lead, p->lead, sizeof c->lead);
        c->nlead = p->nlead;
        if (p->have['m' - 'a']) {
            c->m = V('m');   /* with d as well: values() checks that they agree */
        } else {
            /* Saturates above 2^40 (values() then names the overflow); no signed overflow. */
            c->m = 1;
            for (int i = 0; i < c->nlead; i++) {
                if (c->lead[i] > 0 && c->m > NUM_MAX / c->lead[i]) { c->m = NUM_MAX + 1; break; }
                c->m *= c->lead[i];
            }
        }
        c->n = V('n');
        c->k = V('k');
        if (op->kind == Q4C_LINEAR) c->gs = V('g');
        c->bias = p->have['b' - 'a'] ? (int)V('b') : 0;
        if (p->have['b' - 'a'] && V('b') > 1)
            return bad(err, name, "b%lld: expected b0 or b1", (long long)V('b'));
        break;
    case Q4C_WEIGHT:
        c->n = V('n');
        c->k = V('k');
        c->gs = V('g');
        break;
    case Q4C_CE:
        c->r = V('r');
        c->v = V('v');
        if (V('p') > 100)
            return bad(err, name, "p = %lld must be a percentage in 0..100", (long long)V('p'));
        c->mask_pct = (int)V('p');
        break;
    case Q4C_ADAMW:
        c->numel = V('n');
        c->step = V('t');
        if (V('w') > 1)
            return bad(err, name, "w%lld: expected w0 or w1", (long long)V('w'));
        c->wd = (int)V('w');
        break;
    }
    return Q4_OK;
#undef V
}

q4_status q4_case_parse(const char *name, uint64_t seed, q4_case *out, q4_error *err)
{
    char buf[Q4_CASE_NAME_MAX], list[Q4_MSG_MAX];
    const char *level[4];
    int nlevels = 1;
    q4_case c;
    params p;
    q4_status st;

    if (!name)
        return q4_fail(err, Q4_ERR_ARG, "case name is NULL; expected q4cts.<op>.<family>.<params>");
    size_t len = strlen(name);
    if (len >= Q4_CASE_NAME_MAX)
        return bad(err, name, "%zu characters long; a case name has at most %d", len,
                   Q4_CASE_NAME_MAX - 1);
    memcpy(buf, name, len + 1);

    /* Levels: exactly four, split on '.', none empty. */
    level[0] = buf;
    for (char *s = buf; *s; s++) {
        if (*s != '.') continue;
        *s = 0;
        if (nlevels < 4) level[nlevels] = s + 1;
        nlevels++;
    }
    if (nlevels != 4)
        return bad(err, name, "%d dot-separated levels; expected 4: q4cts.<op>.<family>.<params>%s",
                   nlevels, nlevels > 4 ? " (parameters are separated by '_', never '.')" : "");
    if (strcmp(level[0], "q4cts") != 0)
        return bad(err, name, "starts with '%s'; expected the prefix q4cts", level[0]);

    const q4c_op *op = q4c_op_find(level[1]);
    if (!op) {
        int n;
        const char *const *names = q4_case_ops(&n);
        list_names(list, sizeof list, names, n);
        return bad(err, name, "unknown op '%s' (ops: %s)", level[1], list);
    }
    if (!q4c_op_has_family(op, level[2])) {
        int n;
        const char *const *names = q4_case_families(op->name, &n);
        list_names(list, sizeof list, names, n);
        return bad(err, name, "unknown family '%s' for op %s (families: %s)", level[2], op->name,
                   list);
    }

    memset(&c, 0, sizeof c);
    memset(&p, 0, sizeof p);
    c.op = op->name;
    snprintf(c.family, sizeof c.family, "%s", level[2]);
    c.seed = seed;
    if ((st = parse_params(op, level[3], &p, name, err)) || (st = fill(op, &p, &c, name, err)) ||
        (st = validate_as(&c, name, err)))
        return st;
    q4_case_format(&c, c.name, sizeof c.name);
    if (out) *out = c;
    return Q4_OK;
}
