/* test_case_limits.c: a small_device case runs with its own lowered limits and no
 * other case does (run_case.c, plan.c): the context shows the case's limits after
 * it, the device's after a plain case; the plan of its kernels sees them too; and a
 * hand-built case whose limits the runtime refuses gets InternalError naming them,
 * not a run on the device's limits; the tensor-core forward's plan (on this device's
 * info, marked as having int8 cooperative matrices) names its fallback as such, and
 * an override of the fallback alone is refused. Grids folded over x, y and z: over a
 * grid of small_device shapes no case ends in InternalError (each passes, or is
 * NotSupported naming maxComputeWorkGroupCount), and a lowered case's GPU outputs are
 * bit for bit those of the same inputs at the device's own limits. Skipped (77)
 * without a Vulkan device. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "backend_vulkan.h"
#include "op.h"
#include "plan.h"
#include "run_case.h"

static const q4h_run_options opt = { .backend = &q4h_backend_vulkan, .repeat = 1 };
static q4h_backend backend;   /* the case line's Vulkan backend: its context is ctx */
static q4vk_context *ctx;
static q4vk_device_info device;

static q4_case parse(const char *name)
{
    q4_case c;
    q4_error err = { 0 };
    ck_assert_msg(q4_case_parse(name, 0, &c, &err) == Q4_OK, "%s", err.msg);
    return c;
}

static q4_result run(const q4_case *c)
{
    q4_result r;
    q4h_run_case(&backend, c, &r);
    ctx = q4h_vk_context(&backend);   /* a lost device is reopened as a new context */
    return r;
}

START_TEST(limits_follow_the_case)
{
    q4_case small = parse("q4cts.adamw_step.small_device.n5003_t10_w1_groups3_binding4096");
    q4_result r = run(&small);
    ck_assert_msg(r.verdict == Q4_PASS, "%s", r.message);
    ck_assert_uint_eq(q4vk_info(ctx)->max_group_count[1], 3);
    ck_assert_uint_eq(q4vk_info(ctx)->max_storage_range, 4096);
    q4_case plain = parse("q4cts.adamw_step.unaligned.n1023_t5_w1");
    r = run(&plain);
    ck_assert_msg(r.verdict == Q4_PASS, "%s", r.message);
    ck_assert(memcmp(q4vk_info(ctx), &device, sizeof device) == 0);
}
END_TEST

START_TEST(plan_sees_the_case_limits)
{
    /* split-K's reduce runs, unless the case's binding limit splits x by rows */
    q4vk_plan p;
    q4_case split = parse("q4cts.linear_q4gsw.small_device.m24_n128_k1040_g16_b1_groups2");
    q4h_case_plan(&split, &device, &p);
    ck_assert_int_eq(p.n, 2);
    q4_case rows = parse("q4cts.linear_q4gsw.small_device.m24_n128_k1040_g16_b1_binding98304");
    q4h_case_plan(&rows, &device, &p);
    ck_assert_int_eq(p.n, 1);
}
END_TEST

/* A training case runs the ops of its steps at its layers' shapes: an override or an
 * interface file of one of them is used by it, of another op not. */
START_TEST(training_case_runs_its_ops)
{
    q4_case c = parse("q4cts.train.linear2.m12_k64_h24_v12_g8_t6_l300");
    q4_case oc[Q4H_TRAIN_OP_CASES];
    int n = q4h_train_op_cases(&c, oc, Q4H_TRAIN_OP_CASES);
    ck_assert_int_eq(n, 10);   /* 4 ops below (no backward), 5 on top, fused_ce */
    ck_assert_str_eq(oc[0].op, "linear_q4gsw");
    ck_assert_int_eq(oc[0].m, 12);
    ck_assert_int_eq(oc[0].n, 24);
    ck_assert_int_eq(oc[0].k, 64);
    ck_assert_str_eq(oc[6].op, "linear_q4gsw_backward");
    ck_assert_int_eq(oc[6].n, 12);
    ck_assert_int_eq(oc[6].k, 24);
    ck_assert_int_eq(oc[6].gs, 8);
    ck_assert_str_eq(oc[7].op, "adamw_step");
    ck_assert_int_eq(oc[7].numel, 12 * 24);
    ck_assert_str_eq(oc[9].op, "fused_ce");
    ck_assert_int_eq(oc[9].r, 12);
    ck_assert_int_eq(oc[9].v, 12);
    ck_assert(q4h_case_runs_op(&c, "q4gsw_requant"));
    ck_assert(!q4h_case_runs_op(&c, "dequantize"));
    q4h_override o = { .kernel = "adamw_step", .path = "adamw.spv" };
    q4h_run_options opt = { .overrides = &o, .n_overrides = 1 };
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_overrides_check_used(&opt, &c, 1, &device, &err), Q4_OK);
    o.kernel = "dequantize";
    ck_assert_int_eq(q4h_overrides_check_used(&opt, &c, 1, &device, &err), Q4_ERR_ARG);
}
END_TEST

