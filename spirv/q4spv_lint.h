/* q4spv_lint.h: static checks of a compute module for what portable Vulkan drivers
 * are allowed to compute differently (Vulkan spec, "Precision and Operation of
 * SPIR-V Instructions"), so that a kernel passing on one driver cannot hide a result
 * another driver may legally change. Checks (docs/kernels.md gives the reasons):
 *  - relaxed:  arithmetic decorated RelaxedPrecision (GLSL mediump), or on 16-bit
 *              floats, whose value reaches a store to a buffer or image, or decides a
 *              branch, switch or loop exit whose ways differ in such a store or in
 *              what they leave in locals and merged values that reach one (implicit
 *              flow): a driver may evaluate it in fp16 (lavapipe ignores the
 *              decoration, others do not).
 *  - round:    GLSL.std.450 Round: the direction of a .5 tie is the driver's choice;
 *              SPEC §2 requires roundEven.
 *  - fmod:     OpFMod / OpFRem on floats: no precision of their own (inherited from
 *              x - y * floor(x / y) with a 2.5-ULP division), so near a multiple of
 *              y two drivers may differ by a whole y.
 *  - fma:      Fma(a, b, -(a * b)), the error term of a product: Fma's precision is
 *              inherited from OpFMul and OpFAdd, a driver need not fuse it, and then
 *              the term is 0. */
#ifndef Q4SPV_LINT_H
#define Q4SPV_LINT_H

#include <stddef.h>

#include "q4spv_module.h"

#define Q4SPV_LINT_MAX 8

typedef struct q4spv_finding {
    const char *check;       /* "relaxed", "round", "fmod", "fma" */
    uint32_t id;             /* the offending instruction's result id */
    char msg[256];           /* one sentence, with the source line when OpLine gives it */
} q4spv_finding;

typedef struct q4spv_lint_report {
    int n;                   /* findings kept (at most Q4SPV_LINT_MAX) */
    int total;               /* findings seen */
    q4spv_finding f[Q4SPV_LINT_MAX];
} q4spv_lint_report;

/* Runs every check on m (parsed; validated modules give the most precise answers).
 * Q4_ERR_NOMEM only. */
q4_status q4spv_lint(const q4spv_module *m, q4spv_lint_report *out, q4_error *err);

/* The findings as one text: "check: sentence; check: sentence (and N more)". */
void q4spv_lint_text(const q4spv_lint_report *r, char *buf, size_t size);

#endif
