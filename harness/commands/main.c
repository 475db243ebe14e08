/* main.c: the q4cts program: devices, list, kernels, run (perf in perf.c, compare and
 * merge in compare.c and merge.c).
 * Exit status: 0 every case ok, 1 some case not ok, 2 usage or set-up error. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"
#include "backend_vulkan.h"
#include "baseline.h"
#include "child.h"
#include "cli.h"
#include "compare.h"
#include "merge.h"
#include "op.h"
#include "interface.h"
#include "overrides.h"
#include "paths.h"
#include "perf.h"
#include "q4report.h"
#include "replay.h"
#include "report.h"
#include "runner.h"
#include "select.h"
#include "shown.h"
#include "shader_coverage.h"
#include "stop.h"

#define EXIT_USAGE 2

static int fail_usage(const q4_error *err)
{
    q4h_say(err->msg);   /* escaped: a message may quote a worker, a driver or a file */
    if (err->status == Q4_ERR_ARG)
        fprintf(stderr, "Try 'q4cts --help'.\n");
    return EXIT_USAGE;
}

static int cmd_devices(const q4h_cli *cli)
{
    q4_error err = { 0 };
    return q4h_cli_backend(cli)->devices(&err) == Q4_OK ? 0 : fail_usage(&err);
}

static int cmd_list(const q4h_cli *cli)
{
    q4_case *cases;
    size_t n;
    q4_error err = { 0 };
    if (q4h_select(cli, &cases, &n, &err) != Q4_OK)
        return fail_usage(&err);
    for (size_t i = 0; i < n; i++)
        printf("%s\n", cases[i].name);
    free(cases);
    return 0;
}

/* Every built-in kernel with its interface, and the op that runs it. */
static int cmd_kernels(void)
{
    int n_ops, n_kernels;
    const q4h_op *const *ops = q4h_ops(&n_ops);
    const q4vk_kernel *k = q4vk_kernels(&n_kernels);
    printf("%-30s %-22s %8s %5s\n", "kernel", "op", "bindings", "push");
    for (int i = 0; i < n_kernels; i++) {
        const char *owner = "(perf ceilings)";
        for (int o = 0; o < n_ops; o++)
            for (int j = 0; ops[o]->kernels[j]; j++)
                if (!strcmp(ops[o]->kernels[j], k[i].name))
                    owner = ops[o]->name;
        printf("%-30s %-22s %8u %5u\n", k[i].name, owner, k[i].n_bindings, k[i].push_bytes);
    }
    return 0;
}

/* kernels --interface NAME: the interface file of a built-in kernel; kernels
 * --interface FILE.json: what the file runs and claims (its preconditions, over every
 * case q4cts has of its op), a line per op of a kernel set. */
static int cmd_kernel_interface(const q4h_cli *cli)
{
    q4_error err = { 0 };
    if (cli->n_interfaces != 1)
        return q4_fail(&err, Q4_ERR_ARG, "kernels takes one --interface NAME"), fail_usage(&err);
    const char *arg = cli->interface_args[0];
    if (strlen(arg) > 5 && !strcmp(arg + strlen(arg) - 5, ".json")) {
        q4h_iface **f = NULL;
        q4_case *cases = NULL;
        size_t n = 0, n_f = 0;
        if (q4h_ifaces_load(&arg, 1, &f, &n_f, &err) != Q4_OK)
            return fail_usage(&err);
        if (q4h_select(cli, &cases, &n, &err) != Q4_OK)
            n = 0;
        q4h_ifaces_describe(stdout, f, n_f, cases, n);
        free(cases);
        q4h_ifaces_free(f, n_f);
        return 0;
    }
    if (q4h_iface_print_builtin(cli->interface_args[0], stdout, &err) != Q4_OK)
        return fail_usage(&err);
    return 0;
}

/* ---- run: the report sinks ---- */

typedef struct run_state {
    const q4h_cli *cli;
    size_t planned;
    q4_console *console;
    q4_junit *junit;
    q4_json *json;
    int report_error;
    char problem[400];         /* a worker that ended badly outside any case */
    char props_buf[20][300];
    q4_prop props[20];
    size_t n_props;
    const q4h_expectations *expect;   /* --baseline, or NULL */
    char first_uuid[40];              /* the device of the first worker that opened one */
    bool have_device;                 /* a worker opened one (a WebGPU adapter has no uuid) */
} run_state;

