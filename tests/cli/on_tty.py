#!/usr/bin/env python3
"""on_tty.py: runs a command with its stdout and stderr on a pseudo-terminal of a fixed
size and prints every byte it wrote there; exits with the command's status.

    usage: on_tty.py COLUMNS COMMAND [ARG...]

Unlike script(1), nothing here depends on timing: the command's stdin is /dev/null
(no end-of-input is typed into the terminal), and the output is read until every
holder of the terminal has closed it (EIO on the master), so none is lost however
slowly the command or this reader runs. The terminal is COLUMNS wide and 50 rows
high, so what a program fits to the width does not depend on the caller's terminal.
"""
import errno
import fcntl
import os
import struct
import subprocess
import sys
import termios


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: on_tty.py COLUMNS COMMAND [ARG...]")
    columns = int(sys.argv[1])
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=slave,
                             stderr=slave, start_new_session=True)
    os.close(slave)
    out = sys.stdout.buffer
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as e:
            if e.errno != errno.EIO:   # EIO: the last holder of the slave closed it
                raise
            break
        if not chunk:
            break
        out.write(chunk)
        out.flush()
    os.close(master)
    status = child.wait()
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
