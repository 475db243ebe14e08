/* dump.h: saves one case as a folder someone else can judge and rerun: case.json
 * (what the case was, where it ran, how it was judged) and one .npy per array. */
#ifndef Q4H_DUMP_H
#define Q4H_DUMP_H

#include <stdbool.h>

#include "case_json.h"
#include "op.h"
#include "run_options.h"

/* What one dump holds besides the arrays. */
typedef struct q4h_dump_source {
    const q4h_run_options *opt;        /* strict, the replaced kernels */
    const q4vk_device_info *device;    /* NULL when unknown */
    const q4_result *result;           /* the case's verdict and margins */
    bool have_got;                     /* the outputs hold the GPU's results */
} q4h_dump_source;

/* Writes DIR/<case name>/: <input>.npy for every input, <out>.value/.bound/.got.npy
 * (or .code/.alt/.got.npy) for every output, <out>.raw.npy for packed outputs as
 * the GPU wrote them, and case.json last (docs/dumps.md). */
q4_status q4h_dump_case(const char *dir, const q4_case *c, const q4_inputs *in,
                        const q4h_tensor *t, int n_in, const q4h_outputs *out,
                        const q4h_dump_source *src, q4_error *err);

/* The .npy shape of rows x cols elements shaped `kind` in case c; returns its
 * number of dimensions (an activation has the case's leading dims as rows). */
int q4h_dump_shape(const q4_case *c, q4h_shape kind, int64_t rows, int64_t cols,
                   int64_t shape[Q4H_NPY_MAX_DIMS]);
/* The .npy dtype of a tensor's dtype ('f', 'i', 'u', 'b'). */
const char *q4h_dump_descr(char dtype);
/* The op parameters of c and in that case.json records (shape and scalar inputs). */
void q4h_dump_params(const q4_case *c, const q4_inputs *in, q4h_dump_meta *m);
/* Sets the scalar inputs of in (n_valid, lr, ...) from m's params: a replay runs
 * with the values the dump says, which a user may have edited. Q4_ERR_ARG when a
 * parameter of the op is missing. */
q4_status q4h_dump_params_apply(const q4h_dump_meta *m, const q4_case *c, q4_inputs *in,
                                q4_error *err);

#endif
