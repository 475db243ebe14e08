/* backend_webgpu.c: the WebGPU backend (backend_webgpu.h): each case prepared and
 * judged by the common case line, its kernels run by the worker process
 * (webgpu_worker.c), whose failures become statuses the case line turns into
 * verdicts. Also `devices --api webgpu`, the --kernel checks and perf's tasks. */
#include "backend_webgpu.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "device_io.h"
#include "dump.h"
#include "files.h"
#include "interface.h"
#include "json_text.h"
#include "op.h"
#include "shown.h"
#include "stop.h"
#include "webgpu_worker.h"
#include "wg_images.h"

/* What the hello says of the adapter and what the harness uses of it. */
typedef q4h_wg_hello adapter;

typedef struct session {
    const q4h_run_options *opt;
    q4h_wg_worker w;
    adapter a;
    bool have_adapter;        /* a hello came: a has the adapter */
    q4vk_faults faults;       /* the N-th run message (1-based) carries the fault */
    long messages;            /* run messages sent so far: --inject-fault counts them */
    /* the case in progress: its buffers, an interface file's steps and binding limit */
    const q4h_iface *iface;
    q4h_wg_images im;
    json_object *steps;
    uint64_t max_binding;
} session;

static const char *str_of(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v) : "";
}

static double num_of(json_object *o, const char *key, double dflt)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) &&
                   (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
               ? json_object_get_double(v) : dflt;
}

/* Starts a worker and reads its hello. */
static q4_status open_worker(session *s, q4_error *err)
{
    q4h_wg_frame f;
    char why[256] = "";
    q4_status st = q4h_wg_start(s->opt->kernel_args, s->opt->n_kernel_args, &s->w, err);
    if (st != Q4_OK)
        return st;
    /* Dawn's start-up compiles nothing yet; a minute covers a loaded machine */
    q4h_wg_io io = q4h_wg_recv(&s->w, &f, 0, q4h_now_s() + 60 + s->opt->exchange_s, why,
                               sizeof why);
    bool hello = io == Q4H_WG_OK && f.type == Q4H_WG_HELLO;
    if (hello && q4h_wg_hello_read(f.json, &s->a, why, sizeof why) == Q4_OK &&
        !str_of(f.json, "error")[0]) {
        q4h_wg_frame_free(&f);
        s->have_adapter = true;
        return Q4_OK;
    }
    char end[Q4_MSG_MAX] = "";
    if (io == Q4H_WG_OK)
        snprintf(end, sizeof end, "%s", !hello ? "it sent no hello" : why[0] ? why
                                        : str_of(f.json, "error"));
    q4h_wg_frame_free(&f);
    int status = 0;
    q4h_wg_kill(&s->w, &status);
    if (io == Q4H_WG_GONE)
        q4h_wg_describe_end(&s->w, status, end, sizeof end);
    else if (io == Q4H_WG_LATE)
        snprintf(end, sizeof end, "it did not answer within %.0f s", 60 + s->opt->exchange_s);
    else if (io == Q4H_WG_BAD)
        snprintf(end, sizeof end, "%s", why);
    close(s->w.log_fd);
    s->w.log_fd = -1;
    if (io == Q4H_WG_STOPPED)
        return Q4_ERR_IO;   /* the caller sees the stop signal */
    return q4_fail(err, Q4_ERR_DEVICE, "the WebGPU worker could not start: %.400s (Node.js and "
                   "Dawn: scripts/setup; a driver Dawn accepts, such as Mesa 25's lavapipe: "
                   "docs/webgpu.md)", end);
}

static void close_worker(session *s)
{
    if (s->w.pid > 0)
        q4h_wg_send(&s->w, Q4H_WG_BYE, "{}", NULL, NULL, 0, q4h_now_s() + 1);
    q4h_wg_finish(&s->w);
}

/* ---- one case ---- */

/* The case's buffers as the worker gets them: the inputs, then the output buffers
 * (sentinel-filled), each followed by the guard words. */
