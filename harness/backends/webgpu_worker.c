/* webgpu_worker.c: starting the WebGPU worker and the frames exchanged with it
 * (see webgpu_worker.h, docs/webgpu.md). */
#include "webgpu_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "stop.h"

#ifndef Q4CTS_WEBGPU_DIR
#define Q4CTS_WEBGPU_DIR "gpu/webgpu"
#endif

void q4h_wg_paths_get(q4h_wg_paths *p, char *buf, size_t size)
{
    const char *dir = getenv("Q4CTS_WEBGPU_DIR");
    const char *wgsl = getenv("Q4CTS_WGSL_DIR");
    const char *node = getenv("Q4CTS_NODE");
    dir = dir && dir[0] ? dir : Q4CTS_WEBGPU_DIR;
    int n = snprintf(buf, size, "%s/worker.mjs", dir) + 1;
    p->worker = buf;
    if (wgsl && wgsl[0]) {
        p->wgsl = wgsl;
    } else if ((size_t)n < size) {
        snprintf(buf + n, size - (size_t)n, "%s/../wgsl", dir);
        p->wgsl = buf + n;
    } else {
        p->wgsl = "gpu/wgsl";
    }
    p->node = node && node[0] ? node : "node";
}

q4_status q4h_wg_start(const char *const *kernels, size_t n_kernels, q4h_wg_worker *w,
                       q4_error *err)
{
    char buf[8192];
    q4h_wg_paths p;
    q4h_wg_paths_get(&p, buf, sizeof buf);
    int req[2], rep[2];
    char log_name[] = "/tmp/q4cts-webgpu-XXXXXX";
    int log_fd = mkstemp(log_name);
    if (log_fd < 0)
        return q4_fail(err, Q4_ERR_IO, "cannot create the worker's log file: %s", strerror(errno));
    unlink(log_name);
    if (pipe(req) != 0 || pipe(rep) != 0) {
        close(log_fd);
        return q4_fail(err, Q4_ERR_IO, "pipe failed: %s", strerror(errno));
    }
    /* argv: node worker.mjs --wgsl DIR, then --kernel NAME=FILE per override */
    const char *argv[8 + 2 * 64];
    size_t a = 0;
    argv[a++] = p.node;
    argv[a++] = p.worker;
    argv[a++] = "--wgsl";
    argv[a++] = p.wgsl;
    for (size_t i = 0; i < n_kernels && i < 64; i++) {
        argv[a++] = "--kernel";
        argv[a++] = kernels[i];
    }
    argv[a] = NULL;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(req[0]), close(req[1]), close(rep[0]), close(rep[1]), close(log_fd);
        return q4_fail(err, Q4_ERR_IO, "fork failed: %s", strerror(errno));
    }
    if (pid == 0) {
        q4h_stop_child_of(parent);   /* dies with its parent; Ctrl-C is the harness's to handle */
        int devnull = open("/dev/null", O_RDWR);
        /* fds 3 and 4 may be any of ours: move the pipe ends above them first */
        int in = fcntl(req[0], F_DUPFD, 10), out = fcntl(rep[1], F_DUPFD, 10);
        if (in < 0 || out < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
            dup2(log_fd, 2) < 0 || dup2(in, 3) < 0 || dup2(out, 4) < 0)
            _exit(126);
        for (int fd = 5; fd < 1024; fd++)
            close(fd);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(req[0]);
    close(rep[1]);
    fcntl(req[1], F_SETFD, FD_CLOEXEC);
    fcntl(rep[0], F_SETFD, FD_CLOEXEC);
    fcntl(log_fd, F_SETFD, FD_CLOEXEC);
    /* non-blocking: every wait is a poll with a deadline */
    fcntl(req[1], F_SETFL, O_NONBLOCK);
    fcntl(rep[0], F_SETFL, O_NONBLOCK);
    *w = (q4h_wg_worker){ .pid = pid, .to_fd = req[1], .from_fd = rep[0], .log_fd = log_fd };
    return Q4_OK;
}

static void close_fds(q4h_wg_worker *w)
{
    if (w->to_fd >= 0)
        close(w->to_fd);
    if (w->from_fd >= 0)
        close(w->from_fd);
    w->to_fd = w->from_fd = -1;
}

void q4h_wg_kill(q4h_wg_worker *w, int *status)
{
    int st = 0;
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    if (status)
        *status = st;
    w->pid = 0;
    close_fds(w);
}

