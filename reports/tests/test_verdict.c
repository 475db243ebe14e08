/* test_verdict.c: verdict names and parsing, the ok truth table (strict and not), the
 * JUnit class of each verdict, and the q4_result helpers. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "q4report_internal.h"
#include "testutil.h"

START_TEST(names_are_the_cts_names)
{
    static const char *const want[Q4_VERDICT_COUNT] = {
        "Pass", "Fail", "QualityWarning", "NotSupported", "ResourceError",
        "Crash", "Timeout", "InternalError", "Flake"};
    for (int v = 0; v < Q4_VERDICT_COUNT; v++)
        ck_assert_str_eq(q4_verdict_name((q4_verdict)v), want[v]);
    ck_assert_str_eq(q4_verdict_name(Q4_VERDICT_COUNT), "Unknown");
    ck_assert_str_eq(q4_verdict_name((q4_verdict)-1), "Unknown");
}
END_TEST

START_TEST(parse_inverts_name)
{
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        q4_verdict got = Q4_VERDICT_COUNT;
        ck_assert_int_eq(q4_verdict_parse(q4_verdict_name((q4_verdict)v), &got), 1);
        ck_assert_int_eq(got, v);
    }
    q4_verdict keep = Q4_CRASH;
    ck_assert_int_eq(q4_verdict_parse("pass", &keep), 0);   /* case-sensitive */
    ck_assert_int_eq(q4_verdict_parse("Unknown", &keep), 0);
    ck_assert_int_eq(q4_verdict_parse("", &keep), 0);
    ck_assert_int_eq(q4_verdict_parse(NULL, &keep), 0);
    ck_assert_int_eq(keep, Q4_CRASH);
}
END_TEST

/* The whole table, both modes: only these four verdicts are ever ok. */
START_TEST(ok_truth_table)
{
    static const int ok_lax[Q4_VERDICT_COUNT] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
    static const int ok_strict[Q4_VERDICT_COUNT] = {1, 0, 0, 1, 0, 0, 0, 0, 0};
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        ck_assert_msg(q4_verdict_ok((q4_verdict)v, 0) == ok_lax[v], "%s lax",
                      q4_verdict_name((q4_verdict)v));
        ck_assert_msg(q4_verdict_ok((q4_verdict)v, 1) == ok_strict[v], "%s strict",
                      q4_verdict_name((q4_verdict)v));
        /* any non-zero strict is strict */
        ck_assert_int_eq(q4_verdict_ok((q4_verdict)v, 7), ok_strict[v]);
    }
    ck_assert_int_eq(q4_verdict_ok(Q4_VERDICT_COUNT, 0), 0);
    ck_assert_int_eq(q4_verdict_ok((q4_verdict)-3, 0), 0);
}
END_TEST

START_TEST(classes)
{
    ck_assert_int_eq(q4rep_classify(Q4_PASS, 1), Q4REP_PASSED);
    ck_assert_int_eq(q4rep_classify(Q4_QUALITY_WARNING, 0), Q4REP_PASSED);
    ck_assert_int_eq(q4rep_classify(Q4_QUALITY_WARNING, 1), Q4REP_FAILED);
    ck_assert_int_eq(q4rep_classify(Q4_FAIL, 0), Q4REP_FAILED);
    ck_assert_int_eq(q4rep_classify(Q4_NOT_SUPPORTED, 1), Q4REP_SKIPPED);
    ck_assert_int_eq(q4rep_classify(Q4_RESOURCE_ERROR, 0), Q4REP_ERRORED);
    ck_assert_int_eq(q4rep_classify(Q4_CRASH, 0), Q4REP_ERRORED);
    ck_assert_int_eq(q4rep_classify(Q4_TIMEOUT, 0), Q4REP_ERRORED);
    ck_assert_int_eq(q4rep_classify(Q4_INTERNAL_ERROR, 0), Q4REP_ERRORED);
    ck_assert_int_eq(q4rep_classify(Q4_VERDICT_COUNT, 0), Q4REP_ERRORED);
    ck_assert_int_eq(q4rep_classify(Q4_FLAKE, 0), Q4REP_PASSED);
    ck_assert_int_eq(q4rep_classify(Q4_FLAKE, 1), Q4REP_FAILED);
    /* class and ok agree for every verdict in both modes */
    for (int s = 0; s <= 1; s++)
        for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
            q4rep_class c = q4rep_classify((q4_verdict)v, s);
            ck_assert_int_eq(q4_verdict_ok((q4_verdict)v, s), c == Q4REP_PASSED || c == Q4REP_SKIPPED);
        }
}
END_TEST

