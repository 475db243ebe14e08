/* test_junit.c: the JUnit sink against the committed schema (xmllint), with every
 * verdict, strict and not; counts and times consistent; names split into classname
 * and name; hostile strings; a complete file after open and after every add.
 * `test_reports_junit --write-sample FILE` writes a sample report (for the
 * validate-junit script's own test) and exits. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "q4report.h"
#include "testutil.h"

static const q4_prop props[] = {
    {"device", "llvmpipe (LLVM 15.0.6, 256 bits)"},
    {"driver", "Mesa 22.3.6 <&\"'>"},
    {"seed", "12345"},
    {"version", "0.1.0"},
};
#define NPROPS (sizeof props / sizeof props[0])

/* One case of every verdict, in enum order; returns the path of the closed report. */
static char *write_all_verdicts(const char *dir, int strict)
{
    char *path = tu_path(dir, "junit.xml");
    q4_junit *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_junit_open(path, "q4cts", props, NPROPS, &j, &err), Q4_OK);
    q4_junit_set_strict(j, strict);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        q4_result r;
        tu_result(&r, (q4_verdict)v, v);
        ck_assert_msg(q4_junit_add(j, &r, &err) == Q4_OK, "%s", err.msg);
        /* complete and valid after every add, with exactly the cases so far */
        ck_assert(tu_xml_valid(path));
        ck_assert_int_eq(tu_xpath_long(path, "count(//testcase)"), v + 1);
    }
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    return path;
}

static void assert_attr(const char *path, const char *xpath, const char *want)
{
    char *got = tu_xpath(path, xpath);
    ck_assert_msg(got != NULL, "xmllint failed on %s", xpath);
    ck_assert_msg(strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", xpath, got, want);
    free(got);
}

START_TEST(every_verdict_validates_and_counts_match)
{
    char *dir = tu_tmpdir();
    char *path = write_all_verdicts(dir, 0);
    ck_assert(tu_xml_valid(path));
    /* Pass, QualityWarning and Flake (lax) pass; Fail fails; NotSupported skips; 4 errors. */
    assert_attr(path, "string(/testsuites/testsuite/@tests)", "9");
    assert_attr(path, "string(/testsuites/testsuite/@failures)", "1");
    assert_attr(path, "string(/testsuites/testsuite/@errors)", "4");
    assert_attr(path, "string(/testsuites/testsuite/@skipped)", "1");
    assert_attr(path, "string(/testsuites/@tests)", "9");
    assert_attr(path, "string(/testsuites/@failures)", "1");
    assert_attr(path, "string(/testsuites/@errors)", "4");
    assert_attr(path, "string(/testsuites/testsuite/@name)", "q4cts");
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase)"), 9);
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/failure)"), 1);
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/error)"), 4);
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/skipped)"), 1);
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/system-out)"), 9);
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase[9]/*)"), 1);   /* a flake passes */
    /* every error carries its verdict as type */
    assert_attr(path, "string(//testcase[5]/error/@type)", "ResourceError");
    assert_attr(path, "string(//testcase[6]/error/@type)", "Crash");
    assert_attr(path, "string(//testcase[7]/error/@type)", "Timeout");
    assert_attr(path, "string(//testcase[8]/error/@type)", "InternalError");
    assert_attr(path, "string(//testcase[6]/error/@message)", "Crash: sample message 5");
    /* the failure names the worst element in its message, the repro in its body */
    assert_attr(path, "string(//testcase[2]/failure/@type)", "Fail");
    assert_attr(path, "string(//testcase[2]/failure/@message)",
                "y[138] (m=4, n=17): got 1.21875, expected 1, |err| 0.219, bound 0.0625, margin 3.5");
    char *body = tu_xpath(path, "string(//testcase[2]/failure)");
    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(strstr(body, "Fail: sample message 1"));
    ck_assert_ptr_nonnull(strstr(body, "repro: build/harness/q4cts --case q4cts.ce_loss.square.m9n16k32g32"));
    free(body);
    body = tu_xpath(path, "string(//testcase[2]/system-out)");
    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(strstr(body, "\ninputs: 3.0000 ms\ntruth: 8.0000 ms\n"
                                       "upload: 1.5000 ms\nreadback: 0.7500 ms"));
    ck_assert_ptr_null(strstr(body, "judge: "));   /* unknown: no line */
    free(body);
    assert_attr(path, "string(//testcase[4]/skipped/@message)", "NotSupported: sample message 3");
    /* QualityWarning, not strict: a pass with a note */
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase[3]/*)"), 1);
    char *out = tu_xpath(path, "string(//testcase[3]/system-out)");
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(strstr(out, "verdict: QualityWarning (counted as a pass: the run is not strict)"));
    free(out);
    /* the figures of a judged case */
    out = tu_xpath(path, "string(//testcase[1]/system-out)");
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(strstr(out, "case: q4cts.linear_fwd.square.m8n16k32g32\n"));
    ck_assert_ptr_nonnull(strstr(out, "verdict: Pass\n"));
    ck_assert_ptr_nonnull(strstr(out, "margin: 0.03125\n"));
    ck_assert_ptr_nonnull(strstr(out, "elements judged: 4096\nstatistical margin: 0.25\n"));
    ck_assert_ptr_nonnull(strstr(out, "worst: y[137] (m=3, n=17)"));
    ck_assert_ptr_nonnull(strstr(out, "gpu: unknown\n"));
    ck_assert_ptr_nonnull(strstr(out, "repro: build/harness/q4cts --case q4cts.linear_fwd.square.m8n16k32g32\n"));
    free(out);
    out = tu_xpath(path, "string(//testcase[2]/system-out)");
    ck_assert_ptr_nonnull(strstr(out, "gpu: 0.2500 ms\n"));
    free(out);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* Against a baseline: an expected failure is skipped, an unexpected pass fails, an
 * unexpected failure fails as it would without one; the figures say which. */
