/* runner.c: the supervisor. Worker processes (one per --jobs lane, each on its device)
 * run the cases the parent hands them over a pipe, one at a time, and stream
 * fixed-size messages back; the parent reports them, and replaces a worker that dies
 * or stalls (Crash / Timeout for the case it was on).
 *
 * Each result reaches the sink as soon as its case is done (finished: the file
 * reports, which place it by its case's index, so a run killed at any moment keeps
 * every case that finished), and again in the order of the cases whatever the number
 * of workers (result: the console), so a parallel run reads as a serial run's. A case that is not ok is run
 * again (--flake-retries) by the same worker right away, so that a worker's history
 * (an injected fault's count) is the same for any number of workers; one that passes
 * on a retry is a Flake. */
#include "runner.h"

#include "backend.h"
#include "child.h"
#include "clock.h"
#include "fd_io.h"
#include "plan.h"
#include "run_case.h"
#include "stop.h"
#include "verdict.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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
    if (!q4h_write_full(fd, m, sizeof *m))
        _exit(3);
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

/* The worker: opens its device, then runs each case index the parent sends until
 * the parent closes the pipe. The first worker of each lane makes the run's checks on
 * its device (backend.h: every override run by some selected case, say). */
static void worker(const q4h_run_options *lane_opt, const q4_case *cases, size_t n, bool reopen,
                   int in, int out)
{
    q4h_run_options opt = *lane_opt;
    char repro[Q4_REPRO_FLAGS_MAX + 300];   /* and the device (q4_result.repro has room) */
    q4h_backend b;
    msg m = { 0 };
    q4_error err = { 0 };
    if (opt.n_devices > 0) {   /* --devices: the repro line names the device it ran on */
        snprintf(repro, sizeof repro, "%s --device '%s'",
                 opt.repro_flags ? opt.repro_flags : "", opt.vk.device);
        opt.repro_flags = repro;
    }
    if (q4h_backend_open(&b, &opt, reopen, &err) != Q4_OK ||
        (!reopen && b.i->check(&b, cases, n, &err) != Q4_OK)) {
        m.type = MSG_SETUP_ERROR;
        m.u.err = err;
        send_msg(out, &m);
        q4h_backend_close(&b);
        exit(0);
    }
    m.type = MSG_DEVICE;
    m.u.info = *b.i->info(&b);
    send_msg(out, &m);
    size_t i;
    while (q4h_read_full(in, &i, sizeof i) && i < n) {
        m = (msg){ .type = MSG_BEGIN, .index = i };
        send_msg(out, &m);
        m.type = MSG_RESULT;
        q4h_run_case(&b, &cases[i], &m.u.result);
        send_msg(out, &m);
    }
    q4h_backend_close(&b);
    exit(0); /* exit, not _exit: coverage data is written at exit */
}

/* ---- the parent ---- */

typedef struct lane {
    q4h_run_options opt;   /* the run's, with this lane's device */
    pid_t pid;             /* 0: no worker now */
    int to, from;          /* the worker's pipes; -1 when closed */
    long current;          /* the case it runs, -1 idle */
    long retry;            /* a case its next worker runs again first (its last one died on
                              it), -1 none */
    double began;
    int workers;           /* workers started so far: a later one reopens the device */
    bool has_device;       /* it sent MSG_DEVICE */
    bool dead;             /* its device could not be reopened: it takes no more cases */
} lane;

typedef struct run {
    const q4h_run_options *opt;
    const q4_case *cases;
    size_t n;
    const q4h_sink *sink;
    lane *lanes;
    int n_lanes;
    size_t next;           /* the next case no lane has had */
    q4_result *first_fail; /* per case: its first try that was not ok */
    q4_result *final;      /* per case: the verdict that counts, once done[i] */
    int *tries;
    unsigned char *done;
    size_t emitted;        /* cases handed to the sink, in order */
    int have_device;
    int reported_devices;  /* lanes whose device the sink has seen */
} run;

/* A try of case i ended with r: a verdict that counts now, or (not ok, tries left,
 * may_retry) the same case again. Returns 1 when the case is to run again. */
