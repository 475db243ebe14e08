/* merge.c: `q4cts merge` (merge.h).
 *
 * Every input is a run's --json report; the merged JSON and JUnit are written from
 * their results by the same sinks a run uses, so they are what one run would have
 * written (JUnit included: the JSON holds every figure JUnit shows). Shards of
 * --shard I/N (the "shard" property) hold every N-th case of the selection from the
 * I-th on (select.c), so case k of shard I was case k*N + I - 1 of the whole: the
 * merged report lists them in that order, the order of a run without --shard.
 * Reports without a shard property (runs of different selections) are joined in the
 * order given. Everything is checked before anything is written. */
#include "merge.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4report.h"
#include "run_json.h"

/* Properties that must agree: reports that differ in them are not one run. A report
 * without "api" is a Vulkan run's (it came with WebGPU). */
static const char *const same_run_keys[] = { "q4cts.version", "seed", "validation", "api" };

/* The value of same-run key `key` in d, or NULL when d has none. */
static const char *run_key(const q4h_run_doc *d, const char *key)
{
    const char *v = q4h_run_doc_prop(d, key);
    return v || strcmp(key, "api") ? v : "vulkan";
}

typedef struct shard {
    q4h_run_doc doc;
    int i, n;          /* 0-based index of n; n == 0: no shard property */
} shard;

typedef struct merged {
    const q4_result *r;
    size_t order;      /* position in the run without --shard */
    int from;          /* which input */
} merged;

static int fail(const char *msg)
{
    fprintf(stderr, "q4cts: %s\n", msg);
    return 2;
}

/* A decimal number from 1 to INT_MAX at *p (digits only), advancing *p; 0 if none. */
static int positive(const char **p)
{
    long long v = 0;
    const char *q = *p;
    while (*q >= '0' && *q <= '9' && v <= INT_MAX)
        v = v * 10 + (*q++ - '0');
    if (q == *p || v < 1 || v > INT_MAX)
        return 0;
    *p = q;
    return (int)v;
}

bool q4h_shard_parse(const char *text, int *i, int *n)
{
    const char *q = text;
    *i = positive(&q);
    *n = *q == '/' ? (q++, positive(&q)) : 0;
    return *i && *n && !*q && *i <= *n;
}

/* The "shard" property "I/N" into s->i, s->n; 0 without one. */
static int read_shard(shard *s, q4_error *err)
{
    const char *p = q4h_run_doc_prop(&s->doc, "shard");
    int i, n;
    if (!p)
        return 0;
    if (!q4h_shard_parse(p, &i, &n)) {
        char shown[Q4_ECHO_MAX];
        q4_fail(err, Q4_ERR_ARG, "the report %s has shard property '%s'; expected I/N with "
                "1 <= I <= N <= %d", s->doc.shown, q4_echo(p, shown, sizeof shown), INT_MAX);
        return -1;
    }
    s->i = i - 1;
    s->n = n;
    return 0;
}

/* Each result of d is of d's API (the "api" of a result, when it has one). */
static q4_status one_api(const q4h_run_doc *d, q4_error *err)
{
    const char *api = run_key(d, "api");
    for (size_t i = 0; i < d->n; i++)
        if (d->results[i].api[0] && strcmp(d->results[i].api, api)) {
            char a[Q4_ECHO_MAX], b[Q4_ECHO_MAX], name[Q4_ECHO_MAX];
            return q4_fail(err, Q4_ERR_ARG, "the report %s is of api %s but its case %s ran on "
                           "%s; merge joins the shards of one run", d->shown,
                           q4_echo(api, a, sizeof a),
                           q4_echo(d->results[i].name, name, sizeof name),
                           q4_echo(d->results[i].api, b, sizeof b));
        }
    return Q4_OK;
}

/* The inputs are shards of one run: all with a shard property or none, one N, each
 * index once, one strictness, one API and the same same_run_keys, every report
 * against every other (a key one report has and another lacks differs too). */