static void prop(run_state *s, const char *key, const char *fmt, const char *value)
{
    snprintf(s->props_buf[s->n_props], sizeof s->props_buf[0], fmt, value);
    s->props[s->n_props] = (q4_prop){ key, s->props_buf[s->n_props] };
    s->n_props++;
}

/* The run-wide properties of the reports; info NULL when no device was opened (a
 * shard that holds no case). */
static void add_props(run_state *s, const q4vk_device_info *info)
{
    char api[32], seed[32], line[300];
    const q4h_backend_i *b = q4h_cli_backend(s->cli);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->cli->seed);
    prop(s, "q4cts.version", "%s", Q4CTS_VERSION);
    prop(s, "api", "%s", b->api);
    if (info) {
        q4h_vk_api_string(info->api_version, api, sizeof api);
        prop(s, "device", "%s", info->name);
        prop(s, "device.type", "%s", info->type);
        prop(s, "device.uuid", "%s", info->uuid);
        prop(s, "driver", "%s", info->driver_name);
        prop(s, "driver.version", "%s", info->driver_version_str);
        prop(s, "driver.info", "%s", info->driver_info);
        if (b->vulkan)
            prop(s, "vulkan.api", "%s", api);
        snprintf(line, sizeof line, "%u", info->subgroup_size);
        prop(s, "device.subgroup_size", "%s", line);
    }
    prop(s, "seed", "%s", seed);
    prop(s, "validation", "%s", s->cli->validation ? "on" : "off");
    if (s->cli->shard_n > 1) {
        snprintf(line, sizeof line, "%d/%d", s->cli->shard_i + 1, s->cli->shard_n);
        prop(s, "shard", "%s", line);
    }
    if (s->cli->jobs > 1) {
        snprintf(line, sizeof line, "%d", s->cli->jobs);
        prop(s, "workers", "%s", line);
    }
    if (s->cli->n_devices)
        prop(s, "devices", "%s", s->cli->devices_arg);
    if (s->cli->flake_retries) {
        snprintf(line, sizeof line, "%d", s->cli->flake_retries);
        prop(s, "flake_retries", "%s", line);
    }
    if (s->expect)
        prop(s, "baseline", "%s", s->cli->baseline);
}

static q4_status open_reports(run_state *s, q4_error *err)
{
    q4_status st = Q4_OK;
    if (s->cli->junit) {
        st = q4_junit_open(s->cli->junit, q4h_cli_backend(s->cli)->suite, s->props, s->n_props, &s->junit, err);
        q4_junit_set_strict(s->junit, s->cli->strict);
        q4_junit_set_planned(s->junit, s->planned);
    }
    if (st == Q4_OK && s->cli->json) {
        st = q4_json_open(s->cli->json, s->props, s->n_props, &s->json, err);
        q4_json_set_strict(s->json, s->cli->strict);
        q4_json_set_planned(s->json, s->planned);
    }
    return st;
}

/* Each worker lane's device: the first one opens the reports with its properties;
 * a later one is named only when it is another device (--devices). */
static q4_status on_device(void *user, int worker, const q4vk_device_info *info, q4_error *err)
{
    run_state *s = user;
    char words[6 * 1100];   /* the worker's or the driver's words, escaped */
    int first = !s->have_device;
    if (!first && !strcmp(s->first_uuid, info->uuid))
        return Q4_OK;
    if (first)
        printf("device: ");
    else
        printf("device (worker %d): ", worker + 1);
    q4h_cli_backend(s->cli)->describe(info, words, sizeof words);
    printf("%s\n", words);
    if (!first)
        return Q4_OK;
    snprintf(s->first_uuid, sizeof s->first_uuid, "%s", info->uuid);
    s->have_device = true;
    add_props(s, info);
    return open_reports(s, err);
}

/* --dump-dir is checked before the run by doing what a dump will do, so that a folder
 * that cannot be made or written is a usage error now, not a note in each failing
 * case (access() says yes to root for /proc/x, where nothing can be made). A folder
 * that does not exist is made and removed again (a run with no failure leaves none);
 * in the folder a probe file is created and removed. */