void q4h_wg_finish(q4h_wg_worker *w)
{
    close_fds(w);
    for (int i = 0; i < 500 && w->pid > 0; i++) {
        if (waitpid(w->pid, NULL, WNOHANG) == w->pid) {
            w->pid = 0;
            break;
        }
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    }
    q4h_wg_kill(w, NULL);
    if (w->log_fd >= 0)
        close(w->log_fd);
    w->log_fd = -1;
}

void q4h_wg_describe_end(const q4h_wg_worker *w, int status, char *buf, size_t size)
{
    int n;
    if (WIFSIGNALED(status))
        n = snprintf(buf, size, "the WebGPU worker died of signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
    else
        n = snprintf(buf, size, "the WebGPU worker exited with status %d", WEXITSTATUS(status));
    /* the last non-empty line of its stderr says why, where it had time to say it */
    char tail[512];
    off_t end = lseek(w->log_fd, 0, SEEK_END);
    off_t from = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    ssize_t got = end > 0 ? pread(w->log_fd, tail, (size_t)(end - from), from) : 0;
    if (got <= 0 || n < 0 || (size_t)n >= size)
        return;
    tail[got] = '\0';
    while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == '\r'))
        tail[--got] = '\0';
    char *line = strrchr(tail, '\n');
    line = line ? line + 1 : tail;
    char shown[Q4_ECHO_MAX];
    if (*line)
        snprintf(buf + n, size - (size_t)n, "; its last words: %s", q4_echo(line, shown, sizeof shown));
}

/* Waits until fd is ready for `events`, the deadline passes or a stop signal comes. */
static q4h_wg_io wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        if (q4h_stop_signal())
            return Q4H_WG_STOPPED;
        double left = deadline - q4h_now_s();
        if (left <= 0)
            return Q4H_WG_LATE;
        struct pollfd p = { .fd = fd, .events = events };
        int r = q4h_stop_poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return Q4H_WG_GONE;
        if (r > 0)
            return Q4H_WG_OK;   /* ready, or hung up: the read or write says which */
    }
}

static q4h_wg_io write_all(q4h_wg_worker *w, const void *data, size_t n, double deadline)
{
    const char *p = data;
    while (n > 0) {
        q4h_wg_io io = wait_fd(w->to_fd, POLLOUT, deadline);
        if (io != Q4H_WG_OK)
            return io;
        ssize_t k = write(w->to_fd, p, n);
        if (k < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (k <= 0)
            return Q4H_WG_GONE;   /* EPIPE: SIGPIPE is ignored while a worker runs */
        p += k;
        n -= (size_t)k;
    }
    return Q4H_WG_OK;
}

static q4h_wg_io read_all(q4h_wg_worker *w, void *data, size_t n, double deadline)
{
    char *p = data;
    while (n > 0) {
        q4h_wg_io io = wait_fd(w->from_fd, POLLIN, deadline);
        if (io != Q4H_WG_OK)
            return io;
        ssize_t k = read(w->from_fd, p, n);
        if (k < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (k <= 0)
            return Q4H_WG_GONE;
        p += k;
        n -= (size_t)k;
    }
    return Q4H_WG_OK;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

q4h_wg_io q4h_wg_send(q4h_wg_worker *w, uint32_t type, const char *json,
                      const void *const *blobs, const uint64_t *lens, uint32_t n_blobs,
                      double deadline)
{
    uint8_t head[16];
    size_t json_len = strlen(json);
    put_u32(head, Q4H_WG_MAGIC);
    put_u32(head + 4, type);
    put_u32(head + 8, (uint32_t)json_len);
    put_u32(head + 12, n_blobs);
    q4h_wg_io io = write_all(w, head, sizeof head, deadline);
    if (io == Q4H_WG_OK)
        io = write_all(w, json, json_len, deadline);
    for (uint32_t i = 0; i < n_blobs && io == Q4H_WG_OK; i++) {
        uint8_t len[8];
        for (int b = 0; b < 8; b++)
            len[b] = (uint8_t)(lens[i] >> (8 * b));
        io = write_all(w, len, sizeof len, deadline);
        if (io == Q4H_WG_OK)
            io = write_all(w, blobs[i], (size_t)lens[i], deadline);
    }
    return io;
}

static q4h_wg_io read_pipe(q4h_wg_source *src, void *data, size_t n)
{
    return read_all(src->w, data, n, src->deadline);
}

q4h_wg_io q4h_wg_recv(q4h_wg_worker *w, q4h_wg_frame *f, uint64_t max_blob, double deadline,
                      char *why, size_t why_size)
{
    q4h_wg_source src = { .read = read_pipe, .w = w, .deadline = deadline };
    return q4h_wg_frame_read(&src, f, max_blob, why, why_size);
}