/* On a device with int8 cooperative matrices (this one's info, so marked) a forward
 * case above M = 8 plans the tensor-core path and, after it, the fp32 path it falls back
 * to when its x is too coarse for the digits; an override of a fallback kernel alone is
 * refused (the data may never run it), one of the path's own kernels accepted. */
START_TEST(tensor_core_plan_and_overrides)
{
    q4vk_device_info tc = device;
    tc.coopmat_s8 = true;
    tc.mma_min_m = 1;
    tc.max_shared_bytes = 49152;
    q4_case c = parse("q4cts.linear_q4gsw.tile_aligned.m16_n32_k64_g64");
    q4vk_plan p;
    q4h_case_plan(&c, &tc, &p);
    ck_assert_int_eq(p.maybe_from, 3);
    ck_assert_int_ge(p.n, 4);
    ck_assert_str_eq(p.kernels[0], "unpack_w_i8");   /* dispatch order */
    ck_assert_str_eq(p.kernels[1], "linear_slice_i8");
    ck_assert_str_eq(p.kernels[2], "linear_q4gsw_mma");
    ck_assert_str_eq(p.kernels[3], "linear_q4gsw_tiled");
    q4h_override o = { .kernel = "linear_q4gsw_tiled", .path = "tiled.spv" };
    q4h_run_options opt = { .overrides = &o, .n_overrides = 1 };
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_overrides_check_used(&opt, &c, 1, &tc, &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "only where the tensor-core path hands a call to its fp32 "
                                  "path") && strstr(err.msg, "--mma-min-m off"), "%s", err.msg);
    o.kernel = "linear_q4gsw_mma";
    ck_assert_int_eq(q4h_overrides_check_used(&opt, &c, 1, &tc, &err), Q4_OK);
    /* at 5 workgroups a dimension: 9 tiles and 12 + 12 pass workgroups fold into 5 x 5,
     * 36 slice workgroups (K = 192) into 5 x 5 x 2; at 3, 27 workgroups at most, those
     * 36 do not fit, so that case keeps the fp32 path */
    c = parse("q4cts.linear_q4gsw.small_device.m130_n384_k64_g64_groups5");
    q4h_case_plan(&c, &tc, &p);
    ck_assert_int_eq(p.maybe_from, 3);
    c = parse("q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups5");
    q4h_case_plan(&c, &tc, &p);
    ck_assert_int_eq(p.maybe_from, 3);
    c = parse("q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups3");
    q4h_case_plan(&c, &tc, &p);
    ck_assert_int_eq(p.maybe_from, 0);
    for (int i = 0; i < p.n; i++)
        ck_assert_msg(!q4vk_kernel_tensor_core(p.kernels[i]), "%s planned", p.kernels[i]);
    /* gs = 32 keeps the fp32 path: no tensor-core kernel, no fallback mark */
    c = parse("q4cts.linear_q4gsw.tile_aligned.m8_n16_k32_g32");
    c.m = 16;
    q4h_case_plan(&c, &tc, &p);
    ck_assert_int_eq(p.maybe_from, 0);
    ck_assert_str_eq(p.kernels[0], "linear_q4gsw_tiled");
}
END_TEST

START_TEST(refused_limits_are_an_internal_error)
{
    q4_case c = parse("q4cts.adamw_step.small_device.n4_t1_w1_groups2");
    c.limit[Q4_LIMIT_SHARED] = 100;   /* hand-built: below Vulkan's least */
    q4_result r = run(&c);
    ck_assert_int_eq(r.verdict, Q4_INTERNAL_ERROR);
    ck_assert_msg(strstr(r.message, "lowering the device limits: q4vk_set_test_limits: shared 100"),
                  "%s", r.message);
}
END_TEST

