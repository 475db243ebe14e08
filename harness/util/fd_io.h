/* fd_io.h: whole reads and writes on a blocking pipe, the one loop that the
 * supervisor, its workers and the one-task child share (a read or write may move fewer
 * bytes than asked, and a signal may interrupt it). */
#ifndef Q4H_FD_IO_H
#define Q4H_FD_IO_H

#include <stdbool.h>
#include <stddef.h>

/* Reads size bytes whole; false at end of stream or on an error. */
bool q4h_read_full(int fd, void *buf, size_t size);
/* Writes size bytes whole; false when the other end is gone or on an error. */
bool q4h_write_full(int fd, const void *buf, size_t size);

#endif
