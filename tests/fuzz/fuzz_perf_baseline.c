/* fuzz_perf_baseline.c: fuzz target for the perf baseline reader (q4h_baseline_load,
 * `q4cts perf --baseline FILE`). The bytes are the file, given through its real
 * path-taking entry point as a memory-backed file (/proc/self/fd/N of a memfd).
 * A rejection must say why; an accepted baseline must answer a look-up. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "perf_baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("q4fuzz-baseline", MFD_CLOEXEC);
    q4fuzz_check(fd >= 0, "memfd_create failed");
    q4fuzz_check(write(fd, data, size) == (ssize_t)size, "cannot write the memfd");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    q4h_baseline *b = NULL;
    q4_error err = {0};
    if (q4h_baseline_load(path, &b, &err) == Q4_OK) {
        q4fuzz_check(b != NULL, "an accepted baseline is NULL");
        (void)q4h_baseline_ms(b, "q4cts.adamw_step.custom.n4_t1_w0");
        q4h_baseline_free(b);
    } else {
        q4fuzz_check_message(err.msg, "a rejected baseline");
    }
    close(fd);
    return 0;
}
