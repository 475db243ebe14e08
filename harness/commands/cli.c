/* cli.c: the q4cts command line: subcommand, options, --help and --version. */
#include "cli.h"

#include <errno.h>
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
    "  replay DIR           judge dumped GPU outputs again (DIR: one case's folder of a\n"
    "                       --dump-dir, or all of it); --rerun runs them on this device\n"
    "  compare A.json B.json  the cases whose verdict changed from run A to run B and\n"
    "                       the margins that moved by more than --factor; exit 1 when\n"
    "                       a case got worse (docs/runs.md)\n"
    "  merge SHARD.json...  join the --json reports of a run's shards (--shard I/N) into\n"
    "                       one --json and/or --junit report, in the unsharded order\n"
    "  report FILE.json...  one self-contained HTML page of a run's --json (and of a perf\n"
    "                       --json and bench-torch.py's --json): summaries, margin plots,\n"
    "                       error maps of failing cases (--dumps); docs/reports.md\n"
    "\n"
    "Selection (run, list, perf):\n"
    "  --filter GLOB        cases whose name matches (repeatable); a full case name\n"
    "                       runs that shape even if no list has it\n"
    "  --exclude GLOB       drop matching cases (repeatable)\n"
    "  --caselist FILE      cases named in FILE, one name or glob per line (repeatable)\n"
    "  --shard I/N          the I-th of N deterministic fractions (1 <= I <= N <= 1000000);\n"
    "                       a shard that holds no case runs nothing and passes\n"
    "  --seed N             input seed (default 0); name + seed reproduce a case\n"
    "\n"
    "Running:\n"
    "  --api vulkan|webgpu  which kernels run: the Vulkan GLSL ones (default) or the WGSL\n"
    "                       ones through Dawn in a Node.js worker (docs/webgpu.md)\n"
    "  --device SEL         device index, UUID or name substring (default: first GPU,\n"
    "                       else the CPU device)\n"
    "  --kernel OP=FILE     run a SPIR-V module in place of a built-in kernel; OP is a\n"
    "                       kernel name or an op with one kernel (docs/kernels.md);\n"
    "                       perf times it in place of the built-in\n"
    "  --interface FILE     run an op with another runtime's SPIR-V (WGSL with --api webgpu)\n"
    "                       as FILE describes it (docs/interface-format.md): one op, or a\n"
    "                       kernel set of several; an op once per run. With 'kernels':\n"
    "                       --interface NAME prints the file of built-in kernel NAME\n"
    "  --repeat N           run each case N times; the worst verdict counts\n"
    "  --strict             QualityWarning counts as failure\n"
    "  --validation         enable the Khronos validation layer (or Q4CTS_VALIDATION=1)\n"
    "  --timeout SEC        per-submission GPU watchdog (default 60; 300 with\n"
    "                       --race-check, whose probes slow dispatches down)\n"
    "  --inject-fault KIND@N  make the N-th (1 <= N <= 2147483647) GPU allocation fail\n"
    "                       (alloc), submission lose the device (lost) or time out\n"
    "                       (timeout), or case crash its worker (crash), or the\n"
    "                       worker crash releasing a device after N submissions\n"
    "                       (teardown): tests the harness's handling of each;\n"
    "                       flaky@N (N >= 2): every GPU run but each N-th reads back\n"
    "                       a wrong element; train_mv_reset, train_dw_stale,\n"
    "                       train_stale_w, train_bwd_stale_w or train_no_barrier\n"
    "                       @N: a planted integration bug at step N of every\n"
    "                       training case (docs/training.md)\n"
    "  --jobs N             run N cases at once, each worker on its own process\n"
    "                       (1 <= N <= 256; several may share one device)\n"
    "  --devices A,B,...    workers go round these devices (index, UUID or name);\n"
    "                       --jobs defaults to one per device\n"
    "  --flake-retries N    run a case that is not ok up to N more times; one that\n"
    "                       then passes is a Flake, listed, not counted as failed\n"
    "  --baseline FILE      run: expected verdicts, CASE,VERDICT a line; the run\n"
    "                       passes when every case does what FILE expects (a case it\n"
    "                       does not list: pass) and tells unexpected passes and\n"
    "                       failures apart (docs/runs.md)\n"
    "  --dump-dir DIR       save each failing case as DIR/<case>/: case.json and .npy\n"
    "                       arrays (inputs, truth, GPU outputs); docs/dumps.md\n"
    "  --dump all|failing   which cases --dump-dir saves (default failing)\n"
    "  --rerun              replay: run the dumped inputs on the device, judge that\n"
    "  --dumps DIR          report: the run's --dump-dir, for the error maps\n"
    "  -o, --output FILE    report: the HTML file to write\n"
    "  --bounds-check       probe every kernel's loads, stores and atomics: one past\n"
    "                       its binding's data fails the case, naming the binding,\n"
    "                       index and line\n"
    "  --race-check         probe every kernel's shared memory: two invocations of a\n"
    "                       workgroup touching a word with no barrier() between them\n"
    "                       (one writing, not both atomic), or a read of a word no\n"
    "                       invocation wrote, fails the case, naming the variable,\n"
    "                       word, lines and invocations (docs/race-check.md)\n"
    "  --shader-coverage FILE  record the GLSL lines and branches every kernel ran\n"
    "                       into FILE, an lcov tracefile (genhtml, scripts/coverage)\n"
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
    "  --baseline FILE      perf: compare with a saved --json; >10% slower exits 1\n"
    "  --dense-min-m M      perf: the q4 linears take their dense path (W dequantized,\n"
    "                       then an fp32 GEMM; docs/perf.md) from this M up, not 2048;\n"
    "                       an M above every case's keeps the tiled kernels\n"
    "  --mma-min-m M|off    run, perf: linear_q4gsw takes its tensor-core path (int8\n"
    "                       cooperative matrices; devices that have them) from this M\n"
    "                       up, not 512; off never (docs/perf.md)\n"
    "\n"
    "Compare:\n"
    "  --factor F           list margins that grew or shrank more than F times (default 2)\n"
    "\n"
    "  --help, --version\n"
    "\n"
    "Options are long (--name VALUE or --name=VALUE); a unique prefix of a name works.\n"
    "An option is refused by a command it is not for (replay's --device and such need\n"
    "--rerun), and no file written may be one that is read or another that is written.\n"
    "\n"
    "Threads: a case's inputs, its truth and the judge run on every online core;\n"
    "OMP_NUM_THREADS=N in the environment sets the count (1: one thread). The results\n"
    "are the same bytes on any count (docs/reports.md, \"Time per case\").\n"
    "\n"
    "Exit status: 0 every case passed or is not supported, 1 otherwise,\n"
    "2 usage or set-up error (a report that cannot be written included),\n"
    "130 or 143 stopped by SIGINT or SIGTERM: the worker is stopped, the reports are\n"
    "finished and marked incomplete, and the summary is printed.\n";

