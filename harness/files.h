/* files.h: reading a whole file, for the harness's file inputs (--baseline, --kernel,
 * replay's case.json). */
#ifndef Q4H_FILES_H
#define Q4H_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

/* The largest input read whole: far above any SPIR-V module or report. */
#define Q4H_FILE_MAX ((size_t)1 << 30)

/* The whole file at path, NUL-terminated; *size (when size is non-NULL) gets its
 * length without the NUL. NULL with errno set when it cannot be read: EISDIR for a
 * folder, EFBIG past Q4H_FILE_MAX, or what open/read said. A FIFO or a device is read
 * to its end. Caller frees. */
char *q4h_read_file(const char *path, size_t *size);

/* A SPIR-V module's words (malloc'ed) from path; Q4_ERR_ARG "WHAT: ..." when it
 * cannot be read or is not SPIR-V (size, magic number). */
q4_status q4h_read_spirv(const char *path, const char *what, uint32_t **words, size_t *n,
                         q4_error *err);

#endif
