/* dump.c: a minimal NumPy .npy (format 1.0) writer for --dump-dir.
 * Header: magic, version, little-endian header length, then a Python dict
 * literal padded with spaces to a multiple of 64 bytes and ended by '\n'. */
#include "dump.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static q4_status write_npy(const char *dir, const char *name, const char *descr,
                           const void *data, size_t elem, int64_t rows, int64_t cols,
                           q4_error *err)
{
    char path[1024], dict[160], header[256];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (rows == 1)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }",
                 descr, (long long)cols);
    else
        snprintf(dict, sizeof dict,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }", descr,
                 (long long)rows, (long long)cols);
    size_t len = strlen(dict), total = 10 + len + 1;
    size_t padded = (total + 63) / 64 * 64;
    memcpy(header, "\x93NUMPY\x01\x00", 8);
    header[8] = (char)((padded - 10) & 0xFF);
    header[9] = (char)((padded - 10) >> 8);
    memcpy(header + 10, dict, len);
    memset(header + 10 + len, ' ', padded - total);
    header[padded - 1] = '\n';

    FILE *f = fopen(path, "wb");
    if (!f)
        return q4_fail(err, Q4_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    size_t n = (size_t)(rows * cols);
    int ok = fwrite(header, 1, padded, f) == padded && fwrite(data, elem, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    return ok ? Q4_OK : q4_fail(err, Q4_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

static q4_status make_dir(const char *path, q4_error *err)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return q4_fail(err, Q4_ERR_IO, "cannot create directory %s: %s", path, strerror(errno));
    return Q4_OK;
}

q4_status q4h_dump_case(const char *dir, const q4_case *c, const q4h_tensor *in, int n_in,
                        const q4h_outputs *out, q4_error *err)
{
    char sub[768], name[96];
    q4_status st = make_dir(dir, err);
    snprintf(sub, sizeof sub, "%s/%s", dir, c->name);
    if (st == Q4_OK)
        st = make_dir(sub, err);
    for (int i = 0; i < n_in && st == Q4_OK; i++) {
        const q4h_tensor *t = &in[i];
        const char *descr = t->dtype == 'f' ? "<f4" : t->dtype == 'i' ? "<i4"
                          : t->dtype == 'u' ? "<u4" : "|u1";
        st = write_npy(sub, t->name, descr, t->data, t->dtype == 'b' ? 1 : 4, t->rows, t->cols,
                       err);
    }
    /* Three arrays per output: a real one's truth, bound and result, a code one's
     * code, alternative code and result. */
    typedef struct npy_part {
        const char *suffix, *descr;
        const void *data;
        size_t elem;
    } npy_part;
    for (int k = 0; k < out->n && st == Q4_OK; k++) {
        const q4h_output *o = &out->o[k];
        const npy_part real[3] = {{"value", "<f8", o->value, 8}, {"bound", "<f8", o->bound, 8},
                                  {"got", "<f4", o->got, 4}};
        const npy_part code[3] = {{"code", "|u1", o->code, 1}, {"alt", "|u1", o->alt, 1},
                                  {"got", "|u1", o->got_code, 1}};
        const npy_part *p = o->got ? real : code;
        for (int j = 0; j < 3 && st == Q4_OK; j++) {
            snprintf(name, sizeof name, "%s.%s", o->name, p[j].suffix);
            st = write_npy(sub, name, p[j].descr, p[j].data, p[j].elem, o->rows, o->cols, err);
        }
    }
    return st;
}