const char *q4h_cli_usage(void)
{
    return usage;
}

/* The argument as a message may quote it: escaped and shortened (q4_echo). */
#define SHOWN(s) q4_echo((s), shown, sizeof shown)

static q4_status parse_uint(const char *flag, const char *s, uint64_t max, uint64_t *out,
                            q4_error *err)
{
    char *end, shown[Q4_ECHO_MAX];
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || s[0] == '+' || s[0] == ' ' || v > max)
        return q4_fail(err, Q4_ERR_ARG, "%s expects a whole number up to %llu, got '%s'", flag,
                       (unsigned long long)max, SHOWN(s));
    *out = v;
    return Q4_OK;
}

const char *q4h_train_fault_name(q4h_train_fault_kind kind)
{
    static const char *const names[Q4H_TRAIN_FAULT_COUNT] = {
        "", "train_mv_reset", "train_dw_stale", "train_stale_w", "train_bwd_stale_w",
        "train_no_barrier" };
    return (unsigned)kind < Q4H_TRAIN_FAULT_COUNT ? names[kind] : "";
}

static q4_status parse_fault(const char *s, q4h_cli *cli, q4_error *err)
{
    q4vk_faults *f = &cli->faults;
    static const char *const kinds[] = { "alloc", "lost", "timeout", "crash", "teardown" };
    int64_t *slots[] = { &f->fail_alloc_at, &f->device_lost_at, &f->timeout_at, &f->crash_at,
                         &f->crash_at_destroy };
    const char *at = strchr(s, '@');
    uint64_t n = 0;
    char shown[Q4_ECHO_MAX];
    for (int k = 0; at && k < 5; k++)
        if ((size_t)(at - s) == strlen(kinds[k]) && !strncmp(s, kinds[k], (size_t)(at - s)) &&
            parse_uint("--inject-fault", at + 1, INT32_MAX, &n, NULL) == Q4_OK && n >= 1) {
            *slots[k] = (int64_t)n;
            return Q4_OK;
        }
    /* train_<kind>@N: a planted integration bug at step N of every training case */
    for (int k = 1; at && k < Q4H_TRAIN_FAULT_COUNT; k++)
        if ((size_t)(at - s) == strlen(q4h_train_fault_name((q4h_train_fault_kind)k)) &&
            !strncmp(s, q4h_train_fault_name((q4h_train_fault_kind)k), (size_t)(at - s)) &&
            parse_uint("--inject-fault", at + 1, Q4_CASE_TRAIN_MAX_STEPS, &n, NULL) == Q4_OK &&
            n >= 1) {
            cli->train_fault = (q4h_train_fault){ (q4h_train_fault_kind)k, (int64_t)n };
            return Q4_OK;
        }
    if (at && at - s == 5 && !strncmp(s, "flaky", 5) &&
        parse_uint("--inject-fault", at + 1, INT32_MAX, &n, NULL) == Q4_OK && n >= 2) {
        cli->flaky_every = (int)n;
        return Q4_OK;
    }
    return q4_fail(err, Q4_ERR_ARG, "--inject-fault expects KIND@N with KIND alloc, lost, "
                   "timeout, crash or teardown (or train_mv_reset, train_dw_stale, "
                   "train_stale_w, train_bwd_stale_w or train_no_barrier at a training "
                   "step N <= %d) and "
                   "1 <= N <= %d, or flaky@N with N >= 2, got '%s'", Q4_CASE_TRAIN_MAX_STEPS,
                   INT32_MAX, SHOWN(s));
}

