/* test_console.c: the console sink written to a file (not a terminal): one line per
 * case, a block per not-ok case, the per-op summary table and the totals; the live
 * line when forced on; control bytes never reach the output raw. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q4report.h"
#include "testutil.h"

/* Everything written to f so far, NUL-terminated. */
static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    rewind(f);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    return buf;
}

/* The line that starts with prefix, copied out (without its newline). */
static char *line_starting(const char *text, const char *prefix)
{
    size_t pn = strlen(prefix);
    for (const char *p = text; p && *p; ) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= pn && memcmp(p, prefix, pn) == 0) {
            char *l = malloc(n + 1);
            memcpy(l, p, n);
            l[n] = '\0';
            return l;
        }
        p = nl ? nl + 1 : NULL;
    }
    ck_abort_msg("no line starts with \"%s\" in:\n%s", prefix, text);
    return NULL;
}

static void assert_line(const char *text, const char *want)
{
    char *l = line_starting(text, want);
    ck_assert_str_eq(l, want);
    free(l);
}

/* Some line of text begins with want (the rest, such as a time, varies). */
static void assert_line_begins(const char *text, const char *want)
{
    free(line_starting(text, want));
}

/* A summary row: op, pass, fail, warn, n/s, other, worst margin, worst stat. */
static void assert_row(const char *text, const char *op, int pass, int fail, int warn,
                       int ns, int other, const char *margin, const char *stat)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s ", op);
    char *l = line_starting(text, prefix);
    char name[64], m[32], st[32];
    int c[5];
    ck_assert_int_eq(sscanf(l, "%63s %d %d %d %d %d %31s %31s", name, &c[0], &c[1], &c[2], &c[3],
                            &c[4], m, st), 8);
    ck_assert_str_eq(st, stat);
    ck_assert_str_eq(name, op);
    ck_assert_int_eq(c[0], pass);
    ck_assert_int_eq(c[1], fail);
    ck_assert_int_eq(c[2], warn);
    ck_assert_int_eq(c[3], ns);
    ck_assert_int_eq(c[4], other);
    ck_assert_str_eq(m, margin);
    free(l);
}

static char *run_all_verdicts(int strict, q4_console **keep)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    q4_console *c = q4_console_new(f, Q4_VERDICT_COUNT, strict);
    ck_assert_ptr_nonnull(c);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++) {
        q4_result r;
        tu_result(&r, (q4_verdict)v, v);
        q4_console_begin(c, r.name);
        q4_console_result(c, &r);
    }
    q4_console_summary(c);
    char *text = slurp(f);
    fclose(f);
    *keep = c;
    return text;
}