static int try_done(run *R, size_t i, const q4_result *r, bool may_retry)
{
    int ok = q4_verdict_ok(r->verdict, R->opt->strict);
    R->tries[i]++;
    if (!ok && R->tries[i] == 1)
        R->first_fail[i] = *r;
    if (!ok && may_retry && R->tries[i] <= R->opt->flake_retries)
        return 1;
    q4_result *f = &R->final[i];
    if (R->tries[i] == 1) {
        *f = *r;
    } else if (ok) {
        /* Passed on a retry: a Flake, with the figures and message of the try that
         * failed (where it went wrong), and the try that passed said. */
        const q4_result *bad = &R->first_fail[i];
        *f = *bad;
        f->verdict = Q4_FLAKE;
        f->seconds = r->seconds;
        snprintf(f->message, sizeof f->message, "passed on try %d of %d; try 1 was %s: %.400s",
                 R->tries[i], R->opt->flake_retries + 1, q4_verdict_name(bad->verdict),
                 bad->message);
    } else {
        /* Failed every try: the first failure counts. */
        *f = R->first_fail[i];
        size_t len = strlen(f->message);
        snprintf(f->message + len, sizeof f->message - len, "%s(failed all %d tries)",
                 len ? " " : "", R->tries[i]);
    }
    f->tries = R->tries[i];
    R->done[i] = 1;
    if (R->sink->finished)
        R->sink->finished(R->sink->user, i, f);
    while (R->emitted < R->n && R->done[R->emitted])
        R->sink->result(R->sink->user, &R->final[R->emitted++]);
    return 0;
}

/* A try that ended without a result from the worker: it died or stalled (may_retry),
 * or no device is left to run it. */