/* I/N with 1 <= I <= N <= Q4H_MAX_SHARDS, each part a plain whole number (no sign, no
 * blanks, no wraparound: 4294967297 is not 1). */
static q4_status parse_shard(const char *s, q4h_cli *cli, q4_error *err)
{
    const char *slash = strchr(s, '/');
    char part[32], shown[Q4_ECHO_MAX];
    uint64_t i = 0, n = 0;
    size_t len = slash ? (size_t)(slash - s) : 0;
    if (slash && len < sizeof part) {
        memcpy(part, s, len);
        part[len] = '\0';
    }
    if (!slash || len >= sizeof part || parse_uint("--shard", part, Q4H_MAX_SHARDS, &i, NULL) ||
        parse_uint("--shard", slash + 1, Q4H_MAX_SHARDS, &n, NULL) || i < 1 || i > n)
        return q4_fail(err, Q4_ERR_ARG, "--shard expects I/N with 1 <= I <= N <= %d, got '%s'",
                       Q4H_MAX_SHARDS, SHOWN(s));
    cli->shard_i = (int)i - 1;
    cli->shard_n = (int)n;
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

/* A --filter or --exclude glob: printable ASCII like the case names it matches, so a
 * stray byte is named here, not echoed raw by a later message. */
static q4_status push_glob(const char **list, size_t *n, const char *flag, const char *v,
                           q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    if (strlen(v) > Q4_CASE_GLOB_MAX)
        return q4_fail(err, Q4_ERR_ARG, "%s '%s' is %zu bytes; a name or glob is at most %d",
                       flag, SHOWN(v), strlen(v), Q4_CASE_GLOB_MAX);
    for (const char *q = v; *q; q++)
        if ((unsigned char)*q < 0x21 || (unsigned char)*q >= 0x7F)
            return q4_fail(err, Q4_ERR_ARG, "%s '%s' has the byte 0x%02X; case names and globs "
                           "are printable ASCII without blanks", flag, SHOWN(v),
                           (unsigned char)*q);
    return push(list, n, flag, v, err);
}

/* The most operands a command takes: replay DIR, compare A B, merge SHARD... */
static size_t max_operands(const char *command)
{
    if (!strcmp(command, "replay"))
        return 1;
    if (!strcmp(command, "compare"))
        return 2;
    if (!strcmp(command, "merge"))
        return Q4H_MAX_OPERANDS;
    if (!strcmp(command, "report"))
        return 3;   /* a run's, a perf run's and PyTorch's JSON */
    return 0;
}

/* A non-option argument: the command, then the operands it takes. */
static q4_status positional(q4h_cli *cli, const char *arg, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    if (!cli->command)
        cli->command = arg;
    else if (cli->n_operands < max_operands(cli->command)) {
        cli->operands[cli->n_operands++] = arg;
        cli->operand = cli->operands[0];
    } else
        return q4_fail(err, Q4_ERR_ARG, "unexpected argument '%s'", SHOWN(arg));
    return Q4_OK;
}

/* --devices A,B,...: one device selector each, none empty (a selector has no comma). */
static q4_status parse_devices(const char *s, q4h_cli *cli, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    size_t len = strlen(s);
    if (len >= sizeof cli->devices_buf)
        return q4_fail(err, Q4_ERR_ARG, "--devices '%s' is %zu bytes; at most %zu", SHOWN(s), len,
                       sizeof cli->devices_buf - 1);
    memcpy(cli->devices_buf, s, len + 1);
    cli->n_devices = 0;
    cli->devices_arg = s;
    for (char *p = cli->devices_buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p)
            return q4_fail(err, Q4_ERR_ARG, "--devices expects device selectors separated by "
                           "commas (as 0,1), got '%s' with an empty one", SHOWN(s));
        if (cli->n_devices == Q4H_MAX_LIST)
            return q4_fail(err, Q4_ERR_ARG, "--devices names more than %d devices", Q4H_MAX_LIST);
        cli->devices[cli->n_devices++] = p;
        if (!comma)
            return Q4_OK;
        p = comma + 1;
    }
}

