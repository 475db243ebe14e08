/* case_name.c: the case-name grammar: q4cts.<op>.<family>.<params>[.<values>] parsed
 * into a q4_case and printed back in canonical form (README.md "Name grammar").
 *
 * The grammar is the same for every op; what an op's parameters and value classes
 * are is its descriptor's (ops/<op>.c). Parsing is in three steps, each with its own
 * messages: the levels (prefix, op, family, value class), the parameter tokens
 * (syntax, known keys, duplicates, missing keys), then q4c_validate (values, the op
 * contract of q4_contract.h, the family rules, out-of-contract inputs), which
 * q4_case_inputs runs too, so a hand-built case is held to the same rules. Every
 * message is "case name '<name>': <one sentence>". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_internal.h"

/* The family whose shape and values come from a seed instead of the name. */
#define RANDOM "random"

static q4_status bad(q4_error *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static q4_status bad(q4_error *err, const char *name, const char *fmt, ...)
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

/* ---------------- device limits (family small_device) ---------------- */

static const struct {
    const char *key;
    int64_t min, max;
} limits[Q4_CASE_LIMITS] = {
    [Q4_LIMIT_GROUPS] = {"groups", 1, UINT32_MAX},
    [Q4_LIMIT_BINDING] = {"binding", 16, Q4C_NUM_MAX},
    [Q4_LIMIT_SHARED] = {"shared", 16384, UINT32_MAX},
    [Q4_LIMIT_INVOCATIONS] = {"invocations", 128, UINT32_MAX},
};

const char *q4_case_limit_key(int i)
{
    return i >= 0 && i < Q4_CASE_LIMITS ? limits[i].key : NULL;
}

int q4_case_has_limits(const q4_case *c)
{
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (c->limit[i])
            return 1;
    return 0;
}

/* The index of the limit whose key is s[0..n), or -1. */
static int limit_index(const char *s, size_t n)
{
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (strlen(limits[i].key) == n && strncmp(s, limits[i].key, n) == 0)
            return i;
    return -1;
}

static q4_status check_limits(const q4_case *c, q4_error *err)
{
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (c->limit[i] && (c->limit[i] < limits[i].min || c->limit[i] > limits[i].max))
            return q4_fail(err, Q4_ERR_ARG, "device limit %s%lld must be in %lld..%lld",
                           limits[i].key, (long long)c->limit[i], (long long)limits[i].min,
                           (long long)limits[i].max);
    return Q4_OK;
}

/* ---------------- format ---------------- */

void q4c_put(q4c_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->len, t->len < t->size ? t->size - t->len : 0, fmt, ap);
    va_end(ap);
    if (w > 0) t->len = t->len + (size_t)w < t->size ? t->len + (size_t)w : t->size;
}

void q4c_format_m(const q4_case *c, q4c_text *t)
{
    if (c->nlead > 0) {
        q4c_put(t, "d%lld", (long long)c->lead[0]);
        for (int i = 1; i < c->nlead && i < 4; i++) q4c_put(t, "x%lld", (long long)c->lead[i]);
    } else {
        q4c_put(t, "m%lld", (long long)c->m);
    }
}

/* Whether the name shows c->values: not for the default, nor where the family (or
 * the random draw) decides the values. */
static int shows_values(const q4c_op *op, const q4_case *c)
{
    const q4c_family *f = q4c_family_find(op, c->family);
    return c->values[0] && strcmp(c->values, op->classes[0].name) != 0 &&
           strcmp(c->family, RANDOM) != 0 && !(f && f->values);
}

void q4_case_format(const q4_case *c, char *buf, size_t size)
{
    const q4c_op *op = q4c_op_find(c->op);
    q4c_text t = {buf, size, 0};
    if (!buf || size == 0) return;
    buf[0] = 0;
    q4c_put(&t, "q4cts.%s.%s.", c->op ? c->op : "?", c->family);
    if (!op) return;
    if (strcmp(c->family, RANDOM) == 0)
        q4c_put(&t, "s%lld", (long long)c->sweep);
    else
        op->format(c, &t);
    for (int i = 0; i < Q4_CASE_LIMITS; i++)
        if (c->limit[i])
            q4c_put(&t, "_%s%lld", limits[i].key, (long long)c->limit[i]);
    if (shows_values(op, c))
        q4c_put(&t, ".%s", c->values);
}

/* ---------------- validation (values, contract, family, inputs) ---------------- */

q4_status q4c_check_lead(const q4_case *c, q4_error *err)
{
    int64_t prod = 1;
    if (c->nlead < 0 || c->nlead > 4)
        return q4_fail(err, Q4_ERR_ARG, "%d leading dims given; at most 4", c->nlead);
    for (int i = 0; i < c->nlead; i++) {
        if (c->lead[i] < 1 || c->lead[i] > Q4C_NUM_MAX)
            return q4_fail(err, Q4_ERR_ARG, "leading dim %lld must be in 1..2^40",
                           (long long)c->lead[i]);
        if (prod > Q4C_NUM_MAX / c->lead[i])
            return q4_fail(err, Q4_ERR_ARG, "the leading dims give M above 2^40");
        prod *= c->lead[i];
    }
    if (c->nlead > 0 && prod != c->m)
        return q4_fail(err, Q4_ERR_ARG, "M = %lld must equal the product of the leading dims (%lld)",
                       (long long)c->m, (long long)prod);
    return Q4_OK;
}

