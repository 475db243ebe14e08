/* replay.c: `q4cts replay DIR [--rerun]`, a dumped case judged again.
 *
 * Without --rerun the judge sees exactly what the dump holds (truth, bounds, GPU
 * results, the guard and padding findings), so the verdict and margins must come
 * out as dumped: a check that the dump is whole, and a way to look at a failure on
 * a machine without the GPU. With --rerun the dumped inputs and op parameters (a
 * user may have edited them) run through the same path as `q4cts run`: the
 * reference's truth, the launcher on this machine's device, the judge.
 * A dump is untrusted input: every file is checked against case.json and the op,
 * and any problem is one sentence and exit 2. */
#include "replay.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_vulkan.h"
#include "backend_webgpu.h"
#include "case_json.h"
#include "child.h"
#include "clock.h"
#include "dump.h"
#include "dump_load.h"
#include "judge.h"
#include "overrides.h"
#include "q4report.h"
#include "run_case.h"
#include "shown.h"
#include "verdict.h"

#define EXIT_USAGE 2

/* The inputs of the case, with every tensor the op uploads read from the dump and
 * the scalar parameters from case.json. */
static q4_status load_inputs(const char *dir, const q4h_dump_meta *m, const q4h_op *op,
                             const q4_case *c, q4_inputs *in, q4_error *err)
{
    q4h_tensor t[Q4H_MAX_TENSORS];
    q4_status st = q4_case_inputs(c, in, err); /* allocates every buffer at its size */
    int n = st == Q4_OK ? op->inputs(c, in, t) : 0;
    for (int i = 0; i < n && st == Q4_OK; i++) {
        const char *descr = q4h_dump_descr(t[i].dtype);
        int64_t shape[Q4H_NPY_MAX_DIMS];
        int ndim = q4h_dump_shape(c, t[i].shape, t[i].rows, t[i].cols, shape);
        st = q4h_dump_load_array(dir, t[i].name, "", descr, ndim, shape, (void *)t[i].data, err);
    }
    if (st == Q4_OK)
        st = q4h_dump_params_apply(m, c, in, err);
    return st;
}

/* case.json holds a margin that is not finite as null (read back as NAN). */
static bool same_number(double a, double b)
{
    return a == b || (!isfinite(a) && !isfinite(b));
}

/* Per output: its margins now and as dumped. */
static void print_outputs(const q4h_outputs *out, const q4h_dump_meta *m)
{
    for (int k = 0; k < out->n; k++) {
        q4h_outputs one = { .n = 1, .o = { out->o[k] } };
        q4_result r;
        q4_result_init(&r);
        q4h_judge(&one, &r);
        const q4h_dump_output *d = k < m->n_outputs ? &m->outputs[k] : NULL;
        printf("  output %-10s margin %-10.3g (dumped %.3g)  statistical %-10.3g (dumped %.3g)\n",
               out->o[k].name, r.worst_margin, d ? d->margin : NAN, r.stat_margin,
               d ? d->stat_margin : NAN);
    }
}

/* --rerun runs the case in a worker child (child.c), as `run` does: a kernel or
 * driver that crashes or hangs becomes the case's Crash or Timeout, not replay's end. */
typedef struct rerun_task {
    const q4h_cli *cli;
    const q4h_dump_meta *m;
    const q4h_run_options *opt;
    const q4_case *c;
    const q4_inputs *in;
} rerun_task;

typedef struct rerun_reply {
    q4_status st;
    q4_error err;
    q4_result r;
} rerun_reply;

