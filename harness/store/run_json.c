/* run_json.c: a run's JSON report read back (run_json.h). */
#include "run_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "json_text.h"

#define EXPECTED_DOC "the --json report of a 'q4cts run'"

void q4h_run_doc_free(q4h_run_doc *doc)
{
    for (size_t i = 0; i < doc->n_props; i++) {
        free((char *)doc->props[i].key);
        free((char *)doc->props[i].value);
    }
    free(doc->props);
    free(doc->results);
    free(doc->by_name);
    char shown[Q4_ECHO_MAX];
    memcpy(shown, doc->shown, sizeof shown);
    *doc = (q4h_run_doc){ .planned = -1 };
    memcpy(doc->shown, shown, sizeof shown);
}

static void parse_result(q4h_jparser *p, json_object *j, size_t i, q4_result *r)
{
    char where[32], verdict[32] = "";
    snprintf(where, sizeof where, "results[%zu]", i);
    q4_result_init(r);
    if (!json_object_is_type(j, json_type_object)) {
        q4h_jp_bad(p, "", where, "an object");
        return;
    }
    q4h_jp_str(p, j, where, "name", r->name, sizeof r->name, false);
    if (p->st == Q4_OK && !r->name[0])
        q4h_jp_bad(p, where, "name", "a case name, not empty");
    q4h_jp_str(p, j, where, "op", r->op, sizeof r->op, false);
    q4h_jp_str(p, j, where, "family", r->family, sizeof r->family, false);
    q4h_jp_str(p, j, where, "verdict", verdict, sizeof verdict, false);
    if (p->st == Q4_OK && !q4_verdict_parse(verdict, &r->verdict))
        q4h_jp_bad(p, where, "verdict", "a verdict name (Pass, Fail, QualityWarning, ...)");
    r->seconds = q4h_jp_num(p, j, where, "seconds");
    /* Times: null is unknown, as the harness marks it, and so is a key a report from
     * before it lacks (input_ms, then upload_ms, readback_ms, judge_ms). */
    double *ms[] = { &r->gpu_ms, &r->truth_ms, &r->input_ms, &r->upload_ms, &r->readback_ms,
                     &r->judge_ms };
    static const char *const ms_key[] = { "gpu_ms", "truth_ms", "input_ms", "upload_ms",
                                          "readback_ms", "judge_ms" };
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        *ms[k] = q4h_jp_num(p, j, where, ms_key[k]);
        if (*ms[k] != *ms[k])
            *ms[k] = -1;
    }
    /* since the truth could be made while judging; an older report's never was */
    json_object *fused = q4h_jp_member(p, j, where, "truth_fused", json_type_boolean, true,
                                       "true or false");
    r->truth_fused = fused && json_object_get_boolean(fused);
    r->worst_err = q4h_jp_num(p, j, where, "worst_err");
    r->worst_margin = q4h_jp_num(p, j, where, "worst_margin");
    r->stat_margin = q4h_jp_num(p, j, where, "stat_margin");
    r->got = q4h_jp_num(p, j, where, "got");
    r->expected = q4h_jp_num(p, j, where, "expected");
    r->bound = q4h_jp_num(p, j, where, "bound");
    q4h_jp_str(p, j, where, "output", r->output, sizeof r->output, false);
    r->index = q4h_jp_int(p, j, where, "index", 0, INT64_MAX, true);
    q4h_jp_str(p, j, where, "where", r->where, sizeof r->where, false);
    r->elements = q4h_jp_int(p, j, where, "elements", 0, INT64_MAX, false);
    q4h_jp_str(p, j, where, "message", r->message, sizeof r->message, false);
    q4h_jp_str(p, j, where, "repro", r->repro, sizeof r->repro, false);
    q4h_jp_str(p, j, where, "api", r->api, sizeof r->api, true);   /* older reports: none */
    /* Written since flakes and baselines came: optional, so older reports still read. */
    int64_t tries = q4h_jp_int(p, j, where, "tries", 1, 1000, true);
    r->tries = tries < 0 ? 1 : (int)tries;
    json_object *baseline = NULL;
    if (json_object_object_get_ex(j, "baseline", &baseline) && baseline) {
        char expected[32] = "";
        q4h_jp_str(p, j, where, "baseline", expected, sizeof expected, false);
        if (p->st == Q4_OK && !q4_verdict_parse(expected, &r->baseline))
            q4h_jp_bad(p, where, "baseline", "a verdict name or null");
    }
}

static const q4h_run_doc *sort_doc;   /* qsort has no user pointer */

static int by_name(const void *a, const void *b)
{
    return strcmp(sort_doc->results[*(const size_t *)a].name,
                  sort_doc->results[*(const size_t *)b].name);
}

