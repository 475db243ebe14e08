/* test_json.c: the JSON sink read back by a strict parser: layout, numbers as numbers
 * (exact round-trip), NaN/Inf/unknown as null, per-verdict summary, strict recorded,
 * hostile strings, and a complete document after open and after every add. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsoncheck.h"
#include "q4report.h"
#include "testutil.h"

static const jc_value *root(const jc_value *doc)
{
    const jc_value *q = jc_get(doc, "q4cts");
    ck_assert_ptr_nonnull(q);
    ck_assert_int_eq(q->type, JC_OBJ);
    ck_assert_uint_eq(doc->n, 1);
    return q;
}

static int is_null(const jc_value *obj, const char *key)
{
    const jc_value *v = jc_get(obj, key);
    ck_assert_msg(v != NULL, "%s missing", key);
    return v->type == JC_NULL;
}

static int boolean(const jc_value *obj, const char *key)
{
    const jc_value *v = jc_get(obj, key);
    ck_assert_msg(v && v->type == JC_BOOL, "%s is not a bool", key);
    return v->boolean;
}

static char *write_all_verdicts(const char *dir, int strict)
{
    char *path = tu_path(dir, "r.json");
    q4_prop p[] = {{"device", "llvmpipe"}, {"seed", "7"}};
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, p, 2, &j, &err), Q4_OK);
    q4_json_set_strict(j, strict);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        q4_result r;
        tu_result(&r, (q4_verdict)v, v);
        ck_assert_msg(q4_json_add(j, &r, &err) == Q4_OK, "%s", err.msg);
        jc_value *doc = tu_json_load(path);   /* complete after every add */
        ck_assert_uint_eq(jc_get(root(doc), "results")->n, (size_t)v + 1);
        jc_free(doc);
    }
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);
    return path;
}

