/* npy.h: the NumPy .npy format for dumps: writing an array, parsing one from memory.
 *
 * Only what the dumps hold: little-endian fp32, fp64, int32, uint32 and uint8, C
 * order, up to Q4H_NPY_MAX_DIMS dimensions. The parser takes a buffer and its size
 * and never reads past it, so it can be fed anything (a fuzzer does): every problem
 * is Q4_ERR_ARG with one sentence, never a crash. */
#ifndef Q4H_NPY_H
#define Q4H_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "q4_contract.h"

#define Q4H_NPY_MAX_DIMS 5   /* four leading dims and a row */

typedef struct q4h_npy {
    char descr[4];                     /* "<f4", "<f8", "<i4", "<u4" or "|u1" */
    size_t elem;                       /* bytes per element */
    int ndim;                          /* 0 is a scalar (one element) */
    int64_t shape[Q4H_NPY_MAX_DIMS];
    int64_t count;                     /* elements: the product of shape */
    const void *data;                  /* count * elem bytes inside the parsed buffer */
} q4h_npy;

/* Bytes per element of a supported descr, 0 for any other. */
size_t q4h_npy_elem(const char *descr);

/* Writes path as a format 1.0 .npy of shape[0..ndim) elements of descr. */
q4_status q4h_npy_write(const char *path, const char *descr, const void *data, int ndim,
                        const int64_t *shape, q4_error *err);
/* The same as file `path` of the folder dirfd (a dump's case folder), created anew by
 * q4h_create_at: a symbolic link there is removed, never written through. */
q4_status q4h_npy_write_at(int dirfd, const char *path, const char *descr, const void *data,
                           int ndim, const int64_t *shape, q4_error *err);

/* Parses a whole .npy file (format 1.0, 2.0 or 3.0) held in buf[0..size); out->data
 * points into buf. `what` names the file in messages. */
q4_status q4h_npy_parse(const void *buf, size_t size, const char *what, q4h_npy *out,
                        q4_error *err);

#endif
