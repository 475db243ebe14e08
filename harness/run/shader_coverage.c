/* shader_coverage.c: the run's record of which kernel code ran (shader_coverage.h).
 *
 * The parent probes every kernel a run may use (built-in ones and overrides) with the
 * same options as the workers' contexts, so both sides agree on every map; the slots
 * the workers see are OR-ed, one byte each, into one shared anonymous mapping that
 * the parent reads when the run is over. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "shader_coverage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct entry {
    const char *name;
    bool overridden;
    const char *origin;               /* q4h_override.origin */
    q4spv_map *map;
    size_t at;                        /* offset of its bytes in the shared mapping: */
} entry;                              /* [at] ran, [at + 1 ..) one per coverage slot */

struct q4h_shcov {
    bool coverage, bounds, race;
    entry *e;
    int n;
    uint8_t *shared;
    size_t shared_bytes;
};

void q4h_shcov_free(q4h_shcov *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++)
        q4spv_map_free(c->e[i].map);
    free(c->e);
    if (c->shared)
        munmap(c->shared, c->shared_bytes);
    free(c);
}

q4_status q4h_shcov_create(const q4h_override *ov, int n_ov, bool coverage, bool bounds,
                           bool race, q4h_shcov **out, q4_error *err)
{
    int n_builtin;
    const q4vk_kernel *k = q4vk_kernels(&n_builtin);
    q4spv_options o = { .set = 1, .coverage = coverage, .bounds = bounds, .race = race };
    q4_status st = Q4_OK;
    q4h_shcov *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c || !(c->e = calloc((size_t)(n_builtin + n_ov), sizeof *c->e))) {
        free(c);
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory for shader coverage");
    }
    c->coverage = coverage;
    c->bounds = bounds;
    c->race = race;
    size_t bytes = 0;
    for (int i = 0; i < n_builtin + n_ov && st == Q4_OK; i++) {
        const uint32_t *words = i < n_builtin ? k[i].spirv : ov[i - n_builtin].words;
        size_t n_words = i < n_builtin ? k[i].spirv_words : ov[i - n_builtin].n_words;
        entry *e = &c->e[c->n];
        e->name = i < n_builtin ? k[i].name : ov[i - n_builtin].kernel;
        e->overridden = i >= n_builtin;
        e->origin = i >= n_builtin ? ov[i - n_builtin].origin : NULL;
        uint32_t *probed;
        size_t n_probed;
        q4_error why = { 0 };
        st = q4spv_instrument(words, n_words, &o, &probed, &n_probed, &e->map, &why);
        if (st != Q4_OK) {
            st = q4_fail(err, st, "kernel %s%s%s cannot be probed: %s", e->name,
                         e->overridden ? " from " : "",
                         e->overridden ? ov[i - n_builtin].path : "", why.msg);
            break;
        }
        free(probed);
        e->at = bytes;
        bytes += 1 + e->map->limit_base;
        c->n++;
    }
    if (st == Q4_OK) {
        c->shared_bytes = bytes ? bytes : 1;
        c->shared = mmap(NULL, c->shared_bytes, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (c->shared == MAP_FAILED) {
            c->shared = NULL;
            st = q4_fail(err, Q4_ERR_NOMEM, "cannot map %zu bytes shared for shader coverage: "
                         "%s", c->shared_bytes, strerror(errno));
        }
    }
    if (st != Q4_OK) {
        q4h_shcov_free(c);
        return st;
    }
    *out = c;
    return Q4_OK;
}

/* In the worker, after each probed dispatch. */
static void on_dispatch(void *user, const char *kernel, bool overridden, const q4spv_map *map,
                        const uint32_t *slots)
{
    q4h_shcov *c = user;
    for (int i = 0; i < c->n; i++) {
        entry *e = &c->e[i];
        if (e->overridden != overridden || strcmp(e->name, kernel) ||
            e->map->limit_base != map->limit_base)
            continue;
        uint8_t *rec = c->shared + e->at;
        rec[0] = 1;
        for (uint32_t s = 0; s < map->limit_base; s++)
            if (slots[s])
                rec[1 + s] = 1;
        return;
    }
}

