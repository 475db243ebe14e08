/* fuzz_caselist.c: fuzz target for the case-list reader (q4_caselist_load) and the
 * selection it feeds (q4_case_select), as `q4cts --caselist FILE` uses them.
 *
 * The bytes are the file, given to the reader as a memory-backed file
 * (/proc/self/fd/N of a memfd), so the reader is fuzzed through its real path-taking
 * entry point with no disk I/O. A list it accepts must select at least one case. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "q4case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("q4fuzz-caselist", MFD_CLOEXEC);
    q4fuzz_check(fd >= 0, "memfd_create failed");
    q4fuzz_check(write(fd, data, size) == (ssize_t)size, "cannot write the memfd");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    char **pats = NULL;
    size_t n = 0;
    q4_error err = {0};
    q4_status st = q4_caselist_load(path, &pats, &n, &err);
    if (st == Q4_OK) {
        q4fuzz_check(n > 0 && pats, "an accepted case list has no pattern");
        q4_case *sel = NULL;
        size_t n_sel = 0;
        st = q4_case_select((const char *const *)pats, n, NULL, 0, 0, 1, 0, &sel, &n_sel, &err);
        q4fuzz_check(st == Q4_OK, "an accepted case list does not select");
        q4fuzz_check(n_sel > 0, "an accepted case list selects nothing");
        free(sel);
        q4_caselist_free(pats, n);
    } else {
        q4fuzz_check_message(err.msg, "a rejected case list");
    }
    close(fd);
    return 0;
}
