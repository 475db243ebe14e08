/* fuzz_run_report.c: fuzz target for the run report reader (q4h_run_doc_parse,
 * what `q4cts compare` and `q4cts merge` read, strictly: json_text.h) and merge's
 * reading of a shard property (q4h_shard_parse). A rejection must say why; an accepted
 * report must find each of its cases by name, and hold each name once; an accepted
 * shard I/N has 1 <= I <= N. */
#include <string.h>

#include "fuzz_target.h"
#include "merge.h"
#include "run_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q4h_run_doc doc;
    q4_error err = {0};
    if (q4h_run_doc_parse((const char *)data, size, "fuzz.json", &doc, &err) == Q4_OK) {
        for (size_t i = 0; i < doc.n; i++)
            q4fuzz_check(q4h_run_doc_find(&doc, doc.results[i].name) == &doc.results[i],
                         "an accepted report does not find its own case once");
        (void)q4h_run_doc_prop(&doc, "device");
        const char *shard = q4h_run_doc_prop(&doc, "shard");
        int i = 0, n = 0;
        if (shard && q4h_shard_parse(shard, &i, &n))
            q4fuzz_check(i >= 1 && i <= n, "an accepted shard is out of range");
        q4fuzz_check(doc.complete_known || !doc.complete, "a report of unknown end is complete");
    } else {
        q4fuzz_check_message(err.msg, "a rejected report");
    }
    q4h_run_doc_free(&doc);
    return 0;
}