static q4_status make_images(const q4h_op *op, const q4_case *c, const q4_inputs *in,
                             q4h_wg_images *im, q4_error *err)
{
    q4h_tensor t[Q4H_MAX_TENSORS];
    size_t out_bytes[Q4H_MAX_OUTPUTS];
    static const char *const out_names[] = { "out0", "out1", "out2", "out3" };
    int n_in = op->inputs(c, in, t), n_out = op->output_buffers(c, out_bytes);
    q4_status st = Q4_OK;
    im->n = 0;
    for (int i = 0; i < n_in + n_out && st == Q4_OK; i++)
        st = q4h_wg_image_add(im, i < n_in ? t[i].name : out_names[i - n_in],
                              i < n_in ? t[i].data : NULL,
                              i < n_in ? q4h_tensor_bytes(&t[i]) : out_bytes[i - n_in],
                              Q4H_GUARD_BYTES, false, err);
    if (st != Q4_OK)
        q4h_wg_images_free(im);
    return st;
}

/* What a run message asks besides the case: perf's repetitions (reps 0: one judged
 * run, every buffer read back). */
typedef struct timing_ask {
    int reps, warmup, warmup_ms;
} timing_ask;

/* The run message's header (docs/webgpu.md), with an interface file's steps (iface,
 * taken over; NULL: our own kernels); NULL without memory. */
static char *run_header(const q4_case *c, const q4_inputs *in, const q4h_wg_images *im,
                        const char *fault, const timing_ask *ask, json_object *iface)
{
    json_object *o = json_object_new_object(), *params = json_object_new_object(),
                *bufs = json_object_new_array();
    q4h_dump_meta meta;
    q4h_dump_params(c, in, &meta);
    for (int i = 0; i < meta.n_params; i++) {
        const q4h_dump_param *p = &meta.params[i];
        json_object_object_add(params, p->key, p->integer ? json_object_new_int64((int64_t)p->value)
                                                          : json_object_new_double(p->value));
    }
    for (int i = 0; i < im->n; i++) {
        json_object *b = json_object_new_object();
        json_object_object_add(b, "name", json_object_new_string(im->name[i]));
        json_object_object_add(b, "bytes", json_object_new_int64((int64_t)im->total[i]));
        json_object_object_add(b, "data_bytes", json_object_new_int64((int64_t)im->data[i]));
        json_object_object_add(b, "out", json_object_new_boolean(ask->reps == 0 && im->out[i]));
        if (im->uniform[i])
            json_object_object_add(b, "uniform", json_object_new_boolean(true));
        json_object_array_add(bufs, b);
    }
    json_object_object_add(o, "case", json_object_new_string(c->name));
    json_object_object_add(o, "op", json_object_new_string(c->op));
    json_object_object_add(o, "params", params);
    json_object_object_add(o, "buffers", bufs);
    json_object_object_add(o, "fault", json_object_new_string(fault));
    if (iface)
        json_object_object_add(o, "interface", iface);
    if (ask->reps > 0) {
        json_object_object_add(o, "reps", json_object_new_int(ask->reps));
        json_object_object_add(o, "warmup", json_object_new_int(ask->warmup));
        json_object_object_add(o, "warmup_ms", json_object_new_int(ask->warmup_ms));
    }
    q4h_json_drop_nonfinite(o);   /* the worker's JSON.parse takes no NaN */
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    char *copy = text ? strdup(text) : NULL;
    json_object_put(o);
    return copy;
}

/* The fault the next run message carries: each fires once, at its count. */
static const char *next_fault(session *s)
{
    const q4vk_faults *f = &s->faults;
    long n = ++s->messages;
    return n == f->crash_at ? "crash" : n == f->timeout_at ? "hang"
         : n == f->device_lost_at ? "lost" : n == f->fail_alloc_at ? "alloc" : "";
}

/* NotSupported reasons of WebGPU: a buffer beyond the adapter's binding or buffer size
 * (the WGSL kernels do not split bindings), or an op without WGSL kernels. */