/* A number F > 1 (a factor by which a margin moved). */
static q4_status parse_factor(const char *s, double *out, q4_error *err)
{
    char *end, shown[Q4_ECHO_MAX];
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 1) || v > 1e300 || s[0] == ' ')
        return q4_fail(err, Q4_ERR_ARG, "--factor expects a number above 1, got '%s'", SHOWN(s));
    *out = v;
    return Q4_OK;
}

enum { OPT_FILTER = 256, OPT_EXCLUDE, OPT_CASELIST, OPT_DEVICE, OPT_SEED, OPT_SHARD,
       OPT_REPEAT, OPT_VALIDATION, OPT_STRICT, OPT_TIMEOUT, OPT_JUNIT, OPT_JSON, OPT_DUMP,
       OPT_KERNEL, OPT_INTERFACE, OPT_FAULT, OPT_REPS, OPT_WARMUP, OPT_WARMUP_MS, OPT_BASELINE,
       OPT_HELP, OPT_VERSION, OPT_DUMP_WHICH, OPT_RERUN, OPT_SHADER_COVERAGE, OPT_BOUNDS_CHECK, OPT_RACE_CHECK,
       OPT_FACTOR, OPT_API, OPT_DUMPS, OPT_OUTPUT, OPT_JOBS, OPT_DEVICES,
       OPT_FLAKE_RETRIES, OPT_DENSE_MIN_M, OPT_MMA_MIN_M };

/* The commands, in the order of the bits of option_def.commands. */
static const char *const commands[] = { "devices", "list", "kernels", "run", "perf",
                                        "replay", "compare", "merge", "report" };
#define N_COMMANDS (sizeof commands / sizeof commands[0])
enum { C_DEVICES = 1 << 0, C_LIST = 1 << 1, C_KERNELS = 1 << 2, C_RUN = 1 << 3,
       C_PERF = 1 << 4, C_REPLAY = 1 << 5, C_COMPARE = 1 << 6, C_MERGE = 1 << 7,
       C_REPORT = 1 << 8, C_ALL = (1 << 9) - 1,
       C_SELECT = C_LIST | C_RUN | C_PERF };

/* An option, and the commands it is an option of: any other command refuses it (a
 * `run --rerun` or `run -o page.html` did nothing, silently). replay's options that
 * run something also need --rerun (rerun_only). */
typedef struct option_def {
    const char *name;
    int has_value;
    int id;
    unsigned commands;
    int rerun_only;
} option_def;

