/* dump.c: --dump-dir: one folder per case with case.json and its arrays as .npy.
 *
 * Arrays keep the shape SPEC gives them (a one-row matrix stays 2-D, a vector is
 * 1-D, the loss a scalar), so np.load gives what the contract describes. Which
 * parameters an op has is its descriptor's (harness/core/ops/<op>.c): nothing here
 * names an op. */
#include "dump.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vulkan/vulkan_core.h>

#include "judge.h"
#include "npy.h"

void q4h_dump_params(const q4_case *c, const q4_inputs *in, q4h_dump_meta *m)
{
    const q4h_op *op = q4h_op_of(c);
    m->n_params = 0;
    for (const q4h_param *p = op ? op->params : NULL; p && p->key; p++) {
        if (m->n_params == Q4H_DUMP_MAX_PARAMS)
            break;
        const char *at = (p->from == 'f' ? (const char *)in : (const char *)c) + p->offset;
        q4h_dump_param *d = &m->params[m->n_params++];
        snprintf(d->key, sizeof d->key, "%s", p->key);
        d->integer = p->from != 'f';
        d->value = p->from == 'c'   ? (double)*(const int64_t *)at
                   : p->from == 'i' ? (double)*(const int *)at
                                    : (double)*(const float *)at;
    }
}

q4_status q4h_dump_params_apply(const q4h_dump_meta *m, const q4_case *c, q4_inputs *in,
                                q4_error *err)
{
    const q4h_op *op = q4h_op_of(c);
    for (const q4h_param *p = op ? op->params : NULL; p && p->key; p++) {
        if (p->from != 'f')
            continue; /* the shape comes from the case's name */
        const q4h_dump_param *d = q4h_dump_param_find(m, p->key);
        if (!d || isnan(d->value))
            return q4_fail(err, Q4_ERR_ARG, "case.json: params.%s of %s must be a number",
                           p->key, c->op);
        *(float *)((char *)in + p->offset) = (float)d->value;
    }
    return Q4_OK;
}

/* The case's folder DIR/<name>, opened into *out: DIR is made when missing (the run
 * checked that it can be), the case folder is made or reused, and it is opened with
 * O_NOFOLLOW through DIR's descriptor, so that a link planted in its place (case
 * names are predictable) fails the dump instead of sending it elsewhere. Every file
 * is then created inside that descriptor (q4h_create_at), never through a link. */
static q4_status open_case_dir(const char *dir, const char *name, int *out, q4_error *err)
{
    char shown[Q4_ECHO_MAX];
    q4_echo(dir, shown, sizeof shown);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return q4_fail(err, Q4_ERR_IO, "cannot create directory %s: %s", shown, strerror(errno));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return q4_fail(err, Q4_ERR_IO, "cannot open directory %s: %s", shown, strerror(errno));
    int fd = -1, e = 0;
    if (mkdirat(dfd, name, 0777) != 0 && errno != EEXIST)
        e = errno;
    else if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        e = errno;
    struct stat st;
    const bool link = fd < 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                      S_ISLNK(st.st_mode);
    close(dfd);
    if (link)
        return q4_fail(err, Q4_ERR_IO, "%s/%s is a symbolic link, not a folder of dumps: "
                       "q4cts writes a dump only into a folder it made; remove the link",
                       shown, name);
    if (fd < 0)
        return q4_fail(err, Q4_ERR_IO, "cannot create directory %s/%s: %s", shown, name,
                       strerror(e));
    *out = fd;
    return Q4_OK;
}

int q4h_dump_shape(const q4_case *c, q4h_shape kind, int64_t rows, int64_t cols,
                   int64_t shape[Q4H_NPY_MAX_DIMS])
{
    switch (kind) {
    case Q4H_SCALAR: return 0;
    case Q4H_VECTOR: shape[0] = cols; return 1;
    case Q4H_ACTIVATION:
        if (c->nlead > 0 && c->nlead < Q4H_NPY_MAX_DIMS) {
            memcpy(shape, c->lead, (size_t)c->nlead * sizeof shape[0]);
            shape[c->nlead] = cols;
            return c->nlead + 1;
        }
        /* fall through: no leading dims, M rows */
    case Q4H_MATRIX: break;
    }
    shape[0] = rows;
    shape[1] = cols;
    return 2;
}

