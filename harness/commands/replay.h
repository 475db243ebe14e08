/* replay.h: `q4cts replay DIR`: judges a dumped case (or every case of a --dump-dir)
 * again from its files, or with --rerun runs its dumped inputs on this machine's
 * device and judges that. */
#ifndef Q4H_REPLAY_H
#define Q4H_REPLAY_H

#include "cli.h"

/* Returns the exit status: 0 the case is ok, 1 it is not, 2 usage, a malformed dump
 * or a set-up error. */
int q4h_replay(const q4h_cli *cli);

#endif
