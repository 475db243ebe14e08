/* test_perf_json.c: the perf JSON sink read back by a strict parser: ceilings and
 * properties, numbers that round-trip, a case that could not be timed, one result per
 * line (what --baseline relies on), a complete document after open and after every
 * add, and clear errors for a bad path or arguments. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"
#include "q4report.h"
#include "testutil.h"

/* The document at path and its "q4cts_perf" object in *root. */
static jc_value *load(const char *path, const jc_value **root)
{
    jc_value *v = tu_json_load(path);
    *root = jc_get(v, "q4cts_perf");
    ck_assert_ptr_nonnull(*root);
    return v;
}

START_TEST(layout_values_and_crash_safety)
{
    char *dir = tu_tmpdir(), *path = tu_path(dir, "perf.json");
    const q4_prop props[] = { { "device", "NVIDIA \"H200\"" }, { "driver", "580.159.04" } };
    q4_perf_json *p = NULL;
    q4_error err = {0};
    const jc_value *q;
    ck_assert_int_eq(q4_perf_json_open(path, props, 2, 4007.9, 56.19, 5.25, &p, &err), Q4_OK);
    jc_value *doc = load(path, &q);   /* valid and empty right after open */
    ck_assert_uint_eq(jc_get(q, "results")->n, 0);
    jc_free(doc);

    q4_perf_result timed = { .name = "q4cts.adamw_step.custom.n16_t1_w1", .op = "adamw_step",
                             .median_ms = 0.1 + 1e-17, .p10_ms = 0.09, .p90_ms = 0.11,
                             .gbs = 4048.6, .tflops = 2.313, .bound_by = "bandwidth",
                             .pct = 101.25 };
    q4_perf_result failed = { .name = "q4cts.fused_ce.custom.r1_v8_p0", .op = "fused_ce",
                              .error = "out of device memory" };
    ck_assert_int_eq(q4_perf_json_add(p, &timed, &err), Q4_OK);
    doc = load(path, &q);             /* complete after every add */
    ck_assert_uint_eq(jc_get(q, "results")->n, 1);
    jc_free(doc);
    ck_assert_int_eq(q4_perf_json_add(p, &failed, &err), Q4_OK);
    ck_assert_int_eq(q4_perf_json_close(p, &err), Q4_OK);

    doc = load(path, &q);
    ck_assert_str_eq(tu_json_str(jc_get(q, "properties"), "device"), "NVIDIA \"H200\"");
    ck_assert_str_eq(tu_json_str(jc_get(q, "properties"), "driver"), "580.159.04");
    ck_assert(tu_json_num(jc_get(q, "ceilings"), "copy_gbs") == 4007.9);
    ck_assert(tu_json_num(jc_get(q, "ceilings"), "fma_tflops") == 56.19);
    ck_assert(tu_json_num(jc_get(q, "ceilings"), "dispatch_us") == 5.25);
    const jc_value *res = jc_get(q, "results");
    ck_assert_uint_eq(res->n, 2);
    const jc_value *r0 = jc_at(res, 0), *r1 = jc_at(res, 1);
    ck_assert_str_eq(tu_json_str(r0, "name"), timed.name);
    ck_assert_str_eq(tu_json_str(r0, "op"), "adamw_step");
    ck_assert(tu_json_num(r0, "median_ms") == timed.median_ms);   /* bit-exact round trip */
    ck_assert(tu_json_num(r0, "pct_of_ceiling") == 101.25);
    ck_assert_str_eq(tu_json_str(r0, "bound_by"), "bandwidth");
    ck_assert_ptr_null(jc_get(r0, "error"));
    ck_assert_str_eq(tu_json_str(r1, "error"), "out of device memory");
    ck_assert_ptr_null(jc_get(r1, "median_ms"));
    jc_free(doc);

    /* One result per line: its name and its median on the same line. */
    char *text = tu_read(path, NULL);
    const char *line = strstr(text, "\"name\": \"q4cts.adamw_step");
    ck_assert_ptr_nonnull(line);
    const char *median = strstr(line, "\"median_ms\": ");
    ck_assert_ptr_nonnull(median);
    ck_assert_ptr_null(memchr(line, '\n', (size_t)(median - line)));
    free(text);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(non_finite_numbers_are_null)
{
    char *dir = tu_tmpdir(), *path = tu_path(dir, "perf.json");
    q4_perf_json *p = NULL;
    q4_error err = {0};
    const jc_value *q;
    ck_assert_int_eq(q4_perf_json_open(path, NULL, 0, NAN, INFINITY, 1, &p, &err), Q4_OK);
    q4_perf_result r = { .name = "x", .op = "y", .median_ms = NAN, .bound_by = "fma" };
    ck_assert_int_eq(q4_perf_json_add(p, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_perf_json_close(p, &err), Q4_OK);
    jc_value *doc = load(path, &q);
    ck_assert_int_eq(jc_get(jc_get(q, "ceilings"), "copy_gbs")->type, JC_NULL);
    ck_assert_int_eq(jc_get(jc_at(jc_get(q, "results"), 0), "median_ms")->type, JC_NULL);
    ck_assert_uint_eq(jc_get(q, "properties")->n, 0);
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(bad_path_and_arguments)
{
    q4_perf_json *p = (q4_perf_json *)&p;
    q4_error err = {0};
    ck_assert_int_eq(q4_perf_json_open("/nonexistent-dir-q4/p.json", NULL, 0, 1, 1, 1, &p, &err),
                     Q4_ERR_IO);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir-q4/p.json"));
    ck_assert_int_eq(q4_perf_json_open("", NULL, 0, 1, 1, 1, &p, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_perf_json_open("p.json", NULL, 1, 1, 1, 1, &p, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_perf_json_add(NULL, NULL, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_perf_json_close(NULL, &err), Q4_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.perf_json");
    TCase *tc = tcase_create("perf_json");
    tcase_add_test(tc, layout_values_and_crash_safety);
    tcase_add_test(tc, non_finite_numbers_are_null);
    tcase_add_test(tc, bad_path_and_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