const char *q4h_dump_descr(char dtype)
{
    return dtype == 'f' ? "<f4" : dtype == 'i' ? "<i4" : dtype == 'u' ? "<u4" : "|u1";
}

/* NAME[.PART].npy in the case folder dirfd. */
static q4_status save(int dirfd, const char *name, const char *part, const char *descr,
                      const void *data, int ndim, const int64_t *shape, q4_error *err)
{
    char file[256];
    if (snprintf(file, sizeof file, "%s%s%s.npy", name, part[0] ? "." : "", part) >=
        (int)sizeof file)
        return q4_fail(err, Q4_ERR_ARG, "the dump file name %s.%s is too long", name, part);
    return q4h_npy_write_at(dirfd, file, descr, data, ndim, shape, err);
}

/* One output's arrays and its entry of case.json. */
static q4_status dump_output(int sub, const q4_case *c, const q4h_output *o,
                             bool have_got,
                             q4h_dump_output *d, q4_error *err)
{
    *d = (q4h_dump_output){ .code = o->got == NULL,
                            .has_got = have_got, .guard_ok = o->guard_ok,
                            .padding_ok = o->padding_ok, .guard_bad_at = o->guard_bad_at,
                            .padding_bad_at = o->padding_bad_at, .margin = NAN };
    snprintf(d->name, sizeof d->name, "%s", o->name);
    snprintf(d->dims[0], sizeof d->dims[0], "%s", o->row_name);
    snprintf(d->dims[1], sizeof d->dims[1], "%s", o->col_name);
    d->ndim = q4h_dump_shape(c, o->shape, o->rows, o->cols, d->shape);
    d->env = o->env.alw != NULL;
    d->env_shared = o->env.shr != NULL;
    d->dot_n = o->dot_n;
    d->dot_factors = o->dot_factors;
    d->stat_margin = NAN;
    if (have_got) {
        q4h_outputs one = { .n = 1, .o = { *o } };
        q4_result r;
        q4_result_init(&r);
        q4h_judge(&one, &r);
        d->margin = r.worst_margin;
        d->stat_margin = r.stat_margin;
    }
    q4_status st;
    if (d->code) {
        st = save(sub, o->name, "code", "|u1", o->code, d->ndim, d->shape, err);
        if (st == Q4_OK)
            st = save(sub, o->name, "alt", "|u1", o->alt, d->ndim, d->shape, err);
        if (st == Q4_OK && have_got)
            st = save(sub, o->name, "got", "|u1", o->got_code, d->ndim, d->shape, err);
    } else {
        st = save(sub, o->name, "value", "<f8", o->value, d->ndim, d->shape, err);
        if (st == Q4_OK)
            st = save(sub, o->name, "bound", "<f8", o->bound, d->ndim, d->shape, err);
        if (st == Q4_OK && have_got)
            st = save(sub, o->name, "got", "<f4", o->got, d->ndim, d->shape, err);
        if (st == Q4_OK && d->env)
            st = save(sub, o->name, "env_alw", "<f4", o->env.alw, d->ndim, d->shape, err);
        if (st == Q4_OK && d->env)
            st = save(sub, o->name, "env_sd", "<f4", o->env.sd, d->ndim, d->shape, err);
        if (st == Q4_OK && d->env_shared)
            st = save(sub, o->name, "env_shr", "<f4", o->env.shr, d->ndim, d->shape, err);
    }
    if (st == Q4_OK && have_got && o->raw) {
        snprintf(d->raw_descr, sizeof d->raw_descr, "%s", q4h_dump_descr(o->raw_dtype));
        d->raw_count = (int64_t)(o->raw_bytes / q4h_npy_elem(d->raw_descr));
        st = save(sub, o->name, "raw", d->raw_descr, o->raw, 1, &d->raw_count, err);
    }
    return st;
}

