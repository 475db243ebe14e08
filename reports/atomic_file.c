/* atomic_file.c: replace a whole file so that it is always either the old document
 * or the new one. Write PATH.tmp, fsync it, rename it over PATH (atomic in POSIX).
 * The fsync before the rename is what keeps PATH whole across a power cut or a kernel
 * that a hung GPU driver brings down, not only across a killed process: without it
 * some file systems can persist the rename before the data, leaving PATH empty.
 * The folder itself is fsync'd only when asked (first and last write of a report):
 * a lost rename in between only means an older, still complete, document. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "q4report_internal.h"

static q4_status io_fail(q4_error *err, const char *what, const char *path, int e)
{
    return q4_fail(err, Q4_ERR_IO, "cannot %s report file %s: %s", what, path, strerror(e));
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

/* Best effort: some file systems refuse fsync on a folder, and the file itself is
 * already complete on disk by then, so a failure here is not worth failing the run. */
static void sync_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash)
        dir = strdup(".");
    else if (slash == path)
        dir = strdup("/");
    else {
        dir = malloc((size_t)(slash - path) + 1);
        if (dir) {
            memcpy(dir, path, (size_t)(slash - path));
            dir[slash - path] = '\0';
        }
    }
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

q4_status q4rep_write_atomic(const char *path, const char *data, size_t len, int sync_file,
                             int sync_dir, q4_error *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory writing report file %s", path);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);

    q4_status st = Q4_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        st = io_fail(err, "create", tmp, errno);
    } else {
        int ok = write_all(fd, data, len);
        int e = errno;
        if (ok && sync_file && fsync(fd) != 0) {
            ok = 0;
            e = errno;
        }
        if (close(fd) != 0 && ok) {
            ok = 0;
            e = errno;
        }
        if (!ok)
            st = io_fail(err, "write", tmp, e);
        else if (rename(tmp, path) != 0)
            st = io_fail(err, "replace", path, errno);
        if (st != Q4_OK)
            unlink(tmp);  /* leave no stray PATH.tmp beside an older, valid PATH */
        else if (sync_dir)
            sync_folder(path);
    }
    free(tmp);
    return st;
}