/* Shapes whose grids span 1 to 4 workgroups a dimension: from a single group, over
 * x and y, over z (G^2 < groups <= G^3), to more than any fold holds; every path of
 * every launcher (gemv, tiled, split-K, dense, and each op's one kernel). */
static const char *const grid_shapes[] = {
    "q4cts.adamw_step.small_device.n5003_t10_w1",                  /* 5 groups */
    "q4cts.adamw_step.small_device.n40000_t10_w1",                 /* 40 */
    "q4cts.dequantize.small_device.n96_k512_g32",                  /* 6 */
    "q4cts.q4gsw_requant.small_device.n96_k100_g20",               /* 6 + 5 (flat) */
    "q4cts.q4gsw_requant.small_device.n48_k512_g64",               /* 6 */
    "q4cts.fused_ce.small_device.r7_v1001_p37",                    /* 7 rows */
    "q4cts.fused_ce.small_device.r65_v8_p37",                      /* 65 rows */
    "q4cts.linear_dW.small_device.m16_n192_k128",                  /* 6 tiles */
    "q4cts.linear_q4gsw.small_device.m3_n200_k64_g32",             /* gemv: 7 strips */
    "q4cts.linear_q4gsw.small_device.m3_n264_k64_g32",             /* 9 */
    "q4cts.linear_q4gsw.small_device.m130_n768_k128_g64",          /* tiled: 36 tiles */
    "q4cts.linear_q4gsw.small_device.m24_n256_k1040_g16_b1",       /* split: 8 + reduce 6 */
    "q4cts.linear_q4gsw.small_device.m2050_n64_k64_g32",           /* dense: transpose 130 */
    "q4cts.linear_q4gsw_backward.small_device.m3_n32_k64_g32",     /* gemv: 8 strips */
    "q4cts.linear_q4gsw_backward.small_device.m257_n44_k96_g32",   /* tiled: 10 tiles */
    "q4cts.linear_q4gsw_backward.small_device.m24_n1040_k256_g32", /* split over N */
    "q4cts.linear_q4gsw_backward.small_device.m2050_n64_k16_g16",  /* dense */
};

START_TEST(no_internal_error_on_small_grids)
{
    for (size_t i = 0; i < sizeof grid_shapes / sizeof grid_shapes[0]; i++) {
        for (int g = 1; g <= 4; g++) {
            char name[Q4_CASE_NAME_MAX];
            snprintf(name, sizeof name, "%s_groups%d", grid_shapes[i], g);
            q4_case c = parse(name);
            q4_result r = run(&c);
            ck_assert_msg(r.verdict == Q4_PASS || r.verdict == Q4_NOT_SUPPORTED,
                          "%s: %s: %s", name, q4_verdict_name(r.verdict), r.message);
            ck_assert_msg(r.verdict == Q4_PASS ||
                          strstr(r.message, "even folded over x, y and z"), "%s: %s", name,
                          r.message);
            char limit[64];
            snprintf(limit, sizeof limit, "maxComputeWorkGroupCount = (%d, %d, %d)", g, g, g);
            ck_assert_msg(r.verdict == Q4_PASS || strstr(r.message, limit), "%s: %s", name,
                          r.message);
        }
    }
    /* the two: no fold of 65539 rows fits 7 x 7 x 7; 10 tiles fold to 3 x 3 x 2 */
    q4_case c = parse("q4cts.fused_ce.small_device.r65539_v8_p37_groups7");
    q4_result r = run(&c);
    ck_assert_int_eq(r.verdict, Q4_NOT_SUPPORTED);
    ck_assert_msg(strstr(r.message, "kernel fused_ce: 65539 workgroups do not fit the device's "
                         "maxComputeWorkGroupCount = (7, 7, 7)"), "%s", r.message);
    c = parse("q4cts.linear_q4gsw_backward.small_device.m257_n44_k96_g32_groups3");
    r = run(&c);
    ck_assert_msg(r.verdict == Q4_PASS, "%s", r.message);
}
END_TEST

/* The GPU's outputs of case c on inputs in, with the case's lowered limits or at the
 * device's own (the truth only sizes the outputs). */
