/* clock.h: the harness's one clock: monotonic seconds, for case times, watchdogs and
 * the deadlines of every wait on a worker. */
#ifndef Q4H_CLOCK_H
#define Q4H_CLOCK_H

/* Monotonic seconds since an arbitrary start. */
double q4h_now_s(void);

#endif