static void rerun_child(void *user, void *out)
{
    const rerun_task *t = user;
    rerun_reply *reply = out;
    q4h_backend b;
    memset(reply, 0, sizeof *reply);
    reply->st = q4h_backend_open(&b, t->opt, false, &reply->err);
    if (reply->st == Q4_OK) {
        char words[6 * 1100];   /* the driver's or the worker's words, escaped */
        q4h_device_shown d;
        q4h_device_shown_of(b.i->info(&b), &d);
        b.i->describe(b.i->info(&b), words, sizeof words);
        if (b.i->vulkan)   /* replay's line has always left out the Vulkan version */
            printf("device: %s (%s), driver %s %s\n", d.name, d.type, d.driver, d.info);
        else
            printf("device: %s\n", words);
        if (t->m->n_kernels && !t->cli->n_kernels) {   /* case.json's words: escaped */
            char k[4 * 256 + 1], f[4 * 256 + 1];
            printf("note: the dump was made with --kernel %s=%s; this rerun runs the built-in "
                   "kernels (give --kernel to run that one)\n",
                   q4_echo(t->m->kernels[0][0], k, sizeof k),
                   q4_echo(t->m->kernels[0][1], f, sizeof f));
        }
        reply->st = q4h_run_case_on(&b, t->c, t->in, &reply->r);
    }
    q4h_backend_close(&b);
}

/* --rerun: the dumped inputs through `q4cts run`'s path on this machine's device. */
static q4_status rerun(const q4h_cli *cli, const char *dir, const q4h_dump_meta *m,
                       const q4h_op *op, const q4_case *c, q4_result *r, q4_error *err)
{
    q4_inputs in = { 0 };
    q4h_override *overrides = NULL;
    /* The dump runs again on the API it ran on (case.json's "api"). */
    const q4h_backend_i *backend = !strcmp(m->api, "webgpu") ? &q4h_backend_webgpu
                                                             : &q4h_backend_vulkan;
    /* Its repro line, made first: it must fit whole (one cut short reproduces something
     * else). The dumped inputs, not the generator's: the replay is the reproduction. */
    char repro[sizeof r->repro];
    size_t len = (size_t)snprintf(repro, sizeof repro, "q4cts replay %s --rerun", dir);
    for (size_t i = 0; i < cli->n_kernels && len < sizeof repro; i++)
        len += (size_t)snprintf(repro + len, sizeof repro - len, " --kernel %s",
                                cli->kernel_args[i]);
    q4_status st = len < sizeof repro ? Q4_OK
                 : q4_fail(err, Q4_ERR_ARG, "%s: its repro line would be longer than %zu "
                           "characters; shorten the paths", dir, sizeof repro - 1);
    if (st == Q4_OK)
        st = load_inputs(dir, m, op, c, &in, err);
    if (st == Q4_OK)
        st = backend->kernels(cli->kernel_args, cli->n_kernels, &overrides, err);
    q4h_run_options opt = {
        .backend = backend, .api = backend->api,
        .kernel_args = cli->kernel_args, .n_kernel_args = cli->n_kernels,
        .exchange_s = 4.0 * cli->timeout_s,   /* WebGPU: as `run` gives one run message */
        .vk = { .device = cli->device, .validation = cli->validation != 0,
                .timeout_ms = (uint64_t)(cli->timeout_s * 1000), .faults = cli->faults },
        .repeat = cli->repeat, .strict = cli->strict, .dump_dir = cli->dump_dir,
        .dump_all = cli->dump_all != 0, .overrides = overrides,
        .n_overrides = overrides ? (int)cli->n_kernels : 0,
    };
    rerun_task task = { .cli = cli, .m = m, .opt = &opt, .c = c, .in = &in };
    rerun_reply *reply = st == Q4_OK ? malloc(sizeof *reply) : NULL;
    if (st == Q4_OK && !reply)
        st = q4_fail(err, Q4_ERR_NOMEM, "out of memory");
    if (st == Q4_OK) {
        /* As `run`'s watchdog for one case: four GPU timeouts and a minute for the host. */
        const double limit = (4.0 * cli->timeout_s + 60.0) * cli->repeat;
        q4_error lost = { 0 };
        const double began = q4h_now_s();
        if (q4h_in_child(rerun_child, &task, reply, sizeof *reply, limit, &lost) != Q4_OK) {
            q4h_result_start(&opt, c, &reply->r);
            reply->r.verdict = lost.status == Q4_ERR_TIMEOUT ? Q4_TIMEOUT : Q4_CRASH;
            reply->r.seconds = q4h_now_s() - began;
            snprintf(reply->r.message, sizeof reply->r.message, "%.400s during the case",
                     lost.msg);
            reply->st = Q4_OK;
        }
        *r = reply->r;
        st = reply->st;
        if (st != Q4_OK)
            *err = reply->err;
    }
    if (reply && reply->r.name[0]) {
        memcpy(r->repro, repro, sizeof r->repro);
        const char *prefix = "preparing the case failed: ", *why = r->message;
        if (!strncmp(why, prefix, strlen(prefix)))
            why += strlen(prefix);
        if (st != Q4_OK) /* the inputs or parameters broke the contract: a user error */
            q4_fail(err, st, "%s: the dumped inputs cannot run: %s", dir, why);
    }
    free(reply);
    q4h_overrides_free(overrides, cli->n_kernels);
    q4_inputs_free(&in);
    return st;
}

