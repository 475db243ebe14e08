/* fuzz_dump.c: fuzz target for the readers of a dump folder that `q4cts replay` trusts
 * least: the .npy parser (q4h_npy_parse) and the case.json parser
 * (q4h_case_json_parse). Both parse from memory, so the bytes go to each as they are.
 *
 * An accepted .npy must describe data that lies inside the buffer and whose element
 * count is the product of its shape; a rejection of either must say why. */
#include <stdint.h>
#include <stdlib.h>

#include "case_json.h"
#include "fuzz_target.h"
#include "npy.h"

static void check_npy(const uint8_t *data, size_t size)
{
    q4h_npy a;
    q4_error err = {0};
    if (q4h_npy_parse(data, size, "fuzz.npy", &a, &err) != Q4_OK) {
        q4fuzz_check_message(err.msg, "a rejected .npy");
        return;
    }
    int64_t count = 1;
    for (int i = 0; i < a.ndim; i++)
        count *= a.shape[i];
    q4fuzz_check(count == a.count, "an accepted .npy's count is not the product of its shape");
    q4fuzz_check(a.elem == q4h_npy_elem(a.descr), "an accepted .npy has an unsupported dtype");
    const uint8_t *p = a.data;
    q4fuzz_check(p >= data && (size_t)(p - data) <= size &&
                     (uint64_t)a.count * a.elem <= (uint64_t)(size - (size_t)(p - data)),
                 "an accepted .npy's data lies outside the buffer");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_npy(data, size);
    q4h_dump_meta *m = calloc(1, sizeof *m);   /* large: keep it off the stack */
    q4fuzz_check(m != NULL, "out of memory");
    q4_error err = {0};
    if (q4h_case_json_parse((const char *)data, size, "case.json", m, &err) != Q4_OK)
        q4fuzz_check_message(err.msg, "a rejected case.json");
    free(m);
    return 0;
}