START_TEST(plain_lines_blocks_and_summary)
{
    q4_console *c;
    char *t = run_all_verdicts(0, &c);
    /* not a terminal: no live line, no escape sequences */
    ck_assert_ptr_null(strchr(t, '\r'));
    ck_assert_ptr_null(strchr(t, '\033'));
    assert_line(t, "Pass            q4cts.linear_fwd.square.m8n16k32g32  margin 0.0312  stat 0.25  1.0 ms");
    assert_line(t, "Fail            q4cts.ce_loss.square.m9n16k32g32  margin 3.5  2.0 ms  gpu 250 us  inputs 3.0 ms  truth 8.0 ms");
    assert_line(t, "    message: Fail: sample message 1");
    assert_line(t, "    worst:   y[138] (m=4, n=17): got 1.21875, expected 1, |err| 0.219, bound 0.0625, margin 3.5");
    assert_line(t, "    judged:  4096");
    assert_line(t, "    repro:   build/harness/q4cts --case q4cts.ce_loss.square.m9n16k32g32");
    /* QualityWarning, not strict: its line and a note, no block */
    assert_line(t, "QualityWarning  q4cts.adamw.square.m10n16k32g32  margin 0.0938  3.0 ms");
    assert_line(t, "    note:    QualityWarning: sample message 2");
    assert_line(t, "NotSupported    q4cts.linear_fwd.square.m11n16k32g32  4.0 ms  gpu 750 us  (NotSupported: sample message 3)");
    /* an error: block with message and repro, no worst element (not judged) */
    assert_line(t, "Crash           q4cts.adamw.square.m13n16k32g32  6.0 ms  gpu 1.2 ms");
    assert_line(t, "    message: Crash: sample message 5");
    ck_assert_ptr_null(strstr(t, "    worst:   not judged"));

    /* the table: ops in order of first appearance */
    assert_line(t, "op            pass   fail   warn    n/s  other  worst margin  worst stat       time");
    assert_row(t, "linear_fwd", 1, 0, 0, 1, 1, "0.03125", "0.25");
    assert_row(t, "ce_loss", 0, 1, 0, 0, 2, "3.5", "-");
    assert_row(t, "adamw", 0, 0, 1, 0, 2, "0.09375", "-");
    assert_row(t, "total", 1, 1, 1, 1, 5, "3.5", "0.25");
    /* a flake: ok unless strict, its line and a note, and listed at the end */
    assert_line(t, "    note:    Flake: sample message 8");
    assert_line(t, "flaky (failed, then passed on a retry):");
    assert_line(t, "  Flake           q4cts.adamw.square.m16n16k32g32");
    char *row = line_starting(t, "linear_fwd ");
    ck_assert_ptr_nonnull(strstr(row, "12.0 ms"));   /* 1 + 4 + 7 ms */
    free(row);
    assert_line(t, "verdicts: 1 Pass, 1 Fail, 1 QualityWarning, 1 NotSupported, 1 ResourceError, "
                   "1 Crash, 1 Timeout, 1 InternalError, 1 Flake");
    assert_line(t, "not ok:");
    assert_line(t, "  Fail            q4cts.ce_loss.square.m9n16k32g32");
    assert_line(t, "  InternalError   q4cts.ce_loss.square.m15n16k32g32");
    assert_line_begins(t, "result: FAIL, 5 of 9 cases not ok, 9 run of 9 planned, ");

    ck_assert_uint_eq(q4_console_not_ok(c), 5);
    for (int v = 0; v < Q4_VERDICT_COUNT; v++)
        ck_assert_uint_eq(q4_console_count(c, (q4_verdict)v), 1);
    q4_console_free(c);
    free(t);
}
END_TEST

START_TEST(strict_blocks_quality_warning)
{
    q4_console *c;
    char *t = run_all_verdicts(1, &c);
    assert_line(t, "QualityWarning  q4cts.adamw.square.m10n16k32g32  margin 0.0938  3.0 ms");
    assert_line(t, "    message: QualityWarning: sample message 2");
    assert_line(t, "    worst:   y[139] (m=5, n=17): got 1.00585938, expected 1, |err| 0.00586, bound 0.0625, margin 0.09375");
    assert_line(t, "  QualityWarning  q4cts.adamw.square.m10n16k32g32");
    assert_line_begins(t, "result: FAIL, 7 of 9 cases not ok (strict: QualityWarning fails), 9 run of 9 planned");
    ck_assert_ptr_null(strstr(t, "    note:"));
    ck_assert_uint_eq(q4_console_not_ok(c), 7);
    q4_console_free(c);
    free(t);
}
END_TEST

/* Against a baseline: expected failures pass and are marked, unexpected passes and
 * failures are counted and listed apart, and only they fail the run. */
