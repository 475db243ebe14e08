/* child.c: q4h_in_child (child.h). */
#include "child.h"

#include "q4ref.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fd_io.h"
#include "stop.h"

static int worker_threads;

void q4h_threads_supervisor(void)
{
    worker_threads = q4ref_threads();
    q4ref_set_threads(1);
}

void q4h_threads_worker(void)
{
    if (worker_threads > 0)
        q4ref_set_threads(worker_threads);
}

/* Below this many element operations a case's inputs and truth take well under a
 * millisecond on one core, while each parallel region wakes every thread, and on a
 * loaded machine (ctest -j beside lavapipe's own threads) waits a time slice for each:
 * a tiny linear's truth took 168 ms on 2 threads against 19 ms on one. */
#define PARALLEL_MIN_WORK ((int64_t)1 << 20)

void q4h_threads_for_work(int64_t work)
{
    static pid_t owner;   /* the process whose count `full` is: a forked child takes its own */
    static int full;
    if (owner != getpid()) {
        owner = getpid();
        full = q4ref_threads();
    }
    q4ref_set_threads(work < PARALLEL_MIN_WORK ? 1 : full);
}

q4_status q4h_in_child(void (*fn)(void *user, void *out), void *user, void *out, size_t size,
                       double limit_s, q4_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return q4_fail(err, Q4_ERR_IO, "pipe failed: %s", strerror(errno));
    fflush(NULL);   /* or the child would print the parent's buffered output again */
    pid_t parent = getpid();   /* the child checks it is still this process's */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return q4_fail(err, Q4_ERR_IO, "fork failed: %s", strerror(errno));
    }
    if (pid == 0) {
        q4h_stop_child_of(parent);   /* dies with the parent; Ctrl-C is the parent's to handle */
        q4h_threads_worker();
        close(fds[0]);
        fn(user, out);
        if (!q4h_write_full(fds[1], out, size))
            _exit(3);   /* the parent is gone */
        exit(0);   /* exit, not _exit: coverage data is written at exit */
    }
    close(fds[1]);

    size_t got = 0;
    int timed_out = 0;
    const double began = q4h_now_s();
    while (got < size) {
        double left = limit_s - (q4h_now_s() - began);
        struct pollfd p = { .fd = fds[0], .events = POLLIN };
        int ready = left > 0 ? q4h_stop_poll(&p, 1, (int)(left * 1000) + 1) : 0;
        if (q4h_stop_signal()) {
            kill(pid, SIGKILL);
            break;
        }
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        ssize_t r = read(fds[0], (char *)out + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;   /* the child ended before sending it all */
        got += (size_t)r;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == size)
        return Q4_OK;
    if (q4h_stop_signal())
        return q4_fail(err, Q4_ERR_IO, "%s", q4h_stop_reason());
    if (timed_out)
        return q4_fail(err, Q4_ERR_TIMEOUT, "the worker ran past the %.0f s watchdog and was "
                       "killed", limit_s);
    if (WIFSIGNALED(status))
        return q4_fail(err, Q4_ERR_DEVICE, "the worker died of signal %d (%s)",
                       WTERMSIG(status), strsignal(WTERMSIG(status)));
    return q4_fail(err, Q4_ERR_DEVICE, "the worker exited with status %d before it sent "
                   "its result", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