static q4_status check_one_run(const shard *s, int n, q4_error *err)
{
    for (int k = 0; k < n; k++) {
        q4_status st = one_api(&s[k].doc, err);
        if (st != Q4_OK)
            return st;
    }
    for (int k = 1; k < n; k++) {
        const shard *a = &s[0], *b = &s[k];
        if ((a->n > 0) != (b->n > 0))
            return q4_fail(err, Q4_ERR_ARG, "%s is a shard (--shard) and %s is not; merge joins "
                           "the shards of one run", a->n ? a->doc.shown : b->doc.shown,
                           a->n ? b->doc.shown : a->doc.shown);
        if (a->n != b->n)
            return q4_fail(err, Q4_ERR_ARG, "%s is a shard of %d and %s of %d; the shards of one "
                           "run share N", a->doc.shown, a->n, b->doc.shown, b->n);
        if (a->doc.strict != b->doc.strict)
            return q4_fail(err, Q4_ERR_ARG, "%s was run with --strict and %s without",
                           a->doc.strict ? a->doc.shown : b->doc.shown,
                           a->doc.strict ? b->doc.shown : a->doc.shown);
        for (size_t p = 0; p < sizeof same_run_keys / sizeof *same_run_keys; p++) {
            /* equal to the first report's is equal to every other's */
            const char *va = run_key(&a->doc, same_run_keys[p]);
            const char *vb = run_key(&b->doc, same_run_keys[p]);
            char sa[Q4_ECHO_MAX], sb[Q4_ECHO_MAX];
            if ((va != NULL) != (vb != NULL))
                return q4_fail(err, Q4_ERR_ARG, "%s has %s %s and %s has none; shards of one "
                               "run share it", va ? a->doc.shown : b->doc.shown,
                               same_run_keys[p], q4_echo(va ? va : vb, sa, sizeof sa),
                               va ? b->doc.shown : a->doc.shown);
            if (va && vb && strcmp(va, vb))
                return q4_fail(err, Q4_ERR_ARG, "%s has %s %s and %s has %s %s; shards of one "
                               "run share it", a->doc.shown, same_run_keys[p],
                               q4_echo(va, sa, sizeof sa), b->doc.shown, same_run_keys[p],
                               q4_echo(vb, sb, sizeof sb));
        }
        for (int j = 0; j < k && b->n; j++)
            if (s[j].i == b->i)
                return q4_fail(err, Q4_ERR_ARG, "%s and %s are both shard %d/%d", s[j].doc.shown,
                               b->doc.shown, b->i + 1, b->n);
    }
    return Q4_OK;
}

static const merged *sort_base;

static int by_name(const void *a, const void *b)
{
    const merged *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    return strcmp(x->r->name, y->r->name);
}

static int by_order(const void *a, const void *b)
{
    const merged *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* A case in two inputs: a conflict when their verdicts differ, a duplicate when not. */
static q4_status check_unique(const merged *m, size_t n, const shard *s, q4_error *err)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory merging reports");
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_base = m;
    qsort(idx, n, sizeof *idx, by_name);
    q4_status st = Q4_OK;
    for (size_t i = 1; i < n && st == Q4_OK; i++) {
        const merged *a = &m[idx[i - 1]], *b = &m[idx[i]];
        if (strcmp(a->r->name, b->r->name))
            continue;
        if (a->from > b->from) {
            const merged *t = a;
            a = b;
            b = t;
        }
        char name[Q4_ECHO_MAX];
        q4_echo(a->r->name, name, sizeof name);
        if (a->r->verdict != b->r->verdict)
            st = q4_fail(err, Q4_ERR_ARG, "conflicting results: case %s is %s in %s and %s in "
                         "%s", name, q4_verdict_name(a->r->verdict), s[a->from].doc.shown,
                         q4_verdict_name(b->r->verdict), s[b->from].doc.shown);
        else
            st = q4_fail(err, Q4_ERR_ARG, "duplicate case %s: in %s and in %s; shards of one "
                         "run hold each case once", name, s[a->from].doc.shown,
                         s[b->from].doc.shown);
    }
    free(idx);
    return st;
}

