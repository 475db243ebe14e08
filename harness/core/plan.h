/* plan.h: the built-in kernels a case runs on a device (its op's launcher plan), and
 * what q4cts does with them before and after a case: refuse a --kernel override that
 * no selected case runs, and turn static-check findings (spirv/q4spv_lint.h) of the
 * modules a case runs into that case's verdict. */
#ifndef Q4H_PLAN_H
#define Q4H_PLAN_H

#include "op.h"
#include "q4case.h"
#include "q4vk.h"
#include "run_options.h"

/* The device limits case c lowers for itself (family small_device; all 0: none). */
q4vk_test_limits q4h_case_limits(const q4_case *c);
/* Sets them on ctx for the case's runs (over the context's own lowering, if any);
 * a case without limits gets the context's own back. */
q4_status q4h_apply_case_limits(q4vk_context *ctx, const q4_case *c, q4_error *err);

/* The kernels c dispatches on a device with `info` (every kernel of its op when the
 * op has no plan), with c's own limits lowered on it. */
void q4h_case_plan(const q4_case *c, const q4vk_device_info *info, q4vk_plan *p);

/* A training step's ops in the order it runs them, which is also the order of the
 * trace's op columns (reports/q4report.h, Q4_TRAIN_OPS). */
enum { Q4H_STEP_FWD, Q4H_STEP_CE, Q4H_STEP_DW, Q4H_STEP_BWD, Q4H_STEP_ADAMW,
       Q4H_STEP_REQUANT, Q4H_STEP_OPS };
extern const q4h_op *const q4h_train_step_ops[Q4H_STEP_OPS];
/* A single-op case of op for training case c: family custom, c's name and seed, the
 * shape left for the caller. */
q4_case q4h_train_op_case(const q4h_op *op, const q4_case *c);

/* The op cases one step of training case c runs (docs/training.md), one per op and
 * layer, each with the shape harness/run/train_case.c gives it (the step's own values,
 * such as AdamW's t, aside): into oc[max], returns how many. An override is exercised
 * by a training case when one of them runs its kernel. */
#define Q4H_TRAIN_OP_CASES 16
int q4h_train_op_cases(const q4_case *c, q4_case *oc, int max);

/* Whether c runs op (a training case: in its steps), for --interface's check that its
 * op is run. */
bool q4h_case_runs_op(const q4_case *c, const char *op);

/* Q4_ERR_ARG when an override replaces a kernel that none of cases runs on this
 * device, naming the kernel and a case that would run it. */
q4_status q4h_overrides_check_used(const q4h_run_options *opt, const q4_case *cases,
                                   size_t n, const q4vk_device_info *info, q4_error *err);

/* The static checks of every module c runs (the override's module where there is
 * one): each finding is appended to r's message, and a Pass becomes QualityWarning
 * (which --strict fails). */
void q4h_lint_case(const q4h_run_options *opt, const q4_case *c, const q4vk_device_info *info,
                   q4_result *r);

#endif