static const option_def opts[] = {
    { "filter", 1, OPT_FILTER, C_SELECT, 0 },
    { "exclude", 1, OPT_EXCLUDE, C_SELECT, 0 },
    { "caselist", 1, OPT_CASELIST, C_SELECT, 0 },
    { "api", 1, OPT_API, C_DEVICES | C_RUN | C_PERF, 0 },
    { "device", 1, OPT_DEVICE, C_RUN | C_PERF | C_REPLAY, 1 },
    { "seed", 1, OPT_SEED, C_SELECT, 0 },
    { "shard", 1, OPT_SHARD, C_SELECT, 0 },
    { "repeat", 1, OPT_REPEAT, C_RUN | C_REPLAY, 1 },
    { "validation", 0, OPT_VALIDATION, C_RUN | C_PERF | C_REPLAY, 1 },
    { "strict", 0, OPT_STRICT, C_RUN | C_REPLAY, 0 },
    { "timeout", 1, OPT_TIMEOUT, C_RUN | C_PERF | C_REPLAY, 1 },
    { "junit", 1, OPT_JUNIT, C_RUN | C_REPLAY | C_MERGE, 0 },
    { "json", 1, OPT_JSON, C_RUN | C_PERF | C_REPLAY | C_MERGE, 0 },
    { "dump-dir", 1, OPT_DUMP, C_RUN | C_REPLAY, 1 },
    { "dump", 1, OPT_DUMP_WHICH, C_RUN | C_REPLAY, 1 },
    { "rerun", 0, OPT_RERUN, C_REPLAY, 0 },
    { "shader-coverage", 1, OPT_SHADER_COVERAGE, C_RUN, 0 },
    { "bounds-check", 0, OPT_BOUNDS_CHECK, C_RUN, 0 },
    { "race-check", 0, OPT_RACE_CHECK, C_RUN, 0 },
    { "dumps", 1, OPT_DUMPS, C_REPORT, 0 },
    { "output", 1, OPT_OUTPUT, C_REPORT, 0 },
    { "kernel", 1, OPT_KERNEL, C_RUN | C_PERF | C_REPLAY, 1 },
    { "interface", 1, OPT_INTERFACE, C_RUN | C_KERNELS, 0 },
    { "inject-fault", 1, OPT_FAULT, C_RUN | C_PERF | C_REPLAY, 1 },
    { "reps", 1, OPT_REPS, C_PERF, 0 },
    { "warmup", 1, OPT_WARMUP, C_PERF, 0 },
    { "warmup-ms", 1, OPT_WARMUP_MS, C_PERF, 0 },
    { "baseline", 1, OPT_BASELINE, C_RUN | C_PERF, 0 },
    { "dense-min-m", 1, OPT_DENSE_MIN_M, C_PERF, 0 },
    { "mma-min-m", 1, OPT_MMA_MIN_M, C_RUN | C_PERF, 0 },
    { "factor", 1, OPT_FACTOR, C_COMPARE, 0 },
    { "jobs", 1, OPT_JOBS, C_RUN, 0 },
    { "devices", 1, OPT_DEVICES, C_RUN, 0 },
    { "flake-retries", 1, OPT_FLAKE_RETRIES, C_RUN, 0 },
    { "help", 0, OPT_HELP, C_ALL, 0 },
    { "version", 0, OPT_VERSION, C_ALL, 0 },
};
#define N_OPTS (sizeof opts / sizeof opts[0])
_Static_assert(N_OPTS <= 64, "q4h_cli.given has a bit per option");

/* The option that `--name` (name[0..len)) means: an exact name, else the one name it
 * is a prefix of. NULL with the error naming the argument: unknown, or ambiguous with
 * the names it could mean. */
static const option_def *find_option(const char *arg, const char *name, size_t len, q4_error *err)
{
    const option_def *found = NULL;
    char shown[Q4_ECHO_MAX], which[256] = "";
    int n = 0;
    for (size_t i = 0; i < N_OPTS; i++)
        if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
            return &opts[i];
    for (size_t i = 0; i < N_OPTS && len > 0; i++)
        if (!strncmp(opts[i].name, name, len)) {
            size_t w = strlen(which);
            snprintf(which + w, sizeof which - w, "%s--%s", n ? ", " : "", opts[i].name);
            found = &opts[i];
            n++;
        }
    if (n == 1)
        return found;
    if (n > 1)
        q4_fail(err, Q4_ERR_ARG, "option '%s' is ambiguous: it could be %s", SHOWN(arg), which);
    else
        q4_fail(err, Q4_ERR_ARG, "unknown option '%s'", SHOWN(arg));
    return NULL;
}