/* Where the results go: the console and the --junit/--json reports. */
typedef struct replay_sinks {
    q4_console *console;
    q4_junit *junit;
    q4_json *json;
} replay_sinks;

/* One dumped case: judged again (or rerun), printed, and added to the reports. */
static q4_status replay_one(const q4h_cli *cli, const char *dir, replay_sinks *sinks,
                            q4_error *err)
{
    char path[1100];
    q4h_dump_meta *m = calloc(1, sizeof *m);
    q4h_outputs out = { 0 };
    q4_case c;
    q4_result r;
    q4_error why = { 0 };
    q4_status st = m ? Q4_OK : q4_fail(err, Q4_ERR_NOMEM, "out of memory");

    snprintf(path, sizeof path, "%s/case.json", dir);
    if (st == Q4_OK)
        st = q4h_dump_read_meta(dir, m, err);
    if (st == Q4_OK && q4_case_parse(m->name, m->seed, &c, &why) != Q4_OK)
        st = q4_fail(err, Q4_ERR_ARG, "%s: name: %s", path, why.msg);
    const q4h_op *op = st == Q4_OK ? q4h_op_of(&c) : NULL;
    if (st == Q4_OK && (!op || strcmp(m->op, c.op)))
        st = q4_fail(err, Q4_ERR_ARG, "%s: op is '%s' but the case %s is of op %s", path, m->op,
                     m->name, c.op);
    if (st == Q4_OK) {
        q4h_run_options opt = { .strict = cli->strict, .api = m->api };
        char shown[Q4_CLEAN_MAX], device[4 * 256 + 1], driver[4 * 256 + 1], info[4 * 256 + 1];
        printf("replay: %s (seed %llu) from %s\n", m->name, (unsigned long long)m->seed,
               q4_echo(dir, shown, sizeof shown));
        /* the device as case.json names it: escaped, a dump is untrusted */
        printf("dumped: %s, worst margin %.3g, statistical %.3g, on %s (driver %s %s)\n",
               q4_verdict_name(m->result.verdict), m->result.worst_margin, m->result.stat_margin,
               m->device[0] ? q4_echo(m->device, device, sizeof device) : "an unknown device",
               q4_echo(m->driver, driver, sizeof driver),
               q4_echo(m->driver_info, info, sizeof info));
        if (cli->rerun) {
            st = rerun(cli, dir, m, op, &c, &r, err);
        } else {
            q4h_result_start(&opt, &c, &r);
            snprintf(r.repro, sizeof r.repro, "q4cts replay %s", dir);
            st = q4h_dump_load_outputs(dir, m, &out, err);
            if (st == Q4_OK)
                q4h_judge(&out, &r);
        }
    }
    if (st == Q4_OK) {
        q4_console_result(sinks->console, &r);
        if (!cli->rerun) {
            print_outputs(&out, m);
            bool same = r.verdict == m->result.verdict &&
                        same_number(r.worst_margin, m->result.worst_margin) &&
                        same_number(r.stat_margin, m->result.stat_margin);
            printf("%s\n", same ? "replay: the same verdict and margins as dumped"
                                : "replay: the verdict or margin differs from the dump");
        }
        if (sinks->junit)
            st = q4_junit_add(sinks->junit, &r, err);
        if (st == Q4_OK && sinks->json)
            st = q4_json_add(sinks->json, &r, err);
    }
    q4h_outputs_free(&out);
    free(m);
    return st;
}

