/* caselist.c: the generated set, case-list files and selection (globs, excludes,
 * custom names, shards).
 *
 * A pattern is an fnmatch(3) glob over canonical names ('*' crosses dots). A pattern
 * that matches no generated case but is a well-formed name is a custom case and
 * runs; anything else that matches nothing is an error that names it, so a typo in
 * a list or a filter never shrinks a run silently. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_ops.h"
#include "q4_file.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(((const q4_case *)a)->name, ((const q4_case *)b)->name);
}

/* The i-th descriptor whose generated cases the set holds: every op's, then the
 * training cases' (case_train.c); NULL past the end. */
static const q4c_op *generating(int i)
{
    const q4c_op *op = q4c_op_at(i);
    if (op) return op;
    return q4c_op_at(i - 1) ? q4c_train_desc() : NULL;
}

q4_status q4_case_all(q4_case **out, size_t *count, q4_error *err)
{
    size_t n = 0, i = 0;
    const q4c_op *op;
    for (int o = 0; (op = generating(o)); o++)
        for (int j = 0; op->generated[j]; j++) n++;
    q4_case *all = malloc(n * sizeof *all);
    if (!all)
        return q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the list of %zu generated cases", n);
    for (int o = 0; (op = generating(o)); o++)
        for (int j = 0; op->generated[j]; j++) {
            q4_status st = q4_case_parse(op->generated[j], 0, &all[i++], err);
            if (st) {   /* a bad table entry: the tests catch it, users never should */
                free(all);
                return st;
            }
        }
    qsort(all, n, sizeof *all, by_name);
    *out = all;
    *count = n;
    return Q4_OK;
}

static int is_glob(const char *p) { return strpbrk(p, "*?[") != NULL; }

static int matches(const char *pattern, const char *name)
{
    return fnmatch(pattern, name, 0) == 0;
}

/* What a pattern that matches no generated case resolves to: a parsed custom case,
 * or an error naming it ("pattern '...' matches no case" for a glob, the parser's
 * sentence for a name). */
static q4_status resolve_unmatched(const char *pattern, uint64_t seed, q4_case *c, q4_error *err)
{
    if (is_glob(pattern))
        return q4_fail(err, Q4_ERR_ARG,
                       "pattern '%s' matches no case; expected a glob over names "
                       "q4cts.<op>.<family>.<params> (see cases/README.md)", pattern);
    return q4_case_parse(pattern, seed, c, err);
}

static size_t find(const q4_case *cases, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(cases[i].name, name) == 0)
            return i;
    return n;
}

q4_status q4_case_select(const char *const *includes, size_t n_inc, const char *const *excludes,
                         size_t n_exc, int shard_i, int shard_n, uint64_t seed,
                         q4_case **out, size_t *count, q4_error *err)
{
    q4_case *all = NULL, *sel = NULL;
    size_t n_all = 0, n_sel = 0, n_out = 0;
    unsigned char *chosen = NULL;
    q4_status st;

    if (shard_n < 1 || shard_i < 0 || shard_i >= shard_n)
        return q4_fail(err, Q4_ERR_ARG, "shard %d of %d is out of range; expected 0 <= i < n",
                       shard_i, shard_n);
    if ((st = q4_case_all(&all, &n_all, err)))
        return st;
    /* Room for every generated case plus one custom case per include pattern. */
    chosen = calloc(n_all ? n_all : 1, 1);
    sel = malloc((n_all + n_inc + 1) * sizeof *sel);
    if (!chosen || !sel) {
        st = q4_fail(err, Q4_ERR_NOMEM, "cannot allocate the case selection");
        goto done;
    }

    if (n_inc == 0)
        memset(chosen, 1, n_all);
    for (size_t p = 0; p < n_inc; p++) {
        int hit = 0;
        q4_case custom;
        for (size_t i = 0; i < n_all; i++)
            if (matches(includes[p], all[i].name))
                chosen[i] = hit = 1;
        if (hit) continue;
        if ((st = resolve_unmatched(includes[p], seed, &custom, err)))
            goto done;
        /* A non-canonical spelling of a generated case selects that case. */
        size_t i = find(all, n_all, custom.name);
        if (i < n_all)
            chosen[i] = 1;
        else if (find(sel, n_sel, custom.name) == n_sel)
            sel[n_sel++] = custom;
    }
    for (size_t i = 0; i < n_all; i++)
        if (chosen[i])
            sel[n_sel++] = all[i];

    /* Excludes, then the order every shard agrees on, then the shard. */
    for (size_t i = 0; i < n_sel; i++) {
        int drop = 0;
        for (size_t e = 0; e < n_exc && !drop; e++)
            drop = matches(excludes[e], sel[i].name);
        if (!drop)
            sel[n_out++] = sel[i];
    }
    qsort(sel, n_out, sizeof *sel, by_name);
    n_sel = n_out;
    n_out = 0;
    for (size_t i = 0; i < n_sel; i++)
        if (i % (size_t)shard_n == (size_t)shard_i) {
            sel[n_out] = sel[i];
            sel[n_out++].seed = seed;
        }
    *out = sel;
    *count = n_out;
    sel = NULL;
done:
    free(all);
    free(sel);
    free(chosen);
    return st;
}

/* ---------------- case-list files ---------------- */

void q4_caselist_free(char **patterns, size_t count)
{
    for (size_t i = 0; patterns && i < count; i++)
        free(patterns[i]);
    free(patterns);
}

