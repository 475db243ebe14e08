/* test_report_map.c: the error maps of `q4cts report` (report_map.c) on outputs made
 * by hand: one cell per element while the output fits, the judge's margins in them
 * (infinite as null), the signed mean, pooling into blocks, folding of a long vector,
 * code outputs, and the worst elements in order. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "outputs.h"
#include "report_map.h"

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    ck_assert_msg(json_object_object_get_ex(o, key, &v), "no member %s", key);
    return v;
}

static json_object *at(json_object *arr, size_t i)
{
    return json_object_array_get_idx(arr, i);
}

static double num(json_object *v)
{
    ck_assert_ptr_nonnull(v);
    return json_object_get_double(v);
}

static int64_t pair(json_object *o, const char *key, int i)
{
    return json_object_get_int64(at(get(o, key), (size_t)i));
}

/* A real output whose results equal the truth, bound 0.5 everywhere. */
static q4h_output *exact_real(q4h_outputs *out, int64_t rows, int64_t cols, const char *rn,
                              const char *cn)
{
    q4h_output *o;
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_real_output(out, "y", rows, cols, rn, cn, &o, &err), Q4_OK);
    for (int64_t i = 0; i < o->count; i++) {
        o->value[i] = (double)(i % 7) - 3;
        o->got[i] = (float)o->value[i];
        o->bound[i] = 0.5;
    }
    return o;
}

START_TEST(one_cell_per_element)
{
    q4h_outputs out = { 0 };
    q4h_output *o = exact_real(&out, 3, 5, "m", "n");
    o->got[1 * 5 + 2] += 1.0f;        /* err 1, bound 0.5: margin 2 */
    o->got[2 * 5 + 4] = NAN;           /* not finite: infinite margin */
    o->got[0 * 5 + 1] -= 0.125f;       /* margin 0.25, signed -0.25 */
    json_object *all = q4h_report_maps(&out);
    ck_assert_ptr_nonnull(all);
    json_object *map = at(get(all, "outputs"), 0);
    ck_assert_str_eq(json_object_get_string(get(map, "kind")), "real");
    ck_assert_int_eq(pair(map, "grid", 0), 3);
    ck_assert_int_eq(pair(map, "grid", 1), 5);
    ck_assert_int_eq(pair(map, "block", 0), 1);
    ck_assert_int_eq(pair(map, "block", 1), 1);
    ck_assert_int_eq(json_object_get_int(get(map, "fold")), 0);
    ck_assert_str_eq(json_object_get_string(at(get(map, "dims"), 1)), "n");
    json_object *max = get(map, "max"), *mean = get(map, "mean");
    ck_assert_int_eq((int)json_object_array_length(max), 15);
    ck_assert_double_eq(num(at(max, 7)), 2);
    ck_assert_ptr_null(at(max, 14));                   /* infinite */
    ck_assert_double_eq(num(at(max, 1)), 0.25);
    ck_assert_double_eq(num(at(max, 0)), 0);
    ck_assert_double_eq(num(at(mean, 7)), 2);
    ck_assert_double_eq(num(at(mean, 1)), -0.25);
    ck_assert_ptr_null(at(mean, 14));                  /* no finite error in the cell */
    ck_assert_ptr_null(get(map, "margin"));            /* the output's worst: infinite */
    json_object *worst = get(all, "worst");
    ck_assert_int_eq((int)json_object_array_length(worst), 12);
    ck_assert_str_eq(json_object_get_string(get(at(worst, 0), "where")), "m=2, n=4");
    ck_assert_str_eq(json_object_get_string(get(at(worst, 0), "got")), "NaN");
    ck_assert_ptr_null(get(at(worst, 0), "margin"));
    ck_assert_str_eq(json_object_get_string(get(at(worst, 1), "where")), "m=1, n=2");
    ck_assert_double_eq(num(get(at(worst, 1), "margin")), 2);
    ck_assert_double_eq(num(get(at(worst, 1), "bound")), 0.5);
    ck_assert_double_eq(num(get(at(worst, 2), "margin")), 0.25);
    /* equal margins: the lowest index first, as the judge names the worst */
    ck_assert_int_eq(json_object_get_int(get(at(worst, 3), "index")), 0);
    ck_assert_int_eq(json_object_get_int(get(at(worst, 4), "index")), 2);
    json_object_put(all);
    q4h_outputs_free(&out);
}
END_TEST