START_TEST(baseline_summary)
{
    FILE *f = tmpfile();
    q4_console *c = q4_console_new(f, 4, 0);
    for (int i = 0; i < TU_BASELINE_CASES; i++) {
        q4_result r;
        tu_baseline_result(&r, i);
        q4_console_result(c, &r);
    }
    q4_console_summary(c);
    char *t = slurp(f);
    assert_line(t, "Fail            q4cts.linear_fwd.square.m8n16k32g32  margin 3.5  1.0 ms  inputs 3.0 ms  truth 8.0 ms  (expected: baseline)");
    assert_line(t, "Pass            q4cts.ce_loss.square.m9n16k32g32  margin 0.0625  stat 0.25  2.0 ms  gpu 250 us  UNEXPECTED PASS (baseline: Fail)");
    assert_line(t, "baseline: 2 as expected (1 expected failures), 1 unexpected pass, 1 unexpected fail");
    assert_line(t, "unexpected pass:");
    assert_line(t, "  Pass            q4cts.ce_loss.square.m9n16k32g32  (baseline: Fail)");
    assert_line(t, "unexpected fail:");
    assert_line(t, "  Crash           q4cts.adamw.square.m10n16k32g32  (baseline: Pass)");
    assert_line(t, "  Flake           q4cts.linear_fwd.square.m11n16k32g32");   /* a flake passes */
    assert_line(t, "Flake           q4cts.linear_fwd.square.m11n16k32g32  4.0 ms  gpu 750 us  tries 2");
    ck_assert_ptr_null(strstr(t, "not ok:"));
    assert_line_begins(t, "result: FAIL, 2 of 4 cases not ok against the baseline, 4 run of 4 planned");
    ck_assert_uint_eq(q4_console_not_ok(c), 2);
    q4_console_free(c);
    fclose(f);
    free(t);
}
END_TEST

START_TEST(all_ok_run)
{
    FILE *f = tmpfile();
    q4_console *c = q4_console_new(f, 3, 0);
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    q4_console_result(c, &r);
    tu_result(&r, Q4_NOT_SUPPORTED, 1);
    r.op[0] = '\0';   /* a result with no op still lands in the table */
    q4_console_result(c, &r);
    q4_console_summary(c);
    char *t = slurp(f);
    assert_row(t, "linear_fwd", 1, 0, 0, 0, 0, "0.03125", "0.25");
    assert_row(t, "(none)", 0, 0, 0, 1, 0, "-", "-");
    assert_line(t, "verdicts: 1 Pass, 1 NotSupported");
    ck_assert_ptr_null(strstr(t, "not ok:"));
    assert_line_begins(t, "result: PASS, 0 of 2 cases not ok, 2 run of 3 planned, ");
    ck_assert_uint_eq(q4_console_not_ok(c), 0);
    q4_console_free(c);
    fclose(f);
    free(t);
}
END_TEST

START_TEST(live_line_when_forced)
{
    setenv("COLUMNS", "80", 1);   /* a file has no window size: the fallback width */
    FILE *f = tmpfile();
    q4_console *c = q4_console_new(f, 3, 0);
    q4_console_set_live(c, 1);
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    q4_console_begin(c, r.name);
    q4_console_result(c, &r);          /* ok: nothing but the counts change */
    tu_result(&r, Q4_FAIL, 1);
    q4_console_begin(c, r.name);
    q4_console_result(c, &r);          /* not ok: the live line gives way to a block */
    char long_name[200];
    memset(long_name, 'x', sizeof long_name);
    memcpy(long_name + 189, "TAIL_12345", 10);
    long_name[199] = '\0';
    q4_console_begin(c, long_name);
    q4_console_summary(c);
    char *t = slurp(f);
    ck_assert_ptr_nonnull(strstr(t, "\r[0/3] pass 0 fail 0 skip 0  "));
    ck_assert_ptr_nonnull(strstr(t, "q4cts.linear_fwd.square.m8n16k32g32\033[K"));
    ck_assert_ptr_nonnull(strstr(t, "\r[1/3] pass 1 fail 0 skip 0  "));
    /* the time left: unknown before a case is done, then a whole number of seconds */
    ck_assert_ptr_nonnull(strstr(t, "s  ETA -  q4cts.linear_fwd.square"));
    const char *eta = strstr(strstr(t, "\r[1/3]"), "s  ETA ");
    ck_assert(eta && eta[7] >= '0' && eta[7] <= '9');
    ck_assert_ptr_nonnull(strstr(t, "\r\033[KFail            q4cts.ce_loss.square.m9n16k32g32  margin 3.5"));
    ck_assert_ptr_nonnull(strstr(t, "\n    repro:   build/harness/q4cts --case q4cts.ce_loss.square.m9n16k32g32\n"));
    ck_assert_ptr_nonnull(strstr(t, "\r[2/3] pass 1 fail 1 skip 0  "));
    /* a pass prints no line of its own in live mode */
    ck_assert_ptr_null(strstr(t, "Pass            q4cts"));
    /* the long name is cut from the front to fit 80 columns */
    const char *live = strstr(t, "\r[2/3]");
    const char *end = strstr(live, "\033[K");
    ck_assert_ptr_nonnull(end);
    ck_assert_int_eq(end - live - 1, 79);   /* \r excluded; the last column kept free */
    ck_assert_ptr_nonnull(strstr(live, "...xxx"));
    ck_assert(end - live > 10 && memcmp(end - 10, "TAIL_12345", 10) == 0);
    /* the summary clears the live line first */
    ck_assert_ptr_nonnull(strstr(end, "\r\033[K\nop "));
    q4_console_free(c);
    fclose(f);
    free(t);
    unsetenv("COLUMNS");
}
END_TEST

