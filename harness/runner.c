/* runner.c: the supervisor. A worker process runs cases and streams fixed-size
 * messages over a pipe; the parent reports them, and replaces a worker that dies
 * or stalls (Crash / Timeout for the case it was on). */
#include "runner.h"

#include "plan.h"
#include "stop.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MSG_DEVICE, MSG_SETUP_ERROR, MSG_BEGIN, MSG_RESULT };

typedef struct msg {
    int type;
    size_t index;
    union {
        q4vk_device_info info;
        q4_error err;
        q4_result result;
    } u;
} msg;

_Static_assert(sizeof(msg) <= PIPE_BUF, "a message must be one atomic pipe write");

static void send_msg(int fd, const msg *m)
{
    /* A full pipe blocks; a write error means the parent is gone: stop quietly. */
    if (write(fd, m, sizeof *m) != (ssize_t)sizeof *m)
        _exit(3);
}

static void worker(const q4h_run_options *opt, const q4_case *cases, size_t n, size_t start,
                   int fd)
{
    q4vk_context *ctx = NULL;
    msg m = { 0 };
    q4_error err = { 0 };
    /* Before the first case: every override must be run by some selected case on
     * this device (a replacement worker finds the same). */
    if (q4h_open_device(opt, start > 0, &ctx, &err) != Q4_OK ||
        (start == 0 && q4h_overrides_check_used(opt, cases, n, q4vk_info(ctx), &err) != Q4_OK)) {
        m.type = MSG_SETUP_ERROR;
        m.u.err = err;
        send_msg(fd, &m);
        exit(0);
    }
    m.type = MSG_DEVICE;
    m.u.info = *q4vk_info(ctx);
    send_msg(fd, &m);
    for (size_t i = start; i < n; i++) {
        m = (msg){ .type = MSG_BEGIN, .index = i };
        send_msg(fd, &m);
        m.type = MSG_RESULT;
        q4h_run_case(opt, &ctx, &cases[i], &m.u.result);
        send_msg(fd, &m);
    }
    q4vk_destroy(ctx);
    exit(0); /* exit, not _exit: coverage data is written at exit */
}

/* Reads one whole message; 1 on success, 0 at end of stream. */
static int read_msg(int fd, msg *m)
{
    size_t got = 0;
    while (got < sizeof *m) {
        ssize_t k = read(fd, (char *)m + got, sizeof *m - got);
        if (k == 0)
            return 0;
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return 0;
        got += (size_t)k;
    }
    return 1;
}

/* "died of signal 11 (Segmentation fault)" or "exited with status 3". */
static void how_it_ended(int status, char *buf, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "died of signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, size, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void lost_case(const q4h_run_options *opt, const q4_case *c, q4_verdict v,
                      const char *why, double seconds, const q4h_sink *sink)
{
    q4_result r;
    q4h_result_start(opt, c, &r);
    snprintf(r.message, sizeof r.message, "%.500s", why);
    r.verdict = v;
    r.seconds = seconds;
    sink->result(sink->user, &r);
}

q4_status q4h_run_cases(const q4h_run_options *opt, const q4_case *cases, size_t n,
                        const q4h_sink *sink, q4_error *err)
{
    size_t start = 0;
    int have_device = 0;
    double limit = opt->watchdog_s > 0 ? opt->watchdog_s : 600;

    while (start < n) {
        int fds[2];
        if (pipe(fds) != 0)
            return q4_fail(err, Q4_ERR_IO, "pipe failed: %s", strerror(errno));
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
            return q4_fail(err, Q4_ERR_IO, "fork failed: %s", strerror(errno));
        if (pid == 0) {
            q4h_stop_child();   /* dies with the parent; Ctrl-C is the parent's to handle */
            close(fds[0]);
            worker(opt, cases, n, start, fds[1]);
        }
        close(fds[1]);

        long current = -1;
        double began = 0;
        msg m;
        q4_status st = Q4_OK;
        for (;;) {
            struct pollfd p = { .fd = fds[0], .events = POLLIN };
            double left = current >= 0 ? limit - (q4h_now_s() - began) : limit * 10;
            int ready = q4h_stop_poll(&p, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
            if (q4h_stop_signal()) {
                /* SIGINT or SIGTERM: the case in progress gets no verdict; the caller
                 * finishes the reports as stopped. */
                kill(pid, SIGKILL);
                start = n;
                break;
            }
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready == 0 && current >= 0) {
                kill(pid, SIGKILL);
                char why[160];
                snprintf(why, sizeof why, "the case ran past the %.0f s watchdog; its worker "
                         "was killed", limit);
                lost_case(opt, &cases[current], Q4_TIMEOUT, why, q4h_now_s() - began, sink);
                start = (size_t)current + 1;
                break;
            }
            if (ready == 0)
                continue;
            if (!read_msg(fds[0], &m)) {
                int status = 0;
                waitpid(pid, &status, 0);
                pid = 0;
                char how[120], why[400];
                how_it_ended(status, how, sizeof how);
                if (current >= 0) {
                    snprintf(why, sizeof why, "the worker %s during the case", how);
                    lost_case(opt, &cases[current], Q4_CRASH, why, q4h_now_s() - began, sink);
                    start = (size_t)current + 1;
                } else if (!have_device) {
                    st = q4_fail(err, Q4_ERR_DEVICE, "the worker process ended before it "
                                 "opened a device");
                } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    /* Every case it ran has its result, but a crash at teardown (a driver
                     * failing in vkDestroyDevice) or between cases is a defect too. */
                    if (start >= n)
                        snprintf(why, sizeof why, "the worker %s after the last case, releasing "
                                 "the device", how);
                    else
                        snprintf(why, sizeof why, "the worker %s between cases, before %s", how,
                                 cases[start].name);
                    if (sink->problem)
                        sink->problem(sink->user, why);
                }
                break;
            }
            if (m.type == MSG_SETUP_ERROR && have_device) {
                /* A replacement worker could not reopen the device: the rest cannot run. */
                char why[Q4_MSG_MAX + 64];
                snprintf(why, sizeof why, "the device could not be reopened: %s", m.u.err.msg);
                for (size_t i = start; i < n; i++)
                    lost_case(opt, &cases[i], Q4_INTERNAL_ERROR, why, 0, sink);
                start = n;
                break;
            } else if (m.type == MSG_SETUP_ERROR) {
                if (err)
                    *err = m.u.err;
                st = m.u.err.status ? m.u.err.status : Q4_ERR_DEVICE;
            } else if (m.type == MSG_DEVICE && !have_device) {
                have_device = 1;
                if (sink->device)
                    st = sink->device(sink->user, &m.u.info, err);
            } else if (m.type == MSG_BEGIN) {
                current = (long)m.index;
                began = q4h_now_s();
                if (sink->begin)
                    sink->begin(sink->user, &cases[current]);
            } else if (m.type == MSG_RESULT) {
                sink->result(sink->user, &m.u.result);
                current = -1;
                start = m.index + 1;
            }
            if (st != Q4_OK)
                break;
        }
        close(fds[0]);
        if (pid > 0) {
            if (st != Q4_OK)
                kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        if (st != Q4_OK)
            return st;
    }
    return Q4_OK;
}
