/* files.h: reading a whole file, for the harness's file inputs (--baseline, --kernel). */
#ifndef Q4H_FILES_H
#define Q4H_FILES_H

#include <stddef.h>

/* The whole file at path, NUL-terminated; *size (when size is non-NULL) gets its
 * length without the NUL. NULL with errno set when it cannot be read. Caller frees. */
char *q4h_read_file(const char *path, size_t *size);

#endif