q4_status q4c_linear_check(const q4_case *c, int max_bias, q4_error *err)
{
    q4_status st = q4c_check_lead(c, err);
    if (st == Q4_OK && (c->bias < 0 || c->bias > max_bias))
        return max_bias ? q4_fail(err, Q4_ERR_ARG, "b = %d must be 0 or 1", c->bias)
                        : q4_fail(err, Q4_ERR_ARG, "b = %d must be 0: this op takes no bias",
                                  c->bias);
    return st ? st : q4_check_linear(c->m, c->n, c->k, c->gs, err);
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

static q4_status validate_as(const q4_case *c, const char *shown, q4_error *err)
{
    const q4c_op *op = q4c_op_find(c->op);
    const q4c_family *f;
    q4_error e = {0};
    if (!op)
        return bad(err, shown, "unknown op '%s'", c->op ? c->op : "(null)");
    if (!(f = q4c_family_find(op, c->family)))
        return bad(err, shown, "unknown family '%s' for op %s", c->family, op->name);
    if (op->check(c, &e) || check_limits(c, &e) || q4c_family_check(f, c, &e) ||
        check_class(op, c, &e))
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

/* "a, b, c": the names of a NULL-ended list of rows of `stride` bytes. */
static void list_names(char *buf, size_t size, const char *(*at)(const void *, int),
                       const void *ctx)
{
    q4c_text t = {buf, size, 0};
    buf[0] = 0;
    for (int i = 0; at(ctx, i); i++) q4c_put(&t, "%s%s", i ? ", " : "", at(ctx, i));
}
static const char *op_at(const void *ctx, int i) { (void)ctx; return q4_case_op(i); }
static const char *family_at(const void *ctx, int i) { return ((const q4c_op *)ctx)->families[i].name; }
static const char *class_at(const void *ctx, int i) { return ((const q4c_op *)ctx)->classes[i].name; }

/* The number of a device-limit token (groups8): digits only, no leading zero. */
static q4_status parse_limit(int li, const char *tok, const char *num, q4c_params *p,
                             const char *name, q4_error *err)
{
    int64_t v = 0;
    const char *d = num;
    for (; *d >= '0' && *d <= '9'; d++) {
        v = v * 10 + (*d - '0');
        if (v > Q4C_NUM_MAX)
            return bad(err, name, "the number in parameter '%s' is above 2^40", tok);
    }
    if (*d)
        return bad(err, name, "bad parameter '%s': a device limit is %s<number>", tok,
                   limits[li].key);
    if (d - num > 1 && *num == '0')
        return bad(err, name, "the number in parameter '%s' has a leading zero", tok);
    if (p->have_limit[li])
        return bad(err, name, "parameter %s is given twice", limits[li].key);
    if (v == 0)
        return bad(err, name, "device limit '%s': 0 is no limit; leave the token out", tok);
    p->have_limit[li] = 1;
    p->limit[li] = v;
    return Q4_OK;
}

/* One token [a-z]+[0-9]+(x[0-9]+)*; tok is NUL-terminated. */
static q4_status parse_token(const q4c_op *op, const char *allowed, const char *keys,
                             const char *tok, q4c_params *p, const char *name,
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
    const int li = limit_index(s, nkey);
    if (li >= 0)
        return parse_limit(li, tok, s + nkey, p, name, err);
    if (nkey > 1 || !strchr(allowed, s[0]))
        return bad(err, name, "unknown parameter '%.*s' in '%s' for op %s (parameters: %s)",
                   (int)nkey, s, tok, op->name, keys);
    char key = s[0];
    s += nkey;
    for (;;) {
        const char *d = s;
        int64_t v = 0;
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s - '0');
            if (v > Q4C_NUM_MAX)
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

static q4_status parse_params(const q4c_op *op, const char *allowed, const char *keys,
                              const char *text, q4c_params *p, const char *name,
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
        q4_status st = parse_token(op, allowed, keys, tok, p, name, err);
        if (st) return st;
        if (s[len] == 0) return Q4_OK;
        s += len + 1;
    }
}

void q4c_fill_m(const q4c_params *p, q4_case *c)
{
    memcpy(c->lead, p->lead, sizeof c->lead);
    c->nlead = p->nlead;
    if (Q4C_HAVE(p, 'm')) {
        c->m = Q4C_P(p, 'm');   /* with d as well: q4c_check_lead checks that they agree */
        return;
    }
    /* Saturates above 2^40 (q4c_check_lead then names the overflow); no signed overflow. */
    c->m = 1;
    for (int i = 0; i < c->nlead; i++) {
        if (c->lead[i] > 0 && c->m > Q4C_NUM_MAX / c->lead[i]) { c->m = Q4C_NUM_MAX + 1; break; }
        c->m *= c->lead[i];
    }
}

q4_status q4c_linear_fill(const q4c_params *p, q4_case *c, q4_error *err)
{
    q4c_fill_m(p, c);
    c->n = Q4C_P(p, 'n');
    c->k = Q4C_P(p, 'k');
    c->gs = Q4C_P(p, 'g');
    if (Q4C_HAVE(p, 'b') && Q4C_P(p, 'b') > 1)
        return q4_fail(err, Q4_ERR_ARG, "b%lld: expected b0 or b1", (long long)Q4C_P(p, 'b'));
    c->bias = Q4C_HAVE(p, 'b') ? (int)Q4C_P(p, 'b') : 0;
    return Q4_OK;
}

void q4c_linear_format(const q4_case *c, q4c_text *t)
{
    q4c_format_m(c, t);
    q4c_put(t, "_n%lld_k%lld_g%lld", (long long)c->n, (long long)c->k, (long long)c->gs);
    if (c->bias) q4c_put(t, "_b1");
}

static q4_status fill(const q4c_op *op, int random, const q4c_params *p, q4_case *c,
                      const char *name, q4_error *err)
{
    const char *required = random ? "s" : op->required;
    q4_error e = {0};
    for (const char *k = required; *k; k++) {
        int have = p->have[*k - 'a'] || (*k == 'm' && Q4C_HAVE(p, 'd'));
        if (!have)
            return bad(err, name, "missing parameter %s; op %s takes %s",
                       *k == 'm' ? "m (or d<A>x<B>..)" : (char[2]){*k, 0}, op->name,
                       random ? "s (family random)" : op->keys);
    }
    if (random) {
        c->sweep = Q4C_P(p, 's');
        op->random(c);
    } else if (op->fill(p, c, &e)) {
        return bad(err, name, "%s", e.msg);
    }
    memcpy(c->limit, p->limit, sizeof c->limit);
    return Q4_OK;
}

q4_status q4_case_parse(const char *name, uint64_t seed, q4_case *out, q4_error *err)
{
    char buf[Q4_CASE_NAME_MAX], list[Q4_MSG_MAX];
    const char *level[5];
    int nlevels = 1;
    q4_case c;
    q4c_params p;
    q4_status st;

    if (!name)
        return q4_fail(err, Q4_ERR_ARG, "case name is NULL; expected q4cts.<op>.<family>.<params>");
    size_t len = strlen(name);
    if (len >= Q4_CASE_NAME_MAX)
        return bad(err, name, "%zu characters long; a case name has at most %d", len,
                   Q4_CASE_NAME_MAX - 1);
    memcpy(buf, name, len + 1);

    /* Levels: four, or five with a value class; split on '.'. */
    level[0] = buf;
    for (char *s = buf; *s; s++) {
        if (*s != '.') continue;
        *s = 0;
        if (nlevels < 5) level[nlevels] = s + 1;
        nlevels++;
    }
    if (nlevels != 4 && nlevels != 5)
        return bad(err, name, "%d dot-separated levels; expected 4 or 5: "
                   "q4cts.<op>.<family>.<params>[.<values>]%s", nlevels,
                   nlevels > 5 ? " (parameters are separated by '_', never '.')" : "");
    if (strcmp(level[0], "q4cts") != 0)
        return bad(err, name, "starts with '%s'; expected the prefix q4cts", level[0]);

    const q4c_op *op = q4c_op_find(level[1]);
    if (!op) {
        list_names(list, sizeof list, op_at, NULL);
        return bad(err, name, "unknown op '%s' (ops: %s)", level[1], list);
    }
    const q4c_family *fam = q4c_family_find(op, level[2]);
    if (!fam) {
        list_names(list, sizeof list, family_at, op);
        return bad(err, name, "unknown family '%s' for op %s (families: %s)", level[2], op->name,
                   list);
    }
    const int random = strcmp(fam->name, RANDOM) == 0;
    memset(&c, 0, sizeof c);
    if (nlevels == 5) {
        if (!q4c_class_find(op, level[4])) {
            list_names(list, sizeof list, class_at, op);
            return bad(err, name, "unknown value class '%s' for op %s (value classes: %s)",
                       level[4], op->name, list);
        }
        if (fam->values || random)
            return bad(err, name, "family %s decides the values itself; it takes no value "
                       "class ('%s' given)", fam->name, level[4]);
        snprintf(c.values, sizeof c.values, "%s", level[4]);
    }
    memset(&p, 0, sizeof p);
    c.op = op->name;
    snprintf(c.family, sizeof c.family, "%s", level[2]);
    c.seed = seed;
    if ((st = parse_params(op, random ? "s" : op->allowed, random ? "s (family random)" : op->keys,
                           level[3], &p, name, err)) ||
        (st = fill(op, random, &p, &c, name, err)) || (st = validate_as(&c, name, err)))
        return st;
    if (!shows_values(op, &c) && !random)
        c.values[0] = 0;   /* the default class, spelled out: the same case */
    q4_case_format(&c, c.name, sizeof c.name);
    if (out) *out = c;
    return Q4_OK;
}