q4_status q4h_dump_case(const char *dir, const q4_case *c, const q4_inputs *in,
                        const q4h_tensor *t, int n_in, const q4h_outputs *out,
                        const q4h_dump_source *src, q4_error *err)
{
    int sub = -1;
    q4h_dump_meta m = { .format = Q4H_DUMP_FORMAT, .seed = c->seed,
                         .strict = src->opt->strict != 0, .result = *src->result };
    snprintf(m.name, sizeof m.name, "%s", c->name);
    snprintf(m.op, sizeof m.op, "%s", c->op);
    snprintf(m.family, sizeof m.family, "%s", c->family);
    snprintf(m.values, sizeof m.values, "%s", c->values);
    snprintf(m.api, sizeof m.api, "%s", src->opt->api ? src->opt->api : "vulkan");
    q4h_dump_params(c, in, &m);
    if (src->device) {
        const q4vk_device_info *i = src->device;
        snprintf(m.device, sizeof m.device, "%s", i->name);
        snprintf(m.device_type, sizeof m.device_type, "%s", i->type ? i->type : "");
        snprintf(m.uuid, sizeof m.uuid, "%s", i->uuid);
        snprintf(m.driver, sizeof m.driver, "%s", i->driver_name);
        snprintf(m.driver_version, sizeof m.driver_version, "%s", i->driver_version_str);
        snprintf(m.driver_info, sizeof m.driver_info, "%s", i->driver_info);
        if (i->api_version)   /* a WebGPU adapter has none */
            snprintf(m.vulkan, sizeof m.vulkan, "%u.%u.%u", VK_API_VERSION_MAJOR(i->api_version),
                     VK_API_VERSION_MINOR(i->api_version), VK_API_VERSION_PATCH(i->api_version));
    }
    for (int i = 0; i < src->opt->n_overrides && i < Q4H_DUMP_MAX_KERNELS; i++) {
        snprintf(m.kernels[i][0], sizeof m.kernels[i][0], "%s", src->opt->overrides[i].kernel);
        snprintf(m.kernels[i][1], sizeof m.kernels[i][1], "%s", src->opt->overrides[i].path);
        m.n_kernels++;
    }

    q4_status st = open_case_dir(dir, c->name, &sub, err);
    /* an older dump of the case is incomplete from here until the new case.json */
    if (st == Q4_OK && unlinkat(sub, "case.json", 0) != 0 && errno != ENOENT)
        st = q4_fail(err, Q4_ERR_IO, "cannot replace %s/%s/case.json: %s", dir, c->name,
                     strerror(errno));
    for (int i = 0; i < n_in && st == Q4_OK; i++) {
        q4h_dump_array *a = &m.inputs[m.n_inputs++];
        snprintf(a->name, sizeof a->name, "%s", t[i].name);
        snprintf(a->descr, sizeof a->descr, "%s", q4h_dump_descr(t[i].dtype));
        a->ndim = q4h_dump_shape(c, t[i].shape, t[i].rows, t[i].cols, a->shape);
        st = save(sub, a->name, "", a->descr, t[i].data, a->ndim, a->shape, err);
    }
    for (int k = 0; k < out->n && st == Q4_OK; k++)
        st = dump_output(sub, c, &out->o[k], src->have_got, &m.outputs[m.n_outputs++], err);
    if (st == Q4_OK) /* last: a folder with case.json is complete */
        st = q4h_case_json_write_at(sub, "case.json", &m, err);
    if (sub >= 0)
        close(sub);
    if (st != Q4_OK && sub >= 0) {   /* the file's name alone: say which folder */
        char why[Q4_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        q4_fail(err, st, "%s/%s: %s", dir, c->name, why);
    }
    return st;
}