static void support(const session *s, const q4h_op *op, const q4h_wg_images *im,
                    uint64_t max_binding, char *why, size_t size)
{
    why[0] = '\0';
    if (!op->read_host && !(s->opt && q4h_iface_for(s->opt, op->name))) {
        snprintf(why, size, "op %s has no WebGPU path", op->name);
        return;
    }
    for (int i = 0; i < im->n; i++)
        if (im->total[i] > max_binding || im->total[i] > s->a.max_buffer) {
            snprintf(why, size, "buffer %s needs %llu bytes; %s binds at most %llu "
                     "(maxStorageBufferBindingSize) in a buffer of at most %llu (maxBufferSize)",
                     im->name[i], (unsigned long long)im->total[i],
                     max_binding < s->a.max_binding ? "the case's lowered limit" : "the adapter",
                     (unsigned long long)max_binding, (unsigned long long)s->a.max_buffer);
            return;
        }
}

/* ---- the backend (backend.h) ---- */

static session *session_of(q4h_backend *b)
{
    return b->state;
}

static q4_status wg_open(q4h_backend *b, bool reopen, q4_error *err)
{
    session *s = calloc(1, sizeof *s);
    if (!s)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory opening the WebGPU worker");
    *s = (session){ .opt = b->opt, .w = { .pid = 0, .to_fd = -1, .from_fd = -1, .log_fd = -1 } };
    if (!reopen) /* injected faults fire once per run, not again in a new worker process */
        s->faults = b->opt->vk.faults;
    b->state = s;
    /* A worker that dies while the harness writes to it is a verdict, not our death. */
    signal(SIGPIPE, SIG_IGN);
    return open_worker(s, err);
}

/* Each interface file's WGSL checked by the worker before any case (interface.mjs),
 * one check per op (each op of a kernel set too): a refusal is the file's error,
 * "FILE: KEY: why" (exit 2), KEY starting "ops[I]." in a set. */
static q4_status wg_check(q4h_backend *b, const q4_case *cases, size_t n, q4_error *err)
{
    session *s = session_of(b);
    (void)cases, (void)n;
    for (int i = 0; i < s->opt->n_interfaces; i++) {
        const q4h_iface *f = s->opt->interfaces[i];
        json_object *msg = q4h_iface_wg_check(f);
        const char *text = msg ? json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN) : NULL;
        char why[Q4_MSG_MAX] = "", shown[Q4_ECHO_MAX], where[Q4_ECHO_MAX + 16];
        q4h_wg_frame fr = { 0 };
        q4h_wg_io io = !text ? Q4H_WG_BAD
                     : q4h_wg_send(&s->w, Q4H_WG_CHECK, text, NULL, NULL, 0,
                                   q4h_now_s() + 60 + s->opt->exchange_s);
        json_object_put(msg);
        if (io == Q4H_WG_OK)
            io = q4h_wg_recv(&s->w, &fr, 0, q4h_now_s() + 60 + s->opt->exchange_s, why,
                             sizeof why);
        q4_status st = Q4_OK;
        if (io != Q4H_WG_OK || fr.type != Q4H_WG_RESULT)
            st = q4_fail(err, Q4_ERR_DEVICE, "the WebGPU worker did not check %s: %s",
                         q4h_iface_where(f, where, sizeof where),
                         io == Q4H_WG_OK ? "it answered with another frame"
                         : io == Q4H_WG_LATE ? "it did not answer in time"
                         : io == Q4H_WG_GONE ? "it ended" : why[0] ? why : "no memory");
        else if (strcmp(str_of(fr.json, "status"), "ok"))
            st = q4_fail(err, Q4_ERR_ARG, "%s: %s%s: %.600s", q4_echo(f->path, shown, sizeof shown),
                         str_of(fr.json, "key")[0] ? "" : f->at,   /* the worker's key has it */
                         str_of(fr.json, "key")[0] ? str_of(fr.json, "key") : "steps",
                         str_of(fr.json, "message"));
        q4h_wg_frame_free(&fr);
        if (st != Q4_OK)
            return st;
    }
    return Q4_OK;
}

/* The adapter of the last hello: a worker that died is started again at the next
 * run, on the same adapter. */
static const q4vk_device_info *wg_info(q4h_backend *b)
{
    session *s = session_of(b);
    return s && s->have_adapter ? &s->a.info : NULL;
}

static q4_status wg_begin(q4h_backend *b, const q4h_op *op, const q4_case *c, char *why,
                          size_t size, q4_error *err)
{
    session *s = session_of(b);
    (void)op, (void)why, (void)size, (void)err;
    s->iface = q4h_iface_for(s->opt, c->op);
    s->max_binding = s->a.max_binding;
    return Q4_OK;
}

