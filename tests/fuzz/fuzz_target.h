/* fuzz_target.h: what every fuzz target of tests/fuzz shares: the libFuzzer entry
 * points and two small helpers. The same targets link either with libFuzzer (preset
 * fuzz, clang) or with replay_main.c, which runs the corpus once (any compiler). */
#ifndef Q4FUZZ_TARGET_H
#define Q4FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant the code under test must keep: a broken one is a finding, so abort
 * (libFuzzer then saves the input as a crash artifact). */
#define q4fuzz_check(cond, what)                                                         \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "q4fuzz: %s (%s:%d)\n", (what), __FILE__, __LINE__);           \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* The input as a NUL-terminated string (cut at its first NUL); free() it. */
static inline char *q4fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    q4fuzz_check(s != NULL, "out of memory");
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

#endif