static q4_status index_names(q4h_run_doc *doc, q4_error *err)
{
    doc->by_name = malloc((doc->n ? doc->n : 1) * sizeof *doc->by_name);
    if (!doc->by_name)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory reading %s", doc->shown);
    for (size_t i = 0; i < doc->n; i++)
        doc->by_name[i] = i;
    sort_doc = doc;
    qsort(doc->by_name, doc->n, sizeof *doc->by_name, by_name);
    for (size_t i = 1; i < doc->n; i++) {
        const q4_result *a = &doc->results[doc->by_name[i - 1]];
        if (!strcmp(a->name, doc->results[doc->by_name[i]].name)) {
            char name[Q4_ECHO_MAX];
            size_t x = doc->by_name[i - 1], y = doc->by_name[i];
            return q4_fail(err, Q4_ERR_ARG, "the report %s holds case %s twice (results[%zu] "
                           "and results[%zu]); a report holds each case once", doc->shown,
                           q4_echo(a->name, name, sizeof name), x < y ? x : y, x < y ? y : x);
        }
    }
    return Q4_OK;
}

static void parse_props(q4h_jparser *p, json_object *props, q4h_run_doc *doc)
{
    size_t n = (size_t)json_object_object_length(props);
    doc->props = calloc(n ? n : 1, sizeof *doc->props);
    if (!doc->props) {
        p->st = q4_fail(p->err, Q4_ERR_NOMEM, "out of memory reading %s", doc->shown);
        return;
    }
    json_object_object_foreach(props, key, value) {
        if (!json_object_is_type(value, json_type_string)) {
            q4h_jp_bad(p, "properties", key, "a string");
            return;
        }
        char *k = strdup(key), *v = strdup(json_object_get_string(value));
        doc->props[doc->n_props++] = (q4_prop){ k, v };
        if (!k || !v) {
            p->st = q4_fail(p->err, Q4_ERR_NOMEM, "out of memory reading %s", doc->shown);
            return;
        }
    }
}

q4_status q4h_run_doc_parse(const char *buf, size_t size, const char *path, q4h_run_doc *doc,
                            q4_error *err)
{
    char what[Q4_ECHO_MAX + 16];
    *doc = (q4h_run_doc){ .planned = -1 };
    q4_echo(path, doc->shown, sizeof doc->shown);
    snprintf(what, sizeof what, "the report %s", doc->shown);
    json_object *root = q4h_json_parse_object(buf, size, what, err), *run = NULL;
    if (!root)
        return err ? err->status : Q4_ERR_ARG;
    q4h_jparser p = { what, err, Q4_OK };
    if (!json_object_object_get_ex(root, "q4cts", &run) ||
        !json_object_is_type(run, json_type_object)) {
        json_object_put(root);
        return q4_fail(err, Q4_ERR_ARG, "%s has no \"q4cts\" object; expected " EXPECTED_DOC,
                       what);
    }
    q4h_jp_int(&p, run, "q4cts", "format", 1, 1, false);
    doc->strict = q4h_jp_bool(&p, run, "q4cts", "strict");
    doc->planned = q4h_jp_int(&p, run, "q4cts", "planned", 0, INT64_MAX, true);
    /* "planned", "complete" and "stopped" came later than format 1: a report without
     * them is read, as one whose completeness is unknown */
    doc->complete_known = json_object_object_get_ex(run, "complete", NULL);
    doc->complete = doc->complete_known && q4h_jp_bool(&p, run, "q4cts", "complete");
    json_object *stopped = NULL;
    if (json_object_object_get_ex(run, "stopped", &stopped) && stopped)
        q4h_jp_str(&p, run, "q4cts", "stopped", doc->stopped, sizeof doc->stopped, false);
    json_object *props = q4h_jp_member(&p, run, "q4cts", "properties", json_type_object, false,
                                       "an object of strings");
    if (props && p.st == Q4_OK)
        parse_props(&p, props, doc);
    json_object *results = q4h_jp_member(&p, run, "q4cts", "results", json_type_array, false,
                                         "an array of results");
    size_t n = results ? json_object_array_length(results) : 0;
    if (p.st == Q4_OK && !(doc->results = calloc(n ? n : 1, sizeof *doc->results)))
        p.st = q4_fail(err, Q4_ERR_NOMEM, "out of memory reading %s", doc->shown);
    for (size_t i = 0; i < n && p.st == Q4_OK; i++)
        parse_result(&p, json_object_array_get_idx(results, i), i, &doc->results[doc->n++]);
    json_object_put(root);
    q4_status st = p.st == Q4_OK ? index_names(doc, err) : p.st;
    if (st != Q4_OK)
        q4h_run_doc_free(doc);
    return st;
}

q4_status q4h_run_doc_load(const char *path, q4h_run_doc *doc, q4_error *err)
{
    size_t len = 0;
    *doc = (q4h_run_doc){ .planned = -1 };
    q4_echo(path, doc->shown, sizeof doc->shown);
    char *text = q4h_read_file(path, &len);
    if (!text)
        return q4_fail(err, errno == ENOMEM ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                       "cannot read the report %s: %s", doc->shown, q4_file_strerror(errno));
    q4_status st = q4h_run_doc_parse(text, len, path, doc, err);
    free(text);
    return st;
}

const char *q4h_run_doc_prop(const q4h_run_doc *doc, const char *key)
{
    for (size_t i = 0; i < doc->n_props; i++)
        if (!strcmp(doc->props[i].key, key))
            return doc->props[i].value;
    return NULL;
}

const q4_result *q4h_run_doc_find(const q4h_run_doc *doc, const char *name)
{
    size_t lo = 0, hi = doc->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(doc->results[doc->by_name[mid]].name, name);
        if (c == 0)
            return &doc->results[doc->by_name[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
