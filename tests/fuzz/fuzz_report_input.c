/* fuzz_report_input.c: fuzz target for the inputs of `q4cts report`
 * (q4h_report_input_parse, harness/commands/report_input.c): a run's, a perf run's or PyTorch's
 * --json, strictly parsed and checked against the shapes the page's script expects. A
 * rejection must say why; an accepted input is an object of its kind, holds no number
 * that is not finite, and written out again (as the page's data is) reads back as
 * strict JSON (JSON.parse would refuse the page otherwise). */
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "fuzz_target.h"
#include "json_text.h"
#include "report.h"

/* No number of o's tree is NaN or infinite. */
static int finite_tree(json_object *o)
{
    if (json_object_is_type(o, json_type_double))
        return isfinite(json_object_get_double(o));
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            if (!finite_tree(json_object_array_get_idx(o, i)))
                return 0;
    } else if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, key, v) {
            (void)key;
            if (!finite_tree(v))
                return 0;
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q4h_report_kind kind = Q4H_REPORT_KINDS;
    json_object *body = NULL;
    q4_error err = {0};
    if (q4h_report_input_parse((const char *)data, size, "fuzz.json", &kind, &body, &err) ==
        Q4_OK) {
        q4fuzz_check(kind < Q4H_REPORT_KINDS && json_object_is_type(body, json_type_object),
                     "an accepted input is not an object of a known kind");
        q4fuzz_check(finite_tree(body), "an accepted input holds a number that is not finite");
        /* what the page's data is made of reads back as strict JSON */
        q4h_json_drop_nonfinite(body);
        const char *text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
        json_object *again = text ? q4h_json_parse_object(text, strlen(text), "again", &err) : NULL;
        q4fuzz_check(again != NULL, "an accepted input does not write back as JSON");
        json_object_put(again);
    } else {
        q4fuzz_check(body == NULL, "a rejected input was returned");
        q4fuzz_check_message(err.msg, "a rejected report input");
    }
    json_object_put(body);
    return 0;
}