static void gpu_outputs(const q4_case *c, const q4_inputs *in, bool lowered, q4h_outputs *out)
{
    const q4h_op *op = q4h_op_find(c->op);
    const q4vk_test_limits lim = q4h_case_limits(c);
    q4_error err = { 0 };
    q4vk_timing t;
    ck_assert_msg(q4vk_set_case_limits(ctx, lowered ? &lim : NULL, &err) == Q4_OK, "%s",
                  err.msg);
    ck_assert_msg(op->truth(c, in, out, &err) == Q4_OK, "%s", err.msg);
    ck_assert_msg(q4h_gpu_run(ctx, op, c, in, out, &t, NULL, &err) == Q4_OK, "%s: %s", c->name,
                  err.msg);
}

/* Cases whose grids fold over z (and one over y only): the fold changes no bit. */
static const char *const folded_cases[] = {
    "q4cts.adamw_step.small_device.n5003_t10_w1_groups2",
    "q4cts.dequantize.small_device.n96_k512_g32_groups2",
    "q4cts.q4gsw_requant.small_device.n96_k100_g20_groups2",
    "q4cts.fused_ce.small_device.r7_v1001_p37_groups2",
    "q4cts.linear_dW.small_device.m16_n192_k128_groups2",
    "q4cts.linear_q4gsw.small_device.m3_n200_k64_g32_groups2",
    "q4cts.linear_q4gsw.small_device.m130_n768_k128_g64_groups4",
    "q4cts.linear_q4gsw.small_device.m24_n256_k1040_g16_b1_groups2",
    "q4cts.linear_q4gsw.small_device.m2050_n776_k96_g32_groups6",
    "q4cts.linear_q4gsw_backward.small_device.m3_n32_k64_g32_groups2",
    "q4cts.linear_q4gsw_backward.small_device.m257_n44_k96_g32_groups3",
    "q4cts.linear_q4gsw_backward.small_device.m130_n64_k192_g32_groups4",
};

START_TEST(folded_results_bit_identical)
{
    for (size_t i = 0; i < sizeof folded_cases / sizeof folded_cases[0]; i++) {
        q4_case c = parse(folded_cases[i]);
        q4_inputs in = { 0 };
        q4_error err = { 0 };
        ck_assert_msg(q4_case_inputs(&c, &in, &err) == Q4_OK, "%s", err.msg);
        q4h_outputs low = { 0 }, full = { 0 };
        gpu_outputs(&c, &in, true, &low);
        gpu_outputs(&c, &in, false, &full);
        ck_assert_int_eq(low.n, full.n);
        for (int o = 0; o < low.n; o++) {
            const q4h_output *a = &low.o[o], *b = &full.o[o];
            ck_assert_int_eq(a->count, b->count);
            if (a->got)
                ck_assert_msg(!memcmp(a->got, b->got, (size_t)a->count * sizeof *a->got),
                              "%s: output %s differs from the unlowered run", c.name, a->name);
            if (a->got_code)
                ck_assert_msg(!memcmp(a->got_code, b->got_code, (size_t)a->count),
                              "%s: output %s differs from the unlowered run", c.name, a->name);
            ck_assert_uint_eq(a->raw_bytes, b->raw_bytes);
            if (a->raw)
                ck_assert_msg(!memcmp(a->raw, b->raw, a->raw_bytes),
                              "%s: output %s differs from the unlowered run", c.name, a->name);
        }
        q4h_outputs_free(&low);
        q4h_outputs_free(&full);
        q4_inputs_free(&in);
    }
    q4_error err = { 0 };
    ck_assert(q4vk_set_case_limits(ctx, NULL, &err) == Q4_OK);
}
END_TEST

int main(void)
{
    q4_error err = { 0 };
    if (q4h_backend_open(&backend, &opt, false, &err) != Q4_OK)
        return 77;
    ctx = q4h_vk_context(&backend);
    device = *q4vk_info(ctx);
    Suite *s = suite_create("harness.case_limits");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, limits_follow_the_case);
    tcase_add_test(tc, plan_sees_the_case_limits);
    tcase_add_test(tc, refused_limits_are_an_internal_error);
    tcase_add_test(tc, tensor_core_plan_and_overrides);
    tcase_add_test(tc, training_case_runs_its_ops);
    tcase_add_test(tc, no_internal_error_on_small_grids);
    tcase_add_test(tc, folded_results_bit_identical);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);   /* one context for every test */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    q4h_backend_close(&backend);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