START_TEST(layout_and_values)
{
    char *dir = tu_tmpdir();
    char *path = write_all_verdicts(dir, 0);
    jc_value *doc = tu_json_load(path);
    const jc_value *q = root(doc);
    ck_assert_str_eq(tu_json_str(q, "version"), "0.1.0");
    ck_assert_int_eq((int)tu_json_num(q, "format"), 1);
    ck_assert_int_eq(boolean(q, "strict"), 0);
    const jc_value *props = jc_get(q, "properties");
    ck_assert_str_eq(tu_json_str(props, "device"), "llvmpipe");
    ck_assert_str_eq(tu_json_str(props, "seed"), "7");
    ck_assert_uint_eq(props->n, 2);

    const jc_value *res = jc_get(q, "results");
    ck_assert_int_eq(res->type, JC_ARR);
    ck_assert_uint_eq(res->n, Q4_VERDICT_COUNT);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        const jc_value *c = jc_at(res, (size_t)v);
        q4_result r;
        tu_result(&r, (q4_verdict)v, v);
        ck_assert_str_eq(tu_json_str(c, "name"), r.name);
        ck_assert_str_eq(tu_json_str(c, "op"), r.op);
        ck_assert_str_eq(tu_json_str(c, "family"), r.family);
        ck_assert_str_eq(tu_json_str(c, "verdict"), q4_verdict_name((q4_verdict)v));
        ck_assert_int_eq(boolean(c, "ok"), q4_verdict_ok((q4_verdict)v, 0));
        /* %.17g: doubles come back bit for bit */
        ck_assert(tu_json_num(c, "seconds") == r.seconds);
        if (r.gpu_ms < 0)
            ck_assert(is_null(c, "gpu_ms"));
        else
            ck_assert(tu_json_num(c, "gpu_ms") == r.gpu_ms);
        if (r.truth_ms < 0)
            ck_assert(is_null(c, "truth_ms"));
        else
            ck_assert(tu_json_num(c, "truth_ms") == r.truth_ms);
        const char *const phase[] = { "input_ms", "upload_ms", "readback_ms", "judge_ms" };
        const double phase_ms[] = { r.input_ms, r.upload_ms, r.readback_ms, r.judge_ms };
        for (int k = 0; k < 4; k++)
            if (phase_ms[k] < 0)
                ck_assert(is_null(c, phase[k]));
            else
                ck_assert(tu_json_num(c, phase[k]) == phase_ms[k]);
        ck_assert_int_eq(boolean(c, "truth_fused"), r.truth_fused);
        if (isnan(r.stat_margin))
            ck_assert(is_null(c, "stat_margin"));
        else
            ck_assert(tu_json_num(c, "stat_margin") == r.stat_margin);
        if (isnan(r.worst_margin)) {
            ck_assert(is_null(c, "worst_margin") && is_null(c, "worst_err"));
            ck_assert(is_null(c, "got") && is_null(c, "expected") && is_null(c, "bound"));
            ck_assert(is_null(c, "index"));
        } else {
            ck_assert(tu_json_num(c, "worst_margin") == r.worst_margin);
            ck_assert(tu_json_num(c, "worst_err") == r.worst_err);
            ck_assert(tu_json_num(c, "got") == r.got);
            ck_assert(tu_json_num(c, "expected") == r.expected);
            ck_assert(tu_json_num(c, "bound") == r.bound);
            ck_assert(tu_json_num(c, "index") == (double)r.index);
        }
        ck_assert(tu_json_num(c, "elements") == (double)r.elements);
        ck_assert_str_eq(tu_json_str(c, "output"), r.output);
        ck_assert_str_eq(tu_json_str(c, "where"), r.where);
        ck_assert_str_eq(tu_json_str(c, "message"), r.message);
        ck_assert_str_eq(tu_json_str(c, "repro"), r.repro);
        ck_assert(tu_json_num(c, "tries") == 1);
        ck_assert(is_null(c, "baseline") && is_null(c, "surprise"));   /* no baseline */
        ck_assert_uint_eq(c->n, 28);   /* no key more, none less */
    }
    const jc_value *sum = jc_get(q, "summary");
    ck_assert_int_eq((int)tu_json_num(sum, "total"), 9);
    ck_assert_int_eq((int)tu_json_num(sum, "ok"), 4);       /* Pass, QualityWarning, NotSupported, Flake */
    ck_assert_int_eq((int)tu_json_num(sum, "not_ok"), 5);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++)
        ck_assert_int_eq((int)tu_json_num(sum, q4_verdict_name((q4_verdict)v)), 1);
    ck_assert_double_eq_tol(tu_json_num(sum, "seconds"), 0.045, 1e-12);
    ck_assert_int_eq((int)tu_json_num(sum, "unexpected_pass"), 0);
    ck_assert_int_eq((int)tu_json_num(sum, "unexpected_fail"), 0);
    ck_assert_ptr_null(jc_get(sum, "Unknown"));
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(strict_is_recorded)
{
    char *dir = tu_tmpdir();
    char *path = write_all_verdicts(dir, 1);
    jc_value *doc = tu_json_load(path);
    const jc_value *q = root(doc);
    ck_assert_int_eq(boolean(q, "strict"), 1);
    ck_assert_int_eq(boolean(jc_at(jc_get(q, "results"), Q4_QUALITY_WARNING), "ok"), 0);
    ck_assert_int_eq((int)tu_json_num(jc_get(q, "summary"), "ok"), 2);
    ck_assert_int_eq((int)tu_json_num(jc_get(q, "summary"), "not_ok"), 7);
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* Against a baseline: each result says what it expected and how it stands, the
 * summary counts unexpected passes and failures apart, and ok follows the baseline. */
START_TEST(baseline_and_tries)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "b.json");
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &j, &err), Q4_OK);
    for (int i = 0; i < TU_BASELINE_CASES; i++) {
        q4_result r;
        tu_baseline_result(&r, i);
        ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);
    }
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);
    jc_value *doc = tu_json_load(path);
    const jc_value *rs = jc_get(root(doc), "results");
    ck_assert_str_eq(tu_json_str(jc_at(rs, 0), "baseline"), "Fail");
    ck_assert(is_null(jc_at(rs, 0), "surprise"));
    ck_assert_int_eq(boolean(jc_at(rs, 0), "ok"), 1);          /* an expected failure */
    ck_assert_str_eq(tu_json_str(jc_at(rs, 1), "surprise"), "unexpected pass");
    ck_assert_int_eq(boolean(jc_at(rs, 1), "ok"), 0);
    ck_assert_str_eq(tu_json_str(jc_at(rs, 2), "surprise"), "unexpected fail");
    ck_assert(is_null(jc_at(rs, 3), "surprise"));               /* a flake passes */
    ck_assert(tu_json_num(jc_at(rs, 3), "tries") == 2);
    const jc_value *sum = jc_get(root(doc), "summary");
    ck_assert_int_eq((int)tu_json_num(sum, "ok"), 2);
    ck_assert_int_eq((int)tu_json_num(sum, "unexpected_pass"), 1);
    ck_assert_int_eq((int)tu_json_num(sum, "unexpected_fail"), 1);
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(empty_odd_and_hostile)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "odd.json");
    static const char nasty[] = "a\"b\\c\nd\te\x01""f\x1b[0mg \xce\xbb \xff </script>";
    static const char back[] = "a\"b\\c\nd\te\x01""f\x1b[0mg \xce\xbb \xef\xbf\xbd </script>";
    q4_prop p[] = {{nasty, nasty}, {NULL, "skipped"}, {"nullvalue", NULL}};
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, p, 3, &j, &err), Q4_OK);
    jc_value *doc = tu_json_load(path);   /* valid with no case yet */
    const jc_value *q = root(doc);
    ck_assert_uint_eq(jc_get(q, "results")->n, 0);
    ck_assert_int_eq((int)tu_json_num(jc_get(q, "summary"), "total"), 0);
    const jc_value *props = jc_get(q, "properties");
    ck_assert_uint_eq(props->n, 2);
    ck_assert_str_eq(props->keys[0], back);
    ck_assert_str_eq(tu_json_str(props, back), back);
    ck_assert_str_eq(tu_json_str(props, "nullvalue"), "");
    jc_free(doc);

    q4_result r;
    tu_result(&r, Q4_FAIL, 0);
    snprintf(r.message, sizeof r.message, "%s", nasty);
    r.worst_margin = INFINITY;
    r.got = -INFINITY;
    r.expected = NAN;
    r.seconds = 1e-300;
    ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);
    memset(&r, 0, sizeof r);   /* fixed fields with no NUL anywhere */
    memset(r.name, 'n', sizeof r.name);
    memset(r.message, '"', sizeof r.message);
    memset(r.where, '\\', sizeof r.where);
    r.verdict = (q4_verdict)99;
    ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);

    doc = tu_json_load(path);
    q = root(doc);
    const jc_value *c = jc_at(jc_get(q, "results"), 0);
    ck_assert_str_eq(tu_json_str(c, "message"), back);
    ck_assert(is_null(c, "worst_margin") && is_null(c, "got") && is_null(c, "expected"));
    ck_assert(tu_json_num(c, "seconds") == 1e-300);
    c = jc_at(jc_get(q, "results"), 1);
    ck_assert_uint_eq(strlen(tu_json_str(c, "name")), sizeof r.name);
    ck_assert_uint_eq(strlen(tu_json_str(c, "message")), sizeof r.message);
    ck_assert_uint_eq(strspn(tu_json_str(c, "where"), "\\"), sizeof r.where);
    ck_assert_str_eq(tu_json_str(c, "verdict"), "Unknown");
    ck_assert_int_eq(boolean(c, "ok"), 0);
    ck_assert_int_eq((int)tu_json_num(jc_get(q, "summary"), "Unknown"), 1);
    ck_assert_int_eq((int)tu_json_num(jc_get(q, "summary"), "Fail"), 1);
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* "shader_coverage": null until set_coverage, then one object per kernel with every
 * figure as a number; an empty set is an empty array (measured, nothing ran). */
