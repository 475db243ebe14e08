/* case_name.c: the case-name grammar: q4cts.<op>.<family>.<params>[.<values>] parsed
 * into a q4_case and printed back in canonical form (README.md "Name grammar").
 *
 * The grammar is the same for every op; what an op's parameters and value classes
 * are is its descriptor's (ops/<op>.c). Parsing is in three steps, each with its own
 * messages: the levels (prefix, op, family, value class), the parameter tokens
 * (syntax, known keys, duplicates, missing keys), then the validation of case_check.c
 * (values, the op contract of q4_contract.h, the family rules, out-of-contract
 * inputs). Every message is "case name '<name>': <one sentence>". The parsed case
 * carries its op's descriptor (q4_case.desc), found here once. */
#include <stdio.h>
#include <string.h>

#include "case_check.h"
#include "case_format.h"
#include "case_limits.h"
#include "case_ops.h"

/* The family whose shape and values come from a seed instead of the name. */
#define RANDOM "random"

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
            return q4c_bad(err, name, "the number in parameter '%s' is above 2^40", tok);
    }
    if (*d)
        return q4c_bad(err, name, "bad parameter '%s': a device limit is %s<number>", tok,
                   q4_case_limit_key(li));
    if (d - num > 1 && *num == '0')
        return q4c_bad(err, name, "the number in parameter '%s' has a leading zero", tok);
    if (p->have_limit[li])
        return q4c_bad(err, name, "parameter %s is given twice", q4_case_limit_key(li));
    if (v == 0)
        return q4c_bad(err, name, "device limit '%s': 0 is no limit; leave the token out", tok);
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
        return q4c_bad(err, name, "bad parameter '%s': expected a lowercase key and a number, "
                   "e.g. m8 or d2x3", tok);
    const int li = q4c_limit_index(s, nkey);
    if (li >= 0)
        return parse_limit(li, tok, s + nkey, p, name, err);
    if (nkey > 1 || !strchr(allowed, s[0]))
        return q4c_bad(err, name, "unknown parameter '%.*s' in '%s' for op %s (parameters: %s)",
                   (int)nkey, s, tok, op->name, keys);
    char key = s[0];
    s += nkey;
    for (;;) {
        const char *d = s;
        int64_t v = 0;
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s - '0');
            if (v > Q4C_NUM_MAX)
                return q4c_bad(err, name, "the number in parameter '%s' is above 2^40", tok);
            s++;
        }
        if (s == d)
            return q4c_bad(err, name, "bad parameter '%s': expected a number after 'x'", tok);
        if (s - d > 1 && *d == '0')
            return q4c_bad(err, name, "the number '%.*s' in parameter '%s' has a leading zero",
                       (int)(s - d), d, tok);
        if (nvals == 5)
            return q4c_bad(err, name, "parameter '%s' lists more than 4 leading dims", tok);
        vals[nvals++] = v;
        if (*s == 0) break;
        if (*s != 'x')
            return q4c_bad(err, name, "bad parameter '%s': unexpected '%c'; expected digits or "
                       "'x' between leading dims", tok, *s);
        s++;
    }
    if (nvals > 1 && key != 'd')
        return q4c_bad(err, name, "parameter '%s': only d takes a list (d<A>x<B>..)", tok);
    if (nvals > 4)
        return q4c_bad(err, name, "parameter '%s' lists more than 4 leading dims", tok);
    if (p->have[key - 'a'])
        return q4c_bad(err, name, "parameter %c is given twice", key);
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
            return q4c_bad(err, name, "empty parameter; parameters are separated by a single '_'");
        memcpy(tok, s, len);   /* len < Q4_CASE_NAME_MAX: the whole name is shorter */
        tok[len] = 0;
        q4_status st = parse_token(op, allowed, keys, tok, p, name, err);
        if (st) return st;
        if (s[len] == 0) return Q4_OK;
        s += len + 1;
    }
}

static q4_status fill(const q4c_op *op, int random, const q4c_params *p, q4_case *c,
                      const char *name, q4_error *err)
{
    const char *required = random ? "s" : op->required;
    q4_error e = {0};
    for (const char *k = required; *k; k++) {
        int have = p->have[*k - 'a'] || (*k == 'm' && Q4C_HAVE(p, 'd'));
        if (!have)
            return q4c_bad(err, name, "missing parameter %s; op %s takes %s",
                       *k == 'm' ? "m (or d<A>x<B>..)" : (char[2]){*k, 0}, op->name,
                       random ? "s (family random)" : op->keys);
    }
    if (random) {
        c->sweep = Q4C_P(p, 's');
        op->random(c);
    } else if (op->fill(p, c, &e)) {
        return q4c_bad(err, name, "%s", e.msg);
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
        return q4c_bad(err, name, "%zu characters long; a case name has at most %d", len,
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
        return q4c_bad(err, name, "%d dot-separated levels; expected 4 or 5: "
                   "q4cts.<op>.<family>.<params>[.<values>]%s", nlevels,
                   nlevels > 5 ? " (parameters are separated by '_', never '.')" : "");
    if (strcmp(level[0], "q4cts") != 0)
        return q4c_bad(err, name, "starts with '%s'; expected the prefix q4cts", level[0]);

    const q4c_op *op = q4c_op_find(level[1]);
    if (!op) {
        list_names(list, sizeof list, op_at, NULL);
        return q4c_bad(err, name, "unknown op '%s' (ops: %s)", level[1], list);
    }
    const q4c_family *fam = q4c_family_find(op, level[2]);
    if (!fam) {
        list_names(list, sizeof list, family_at, op);
        return q4c_bad(err, name, "unknown family '%s' for op %s (families: %s)", level[2], op->name,
                   list);
    }
    const int random = strcmp(fam->name, RANDOM) == 0;
    memset(&c, 0, sizeof c);
    if (nlevels == 5) {
        if (!q4c_class_find(op, level[4])) {
            list_names(list, sizeof list, class_at, op);
            return q4c_bad(err, name, "unknown value class '%s' for op %s (value classes: %s)",
                       level[4], op->name, list);
        }
        if (fam->values || random)
            return q4c_bad(err, name, "family %s decides the values itself; it takes no value "
                       "class ('%s' given)", fam->name, level[4]);
        snprintf(c.values, sizeof c.values, "%s", level[4]);
    }
    memset(&p, 0, sizeof p);
    c.op = op->name;
    c.desc = op;
    snprintf(c.family, sizeof c.family, "%s", level[2]);
    c.seed = seed;
    if ((st = parse_params(op, random ? "s" : op->allowed, random ? "s (family random)" : op->keys,
                           level[3], &p, name, err)) ||
        (st = fill(op, random, &p, &c, name, err)) ||
        (st = q4c_validate_as(op, &c, name, err)))
        return st;
    if (!q4c_shows_values(op, &c) && !random)
        c.values[0] = 0;   /* the default class, spelled out: the same case */
    q4_case_format(&c, c.name, sizeof c.name);
    if (out) *out = c;
    return Q4_OK;
}
