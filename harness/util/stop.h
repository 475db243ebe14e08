/* stop.h: SIGINT and SIGTERM for `run` and `perf`: the parent stops its worker,
 * finishes the reports marked incomplete, prints the summary and exits 128 + the
 * signal (130, 143); a worker dies with its parent. */
#ifndef Q4H_STOP_H
#define Q4H_STOP_H

#include <poll.h>
#include <sys/types.h>

/* Catches SIGINT and SIGTERM from here on: they only set a flag, and are held back
 * (blocked) except while q4h_stop_poll waits, so no report write is ever cut short. */
void q4h_stop_install(void);
/* The signal that asked the run to stop, or 0. */
int q4h_stop_signal(void);
/* "interrupted by SIGINT" (or SIGTERM), for the reports and the summary. */
const char *q4h_stop_reason(void);
/* poll(2) during which a held-back SIGINT or SIGTERM is delivered: -1 with errno EINTR
 * then (check q4h_stop_signal). */
int q4h_stop_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
/* In a child just forked from `parent` (its pid, taken before the fork): the signal
 * mask and handlers as before install, SIGINT ignored (Ctrl-C reaches the whole
 * process group; the parent decides), and the child killed when the parent dies, even
 * by SIGKILL (PR_SET_PDEATHSIG); it exits at once if the parent is already gone. The
 * pid is the caller's, not install's: replay forks without installing handlers, and
 * perf's task child forks a WebGPU worker of its own. */
void q4h_stop_child_of(pid_t parent);

#endif
