/* q4_file.c: q4_open_regular and q4_read_regular (q4_file.h). The size comes from
 * fstat and is checked before anything is read; reading then stops at EOF or one
 * byte past the size (a file that grows while read), so no input can make a read
 * last longer than its cap allows. */
#define _GNU_SOURCE
#include "q4_file.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *q4_file_strerror(int e)
{
    if (e == Q4_ENOTREG)
        return "not a regular file (a FIFO, device or socket is not read)";
    return strerror(e);
}

int q4_open_regular(const char *path, struct stat *st)
{
    struct stat own;
    if (!st)
        st = &own;
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    int e = 0;
    if (fstat(fd, st) != 0)
        e = errno;
    else if (S_ISDIR(st->st_mode))
        e = EISDIR;
    else if (!S_ISREG(st->st_mode))
        e = Q4_ENOTREG;
    else {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
            e = errno;
    }
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

char *q4_read_regular(const char *path, size_t max, size_t *size)
{
    struct stat st;
    int fd = q4_open_regular(path, &st);
    if (fd < 0)
        return NULL;
    if (st.st_size < 0 || (uintmax_t)st.st_size > max) {
        close(fd);
        errno = EFBIG;
        return NULL;
    }
    /* room for the size, one byte more (a file that grew) and the NUL */
    size_t cap = (size_t)st.st_size + 2, len = 0;
    char *buf = malloc(cap);
    int e = buf ? 0 : ENOMEM;
    while (!e) {
        ssize_t k = read(fd, buf + len, cap - 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            e = errno;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len > max)
            e = EFBIG;
        else if (len + 1 >= cap) {   /* it grew past its size: more room, up to max + 1 */
            size_t ncap = cap * 2 < max + 2 ? cap * 2 : max + 2;
            char *p = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!p)
                e = ncap > cap ? ENOMEM : EFBIG;
            else {
                buf = p;
                cap = ncap;
            }
        }
    }
    close(fd);
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}
