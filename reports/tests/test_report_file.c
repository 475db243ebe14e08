/* test_report_file.c: what a report path names is never destroyed (report_file.c).
 * A symbolic link stays a link (its regular target is replaced), a device, a FIFO or
 * our own stdout is written through once at close, a folder is refused; temp names are
 * unique, so two writers of one path do not collide and no temp file is left; and
 * the planned count and the completion marker tell a finished run from a cut one. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jsoncheck.h"
#include "q4report.h"
#include "testutil.h"

/* A JSON report at path with n cases, closed (complete) or left open. */
static void json_run(const char *path, int n, const char *stopped)
{
    q4_json *j = NULL;
    q4_error err = {0};
    ck_assert_msg(q4_json_open(path, NULL, 0, &j, &err) == Q4_OK, "%s", err.msg);
    q4_json_set_planned(j, (size_t)n + 2);
    for (int i = 0; i < n; i++) {
        q4_result r;
        tu_result(&r, Q4_PASS, i);
        ck_assert_msg(q4_json_add(j, &r, &err) == Q4_OK, "%s", err.msg);
    }
    if (stopped)
        q4_json_set_stopped(j, stopped);
    ck_assert_msg(q4_json_close(j, &err) == Q4_OK, "%s", err.msg);
}

static const jc_value *top(const jc_value *doc)
{
    const jc_value *q = jc_get(doc, "q4cts");
    ck_assert_ptr_nonnull(q);
    return q;
}

