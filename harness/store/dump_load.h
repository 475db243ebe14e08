/* dump_load.h: reading a dumped case back (docs/dumps.md): case.json and the arrays,
 * every file checked against case.json and the op. For `q4cts replay` and `q4cts
 * report`. A dump is untrusted input: every problem is one sentence, never a crash. */
#ifndef Q4H_DUMP_LOAD_H
#define Q4H_DUMP_LOAD_H

#include "case_json.h"
#include "op.h"

/* Reads and parses DIR/case.json into *m. Q4_ERR_IO when it cannot be read (the
 * message says what replay takes), Q4_ERR_ARG when it is malformed. */
q4_status q4h_dump_read_meta(const char *dir, q4h_dump_meta *m, q4_error *err);
/* Reads DIR/<name>[.part].npy into dst, which holds exactly the array case.json and
 * the op expect: its dtype and shape must match. */
q4_status q4h_dump_load_array(const char *dir, const char *name, const char *part,
                              const char *descr, int ndim, const int64_t *shape, void *dst,
                              q4_error *err);
/* The outputs as dumped into *out (allocated; free with q4h_outputs_free): truth,
 * bounds, GPU results, envelopes and the guard/padding findings. The outputs are the
 * case's (its name and seed say which, and their shapes): case.json must list exactly
 * those, in the case's shapes, before any memory is taken for them (the case's truth
 * is computed from its generated inputs to know them). Q4_ERR_ARG when it does not, or
 * when an output has no GPU result (a case that crashed before the read-back). */
q4_status q4h_dump_load_outputs(const char *dir, const q4h_dump_meta *m, q4h_outputs *out,
                                q4_error *err);

#endif