static q4_status apply(q4h_cli *cli, const option_def *o, const char *value, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    uint64_t v = 0;
    q4_status st = Q4_OK;
    cli->given |= (uint64_t)1 << (o - opts);
    if (o->has_value && !value[0])
        return q4_fail(err, Q4_ERR_ARG, "--%s expects %s, got an empty string", o->name,
                       o->id == OPT_JUNIT || o->id == OPT_JSON || o->id == OPT_CASELIST ||
                       o->id == OPT_BASELINE || o->id == OPT_OUTPUT ? "a file name" :
                       o->id == OPT_DUMP || o->id == OPT_DUMPS ?
                       "a folder name" : "a value");
    switch (o->id) {
    case OPT_FILTER: return push_glob(cli->filters, &cli->n_filters, "--filter", value, err);
    case OPT_EXCLUDE: return push_glob(cli->excludes, &cli->n_excludes, "--exclude", value, err);
    case OPT_CASELIST: return push(cli->caselists, &cli->n_caselists, "--caselist", value, err);
    case OPT_KERNEL: return push(cli->kernel_args, &cli->n_kernels, "--kernel", value, err);
    case OPT_INTERFACE:
        return push(cli->interface_args, &cli->n_interfaces, "--interface", value, err);
    case OPT_DEVICE: cli->device = value; break;
    case OPT_API:
        if (strcmp(value, "vulkan") && strcmp(value, "webgpu"))
            st = q4_fail(err, Q4_ERR_ARG, "--api expects vulkan or webgpu, got '%s'", SHOWN(value));
        cli->api = !strcmp(value, "webgpu") ? Q4H_API_WEBGPU : Q4H_API_VULKAN;
        break;
    case OPT_SEED: return parse_uint("--seed", value, UINT64_MAX, &cli->seed, err);
    case OPT_SHARD: return parse_shard(value, cli, err);
    case OPT_REPEAT:
        if ((st = parse_uint("--repeat", value, 1000000, &v, err)) == Q4_OK && v == 0)
            st = q4_fail(err, Q4_ERR_ARG, "--repeat expects at least 1, got 0");
        cli->repeat = (int)v;
        break;
    case OPT_REPS:
        if ((st = parse_uint("--reps", value, 1000000, &v, err)) == Q4_OK && v == 0)
            st = q4_fail(err, Q4_ERR_ARG, "--reps expects at least 1, got 0");
        cli->perf_reps = (int)v;
        break;
    case OPT_WARMUP:
        st = parse_uint("--warmup", value, 1000000, &v, err);
        cli->perf_warmup = (int)v;
        break;
    case OPT_WARMUP_MS:
        st = parse_uint("--warmup-ms", value, 3600000, &v, err);
        cli->perf_warmup_ms = (int)v;
        break;
    case OPT_DENSE_MIN_M:
        if ((st = parse_uint("--dense-min-m", value, UINT32_MAX, &v, err)) == Q4_OK && v == 0)
            st = q4_fail(err, Q4_ERR_ARG, "--dense-min-m expects at least 1, got 0");
        cli->dense_min_m = v;
        break;
    case OPT_MMA_MIN_M:
        if (!strcmp(value, "off"))
            v = UINT64_MAX;
        else if (parse_uint("--mma-min-m", value, UINT32_MAX, &v, NULL) != Q4_OK || v == 0)
            st = q4_fail(err, Q4_ERR_ARG, "--mma-min-m expects a number of rows from 1 to %u, "
                         "or off; got '%s'", UINT32_MAX, SHOWN(value));
        cli->mma_min_m = v;
        break;
    case OPT_TIMEOUT:
        if ((st = parse_uint("--timeout", value, 86400, &v, err)) == Q4_OK && v == 0)
            st = q4_fail(err, Q4_ERR_ARG, "--timeout expects at least 1 second, got 0");
        cli->timeout_s = (double)v;
        break;
    case OPT_VALIDATION: cli->validation = 1; break;
    case OPT_STRICT: cli->strict = 1; break;
    case OPT_JUNIT: cli->junit = value; break;
    case OPT_JSON: cli->json = value; break;
    case OPT_DUMP: cli->dump_dir = value; break;
    case OPT_DUMP_WHICH:
        if (strcmp(value, "all") && strcmp(value, "failing"))
            st = q4_fail(err, Q4_ERR_ARG, "--dump expects all or failing, got '%s'", SHOWN(value));
        cli->dump_all = !strcmp(value, "all");
        break;
    case OPT_RERUN: cli->rerun = 1; break;
    case OPT_SHADER_COVERAGE: cli->shader_coverage = value; break;
    case OPT_BOUNDS_CHECK: cli->bounds_check = 1; break;
    case OPT_RACE_CHECK: cli->race_check = 1; break;
    case OPT_DUMPS: cli->dumps = value; break;
    case OPT_OUTPUT: cli->output = value; break;
    case OPT_BASELINE: cli->baseline = value; break;
    case OPT_FAULT: return parse_fault(value, cli, err);
    case OPT_DEVICES: return parse_devices(value, cli, err);
    case OPT_JOBS:
        if ((st = parse_uint("--jobs", value, 256, &v, err)) == Q4_OK && v == 0)
            st = q4_fail(err, Q4_ERR_ARG, "--jobs expects at least 1, got 0");
        cli->jobs = (int)v;
        break;
    case OPT_FLAKE_RETRIES:
        st = parse_uint("--flake-retries", value, 100, &v, err);
        cli->flake_retries = (int)v;
        break;
    case OPT_FACTOR: return parse_factor(value, &cli->factor, err);
    case OPT_HELP: cli->help = 1; break;
    case OPT_VERSION: cli->version = 1; break;
    }
    return st;
}

