/* fuzz_interface.c: fuzz target for the interface-file reader (q4h_iface_parse,
 * `q4cts run --interface FILE`: harness/iface/interface_file.c, its expressions and its
 * checks against a module). The bytes are the file; it sits, by name, in a folder
 * holding adamw_step.spv (compiled by CMake), so a step that names that module is
 * checked against its reflection. A rejection must say why; an accepted file must
 * describe an op with at least one step, each with its module. */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_target.h"
#include "interface.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q4h_iface *f = NULL;
    q4_error err = {0};
    if (q4h_iface_parse(Q4FUZZ_INTERFACE_DIR "/fuzz.json", (const char *)data, size, &f, &err) ==
        Q4_OK) {
        q4fuzz_check(f && f->op && f->n_steps >= 1, "an accepted file has no op or no step");
        for (int s = 0; s < f->n_steps; s++)
            q4fuzz_check((f->steps[s].words || f->steps[s].wgsl) && f->steps[s].n_bind >= 1,
                         "an accepted step has no module or no binding");
        q4h_iface_free(f);
    } else {
        q4fuzz_check(f == NULL, "a rejected file was returned");
        q4fuzz_check_message(err.msg, "a rejected interface file");
    }
    return 0;
}
