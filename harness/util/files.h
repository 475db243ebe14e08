/* files.h: reading a whole file, for the harness's file inputs (--baseline, --kernel,
 * replay's case.json), and creating a dump's files without following links. */
#ifndef Q4H_FILES_H
#define Q4H_FILES_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "q4_contract.h"
#include "q4_file.h"

/* The largest input read whole: far above any SPIR-V module or report. */
#define Q4H_FILE_MAX ((size_t)1 << 30)

/* The whole file at path, NUL-terminated; *size (when size is non-NULL) gets its
 * length without the NUL. NULL with errno set when it cannot be read: EISDIR for a
 * folder, Q4_ENOTREG for a FIFO, device or socket (never read: a FIFO without a
 * writer blocked forever), EFBIG past Q4H_FILE_MAX (from its size, before reading),
 * or what open/read said; q4_file_strerror words them. Caller frees. */
char *q4h_read_file(const char *path, size_t *size);

/* A SPIR-V module's words (malloc'ed) from path; Q4_ERR_ARG "WHAT: ..." when it
 * cannot be read or is not SPIR-V (size, magic number). */
q4_status q4h_read_spirv(const char *path, const char *what, uint32_t **words, size_t *n,
                         q4_error *err);

/* A new file `name` in the folder dirfd (AT_FDCWD: name is a path) to write: what is
 * there is unlinked first (a symbolic link is removed, never followed), then the file
 * is created with O_CREAT | O_EXCL | O_NOFOLLOW, so that a link or file planted in
 * between fails the open instead of being written through. The fd, or -1 with errno. */
int q4h_create_at(int dirfd, const char *name);
/* The same as a stdio stream ("wb"), or NULL with errno. */
FILE *q4h_fcreate_at(int dirfd, const char *name);

#endif
