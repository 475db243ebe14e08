/* dump.h: saves a failing case's inputs, truth and GPU outputs as .npy files. */
#ifndef Q4H_DUMP_H
#define Q4H_DUMP_H

#include "op.h"

/* Writes DIR/<case name>/<tensor>.npy for every input, and <out>.value/.bound/.got
 * (or .code/.alt/.got) for every output. */
q4_status q4h_dump_case(const char *dir, const q4_case *c, const q4h_tensor *in, int n_in,
                        const q4h_outputs *out, q4_error *err);

#endif