START_TEST(symlink_to_regular_file_stays_a_link)
{
    char *dir = tu_tmpdir();
    char *target = tu_path(dir, "run42.json"), *link = tu_path(dir, "latest.json");
    FILE *f = fopen(target, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(chmod(target, 0600), 0);
    ck_assert_int_eq(symlink("run42.json", link), 0);
    json_run(link, 2, NULL);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the symbolic link was replaced by a file");
    ck_assert_int_eq(stat(target, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);   /* a replaced file keeps its mode */
    jc_value *doc = tu_json_load(target);
    ck_assert_uint_eq(jc_get(top(doc), "results")->n, 2);
    jc_free(doc);
    ck_assert_int_eq(tu_count_entries(dir), 2);
    tu_rmdir_free(dir, target, link, NULL);
}
END_TEST

START_TEST(device_behind_a_link_is_written_through)
{
    char *dir = tu_tmpdir();
    char *link = tu_path(dir, "null.xml");
    ck_assert_int_eq(symlink("/dev/null", link), 0);
    q4_junit *j = NULL;
    q4_error err = {0};
    ck_assert_msg(q4_junit_open(link, "s", NULL, 0, &j, &err) == Q4_OK, "%s", err.msg);
    q4_result r;
    tu_result(&r, Q4_FAIL, 0);
    ck_assert_int_eq(q4_junit_add(j, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_close(j, &err), Q4_OK);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the link to /dev/null was replaced by a file");
    ck_assert_int_eq(stat("/dev/null", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
    ck_assert_int_eq(tu_count_entries(dir), 1);
    tu_rmdir_free(dir, link, NULL);
}
END_TEST

/* A FIFO gets one whole document, at close, and stays a FIFO. */
START_TEST(fifo_gets_the_final_document_once)
{
    char *dir = tu_tmpdir();
    char *fifo = tu_path(dir, "pipe.json"), *copy = tu_path(dir, "copy.json");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {   /* the reader: copies the FIFO into a file until EOF */
        int in = open(fifo, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buf[4096];
        ssize_t k;
        while (in >= 0 && out >= 0 && (k = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)k) != k)
                _exit(1);
        _exit(in >= 0 && out >= 0 ? 0 : 1);
    }
    json_run(fifo, 3, NULL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat st;
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert_msg(S_ISFIFO(st.st_mode), "the FIFO was replaced by a file");
    jc_value *doc = tu_json_load(copy);   /* one document: two would not parse */
    ck_assert_uint_eq(jc_get(top(doc), "results")->n, 3);
    ck_assert_int_eq(jc_get(top(doc), "complete")->boolean, 1);
    jc_free(doc);
    tu_rmdir_free(dir, fifo, copy, NULL);
}
END_TEST

/* `--json out.txt >out.txt`: the file behind our stdout keeps what was printed and
 * gets the document appended, instead of being swapped for a new file. */
START_TEST(own_stdout_is_written_through)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "out.txt");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    int saved = dup(1);
    ck_assert_int_eq(dup2(fd, 1), 1);
    struct stat before, after;
    ck_assert_int_eq(fstat(fd, &before), 0);
    ck_assert_int_eq(write(1, "console line\n", 13), 13);
    json_run(path, 1, NULL);
    ck_assert_int_eq(dup2(saved, 1), 1);
    close(saved);
    close(fd);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert_msg(before.st_ino == after.st_ino, "our own stdout was replaced");
    size_t len;
    char *text = tu_read(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strncmp(text, "console line\n{\"q4cts\"", 21) == 0, "got: %.60s", text);
    free(text);
    tu_rmdir_free(dir, path, NULL);
}
END_TEST

START_TEST(folder_is_refused)
{
    char *dir = tu_tmpdir();
    q4_json *j = NULL;
    q4_junit *x = NULL;
    q4_perf_json *p = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(dir, NULL, 0, &j, &err), Q4_ERR_IO);
    ck_assert_msg(strstr(err.msg, "is a directory") != NULL, "%s", err.msg);
    ck_assert_int_eq(q4_junit_open(dir, "s", NULL, 0, &x, &err), Q4_ERR_IO);
    ck_assert_msg(strstr(err.msg, "is a directory") != NULL, "%s", err.msg);
    ck_assert_int_eq(q4_perf_json_open(dir, NULL, 0, 1, 1, 1, &p, &err), Q4_ERR_IO);
    ck_assert_msg(strstr(err.msg, "is a directory") != NULL, "%s", err.msg);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    tu_rmdir_free(dir, NULL);
}
END_TEST

/* The old fixed PATH.tmp: taken (here by a folder, as by another run's temp file), it
 * failed every write. Unique names do not care, and leave nothing behind. */
START_TEST(temp_names_are_unique)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "r.json"), *old_tmp = tu_path(dir, "r.json.tmp");
    ck_assert_int_eq(mkdir(old_tmp, 0755), 0);
    json_run(path, 2, NULL);
    ck_assert_int_eq(tu_count_entries(dir), 2);
    rmdir(old_tmp);
    /* Two writers of one path, interleaved: neither fails, the file stays whole. */
    q4_json *a = NULL, *b = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &a, &err), Q4_OK);
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &b, &err), Q4_OK);
    for (int i = 0; i < 20; i++) {
        q4_result r;
        tu_result(&r, Q4_PASS, i);
        ck_assert_msg(q4_json_add(a, &r, &err) == Q4_OK, "%s", err.msg);
        ck_assert_msg(q4_json_add(b, &r, &err) == Q4_OK, "%s", err.msg);
    }
    ck_assert_int_eq(q4_json_close(a, &err), Q4_OK);
    ck_assert_int_eq(q4_json_close(b, &err), Q4_OK);
    jc_value *doc = tu_json_load(path);
    ck_assert_uint_eq(jc_get(top(doc), "results")->n, 20);
    jc_free(doc);
    ck_assert_int_eq(tu_count_entries(dir), 1);
    tu_rmdir_free(dir, path, old_tmp, NULL);
}
END_TEST

/* Planned count and completion marker: false until close, false with a reason when
 * the run was stopped; the same in JUnit and perf JSON. */
