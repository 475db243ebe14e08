/* q4_file.h: reading a user's input file without ever blocking on it (q4_file.c).
 *
 * Every file q4cts reads (case lists, baselines, --kernel and --interface files and
 * the modules they name, reports, dumps) comes through here: a FIFO with no writer
 * used to block a reader forever, and /dev/zero was read for a minute before "File
 * too large". The file is opened with O_NONBLOCK (so opening a FIFO returns at once),
 * checked with fstat to be a regular file, and read only up to a cap that is checked
 * against its size before the first byte is read. */
#ifndef Q4_FILE_H
#define Q4_FILE_H

#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>

/* errno of a path that is not a regular file (a FIFO, a device, a socket); a folder
 * gets EISDIR. Linux has no errno of its own for this: ENOTBLK is one open and read
 * never set, and q4_file_strerror gives it its own words. */
#define Q4_ENOTREG ENOTBLK

/* strerror(e), but for Q4_ENOTREG: "not a regular file (a FIFO, device or socket is
 * not read)". */
const char *q4_file_strerror(int e);

/* path opened for reading (O_RDONLY | O_CLOEXEC | O_NOCTTY) when it is a regular
 * file, its stat in *st (st may be NULL); -1 with errno set otherwise: EISDIR,
 * Q4_ENOTREG, or what open or fstat said. Never blocks. */
int q4_open_regular(const char *path, struct stat *st);

/* The whole regular file at path, NUL-terminated; *size (when non-NULL) gets its
 * length without the NUL. NULL with errno set: as q4_open_regular, EFBIG when it is
 * (or grows while read to) more than max bytes, ENOMEM. Caller frees. */
char *q4_read_regular(const char *path, size_t max, size_t *size);

#endif
