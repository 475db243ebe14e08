/* files.c: q4h_read_file (files.h). The size comes from reading, not from seeking:
 * fopen and fseek/ftell "work" on a folder (ftell said 2^63 - 1, and malloc was asked
 * for that), and a FIFO or /dev/stdin has no size at all. Also q4h_read_spirv. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *q4h_read_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int e = 0;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (S_ISDIR(st.st_mode))
        e = EISDIR;
    else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > Q4H_FILE_MAX)
        e = EFBIG;
    else
        cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 65536;   /* +2: the NUL and a read that finds EOF */
    while (!e) {
        if (len + 1 >= cap) {   /* a growing file or a stream: room for more */
            size_t ncap = cap * 2;
            char *p = cap > Q4H_FILE_MAX ? NULL : realloc(buf, ncap);
            if (!p) {
                e = cap > Q4H_FILE_MAX ? EFBIG : ENOMEM;
                break;
            }
            buf = p;
            cap = ncap;
        } else if (!buf && !(buf = malloc(cap))) {
            e = ENOMEM;
            break;
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            e = errno;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    if (!buf && !(buf = malloc(1))) {
        errno = ENOMEM;
        return NULL;
    }
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}

#define SPIRV_MAGIC 0x07230203u

q4_status q4h_read_spirv(const char *path, const char *what, uint32_t **words, size_t *n,
                         q4_error *err)
{
    size_t size;
    char shown[Q4_ECHO_MAX];   /* a long path shortened, so the reason stays in the message */
    q4_echo(path, shown, sizeof shown);
    char *data = q4h_read_file(path, &size);
    if (!data)
        return q4_fail(err, errno == ENOMEM ? Q4_ERR_NOMEM : Q4_ERR_ARG,
                       "%s: cannot read %s: %s", what, shown, strerror(errno));
    if (size < 20 || size % 4 != 0) {
        free(data);
        return q4_fail(err, Q4_ERR_ARG, "%s: %s is not a SPIR-V module (%zu bytes; expected a "
                       "multiple of 4 of at least 20)", what, shown, size);
    }
    *words = (uint32_t *)data;   /* malloc'd, so aligned for uint32_t */
    if ((*words)[0] != SPIRV_MAGIC) {
        free(*words);
        *words = NULL;
        return q4_fail(err, Q4_ERR_ARG, "%s: %s is not a SPIR-V module (no magic number "
                       "0x07230203)", what, shown);
    }
    *n = size / 4;
    return Q4_OK;
}
