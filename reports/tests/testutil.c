/* testutil.c: helpers of the reports/ tests (see testutil.h). xmllint runs through
 * fork/exec, not system(), so no path or XPath passes through a shell. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#include "jsoncheck.h"

char *tu_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *t = tu_path(base && base[0] ? base : "/tmp", "q4report-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t));
    return t;
}

char *tu_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

void tu_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = tu_path(dir, e->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

void tu_rmdir_free(char *dir, ...)
{
    tu_rmdir(dir);
    va_list ap;
    va_start(ap, dir);
    for (char *p; (p = va_arg(ap, char *)) != NULL; )
        free(p);
    va_end(ap);
    free(dir);
}

int tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Reads fd to its end into a malloc'd, NUL-terminated string (NULL if out of memory). */
static char *read_all(int fd)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while (buf && (k = read(fd, buf + n, cap - n - 1)) > 0) {
        n += (size_t)k;
        if (n + 1 == cap) {
            char *p = realloc(buf, cap * 2);
            if (!p)
                free(buf);
            buf = p;
            cap *= 2;
        }
    }
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Runs argv. With out, its stdout goes into *out (malloc'd). Without, its stdout and
 * stderr are held and shown only if it fails, so a passing test prints no
 * "x.xml validates" chatter while a failing one shows xmllint's reasons.
 * Returns the exit status, or -1 when it did not exit normally. */
static int run(char *const argv[], char **out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        if (!out)
            dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    char *text = read_all(fds[0]);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (out) {
        *out = text;
    } else {
        if (rc != 0 && text)
            fputs(text, stderr);
        free(text);
    }
    return rc;
}

int tu_xml_valid(const char *path)
{
    char *argv[] = {Q4REPORT_XMLLINT, "--noout", "--nonet", "--schema", Q4REPORT_XSD,
                    (char *)path, NULL};
    return run(argv, NULL) == 0;
}

int tu_xml_wellformed(const char *path)
{
    char *argv[] = {Q4REPORT_XMLLINT, "--noout", "--nonet", (char *)path, NULL};
    return run(argv, NULL) == 0;
}

char *tu_xpath(const char *path, const char *expr)
{
    char *argv[] = {Q4REPORT_XMLLINT, "--nonet", "--xpath", (char *)expr, (char *)path, NULL};
    char *out = NULL;
    if (run(argv, &out) != 0) {
        free(out);
        return NULL;
    }
    size_t n = out ? strlen(out) : 0;
    if (n && out[n - 1] == '\n')
        out[n - 1] = '\0';
    return out;
}

long tu_xpath_long(const char *path, const char *expr)
{
    char *s = tu_xpath(path, expr);
    if (!s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0')
        v = -1;
    free(s);
    return v;
}

void tu_result(q4_result *r, q4_verdict v, int i)
{
    static const char *const ops[] = {"linear_fwd", "ce_loss", "adamw"};
    q4_result_init(r);
    const char *op = ops[i % 3];
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->family, sizeof r->family, "%s", "square");
    snprintf(r->name, sizeof r->name, "q4cts.%s.square.m%dn16k32g32", op, 8 + i);
    r->verdict = v;
    r->seconds = 0.001 * (i + 1);
    r->gpu_ms = (i % 2) ? 0.25 * i : -1.0;
    if (v == Q4_PASS || v == Q4_FAIL || v == Q4_QUALITY_WARNING) {
        r->worst_margin = v == Q4_FAIL ? 3.5 : 0.03125 * (i + 1);
        r->stat_margin = v == Q4_PASS ? 0.25 : NAN;   /* only the Pass case has an envelope */
        r->truth_ms = v == Q4_FAIL ? 8.0 : -1.0;       /* and only the Fail case a truth time */
        r->input_ms = v == Q4_FAIL ? 3.0 : -1.0;       /* and an input time */
        r->upload_ms = v == Q4_FAIL ? 1.5 : -1.0;      /* and the GPU run's transfers and */
        r->readback_ms = v == Q4_FAIL ? 0.75 : -1.0;   /* the judge's times */
        r->judge_ms = v == Q4_PASS ? 2.5 : -1.0;
        r->truth_fused = v == Q4_PASS;                 /* the Pass case judged as it made its truth */
        r->expected = 1.0;
        r->bound = 0.0625;
        r->worst_err = r->worst_margin * r->bound;
        r->got = r->expected + r->worst_err;
        r->index = 137 + i;
        r->elements = 4096;
        snprintf(r->output, sizeof r->output, "y");
        snprintf(r->where, sizeof r->where, "m=%d, n=17", 3 + i);
    }
    snprintf(r->message, sizeof r->message, "%s: sample message %d", q4_verdict_name(v), i);
    snprintf(r->repro, sizeof r->repro, "build/harness/q4cts --case %s", r->name);
}

void tu_baseline_result(q4_result *r, int i)
{
    static const q4_verdict got[TU_BASELINE_CASES] = {Q4_FAIL, Q4_PASS, Q4_CRASH, Q4_FLAKE};
    static const q4_verdict want[TU_BASELINE_CASES] = {Q4_FAIL, Q4_FAIL, Q4_PASS, Q4_PASS};
    tu_result(r, got[i], i);
    r->baseline = want[i];
    r->tries = got[i] == Q4_FLAKE ? 2 : 1;
}

jc_value *tu_json_load(const char *path)
{
    size_t len = 0;
    char *text = tu_read(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    char why[160] = "";
    jc_value *v = jc_parse(text, len, why, sizeof why);
    ck_assert_msg(v != NULL, "%s is not valid JSON: %s", path, why);
    free(text);
    return v;
}

double tu_json_num(const jc_value *obj, const char *key)
{
    const jc_value *v = jc_get(obj, key);
    ck_assert_msg(v && v->type == JC_NUM, "%s is not a number", key);
    return v->num;
}

const char *tu_json_str(const jc_value *obj, const char *key)
{
    const jc_value *v = jc_get(obj, key);
    ck_assert_msg(v && v->type == JC_STR, "%s is not a string", key);
    return v->str;
}

int tu_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
