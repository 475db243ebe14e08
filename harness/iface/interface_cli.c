/* interface_cli.c: the --interface files of one run (interface.h), files of one op and
 * kernel sets alike: their ops loaded before any case (each op described once) and
 * matched to the run's API, and their SPIR-V modules listed beside the --kernel
 * overrides for --shader-coverage and --bounds-check, which probe every module a run
 * may use. A float constant beyond fp32's range is refused here. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interface.h"

/* A constant float value beyond fp32's range: 1e39 became +inf in the kernel's
 * push constants, silently. Q4_ERR_ARG naming the key; a value computed from a case's
 * parameters is checked per case (q4h_if_eval_word). */
static q4_status check_float(const q4h_iface *f, const char *key, q4h_ftype t,
                             const q4h_expr *e, q4_error *err)
{
    q4h_xval v;
    char shown[Q4_ECHO_MAX];
    if (q4h_ftype_base(t) != Q4H_F_FLOAT || !e || !q4h_expr_constant_value(e, &v) ||
        !(fabs(q4h_xval_real(v)) > FLT_MAX))
        return Q4_OK;
    return q4_fail(err, Q4_ERR_ARG, "%s: %s: the value %g is beyond the range of fp32 (it "
                   "would be %sinf); a float takes a finite fp32 value", q4_echo(f->path, shown,
                   sizeof shown), key, q4h_xval_real(v), q4h_xval_real(v) < 0 ? "-" : "+");
}

static q4_status check_fields(const q4h_iface *f, const q4h_if_fields *fs, q4_error *err)
{
    q4_status st = Q4_OK;
    for (int i = 0; i < fs->n && st == Q4_OK; i++) {
        const int n = q4h_ftype_n(fs->f[i].type);
        for (int c = 0; c < n && st == Q4_OK; c++) {
            char key[112];
            snprintf(key, sizeof key, n == 1 ? "%s.value" : "%s.value[%d]", fs->f[i].key, c);
            st = check_float(f, key, fs->f[i].type, fs->f[i].value[c], err);
        }
    }
    return st;
}

static q4_status check_floats(const q4h_iface *f, q4_error *err)
{
    q4_status st = Q4_OK;
    for (int k = 0; k < f->n_steps && st == Q4_OK; k++) {
        const q4h_if_step *s = &f->steps[k];
        st = check_fields(f, &s->push, err);
        for (int b = 0; b < s->n_bind && st == Q4_OK; b++)
            if (s->bind[b].kind == Q4H_BIND_UNIFORM)
                st = check_fields(f, &s->bind[b].uniform, err);
        for (int i = 0; i < s->n_spec && st == Q4_OK; i++) {
            char key[112];
            snprintf(key, sizeof key, "%s.value", s->spec[i].key);
            st = check_float(f, key, s->spec[i].type, s->spec[i].value, err);
        }
        for (int i = 0; i < s->n_overrides && st == Q4_OK; i++) {
            char key[112];
            snprintf(key, sizeof key, "%s.value", s->overrides[i].key);
            st = check_float(f, key, s->overrides[i].type, s->overrides[i].value, err);
        }
    }
    return st;
}

q4_status q4h_ifaces_load(const char *const *paths, size_t n, q4h_iface ***out, size_t *n_out,
                          q4_error *err)
{
    q4h_iface **all = NULL;
    size_t n_all = 0;
    q4_status st = Q4_OK;
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        q4h_iface **f = NULL, **grown;
        size_t n_f = 0;
        if ((st = q4h_iface_load(paths[i], &f, &n_f, err)) != Q4_OK)
            break;
        if (!(grown = realloc(all, (n_all + n_f) * sizeof *all))) {
            q4h_ifaces_free(f, n_f);
            st = q4_fail(err, Q4_ERR_NOMEM, "out of memory");
            break;
        }
        all = grown;
        memcpy(all + n_all, f, n_f * sizeof *f);
        free(f);   /* its ops are all's now */
        const size_t first = n_all;
        n_all += n_f;
        for (size_t k = first; k < n_all && st == Q4_OK; k++)
            st = check_floats(all[k], err);
        /* a set's own ops are each described once (interface_file.c): here, across files */
        for (size_t k = first; k < n_all && st == Q4_OK; k++)
            for (size_t j = 0; j < first && st == Q4_OK; j++)
                if (all[j]->op == all[k]->op) {
                    char a[Q4_ECHO_MAX + 16], b[Q4_ECHO_MAX + 16];
                    st = q4_fail(err, Q4_ERR_ARG, "--interface: %s and %s both describe op %s; "
                                 "give one description per op", q4h_iface_where(all[j], a, sizeof a),
                                 q4h_iface_where(all[k], b, sizeof b), all[k]->op->op);
                }
    }
    if (st != Q4_OK) {
        q4h_ifaces_free(all, n_all);
        return st;
    }
    *out = all;
    *n_out = n_all;
    return Q4_OK;
}

