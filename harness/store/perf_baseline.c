/* perf_baseline.c: --baseline, read with json-c and checked before anything runs: a
 * baseline that compares nothing (random bytes, an empty file, a `run` report) used
 * to be accepted, and the run then "passed" against it. */
#include "perf_baseline.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "json_text.h"

#define EXPECTED "expected the --json of a 'q4cts perf' run"

typedef struct timing {
    char *name;
    double ms;
} timing;

struct q4h_baseline {
    timing *t;
    size_t n;
};

void q4h_baseline_free(q4h_baseline *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++)
        free(b->t[i].name);
    free(b->t);
    free(b);
}

double q4h_baseline_ms(const q4h_baseline *b, const char *name)
{
    for (size_t i = 0; b && i < b->n; i++)
        if (!strcmp(b->t[i].name, name))
            return b->t[i].ms;
    return -1;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

/* The parsed document, or NULL with the reason in err. */
static json_object *parse(const char *shown, const char *text, size_t len, q4_error *err)
{
    if (blank(text, len)) {
        q4_fail(err, Q4_ERR_ARG, "the baseline %s is empty; " EXPECTED, shown);
        return NULL;
    }
    /* strictly JSON (json_text.h): NaN, a key twice, comments ... are refused */
    char what[Q4_ECHO_MAX + 16];
    q4_error why = { 0 };
    snprintf(what, sizeof what, "the baseline %s", shown);
    json_object *doc = q4h_json_parse_object(text, len, what, &why);
    if (!doc) {
        const char *reason = why.msg;   /* "WHAT is not valid JSON: why (line L, ...)" */
        if (!strncmp(reason, what, strlen(what)))
            reason += strlen(what) + strspn(reason + strlen(what), " ");
        static const char *const lead[] = { "is not valid JSON here: ", "is not valid JSON: " };
        for (int i = 0; i < 2; i++)
            if (!strncmp(reason, lead[i], strlen(lead[i])))
                reason += strlen(lead[i]);
        q4_fail(err, why.status == Q4_ERR_NOMEM ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                "the baseline %s is not JSON (%s); " EXPECTED, shown, reason);
    }
    return doc;
}

/* Adds the timings of `results` to b; the error names a malformed entry. */
static q4_status add_results(q4h_baseline *b, json_object *results, const char *shown,
                             q4_error *err)
{
    size_t n = json_object_array_length(results);
    b->t = calloc(n ? n : 1, sizeof *b->t);
    if (!b->t)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory reading the baseline %s", shown);
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(results, i), *name, *ms;
        if (!json_object_is_type(r, json_type_object) ||
            !json_object_object_get_ex(r, "name", &name) ||
            !json_object_is_type(name, json_type_string))
            return q4_fail(err, Q4_ERR_ARG, "the baseline %s: result %zu has no \"name\" string; "
                           EXPECTED, shown, i + 1);
        if (json_object_object_get_ex(r, "error", NULL))
            continue;   /* a case that could not be timed then: nothing to compare */
        if (!json_object_object_get_ex(r, "median_ms", &ms) ||
            !(json_object_is_type(ms, json_type_double) || json_object_is_type(ms, json_type_int) ||
              json_object_is_type(ms, json_type_null)))
            return q4_fail(err, Q4_ERR_ARG, "the baseline %s: result %zu has no \"median_ms\" "
                           "number; " EXPECTED, shown, i + 1);
        double v = json_object_get_double(ms);
        if (json_object_is_type(ms, json_type_null) || !isfinite(v) || v <= 0)
            continue;   /* not a time that a ratio can be taken of */
        if (!(b->t[b->n].name = strdup(json_object_get_string(name))))
            return q4_fail(err, Q4_ERR_NOMEM, "out of memory reading the baseline %s", shown);
        b->t[b->n++].ms = v;
    }
    if (b->n == 0)
        return q4_fail(err, Q4_ERR_ARG, "the baseline %s times no case; " EXPECTED, shown);
    return Q4_OK;
}

q4_status q4h_baseline_load(const char *path, q4h_baseline **out, q4_error *err)
{
    char shown[Q4_ECHO_MAX], fmt_echo[64];
    size_t len;
    q4_echo(path, shown, sizeof shown);
    *out = NULL;
    char *text = q4h_read_file(path, &len);
    if (!text)
        return q4_fail(err, errno == ENOMEM ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                       "cannot read the baseline %s: %s", shown, q4_file_strerror(errno));
    json_object *doc = parse(shown, text, len, err), *perf = NULL, *format = NULL, *results = NULL;
    free(text);
    if (!doc)
        return err ? err->status : Q4_ERR_ARG;
    q4_status st = Q4_OK;
    q4h_baseline *b = calloc(1, sizeof *b);
    if (!b)
        st = q4_fail(err, Q4_ERR_NOMEM, "out of memory reading the baseline %s", shown);
    else if (json_object_object_get_ex(doc, "q4cts", NULL))
        st = q4_fail(err, Q4_ERR_ARG, "the baseline %s is a 'q4cts run' report; " EXPECTED, shown);
    else if (!json_object_object_get_ex(doc, "q4cts_perf", &perf) ||
             !json_object_is_type(perf, json_type_object))
        st = q4_fail(err, Q4_ERR_ARG, "the baseline %s is JSON without a \"q4cts_perf\" object; "
                     EXPECTED, shown);
    else if (!json_object_object_get_ex(perf, "format", &format) ||
             !json_object_is_type(format, json_type_int) || json_object_get_int(format) != 1)
        st = q4_fail(err, Q4_ERR_ARG, "the baseline %s has format %s; this q4cts reads "
                     "format 1 (" EXPECTED ")", shown,
                     q4_echo(format ? json_object_to_json_string(format) : "(none)", fmt_echo,
                             sizeof fmt_echo));
    else if (!json_object_object_get_ex(perf, "results", &results) ||
             !json_object_is_type(results, json_type_array))
        st = q4_fail(err, Q4_ERR_ARG, "the baseline %s has no \"results\" array; " EXPECTED, shown);
    else
        st = add_results(b, results, shown, err);
    json_object_put(doc);
    if (st != Q4_OK) {
        q4h_baseline_free(b);
        return st;
    }
    *out = b;
    return Q4_OK;
}
