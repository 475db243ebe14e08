/* files.c: q4h_read_file (files.h). */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *q4h_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len + 1))) {
        if (fread(buf, 1, (size_t)len, f) == (size_t)len) {
            buf[len] = '\0';
            if (size)
                *size = (size_t)len;
        } else {
            free(buf);
            buf = NULL;
            errno = EIO;
        }
    }
    int saved = errno;
    fclose(f);
    errno = saved;
    return buf;
}
