/* fuzz_interface.c: fuzz target for the interface-file reader (q4h_iface_parse,
 * `q4cts run --interface FILE`: harness/iface/interface_file.c, its expressions and its
 * checks against a module), a file of one op or a kernel set. The bytes are the file;
 * it sits, by name, in a folder holding adamw_step.spv (compiled by CMake), so a step
 * that names that module is checked against its reflection. A rejection must say why;
 * an accepted file must describe at least one op, each once, each with at least one
 * step, each with its module. */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_target.h"
#include "interface.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q4h_iface **f = NULL;
    size_t n = 0;
    q4_error err = {0};
    if (q4h_iface_parse(Q4FUZZ_INTERFACE_DIR "/fuzz.json", (const char *)data, size, &f, &n,
                        &err) == Q4_OK) {
        q4fuzz_check(f && n >= 1, "an accepted file describes no op");
        for (size_t i = 0; i < n; i++) {
            q4fuzz_check(f[i]->op && f[i]->n_steps >= 1, "an accepted op has no op or no step");
            q4fuzz_check(f[i]->set_n == 0 ? n == 1 : f[i]->set_n == (int)n && f[i]->set_i == (int)i,
                         "an accepted op's place in its set is wrong");
            for (size_t j = 0; j < i; j++)
                q4fuzz_check(f[j]->op != f[i]->op, "an accepted set describes an op twice");
            for (int s = 0; s < f[i]->n_steps; s++)
                q4fuzz_check((f[i]->steps[s].words || f[i]->steps[s].wgsl) &&
                             f[i]->steps[s].n_bind >= 1,
                             "an accepted step has no module or no binding");
        }
        q4h_ifaces_free(f, n);
    } else {
        q4fuzz_check(f == NULL && n == 0, "a rejected file was returned");
        q4fuzz_check_message(err.msg, "a rejected interface file");
    }
    return 0;
}
