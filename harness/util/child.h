/* child.h: runs one task in a child process, so that a crash, a hang or state the
 * driver keeps (allocations, caches) stays with that task. Perf mode times each case
 * this way; `run` has its own long-lived worker (runner.c). */
#ifndef Q4H_CHILD_H
#define Q4H_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

/* Runs fn(user, out) in a child process and copies the child's `size`-byte `out` back.
 * Q4_OK when the child sent it whole; otherwise an error that says how the child
 * ended (a signal, an exit status) or that it ran past limit_s seconds, after which
 * it was killed. */
q4_status q4h_in_child(void (*fn)(void *user, void *out), void *user, void *out, size_t size,
                       double limit_s, q4_error *err);

/* OpenMP after fork: libgomp cannot start threads in a child whose parent had its own
 * (the child hangs at its first parallel loop). So a process that forks workers does
 * no parallel work itself: q4h_threads_supervisor() (in main, before any work) keeps
 * it at one thread and remembers the count the user asked for (OMP_NUM_THREADS, else
 * every core), and q4h_threads_worker() gives that count back in each forked child. */
void q4h_threads_supervisor(void);
void q4h_threads_worker(void);
/* Before a case's inputs and truth: one thread for a small case (fewer than 2^20
 * element operations), else the count this process started with; results are the
 * same either way (reference/q4ref_threads.c). */
void q4h_threads_for_work(int64_t work);

#endif