static q4_status check_dump_dir(const char *dir, q4_error *err)
{
    char shown[Q4_ECHO_MAX], probe[64];
    struct stat st;
    q4_echo(dir, shown, sizeof shown);
    const bool made = mkdir(dir, 0777) == 0;
    if (!made && errno != EEXIST)
        return q4_fail(err, Q4_ERR_ARG, "cannot create --dump-dir %s: %s", shown, strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return q4_fail(err, Q4_ERR_ARG, "--dump-dir %s is not a directory", shown);
    snprintf(probe, sizeof probe, ".q4cts-probe-%ld", (long)getpid());
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = errno;
    int fd = dfd < 0 ? -1 : openat(dfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                                   O_CLOEXEC, 0600);
    if (dfd >= 0 && fd < 0)
        e = errno;
    if (fd >= 0) {
        close(fd);
        unlinkat(dfd, probe, 0);
    }
    if (dfd >= 0)
        close(dfd);
    if (made)
        rmdir(dir);
    if (fd < 0)
        return q4_fail(err, Q4_ERR_ARG, "cannot write in --dump-dir %s: %s", shown, strerror(e));
    return Q4_OK;
}

/* Every file the command reads and writes, checked before anything is written
 * (paths.c): no output may replace an input or another output. ifaces: the n_ifaces
 * ops of run's loaded --interface files, whose modules are read too (NULL for other
 * commands). */
static q4_status check_paths(const q4h_cli *cli, q4h_iface *const *ifaces, size_t n_ifaces,
                             q4_error *err)
{
    const bool replay = !strcmp(cli->command, "replay");
    size_t cap = cli->n_caselists + cli->n_kernels + cli->n_operands + 8 + cli->n_interfaces +
                 n_ifaces * Q4H_IF_MAX_STEPS, n = 0;
    q4h_path_use *u = malloc(cap * sizeof *u);
    if (!u)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory checking paths");
#define USE(w, p, how) (u[n++] = (q4h_path_use){ (w), (p), (how) })
    for (size_t i = 0; i < cli->n_caselists; i++)
        USE("--caselist", cli->caselists[i], Q4H_READ);
    if (cli->baseline)
        USE("--baseline", cli->baseline, Q4H_READ);
    for (size_t i = 0; i < cli->n_kernels; i++)
        if (strchr(cli->kernel_args[i], '='))
            USE("--kernel", strchr(cli->kernel_args[i], '=') + 1, Q4H_READ);
    for (size_t i = 0; ifaces && i < cli->n_interfaces; i++)
        USE("--interface", cli->interface_args[i], Q4H_READ);
    for (size_t i = 0; ifaces && i < n_ifaces; i++)   /* every op of a kernel set */
        for (int k = 0; k < ifaces[i]->n_steps; k++)
            USE("the module of --interface", ifaces[i]->steps[k].module, Q4H_READ);
    for (size_t i = 0; i < cli->n_operands; i++)
        USE(cli->command, cli->operands[i], replay ? Q4H_READ_DUMPS : Q4H_READ);
    if (cli->dumps)
        USE("--dumps", cli->dumps, Q4H_READ_DUMPS);
    if (cli->junit)
        USE("--junit", cli->junit, Q4H_WRITE);
    if (cli->json)
        USE("--json", cli->json, Q4H_WRITE);
    if (cli->shader_coverage)
        USE("--shader-coverage", cli->shader_coverage, Q4H_WRITE);
    if (cli->output)
        USE("-o", cli->output, Q4H_WRITE);
    if (cli->dump_dir)
        USE("--dump-dir", cli->dump_dir, Q4H_WRITE_DUMPS);
#undef USE
    q4_status st = q4h_paths_check(u, n, err);
    free(u);
    return st;
}

/* The op that --kernel NAME=FILE replaces a kernel of (NAME a kernel or an op), or NULL. */
static const char *kernel_op(const char *arg)
{
    int n_ops;
    const q4h_op *const *ops = q4h_ops(&n_ops);
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    for (int o = 0; o < n_ops; o++) {
        if (strlen(ops[o]->name) == len && !strncmp(ops[o]->name, arg, len))
            return ops[o]->name;
        for (int j = 0; ops[o]->kernels && ops[o]->kernels[j]; j++)
            if (strlen(ops[o]->kernels[j]) == len && !strncmp(ops[o]->kernels[j], arg, len))
                return ops[o]->name;
    }
    return NULL;
}

/* Whether a selected case runs op. */
static bool runs_op(const q4_case *cases, size_t n, const char *op)
{
    for (size_t c = 0; c < n; c++)
        if (q4h_case_runs_op(&cases[c], op))   /* a training case runs several */
            return true;
    return false;
}

/* Each --interface file is for an op the selection runs (a file no case used was
 * accepted and did nothing); a kernel set, for at least one of its ops (a set
 * describes a runtime's every op, of which a filter selects some: its others are
 * unused, as its runtime leaves them). No op is replaced both by --kernel and
 * --interface, a set's unused ops included (which of the two ran was left to the
 * launcher). A sharded run asks of the whole selection: a shard may hold no case of
 * the op. ifaces: the n_ifaces ops of the files, each file's in a row. */
static q4_status check_replacements(const q4h_cli *cli, q4h_iface *const *ifaces,
                                    size_t n_ifaces, const q4_case *cases, size_t n,
                                    q4_error *err)
{
    q4_case *all = NULL;
    size_t n_all = n;
    q4_status st = Q4_OK;
    char shown[Q4_ECHO_MAX], kshown[Q4_ECHO_MAX];
    if (cli->shard_n > 1 && cli->n_interfaces) {
        q4h_cli whole = *cli;
        whole.shard_i = 0;
        whole.shard_n = 1;
        if ((st = q4h_select(&whole, &all, &n_all, err)) != Q4_OK)
            return st;
        cases = all;
    }
    for (size_t i = 0, arg = 0; i < n_ifaces && st == Q4_OK; arg++) {
        const size_t n_ops = ifaces[i]->set_n ? (size_t)ifaces[i]->set_n : 1;
        bool used = false;
        for (size_t k = i; k < i + n_ops; k++)
            used |= runs_op(cases, n_all, ifaces[k]->op->op);
        q4_echo(cli->interface_args[arg], shown, sizeof shown);
        if (!used && !ifaces[i]->set_n)
            st = q4_fail(err, Q4_ERR_ARG, "--interface %s is for op %s, which no selected case "
                         "runs; select its cases (--filter 'q4cts.%s.*') or leave the file out",
                         shown, ifaces[i]->op->op, ifaces[i]->op->op);
        else if (!used)
            st = q4_fail(err, Q4_ERR_ARG, "--interface %s is a kernel set none of whose %zu ops "
                         "(%s, ...) a selected case runs; select cases of its ops or leave the "
                         "file out", shown, n_ops, ifaces[i]->op->op);
        for (size_t o = i; o < i + n_ops && st == Q4_OK; o++)
            for (size_t k = 0; k < cli->n_kernels && st == Q4_OK; k++) {
                const char *kop = kernel_op(cli->kernel_args[k]);
                if (kop && !strcmp(kop, ifaces[o]->op->op))
                    st = q4_fail(err, Q4_ERR_ARG, "--kernel %s and --interface %s both replace "
                                 "op %s; give one of them", q4_echo(cli->kernel_args[k], kshown,
                                 sizeof kshown), shown, kop);
            }
        i += n_ops;
    }
    free(all);
    return st;
}

static void on_begin(void *user, const q4_case *c)
{
    run_state *s = user;
    q4_console_begin(s->console, c->name);
}

/* The file reports: each case as soon as it is done, at its place in the list. */
static void on_finished(void *user, size_t index, const q4_result *result)
{
    run_state *s = user;
    q4_error err = { 0 };
    q4_result judged = *result, *r = &judged;
    if (s->expect)
        r->baseline = q4h_expected_verdict(s->expect, r->name);
    if (s->junit && q4_junit_add_at(s->junit, r, index, &err) != Q4_OK && !s->report_error++)
        fprintf(stderr, "q4cts: the JUnit report could not be written: %s\n", err.msg);
    if (s->json && q4_json_add_at(s->json, r, index, &err) != Q4_OK && !s->report_error++)
        fprintf(stderr, "q4cts: the JSON report could not be written: %s\n", err.msg);
}

/* The console: the cases in the order of the list. */
static void on_result(void *user, const q4_result *result)
{
    run_state *s = user;
    q4_result judged = *result, *r = &judged;
    if (s->expect)
        r->baseline = q4h_expected_verdict(s->expect, r->name);
    q4_console_result(s->console, r);
}

/* --shader-coverage: the figures per kernel go into the reports' last write too. */
static void report_coverage(run_state *s, const q4h_shcov *shcov)
{
    q4_kernel_coverage k[128];
    q4_error err = { 0 };
    size_t n = (size_t)q4h_shcov_report(shcov, k, 128);
    if (s->junit && q4_junit_set_coverage(s->junit, k, n, &err) != Q4_OK && !s->report_error++)
        fprintf(stderr, "q4cts: the JUnit report could not be written: %s\n", err.msg);
    if (s->json && q4_json_set_coverage(s->json, k, n, &err) != Q4_OK && !s->report_error++)
        fprintf(stderr, "q4cts: the JSON report could not be written: %s\n", err.msg);
}

static void on_problem(void *user, const char *why)
{
    run_state *s = user;
    q4h_say(why);
    if (!s->problem[0])
        snprintf(s->problem, sizeof s->problem, "%s", why);
}

/* The flags of the run's repro lines into buf; Q4_ERR_ARG if they do not fit whole. */
static q4_status repro_flags(const q4h_cli *cli, char *buf, size_t size, q4_error *err)
{
    size_t len = 0;
    buf[0] = '\0';
#define ADD(...) len += (size_t)snprintf(buf + len, len < size ? size - len : 0, __VA_ARGS__)
    if (cli->device)
        ADD(" --device '%s'", cli->device);
    for (size_t i = 0; i < cli->n_kernels; i++)
        ADD(" --kernel %s", cli->kernel_args[i]);
    for (size_t i = 0; i < cli->n_interfaces; i++)
        ADD(" --interface %s", cli->interface_args[i]);
    if (strcmp(q4h_cli_backend(cli)->api, "vulkan"))   /* the default needs no flag */
        ADD(" --api %s", q4h_cli_backend(cli)->api);
    if (cli->strict)
        ADD(" --strict");
    if (cli->validation)
        ADD(" --validation");
    if (cli->bounds_check)
        ADD(" --bounds-check");
    if (cli->race_check)
        ADD(" --race-check");
    if (cli->train_fault.kind)   /* a planted integration bug decides a training verdict */
        ADD(" --inject-fault %s@%lld", q4h_train_fault_name(cli->train_fault.kind),
            (long long)cli->train_fault.step);
    if (cli->mma_min_m == UINT64_MAX)
        ADD(" --mma-min-m off");
    else if (cli->mma_min_m)
        ADD(" --mma-min-m %llu", (unsigned long long)cli->mma_min_m);
#undef ADD
    if (len < size)
        return Q4_OK;
    buf[0] = '\0';
    return q4_fail(err, Q4_ERR_ARG, "the options of this run make each case's repro line %zu "
                   "characters longer, more than %zu: shorten the paths of --kernel and "
                   "--interface (a line cut short would reproduce another run)", len, size - 1);
}

static int cmd_run(const q4h_cli *cli)
{
    q4_case *cases = NULL;
    size_t n = 0;
    q4_error err = { 0 };
    q4h_override *overrides = NULL;
    char repro[Q4_REPRO_FLAGS_MAX];
    int rc = EXIT_USAGE;
    run_state s = { .cli = cli, .planned = 0 };

    q4h_expectations *expect = NULL;
    if (q4h_select(cli, &cases, &n, &err) != Q4_OK)
        return fail_usage(&err);
    if (cli->baseline && q4h_expectations_load(cli->baseline, &expect, &err) != Q4_OK) {
        free(cases);
        return fail_usage(&err);
    }
    s.expect = expect;
    const q4h_backend_i *backend = q4h_cli_backend(cli);
    if (backend->kernels(cli->kernel_args, cli->n_kernels, &overrides, &err) != Q4_OK) {
        q4h_overrides_free(overrides, cli->n_kernels);
        q4h_expectations_free(expect);
        free(cases);
        return fail_usage(&err);
    }
    q4h_iface **ifaces = NULL;     /* --interface files' ops, and every module the run may use */
    size_t n_ifaces = 0;
    q4h_override *modules = NULL;
    int n_modules = 0;
    q4h_shcov *shcov = NULL;
    if (repro_flags(cli, repro, sizeof repro, &err) != Q4_OK ||
        q4h_ifaces_load(cli->interface_args, cli->n_interfaces, &ifaces, &n_ifaces,
                        &err) != Q4_OK ||
        q4h_ifaces_check_api(ifaces, n_ifaces, backend->wgsl, &err) != Q4_OK ||
        q4h_ifaces_modules(overrides, overrides ? (int)cli->n_kernels : 0, ifaces, n_ifaces,
                           &modules, &n_modules, &err) != Q4_OK ||
        ((cli->shader_coverage || cli->bounds_check || cli->race_check) &&
         q4h_shcov_create(modules, n_modules, cli->shader_coverage != NULL,
                          cli->bounds_check != 0, cli->race_check != 0, &shcov, &err) != Q4_OK) ||
        check_replacements(cli, ifaces, n_ifaces, cases, n, &err) != Q4_OK ||
        check_paths(cli, ifaces, n_ifaces, &err) != Q4_OK ||
        (cli->dump_dir && check_dump_dir(cli->dump_dir, &err) != Q4_OK)) {
        q4h_shcov_free(shcov);
        q4h_ifaces_free(ifaces, n_ifaces);
        free(modules);
        q4h_overrides_free(overrides, cli->n_kernels);
        q4h_expectations_free(expect);
        free(cases);
        return fail_usage(&err);
    }
    q4h_run_options opt = {
        .backend = backend,
        .vk = { .device = cli->device, .validation = cli->validation != 0,
                .timeout_ms = (uint64_t)(cli->timeout_s * 1000), .faults = cli->faults,
                .mma_min_m = cli->mma_min_m },
        .repeat = cli->repeat, .strict = cli->strict, .dump_dir = cli->dump_dir,
        .dump_all = cli->dump_all != 0,
        .overrides = overrides, .n_overrides = overrides ? (int)cli->n_kernels : 0,
        .kernel_args = cli->kernel_args, .n_kernel_args = cli->n_kernels, .repro_flags = repro,
        .interfaces = (const q4h_iface *const *)ifaces, .n_interfaces = (int)n_ifaces,
        /* Several submissions (uploads, dispatches, downloads) per repeat, plus the reference. */
        .watchdog_s = (4.0 * cli->timeout_s + 60.0) * cli->repeat,
        /* WebGPU: the worker gets 4 x --timeout per run of a case (docs/webgpu.md) */
        .exchange_s = 4.0 * cli->timeout_s,
        .api = backend->api,
        .jobs = cli->jobs, .devices = cli->devices, .n_devices = (int)cli->n_devices,
        .flake_retries = cli->flake_retries, .flaky_every = cli->flaky_every,
        .train_fault = cli->train_fault,
    };
    if (shcov)
        opt.vk.probes = q4h_shcov_probes(shcov);
    s.planned = n;
    q4h_ifaces_describe(stdout, ifaces, n_ifaces, cases, n);   /* what runs, claimed */
    s.console = q4_console_new(stdout, n, cli->strict);
    q4h_sink sink = { .user = &s, .device = on_device, .begin = on_begin,
                      .finished = on_finished, .result = on_result, .problem = on_problem };
    q4_status st;
    if (n == 0) {
        /* A shard beyond the selection's size: a CI matrix wider than the list. It
         * runs nothing and passes, with (empty, complete) reports all the same. */
        printf("shard %d/%d holds none of the selected cases: nothing to run\n",
               cli->shard_i + 1, cli->shard_n);
        add_props(&s, NULL);
        st = open_reports(&s, &err);
    } else {
        q4h_stop_install();
        st = q4h_run_cases(&opt, cases, n, &sink, &err);
    }
    const int stopped = q4h_stop_signal();
    if (stopped && st == Q4_OK) {
        /* Stopped before the device was open: the reports exist all the same, and say so. */
        if (!s.n_props)
            add_props(&s, NULL);
        if (!s.junit && !s.json)
            st = open_reports(&s, &err);
        q4_junit_set_stopped(s.junit, q4h_stop_reason());
        q4_json_set_stopped(s.json, q4h_stop_reason());
        q4_console_set_outcome(s.console, "INCOMPLETE", q4h_stop_reason());
    }
    if (s.problem[0] && !stopped) {
        /* Every case has its verdict, but the run did not end cleanly: say so. */
        q4_junit_set_stopped(s.junit, s.problem);
        q4_json_set_stopped(s.json, s.problem);
        q4_console_set_outcome(s.console, "ERROR", s.problem);
    }
    if (st != Q4_OK)
        fail_usage(&err);
    if (cli->shader_coverage)
        report_coverage(&s, shcov);
    /* The reports are closed before the summary, so that a report that could not be
     * written (a full disk) turns the result line from PASS into ERROR. */
    if (q4_junit_close(s.junit, &err) != Q4_OK && !s.report_error++)
        fprintf(stderr, "q4cts: the JUnit report could not be written: %s\n", err.msg);
    if (q4_json_close(s.json, &err) != Q4_OK && !s.report_error++)
        fprintf(stderr, "q4cts: the JSON report could not be written: %s\n", err.msg);
    if (s.report_error)
        q4_console_set_outcome(s.console, "ERROR", "a report could not be written");
    if (st == Q4_OK && cli->shader_coverage &&
        q4h_shcov_write(shcov, cli->shader_coverage, &err) != Q4_OK && !s.report_error++)
        fprintf(stderr, "q4cts: %s\n", err.msg);
    if (st == Q4_OK) {
        q4_console_summary(s.console);
        rc = q4_console_not_ok(s.console) || s.problem[0] ? 1 : 0;
        if (cli->shader_coverage)
            q4h_shcov_print(shcov, stdout);
    }
    if (st == Q4_OK && (cli->junit || cli->json) && !s.report_error)
        printf("reports: %s%s%s\n", cli->junit ? cli->junit : "", cli->junit && cli->json ? ", " : "",
               cli->json ? cli->json : "");
    if (s.report_error)
        rc = EXIT_USAGE;
    if (stopped)
        rc = 128 + stopped;   /* as a shell reports a command a signal ended: 130, 143 */
    q4_console_free(s.console);
    q4h_shcov_free(shcov);
    q4h_ifaces_free(ifaces, n_ifaces);
    free(modules);
    q4h_overrides_free(overrides, cli->n_kernels);
    q4h_expectations_free(expect);
    free(cases);
    return rc;
}

static int run_command(q4h_cli *cli)
{
    /* The layer that Q4CTS_VALIDATION=1 turns on (gpu/, the same test) is named in the
     * reports and the repro lines as if --validation had been given. */
    const char *env = getenv("Q4CTS_VALIDATION");
    if (env && !strcmp(env, "1") && q4h_cli_backend(cli)->vulkan)
        cli->validation = 1;
    if (!strcmp(cli->command, "devices"))
        return cmd_devices(cli);
    if (!strcmp(cli->command, "list"))
        return cmd_list(cli);
    if (!strcmp(cli->command, "kernels") && cli->n_interfaces)
        return cmd_kernel_interface(cli);
    if (!strcmp(cli->command, "kernels"))
        return cmd_kernels();
    q4_error err = { 0 };
    if ((!strcmp(cli->command, "perf") || !strcmp(cli->command, "replay") ||
         !strcmp(cli->command, "merge") || !strcmp(cli->command, "report")) &&
        (check_paths(cli, NULL, 0, &err) != Q4_OK ||
         (cli->dump_dir && check_dump_dir(cli->dump_dir, &err) != Q4_OK)))
        return fail_usage(&err);
    q4h_override *none = NULL;   /* perf loads Vulkan's overrides itself (perf.c) */
    if (!strcmp(cli->command, "perf") && !q4h_cli_backend(cli)->vulkan &&
        q4h_cli_backend(cli)->kernels(cli->kernel_args, cli->n_kernels, &none, &err) != Q4_OK)
        return fail_usage(&err);   /* the worker and its kernels are there */
    if (!strcmp(cli->command, "perf"))
        return q4h_perf(cli);
    if (!strcmp(cli->command, "replay"))
        return q4h_replay(cli);
    if (!strcmp(cli->command, "compare"))
        return q4h_compare(cli);
    if (!strcmp(cli->command, "merge"))
        return q4h_merge(cli);
    if (!strcmp(cli->command, "report"))
        return q4h_report(cli);
    return cmd_run(cli);
}

int main(int argc, char **argv)
{
    q4h_cli cli;
    q4_error err = { 0 };
    q4h_threads_supervisor();   /* workers are forked: no OpenMP threads here (child.h) */
    if (q4h_cli_parse(argc, argv, &cli, &err) != Q4_OK)
        return fail_usage(&err);
    int rc;
    if (cli.help)
        rc = fputs(q4h_cli_usage(), stdout) < 0;
    else if (cli.version)
        rc = printf("q4cts %s\n", Q4CTS_VERSION) < 0;
    else
        rc = run_command(&cli);
    /* Output that never arrived (a full disk, a closed pipe) must not exit 0. */
    int flushed = fflush(stdout) == 0, e = errno;
    if (!flushed || ferror(stdout)) {
        fprintf(stderr, "q4cts: cannot write to standard output: %s\n",
                strerror(flushed ? EIO : e));
        return EXIT_USAGE;
    }
    return rc;
}
