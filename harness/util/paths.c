/* paths.c: q4h_path_resolve and q4h_paths_check (paths.h).
 *
 * Two names are one file when they resolve to one absolute name: the folder's real
 * path, then the last part followed through symbolic links, dangling ones too (the
 * report writer creates a dangling link's target, so `--junit X --json link-to-X`
 * with X new is one file), or when they are one existing file by device and inode (a
 * hard link). A --dump-dir writes DIR/<case name>/ and every case name starts with
 * "q4cts.", so a path in such a folder of DIR is written over; a folder of dumps that
 * is read is its case folder itself, or a --dump-dir's sub-folders. */
#define _GNU_SOURCE   /* realpath */
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "a/b" + "c" -> "a/b/c" ("/" + "c" -> "/c"), malloc'ed. */
static char *join(const char *dir, const char *name)
{
    size_t ld = strlen(dir), ln = strlen(name);
    char *s = malloc(ld + ln + 2);
    if (s)
        snprintf(s, ld + ln + 2, "%s%s%s", dir, ld && dir[ld - 1] == '/' ? "" : "/", name);
    return s;
}

/* An absolute path with "." and ".." parts and doubled slashes taken out by their
 * text (for a folder that does not exist, which realpath cannot resolve). */
static char *lexical(const char *path)
{
    char cwd[PATH_MAX] = "/";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "/");
    char *all = path[0] == '/' ? strdup(path) : join(cwd, path);
    char *out = all ? malloc(strlen(all) + 2) : NULL;
    if (!out) {
        free(all);
        return NULL;
    }
    size_t len = 0;
    for (char *save = NULL, *part = strtok_r(all, "/", &save); part;
         part = strtok_r(NULL, "/", &save)) {
        if (!strcmp(part, "."))
            continue;
        if (!strcmp(part, "..")) {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;   /* the slash before the dropped part */
            continue;
        }
        out[len++] = '/';
        memcpy(out + len, part, strlen(part));
        len += strlen(part);
    }
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    free(all);
    return out;
}

char *q4h_path_resolve(const char *path)
{
    char *cur = strdup(path && path[0] ? path : ".");
    for (int hop = 0; cur && hop < 40; hop++) {
        size_t len = strlen(cur);
        while (len > 1 && cur[len - 1] == '/')
            cur[--len] = '\0';
        char *slash = strrchr(cur, '/');
        const char *base = slash ? slash + 1 : cur;
        if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {   /* "/", "x/..": a folder */
            char *r = realpath(cur, NULL);
            char *out = r ? r : lexical(cur);
            free(cur);
            return out;
        }
        char *dir = !slash ? strdup(".") : slash == cur ? strdup("/")
                                                      : strndup(cur, (size_t)(slash - cur));
        char *real = dir ? realpath(dir, NULL) : NULL;
        if (dir && !real)
            real = lexical(dir);
        char *full = real ? join(real, base) : NULL;
        free(dir);
        struct stat st;
        char target[PATH_MAX];
        ssize_t k = full && lstat(full, &st) == 0 && S_ISLNK(st.st_mode)
                        ? readlink(full, target, sizeof target - 1) : -1;
        if (k > 0) {   /* a link, dangling or not: where a write through it lands */
            target[k] = '\0';
            free(cur);
            cur = target[0] == '/' ? strdup(target) : join(real, target);
            free(real);
            free(full);
            continue;
        }
        free(cur);
        free(real);
        return full;
    }
    return cur;   /* a loop of links: a write fails on it anyway */
}

typedef struct resolved {
    const q4h_path_use *u;
    char *path;
    bool exists;
    bool special;   /* a device, FIFO or socket: written through, never replaced */
    dev_t dev;
    ino_t ino;
} resolved;

/* The rest of p below folder dir ("x/y" of dir/x/y), or NULL when p is not inside. */
static const char *below(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    if (!strcmp(dir, "/"))
        return p[0] == '/' && p[1] ? p + 1 : NULL;
    return !strncmp(p, dir, n) && p[n] == '/' && p[n + 1] ? p + n + 1 : NULL;
}

/* One file; a device or a FIFO (/dev/null, the terminal) is never one: a report
 * written to it is written through, at the end, and replaces nothing. */
static bool same(const resolved *a, const resolved *b)
{
    if (a->special || b->special)
        return false;
    return !strcmp(a->path, b->path) ||
           (a->exists && b->exists && a->dev == b->dev && a->ino == b->ino);
}

/* p inside a case folder that --dump-dir d writes (d/q4cts.*\/...); depth 1 (the
 * case folder itself) counts when folder_too. */
