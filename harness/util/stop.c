/* stop.c: SIGINT and SIGTERM (stop.h). Without this, Ctrl-C killed the parent
 * mid-run: no summary, reports that read as a complete run of fewer cases, and a
 * worker left running up to its watchdog. */
#define _GNU_SOURCE
#include "stop.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;
static sigset_t before_mask;      /* the mask at install: what children get back */
static int installed;

static void on_signal(int sig)
{
    if (!stop_sig)
        stop_sig = sig;
}

void q4h_stop_install(void)
{
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;   /* no SA_RESTART: the wait returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &before_mask);
    installed = 1;
}

int q4h_stop_signal(void)
{
    return stop_sig;
}

const char *q4h_stop_reason(void)
{
    return stop_sig == SIGINT ? "interrupted by SIGINT"
         : stop_sig == SIGTERM ? "interrupted by SIGTERM" : "";
}

int q4h_stop_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    if (!installed)
        return poll(fds, n, timeout_ms);
    if (stop_sig) {   /* already asked: do not wait */
        errno = EINTR;
        return -1;
    }
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
    sigset_t open = before_mask;
    sigdelset(&open, SIGINT);
    sigdelset(&open, SIGTERM);
    return ppoll(fds, n, timeout_ms < 0 ? NULL : &ts, &open);
}

void q4h_stop_child_of(pid_t parent)
{
    if (!installed) {
        /* no handlers to undo; still die with the parent */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(3);
        return;
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &before_mask, NULL);
    /* SIGKILL, not SIGTERM: the worker may sit in a driver call for minutes. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)   /* the parent died before the prctl */
        _exit(3);
}
