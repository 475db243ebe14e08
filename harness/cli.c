/* cli.c: the q4cts command line: subcommand, options, --help and --version. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef Q4CTS_VERSION
#define Q4CTS_VERSION "0"
#endif

static const char usage[] =
    "Usage: q4cts COMMAND [OPTIONS]\n"
    "Conformance suite for q4gsw training kernels on Vulkan.\n"
    "\n"
    "Commands:\n"
    "  devices              list Vulkan devices with driver and version\n"
    "  list                 print the selected case names\n"
    "  kernels              print the built-in kernels (names for --kernel)\n"
    "  run                  run the selected cases and judge them against the reference\n"
    "  perf                 time the selected ops on benchmark shapes (GPU timestamps)\n"
    "  replay DIR           judge a dumped case's GPU outputs again (DIR: one case's\n"
    "                       folder under --dump-dir); --rerun runs it on this device\n"
    "\n"
    "Selection (run, list, perf):\n"
    "  --filter GLOB        cases whose name matches (repeatable); a full case name\n"
    "                       runs that shape even if no list has it\n"
    "  --exclude GLOB       drop matching cases (repeatable)\n"
    "  --caselist FILE      cases named in FILE, one name or glob per line (repeatable)\n"
    "  --shard I/N          the I-th of N deterministic fractions (1 <= I <= N)\n"
    "  --seed N             input seed (default 0); name + seed reproduce a case\n"
    "\n"
    "Running:\n"
    "  --device SEL         device index, UUID or name substring (default: first GPU,\n"
    "                       else the CPU device)\n"
    "  --kernel OP=FILE     run a SPIR-V module in place of a built-in kernel; OP is a\n"
    "                       kernel name or an op with one kernel (docs/kernels.md)\n"
    "  --repeat N           run each case N times; the worst verdict counts\n"
    "  --strict             QualityWarning counts as failure\n"
    "  --validation         enable the Khronos validation layer (or Q4CTS_VALIDATION=1)\n"
    "  --timeout SEC        per-submission GPU watchdog (default 60)\n"
    "  --dump-dir DIR       save each failing case as DIR/<case>/: case.json and .npy\n"
    "                       arrays (inputs, truth, GPU outputs); docs/dumps.md\n"
    "  --dump all|failing   which cases --dump-dir saves (default failing)\n"
    "  --rerun              replay: run the dumped inputs on the device, judge that\n"
    "\n"
    "Reports:\n"
    "  --junit FILE         JUnit XML, complete after every case\n"
    "  --json FILE          JSON with the same data and the device's properties\n"
    "\n"
    "Perf:\n"
    "  --reps N             timed repetitions per shape (default 20)\n"
    "  --warmup N           untimed runs first: at least N (default 3) ...\n"
    "  --warmup-ms MS       ... and at least MS of wall time (default 500), so that an\n"
    "                       idle GPU is back at full clocks before timing starts\n"
    "  --baseline FILE      compare with a saved --json; an op >10% slower exits 1\n"
    "\n"
    "  --help, --version\n"
    "\n"
    "Exit status: 0 every case passed or is not supported, 1 otherwise,\n"
    "2 usage or set-up error.\n";

static q4_status parse_uint(const char *flag, const char *s, uint64_t max, uint64_t *out,
                            q4_error *err)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || v > max)
        return q4_fail(err, Q4_ERR_ARG, "%s expects a whole number up to %llu, got '%s'", flag,
                       (unsigned long long)max, s);
    *out = v;
    return Q4_OK;
}

static q4_status parse_fault(const char *s, q4vk_faults *f, q4_error *err)
{
    const char *at = strchr(s, '@');
    uint64_t n;
    if (!at || parse_uint("--inject-fault", at + 1, INT32_MAX, &n, err) != Q4_OK || n == 0)
        return q4_fail(err, Q4_ERR_ARG, "--inject-fault expects alloc@N, lost@N, timeout@N or "
                       "crash@N with N >= 1, got '%s'", s);
    size_t len = (size_t)(at - s);
    if (len == 5 && !strncmp(s, "alloc", 5))
        f->fail_alloc_at = (int64_t)n;
    else if (len == 4 && !strncmp(s, "lost", 4))
        f->device_lost_at = (int64_t)n;
    else if (len == 7 && !strncmp(s, "timeout", 7))
        f->timeout_at = (int64_t)n;
    else if (len == 5 && !strncmp(s, "crash", 5))
        f->crash_at = (int64_t)n;
    else
        return q4_fail(err, Q4_ERR_ARG, "--inject-fault expects alloc@N, lost@N, timeout@N or "
                       "crash@N, got '%s'", s);
    return Q4_OK;
}

static q4_status push(const char **list, size_t *n, const char *flag, const char *v,
                      q4_error *err)
{
    if (*n == Q4H_MAX_LIST)
        return q4_fail(err, Q4_ERR_ARG, "%s may be given at most %d times", flag, Q4H_MAX_LIST);
    list[(*n)++] = v;
    return Q4_OK;
}

/* A non-option argument: the command, then (replay only) the folder it reads. */
static q4_status positional(q4h_cli *cli, const char *arg, q4_error *err)
{
    if (!cli->command)
        cli->command = arg;
    else if (!strcmp(cli->command, "replay") && !cli->operand)
        cli->operand = arg;
    else
        return q4_fail(err, Q4_ERR_ARG, "unexpected argument '%s'", arg);
    return Q4_OK;
}

