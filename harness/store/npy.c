/* npy.c: the NumPy .npy format (numpy.lib.format) for dumps.
 *
 * A file is the magic "\x93NUMPY", a version byte pair, the header length (2 bytes
 * little-endian in 1.0, 4 bytes in 2.0 and 3.0), then a Python dict literal
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces to a multiple of 64 bytes and ended by '\n', then the data.
 * The writer makes exactly what np.save makes; the parser accepts what np.save
 * makes for the dtypes we write (keys in any order, any spacing) and nothing else. */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "files.h"

static const struct {
    const char *descr;
    size_t elem;
} dtypes[] = { { "<f4", 4 }, { "<f8", 8 }, { "<i4", 4 }, { "<u4", 4 }, { "|u1", 1 } };

size_t q4h_npy_elem(const char *descr)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(descr, dtypes[i].descr))
            return dtypes[i].elem;
    return 0;
}

q4_status q4h_npy_write(const char *path, const char *descr, const void *data, int ndim,
                        const int64_t *shape, q4_error *err)
{
    return q4h_npy_write_at(AT_FDCWD, path, descr, data, ndim, shape, err);
}

q4_status q4h_npy_write_at(int dirfd, const char *path, const char *descr, const void *data,
                           int ndim, const int64_t *shape, q4_error *err)
{
    char dict[256], header[320];
    size_t elem = q4h_npy_elem(descr), count = 1;
    if (!elem || ndim < 0 || ndim > Q4H_NPY_MAX_DIMS)
        return q4_fail(err, Q4_ERR_ARG, "cannot write %s: unsupported dtype %s or %d dimensions",
                       path, descr, ndim);
    /* Python's tuple syntax: (), (n,), (a, b) */
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                       descr);
    for (int i = 0; i < ndim; i++) {
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%s%lld", i ? ", " : "",
                        (long long)shape[i]);
        count *= (size_t)shape[i];
    }
    len += snprintf(dict + len, sizeof dict - (size_t)len, "%s), }", ndim == 1 ? "," : "");
    size_t total = 10 + (size_t)len + 1, padded = (total + 63) / 64 * 64;
    memcpy(header, "\x93NUMPY\x01\x00", 8);
    header[8] = (char)((padded - 10) & 0xFF);
    header[9] = (char)((padded - 10) >> 8);
    memcpy(header + 10, dict, (size_t)len);
    memset(header + 10 + len, ' ', padded - total);
    header[padded - 1] = '\n';

    FILE *f = q4h_fcreate_at(dirfd, path);   /* a new file: a link there is never followed */
    if (!f)
        return q4_fail(err, Q4_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    int ok = fwrite(header, 1, padded, f) == padded &&
             (count == 0 || fwrite(data, elem, count, f) == count);
    ok = (fclose(f) == 0) && ok;
    return ok ? Q4_OK : q4_fail(err, Q4_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

/* ---- parsing the header dict ---- */

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Consumes ch (after spaces); 0 when the next character is not ch. */
static int take(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string ('...' or "...", no escapes) into buf. */
static int take_string(cursor *c, char *buf, size_t size)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char quote = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\' || n + 1 >= size)
            return 0;
        buf[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return 0;
    c->p++;
    buf[n] = '\0';
    return 1;
}

static int take_word(cursor *c, const char *word)
{
    skip_space(c);
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

/* A non-negative decimal integer that fits int64 (Python may add an 'L'). */
static int take_int(cursor *c, int64_t *v)
{
    skip_space(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return 0;
    int64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        int d = *c->p++ - '0';
        if (x > (INT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    if (c->p < c->end && *c->p == 'L')
        c->p++;
    *v = x;
    return 1;
}

static int take_shape(cursor *c, q4h_npy *out)
{
    if (!take(c, '('))
        return 0;
    out->ndim = 0;
    for (;;) {
        if (take(c, ')'))
            return 1;
        if (out->ndim == Q4H_NPY_MAX_DIMS || !take_int(c, &out->shape[out->ndim]))
            return 0;
        out->ndim++;
        if (!take(c, ','))
            return take(c, ')');
    }
}

#define BAD(...) q4_fail(err, Q4_ERR_ARG, __VA_ARGS__)

q4_status q4h_npy_parse(const void *buf, size_t size, const char *what, q4h_npy *out,
                        q4_error *err)
{
    const unsigned char *b = buf;
    char echo[64];   /* header text quoted in a message, escaped (q4_echo) */
    *out = (q4h_npy){ 0 };
    if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return BAD("%s is not a .npy file (it does not start with \\x93NUMPY)", what);
    int major = b[6];
    size_t hlen, start;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12)
            return BAD("%s is a truncated .npy file (no header length)", what);
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        start = 12;
    } else {
        return BAD("%s is .npy format version %d.%d; versions 1.0 to 3.0 are read", what, major,
                   b[7]);
    }
    if (hlen > size - start)
        return BAD("%s is a truncated .npy file (header of %zu bytes, file of %zu)", what, hlen,
                   size);

    cursor c = { (const char *)b + start, (const char *)b + start + hlen };
    int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
    char key[32], descr[16] = "";
    if (!take(&c, '{'))
        return BAD("%s: the .npy header is not a dict", what);
    while (!take(&c, '}')) {
        if (!take_string(&c, key, sizeof key) || !take(&c, ':'))
            return BAD("%s: malformed .npy header (expected 'key': value)", what);
        if (!strcmp(key, "descr") && !have_descr) {
            if (!take_string(&c, descr, sizeof descr))
                return BAD("%s: the .npy header's descr is not a string", what);
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order") && !have_order) {
            if (take_word(&c, "True"))
                fortran = 1;
            else if (!take_word(&c, "False"))
                return BAD("%s: the .npy header's fortran_order is not True or False", what);
            have_order = 1;
        } else if (!strcmp(key, "shape") && !have_shape) {
            if (!take_shape(&c, out))
                return BAD("%s: the .npy header's shape is not a tuple of at most %d sizes",
                           what, Q4H_NPY_MAX_DIMS);
            have_shape = 1;
        } else {
            return BAD("%s: unexpected or repeated key '%s' in the .npy header", what,
                       q4_echo(key, echo, sizeof echo));
        }
        if (!take(&c, ',')) {
            if (!take(&c, '}'))
                return BAD("%s: malformed .npy header (expected ',' or '}')", what);
            break;
        }
    }
    if (!have_descr || !have_order || !have_shape)
        return BAD("%s: the .npy header lacks %s", what,
                   !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    if (fortran)
        return BAD("%s holds a Fortran-order array; save it in C order", what);
    /* numpy spells a one-byte type with '|'; '<' and '=' mean the same for it. */
    if ((descr[0] == '<' || descr[0] == '=') && !strcmp(descr + 1, "u1"))
        descr[0] = '|';
    out->elem = q4h_npy_elem(descr);
    if (!out->elem)
        return BAD("%s has dtype '%s'; expected one of <f4, <f8, <i4, <u4, |u1", what,
                   q4_echo(descr, echo, sizeof echo));
    memcpy(out->descr, descr, 4);

    out->count = 1;
    for (int i = 0; i < out->ndim; i++) {
        if (out->shape[i] != 0 && out->count > INT64_MAX / out->shape[i])
            return BAD("%s: the shape's element count overflows", what);
        out->count *= out->shape[i];
    }
    size_t data = start + hlen, left = size - data;
    if ((uint64_t)out->count > (uint64_t)left / out->elem || left != (size_t)out->count * out->elem)
        return BAD("%s holds %zu data bytes; its shape and dtype need %.0f", what, left,
                   (double)out->count * (double)out->elem);
    out->data = b + data;
    return Q4_OK;
}