q4vk_probes q4h_shcov_probes(q4h_shcov *c)
{
    return (q4vk_probes){ .coverage = c->coverage, .bounds = c->bounds, .race = c->race,
                          .dispatched = on_dispatch, .user = c };
}

static q4spv_cov cov_of(const q4h_shcov *c, int i)
{
    return (q4spv_cov){ c->e[i].name, c->e[i].map, c->shared + c->e[i].at + 1 };
}

int q4h_shcov_kernels(const q4h_shcov *c, q4h_shcov_kernel *out, int max)
{
    int n = 0;
    for (int i = 0; i < c->n && n < max; i++) {
        if (!c->shared[c->e[i].at])
            continue;
        q4spv_cov cov = cov_of(c, i);
        out[n] = (q4h_shcov_kernel){ .name = c->e[i].name, .overridden = c->e[i].overridden,
                                     .origin = c->e[i].origin, .has_lines = c->e[i].map->n_pos > 0 };
        q4spv_cov_figures_of(&cov, &out[n].f);
        n++;
    }
    return n;
}

int q4h_shcov_report(const q4h_shcov *c, q4_kernel_coverage *out, int max)
{
    q4h_shcov_kernel k[128];
    int n = q4h_shcov_kernels(c, k, max < 128 ? max : 128);
    for (int i = 0; i < n; i++) {
        const q4spv_cov_figures *f = &k[i].f;
        out[i] = (q4_kernel_coverage){
            .kernel = k[i].name, .overridden = k[i].overridden,
            .lines = f->lines, .lines_hit = f->lines_hit,
            .branches = f->branches, .branches_hit = f->branches_hit,
            .blocks = f->blocks, .blocks_hit = f->blocks_hit,
        };
    }
    return n;
}

q4_status q4h_shcov_write(const q4h_shcov *c, const char *path, q4_error *err)
{
    q4spv_cov *cov = malloc((size_t)(c->n ? c->n : 1) * sizeof *cov);
    if (!cov)
        return q4_fail(err, Q4_ERR_NOMEM, "out of host memory writing %s", path);
    /* Every built-in kernel, run or not (a kernel no case ran shows as 0%); overrides
     * only once they ran. */
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (!c->e[i].overridden || c->shared[c->e[i].at])
            cov[n++] = cov_of(c, i);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(cov);
        return q4_fail(err, Q4_ERR_IO, "cannot write the shader coverage file %s: %s", path,
                       strerror(errno));
    }
    int rc = q4spv_lcov_write(f, cov, n);
    int e = errno;
    if (fclose(f) != 0 && !rc) {
        rc = -1;
        e = errno;
    }
    free(cov);
    if (rc)
        return q4_fail(err, Q4_ERR_IO, "cannot write the shader coverage file %s: %s", path,
                       strerror(e ? e : EIO));
    return Q4_OK;
}

static double pct(uint32_t hit, uint32_t all)
{
    return all ? 100.0 * hit / all : 100.0;
}

void q4h_shcov_print(const q4h_shcov *c, FILE *f)
{
    q4h_shcov_kernel k[128];
    int n = q4h_shcov_kernels(c, k, 128);
    uint32_t lines = 0, hit = 0;
    fprintf(f, "shader coverage:\n");
    for (int i = 0; i < n; i++) {
        const q4spv_cov_figures *x = &k[i].f;
        char what[224] = "";   /* what ran: an --interface step, or a --kernel override */
        if (k[i].origin)
            snprintf(what, sizeof what, " (%s)", k[i].origin);
        else if (k[i].overridden)
            snprintf(what, sizeof what, " (override)");
        if (k[i].has_lines)
            fprintf(f, "  %-30s %5.1f%% of %4u lines, %5.1f%% of %4u branches%s\n", k[i].name,
                    pct(x->lines_hit, x->lines), x->lines, pct(x->branches_hit, x->branches),
                    x->branches, what);
        else
            fprintf(f, "  %-30s %5.1f%% of %4u blocks (no line information)%s\n", k[i].name,
                    pct(x->blocks_hit, x->blocks), x->blocks, what);
        lines += x->lines;
        hit += x->lines_hit;
    }
    fprintf(f, "  %-30s %5.1f%% of %4u lines in %d kernels run\n", "total", pct(hit, lines),
            lines, n);
}