/* The first option given that is not one of command c's (bit cbit), with the sentence
 * that says so; Q4_OK when there is none. */
static q4_status check_options_of(const q4h_cli *cli, size_t c, q4_error *err)
{
    for (size_t i = 0; i < N_OPTS; i++) {
        if (!(cli->given >> i & 1))
            continue;
        const option_def *o = &opts[i];
        const char *shown = o->id == OPT_OUTPUT ? "-o/--output" : NULL;
        char list[160] = "";
        if (!(o->commands & (1u << c))) {
            for (size_t k = 0, seen = 0, all = (size_t)__builtin_popcount(o->commands);
                 k < N_COMMANDS; k++)
                if (o->commands & (1u << k)) {
                    size_t len = strlen(list);
                    snprintf(list + len, sizeof list - len, "%s%s", !seen ? ""
                             : ++seen == all ? " and " : ", ", commands[k]);
                    seen += !seen;
                }
            return q4_fail(err, Q4_ERR_ARG, "%s%s is an option of %s only, not of %s",
                           shown ? "" : "--", shown ? shown : o->name, list, commands[c]);
        }
        if (o->rerun_only && !strcmp(commands[c], "replay") && !cli->rerun)
            return q4_fail(err, Q4_ERR_ARG, "replay --%s needs --rerun: without it replay runs "
                           "nothing, it judges the dumped outputs again", o->name);
    }
    return Q4_OK;
}