/* The inputs as the worker's images (an interface file's come with the truth), and
 * whether the adapter can hold them. */
static q4_status wg_stage(q4h_backend *b, const q4h_op *op, const q4_case *c,
                          const q4_inputs *in, char *why, size_t size, q4_error *err)
{
    session *s = session_of(b);
    if (!s->iface && make_images(op, c, in, &s->im, err) != Q4_OK)
        return err->status;
    support(s, op, &s->im, s->a.max_binding, why, size);
    return Q4_OK;
}

/* An interface file's buffers follow from the truth (the outputs it writes). Its
 * kernels are judged against a case's lowered limits (family small_device) as on
 * Vulkan: a grid beyond them, folded where the step allows, or a buffer beyond the
 * binding limit is NotSupported. */
static q4_status wg_bind(q4h_backend *b, const q4h_op *op, const q4_case *c,
                         const q4_inputs *in, q4h_outputs *out, char *why, size_t size,
                         q4_error *err)
{
    session *s = session_of(b);
    uint32_t max_groups = s->a.info.max_group_count[0];
    uint64_t max_binding = s->a.max_binding;
    if (!s->iface)
        return Q4_OK;
    if (c->limit[Q4_LIMIT_GROUPS] && (uint64_t)c->limit[Q4_LIMIT_GROUPS] < max_groups)
        max_groups = (uint32_t)c->limit[Q4_LIMIT_GROUPS];
    if (c->limit[Q4_LIMIT_BINDING] && (uint64_t)c->limit[Q4_LIMIT_BINDING] < max_binding)
        max_binding = (uint64_t)c->limit[Q4_LIMIT_BINDING];
    s->max_binding = max_binding;
    q4_status st = q4h_iface_wg_case(s->iface, op, c, in, out, &s->a.info, max_groups,
                                     max_binding < s->a.max_buffer ? max_binding
                                                                   : s->a.max_buffer,
                                     &s->im, &s->steps, err);
    if (st == Q4_OK)
        support(s, op, &s->im, max_binding, why, size);
    return st;
}

/* One run message for the case and its result, read back into out. A worker that
 * died since is started again first. */
