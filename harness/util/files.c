/* files.c: q4h_read_file (files.h), the harness's reader of whole files, through
 * q4_read_regular (contract/q4_file.c: a regular file only, never blocking, its size
 * checked before reading); q4h_read_spirv; and q4h_create_at, the dumps' writer of
 * new files that never follows a link. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *q4h_read_file(const char *path, size_t *size)
{
    return q4_read_regular(path, Q4H_FILE_MAX, size);
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
                       "%s: cannot read %s: %s", what, shown, q4_file_strerror(errno));
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

int q4h_create_at(int dirfd, const char *name)
{
    if (unlinkat(dirfd, name, 0) != 0 && errno != ENOENT && errno != EISDIR)
        return -1;   /* EISDIR (a folder there): the open says EEXIST */
    return openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                  0666);
}

FILE *q4h_fcreate_at(int dirfd, const char *name)
{
    int fd = q4h_create_at(dirfd, name);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}
