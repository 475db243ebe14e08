/* test_crash.c: crash safety of the file sinks. A child process opens a JUnit and a
 * JSON report and adds cases; the parent SIGKILLs it (after exactly K adds, or at an
 * arbitrary moment while it is writing) and checks that both files are complete,
 * valid documents holding exactly the cases that were finished. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jsoncheck.h"
#include "q4report.h"
#include "testutil.h"

/* The child: adds `k` cases (forever when k < 0), telling the parent one byte per
 * finished pair of adds, then 'D' and waits to be killed. Never returns. */
static void child(const char *xml, const char *json, int k, int fd)
{
    q4_prop props[] = {{"device", "crash-test"}};
    q4_junit *j = NULL;
    q4_json *js = NULL;
    if (q4_junit_open(xml, "q4cts", props, 1, &j, NULL) != Q4_OK ||
        q4_json_open(json, props, 1, &js, NULL) != Q4_OK)
        _exit(3);
    if (k < 0) {
        /* The endless run also covers fsync off: atomic rename alone must keep a
         * killed process's reports whole (fsync only guards against power cuts). */
        q4_junit_set_fsync(j, 0);
        q4_json_set_fsync(js, 0);
    }
    for (int i = 0; k < 0 || i < k; i++) {
        q4_result r;
        tu_result(&r, (q4_verdict)(i % Q4_VERDICT_COUNT), i);
        /* long messages make each rewrite longer, so a kill lands mid-write often */
        memset(r.message, 'm', sizeof r.message - 1);
        r.message[sizeof r.message - 1] = '\0';
        if (q4_junit_add(j, &r, NULL) != Q4_OK || q4_json_add(js, &r, NULL) != Q4_OK)
            _exit(4);
        if (write(fd, "+", 1) != 1)
            _exit(5);
    }
    if (write(fd, "D", 1) != 1)
        _exit(5);
    for (;;)
        pause();   /* no close: the kill below is the end of this "run" */
}

/* Forks the child, reads until it has reported `wait_for` adds (or 'D'), kills it. */
static void run_and_kill(const char *xml, const char *json, int k, int wait_for)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        child(xml, json, k, fds[1]);
    }
    close(fds[1]);
    int seen = 0;
    char ch = 0;
    while (seen < wait_for || (k >= 0 && ch != 'D')) {
        ssize_t n = read(fds[0], &ch, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != 1)
            break;             /* the child died on its own: caught below */
        if (ch == '+')
            seen++;
    }
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    close(fds[0]);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                  "the child ended by itself (exit %d) before the kill",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    ck_assert_int_ge(seen, wait_for);
}

/* Number of cases in the JSON report, checking it is complete and consistent. */
static long json_cases(const char *path)
{
    size_t len;
    char *text = tu_read(path, &len);
    ck_assert_ptr_nonnull(text);
    char why[160] = "";
    jc_value *doc = jc_parse(text, len, why, sizeof why);
    ck_assert_msg(doc != NULL, "JSON report left by a killed run is malformed: %s", why);
    const jc_value *q = jc_get(doc, "q4cts");
    const jc_value *res = jc_get(q, "results");
    const jc_value *total = jc_get(jc_get(q, "summary"), "total");
    ck_assert_ptr_nonnull(res);
    ck_assert_ptr_nonnull(total);
    ck_assert_int_eq((long)total->num, (long)res->n);
    long n = (long)res->n;
    jc_free(doc);
    free(text);
    return n;
}

/* Number of cases in the JUnit report, checking it validates and counts agree. */
static long junit_cases(const char *path)
{
    ck_assert_msg(tu_xml_valid(path), "JUnit report left by a killed run does not validate");
    long n = tu_xpath_long(path, "count(//testcase)");
    ck_assert_int_eq(tu_xpath_long(path, "number(/testsuites/testsuite/@tests)"), n);
    long f = tu_xpath_long(path, "number(/testsuites/testsuite/@failures)");
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/failure)"), f);
    long e = tu_xpath_long(path, "number(/testsuites/testsuite/@errors)");
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/error)"), e);
    long s = tu_xpath_long(path, "number(/testsuites/testsuite/@skipped)");
    ck_assert_int_eq(tu_xpath_long(path, "count(//testcase/skipped)"), s);
    return n;
}

static const int ks[] = {0, 1, 5, 17};

/* Killed between cases, after exactly K adds: exactly K cases, and no stray temp. */
START_TEST(killed_after_k_adds)
{
    int k = ks[_i];
    char *dir = tu_tmpdir();
    char *xml = tu_path(dir, "junit.xml");
    char *json = tu_path(dir, "report.json");
    run_and_kill(xml, json, k, k);
    ck_assert_int_eq(junit_cases(xml), k);
    ck_assert_int_eq(json_cases(json), k);
    ck_assert_int_eq(tu_count_entries(dir), 2);   /* the reports, no temp file */
    tu_rmdir_free(dir, xml, json, NULL);
}
END_TEST

/* Entries of dir besides the two reports, each removed; every one must be a finished
 * temp file of a report (junit.xml.XXXXXX.tmp, report.json.XXXXXX.tmp): a SIGKILL
 * between its link and its rename leaves it (report_file.c). */
static int stray_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        size_t len = strlen(s);
        if (!strcmp(s, ".") || !strcmp(s, "..") || !strcmp(s, "junit.xml") ||
            !strcmp(s, "report.json"))
            continue;
        ck_assert_msg((!strncmp(s, "junit.xml.", 10) || !strncmp(s, "report.json.", 12)) &&
                      len > 11 && !strcmp(s + len - 4, ".tmp"),
                      "a killed run left %s beside its reports", s);
        char *path = tu_path(dir, s);
        ck_assert_int_eq(unlink(path), 0);
        free(path);
        n++;
    }
    closedir(d);
    return n;
}

/* Killed at an arbitrary moment of a run that never stops adding, most likely in the
 * middle of rewriting a file: each file still holds a whole number of cases, at least
 * as many as the child had reported finished (maybe one more than the other file). */
START_TEST(killed_while_writing)
{
    /* Several kill points: a non-atomic writer fails at least one of them in
     * practice (checked by hand by making atomic_file.c write PATH in place). */
    static const int waits[] = {3, 11, 20, 37, 57, 90, 120, 160};
    int w = waits[_i];
    char *dir = tu_tmpdir();
    char *xml = tu_path(dir, "junit.xml");
    char *json = tu_path(dir, "report.json");
    run_and_kill(xml, json, -1, w);
    long nx = junit_cases(xml), nj = json_cases(json);
    ck_assert_int_ge(nx, w);
    ck_assert_int_ge(nj, w);
    /* JUnit is written first each add, so it leads JSON by at most one case */
    ck_assert_int_ge(nx, nj);
    ck_assert_int_le(nx, nj + 1);
    /* Killed mid-write: at most the one finished temp file the kill caught between
     * link and rename (two files are replaced in turn, never at once). */
    ck_assert_int_le(stray_temp_files(dir), 1);
    ck_assert_int_eq(tu_count_entries(dir), 2);
    tu_rmdir_free(dir, xml, json, NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.crash");
    TCase *tc = tcase_create("crash");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, killed_after_k_adds, 0, (int)(sizeof ks / sizeof ks[0]));
    tcase_add_loop_test(tc, killed_while_writing, 0, 8);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