static q4_status wg_run(q4h_backend *b, const q4h_op *op, const q4_case *c, const q4_inputs *in,
                        q4h_outputs *out, q4h_observations *obs, q4_error *err)
{
    session *s = session_of(b);
    const q4h_wg_images *im = &s->im;
    char why[Q4_MSG_MAX] = "";
    char *header = run_header(c, in, im, next_fault(s), &(timing_ask){ 0 },
                              s->steps ? json_object_get(s->steps) : NULL);
    if (!header)
        return q4_fail(err, Q4_ERR_RESOURCE, "%s", "no memory for the run message");
    if (s->w.pid <= 0) {
        q4_error e = { 0 };
        if (open_worker(s, &e) != Q4_OK) {
            free(header);
            return q4_fail(err, Q4_ERR_DEVICE, "the WebGPU worker could not be restarted: "
                           "%.480s", e.msg);
        }
    }
    double deadline = q4h_now_s() + s->opt->exchange_s;
    const void *blobs[Q4H_WG_MAX_IMAGES];
    int n_out = 0;
    uint64_t largest = 0;   /* no blob of the result can be longer */
    for (int i = 0; i < im->n; i++) {
        blobs[i] = im->image[i];
        n_out += im->out[i];
        largest = im->total[i] > largest ? im->total[i] : largest;
    }
    q4h_wg_frame f = { 0 };
    q4h_wg_io io = q4h_wg_send(&s->w, Q4H_WG_RUN, header, blobs, im->total, (uint32_t)im->n,
                               deadline);
    free(header);
    if (io == Q4H_WG_OK)
        io = q4h_wg_recv(&s->w, &f, largest, deadline, why, sizeof why);
    if (io == Q4H_WG_OK && f.type != Q4H_WG_RESULT) {
        snprintf(why, sizeof why, "the WebGPU worker answered a run with a frame of type %u",
                 f.type);
        io = Q4H_WG_BAD;
    }
    if (io != Q4H_WG_OK) {
        int status = 0;
        char end[Q4_MSG_MAX];
        q4_status st;
        q4h_wg_frame_free(&f);
        q4h_wg_kill(&s->w, &status);
        if (io == Q4H_WG_GONE) {
            q4h_wg_describe_end(&s->w, status, end, sizeof end);   /* before its log goes */
            st = q4_fail(err, Q4_ERR_DEVICE_LOST, "%s during the case", end);
        } else if (io == Q4H_WG_LATE) {
            st = q4_fail(err, Q4_ERR_TIMEOUT, "the case ran past the %.0f s watchdog; its "
                         "WebGPU worker was killed", s->opt->exchange_s);
        } else {
            st = q4_fail(err, Q4_ERR_DEVICE, "%s",
                         io == Q4H_WG_STOPPED ? q4h_stop_reason() : why);
        }
        close(s->w.log_fd);
        s->w.log_fd = -1;
        return st;
    }
    q4_status st = Q4_OK;
    const char *status = str_of(f.json, "status");
    if (strcmp(status, "ok")) {
        const char *kind = str_of(f.json, "kind");
        st = q4_fail(err, !strcmp(kind, "oom") || !strcmp(kind, "lost") ? Q4_ERR_RESOURCE
                          : !strcmp(kind, "unsupported")                 ? Q4_ERR_UNSUPPORTED
                                                                         : Q4_ERR_DEVICE,
                     "WebGPU %s: %.440s", kind, str_of(f.json, "message"));
        if (!strcmp(kind, "lost"))   /* the worker leaves; a new device takes the next case */
            q4h_wg_finish(&s->w);
    } else if ((int)f.n_blobs != n_out) {
        st = q4_fail(err, Q4_ERR_DEVICE, "the WebGPU worker returned %u buffers for %d",
                     f.n_blobs, n_out);
    } else {
        q4h_host_buffer hb[Q4H_WG_MAX_IMAGES];
        bool sizes_ok = true;
        for (int i = 0, k = 0; i < im->n; i++) {
            hb[i] = (q4h_host_buffer){ im->out[i] ? f.blob[k] : NULL, im->data[i] };
            sizes_ok = sizes_ok && (!im->out[i] || f.blob_len[k] == im->total[i]);
            k += im->out[i];
        }
        q4_error e = { 0 };
        if (!sizes_ok)
            st = q4_fail(err, Q4_ERR_DEVICE, "%s",
                         "the WebGPU worker returned a buffer of the wrong size");
        else if ((s->iface ? q4h_iface_wg_read(s->iface, c, hb, out, &e)
                           : op->read_host(c, hb, out, &e)) != Q4_OK)
            st = q4_fail(err, Q4_ERR_DEVICE, "reading the results failed: %.480s", e.msg);
        obs->gpu_ms = num_of(f.json, "gpu_ms", -1);
    }
    q4h_wg_frame_free(&f);
    return st;
}

/* The worker was killed with its case, or it left: the next run starts a new one. */
static q4_status wg_reopen(q4h_backend *b, const q4_case *c, q4_error *err)
{
    (void)b, (void)c, (void)err;
    return Q4_OK;
}

static void wg_end(q4h_backend *b)
{
    session *s = session_of(b);
    json_object_put(s->steps);
    s->steps = NULL;
    q4h_wg_images_free(&s->im);
    s->iface = NULL;
}

static void wg_close(q4h_backend *b)
{
    session *s = session_of(b);
    if (s) {
        close_worker(s);
        free(s);
    }
    b->state = NULL;
}


/* The worker and its kernels' folder exist: a missing Q4CTS_WGSL_DIR made every case
 * an InternalError, one by one, instead of one set-up error before the run. */
