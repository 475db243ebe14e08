/* interface_cli.c: the --interface files of one run (interface.h): loaded before any
 * case (one per op) and matched to the run's API, and their SPIR-V modules listed
 * beside the --kernel overrides for --shader-coverage and --bounds-check, which probe
 * every module a run may use. */
#include <stdlib.h>
#include <string.h>

#include "interface.h"

q4_status q4h_ifaces_load(const char *const *paths, size_t n, q4h_iface ***out, q4_error *err)
{
    q4h_iface **f = calloc(n ? n : 1, sizeof *f);
    q4_status st = f ? Q4_OK : q4_fail(err, Q4_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && st == Q4_OK; i++) {
        st = q4h_iface_load(paths[i], &f[i], err);
        for (size_t j = 0; st == Q4_OK && j < i; j++)
            if (f[j]->op == f[i]->op)
                st = q4_fail(err, Q4_ERR_ARG, "--interface: %s and %s both describe op %s; give "
                             "one file per op", f[j]->path, f[i]->path, f[i]->op->op);
    }
    if (st != Q4_OK) {
        q4h_ifaces_free(f, n);
        return st;
    }
    *out = f;
    return Q4_OK;
}

q4_status q4h_ifaces_check_api(q4h_iface *const *f, size_t n, bool webgpu, q4_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (f[i]->wgsl != webgpu) {
            char shown[Q4_ECHO_MAX];
            return q4_fail(err, Q4_ERR_ARG, "%s: steps[0].%s: a %s step runs only with --api %s "
                           "(docs/interface-format.md)", q4_echo(f[i]->path, shown, sizeof shown),
                           webgpu ? "spirv" : "wgsl", webgpu ? "SPIR-V" : "WGSL",
                           webgpu ? "vulkan" : "webgpu");
        }
    return Q4_OK;
}

void q4h_ifaces_free(q4h_iface **f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        q4h_iface_free(f[i]);
    free(f);
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
                                       f[i]->steps[s].words, f[i]->steps[s].n_words };
    *out = all;
    *n_out = total;
    return Q4_OK;
}
