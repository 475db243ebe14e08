/* fd_io.c: q4h_read_full and q4h_write_full (fd_io.h). */
#include "fd_io.h"

#include <errno.h>
#include <unistd.h>

bool q4h_read_full(int fd, void *buf, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t k = read(fd, (char *)buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        got += (size_t)k;
    }
    return true;
}

bool q4h_write_full(int fd, const void *buf, size_t size)
{
    const char *p = buf;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        size -= (size_t)w;
    }
    return true;
}
