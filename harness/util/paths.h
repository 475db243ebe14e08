/* paths.h: q4cts writes only where it was asked to (paths.c). Before a command
 * writes anything, every file it will write is resolved as the write will find it
 * and checked against every file it reads and every other file it writes: `run
 * --json cl.txt --caselist cl.txt` used to replace its own case list and exit 0. */
#ifndef Q4H_PATHS_H
#define Q4H_PATHS_H

#include <stddef.h>

#include "q4_contract.h"

typedef enum q4h_use {
    Q4H_READ,           /* a file read (--caselist, --baseline, --kernel, a report) */
    Q4H_READ_DUMPS,     /* a folder of dumps read: one case's folder (it holds case.json)
                           or a --dump-dir, whose sub-folders are read */
    Q4H_WRITE,          /* a file written (--json, --junit, --shader-coverage, -o) */
    Q4H_WRITE_DUMPS,    /* a --dump-dir: DIR/<case name>/ written, case names q4cts.* */
} q4h_use;

typedef struct q4h_path_use {
    const char *what;   /* the option that gave it: "--json", "--caselist", "replay" */
    const char *path;   /* as given */
    q4h_use use;
} q4h_path_use;

/* path as an absolute name without symbolic links, as a write to it would find it:
 * the real path of its folder, then its last part followed while it is a symbolic
 * link, a dangling one included (a write through it creates the target). A folder
 * that does not exist is kept as written. malloc'ed; NULL only when out of memory. */
char *q4h_path_resolve(const char *path);

/* Q4_ERR_ARG with one sentence when a written path (resolved) is one that is read
 * or another written one, or lies in a dump folder that is read or written; Q4_OK
 * when every write goes somewhere of its own. */
q4_status q4h_paths_check(const q4h_path_use *uses, size_t n, q4_error *err);

#endif
