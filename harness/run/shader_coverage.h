/* shader_coverage.h: --shader-coverage, --bounds-check and --race-check for one run: the probes the
 * worker's context gets, the record of what ran (shared with the workers, so a crashed
 * worker loses nothing already recorded), the lcov file and per-kernel figures. */
#ifndef Q4H_SHADER_COVERAGE_H
#define Q4H_SHADER_COVERAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "q4report.h"
#include "q4spv_lcov.h"
#include "run_options.h"

typedef struct q4h_shcov q4h_shcov;

typedef struct q4h_shcov_kernel {
    const char *name;
    bool overridden;
    const char *origin;               /* an --interface step's "interface kernel F:S", or NULL */
    bool has_lines;                   /* its code has OpLine (else: blocks only) */
    q4spv_cov_figures f;
} q4h_shcov_kernel;

/* In the parent, before any worker: probes every built-in kernel and each override
 * the same way the workers' contexts will, to know their maps. */
q4_status q4h_shcov_create(const q4h_override *ov, int n_ov, bool coverage, bool bounds,
                           bool race, q4h_shcov **out, q4_error *err);
/* The probes for q4vk_options: coverage, bounds and races as asked, the recording hook. */
q4vk_probes q4h_shcov_probes(q4h_shcov *c);
/* The kernels that ran, in table order, into out[0 .. max); returns their number. */
int q4h_shcov_kernels(const q4h_shcov *c, q4h_shcov_kernel *out, int max);
/* The same kernels as the reports carry them (names point into c), into out[0 .. max). */
int q4h_shcov_report(const q4h_shcov *c, q4_kernel_coverage *out, int max);
/* Writes the lcov tracefile; Q4_ERR_IO naming the path on failure. */
q4_status q4h_shcov_write(const q4h_shcov *c, const char *path, q4_error *err);
/* One line per kernel that ran, and a total, to f. */
void q4h_shcov_print(const q4h_shcov *c, FILE *f);
void q4h_shcov_free(q4h_shcov *c);

#endif
