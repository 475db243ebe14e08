/* test_case_limits.c: a small_device case runs with its own lowered limits and no
 * other case does (run_case.c, plan.c): the context shows the case's limits after
 * it, the device's after a plain case; the plan of its kernels sees them too; and a
 * hand-built case whose limits the runtime refuses gets InternalError naming them,
 * not a run on the device's limits; the tensor-core forward's plan (on this device's
 * info, marked as having int8 cooperative matrices) names its fallback as such, and
 * an override of the fallback alone is refused. Skipped (77) without a Vulkan device. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "runner.h"

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
    static const q4h_run_options opt = { .repeat = 1 };
    q4_result r;
    q4h_run_case(&opt, &ctx, c, &r);
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
     * 36 slice workgroups (K = 192) do not, so that case keeps the fp32 path */
    c = parse("q4cts.linear_q4gsw.small_device.m130_n384_k64_g64_groups5");
    q4h_case_plan(&c, &tc, &p);
    ck_assert_int_eq(p.maybe_from, 3);
    c = parse("q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups5");
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

int main(void)
{
    q4_error err = { 0 };
    if (q4vk_create(NULL, &ctx, &err) != Q4_OK)
        return 77;
    device = *q4vk_info(ctx);
    Suite *s = suite_create("harness.case_limits");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, limits_follow_the_case);
    tcase_add_test(tc, plan_sees_the_case_limits);
    tcase_add_test(tc, refused_limits_are_an_internal_error);
    tcase_add_test(tc, tensor_core_plan_and_overrides);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);   /* one context for every test */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    q4vk_destroy(ctx);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