START_TEST(baseline_outcomes)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "b.xml");
    q4_junit *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_junit_open(path, "q4cts", props, NPROPS, &j, &err), Q4_OK);
    for (int i = 0; i < TU_BASELINE_CASES; i++) {
        q4_result r;
        tu_baseline_result(&r, i);
        ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    }
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    assert_attr(path, "string(/testsuites/testsuite/@failures)", "1");
    assert_attr(path, "string(/testsuites/testsuite/@errors)", "1");
    assert_attr(path, "string(/testsuites/testsuite/@skipped)", "1");
    assert_attr(path, "string(//testcase[1]/skipped/@message)",
                "expected Fail (baseline): Fail: sample message 0");
    assert_attr(path, "string(//testcase[2]/failure/@type)", "UnexpectedPass");
    assert_attr(path, "string(//testcase[2]/failure/@message)",
                "unexpected pass: the baseline expects Fail, got Pass");
    assert_attr(path, "string(//testcase[3]/error/@type)", "Crash");
    char *out = tu_xpath(path, "string(//testcase[3]/system-out)");
    ck_assert_ptr_nonnull(strstr(out, "\nbaseline: Pass (unexpected fail)\n"));
    free(out);
    out = tu_xpath(path, "string(//testcase[4]/system-out)");
    ck_assert_ptr_nonnull(strstr(out, "\ntries: 2\nbaseline: Pass (as expected)\n"));
    free(out);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(strict_turns_quality_warning_into_failure)
{
    char *dir = tu_tmpdir();
    char *path = write_all_verdicts(dir, 1);
    ck_assert(tu_xml_valid(path));
    assert_attr(path, "string(/testsuites/testsuite/@failures)", "3");
    assert_attr(path, "string(/testsuites/testsuite/@errors)", "4");
    assert_attr(path, "string(//testcase[9]/failure/@type)", "Flake");
    assert_attr(path, "string(/testsuites/testsuite/@skipped)", "1");
    assert_attr(path, "string(//testcase[3]/failure/@type)", "QualityWarning");
    assert_attr(path, "string(//property[@name='strict']/@value)", "1");
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(names_props_and_times)
{
    char *dir = tu_tmpdir();
    char *path = write_all_verdicts(dir, 0);
    assert_attr(path, "string(//testcase[1]/@classname)", "q4cts.linear_fwd.square");
    assert_attr(path, "string(//testcase[1]/@name)", "m8n16k32g32");
    assert_attr(path, "string(//testcase[2]/@classname)", "q4cts.ce_loss.square");
    /* run-wide facts, the harness's own plus "strict" and "complete", in the testsuite's
     * properties */
    ck_assert_int_eq(tu_xpath_long(path, "count(/testsuites/testsuite/properties/property)"), NPROPS + 2);
    assert_attr(path, "string(//property[@name='driver']/@value)", "Mesa 22.3.6 <&\"'>");
    assert_attr(path, "string(//property[@name='seed']/@value)", "12345");
    assert_attr(path, "string(//property[@name='strict']/@value)", "0");
    /* times: case i took (i+1) ms; the suite's time is their exact sum, 45 ms */
    assert_attr(path, "string(//testcase[1]/@time)", "0.001000");
    assert_attr(path, "string(//testcase[8]/@time)", "0.008000");
    assert_attr(path, "string(/testsuites/testsuite/@time)", "0.045000");
    assert_attr(path, "string(/testsuites/@time)", "0.045000");
    char *sum = tu_xpath(path, "sum(//testcase/@time)");
    ck_assert_ptr_nonnull(sum);
    ck_assert_double_eq_tol(strtod(sum, NULL), 0.045, 1e-12);
    free(sum);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* A truth made while judging says so on its truth line; judge keeps its own. */
START_TEST(fused_truth_says_so)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "junit.xml");
    q4_junit *j = NULL;
    q4_error err = {0};
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    r.truth_ms = 4.0;
    r.judge_ms = 0.5;
    r.truth_fused = 1;
    ck_assert_int_eq(q4_junit_open(path, "q4cts", props, NPROPS, &j, &err), Q4_OK);
    ck_assert_msg(q4_junit_add(j, &r, &err) == Q4_OK, "%s", err.msg);
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    char *body = tu_xpath(path, "string(//testcase[1]/system-out)");
    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(strstr(body, "\ntruth: 4.0000 ms (fused with judging)\n"));
    ck_assert_ptr_nonnull(strstr(body, "\njudge: 0.5000 ms"));
    free(body);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

/* --shader-coverage: a property per kernel, in every write after set_coverage; the
 * document still validates; a second call replaces the first. */
START_TEST(shader_coverage_properties)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "cov.xml");
    q4_junit *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_junit_open(path, "q4cts", props, NPROPS, &j, &err), Q4_OK);
    ck_assert_int_eq(tu_xpath_long(path, "count(//property[starts-with(@name, 'shader_coverage.')])"), 0);
    q4_kernel_coverage k[2] = {
        {.kernel = "linear_q4gsw_gemv", .lines = 91, .lines_hit = 90, .branches = 74,
         .branches_hit = 73, .blocks = 120, .blocks_hit = 118},
        {.kernel = "dequantize<&>", .overridden = 1, .blocks = 9, .blocks_hit = 3},
    };
    ck_assert_int_eq(q4_junit_set_coverage(j, k, 1, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_set_coverage(j, k, 2, &err), Q4_OK);   /* replaces */
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    assert_attr(path, "string(//property[@name='shader_coverage.linear_q4gsw_gemv']/@value)",
                "lines 90/91, branches 73/74, blocks 118/120");
    assert_attr(path, "string(//property[@name='shader_coverage.dequantize<&>.override']/@value)",
                "lines 0/0, branches 0/0, blocks 3/9");
    ck_assert_int_eq(tu_xpath_long(path, "count(//property[starts-with(@name, 'shader_coverage.')])"), 2);
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    ck_assert_int_eq(tu_xpath_long(path, "count(//property[starts-with(@name, 'shader_coverage.')])"), 2);
    ck_assert_int_eq(q4_junit_set_coverage(NULL, k, 1, &err), Q4_ERR_ARG);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(odd_results_still_validate)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "odd.xml");
    q4_junit *j = NULL;
    q4_error err = {0};
    /* a prop named strict replaces ours; a NULL key is skipped; NULL value is "" */
    q4_prop p[] = {{"strict", "yes"}, {NULL, "x"}, {"empty", NULL}};
    ck_assert_int_eq(q4_junit_open(path, NULL, p, 3, &j, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    assert_attr(path, "string(/testsuites/testsuite/@tests)", "0");
    assert_attr(path, "string(/testsuites/testsuite/@name)", "q4cts");
    ck_assert_int_eq(tu_xpath_long(path, "count(//property)"), 3);
    assert_attr(path, "string(//property[@name='strict']/@value)", "yes");

    q4_result r;
    q4_result_init(&r);       /* InternalError, nothing else set */
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    tu_result(&r, Q4_PASS, 0);
    r.seconds = NAN;          /* not a plain decimal: written as 0 */
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    r.seconds = -5;
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    r.seconds = INFINITY;
    r.worst_margin = INFINITY;
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    r.verdict = (q4_verdict)42;   /* outside the enum: an error, never a pass */
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    /* a name outside the q4cts.<op>.<family>. scheme keeps its full name */
    tu_result(&r, Q4_PASS, 0);
    strcpy(r.name, "custom-case");
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    /* every char[] field filled to the brim with no NUL, hostile bytes inside */
    memset(&r, 0, sizeof r);
    memset(r.name, '<', sizeof r.name);
    memset(r.op, '&', sizeof r.op);
    memset(r.family, '"', sizeof r.family);
    memset(r.output, '\x01', sizeof r.output);
    memset(r.where, '\xff', sizeof r.where);
    memset(r.message, '\'', sizeof r.message);
    memset(r.repro, '>', sizeof r.repro);
    r.verdict = Q4_FAIL;
    r.worst_margin = 2;
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);

    ck_assert(tu_xml_valid(path));
    assert_attr(path, "string(/testsuites/testsuite/@tests)", "7");
    assert_attr(path, "string(/testsuites/testsuite/@errors)", "2");
    assert_attr(path, "string(/testsuites/testsuite/@failures)", "1");
    assert_attr(path, "string(//testcase[1]/error/@type)", "InternalError");
    assert_attr(path, "string(//testcase[1]/@classname)", "q4cts");
    assert_attr(path, "string(//testcase[2]/@time)", "0.000000");
    assert_attr(path, "string(//testcase[3]/@time)", "0.000000");
    assert_attr(path, "string(//testcase[4]/@time)", "1000000000.000000");   /* capped */
    assert_attr(path, "string(//testcase[5]/error/@type)", "Unknown");
    assert_attr(path, "string(//testcase[6]/@name)", "custom-case");
    char *name = tu_xpath(path, "string(//testcase[7]/@name)");
    ck_assert_ptr_nonnull(name);
    ck_assert_uint_eq(strlen(name), sizeof r.name);   /* 128 '<', read no further */
    ck_assert_uint_eq(strspn(name, "<"), sizeof r.name);
    free(name);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(hostile_strings_round_trip)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "hostile.xml");
    static const char nasty[] = "x<y>&z\"q'r\ts\nt\ru\x07v\x1b[2Jw ]]> \xce\xbb \xff";
    static const char back[] = "x<y>&z\"q'r\ts\nt\ru\xef\xbf\xbdv\xef\xbf\xbd[2Jw ]]> \xce\xbb \xef\xbf\xbd";
    q4_prop p[] = {{"device", nasty}, {nasty, "v"}};
    q4_junit *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_junit_open(path, nasty, p, 2, &j, &err), Q4_OK);
    q4_result r;
    tu_result(&r, Q4_NOT_SUPPORTED, 1);
    snprintf(r.message, sizeof r.message, "%s", nasty);
    snprintf(r.name, sizeof r.name, "q4cts.ce_loss.square.%s", nasty);
    snprintf(r.repro, sizeof r.repro, "%s", nasty);
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    tu_result(&r, Q4_CRASH, 2);
    snprintf(r.message, sizeof r.message, "%s", nasty);
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    assert_attr(path, "string(/testsuites/testsuite/@name)", back);
    assert_attr(path, "string(//property[1]/@value)", back);
    assert_attr(path, "string(//property[2]/@name)", back);
    assert_attr(path, "string(//testcase[1]/skipped/@message)", back);
    assert_attr(path, "string(//testcase[1]/@name)", back);
    assert_attr(path, "string(//testcase[2]/error/@message)", back);
    char *out = tu_xpath(path, "string(//testcase[1]/system-out)");
    ck_assert_ptr_nonnull(out);
    char want[256];
    snprintf(want, sizeof want, "repro: %s\n", back);
    ck_assert_ptr_nonnull(strstr(out, want));
    free(out);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(bad_path_and_arguments)
{
    q4_junit *j = (q4_junit *)&j;   /* must be reset to NULL on failure */
    q4_error err = {0};
    ck_assert_int_eq(q4_junit_open("/nonexistent-dir-q4/junit.xml", "s", NULL, 0, &j, &err), Q4_ERR_IO);
    ck_assert_ptr_null(j);
    ck_assert_int_eq(err.status, Q4_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir-q4/junit.xml"));
    ck_assert_int_eq(q4_junit_open(NULL, "s", NULL, 0, &j, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_junit_open("x.xml", "s", NULL, 2, &j, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_junit_add(NULL, NULL, &err), Q4_ERR_ARG);
    ck_assert_int_eq(q4_junit_close(NULL, &err), Q4_OK);
    q4_junit_set_strict(NULL, 1);   /* no crash */
}
END_TEST

/* A write failure after open is reported, and the case is not lost: the next
 * successful write holds it. */
START_TEST(failed_write_is_retried)
{
    char *dir = tu_tmpdir();
    char *sub = tu_path(dir, "sub");
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    char *path = tu_path(sub, "j.xml");
    q4_junit *j = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_junit_open(path, "s", NULL, 0, &j, &err), Q4_OK);
    /* Take the folder away under the writer. */
    unlink(path);
    ck_assert_int_eq(rmdir(sub), 0);
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.msg, "j.xml: No such file or directory"));
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    ck_assert(tu_xml_valid(path));
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase)"), 1);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(tu_count_entries(sub), 1);   /* no stray temp file */
    unlink(path);
    rmdir(sub);   /* tu_rmdir_free removes flat folders only */
    tu_rmdir_free(dir, path, sub, NULL);
}
END_TEST

static int write_sample(const char *path)
{
    q4_junit *j = NULL;
    q4_error err = {0};
    if (q4_junit_open(path, "q4cts", props, NPROPS, &j, &err) != Q4_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        q4_result r;
        tu_result(&r, (q4_verdict)v, v);
        if (q4_junit_add(j, &r, &err) != Q4_OK) {
            fprintf(stderr, "%s\n", err.msg);
            q4_junit_close(j, NULL);
            return 1;
        }
    }
    if (q4_junit_close(j, &err) != Q4_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-sample") == 0)
        return write_sample(argv[2]);
    Suite *s = suite_create("reports.junit");
    TCase *tc = tcase_create("junit");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_verdict_validates_and_counts_match);
    tcase_add_test(tc, strict_turns_quality_warning_into_failure);
    tcase_add_test(tc, baseline_outcomes);
    tcase_add_test(tc, names_props_and_times);
    tcase_add_test(tc, fused_truth_says_so);
    tcase_add_test(tc, shader_coverage_properties);
    tcase_add_test(tc, odd_results_still_validate);
    tcase_add_test(tc, hostile_strings_round_trip);
    tcase_add_test(tc, bad_path_and_arguments);
    tcase_add_test(tc, failed_write_is_retried);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
