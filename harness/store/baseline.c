/* baseline.c: the --baseline file of `run` (baseline.h): parsed whole and checked
 * before the run starts, every line, so a typo is an exit 2 with FILE:LINE, never a
 * case silently expected to pass. Look-ups are a binary search of the sorted names. */
#include "baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "q4case.h"

typedef struct expectation {
    char name[Q4_CASE_NAME_MAX];
    q4_verdict verdict;
    size_t line;
} expectation;

struct q4h_expectations {
    expectation *e;
    size_t n;
};

void q4h_expectations_free(q4h_expectations *e)
{
    if (e)
        free(e->e);
    free(e);
}

size_t q4h_expectations_count(const q4h_expectations *e)
{
    return e ? e->n : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const expectation *)a)->name, ((const expectation *)b)->name);
}

q4_verdict q4h_expected_verdict(const q4h_expectations *e, const char *name)
{
    size_t lo = 0, hi = e ? e->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(e->e[mid].name, name);
        if (c == 0)
            return e->e[mid].verdict;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return Q4_PASS;
}

/* One line (NUL-terminated, comment and blanks cut) into *x; the error names
 * shown:lineno. */
static q4_status parse_line(const char *shown, size_t lineno, char *text, expectation *x,
                            q4_error *err)
{
    char echo[Q4_ECHO_MAX];
    for (const char *q = text; *q; q++)
        if ((unsigned char)*q < 0x20 && *q != '\t')
            return q4_fail(err, Q4_ERR_ARG, "%s:%zu: '%s' has the byte 0x%02X at column %zu; "
                           "expected CASE,VERDICT", shown, lineno, q4_echo(text, echo, sizeof echo),
                           (unsigned char)*q, (size_t)(q - text) + 1);
    char *comma = strchr(text, ',');
    if (!comma)
        return q4_fail(err, Q4_ERR_ARG, "%s:%zu: '%s' has no comma; expected CASE,VERDICT as in "
                       "q4cts.fused_ce.basic.r4_v128_p0,Fail", shown, lineno,
                       q4_echo(text, echo, sizeof echo));
    *comma = '\0';
    char *name = text, *verdict = comma + 1;
    /* Blanks around either field are the CSV's, not the case's. */
    for (char *end = comma; end > name && (end[-1] == ' ' || end[-1] == '\t');)
        *--end = '\0';
    verdict += strspn(verdict, " \t");
    if (!q4_verdict_parse(verdict, &x->verdict))
        return q4_fail(err, Q4_ERR_ARG, "%s:%zu: '%s' is not a verdict; expected one of Pass, "
                       "Fail, QualityWarning, NotSupported, ResourceError, Crash, Timeout, "
                       "InternalError, Flake", shown, lineno, q4_echo(verdict, echo, sizeof echo));
    q4_case c;
    q4_error why = { 0 };
    if (q4_case_parse(name, 0, &c, &why) != Q4_OK)
        return q4_fail(err, Q4_ERR_ARG, "%s:%zu: %s", shown, lineno, why.msg);
    memcpy(x->name, c.name, sizeof x->name);   /* the canonical spelling is what results carry */
    x->line = lineno;
    return Q4_OK;
}

q4_status q4h_expectations_parse(const char *text, size_t size, const char *path,
                                 q4h_expectations **out, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    q4_echo(path, shown, sizeof shown);
    *out = NULL;
    q4h_expectations *e = calloc(1, sizeof *e);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    if (!e || !(e->e = calloc(lines, sizeof *e->e))) {
        q4h_expectations_free(e);
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory reading the baseline %s", shown);
    }
    q4_status st = Q4_OK;
    size_t lineno = 0;
    for (size_t at = 0; at < size && st == Q4_OK;) {
        const char *start = text + at, *nl = memchr(start, '\n', size - at);
        size_t len = nl ? (size_t)(nl - start) : size - at;
        char line[2 * Q4_CASE_NAME_MAX];
        lineno++;
        if (memchr(start, '\0', len)) {
            st = q4_fail(err, Q4_ERR_ARG, "%s:%zu: the line holds a NUL byte; a baseline is text, "
                         "CASE,VERDICT per line", shown, lineno);
            break;
        }
        size_t skip = lineno == 1 && len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
        size_t keep = len - skip;
        start += skip;
        const char *hash = memchr(start, '#', keep);
        if (hash)
            keep = (size_t)(hash - start);
        while (keep && strchr(" \t\r", start[keep - 1]))
            keep--;
        size_t lead = 0;
        while (lead < keep && strchr(" \t", start[lead]))
            lead++;
        at += len + 1;
        if (lead == keep)
            continue;
        if (keep - lead >= sizeof line) {
            st = q4_fail(err, Q4_ERR_ARG, "%s:%zu: the line is %zu bytes; CASE,VERDICT is at most "
                         "%zu", shown, lineno, keep - lead, sizeof line - 1);
            break;
        }
        memcpy(line, start + lead, keep - lead);
        line[keep - lead] = '\0';
        st = parse_line(shown, lineno, line, &e->e[e->n], err);
        e->n += st == Q4_OK;
    }
    if (st == Q4_OK) {
        qsort(e->e, e->n, sizeof *e->e, by_name);
        for (size_t i = 1; i < e->n && st == Q4_OK; i++)
            if (!strcmp(e->e[i - 1].name, e->e[i].name)) {
                size_t a = e->e[i - 1].line, b = e->e[i].line;
                st = q4_fail(err, Q4_ERR_ARG, "%s:%zu: case %s is listed again (first on line "
                             "%zu); a baseline lists each case once", shown, a > b ? a : b,
                             e->e[i].name, a < b ? a : b);
            }
    }
    if (st != Q4_OK) {
        q4h_expectations_free(e);
        return st;
    }
    *out = e;
    return Q4_OK;
}

q4_status q4h_expectations_load(const char *path, q4h_expectations **out, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    size_t len = 0;
    *out = NULL;
    char *text = q4h_read_file(path, &len);
    if (!text)
        return q4_fail(err, errno == ENOMEM ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                       "cannot read the baseline %s: %s", q4_echo(path, shown, sizeof shown),
                       q4_file_strerror(errno));
    q4_status st = q4h_expectations_parse(text, len, path, out, err);
    free(text);
    return st;
}