START_TEST(large_output_is_pooled)
{
    q4h_outputs out = { 0 };
    q4h_output *o = exact_real(&out, 300, 600, "m", "n");
    o->got[299 * 600 + 599] += 0.25f;   /* margin 0.5 in the last cell */
    o->got[3 * 600 + 5] += 1.0f;        /* margin 2 in cell (1, 1) of blocks 3 x 3 */
    o->got[4 * 600 + 4] -= 1.0f;        /* and -2 beside it: the cell's signed mean is 0 */
    json_object *all = q4h_report_maps(&out), *map = at(get(all, "outputs"), 0);
    ck_assert_int_eq(pair(map, "block", 0), 3);
    ck_assert_int_eq(pair(map, "block", 1), 3);
    ck_assert_int_eq(pair(map, "grid", 0), 100);
    ck_assert_int_eq(pair(map, "grid", 1), 200);
    json_object *max = get(map, "max"), *mean = get(map, "mean");
    ck_assert_int_eq((int)json_object_array_length(max), 100 * 200);
    ck_assert_double_eq(num(at(max, 99 * 200 + 199)), 0.5);
    ck_assert_double_eq(num(at(max, 1 * 200 + 1)), 2);
    ck_assert_double_eq(num(at(mean, 1 * 200 + 1)), 0);
    ck_assert_double_eq(num(at(max, 0)), 0);
    ck_assert_double_eq(num(get(map, "margin")), 2);
    json_object_put(all);
    q4h_outputs_free(&out);
}
END_TEST

START_TEST(long_vector_is_folded)
{
    q4h_outputs out = { 0 };
    q4h_output *o = exact_real(&out, 1, 1000, "-", "i");
    o->got[999] += 2.0f;
    json_object *all = q4h_report_maps(&out), *map = at(get(all, "outputs"), 0);
    ck_assert_int_eq(json_object_get_int(get(map, "fold")), Q4H_MAP_FOLD);
    ck_assert_int_eq(pair(map, "grid", 0), 8);      /* 1000 / 128, rounded up */
    ck_assert_int_eq(pair(map, "grid", 1), Q4H_MAP_FOLD);
    json_object *max = get(map, "max");
    ck_assert_double_eq(num(at(max, 999)), 4);
    ck_assert_double_eq(num(at(max, 1000)), -1);    /* past the end: no element */
    ck_assert_double_eq(num(at(max, 1023)), -1);
    ck_assert_str_eq(json_object_get_string(get(at(get(all, "worst"), 0), "where")), "i=999");
    json_object_put(all);
    q4h_outputs_free(&out);
}
END_TEST

START_TEST(code_output)
{
    q4h_outputs out = { 0 };
    q4h_output *o;
    q4_error err = { 0 };
    ck_assert_int_eq(q4h_code_output(&out, "w4x8", 2, 4, "n", "k", &o, &err), Q4_OK);
    for (int i = 0; i < 8; i++) {
        o->code[i] = o->got_code[i] = (uint8_t)i;
        o->alt[i] = (uint8_t)(i + 1);
    }
    o->got_code[3] = 4;    /* the other neighbour: margin 1 */
    o->got_code[6] = 0;    /* wrong: infinite */
    json_object *all = q4h_report_maps(&out), *map = at(get(all, "outputs"), 0);
    ck_assert_str_eq(json_object_get_string(get(map, "kind")), "code");
    ck_assert(!json_object_object_get_ex(map, "mean", NULL));
    json_object *max = get(map, "max");
    ck_assert_double_eq(num(at(max, 3)), 1);
    ck_assert_ptr_null(at(max, 6));
    ck_assert_double_eq(num(at(max, 0)), 0);
    json_object *w = at(get(all, "worst"), 0);
    ck_assert_str_eq(json_object_get_string(get(w, "where")), "n=1, k=2");
    ck_assert_int_eq(json_object_get_int(get(w, "got")), 0);
    ck_assert_int_eq(json_object_get_int(get(w, "expected")), 6);
    ck_assert_int_eq(json_object_get_int(get(w, "alt")), 7);
    ck_assert_double_eq(num(get(at(get(all, "worst"), 1), "margin")), 1);
    json_object_put(all);
    q4h_outputs_free(&out);
}
END_TEST

START_TEST(numbers_are_short_and_finite)
{
    ck_assert_ptr_null(q4h_report_num(INFINITY, 3));
    ck_assert_ptr_null(q4h_report_num(NAN, 3));
    json_object *v = q4h_report_num(1.0 / 3.0, 3);
    ck_assert_str_eq(json_object_to_json_string(v), "0.333");
    json_object_put(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report_map");
    TCase *tc = tcase_create("maps");
    tcase_add_test(tc, one_cell_per_element);
    tcase_add_test(tc, large_output_is_pooled);
    tcase_add_test(tc, long_vector_is_folded);
    tcase_add_test(tc, code_output);
    tcase_add_test(tc, numbers_are_short_and_finite);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