/* The merged properties: each key once, in order of first appearance; a value the
 * inputs disagree on (devices of different machines) becomes "A; B", without repeats.
 * The shard property goes: the merged report is the whole run. */
/* Whether v is one of the "; "-separated parts of list. */
static int has_part(const char *list, const char *v)
{
    size_t len = strlen(v);
    for (const char *p = list; p; p = strstr(p, "; "), p = p ? p + 2 : NULL)
        if (!strncmp(p, v, len) && (p[len] == '\0' || !strncmp(p + len, "; ", 2)))
            return 1;
    return 0;
}

static q4_status merge_props(const shard *s, int n, q4_prop **out, size_t *count, q4_error *err)
{
    size_t cap = 1;
    for (int k = 0; k < n; k++)
        cap += s[k].doc.n_props;
    q4_prop *props = calloc(cap, sizeof *props);
    if (!props)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory merging reports");
    size_t np = 0;
    for (int k = 0; k < n; k++)
        for (size_t p = 0; p < s[k].doc.n_props; p++) {
            const q4_prop *q = &s[k].doc.props[p];
            if (!strcmp(q->key, "shard"))
                continue;
            size_t j = 0;
            while (j < np && strcmp(props[j].key, q->key))
                j++;
            if (j == np) {
                props[np].key = q->key;
                props[np++].value = strdup(q->value);
            } else if (props[j].value && !has_part(props[j].value, q->value)) {
                size_t len = strlen(props[j].value) + strlen(q->value) + 3;
                char *v = malloc(len);
                if (v)
                    snprintf(v, len, "%s; %s", props[j].value, q->value);
                free((char *)props[j].value);
                props[j].value = v;
            }
            if (!props[j].value) {
                for (size_t x = 0; x < np; x++)
                    free((char *)props[x].value);
                free(props);
                return q4_fail(err, Q4_ERR_NOMEM, "out of memory merging reports");
            }
        }
    *out = props;
    *count = np;
    return Q4_OK;
}

/* Why the merged run is not complete ("" when it is): a shard missing or cut short. */
static void incompleteness(const shard *s, int n, char *why, size_t size)
{
    why[0] = '\0';
    for (int k = 0; k < n && !why[0]; k++) {
        char stopped[Q4_ECHO_MAX];
        if (!s[k].doc.complete_known)
            snprintf(why, size, "%s does not say whether its run completed (a report from "
                     "before q4cts said)", s[k].doc.shown);
        else if (!s[k].doc.complete)
            snprintf(why, size, "%s is incomplete%s%s", s[k].doc.shown,
                     s[k].doc.stopped[0] ? ": " : "",
                     q4_echo(s[k].doc.stopped, stopped, sizeof stopped));
    }
    int total = s[0].n;
    for (int i = 0; i < total && !why[0]; i++) {
        int k = 0;
        while (k < n && s[k].i != i)
            k++;
        if (k == n)
            snprintf(why, size, "shard %d/%d is missing", i + 1, total);
    }
}