/* DIR itself when it holds case.json, else its sub-folders that do (a --dump-dir),
 * sorted; *n = 0 when there is neither. Free with free_dirs. */
static char **case_dirs(const char *dir, size_t *n)
{
    char path[1100];
    struct dirent **entries = NULL;
    *n = 0;
    snprintf(path, sizeof path, "%s/case.json", dir);
    if (access(path, F_OK) == 0 || errno != ENOENT) {
        char **one = malloc(sizeof *one);
        if (one && (one[0] = strdup(dir)) != NULL)
            *n = 1;
        return one;
    }
    int count = scandir(dir, &entries, NULL, alphasort);
    char **dirs = count > 0 ? calloc((size_t)count, sizeof *dirs) : NULL;
    for (int i = 0; i < count; i++) {
        if (dirs && entries[i]->d_name[0] != '.' &&
            snprintf(path, sizeof path, "%s/%s/case.json", dir, entries[i]->d_name) <
                (int)sizeof path &&
            access(path, F_OK) == 0) {
            path[strlen(path) - strlen("/case.json")] = '\0';
            if ((dirs[*n] = strdup(path)) != NULL)
                (*n)++;
        }
        free(entries[i]);
    }
    free(entries);
    return dirs;
}

int q4h_replay(const q4h_cli *cli)
{
    q4_error err = { 0 };
    size_t n = 0, bad = 0;
    char **dirs = case_dirs(cli->operand, &n);
    replay_sinks sinks = { 0 };
    q4_prop props[] = { { "replay", cli->operand }, { "rerun", cli->rerun ? "yes" : "no" } };
    q4_status st = Q4_OK;

    if (n == 0) {
        char shown[Q4_ECHO_MAX];
        q4_echo(cli->operand, shown, sizeof shown);
        fprintf(stderr, "q4cts: cannot read %s/case.json, and %s holds no case folder with one "
                "(replay takes the folder of one case, DIR/<case name> of --dump-dir, or DIR "
                "itself)\n", shown, shown);
        free(dirs);
        return EXIT_USAGE;
    }
    if (cli->junit)
        st = q4_junit_open(cli->junit, "q4cts", props, 2, &sinks.junit, &err);
    if (st == Q4_OK && cli->json)
        st = q4_json_open(cli->json, props, 2, &sinks.json, &err);
    q4_junit_set_strict(sinks.junit, cli->strict);
    q4_json_set_strict(sinks.json, cli->strict);
    sinks.console = q4_console_new(stdout, n, cli->strict);
    q4_console_set_live(sinks.console, 0);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        q4_status one = replay_one(cli, dirs[i], &sinks, &err);
        if (one == Q4_ERR_ARG || one == Q4_ERR_IO) { /* a malformed dump: say so, go on */
            q4h_say(err.msg);
            bad++;
        } else {
            st = one;
        }
    }
    if (st == Q4_OK && n > 1)
        q4_console_summary(sinks.console);
    q4_status closed = q4_junit_close(sinks.junit, &err);
    st = st != Q4_OK ? st : closed;
    closed = q4_json_close(sinks.json, &err);
    st = st != Q4_OK ? st : closed;
    if (st != Q4_OK)
        q4h_say(err.msg);
    int rc = st != Q4_OK || bad ? EXIT_USAGE : q4_console_not_ok(sinks.console) ? 1 : 0;
    q4_console_free(sinks.console);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    return rc;
}