static int try_lost(run *R, size_t i, q4_verdict v, const char *why, double seconds,
                    bool may_retry)
{
    q4_result r;
    q4h_result_start(R->opt, &R->cases[i], &r);
    snprintf(r.message, sizeof r.message, "%.500s", why);
    r.verdict = v;
    r.seconds = seconds;
    return try_done(R, i, &r, may_retry);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Starts lane L's next worker. */
static q4_status start_worker(run *R, lane *L, q4_error *err)
{
    int down[2], up[2];
    if (pipe(down) != 0)
        return q4_fail(err, Q4_ERR_IO, "pipe failed: %s", strerror(errno));
    if (pipe(up) != 0) {
        close(down[0]);
        close(down[1]);
        return q4_fail(err, Q4_ERR_IO, "pipe failed: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t parent = getpid();   /* the child checks it is still this process's */
    pid_t pid = fork();
    if (pid < 0) {
        close(down[0]); close(down[1]); close(up[0]); close(up[1]);
        return q4_fail(err, Q4_ERR_IO, "fork failed: %s", strerror(errno));
    }
    if (pid == 0) {
        q4h_stop_child_of(parent);   /* dies with the parent; Ctrl-C is the parent's to handle */
        q4h_threads_worker();
        close(down[1]);
        close(up[0]);
        for (int k = 0; k < R->n_lanes; k++) {   /* the other lanes' pipes are not ours */
            close_fd(&R->lanes[k].to);
            close_fd(&R->lanes[k].from);
        }
        worker(&L->opt, R->cases, R->n, L->workers > 0, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    L->pid = pid;
    L->to = down[1];
    L->from = up[0];
    L->current = -1;
    L->has_device = false;
    L->workers++;
    return Q4_OK;
}

/* Ends lane L's worker (killed when it is still busy) and reaps it. */
static void stop_worker(lane *L, bool kill_it)
{
    close_fd(&L->to);
    close_fd(&L->from);
    if (L->pid > 0) {
        if (kill_it)
            kill(L->pid, SIGKILL);
        while (waitpid(L->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    L->pid = 0;
    L->current = -1;
}

/* Hands case i to lane L's worker. */
static void hand(lane *L, size_t i)
{
    /* A worker that died meanwhile shows as an end of stream on its pipe, handled
     * there; the SIGPIPE of this write to it must not end q4cts: it is held back and
     * taken off. */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigprocmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w = write(L->to, &i, sizeof i);
    if (w < 0 && errno == EPIPE) {
        struct timespec now = { 0, 0 };
        sigtimedwait(&pipe_set, NULL, &now);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (w != (ssize_t)sizeof i)
        close_fd(&L->to);
    L->current = (long)i;
    L->began = q4h_now_s();
}

/* An idle lane with a device gets the case to retry, else the next case, or its pipe
 * closed when none is left. */
static void feed(run *R, lane *L)
{
    if (L->pid <= 0 || !L->has_device || L->current >= 0 || L->to < 0)
        return;
    if (L->retry >= 0) {
        hand(L, (size_t)L->retry);
        L->retry = -1;
    } else if (R->next < R->n)
        hand(L, R->next++);
    else
        close_fd(&L->to);   /* the worker finishes and exits */
}

/* Lane L's worker is gone (it died: Crash, or was killed past the watchdog: Timeout)
 * while on case `current` (-1: none); the lane's next worker retries it if tries are
 * left. */
static void case_lost(run *R, lane *L, long current, q4_verdict v, const char *why)
{
    if (current >= 0 && try_lost(R, (size_t)current, v, why, q4h_now_s() - L->began, true))
        L->retry = current;
}

/* Every case not yet run gets `why`: no lane can run it. */
static void abandon_rest(run *R, const char *why)
{
    for (int k = 0; k < R->n_lanes; k++)
        if (R->lanes[k].retry >= 0) {
            size_t i = (size_t)R->lanes[k].retry;
            R->lanes[k].retry = -1;
            try_lost(R, i, Q4_INTERNAL_ERROR, why, 0, false);
        }
    while (R->next < R->n)
        try_lost(R, R->next++, Q4_INTERNAL_ERROR, why, 0, false);
}

/* One message from lane L's worker. */
static q4_status on_message(run *R, lane *L, int index, const msg *m, q4_error *err)
{
    if (m->type == MSG_SETUP_ERROR && L->workers == 1) {
        if (err)
            *err = m->u.err;
        return m->u.err.status ? m->u.err.status : Q4_ERR_DEVICE;
    }
    if (m->type == MSG_SETUP_ERROR) {
        /* A replacement worker could not reopen the device: this lane is done. */
        char why[Q4_MSG_MAX + 64];
        snprintf(why, sizeof why, "the device could not be reopened: %s", m->u.err.msg);
        L->dead = true;
        stop_worker(L, true);
        if (L->retry >= 0)
            try_lost(R, (size_t)L->retry, Q4_INTERNAL_ERROR, why, 0, false);
        L->retry = -1;
        int alive = 0;
        for (int k = 0; k < R->n_lanes; k++)
            alive += !R->lanes[k].dead;
        if (!alive)
            abandon_rest(R, why);
        return Q4_OK;
    }
    if (m->type == MSG_DEVICE) {
        L->has_device = true;
        q4_status st = Q4_OK;
        if (L->workers == 1 && R->sink->device)
            st = R->sink->device(R->sink->user, index, &m->u.info, err);
        R->have_device = 1;
        return st;
    }
    if (m->type == MSG_BEGIN) {
        L->began = q4h_now_s();
        if (R->sink->begin)
            R->sink->begin(R->sink->user, &R->cases[m->index]);
        return Q4_OK;
    }
    if (m->type == MSG_RESULT && L->current >= 0 && m->index == (size_t)L->current) {
        size_t i = m->index;
        L->current = -1;
        if (try_done(R, i, &m->u.result, true))
            hand(L, i);   /* again, at once, on the same worker */
    }
    return Q4_OK;
}

/* Case i's watchdog: the run's, which is one op's (its submissions and its reference),
 * times the op cases a training case runs (each step's ops, every step): each has a
 * single-op case's work (plan.h, q4h_train_op_cases). A real model's step judged on a
 * 16-core host took 112-276 s of reference work, past one op's 300 s at V = 128256. */
static double case_limit(const run *R, long i, double limit)
{
    const q4_case *c = &R->cases[i];
    if (!q4_case_is_train(c))
        return limit;
    q4_case oc[Q4H_TRAIN_OP_CASES];
    return limit * (double)q4h_train_op_cases(c, oc, Q4H_TRAIN_OP_CASES) * (double)c->step;
}

static q4_status supervise(run *R, q4_error *err)
{
    const double limit = R->opt->watchdog_s > 0 ? R->opt->watchdog_s : 600;
    struct pollfd *p = calloc((size_t)R->n_lanes, sizeof *p);
    int *which = calloc((size_t)R->n_lanes, sizeof *which);
    q4_status st = Q4_OK;
    if (!p || !which)
        st = q4_fail(err, Q4_ERR_NOMEM, "out of memory starting the workers");
    for (int k = 0; k < R->n_lanes && st == Q4_OK; k++)
        st = start_worker(R, &R->lanes[k], err);
    while (st == Q4_OK && R->emitted < R->n) {
        int np = 0;
        double wait = limit * 10;
        for (int k = 0; k < R->n_lanes; k++) {
            lane *L = &R->lanes[k];
            if (L->dead)
                continue;
            if (L->pid <= 0 && (L->retry >= 0 || R->next < R->n) &&
                (st = start_worker(R, L, err)) != Q4_OK)
                break;
            feed(R, L);
            if (L->pid <= 0)
                continue;
            if (L->current >= 0) {
                double left = case_limit(R, L->current, limit) - (q4h_now_s() - L->began);
                wait = left < wait ? left : wait;
            }
            p[np] = (struct pollfd){ .fd = L->from, .events = POLLIN };
            which[np++] = k;
        }
        if (st != Q4_OK)
            break;
        if (np == 0)   /* nothing runs and cases are left: every lane's device is gone */
            break;
        int ready = q4h_stop_poll(p, (nfds_t)np, wait > 0 ? (int)(wait * 1000) + 1 : 0);
        if (q4h_stop_signal())
            break;     /* SIGINT or SIGTERM: the cases in progress get no verdict */
        if (ready < 0 && errno == EINTR)
            continue;
        for (int x = 0; x < np && st == Q4_OK; x++) {
            lane *L = &R->lanes[which[x]];
            if (L->pid <= 0)
                continue;
            if (!p[x].revents) {
                if (L->current >= 0 &&
                    q4h_now_s() - L->began >= case_limit(R, L->current, limit)) {
                    char why[160];
                    snprintf(why, sizeof why, "the case ran past the %.0f s watchdog; its worker "
                             "was killed", case_limit(R, L->current, limit));
                    long current = L->current;
                    stop_worker(L, true);
                    case_lost(R, L, current, Q4_TIMEOUT, why);
                }
                continue;
            }
            msg m;
            if (q4h_read_full(L->from, &m, sizeof m)) {
                st = on_message(R, L, which[x], &m, err);
                continue;
            }
            /* End of stream: the worker exited or died. */
            int status = 0;
            long current = L->current;
            close_fd(&L->to);
            close_fd(&L->from);
            while (waitpid(L->pid, &status, 0) < 0 && errno == EINTR)
                ;
            L->pid = 0;
            if (!L->has_device && !R->have_device && L->workers == 1) {
                st = q4_fail(err, Q4_ERR_DEVICE, "the worker process ended before it opened a "
                             "device");
                break;
            }
            char how[120], why[400];
            how_it_ended(status, how, sizeof how);
            if (current >= 0) {
                snprintf(why, sizeof why, "the worker %s during the case", how);
                L->current = -1;
                case_lost(R, L, current, Q4_CRASH, why);
            } else if (L->has_device && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
                /* Every case it ran has its result, but a crash at teardown (a driver
                 * failing in vkDestroyDevice) or between cases is a defect too. */
                if (R->next >= R->n && L->retry < 0)
                    snprintf(why, sizeof why, "the worker %s after the last case, releasing "
                             "the device", how);
                else
                    snprintf(why, sizeof why, "the worker %s between cases, before %s", how,
                             R->cases[L->retry >= 0 ? (size_t)L->retry : R->next].name);
                if (R->sink->problem)
                    R->sink->problem(R->sink->user, why);
            }
        }
    }
    /* Every case has its result: each worker, its pipe closed, releases its device and
     * exits; one that dies doing so (a driver failing in vkDestroyDevice) is a defect
     * too, said as a problem. One that takes past the watchdog is killed. */
    for (int k = 0; st == Q4_OK && !q4h_stop_signal() && k < R->n_lanes; k++) {
        lane *L = &R->lanes[k];
        if (L->pid <= 0)
            continue;
        close_fd(&L->to);
        msg m;
        struct pollfd one = { .fd = L->from, .events = POLLIN };
        double began = q4h_now_s();
        int ended = 0;   /* its end of stream came: it exited or died by itself */
        while (!ended && q4h_now_s() - began < limit) {
            int ready = q4h_stop_poll(&one, 1, (int)(1000 * (limit - (q4h_now_s() - began))) + 1);
            if (q4h_stop_signal())
                break;   /* stopped meanwhile: the worker is killed */
            if (ready > 0 && !q4h_read_full(L->from, &m, sizeof m))
                ended = 1;
            else if (ready < 0 && errno != EINTR)
                break;
        }
        int status = 0;
        close_fd(&L->from);
        if (!ended)
            kill(L->pid, SIGKILL);
        while (waitpid(L->pid, &status, 0) < 0 && errno == EINTR)
            ;
        L->pid = 0;
        if (L->has_device && (!WIFEXITED(status) || WEXITSTATUS(status) != 0) &&
            R->sink->problem) {
            char how[120], why[300];
            how_it_ended(status, how, sizeof how);
            snprintf(why, sizeof why, "the worker %s after the last case, releasing the device",
                     how);
            R->sink->problem(R->sink->user, why);
        }
    }
    for (int k = 0; k < R->n_lanes; k++)
        stop_worker(&R->lanes[k], true);
    /* Stopped (a signal): the cases other workers finished after one still running
     * are reported all the same (the file reports have them already); only those in
     * progress get no verdict. */
    for (size_t i = R->emitted; st == Q4_OK && i < R->n; i++)
        if (R->done[i])
            R->sink->result(R->sink->user, &R->final[i]);
    free(p);
    free(which);
    return st;
}

q4_status q4h_run_cases(const q4h_run_options *opt, const q4_case *cases, size_t n,
                        const q4h_sink *sink, q4_error *err)
{
    int jobs = opt->jobs > 0 ? opt->jobs : 1;
    if ((size_t)jobs > n)
        jobs = n ? (int)n : 1;
    run R = { .opt = opt, .cases = cases, .n = n, .sink = sink, .n_lanes = jobs };
    R.lanes = calloc((size_t)jobs, sizeof *R.lanes);
    R.first_fail = malloc((n ? n : 1) * sizeof *R.first_fail);
    R.final = malloc((n ? n : 1) * sizeof *R.final);
    R.tries = calloc(n ? n : 1, sizeof *R.tries);
    R.done = calloc(n ? n : 1, 1);
    q4_status st = Q4_OK;
    if (!R.lanes || !R.first_fail || !R.final || !R.tries || !R.done)
        st = q4_fail(err, Q4_ERR_NOMEM, "out of memory for the results of %zu cases", n);
    for (int k = 0; st == Q4_OK && k < jobs; k++) {
        lane *L = &R.lanes[k];
        *L = (lane){ .opt = *opt, .to = -1, .from = -1, .current = -1, .retry = -1 };
        if (opt->n_devices > 0)   /* workers go round the devices: 0, 1, ..., 0, 1, ... */
            L->opt.vk.device = opt->devices[k % opt->n_devices];
    }
    if (st == Q4_OK)
        st = supervise(&R, err);
    free(R.lanes);
    free(R.first_fail);
    free(R.final);
    free(R.tries);
    free(R.done);
    return st;
}