enum { OPT_FILTER = 256, OPT_EXCLUDE, OPT_CASELIST, OPT_DEVICE, OPT_SEED, OPT_SHARD,
       OPT_REPEAT, OPT_VALIDATION, OPT_STRICT, OPT_TIMEOUT, OPT_JUNIT, OPT_JSON, OPT_DUMP,
       OPT_KERNEL, OPT_FAULT, OPT_REPS, OPT_WARMUP, OPT_WARMUP_MS, OPT_BASELINE, OPT_HELP,
       OPT_VERSION, OPT_DUMP_WHICH, OPT_RERUN };

q4_status q4h_cli_parse(int argc, char **argv, q4h_cli *cli, q4_error *err)
{
    static const struct option opts[] = {
        { "filter", required_argument, 0, OPT_FILTER },
        { "exclude", required_argument, 0, OPT_EXCLUDE },
        { "caselist", required_argument, 0, OPT_CASELIST },
        { "device", required_argument, 0, OPT_DEVICE },
        { "seed", required_argument, 0, OPT_SEED },
        { "shard", required_argument, 0, OPT_SHARD },
        { "repeat", required_argument, 0, OPT_REPEAT },
        { "validation", no_argument, 0, OPT_VALIDATION },
        { "strict", no_argument, 0, OPT_STRICT },
        { "timeout", required_argument, 0, OPT_TIMEOUT },
        { "junit", required_argument, 0, OPT_JUNIT },
        { "json", required_argument, 0, OPT_JSON },
        { "dump-dir", required_argument, 0, OPT_DUMP },
        { "dump", required_argument, 0, OPT_DUMP_WHICH },
        { "rerun", no_argument, 0, OPT_RERUN },
        { "kernel", required_argument, 0, OPT_KERNEL },
        { "inject-fault", required_argument, 0, OPT_FAULT },
        { "reps", required_argument, 0, OPT_REPS },
        { "warmup", required_argument, 0, OPT_WARMUP },
        { "warmup-ms", required_argument, 0, OPT_WARMUP_MS },
        { "baseline", required_argument, 0, OPT_BASELINE },
        { "help", no_argument, 0, OPT_HELP },
        { "version", no_argument, 0, OPT_VERSION },
        { 0, 0, 0, 0 },
    };
    static const char *const commands[] = { "devices", "list", "kernels", "run", "perf",
                                            "replay" };
    q4_status st = Q4_OK;
    uint64_t v;

    *cli = (q4h_cli){ .shard_n = 1, .repeat = 1, .timeout_s = 60, .perf_reps = 20,
                      .perf_warmup = 3, .perf_warmup_ms = 500 };
    opterr = 0;
    optind = 1;
    int c;
    for (;;) {
        /* Options and the command may come in any order: take a non-option as the command. */
        while (st == Q4_OK && optind < argc && argv[optind][0] != '-') {
            st = positional(cli, argv[optind++], err);
        }
        if (st != Q4_OK || (c = getopt_long(argc, argv, "+:", opts, NULL)) == -1)
            break;
        switch (c) {
        case OPT_FILTER: st = push(cli->filters, &cli->n_filters, "--filter", optarg, err); break;
        case OPT_EXCLUDE: st = push(cli->excludes, &cli->n_excludes, "--exclude", optarg, err); break;
        case OPT_CASELIST: st = push(cli->caselists, &cli->n_caselists, "--caselist", optarg, err); break;
        case OPT_KERNEL: st = push(cli->kernel_args, &cli->n_kernels, "--kernel", optarg, err); break;
        case OPT_DEVICE: cli->device = optarg; break;
        case OPT_SEED:
            st = parse_uint("--seed", optarg, UINT64_MAX, &cli->seed, err);
            break;
        case OPT_SHARD: {
            unsigned i, n;
            char tail;
            if (sscanf(optarg, "%u/%u%c", &i, &n, &tail) != 2 || n < 1 || i < 1 || i > n ||
                n > 1000000)
                st = q4_fail(err, Q4_ERR_ARG, "--shard expects I/N with 1 <= I <= N, got '%s'",
                             optarg);
            cli->shard_i = (int)i - 1;
            cli->shard_n = (int)n;
            break;
        }
        case OPT_REPEAT:
            if ((st = parse_uint("--repeat", optarg, 1000000, &v, err)) == Q4_OK && v == 0)
                st = q4_fail(err, Q4_ERR_ARG, "--repeat expects at least 1, got 0");
            cli->repeat = (int)v;
            break;
        case OPT_REPS:
            if ((st = parse_uint("--reps", optarg, 1000000, &v, err)) == Q4_OK && v == 0)
                st = q4_fail(err, Q4_ERR_ARG, "--reps expects at least 1, got 0");
            cli->perf_reps = (int)v;
            break;
        case OPT_WARMUP:
            st = parse_uint("--warmup", optarg, 1000000, &v, err);
            cli->perf_warmup = (int)v;
            break;
        case OPT_WARMUP_MS:
            st = parse_uint("--warmup-ms", optarg, 3600000, &v, err);
            cli->perf_warmup_ms = (int)v;
            break;
        case OPT_TIMEOUT:
            if ((st = parse_uint("--timeout", optarg, 86400, &v, err)) == Q4_OK && v == 0)
                st = q4_fail(err, Q4_ERR_ARG, "--timeout expects at least 1 second, got 0");
            cli->timeout_s = (double)v;
            break;
        case OPT_VALIDATION: cli->validation = 1; break;
        case OPT_STRICT: cli->strict = 1; break;
        case OPT_JUNIT: cli->junit = optarg; break;
        case OPT_JSON: cli->json = optarg; break;
        case OPT_DUMP: cli->dump_dir = optarg; break;
        case OPT_DUMP_WHICH:
            if (strcmp(optarg, "all") && strcmp(optarg, "failing"))
                st = q4_fail(err, Q4_ERR_ARG, "--dump expects all or failing, got '%s'", optarg);
            cli->dump_all = !strcmp(optarg, "all");
            break;
        case OPT_RERUN: cli->rerun = 1; break;
        case OPT_BASELINE: cli->baseline = optarg; break;
        case OPT_FAULT: st = parse_fault(optarg, &cli->faults, err); break;
        case OPT_HELP: fputs(usage, stdout); exit(0);
        case OPT_VERSION: printf("q4cts %s\n", Q4CTS_VERSION); exit(0);
        case ':':
            st = q4_fail(err, Q4_ERR_ARG, "option %s needs a value", argv[optind - 1]);
            break;
        default:
            st = q4_fail(err, Q4_ERR_ARG, "unknown option '%s'", argv[optind - 1]);
            break;
        }
        if (st != Q4_OK)
            break;
    }
    if (st != Q4_OK)
        return st;
    for (; optind < argc && st == Q4_OK; optind++)
        st = positional(cli, argv[optind], err);
    if (st != Q4_OK)
        return st;
    if (!cli->command)
        return q4_fail(err, Q4_ERR_ARG,
                       "no command given (devices, list, kernels, run, perf, replay)");
    if (cli->dump_all && !cli->dump_dir)
        return q4_fail(err, Q4_ERR_ARG, "--dump all needs --dump-dir DIR to say where");
    if (!strcmp(cli->command, "replay") && !cli->operand)
        return q4_fail(err, Q4_ERR_ARG, "replay needs the folder of one dumped case");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cli->command, commands[i]))
            return Q4_OK;
    return q4_fail(err, Q4_ERR_ARG,
                   "unknown command '%s' (devices, list, kernels, run, perf, replay)",
                   cli->command);
}