static q4_status write_reports(const q4h_cli *cli, const merged *m, size_t n,
                               const q4_prop *props, size_t np, int strict, long long planned,
                               const char *why, q4_error *err)
{
    q4_junit *junit = NULL;
    q4_json *json = NULL;
    q4_status st = Q4_OK;
    if (cli->junit && (st = q4_junit_open(cli->junit, "q4cts", props, np, &junit, err)) == Q4_OK) {
        q4_junit_set_strict(junit, strict);
        q4_junit_set_fsync(junit, 0);
        q4_junit_set_write_at_close(junit, 1);   /* one document, written whole at close */
        if (planned >= 0)
            q4_junit_set_planned(junit, (size_t)planned);
        if (why[0])
            q4_junit_set_stopped(junit, why);
    }
    if (st == Q4_OK && cli->json &&
        (st = q4_json_open(cli->json, props, np, &json, err)) == Q4_OK) {
        q4_json_set_strict(json, strict);
        q4_json_set_fsync(json, 0);
        q4_json_set_write_at_close(json, 1);
        if (planned >= 0)
            q4_json_set_planned(json, (size_t)planned);
        if (why[0])
            q4_json_set_stopped(json, why);
    }
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        if (junit)
            st = q4_junit_add(junit, m[i].r, err);
        if (st == Q4_OK && json)
            st = q4_json_add(json, m[i].r, err);
    }
    q4_error close_err = { 0 };
    q4_status a = q4_junit_close(junit, &close_err), b = q4_json_close(json, &close_err);
    if (st == Q4_OK && (a != Q4_OK || b != Q4_OK)) {
        st = a != Q4_OK ? a : b;
        if (err)
            *err = close_err;
    }
    return st;
}

int q4h_merge(const q4h_cli *cli)
{
    int n = (int)cli->n_operands, rc = 2;
    shard *s = calloc((size_t)n, sizeof *s);
    merged *m = NULL;
    q4_prop *props = NULL;
    size_t np = 0, total = 0;
    q4_error err = { 0 };
    if (!s)
        return fail("out of memory merging reports");
    int loaded = 0;
    q4_status st = Q4_OK;
    for (; loaded < n && st == Q4_OK; loaded++)
        if ((st = q4h_run_doc_load(cli->operands[loaded], &s[loaded].doc, &err)) == Q4_OK &&
            read_shard(&s[loaded], &err) < 0)
            st = Q4_ERR_ARG;
    if (st == Q4_OK)
        st = check_one_run(s, n, &err);
    for (int k = 0; k < n; k++)
        total += s[k].doc.n;
    if (st == Q4_OK && !(m = calloc(total ? total : 1, sizeof *m)))
        st = q4_fail(&err, Q4_ERR_NOMEM, "out of memory merging reports");
    size_t at = 0, offset = 0;
    long long planned = 0;
    for (int k = 0; k < n && st == Q4_OK; k++) {
        for (size_t i = 0; i < s[k].doc.n; i++)
            m[at++] = (merged){ &s[k].doc.results[i],
                                s[k].n ? i * (size_t)s[k].n + (size_t)s[k].i : offset + i, k };
        offset += s[k].doc.n;
        planned = planned < 0 || s[k].doc.planned < 0 ? -1 : planned + s[k].doc.planned;
    }
    if (st == Q4_OK)
        st = check_unique(m, total, s, &err);
    if (st == Q4_OK)
        st = merge_props(s, n, &props, &np, &err);
    char why[300] = "";
    if (st == Q4_OK) {
        qsort(m, total, sizeof *m, by_order);
        incompleteness(s, n, why, sizeof why);
        st = write_reports(cli, m, total, props, np, s[0].doc.strict, planned, why, &err);
    }
    if (st == Q4_OK) {
        size_t not_ok = 0;
        for (size_t i = 0; i < total; i++)
            not_ok += !q4_verdict_ok(m[i].r->verdict, s[0].doc.strict);
        printf("merged %d report%s: %zu cases, %zu not ok%s%s\n", n, n == 1 ? "" : "s", total,
               not_ok, why[0] ? "; incomplete: " : "", why);
        if (cli->junit || cli->json)
            printf("reports: %s%s%s\n", cli->junit ? cli->junit : "",
                   cli->junit && cli->json ? ", " : "", cli->json ? cli->json : "");
        rc = not_ok || why[0] ? 1 : 0;
    } else {
        fail(err.msg);
    }
    for (size_t i = 0; i < np; i++)
        free((char *)props[i].value);
    free(props);
    free(m);
    for (int k = 0; k < loaded; k++)
        q4h_run_doc_free(&s[k].doc);
    free(s);
    return rc;
}