/* The pattern of one line: '#' to the end is a comment, surrounding blanks go;
 * returns the trimmed text in place (empty for a blank line). */
static char *line_pattern(char *line)
{
    char *hash = strchr(line, '#'), *end;
    if (hash) *hash = 0;
    while (*line == ' ' || *line == '\t') line++;
    end = line + strlen(line);
    while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
        *--end = 0;
    return line;
}

/* 0 when the pattern p (on line `text`) is printable ASCII, else the error naming the
 * first other byte: case names are ASCII, and a byte from a binary file, pasted from a
 * word processor or invisible (a byte-order mark mid-file) must show in the message. */
static q4_status check_bytes(const char *shown, size_t lineno, const char *text, const char *p,
                             q4_error *err)
{
    char echo[Q4_ECHO_MAX];
    if (strlen(p) > Q4_CASE_GLOB_MAX)
        return q4_fail(err, Q4_ERR_ARG, "%s:%zu: '%s' is %zu bytes; a name or glob is at most "
                       "%d", shown, lineno, q4_echo(p, echo, sizeof echo), strlen(p),
                       Q4_CASE_GLOB_MAX);
    for (const char *q = p; *q; q++) {
        unsigned char ch = (unsigned char)*q;
        if (ch == ' ' || ch == '\t')
            return q4_fail(err, Q4_ERR_ARG, "%s:%zu: '%s' has blanks inside; expected one name "
                           "or glob per line", shown, lineno, q4_echo(p, echo, sizeof echo));
        if (ch < 0x20 || ch >= 0x7F)
            return q4_fail(err, Q4_ERR_ARG, "%s:%zu: '%s' has the byte 0x%02X at column %zu; "
                           "case names and globs are printable ASCII", shown, lineno,
                           q4_echo(p, echo, sizeof echo), ch, (size_t)(q - text) + 1);
    }
    return Q4_OK;
}

q4_status q4_caselist_load(const char *path, char ***patterns, size_t *count, q4_error *err)
{
    FILE *f;
    char *line = NULL, **list = NULL;
    size_t cap = 0, n = 0, lineno = 0, n_all = 0;
    q4_case *all = NULL;
    q4_status st;
    char shown[Q4_ECHO_MAX];

    if (!path)
        return q4_fail(err, Q4_ERR_ARG, "case list path is NULL; expected a file name");
    q4_echo(path, shown, sizeof shown);
    /* read whole through q4_read_regular: a FIFO or a device is refused, never waited on */
    size_t size;
    char *text_all = q4_read_regular(path, Q4_CASELIST_MAX_BYTES, &size);
    if (!text_all)   /* "open" when there is nothing there to read */
        return q4_fail(err, Q4_ERR_IO, "cannot %s case list '%s': %s",
                       errno == EISDIR || errno == Q4_ENOTREG || errno == EFBIG ? "read" : "open",
                       shown, errno == EFBIG ? "larger than 64 MiB" : q4_file_strerror(errno));
    if (!(f = fmemopen(text_all, size, "r"))) {   /* glibc takes a size of 0 */
        free(text_all);
        return q4_fail(err, Q4_ERR_NOMEM, "cannot read case list '%s': %s", shown, strerror(errno));
    }
    if ((st = q4_case_all(&all, &n_all, err)))
        goto done;
    size_t linecap = 0;
    ssize_t got;
    while ((got = getline(&line, &linecap, f)) >= 0) {
        char *text = line;
        int hit = 0;
        q4_case custom;
        q4_error e = {0};
        lineno++;
        /* A UTF-8 byte-order mark (editors on Windows write one) starts the file, not
         * its first name. */
        if (lineno == 1 && got >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
            text += 3;
            got -= 3;
        }
        if (strlen(text) != (size_t)got) {   /* getline keeps NULs; string code would not */
            st = q4_fail(err, Q4_ERR_ARG, "%s:%zu: the line holds a NUL byte at column %zu; a "
                         "case list is text, one name or glob per line", shown, lineno,
                         strlen(text) + 1);
            goto done;
        }
        char *p = line_pattern(text);
        if (!*p) continue;
        if ((st = check_bytes(shown, lineno, text, p, err)))
            goto done;
        for (size_t i = 0; i < n_all && !hit; i++)
            hit = matches(p, all[i].name);
        if (!hit && resolve_unmatched(p, 0, &custom, &e)) {
            st = q4_fail(err, Q4_ERR_ARG, "%s:%zu: %s", shown, lineno, e.msg);
            goto done;
        }
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            char **grown = realloc(list, ncap * sizeof *list);
            if (!grown) { st = q4_fail(err, Q4_ERR_NOMEM, "cannot grow the case list"); goto done; }
            list = grown;
            cap = ncap;
        }
        if (!(list[n] = strdup(p))) {
            st = q4_fail(err, Q4_ERR_NOMEM, "cannot copy a case-list line");
            goto done;
        }
        n++;
    }
    if (ferror(f))
        st = q4_fail(err, Q4_ERR_IO, "cannot read case list '%s': %s", shown, strerror(errno));
    else if (n == 0)   /* no patterns would select every case: surely not what was meant */
        st = q4_fail(err, Q4_ERR_ARG, "case list '%s' names no case; expected one name or glob "
                     "per line", shown);
done:
    fclose(f);
    free(text_all);
    free(line);
    free(all);
    if (st) {
        q4_caselist_free(list, n);
        return st;
    }
    *patterns = list;
    *count = n;
    return Q4_OK;
}