static bool in_dump_case(const char *p, const char *d, bool folder_too)
{
    const char *rest = below(p, d);
    return rest && !strncmp(rest, "q4cts.", 6) && (folder_too || strchr(rest, '/'));
}

/* p among the files that a read folder of dumps t gives: inside t when t is one
 * case's folder, inside one of its sub-folders when t is a --dump-dir. */
static bool in_read_dumps(const char *p, const char *t)
{
    const char *rest = below(p, t);
    if (!rest)
        return false;
    char *cj = join(t, "case.json");
    bool one_case = cj && access(cj, F_OK) == 0;
    free(cj);
    return one_case || strchr(rest, '/');
}

#define SHOW 96

/* The sentence for a collision of w (written) with o; `how` says what it does to o. */
static q4_status refuse(q4_error *err, const resolved *w, const resolved *o, const char *how)
{
    char a[SHOW], b[SHOW], c[SHOW];
    q4_echo(w->u->path, a, sizeof a);
    q4_echo(o->u->path, b, sizeof b);
    q4_echo(o->path, c, sizeof c);
    const bool plain = !strcmp(w->u->path, o->u->path);
    if (o->u->use == Q4H_WRITE && w->u->use == Q4H_WRITE)
        return q4_fail(err, Q4_ERR_ARG, "%s and %s name the same file %s%s%s%s; give each "
                       "output a file of its own", o->u->what, w->u->what, a,
                       plain ? "" : " (", plain ? "" : c, plain ? "" : ")");
    return q4_fail(err, Q4_ERR_ARG, "%s %s %s %s %s%s%s%s; q4cts never writes over what it "
                   "reads or writes: give %s a %s of its own", w->u->what, a, how,
                   o->u->what, b, plain ? "" : " (", plain ? "" : c, plain ? "" : ")",
                   w->u->what, w->u->use == Q4H_WRITE_DUMPS ? "folder" : "file");
}

/* w (written) against o (any other use). */
static q4_status check_pair(const resolved *w, const resolved *o, q4_error *err)
{
    const q4h_use wu = w->u->use, ou = o->u->use;
    if (wu == Q4H_WRITE) {
        if ((ou == Q4H_READ || ou == Q4H_WRITE) && same(w, o))
            return refuse(err, w, o, ou == Q4H_READ ? "is the file read as" : "is also");
        if (ou == Q4H_READ_DUMPS && in_read_dumps(w->path, o->path))
            return refuse(err, w, o, "lies in the dumps read as");
        if (ou == Q4H_WRITE_DUMPS && in_dump_case(w->path, o->path, false))
            return refuse(err, w, o, "lies in a case folder written by");
        return Q4_OK;
    }
    /* wu == Q4H_WRITE_DUMPS: DIR/<case>/ is written */
    if (ou == Q4H_READ && in_dump_case(o->path, w->path, false))
        return refuse(err, w, o, "writes case folders over the file read as");
    if (ou == Q4H_READ_DUMPS && (!strcmp(o->path, w->path) || in_dump_case(o->path, w->path, true)))
        return refuse(err, w, o, "writes case folders over the dumps read as");
    return Q4_OK;
}

q4_status q4h_paths_check(const q4h_path_use *uses, size_t n, q4_error *err)
{
    resolved *r = calloc(n ? n : 1, sizeof *r);
    q4_status st = r ? Q4_OK : q4_fail(err, Q4_ERR_NOMEM, "out of memory checking paths");
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        struct stat s;
        r[i].u = &uses[i];
        if (!(r[i].path = q4h_path_resolve(uses[i].path)))
            st = q4_fail(err, Q4_ERR_NOMEM, "out of memory checking paths");
        else if (stat(r[i].path, &s) == 0) {
            r[i].exists = true;
            r[i].special = !S_ISREG(s.st_mode) && !S_ISDIR(s.st_mode);
            r[i].dev = s.st_dev;
            r[i].ino = s.st_ino;
        }
    }
    /* each written path against every use given before it, then against the reads
     * given after it (a write before a write is met from the second's side) */
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        if (uses[i].use != Q4H_WRITE && uses[i].use != Q4H_WRITE_DUMPS)
            continue;
        for (size_t j = 0; j < n && st == Q4_OK; j++) {
            bool other_writes = uses[j].use == Q4H_WRITE || uses[j].use == Q4H_WRITE_DUMPS;
            if (j == i || (other_writes && j > i))
                continue;
            st = check_pair(&r[i], &r[j], err);
            if (st == Q4_OK && other_writes)   /* a file in the other's dump folders */
                st = check_pair(&r[j], &r[i], err);
        }
    }
    for (size_t i = 0; r && i < n; i++)
        free(r[i].path);
    free(r);
    return st;
}
