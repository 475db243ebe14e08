/* fuzz_cli.c: fuzz target for the q4cts command-line parser (q4h_cli_parse).
 *
 * The bytes are split at NUL into argv[1..] (argv[0] is "q4cts"). The parser is pure
 * (no getopt state, no printing, no exit), so it is called as it is. A parse that
 * succeeds must have found a known command (or --help/--version alone) and a shard
 * in range; a rejection must say why in printable text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_target.h"

#define MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = q4fuzz_cstring(data, size), *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "q4cts";
    for (char *p = buf; p <= buf + size && argc <= MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;

    q4h_cli cli;
    q4_error err = {0};
    if (q4h_cli_parse(argc, argv, &cli, &err) == Q4_OK) {
        static const char *const known[] = { "devices", "list", "kernels", "run", "perf",
                                             "replay", "compare", "merge", "report" };
        int ok = !cli.command && (cli.help || cli.version);
        for (size_t i = 0; cli.command && i < sizeof known / sizeof *known; i++)
            ok |= !strcmp(cli.command, known[i]);
        q4fuzz_check(ok, "an accepted command line has no known command");
        q4fuzz_check(cli.shard_n >= 1 && cli.shard_i >= 0 && cli.shard_i < cli.shard_n,
                     "an accepted --shard is out of range");
        q4fuzz_check(!cli.command || strcmp(cli.command, "compare") || cli.n_operands == 2 ||
                     cli.help || cli.version, "an accepted compare has not two reports");
    } else {
        q4fuzz_check_message(err.msg, "a rejected command line");
    }
    free(buf);
    return 0;
}