START_TEST(control_bytes_are_neutralised)
{
    FILE *f = tmpfile();
    q4_console *c = q4_console_new(f, 1, 0);
    q4_result r;
    tu_result(&r, Q4_CRASH, 0);
    snprintf(r.message, sizeof r.message, "device lost\x1b[2J\x07 at\tdispatch\nsecond line");
    snprintf(r.name, sizeof r.name, "q4cts.linear_fwd.square.\x1b]0;pwned\x07");
    q4_console_result(c, &r);
    char *t = slurp(f);
    ck_assert_ptr_null(strchr(t, '\033'));
    ck_assert_ptr_null(strchr(t, '\a'));
    assert_line(t, "Crash           q4cts.linear_fwd.square.?]0;pwned?  1.0 ms");
    /* a newline in the message continues inside the block, indented */
    assert_line(t, "    message: device lost?[2J? at dispatch");
    assert_line(t, "             second line");
    q4_console_free(c);
    fclose(f);
    free(t);
}
END_TEST

/* Beyond ASCII: a C1 control (raw 0x9B, or U+009B in UTF-8: a CSI to some terminals),
 * a direction override and invalid UTF-8 are escaped as q4_echo shows them; valid
 * UTF-8 text stays as it is. */
START_TEST(c1_controls_and_marks_are_escaped)
{
    FILE *f = tmpfile();
    q4_console *c = q4_console_new(f, 1, 0);
    q4_result r;
    tu_result(&r, Q4_CRASH, 0);
    snprintf(r.message, sizeof r.message, "lost \x9b" "2J and \xc2\x9b" "31m, caf\xc3\xa9 \xe2\x80\xae" "evil");
    q4_console_result(c, &r);
    char *t = slurp(f);
    ck_assert_ptr_null(strstr(t, "\x9b"));
    ck_assert_ptr_null(strstr(t, "\xc2\x9b"));
    ck_assert_ptr_null(strstr(t, "\xe2\x80\xae"));
    assert_line(t, "    message: lost \\x9B2J and \\u009B31m, caf\xc3\xa9 \\u202Eevil");
    q4_console_free(c);
    fclose(f);
    free(t);
}
END_TEST

START_TEST(null_console_is_harmless)
{
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    q4_console_set_live(NULL, 1);
    q4_console_begin(NULL, "x");
    q4_console_result(NULL, &r);
    q4_console_summary(NULL);
    ck_assert_uint_eq(q4_console_count(NULL, Q4_PASS), 0);
    ck_assert_uint_eq(q4_console_not_ok(NULL), 0);
    q4_console_free(NULL);
    FILE *f = tmpfile();
    q4_console *c = q4_console_new(f, 0, 0);
    q4_console_result(c, NULL);
    q4_console_begin(c, NULL);
    ck_assert_uint_eq(q4_console_count(c, (q4_verdict)77), 0);
    q4_console_free(c);
    fclose(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.console");
    TCase *tc = tcase_create("console");
    tcase_add_test(tc, plain_lines_blocks_and_summary);
    tcase_add_test(tc, strict_blocks_quality_warning);
    tcase_add_test(tc, all_ok_run);
    tcase_add_test(tc, live_line_when_forced);
    tcase_add_test(tc, baseline_summary);
    tcase_add_test(tc, control_bytes_are_neutralised);
    tcase_add_test(tc, c1_controls_and_marks_are_escaped);
    tcase_add_test(tc, null_console_is_harmless);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