static q4_status check_worker_files(const q4h_wg_paths *p, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    const char *env = getenv("Q4CTS_WGSL_DIR");
    struct stat st;
    int fd = q4_open_regular(p->worker, NULL);
    if (fd < 0)
        return q4_fail(err, Q4_ERR_ARG, "the WebGPU worker %s cannot be read (%s): "
                       "Q4CTS_WEBGPU_DIR must name the gpu/webgpu folder of the q4cts source "
                       "(docs/webgpu.md)", q4_echo(p->worker, shown, sizeof shown),
                       q4_file_strerror(errno));
    close(fd);
    DIR *d = stat(p->wgsl, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(p->wgsl) : NULL;
    bool any = false;
    for (struct dirent *e = d ? readdir(d) : NULL; e && !any; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        any = len > 5 && !strcmp(e->d_name + len - 5, ".wgsl");
    }
    if (d)
        closedir(d);
    if (!any)
        return q4_fail(err, Q4_ERR_ARG, "the WGSL kernels' folder %s%s %s: %s (docs/webgpu.md)",
                       q4_echo(p->wgsl, shown, sizeof shown),
                       env && env[0] ? " (Q4CTS_WGSL_DIR)" : "",
                       !d && stat(p->wgsl, &st) != 0 ? "does not exist"
                       : !d ? "is not a folder" : "holds no .wgsl kernel",
                       env && env[0] ? "set Q4CTS_WGSL_DIR to the gpu/wgsl folder of the q4cts "
                                       "source, or unset it"
                                     : "the q4cts source's gpu/wgsl is expected there");
    return Q4_OK;
}

/* --kernel NAME=FILE.wgsl: FILE is WGSL text. A SPIR-V module given as WGSL reached
 * the worker, and Dawn said "illegal character '\0'" for each case. */
static q4_status check_wgsl_file(const char *arg, const char *file, q4_error *err)
{
    char shown[Q4_ECHO_MAX], fshown[Q4_ECHO_MAX];
    size_t size;
    q4_echo(arg, shown, sizeof shown);
    q4_echo(file, fshown, sizeof fshown);
    char *text = q4_read_regular(file, Q4H_IF_MAX_WGSL_BYTES, &size);
    if (!text)
        return q4_fail(err, Q4_ERR_ARG, "--kernel '%s': cannot read %s: %s", shown, fshown,
                       errno == EFBIG ? "larger than 256 KiB" : q4_file_strerror(errno));
    const bool spirv = size >= 4 && !memcmp(text, "\x03\x02\x23\x07", 4);
    const bool nul = strlen(text) != size;
    free(text);
    if (spirv || nul)
        return q4_fail(err, Q4_ERR_ARG, "--kernel '%s': %s is %s; with --api webgpu a kernel is "
                       "WGSL source text (docs/webgpu.md)", shown, fshown,
                       spirv ? "a SPIR-V module" : "not text (it holds a NUL byte)");
    return Q4_OK;
}

q4_status q4h_webgpu_check_kernels(const char *const *args, size_t n, q4_error *err)
{
    char buf[8192], path[8400], shown[Q4_ECHO_MAX];
    q4h_wg_paths p;
    q4h_wg_paths_get(&p, buf, sizeof buf);
    q4_status st = check_worker_files(&p, err);
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        const char *eq = strchr(args[i], '=');
        size_t len = eq ? (size_t)(eq - args[i]) : 0;
        bool name_ok = len > 0 && len < 64 && strspn(args[i], "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
        if (name_ok)
            snprintf(path, sizeof path, "%s/%.*s.wgsl", p.wgsl, (int)len, args[i]);
        if (!name_ok || access(path, R_OK) != 0)
            return q4_fail(err, Q4_ERR_ARG, "--kernel '%s': with --api webgpu, NAME=FILE.wgsl "
                           "where NAME is a WGSL kernel of %s (docs/webgpu.md)",
                           q4_echo(args[i], shown, sizeof shown), p.wgsl);
        st = check_wgsl_file(args[i], eq + 1, err);
    }
    return st;
}

/* ---- perf (perf.c calls this in a child process of its own per task) ---- */

/* Sends one message and takes its result: Q4_OK with f filled, or an error saying how
 * the worker failed or what it reported. */
static q4_status exchange(session *s, const char *header, const q4h_wg_images *im,
                          q4h_wg_frame *f, q4_error *err)
{
    const void *blobs[Q4H_WG_MAX_IMAGES];
    char why[Q4_MSG_MAX] = "";
    uint64_t largest = 0;   /* no blob of the result can be longer */
    for (int i = 0; i < im->n; i++) {
        blobs[i] = im->image[i];
        largest = im->total[i] > largest ? im->total[i] : largest;
    }
    double deadline = q4h_now_s() + s->opt->exchange_s;
    q4h_wg_io io = q4h_wg_send(&s->w, Q4H_WG_RUN, header, blobs, im->total, (uint32_t)im->n,
                               deadline);
    if (io == Q4H_WG_OK)
        io = q4h_wg_recv(&s->w, f, largest, deadline, why, sizeof why);
    if (io == Q4H_WG_OK && strcmp(str_of(f->json, "status"), "ok")) {
        q4_status st = q4_fail(err, !strcmp(str_of(f->json, "kind"), "unsupported")
                                        ? Q4_ERR_UNSUPPORTED : Q4_ERR_DEVICE,
                               "WebGPU %s: %.400s", str_of(f->json, "kind"),
                               str_of(f->json, "message"));
        q4h_wg_frame_free(f);
        return st;
    }
    if (io == Q4H_WG_OK)
        return Q4_OK;
    return q4_fail(err, io == Q4H_WG_LATE ? Q4_ERR_TIMEOUT : Q4_ERR_DEVICE, "%s",
                   io == Q4H_WG_LATE ? "the WebGPU worker did not answer in time"
                   : io == Q4H_WG_BAD ? why : "the WebGPU worker ended during the task");
}

/* perf: one task in a worker of its own: the ceilings (c NULL: ceil) or case c's
 * `reps` GPU times in ms (times[reps]), after warm-up; info gets the adapter. */
typedef struct q4h_wg_perf {
    int reps, warmup, warmup_ms;
    double exchange_s;
} q4h_wg_perf;

static q4_status perf_task(const q4h_wg_perf *p, const q4_case *c, q4vk_device_info *info,
                           q4vk_ceilings *ceil, double *times, q4_error *err)
{
    q4h_run_options o = { .exchange_s = p->exchange_s };
    session s = { .opt = &o, .w = { .pid = 0, .to_fd = -1, .from_fd = -1, .log_fd = -1 } };
    q4_inputs in = { 0 };
    q4h_wg_images im = { 0 };
    q4h_wg_frame f = { 0 };
    char *header = NULL;
    timing_ask ask = { p->reps, p->warmup, p->warmup_ms };
    signal(SIGPIPE, SIG_IGN);
    /* The inputs first, then the worker's device: a device whose GPU sits idle after it
     * is made can stay slow for its whole life (perf.c, perf_child). */
    const q4h_op *op = c ? q4h_op_of(c) : NULL;
    q4_status st = !c ? Q4_OK
                   : !op ? q4_fail(err, Q4_ERR_ARG, "no descriptor for op %s", c->op)
                         : q4_case_inputs(c, &in, err);
    if (st == Q4_OK && c)
        st = make_images(op, c, &in, &im, err);
    if (st == Q4_OK)
        st = open_worker(&s, err);
    if (st != Q4_OK) {
        q4h_wg_images_free(&im);
        q4_inputs_free(&in);
        return st;
    }
    *info = s.a.info;
    if (!c) {
        char text[256];
        /* a copy well past a GPU's last-level cache (the binding limit caps it), and an
         * FMA loop of 2^28 vec4 FMAs in 2^16 invocations */
        snprintf(text, sizeof text, "{\"case\": \"ceilings\", \"op\": \"ceilings\", \"params\": "
                 "{\"copy_bytes\": %d, \"fma_groups\": 256, \"fma_iters\": 512}, \"buffers\": [], "
                 "\"fault\": \"\", \"reps\": %d, \"warmup\": %d, \"warmup_ms\": %d}",
                 1 << 28, p->reps, p->warmup, p->warmup_ms);
        if ((st = exchange(&s, text, &im, &f, err)) == Q4_OK) {
            ceil->copy_gbs = num_of(f.json, "copy_gbs", 0);
            ceil->copy_bytes = num_of(f.json, "copy_bytes", 0);
            ceil->fma_tflops = num_of(f.json, "fma_tflops", 0);
            ceil->dispatch_us = num_of(f.json, "dispatch_us", 0);
        }
    } else {
        char why[512] = "";
        support(&s, op, &im, s.a.max_binding, why, sizeof why);
        if (st == Q4_OK && why[0])
            st = q4_fail(err, Q4_ERR_UNSUPPORTED, "%s", why);
        if (st == Q4_OK && !(header = run_header(c, &in, &im, "", &ask, NULL)))
            st = q4_fail(err, Q4_ERR_NOMEM, "no memory for the run message");
        if (st == Q4_OK && (st = exchange(&s, header, &im, &f, err)) == Q4_OK) {
            json_object *t = NULL;
            json_object_object_get_ex(f.json, "times_ms", &t);
            if (!t || (int)json_object_array_length(t) != p->reps)
                st = q4_fail(err, Q4_ERR_DEVICE, "the WebGPU worker returned no times");
            for (int i = 0; st == Q4_OK && i < p->reps; i++)
                times[i] = json_object_get_double(json_object_array_get_idx(t, (size_t)i));
        }
    }
    q4h_wg_frame_free(&f);
    free(header);
    q4h_wg_images_free(&im);
    q4_inputs_free(&in);
    close_worker(&s);
    return st;
}

/* `q4cts devices --api webgpu`: the adapter Dawn finds, its features and limits. */
static q4_status wg_devices(q4_error *err)
{
    session s = { .opt = &(q4h_run_options){ .exchange_s = 60 },
                  .w = { .pid = 0, .to_fd = -1, .from_fd = -1, .log_fd = -1 } };
    signal(SIGPIPE, SIG_IGN);
    q4_status st = open_worker(&s, err);
    if (st != Q4_OK)
        return st;
    const q4vk_device_info *i = &s.a.info;
    q4h_device_shown d;   /* the worker's words, escaped */
    char features[Q4_CLEAN_MAX];
    q4h_device_shown_of(i, &d);
    printf("0: %s (WebGPU adapter)\n   driver %s %s (%s)\n   timestamps %s, "
           "maxStorageBufferBindingSize %llu, maxBufferSize %llu\n   features %s\n",
           d.name, d.driver, d.version, d.info,
           i->timestamps ? "yes" : "no", (unsigned long long)s.a.max_binding,
           (unsigned long long)s.a.max_buffer, q4_echo(s.a.features, features, sizeof features));
    close_worker(&s);
    return Q4_OK;
}

static void wg_describe(const q4vk_device_info *info, char *buf, size_t size)
{
    q4h_device_shown d;   /* the worker's words, escaped */
    q4h_device_shown_of(info, &d);
    snprintf(buf, size, "%s (WebGPU), driver %s %s, %s", d.name, d.driver, d.version, d.info);
}

/* The worker reads --kernel's WGSL files itself: they are only checked here. */
static q4_status wg_kernels(const char *const *args, size_t n, q4h_override **out,
                            q4_error *err)
{
    *out = NULL;
    return q4h_webgpu_check_kernels(args, n, err);
}

/* perf's task: a worker of its own, as Vulkan's task has a context of its own. */
static q4_status wg_time(const q4h_run_options *opt, const q4h_perf_ask *ask, const q4_case *c,
                         q4vk_device_info *info, q4vk_ceilings *ceil, double *times,
                         q4_error *err)
{
    q4h_wg_perf p = { ask->reps, ask->warmup, ask->warmup_ms, opt->exchange_s };
    q4_status st = perf_task(&p, c, info, ceil, times, err);
    if (st == Q4_OK && !c) {
        char words[6 * 1100];   /* the worker's words, escaped */
        wg_describe(info, words, sizeof words);
        printf("device: %s\n", words);
    }
    return st;
}

const q4h_backend_i q4h_backend_webgpu = {
    .api = "webgpu",
    .suite = "q4cts.webgpu",
    .wgsl = true,
    .no_training = NULL,   /* the training driver stages and binds each op (train_case.c) */
    .vulkan = false,
    .devices = wg_devices,
    .describe = wg_describe,
    .kernels = wg_kernels,
    .open = wg_open,
    .check = wg_check,
    .info = wg_info,
    .begin = wg_begin,
    .stage = wg_stage,
    .bind = wg_bind,
    .run = wg_run,
    .reopen = wg_reopen,
    .lint = NULL,   /* the static checks read SPIR-V; WGSL has none */
    .end = wg_end,
    .close = wg_close,
    .time = wg_time,
};
