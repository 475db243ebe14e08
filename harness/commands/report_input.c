/* report_input.c: the inputs of `q4cts report` read and checked (report.h): a run's,
 * a perf run's or PyTorch's JSON, strictly parsed (json_text.h), of the shapes the
 * page's script expects. Apart from report.c so that a fuzzer takes it alone. */
#include "report.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "json_text.h"
#include "q4report.h"

const char *const q4h_report_keys[Q4H_REPORT_KINDS] = { "q4cts", "q4cts_perf", "torch_perf" };

static json_object *member(json_object *obj, const char *key, json_type type)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, type))
        return NULL;
    return v;
}

static int is_number(json_object *v)
{
    return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* A run's report: "results" of objects with name, op and a verdict name. */
static q4_status check_run(json_object *run, const char *shown, q4_error *err)
{
    json_object *results = member(run, "results", json_type_array);
    if (!results)
        return q4_fail(err, Q4_ERR_ARG, "%s: \"q4cts\" has no \"results\" array", shown);
    for (size_t i = 0; i < json_object_array_length(results); i++) {
        json_object *r = json_object_array_get_idx(results, i), *v;
        q4_verdict verdict;
        if (!json_object_is_type(r, json_type_object) || !member(r, "name", json_type_string) ||
            !member(r, "op", json_type_string))
            return q4_fail(err, Q4_ERR_ARG, "%s: result %zu is not an object with a \"name\" "
                           "and an \"op\" string", shown, i + 1);
        if (!(v = member(r, "verdict", json_type_string)) ||
            !q4_verdict_parse(json_object_get_string(v), &verdict))
            return q4_fail(err, Q4_ERR_ARG, "%s: result %zu has no \"verdict\" (Pass, Fail, "
                           "QualityWarning, ...)", shown, i + 1);
        if (json_object_object_get_ex(r, "worst_margin", &v) && v && !is_number(v))
            return q4_fail(err, Q4_ERR_ARG, "%s: result %zu has a \"worst_margin\" that is "
                           "not a number or null", shown, i + 1);
    }
    return Q4_OK;
}

/* A perf run's report: positive ceilings, and results with a name. */
static q4_status check_perf(json_object *perf, const char *shown, q4_error *err)
{
    json_object *ceilings = member(perf, "ceilings", json_type_object);
    json_object *results = member(perf, "results", json_type_array);
    static const char *const keys[] = { "copy_gbs", "fma_tflops" };
    for (int k = 0; k < 2; k++) {
        json_object *v = ceilings ? member(ceilings, keys[k], json_type_double) : NULL;
        if (!v || !(json_object_get_double(v) > 0))
            return q4_fail(err, Q4_ERR_ARG, "%s: \"q4cts_perf\" has no \"ceilings\" with a "
                           "positive \"%s\"", shown, keys[k]);
    }
    if (!results)
        return q4_fail(err, Q4_ERR_ARG, "%s: \"q4cts_perf\" has no \"results\" array", shown);
    for (size_t i = 0; i < json_object_array_length(results); i++) {
        json_object *r = json_object_array_get_idx(results, i);
        if (!json_object_is_type(r, json_type_object) || !member(r, "name", json_type_string))
            return q4_fail(err, Q4_ERR_ARG, "%s: result %zu is not an object with a \"name\" "
                           "string", shown, i + 1);
    }
    return Q4_OK;
}

/* PyTorch's timings: results with a name. */
static q4_status check_torch(json_object *torch, const char *shown, q4_error *err)
{
    json_object *results = member(torch, "results", json_type_array);
    for (size_t i = 0; results && i < json_object_array_length(results); i++) {
        json_object *r = json_object_array_get_idx(results, i);
        if (!json_object_is_type(r, json_type_object) || !member(r, "name", json_type_string))
            return q4_fail(err, Q4_ERR_ARG, "%s: result %zu is not an object with a \"name\" "
                           "string", shown, i + 1);
    }
    if (!results)
        return q4_fail(err, Q4_ERR_ARG, "%s: \"torch_perf\" has no \"results\" array", shown);
    return Q4_OK;
}

q4_status q4h_report_input_parse(const char *text, size_t len, const char *shown,
                                 q4h_report_kind *kind, json_object **body, q4_error *err)
{
    static q4_status (*const check[Q4H_REPORT_KINDS])(json_object *, const char *, q4_error *) = {
        check_run, check_perf, check_torch };
    json_object *doc = q4h_json_parse_object(text, len, shown, err);
    *body = NULL;
    if (!doc)
        return err ? err->status : Q4_ERR_ARG;
    int k = 0;
    json_object *b = NULL;
    while (k < Q4H_REPORT_KINDS && !(b = member(doc, q4h_report_keys[k], json_type_object)))
        k++;
    q4_status st = Q4_OK;
    if (k == Q4H_REPORT_KINDS)
        st = q4_fail(err, Q4_ERR_ARG, "%s holds no \"q4cts\", \"q4cts_perf\" or \"torch_perf\" "
                     "object; expected the --json of q4cts run, replay or perf, or of "
                     "scripts/bench-torch.py", shown);
    else if ((st = check[k](b, shown, err)) == Q4_OK) {
        *kind = (q4h_report_kind)k;
        *body = json_object_get(b);
    }
    json_object_put(doc);
    return st;
}

