/* fuzz_expectations.c: fuzz target for the baseline reader of `run --baseline FILE`
 * (q4h_expectations_parse, harness/store/baseline.c). A rejection must say why; an accepted
 * baseline must answer a look-up with a verdict. */
#include "baseline.h"
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q4h_expectations *e = NULL;
    q4_error err = {0};
    if (q4h_expectations_parse((const char *)data, size, "fuzz.txt", &e, &err) == Q4_OK) {
        q4fuzz_check(e != NULL, "an accepted baseline is NULL");
        q4_verdict v = q4h_expected_verdict(e, "q4cts.adamw_step.custom.n4_t1_w0");
        q4fuzz_check((unsigned)v < Q4_VERDICT_COUNT, "a look-up gave no verdict");
        (void)q4h_expectations_count(e);
        q4h_expectations_free(e);
    } else {
        q4fuzz_check_message(err.msg, "a rejected baseline");
    }
    return 0;
}