q4_status q4h_ifaces_check_api(q4h_iface *const *f, size_t n, bool webgpu, q4_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (f[i]->wgsl != webgpu) {
            char shown[Q4_ECHO_MAX];
            return q4_fail(err, Q4_ERR_ARG, "%s: %ssteps[0].%s: a %s step runs only with --api "
                           "%s (docs/interface-format.md)",
                           q4_echo(f[i]->path, shown, sizeof shown), f[i]->at,
                           webgpu ? "spirv" : "wgsl", webgpu ? "SPIR-V" : "WGSL",
                           webgpu ? "vulkan" : "webgpu");
        }
    return Q4_OK;
}

q4_status q4h_ifaces_modules(const q4h_override *ov, int n_ov, q4h_iface *const *f, size_t n,
                             q4h_override **out, int *n_out, q4_error *err)
{
    int total = n_ov;
    for (size_t i = 0; i < n; i++)
        total += f[i]->wgsl ? 0 : f[i]->n_steps;   /* WGSL has no probes */
    q4h_override *all = calloc(total ? (size_t)total : 1, sizeof *all);
    if (!all)
        return q4_fail(err, Q4_ERR_NOMEM, "out of memory");
    if (n_ov)
        memcpy(all, ov, (size_t)n_ov * sizeof *all);
    int k = n_ov;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < f[i]->n_steps && !f[i]->wgsl; s++)
            all[k++] = (q4h_override){ f[i]->steps[s].kernel, f[i]->steps[s].module,
                                       f[i]->steps[s].words, f[i]->steps[s].n_words,
                                       f[i]->steps[s].origin };
    *out = all;
    *n_out = total;
    return Q4_OK;
}

void q4h_ifaces_describe(FILE *out, q4h_iface *const *f, size_t n_ops, const q4_case *cases,
                         size_t n)
{
    for (size_t i = 0; i < n_ops; i++) {
        char shown[Q4_ECHO_MAX + 16], text[Q4_ECHO_MAX];
        fprintf(out, "interface %s: op %s, kernel%s", q4h_iface_where(f[i], shown, sizeof shown),
                f[i]->op->op, f[i]->n_steps > 1 ? "s" : "");
        for (int s = 0; s < f[i]->n_steps; s++)
            fprintf(out, "%s %s", s ? "," : "", f[i]->steps[s].kernel);
        if (!f[i]->n_requires) {
            fprintf(out, "; no preconditions\n");
            continue;
        }
        size_t of_op = 0, out_of = 0;
        int first[Q4H_IF_MAX_REQUIRES] = { 0 };
        for (size_t c = 0; c < n; c++) {
            int which;
            if (strcmp(cases[c].op, f[i]->op->op))
                continue;
            of_op++;
            if (q4h_if_precluded(f[i], &cases[c], &which))
                out_of++, first[which]++;
        }
        fprintf(out, "; requires");
        for (int r = 0; r < f[i]->n_requires; r++) {
            const q4h_if_require *q = &f[i]->requires[r];
            fprintf(out, "%s %s", r ? ";" : "", q4_echo(q->text, text, sizeof text));
            if (q->device)
                fprintf(out, " (on the device)");
            else if (n)
                fprintf(out, " (%d case%s outside)", first[r], first[r] == 1 ? "" : "s");
        }
        if (n)
            fprintf(out, ": %zu of the %zu selected cases of op %s are within them%s\n",
                    of_op - out_of, of_op, f[i]->op->op,
                    out_of ? ", the others NotSupported" : "");
        else
            fprintf(out, "\n");
    }
}