q4_status q4h_cli_parse(int argc, char *const *argv, q4h_cli *cli, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    q4_status st = Q4_OK;
    int only_operands = 0;

    *cli = (q4h_cli){ .shard_n = 1, .repeat = 1, .timeout_s = 0, .perf_reps = 20,
                      .perf_warmup = 3, .perf_warmup_ms = 500, .factor = 2 };
    /* Options and the command may come in any order; "--" ends the options. */
    for (int i = 1; i < argc && st == Q4_OK; i++) {
        const char *a = argv[i];
        if (only_operands || a[0] != '-' || !a[1]) {
            st = positional(cli, a, err);
        } else if (!strcmp(a, "--")) {
            only_operands = 1;
        } else if (!strcmp(a, "-o")) {    /* the one short option: report's output */
            if (i + 1 >= argc)
                return q4_fail(err, Q4_ERR_ARG, "option -o needs a value");
            st = apply(cli, find_option(a, "output", 6, err), argv[++i], err);
        } else if (a[1] != '-') {
            st = q4_fail(err, Q4_ERR_ARG, "unknown option '%s'; options are long, as in "
                         "--filter", SHOWN(a));
        } else {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const option_def *o = find_option(a, name, len, err);
            if (!o)
                return Q4_ERR_ARG;
            if (!o->has_value && eq)
                return q4_fail(err, Q4_ERR_ARG, "option --%s takes no value, got '%s'", o->name,
                               SHOWN(a));
            if (o->has_value && !eq && i + 1 >= argc)
                return q4_fail(err, Q4_ERR_ARG, "option --%s needs a value", o->name);
            st = apply(cli, o, !o->has_value ? NULL : eq ? eq + 1 : argv[++i], err);
        }
    }
    if (st != Q4_OK)
        return st;
    if (!cli->command && (cli->help || cli->version))
        return Q4_OK;
    if (!cli->command)
        return q4_fail(err, Q4_ERR_ARG,
                       "no command given (devices, list, kernels, run, perf, replay, compare, merge, report)");
    size_t c = 0;
    while (c < N_COMMANDS && strcmp(cli->command, commands[c]))
        c++;
    if (c == N_COMMANDS)
        return q4_fail(err, Q4_ERR_ARG,
                       "unknown command '%s' (devices, list, kernels, run, perf, replay, compare, merge, report)",
                       SHOWN(cli->command));
    if (cli->help || cli->version)
        return Q4_OK;
    if (cli->dump_all && !cli->dump_dir)
        return q4_fail(err, Q4_ERR_ARG, "--dump all needs --dump-dir DIR to say where");
    if (!strcmp(cli->command, "replay") && !cli->operand)
        return q4_fail(err, Q4_ERR_ARG, "replay needs the folder of one dumped case");
    if (!strcmp(cli->command, "compare") && cli->n_operands != 2)
        return q4_fail(err, Q4_ERR_ARG, "compare needs two run reports: q4cts compare A.json "
                       "B.json (got %zu)", cli->n_operands);
    if (strcmp(cli->command, "run") && (cli->jobs || cli->n_devices || cli->flake_retries ||
                                         cli->flaky_every))
        return q4_fail(err, Q4_ERR_ARG, "--jobs, --devices, --flake-retries and --inject-fault "
                       "flaky@N apply to run only, not %s", cli->command);
    if (cli->mma_min_m && strcmp(cli->command, "perf") && strcmp(cli->command, "run"))
        return q4_fail(err, Q4_ERR_ARG, "--mma-min-m applies to run and perf only, not %s",
                       cli->command);
    if (cli->dense_min_m && strcmp(cli->command, "perf"))
        return q4_fail(err, Q4_ERR_ARG, "--dense-min-m applies to perf only, not %s",
                       cli->command);
    if (cli->device && cli->n_devices)
        return q4_fail(err, Q4_ERR_ARG, "give --device or --devices, not both");
    if (!cli->jobs)
        cli->jobs = cli->n_devices ? (int)cli->n_devices : 1;
    /* The watchdog catches hangs. The race probes run a dispatch 10 to 50 times slower
     * on lavapipe (a probed dense forward at M = 2048 took 44 s of the 60), so under
     * them the default is five times longer; --timeout still rules. */
    if (!cli->timeout_s)
        cli->timeout_s = cli->race_check ? 300 : 60;
    if (!strcmp(cli->command, "merge") && (!cli->n_operands || (!cli->json && !cli->junit)))
        return q4_fail(err, Q4_ERR_ARG, "merge needs the shards' --json reports and where to "
                       "write the merged one: q4cts merge SHARD.json... --json FILE and/or "
                       "--junit FILE");
    if (cli->n_interfaces && strcmp(cli->command, "run") && strcmp(cli->command, "kernels"))
        return q4_fail(err, Q4_ERR_ARG, "--interface is for run (and kernels --interface NAME); "
                       "%s runs q4cts's own kernels", cli->command);
    if (cli->api == Q4H_API_WEBGPU) {
        /* What the WebGPU backend cannot do, each with the reason; the rest (--jobs,
         * --flake-retries, --inject-fault, --dump-dir, --baseline, --shard, --interface)
         * runs through the backend seam as on Vulkan. */
        const char *vk_only = NULL, *why = NULL;
#define REFUSE(cond, what, reason) \
        if (!vk_only && (cond)) { vk_only = (what); why = (reason); }
        REFUSE(cli->device, "--device", "Dawn picks the adapter; the WebGPU worker has no "
               "device choice")
        REFUSE(cli->validation, "--validation", "it is the Vulkan validation layer; Dawn "
               "validates every WebGPU call itself")
        REFUSE(cli->n_devices, "--devices", "Dawn picks the adapter; the WebGPU worker has no "
               "device choice")
        REFUSE(cli->bounds_check, "--bounds-check", "its probes are instrumented SPIR-V, and "
               "the WGSL kernels have no SPIR-V to instrument")
        REFUSE(cli->race_check, "--race-check", "its probes are instrumented SPIR-V, and the "
               "WGSL kernels have no SPIR-V to instrument")
        REFUSE(cli->shader_coverage, "--shader-coverage", "its probes are instrumented "
               "SPIR-V, and the WGSL kernels have no SPIR-V to instrument")
        REFUSE(!strcmp(cli->command, "replay"), "replay", "replay takes the API from the "
               "dump's case.json (\"api\") and reruns a WebGPU run's dump on WebGPU")
        REFUSE(!strcmp(cli->command, "kernels"), "kernels", "it lists the built-in SPIR-V "
               "kernels; the WGSL ones are the files of gpu/wgsl")
        REFUSE(!strcmp(cli->command, "perf") && cli->n_kernels, "perf --kernel", "perf times "
               "the built-in WGSL kernels only")
        REFUSE(cli->dense_min_m, "--dense-min-m", "it picks a path of the Vulkan launchers, "
               "which the WGSL kernels do not have")
        REFUSE(cli->mma_min_m, "--mma-min-m", "it picks the Vulkan tensor-core path, which "
               "the WGSL kernels do not have")
#undef REFUSE
        if (vk_only)
            return q4_fail(err, Q4_ERR_ARG, "%s is not available with --api webgpu: %s "
                           "(docs/webgpu.md)", vk_only, why);
    }
    if (!strcmp(cli->command, "report") && (!cli->n_operands || !cli->output))
        return q4_fail(err, Q4_ERR_ARG, "report needs %s", !cli->n_operands ?
                       "the --json of a run or of a perf run" : "-o FILE, the HTML file to write");
    /* Files that name one file (--junit X --json ./X) are main.c's check (paths.c): it
     * needs the file system, which this parser does not touch. */
    return check_options_of(cli, c, err);
}