START_TEST(planned_and_complete)
{
    char *dir = tu_tmpdir();
    char *path = tu_path(dir, "r.json"), *xml = tu_path(dir, "j.xml"), *perf = tu_path(dir, "p.json");
    q4_json *j = NULL;
    q4_junit *x = NULL;
    q4_perf_json *p = NULL;
    q4_error err = {0};
    ck_assert_int_eq(q4_json_open(path, NULL, 0, &j, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_open(xml, "s", NULL, 0, &x, &err), Q4_OK);
    ck_assert_int_eq(q4_perf_json_open(perf, NULL, 0, 1, 1, 1, &p, &err), Q4_OK);
    q4_json_set_planned(j, 5);
    q4_junit_set_planned(x, 5);
    q4_perf_json_set_planned(p, 5);
    q4_result r;
    tu_result(&r, Q4_PASS, 0);
    q4_perf_result pr = { .name = "q4cts.a.b.c", .op = "a", .median_ms = 1 };
    ck_assert_int_eq(q4_json_add(j, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_add(x, &r, &err), Q4_OK);
    ck_assert_int_eq(q4_perf_json_add(p, &pr, &err), Q4_OK);
    /* mid-run, as a killed run leaves them */
    jc_value *doc = tu_json_load(path);
    ck_assert_int_eq((int)jc_get(top(doc), "planned")->num, 5);
    ck_assert_int_eq(jc_get(top(doc), "complete")->type, JC_BOOL);
    ck_assert_int_eq(jc_get(top(doc), "complete")->boolean, 0);
    jc_free(doc);
    doc = tu_json_load(perf);
    ck_assert_int_eq(jc_get(jc_get(doc, "q4cts_perf"), "complete")->boolean, 0);
    jc_free(doc);
    char *v = tu_xpath(xml, "string(//property[@name='complete']/@value)");
    ck_assert_str_eq(v, "false");
    free(v);
    v = tu_xpath(xml, "string(//property[@name='planned']/@value)");
    ck_assert_str_eq(v, "5");
    free(v);
    /* stopped */
    q4_json_set_stopped(j, "interrupted by SIGINT");
    q4_junit_set_stopped(x, "interrupted by SIGINT");
    q4_perf_json_set_stopped(p, "interrupted by SIGINT");
    ck_assert_int_eq(q4_json_close(j, &err), Q4_OK);
    ck_assert_int_eq(q4_junit_close(x, &err), Q4_OK);
    ck_assert_int_eq(q4_perf_json_close(p, &err), Q4_OK);
    doc = tu_json_load(path);
    ck_assert_int_eq(jc_get(top(doc), "complete")->boolean, 0);
    ck_assert_str_eq(jc_get(top(doc), "stopped")->str, "interrupted by SIGINT");
    jc_free(doc);
    doc = tu_json_load(perf);
    ck_assert_str_eq(jc_get(jc_get(doc, "q4cts_perf"), "stopped")->str, "interrupted by SIGINT");
    jc_free(doc);
    ck_assert(tu_xml_valid(xml));
    v = tu_xpath(xml, "string(//property[@name='stopped']/@value)");
    ck_assert_str_eq(v, "interrupted by SIGINT");
    free(v);
    /* a run closed normally is complete */
    json_run(path, 1, NULL);
    doc = tu_json_load(path);
    ck_assert_int_eq(jc_get(top(doc), "complete")->boolean, 1);
    ck_assert_int_eq(jc_get(top(doc), "stopped")->type, JC_NULL);
    jc_free(doc);
    tu_rmdir_free(dir, path, xml, perf, NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reports.report_file");
    TCase *tc = tcase_create("report_file");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, symlink_to_regular_file_stays_a_link);
    tcase_add_test(tc, device_behind_a_link_is_written_through);
    tcase_add_test(tc, fifo_gets_the_final_document_once);
    tcase_add_test(tc, own_stdout_is_written_through);
    tcase_add_test(tc, folder_is_refused);
    tcase_add_test(tc, temp_names_are_unique);
    tcase_add_test(tc, planned_and_complete);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
