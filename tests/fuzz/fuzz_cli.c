/* fuzz_cli.c: fuzz target for the q4cts command-line parser (q4h_cli_parse).
 *
 * The bytes are split at NUL into argv[1..] (argv[0] is "q4cts"). --help and
 * --version print and call exit(0) from inside the parser; this target is linked
 * with -Wl,--wrap=exit (CMakeLists.txt), so such an exit jumps back here instead of
 * ending the fuzzer. A parse that succeeds must have found a known command. */
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_target.h"

#define MAX_ARGS 256

static jmp_buf escape;
static volatile int in_parser;

_Noreturn void __real_exit(int status);
_Noreturn void __wrap_exit(int status);

_Noreturn void __wrap_exit(int status)
{
    if (in_parser) {
        in_parser = 0;
        longjmp(escape, 1 + (status & 0xff));
    }
    __real_exit(status);
}

/* glibc's getopt keeps a pointer into the previous argv when a parse stopped inside a
 * cluster of short options ("-xyz"); optind = 0 is its documented full reset, and
 * the parser only sets optind = 1. Without this, one input's freed argv would be
 * read by the next (a use-after-free of the harness, not of q4cts, which parses once). */
static void reset_getopt(void)
{
    static char arg0[] = "q4cts";
    static char *argv0[] = { arg0, NULL };
    static const struct option none[] = { { 0, 0, 0, 0 } };
    optind = 0;
    opterr = 0;
    getopt_long(1, argv0, "", none, NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))   /* --help's text, thousands of times */
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
    int argc = 0;
    q4fuzz_check(buf != NULL, "out of memory");
    memcpy(buf, data, size);
    buf[size] = 0;
    argv[argc++] = "q4cts";
    for (char *p = buf; p <= buf + size && argc <= MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;

    q4h_cli cli;
    q4_error err = {0};
    reset_getopt();
    if (setjmp(escape) == 0) {
        in_parser = 1;
        q4_status st = q4h_cli_parse(argc, argv, &cli, &err);
        in_parser = 0;
        if (st == Q4_OK) {
            static const char *const known[] = { "devices", "list", "kernels", "run", "perf" };
            int ok = 0;
            for (size_t i = 0; cli.command && i < sizeof known / sizeof *known; i++)
                ok |= !strcmp(cli.command, known[i]);
            q4fuzz_check(ok, "an accepted command line has no known command");
            q4fuzz_check(cli.shard_n >= 1 && cli.shard_i >= 0 && cli.shard_i < cli.shard_n,
                         "an accepted --shard is out of range");
        } else {
            q4fuzz_check(err.msg[0] != 0, "a rejected command line has no message");
        }
    }
    free(buf);
    return 0;
}
