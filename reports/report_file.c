/* report_file.c: where a report document goes, and how it gets there without ever
 * destroying what the path names.
 *
 * A new path or a regular file is replaced whole after every add: the document is
 * written to an unnamed file in the target's folder (O_TMPFILE; a uniquely named
 * PATH.XXXXXX.tmp where the file system has none), fsync'd, given a unique name and
 * renamed over PATH (atomic in POSIX). A reader, or a run killed at any instant, sees
 * the old document or the new one, never a mix; two runs given the same path never
 * share a temp file; and a run killed while writing leaves no temp file behind (an
 * unnamed file vanishes with its process), but for a SIGKILL that lands between link
 * and rename: Linux cannot link an unnamed file over an existing name, so that window
 * exists, and it leaves one PATH.XXXXXX.tmp holding a whole document. The fsync before the rename keeps PATH whole across a power cut, not only
 * a killed process: without it some file systems persist the rename before the data.
 *
 * Anything else is written through, never replaced: a device (/dev/null), a FIFO, a
 * socket, the process's own stdout or stderr (`--junit out.log >out.log`), or a
 * dangling symbolic link. It is opened once, at open, and gets the final document
 * once, at close: a stream cannot take the document back to rewrite it per case.
 * A symbolic link to a regular file is followed: its target is replaced atomically
 * in the target's folder, and the link stays a link. A folder is refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "q4report_internal.h"

static q4_status io_fail(q4_error *err, const char *what, const char *path, int e)
{
    char shown[Q4_ECHO_MAX];
    return q4_fail(err, Q4_ERR_IO, "cannot %s report file %s: %s", what,
                   q4_echo(path, shown, sizeof shown), strerror(e));
}

/* write() may write less than asked (signals, pipes); loop until all is out. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t k = write(fd, data, len);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return 0;
        }
        data += k;
        len -= (size_t)k;
    }
    return 1;
}

/* The folder part of path ("." when it has none), malloc'd. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Best effort: some file systems refuse fsync on a folder, and the file itself is
 * already complete on disk by then, so a failure here is not worth failing the run. */
static void sync_folder(const char *path)
{
    char *dir = folder_of(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

/* 1 when st is the file behind this process's stdout or stderr. */
static int is_own_stream(const struct stat *st)
{
    for (int fd = 1; fd <= 2; fd++) {
        struct stat o;
        if (fstat(fd, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino)
            return 1;
    }
    return 0;
}

q4_status q4rep_file_open(q4rep_file *f, const char *path, q4_error *err)
{
    struct stat l, t;
    memset(f, 0, sizeof *f);
    f->fd = -1;
    if (!path || !path[0])
        return q4_fail(err, Q4_ERR_ARG, "a report needs a file name; got an empty one");
    mode_t mask = umask(0);   /* read the umask for the temp file's mode; put it back */
    umask(mask);
    f->mode = 0666 & ~mask;
    if (lstat(path, &l) != 0) {
        if (errno != ENOENT)
            return io_fail(err, "write", path, errno);
        f->path = strdup(path);   /* a new file: replaced atomically from the start */
        return f->path ? Q4_OK : q4_fail(err, Q4_ERR_NOMEM, "out of memory opening a report");
    }
    int followed = stat(path, &t) == 0;
    if (!followed && (!S_ISLNK(l.st_mode) || errno != ENOENT))
        return io_fail(err, "write", path, errno);
    if (followed && S_ISDIR(t.st_mode)) {
        char shown[Q4_ECHO_MAX];
        return q4_fail(err, Q4_ERR_IO, "report file %s is a directory; expected a file name",
                       q4_echo(path, shown, sizeof shown));
    }
    if (followed && S_ISREG(t.st_mode) && !is_own_stream(&t)) {
        f->path = S_ISLNK(l.st_mode) ? realpath(path, NULL) : strdup(path);
        f->mode = t.st_mode & 07777;   /* a replaced file keeps its permissions */
        return f->path ? Q4_OK : io_fail(err, "resolve", path, errno);
    }
    /* Written through: opened now, so a path we may not write fails before the run.
     * O_APPEND: a regular file behind our own stdout keeps what was printed to it. */
    f->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, f->mode);
    if (f->fd < 0)
        return io_fail(err, "open", path, errno);
    f->path = strdup(path);
    if (!f->path) {
        close(f->fd);
        f->fd = -1;
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory opening a report");
    }
    return Q4_OK;
}

void q4rep_file_close(q4rep_file *f)
{
    if (!f->path)
        return;   /* never opened (a zeroed struct has fd 0: not ours to close) */
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->path);
    f->path = NULL;
}

/* A name for the finished temp file, unique in the target's folder: PATH.XXXXXX.tmp
 * with the base name cut so that the whole stays within NAME_MAX. */
static char *temp_name(const char *path)
{
    const char *base = strrchr(path, '/');
    size_t dirlen = base ? (size_t)(base - path) + 1 : 0;
    size_t blen = strlen(path + dirlen);
    if (blen > NAME_MAX - 12)
        blen = NAME_MAX - 12;
    char *name = malloc(dirlen + blen + 12);
    if (name)
        snprintf(name, dirlen + blen + 12, "%.*s%.*s.XXXXXX.tmp", (int)dirlen, path, (int)blen,
                 path + dirlen);
    return name;
}

/* Fills the six X's before ".tmp" from a counter, the pid and the clock. */
static void fill_unique(char *name, unsigned attempt)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long v = (unsigned long long)ts.tv_nsec * 2654435761u ^
                           (unsigned long long)getpid() << 20 ^ attempt * 40503u;
    char *x = name + strlen(name) - 10;
    for (int i = 0; i < 6; i++, v /= 36)
        x[i] = digits[v % 36];
}