START_TEST(shader_coverage_array)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "cov.json");
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &j, &err), Q4_OK);
    jc_value *doc = tu_json_load(path);
    ck_assert(is_null(root(doc), "shader_coverage"));
    jc_free(doc);
    q4_kernel_coverage k[2] = {
        {.kernel = "linear_q4gsw_gemv", .lines = 91, .lines_hit = 90, .branches = 74,
         .branches_hit = 73, .blocks = 120, .blocks_hit = 118},
        {.kernel = "my \"kernel\"", .overridden = 1, .blocks = 9, .blocks_hit = 3},
    };
    ck_assert_int_eq(q4_json_set_coverage(j, k, 0, &err), Q4_OK);
    doc = tu_json_load(path);   /* not written until the next add or close */
    ck_assert(is_null(root(doc), "shader_coverage"));
    jc_free(doc);
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);
    doc = tu_json_load(path);
    const jc_value *cov = jc_get(root(doc), "shader_coverage");
    ck_assert_int_eq(cov->type, JC_ARR);
    ck_assert_uint_eq(cov->n, 0);
    jc_free(doc);
    ck_assert_int_eq(q4_json_set_coverage(j, k, 2, &err), Q4_OK);
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);
    doc = tu_json_load(path);
    cov = jc_get(root(doc), "shader_coverage");
    ck_assert_uint_eq(cov->n, 2);
    const jc_value *a = jc_at(cov, 0), *b = jc_at(cov, 1);
    ck_assert_str_eq(tu_json_str(a, "kernel"), "linear_q4gsw_gemv");
    ck_assert_int_eq(boolean(a, "override"), 0);
    ck_assert(tu_json_num(a, "lines") == 91 && tu_json_num(a, "lines_hit") == 90);
    ck_assert(tu_json_num(a, "branches") == 74 && tu_json_num(a, "branches_hit") == 73);
    ck_assert(tu_json_num(a, "blocks") == 120 && tu_json_num(a, "blocks_hit") == 118);
    ck_assert_str_eq(tu_json_str(b, "kernel"), "my \"kernel\"");
    ck_assert_int_eq(boolean(b, "override"), 1);
    ck_assert(tu_json_num(b, "lines") == 0 && tu_json_num(b, "blocks_hit") == 3);
    jc_free(doc);
    ck_assert_int_eq(q4_json_set_coverage(NULL, k, 1, &err), Q4_ERR_ARG);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* Results added out of order by position (workers finishing cases out of order):
 * every document written holds each result added so far, in position order. */
