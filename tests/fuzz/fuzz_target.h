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

/* The input bytes with a NUL appended (as a string it ends at its first NUL); free() it. */
static inline char *q4fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    q4fuzz_check(s != NULL, "out of memory");
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A user-facing error message: not empty, and no byte of the input reaches the
 * terminal raw: no control bytes and valid UTF-8 (arguments are quoted escaped). */
static inline void q4fuzz_check_message(const char *msg, const char *what)
{
    const unsigned char *p = (const unsigned char *)msg;
    if (!*p) {
        fprintf(stderr, "q4fuzz: %s has no message\n", what);
        abort();
    }
    while (*p) {
        int cont = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
                 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        int ok = cont >= 0 && *p >= 0x20 && *p != 0x7f;
        for (int i = 1; ok && i <= cont; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (!ok) {
            fprintf(stderr, "q4fuzz: %s has a raw byte 0x%02x in its message: %s\n", what, *p, msg);
            abort();
        }
        p += 1 + cont;
    }
}

#endif