/* The document in an unnamed file in dir, or -1 (errno set) where O_TMPFILE or the
 * link through /proc is not available: the caller then uses a named temp file. */
static int write_unnamed(const char *dir, const char *data, size_t len, int sync_file,
                         mode_t mode, char *name, q4_status *st, q4_error *err, const char *path)
{
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    int ok = write_all(fd, data, len) && (!sync_file || fsync(fd) == 0) &&
             fchmod(fd, mode) == 0;
    if (!ok) {
        *st = io_fail(err, "write", path, errno);
        close(fd);
        return 0;
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        fill_unique(name, attempt);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0) {
            close(fd);
            return 1;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* The document in a named temp file, created exclusively under a unique name. */
static int write_named(const char *data, size_t len, int sync_file, mode_t mode, char *name,
                       q4_status *st, q4_error *err, const char *path)
{
    int fd = -1;
    for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
        fill_unique(name, attempt);
        fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        *st = io_fail(err, "write", path, errno);   /* the path the user gave, not ours */
        return 0;
    }
    int ok = write_all(fd, data, len) && (!sync_file || fsync(fd) == 0) &&
             fchmod(fd, mode) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        unlink(name);
        *st = io_fail(err, "write", path, e);
        return 0;
    }
    return 1;
}

q4_status q4rep_file_write(q4rep_file *f, const char *data, size_t len, int final,
                           int sync_file, int sync_dir, q4_error *err)
{
    if (f->fd >= 0) {
        if (!final)
            return Q4_OK;
        return write_all(f->fd, data, len) ? Q4_OK : io_fail(err, "write", f->path, errno);
    }
    char *dir = folder_of(f->path), *name = temp_name(f->path);
    q4_status st = Q4_OK;
    if (!dir || !name) {
        free(dir);
        free(name);
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory writing a report");
    }
    int done = write_unnamed(dir, data, len, sync_file, f->mode, name, &st, err, f->path);
    if (done < 0)
        done = write_named(data, len, sync_file, f->mode, name, &st, err, f->path);
    if (done > 0 && rename(name, f->path) != 0) {
        st = io_fail(err, "replace", f->path, errno);
        unlink(name);   /* leave no stray temp file beside an older, valid PATH */
    } else if (done > 0 && sync_dir) {
        sync_folder(f->path);
    }
    free(dir);
    free(name);
    return st;
}