START_TEST(add_at_keeps_position_order)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "r.json");
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &j, &err), Q4_OK);
    static const size_t order[] = { 2, 0, 3, 1 };
    q4_result r;
    for (size_t k = 0; k < 4; k++) {
        tu_result(&r, Q4_PASS, (int)order[k]);
        ck_assert_int_eq(q4_json_add_at(j, &r, order[k], &err), Q4_OK);
        jc_value *doc = tu_json_load(path);
        const jc_value *res = jc_get(root(doc), "results");
        ck_assert_uint_eq(res->n, k + 1);
        size_t at = 0;
        for (int pos = 0; pos < 4; pos++) {   /* the positions added so far, ascending */
            int added = 0;
            for (size_t x = 0; x <= k; x++)
                added |= order[x] == (size_t)pos;
            if (!added)
                continue;
            tu_result(&r, Q4_PASS, pos);
            ck_assert_str_eq(tu_json_str(jc_at(res, at++), "name"), r.name);
        }
        jc_free(doc);
    }
    tu_result(&r, Q4_FAIL, 4);
    ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);   /* after every one so far */
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);
    jc_value *doc = tu_json_load(path);
    const jc_value *res = jc_get(root(doc), "results");
    ck_assert_uint_eq(res->n, 5);
    for (int i = 0; i < 5; i++) {
        tu_result(&r, Q4_PASS, i);
        ck_assert_str_eq(tu_json_str(jc_at(res, (size_t)i), "name"), r.name);
    }
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* write at close: the adds do not rewrite the file; close writes every result. */
START_TEST(write_at_close_writes_once)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "r.json");
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &j, &err), Q4_OK);
    q4_json_set_write_at_close(j, 1);
    for (int i = 0; i < 3; i++) {
        q4_result r;
        tu_result(&r, Q4_PASS, i);
        ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);
    }
    jc_value *doc = tu_json_load(path);
    ck_assert_uint_eq(jc_get(root(doc), "results")->n, 0);
    jc_free(doc);
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);
    doc = tu_json_load(path);
    ck_assert_uint_eq(jc_get(root(doc), "results")->n, 3);
    jc_free(doc);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(bad_path_and_arguments)
{
    q4_json *j = (q4_json *)&j;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open("/nonexistent-dir-q4/r.json", NULL, 0, &j, &err), Q4_ERR_IO);
    ck_assert_ptr_null(j);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir-q4/r.json"));
    ck_assert_int_eq(q4_json_open("", NULL, 0, &j, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_json_open("r.json", NULL, 1, &j, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_json_add(NULL, NULL, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_json_close(NULL, &err), Q4_OK);
    q4_json_set_strict(NULL, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, layout_and_values);
    tcase_add_test(tc, strict_is_recorded);
    tcase_add_test(tc, baseline_and_tries);
    tcase_add_test(tc, empty_odd_and_hostile);
    tcase_add_test(tc, shader_coverage_array);
    tcase_add_test(tc, add_at_keeps_position_order);
    tcase_add_test(tc, write_at_close_writes_once);
    tcase_add_test(tc, bad_path_and_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