START_TEST(result_init_marks_unknowns)
{
    q4_result r;
    memset(&r, 0x5A, sizeof r);
    q4_result_init(&r);
    ck_assert_int_eq(r.verdict, Q4_INTERNAL_ERROR);
    ck_assert(r.gpu_ms < 0);
    ck_assert(isnan(r.worst_err) && isnan(r.worst_margin));
    ck_assert(isnan(r.got) && isnan(r.expected) && isnan(r.bound));
    ck_assert_int_eq(r.index, -1);
    ck_assert_int_eq(r.elements, 0);
    ck_assert_int_eq(r.tries, 1);
    ck_assert_int_eq(r.baseline, Q4_VERDICT_COUNT);
    ck_assert_str_eq(r.name, "");
    ck_assert_str_eq(r.message, "");
    ck_assert_int_eq(q4_verdict_ok(r.verdict, 0), 0);
}
END_TEST

/* A result against its baseline (deqp-runner's model), in both modes. */
static q4_surprise surprise(q4_verdict got, q4_verdict baseline, int strict)
{
    q4_result r;
    q4_result_init(&r);
    r.verdict = got;
    r.baseline = baseline;
    ck_assert_int_eq(q4_result_ok(&r, strict), q4_result_surprise(&r, strict) == Q4_AS_EXPECTED);
    return q4_result_surprise(&r, strict);
}

START_TEST(against_the_baseline)
{
    /* no baseline: ok verdicts are expected, the rest unexpected failures */
    ck_assert_int_eq(surprise(Q4_PASS, Q4_VERDICT_COUNT, 0), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_QUALITY_WARNING, Q4_VERDICT_COUNT, 1), Q4_UNEXPECTED_FAIL);
    ck_assert_int_eq(surprise(Q4_FAIL, Q4_VERDICT_COUNT, 0), Q4_UNEXPECTED_FAIL);
    /* a case the baseline does not list is expected to pass (Pass): any ok verdict does */
    ck_assert_int_eq(surprise(Q4_NOT_SUPPORTED, Q4_PASS, 0), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_FLAKE, Q4_PASS, 0), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_FLAKE, Q4_PASS, 1), Q4_UNEXPECTED_FAIL);
    ck_assert_int_eq(surprise(Q4_CRASH, Q4_PASS, 0), Q4_UNEXPECTED_FAIL);
    /* a listed failure: that verdict is expected, another failure is not, a pass is not */
    ck_assert_int_eq(surprise(Q4_FAIL, Q4_FAIL, 0), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_CRASH, Q4_FAIL, 0), Q4_UNEXPECTED_FAIL);
    ck_assert_int_eq(surprise(Q4_PASS, Q4_FAIL, 0), Q4_UNEXPECTED_PASS);
    ck_assert_int_eq(surprise(Q4_FLAKE, Q4_FAIL, 0), Q4_UNEXPECTED_PASS);
    ck_assert_int_eq(surprise(Q4_QUALITY_WARNING, Q4_QUALITY_WARNING, 1), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_PASS, Q4_QUALITY_WARNING, 1), Q4_UNEXPECTED_PASS);
    /* a listed flake takes a pass too, in both modes */
    ck_assert_int_eq(surprise(Q4_PASS, Q4_FLAKE, 1), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_FLAKE, Q4_FLAKE, 1), Q4_AS_EXPECTED);
    ck_assert_int_eq(surprise(Q4_FAIL, Q4_FLAKE, 0), Q4_UNEXPECTED_FAIL);
}
END_TEST

START_TEST(worst_line)
{
    q4_result r;
    q4_result_init(&r);
    char buf[200];
    ck_assert_str_eq(q4_result_worst(&r, buf, sizeof buf), "not judged");
    strcpy(r.output, "y");
    r.index = 137;
    strcpy(r.where, "m=3, n=17");
    r.got = 1.25;
    r.expected = 1;
    r.worst_err = 0.25;
    r.bound = 0.078125;
    r.worst_margin = 3.2;
    ck_assert_str_eq(q4_result_worst(&r, buf, sizeof buf),
                     "y[137] (m=3, n=17): got 1.25, expected 1, |err| 0.25, bound 0.0781, margin 3.2");
    r.index = -1;
    r.where[0] = '\0';
    strcpy(r.output, "loss");
    ck_assert_str_eq(q4_result_worst(&r, buf, sizeof buf),
                     "loss: got 1.25, expected 1, |err| 0.25, bound 0.0781, margin 3.2");
    /* truncation still terminates */
    char small[8];
    q4_result_worst(&r, small, sizeof small);
    ck_assert_str_eq(small, "loss: g");
    /* fields filled to the brim with no NUL are read no further than their size */
    memset(r.output, 'o', sizeof r.output);
    memset(r.where, 'w', sizeof r.where);
    r.index = 5;
    q4_result_worst(&r, buf, sizeof buf);
    ck_assert_int_eq(strncmp(buf, "oooooooooooooooooooooooooooooooo[5] (w", 38), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.verdict");
    TCase *tc = tcase_create("verdict");
    tcase_add_test(tc, names_are_the_cts_names);
    tcase_add_test(tc, parse_inverts_name);
    tcase_add_test(tc, ok_truth_table);
    tcase_add_test(tc, classes);
    tcase_add_test(tc, result_init_marks_unknowns);
    tcase_add_test(tc, against_the_baseline);
    tcase_add_test(tc, worst_line);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
